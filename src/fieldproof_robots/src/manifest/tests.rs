use super::*;
use serde_yaml::Value;

const MINIMAL: &str = r#"
name: mini
kind: ugv
body: { mass_kg: 10, max_payload_kg: 5, radius_m: 0.3 }
drive:
  type: diff_drive
  command: { ros_topic: cmd_vel, ros_type: geometry_msgs/msg/Twist, gz_topic: /m/cmd_vel, gz_type: gz.msgs.Twist }
  odometry: { ros_topic: odom, ros_type: nav_msgs/msg/Odometry, gz_topic: /m/odom, gz_type: gz.msgs.Odometry, frame_id: odom, child_frame_id: base_link, rate_hz: 50 }
  joint_states: { ros_topic: joint_states, ros_type: sensor_msgs/msg/JointState, gz_topic: /m/js, gz_type: gz.msgs.Model, rate_hz: 50, gz_rate: 1000 }
  limits: { max_linear_mps: 1, max_angular_radps: 1, max_linear_accel_mps2: 1, max_linear_decel_mps2: 1, max_angular_accel_radps2: 1 }
  diff_drive: { wheel_separation_m: 0.5, wheel_radius_m: 0.1, left_joints: [l], right_joints: [r] }
sensors:
  - name: imu
    type: imu
    frame_id: imu_link
    rate_hz: 100
    noise: { gyro_stddev_radps: 0.01 }
    outputs:
      - { name: data, ros_topic: imu/data, ros_type: sensor_msgs/msg/Imu, gz_topic: /imu, gz_type: gz.msgs.IMU }
  - name: lidar
    type: lidar
    optional: true
    frame_id: lidar_link
    rate_hz: 10
    lidar: { samples: 90, fov_deg: 360, range_min_m: 0.1, range_max_m: 10 }
    outputs:
      - { name: scan, ros_topic: scan, ros_type: sensor_msgs/msg/LaserScan, gz_topic: /scan, gz_type: gz.msgs.LaserScan }
  - name: camera
    type: camera
    optional: true
    frame_id: camera_link
    rate_hz: 15
    camera: { width: 64, height: 48, hfov_deg: 60 }
    outputs:
      - { name: image, ros_topic: camera/image, ros_type: sensor_msgs/msg/Image, gz_topic: /cam, gz_type: gz.msgs.Image, ros_frame_id: camera_optical_link, qos: { depth: 5 } }
"#;

/// The minimal manifest with `path` (a.b[1].c) set to `value` (YAML), or removed if None.
fn edited(path: &str, value: Option<&str>) -> String {
    let mut doc: Value = serde_yaml::from_str(MINIMAL).unwrap();
    let mut parts: Vec<&str> = path.split('.').collect();
    let last = parts.pop().unwrap();
    let mut cur = &mut doc;
    for p in parts {
        cur = step(cur, p);
    }
    match value {
        Some(v) => {
            let v: Value = serde_yaml::from_str(v).unwrap();
            match last.split_once('[') {
                Some((k, i)) => {
                    let i: usize = i.trim_end_matches(']').parse().unwrap();
                    cur[k][i] = v;
                }
                None => {
                    cur.as_mapping_mut().unwrap().insert(last.into(), v);
                }
            }
        }
        None => {
            cur.as_mapping_mut().unwrap().remove(last);
        }
    }
    serde_yaml::to_string(&doc).unwrap()
}

fn step<'a>(v: &'a mut Value, part: &str) -> &'a mut Value {
    match part.split_once('[') {
        Some((k, i)) => &mut v[k][i.trim_end_matches(']').parse::<usize>().unwrap()],
        None => &mut v[part],
    }
}

fn reason(text: &str) -> String {
    Manifest::from_yaml("mini.yaml", text).unwrap_err().reason()
}

#[test]
fn minimal_manifest_is_valid() {
    let m = Manifest::from_yaml("mini.yaml", MINIMAL).unwrap();
    assert_eq!(m.name, "mini");
    assert_eq!(m.interfaces().len(), 6);
    assert_eq!(m.drive.command.qos, Qos::default());
}

#[test]
fn fault_injector_overrides_the_bridge_rule() {
    use crate::bridge::{adapter_for, Adapter};
    let camera = |m: &Manifest| {
        m.interfaces()
            .into_iter()
            .find(|i| i.spec.ros_type == "sensor_msgs/msg/Image")
            .map(|i| adapter_for(&i))
            .unwrap()
    };
    let scan = |m: &Manifest| {
        m.interfaces()
            .into_iter()
            .find(|i| i.spec.ros_type == "sensor_msgs/msg/LaserScan")
            .map(|i| adapter_for(&i))
            .unwrap()
    };
    let plain = Manifest::from_yaml("mini.yaml", MINIMAL).unwrap();
    assert_eq!(
        camera(&plain),
        None,
        "cameras are bridged directly by default"
    );
    assert_eq!(scan(&plain), Some(Adapter::Relay));
    let injected = edited("sensors[2].outputs[0].fault_injector", Some("true"));
    let injected = Manifest::from_yaml("mini.yaml", &injected).unwrap();
    assert_eq!(camera(&injected), Some(Adapter::Relay));
    let direct = edited("sensors[1].outputs[0].fault_injector", Some("false"));
    let direct = Manifest::from_yaml("mini.yaml", &direct).unwrap();
    assert_eq!(scan(&direct), None);
    assert_eq!(
            reason(&edited("sensors[0].outputs[0].fault_injector", Some("false"))),
            "sensors[0].outputs[0].fault_injector: sensor_msgs/msg/Imu is not served by the relay: its adapter (or none) follows from the type"
        );
}

#[test]
fn missing_field_names_its_path() {
    assert_eq!(
        reason(&edited("drive.odometry.rate_hz", None)),
        "drive.odometry: missing rate_hz"
    );
    assert_eq!(
        reason(&edited("drive.odometry.ros_type", None)),
        "drive.odometry: missing ros_type"
    );
    assert_eq!(
        reason(&edited("body.mass_kg", None)),
        "body: missing mass_kg"
    );
}

#[test]
fn bad_enum_value_lists_the_choices() {
    let r = reason(&edited(
        "sensors[2].outputs[0].qos",
        Some("{reliability: sometimes}"),
    ));
    assert_eq!(
        r,
        "sensors[2].outputs[0].qos.reliability: \"sometimes\" is not one of reliable, best_effort"
    );
    let r = reason(&edited("sensors[0].type", Some("sonar")));
    assert_eq!(
        r,
        "sensors[0].type: \"sonar\" is not one of imu, gnss, lidar, camera"
    );
}

#[test]
fn misspelt_key_suggests_the_right_one() {
    let text = MINIMAL.replace("rate_hz: 50, gz_rate", "rate_hz: 50, gz_rat");
    assert_eq!(
        reason(&text),
        "drive.joint_states.gz_rat: unknown field (did you mean gz_rate?)"
    );
    let text = MINIMAL.replace("name: mini", "name: mini\nsensorz: []");
    assert!(reason(&text).starts_with("sensorz: unknown field (did you mean sensors?)"));
}

#[test]
fn wrong_type_is_reported_at_the_field() {
    let r = reason(&edited("drive.odometry.rate_hz", Some("fast")));
    assert!(r.starts_with("drive.odometry.rate_hz: invalid type"), "{r}");
}

#[test]
fn out_of_range_numbers_are_refused() {
    assert_eq!(
        reason(&edited("drive.odometry.rate_hz", Some("0"))),
        "drive.odometry.rate_hz: 0 must be a positive number"
    );
    assert_eq!(
        reason(&edited("body.payload_kg", Some("8"))),
        "body.payload_kg: 8 is above max_payload_kg (5)"
    );
    assert_eq!(
            reason(&edited("drive.joint_states.gz_rate", Some("10"))),
            "drive.joint_states.gz_rate: 10 is below rate_hz (50): the throttle can only slow a topic down"
        );
    assert_eq!(
        reason(&edited("sensors[1].outputs[0].qos", Some("{depth: 0}"))),
        "sensors[1].outputs[0].qos.depth: must be at least 1"
    );
}

#[test]
fn wrong_ros_types_and_names_are_refused() {
    assert_eq!(
            reason(&edited("drive.odometry.ros_type", Some("nav_msgs/msg/Path"))),
            "drive.odometry.ros_type: drive.odometry carries nav_msgs/msg/Odometry, not nav_msgs/msg/Path"
        );
    assert_eq!(
            reason(&edited("sensors[1].outputs[0].ros_type", Some("sensor_msgs/msg/PointCloud2"))),
            "sensors[1].outputs[0].ros_type: the scan output of a lidar sensor carries sensor_msgs/msg/LaserScan, not sensor_msgs/msg/PointCloud2"
        );
    assert_eq!(
            reason(&edited("sensors[2].outputs[0].name", Some("picture"))),
            "sensors[2].outputs[0].name: \"picture\" is not one of image, camera_info, depth_image, points (outputs of a camera sensor)"
        );
    assert_eq!(
        reason(&edited("drive.odometry.ros_topic", Some("odom//x"))),
        "drive.odometry.ros_topic: \"odom//x\" is not a valid ROS topic name"
    );
    assert_eq!(
        reason(&edited("sensors[0].outputs[0].ros_type", Some("Imu"))),
        "sensors[0].outputs[0].ros_type: \"Imu\" is not a ROS type name (package/msg/Type)"
    );
    assert_eq!(
            reason(&edited("sensors[1].outputs[0].ros_topic", Some("imu/data"))),
            "sensors[1].outputs[0].ros_topic: imu/data is already the ros_topic of sensors[0].outputs[0]"
        );
}

#[test]
fn kind_specific_blocks_are_checked() {
    assert_eq!(
        reason(&edited("sensors[1].lidar", None)),
        "sensors[1]: missing lidar"
    );
    assert_eq!(
        reason(&edited(
            "sensors[0].lidar",
            Some("{samples: 1, fov_deg: 1, range_min_m: 0, range_max_m: 1}")
        )),
        "sensors[0].lidar: a sensor of type imu has no lidar block"
    );
    assert_eq!(
        reason(&edited("drive.diff_drive", None)),
        "drive: missing diff_drive"
    );
    assert_eq!(
        reason(&edited("drive.type", Some("multirotor"))),
        "drive.type: a ugv vehicle needs drive type diff_drive"
    );
    assert_eq!(
            reason(&edited("sensors[0].noise", Some("{horizontal_stddev_m: 1}"))),
            "sensors[0].noise.horizontal_stddev_m: not a noise figure of a sensor of type imu (those are gyro_stddev_radps, accel_stddev_mps2, orientation_stddev_rad)"
        );
    assert_eq!(
        reason(&edited("sensors[1].lidar.range_max_m", Some("0.05"))),
        "sensors[1].lidar.range_max_m: 0.05 must be above range_min_m (0.1)"
    );
}

#[test]
fn hostile_names_and_sizes_are_refused_naming_the_bound() {
    let long_name = "a".repeat(MAX_NAME_LEN + 1);
    let table: &[(&str, &str, &str)] = &[
            (
                "name",
                "\"../evil; rm -rf /\"",
                "name: \"../evil; rm -rf /\" is not a ROS name token (letters, digits and _, not starting with a digit)",
            ),
            (
                "name",
                "a/b",
                "name: \"a/b\" is not a ROS name token (letters, digits and _, not starting with a digit)",
            ),
            (
                "name",
                "2fast",
                "name: \"2fast\" is not a ROS name token (letters, digits and _, not starting with a digit)",
            ),
            ("name", "\"\"", "name: must not be empty"),
            ("name", &long_name, "name: is 65 characters long, more than 64"),
            (
                "sensors[2].camera.width",
                "100000",
                "sensors[2].camera.width: 100000 is not in [1, 4096] pixels",
            ),
            (
                "sensors[2].camera.height",
                "100000",
                "sensors[2].camera.height: 100000 is not in [1, 4096] pixels",
            ),
            (
                "sensors[2].camera.width",
                "0",
                "sensors[2].camera.width: 0 is not in [1, 4096] pixels",
            ),
            (
                "sensors[1].lidar.samples",
                "1000000",
                "sensors[1].lidar.samples: 1000000 is not in [1, 16384]",
            ),
            (
                "sensors[0].rate_hz",
                "1e6",
                "sensors[0].rate_hz: 1000000 Hz is above the limit of 1000 Hz",
            ),
            (
                "drive.odometry.rate_hz",
                "5000",
                "drive.odometry.rate_hz: 5000 Hz is above the limit of 1000 Hz",
            ),
            (
                "drive.joint_states.gz_rate",
                "1e9",
                "drive.joint_states.gz_rate: 1000000000 Hz is above the limit of 1000 Hz",
            ),
            (
                "sensors[0].outputs[0].rate_hz",
                "2000",
                "sensors[0].outputs[0].rate_hz: 2000 Hz is above the limit of 1000 Hz",
            ),
            (
                "sensors[1].outputs[0].qos",
                "{depth: 4000000000}",
                "sensors[1].outputs[0].qos.depth: 4000000000 is above the limit of 100000",
            ),
        ];
    for (path, value, expected) in table {
        assert_eq!(
            &reason(&edited(path, Some(value))),
            expected,
            "{path}: {value}"
        );
    }
    // The limits themselves are accepted.
    for (path, value) in [
        ("sensors[2].camera.width", "4096"),
        ("sensors[2].camera.height", "4096"),
        ("sensors[0].rate_hz", "1000"),
        ("name", "_Ugv_2"),
    ] {
        Manifest::from_yaml("mini.yaml", &edited(path, Some(value)))
            .unwrap_or_else(|e| panic!("{path}: {value}: {e}"));
    }
    let text = format!(
        "{MINIMAL}runtime:\n  link:\n    heartbeat: {{ topic: gcs/heartbeat, rate_hz: 1e5 }}\n"
    );
    assert_eq!(
        reason(&text),
        "runtime.link.heartbeat.rate_hz: 100000 Hz is above the limit of 1000 Hz"
    );
}

#[test]
fn duplicate_names_are_refused() {
    assert_eq!(
        reason(&edited("sensors[1].name", Some("imu"))),
        "sensors[1].name: duplicate sensor name imu"
    );
}

#[test]
fn runtime_link_is_checked() {
    let text = format!(
            "{MINIMAL}runtime:\n  link:\n    heartbeat: {{ topic: gcs/heartbeat, rate_hz: 2 }}\n    timeout_s: 0.1\n"
        );
    assert_eq!(
        reason(&text),
        "runtime.link.timeout_s: 0.1 s is shorter than one heartbeat period (0.5 s)"
    );
    let text = format!("{MINIMAL}runtime:\n  link:\n    loss_action: panic\n");
    assert!(
        reason(&text).starts_with("runtime.link.loss_action: \"panic\" is not one of stop, hold")
    );
    let text = format!("{MINIMAL}runtime:\n  link:\n    loss_action: land\n");
    assert_eq!(
            reason(&text),
            "runtime.link.loss_action: \"land\" is for a multirotor; a ugv stops or holds (stop, hold, continue)"
        );
}

#[test]
fn sensor_defaults_reach_the_outputs() {
    let m = Manifest::from_yaml("mini.yaml", MINIMAL).unwrap();
    let ifs = m.interfaces();
    let imu = ifs.iter().find(|i| i.spec.ros_topic == "imu/data").unwrap();
    assert_eq!(imu.frame_id, Some("imu_link"));
    assert_eq!(imu.rate_hz, Some(100.0));
    assert_eq!(imu.noise.gyro_stddev_radps, Some(0.01));
    let image = ifs
        .iter()
        .find(|i| i.spec.ros_topic == "camera/image")
        .unwrap();
    assert!(image.relabelled());
    assert_eq!(image.ros_frame_id, Some("camera_optical_link"));
    assert!(image.optional);
    assert_eq!(image.spec.qos.depth, 5);
}

#[test]
fn without_drops_optional_sensors_only() {
    let m = Manifest::from_yaml("mini.yaml", MINIMAL).unwrap();
    let w = m.without(&["lidar"]).unwrap();
    assert!(w.sensor("lidar").is_none());
    assert!(m
        .without(&["imu"])
        .unwrap_err()
        .reason()
        .contains("is not optional"));
    assert!(m
        .without(&["sonar"])
        .unwrap_err()
        .reason()
        .contains("no sensor named sonar"));
}
