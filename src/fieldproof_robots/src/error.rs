//! Load and validation errors: every one names the file and, for a bad field, its path.

use std::fmt;
use std::path::{Path, PathBuf};

/// A path to a field inside a manifest or world: `sensors[2].outputs[0].qos.reliability`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FieldPath(Vec<Seg>);

#[derive(Debug, Clone, PartialEq, Eq)]
enum Seg {
    Key(String),
    Index(usize),
}

impl FieldPath {
    /// The document root.
    pub fn root() -> Self {
        Self::default()
    }

    /// This path followed by a map key.
    pub fn key(&self, key: &str) -> Self {
        let mut p = self.clone();
        p.0.push(Seg::Key(key.to_string()));
        p
    }

    /// This path followed by a sequence index.
    pub fn index(&self, i: usize) -> Self {
        let mut p = self.clone();
        p.0.push(Seg::Index(i));
        p
    }

    /// True for the document root.
    pub fn is_root(&self) -> bool {
        self.0.is_empty()
    }

    /// Parses the textual form used by `serde_path_to_error` (`a.b[2].c`).
    pub(crate) fn parse(text: &str) -> Self {
        let mut p = Self::root();
        if text == "." || text.is_empty() {
            return p;
        }
        for part in text.split('.') {
            let mut rest = part;
            if let Some(open) = rest.find('[') {
                let (key, idx) = rest.split_at(open);
                if !key.is_empty() {
                    p = p.key(key);
                }
                rest = idx;
                for chunk in rest.split('[').filter(|c| !c.is_empty()) {
                    match chunk.trim_end_matches(']').parse() {
                        Ok(i) => p = p.index(i),
                        Err(_) => p = p.key(chunk),
                    }
                }
            } else if !rest.is_empty() {
                p = p.key(rest);
            }
        }
        p
    }
}

impl fmt::Display for FieldPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, seg) in self.0.iter().enumerate() {
            match seg {
                Seg::Key(k) if i == 0 => write!(f, "{k}")?,
                Seg::Key(k) => write!(f, ".{k}")?,
                Seg::Index(n) => write!(f, "[{n}]")?,
            }
        }
        Ok(())
    }
}

/// What went wrong loading a manifest or a world.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The file could not be read.
    #[error("{}: cannot read: {source}", file.display())]
    Io {
        /// The file.
        file: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// The file is not valid YAML.
    #[error("{}: {message}", file.display())]
    Syntax {
        /// The file.
        file: PathBuf,
        /// The parser's message (with line and column).
        message: String,
    },
    /// An `extends` chain loops back on itself.
    #[error("{}: extends cycle: {chain}", file.display())]
    ExtendsCycle {
        /// The file whose `extends` closes the loop.
        file: PathBuf,
        /// The chain, `a.yaml -> b.yaml -> a.yaml`.
        chain: String,
    },
    /// A field is missing, misspelt, of the wrong type or out of range.
    #[error("{}: {}{message}", file.display(), if path.is_root() { String::new() } else { format!("{path}: ") })]
    Field {
        /// The file that was loaded (the leaf of an `extends` chain).
        file: PathBuf,
        /// Where in the (merged) document.
        path: FieldPath,
        /// What is wrong with it.
        message: String,
    },
}

impl Error {
    /// The field path of a [`Error::Field`] error, as text.
    pub fn field_path(&self) -> Option<String> {
        match self {
            Error::Field { path, .. } => Some(path.to_string()),
            _ => None,
        }
    }

    /// The message without the file name: `drive.odometry: missing rate_hz`.
    pub fn reason(&self) -> String {
        match self {
            Error::Field { path, message, .. } if path.is_root() => message.clone(),
            Error::Field { path, message, .. } => format!("{path}: {message}"),
            Error::Io { source, .. } => format!("cannot read: {source}"),
            Error::Syntax { message, .. } => message.clone(),
            Error::ExtendsCycle { chain, .. } => format!("extends cycle: {chain}"),
        }
    }
}

/// Collects field errors during validation; the first one is reported.
#[derive(Debug)]
pub(crate) struct Issues {
    pub(crate) file: PathBuf,
    pub(crate) list: Vec<(FieldPath, String)>,
}

impl Issues {
    pub(crate) fn new(file: &Path) -> Self {
        Self {
            file: file.to_path_buf(),
            list: Vec::new(),
        }
    }

    pub(crate) fn push(&mut self, path: &FieldPath, message: impl Into<String>) {
        self.list.push((path.clone(), message.into()));
    }

    pub(crate) fn missing(&mut self, path: &FieldPath, field: &str) {
        self.push(path, format!("missing {field}"));
    }

    pub(crate) fn into_result(self) -> Result<(), Error> {
        match self.list.into_iter().next() {
            None => Ok(()),
            Some((path, message)) => Err(Error::Field {
                file: self.file,
                path,
                message,
            }),
        }
    }
}

/// Rewrites serde's messages into the project's wording; returns the path and the message.
pub(crate) fn from_serde(path: FieldPath, msg: &str) -> (FieldPath, String) {
    if let Some(rest) = msg.strip_prefix("missing field `") {
        let field = rest.split('`').next().unwrap_or(rest);
        return (path, format!("missing {field}"));
    }
    if let Some(rest) = msg.strip_prefix("unknown field `") {
        let field = rest.split('`').next().unwrap_or(rest).to_string();
        let expected = expected_list(msg);
        let path = if path_ends_with(&path, &field) {
            path
        } else {
            path.key(&field)
        };
        let best = expected
            .iter()
            .map(|c| (similarity(&field, c), c))
            .filter(|(score, _)| *score > 0.0)
            .max_by(|a, b| a.0.total_cmp(&b.0));
        let message = match best {
            Some((_, c)) => format!("unknown field (did you mean {c}?)"),
            None if expected.is_empty() => "unknown field".to_string(),
            None => format!("unknown field; expected one of {}", expected.join(", ")),
        };
        return (path, message);
    }
    if let Some(rest) = msg.strip_prefix("unknown variant `") {
        let value = rest.split('`').next().unwrap_or(rest);
        let expected = expected_list(msg);
        return (
            path,
            format!("\"{value}\" is not one of {}", expected.join(", ")),
        );
    }
    (path, msg.to_string())
}

/// How alike a misspelt key is to a candidate (0: not alike).
fn similarity(field: &str, candidate: &str) -> f64 {
    let edits = strsim::damerau_levenshtein(field, candidate);
    let jw = strsim::jaro_winkler(field, candidate);
    if edits <= 2 && edits < candidate.len() {
        1.0 + jw
    } else if jw > 0.85 {
        jw
    } else {
        0.0
    }
}

fn path_ends_with(path: &FieldPath, field: &str) -> bool {
    matches!(path.0.last(), Some(Seg::Key(k)) if k == field)
}

/// The backticked names after "expected" in a serde message.
fn expected_list(msg: &str) -> Vec<String> {
    let Some(idx) = msg.find("expected") else {
        return Vec::new();
    };
    msg[idx..]
        .split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_string)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn path_round_trips_through_text() {
        let p = FieldPath::parse("sensors[2].outputs[0].qos.reliability");
        assert_eq!(p.to_string(), "sensors[2].outputs[0].qos.reliability");
        assert_eq!(
            FieldPath::root().key("drive").key("odometry").to_string(),
            "drive.odometry"
        );
        assert!(FieldPath::parse(".").is_root());
    }

    #[test]
    fn serde_messages_are_reworded() {
        let (p, m) = from_serde(
            FieldPath::parse("drive.odometry"),
            "missing field `rate_hz`",
        );
        assert_eq!(format!("{p}: {m}"), "drive.odometry: missing rate_hz");
        let (p, m) = from_serde(
            FieldPath::parse("qos.reliability"),
            "unknown variant `sometimes`, expected `reliable` or `best_effort`",
        );
        assert_eq!(
            format!("{p}: {m}"),
            "qos.reliability: \"sometimes\" is not one of reliable, best_effort"
        );
        let (p, m) = from_serde(
            FieldPath::parse("drive.odometry"),
            "unknown field `rat_hz`, expected one of `ros_topic`, `rate_hz`",
        );
        assert_eq!(
            format!("{p}: {m}"),
            "drive.odometry.rat_hz: unknown field (did you mean rate_hz?)"
        );
    }
}
