//! Kinematic simulator standing in for Gazebo and ros_gz_bridge: a world of obstacles,
//! vehicles from their manifests, fixed-step physics in simulation time, and, for every
//! vehicle, exactly the topics ros_gz_bridge would publish for its manifest (hidden
//! `_bridge` topics where an adapter sits in between, the contract topic elsewhere), plus
//! `/clock` and the truth topics.
//!
//! Layers: [`world`] (geometry), [`vehicles`] (motion models), [`sensors`] (outputs),
//! [`sim`] (stepping, collisions, the topic table; no DDS), [`pacing`] (real-time factor,
//! pause/step) and `ros` (the only DDS-aware module, used by the binary).
//!
//! Truth topics: [`sim::COLLISIONS_TOPIC`] (`std_msgs/msg/String`, a JSON
//! [`sim::CollisionEvent`] per contact begin/end) and [`sim::truth_pose_topic`]
//! (`geometry_msgs/msg/PoseStamped` in frame `world`, 50 Hz), [`sim::truth_twist_topic`]
//! (`geometry_msgs/msg/TwistStamped`, world axes).

pub mod description;
pub mod math;
pub mod msg;
pub mod pacing;
pub mod ros;
pub mod sensors;
pub mod sim;
pub mod spawn;
pub mod vehicles;
pub mod world;

pub use msg::{Msg, NullSink, Recorder, Sink};
pub use sim::{SimConfig, Simulation, TopicSpec};
pub use spawn::{Spawn, SpawnSpec};

/// Why a simulation could not start.
#[derive(Debug, thiserror::Error)]
pub enum SimError {
    /// A manifest or world is invalid (the message names the file and the field).
    #[error(transparent)]
    Model(#[from] fieldproof_robots::Error),
    /// A spawn entry is invalid.
    #[error("{what}: {message}")]
    Spawn {
        /// Which entry (`--vehicle ...`, `vehicles[1]`).
        what: String,
        /// What is wrong.
        message: String,
    },
    /// A setting is invalid.
    #[error("{0}")]
    Config(String),
}
