//! The follower's link watchdog: four states on the age of the newest accepted packet, and the
//! sequence bookkeeping (gaps, duplicates, out-of-order packets).
//!
//! Everything is a pure function of explicit times (seconds on any one clock: the node's
//! monotonic or sim clock); nothing reads a clock here.
//!
//! | state | when | the controller |
//! |---|---|---|
//! | `FOLLOW` | the newest packet is fresh (age < `fresh_s`) | normal following |
//! | `HOLD` | no fresh packet for `fresh_s`, for less than `grace_s` | tracks the extrapolated formation vector, always decelerating |
//! | `SAFE_STOP` | no fresh packet for `grace_s` (and before the first packet) | controlled ramp to zero, holds position |
//! | `REJOIN` | the first fresh packet after a stop | replans from where it is, capped at `v_max / 2` |
//!
//! REJOIN lasts until the gap error has closed (|gap error| < `gap_tolerance_m`) with the
//! packet still fresh, then FOLLOW. (The spec's listing fell from REJOIN to HOLD on a fresh packet
//! with the gap still open; here a fresh packet keeps REJOIN.) If the link goes stale during REJOIN
//! the watchdog goes to HOLD as from FOLLOW, but remembers the unfinished rejoin: a fresh packet
//! in that HOLD returns to REJOIN, not to FOLLOW, so the gap is never closed at full speed.

use serde::{Deserialize, Serialize};

/// The watchdog's four states.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum WatchdogState {
    /// Fresh packets: follow normally.
    Follow,
    /// Stale, within the grace window: track the extrapolated formation vector, decelerating.
    Hold,
    /// Grace expired (or no packet yet): ramp to zero and hold position.
    SafeStop,
    /// Fresh again after a stop: close the gap at limited speed.
    Rejoin,
}

impl WatchdogState {
    /// Every state, in the table's order.
    pub const ALL: [WatchdogState; 4] = [Self::Follow, Self::Hold, Self::SafeStop, Self::Rejoin];

    /// The name in the CSV log and on `convoy/watchdog_state`: FOLLOW, HOLD, SAFE_STOP, REJOIN.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Follow => "FOLLOW",
            Self::Hold => "HOLD",
            Self::SafeStop => "SAFE_STOP",
            Self::Rejoin => "REJOIN",
        }
    }

    /// The state a name (as [`WatchdogState::as_str`] writes it) stands for.
    pub fn parse(name: &str) -> Option<WatchdogState> {
        Self::ALL.into_iter().find(|state| state.as_str() == name)
    }
}

impl std::fmt::Display for WatchdogState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The watchdog's thresholds.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct WatchdogConfig {
    /// A packet younger than this is fresh (seconds; spec: 1.0).
    pub fresh_s: f64,
    /// No fresh packet for this long means SAFE_STOP (seconds; spec: 4.0). A safety parameter.
    pub grace_s: f64,
    /// The gap has closed when |gap error| is below this (metres; spec: 0.3).
    pub gap_tolerance_m: f64,
}

impl Default for WatchdogConfig {
    fn default() -> Self {
        WatchdogConfig {
            fresh_s: 1.0,
            grace_s: 4.0,
            gap_tolerance_m: 0.3,
        }
    }
}

/// A watchdog threshold that cannot work, naming the field and value.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum WatchdogConfigError {
    /// `fresh_s` not finite or not positive.
    #[error("fresh_s: {0} must be a finite number above 0")]
    FreshS(f64),
    /// `grace_s` not finite or not above `fresh_s`.
    #[error("grace_s: {grace_s} must be finite and above fresh_s ({fresh_s})")]
    GraceS {
        /// The grace window given.
        grace_s: f64,
        /// The freshness threshold it must exceed.
        fresh_s: f64,
    },
    /// `gap_tolerance_m` not finite or not positive.
    #[error("gap_tolerance_m: {0} must be a finite number above 0")]
    GapToleranceM(f64),
}

impl WatchdogConfig {
    /// Checks the thresholds, naming the first bad one.
    pub fn validate(&self) -> Result<(), WatchdogConfigError> {
        if !(self.fresh_s.is_finite() && self.fresh_s > 0.0) {
            return Err(WatchdogConfigError::FreshS(self.fresh_s));
        }
        if !(self.grace_s.is_finite() && self.grace_s > self.fresh_s) {
            return Err(WatchdogConfigError::GraceS {
                grace_s: self.grace_s,
                fresh_s: self.fresh_s,
            });
        }
        if !(self.gap_tolerance_m.is_finite() && self.gap_tolerance_m > 0.0) {
            return Err(WatchdogConfigError::GapToleranceM(self.gap_tolerance_m));
        }
        Ok(())
    }

    /// Whether a gap error counts as closed (|error| < tolerance; a missing or non-finite error
    /// does not).
    pub fn gap_closed(&self, gap_error_m: Option<f64>) -> bool {
        gap_error_m.is_some_and(|error| error.abs() < self.gap_tolerance_m)
    }
}

/// What the sequence check made of one received packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PacketVerdict {
    /// The first packet seen: accepted.
    First,
    /// Newer than the newest: accepted; `missing` packets were skipped (0 when in order).
    Accepted {
        /// Sequence numbers skipped between the previous newest and this one.
        missing: u32,
    },
    /// The same seq as the newest: ignored.
    Duplicate,
    /// Older than the newest: ignored.
    OutOfOrder,
    /// Not newer, but no packet was accepted for `grace_s`: taken as the lead restarting its
    /// count; accepted and the count restarts from it (no gap counted).
    Resync,
    /// The receive time was not finite: ignored.
    BadTime,
}

impl PacketVerdict {
    /// Whether the packet is now the newest (its pose should be used).
    pub fn accepted(self) -> bool {
        matches!(self, Self::First | Self::Accepted { .. } | Self::Resync)
    }
}

/// Counters of the link as the follower sees it (`convoy/link_stats`, the CSV's `seq_gaps`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LinkStats {
    /// Packets handed to the watchdog.
    pub received: u64,
    /// Packets accepted as the newest.
    pub accepted: u64,
    /// Sequence numbers skipped in total (the CSV's `seq_gaps`): the packets lost on the way.
    pub seq_gaps: u64,
    /// Jumps in the sequence (each skipping at least one number).
    pub gap_events: u64,
    /// Packets with the newest seq again, ignored.
    pub duplicates: u64,
    /// Packets older than the newest, ignored.
    pub out_of_order: u64,
    /// Restarts of the lead's count accepted after a silence of `grace_s`.
    pub resyncs: u64,
    /// Packets ignored for a non-finite receive time.
    pub bad_time: u64,
}

/// Whether `seq` is newer than `newest` in serial-number arithmetic (RFC 1982): up to 2^31 - 1
/// ahead, so the count may wrap.
pub fn seq_is_newer(seq: u32, newest: u32) -> bool {
    let ahead = seq.wrapping_sub(newest);
    ahead != 0 && ahead < 0x8000_0000
}

/// The four-state watchdog and the sequence bookkeeping of one follower.
#[derive(Debug, Clone)]
pub struct Watchdog {
    config: WatchdogConfig,
    state: WatchdogState,
    newest_seq: Option<u32>,
    newest_rx_s: Option<f64>,
    rejoin_pending: bool,
    stats: LinkStats,
}

impl Watchdog {
    /// A watchdog in SAFE_STOP (no lead heard yet), its thresholds checked.
    pub fn new(config: WatchdogConfig) -> Result<Watchdog, WatchdogConfigError> {
        config.validate()?;
        Ok(Watchdog {
            config,
            state: WatchdogState::SafeStop,
            newest_seq: None,
            newest_rx_s: None,
            rejoin_pending: false,
            stats: LinkStats::default(),
        })
    }

    /// The thresholds.
    pub fn config(&self) -> &WatchdogConfig {
        &self.config
    }

    /// The state after the last [`Watchdog::update`].
    pub fn state(&self) -> WatchdogState {
        self.state
    }

    /// The counters so far.
    pub fn stats(&self) -> LinkStats {
        self.stats
    }

    /// The newest accepted seq.
    pub fn newest_seq(&self) -> Option<u32> {
        self.newest_seq
    }

    /// Seconds since the newest accepted packet arrived (None before the first one). A clock
    /// reading before that arrival counts as age 0; a non-finite one gives None.
    pub fn packet_age_s(&self, now_s: f64) -> Option<f64> {
        let age = now_s - self.newest_rx_s?;
        age.is_finite().then_some(age.max(0.0))
    }

    /// Books a packet with sequence number `seq` received at `rx_s`. Only an accepted packet
    /// (see [`PacketVerdict::accepted`]) refreshes the packet age.
    pub fn on_packet(&mut self, seq: u32, rx_s: f64) -> PacketVerdict {
        self.stats.received += 1;
        if !rx_s.is_finite() {
            self.stats.bad_time += 1;
            return PacketVerdict::BadTime;
        }
        let verdict = match (self.newest_seq, self.newest_rx_s) {
            (None, _) | (_, None) => PacketVerdict::First,
            (Some(newest), Some(newest_rx_s)) => {
                if seq_is_newer(seq, newest) {
                    PacketVerdict::Accepted {
                        missing: seq.wrapping_sub(newest) - 1,
                    }
                } else if rx_s - newest_rx_s >= self.config.grace_s {
                    PacketVerdict::Resync
                } else if seq == newest {
                    PacketVerdict::Duplicate
                } else {
                    PacketVerdict::OutOfOrder
                }
            }
        };
        match verdict {
            PacketVerdict::Accepted { missing } if missing > 0 => {
                self.stats.seq_gaps += u64::from(missing);
                self.stats.gap_events += 1;
            }
            PacketVerdict::Resync => self.stats.resyncs += 1,
            PacketVerdict::Duplicate => self.stats.duplicates += 1,
            PacketVerdict::OutOfOrder => self.stats.out_of_order += 1,
            _ => {}
        }
        if verdict.accepted() {
            self.stats.accepted += 1;
            self.newest_seq = Some(seq);
            self.newest_rx_s = Some(rx_s);
        }
        verdict
    }

    /// One control cycle at `now_s`: moves the state on the packet age and, in REJOIN, the gap
    /// error (`None` when unknown). A non-finite clock reads as a stale link.
    pub fn update(&mut self, now_s: f64, gap_error_m: Option<f64>) -> WatchdogState {
        self.state = next_state(
            &self.config,
            self.state,
            self.rejoin_pending,
            self.packet_age_s(now_s),
            gap_error_m,
        );
        match self.state {
            WatchdogState::SafeStop | WatchdogState::Rejoin => self.rejoin_pending = true,
            WatchdogState::Follow => self.rejoin_pending = false,
            WatchdogState::Hold => {}
        }
        self.state
    }
}

/// The transition function: the state after `state` given the packet age (None: no packet yet),
/// the gap error and whether a rejoin is unfinished.
pub fn next_state(
    config: &WatchdogConfig,
    state: WatchdogState,
    rejoin_pending: bool,
    packet_age_s: Option<f64>,
    gap_error_m: Option<f64>,
) -> WatchdogState {
    let age = packet_age_s.unwrap_or(f64::INFINITY);
    let fresh = age < config.fresh_s;
    let within_grace = age < config.grace_s;
    let gap_closed = config.gap_closed(gap_error_m);
    use WatchdogState::*;
    match state {
        Follow | Hold if fresh => {
            if rejoin_pending {
                Rejoin
            } else {
                Follow
            }
        }
        SafeStop if fresh => Rejoin,
        Rejoin if fresh => {
            if gap_closed {
                Follow
            } else {
                Rejoin
            }
        }
        SafeStop => SafeStop,
        Follow | Hold | Rejoin if within_grace => Hold,
        Follow | Hold | Rejoin => SafeStop,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use WatchdogState::*;

    fn watchdog() -> Watchdog {
        Watchdog::new(WatchdogConfig::default()).unwrap()
    }

    /// A watchdog that heard seq 1 at t = 0 and is in FOLLOW at t = 0.
    fn following() -> Watchdog {
        let mut dog = watchdog();
        dog.on_packet(1, 0.0);
        dog.update(0.0, None);
        dog.update(0.1, Some(0.0));
        assert_eq!(dog.state(), Follow);
        dog
    }

    #[test]
    fn starts_in_safe_stop_until_the_first_packet() {
        let mut dog = watchdog();
        assert_eq!(dog.state(), SafeStop);
        assert_eq!(dog.update(5.0, None), SafeStop);
        assert_eq!(dog.packet_age_s(5.0), None);
    }

    #[test]
    fn first_packet_rejoins_then_follows_once_the_gap_closes() {
        let mut dog = watchdog();
        assert_eq!(dog.on_packet(7, 10.0), PacketVerdict::First);
        assert_eq!(dog.update(10.1, Some(2.0)), Rejoin);
        assert_eq!(dog.update(10.2, Some(0.29)), Follow);
    }

    #[test]
    fn follow_stays_while_packets_are_fresh() {
        let mut dog = following();
        assert_eq!(dog.update(0.99, Some(5.0)), Follow);
    }

    #[test]
    fn follow_holds_at_fresh_s_and_stops_at_grace_s() {
        let mut dog = following();
        assert_eq!(dog.update(1.0, None), Hold);
        assert_eq!(dog.update(3.99, None), Hold);
        assert_eq!(dog.update(4.0, None), SafeStop);
        assert_eq!(dog.update(60.0, None), SafeStop);
    }

    #[test]
    fn follow_falls_straight_to_safe_stop_when_the_first_cycle_sees_the_grace_gone() {
        let mut dog = following();
        assert_eq!(dog.update(4.5, None), SafeStop);
    }

    #[test]
    fn hold_returns_to_follow_on_a_fresh_packet() {
        let mut dog = following();
        assert_eq!(dog.update(2.0, None), Hold);
        dog.on_packet(2, 2.5);
        assert_eq!(dog.update(2.6, Some(1.0)), Follow);
    }

    #[test]
    fn safe_stop_rejoins_at_the_first_fresh_packet() {
        let mut dog = following();
        assert_eq!(dog.update(5.0, None), SafeStop);
        dog.on_packet(2, 30.0);
        assert_eq!(
            dog.update(30.05, Some(0.0)),
            Rejoin,
            "REJOIN first, even with the gap closed"
        );
    }

    #[test]
    fn rejoin_stays_on_fresh_packets_while_the_gap_is_open() {
        let mut dog = following();
        dog.update(5.0, None);
        dog.on_packet(2, 30.0);
        assert_eq!(dog.update(30.1, Some(3.0)), Rejoin);
        dog.on_packet(3, 30.2);
        assert_eq!(dog.update(30.3, Some(-0.5)), Rejoin);
        assert_eq!(
            dog.update(30.4, None),
            Rejoin,
            "an unknown gap is not closed"
        );
        assert_eq!(dog.update(30.5, Some(f64::NAN)), Rejoin);
        assert_eq!(
            dog.update(30.6, Some(0.3)),
            Rejoin,
            "the tolerance is strict"
        );
        assert_eq!(dog.update(30.7, Some(-0.2)), Follow);
    }

    #[test]
    fn stale_rejoin_holds_then_returns_to_rejoin_not_follow() {
        let mut dog = following();
        dog.update(5.0, None);
        dog.on_packet(2, 30.0);
        assert_eq!(dog.update(30.1, Some(3.0)), Rejoin);
        assert_eq!(dog.update(31.0, Some(3.0)), Hold);
        dog.on_packet(3, 32.0);
        assert_eq!(dog.update(32.1, Some(0.0)), Rejoin);
        assert_eq!(dog.update(32.2, Some(0.0)), Follow);
        // Once following, a later HOLD returns to FOLLOW again.
        assert_eq!(dog.update(33.5, None), Hold);
        dog.on_packet(4, 34.0);
        assert_eq!(dog.update(34.1, Some(2.0)), Follow);
    }

    #[test]
    fn stale_rejoin_past_the_grace_stops_again() {
        let mut dog = following();
        dog.update(5.0, None);
        dog.on_packet(2, 30.0);
        dog.update(30.1, Some(3.0));
        assert_eq!(dog.update(34.0, Some(3.0)), SafeStop);
    }

    #[test]
    fn non_finite_clock_reads_as_stale() {
        let mut dog = following();
        assert_eq!(dog.update(f64::NAN, Some(0.0)), SafeStop);
        assert_eq!(dog.packet_age_s(f64::INFINITY), None);
    }

    #[test]
    fn a_clock_before_the_arrival_counts_as_age_zero() {
        let dog = following();
        assert_eq!(dog.packet_age_s(-1.0), Some(0.0));
    }

    #[test]
    fn gaps_count_every_skipped_seq() {
        let mut dog = watchdog();
        dog.on_packet(1, 0.0);
        assert_eq!(
            dog.on_packet(2, 0.2),
            PacketVerdict::Accepted { missing: 0 }
        );
        assert_eq!(
            dog.on_packet(5, 0.8),
            PacketVerdict::Accepted { missing: 2 }
        );
        assert_eq!(
            dog.on_packet(6, 1.0),
            PacketVerdict::Accepted { missing: 0 }
        );
        assert_eq!(
            dog.on_packet(30, 6.0),
            PacketVerdict::Accepted { missing: 23 }
        );
        let stats = dog.stats();
        assert_eq!(
            (
                stats.seq_gaps,
                stats.gap_events,
                stats.accepted,
                stats.received
            ),
            (25, 2, 5, 5)
        );
    }

    #[test]
    fn duplicates_and_out_of_order_are_ignored_and_counted() {
        let mut dog = watchdog();
        dog.on_packet(10, 0.0);
        assert_eq!(dog.on_packet(10, 0.1), PacketVerdict::Duplicate);
        assert_eq!(dog.on_packet(9, 0.2), PacketVerdict::OutOfOrder);
        // Ignored packets do not refresh the age.
        assert_eq!(dog.packet_age_s(0.5), Some(0.5));
        assert_eq!(dog.newest_seq(), Some(10));
        let stats = dog.stats();
        assert_eq!(
            (
                stats.duplicates,
                stats.out_of_order,
                stats.accepted,
                stats.seq_gaps
            ),
            (1, 1, 1, 0)
        );
    }

    #[test]
    fn the_late_packet_after_a_gap_is_out_of_order_and_the_gap_stays_counted() {
        let mut dog = watchdog();
        dog.on_packet(1, 0.0);
        dog.on_packet(3, 0.4);
        assert_eq!(dog.on_packet(2, 0.5), PacketVerdict::OutOfOrder);
        assert_eq!(dog.stats().seq_gaps, 1);
    }

    #[test]
    fn sequence_wraps_around_u32() {
        let mut dog = watchdog();
        dog.on_packet(u32::MAX - 1, 0.0);
        assert_eq!(
            dog.on_packet(1, 0.2),
            PacketVerdict::Accepted { missing: 2 }
        );
        assert!(seq_is_newer(0, u32::MAX));
        assert!(!seq_is_newer(u32::MAX, 0));
    }

    #[test]
    fn a_restarted_lead_is_resynced_after_a_grace_of_silence() {
        let mut dog = watchdog();
        dog.on_packet(500, 0.0);
        assert_eq!(dog.on_packet(1, 3.9), PacketVerdict::OutOfOrder);
        assert_eq!(dog.on_packet(1, 4.0), PacketVerdict::Resync);
        assert_eq!(
            dog.on_packet(2, 4.2),
            PacketVerdict::Accepted { missing: 0 }
        );
        let stats = dog.stats();
        assert_eq!((stats.resyncs, stats.seq_gaps), (1, 0));
        assert_eq!(dog.newest_seq(), Some(2));
    }

    #[test]
    fn a_non_finite_receive_time_is_ignored() {
        let mut dog = watchdog();
        assert_eq!(dog.on_packet(1, f64::NAN), PacketVerdict::BadTime);
        assert_eq!(dog.newest_seq(), None);
        assert_eq!(dog.stats().bad_time, 1);
    }

    #[test]
    fn state_names_round_trip() {
        for state in WatchdogState::ALL {
            assert_eq!(WatchdogState::parse(state.as_str()), Some(state));
        }
        assert_eq!(SafeStop.to_string(), "SAFE_STOP");
        assert_eq!(WatchdogState::parse("follow"), None);
    }

    #[test]
    fn bad_thresholds_are_refused_naming_field_and_value() {
        let bad = |fresh_s, grace_s, gap_tolerance_m| {
            Watchdog::new(WatchdogConfig {
                fresh_s,
                grace_s,
                gap_tolerance_m,
            })
            .unwrap_err()
            .to_string()
        };
        assert_eq!(
            bad(0.0, 4.0, 0.3),
            "fresh_s: 0 must be a finite number above 0"
        );
        assert_eq!(
            bad(1.0, 1.0, 0.3),
            "grace_s: 1 must be finite and above fresh_s (1)"
        );
        assert_eq!(
            bad(1.0, f64::INFINITY, 0.3),
            "grace_s: inf must be finite and above fresh_s (1)"
        );
        assert_eq!(
            bad(1.0, 4.0, f64::NAN),
            "gap_tolerance_m: NaN must be a finite number above 0"
        );
    }

    proptest::proptest! {
        #[test]
        fn invariants_hold_over_arbitrary_packet_and_cycle_streams(
            events in proptest::collection::vec(
                (proptest::bool::ANY, 0u32..40, 0.0f64..3.0, proptest::option::of(-2.0f64..2.0)),
                1..200,
            )
        ) {
            let mut dog = watchdog();
            let mut now_s = 0.0;
            for (is_packet, seq, dt_s, gap_error_m) in events {
                now_s += dt_s;
                if is_packet {
                    dog.on_packet(seq, now_s);
                    continue;
                }
                let before = dog.state();
                let after = dog.update(now_s, gap_error_m);
                let age = dog.packet_age_s(now_s).unwrap_or(f64::INFINITY);
                // FOLLOW and REJOIN only on a fresh packet, SAFE_STOP only past the grace or from
                // SAFE_STOP, HOLD only within the grace; FOLLOW never straight from SAFE_STOP.
                match after {
                    Follow | Rejoin => proptest::prop_assert!(age < 1.0),
                    Hold => proptest::prop_assert!((1.0..4.0).contains(&age)),
                    SafeStop => proptest::prop_assert!(age >= 4.0 || before == SafeStop),
                }
                proptest::prop_assert!(!(before == SafeStop && after == Follow));
                if before == Rejoin && after == Follow {
                    proptest::prop_assert!(gap_error_m.is_some_and(|e| e.abs() < 0.3));
                }
                let stats = dog.stats();
                proptest::prop_assert_eq!(
                    stats.received,
                    stats.accepted + stats.duplicates + stats.out_of_order + stats.bad_time
                );
            }
        }
    }
}
