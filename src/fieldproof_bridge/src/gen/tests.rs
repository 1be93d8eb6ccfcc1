//! The generator's rules, one test each, on the reference UGV and edited copies of it.

use std::path::{Path, PathBuf};

use fieldproof_robots::{Durability, Manifest, Qos, Reliability};
use serde_yaml::Value;

use super::*;
use crate::contract::{Role, TfFrame};

use fieldproof_testkit::repo_root as repo;

fn ugv_ref_path() -> PathBuf {
    std::path::absolute(repo().join("robots/ugv_ref/robot.yaml")).unwrap()
}

fn ugv_ref() -> Manifest {
    load_manifest(&ugv_ref_path()).unwrap()
}

/// The reference UGV with `edit` applied to its YAML document.
fn edited(edit: impl FnOnce(&mut Value)) -> Manifest {
    let text = std::fs::read_to_string(ugv_ref_path()).unwrap();
    let mut doc: Value = serde_yaml::from_str(&text).unwrap();
    edit(&mut doc);
    Manifest::from_yaml(ugv_ref_path(), &serde_yaml::to_string(&doc).unwrap()).unwrap()
}

fn opts(ns: &str) -> Options {
    Options {
        namespace: ns.into(),
        ..Options::default()
    }
}

fn bundle(m: &Manifest, o: &Options) -> Bundle {
    generate(m, o, Path::new("/tmp/fieldproof-test-bundle")).unwrap()
}

fn reason(m: &Manifest, o: &Options) -> String {
    generate(m, o, Path::new("/tmp/x")).unwrap_err().to_string()
}

fn qos(reliability: Reliability, durability: Durability, depth: u32) -> Qos {
    Qos {
        reliability,
        durability,
        depth,
    }
}

const R: Reliability = Reliability::Reliable;
const V: Durability = Durability::Volatile;
const TL: Durability = Durability::TransientLocal;

/// The contract of the reference UGV, row by row: topic, type, role, frame,
/// child frame, rate, QoS, provided by.
#[allow(clippy::type_complexity)]
const SPEC_TABLE: &[(
    &str,
    &str,
    Role,
    Option<&str>,
    Option<&str>,
    Option<f64>,
    (Reliability, Durability, u32),
    &str,
)] = &[
    (
        "cmd_vel",
        "geometry_msgs/msg/Twist",
        Role::Subscriber,
        None,
        None,
        None,
        (R, V, 10),
        "ros_gz_bridge",
    ),
    (
        "odom",
        "nav_msgs/msg/Odometry",
        Role::Publisher,
        Some("odom"),
        Some("base_link"),
        Some(50.0),
        (R, V, 10),
        "ros_gz_bridge",
    ),
    (
        "joint_states",
        "sensor_msgs/msg/JointState",
        Role::Publisher,
        None,
        None,
        Some(50.0),
        (R, V, 10),
        "joint_states_throttle",
    ),
    (
        "tf",
        "tf2_msgs/msg/TFMessage",
        Role::Publisher,
        None,
        None,
        Some(50.0),
        (R, V, 100),
        "ros_gz_bridge, robot_state_publisher",
    ),
    (
        "scan",
        "sensor_msgs/msg/LaserScan",
        Role::Publisher,
        Some("lidar_link"),
        None,
        Some(10.0),
        (R, V, 10),
        "ros_gz_bridge",
    ),
    (
        "imu/data",
        "sensor_msgs/msg/Imu",
        Role::Publisher,
        Some("imu_link"),
        None,
        Some(100.0),
        (R, V, 10),
        "imu_adapter",
    ),
    (
        "camera/image",
        "sensor_msgs/msg/Image",
        Role::Publisher,
        Some("camera_optical_link"),
        None,
        Some(15.0),
        (R, V, 5),
        "ros_gz_bridge_camera_optical_link",
    ),
    (
        "camera/camera_info",
        "sensor_msgs/msg/CameraInfo",
        Role::Publisher,
        Some("camera_optical_link"),
        None,
        Some(15.0),
        (R, V, 5),
        "ros_gz_bridge_camera_optical_link",
    ),
    (
        "camera/depth/image",
        "sensor_msgs/msg/Image",
        Role::Publisher,
        Some("camera_optical_link"),
        None,
        Some(15.0),
        (R, V, 5),
        "ros_gz_bridge_camera_optical_link",
    ),
    (
        "camera/points",
        "sensor_msgs/msg/PointCloud2",
        Role::Publisher,
        Some("camera_link"),
        None,
        Some(15.0),
        (R, V, 5),
        "ros_gz_bridge",
    ),
    (
        "gps/fix",
        "sensor_msgs/msg/NavSatFix",
        Role::Publisher,
        Some("gps_link"),
        None,
        Some(5.0),
        (R, V, 10),
        "gps_adapter",
    ),
    (
        "/clock",
        "rosgraph_msgs/msg/Clock",
        Role::Publisher,
        None,
        None,
        None,
        (R, V, 10),
        "ros_gz_bridge",
    ),
    (
        "tf_static",
        "tf2_msgs/msg/TFMessage",
        Role::Publisher,
        None,
        None,
        None,
        (R, TL, 1),
        "robot_state_publisher",
    ),
    (
        "robot_description",
        "std_msgs/msg/String",
        Role::Publisher,
        None,
        None,
        None,
        (R, TL, 1),
        "robot_state_publisher",
    ),
];

/// Where the adapter rules override the table's `provided by` column: the command goes
/// through the command_relay, odometry and the scan (injectable types) through a relay.
fn provided_by_per_rules(topic: &str, table: &str) -> String {
    match topic {
        "cmd_vel" => "command_relay".into(),
        "odom" => "odom_relay".into(),
        "scan" => "scan_relay".into(),
        _ => table.into(),
    }
}

fn check_against_spec_table(ns: &str) {
    let b = bundle(&ugv_ref(), &opts(ns));
    let n = Naming::new(ns, "");
    let c = &b.contract;
    for (topic, ty, role, frame, child, rate, (rel, dur, depth), by) in SPEC_TABLE {
        let name = n.topic(topic);
        let t = c
            .topic(&name)
            .unwrap_or_else(|| panic!("{name} missing from the contract"));
        assert_eq!(t.ros_type, *ty, "{name}");
        assert_eq!(t.role, *role, "{name}");
        assert_eq!(t.rate_hz, *rate, "{name}");
        assert_eq!(t.qos, qos(*rel, *dur, *depth), "{name}");
        assert_eq!(
            t.provided_by.join(", "),
            provided_by_per_rules(topic, by),
            "{name}"
        );
        if t.is_tf() {
            assert_eq!(
                (t.frame_id.as_deref(), t.child_frame_id.as_deref()),
                (None, None)
            );
        } else {
            assert_eq!(t.frame_id.as_deref(), *frame, "{name}");
            assert_eq!(t.child_frame_id.as_deref(), *child, "{name}");
        }
    }
    let tf = c.topic(&n.topic("tf")).unwrap();
    assert_eq!(
        tf.frames,
        vec![TfFrame {
            parent: "odom".into(),
            child: "base_link".into()
        }]
    );
    let mut children: Vec<&str> = c
        .topic(&n.topic("tf_static"))
        .unwrap()
        .frames
        .iter()
        .map(|f| f.child.as_str())
        .collect();
    children.sort();
    let mut expected = [
        "base_footprint",
        "lidar_link",
        "imu_link",
        "camera_link",
        "camera_optical_link",
        "gps_link",
    ];
    expected.sort();
    assert_eq!(children, expected);
    // The table plus the battery (power.battery came with the adapters, task P2-T03).
    assert_eq!(c.topics.len(), SPEC_TABLE.len() + 1);
    let battery = c.topic(&n.topic("battery_state")).unwrap();
    assert_eq!(battery.ros_type, "sensor_msgs/msg/BatteryState");
    assert_eq!(battery.frame_id.as_deref(), Some("base_link"));
    assert_eq!(battery.rate_hz, Some(1.0));
    assert_eq!(battery.provided_by, ["battery"]);
}

#[test]
fn ugv_ref_contract_is_the_spec_table() {
    check_against_spec_table("");
    let b = bundle(&ugv_ref(), &opts(""));
    assert_eq!(b.contract.namespace, "");
    assert!(b.contract.topic("/cmd_vel").is_some());
    assert!(b.contract.topic("/tf").is_some());
}

#[test]
fn namespace_prefixes_every_name_but_the_clock() {
    check_against_spec_table("ugv1");
    let b = bundle(&ugv_ref(), &opts("/ugv1/"));
    assert_eq!(b.contract.namespace, "/ugv1");
    for t in &b.contract.topics {
        assert_eq!(
            t.topic == "/clock",
            !t.topic.starts_with("/ugv1/"),
            "{}",
            t.topic
        );
    }
    assert_eq!(b.tf.tf, "/ugv1/tf");
    assert_eq!(b.tf.tf_static, "/ugv1/tf_static");
    // Both sides: the Gazebo topics too, except the world clock.
    for e in &b.bridges[0].entries {
        assert_eq!(
            e.gz_topic_name.starts_with("/ugv1/"),
            e.ros_topic_name != "/clock",
            "{}",
            e.gz_topic_name
        );
    }
}

#[test]
fn hidden_topics_follow_the_shared_rule() {
    let m = ugv_ref();
    let b = bundle(&m, &opts("ugv1"));
    let n = Naming::new("ugv1", "");
    let expected: Vec<String> = m
        .interfaces()
        .iter()
        .filter(|i| fieldproof_robots::is_hidden(i))
        .map(|i| n.sim_topic(i))
        .collect();
    assert_eq!(b.hidden_topics, expected);
    assert_eq!(
        b.hidden_topics,
        [
            "/ugv1/_bridge/cmd_vel",
            "/ugv1/_bridge/odom",
            "/ugv1/_bridge/joint_states",
            "/ugv1/_bridge/imu/data",
            "/ugv1/_bridge/gps/fix",
            "/ugv1/_bridge/scan",
        ]
    );
    assert_eq!(b.contract.hidden_topics, b.hidden_topics);
    // Every hidden topic is bridged by the main instance and read (or written) by one adapter.
    for h in &b.hidden_topics {
        assert!(b.bridges[0].entries.iter().any(|e| &e.ros_topic_name == h));
        let users: Vec<&NodeSpec> = b
            .nodes
            .iter()
            .filter(|n| n.injector.as_ref().and_then(|i| i.hidden.as_ref()) == Some(h))
            .collect();
        assert_eq!(users.len(), 1, "{h}");
    }
}

#[test]
fn node_list_in_launch_order() {
    let b = bundle(&ugv_ref(), &opts("ugv1"));
    let nodes: Vec<(&str, &str)> = b
        .nodes
        .iter()
        .map(|n| (n.name.as_str(), n.kind.as_str()))
        .collect();
    assert_eq!(
        nodes,
        [
            ("ros_gz_bridge", "parameter_bridge"),
            ("ros_gz_bridge_camera_optical_link", "parameter_bridge"),
            ("robot_state_publisher", "robot_state_publisher"),
            ("command_relay", "command_relay"),
            ("odom_relay", "relay"),
            ("joint_states_throttle", "throttle"),
            ("imu_adapter", "imu_adapter"),
            ("gps_adapter", "navsat_adapter"),
            ("scan_relay", "relay"),
            ("battery", "battery"),
        ]
    );
    let gz_only: Vec<&str> = b
        .nodes
        .iter()
        .filter(|n| n.kind.gz_only())
        .map(|n| n.name.as_str())
        .collect();
    assert_eq!(
        gz_only,
        [
            "ros_gz_bridge",
            "ros_gz_bridge_camera_optical_link",
            "robot_state_publisher"
        ]
    );
}

#[test]
fn bridge_entries_and_directions() {
    let b = bundle(&ugv_ref(), &opts("ugv1"));
    let main: Vec<(&str, &str, &str, &str)> = b.bridges[0]
        .entries
        .iter()
        .map(|e| {
            (
                e.ros_topic_name.as_str(),
                e.gz_topic_name.as_str(),
                e.gz_type_name.as_str(),
                e.direction.as_str(),
            )
        })
        .collect();
    assert_eq!(
        main,
        [
            (
                "/ugv1/_bridge/cmd_vel",
                "/ugv1/model/ugv_ref/cmd_vel",
                "gz.msgs.Twist",
                "ROS_TO_GZ"
            ),
            (
                "/ugv1/_bridge/odom",
                "/ugv1/model/ugv_ref/odometry",
                "gz.msgs.Odometry",
                "GZ_TO_ROS"
            ),
            (
                "/ugv1/_bridge/joint_states",
                "/ugv1/world/depot/model/ugv_ref/joint_state",
                "gz.msgs.Model",
                "GZ_TO_ROS"
            ),
            (
                "/ugv1/tf",
                "/ugv1/model/ugv_ref/tf",
                "gz.msgs.Pose_V",
                "GZ_TO_ROS"
            ),
            (
                "/ugv1/_bridge/imu/data",
                "/ugv1/model/ugv_ref/imu",
                "gz.msgs.IMU",
                "GZ_TO_ROS"
            ),
            (
                "/ugv1/_bridge/gps/fix",
                "/ugv1/model/ugv_ref/navsat",
                "gz.msgs.NavSat",
                "GZ_TO_ROS"
            ),
            (
                "/ugv1/_bridge/scan",
                "/ugv1/model/ugv_ref/scan",
                "gz.msgs.LaserScan",
                "GZ_TO_ROS"
            ),
            (
                "/ugv1/camera/points",
                "/ugv1/model/ugv_ref/camera/points",
                "gz.msgs.PointCloudPacked",
                "GZ_TO_ROS"
            ),
            ("/clock", "/clock", "gz.msgs.Clock", "GZ_TO_ROS"),
        ]
    );
    // Relabelling: the image, camera info and depth image through one more instance.
    assert_eq!(b.bridges.len(), 2);
    let cam = &b.bridges[1];
    assert_eq!(cam.name, "ros_gz_bridge_camera_optical_link");
    assert_eq!(cam.file_name, "ros_gz_bridge_camera_optical_link.yaml");
    assert_eq!(
        cam.override_frame_id.as_deref(),
        Some("camera_optical_link")
    );
    let topics: Vec<&str> = cam
        .entries
        .iter()
        .map(|e| e.ros_topic_name.as_str())
        .collect();
    assert_eq!(
        topics,
        [
            "/ugv1/camera/image",
            "/ugv1/camera/camera_info",
            "/ugv1/camera/depth/image"
        ]
    );
    let node = b.node("ros_gz_bridge_camera_optical_link").unwrap();
    assert_eq!(
        node.params["override_frame_id"],
        Value::from("camera_optical_link")
    );
    assert_eq!(
        node.params["config_file"],
        Value::from("/tmp/fieldproof-test-bundle/ros_gz_bridge_camera_optical_link.yaml")
    );
    assert!(!b
        .node("ros_gz_bridge")
        .unwrap()
        .params
        .contains_key("override_frame_id"));
}

#[test]
fn qos_overrides_of_bridged_topics() {
    let b = bundle(&ugv_ref(), &opts("ugv1"));
    let main = &b.node("ros_gz_bridge").unwrap().params;
    let get = |p: &BTreeMap<String, Value>, k: &str| {
        p.get(k).cloned().unwrap_or_else(|| panic!("missing {k}"))
    };
    assert_eq!(
        get(main, "qos_overrides./ugv1/tf.publisher.depth"),
        Value::from(100)
    );
    assert_eq!(
        get(main, "qos_overrides./ugv1/tf.publisher.reliability"),
        Value::from("reliable")
    );
    assert_eq!(
        get(main, "qos_overrides./ugv1/camera/points.publisher.depth"),
        Value::from(5)
    );
    assert_eq!(
        get(main, "qos_overrides./clock.publisher.durability"),
        Value::from("volatile")
    );
    // The command's QoS applies to the bridge's subscription of the hidden topic.
    assert_eq!(
        get(
            main,
            "qos_overrides./ugv1/_bridge/cmd_vel.subscription.reliability"
        ),
        Value::from("reliable")
    );
    assert!(!main.contains_key("qos_overrides./ugv1/_bridge/cmd_vel.publisher.reliability"));
    let cam = &b.node("ros_gz_bridge_camera_optical_link").unwrap().params;
    assert_eq!(
        get(cam, "qos_overrides./ugv1/camera/image.publisher.depth"),
        Value::from(5)
    );
    assert_eq!(
        get(cam, "qos_overrides./ugv1/camera/image.publisher.history"),
        Value::from("keep_last")
    );
    // A best-effort, transient-local output of the manifest reaches its override.
    let m = edited(|d| {
        d["sensors"][3]["outputs"][3]["qos"] = serde_yaml::from_str(
            "{reliability: best_effort, durability: transient_local, depth: 2}",
        )
        .unwrap();
    });
    let b = bundle(&m, &opts(""));
    let main = &b.node("ros_gz_bridge").unwrap().params;
    assert_eq!(
        get(main, "qos_overrides./camera/points.publisher.reliability"),
        Value::from("best_effort")
    );
    assert_eq!(
        get(main, "qos_overrides./camera/points.publisher.durability"),
        Value::from("transient_local")
    );
    assert_eq!(
        b.contract.topic("/camera/points").unwrap().qos,
        qos(Reliability::BestEffort, TL, 2)
    );
}

#[test]
fn adapter_parameters_from_the_manifest() {
    let b = bundle(&ugv_ref(), &opts("ugv1"));
    let p = |name: &str| b.node(name).unwrap().params.clone();
    let imu = p("imu_adapter");
    assert_eq!(imu["input"], Value::from("/ugv1/_bridge/imu/data"));
    assert_eq!(imu["output"], Value::from("/ugv1/imu/data"));
    assert_eq!(imu["ros_frame_id"], Value::from("imu_link"));
    assert_eq!(imu["gyro_stddev_radps"], Value::from(0.0002));
    assert_eq!(imu["accel_stddev_mps2"], Value::from(0.017));
    assert!(!imu.contains_key("orientation_stddev_rad"));
    assert_eq!(imu["qos_reliability"], Value::from("reliable"));
    assert_eq!(imu["qos_durability"], Value::from("volatile"));
    assert_eq!(imu["qos_depth"], Value::from(10));
    assert_eq!(imu["use_sim_time"], Value::from(true));
    let gps = p("gps_adapter");
    assert_eq!(gps["ros_frame_id"], Value::from("gps_link"));
    assert_eq!(gps["horizontal_stddev_m"], Value::from(0.8));
    assert_eq!(gps["vertical_stddev_m"], Value::from(1.5));
    let js = p("joint_states_throttle");
    assert_eq!(js["ros_type"], Value::from("sensor_msgs/msg/JointState"));
    assert_eq!(js["rate_hz"], Value::from(50.0));
    assert_eq!(js["gz_rate"], Value::from(1000.0));
    let scan = p("scan_relay");
    assert_eq!(scan["ros_type"], Value::from("sensor_msgs/msg/LaserScan"));
    assert_eq!(scan["ros_frame_id"], Value::from("lidar_link"));
    assert_eq!(scan["input"], Value::from("/ugv1/_bridge/scan"));
    let cmd = p("command_relay");
    assert_eq!(cmd["input"], Value::from("/ugv1/cmd_vel"));
    assert_eq!(cmd["output"], Value::from("/ugv1/_bridge/cmd_vel"));
    let bat = p("battery");
    assert_eq!(bat["output"], Value::from("/ugv1/battery_state"));
    assert_eq!(bat["full_voltage_v"], Value::from(25.2));
    assert_eq!(bat["empty_voltage_v"], Value::from(19.8));
    assert_eq!(bat["capacity_ah"], Value::from(10.0));
    assert_eq!(bat["rate_hz"], Value::from(1.0));
    assert_eq!(bat["frame_id"], Value::from("base_link"));
    // Injectors: what each serves, for the scenario runner.
    let serves = |name: &str| b.node(name).unwrap().injector.clone().unwrap().serves;
    assert_eq!(
        serves("imu_adapter"),
        Serves::Sensor {
            sensor: "imu".into(),
            output: "data".into()
        }
    );
    assert_eq!(serves("command_relay"), Serves::Drive("command".into()));
    assert_eq!(serves("odom_relay"), Serves::Drive("odometry".into()));
    assert_eq!(serves("battery"), Serves::Battery);
    assert!(b.node("ros_gz_bridge").unwrap().injector.is_none());
}

#[test]
fn orientation_noise_reaches_the_imu_adapter() {
    let m = edited(|d| {
        d["sensors"][0]["noise"]["orientation_stddev_rad"] = Value::from(0.01);
    });
    let b = bundle(&m, &opts(""));
    assert_eq!(
        b.node("imu_adapter").unwrap().params["orientation_stddev_rad"],
        Value::from(0.01)
    );
}

#[test]
fn frame_prefix_reaches_contract_adapters_bridges_and_description() {
    let o = Options {
        namespace: "ugv1".into(),
        frame_prefix: "ugv1/".into(),
        ..Options::default()
    };
    let b = bundle(&ugv_ref(), &o);
    let c = &b.contract;
    assert_eq!(c.frame_prefix, "ugv1/");
    let odom = c.topic("/ugv1/odom").unwrap();
    assert_eq!(odom.frame_id.as_deref(), Some("ugv1/odom"));
    assert_eq!(odom.child_frame_id.as_deref(), Some("ugv1/base_link"));
    assert_eq!(
        c.topic("/ugv1/tf").unwrap().frames,
        [TfFrame {
            parent: "ugv1/odom".into(),
            child: "ugv1/base_link".into()
        }]
    );
    assert!(c
        .topic("/ugv1/tf_static")
        .unwrap()
        .frames
        .iter()
        .all(|f| f.parent.starts_with("ugv1/") && f.child.starts_with("ugv1/")));
    assert_eq!(
        b.node("imu_adapter").unwrap().params["ros_frame_id"],
        Value::from("ugv1/imu_link")
    );
    assert_eq!(
        b.node("battery").unwrap().params["frame_id"],
        Value::from("ugv1/base_link")
    );
    // The relabelling instance keeps its name, relabels to the prefixed frame.
    let cam = b.node("ros_gz_bridge_camera_optical_link").unwrap();
    assert_eq!(
        cam.params["override_frame_id"],
        Value::from("ugv1/camera_optical_link")
    );
    let rsp = b.node("robot_state_publisher").unwrap();
    assert_eq!(rsp.params["frame_prefix"], Value::from("ugv1/"));
    let d = b.description.as_ref().unwrap();
    assert_eq!(d.args["frame_prefix"], "ugv1/");
    assert_eq!(d.args["namespace"], "ugv1");
    assert_eq!(d.args["camera"], "true");
    assert!(d.xacro.is_absolute() && d.xacro.ends_with("urdf/ugv_ref.urdf.xacro"));
}

#[test]
fn relative_tf_remaps_robot_state_publisher_and_global_tf_does_not() {
    let b = bundle(&ugv_ref(), &opts("ugv1"));
    assert_eq!(
        b.node("robot_state_publisher").unwrap().remaps,
        [
            ("/tf".to_string(), "/ugv1/tf".to_string()),
            ("/tf_static".to_string(), "/ugv1/tf_static".to_string())
        ]
    );
    let m = edited(|d| d["drive"]["tf"]["ros_topic"] = Value::from("/tf"));
    let o = Options {
        namespace: "ugv1".into(),
        frame_prefix: "ugv1/".into(),
        ..Options::default()
    };
    let b = bundle(&m, &o);
    assert_eq!(b.tf.tf, "/tf");
    assert_eq!(b.tf.tf_static, "/tf_static");
    assert!(b.node("robot_state_publisher").unwrap().remaps.is_empty());
    assert!(b.contract.topic("/tf").is_some());
    assert!(b.contract.topic("/tf_static").is_some());
    assert!(b.contract.topic("/ugv1/robot_description").is_some());
}

#[test]
fn without_drops_optional_sensors() {
    let o = Options {
        without: vec!["camera,lidar".into(), "camera".into()],
        ..Options::default()
    };
    let b = bundle(&ugv_ref(), &o);
    assert_eq!(b.options.without, ["camera", "lidar"]);
    assert!(b
        .contract
        .topics
        .iter()
        .all(|t| !t.topic.starts_with("/camera")));
    assert!(b.contract.topic("/scan").is_none());
    assert!(b.node("scan_relay").is_none());
    assert_eq!(
        b.bridges.len(),
        1,
        "no relabelling instance without the camera"
    );
    let d = b.description.as_ref().unwrap();
    assert_eq!(d.args["camera"], "false");
    assert_eq!(d.args["lidar"], "false");
    let children: Vec<&str> = b
        .contract
        .topic("/tf_static")
        .unwrap()
        .frames
        .iter()
        .map(|f| f.child.as_str())
        .collect();
    assert_eq!(children, ["base_footprint", "imu_link", "gps_link"]);
    assert!(!b.hidden_topics.contains(&"/_bridge/scan".to_string()));
}

#[test]
fn without_refuses_required_and_unknown_sensors() {
    let m = ugv_ref();
    let o = |w: &str| Options {
        without: vec![w.into()],
        ..Options::default()
    };
    let e = generate(&m, &o("imu"), Path::new("/tmp/x")).unwrap_err();
    assert_eq!(e.exit_code(), 2);
    assert!(
        e.to_string()
            .ends_with("sensors[0].optional: sensor imu is not optional, it cannot be left out"),
        "{e}"
    );
    let e = reason(&m, &o("sonar"));
    assert!(
        e.ends_with("sensors: no sensor named sonar (optional sensors: lidar, camera)"),
        "{e}"
    );
}

#[test]
fn no_clock_and_no_robot_state_publisher() {
    let o = Options {
        no_clock: true,
        no_robot_state_publisher: true,
        ..Options::default()
    };
    let b = bundle(&ugv_ref(), &o);
    assert!(b.contract.topic("/clock").is_none());
    assert!(b.bridges[0]
        .entries
        .iter()
        .all(|e| e.ros_topic_name != "/clock"));
    assert!(b.node("robot_state_publisher").is_none());
    assert!(b.description.is_none());
    assert!(b.contract.topic("/tf_static").is_none());
    assert!(b.contract.topic("/robot_description").is_none());
    assert_eq!(
        b.contract.topic("/tf").unwrap().provided_by,
        ["ros_gz_bridge"]
    );
}

#[test]
fn manifest_breaking_a_bridge_rule_is_refused_with_its_path() {
    let m = edited(|d| d["sensors"][0]["outputs"][0]["gz_type"] = Value::from("gz.msgs.Twist"));
    assert!(
        reason(&m, &opts("")).ends_with(
            "sensors[0].outputs[0].gz_type: gz.msgs.Twist cannot be bridged to \
             sensor_msgs/msg/Imu (ros_gz_bridge maps it from gz.msgs.IMU)"
        ),
        "{}",
        reason(&m, &opts(""))
    );
    let m = edited(|d| {
        d["sensors"][0]["outputs"][0]["gz_rate"] = Value::from(400);
        d["sensors"][0]["outputs"][0]["rate_hz"] = Value::from(100);
    });
    assert!(reason(&m, &opts("")).ends_with(
        "sensors[0].outputs[0].gz_rate: 400: the imu_adapter serves this output and does not throttle"
    ));
    let m = edited(|d| d["drive"]["joint_states"]["ros_frame_id"] = Value::from("base_link"));
    assert!(
        reason(&m, &opts("")).ends_with(
            "drive.joint_states.ros_frame_id: base_link: the throttle does not relabel frames"
        ),
        "{}",
        reason(&m, &opts(""))
    );
    let m = edited(|d| d["drive"]["tf"]["ros_frame_id"] = Value::from("map"));
    assert!(reason(&m, &opts(""))
        .contains("drive.tf.ros_frame_id: a TF interface cannot be relabelled"));
    // The error names the manifest file.
    assert!(reason(&m, &opts("")).starts_with(&ugv_ref_path().display().to_string()));
}

#[test]
fn bad_options_are_refused() {
    let m = ugv_ref();
    let e = generate(&m, &opts("ugv 1"), Path::new("/tmp/x")).unwrap_err();
    assert_eq!(e.exit_code(), 2);
    assert!(
        e.to_string()
            .starts_with("--namespace: \"ugv 1\" is not a valid ROS namespace"),
        "{e}"
    );
    assert!(reason(&m, &opts("1ugv")).starts_with("--namespace: \"1ugv\""));
    let o = Options {
        frame_prefix: "/ugv1/".into(),
        ..Options::default()
    };
    assert_eq!(
        reason(&m, &o),
        "--frame-prefix: \"/ugv1/\" must not start with a slash (tf2 frame ids have none)"
    );
}

#[test]
fn a_relabelled_adapter_output_needs_no_extra_instance() {
    let m = edited(|d| d["sensors"][0]["outputs"][0]["ros_frame_id"] = Value::from("base_link"));
    let b = bundle(&m, &opts(""));
    assert_eq!(
        b.node("imu_adapter").unwrap().params["ros_frame_id"],
        Value::from("base_link")
    );
    assert_eq!(
        b.contract.topic("/imu/data").unwrap().frame_id.as_deref(),
        Some("base_link")
    );
    assert_eq!(b.bridges.len(), 2, "only the camera's instance");
}

#[test]
fn every_reference_manifest_generates() {
    for name in ["ugv_ref", "ugv_nav2", "quad_ref", "carrier_ref"] {
        let path = std::path::absolute(repo().join(format!("robots/{name}/robot.yaml"))).unwrap();
        let m = load_manifest(&path).unwrap();
        let b = generate(&m, &opts(name), Path::new("/tmp/x"))
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(b.robot, m.name);
        // Every contract publisher is provided by a node of the bundle.
        for t in &b.contract.topics {
            for p in &t.provided_by {
                assert!(
                    b.node(p).is_some(),
                    "{name}: {} provided by unknown {p}",
                    t.topic
                );
            }
        }
    }
}

#[test]
fn files_are_deterministic_sorted_and_parse_back() {
    let b = bundle(&ugv_ref(), &opts("ugv1"));
    let files = b.files();
    assert_eq!(files, bundle(&ugv_ref(), &opts("ugv1")).files());
    let names: Vec<&str> = files.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names,
        [
            "bridge.launch.yaml",
            "bridge.yaml",
            "contract.yaml",
            "params.yaml",
            "ros_gz_bridge.yaml",
            "ros_gz_bridge_camera_optical_link.yaml",
        ]
    );
    let text = |n: &str| files.iter().find(|(f, _)| f == n).unwrap().1.clone();
    // The contract reads back as it was generated.
    let c = crate::contract::Contract::from_yaml("contract.yaml", &text("contract.yaml")).unwrap();
    assert_eq!(c, b.contract);
    // params.yaml is what the runtime (and rcl) reads: one section per node, fully qualified.
    let secs =
        fieldproof_runtime::args::parse_params_file(&text("params.yaml"), "params.yaml").unwrap();
    let patterns: Vec<&str> = secs.iter().map(|s| s.pattern.as_str()).collect();
    assert_eq!(
        patterns,
        [
            "/ugv1/battery",
            "/ugv1/command_relay",
            "/ugv1/gps_adapter",
            "/ugv1/imu_adapter",
            "/ugv1/joint_states_throttle",
            "/ugv1/odom_relay",
            "/ugv1/robot_state_publisher",
            "/ugv1/ros_gz_bridge",
            "/ugv1/ros_gz_bridge_camera_optical_link",
            "/ugv1/scan_relay",
        ]
    );
    let imu = secs
        .iter()
        .find(|s| s.pattern == "/ugv1/imu_adapter")
        .unwrap();
    let names: Vec<&str> = imu.params.iter().map(|(n, _)| n.as_str()).collect();
    let mut sorted = names.clone();
    sorted.sort();
    assert_eq!(names, sorted, "sorted keys");
    let bridge = secs
        .iter()
        .find(|s| s.pattern == "/ugv1/ros_gz_bridge")
        .unwrap();
    assert!(bridge
        .params
        .iter()
        .any(|(n, _)| n == "qos_overrides./ugv1/tf.publisher.depth"));
    // Without a namespace the node keys are bare names.
    let p0 = bundle(&ugv_ref(), &opts("")).files();
    let params0 = &p0.iter().find(|(f, _)| f == "params.yaml").unwrap().1;
    assert!(params0.contains("\nimu_adapter:\n"), "{params0}");
    // The bridge configuration is ros_gz_bridge's list of entries.
    let cfg: Value = serde_yaml::from_str(&text("ros_gz_bridge.yaml")).unwrap();
    let first = &cfg[0];
    assert_eq!(
        first["ros_topic_name"],
        Value::from("/ugv1/_bridge/cmd_vel")
    );
    assert_eq!(
        first["gz_topic_name"],
        Value::from("/ugv1/model/ugv_ref/cmd_vel")
    );
    assert_eq!(
        first["ros_type_name"],
        Value::from("geometry_msgs/msg/Twist")
    );
    assert_eq!(first["gz_type_name"], Value::from("gz.msgs.Twist"));
    assert_eq!(first["direction"], Value::from("ROS_TO_GZ"));
    assert_eq!(first["subscriber_queue"], Value::from(10));
    // bridge.yaml: absolute paths, injectors with what they serve.
    let by: Value = serde_yaml::from_str(&text("bridge.yaml")).unwrap();
    assert_eq!(by["namespace"], Value::from("/ugv1"));
    assert_eq!(
        by["files"]["params"],
        Value::from("/tmp/fieldproof-test-bundle/params.yaml")
    );
    assert_eq!(by["tf"]["tf_static"], Value::from("/ugv1/tf_static"));
    let inj = by["injectors"]
        .as_sequence()
        .unwrap()
        .iter()
        .find(|i| i["node"] == "gps_adapter")
        .unwrap();
    assert_eq!(inj["fqn"], Value::from("/ugv1/gps_adapter"));
    assert_eq!(inj["topic"], Value::from("/ugv1/gps/fix"));
    assert_eq!(inj["serves"]["sensor"], Value::from("gnss"));
    assert_eq!(inj["serves"]["output"], Value::from("fix"));
    assert!(inj["fault_parameters"]
        .as_sequence()
        .unwrap()
        .contains(&Value::from("deny")));
    let imu_node = by["nodes"]
        .as_sequence()
        .unwrap()
        .iter()
        .find(|n| n["name"] == "imu_adapter")
        .unwrap();
    let cov = imu_node["covariance"]["angular_velocity_covariance"][0]
        .as_f64()
        .unwrap();
    assert!((cov - 0.0002f64.powi(2)).abs() < 1e-18);
    let gps_node = by["nodes"]
        .as_sequence()
        .unwrap()
        .iter()
        .find(|n| n["name"] == "gps_adapter")
        .unwrap();
    assert_eq!(
        gps_node["covariance"]["position_covariance"][8],
        Value::from(1.5 * 1.5)
    );
    assert_eq!(
        gps_node["covariance"]["position_covariance_type"],
        Value::from(2)
    );
}

#[test]
fn canonical_sorts_nested_keys_and_keeps_sequences() {
    let v: Value = serde_yaml::from_str("{b: 1, a: {d: [z, y], c: 2}}").unwrap();
    assert_eq!(
        serde_yaml::to_string(&render::canonical(v)).unwrap(),
        "a:\n  c: 2\n  d:\n  - z\n  - y\nb: 1\n"
    );
}

#[test]
fn hidden_topics_are_reliable_and_the_adapters_face_the_vehicle_with_the_contract_qos() {
    let m = edited(|d| {
        d["sensors"][0]["outputs"][0]["qos"] =
            serde_yaml::from_str("{reliability: best_effort, depth: 3}").unwrap();
        d["drive"]["command"]["qos"] =
            serde_yaml::from_str("{reliability: best_effort, depth: 1}").unwrap();
    });
    let b = bundle(&m, &opts(""));
    let main = &b.node("ros_gz_bridge").unwrap().params;
    assert_eq!(
        main["qos_overrides./_bridge/imu/data.publisher.reliability"],
        Value::from("reliable")
    );
    assert_eq!(
        main["qos_overrides./_bridge/imu/data.publisher.depth"],
        Value::from(3)
    );
    assert_eq!(
        main["qos_overrides./_bridge/cmd_vel.subscription.reliability"],
        Value::from("reliable")
    );
    let imu = &b.node("imu_adapter").unwrap().params;
    assert_eq!(imu["qos_reliability"], Value::from("best_effort"));
    assert_eq!(imu["qos_depth"], Value::from(3));
    assert_eq!(imu["input_qos_reliability"], Value::from("reliable"));
    // The command relay subscribes the contract topic and publishes the hidden one.
    let cmd = &b.node("command_relay").unwrap().params;
    assert_eq!(cmd["input_qos_reliability"], Value::from("best_effort"));
    assert_eq!(cmd["qos_reliability"], Value::from("reliable"));
    assert_eq!(cmd["qos_depth"], Value::from(1));
    let c = b.contract.topic("/cmd_vel").unwrap();
    assert_eq!(c.qos, qos(Reliability::BestEffort, V, 1));
    assert_eq!(
        b.contract.topic("/imu/data").unwrap().qos,
        qos(Reliability::BestEffort, V, 3)
    );
}

#[test]
fn relabelling_instances_need_distinct_names() {
    let m = edited(|d| {
        d["description"]["frames"]
            .as_sequence_mut()
            .unwrap()
            .push(serde_yaml::from_str("{parent: camera_link, child: cam.optical}").unwrap());
        d["description"]["frames"]
            .as_sequence_mut()
            .unwrap()
            .push(serde_yaml::from_str("{parent: camera_link, child: cam_optical}").unwrap());
        d["sensors"][3]["outputs"][0]["ros_frame_id"] = Value::from("cam.optical");
        d["sensors"][3]["outputs"][1]["ros_frame_id"] = Value::from("cam_optical");
    });
    assert!(
        reason(&m, &opts("")).ends_with(
            "sensors[3].outputs[1].ros_frame_id: cam_optical: its relabelling instance would be \
             named ros_gz_bridge_cam_optical, like the one of cam.optical"
        ),
        "{}",
        reason(&m, &opts(""))
    );
}

#[test]
fn launch_file_gates_the_gz_side_and_renders_the_description() {
    let b = bundle(&ugv_ref(), &opts("ugv1"));
    let files = b.files();
    let text = &files
        .iter()
        .find(|(f, _)| f == "bridge.launch.yaml")
        .unwrap()
        .1;
    let doc: Value = serde_yaml::from_str(text).unwrap();
    let launch = doc["launch"].as_sequence().unwrap();
    assert_eq!(launch[0]["arg"]["name"], "gz");
    assert_eq!(launch[0]["arg"]["default"], "true");
    assert_eq!(launch[1]["arg"]["name"], "container");
    assert_eq!(launch[1]["arg"]["default"], "false");
    assert_eq!(launch[2]["arg"]["name"], "use_sim_time");
    assert_eq!(launch[3]["arg"]["name"], "failsafe_params");
    assert_eq!(launch[3]["arg"]["default"], "");
    let group = launch[4]["group"].as_sequence().unwrap();
    assert_eq!(group[0]["push_ros_namespace"]["namespace"], "ugv1");
    // Last, the container that composes the adapters with container:=true; it has no name
    // of its own (each node keeps its name).
    let container = &group.last().unwrap()["node"];
    assert_eq!(
        (container["pkg"].as_str(), container["exec"].as_str()),
        (Some("fieldproof_bridge"), Some("bundle_container"))
    );
    assert_eq!(
        container["args"],
        "--bundle $(dirname) --failsafe=$(var failsafe_params)"
    );
    assert_eq!(container["if"], "$(var container)");
    assert!(container.get("name").is_none());
    let nodes: Vec<&Value> = group[1..group.len() - 1]
        .iter()
        .map(|e| &e["node"])
        .collect();
    assert_eq!(nodes.len(), b.nodes.len());
    for (n, spec) in nodes.iter().zip(&b.nodes) {
        assert_eq!(n["name"], spec.name.as_str());
        let (pkg, exe) = spec.kind.package_and_executable();
        assert_eq!(
            (n["pkg"].as_str(), n["exec"].as_str()),
            (Some(pkg), Some(exe))
        );
        assert_eq!(n["param"][0]["from"], "$(dirname)/params.yaml");
        assert_eq!(n["param"][1]["value"], "$(var use_sim_time)");
        // Only the pieces the simulator stands in for wait for gz:=true.
        assert_eq!(n.get("if").is_some(), spec.kind.gz_only(), "{}", spec.name);
        // The adapters run apart unless the container composes them.
        assert_eq!(
            n.get("unless").and_then(Value::as_str),
            (!spec.kind.gz_only()).then_some("$(var container)"),
            "{}",
            spec.name
        );
    }
    let rsp = nodes
        .iter()
        .find(|n| n["name"] == "robot_state_publisher")
        .unwrap();
    let desc = rsp["param"][2]["value"].as_str().unwrap();
    let xacro = b.description.as_ref().unwrap().xacro.display().to_string();
    assert_eq!(
        desc,
        format!(
            "$(command 'xacro {xacro} camera:=true frame_prefix:= lidar:=true namespace:=ugv1')"
        )
    );
    assert_eq!(rsp["remap"][0]["from"], "/tf");
    assert_eq!(rsp["remap"][0]["to"], "/ugv1/tf");
    // No namespace: no push_ros_namespace.
    let b0 = bundle(&ugv_ref(), &opts(""));
    let f0 = b0.files();
    let t0 = &f0
        .iter()
        .find(|(f, _)| f == "bridge.launch.yaml")
        .unwrap()
        .1;
    assert!(!t0.contains("push_ros_namespace"));
}

#[test]
fn a_global_topic_stays_global_and_its_hidden_side_stays_under_the_namespace() {
    let m = edited(|d| d["sensors"][1]["outputs"][0]["ros_topic"] = Value::from("/gps/fix"));
    let b = bundle(&m, &opts("ugv1"));
    let fix = b.contract.topic("/gps/fix").unwrap();
    assert_eq!(fix.provided_by, ["gps_adapter"]);
    let gps = &b.node("gps_adapter").unwrap().params;
    assert_eq!(gps["input"], Value::from("/ugv1/_bridge/gps/fix"));
    assert_eq!(gps["output"], Value::from("/gps/fix"));
    assert!(b
        .hidden_topics
        .contains(&"/ugv1/_bridge/gps/fix".to_string()));
}

#[test]
fn camera_outputs_asking_for_a_fault_injector_get_the_relay() {
    let m = load_manifest(&std::path::absolute(repo().join("robots/ugv_nav2/robot.yaml")).unwrap())
        .unwrap();
    let b = bundle(&m, &opts("ugv1"));
    for (topic, frame) in [
        ("/ugv1/camera/image", "camera_optical_link"),
        ("/ugv1/camera/camera_info", "camera_optical_link"),
    ] {
        let node = b
            .nodes
            .iter()
            .find(|n| n.params.get("output") == Some(&Value::from(topic)))
            .unwrap_or_else(|| panic!("no injector publishes {topic}"));
        assert_eq!(node.params["ros_frame_id"], Value::from(frame), "{topic}");
        let hidden = topic.replace("/ugv1/", "/ugv1/_bridge/");
        assert_eq!(node.params["input"], Value::from(hidden.as_str()));
        assert!(b.hidden_topics.contains(&hidden), "{hidden}");
        assert!(node.injector.is_some(), "{topic}: a fault injector");
    }
    // The depth image still goes through the relabelling bridge instance, the cloud directly.
    let provider = |topic: &str| {
        b.contract
            .topics
            .iter()
            .find(|t| t.topic == topic)
            .unwrap()
            .provided_by
            .clone()
    };
    assert_eq!(provider("/ugv1/camera/image"), ["camera_relay"]);
    assert_eq!(
        provider("/ugv1/camera/depth/image"),
        ["ros_gz_bridge_camera_optical_link"]
    );
    assert_eq!(provider("/ugv1/camera/points"), ["ros_gz_bridge"]);
}
