//! ROS 2 name validation and expansion, following rcl/rmw rules.
//!
//! - node names: `[A-Za-z_][A-Za-z0-9_]*` (rmw_validate_node_name)
//! - namespaces: `/` or `/tok(/tok)*`, tokens `[A-Za-z_][A-Za-z0-9_]*`
//! - topic/service names: relative (`a/b`), absolute (`/a/b`), private (`~`, `~/a`),
//!   substitutions `{node}`, `{ns}`, `{namespace}`; expanded names are absolute and valid.

use thiserror::Error;

/// Longest fully qualified topic or service name rmw accepts:
/// `RMW_TOPIC_MAX_NAME_LENGTH` = 255 (the DDS implementation's limit) - 8 (reserved for the
/// `rt/`, `rq/`, `rr/` prefixes and suffixes), in `rmw/validate_full_topic_name.h`.
pub const MAX_TOPIC_NAME_LEN: usize = 255 - 8;
/// Longest namespace rmw accepts: `RMW_NAMESPACE_MAX_LENGTH` = `RMW_TOPIC_MAX_NAME_LENGTH`
/// - 2 (room for the shortest topic, `/x`), in `rmw/validate_namespace.h`.
pub const MAX_NAMESPACE_LEN: usize = MAX_TOPIC_NAME_LEN - 2;
/// Longest node name: `RMW_NODE_NAME_MAX_NAME_LENGTH` in `rmw/validate_node_name.h`.
pub const MAX_NODE_NAME_LEN: usize = 255;

/// A name that ROS 2 would refuse.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum NameError {
    /// Node name not matching `[A-Za-z_][A-Za-z0-9_]*`.
    #[error("invalid node name '{name}': {reason}")]
    NodeName {
        /// The offending name.
        name: String,
        /// Why it is invalid.
        reason: &'static str,
    },
    /// Namespace that is not `/` or `/tok(/tok)*`.
    #[error("invalid namespace '{name}': {reason}")]
    Namespace {
        /// The offending namespace.
        name: String,
        /// Why it is invalid.
        reason: &'static str,
    },
    /// Topic or service name that is invalid before or after expansion.
    #[error("invalid topic or service name '{name}': {reason}")]
    Topic {
        /// The offending name.
        name: String,
        /// Why it is invalid.
        reason: &'static str,
    },
}

fn token_ok(tok: &str) -> Result<(), &'static str> {
    if tok.is_empty() {
        return Err("empty token (repeated or trailing '/')");
    }
    if tok.as_bytes()[0].is_ascii_digit() {
        return Err("a token must not start with a digit");
    }
    if !tok.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
        return Err("only [A-Za-z0-9_] allowed in a token");
    }
    Ok(())
}

/// Checks a node base name (no namespace).
pub fn validate_node_name(name: &str) -> Result<(), NameError> {
    let err = |reason| NameError::NodeName {
        name: name.to_string(),
        reason,
    };
    if name.is_empty() {
        return Err(err("must not be empty"));
    }
    token_ok(name).map_err(err)?;
    if name.len() > MAX_NODE_NAME_LEN {
        return Err(err(
            "longer than 255 characters (RMW_NODE_NAME_MAX_NAME_LENGTH)",
        ));
    }
    Ok(())
}

/// Checks an absolute namespace (`/` or `/a/b`).
pub fn validate_namespace(ns: &str) -> Result<(), NameError> {
    let err = |reason| NameError::Namespace {
        name: ns.to_string(),
        reason,
    };
    if ns == "/" {
        return Ok(());
    }
    let Some(rest) = ns.strip_prefix('/') else {
        return Err(err("must be absolute (start with '/')"));
    };
    if rest.ends_with('/') {
        return Err(err("must not end with '/'"));
    }
    rest.split('/').try_for_each(token_ok).map_err(err)?;
    if ns.len() > MAX_NAMESPACE_LEN {
        return Err(err(
            "longer than 245 characters (RMW_NAMESPACE_MAX_LENGTH: 255, less 8 reserved for DDS prefixes, less 2 for the shortest topic)",
        ));
    }
    Ok(())
}

/// Normalises a namespace given on the command line or in code: a relative one gets a
/// leading `/` (rcl does the same for `__ns`-less node options), then it is validated.
pub fn normalize_namespace(ns: &str) -> Result<String, NameError> {
    let ns = if ns.is_empty() {
        "/".to_string()
    } else if ns.starts_with('/') {
        ns.to_string()
    } else {
        format!("/{ns}")
    };
    validate_namespace(&ns)?;
    Ok(ns)
}

/// Fully qualified node name from namespace and base name.
pub fn fully_qualified(namespace: &str, node: &str) -> String {
    if namespace == "/" {
        format!("/{node}")
    } else {
        format!("{namespace}/{node}")
    }
}

/// Checks a (possibly relative or private) topic/service name before expansion.
pub fn validate_topic_name(name: &str) -> Result<(), NameError> {
    let err = |reason| NameError::Topic {
        name: name.to_string(),
        reason,
    };
    if name.is_empty() {
        return Err(err("must not be empty"));
    }
    let mut depth = 0i32;
    for (i, c) in name.char_indices() {
        match c {
            'a'..='z' | 'A'..='Z' | '0'..='9' | '_' | '/' => {}
            '~' => {
                if i != 0 {
                    return Err(err("'~' is only allowed as the first character"));
                }
                if name.len() > 1 && !name[1..].starts_with('/') {
                    return Err(err("'~' must be followed by '/'"));
                }
            }
            '{' => {
                depth += 1;
                if depth > 1 {
                    return Err(err("nested '{'"));
                }
            }
            '}' => {
                depth -= 1;
                if depth < 0 {
                    return Err(err("unbalanced '}'"));
                }
            }
            _ => return Err(err("only [A-Za-z0-9_/~{}] allowed")),
        }
    }
    if depth != 0 {
        return Err(err("unbalanced '{'"));
    }
    if name.len() > 1 && name.ends_with('/') {
        return Err(err("must not end with '/'"));
    }
    if name.contains("//") {
        return Err(err("must not contain '//'"));
    }
    if name.as_bytes()[0].is_ascii_digit() {
        return Err(err("must not start with a digit"));
    }
    Ok(())
}

/// Checks an absolute, expanded name.
pub fn validate_full_name(name: &str) -> Result<(), NameError> {
    let err = |reason| NameError::Topic {
        name: name.to_string(),
        reason,
    };
    let Some(rest) = name.strip_prefix('/') else {
        return Err(err("expanded name must be absolute"));
    };
    if rest.is_empty() {
        return Err(err("'/' alone is not a topic name"));
    }
    rest.split('/').try_for_each(token_ok).map_err(err)?;
    if name.len() > MAX_TOPIC_NAME_LEN {
        return Err(err(
            "longer than 247 characters (RMW_TOPIC_MAX_NAME_LENGTH: 255, less 8 reserved for DDS prefixes)",
        ));
    }
    Ok(())
}

/// Expands `name` for a node `node` in `namespace` like `rcl_expand_topic_name`:
/// substitutions, `~` → the node's fully qualified name, relative → prefixed with the
/// namespace. The result is validated.
pub fn expand(name: &str, node: &str, namespace: &str) -> Result<String, NameError> {
    validate_topic_name(name)?;
    let fqn = fully_qualified(namespace, node);
    let mut s = name.to_string();
    if s.contains('{') {
        let mut out = String::new();
        let mut rest = s.as_str();
        while let Some(start) = rest.find('{') {
            out.push_str(&rest[..start]);
            let end = rest[start..]
                .find('}')
                .expect("balanced braces were checked")
                + start;
            let sub = &rest[start + 1..end];
            match sub {
                "node" => out.push_str(node),
                "ns" | "namespace" => out.push_str(namespace),
                _ => {
                    return Err(NameError::Topic {
                        name: name.to_string(),
                        reason: "unknown substitution (known: {node}, {ns}, {namespace})",
                    })
                }
            }
            rest = &rest[end + 1..];
        }
        out.push_str(rest);
        s = out;
    }
    let expanded = if s == "~" {
        fqn
    } else if let Some(rest) = s.strip_prefix("~/") {
        format!("{fqn}/{rest}")
    } else if s.starts_with('/') {
        s
    } else if namespace == "/" {
        format!("/{s}")
    } else {
        format!("{namespace}/{s}")
    };
    // Substituting "/" as the namespace can produce "//".
    let expanded = expanded.replace("//", "/");
    validate_full_name(&expanded).map_err(|e| NameError::Topic {
        name: name.to_string(),
        reason: match e {
            NameError::Topic { reason, .. } if reason.starts_with("longer than") => {
                "expands to a name longer than 247 characters (RMW_TOPIC_MAX_NAME_LENGTH)"
            }
            _ => "expands to an invalid name",
        },
    })?;
    Ok(expanded)
}

/// Expands `name` and applies the first matching `-r` rule (rules naming another node
/// are skipped; `from` and `to` are expanded for this node too), like
/// `rcl_node_resolve_name`.
pub fn resolve(
    name: &str,
    node: &str,
    namespace: &str,
    remaps: &[crate::args::Remap],
) -> Result<String, NameError> {
    let expanded = expand(name, node, namespace)?;
    for r in remaps {
        if let crate::args::RemapKind::Name { from } = &r.kind {
            if r.node.as_deref().is_some_and(|n| n != node) {
                continue;
            }
            if expand(from, node, namespace)? == expanded {
                return expand(&r.to, node, namespace);
            }
        }
    }
    Ok(expanded)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remapping_like_rcl() {
        let (ros, _) = crate::args::parse([
            "p",
            "--ros-args",
            "-r",
            "chatter:=talk",
            "-r",
            "/abs:=/elsewhere",
            "-r",
            "other:scan:=/not_me",
            "-r",
            "me:scan:=~/scan_mine",
            "-r",
            "/ns/chatter:=/second_rule_never_wins",
            "-r",
            "~/private:=/public",
        ])
        .unwrap();
        let r = |n: &str| resolve(n, "me", "/ns", &ros.remaps).unwrap();
        assert_eq!(r("chatter"), "/ns/talk"); // relative replacement gets the namespace
        assert_eq!(r("/ns/chatter"), "/ns/talk"); // matched after expansion, first rule wins
        assert_eq!(r("/abs"), "/elsewhere");
        assert_eq!(r("scan"), "/ns/me/scan_mine"); // node-specific rule for this node only
        assert_eq!(r("~/private"), "/public");
        assert_eq!(r("unrelated"), "/ns/unrelated");
        assert_eq!(
            resolve("scan", "other", "/ns", &ros.remaps).unwrap(),
            "/not_me"
        );
        assert!(resolve("bad//name", "me", "/ns", &ros.remaps).is_err());
    }

    #[test]
    fn node_names() {
        assert!(validate_node_name("talker_1").is_ok());
        assert!(validate_node_name("_x").is_ok());
        assert!(validate_node_name("").is_err());
        assert!(validate_node_name("1talker").is_err());
        assert!(validate_node_name("tal-ker").is_err());
        assert!(validate_node_name("a/b").is_err());
    }

    #[test]
    fn namespaces() {
        assert!(validate_namespace("/").is_ok());
        assert!(validate_namespace("/a/b_2").is_ok());
        assert!(validate_namespace("a").is_err());
        assert!(validate_namespace("/a/").is_err());
        assert!(validate_namespace("//a").is_err());
        assert!(validate_namespace("/a/3b").is_err());
        assert_eq!(normalize_namespace("robot").unwrap(), "/robot");
        // rmw's length limit: 245 characters.
        let at_limit = format!("/{}", "a".repeat(MAX_NAMESPACE_LEN - 1));
        assert!(validate_namespace(&at_limit).is_ok());
        let over = format!("/{}", "a".repeat(299));
        let e = normalize_namespace(&over).unwrap_err().to_string();
        assert!(e.contains("longer than 245 characters"), "{e}");
        let deep = format!("/{}", ["ns"; 100].join("/"));
        assert!(validate_namespace(&deep).is_err(), "{} chars", deep.len());
        assert_eq!(normalize_namespace("").unwrap(), "/");
    }

    #[test]
    fn expansion_like_rcl() {
        assert_eq!(expand("chatter", "talker", "/").unwrap(), "/chatter");
        assert_eq!(expand("chatter", "talker", "/ns").unwrap(), "/ns/chatter");
        assert_eq!(expand("/abs/x", "talker", "/ns").unwrap(), "/abs/x");
        assert_eq!(expand("~", "talker", "/ns").unwrap(), "/ns/talker");
        assert_eq!(expand("~/x", "talker", "/ns").unwrap(), "/ns/talker/x");
        assert_eq!(expand("~/x", "talker", "/").unwrap(), "/talker/x");
        assert_eq!(expand("{node}/x", "talker", "/ns").unwrap(), "/ns/talker/x");
        assert_eq!(expand("{ns}/x", "talker", "/ns").unwrap(), "/ns/x");
        assert_eq!(expand("{ns}/x", "talker", "/").unwrap(), "/x");
    }

    #[test]
    fn names_over_the_rmw_limits_are_refused() {
        let topic = "t".repeat(MAX_TOPIC_NAME_LEN - 1);
        assert!(expand(&topic, "n", "/").is_ok());
        let e = expand(&format!("{topic}x"), "n", "/")
            .unwrap_err()
            .to_string();
        assert!(e.contains("longer than 247 characters"), "{e}");
        // A topic that fits alone but not under a long namespace.
        let ns = format!("/{}", "a".repeat(200));
        assert!(expand(&"t".repeat(60), "n", &ns).is_err());
        assert!(validate_node_name(&"n".repeat(MAX_NODE_NAME_LEN)).is_ok());
        assert!(validate_node_name(&"n".repeat(MAX_NODE_NAME_LEN + 1)).is_err());
    }

    #[test]
    fn invalid_topic_names() {
        for bad in [
            "", "a//b", "a/", "1a", "a/1b", "a b", "x~", "~x", "{node", "{bad}/x", "a-b",
        ] {
            assert!(expand(bad, "n", "/").is_err(), "{bad:?} accepted");
        }
    }
}
