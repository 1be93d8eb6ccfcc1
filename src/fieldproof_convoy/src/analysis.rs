//! The recovery analysis of a follower's CSV log (what `convoy_analyze` prints).
//!
//! Definitions, all at the control cycle's resolution (the log's rows):
//! - A row's state holds from its `t` to the next row's `t` (the last row holds for 0 s): the
//!   time per state sums these.
//! - A **blackout** is a run of SAFE_STOP rows after some other state (the SAFE_STOP rows a log
//!   starts with are the wait for the first packet, reported as `initial_safe_stop_s`). Its
//!   `hold_start_t` is the start of the HOLD run right before it, if any.
//! - The link is **restored** at the first row after the blackout (the cycle that saw the first
//!   good packet); `first_packet_t` is that row's `t − pkt_age_s`, when the age is logged.
//! - **Recovered** is the first row from the restore on, before the next blackout, whose
//!   |gap_err_m| is below the tolerance; the recovery time is recovered − restored (None when the
//!   log ends, or the next blackout starts, first).
//! - The **worst gap** is the row with the largest |gap_err_m| (overall and in FOLLOW); the
//!   minimum distance to the lead needs the `lead_dist_m` column.

use crate::csv_log::CsvRow;
use crate::watchdog::WatchdogState;
use serde::Serialize;
use std::collections::BTreeMap;

/// A value and the time of the row it came from.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct AtTime {
    /// The row's `t`, seconds.
    pub t: f64,
    /// The value.
    pub value: f64,
}

/// One blackout and the recovery after it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Blackout {
    /// Start of the HOLD run right before the stop (None: stopped without a HOLD row).
    pub hold_start_t: Option<f64>,
    /// First SAFE_STOP row.
    pub stop_start_t: f64,
    /// First row after the SAFE_STOP run (None: the log ends stopped).
    pub restored_t: Option<f64>,
    /// When the first good packet arrived: restored_t − its pkt_age_s (None if unknown).
    pub first_packet_t: Option<f64>,
    /// Time in SAFE_STOP: restored_t − stop_start_t.
    pub stopped_s: Option<f64>,
    /// First row from restored_t on with |gap_err_m| < tolerance, before the next blackout.
    pub recovered_t: Option<f64>,
    /// recovered_t − restored_t, seconds.
    pub recovery_s: Option<f64>,
}

/// The whole analysis (the JSON `convoy_analyze` prints).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Analysis {
    /// Rows read.
    pub rows: usize,
    /// Last t − first t, seconds.
    pub duration_s: f64,
    /// The gap tolerance used, metres.
    pub tolerance_m: f64,
    /// Seconds in each state (all four named, FOLLOW, HOLD, REJOIN, SAFE_STOP).
    pub time_in_state_s: BTreeMap<&'static str, f64>,
    /// SAFE_STOP at the start of the log, before the first packet, seconds.
    pub initial_safe_stop_s: f64,
    /// Every blackout in order.
    pub blackouts: Vec<Blackout>,
    /// The longest recovery, seconds (None without any recovery).
    pub worst_recovery_s: Option<f64>,
    /// Blackouts without a recovery (the log ended, or stopped again, first).
    pub unrecovered_blackouts: usize,
    /// The largest |gap_err_m| (the signed value).
    pub worst_gap_err_m: Option<AtTime>,
    /// The largest |gap_err_m| among FOLLOW rows (the signed value).
    pub worst_follow_gap_err_m: Option<AtTime>,
    /// The smallest lead_dist_m (None when not logged).
    pub min_lead_dist_m: Option<AtTime>,
    /// The oldest pkt_age_s.
    pub max_pkt_age_s: Option<AtTime>,
    /// seq_gaps of the last row: the sequence numbers skipped over the whole log.
    pub seq_gaps: u64,
}

/// Why a log cannot be analysed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum AnalysisError {
    /// No rows.
    #[error("no rows to analyse")]
    Empty,
    /// `t` goes backwards.
    #[error("row {row}: t {t} is before the previous row's {previous}")]
    TimeGoesBack {
        /// 1-based data row.
        row: usize,
        /// Its t.
        t: f64,
        /// The previous row's t.
        previous: f64,
    },
    /// The tolerance is not a finite positive number.
    #[error("tolerance_m: {0} must be a finite number above 0")]
    Tolerance(f64),
}

/// The row (as [`AtTime`]) maximising `key` among the rows with a value.
fn extreme(
    rows: &[CsvRow],
    value: impl Fn(&CsvRow) -> Option<f64>,
    key: impl Fn(f64) -> f64,
) -> Option<AtTime> {
    rows.iter()
        .filter_map(|row| {
            value(row).map(|v| AtTime {
                t: row.t_s,
                value: v,
            })
        })
        .fold(None, |best: Option<AtTime>, candidate| match best {
            Some(best) if key(best.value) >= key(candidate.value) => Some(best),
            _ => Some(candidate),
        })
}

/// Analyses a log's rows (in time order) with gap tolerance `tolerance_m`.
pub fn analyse(rows: &[CsvRow], tolerance_m: f64) -> Result<Analysis, AnalysisError> {
    if !(tolerance_m.is_finite() && tolerance_m > 0.0) {
        return Err(AnalysisError::Tolerance(tolerance_m));
    }
    let (first, last) = match (rows.first(), rows.last()) {
        (Some(first), Some(last)) => (first, last),
        _ => return Err(AnalysisError::Empty),
    };
    for (index, pair) in rows.windows(2).enumerate() {
        if pair[1].t_s < pair[0].t_s {
            return Err(AnalysisError::TimeGoesBack {
                row: index + 2,
                t: pair[1].t_s,
                previous: pair[0].t_s,
            });
        }
    }
    let mut time_in_state_s: BTreeMap<&'static str, f64> = WatchdogState::ALL
        .iter()
        .map(|state| (state.as_str(), 0.0))
        .collect();
    for pair in rows.windows(2) {
        *time_in_state_s.entry(pair[0].state.as_str()).or_default() += pair[1].t_s - pair[0].t_s;
    }
    let startup_rows = rows
        .iter()
        .take_while(|row| row.state == WatchdogState::SafeStop)
        .count();
    let initial_safe_stop_s = match rows.get(startup_rows) {
        Some(after) if startup_rows > 0 => after.t_s - first.t_s,
        None => last.t_s - first.t_s,
        Some(_) => 0.0,
    };
    let blackouts = find_blackouts(rows, startup_rows, tolerance_m);
    let worst_recovery_s = blackouts
        .iter()
        .filter_map(|blackout| blackout.recovery_s)
        .fold(None, |worst: Option<f64>, s| {
            Some(worst.map_or(s, |w| w.max(s)))
        });
    let follow_rows: Vec<CsvRow> = rows
        .iter()
        .filter(|row| row.state == WatchdogState::Follow)
        .copied()
        .collect();
    Ok(Analysis {
        rows: rows.len(),
        duration_s: last.t_s - first.t_s,
        tolerance_m,
        time_in_state_s,
        initial_safe_stop_s,
        unrecovered_blackouts: blackouts.iter().filter(|b| b.recovery_s.is_none()).count(),
        worst_recovery_s,
        blackouts,
        worst_gap_err_m: extreme(rows, |row| row.gap_err_m, f64::abs),
        worst_follow_gap_err_m: extreme(&follow_rows, |row| row.gap_err_m, f64::abs),
        min_lead_dist_m: extreme(rows, |row| row.lead_dist_m, |v| -v),
        max_pkt_age_s: extreme(rows, |row| row.pkt_age_s, |v| v),
        seq_gaps: last.seq_gaps,
    })
}

/// The blackouts after the first `startup_rows` rows (see the module's definitions).
fn find_blackouts(rows: &[CsvRow], startup_rows: usize, tolerance_m: f64) -> Vec<Blackout> {
    let stopped = |index: usize| rows[index].state == WatchdogState::SafeStop;
    let mut blackouts = Vec::new();
    let mut index = startup_rows;
    while index < rows.len() {
        if !stopped(index) {
            index += 1;
            continue;
        }
        let stop_start = index;
        let mut hold_start = stop_start;
        while hold_start > startup_rows && rows[hold_start - 1].state == WatchdogState::Hold {
            hold_start -= 1;
        }
        while index < rows.len() && stopped(index) {
            index += 1;
        }
        let restored = rows.get(index);
        let next_stop = (index..rows.len())
            .find(|&at| stopped(at))
            .unwrap_or(rows.len());
        let recovered = restored.and_then(|_| {
            rows[index..next_stop]
                .iter()
                .find(|row| row.gap_err_m.is_some_and(|error| error.abs() < tolerance_m))
        });
        let restored_t = restored.map(|row| row.t_s);
        blackouts.push(Blackout {
            hold_start_t: (hold_start < stop_start).then(|| rows[hold_start].t_s),
            stop_start_t: rows[stop_start].t_s,
            restored_t,
            first_packet_t: restored.and_then(|row| Some(row.t_s - row.pkt_age_s?)),
            stopped_s: restored_t.map(|t| t - rows[stop_start].t_s),
            recovered_t: recovered.map(|row| row.t_s),
            recovery_s: recovered.zip(restored_t).map(|(row, t)| row.t_s - t),
        });
        index = next_stop;
    }
    blackouts
}

#[cfg(test)]
mod tests {
    use super::*;
    use WatchdogState::*;

    fn row(t_s: f64, gap_err_m: Option<f64>, state: WatchdogState) -> CsvRow {
        CsvRow {
            t_s,
            seq_gaps: 0,
            rssi_dbm: None,
            pkt_age_s: Some(0.1),
            gap_err_m,
            state,
            lead_dist_m: None,
        }
    }

    #[test]
    fn one_row_has_no_duration_and_no_blackout() {
        let analysis = analyse(&[row(5.0, Some(0.1), Follow)], 0.3).unwrap();
        assert_eq!(
            (analysis.rows, analysis.duration_s, analysis.blackouts.len()),
            (1, 0.0, 0)
        );
        assert_eq!(analysis.time_in_state_s["FOLLOW"], 0.0);
    }

    #[test]
    fn a_log_that_only_waits_is_all_initial_safe_stop() {
        let rows = [row(0.0, None, SafeStop), row(2.0, None, SafeStop)];
        let analysis = analyse(&rows, 0.3).unwrap();
        assert_eq!(analysis.initial_safe_stop_s, 2.0);
        assert!(analysis.blackouts.is_empty());
    }

    #[test]
    fn a_stop_without_hold_and_the_recovery_in_the_restore_row() {
        let rows = [
            row(0.0, Some(0.0), Follow),
            row(1.0, None, SafeStop),
            row(2.0, Some(0.1), Rejoin),
        ];
        let blackout = analyse(&rows, 0.3).unwrap().blackouts[0];
        assert_eq!(blackout.hold_start_t, None);
        assert_eq!(
            (blackout.restored_t, blackout.recovery_s),
            (Some(2.0), Some(0.0))
        );
    }

    #[test]
    fn recovery_is_not_searched_past_the_next_blackout() {
        let rows = [
            row(0.0, Some(0.0), Follow),
            row(1.0, None, SafeStop),
            row(2.0, Some(1.0), Rejoin),
            row(3.0, None, SafeStop),
            row(4.0, Some(0.0), Rejoin),
        ];
        let analysis = analyse(&rows, 0.3).unwrap();
        let recoveries: Vec<_> = analysis.blackouts.iter().map(|b| b.recovery_s).collect();
        assert_eq!(recoveries, [None, Some(0.0)]);
        assert_eq!(analysis.unrecovered_blackouts, 1);
    }

    #[test]
    fn time_going_back_and_a_bad_tolerance_are_refused() {
        let rows = [row(1.0, None, Follow), row(0.5, None, Follow)];
        assert_eq!(
            analyse(&rows, 0.3).unwrap_err().to_string(),
            "row 2: t 0.5 is before the previous row's 1"
        );
        assert_eq!(
            analyse(&rows, 0.0).unwrap_err().to_string(),
            "tolerance_m: 0 must be a finite number above 0"
        );
        assert_eq!(analyse(&[], 0.3), Err(AnalysisError::Empty));
    }
}
