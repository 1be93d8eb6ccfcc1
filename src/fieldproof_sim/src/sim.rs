//! Physics stepping: the world, the vehicles, their outputs and the topic table, advanced
//! in fixed steps of simulation time. No DDS here: messages go to a [`Sink`].

use std::collections::BTreeMap;
use std::sync::Arc;

use serde::Serialize;

use fieldproof_msgs::geometry_msgs::{PoseStamped, Twist, TwistStamped, Vector3};
use fieldproof_msgs::rosgraph_msgs::Clock;
use fieldproof_msgs::std_msgs::{self, Header};
use fieldproof_msgs::RosMessage;
use fieldproof_robots::{
    is_hidden, Durability, InterfaceSource, Manifest, Naming, Qos, Reliability, SensorKind,
    VehicleKind, World,
};

use crate::description;
use crate::math::{ros_time, wrap_angle, Pose};
use crate::msg::{Msg, Sink};
use crate::sensors::{
    camera, drive, frame_offset, imu, lidar, navsat, NoiseSource, Output, OutputKind, Schedule,
};
use crate::spawn::Spawn;
use crate::vehicles::{self, multirotor, Vehicle};
use crate::world::SimWorld;

/// The topic collisions are reported on (`std_msgs/msg/String`, one JSON object each).
pub const COLLISIONS_TOPIC: &str = "/fieldproof/truth/collisions";

/// Distance within which a contact, once begun, still counts as one.
pub const CONTACT_MARGIN_M: f64 = 0.01;

/// The truth pose topic of a vehicle (`geometry_msgs/msg/PoseStamped`, frame `world`).
pub fn truth_pose_topic(label: &str) -> String {
    format!("/fieldproof/truth/{label}/pose")
}

/// The truth velocity topic of a vehicle (`geometry_msgs/msg/TwistStamped`, world axes).
pub fn truth_twist_topic(label: &str) -> String {
    format!("/fieldproof/truth/{label}/twist")
}

/// Simulation settings.
#[derive(Debug, Clone, PartialEq)]
pub struct SimConfig {
    /// Physics rate (steps per second of simulation time).
    pub step_hz: f64,
    /// Seed of every noise stream.
    pub seed: u64,
    /// Publish `/clock` (false for a second simulator in one graph).
    pub publish_clock: bool,
    /// `/clock` rate (default: every step, as Gazebo).
    pub clock_rate_hz: Option<f64>,
    /// Rate of the truth pose topics.
    pub truth_rate_hz: f64,
}

impl Default for SimConfig {
    fn default() -> Self {
        Self {
            step_hz: 1000.0,
            seed: 0,
            publish_clock: true,
            clock_rate_hz: None,
            truth_rate_hz: 50.0,
        }
    }
}

/// One topic the simulation publishes.
#[derive(Debug, Clone, PartialEq)]
pub struct TopicSpec {
    /// Fully qualified name.
    pub name: String,
    /// ROS type.
    pub ros_type: &'static str,
    /// QoS.
    pub qos: Qos,
}

/// A drive command subscription (the hidden topic the command_relay publishes).
#[derive(Debug, Clone, PartialEq)]
pub struct CommandTopic {
    /// The vehicle.
    pub vehicle: usize,
    /// Fully qualified name.
    pub name: String,
    /// QoS.
    pub qos: Qos,
}

/// A collision starting or ending (published as JSON on [`COLLISIONS_TOPIC`]).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CollisionEvent {
    /// Simulation time in seconds.
    pub stamp: f64,
    /// `begin` or `end`.
    pub event: &'static str,
    /// The vehicle.
    pub vehicle: String,
    /// What it touched: an obstacle name, another vehicle, or `bounds`.
    pub other: String,
    /// `obstacle`, `vehicle` or `bounds`.
    pub other_kind: &'static str,
    /// Where (world x, y).
    pub position: [f64; 2],
    /// The vehicle's speed just before.
    pub speed_mps: f64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Other {
    Obstacle(usize),
    Vehicle(usize),
    Bounds,
}

/// A running simulation.
pub struct Simulation {
    world_model: World,
    world: SimWorld,
    vehicles: Vec<Vehicle>,
    labels: Vec<String>,
    rsp: Vec<bool>,
    outputs: Vec<Output>,
    topics: Vec<TopicSpec>,
    commands: Vec<CommandTopic>,
    cfg: SimConfig,
    step_ns: i64,
    t_ns: i64,
    clock: Option<(usize, Schedule)>,
    collisions_topic: usize,
    truth: Vec<(usize, usize)>,
    truth_schedule: Schedule,
    latched: Vec<(usize, Msg)>,
    odom_noise: Vec<NoiseSource>,
    contacts: BTreeMap<(usize, Other), CollisionEvent>,
    events: Vec<CollisionEvent>,
    steps: u64,
    started: bool,
}

impl Simulation {
    /// Builds a simulation of `world` with `spawns`.
    pub fn new(world: &World, spawns: &[Spawn], cfg: SimConfig) -> Self {
        let step_ns = (1e9 / cfg.step_hz).round() as i64;
        let mut sim = Self {
            world_model: world.clone(),
            world: SimWorld::new(world),
            vehicles: Vec::new(),
            labels: Vec::new(),
            rsp: Vec::new(),
            outputs: Vec::new(),
            topics: Vec::new(),
            commands: Vec::new(),
            truth: Vec::new(),
            truth_schedule: Schedule::new(cfg.truth_rate_hz, 0),
            clock: None,
            collisions_topic: 0,
            latched: Vec::new(),
            odom_noise: Vec::new(),
            contacts: BTreeMap::new(),
            events: Vec::new(),
            step_ns,
            t_ns: 0,
            steps: 0,
            started: false,
            cfg,
        };
        if sim.cfg.publish_clock {
            let t = sim.topic("/clock", Clock::TYPE_NAME, Qos::default());
            let rate = sim
                .cfg
                .clock_rate_hz
                .unwrap_or(sim.cfg.step_hz)
                .min(sim.cfg.step_hz);
            sim.clock = Some((t, Schedule::new(rate, 0)));
        }
        sim.collisions_topic = sim.topic(
            COLLISIONS_TOPIC,
            std_msgs::String::TYPE_NAME,
            Qos {
                depth: 100,
                ..Qos::default()
            },
        );
        for s in spawns {
            sim.add_vehicle(s);
        }
        sim
    }

    fn topic(&mut self, name: &str, ros_type: &'static str, qos: Qos) -> usize {
        self.topics.push(TopicSpec {
            name: name.to_string(),
            ros_type,
            qos,
        });
        self.topics.len() - 1
    }

    fn add_vehicle(&mut self, s: &Spawn) {
        let id = self.vehicles.len();
        let naming = Naming::new(&s.namespace, &s.frame_prefix);
        let m: Arc<Manifest> = s.manifest.clone();
        let mut pose = s.pose;
        if let Some((ci, pi)) = s.pad {
            // On the pad of a carrier spawned earlier (Spawn::resolve_all checked it).
            let c = &self.vehicles[ci];
            let (_, pad) = vehicles::carrier::pad_poses(c).swap_remove(pi);
            pose = Pose {
                yaw: pose.yaw + c.pose.yaw,
                ..pad
            };
        }
        let mut v = Vehicle::new(id, naming.clone(), m.clone(), pose);
        v.set_payload(s.payload_kg);
        self.labels.push(s.label.clone());
        self.rsp.push(s.robot_state_publisher);
        self.odom_noise.push(NoiseSource::new(
            self.cfg.seed,
            &format!("{}/drive.odometry", s.label),
        ));
        let prefixed = |f: &str| {
            if f == "world" {
                f.to_string()
            } else {
                naming.frame(f)
            }
        };
        for i in m.interfaces() {
            let hidden = is_hidden(&i);
            let name = naming.sim_topic(&i);
            // Hidden topics are read by an adapter: publish them reliable (matches either
            // reliability of the adapter's subscription), the contract QoS on the rest.
            let qos = if hidden {
                Qos {
                    reliability: Reliability::Reliable,
                    durability: Durability::Volatile,
                    depth: i.spec.qos.depth,
                }
            } else {
                i.spec.qos
            };
            let frame = if hidden { i.frame_id } else { i.ros_frame_id };
            let (kind, sensor) = match i.source {
                InterfaceSource::Command => {
                    self.commands.push(CommandTopic {
                        vehicle: id,
                        name,
                        qos,
                    });
                    continue;
                }
                InterfaceSource::Odometry => (OutputKind::Odometry, None),
                InterfaceSource::Tf => (OutputKind::Tf, None),
                InterfaceSource::JointStates => (OutputKind::JointStates, None),
                InterfaceSource::Landed => (OutputKind::Landed, None),
                InterfaceSource::Pads => (OutputKind::Pads, None),
                InterfaceSource::Sensor { sensor, .. } => {
                    let sp = &m.sensors[sensor];
                    let out_name = i.spec.name.as_deref().unwrap_or("");
                    let kind = match (sp.kind, out_name) {
                        (SensorKind::Imu, _) => OutputKind::Imu,
                        (SensorKind::Gnss, _) => OutputKind::NavSat,
                        (SensorKind::Lidar, _) => OutputKind::Scan,
                        (SensorKind::Camera, "image") => OutputKind::Image,
                        (SensorKind::Camera, "camera_info") => OutputKind::CameraInfo,
                        (SensorKind::Camera, "depth_image") => OutputKind::DepthImage,
                        (SensorKind::Camera, _) => OutputKind::Points,
                    };
                    (kind, Some(sensor))
                }
            };
            let rate = i
                .spec
                .gz_rate
                .or(i.rate_hz)
                .unwrap_or(self.cfg.step_hz)
                .min(self.cfg.step_hz);
            let topic = self.topic(&name, static_type(&i.spec.ros_type), qos);
            let mount =
                sensor.map_or_else(Pose::default, |s| frame_offset(&m, &m.sensors[s].frame_id));
            let frame_id = match kind {
                OutputKind::NavSat | OutputKind::JointStates | OutputKind::Landed => String::new(),
                _ => frame.map(prefixed).unwrap_or_default(),
            };
            self.outputs.push(Output {
                vehicle: id,
                kind,
                topic,
                frame_id,
                child_frame_id: i
                    .spec
                    .child_frame_id
                    .as_deref()
                    .map(prefixed)
                    .unwrap_or_default(),
                schedule: Schedule::new(rate, 0),
                sensor,
                noise: i.noise,
                rng: NoiseSource::new(self.cfg.seed, &format!("{}/{}", s.label, i.path)),
                mount,
                rate_hz: rate,
            });
        }
        if s.robot_state_publisher && m.description.is_some() {
            let tf_topic = m.drive.tf.as_ref().map_or("tf", |t| t.ros_topic.as_str());
            let t = self.topic(
                &naming.tf_static_topic(tf_topic),
                "tf2_msgs/msg/TFMessage",
                Qos::latched(),
            );
            self.latched
                .push((t, Msg::Tf(description::static_transforms(&m, &naming, 0))));
            let t = self.topic(
                &naming.robot_description_topic(),
                std_msgs::String::TYPE_NAME,
                Qos::latched(),
            );
            self.latched.push((
                t,
                Msg::String(std_msgs::String {
                    data: description::urdf(&m, &naming),
                }),
            ));
        }
        let pose = self.topic(
            &truth_pose_topic(&s.label),
            PoseStamped::TYPE_NAME,
            Qos::default(),
        );
        let twist = self.topic(
            &truth_twist_topic(&s.label),
            TwistStamped::TYPE_NAME,
            Qos::default(),
        );
        self.truth.push((pose, twist));
        self.vehicles.push(v);
    }

    /// The topics the simulation publishes (index = the `topic` of [`Sink::publish`]).
    pub fn topics(&self) -> &[TopicSpec] {
        &self.topics
    }

    /// The drive command subscriptions.
    pub fn command_topics(&self) -> &[CommandTopic] {
        &self.commands
    }

    /// Sets a vehicle's velocity command (kept until the next one). A command with a NaN or
    /// infinite component is never executed: the vehicle gets zero instead, and the offending
    /// field and value are returned for the caller to report.
    pub fn set_command(&mut self, vehicle: usize, cmd: Twist) -> Option<(&'static str, f64)> {
        let non_finite = cmd.non_finite_field();
        if let Some(v) = self.vehicles.get_mut(vehicle) {
            v.command = if non_finite.is_some() {
                Twist::default()
            } else {
                cmd
            };
        }
        non_finite
    }

    /// Changes a vehicle's payload.
    pub fn set_payload(&mut self, vehicle: usize, kg: f64) {
        if let Some(v) = self.vehicles.get_mut(vehicle) {
            v.set_payload(kg);
        }
    }

    /// The vehicles.
    pub fn vehicles(&self) -> &[Vehicle] {
        &self.vehicles
    }

    /// A vehicle by its label (namespace).
    pub fn vehicle_id(&self, label: &str) -> Option<usize> {
        self.labels.iter().position(|l| l == label)
    }

    /// The world.
    pub fn world(&self) -> &World {
        &self.world_model
    }

    /// Simulation time in nanoseconds.
    pub fn time_ns(&self) -> i64 {
        self.t_ns
    }

    /// The physics step in nanoseconds.
    pub fn step_ns(&self) -> i64 {
        self.step_ns
    }

    /// Every collision event so far.
    pub fn collision_events(&self) -> &[CollisionEvent] {
        &self.events
    }

    /// Steps taken.
    pub fn steps(&self) -> u64 {
        self.steps
    }

    /// Advances `n` steps.
    pub fn run_steps(&mut self, n: u64, sink: &mut dyn Sink) {
        for _ in 0..n {
            self.step(sink);
        }
    }

    /// Publishes the latched topics (tf_static, robot_description) and the outputs at
    /// t = 0 (sensors publish once when created, as Gazebo's do); once, before the first
    /// step (which calls it if nobody did).
    pub fn start(&mut self, sink: &mut dyn Sink) {
        if self.started {
            return;
        }
        self.started = true;
        self.settle_multirotors();
        for (t, m) in self.latched.drain(..) {
            sink.publish(t, m);
        }
        self.publish_due(sink);
    }

    /// One physics step: the latched topics first (at t = 0), then move, detect
    /// collisions, publish what is due, and the clock.
    pub fn step(&mut self, sink: &mut dyn Sink) {
        self.start(sink);
        self.steps += 1;
        self.t_ns += self.step_ns;
        let dt = self.step_ns as f64 * 1e-9;
        let mut touching = Vec::new();
        self.move_ground_vehicles(dt, &mut touching);
        self.move_multirotors(dt, &mut touching);
        self.update_odometry(dt);
        self.update_contacts(touching, sink);
        self.publish_due(sink);
    }

    /// What vehicle `id` at `pose` overlaps, with the signed clearance to each.
    fn touching(&self, id: usize, pose: &Pose) -> Vec<(Other, f64)> {
        let v = &self.vehicles[id];
        let r = v.radius();
        let (z0, z1) = (pose.z, pose.z + v.manifest.body.height_m);
        let mut out = Vec::new();
        for (i, o) in self.world.obstacles.iter().enumerate() {
            if z0 < o.height && z1 > 0.0 {
                let d = o.shape.distance(pose.x, pose.y) - r;
                if d < 0.0 {
                    out.push((Other::Obstacle(i), d));
                }
            }
        }
        for other in &self.vehicles {
            if other.id == id
                || v.riding.is_some_and(|(c, _)| c == other.id)
                || other.riding.is_some_and(|(c, _)| c == id)
            {
                continue;
            }
            let (oz0, oz1) = other.z_span();
            if z0 < oz1 && oz0 < z1 {
                let d = self.clearance(id, pose, Other::Vehicle(other.id));
                if d < 0.0 {
                    out.push((Other::Vehicle(other.id), d));
                }
            }
        }
        if self.world.outside_bounds(pose.x, pose.y, r) {
            out.push((Other::Bounds, self.clearance(id, pose, Other::Bounds)));
        }
        out
    }

    /// Signed clearance of vehicle `id` at `pose` to `other` (negative: overlapping).
    fn clearance(&self, id: usize, pose: &Pose, other: Other) -> f64 {
        let r = self.vehicles[id].radius();
        match other {
            Other::Obstacle(i) => self.world.obstacles[i].shape.distance(pose.x, pose.y) - r,
            Other::Vehicle(j) => {
                let o = &self.vehicles[j];
                ((pose.x - o.pose.x).powi(2) + (pose.y - o.pose.y).powi(2)).sqrt() - r - o.radius()
            }
            Other::Bounds => match self.world.bounds {
                Some(b) => (pose.x - r - b[0])
                    .min(pose.y - r - b[1])
                    .min(b[2] - pose.x - r)
                    .min(b[3] - pose.y - r),
                None => f64::INFINITY,
            },
        }
    }

    /// Moves the UGVs and carriers; a move that would push deeper into something is
    /// refused (the vehicle stops against it, as on a wall), and the contact is recorded.
    fn move_ground_vehicles(&mut self, dt: f64, touching: &mut Vec<(usize, Other, f64)>) {
        for id in 0..self.vehicles.len() {
            if self.vehicles[id].kind() == VehicleKind::Multirotor {
                continue;
            }
            let v = &mut self.vehicles[id];
            let speed = v.vel.vx.abs();
            vehicles::diff_drive::step_velocity(v, dt);
            let old = v.pose;
            let new = vehicles::diff_drive::integrate(&old, v.vel.vx, v.vel.wz, dt);
            let hits = self.touching(id, &new);
            let blocked = hits.iter().any(|(o, d)| self.clearance(id, &old, *o) > *d);
            let v = &mut self.vehicles[id];
            if blocked {
                v.pose = Pose {
                    yaw: new.yaw,
                    ..old
                };
                v.accel = [-v.vel.vx / dt, v.accel[1], 0.0];
                v.vel.vx = 0.0;
            } else {
                v.pose = new;
            }
            vehicles::diff_drive::step_joints(v, dt);
            touching.extend(hits.into_iter().map(|(o, _)| (id, o, speed)));
        }
    }

    /// The surface under (x, y): the ground, or a carrier's deck.
    fn surface_under(&self, x: f64, y: f64) -> multirotor::Surface {
        let mut s = multirotor::Surface {
            height: 0.0,
            carrier: None,
        };
        for c in &self.vehicles {
            let Some(deck) = &c.manifest.drive.carrier else {
                continue;
            };
            let inside = (x - c.pose.x).powi(2) + (y - c.pose.y).powi(2) < c.radius().powi(2);
            let h = c.pose.z + deck.deck_height_m;
            if inside && h > s.height {
                s = multirotor::Surface {
                    height: h,
                    carrier: Some(c.id),
                };
            }
        }
        s
    }

    /// Puts every landed multirotor on the surface under it (the ground or a deck, which it
    /// then rides), so its spawn height need not be exact.
    fn settle_multirotors(&mut self) {
        for id in 0..self.vehicles.len() {
            if self.vehicles[id].kind() != VehicleKind::Multirotor || !self.vehicles[id].landed {
                continue;
            }
            let (x, y) = (self.vehicles[id].pose.x, self.vehicles[id].pose.y);
            let surface = self.surface_under(x, y);
            let carrier_pose = surface.carrier.map(|c| self.vehicles[c].pose);
            let v = &mut self.vehicles[id];
            let lh = v
                .manifest
                .drive
                .multirotor
                .as_ref()
                .map_or(0.0, |m| m.landed_height_m);
            if v.pose.z <= surface.height + lh + 0.5 {
                v.pose.z = surface.height + lh;
                v.spawn.z = v.pose.z;
                v.riding = surface
                    .carrier
                    .zip(carrier_pose)
                    .map(|(c, cp)| (c, v.pose.relative_to(&cp)));
            }
        }
    }

    fn move_multirotors(&mut self, dt: f64, touching: &mut Vec<(usize, Other, f64)>) {
        for id in 0..self.vehicles.len() {
            if self.vehicles[id].kind() != VehicleKind::Multirotor {
                continue;
            }
            if let Some((c, _)) = self.vehicles[id].riding {
                let cp = self.vehicles[c].pose;
                let cv = vehicles::carrier::world_velocity(&self.vehicles[c]);
                let v = &mut self.vehicles[id];
                if v.landed && v.command.linear.z <= multirotor::TAKEOFF_CLIMB_MPS {
                    multirotor::ride(v, &cp, cv, dt);
                    continue;
                }
            }
            let (x, y) = (self.vehicles[id].pose.x, self.vehicles[id].pose.y);
            let surface = self.surface_under(x, y);
            let carrier_pose = surface.carrier.map(|c| self.vehicles[c].pose);
            let v = &mut self.vehicles[id];
            let speed = (v.vel.vx.powi(2) + v.vel.vy.powi(2) + v.vel.vz.powi(2)).sqrt();
            let old = v.pose;
            multirotor::step(v, dt, surface, carrier_pose);
            let new = v.pose;
            let hits = self.touching(id, &new);
            let blocked = hits.iter().any(|(o, d)| self.clearance(id, &old, *o) > *d);
            if blocked {
                let v = &mut self.vehicles[id];
                v.pose = Pose {
                    yaw: new.yaw,
                    ..old
                };
                v.vel.vx = 0.0;
                v.vel.vy = 0.0;
                v.vel.vz = 0.0;
            }
            touching.extend(hits.into_iter().map(|(o, _)| (id, o, speed)));
        }
    }

    /// Odometry integrates the velocities it measures (with the manifest's noise) from the
    /// spawn pose; a multirotor's odometry is its estimator's, the truth in the odom frame.
    fn update_odometry(&mut self, dt: f64) {
        for (v, noise) in self.vehicles.iter_mut().zip(&mut self.odom_noise) {
            if v.kind() == VehicleKind::Multirotor {
                v.odom = v.pose.relative_to(&v.spawn);
                v.odom_vel = v.vel;
                continue;
            }
            let n = v.manifest.drive.odometry.noise.unwrap_or_default();
            let moving = v.vel.vx != 0.0 || v.vel.wz != 0.0;
            let (ev, ew) = if moving {
                (
                    noise.gauss(n.velocity_stddev_mps),
                    noise.gauss(n.yaw_rate_stddev_radps),
                )
            } else {
                (0.0, 0.0)
            };
            v.odom_vel = vehicles::Velocity {
                vx: v.vel.vx + ev,
                vy: 0.0,
                vz: 0.0,
                wz: v.vel.wz + ew,
            };
            v.odom = vehicles::diff_drive::integrate(&v.odom, v.odom_vel.vx, v.odom_vel.wz, dt);
        }
    }

    fn other_name(&self, o: Other) -> (String, &'static str) {
        match o {
            Other::Obstacle(i) => (self.world.obstacles[i].name.clone(), "obstacle"),
            Other::Vehicle(j) => (self.labels[j].clone(), "vehicle"),
            Other::Bounds => ("bounds".into(), "bounds"),
        }
    }

    /// Turns this step's contacts into begin/end events (a vehicle pair counts once).
    fn update_contacts(&mut self, touching: Vec<(usize, Other, f64)>, sink: &mut dyn Sink) {
        let stamp = self.t_ns as f64 * 1e-9;
        let mut now: BTreeMap<(usize, Other), f64> = BTreeMap::new();
        for (id, o, speed) in touching {
            let key = match o {
                Other::Vehicle(j) if j < id => (j, Other::Vehicle(id)),
                _ => (id, o),
            };
            let e = now.entry(key).or_insert(0.0);
            *e = e.max(speed);
        }
        // A contact lasts while the vehicle stays within CONTACT_MARGIN_M of the other
        // (a vehicle pressed against a wall alternates between touching and not).
        for key in self.contacts.keys() {
            if !now.contains_key(key) {
                let pose = self.vehicles[key.0].pose;
                if self.clearance(key.0, &pose, key.1) < CONTACT_MARGIN_M {
                    now.insert(*key, 0.0);
                }
            }
        }
        let mut events = Vec::new();
        for (key, speed) in &now {
            if !self.contacts.contains_key(key) {
                let (other, other_kind) = self.other_name(key.1);
                let v = &self.vehicles[key.0];
                let e = CollisionEvent {
                    stamp,
                    event: "begin",
                    vehicle: self.labels[key.0].clone(),
                    other,
                    other_kind,
                    position: [v.pose.x, v.pose.y],
                    speed_mps: *speed,
                };
                self.contacts.insert(*key, e.clone());
                events.push(e);
            }
        }
        let ended: Vec<(usize, Other)> = self
            .contacts
            .keys()
            .filter(|k| !now.contains_key(k))
            .copied()
            .collect();
        for key in ended {
            if let Some(mut e) = self.contacts.remove(&key) {
                let v = &self.vehicles[key.0];
                e.stamp = stamp;
                e.event = "end";
                e.position = [v.pose.x, v.pose.y];
                e.speed_mps = 0.0;
                events.push(e);
            }
        }
        for e in events {
            let data = serde_json::to_string(&e).unwrap_or_default();
            sink.publish(
                self.collisions_topic,
                Msg::String(std_msgs::String { data }),
            );
            self.events.push(e);
        }
    }

    /// Publishes every output due now, the truth poses and the clock.
    fn publish_due(&mut self, sink: &mut dyn Sink) {
        let t = self.t_ns;
        let vehicles = &self.vehicles;
        let world = &self.world;
        let origin = self.world_model.origin;
        let mut frames: BTreeMap<(usize, usize), camera::Frame> = BTreeMap::new();
        for out in self.outputs.iter_mut() {
            if !out.schedule.due(t) {
                continue;
            }
            let v = &vehicles[out.vehicle];
            let m = &v.manifest;
            let msg = match out.kind {
                OutputKind::Odometry => drive::odometry(out, v, t),
                OutputKind::Tf => drive::tf(out, v, t, self.rsp[out.vehicle]),
                OutputKind::JointStates => drive::joint_states(v, t),
                OutputKind::Landed => drive::landed(v),
                OutputKind::Pads => drive::pads(out, v, t),
                OutputKind::Imu => imu::sample(out, v, t),
                OutputKind::NavSat => navsat::sample(out, v, &origin, t),
                OutputKind::Scan => {
                    let Some(spec) = out.sensor.and_then(|s| m.sensors[s].lidar.as_ref()) else {
                        continue;
                    };
                    lidar::scan(out, spec, world, vehicles, t)
                }
                OutputKind::CameraInfo => {
                    let Some(spec) = out.sensor.and_then(|s| m.sensors[s].camera.as_ref()) else {
                        continue;
                    };
                    Msg::CameraInfo(camera::info(spec, t, &out.frame_id))
                }
                OutputKind::Image | OutputKind::DepthImage | OutputKind::Points => {
                    let Some((si, spec)) = out
                        .sensor
                        .and_then(|s| m.sensors[s].camera.as_ref().map(|c| (s, c)))
                    else {
                        continue;
                    };
                    if !sink.wants(out.topic) {
                        continue;
                    }
                    let frame = frames
                        .entry((out.vehicle, si))
                        .or_insert_with(|| camera::render(spec, &out.mount, world, vehicles, v.id));
                    match out.kind {
                        OutputKind::Image => {
                            Msg::Image(frame.image(&spec.encoding, t, &out.frame_id))
                        }
                        OutputKind::DepthImage => Msg::Image(frame.depth(t, &out.frame_id)),
                        _ => Msg::PointCloud2(frame.points(t, &out.frame_id)),
                    }
                }
            };
            sink.publish(out.topic, msg);
        }
        if self.truth_schedule.due(t) {
            for (v, (pose, twist)) in self.vehicles.iter().zip(&self.truth) {
                let header = Header {
                    stamp: ros_time(t),
                    frame_id: "world".into(),
                };
                sink.publish(
                    *pose,
                    Msg::PoseStamped(PoseStamped {
                        header: header.clone(),
                        pose: drive::ros_pose(&v.pose),
                    }),
                );
                let (sn, cs) = v.pose.yaw.sin_cos();
                sink.publish(
                    *twist,
                    Msg::TwistStamped(TwistStamped {
                        header,
                        twist: Twist {
                            linear: Vector3 {
                                x: cs * v.vel.vx - sn * v.vel.vy,
                                y: sn * v.vel.vx + cs * v.vel.vy,
                                z: v.vel.vz,
                            },
                            angular: Vector3 {
                                x: 0.0,
                                y: 0.0,
                                z: v.vel.wz,
                            },
                        },
                    }),
                );
            }
        }
        if let Some((topic, schedule)) = &mut self.clock {
            if schedule.due(t) {
                sink.publish(*topic, Msg::Clock(Clock { clock: ros_time(t) }));
            }
        }
    }

    /// The truth pose of a vehicle, with its heading wrapped.
    pub fn truth_pose(&self, vehicle: usize) -> Option<Pose> {
        self.vehicles.get(vehicle).map(|v| Pose {
            yaw: wrap_angle(v.pose.yaw),
            ..v.pose
        })
    }
}

/// The `'static` name of a ROS type the simulator publishes.
fn static_type(name: &str) -> &'static str {
    fieldproof_msgs::KNOWN_TYPES
        .iter()
        .copied()
        .find(|t| *t == name)
        .unwrap_or(if name == crate::msg::PoseArray::TYPE_NAME {
            crate::msg::PoseArray::TYPE_NAME
        } else {
            "unknown"
        })
}
