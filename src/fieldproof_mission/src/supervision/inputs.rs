//! What `mission_supervisor` gathers between control cycles, and the frame it makes of it.
//!
//! All times are the node's clock (simulation time under `use_sim_time`), in nanoseconds.
//!
//! - IMU, GNSS and camera: the **header stamp** (capture time), not the receipt time. A
//!   sensor whose driver hangs and repeats its last message (the bridge's `freeze` fault)
//!   must read as stale, which only its stamp shows. The stamp is trusted no further than
//!   the node's clock: a stamp ahead of the receipt time (the sensor's `/clock` sample
//!   reached its publisher before ours) counts as received now. The newest stamp wins
//!   (a late, older sample does not age the source).
//! - Perception (`vision_source: perception`): `perception/health`, a
//!   `diagnostic_msgs/msg/DiagnosticArray` whose header stamp is the capture stamp of the
//!   frame the perception node processed (the vision stamp, as the camera's above) and whose
//!   status carries `inference_ms`, the reported inference duration (wall clock) of that
//!   frame. The duration of the newest capture is the frame's `inference_ms`. A report whose
//!   `inference_ms` is missing, not a number, not finite or negative is **refused whole**: it
//!   neither refreshes the vision stamp nor changes the duration, and is counted
//!   ([`Inputs::refused_health`]). A payload that reports a latency nobody can read has not
//!   shown it is healthy, so its reports must not keep vision fresh: if it only sends such
//!   reports, vision goes stale and the policy holds, as for a lost camera.
//! - Ground-station link: the **receipt time** of the newest `gcs/heartbeat`, as
//!   `link_monitor` judges the link (what matters is that it arrives).
//! - Battery: `BatteryState.percentage`, a fraction 0..1 as the battery adapter publishes it.
//! - Position: `odometry/filtered`; target: `mission/target`; complete: `mission/complete`.
//!
//! - A stamped sample (IMU, GNSS, camera, perception, heartbeat) received while the node's
//!   clock reads 0 or less — under `use_sim_time`, before the first `/clock` sample — is
//!   **not a capture**: it is ignored and counted ([`Inputs::before_clock`]). Its receipt
//!   time would clamp its stamp to 0, and a source heard only then would look stale from
//!   the first frame (a startup HOLD that counts as a fault episode).
//!
//! Before a source has been heard its stamp is 0 (stale), the position is the origin, the
//! target is the position (no motion asked), the battery 0 (empty) — the node does not write
//! frames before every required source was heard once ([`Inputs::missing`]) and is within the
//! core's age limits ([`Inputs::stale`]), so the last two only show in a frame assembled by
//! hand.

use crate::supervisor::protocol::Frame;
use fieldproof_msgs::diagnostic_msgs::DiagnosticArray;

/// Where the vision freshness comes from (parameter `vision_source`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VisionSource {
    /// Vision is ignored: the core runs with `--vision-required=false`.
    None,
    /// The camera's capture stamps (`camera/image`); inference takes no time.
    Camera,
    /// The perception node's health (`perception/health`): capture stamps and the
    /// reported inference duration.
    Perception,
}

impl VisionSource {
    /// The parameter's choices.
    pub const CHOICES: [&'static str; 3] = ["none", "camera", "perception"];

    /// The parameter's value as a source.
    pub fn parse(value: &str) -> Result<VisionSource, String> {
        match value {
            "none" => Ok(VisionSource::None),
            "camera" => Ok(VisionSource::Camera),
            "perception" => Ok(VisionSource::Perception),
            other => Err(format!(
                "vision_source: {other:?} is not one of none, camera, perception"
            )),
        }
    }

    /// The topic (relative name) the vision stamps come from; `None` for no source.
    pub fn topic(self) -> Option<&'static str> {
        match self {
            VisionSource::None => None,
            VisionSource::Camera => Some("camera/image"),
            VisionSource::Perception => Some(PERCEPTION_HEALTH_TOPIC),
        }
    }

    /// The flags this source adds to the core's command line.
    pub fn core_flags(self) -> Vec<String> {
        match self {
            VisionSource::None => vec!["--vision-required=false".to_string()],
            VisionSource::Camera | VisionSource::Perception => Vec::new(),
        }
    }
}

/// The perception node's health topic (relative name).
pub const PERCEPTION_HEALTH_TOPIC: &str = "perception/health";

/// The key of a health status's value that holds the reported inference duration, ms.
pub const INFERENCE_MS_KEY: &str = "inference_ms";

/// The reported inference duration of a health report: the value of [`INFERENCE_MS_KEY`]
/// in the first status that has one (the perception node sends one status, `perception`);
/// `None` when no status has it.
pub fn reported_inference_ms(health: &DiagnosticArray) -> Option<&str> {
    health.status.iter().find_map(|status| {
        status
            .values
            .iter()
            .find(|kv| kv.key == INFERENCE_MS_KEY)
            .map(|kv| kv.value.as_str())
    })
}

/// Reads a reported inference duration: a finite, nonnegative number of milliseconds.
fn parse_inference_ms(text: Option<&str>) -> Result<f64, Refused> {
    let refused = |value: String, why| Refused {
        field: "perception/health inference_ms",
        value,
        why,
    };
    let text = text.ok_or_else(|| refused("missing".into(), "(no status carries it)"))?;
    let ms: f64 = text
        .trim()
        .parse()
        .map_err(|_| refused(format!("{text:?}"), "is not a number"))?;
    if !ms.is_finite() {
        return Err(refused(text.to_string(), "is not finite"));
    }
    if ms < 0.0 {
        return Err(refused(text.to_string(), "is negative"));
    }
    Ok(ms)
}

/// A sample the supervisor refused to use (it keeps the previous value).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{field}: {value} {why}: sample ignored")]
pub struct Refused {
    /// The message field.
    pub field: &'static str,
    /// Its value, as received.
    pub value: String,
    /// What is wrong with it.
    pub why: &'static str,
}

/// The newest value of each source (see the module documentation).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Inputs {
    imu_ns: Option<i64>,
    gnss_ns: Option<i64>,
    vision_ns: Option<i64>,
    link_ns: Option<i64>,
    battery: Option<f64>,
    position: Option<[f64; 3]>,
    target: Option<[f64; 3]>,
    inference_ms: f64,
    complete: bool,
    refused_health: u64,
    before_clock: u64,
}

/// A capture stamp trusted no further than the receipt time, kept if newer than `slot`.
fn newest_capture(slot: &mut Option<i64>, stamp_ns: i64, receipt_ns: i64) {
    let stamp = stamp_ns.min(receipt_ns).max(0);
    *slot = Some(slot.map_or(stamp, |old| old.max(stamp)));
}

/// Whether the node's clock had started when a sample was received (see the module
/// documentation: a receipt at 0 or before is simulation time before the first `/clock`).
fn clock_started(receipt_ns: i64) -> bool {
    receipt_ns > 0
}

fn finite_point(field: &'static str, p: [f64; 3]) -> Result<[f64; 3], Refused> {
    if p.iter().all(|v| v.is_finite()) {
        Ok(p)
    } else {
        Err(Refused {
            field,
            value: format!("{p:?}"),
            why: "is not finite",
        })
    }
}

/// Nanoseconds as seconds (monotonic: a <= b stays a <= b).
fn seconds(ns: i64) -> f64 {
    ns as f64 / 1e9
}

impl Inputs {
    /// Nothing heard yet.
    pub fn new() -> Inputs {
        Inputs::default()
    }

    /// An IMU sample stamped `stamp_ns`, received at `receipt_ns`.
    pub fn imu(&mut self, stamp_ns: i64, receipt_ns: i64) {
        if self.count_before_clock(receipt_ns) {
            return;
        }
        newest_capture(&mut self.imu_ns, stamp_ns, receipt_ns);
    }

    /// A GNSS fix stamped `stamp_ns`, received at `receipt_ns`.
    pub fn gnss(&mut self, stamp_ns: i64, receipt_ns: i64) {
        if self.count_before_clock(receipt_ns) {
            return;
        }
        newest_capture(&mut self.gnss_ns, stamp_ns, receipt_ns);
    }

    /// A camera image stamped `stamp_ns` (its capture), received at `receipt_ns`; the
    /// camera source reports no inference time.
    pub fn camera(&mut self, stamp_ns: i64, receipt_ns: i64) {
        if self.count_before_clock(receipt_ns) {
            return;
        }
        newest_capture(&mut self.vision_ns, stamp_ns, receipt_ns);
        self.inference_ms = 0.0;
    }

    /// A perception health report: the capture stamp `stamp_ns` of the frame it processed,
    /// its reported inference duration as sent (`inference_ms`, see
    /// [`reported_inference_ms`]), received at `receipt_ns`. The duration counts when the
    /// report's capture is the newest (a late report of an older frame changes nothing but
    /// cannot age the source either). A duration that is missing, not a number, not finite
    /// or negative refuses the whole report (counted; see the module documentation).
    pub fn perception(
        &mut self,
        stamp_ns: i64,
        inference_ms: Option<&str>,
        receipt_ns: i64,
    ) -> Result<(), Refused> {
        let ms = parse_inference_ms(inference_ms).inspect_err(|_| self.refused_health += 1)?;
        if self.count_before_clock(receipt_ns) {
            return Ok(());
        }
        let stamp = stamp_ns.min(receipt_ns).max(0);
        if self.vision_ns.is_none_or(|newest| stamp >= newest) {
            self.inference_ms = ms;
        }
        newest_capture(&mut self.vision_ns, stamp_ns, receipt_ns);
        Ok(())
    }

    /// How many perception health reports were refused so far.
    pub fn refused_health(&self) -> u64 {
        self.refused_health
    }

    /// How many stamped samples were ignored because they arrived before the clock
    /// started (see the module documentation).
    pub fn before_clock(&self) -> u64 {
        self.before_clock
    }

    /// Counts and returns `true` for a sample received before the clock started.
    fn count_before_clock(&mut self, receipt_ns: i64) -> bool {
        let early = !clock_started(receipt_ns);
        if early {
            self.before_clock += 1;
        }
        early
    }

    /// A ground-station heartbeat received at `receipt_ns`.
    pub fn heartbeat(&mut self, receipt_ns: i64) {
        if self.count_before_clock(receipt_ns) {
            return;
        }
        self.link_ns = Some(self.link_ns.map_or(receipt_ns, |old| old.max(receipt_ns)));
    }

    /// A battery percentage (fraction 0..1); anything else is refused.
    pub fn battery(&mut self, percentage: f64) -> Result<(), Refused> {
        if !(0.0..=1.0).contains(&percentage) {
            return Err(Refused {
                field: "battery_state.percentage",
                value: percentage.to_string(),
                why: "is not a fraction in [0, 1]",
            });
        }
        self.battery = Some(percentage);
        Ok(())
    }

    /// The estimated position (ENU, m); a non-finite one is refused.
    pub fn position(&mut self, p: [f64; 3]) -> Result<(), Refused> {
        self.position = Some(finite_point("odometry/filtered.pose.pose.position", p)?);
        Ok(())
    }

    /// The current target waypoint (ENU, m); a non-finite one is refused.
    pub fn target(&mut self, p: [f64; 3]) -> Result<(), Refused> {
        self.target = Some(finite_point("mission/target.pose.position", p)?);
        Ok(())
    }

    /// The mission-complete flag.
    pub fn complete(&mut self, complete: bool) {
        self.complete = complete;
    }

    /// The sources heard but too old for the core at `now_ns` (name, age in s), by the core's
    /// own limits (`config`'s `*_max_age_s`): the node waits for these to be current before its
    /// first frame, so a stack that starts behind (a start-up backlog: samples arriving seconds
    /// late) is not judged faulty before it has caught up. After the first frame, staleness is
    /// the core's to judge.
    pub fn stale(
        &self,
        vision: VisionSource,
        now_ns: i64,
        config: &crate::supervisor::config::PolicyConfig,
    ) -> Vec<(&'static str, f64)> {
        let mut stale = Vec::new();
        let mut check = |stamp: Option<i64>, max_age_s: f64, topic: &'static str| {
            if let Some(stamp) = stamp {
                let age_s = (now_ns - stamp) as f64 * 1e-9;
                if age_s > max_age_s {
                    stale.push((topic, age_s));
                }
            }
        };
        check(self.imu_ns, config.imu_max_age_s, "imu/data");
        check(self.gnss_ns, config.gnss_max_age_s, "gps/fix");
        if let Some(topic) = vision.topic() {
            check(self.vision_ns, config.vision_max_age_s, topic);
        }
        check(self.link_ns, config.link_max_age_s, "gcs/heartbeat");
        stale
    }

    /// The topics (relative names) the node waits for before its first frame: every
    /// source but the target (which defaults to the position) and the complete flag.
    pub fn missing(&self, vision: VisionSource) -> Vec<&'static str> {
        let mut missing = Vec::new();
        let mut need = |heard: bool, topic: &'static str| {
            if !heard {
                missing.push(topic);
            }
        };
        need(self.imu_ns.is_some(), "imu/data");
        need(self.gnss_ns.is_some(), "gps/fix");
        if let Some(topic) = vision.topic() {
            need(self.vision_ns.is_some(), topic);
        }
        need(self.link_ns.is_some(), "gcs/heartbeat");
        need(self.battery.is_some(), "battery_state");
        need(self.position.is_some(), "odometry/filtered");
        missing
    }

    /// The frame for control cycle `sequence` at `now_ns`: every stamp clamped to
    /// `[0, now]` (the core refuses a stamp after `now`), unheard sources as the module
    /// documentation says.
    pub fn frame(&self, sequence: u64, now_ns: i64) -> Frame {
        let now_ns = now_ns.max(0);
        let stamp = |s: Option<i64>| seconds(s.unwrap_or(0).clamp(0, now_ns));
        let position = self.position.unwrap_or([0.0; 3]);
        Frame {
            sequence,
            now: seconds(now_ns),
            imu_stamp: stamp(self.imu_ns),
            gnss_stamp: stamp(self.gnss_ns),
            vision_stamp: stamp(self.vision_ns),
            link_stamp: stamp(self.link_ns),
            battery: self.battery.unwrap_or(0.0),
            position,
            target: self.target.unwrap_or(position),
            inference_ms: self.inference_ms,
            complete: self.complete,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: i64 = 1_000_000_000;
    const MS: i64 = 1_000_000;

    #[test]
    fn nothing_heard_is_stale_at_the_origin_and_asks_no_motion() {
        let f = Inputs::new().frame(1, 5 * S);
        assert_eq!(f.sequence, 1);
        assert_eq!(f.now, 5.0);
        assert_eq!(
            [f.imu_stamp, f.gnss_stamp, f.vision_stamp, f.link_stamp],
            [0.0; 4]
        );
        assert_eq!(f.position, [0.0; 3]);
        assert_eq!(f.target, f.position);
        assert_eq!(f.battery, 0.0);
        assert_eq!(f.inference_ms, 0.0);
        assert!(!f.complete);
    }

    #[test]
    fn sensors_report_their_capture_stamps_and_the_link_its_receipt_time() {
        let mut i = Inputs::new();
        i.imu(2 * S, 2 * S + 3 * MS);
        i.gnss(S + 900 * MS, 2 * S);
        i.camera(S + 950 * MS, 2 * S);
        i.heartbeat(2 * S + 10 * MS);
        let f = i.frame(7, 2 * S + 50 * MS);
        assert_eq!(f.imu_stamp, 2.0);
        assert_eq!(f.gnss_stamp, 1.9);
        assert_eq!(f.vision_stamp, 1.95);
        assert_eq!(f.link_stamp, 2.01);
        assert_eq!(f.now, 2.05);
    }

    #[test]
    fn a_frozen_sensor_stays_stale_and_a_late_older_sample_does_not_age_it() {
        let mut i = Inputs::new();
        i.gnss(S, S);
        // `freeze`: the same message (stamp included) again and again.
        for k in 1..=30 {
            i.gnss(S, S + k * 100 * MS);
        }
        assert_eq!(i.frame(1, 4 * S).gnss_stamp, 1.0);
        i.imu(3 * S, 3 * S);
        i.imu(2 * S, 3 * S + MS);
        assert_eq!(i.frame(2, 4 * S).imu_stamp, 3.0);
    }

    #[test]
    fn stamps_are_never_after_now() {
        let mut i = Inputs::new();
        // A stamp ahead of our clock at receipt counts as received then.
        i.imu(5 * S, 4 * S);
        assert_eq!(i.frame(1, 4 * S + 50 * MS).imu_stamp, 4.0);
        // A frame assembled before the clock caught up is clamped to now.
        i.heartbeat(6 * S);
        let f = i.frame(2, 3 * S);
        assert!(f.link_stamp <= f.now && f.imu_stamp <= f.now, "{f:?}");
        // Negative stamps are not nonnegative: zero.
        let mut j = Inputs::new();
        j.camera(-5, S);
        assert_eq!(j.frame(1, S).vision_stamp, 0.0);
    }

    #[test]
    fn battery_position_and_target_pass_through_and_bad_ones_are_refused() {
        let mut i = Inputs::new();
        i.battery(0.42).unwrap();
        i.position([1.0, 2.0, 3.0]).unwrap();
        let f = i.frame(1, S);
        assert_eq!(f.battery, 0.42);
        assert_eq!(f.position, [1.0, 2.0, 3.0]);
        assert_eq!(f.target, [1.0, 2.0, 3.0], "no target yet: stay");
        i.target([10.0, -4.0, 8.0]).unwrap();
        i.complete(true);
        let f = i.frame(2, S + 1);
        assert_eq!(f.target, [10.0, -4.0, 8.0]);
        assert!(f.complete);

        let e = i.battery(42.0).unwrap_err();
        assert_eq!(
            e.to_string(),
            "battery_state.percentage: 42 is not a fraction in [0, 1]: sample ignored"
        );
        assert!(i.battery(f64::NAN).is_err());
        let e = i.position([f64::NAN, 0.0, 0.0]).unwrap_err();
        assert_eq!(e.field, "odometry/filtered.pose.pose.position");
        assert!(i.target([0.0, f64::INFINITY, 0.0]).is_err());
        let f = i.frame(3, 2 * S);
        assert_eq!(f.battery, 0.42, "the previous value stays");
        assert_eq!(f.position, [1.0, 2.0, 3.0]);
        assert_eq!(f.target, [10.0, -4.0, 8.0]);
    }

    #[test]
    fn the_first_frame_waits_for_every_required_source() {
        let mut i = Inputs::new();
        assert_eq!(
            i.missing(VisionSource::Camera),
            [
                "imu/data",
                "gps/fix",
                "camera/image",
                "gcs/heartbeat",
                "battery_state",
                "odometry/filtered"
            ]
        );
        assert!(!i.missing(VisionSource::None).contains(&"camera/image"));
        i.imu(1, 1);
        i.gnss(1, 1);
        i.heartbeat(1);
        i.battery(1.0).unwrap();
        i.position([0.0; 3]).unwrap();
        assert!(i.missing(VisionSource::None).is_empty());
        assert_eq!(i.missing(VisionSource::Camera), ["camera/image"]);
        i.camera(1, 1);
        assert!(i.missing(VisionSource::Camera).is_empty());
    }

    #[test]
    fn the_first_frame_waits_for_every_source_to_be_current() {
        // Run 3 of fleet_carrier_degraded: three stacks starting at once on two cores, a
        // quad's IMU samples arrived 10.7 s late; judged from the first frame, that was a
        // fault episode and the quad landed on its pad before it had caught up.
        let limits = crate::supervisor::config::PolicyConfig::default();
        let second = 1_000_000_000;
        let now = 20 * second;
        let mut i = Inputs::new();
        assert!(
            i.stale(VisionSource::None, now, &limits).is_empty(),
            "unheard is missing, not stale"
        );
        i.imu(now - 10 * second, now);
        i.gnss(now - second / 10, now);
        i.heartbeat(now - 2 * second);
        let stale = i.stale(VisionSource::None, now, &limits);
        assert_eq!(
            stale.iter().map(|(topic, _)| *topic).collect::<Vec<_>>(),
            ["imu/data", "gcs/heartbeat"]
        );
        assert!((stale[0].1 - 10.0).abs() < 1e-9, "{stale:?}");
        i.imu(now - second / 100, now);
        i.heartbeat(now);
        assert!(i.stale(VisionSource::None, now, &limits).is_empty());
        // The camera counts only when it is the vision source.
        i.camera(now - 5 * second, now);
        assert!(i.stale(VisionSource::None, now, &limits).is_empty());
        assert_eq!(i.stale(VisionSource::Camera, now, &limits).len(), 1);
    }

    #[test]
    fn vision_sources() {
        assert_eq!(VisionSource::parse("none"), Ok(VisionSource::None));
        assert_eq!(VisionSource::parse("camera"), Ok(VisionSource::Camera));
        assert_eq!(
            VisionSource::parse("perception"),
            Ok(VisionSource::Perception)
        );
        assert_eq!(
            VisionSource::parse("lidar").unwrap_err(),
            "vision_source: \"lidar\" is not one of none, camera, perception"
        );
        assert_eq!(VisionSource::None.core_flags(), ["--vision-required=false"]);
        assert!(VisionSource::Camera.core_flags().is_empty());
        assert!(VisionSource::Perception.core_flags().is_empty());
        assert_eq!(VisionSource::None.topic(), None);
        assert_eq!(VisionSource::Camera.topic(), Some("camera/image"));
        assert_eq!(VisionSource::Perception.topic(), Some("perception/health"));
    }

    /// A health report as the perception node sends it: one status, `values` as given.
    fn health(values: &[(&str, &str)]) -> DiagnosticArray {
        use fieldproof_msgs::diagnostic_msgs::{DiagnosticStatus, KeyValue};
        DiagnosticArray {
            status: vec![DiagnosticStatus {
                name: "perception".into(),
                values: values
                    .iter()
                    .map(|(k, v)| KeyValue {
                        key: k.to_string(),
                        value: v.to_string(),
                    })
                    .collect(),
                ..Default::default()
            }],
            ..Default::default()
        }
    }

    #[test]
    fn the_reported_inference_is_read_from_the_first_status_that_has_it() {
        let h = health(&[
            ("measured_inference_ms", "3.000"),
            ("inference_ms", "120.000"),
        ]);
        assert_eq!(reported_inference_ms(&h), Some("120.000"));
        let mut two = health(&[("frame_seq", "4")]);
        two.status.extend(health(&[("inference_ms", "7.5")]).status);
        assert_eq!(reported_inference_ms(&two), Some("7.5"));
        assert_eq!(reported_inference_ms(&health(&[("detections", "1")])), None);
        assert_eq!(reported_inference_ms(&DiagnosticArray::default()), None);
    }

    #[test]
    fn a_sample_received_before_the_clock_started_is_not_a_capture() {
        // Under use_sim_time the clock reads 0 until the first /clock sample: a report
        // received then would count as a capture at 0 and make the first frames stale.
        let mut i = Inputs::new();
        i.perception(S, Some("4.0"), 0).unwrap();
        i.imu(S, 0);
        i.gnss(S, -1);
        i.camera(S, 0);
        i.heartbeat(0);
        assert_eq!(i.before_clock(), 5);
        assert_eq!(i.refused_health(), 0);
        let missing = i.missing(VisionSource::Perception);
        for topic in ["imu/data", "gps/fix", "perception/health", "gcs/heartbeat"] {
            assert!(
                missing.contains(&topic),
                "{topic} counted as heard: {missing:?}"
            );
        }
        assert_eq!(
            i.frame(1, S).inference_ms,
            0.0,
            "the early duration is not kept"
        );
        // Once the clock runs, the same report counts.
        i.perception(S, Some("4.0"), S + 10 * MS).unwrap();
        let f = i.frame(2, S + 50 * MS);
        assert_eq!((f.vision_stamp, f.inference_ms), (1.0, 4.0));
        // A refused report is refused whatever the clock reads.
        assert!(i.perception(S, Some("NaN"), 0).is_err());
        assert_eq!(i.refused_health(), 1);
    }

    #[test]
    fn perception_health_gives_the_capture_stamp_and_the_reported_inference() {
        let mut i = Inputs::new();
        assert_eq!(
            i.missing(VisionSource::Perception)[2],
            "perception/health",
            "waited for before the first frame"
        );
        i.perception(S + 900 * MS, Some("4.250"), 2 * S).unwrap();
        let f = i.frame(1, 2 * S);
        assert_eq!((f.vision_stamp, f.inference_ms), (1.9, 4.25));
        assert!(!i
            .missing(VisionSource::Perception)
            .contains(&"perception/health"));
        // The overload: reported, not slept.
        i.perception(2 * S, Some("120.000"), 2 * S + 10 * MS)
            .unwrap();
        let f = i.frame(2, 2 * S + 50 * MS);
        assert_eq!((f.vision_stamp, f.inference_ms), (2.0, 120.0));
        // A late report of an older frame neither ages the source nor changes the duration.
        i.perception(S + 950 * MS, Some("1.0"), 2 * S + 60 * MS)
            .unwrap();
        let f = i.frame(3, 2 * S + 100 * MS);
        assert_eq!((f.vision_stamp, f.inference_ms), (2.0, 120.0));
        // Over: the newest capture's duration counts, whitespace and all.
        i.perception(2 * S + 100 * MS, Some(" 3 "), 2 * S + 100 * MS)
            .unwrap();
        assert_eq!(i.frame(4, 2 * S + 150 * MS).inference_ms, 3.0);
        // A stamp ahead of the clock counts as received then.
        i.perception(9 * S, Some("2"), 3 * S).unwrap();
        assert_eq!(i.frame(5, 3 * S).vision_stamp, 3.0);
        assert_eq!(i.refused_health(), 0);
    }

    #[test]
    fn a_health_report_without_a_usable_inference_is_refused_whole_and_counted() {
        let mut i = Inputs::new();
        i.perception(S, Some("5"), S).unwrap();
        for (k, (written, message)) in [
            (
                None,
                "perception/health inference_ms: missing (no status carries it): sample ignored",
            ),
            (
                Some("fast"),
                "perception/health inference_ms: \"fast\" is not a number: sample ignored",
            ),
            (
                Some(""),
                "perception/health inference_ms: \"\" is not a number: sample ignored",
            ),
            (
                Some("NaN"),
                "perception/health inference_ms: NaN is not finite: sample ignored",
            ),
            (
                Some("inf"),
                "perception/health inference_ms: inf is not finite: sample ignored",
            ),
            (
                Some("-1e999"),
                "perception/health inference_ms: -1e999 is not finite: sample ignored",
            ),
            (
                Some("-0.5"),
                "perception/health inference_ms: -0.5 is negative: sample ignored",
            ),
        ]
        .into_iter()
        .enumerate()
        {
            let stamp = 2 * S + k as i64 * 100 * MS;
            let e = i.perception(stamp, written, stamp).unwrap_err();
            assert_eq!(e.to_string(), message);
            // Freshness is not refreshed and the duration stays the last good one.
            let f = i.frame(k as u64 + 1, stamp);
            assert_eq!((f.vision_stamp, f.inference_ms), (1.0, 5.0), "{written:?}");
            assert_eq!(i.refused_health(), k as u64 + 1);
        }
        // Nothing heard but refused reports: still waited for.
        let mut j = Inputs::new();
        assert!(j.perception(S, Some("x"), S).is_err());
        assert!(j
            .missing(VisionSource::Perception)
            .contains(&"perception/health"));
    }
}
