//! A Foxglove layout written next to the recording (`foxglove_layout.json`): imported in
//! Foxglove with `recording.mcap` open, it shows the run without setup — each vehicle's
//! speed and link state over time, every link's one-way latency per probe window, and each
//! vehicle's trajectory. It names only topics the recording holds.
//!
//! The latency comes from the ground station's windows on the network topic (JSON in a
//! `std_msgs/msg/String`), which a plot cannot read: the layout carries a user script that
//! turns each window into `{link, latency_ms}` on [`LATENCY_SCRIPT_TOPIC`], as the link
//! analysis estimates it (half the mean round trip; a window nothing answered has none).

use super::VehiclePlot;
use crate::model::NETWORK_TOPIC;
use serde_json::{json, Map, Value as Json};

/// The layout's file name in the run directory.
pub const LAYOUT_FILE: &str = "foxglove_layout.json";

/// Where the layout's user script publishes each probe window's latency (inside Foxglove).
pub const LATENCY_SCRIPT_TOPIC: &str = "/studio_script/link_latency";

/// The user script: a window of the network topic in, `{link, latency_ms}` out.
const LATENCY_SCRIPT: &str = r#"// fieldproof: one point per probe window of the ground station (one-way latency =
// half the mean round trip of the window's answers; nothing answered: no point).
import { Input } from "./types";

type Output = { link: string; latency_ms: number; replies: number; sent: number };

export const inputs = ["/fieldproof/network"];
export const output = "/studio_script/link_latency";

export default function script(event: Input<"/fieldproof/network">): Output | undefined {
  const w = JSON.parse(event.message.data);
  if (!w.replies) {
    return undefined;
  }
  return { link: w.link, latency_ms: w.sum_ms / w.replies / 2, replies: w.replies, sent: w.sent };
}
"#;

/// One series of a plot: `field` of `topic`, named `label`.
fn series(topic: &str, field: &str, label: &str) -> Json {
    json!({
        "value": format!("{topic}.{field}"),
        "enabled": true,
        "timestampMethod": "receiveTime",
        "label": label,
    })
}

/// A plot panel over time.
fn plot(title: &str, paths: Vec<Json>) -> Json {
    json!({
        "title": title,
        "paths": paths,
        "showLegend": true,
        "legendDisplay": "floating",
        "showXAxisLabels": true,
        "showYAxisLabels": true,
        "isSynced": true,
        "xAxisVal": "timestamp",
    })
}

/// The panels `ids` side by side (`row`) or stacked (`column`), equal shares.
fn split(ids: &[String], direction: &str) -> Json {
    match ids {
        [] => Json::Null,
        [one] => json!(one),
        [first, rest @ ..] => json!({
            "first": first,
            "second": split(rest, direction),
            "direction": direction,
            "splitPercentage": 100.0 / ids.len() as f64,
        }),
    }
}

/// The layout for a run of `vehicles` whose recording holds the topics `recorded`: the
/// time plots stacked on the left, one trajectory plot per vehicle on the right. A series
/// whose topic the recording lacks is left out, and a panel without series too.
pub fn layout(vehicles: &[VehiclePlot], recorded: &[&str]) -> Json {
    let has = |topic: &str| recorded.contains(&topic);
    let mut config = Map::new();
    let mut user_nodes = Map::new();
    let (mut over_time, mut trajectories) = (Vec::new(), Vec::new());
    let mut add = |panels: &mut Vec<String>, id: String, panel: Json| {
        config.insert(id.clone(), panel);
        panels.push(id);
    };
    let speed: Vec<Json> = vehicles
        .iter()
        .filter(|v| has(&v.odometry))
        .map(|v| series(&v.odometry, "twist.twist.linear.x", &v.name))
        .collect();
    if !speed.is_empty() {
        add(
            &mut over_time,
            "Plot!speed".into(),
            plot("speed (m/s)", speed),
        );
    }
    let link: Vec<Json> = vehicles
        .iter()
        .filter(|v| has(&v.link_state))
        .map(|v| series(&v.link_state, "data", &v.name))
        .collect();
    if !link.is_empty() {
        add(
            &mut over_time,
            "Plot!link_state".into(),
            plot("link_state (1 up, 0 down)", link),
        );
    }
    if has(NETWORK_TOPIC) {
        user_nodes.insert(
            "fieldproof_link_latency".into(),
            json!({"name": "link_latency", "sourceCode": LATENCY_SCRIPT}),
        );
        let latency = vehicles
            .iter()
            .map(|v| {
                series(
                    &format!("{LATENCY_SCRIPT_TOPIC}{{link==\"{}\"}}", v.name),
                    "latency_ms",
                    &v.name,
                )
            })
            .collect();
        add(
            &mut over_time,
            "Plot!link_latency".into(),
            plot("one-way latency per probe window (ms)", latency),
        );
    }
    for v in vehicles.iter().filter(|v| has(&v.truth)) {
        let mut panel = plot(
            &format!("{}: trajectory (north against east, m)", v.name),
            vec![series(&v.truth, "pose.position.y", &v.name)],
        );
        panel["xAxisVal"] = json!("custom");
        panel["xAxisPath"] =
            json!({"value": format!("{}.pose.position.x", v.truth), "enabled": true});
        add(
            &mut trajectories,
            format!("Plot!trajectory_{}", v.name),
            panel,
        );
    }
    let columns: Vec<Json> = [split(&over_time, "column"), split(&trajectories, "column")]
        .into_iter()
        .filter(|c| !c.is_null())
        .collect();
    let tree = match columns.as_slice() {
        [left, right] => json!({
            "first": left, "second": right, "direction": "row", "splitPercentage": 60.0,
        }),
        [one] => one.clone(),
        _ => Json::Null,
    };
    json!({
        "configById": config,
        "globalVariables": {},
        "userNodes": user_nodes,
        "playbackConfig": {"speed": 1.0},
        "layout": tree,
    })
}

/// The recorded topics a layout reads: those of its series and x axes, and its user
/// scripts' inputs (the scripts' own outputs are made in Foxglove, not recorded).
pub fn topics(layout: &Json) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let topic_of = |path: &str| {
        path.split(['.', '{'])
            .next()
            .unwrap_or_default()
            .to_string()
    };
    for panel in layout["configById"]
        .as_object()
        .into_iter()
        .flat_map(|c| c.values())
    {
        let paths = panel["paths"].as_array().into_iter().flatten();
        for value in paths
            .chain([&panel["xAxisPath"]])
            .filter_map(|p| p["value"].as_str())
        {
            out.push(topic_of(value));
        }
    }
    for script in layout["userNodes"]
        .as_object()
        .into_iter()
        .flat_map(|n| n.values())
    {
        let source = script["sourceCode"].as_str().unwrap_or_default();
        for line in source
            .lines()
            .filter(|l| l.starts_with("export const inputs"))
        {
            out.extend(
                line.split('"')
                    .filter(|part| part.starts_with('/'))
                    .map(str::to_string),
            );
        }
    }
    out.retain(|t| !t.starts_with("/studio_script/"));
    out.sort();
    out.dedup();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vehicle(name: &str) -> VehiclePlot {
        VehiclePlot {
            name: name.into(),
            odometry: format!("/{name}/odom"),
            link_state: format!("/{name}/link_state"),
            truth: format!("/fieldproof/truth/{name}/pose"),
            mode: None,
        }
    }

    #[test]
    fn the_layout_names_only_recorded_topics_and_plots_latency_through_its_script() {
        let recorded = [
            "/ugv1/odom",
            "/ugv1/link_state",
            "/fieldproof/truth/ugv1/pose",
            "/ugv2/odom",
            "/fieldproof/truth/ugv2/pose",
            NETWORK_TOPIC,
        ];
        let l = layout(&[vehicle("ugv1"), vehicle("ugv2")], &recorded);
        let read = topics(&l);
        assert!(
            read.iter().all(|t| recorded.contains(&t.as_str())),
            "{read:?}"
        );
        assert_eq!(read.len(), recorded.len(), "{read:?}");
        // ugv2 has no link_state in the recording: one series only.
        assert_eq!(
            l["configById"]["Plot!link_state"]["paths"]
                .as_array()
                .unwrap()
                .len(),
            1
        );
        assert_eq!(
            l["configById"]["Plot!link_latency"]["paths"][1]["value"],
            "/studio_script/link_latency{link==\"ugv2\"}.latency_ms"
        );
        assert_eq!(
            l["configById"]["Plot!trajectory_ugv2"]["xAxisPath"]["value"],
            "/fieldproof/truth/ugv2/pose.pose.position.x"
        );
        // Three time plots on the left, two trajectories on the right.
        assert_eq!(l["layout"]["direction"], "row");
        assert_eq!(l["layout"]["first"]["first"], "Plot!speed");
        assert_eq!(l["layout"]["second"]["second"], "Plot!trajectory_ugv2");
    }

    #[test]
    fn without_a_network_there_is_no_latency_panel_nor_script() {
        let l = layout(&[vehicle("quad1")], &["/quad1/odom"]);
        assert!(l["configById"].get("Plot!link_latency").is_none());
        assert_eq!(l["userNodes"], json!({}));
        assert_eq!(l["layout"], "Plot!speed");
        assert_eq!(topics(&l), ["/quad1/odom"]);
    }
}
