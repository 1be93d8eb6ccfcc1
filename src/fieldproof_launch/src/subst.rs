//! Launch substitutions: `$(var x)`, `$(env NAME [default])`, `$(find-pkg-share pkg)`,
//! `$(find-pkg-prefix pkg)`, `$(dirname)`, `$(filename)`, `$(equals a b)` and
//! `$(command 'cmd args' [on_stderr])`, as ROS 2's frontend launch files write them.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::LaunchError;
use crate::ament;

/// What substitutions are evaluated against.
#[derive(Debug, Clone)]
pub struct Scope {
    /// Launch configurations (`arg`, `let`).
    pub vars: BTreeMap<String, String>,
    /// The launch file being read (for `$(dirname)` and `$(filename)`).
    pub file: PathBuf,
    /// Install prefixes (`AMENT_PREFIX_PATH`) for `$(find-pkg-*)`.
    pub prefixes: Vec<PathBuf>,
    /// The ROS namespace pushed by enclosing groups.
    pub namespace: String,
    /// Environment variables set by `set_env` in this scope.
    pub env: BTreeMap<String, String>,
}

impl Scope {
    /// Evaluate every `$(...)` in `text`. `$$` is not special; nesting is supported.
    pub fn expand(&self, text: &str) -> Result<String, LaunchError> {
        let mut out = String::new();
        let mut rest = text;
        while let Some(start) = rest.find("$(") {
            out.push_str(&rest[..start]);
            let body_start = start + 2;
            let end =
                matching_paren(rest, body_start).ok_or_else(|| LaunchError::Substitution {
                    text: text.to_string(),
                    reason: "unbalanced parentheses".into(),
                })?;
            let inner = self.expand(&rest[body_start..end])?;
            out.push_str(&self.evaluate(text, inner.trim())?);
            rest = &rest[end + 1..];
        }
        out.push_str(rest);
        Ok(out)
    }

    fn evaluate(&self, text: &str, body: &str) -> Result<String, LaunchError> {
        if let Some(rest) = body.strip_prefix("command") {
            if rest.is_empty() || rest.starts_with(char::is_whitespace) {
                return self.command(text, rest.trim());
            }
        }
        let mut words = body.split_whitespace();
        let kind = words.next().unwrap_or_default();
        let args: Vec<&str> = words.collect();
        let fail = |reason: String| LaunchError::Substitution {
            text: text.to_string(),
            reason,
        };
        match (kind, args.as_slice()) {
            ("var", [name]) => self
                .vars
                .get(*name)
                .cloned()
                .ok_or_else(|| fail(format!("launch configuration '{name}' is not set"))),
            ("env", [name]) => self
                .env_var(name)
                .ok_or_else(|| fail(format!("environment variable '{name}' is not set"))),
            ("env", [name, default]) => {
                Ok(self.env_var(name).unwrap_or_else(|| default.to_string()))
            }
            ("find-pkg-share", [pkg]) => Ok(self
                .package_prefix(pkg)
                .map_err(|e| fail(e.to_string()))?
                .join("share")
                .join(pkg)
                .display()
                .to_string()),
            ("find-pkg-prefix", [pkg]) => Ok(self
                .package_prefix(pkg)
                .map_err(|e| fail(e.to_string()))?
                .display()
                .to_string()),
            ("equals", [left, right]) => Ok(equals(left, right).to_string()),
            ("dirname", []) => Ok(self
                .file
                .parent()
                .unwrap_or(Path::new("."))
                .display()
                .to_string()),
            ("filename", []) => Ok(self
                .file
                .file_name()
                .map(|f| f.to_string_lossy().into_owned())
                .unwrap_or_default()),
            _ => Err(fail(format!("unsupported substitution '$({body})'"))),
        }
    }

    /// `$(command 'cmd args' [on_stderr])` as launch's `Command` runs it: the command line
    /// split as a shell would (no shell runs), its standard output returned as it is. A
    /// command that cannot start or exits non-zero fails with its stderr; output on stderr
    /// fails too unless `on_stderr` is `ignore`, `warn` (printed) or `capture` (appended).
    fn command(&self, text: &str, arguments: &str) -> Result<String, LaunchError> {
        let fail = |reason: String| LaunchError::Substitution {
            text: text.to_string(),
            reason,
        };
        let parts =
            shlex::split(arguments).ok_or_else(|| fail("command: unbalanced quotes".into()))?;
        let (line, on_stderr) = match parts.as_slice() {
            [line] => (line, "fail"),
            [line, on_stderr] => (line, on_stderr.as_str()),
            _ => return Err(fail("command expects 1 or 2 arguments".into())),
        };
        if !matches!(on_stderr, "fail" | "ignore" | "warn" | "capture") {
            return Err(fail(format!(
                "command: on_stderr '{on_stderr}' is not one of fail, ignore, warn, capture"
            )));
        }
        let argv = shlex::split(line)
            .filter(|argv| !argv.is_empty())
            .ok_or_else(|| fail(format!("command: '{line}' is not a command line")))?;
        let output = std::process::Command::new(&argv[0])
            .args(&argv[1..])
            .envs(&self.env)
            .stdin(std::process::Stdio::null())
            .output()
            .map_err(|e| fail(format!("command '{}' did not start: {e}", argv[0])))?;
        let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
        let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
        if !output.status.success() {
            return Err(fail(format!(
                "command '{line}' failed ({}): {}",
                output.status,
                stderr.trim()
            )));
        }
        if stderr.is_empty() {
            return Ok(stdout);
        }
        match on_stderr {
            "fail" => Err(fail(format!(
                "command '{line}' wrote to stderr: {}",
                stderr.trim()
            ))),
            "warn" => {
                eprintln!(
                    "[launch] command '{line}' wrote to stderr: {}",
                    stderr.trim()
                );
                Ok(stdout)
            }
            "capture" => Ok(stdout + &stderr),
            _ => Ok(stdout),
        }
    }

    fn env_var(&self, name: &str) -> Option<String> {
        self.env
            .get(name)
            .cloned()
            .or_else(|| std::env::var(name).ok())
    }

    fn package_prefix(&self, pkg: &str) -> Result<PathBuf, ament::AmentError> {
        if self.prefixes.is_empty() {
            return Err(ament::AmentError::NoPrefixPath);
        }
        ament::package_prefix(&self.prefixes, pkg)
    }
}

/// Jazzy's `EqualsSubstitution`: two booleans (`true`, `false`, `1`, `0`, any case) compare
/// as booleans, two numbers as numbers (relative tolerance 1e-9), anything else as text.
/// (Words are split at whitespace after expansion, so an empty or spaced value does not
/// compare: the substitution is then reported unsupported.)
fn equals(left: &str, right: &str) -> bool {
    let boolean = |s: &str| match s.to_ascii_lowercase().as_str() {
        "true" | "1" => Some(true),
        "false" | "0" => Some(false),
        _ => None,
    };
    if let (Some(l), Some(r)) = (boolean(left), boolean(right)) {
        return l == r;
    }
    if let (Ok(l), Ok(r)) = (left.parse::<f64>(), right.parse::<f64>()) {
        return l == r || (l - r).abs() <= 1e-9 * l.abs().max(r.abs());
    }
    left == right
}

fn matching_paren(text: &str, from: usize) -> Option<usize> {
    let mut depth = 1;
    for (i, c) in text[from..].char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    return Some(from + i);
                }
            }
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scope() -> Scope {
        Scope {
            vars: BTreeMap::from([("ns".into(), "ugv1".into()), ("which".into(), "ns".into())]),
            file: PathBuf::from("/bundles/ugv/bridge.launch.yaml"),
            prefixes: vec![],
            namespace: String::new(),
            env: BTreeMap::from([("FP_SET".into(), "yes".into())]),
        }
    }

    #[test]
    fn expands_vars_env_and_paths() {
        let s = scope();
        assert_eq!(s.expand("/$(var ns)/scan").unwrap(), "/ugv1/scan");
        assert_eq!(s.expand("$(var $(var which))").unwrap(), "ugv1");
        assert_eq!(s.expand("$(env FP_SET)").unwrap(), "yes");
        assert_eq!(
            s.expand("$(env FP_SURELY_UNSET_VAR fallback)").unwrap(),
            "fallback"
        );
        assert_eq!(
            s.expand("$(dirname)/params.yaml").unwrap(),
            "/bundles/ugv/params.yaml"
        );
        assert_eq!(s.expand("$(filename)").unwrap(), "bridge.launch.yaml");
    }

    #[test]
    fn equals_compares_booleans_numbers_then_text() {
        let s = scope();
        assert_eq!(s.expand("$(equals $(var ns) ugv1)").unwrap(), "true");
        assert_eq!(s.expand("$(equals $(var ns) ugv2)").unwrap(), "false");
        assert_eq!(s.expand("$(equals True 1)").unwrap(), "true");
        assert_eq!(s.expand("$(equals false 1)").unwrap(), "false");
        assert_eq!(s.expand("$(equals 2.0 2)").unwrap(), "true");
        assert_eq!(s.expand("$(equals 2.5 2)").unwrap(), "false");
        assert_eq!(s.expand("$(equals Camera camera)").unwrap(), "false");
        let err = s.expand("$(equals ugv1)").unwrap_err().to_string();
        assert!(err.contains("unsupported substitution"), "{err}");
    }

    #[test]
    fn command_returns_stdout_as_it_is_and_fails_as_launch_does() {
        let s = scope();
        assert_eq!(
            s.expand("$(command 'printf %s-%s $(var ns) x')").unwrap(),
            "ugv1-x"
        );
        assert_eq!(s.expand("$(command 'echo hi')").unwrap(), "hi\n");
        // set_env reaches the command.
        assert_eq!(
            s.expand("$(command 'sh -c \"printf $FP_SET\"')").unwrap(),
            "yes"
        );
        let err = s.expand("$(command 'sh -c \"exit 3\"')").unwrap_err();
        assert!(err.to_string().contains("failed (exit status: 3)"), "{err}");
        let noisy = "$(command 'sh -c \"echo out; echo oops >&2\"' ARG)";
        let err = s
            .expand(&noisy.replace("ARG", "fail"))
            .unwrap_err()
            .to_string();
        assert!(err.contains("wrote to stderr: oops"), "{err}");
        assert_eq!(s.expand(&noisy.replace("ARG", "ignore")).unwrap(), "out\n");
        assert_eq!(
            s.expand(&noisy.replace("ARG", "capture")).unwrap(),
            "out\noops\n"
        );
        let err = s
            .expand(&noisy.replace("ARG", "loud"))
            .unwrap_err()
            .to_string();
        assert!(err.contains("on_stderr 'loud'"), "{err}");
        let err = s
            .expand("$(command 'fieldproof-surely-absent-program')")
            .unwrap_err()
            .to_string();
        assert!(err.contains("did not start"), "{err}");
    }

    #[test]
    fn unknown_or_unset_substitutions_are_named() {
        let s = scope();
        let err = s.expand("$(var nope)").unwrap_err().to_string();
        assert!(err.contains("'nope' is not set"), "{err}");
        let err = s.expand("$(commands ls)").unwrap_err().to_string();
        assert!(
            err.contains("unsupported substitution '$(commands ls)'"),
            "{err}"
        );
        let err = s.expand("$(var ns").unwrap_err().to_string();
        assert!(err.contains("unbalanced"), "{err}");
        let err = s.expand("$(find-pkg-share x)").unwrap_err().to_string();
        assert!(err.contains("AMENT_PREFIX_PATH"), "{err}");
    }
}
