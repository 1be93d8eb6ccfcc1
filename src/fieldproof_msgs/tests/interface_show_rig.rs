//! `ros2 interface show` of every type we register (and of every service and builtin topic
//! type our nodes use) against our definitions, field for field: the type and the name of
//! each field, in order. Runs the rig's real ros2cli (no DDS: it reads the ament index);
//! skipped, saying so, where the rig is absent.

use std::path::Path;
use std::process::Command;

use fieldproof_msgs::type_hash::{
    definition, service_definition, service_types, BUILTIN_TOPIC_TYPES,
};
use fieldproof_msgs::KNOWN_TYPES;

const RIG_SETUP: &str = "/opt/ros/jazzy/setup.bash";

/// The primitive types of `.msg` files: a field type that is none of them is a message.
const PRIMITIVES: &[&str] = &[
    "bool", "byte", "char", "float32", "float64", "int8", "uint8", "int16", "uint16", "int32",
    "uint32", "int64", "uint64", "string", "wstring",
];

/// `(type, name)` of each field of a `.msg` text (top-level lines only): comments, constants
/// and default values left out, a nested type of the same package written `package/Name`.
fn fields(msg_text: &str, package: &str) -> Vec<(String, String)> {
    msg_text
        .lines()
        .filter(|line| !line.starts_with('\t') && !line.starts_with(' '))
        .map(|line| line.split('#').next().unwrap_or("").trim())
        .filter(|line| !line.is_empty() && !line.replace("<=", "").contains('='))
        .map(|line| {
            let mut words = line.split_whitespace();
            let (field_type, name) = (words.next().unwrap(), words.next().unwrap_or(""));
            let base_end = field_type.find(['[', '<']).unwrap_or(field_type.len());
            let base = &field_type[..base_end];
            let qualified = if base.contains('/') || PRIMITIVES.contains(&base) {
                field_type.to_string()
            } else {
                format!("{package}/{field_type}")
            };
            (qualified, name.to_string())
        })
        .collect()
}

/// What `ros2 interface show --no-comments` prints for each of `type_names`, in one shell.
fn shown(type_names: &[&str]) -> Vec<String> {
    let script = format!(
        "source {RIG_SETUP} && for t in {}; do ros2 interface show --no-comments \"$t\" || exit 1; echo '=== end'; done",
        type_names.join(" ")
    );
    let out = Command::new("bash")
        .args(["-c", &script])
        .output()
        .expect("bash runs");
    assert!(
        out.status.success(),
        "ros2 interface show failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).expect("utf-8");
    // One text per type, each ended by the marker (an empty message shows nothing).
    let mut texts: Vec<String> = text.split("=== end\n").map(str::to_string).collect();
    assert_eq!(
        texts.pop().as_deref(),
        Some(""),
        "output after the last marker:\n{text}"
    );
    assert_eq!(texts.len(), type_names.len(), "one text per type:\n{text}");
    texts
}

fn rig_has(type_name: &str) -> bool {
    let (package, rest) = type_name.split_once('/').unwrap();
    let extension = if rest.starts_with("srv/") {
        "srv"
    } else {
        "msg"
    };
    Path::new("/opt/ros/jazzy/share")
        .join(package)
        .join(format!("{rest}.{extension}"))
        .is_file()
}

#[test]
fn ros2_interface_show_matches_our_definitions_field_for_field() {
    if !Path::new(RIG_SETUP).is_file() {
        eprintln!("skipped: no ROS 2 Jazzy rig at {RIG_SETUP} (scripts/setup installs it from ../shared/ros2-jazzy)");
        return;
    }
    let messages: Vec<&str> = KNOWN_TYPES
        .iter()
        .chain(BUILTIN_TOPIC_TYPES)
        .copied()
        .filter(|type_name| rig_has(type_name))
        .collect();
    let services: Vec<&str> = service_types().filter(|name| rig_has(name)).collect();
    let all: Vec<&str> = messages.iter().chain(&services).copied().collect();
    let texts = shown(&all);
    for (type_name, text) in all.iter().zip(&texts) {
        let package = type_name.split('/').next().unwrap();
        if let Some((request, response)) = service_definition(type_name) {
            let (shown_request, shown_response) = text
                .split_once("---\n")
                .unwrap_or_else(|| panic!("{type_name}: no `---` in\n{text}"));
            assert_eq!(
                fields(shown_request, package),
                fields(request, package),
                "{type_name}: request"
            );
            assert_eq!(
                fields(shown_response, package),
                fields(response, package),
                "{type_name}: response"
            );
        } else {
            let ours =
                definition(type_name).unwrap_or_else(|| panic!("{type_name}: no definition"));
            assert_eq!(fields(text, package), fields(ours, package), "{type_name}");
        }
    }
    eprintln!(
        "ros2 interface show: {} message and {} service types equal our definitions",
        messages.len(),
        services.len()
    );
    // Which registered types the rig lacks, tests/type_hash_rig.rs names; every service type
    // is there.
    assert_eq!(services.len(), service_types().count());
}

#[test]
fn field_lines_are_read_as_ros2_interface_show_prints_them() {
    let text = "# a comment\nint8 STATUS_FIX =      0        #\nint8 status -2 #\nNavSatStatus s\n\
                \tint8 nested\nstring<=8[<=3] names\nuint64 DEPTH_RECURSIVE=0\n";
    assert_eq!(
        fields(text, "sensor_msgs"),
        [
            ("int8".to_string(), "status".to_string()),
            ("sensor_msgs/NavSatStatus".to_string(), "s".to_string()),
            ("string<=8[<=3]".to_string(), "names".to_string()),
        ]
    );
}
