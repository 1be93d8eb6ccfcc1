//! The repository's manifests and worlds load, and the reference UGV yields the reference
//! bridge contract through the shared bridge rules.

use std::path::{Path, PathBuf};

use fieldproof_testkit::repo_root;

use fieldproof_robots::{
    adapter_for, is_hidden, Adapter, Durability, Error, Manifest, Naming, Reliability, Role,
    VehicleKind, World,
};

fn ugv_ref() -> Manifest {
    Manifest::load(repo_root().join("robots/ugv_ref/robot.yaml")).unwrap()
}

#[test]
fn every_manifest_and_world_loads() {
    for m in ["ugv_ref", "ugv_nav2", "quad_ref", "carrier_ref"] {
        let path = repo_root().join(format!("robots/{m}/robot.yaml"));
        let man = Manifest::load(&path).unwrap_or_else(|e| panic!("{e}"));
        assert!(man.xacro_path().unwrap().is_file(), "{m}");
    }
    for w in ["depot", "open_field"] {
        let world = World::load(repo_root().join(format!("worlds/{w}.yaml")))
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(!world.frames.is_empty());
    }
    let depot = World::load(repo_root().join("worlds/depot.yaml")).unwrap();
    assert!(depot.frame("spawn_dock").is_some());
    assert_eq!(depot.origin.latitude_deg, 48.1351);
}

/// (topic, type, qos depth, transient local, provider) for the default namespace.
fn contract(m: &Manifest, naming: &Naming) -> Vec<(String, String, u32, Option<Adapter>, String)> {
    m.interfaces()
        .iter()
        .map(|i| {
            (
                naming.topic(&i.spec.ros_topic),
                i.spec.ros_type.clone(),
                i.spec.qos.depth,
                adapter_for(i),
                naming.sim_topic(i),
            )
        })
        .collect()
}

#[test]
fn reference_ugv_matches_the_contract_table() {
    let m = ugv_ref();
    let c = contract(&m, &Naming::default());
    let expect: &[(&str, &str, u32, Option<Adapter>, &str)] = &[
        (
            "/cmd_vel",
            "geometry_msgs/msg/Twist",
            10,
            Some(Adapter::CommandRelay),
            "/_bridge/cmd_vel",
        ),
        (
            "/odom",
            "nav_msgs/msg/Odometry",
            10,
            Some(Adapter::Relay),
            "/_bridge/odom",
        ),
        (
            "/joint_states",
            "sensor_msgs/msg/JointState",
            10,
            Some(Adapter::Throttle),
            "/_bridge/joint_states",
        ),
        ("/tf", "tf2_msgs/msg/TFMessage", 100, None, "/tf"),
        (
            "/imu/data",
            "sensor_msgs/msg/Imu",
            10,
            Some(Adapter::ImuAdapter),
            "/_bridge/imu/data",
        ),
        (
            "/gps/fix",
            "sensor_msgs/msg/NavSatFix",
            10,
            Some(Adapter::NavsatAdapter),
            "/_bridge/gps/fix",
        ),
        (
            "/scan",
            "sensor_msgs/msg/LaserScan",
            10,
            Some(Adapter::Relay),
            "/_bridge/scan",
        ),
        (
            "/camera/image",
            "sensor_msgs/msg/Image",
            5,
            None,
            "/camera/image",
        ),
        (
            "/camera/camera_info",
            "sensor_msgs/msg/CameraInfo",
            5,
            None,
            "/camera/camera_info",
        ),
        (
            "/camera/depth/image",
            "sensor_msgs/msg/Image",
            5,
            None,
            "/camera/depth/image",
        ),
        (
            "/camera/points",
            "sensor_msgs/msg/PointCloud2",
            5,
            None,
            "/camera/points",
        ),
    ];
    assert_eq!(c.len(), expect.len());
    for (got, want) in c.iter().zip(expect) {
        assert_eq!(
            (got.0.as_str(), got.1.as_str(), got.2, got.3, got.4.as_str()),
            *want
        );
    }
    for i in m.interfaces() {
        assert_eq!(i.spec.qos.reliability, Reliability::Reliable);
        assert_eq!(i.spec.qos.durability, Durability::Volatile);
        let expect_frame = match i.spec.ros_topic.as_str() {
            "odom" | "tf" => Some("odom"),
            "scan" => Some("lidar_link"),
            "imu/data" => Some("imu_link"),
            "gps/fix" => Some("gps_link"),
            "camera/points" => Some("camera_link"),
            "camera/image" | "camera/camera_info" | "camera/depth/image" => {
                Some("camera_optical_link")
            }
            _ => None,
        };
        assert_eq!(i.ros_frame_id, expect_frame, "{}", i.spec.ros_topic);
        let rate = match i.spec.ros_topic.as_str() {
            "odom" | "tf" | "joint_states" => Some(50.0),
            "scan" => Some(10.0),
            "imu/data" => Some(100.0),
            "gps/fix" => Some(5.0),
            "cmd_vel" => None,
            _ => Some(15.0),
        };
        assert_eq!(i.rate_hz, rate, "{}", i.spec.ros_topic);
        assert_eq!(i.role == Role::Subscriber, i.spec.ros_topic == "cmd_vel");
    }
    let relabelled: Vec<_> = m
        .interfaces()
        .into_iter()
        .filter(|i| i.relabelled())
        .map(|i| i.spec.ros_topic.clone())
        .collect();
    assert_eq!(
        relabelled,
        ["camera/image", "camera/camera_info", "camera/depth/image"]
    );
    let d = m.description.as_ref().unwrap();
    let children: Vec<&str> = d.frames.iter().map(|f| f.child.as_str()).collect();
    for f in [
        "base_footprint",
        "lidar_link",
        "imu_link",
        "camera_link",
        "camera_optical_link",
        "gps_link",
    ] {
        assert!(children.contains(&f), "{f}");
    }
    let b = m.power.as_ref().unwrap().battery.as_ref().unwrap();
    assert_eq!((b.full_voltage_v, b.empty_voltage_v), (25.2, 19.8));
    assert_eq!(m.optional_sensors(), ["lidar", "camera"]);
}

#[test]
fn namespace_prefixes_everything_but_global_topics() {
    let m = ugv_ref();
    let n = Naming::new("ugv1", "");
    let c = contract(&m, &n);
    assert!(c.iter().all(|t| t.0.starts_with("/ugv1/")));
    assert!(c.iter().any(|t| t.4 == "/ugv1/_bridge/imu/data"));
    assert_eq!(
        n.tf_static_topic(&m.drive.tf.as_ref().unwrap().ros_topic),
        "/ugv1/tf_static"
    );
    let hidden = m.interfaces().iter().filter(|i| is_hidden(i)).count();
    assert_eq!(hidden, 6);
}

#[test]
fn extends_deep_merges_the_base() {
    let m = Manifest::load(repo_root().join("robots/ugv_nav2/robot.yaml")).unwrap();
    assert_eq!(m.name, "ugv_nav2");
    assert_eq!(m.kind, VehicleKind::Ugv);
    assert_eq!(m.chain.len(), 2);
    assert_eq!(m.body.payload_kg, 5.0);
    assert_eq!(m.body.mass_kg, 25.0);
    let gnss = m.sensor("gnss").unwrap();
    assert_eq!(gnss.noise.horizontal_stddev_m, Some(1.2));
    assert_eq!(gnss.noise.vertical_stddev_m, Some(1.5));
    assert_eq!(gnss.outputs[0].ros_topic, "gps/fix");
    assert_eq!(m.sensors.len(), 4);
    let link = m.runtime.as_ref().unwrap().link.as_ref().unwrap();
    let hb = link.heartbeat.as_ref().unwrap();
    assert_eq!((hb.topic.as_str(), hb.rate_hz), ("gcs/heartbeat", 2.0));
    assert_eq!(hb.qos.reliability, Reliability::BestEffort);
    assert_eq!(link.timeout_s, 2.0);
    // The description's xacro resolves relative to the file that declares it.
    let base = m.description.as_ref().unwrap();
    assert!(
        base.xacro
            .ends_with("robots/ugv_ref/urdf/ugv_ref.urdf.xacro"),
        "{}",
        base.xacro
    );
    assert!(m.xacro_path().unwrap().is_file());
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(&p, text).unwrap();
    p
}

#[test]
fn relative_paths_resolve_from_the_working_directory() {
    // Tests run in the crate directory.
    let m = Manifest::load("../../robots/ugv_nav2/robot.yaml").unwrap();
    assert_eq!(
        m.xacro_path().unwrap(),
        PathBuf::from("../../robots/ugv_ref/urdf/ugv_ref.urdf.xacro")
    );
}

#[test]
fn extends_cycles_are_detected() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "a/robot.yaml",
        "extends: ../b/robot.yaml\nname: a\n",
    );
    write(
        dir.path(),
        "b/robot.yaml",
        "extends: ../a/robot.yaml\nname: b\n",
    );
    let err = Manifest::load(dir.path().join("a/robot.yaml")).unwrap_err();
    assert!(matches!(err, Error::ExtendsCycle { .. }), "{err}");
    assert!(err.to_string().contains("extends cycle"), "{err}");
}

#[test]
fn errors_name_the_file_and_the_field() {
    let dir = tempfile::tempdir().unwrap();
    let base = std::fs::read_to_string(repo_root().join("robots/ugv_ref/robot.yaml")).unwrap();
    let bad = base.replace(
        "    rate_hz: 50\n    noise: { velocity",
        "    noise: { velocity",
    );
    let p = write(dir.path(), "bad/robot.yaml", &bad);
    let err = Manifest::load(&p).unwrap_err();
    assert_eq!(err.reason(), "drive.odometry: missing rate_hz");
    assert!(
        err.to_string().starts_with(&p.display().to_string()),
        "{err}"
    );
    // A child that breaks an inherited sensor: the error names the merged path.
    let child = "extends: ../../../robots/ugv_ref/robot.yaml\n\
sensors:\n  - name: camera\n    outputs:\n      - name: image\n        qos: { reliability: sometimes }\n";
    std::fs::create_dir_all(dir.path().join("x/y")).unwrap();
    let p = write(dir.path(), "x/y/robot.yaml", child);
    // The relative extends path must reach the repository from the temp dir: use an absolute one.
    let abs = format!(
        "extends: {}\n{}",
        repo_root().join("robots/ugv_ref/robot.yaml").display(),
        &child[child.find('\n').unwrap() + 1..]
    );
    std::fs::write(&p, abs).unwrap();
    let err = Manifest::load(&p).unwrap_err();
    assert_eq!(
        err.reason(),
        "sensors[3].outputs[0].qos.reliability: \"sometimes\" is not one of reliable, best_effort"
    );
    let missing = Manifest::load(dir.path().join("nope.yaml")).unwrap_err();
    assert!(matches!(missing, Error::Io { .. }));
    let p = write(dir.path(), "syntax.yaml", "name: [unclosed\n");
    assert!(matches!(
        Manifest::load(&p).unwrap_err(),
        Error::Syntax { .. }
    ));
}

#[test]
fn missing_xacro_is_reported() {
    let dir = tempfile::tempdir().unwrap();
    let base = std::fs::read_to_string(repo_root().join("robots/ugv_ref/robot.yaml")).unwrap();
    let p = write(dir.path(), "robot.yaml", &base);
    let err = Manifest::load(&p).unwrap_err();
    assert!(err.reason().starts_with("description.xacro: "), "{err}");
    assert!(
        err.reason().ends_with("urdf/ugv_ref.urdf.xacro not found"),
        "{err}"
    );
}

#[test]
fn world_errors_name_the_field() {
    let ok = std::fs::read_to_string(repo_root().join("worlds/depot.yaml")).unwrap();
    let cases = [
        (
            "radius_m: 0.25, height_m: 4.0 }",
            "height_m: 4.0 }",
            "obstacles[0]: missing radius_m",
        ),
        (
            "shape: circle, center: [5.0, 0.0]",
            "shape: cylinder, center: [5.0, 0.0]",
            "obstacles[0].shape: \"cylinder\" is not one of circle, box",
        ),
        (
            "latitude_deg: 48.1351",
            "latitude_deg: 98.0",
            "origin.latitude_deg: 98 is not in (-90, 90)",
        ),
        (
            "spawn_dock: { xyz",
            "spawn_dock: { xzy",
            "frames.spawn_dock.xzy: unknown field (did you mean xyz?)",
        ),
        (
            "name: pillar_b",
            "name: pillar_a",
            "obstacles[1].name: duplicate obstacle name pillar_a",
        ),
        (
            "radius_m: 0.25, height_m: 4.0 }",
            "radius_m: 0.25, height_m: 4.0, color_rgb: [300, 0, 0] }",
            "obstacles[0].color_rgb[0]: invalid value: integer `300`, expected u8",
        ),
    ];
    for (from, to, want) in cases {
        assert!(ok.contains(from), "{from}");
        let text = ok.replacen(from, to, 1);
        let err = World::from_yaml("depot.yaml", &text).unwrap_err();
        assert_eq!(err.reason(), want);
    }
}

#[test]
fn description_tree_errors_name_the_frame() {
    let path = repo_root().join("robots/ugv_ref/robot.yaml");
    let base = std::fs::read_to_string(&path).unwrap();
    let cases = [
        (
            "{ parent: base_link, child: lidar_link",
            "{ parent: base_lnk, child: lidar_link",
            "description.frames[3].parent: base_lnk is neither the base frame nor a frame listed before",
        ),
        (
            "    - { parent: base_link, child: gps_link, xyz: [-0.15, 0.0, 0.30] }\n",
            "",
            "sensors[1].frame_id: frame gps_link is not in description.frames",
        ),
        (
            "child: camera_optical_link, rpy",
            "child: camera_optics, rpy",
            "sensors[3].outputs[0].ros_frame_id: frame camera_optical_link is not in description.frames",
        ),
        (
            "left_joints: [front_left_wheel_joint, rear_left_wheel_joint]",
            "left_joints: [front_left_wheel_joint, rear_left_wheel]",
            "drive.diff_drive.left_joints[1]: joint rear_left_wheel is not in description.joints",
        ),
        (
            "xyz: [0.0, 0.0, 0.05] }",
            "xyz: [0.0, 0.0, 0.05], sensor: imu }",
            "description.frames[1].sensor: sensor imu is not optional (only optional sensors' frames are tagged)",
        ),
    ];
    for (from, to, want) in cases {
        assert!(base.contains(from), "{from}");
        let err = Manifest::from_yaml(&path, &base.replacen(from, to, 1)).unwrap_err();
        assert_eq!(err.reason(), want);
    }
}

#[test]
fn deeply_nested_or_huge_yaml_is_refused_before_parsing() {
    let dir = tempfile::tempdir().unwrap();
    // 200 KB of `[[[[…`: libyaml needs about a minute to refuse this.
    let deep = format!("name: {}\n", "[".repeat(200_000));
    let path = write(dir.path(), "deep.yaml", &deep);
    for (what, result) in [
        ("load", Manifest::load(&path)),
        ("from_yaml", Manifest::from_yaml("deep.yaml", &deep)),
    ] {
        let started = std::time::Instant::now();
        let e = result.unwrap_err().to_string();
        assert!(
            e.contains("nested deeper than the limit of 64 levels"),
            "{what}: {e}"
        );
        assert!(started.elapsed().as_secs() < 2, "{what}");
    }
    let started = std::time::Instant::now();
    let e = World::load(&path).unwrap_err().to_string();
    assert!(e.contains("nested deeper than"), "{e}");
    assert!(started.elapsed().as_secs() < 2);
    // A file larger than the limit is not read whole.
    let huge = format!("name: x\nsummary: \"{}\"\n", "a".repeat(2 << 20));
    let path = write(dir.path(), "huge.yaml", &huge);
    let e = Manifest::load(&path).unwrap_err().to_string();
    assert!(e.contains("more than the limit of 1048576 bytes"), "{e}");
}
