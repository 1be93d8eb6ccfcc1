//! Topic naming: the topics a scenario's vehicles, the simulator and the run use, their ROS
//! types (the mission stack's included), and the checks of a topic name as a scenario
//! writes one.

use super::raw::Record;
use super::types::{Assertion, Entry, Trigger, Vehicle};
use super::{Ctx, ScenarioError};
use std::collections::{BTreeMap, BTreeSet};

/// The topic a stack publishes its velocity commands on when a failsafe follows it.
pub const DEFAULT_STACK_CMD_VEL: &str = "cmd_vel_nav";

/// A relative ROS topic name: segments of `[A-Za-z0-9_]`, not starting with a digit.
pub(super) fn is_topic_name(s: &str) -> bool {
    !s.is_empty()
        && s.split('/').all(|seg| {
            !seg.is_empty()
                && seg.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                && !seg.starts_with(|c: char| c.is_ascii_digit())
        })
}

/// A fully qualified topic name (`/ns/name`).
pub(super) fn topic_ok(t: &str) -> bool {
    t.starts_with('/')
        && t.len() > 1
        && !t.ends_with('/')
        && !t.contains("//")
        && t.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '/')
}

/// A vehicle's state estimate (relative to its namespace; `nav_msgs/msg/Odometry` in the
/// world's ENU frame), as the mission stack's localizer publishes it: `estimate_error`'s
/// default topic, recorded for every multirotor.
pub const ESTIMATE_TOPIC: &str = "odometry/filtered";

/// A vehicle's supervisor mode (relative to its namespace; `std_msgs/msg/String`, latched:
/// recorded reliable and transient-local), recorded for every multirotor and drawn as its
/// mode timeline in the report.
pub const MODE_TOPIC: &str = "supervisor/mode";

/// A topic of the mission stack (`fieldproof_mission`, relative to a vehicle's namespace):
/// its type, whether its publisher latches it, whether a multirotor's run records it
/// without being asked.
struct MissionTopic {
    topic: &'static str,
    ros_type: &'static str,
    latched: bool,
    recorded: bool,
}

/// The mission stack's topics, as its README lists them: a scenario records any of them
/// without `record.types`; a latched one is recorded reliable and transient-local.
const MISSION_TOPICS: [MissionTopic; 9] = {
    const fn t(
        topic: &'static str,
        ros_type: &'static str,
        latched: bool,
        recorded: bool,
    ) -> MissionTopic {
        MissionTopic {
            topic,
            ros_type,
            latched,
            recorded,
        }
    }
    [
        t(MODE_TOPIC, "std_msgs/msg/String", true, true),
        t(ESTIMATE_TOPIC, "nav_msgs/msg/Odometry", false, true),
        t("supervisor/reason", "std_msgs/msg/String", true, false),
        t(
            "supervisor/setpoint",
            "geometry_msgs/msg/TwistStamped",
            false,
            false,
        ),
        t("autopilot/status", "std_msgs/msg/String", true, false),
        t(
            "mission/target",
            "geometry_msgs/msg/PoseStamped",
            false,
            false,
        ),
        t("mission/complete", "std_msgs/msg/Bool", true, false),
        t("map", "nav_msgs/msg/OccupancyGrid", false, false),
        t("plan", "nav_msgs/msg/Path", false, false),
    ]
};

/// Whether the vehicle is a multirotor (its run records the mission stack's mode and
/// estimate).
pub fn is_multirotor(v: &Vehicle) -> bool {
    v.manifest.kind == fieldproof_robots::manifest::VehicleKind::Multirotor
}

/// The vehicle's supervisor mode topic, fully qualified, for a multirotor.
pub fn mode_topic(v: &Vehicle) -> Option<String> {
    is_multirotor(v).then(|| format!("{}/{MODE_TOPIC}", v.topic_prefix()))
}

/// Whether a recorded topic is one its publisher latches (a vehicle's supervisor mode and
/// reason, its autopilot's status, its mission's completion, its failsafe's `link_state`,
/// the fleet station's `/fleet/lease`, a fleet quad's `fleet/phase`, a convoy follower's
/// `convoy/watchdog_state`):
/// the recorder reads it reliably and transient-local, so no change is lost and the value
/// published before the recorder joined is heard (the readiness wait behind a link needs
/// link_monitor's one `link_state` true, published at its first heartbeat).
pub fn is_latched(vehicles: &[Vehicle], topic: &str) -> bool {
    topic == FLEET_LEASE_TOPIC
        || vehicles.iter().any(|v| {
            failsafe_state_topic(v).as_deref() == Some(topic)
                || (is_multirotor(v)
                    && topic == format!("{}/{FLEET_PHASE_TOPIC}", v.topic_prefix()))
                || topic == format!("{}/{CONVOY_STATE_TOPIC}", v.topic_prefix())
                || MISSION_TOPICS
                    .iter()
                    .any(|m| m.latched && topic == format!("{}/{}", v.topic_prefix(), m.topic))
        })
}

/// The collision topic of the simulator.
pub const COLLISIONS_TOPIC: &str = "/fieldproof/truth/collisions";

/// The fleet's vehicles' reports to the fleet station (`fieldproof_fleet`):
/// `leases_exclusive`'s and `pad_error`'s default.
pub const FLEET_STATUS_TOPIC: &str = "/fleet/status";

/// The fleet station's answers: `leases_exclusive`'s default.
pub const FLEET_CLEARANCE_TOPIC: &str = "/fleet/clearance";

/// The fleet's topics (`fieldproof_fleet`, absolute) and their types: a scenario records any
/// of them without `record.types`.
const FLEET_TOPICS: [(&str, &str); 4] = [
    (FLEET_STATUS_TOPIC, "fieldproof_interfaces/msg/FleetStatus"),
    (FLEET_CLEARANCE_TOPIC, "fieldproof_interfaces/msg/Clearance"),
    (
        "/fleet/clearance_request",
        "fieldproof_interfaces/msg/ClearanceRequest",
    ),
    (FLEET_LEASE_TOPIC, "std_msgs/msg/String"),
];

/// The fleet station's book, latched (recorded reliable and transient-local).
const FLEET_LEASE_TOPIC: &str = "/fleet/lease";

/// A convoy follower's watchdog state (relative to its namespace; `std_msgs/msg/String`,
/// latched by `convoy_follower`, published at each change only: its first `FOLLOW` may come
/// before the recorder joins).
const CONVOY_STATE_TOPIC: &str = "convoy/watchdog_state";

/// A fleet quad's phase (relative to its namespace; `std_msgs/msg/String`, latched by its
/// `fleet_adapter`): a timeline's `when:` trigger (`WAITING_LAND`) and a recordable topic.
pub const FLEET_PHASE_TOPIC: &str = "fleet/phase";

/// The truth pose topic of a vehicle (namespace label).
pub fn truth_topic(label: &str) -> String {
    format!("/fieldproof/truth/{label}/pose")
}

/// The ROS type of every topic the runner can tell itself: each vehicle's contract, its
/// stack's and failsafe's topics, the mission stack's, the simulator's truth and the run's
/// own.
pub fn known_types(vehicles: &[Vehicle], network: bool) -> BTreeMap<String, String> {
    let mut m = BTreeMap::new();
    for v in vehicles {
        for t in &v.bundle.contract.topics {
            m.insert(t.topic.clone(), t.ros_type.clone());
        }
        let ns = v.topic_prefix();
        m.insert(
            format!("{ns}/{}", v.stack_cmd_vel),
            "geometry_msgs/msg/Twist".to_string(),
        );
        for (t, ty) in [
            ("link_state", "std_msgs/msg/Bool"),
            (DEFAULT_STACK_CMD_VEL, "geometry_msgs/msg/Twist"),
            ("goal_pose", "geometry_msgs/msg/PoseStamped"),
            ("goal_reached", "std_msgs/msg/Bool"),
        ] {
            m.insert(format!("{ns}/{t}"), ty.to_string());
        }
        for t in &MISSION_TOPICS {
            m.entry(format!("{ns}/{}", t.topic))
                .or_insert_with(|| t.ros_type.to_string());
        }
        if is_multirotor(v) {
            m.entry(format!("{ns}/{FLEET_PHASE_TOPIC}"))
                .or_insert_with(|| "std_msgs/msg/String".to_string());
        }
        // Where the ground station publishes it (an absolute topic stays absolute).
        if let Some(hb) = heartbeat_topic(v) {
            m.insert(hb, "std_msgs/msg/Header".into());
        }
        m.insert(
            truth_topic(&label(v)),
            "geometry_msgs/msg/PoseStamped".into(),
        );
    }
    m.insert(COLLISIONS_TOPIC.into(), "std_msgs/msg/String".into());
    m.insert("/clock".into(), "rosgraph_msgs/msg/Clock".into());
    for (t, ty) in FLEET_TOPICS {
        m.insert(t.into(), ty.into());
    }
    if network {
        m.insert(NETWORK_TOPIC.into(), "std_msgs/msg/String".into());
    }
    m
}

/// The `link_state` topic of the vehicle's failsafe (`link_monitor`), when it runs one:
/// its manifest has `runtime.link` and `failsafe` is not off.
pub fn failsafe_state_topic(v: &Vehicle) -> Option<String> {
    v.manifest
        .runtime
        .as_ref()?
        .link
        .as_ref()
        .filter(|_| v.failsafe)?;
    let ns = v.topic_prefix();
    Some(format!("{ns}/link_state"))
}

/// The heartbeat the vehicle's manifest asks for (`runtime.link.heartbeat`), if any.
pub fn heartbeat(v: &Vehicle) -> Option<&fieldproof_robots::manifest::Heartbeat> {
    v.manifest
        .runtime
        .as_ref()?
        .link
        .as_ref()?
        .heartbeat
        .as_ref()
}

/// The vehicle's heartbeat topic, fully qualified, if its manifest asks for one.
pub fn heartbeat_topic(v: &Vehicle) -> Option<String> {
    let hb = heartbeat(v)?;
    // As ROS resolves it: an absolute topic stays as it is, a relative one goes under the
    // vehicle's namespace (what link_monitor subscribes and the ground station publishes).
    Some(fieldproof_link::bringup::resolve_topic(
        &v.topic_prefix(),
        &hb.topic,
    ))
}

/// The topic the ground station's measurement windows are recorded on.
pub const NETWORK_TOPIC: &str = "/fieldproof/network";

/// The simulator's label of a vehicle (its namespace, or its name without one).
pub fn label(v: &Vehicle) -> String {
    if v.namespace.is_empty() {
        v.name.clone()
    } else {
        v.namespace.clone()
    }
}

/// Every topic a run records with its ROS type: `record.topics`, what the assertions and
/// `when` triggers read, every vehicle's truth pose, speed, link state and heartbeat, every
/// multirotor's supervisor mode and estimate ([`MODE_TOPIC`], [`ESTIMATE_TOPIC`]), the
/// run's own; `record.types` gives the types the runner cannot tell.
pub(super) fn recorded_topics(
    ctx: &Ctx,
    record: &Record,
    timeline: &[Entry],
    assertions: &[Assertion],
    vehicles: &[Vehicle],
    has_network: bool,
) -> Result<BTreeMap<String, String>, ScenarioError> {
    let mut topics: BTreeSet<String> = BTreeSet::new();
    for (i, t) in record.topics.iter().enumerate() {
        if !topic_ok(t) {
            return Err(ctx.err(
                format!("record.topics[{i}]"),
                format!("\"{t}\" is not a fully qualified topic name (/ns/name)"),
            ));
        }
        topics.insert(t.clone());
    }
    for e in timeline {
        if let Trigger::When(c) = &e.trigger {
            topics.insert(c.topic.clone());
        }
    }
    for a in assertions {
        if let Some(topic) = a.check.topic() {
            topics.insert(topic.to_string());
        }
        topics.extend(a.check.other_topics().into_iter().map(str::to_string));
    }
    for v in vehicles {
        topics.insert(truth_topic(&label(v)));
        // The report plots every vehicle's speed, and its link state behind a link.
        let ns = v.topic_prefix();
        let odom = &v.manifest.drive.odometry.ros_topic;
        if !odom.starts_with('/') {
            topics.insert(format!("{ns}/{odom}"));
        }
        if has_network
            && v.manifest
                .runtime
                .as_ref()
                .and_then(|r| r.link.as_ref())
                .is_some()
        {
            topics.insert(format!("{ns}/link_state"));
        }
        if let Some(hb) = heartbeat_topic(v).filter(|_| has_network) {
            topics.insert(hb);
        }
        // A multirotor's mission stack: its mode (the report's mode timeline) and its
        // estimate (what estimate_error reads).
        if is_multirotor(v) {
            for t in MISSION_TOPICS.iter().filter(|t| t.recorded) {
                topics.insert(format!("{ns}/{}", t.topic));
            }
        }
    }
    topics.insert(COLLISIONS_TOPIC.to_string());
    if has_network {
        topics.insert(NETWORK_TOPIC.to_string());
    }
    for (t, ty) in &record.types {
        let path = format!("record.types.{t}");
        if !topic_ok(t) {
            return Err(ctx.err(
                path,
                format!("\"{t}\" is not a fully qualified topic name (/ns/name)"),
            ));
        }
        if !fieldproof_msgs::is_known_type(ty) {
            return Err(ctx.err(
                path,
                format!("\"{ty}\" is not a message type fieldproof knows"),
            ));
        }
        if !topics.contains(t) {
            return Err(ctx.err(
                path,
                format!("{t} is not recorded: add it to record.topics, or remove its type"),
            ));
        }
    }
    let known = known_types(vehicles, has_network);
    let mut recorded = BTreeMap::new();
    for t in topics {
        let ty = record
            .types
            .get(&t)
            .cloned()
            .or_else(|| known.get(&t).cloned());
        match ty {
            Some(ty) if fieldproof_msgs::is_known_type(&ty) => {
                recorded.insert(t, ty);
            }
            Some(ty) => {
                return Err(ctx.err(
                    format!("record.types.{t}"),
                    format!("\"{ty}\" is not a message type fieldproof knows"),
                ))
            }
            None => {
                return Err(ctx.err(
                    "record.types",
                    format!("the type of {t} is unknown (not in a vehicle's contract nor one of fieldproof's topics): give it under record.types"),
                ))
            }
        }
    }

    Ok(recorded)
}
