//! The report's plots as SVG (plotters): speed and link state over time, a link's latency
//! over time against its profile, and the trajectory on the world map. Every time plot
//! shades the timeline's entries ([`EntryBand`]).

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

/// One firing of a timeline entry on a time axis: from its start to its end (an entry that
/// ends as it starts, `to_s == from_s`, is a line), with the entry's name.
#[derive(Debug, Clone, PartialEq)]
pub struct EntryBand {
    /// Start (s of simulation time from the timeline's start).
    pub from_s: f64,
    /// End (s).
    pub to_s: f64,
    /// The entry's name.
    pub name: String,
}

/// The colour of the timeline's entries on every time plot.
const ENTRY_COLOUR: RGBColor = RGBColor(200, 40, 40);

/// A chart over time (s) against one value, as every time plot of the report draws it.
pub(super) type TimeChart<'a, 'b> = ChartContext<
    'a,
    SVGBackend<'b>,
    plotters::coord::cartesian::Cartesian2d<
        plotters::coord::types::RangedCoordf64,
        plotters::coord::types::RangedCoordf64,
    >,
>;

/// Draws the entries on a time chart spanning `lo..hi` in its value: a shaded band from
/// start to end and a line at the start; `named`: with the entry's name at the top.
pub(super) fn draw_entry_bands(
    chart: &mut TimeChart,
    entries: &[EntryBand],
    (lo, hi): (f64, f64),
    named: bool,
) -> Result<(), String> {
    for e in entries {
        if e.to_s > e.from_s {
            chart
                .draw_series(std::iter::once(Rectangle::new(
                    [(e.from_s, lo), (e.to_s, hi)],
                    ENTRY_COLOUR.mix(0.12).filled(),
                )))
                .map_err(err)?;
        }
        chart
            .draw_series(LineSeries::new(
                vec![(e.from_s, lo), (e.from_s, hi)],
                ENTRY_COLOUR.mix(0.5),
            ))
            .map_err(err)?;
        if named {
            chart
                .draw_series(std::iter::once(Text::new(
                    e.name.clone(),
                    (e.from_s, hi),
                    ("sans-serif", 12).into_font().color(&ENTRY_COLOUR),
                )))
                .map_err(err)?;
        }
    }
    Ok(())
}

/// Speed (m/s) and link state (1 up, 0 down) of one vehicle over simulation time, two
/// panels, with the timeline's `entries` as shaded bands on both.
pub fn speed_and_link(
    title: &str,
    speed: &[(f64, f64)],
    link: &[(f64, f64)],
    entries: &[EntryBand],
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
                .chain(entries.iter().flat_map(|e| [e.from_s, e.to_s])),
            0.0,
            1.0,
        );
        let (_, vmax) = range(speed.iter().map(|p| p.1), 0.1, 0.1);
        let vmax = vmax.max(0.1);
        let mut c = ChartBuilder::on(&top)
            .caption(title, ("sans-serif", 20))
            .margin(10)
            .x_label_area_size(30)
            .y_label_area_size(50)
            .build_cartesian_2d(t0..t1, 0.0..vmax)
            .map_err(err)?;
        c.configure_mesh()
            .y_desc("speed (m/s)")
            .draw()
            .map_err(err)?;
        draw_entry_bands(&mut c, entries, (0.0, vmax), true)?;
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
        draw_entry_bands(&mut c2, entries, (-0.1, 1.1), false)?;
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

/// One period of a link as the latency plot draws it: the profile's expected one-way latency
/// with the band its verdict accepts, or an outage (a drop: nothing may answer).
#[derive(Debug, Clone, PartialEq)]
pub struct ExpectedPeriod {
    /// Start (s of simulation time from the timeline's start).
    pub from_s: f64,
    /// End (s).
    pub to_s: f64,
    /// The profile's name.
    pub profile: String,
    /// The expected latency and the deviation its verdict accepts (ms); `None`: a drop.
    pub latency_ms: Option<(f64, f64)>,
}

/// One link's one-way latency over time: a point per probe window (half the mean round trip
/// of its answers; a window nothing answered is a cross on the time axis, not a latency),
/// over each period's accepted band (green) or its outage (grey), with the timeline's
/// `entries` as shaded bands.
pub fn latency_over_time(
    title: &str,
    windows: &[(f64, Option<f64>)],
    periods: &[ExpectedPeriod],
    entries: &[EntryBand],
) -> PlotResult {
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (900, 380)).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        let (t0, t1) = range(
            windows
                .iter()
                .map(|w| w.0)
                .chain(periods.iter().flat_map(|p| [p.from_s, p.to_s]))
                .chain(entries.iter().flat_map(|e| [e.from_s, e.to_s])),
            0.0,
            1.0,
        );
        let (_, ymax) = range(
            windows
                .iter()
                .filter_map(|w| w.1)
                .chain(
                    periods
                        .iter()
                        .filter_map(|p| p.latency_ms.map(|(l, tol)| l + tol)),
                )
                .chain([0.0, 1.0]),
            0.1,
            1.0,
        );
        let mut c = ChartBuilder::on(&root)
            .caption(title, ("sans-serif", 20))
            .margin(10)
            .x_label_area_size(35)
            .y_label_area_size(55)
            .build_cartesian_2d(t0..t1, 0.0..ymax)
            .map_err(err)?;
        c.configure_mesh()
            .x_desc("simulation time from the timeline's start (s)")
            .y_desc("one-way latency (ms)")
            .draw()
            .map_err(err)?;
        for p in periods {
            match p.latency_ms {
                Some((latency, tolerance)) => {
                    c.draw_series(std::iter::once(Rectangle::new(
                        [
                            (p.from_s, (latency - tolerance).max(0.0)),
                            (p.to_s, latency + tolerance),
                        ],
                        GREEN.mix(0.25).filled(),
                    )))
                    .map_err(err)?;
                    c.draw_series(LineSeries::new(
                        vec![(p.from_s, latency), (p.to_s, latency)],
                        GREEN.stroke_width(2),
                    ))
                    .map_err(err)?;
                }
                None => {
                    c.draw_series(std::iter::once(Rectangle::new(
                        [(p.from_s, 0.0), (p.to_s, ymax)],
                        BLACK.mix(0.15).filled(),
                    )))
                    .map_err(err)?;
                    c.draw_series(std::iter::once(Text::new(
                        format!("outage ({})", p.profile),
                        (p.from_s, ymax * 0.9),
                        ("sans-serif", 12),
                    )))
                    .map_err(err)?;
                }
            }
        }
        draw_entry_bands(&mut c, entries, (0.0, ymax), true)?;
        c.draw_series(
            windows
                .iter()
                .filter_map(|&(t, latency)| latency.map(|l| Circle::new((t, l), 2, BLUE.filled()))),
        )
        .map_err(err)?;
        c.draw_series(
            windows
                .iter()
                .filter(|w| w.1.is_none())
                .map(|&(t, _)| Cross::new((t, 0.0), 4, RED.stroke_width(1))),
        )
        .map_err(err)?;
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
        let outage = [EntryBand {
            from_s: 10.0,
            to_s: 40.0,
            name: "link_outage".into(),
        }];
        let s = speed_and_link("ugv1", &speed, &link, &outage).unwrap();
        assert!(s.starts_with("<svg") && s.contains("ugv1") && s.contains("link_outage"));
        let windows: Vec<(f64, Option<f64>)> = (0..60)
            .map(|i| {
                let t = i as f64;
                (
                    t,
                    (!(10.0..40.0).contains(&t)).then_some(60.0 + (i % 5) as f64),
                )
            })
            .collect();
        let l = latency_over_time(
            "link ugv1: one-way latency",
            &windows,
            &[
                ExpectedPeriod {
                    from_s: 0.0,
                    to_s: 10.0,
                    profile: "lte_rural".into(),
                    latency_ms: Some((60.0, 6.0)),
                },
                ExpectedPeriod {
                    from_s: 10.0,
                    to_s: 40.0,
                    profile: "drop".into(),
                    latency_ms: None,
                },
            ],
            &outage,
        )
        .unwrap();
        assert!(l.contains("<rect") && l.contains("outage (drop)") && l.contains("link_outage"));
        assert!(l.contains("<circle"), "a point per answered window");
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
