//! Durations, one grammar for every reader of a scenario file: `fieldproof validate` and the
//! runner (through `fieldproof_scenario::duration`, which re-exports this module) and the link
//! tools (`link_analysis`, `link_net`, `link_shaper`).
//!
//! ```text
//! duration := number unit?      spaces around the number and the unit are allowed
//! unit     := "ms" | "s" | "m" | "min"          none: seconds
//! number   := digits with an optional fraction and exponent (1, 1.5, .5, 1e3), no sign
//! ```
//!
//! A YAML number is a number of seconds (`1.5`, `3`). Every duration is finite, not negative
//! and at most [`MAX_DURATION_S`] (7 days). Examples: `5s`, `1.5s`, `250ms`, `2m`, `2min`,
//! `1.5`, `1e-3s`. Refused: a sign (`+3s`, `-1s`), other units (`1h`, `7d`), `inf`, `NaN`,
//! an empty number (`s`).

use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, Serialize, Serializer};
use std::fmt;

/// The longest duration a scenario may write (7 days, in seconds): longer is refused
/// wherever a duration is parsed.
pub const MAX_DURATION_S: f64 = 7.0 * 24.0 * 3600.0;

/// A non-negative duration in seconds, at most [`MAX_DURATION_S`].
#[derive(Debug, Clone, Copy, PartialEq, PartialOrd, Default)]
pub struct Secs(pub f64);

impl Secs {
    /// The duration in seconds.
    pub fn get(self) -> f64 {
        self.0
    }
}

/// Parses a duration of the module's grammar (`5s`, `1.5s`, `250ms`, `2m`, `2min`, `1.5`)
/// into seconds; `None` when malformed, signed, not finite or above [`MAX_DURATION_S`].
pub fn parse(text: &str) -> Option<f64> {
    parse_number(text).filter(|x| *x <= MAX_DURATION_S)
}

/// The number of seconds written, not yet bounded above.
fn parse_number(text: &str) -> Option<f64> {
    let s = text.trim();
    let (num, scale) = if let Some(x) = s.strip_suffix("ms") {
        (x, 0.001)
    } else if let Some(x) = s.strip_suffix('s') {
        (x, 1.0)
    } else if let Some(x) = s.strip_suffix("min") {
        (x, 60.0)
    } else if let Some(x) = s.strip_suffix('m') {
        (x, 60.0)
    } else {
        (s, 1.0)
    };
    let num = num.trim();
    if num.is_empty() || num.starts_with('+') {
        return None;
    }
    num.parse::<f64>()
        .ok()
        .map(|x| x * scale)
        .filter(|x| x.is_finite() && *x >= 0.0)
}

/// A number of seconds as a message shows it: plain (`0.25`, `604801`), or in exponent form
/// when very small or very large (`1e-12`, `1e300`).
pub fn display(secs: f64) -> String {
    let magnitude = secs.abs();
    if magnitude != 0.0 && !(1e-4..1e15).contains(&magnitude) {
        format!("{secs:e}")
    } else {
        format!("{secs}")
    }
}

impl Serialize for Secs {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_f64(self.0)
    }
}

struct SecsVisitor;

const EXPECTED: &str = "a duration such as 5s, 250ms, 2m or 1.5 (seconds, not negative)";

/// The refusal of a duration above [`MAX_DURATION_S`].
fn too_long(written: &str) -> String {
    format!("{written} is above the maximum duration of {MAX_DURATION_S} s (7 days)")
}

impl Visitor<'_> for SecsVisitor {
    type Value = Secs;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(EXPECTED)
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Secs, E> {
        if !(v.is_finite() && v >= 0.0) {
            Err(E::custom(format!("{v} is not {EXPECTED}")))
        } else if v > MAX_DURATION_S {
            Err(E::custom(too_long(&display(v))))
        } else {
            Ok(Secs(v))
        }
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Secs, E> {
        self.visit_f64(v as f64)
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Secs, E> {
        self.visit_f64(v as f64)
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Secs, E> {
        match parse_number(v) {
            None => Err(E::custom(format!("\"{v}\" is not {EXPECTED}"))),
            Some(x) if x > MAX_DURATION_S => Err(E::custom(too_long(&format!("\"{v}\"")))),
            Some(x) => Ok(Secs(x)),
        }
    }
}

impl<'de> Deserialize<'de> for Secs {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Secs, D::Error> {
        d.deserialize_any(SecsVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_every_form() {
        assert_eq!(parse("5s"), Some(5.0));
        assert_eq!(parse("1.5s"), Some(1.5));
        assert_eq!(parse("250ms"), Some(0.25));
        assert_eq!(parse("2m"), Some(120.0));
        assert_eq!(parse("1min"), Some(60.0));
        assert_eq!(parse("1.5"), Some(1.5));
        assert_eq!(parse(" 30 s "), Some(30.0));
    }

    #[test]
    fn refuses_bad_forms() {
        for bad in [
            "", "s", "-1s", "abc", "5h", "1h", "inf", "NaN", "+3s", "+3", "3 h", "1.5.2s",
        ] {
            assert_eq!(parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn refuses_durations_above_the_maximum() {
        assert_eq!(parse("7d"), None);
        assert_eq!(parse("604800s"), Some(MAX_DURATION_S));
        assert_eq!(parse("1e300s"), None);
        assert_eq!(parse("10081min"), None);
        for text in ["\"1e300s\"", "1e300", "604801"] {
            let e = serde_yaml::from_str::<Secs>(text).unwrap_err().to_string();
            assert!(
                e.contains("above the maximum duration of 604800 s"),
                "{text}: {e}"
            );
        }
    }

    #[test]
    fn deserializes_numbers_and_strings() {
        let v: Vec<Secs> = serde_yaml::from_str("[5s, 1.5, 3, 100ms]").unwrap();
        assert_eq!(v, vec![Secs(5.0), Secs(1.5), Secs(3.0), Secs(0.1)]);
        let e = serde_yaml::from_str::<Secs>("five")
            .unwrap_err()
            .to_string();
        assert!(e.contains("\"five\" is not a duration"), "{e}");
        assert!(serde_yaml::from_str::<Secs>("-2").is_err());
    }
}
