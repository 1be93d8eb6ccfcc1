//! The recorded time series the timeline's `when` triggers and the assertions read: per
//! topic, (simulation time from the timeline's start, message as JSON) in arrival order.

use serde_json::Value as Json;
use std::collections::BTreeMap;

/// One step of a field path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// A map key.
    Key(String),
    /// A sequence index.
    Index(usize),
}

/// Parses `a.b.c`, `ranges[0]`, `status.status`; `None` when malformed.
pub fn parse_field(path: &str) -> Option<Vec<Step>> {
    if path.is_empty() {
        return None;
    }
    let mut steps = Vec::new();
    for part in path.split('.') {
        let (key, mut rest) = match part.find('[') {
            Some(i) => (&part[..i], &part[i..]),
            None => (part, ""),
        };
        if key.is_empty() || !key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            return None;
        }
        steps.push(Step::Key(key.to_string()));
        while !rest.is_empty() {
            let close = rest.find(']')?;
            if !rest.starts_with('[') {
                return None;
            }
            steps.push(Step::Index(rest[1..close].parse().ok()?));
            rest = &rest[close + 1..];
        }
    }
    Some(steps)
}

/// The value at `path` in `msg`.
pub fn lookup<'a>(msg: &'a Json, path: &str) -> Option<&'a Json> {
    let mut cur = msg;
    for s in parse_field(path)? {
        cur = match s {
            Step::Key(k) => cur.get(&k)?,
            Step::Index(i) => cur.get(i)?,
        };
    }
    Some(cur)
}

/// A field's value as a number (booleans as 0/1).
pub fn as_number(v: &Json) -> Option<f64> {
    match v {
        Json::Number(n) => n.as_f64(),
        Json::Bool(b) => Some(if *b { 1.0 } else { 0.0 }),
        _ => None,
    }
}

/// Samples of every topic.
#[derive(Debug, Default, Clone)]
pub struct Store {
    series: BTreeMap<String, Vec<(f64, Json)>>,
}

impl Store {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a sample of `topic` at `t` (seconds from the timeline's start; negative during
    /// the bring-up).
    pub fn push(&mut self, topic: &str, t: f64, msg: Json) {
        self.series
            .entry(topic.to_string())
            .or_default()
            .push((t, msg));
    }

    /// Every sample of `topic`.
    pub fn samples(&self, topic: &str) -> &[(f64, Json)] {
        self.series.get(topic).map(Vec::as_slice).unwrap_or(&[])
    }

    /// Samples of `topic` with `lo <= t <= hi`.
    pub fn window(&self, topic: &str, lo: f64, hi: f64) -> impl Iterator<Item = &(f64, Json)> {
        self.samples(topic)
            .iter()
            .filter(move |(t, _)| *t >= lo && *t <= hi)
    }

    /// The newest sample of `topic`.
    pub fn latest(&self, topic: &str) -> Option<&(f64, Json)> {
        self.samples(topic).last()
    }

    /// The topics with samples.
    pub fn topics(&self) -> impl Iterator<Item = &str> {
        self.series.keys().map(String::as_str)
    }

    /// A numeric field over time (samples without the field are skipped).
    pub fn field_series(&self, topic: &str, field: &str) -> Vec<(f64, f64)> {
        self.samples(topic)
            .iter()
            .filter_map(|(t, m)| lookup(m, field).and_then(as_number).map(|v| (*t, v)))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn field_paths() {
        assert_eq!(
            parse_field("ranges[2]"),
            Some(vec![Step::Key("ranges".into()), Step::Index(2)])
        );
        assert_eq!(parse_field("a.b").map(|v| v.len()), Some(2));
        for bad in ["", "a..b", "a[", "a[x]", ".a", "a]b", "a-b"] {
            assert_eq!(parse_field(bad), None, "{bad}");
        }
        let m =
            json!({"twist": {"twist": {"linear": {"x": 0.5}}}, "ranges": [1.0, 2.5], "data": true});
        assert_eq!(lookup(&m, "twist.twist.linear.x"), Some(&json!(0.5)));
        assert_eq!(lookup(&m, "ranges[1]"), Some(&json!(2.5)));
        assert_eq!(lookup(&m, "ranges[7]"), None);
        assert_eq!(lookup(&m, "data").and_then(as_number), Some(1.0));
    }

    #[test]
    fn windows_and_series() {
        let mut s = Store::new();
        for i in 0..10 {
            s.push("/a", i as f64, json!({"x": i}));
        }
        assert_eq!(s.window("/a", 2.0, 4.0).count(), 3);
        assert_eq!(s.latest("/a").unwrap().0, 9.0);
        assert_eq!(s.field_series("/a", "x")[3], (3.0, 3.0));
        assert!(s.samples("/none").is_empty());
    }
}
