//! The type hashes and descriptions of every registered type, every builtin topic's type and
//! every service type against the ones ROS 2 Jazzy's rosidl generated
//! (`/opt/ros/jazzy/share/<pkg>/{msg,srv}/<Type>.json`, installed by `scripts/setup` from
//! `../shared/ros2-jazzy`). Skipped, saying so, where the rig is absent.

use std::path::{Path, PathBuf};

use fieldproof_msgs::type_hash::{
    service_types, type_description, type_hash, IndividualTypeDescription, BUILTIN_TOPIC_TYPES,
};
use fieldproof_msgs::KNOWN_TYPES;

const RIG_SHARE: &str = "/opt/ros/jazzy/share";

fn rig_json(type_name: &str) -> PathBuf {
    let (package, rest) = type_name.split_once('/').expect("pkg/{msg,srv}/Name");
    Path::new(RIG_SHARE)
        .join(package)
        .join(format!("{rest}.json"))
}

/// `(name, type_id, capacity, string_capacity, nested_type_name)` of each field.
type FieldRow = (String, u64, u64, u64, String);

fn rows_of_ours(description: &IndividualTypeDescription) -> Vec<FieldRow> {
    description
        .fields
        .iter()
        .map(|f| {
            let t = &f.field_type;
            (
                f.name.clone(),
                u64::from(t.type_id),
                t.capacity,
                t.string_capacity,
                t.nested_type_name.clone(),
            )
        })
        .collect()
}

fn rows_of_rig(description: &serde_json::Value) -> Vec<FieldRow> {
    description["fields"]
        .as_array()
        .expect("fields")
        .iter()
        .map(|f| {
            let t = &f["type"];
            (
                f["name"].as_str().unwrap().to_string(),
                t["type_id"].as_u64().unwrap(),
                t["capacity"].as_u64().unwrap(),
                t["string_capacity"].as_u64().unwrap(),
                t["nested_type_name"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn rig_absent() -> bool {
    if Path::new(RIG_SHARE).is_dir() {
        return false;
    }
    eprintln!("skipped: no ROS 2 Jazzy rig at {RIG_SHARE} (scripts/setup installs it from ../shared/ros2-jazzy)");
    true
}

/// Compares our description and hash of `type_name` with the rig's, field for field, the
/// referenced types too; `false` when the rig has no description of it.
fn equals_the_rig(type_name: &str) -> bool {
    let path = rig_json(type_name);
    let Ok(text) = std::fs::read_to_string(&path) else {
        return false;
    };
    let rig: serde_json::Value =
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let ours = type_description(type_name).unwrap();
    let rig_description = &rig["type_description_msg"];
    assert_eq!(
        rows_of_ours(&ours.type_description),
        rows_of_rig(&rig_description["type_description"]),
        "{type_name}: fields differ from {}",
        path.display()
    );
    let rig_referenced = rig_description["referenced_type_descriptions"]
        .as_array()
        .unwrap();
    let names = |descriptions: Vec<&str>| descriptions.join(", ");
    assert_eq!(
        names(
            ours.referenced_type_descriptions
                .iter()
                .map(|d| d.type_name.as_str())
                .collect()
        ),
        names(
            rig_referenced
                .iter()
                .map(|d| d["type_name"].as_str().unwrap())
                .collect()
        ),
        "{type_name}: referenced types differ"
    );
    for (ours, rig) in ours.referenced_type_descriptions.iter().zip(rig_referenced) {
        assert_eq!(
            rows_of_ours(ours),
            rows_of_rig(rig),
            "{type_name}: {}",
            ours.type_name
        );
    }
    let rig_hash = rig["type_hashes"][0]["hash_string"].as_str().unwrap();
    assert_eq!(rig["type_hashes"][0]["type_name"], *type_name);
    assert_eq!(type_hash(type_name).unwrap(), rig_hash, "{type_name}");
    true
}

#[test]
fn every_registered_type_hashes_as_jazzy_does() {
    if rig_absent() {
        return;
    }
    let (matched, not_in_rig): (Vec<&str>, Vec<&str>) = KNOWN_TYPES
        .iter()
        .copied()
        .partition(|type_name| equals_the_rig(type_name));
    eprintln!(
        "{} of {} registered types hash as Jazzy's rosidl does; not in the rig: {not_in_rig:?}",
        matched.len(),
        KNOWN_TYPES.len()
    );
    assert!(
        !matched.is_empty(),
        "no registered type found under {RIG_SHARE}"
    );
    // The rig leaves out tf2 (its README) and vision_msgs (not in ros-base; their hashes are
    // checked against the published ones in src/type_hash/mod.rs); every other registered type,
    // diagnostic_msgs included, must be there.
    assert_eq!(
        not_in_rig,
        [
            "tf2_msgs/msg/TFMessage",
            "vision_msgs/msg/Point2D",
            "vision_msgs/msg/Pose2D",
            "vision_msgs/msg/BoundingBox2D",
            "vision_msgs/msg/ObjectHypothesis",
            "vision_msgs/msg/ObjectHypothesisWithPose",
            "vision_msgs/msg/Detection2D",
            "vision_msgs/msg/Detection2DArray",
            // The fleet's own interfaces: not in any rig; rosidl's hashes of the .msg files
            // are to be checked by building src/fieldproof_interfaces against the rig.
            "fieldproof_interfaces/msg/FleetStatus",
            "fieldproof_interfaces/msg/ClearanceRequest",
            "fieldproof_interfaces/msg/Clearance",
        ],
        "registered types missing from the rig"
    );
    for diagnostic in [
        "diagnostic_msgs/msg/KeyValue",
        "diagnostic_msgs/msg/DiagnosticStatus",
        "diagnostic_msgs/msg/DiagnosticArray",
    ] {
        assert!(matched.contains(&diagnostic), "{diagnostic} not checked");
    }
}

#[test]
fn every_service_and_builtin_topic_type_hashes_as_jazzy_does() {
    if rig_absent() {
        return;
    }
    let types: Vec<&str> = service_types()
        .chain(BUILTIN_TOPIC_TYPES.iter().copied())
        .collect();
    let not_in_rig: Vec<&str> = types
        .iter()
        .copied()
        .filter(|type_name| !equals_the_rig(type_name))
        .collect();
    assert!(not_in_rig.is_empty(), "not in the rig: {not_in_rig:?}");
    eprintln!(
        "{} service and builtin topic types hash as Jazzy's rosidl does",
        types.len()
    );
}
