//! The follower's per-cycle CSV log (the spec's derived signals), one row per control cycle:
//!
//! ```text
//! t,seq_gaps,rssi_dbm,pkt_age_s,gap_err_m,state[,lead_dist_m]
//! ```
//!
//! `t` seconds (any one clock), `seq_gaps` the skipped sequence numbers so far, `rssi_dbm` the
//! radio's estimate, `pkt_age_s` the newest accepted packet's age, `gap_err_m` the formation gap
//! error, `state` FOLLOW / HOLD / SAFE_STOP / REJOIN, and optionally `lead_dist_m` the distance to
//! the lead (when the logger knows it, e.g. from the simulator). An unknown value is an empty
//! field (pandas reads it as NaN). The reader also takes the spec's style: spaces after the
//! commas, `#` comment lines, `nan` for unknown.

use crate::watchdog::WatchdogState;
use serde::Serialize;
use std::io::{Read, Write};

/// The columns every log has, in order.
pub const COLUMNS: [&str; 6] = [
    "t",
    "seq_gaps",
    "rssi_dbm",
    "pkt_age_s",
    "gap_err_m",
    "state",
];
/// The optional last column.
pub const LEAD_DISTANCE_COLUMN: &str = "lead_dist_m";

/// One control cycle of the log.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct CsvRow {
    /// Time of the cycle, seconds.
    pub t_s: f64,
    /// Sequence numbers skipped so far.
    pub seq_gaps: u64,
    /// RSSI estimate, dBm (None: unknown).
    pub rssi_dbm: Option<f64>,
    /// Age of the newest accepted packet, seconds (None: none yet).
    pub pkt_age_s: Option<f64>,
    /// Formation gap error, metres (None: unknown).
    pub gap_err_m: Option<f64>,
    /// The watchdog's state this cycle.
    pub state: WatchdogState,
    /// Distance to the lead, metres (None: not logged or unknown).
    pub lead_dist_m: Option<f64>,
}

/// Why a log could not be read or written: the line, the column and the value where known.
#[derive(Debug, thiserror::Error)]
pub enum CsvLogError {
    /// The header lacks a required column.
    #[error("header: missing column {column} (expected t,seq_gaps,rssi_dbm,pkt_age_s,gap_err_m,state[,lead_dist_m])")]
    MissingColumn {
        /// The missing column.
        column: &'static str,
    },
    /// A field does not parse as its column's type.
    #[error("line {line}: column {column}: {value:?} {reason}")]
    BadValue {
        /// 1-based line in the file.
        line: u64,
        /// The column.
        column: &'static str,
        /// The text found.
        value: String,
        /// What it should have been.
        reason: &'static str,
    },
    /// The CSV itself is malformed (e.g. a row with the wrong number of fields).
    #[error("{0}")]
    Csv(#[from] csv::Error),
    /// Writing failed.
    #[error("{0}")]
    Io(#[from] std::io::Error),
}

/// Writes the log: the header on creation, then one line per [`CsvLogWriter::write_row`].
pub struct CsvLogWriter<W: Write> {
    out: W,
    with_lead_distance: bool,
}

impl<W: Write> CsvLogWriter<W> {
    /// A writer; `with_lead_distance` adds the `lead_dist_m` column.
    pub fn new(mut out: W, with_lead_distance: bool) -> Result<CsvLogWriter<W>, CsvLogError> {
        let mut header = COLUMNS.join(",");
        if with_lead_distance {
            header.push(',');
            header.push_str(LEAD_DISTANCE_COLUMN);
        }
        writeln!(out, "{header}")?;
        Ok(CsvLogWriter {
            out,
            with_lead_distance,
        })
    }

    /// Appends one row (a non-finite value is written as unknown).
    pub fn write_row(&mut self, row: &CsvRow) -> Result<(), CsvLogError> {
        let number = |value: Option<f64>| {
            value
                .filter(|v| v.is_finite())
                .map(|v| v.to_string())
                .unwrap_or_default()
        };
        write!(
            self.out,
            "{},{},{},{},{},{}",
            number(Some(row.t_s)),
            row.seq_gaps,
            number(row.rssi_dbm),
            number(row.pkt_age_s),
            number(row.gap_err_m),
            row.state
        )?;
        if self.with_lead_distance {
            write!(self.out, ",{}", number(row.lead_dist_m))?;
        }
        writeln!(self.out)?;
        Ok(())
    }

    /// Flushes the underlying writer.
    pub fn flush(&mut self) -> Result<(), CsvLogError> {
        self.out.flush()?;
        Ok(())
    }

    /// The underlying writer.
    pub fn into_inner(self) -> W {
        self.out
    }
}

/// Reads a whole log. Columns are found by name (order free, extra columns ignored); `t` must be
/// finite, `seq_gaps` a whole number, `state` one of the four names; the other numbers may be
/// empty or `nan` (unknown).
pub fn read_log<R: Read>(input: R) -> Result<Vec<CsvRow>, CsvLogError> {
    let mut reader = csv::ReaderBuilder::new()
        .trim(csv::Trim::All)
        .comment(Some(b'#'))
        .from_reader(input);
    let headers = reader.headers()?.clone();
    let index = |column: &'static str| headers.iter().position(|name| name == column);
    let mut required = [0usize; 6];
    for (slot, column) in required.iter_mut().zip(COLUMNS) {
        *slot = index(column).ok_or(CsvLogError::MissingColumn { column })?;
    }
    let [t, seq_gaps, rssi, age, gap, state] = required;
    let lead_distance = index(LEAD_DISTANCE_COLUMN);
    let mut rows = Vec::new();
    for record in reader.records() {
        let record = record?;
        let line = record.position().map_or(0, |p| p.line());
        let field = |at: usize| record.get(at).unwrap_or("");
        let bad = |column: &'static str, at: usize, reason: &'static str| CsvLogError::BadValue {
            line,
            column,
            value: field(at).to_string(),
            reason,
        };
        let optional = |column: &'static str, at: usize| -> Result<Option<f64>, CsvLogError> {
            let text = field(at);
            if text.is_empty() {
                return Ok(None);
            }
            let value: f64 = text
                .parse()
                .map_err(|_| bad(column, at, "is not a number"))?;
            Ok(value.is_finite().then_some(value))
        };
        let t_s = optional("t", t)?.ok_or_else(|| bad("t", t, "is not a finite number"))?;
        let seq_gaps = field(seq_gaps)
            .parse()
            .map_err(|_| bad("seq_gaps", seq_gaps, "is not a whole number >= 0"))?;
        let state = WatchdogState::parse(field(state))
            .ok_or_else(|| bad("state", state, "is not FOLLOW, HOLD, SAFE_STOP or REJOIN"))?;
        rows.push(CsvRow {
            t_s,
            seq_gaps,
            rssi_dbm: optional("rssi_dbm", rssi)?,
            pkt_age_s: optional("pkt_age_s", age)?,
            gap_err_m: optional("gap_err_m", gap)?,
            state,
            lead_dist_m: match lead_distance {
                Some(at) => optional(LEAD_DISTANCE_COLUMN, at)?,
                None => None,
            },
        });
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(t_s: f64, state: WatchdogState) -> CsvRow {
        CsvRow {
            t_s,
            seq_gaps: 3,
            rssi_dbm: Some(-91.0),
            pkt_age_s: Some(1.3),
            gap_err_m: Some(0.18),
            state,
            lead_dist_m: Some(1.7),
        }
    }

    #[test]
    fn writer_emits_the_spec_header_and_rows() {
        let mut log = CsvLogWriter::new(Vec::new(), false).unwrap();
        log.write_row(&row(1789670401.4, WatchdogState::Hold))
            .unwrap();
        let unknown = CsvRow {
            rssi_dbm: None,
            gap_err_m: Some(f64::NAN),
            ..row(1789670406.1, WatchdogState::SafeStop)
        };
        log.write_row(&unknown).unwrap();
        let text = String::from_utf8(log.into_inner()).unwrap();
        assert_eq!(
            text,
            "t,seq_gaps,rssi_dbm,pkt_age_s,gap_err_m,state\n\
             1789670401.4,3,-91,1.3,0.18,HOLD\n\
             1789670406.1,3,,1.3,,SAFE_STOP\n"
        );
    }

    #[test]
    fn written_rows_read_back_equal() {
        let rows = [
            row(0.0, WatchdogState::Follow),
            CsvRow {
                pkt_age_s: None,
                lead_dist_m: None,
                ..row(0.1, WatchdogState::Rejoin)
            },
        ];
        let mut log = CsvLogWriter::new(Vec::new(), true).unwrap();
        for r in &rows {
            log.write_row(r).unwrap();
        }
        let text = log.into_inner();
        assert_eq!(read_log(text.as_slice()).unwrap(), rows);
    }

    #[test]
    fn reads_the_spec_sample_with_spaces_and_comments() {
        let text = "# t, seq_gaps, rssi_dbm, pkt_age_s, gap_err_m, state\n\
                    t, seq_gaps, rssi_dbm, pkt_age_s, gap_err_m, state\n\
                    1789670401.2, 0, -87, 0.21, 0.12, FOLLOW\n\
                    1789670401.4, 3, -91, 1.30, 0.18, HOLD\n\
                    1789670406.1, 24, 0, 6.02, nan, SAFE_STOP\n";
        let rows = read_log(text.as_bytes()).unwrap();
        assert_eq!(rows.len(), 3);
        assert_eq!(rows[1].seq_gaps, 3);
        assert_eq!(rows[1].state, WatchdogState::Hold);
        assert_eq!(rows[2].gap_err_m, None);
        assert_eq!(rows[2].lead_dist_m, None);
    }

    #[test]
    fn bad_values_name_line_column_and_value() {
        let cases = [
            (
                "0.5,x,-80,0.1,0.1,FOLLOW",
                "line 2: column seq_gaps: \"x\" is not a whole number >= 0",
            ),
            (
                "0.5,1,-80,0.1,0.1,follow",
                "line 2: column state: \"follow\" is not FOLLOW, HOLD, SAFE_STOP or REJOIN",
            ),
            (
                ",1,-80,0.1,0.1,FOLLOW",
                "line 2: column t: \"\" is not a finite number",
            ),
            (
                "0.5,1,-80,0.1,abc,FOLLOW",
                "line 2: column gap_err_m: \"abc\" is not a number",
            ),
        ];
        for (line, message) in cases {
            let text = format!("t,seq_gaps,rssi_dbm,pkt_age_s,gap_err_m,state\n{line}\n");
            assert_eq!(read_log(text.as_bytes()).unwrap_err().to_string(), message);
        }
    }

    #[test]
    fn a_missing_column_is_named() {
        let text = "t,seq_gaps,rssi_dbm,pkt_age_s,state\n0,0,,,FOLLOW\n";
        let err = read_log(text.as_bytes()).unwrap_err().to_string();
        assert!(err.starts_with("header: missing column gap_err_m"), "{err}");
    }

    #[test]
    fn a_short_row_is_refused() {
        let text = "t,seq_gaps,rssi_dbm,pkt_age_s,gap_err_m,state\n0,0,FOLLOW\n";
        assert!(matches!(
            read_log(text.as_bytes()),
            Err(CsvLogError::Csv(_))
        ));
    }
}
