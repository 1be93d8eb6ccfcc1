//! The mode timeline of a multirotor: its supervisor's mode as one coloured band per mode
//! over simulation time, above its altitude and its speed on the same time axis.

use super::plots::{draw_entry_bands, EntryBand, PlotResult};
use plotters::prelude::*;

/// The colour of a mode's band: the supervisor's five modes have fixed colours, any other
/// value one of a palette.
fn mode_colour(mode: &str, others: &[String]) -> RGBColor {
    match mode {
        "INIT" => RGBColor(150, 150, 150),
        "ACTIVE" => RGBColor(46, 160, 67),
        "HOLD" => RGBColor(235, 165, 0),
        "LAND" => RGBColor(200, 40, 40),
        "COMPLETE" => RGBColor(40, 90, 200),
        other => {
            let i = others.iter().position(|o| o == other).unwrap_or(0);
            let c = Palette99::pick(i + 3).to_rgba();
            RGBColor(c.0, c.1, c.2)
        }
    }
}

/// The bands: each change of mode to the next one (the last to `end_s`), repeats collapsed.
pub fn bands(modes: &[(f64, String)], end_s: f64) -> Vec<(f64, f64, String)> {
    let mut changes: Vec<(f64, &str)> = Vec::new();
    for (t, m) in modes {
        if changes.last().is_none_or(|(_, last)| last != m) {
            changes.push((*t, m));
        }
    }
    changes
        .iter()
        .enumerate()
        .map(|(i, (t, m))| {
            let to = changes.get(i + 1).map(|c| c.0).unwrap_or(end_s.max(*t));
            (*t, to, m.to_string())
        })
        .collect()
}

/// A step series as a line: each value held until the next sample.
fn draw_line(
    area: &DrawingArea<SVGBackend<'_>, plotters::coord::Shift>,
    (t0, t1): (f64, f64),
    series: &[(f64, f64)],
    y_desc: &str,
    x_desc: Option<&str>,
    (entries, named): (&[EntryBand], bool),
    colour: RGBColor,
) -> Result<(), String> {
    let err = |e: &dyn std::fmt::Display| e.to_string();
    let (mut lo, mut hi) = series
        .iter()
        .map(|p| p.1)
        .filter(|v| v.is_finite())
        .fold((0.0f64, 0.0f64), |(lo, hi), v| (lo.min(v), hi.max(v)));
    if hi - lo < 0.5 {
        hi = lo + 0.5;
    }
    let pad = (hi - lo) * 0.08;
    if lo < 0.0 {
        lo -= pad;
    }
    hi += pad;
    let mut c = ChartBuilder::on(area)
        .margin(10)
        .x_label_area_size(if x_desc.is_some() { 35 } else { 20 })
        .y_label_area_size(60)
        .build_cartesian_2d(t0..t1, lo..hi)
        .map_err(|e| err(&e))?;
    let mut mesh = c.configure_mesh();
    mesh.y_desc(y_desc);
    if let Some(x) = x_desc {
        mesh.x_desc(x);
    }
    mesh.draw().map_err(|e| err(&e))?;
    draw_entry_bands(&mut c, entries, (lo, hi), named)?;
    c.draw_series(LineSeries::new(
        series.iter().copied().filter(|p| p.1.is_finite()),
        colour.stroke_width(2),
    ))
    .map_err(|e| err(&e))?;
    Ok(())
}

/// The mode timeline of one vehicle: `modes` (time, mode) as coloured bands over simulation
/// time up to `end_s`, then `altitude` (m) and `speed` (m/s), with the timeline's `entries`
/// as shaded bands.
pub fn mode_timeline(
    title: &str,
    modes: &[(f64, String)],
    altitude: &[(f64, f64)],
    speed: &[(f64, f64)],
    end_s: f64,
    entries: &[EntryBand],
) -> PlotResult {
    let err = |e: &dyn std::fmt::Display| e.to_string();
    let bands = bands(modes, end_s);
    let times = bands
        .iter()
        .flat_map(|b| [b.0, b.1])
        .chain(altitude.iter().chain(speed).map(|p| p.0))
        .chain(entries.iter().flat_map(|e| [e.from_s, e.to_s]))
        .chain([0.0, end_s])
        .filter(|t| t.is_finite());
    let (t0, mut t1) = times.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), t| {
        (lo.min(t), hi.max(t))
    });
    if t1 - t0 < 1.0 {
        t1 = t0 + 1.0;
    }
    let mut others: Vec<String> = Vec::new();
    for (_, _, m) in &bands {
        let fixed = ["INIT", "ACTIVE", "HOLD", "LAND", "COMPLETE"].contains(&m.as_str());
        if !fixed && !others.contains(m) {
            others.push(m.clone());
        }
    }
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (900, 620)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| err(&e))?;
        let root = root
            .titled(title, ("sans-serif", 20))
            .map_err(|e| err(&e))?;
        let (band_and_legend, rest) = root.split_vertically(130);
        let (band_area, legend_area) = band_and_legend.split_vertically(108);
        let (alt_area, speed_area) = rest.split_vertically(225);
        let mut c = ChartBuilder::on(&band_area)
            .margin(10)
            .x_label_area_size(20)
            .y_label_area_size(60)
            .build_cartesian_2d(t0..t1, 0.0..1.0)
            .map_err(|e| err(&e))?;
        c.configure_mesh()
            .disable_y_mesh()
            .y_labels(0)
            .y_desc("mode")
            .draw()
            .map_err(|e| err(&e))?;
        let mut legend: Vec<String> = Vec::new();
        for (from, to, mode) in &bands {
            let colour = mode_colour(mode, &others);
            c.draw_series(std::iter::once(Rectangle::new(
                [(*from, 0.0), (*to, 1.0)],
                colour.mix(0.8).filled(),
            )))
            .map_err(|e| err(&e))?;
            if !legend.contains(mode) {
                legend.push(mode.clone());
            }
            // The name inside its band when the band is wide enough to hold it.
            if (to - from) / (t1 - t0) > 0.06 {
                c.draw_series(std::iter::once(Text::new(
                    mode.clone(),
                    (from + (to - from) * 0.05, 0.62),
                    ("sans-serif", 13).into_font().color(&WHITE),
                )))
                .map_err(|e| err(&e))?;
            }
        }
        // The legend on its own strip under the bands (a short band has no room for its
        // name): each mode seen, in order of appearance.
        let mut x = 70;
        for mode in &legend {
            legend_area
                .draw(&Rectangle::new(
                    [(x, 6), (x + 12, 16)],
                    mode_colour(mode, &others).filled(),
                ))
                .map_err(|e| err(&e))?;
            legend_area
                .draw(&Text::new(
                    mode.clone(),
                    (x + 16, 5),
                    ("sans-serif", 12).into_font(),
                ))
                .map_err(|e| err(&e))?;
            x += 36 + 8 * mode.chars().count().min(24) as i32;
        }
        draw_line(
            &alt_area,
            (t0, t1),
            altitude,
            "altitude (m)",
            None,
            (entries, true),
            RGBColor(90, 60, 160),
        )?;
        draw_line(
            &speed_area,
            (t0, t1),
            speed,
            "speed (m/s)",
            Some("simulation time from the timeline's start (s)"),
            (entries, false),
            BLUE,
        )?;
        root.present().map_err(|e| err(&e))?;
    }
    Ok(svg)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn modes(list: &[(f64, &str)]) -> Vec<(f64, String)> {
        list.iter().map(|(t, m)| (*t, m.to_string())).collect()
    }

    #[test]
    fn one_band_per_mode_until_the_next_and_the_last_until_the_end() {
        let m = modes(&[
            (-1.0, "INIT"),
            (1.0, "ACTIVE"),
            (1.5, "ACTIVE"),
            (12.0, "HOLD"),
            (14.0, "ACTIVE"),
            (40.0, "COMPLETE"),
        ]);
        let b = bands(&m, 60.0);
        let spans: Vec<(f64, f64, &str)> = b.iter().map(|(f, t, m)| (*f, *t, m.as_str())).collect();
        assert_eq!(
            spans,
            [
                (-1.0, 1.0, "INIT"),
                (1.0, 12.0, "ACTIVE"),
                (12.0, 14.0, "HOLD"),
                (14.0, 40.0, "ACTIVE"),
                (40.0, 60.0, "COMPLETE")
            ]
        );
        assert!(bands(&[], 60.0).is_empty());
    }

    #[test]
    fn the_timeline_renders_a_band_per_mode_with_altitude_and_speed() {
        let m = modes(&[
            (0.0, "INIT"),
            (1.0, "ACTIVE"),
            (20.0, "LAND"),
            (30.0, "EXTRA"),
        ]);
        let alt: Vec<(f64, f64)> = (0..300).map(|i| (i as f64 * 0.1, 5.0)).collect();
        let speed: Vec<(f64, f64)> = (0..300).map(|i| (i as f64 * 0.1, 1.0)).collect();
        let svg = mode_timeline(
            "quad1: supervisor mode",
            &m,
            &alt,
            &speed,
            40.0,
            &[EntryBand {
                from_s: 5.0,
                to_s: 15.0,
                name: "camera_loss".into(),
            }],
        )
        .unwrap();
        assert!(svg.starts_with("<svg"));
        for label in [
            "quad1: supervisor mode",
            "INIT",
            "ACTIVE",
            "LAND",
            "EXTRA",
            "altitude (m)",
            "speed (m/s)",
            "camera_loss",
        ] {
            assert!(svg.contains(label), "{label}");
        }
        // The fixed colours of the supervisor's modes (ACTIVE green, LAND red).
        assert!(
            svg.contains("#2EA043") || svg.contains("#2ea043"),
            "ACTIVE's green"
        );
        assert!(
            svg.contains("#C82828") || svg.contains("#c82828"),
            "LAND's red"
        );
    }
}
