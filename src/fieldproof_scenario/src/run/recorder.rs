//! The recorder phase: `recording.mcap` and the samples the assertions read, from the
//! runner's own subscriptions (started by the timeline phase, on its node) and, with a
//! network, the link's windows (`network.jsonl`) written at the end. [`Recorder`] owns the
//! file; [`finish`] closes it and hands the samples on as a [`Store`].

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::{Arc, Mutex};

use fieldproof_link::analysis::Window;
use fieldproof_runtime::msgs::{cdr, std_msgs, RosMessage};
use fieldproof_runtime::{qos, Node};
use serde_json::Value as Json;

use super::timeline::DdsOutcome;
use crate::evidence::recording::{Recording, RecordingSummary};
use crate::model::Scenario;
use crate::store::Store;

impl Recorder {
    /// A recorder writing `recording.mcap` in `dir` (a file that cannot be created is a
    /// warning at the end, not an error).
    pub(super) fn create(dir: &Path) -> Arc<Mutex<Recorder>> {
        let mut recorder = Recorder {
            samples: Vec::new(),
            latest: BTreeMap::new(),
            mcap: None,
            error: None,
        };
        match Recording::create(&dir.join("recording.mcap")) {
            Ok(r) => recorder.mcap = Some(r),
            Err(e) => recorder.error = Some(e.to_string()),
        }
        Arc::new(Mutex::new(recorder))
    }
}

/// What the recorder has: every sample (topic, simulation time in ns, message as JSON), the
/// latest message of each topic (for the timeline's conditions), the MCAP file.
pub(super) struct Recorder {
    pub(super) samples: Vec<(String, i64, Json)>,
    pub(super) latest: BTreeMap<String, Json>,
    pub(super) mcap: Option<Recording>,
    pub(super) error: Option<String>,
}

/// Records `topic` (of type `T`) through the runner's node into `sink`: best effort, or,
/// for a topic its publisher latches (`latched`), reliable and transient-local, so no
/// change (a supervisor's mode) is lost and the value before the recorder joined is heard.
pub(super) fn start_recorder<T: RosMessage>(
    node: &Node,
    topic: &str,
    latched: bool,
    sink: Arc<Mutex<Recorder>>,
) -> Result<(), String> {
    let profile = if latched {
        qos::latched().keep_last(200)
    } else {
        qos::default().best_effort().keep_last(200)
    };
    let sub = node
        .subscription::<T>(topic, profile)
        .map_err(|e| e.to_string())?;
    let clock = node.clock();
    let topic = topic.to_string();
    node.spawn(async move {
        while let Ok(m) = sub.recv().await {
            let t = clock.now_nanos();
            let json = serde_json::to_value(&m).unwrap_or(Json::Null);
            let mut r = sink.lock().expect("recorder");
            match cdr::to_bytes(&m) {
                Ok(bytes) => {
                    if let Some(rec) = r.mcap.as_mut() {
                        if let Err(e) = rec.write(&topic, T::TYPE_NAME, t.max(0) as u64, &bytes) {
                            r.error.get_or_insert(e.to_string());
                        }
                    }
                }
                Err(e) => {
                    r.error.get_or_insert(format!("{topic}: {e}"));
                }
            }
            r.latest.insert(topic.clone(), json.clone());
            r.samples.push((topic.clone(), t, json));
        }
    })
    .detach();
    Ok(())
}

/// Closes the recording: with a network, first writes the link's windows
/// (`network.jsonl`) on the network topic, at simulation time; then finishes the MCAP file.
/// Returns its summary and every sample (the recorder's and the timeline's) in a [`Store`]
/// by seconds of the timeline; problems go to `warnings`.
pub(super) fn finish(
    recorder: &Mutex<Recorder>,
    s: &Scenario,
    dir: &Path,
    outcome: &mut DdsOutcome,
    rtf: f64,
    warnings: &mut Vec<String>,
) -> (Option<RecordingSummary>, Store) {
    let mut rec = recorder.lock().expect("recorder");
    if s.network.is_some() && s.recorded_topics.contains_key(crate::model::NETWORK_TOPIC) {
        if let (Some(t0), Some(start)) = (outcome.t0_ns, outcome.timeline_start_unix) {
            let wall = outcome.timeline_end_unix.map(|e| e - start).unwrap_or(0.0);
            let speed = if wall > 0.0 && outcome.end_s > 0.0 {
                outcome.end_s / wall
            } else {
                rtf
            };
            let text = std::fs::read_to_string(dir.join("network.jsonl")).unwrap_or_default();
            for line in text.lines() {
                let Some(t) = serde_json::from_str::<Window>(line).ok().map(|w| w.t) else {
                    continue;
                };
                // Wall clock to simulation time around the timeline's start, at the
                // speed the simulation ran.
                let ns = t0 + ((t - start) * speed * 1e9) as i64;
                let msg = std_msgs::String {
                    data: line.to_string(),
                };
                if let (Ok(bytes), Some(m)) = (cdr::to_bytes(&msg), rec.mcap.as_mut()) {
                    if let Err(e) = m.write(
                        crate::model::NETWORK_TOPIC,
                        std_msgs::String::TYPE_NAME,
                        ns.max(0) as u64,
                        &bytes,
                    ) {
                        warnings.push(format!("recording: {e}"));
                        break;
                    }
                }
                rec.samples.push((
                    crate::model::NETWORK_TOPIC.to_string(),
                    ns,
                    serde_json::to_value(&msg).unwrap_or(Json::Null),
                ));
            }
        }
    }
    let recording = rec.mcap.take().and_then(|r| match r.finish() {
        Ok(s) => Some(s),
        Err(e) => {
            warnings.push(format!("recording: {e}"));
            None
        }
    });
    if let Some(e) = rec.error.take().or(outcome.recording_error.take()) {
        warnings.push(format!("recording: {e}"));
    }
    let t0 = outcome.t0_ns.unwrap_or(0);
    let mut store = Store::new();
    for (topic, t, m) in std::mem::take(&mut outcome.samples)
        .into_iter()
        .chain(std::mem::take(&mut rec.samples))
    {
        store.push(&topic, (t - t0) as f64 / 1e9, m);
    }
    drop(rec);
    (recording, store)
}
