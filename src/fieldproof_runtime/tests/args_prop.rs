//! The command-line side of the runtime over arbitrary input: `--ros-args` parsing, name
//! expansion, parameter files and the whole start-up resolution never panic; they return a
//! value or an error. Bounded property tests (a few seconds). Opens no DDS participant.

use std::ffi::OsString;
use std::os::unix::ffi::OsStringExt;

use fieldproof_runtime::{args, names, qos, NodeBuilder, Param};
use proptest::prelude::*;

/// One command-line word: a ROS flag, a plausible rule, or anything.
fn word() -> impl Strategy<Value = String> {
    prop_oneof![
        prop::sample::select(vec![
            "--ros-args",
            "-r",
            "--remap",
            "-p",
            "--param",
            "--log-level",
            "--",
            "-e",
            "--enable-rosout-logs",
            "--disable-stdout-logs",
            "__ns:=/a",
            "__node:=n",
            "-p",
        ])
        .prop_map(str::to_string),
        "[a-z_~/{}:=.,\\[\\] 0-9'\"-]{0,24}",
        any::<String>(),
    ]
}

/// A node with the declarations the adapters use (topics, hooks, ranges, QoS).
fn builder() -> NodeBuilder {
    NodeBuilder::new("node")
        .param(Param::string("input", "input").topic().read_only())
        .param(Param::double("rate_hz", 10.0).range(0.1, 1000.0))
        .param(Param::strings("names", &["a"]))
        .param(Param::string("mode", "a").on_change(|v| match v {
            fieldproof_runtime::ParamValue::String(s) if s == "a" || s == "b" => Ok(()),
            other => Err(format!("{other} is not a or b")),
        }))
        .qos_params(qos::default())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]

    #[test]
    fn ros_args_never_panic(words in prop::collection::vec(word(), 0..12)) {
        let argv = std::iter::once("prog".to_string()).chain(words);
        let _ = args::parse(argv);
    }

    #[test]
    fn start_up_resolution_never_panics(words in prop::collection::vec(word(), 0..12)) {
        // Parameter files are read from disk: keep arbitrary words from naming one.
        let words = words.into_iter().filter(|w| w != "--params-file");
        let argv: Vec<String> = std::iter::once("prog".to_string()).chain(words).collect();
        let _ = builder().resolve(argv, |_| None);
    }

    #[test]
    fn os_arguments_never_panic(raw in prop::collection::vec(prop::collection::vec(any::<u8>(), 0..16), 0..6)) {
        let argv = std::iter::once(OsString::from("prog"))
            .chain(raw.into_iter().map(OsString::from_vec));
        let _ = builder().resolve_os(argv, |_| None);
    }

    #[test]
    fn name_rules_never_panic(name in word(), node in word(), ns in word()) {
        let _ = names::validate_topic_name(&name);
        let _ = names::validate_node_name(&node);
        let _ = names::normalize_namespace(&ns);
        let _ = names::expand(&name, &node, &ns);
        let _ = names::expand(&name, "node", "/ns");
    }

    #[test]
    fn parameter_files_never_panic(text in "(/\\*\\*|node|ros__parameters|:| |\n|-|\\[|\\]|\\{|\\}|[a-z0-9.]){0,80}") {
        let _ = args::parse_params_file(&text, "p.yaml");
    }

    #[test]
    fn arbitrary_parameter_files_never_panic(text in any::<String>()) {
        let _ = args::parse_params_file(&text, "p.yaml");
    }
}
