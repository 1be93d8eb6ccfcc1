//! A link's one-way latency over time for the report: a point per probe window (the ground
//! station's windows on the network topic, placed at simulation time by the recorder) over
//! each period of the link analysis, with the band its verdict accepts or its outage.

use super::plots::{self, EntryBand, ExpectedPeriod};
use super::RunRecord;
use crate::store::Store;
use fieldproof_link::analysis::{latency_tolerance_ms, Measurement, Window};
use serde_json::Value as Json;

/// The probe windows of `link` on the network topic: (time, one-way latency as the link
/// analysis estimates it, half the mean round trip; `None` when nothing answered).
pub(super) fn windows(store: &Store, link: &str) -> Vec<(f64, Option<f64>)> {
    store
        .samples(crate::model::NETWORK_TOPIC)
        .iter()
        .filter_map(|(t, m)| {
            let w: Window = serde_json::from_str(m.get("data")?.as_str()?).ok()?;
            (w.link == link).then(|| (*t, Measurement::from_windows([&w]).latency_ms))
        })
        .collect()
}

/// The periods of one link of run.json's link analysis (`network.periods.links.<link>`), in
/// simulation time: the analysis counts wall-clock seconds from the timeline's start, and
/// `sim_per_wall` converts them; a period still lasting ends at `end_s`.
pub(super) fn periods(link_report: &Json, end_s: f64, sim_per_wall: f64) -> Vec<ExpectedPeriod> {
    link_report["periods"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|p| {
            let from_s = p["from_s"].as_f64().unwrap_or(0.0) * sim_per_wall;
            let to_s = p["to_s"]
                .as_f64()
                .map(|t| t * sim_per_wall)
                .unwrap_or(end_s)
                .max(from_s);
            let expected = &p["expected"];
            let drop = expected["loss_pct"].as_f64().is_some_and(|l| l >= 100.0);
            let latency = expected["latency_ms"].as_f64().unwrap_or(0.0);
            let jitter = expected["jitter_ms"].as_f64().unwrap_or(0.0);
            let replies = p["measurement"]["replies"].as_u64().unwrap_or(0);
            ExpectedPeriod {
                from_s,
                to_s,
                profile: p["profile"].as_str().unwrap_or("?").to_string(),
                latency_ms: (!drop)
                    .then(|| (latency, latency_tolerance_ms(latency, jitter, replies))),
            }
        })
        .collect()
}

/// One plot per link of the run's link analysis: (title, file, SVG).
pub(super) fn plots(
    r: &RunRecord,
    store: &Store,
    entries: &[EntryBand],
) -> Vec<(String, String, String)> {
    let Some(network) = &r.network else {
        return Vec::new();
    };
    let Some(links) = network
        .get("periods")
        .and_then(|p| p.get("links"))
        .and_then(Json::as_object)
    else {
        return Vec::new();
    };
    let planned = if r.real_time_factor > 0.0 {
        r.real_time_factor
    } else {
        1.0
    };
    let sim_per_wall = network
        .get("sim_s_per_wall_s")
        .and_then(Json::as_f64)
        .filter(|k| *k > 0.0)
        .unwrap_or(planned);
    links
        .iter()
        .filter_map(|(link, report)| {
            let title = format!("link {link}: one-way latency over time");
            let svg = plots::latency_over_time(
                &title,
                &windows(store, link),
                &periods(report, r.timeline_duration_s, sim_per_wall),
                entries,
            )
            .ok()?;
            Some((title, format!("{link}_latency.svg"), svg))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_window_without_answers_has_no_latency_and_other_links_are_left_out() {
        let mut store = Store::new();
        let window = |link: &str, replies: u64, sum_ms: f64| {
            json!({"data": json!({
                "t": 1.0, "link": link, "sent": 10, "replies": replies, "sum_ms": sum_ms,
                "sumsq_ms2": 0.0, "min_ms": null, "max_ms": null,
            })
            .to_string()})
        };
        let topic = crate::model::NETWORK_TOPIC;
        store.push(topic, 1.0, window("ugv1", 10, 1200.0));
        store.push(topic, 2.0, window("ugv1", 0, 0.0));
        store.push(topic, 2.0, window("ugv2", 10, 400.0));
        store.push(topic, 3.0, json!({"data": "not a window"}));
        assert_eq!(
            windows(&store, "ugv1"),
            vec![(1.0, Some(60.0)), (2.0, None)]
        );
        assert_eq!(windows(&store, "ugv2"), vec![(2.0, Some(20.0))]);
    }

    #[test]
    fn periods_are_placed_in_simulation_time_with_the_verdicts_band() {
        let report = json!({"periods": [
            {"profile": "lte_rural", "from_s": null, "to_s": 8.0,
             "expected": {"latency_ms": 60.0, "jitter_ms": 20.0, "loss_pct": 1.0},
             "measurement": {"replies": 30}},
            {"profile": "drop", "from_s": 8.0, "to_s": 38.0,
             "expected": {"latency_ms": 0.0, "loss_pct": 100.0}},
            {"profile": "lan", "from_s": 38.0, "to_s": null,
             "expected": {"latency_ms": 1.0, "loss_pct": 0.0}},
        ]});
        let p = periods(&report, 25.0, 0.25);
        assert_eq!(
            p,
            vec![
                ExpectedPeriod {
                    from_s: 0.0,
                    to_s: 2.0,
                    profile: "lte_rural".into(),
                    // 30 replies of a 20 ms jitter: three standard errors, 7.75 ms.
                    latency_ms: Some((60.0, latency_tolerance_ms(60.0, 20.0, 30))),
                },
                ExpectedPeriod {
                    from_s: 2.0,
                    to_s: 9.5,
                    profile: "drop".into(),
                    latency_ms: None,
                },
                ExpectedPeriod {
                    from_s: 9.5,
                    to_s: 25.0,
                    profile: "lan".into(),
                    latency_ms: Some((1.0, fieldproof_link::analysis::LATENCY_FLOOR_MS)),
                },
            ]
        );
    }
}
