//! Manifest parsing and validation over arbitrary and mangled text never panic: every input
//! gives a manifest or an error. Bounded property tests (a few seconds).

use std::path::PathBuf;

use fieldproof_robots::Manifest;
use proptest::prelude::*;

fn reference() -> (PathBuf, String) {
    let path = fieldproof_testkit::repo_root().join("robots/ugv_ref/robot.yaml");
    let text = std::fs::read_to_string(&path).unwrap();
    (path, text)
}

/// A value a hostile or careless file would put in place of a scalar.
fn odd_scalar() -> impl Strategy<Value = String> {
    prop_oneof![
        prop::sample::select(vec![
            "1e309",
            "-1e309",
            ".nan",
            ".inf",
            "-.inf",
            "-0",
            "0",
            "-1",
            "4294967296",
            "18446744073709551616",
            "99999999999999999999999",
            "0x10",
            "~",
            "[]",
            "{}",
            "''",
            "\"../evil; rm -rf /\"",
            "[[[[1]]]]",
            "!!binary AAAA",
            "&a 1",
            "*a",
            "true",
        ])
        .prop_map(str::to_string),
        any::<i64>().prop_map(|n| n.to_string()),
        any::<f64>().prop_map(|x| format!("{x:e}")),
        "[ -~]{0,12}",
    ]
}

/// An edit of the reference manifest: a scalar replaced, a line dropped or repeated, or
/// bytes inserted.
#[derive(Debug, Clone)]
enum Edit {
    Scalar(prop::sample::Index, String),
    DropLine(prop::sample::Index),
    RepeatLine(prop::sample::Index),
    Insert(prop::sample::Index, String),
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        (any::<prop::sample::Index>(), odd_scalar()).prop_map(|(i, s)| Edit::Scalar(i, s)),
        any::<prop::sample::Index>().prop_map(Edit::DropLine),
        any::<prop::sample::Index>().prop_map(Edit::RepeatLine),
        (any::<prop::sample::Index>(), "[ -~\n\t]{0,8}").prop_map(|(i, s)| Edit::Insert(i, s)),
    ]
}

fn apply(text: &str, edit: &Edit) -> String {
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    match edit {
        Edit::Scalar(i, value) => {
            // The value after the first ": " of a line that has one.
            let candidates: Vec<usize> = (0..lines.len())
                .filter(|&n| lines[n].contains(": "))
                .collect();
            let n = candidates[i.index(candidates.len())];
            let (key, _) = lines[n].split_once(": ").unwrap();
            lines[n] = format!("{key}: {value}");
        }
        Edit::DropLine(i) => {
            lines.remove(i.index(lines.len()));
        }
        Edit::RepeatLine(i) => {
            let n = i.index(lines.len());
            lines.insert(n, lines[n].clone());
        }
        Edit::Insert(i, s) => {
            let mut joined = lines.join("\n");
            let mut at = i.index(joined.len() + 1);
            while !joined.is_char_boundary(at) {
                at -= 1;
            }
            joined.insert_str(at, s);
            return joined;
        }
    }
    lines.join("\n") + "\n"
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1500, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_text_never_panics(text in any::<String>()) {
        let _ = Manifest::from_yaml("fuzz.yaml", &text);
    }

    #[test]
    fn yaml_shaped_text_never_panics(
        text in "(name|kind|drive|sensors|body|type|outputs|camera|width|rate_hz|:| |\n|- |\\[|\\]|\\{|\\}|,|[a-z0-9_.]){0,120}",
    ) {
        let _ = Manifest::from_yaml("fuzz.yaml", &text);
    }

    #[test]
    fn a_mangled_reference_manifest_never_panics(edits in prop::collection::vec(edit(), 1..4)) {
        let (path, mut text) = reference();
        for e in &edits {
            text = apply(&text, e);
        }
        // Named after the real file, so the description's xacro resolves and validation
        // runs to the end.
        let _ = Manifest::from_yaml(&path, &text);
    }
}

/// The reference manifest itself loads through the same path (else the mangled cases
/// would only ever exercise the error paths).
#[test]
fn the_unmangled_reference_manifest_is_valid() {
    let (path, text) = reference();
    Manifest::from_yaml(&path, &text).unwrap();
}
