//! Drive outputs: odometry, the odom -> base_link transform, joint states, the landed
//! state of a multirotor and the pads of a carrier.

use fieldproof_msgs::geometry_msgs::{
    Point, Pose as RosPose, PoseWithCovariance, Transform, TransformStamped, Twist,
    TwistWithCovariance, Vector3,
};
use fieldproof_msgs::nav_msgs::Odometry;
use fieldproof_msgs::sensor_msgs::JointState;
use fieldproof_msgs::std_msgs::{Bool, Header};
use fieldproof_msgs::tf2_msgs::TFMessage;

use super::Output;
use crate::math::{quat_axis_angle, quat_mul, quat_rpy, quat_yaw, ros_time, Pose};
use crate::msg::{Msg, PoseArray};
use crate::vehicles::{carrier, Vehicle};

fn header(out: &Output, t_ns: i64) -> Header {
    Header {
        stamp: ros_time(t_ns),
        frame_id: out.frame_id.clone(),
    }
}

fn diag6(values: [f64; 6]) -> [f64; 36] {
    let mut c = [0.0; 36];
    for (i, v) in values.iter().enumerate() {
        c[i * 7] = *v;
    }
    c
}

/// Odometry in the odom frame (the spawn pose), twist in the body frame. The covariance
/// diagonal is the noise figures squared (at least 1e-6 on the planar terms; 1e-9 on z,
/// roll and pitch, which a ground vehicle does not observe).
pub fn odometry(out: &Output, v: &Vehicle, t_ns: i64) -> Msg {
    let sv = out
        .noise
        .velocity_stddev_mps
        .unwrap_or(0.0)
        .powi(2)
        .max(1e-6);
    let sw = out
        .noise
        .yaw_rate_stddev_radps
        .unwrap_or(0.0)
        .powi(2)
        .max(1e-6);
    Msg::Odometry(Odometry {
        header: header(out, t_ns),
        child_frame_id: out.child_frame_id.clone(),
        pose: PoseWithCovariance {
            pose: ros_pose(&v.odom),
            covariance: diag6([sv, sv, 1e-9, 1e-9, 1e-9, sw]),
        },
        twist: TwistWithCovariance {
            twist: Twist {
                linear: Vector3 {
                    x: v.odom_vel.vx,
                    y: v.odom_vel.vy,
                    z: v.odom_vel.vz,
                },
                angular: Vector3 {
                    x: 0.0,
                    y: 0.0,
                    z: v.odom_vel.wz,
                },
            },
            covariance: diag6([sv, sv, 1e-9, 1e-9, 1e-9, sw]),
        },
    })
}

/// A ROS pose of a planar pose.
pub fn ros_pose(p: &Pose) -> RosPose {
    RosPose {
        position: Point {
            x: p.x,
            y: p.y,
            z: p.z,
        },
        orientation: quat_yaw(p.yaw),
    }
}

/// odom -> base_link; with `wheels`, also base_link -> each wheel link at its joint angle
/// (what robot_state_publisher adds from joint_states).
pub fn tf(out: &Output, v: &Vehicle, t_ns: i64, wheels: bool) -> Msg {
    let mut transforms = vec![TransformStamped {
        header: header(out, t_ns),
        child_frame_id: out.child_frame_id.clone(),
        transform: Transform {
            translation: Vector3 {
                x: v.odom.x,
                y: v.odom.y,
                z: v.odom.z,
            },
            rotation: quat_yaw(v.odom.yaw),
        },
    }];
    if wheels {
        if let Some(d) = &v.manifest.description {
            for j in &d.joints {
                let angle = v
                    .joints
                    .iter()
                    .find(|(n, _, _)| *n == j.name)
                    .map_or(0.0, |(_, p, _)| *p);
                transforms.push(TransformStamped {
                    header: Header {
                        stamp: ros_time(t_ns),
                        frame_id: v.naming.frame(&j.parent),
                    },
                    child_frame_id: v.naming.frame(&j.child),
                    transform: Transform {
                        translation: Vector3 {
                            x: j.xyz[0],
                            y: j.xyz[1],
                            z: j.xyz[2],
                        },
                        rotation: quat_mul(
                            quat_rpy(j.rpy[0], j.rpy[1], j.rpy[2]),
                            quat_axis_angle(j.axis, angle),
                        ),
                    },
                });
            }
        }
    }
    Msg::Tf(TFMessage { transforms })
}

/// Wheel joint positions and velocities (the frame is empty, as Gazebo's).
pub fn joint_states(v: &Vehicle, t_ns: i64) -> Msg {
    Msg::JointState(JointState {
        header: Header {
            stamp: ros_time(t_ns),
            frame_id: String::new(),
        },
        name: v.joints.iter().map(|j| j.0.clone()).collect(),
        position: v.joints.iter().map(|j| j.1).collect(),
        velocity: v.joints.iter().map(|j| j.2).collect(),
        effort: vec![0.0; v.joints.len()],
    })
}

/// True while the multirotor stands on the ground or a deck.
pub fn landed(v: &Vehicle) -> Msg {
    Msg::Bool(Bool { data: v.landed })
}

/// The carrier's pads in the world frame.
pub fn pads(out: &Output, v: &Vehicle, t_ns: i64) -> Msg {
    Msg::PoseArray(PoseArray {
        header: header(out, t_ns),
        poses: carrier::pad_poses(v)
            .iter()
            .map(|(_, p)| ros_pose(p))
            .collect(),
    })
}
