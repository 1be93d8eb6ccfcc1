//! Durations as scenarios write them: `5s`, `1.5s`, `250ms`, `2m`, or a bare number of
//! seconds (`1.5`).

use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, Serialize, Serializer};
use std::fmt;

/// A non-negative, finite duration in seconds.
#[derive(Debug, Clone, Copy, PartialEq, PartialOrd, Default)]
pub struct Secs(pub f64);

impl Secs {
    /// The duration in seconds.
    pub fn get(self) -> f64 {
        self.0
    }
}

/// Parses `5s`, `1.5s`, `250ms`, `2m`, `1.5` into seconds; `None` when malformed,
/// negative or not finite.
pub fn parse(text: &str) -> Option<f64> {
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

impl Serialize for Secs {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_f64(self.0)
    }
}

struct SecsVisitor;

const EXPECTED: &str = "a duration such as 5s, 250ms, 2m or 1.5 (seconds, not negative)";

impl Visitor<'_> for SecsVisitor {
    type Value = Secs;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(EXPECTED)
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Secs, E> {
        if v.is_finite() && v >= 0.0 {
            Ok(Secs(v))
        } else {
            Err(E::custom(format!("{v} is not {EXPECTED}")))
        }
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Secs, E> {
        self.visit_f64(v as f64)
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Secs, E> {
        self.visit_f64(v as f64)
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Secs, E> {
        parse(v)
            .map(Secs)
            .ok_or_else(|| E::custom(format!("\"{v}\" is not {EXPECTED}")))
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
        for bad in ["", "s", "-1s", "abc", "5h", "inf", "NaN", "+3s"] {
            assert_eq!(parse(bad), None, "{bad}");
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
