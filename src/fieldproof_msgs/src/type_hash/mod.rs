//! Type descriptions and type hashes (REP 2011) of the registered message types, computed the
//! way rosidl does (`rosidl_generator_type_description`): the type's `TypeDescription` (its
//! fields, then every type it references, directly or not, sorted by name) as JSON with
//! `", "` / `": "` separators and no default values, hashed with SHA-256 and written
//! `RIHS01_<64 hex>`. ROS 2 Jazzy endpoints announce it in their DDS USER_DATA
//! (`typehash=RIHS01_...;`, see [`user_data`]).
//!
//! ```
//! let hash = fieldproof_msgs::type_hash::type_hash("std_msgs/msg/String").unwrap();
//! assert_eq!(hash, "RIHS01_df668c740482bbd48fb39d76a70dfd4bd59db1288021743503259e948f6b1a18");
//! ```

use std::collections::BTreeSet;
use std::fmt::Write as _;

use sha2::{Digest, Sha256};

use crate::MsgError;

mod definitions;

use definitions::{DEFINITIONS, SERVICES};

/// `type_description_interfaces/msg/FieldType`: the id of a field's value type; a fixed array
/// adds [`ARRAY_OFFSET`], a bounded sequence [`BOUNDED_SEQUENCE_OFFSET`], an unbounded one
/// [`UNBOUNDED_SEQUENCE_OFFSET`].
const FIELD_TYPE_NESTED_TYPE: u8 = 1;
const ARRAY_OFFSET: u8 = 48;
const BOUNDED_SEQUENCE_OFFSET: u8 = 96;
const UNBOUNDED_SEQUENCE_OFFSET: u8 = 144;
const FIELD_TYPE_UINT8: u8 = 3;
const FIELD_TYPE_STRING: u8 = 17;
const FIELD_TYPE_BOUNDED_STRING: u8 = 21;

/// The `FieldType` id of a `.msg` primitive (`char` is `uint8` and `byte` is `octet` in rosidl).
fn primitive_type_id(msg_type: &str) -> Option<u8> {
    Some(match msg_type {
        "int8" => 2,
        "uint8" | "char" => FIELD_TYPE_UINT8,
        "int16" => 4,
        "uint16" => 5,
        "int32" => 6,
        "uint32" => 7,
        "int64" => 8,
        "uint64" => 9,
        "float32" => 10,
        "float64" => 11,
        "bool" => 15,
        "byte" => 16,
        "string" => FIELD_TYPE_STRING,
        "wstring" => 18,
        _ => return None,
    })
}

/// `type_description_interfaces/msg/FieldType`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldType {
    /// The type id (value type plus array/sequence offset).
    pub type_id: u8,
    /// Array size or sequence bound, 0 otherwise.
    pub capacity: u64,
    /// Bound of a bounded string, 0 otherwise.
    pub string_capacity: u64,
    /// `pkg/msg/Name` of a nested type, empty otherwise.
    pub nested_type_name: String,
}

/// `type_description_interfaces/msg/Field` (without a default value: hashes ignore it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Field {
    /// The field name.
    pub name: String,
    /// Its type.
    pub field_type: FieldType,
}

/// `type_description_interfaces/msg/IndividualTypeDescription`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndividualTypeDescription {
    /// `pkg/msg/Name`.
    pub type_name: String,
    /// Its fields in declaration order.
    pub fields: Vec<Field>,
}

/// `type_description_interfaces/msg/TypeDescription`: a type and every type it references.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TypeDescription {
    /// The type itself.
    pub type_description: IndividualTypeDescription,
    /// Every type it references, directly or not, sorted by name.
    pub referenced_type_descriptions: Vec<IndividualTypeDescription>,
}

/// The fields of one type: a message from its [`DEFINITIONS`] entry; a service
/// (`pkg/srv/Name`) and its `_Request`, `_Response` and `_Event` from its [`SERVICES`] entry,
/// as rosidl generates them. `Err` names the type and the line.
fn individual_description(type_name: &str) -> Result<IndividualTypeDescription, String> {
    if type_name.contains("/srv/") {
        return service_part_description(type_name);
    }
    let definition =
        definition(type_name).ok_or_else(|| format!("no definition of `{type_name}`"))?;
    parsed_description(type_name, definition)
}

/// A structure from its `.msg` text; an empty one gets rosidl's placeholder member.
fn parsed_description(
    type_name: &str,
    definition: &str,
) -> Result<IndividualTypeDescription, String> {
    let mut fields = definition
        .lines()
        .map(field_text)
        .filter(|line| !line.is_empty())
        .map(|line| parse_field(line).map_err(|reason| format!("{type_name}: `{line}`: {reason}")))
        .collect::<Result<Vec<_>, _>>()?;
    if fields.is_empty() {
        // rosidl gives an empty structure this one placeholder member.
        fields.push(Field {
            name: "structure_needs_at_least_one_member".into(),
            field_type: FieldType {
                type_id: FIELD_TYPE_UINT8,
                capacity: 0,
                string_capacity: 0,
                nested_type_name: String::new(),
            },
        });
    }
    Ok(IndividualTypeDescription {
        type_name: type_name.to_string(),
        fields,
    })
}

/// A service type or one of the three structures rosidl generates for it: the service has
/// `request_message`, `response_message` and `event_message`; `_Event` has the
/// `service_msgs/ServiceEventInfo` and at most one request and one response.
fn service_part_description(type_name: &str) -> Result<IndividualTypeDescription, String> {
    let unknown = || format!("no definition of `{type_name}`");
    let (service, part) = match type_name.rsplit_once('_') {
        Some((service, part @ ("Request" | "Response" | "Event"))) => (service, part),
        _ => (type_name, ""),
    };
    let (_, request, response) = SERVICES
        .iter()
        .find(|(name, _, _)| *name == service)
        .ok_or_else(unknown)?;
    let nested = |name: &str, suffix: &str, offset: u8, capacity: u64| Field {
        name: name.to_string(),
        field_type: FieldType {
            type_id: FIELD_TYPE_NESTED_TYPE + offset,
            capacity,
            string_capacity: 0,
            nested_type_name: format!("{service}{suffix}"),
        },
    };
    let fields = match part {
        "Request" => return parsed_description(type_name, request),
        "Response" => return parsed_description(type_name, response),
        "Event" => {
            let mut info = nested("info", "", 0, 0);
            info.field_type.nested_type_name = "service_msgs/msg/ServiceEventInfo".into();
            vec![
                info,
                nested("request", "_Request", BOUNDED_SEQUENCE_OFFSET, 1),
                nested("response", "_Response", BOUNDED_SEQUENCE_OFFSET, 1),
            ]
        }
        _ => vec![
            nested("request_message", "_Request", 0, 0),
            nested("response_message", "_Response", 0, 0),
            nested("event_message", "_Event", 0, 0),
        ],
    };
    Ok(IndividualTypeDescription {
        type_name: type_name.to_string(),
        fields,
    })
}

/// The field declaration of a `.msg` line: without its comment, and empty for a constant
/// (`uint8 NAME=1`: its name carries the `=`), which a type hash does not cover.
fn field_text(line: &str) -> &str {
    let text = line.split('#').next().unwrap_or("").trim();
    let is_constant = text
        .split_whitespace()
        .nth(1)
        .is_some_and(|name| name.contains('='));
    if is_constant {
        ""
    } else {
        text
    }
}

/// One `.msg` field line, `type name`: `float64[9] k`, `string<=8 s`, `pkg/Name[<=3] n`.
fn parse_field(line: &str) -> Result<Field, String> {
    let mut words = line.split_whitespace();
    // A third word is a default value, which a type hash does not cover.
    let (Some(type_text), Some(name)) = (words.next(), words.next()) else {
        return Err("expected `type name`".into());
    };
    let (value_text, offset, capacity) = match type_text.split_once('[') {
        None => (type_text, 0, 0),
        Some((value, bracket)) => {
            let inside = bracket
                .strip_suffix(']')
                .ok_or_else(|| format!("array type `{type_text}` without closing `]`"))?;
            if inside.is_empty() {
                (value, UNBOUNDED_SEQUENCE_OFFSET, 0)
            } else if let Some(bound) = inside.strip_prefix("<=") {
                let bound = bound.parse().map_err(|_| format!("bad bound `{bound}`"))?;
                (value, BOUNDED_SEQUENCE_OFFSET, bound)
            } else {
                let size = inside.parse().map_err(|_| format!("bad size `{inside}`"))?;
                (value, ARRAY_OFFSET, size)
            }
        }
    };
    let (value_id, string_capacity, nested_type_name) =
        if let Some(bound) = value_text.strip_prefix("string<=") {
            let bound = bound
                .parse()
                .map_err(|_| format!("bad string bound `{bound}`"))?;
            (FIELD_TYPE_BOUNDED_STRING, bound, String::new())
        } else if let Some(id) = primitive_type_id(value_text) {
            (id, 0, String::new())
        } else if let Some((package, message)) = value_text.split_once('/') {
            (
                FIELD_TYPE_NESTED_TYPE,
                0,
                format!("{package}/msg/{message}"),
            )
        } else {
            return Err(format!(
                "unknown type `{value_text}` (nested types are `pkg/Name`)"
            ));
        };
    Ok(Field {
        name: name.to_string(),
        field_type: FieldType {
            type_id: value_id + offset,
            capacity,
            string_capacity,
            nested_type_name,
        },
    })
}

/// The `.msg` fields of a registered type or of a type one references (`pkg/msg/Name`), one
/// `type name` per line with nested types written `pkg/Name`; `None` for a type not here. The
/// one table of definitions: type hashes and the recorder's MCAP schemas are both built from it.
pub fn definition(type_name: &str) -> Option<&'static str> {
    DEFINITIONS
        .iter()
        .find(|(name, _)| *name == type_name)
        .map(|(_, fields)| *fields)
}

/// The full description of a registered message type, a builtin topic's type
/// ([`BUILTIN_TOPIC_TYPES`]) or a service type ([`service_types`]): the type and, sorted by
/// name, every type it references directly or through other types.
pub fn type_description(type_name: &str) -> Result<TypeDescription, MsgError> {
    let unknown = || MsgError::UnknownType(type_name.to_string());
    let main = individual_description(type_name).map_err(|_| unknown())?;
    let mut referenced = BTreeSet::new();
    let mut queue: Vec<String> = nested_names(&main).collect();
    while let Some(name) = queue.pop() {
        if referenced.insert(name.clone()) {
            let description = individual_description(&name).map_err(|_| unknown())?;
            queue.extend(nested_names(&description));
        }
    }
    let referenced_type_descriptions = referenced
        .iter()
        .map(|name| individual_description(name).map_err(|_| unknown()))
        .collect::<Result<_, _>>()?;
    Ok(TypeDescription {
        type_description: main,
        referenced_type_descriptions,
    })
}

/// The types of the topics every node has besides its own: `/rosout`, `/parameter_events`
/// and the graph's `ros_discovery_info`.
pub const BUILTIN_TOPIC_TYPES: &[&str] = &[
    "rcl_interfaces/msg/Log",
    "rcl_interfaces/msg/ParameterEvent",
    "rmw_dds_common/msg/ParticipantEntitiesInfo",
];

/// The request and response fields of a service type (`pkg/srv/Name`) of [`service_types`],
/// written as [`definition`] writes a message's.
pub fn service_definition(type_name: &str) -> Option<(&'static str, &'static str)> {
    SERVICES
        .iter()
        .find(|(name, _, _)| *name == type_name)
        .map(|(_, request, response)| (*request, *response))
}

/// Every service type a node of ours offers (parameter and lifecycle services) or calls.
pub fn service_types() -> impl Iterator<Item = &'static str> {
    SERVICES.iter().map(|(name, _, _)| *name)
}

fn nested_names(description: &IndividualTypeDescription) -> impl Iterator<Item = String> + '_ {
    description
        .fields
        .iter()
        .map(|field| field.field_type.nested_type_name.clone())
        .filter(|name| !name.is_empty())
}

impl TypeDescription {
    /// The text rosidl hashes: Python's `json.dumps(..., separators=(', ', ': '))` of the
    /// description without default values, keys in message field order.
    pub fn hashable_json(&self) -> String {
        let mut out = String::from("{\"type_description\": ");
        write_individual(&mut out, &self.type_description);
        out.push_str(", \"referenced_type_descriptions\": [");
        for (index, description) in self.referenced_type_descriptions.iter().enumerate() {
            if index > 0 {
                out.push_str(", ");
            }
            write_individual(&mut out, description);
        }
        out.push_str("]}");
        out
    }

    /// `RIHS01_` and the SHA-256 of [`Self::hashable_json`] in lowercase hex.
    pub fn hash(&self) -> String {
        let digest = Sha256::digest(self.hashable_json().as_bytes());
        let mut out = String::from("RIHS01_");
        for byte in digest {
            let _ = write!(out, "{byte:02x}");
        }
        out
    }
}

fn write_individual(out: &mut String, description: &IndividualTypeDescription) {
    out.push_str("{\"type_name\": ");
    write_json_string(out, &description.type_name);
    out.push_str(", \"fields\": [");
    for (index, field) in description.fields.iter().enumerate() {
        if index > 0 {
            out.push_str(", ");
        }
        let FieldType {
            type_id,
            capacity,
            string_capacity,
            nested_type_name,
        } = &field.field_type;
        out.push_str("{\"name\": ");
        write_json_string(out, &field.name);
        let _ = write!(
            out,
            ", \"type\": {{\"type_id\": {type_id}, \"capacity\": {capacity}, \
             \"string_capacity\": {string_capacity}, \"nested_type_name\": "
        );
        write_json_string(out, nested_type_name);
        out.push_str("}}");
    }
    out.push_str("]}");
}

/// A JSON string as Python's `json.dumps(ensure_ascii=True)` writes it.
fn write_json_string(out: &mut String, text: &str) {
    out.push('"');
    for character in text.chars() {
        match character {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            ' '..='~' => out.push(character),
            _ => {
                let mut units = [0u16; 2];
                for unit in character.encode_utf16(&mut units) {
                    let _ = write!(out, "\\u{unit:04x}");
                }
            }
        }
    }
    out.push('"');
}

/// The REP 2011 type hash of a registered type, `RIHS01_<64 hex>`.
pub fn type_hash(type_name: &str) -> Result<String, MsgError> {
    Ok(type_description(type_name)?.hash())
}

/// The DDS USER_DATA a Jazzy endpoint of this type announces: `typehash=RIHS01_<64 hex>;`
/// (both endpoints of a service, request and reply, announce the service type's hash).
pub fn user_data(type_name: &str) -> Result<Vec<u8>, MsgError> {
    Ok(format!("typehash={};", type_hash(type_name)?).into_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    // Copied from the ROS 2 Jazzy rig (`/opt/ros/jazzy/share/<pkg>/msg/<Type>.json`,
    // `type_hashes[0].hash_string`), so the algorithm is checked where the rig is absent too.
    const JAZZY_STRING: &str =
        "RIHS01_df668c740482bbd48fb39d76a70dfd4bd59db1288021743503259e948f6b1a18";
    const JAZZY_EMPTY: &str =
        "RIHS01_20b625256f32d5dbc0d04fee44f43c41e51c70d3502f84b4a08e7a9c26a96312";
    const JAZZY_IMU: &str =
        "RIHS01_7d9a00ff131080897a5ec7e26e315954b8eae3353c3f995c55faf71574000b5b";
    const JAZZY_TWIST: &str =
        "RIHS01_9c45bf16fe0983d80e3cfe750d6835843d265a9a6c46bd2e609fcddde6fb8d2a";
    const JAZZY_MAP_META_DATA: &str =
        "RIHS01_2772d4b2000ef2b35dbaeb80fd3946c1369f817fb4f75677d916d27c17d763c8";
    const JAZZY_OCCUPANCY_GRID: &str =
        "RIHS01_8d348150c12913a31ee0ec170fbf25089e4745d17035792a1ba94d6f0bc0cfc7";
    const JAZZY_PATH: &str =
        "RIHS01_1957a5bb3cee5da65c4e52e52b65a93df227efce4c20f8458b36e73066ca334b";
    const JAZZY_DIAGNOSTIC_ARRAY: &str =
        "RIHS01_5a8a36efb05fb25070fa0fb3810290c0e6cd4862b54a8fb975a1ee8dc55a333e";
    const JAZZY_DIAGNOSTIC_STATUS: &str =
        "RIHS01_b0e3e692ea2d54a8af2f4ef1930e81556a2db55216b771f8a7d2724ed47bf0e4";

    #[test]
    fn hashes_equal_the_ones_jazzy_ships() {
        assert_eq!(type_hash("std_msgs/msg/String").unwrap(), JAZZY_STRING);
        assert_eq!(type_hash("std_msgs/msg/Empty").unwrap(), JAZZY_EMPTY);
        assert_eq!(type_hash("sensor_msgs/msg/Imu").unwrap(), JAZZY_IMU);
        assert_eq!(type_hash("geometry_msgs/msg/Twist").unwrap(), JAZZY_TWIST);
        assert_eq!(
            type_hash("nav_msgs/msg/MapMetaData").unwrap(),
            JAZZY_MAP_META_DATA
        );
        assert_eq!(
            type_hash("nav_msgs/msg/OccupancyGrid").unwrap(),
            JAZZY_OCCUPANCY_GRID
        );
        assert_eq!(type_hash("nav_msgs/msg/Path").unwrap(), JAZZY_PATH);
        assert_eq!(
            type_hash("diagnostic_msgs/msg/DiagnosticArray").unwrap(),
            JAZZY_DIAGNOSTIC_ARRAY
        );
        assert_eq!(
            type_hash("diagnostic_msgs/msg/DiagnosticStatus").unwrap(),
            JAZZY_DIAGNOSTIC_STATUS
        );
    }

    /// The Jazzy rig has no vision_msgs. These are the hashes rosidl generated for vision_msgs
    /// 4.x (the `*_EXPECTED_HASH` tables of a colcon build's
    /// `rosidl_generator_c/vision_msgs/msg/detail/detection2_d_array__description.c`, public
    /// in github.com/borednuna/ipm-ws; its Time, Header and geometry hashes equal the rig's).
    #[test]
    fn vision_msgs_hashes_equal_the_ones_rosidl_generated() {
        for (type_name, published) in [
            (
                "vision_msgs/msg/Detection2DArray",
                "RIHS01_214274120007f4a683866481336b70310268cfa107aebe9d594a6acf75bda968",
            ),
            (
                "vision_msgs/msg/Detection2D",
                "RIHS01_0d12b69df5c593b3455b7346fac8205437a7d4bcb09b9e0e0b2dde787ded38ea",
            ),
            (
                "vision_msgs/msg/BoundingBox2D",
                "RIHS01_008eacbb0cf8f26e83795547bed013eec3675485ef386ec056d80eaaf1c1ce2f",
            ),
            (
                "vision_msgs/msg/Pose2D",
                "RIHS01_b0b5d1d7b4c20dd4fcde3ed1d4b289a919290572007d67a97043814db25d3648",
            ),
            (
                "vision_msgs/msg/Point2D",
                "RIHS01_eab0e83f44ab4de92ceaf76dd7d0e7638f2bdd1d16ffbe16c7a136c48e407247",
            ),
            (
                "vision_msgs/msg/ObjectHypothesisWithPose",
                "RIHS01_41c12344c0396c48b81df12467c192d99b2a0eb1463c5c37194e4223251c80bc",
            ),
            (
                "vision_msgs/msg/ObjectHypothesis",
                "RIHS01_51da43cec11c01957a64d1e05a24acd18aae7745ec30b74348ad5f6d634f7f90",
            ),
        ] {
            assert_eq!(type_hash(type_name).unwrap(), published, "{type_name}");
        }
    }

    #[test]
    fn every_registered_type_and_every_type_it_references_has_a_description() {
        for type_name in crate::KNOWN_TYPES {
            let description =
                type_description(type_name).unwrap_or_else(|e| panic!("{type_name}: {e}"));
            assert_eq!(description.type_description.type_name, *type_name);
            assert!(type_hash(type_name).unwrap().len() == "RIHS01_".len() + 64);
        }
    }

    #[test]
    fn every_definition_parses() {
        for (type_name, _) in DEFINITIONS {
            individual_description(type_name).unwrap_or_else(|e| panic!("{e}"));
        }
        for type_name in service_types().chain(BUILTIN_TOPIC_TYPES.iter().copied()) {
            type_description(type_name).unwrap_or_else(|e| panic!("{type_name}: {e}"));
        }
    }

    #[test]
    fn referenced_types_are_transitive_sorted_and_unique() {
        let odometry = type_description("nav_msgs/msg/Odometry").unwrap();
        let names: Vec<_> = odometry
            .referenced_type_descriptions
            .iter()
            .map(|d| d.type_name.as_str())
            .collect();
        assert_eq!(
            names,
            [
                "builtin_interfaces/msg/Time",
                "geometry_msgs/msg/Point",
                "geometry_msgs/msg/Pose",
                "geometry_msgs/msg/PoseWithCovariance",
                "geometry_msgs/msg/Quaternion",
                "geometry_msgs/msg/Twist",
                "geometry_msgs/msg/TwistWithCovariance",
                "geometry_msgs/msg/Vector3",
                "std_msgs/msg/Header",
            ]
        );
    }

    #[test]
    fn field_lines_map_to_rosidl_field_types() {
        let parsed = |line| parse_field(line).unwrap().field_type;
        assert_eq!(parsed("float64[9] k").type_id, 11 + ARRAY_OFFSET);
        assert_eq!(parsed("float64[9] k").capacity, 9);
        assert_eq!(
            parsed("string[] names").type_id,
            17 + UNBOUNDED_SEQUENCE_OFFSET
        );
        let bounded = parsed("string<=8[<=3] s");
        assert_eq!(
            (bounded.type_id, bounded.capacity, bounded.string_capacity),
            (117, 3, 8)
        );
        assert_eq!(
            parsed("sensor_msgs/PointField[] f").nested_type_name,
            "sensor_msgs/msg/PointField"
        );
        assert_eq!(parsed("char c").type_id, FIELD_TYPE_UINT8);
        assert!(parse_field("float128 x").unwrap_err().contains("float128"));
        assert!(parse_field("float64").is_err());
    }

    /// From the rig's `share/<pkg>/{msg,srv}/<Type>.json` (`tests/type_hash_rig.rs` checks
    /// every one where the rig is installed).
    #[test]
    fn service_and_builtin_topic_hashes_equal_the_ones_jazzy_ships() {
        for (type_name, jazzy) in [
            (
                "rcl_interfaces/srv/GetParameters",
                "RIHS01_bf9803d5c74cf989a5de3e0c2e99444599a627c7ff75f97b8c05b01003675cbc",
            ),
            (
                "rcl_interfaces/srv/DescribeParameters",
                "RIHS01_845b484d71eb0673dae682f2e3ba3c4851a65a3dcfb97bddd82c5b57e91e4cff",
            ),
            (
                "lifecycle_msgs/srv/GetState",
                "RIHS01_800a0a5aae599782b02932de0caf563f6dc4e7e94b794eadde075ba2cbef9795",
            ),
            (
                "rcl_interfaces/msg/Log",
                "RIHS01_e28ce254ca8abc06abf92773b74602cdbf116ed34fbaf294fb9f81da9f318eac",
            ),
            (
                "rcl_interfaces/msg/ParameterEvent",
                "RIHS01_043e627780fcad87a22d225bc2a037361dba713fca6a6b9f4b869a5aa0393204",
            ),
            (
                "rmw_dds_common/msg/ParticipantEntitiesInfo",
                "RIHS01_91a0593bacdcc50ea9bdcf849a938b128412cc1ea821245c663bcd26f83c295e",
            ),
        ] {
            assert_eq!(type_hash(type_name).unwrap(), jazzy, "{type_name}");
        }
    }

    #[test]
    fn a_service_references_its_request_response_and_event() {
        let description = type_description("lifecycle_msgs/srv/GetState").unwrap();
        let names: Vec<_> = description
            .referenced_type_descriptions
            .iter()
            .map(|d| d.type_name.as_str())
            .collect();
        assert_eq!(
            names,
            [
                "builtin_interfaces/msg/Time",
                "lifecycle_msgs/msg/State",
                "lifecycle_msgs/srv/GetState_Event",
                "lifecycle_msgs/srv/GetState_Request",
                "lifecycle_msgs/srv/GetState_Response",
                "service_msgs/msg/ServiceEventInfo",
            ]
        );
        // An empty request gets rosidl's placeholder member.
        let request = individual_description("lifecycle_msgs/srv/GetState_Request").unwrap();
        assert_eq!(
            request.fields[0].name,
            "structure_needs_at_least_one_member"
        );
        assert!(type_hash("lifecycle_msgs/srv/NoSuchService").is_err());
    }

    #[test]
    fn a_default_value_is_not_part_of_a_field() {
        let field = parse_field("bool read_only false").unwrap();
        assert_eq!(
            (field.name.as_str(), field.field_type.type_id),
            ("read_only", 15)
        );
    }

    #[test]
    fn unknown_types_are_refused_naming_them() {
        let error = type_hash("foo_msgs/msg/Bar").unwrap_err();
        assert!(error.to_string().contains("foo_msgs/msg/Bar"), "{error}");
    }

    #[test]
    fn user_data_is_what_jazzy_endpoints_announce() {
        assert_eq!(
            user_data("std_msgs/msg/String").unwrap(),
            format!("typehash={JAZZY_STRING};").into_bytes()
        );
    }
}
