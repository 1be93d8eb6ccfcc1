//! The report's plots as SVG (plotters): speed and link state over time, link latency per
//! period, and the trajectory on the world map.

use fieldproof_robots::{Shape, World};
use plotters::prelude::*;

/// A plot that cannot be drawn.
pub type PlotResult = Result<String, String>;

fn err<E: std::fmt::Display>(e: E) -> String {
    e.to_string()
}

fn range(vals: impl Iterator<Item = f64>, pad: f64, min_span: f64) -> (f64, f64) {
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for v in vals.filter(|v| v.is_finite()) {
        lo = lo.min(v);
        hi = hi.max(v);
    }
    if !lo.is_finite() {
        return (0.0, min_span);
    }
    if hi - lo < min_span {
        hi = lo + min_span;
    }
    let p = (hi - lo) * pad;
    (lo - p, hi + p)
}

/// Speed (m/s) and link state (1 up, 0 down) of one vehicle over simulation time, two
/// panels; `events` marks entries (time, name) as vertical lines.
pub fn speed_and_link(
    title: &str,
    speed: &[(f64, f64)],
    link: &[(f64, f64)],
    events: &[(f64, String)],
) -> PlotResult {
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (900, 520)).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        let (top, bottom) = root.split_vertically(340);
        let (t0, t1) = range(
            speed
                .iter()
                .chain(link)
                .map(|p| p.0)
                .chain(events.iter().map(|e| e.0)),
            0.0,
            1.0,
        );
        let (_, vmax) = range(speed.iter().map(|p| p.1), 0.1, 0.1);
        let mut c = ChartBuilder::on(&top)
            .caption(title, ("sans-serif", 20))
            .margin(10)
            .x_label_area_size(30)
            .y_label_area_size(50)
            .build_cartesian_2d(t0..t1, 0.0..vmax.max(0.1))
            .map_err(err)?;
        c.configure_mesh()
            .y_desc("speed (m/s)")
            .draw()
            .map_err(err)?;
        for (t, name) in events {
            c.draw_series(LineSeries::new(vec![(*t, 0.0), (*t, vmax)], RED.mix(0.5)))
                .map_err(err)?
                .label(name.clone());
        }
        c.draw_series(LineSeries::new(
            speed.iter().map(|&(t, v)| (t, v.abs())),
            &BLUE,
        ))
        .map_err(err)?;
        let mut c2 = ChartBuilder::on(&bottom)
            .margin(10)
            .x_label_area_size(30)
            .y_label_area_size(50)
            .build_cartesian_2d(t0..t1, -0.1..1.1)
            .map_err(err)?;
        c2.configure_mesh()
            .x_desc("simulation time from the timeline's start (s)")
            .y_desc("link_state")
            .y_labels(2)
            .draw()
            .map_err(err)?;
        // A step line: hold each value until the next sample.
        let mut steps = Vec::new();
        for w in link.windows(2) {
            steps.push(w[0]);
            steps.push((w[1].0, w[0].1));
        }
        if let Some(l) = link.last() {
            steps.push(*l);
        }
        c2.draw_series(LineSeries::new(steps, GREEN.stroke_width(2)))
            .map_err(err)?;
        root.present().map_err(err)?;
    }
    Ok(svg)
}

/// One bar per link period: measured one-way latency (ms) and the profile's (a dash).
pub fn latency_per_period(title: &str, periods: &[(String, Option<f64>, f64)]) -> PlotResult {
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (900, 360)).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        let n = periods.len().max(1);
        let (_, ymax) = range(
            periods
                .iter()
                .flat_map(|p| [p.1.unwrap_or(0.0), p.2])
                .chain([1.0]),
            0.15,
            1.0,
        );
        let mut c = ChartBuilder::on(&root)
            .caption(title, ("sans-serif", 20))
            .margin(10)
            .x_label_area_size(40)
            .y_label_area_size(50)
            .build_cartesian_2d(0.0..n as f64, 0.0..ymax)
            .map_err(err)?;
        let labels: Vec<String> = periods.iter().map(|p| p.0.clone()).collect();
        c.configure_mesh()
            .disable_x_mesh()
            .x_labels(n + 1)
            .x_label_formatter(&|x| {
                let i = x.floor() as usize;
                if (x - x.floor() - 0.0).abs() < 1e-9 {
                    labels.get(i).cloned().unwrap_or_default()
                } else {
                    String::new()
                }
            })
            .y_desc("one-way latency (ms)")
            .draw()
            .map_err(err)?;
        for (i, (_, measured, expected)) in periods.iter().enumerate() {
            let x = i as f64;
            if let Some(m) = measured {
                c.draw_series(std::iter::once(Rectangle::new(
                    [(x + 0.2, 0.0), (x + 0.8, *m)],
                    BLUE.mix(0.6).filled(),
                )))
                .map_err(err)?;
            }
            c.draw_series(LineSeries::new(
                vec![(x + 0.1, *expected), (x + 0.9, *expected)],
                RED.stroke_width(3),
            ))
            .map_err(err)?;
        }
        root.present().map_err(err)?;
    }
    Ok(svg)
}

/// The world (bounds, obstacles) and each vehicle's path (x, y), its start and the goals.
pub fn trajectory(
    world: &World,
    paths: &[(String, Vec<(f64, f64)>)],
    goals: &[(String, (f64, f64))],
) -> PlotResult {
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (900, 700)).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        let (mut x0, mut x1, mut y0, mut y1) = match &world.bounds {
            Some(b) => (b.min[0], b.max[0], b.min[1], b.max[1]),
            None => (-10.0, 10.0, -10.0, 10.0),
        };
        for (x, y) in paths
            .iter()
            .flat_map(|p| p.1.iter())
            .chain(goals.iter().map(|g| &g.1))
        {
            x0 = x0.min(*x - 1.0);
            x1 = x1.max(*x + 1.0);
            y0 = y0.min(*y - 1.0);
            y1 = y1.max(*y + 1.0);
        }
        let mut c = ChartBuilder::on(&root)
            .caption(format!("trajectory on {}", world.name), ("sans-serif", 20))
            .margin(10)
            .x_label_area_size(30)
            .y_label_area_size(40)
            .build_cartesian_2d(x0..x1, y0..y1)
            .map_err(err)?;
        c.configure_mesh()
            .x_desc("east (m)")
            .y_desc("north (m)")
            .draw()
            .map_err(err)?;
        for ob in &world.obstacles {
            let [cx, cy] = ob.center;
            let poly: Vec<(f64, f64)> = match ob.shape {
                Shape::Circle => {
                    let r = ob.radius_m.unwrap_or(0.1);
                    (0..24)
                        .map(|k| {
                            let a = k as f64 / 24.0 * std::f64::consts::TAU;
                            (cx + r * a.cos(), cy + r * a.sin())
                        })
                        .collect()
                }
                Shape::Box => {
                    let [w, h] = ob.size_m.unwrap_or([0.2, 0.2]);
                    let (s, co) = ob.yaw_deg.to_radians().sin_cos();
                    [(-w, -h), (w, -h), (w, h), (-w, h)]
                        .iter()
                        .map(|(dx, dy)| {
                            let (dx, dy) = (dx / 2.0, dy / 2.0);
                            (cx + dx * co - dy * s, cy + dx * s + dy * co)
                        })
                        .collect()
                }
            };
            c.draw_series(std::iter::once(Polygon::new(
                poly,
                BLACK.mix(0.35).filled(),
            )))
            .map_err(err)?;
        }
        let colours = [BLUE, MAGENTA, CYAN, GREEN];
        for (i, (name, path)) in paths.iter().enumerate() {
            let col = colours[i % colours.len()];
            c.draw_series(LineSeries::new(path.iter().copied(), col.stroke_width(2)))
                .map_err(err)?
                .label(name.clone());
            if let Some(&(x, y)) = path.first() {
                c.draw_series(std::iter::once(Circle::new((x, y), 5, col.filled())))
                    .map_err(err)?;
            }
        }
        for (name, (x, y)) in goals {
            c.draw_series(std::iter::once(Cross::new(
                (*x, *y),
                8,
                RED.stroke_width(3),
            )))
            .map_err(err)?;
            c.draw_series(std::iter::once(Text::new(
                name.clone(),
                (*x, *y),
                ("sans-serif", 14),
            )))
            .map_err(err)?;
        }
        root.present().map_err(err)?;
    }
    Ok(svg)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plots_render_svg() {
        let speed: Vec<(f64, f64)> = (0..100).map(|i| (i as f64 * 0.5, 0.8)).collect();
        let link = vec![(0.0, 1.0), (14.0, 0.0), (42.0, 1.0)];
        let s = speed_and_link("ugv1", &speed, &link, &[(10.0, "link_outage".into())]).unwrap();
        assert!(s.starts_with("<svg") && s.contains("ugv1"));
        let l = latency_per_period(
            "latency",
            &[
                ("configured".into(), Some(61.0), 60.0),
                ("drop".into(), None, 0.0),
            ],
        )
        .unwrap();
        assert!(l.contains("<rect"));
        let w = World::from_yaml(
            "w.yaml",
            "name: w\norigin: {latitude_deg: 1, longitude_deg: 2, altitude_m: 0}\nbounds: {min: [-5, -5], max: [5, 5]}\nobstacles:\n  - {name: p, shape: circle, center: [1, 1], radius_m: 0.5}\n  - {name: b, shape: box, center: [-2, 0], size_m: [1, 2], yaw_deg: 30}\n",
        )
        .unwrap();
        let t = trajectory(
            &w,
            &[("ugv1".into(), vec![(0.0, 0.0), (3.0, 1.0)])],
            &[("g".into(), (3.0, 1.0))],
        )
        .unwrap();
        assert!(t.contains("<polygon") || t.contains("<path") || t.contains("polyline"));
    }
}
