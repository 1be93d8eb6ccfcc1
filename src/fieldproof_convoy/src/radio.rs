//! The LoRa radio path without I/O: one frame on the air at a time, each for its time on air,
//! a stated policy for frames that arrive while the radio is busy, and an optional
//! log-distance path-loss model with an RSSI estimate.

use std::collections::VecDeque;

use rand::Rng;
use rand_distr::{Distribution, Normal};
use serde::Serialize;

/// What happens to a frame that arrives while another one is on the air.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QueuePolicy {
    /// No waiting room: a frame arriving while transmitting is dropped.
    DropNewest,
    /// Up to `depth` frames wait; when full, the oldest waiting frame is dropped for the new
    /// one (depth 1: always send the newest pose next; the default).
    DropOldest,
    /// Up to `depth` frames wait in arrival order; when full, the arriving frame is dropped.
    Queue,
}

impl QueuePolicy {
    /// The parameter values, in the order of the variants.
    pub const NAMES: [&'static str; 3] = ["drop_newest", "drop_oldest", "queue"];

    /// The policy of a parameter value (`None` for an unknown name).
    pub fn parse(name: &str) -> Option<QueuePolicy> {
        match name {
            "drop_newest" => Some(QueuePolicy::DropNewest),
            "drop_oldest" => Some(QueuePolicy::DropOldest),
            "queue" => Some(QueuePolicy::Queue),
            _ => None,
        }
    }
}

/// The radio's counters. Every frame received is, in the end, sent, dropped busy or dropped by
/// loss; until then it is on the air or waiting.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct RadioCounters {
    /// Frames handed to the radio.
    pub received: u64,
    /// Frames delivered to the output.
    pub sent: u64,
    /// Frames dropped because the radio was busy (the queue policy).
    pub dropped_busy: u64,
    /// Frames lost on the air (the path-loss model).
    pub dropped_loss: u64,
}

/// One frame on the air at a time (times in seconds on any monotonic clock).
#[derive(Debug)]
pub struct RadioChannel<F> {
    policy: QueuePolicy,
    depth: usize,
    on_air: Option<(F, f64)>,
    waiting: VecDeque<F>,
    counters: RadioCounters,
}

impl<F> RadioChannel<F> {
    /// An idle radio with `policy`; `depth` is the waiting room of `DropOldest` and `Queue`
    /// (at least 1).
    pub fn new(policy: QueuePolicy, depth: usize) -> RadioChannel<F> {
        RadioChannel {
            policy,
            depth: depth.max(1),
            on_air: None,
            waiting: VecDeque::new(),
            counters: RadioCounters::default(),
        }
    }

    /// A frame arrives at `now_s`: on the air at once when idle (until `now_s + airtime_s`),
    /// otherwise the queue policy decides.
    pub fn arrive(&mut self, frame: F, now_s: f64, airtime_s: f64) {
        self.counters.received += 1;
        if self.on_air.is_none() {
            self.on_air = Some((frame, now_s + airtime_s));
            return;
        }
        match self.policy {
            QueuePolicy::DropNewest => self.counters.dropped_busy += 1,
            QueuePolicy::DropOldest => {
                if self.waiting.len() >= self.depth {
                    self.waiting.pop_front();
                    self.counters.dropped_busy += 1;
                }
                self.waiting.push_back(frame);
            }
            QueuePolicy::Queue => {
                if self.waiting.len() >= self.depth {
                    self.counters.dropped_busy += 1;
                } else {
                    self.waiting.push_back(frame);
                }
            }
        }
    }

    /// When the frame on the air is done (`None`: idle).
    pub fn busy_until_s(&self) -> Option<f64> {
        self.on_air.as_ref().map(|(_, end)| *end)
    }

    /// At `now_s`: the frame whose transmission has ended, if any; the next waiting frame goes
    /// on the air from that end (back to back, so timer latency does not slow the channel).
    /// The caller reports its fate with [`RadioChannel::delivered`] or [`RadioChannel::lost`].
    pub fn finish(&mut self, now_s: f64, airtime_s: f64) -> Option<F> {
        let (_, end) = self.on_air.as_ref()?;
        if *end > now_s {
            return None;
        }
        let end = *end;
        let (frame, _) = self.on_air.take().expect("checked above");
        if let Some(next) = self.waiting.pop_front() {
            self.on_air = Some((next, end + airtime_s));
        }
        Some(frame)
    }

    /// Counts a finished frame as delivered.
    pub fn delivered(&mut self) {
        self.counters.sent += 1;
    }

    /// Counts a finished frame as lost on the air.
    pub fn lost(&mut self) {
        self.counters.dropped_loss += 1;
    }

    /// Frames on the air or waiting.
    pub fn in_flight(&self) -> usize {
        usize::from(self.on_air.is_some()) + self.waiting.len()
    }

    /// The counters so far.
    pub fn counters(&self) -> RadioCounters {
        self.counters
    }
}

/// Log-distance path loss with log-normal shadowing:
/// `PL(d) = PL(d0) + 10·n·log10(d / d0)` (d0 = 1 m), `RSSI = P_tx − PL(d) + X`, X ~ N(0, σ²);
/// a frame arrives when its RSSI is at least the receiver's sensitivity.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct PathLossModel {
    /// Transmit power, dBm (14: the EU868 limit).
    pub tx_power_dbm: f64,
    /// Loss at the 1 m reference distance, dB (31.2: free space at 868 MHz).
    pub ref_loss_db: f64,
    /// Path-loss exponent (2: free space; 2.7 to 3.5: ground level in the open or in clutter).
    pub exponent: f64,
    /// Shadowing standard deviation, dB (0: every frame at the mean RSSI).
    pub shadowing_sigma_db: f64,
    /// Receiver sensitivity, dBm (-129: SX1276 at SF9, 125 kHz).
    pub sensitivity_dbm: f64,
}

impl Default for PathLossModel {
    fn default() -> Self {
        PathLossModel {
            tx_power_dbm: 14.0,
            ref_loss_db: 31.2,
            exponent: 2.7,
            shadowing_sigma_db: 4.0,
            sensitivity_dbm: -129.0,
        }
    }
}

/// The reference distance of [`PathLossModel`], metres.
pub const REF_DISTANCE_M: f64 = 1.0;

/// One frame's fate on the air.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Reception {
    /// The RSSI the receiver would measure, dBm.
    pub rssi_dbm: f64,
    /// Whether it was at least the sensitivity.
    pub delivered: bool,
}

impl PathLossModel {
    /// Checks the settings, naming the first bad one and its value.
    pub fn validate(&self) -> Result<(), String> {
        for (field, value) in [
            ("tx_power_dbm", self.tx_power_dbm),
            ("ref_loss_db", self.ref_loss_db),
            ("sensitivity_dbm", self.sensitivity_dbm),
        ] {
            if !value.is_finite() {
                return Err(format!("{field}: {value} must be finite"));
            }
        }
        if !(self.exponent.is_finite() && self.exponent > 0.0) {
            return Err(format!("exponent: {} must be above 0", self.exponent));
        }
        if !(self.shadowing_sigma_db.is_finite() && self.shadowing_sigma_db >= 0.0) {
            return Err(format!(
                "shadowing_sigma_db: {} must be at least 0",
                self.shadowing_sigma_db
            ));
        }
        Ok(())
    }

    /// The mean RSSI at `distance_m` (distances under the reference distance count as it).
    pub fn mean_rssi_dbm(&self, distance_m: f64) -> f64 {
        let d = distance_m.max(REF_DISTANCE_M);
        self.tx_power_dbm - (self.ref_loss_db + 10.0 * self.exponent * (d / REF_DISTANCE_M).log10())
    }

    /// One frame at `distance_m`, shadowing drawn from `rng`.
    pub fn receive(&self, distance_m: f64, rng: &mut impl Rng) -> Reception {
        let shadowing = if self.shadowing_sigma_db > 0.0 {
            Normal::new(0.0, self.shadowing_sigma_db)
                .expect("validated sigma")
                .sample(rng)
        } else {
            0.0
        };
        let rssi_dbm = self.mean_rssi_dbm(distance_m) + shadowing;
        Reception {
            rssi_dbm,
            delivered: rssi_dbm >= self.sensitivity_dbm,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    const AIRTIME_S: f64 = 0.226304;

    /// Frames every 0.2 s for `count` frames; the channel is drained at every event in time
    /// order. Returns the delivered frames.
    fn run(policy: QueuePolicy, depth: usize, count: u32) -> (Vec<u32>, RadioChannel<u32>) {
        let mut radio = RadioChannel::new(policy, depth);
        let mut delivered = Vec::new();
        for i in 0..count {
            let now = f64::from(i) * 0.2;
            while let Some(frame) = radio.finish(now, AIRTIME_S) {
                radio.delivered();
                delivered.push(frame);
            }
            radio.arrive(i, now, AIRTIME_S);
        }
        while let Some(end) = radio.busy_until_s() {
            let frame = radio.finish(end, AIRTIME_S).unwrap();
            radio.delivered();
            delivered.push(frame);
        }
        (delivered, radio)
    }

    #[test]
    fn every_frame_is_accounted_for_under_each_policy() {
        for policy in [
            QueuePolicy::DropNewest,
            QueuePolicy::DropOldest,
            QueuePolicy::Queue,
        ] {
            let (delivered, radio) = run(policy, 1, 50);
            let c = radio.counters();
            assert_eq!(c.received, 50);
            assert_eq!(c.sent, delivered.len() as u64, "{policy:?}");
            assert_eq!(c.sent + c.dropped_busy, c.received, "{policy:?}");
            assert!(c.dropped_busy > 0, "{policy:?}: 5 Hz exceeds 1/airtime");
            assert!(delivered.windows(2).all(|w| w[0] < w[1]), "{policy:?}");
        }
    }

    #[test]
    fn the_channel_delivers_at_one_over_the_airtime_when_saturated() {
        let (delivered, radio) = run(QueuePolicy::DropOldest, 1, 100);
        // 100 frames over 19.8 s + the tail: back to back from t = 0.
        let expected = (19.8 / AIRTIME_S).floor() as u64;
        // Plus at most the two frames left on the air and waiting at the last arrival.
        let sent = radio.counters().sent;
        assert!(
            (expected..=expected + 2).contains(&sent),
            "{sent}: {delivered:?}"
        );
    }

    #[test]
    fn drop_oldest_keeps_the_newest_and_drop_newest_the_oldest() {
        let mut newest = RadioChannel::new(QueuePolicy::DropOldest, 1);
        let mut oldest = RadioChannel::new(QueuePolicy::DropNewest, 1);
        for radio in [&mut newest, &mut oldest] {
            radio.arrive(0, 0.0, 1.0);
            radio.arrive(1, 0.1, 1.0);
            radio.arrive(2, 0.2, 1.0);
        }
        assert_eq!(newest.finish(1.0, 1.0), Some(0));
        assert_eq!(newest.finish(2.0, 1.0), Some(2));
        assert_eq!(newest.counters().dropped_busy, 1);
        assert_eq!(oldest.finish(1.0, 1.0), Some(0));
        assert_eq!(oldest.finish(2.0, 1.0), None);
        assert_eq!(oldest.counters().dropped_busy, 2);
    }

    #[test]
    fn queue_keeps_arrival_order_up_to_its_depth() {
        let mut radio = RadioChannel::new(QueuePolicy::Queue, 2);
        for (i, t) in [0.0, 0.1, 0.2, 0.3].into_iter().enumerate() {
            radio.arrive(i, t, 1.0);
        }
        assert_eq!(radio.counters().dropped_busy, 1);
        assert_eq!(radio.in_flight(), 3);
        assert_eq!(radio.finish(1.0, 1.0), Some(0));
        assert_eq!(radio.busy_until_s(), Some(2.0));
        assert_eq!(radio.finish(2.0, 1.0), Some(1));
        assert_eq!(radio.finish(3.0, 1.0), Some(2));
        assert_eq!(radio.busy_until_s(), None);
    }

    #[test]
    fn path_loss_follows_the_log_distance_law() {
        let model = PathLossModel::default();
        assert_eq!(model.mean_rssi_dbm(1.0), 14.0 - 31.2);
        // Ten times the distance costs 10·n dB.
        let decade = model.mean_rssi_dbm(100.0) - model.mean_rssi_dbm(1000.0);
        assert!((decade - 27.0).abs() < 1e-9);
        // Closer than the reference distance: the reference loss.
        assert_eq!(model.mean_rssi_dbm(0.1), model.mean_rssi_dbm(1.0));
    }

    #[test]
    fn without_shadowing_delivery_is_a_distance_threshold() {
        let model = PathLossModel {
            shadowing_sigma_db: 0.0,
            ..PathLossModel::default()
        };
        // Range where the mean RSSI meets the sensitivity.
        let range_m =
            10f64.powf((model.tx_power_dbm - model.ref_loss_db - model.sensitivity_dbm) / 27.0);
        let mut rng = rand::rngs::StdRng::seed_from_u64(1);
        assert!(model.receive(range_m * 0.99, &mut rng).delivered);
        assert!(!model.receive(range_m * 1.01, &mut rng).delivered);
    }

    #[test]
    fn with_shadowing_half_the_frames_arrive_at_the_range() {
        let model = PathLossModel::default();
        let range_m =
            10f64.powf((model.tx_power_dbm - model.ref_loss_db - model.sensitivity_dbm) / 27.0);
        let mut rng = rand::rngs::StdRng::seed_from_u64(7);
        let delivered = (0..4000)
            .filter(|_| model.receive(range_m, &mut rng).delivered)
            .count();
        assert!((1800..=2200).contains(&delivered), "{delivered} of 4000");
        assert!(model.validate().is_ok());
        let bad = PathLossModel {
            exponent: 0.0,
            ..model
        };
        assert!(bad.validate().unwrap_err().contains("exponent: 0"));
    }
}
