//! Source-side degradation of the lead's broadcast (the LoRa path has no netem): drop every
//! n-th packet, and a blackout (switched by hand, or a window in time). A dropped packet still
//! uses its sequence number, so the follower counts it as a gap.

use serde::Serialize;

/// The degradation settings in force.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct SourceDegradation {
    /// Drop the packets whose seq is a multiple of this (0: off).
    pub drop_every_n: u64,
    /// Drop everything while true.
    pub blackout: bool,
    /// Drop everything from this time (seconds since the broadcaster started)...
    pub blackout_start_s: f64,
    /// ...for this long (0: no window).
    pub blackout_duration_s: f64,
}

/// What the source does with one packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SourceVerdict {
    /// Send it.
    Send,
    /// Dropped by `drop_every_n`.
    DropEveryN,
    /// Dropped by the blackout.
    DropBlackout,
}

impl SourceDegradation {
    /// Whether the blackout holds at `elapsed_s` (seconds since the start).
    pub fn in_blackout(&self, elapsed_s: f64) -> bool {
        self.blackout
            || (self.blackout_duration_s > 0.0
                && elapsed_s >= self.blackout_start_s
                && elapsed_s < self.blackout_start_s + self.blackout_duration_s)
    }

    /// The fate of packet `seq` made at `elapsed_s` (the blackout counts first).
    pub fn judge(&self, seq: u32, elapsed_s: f64) -> SourceVerdict {
        if self.in_blackout(elapsed_s) {
            SourceVerdict::DropBlackout
        } else if self.drop_every_n > 0 && u64::from(seq) % self.drop_every_n == 0 {
            SourceVerdict::DropEveryN
        } else {
            SourceVerdict::Send
        }
    }
}

/// What the source did so far (published as JSON on `convoy/source_stats`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct SourceStats {
    /// The newest seq used (sent or dropped).
    pub seq: u32,
    /// Packets sent.
    pub sent: u64,
    /// Packets dropped by `drop_every_n`.
    pub dropped_every_n: u64,
    /// Packets dropped by the blackout.
    pub dropped_blackout: u64,
    /// All packets dropped at the source.
    pub dropped: u64,
    /// Sent packets the serial device did not take (full buffer, I/O error).
    pub serial_write_failures: u64,
    /// Sent packets the UDP socket did not take.
    pub udp_send_failures: u64,
}

impl SourceStats {
    /// Counts one verdict for packet `seq`.
    pub fn count(&mut self, seq: u32, verdict: SourceVerdict) {
        self.seq = seq;
        match verdict {
            SourceVerdict::Send => self.sent += 1,
            SourceVerdict::DropEveryN => {
                self.dropped_every_n += 1;
                self.dropped += 1;
            }
            SourceVerdict::DropBlackout => {
                self.dropped_blackout += 1;
                self.dropped += 1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_third_packet_is_dropped() {
        let degradation = SourceDegradation {
            drop_every_n: 3,
            ..SourceDegradation::default()
        };
        let mut stats = SourceStats::default();
        let sent: Vec<u32> = (1..=9)
            .filter(|seq| {
                let verdict = degradation.judge(*seq, 0.0);
                stats.count(*seq, verdict);
                verdict == SourceVerdict::Send
            })
            .collect();
        assert_eq!(sent, vec![1, 2, 4, 5, 7, 8]);
        assert_eq!(
            (stats.sent, stats.dropped_every_n, stats.dropped),
            (6, 3, 3)
        );
        assert_eq!(stats.seq, 9);
    }

    #[test]
    fn the_blackout_window_is_half_open_and_the_switch_overrides() {
        let mut degradation = SourceDegradation {
            blackout_start_s: 10.0,
            blackout_duration_s: 5.0,
            ..SourceDegradation::default()
        };
        assert_eq!(degradation.judge(1, 9.99), SourceVerdict::Send);
        assert_eq!(degradation.judge(1, 10.0), SourceVerdict::DropBlackout);
        assert_eq!(degradation.judge(1, 15.0), SourceVerdict::Send);
        degradation.blackout = true;
        assert_eq!(degradation.judge(1, 0.0), SourceVerdict::DropBlackout);
        assert!(!SourceDegradation::default().in_blackout(0.0));
    }
}
