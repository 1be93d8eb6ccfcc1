//! The DDS side (the only module that is): one publisher per topic of the simulation's
//! table, the drive command subscriptions, the step requests, and the run loop that paces
//! physics against the wall clock.

use std::time::{Duration, Instant};

use fieldproof_msgs::geometry_msgs::{PoseStamped, Twist, TwistStamped};
use fieldproof_msgs::nav_msgs::Odometry;
use fieldproof_msgs::rosgraph_msgs::Clock;
use fieldproof_msgs::sensor_msgs::{
    CameraInfo, Image, Imu, JointState, LaserScan, NavSatFix, PointCloud2,
};
use fieldproof_msgs::std_msgs;
use fieldproof_msgs::tf2_msgs::TFMessage;
use fieldproof_msgs::RosMessage;
use fieldproof_robots::{Durability, Qos, Reliability};
use fieldproof_runtime::qos::{self, QosSpec};
use fieldproof_runtime::{
    tracing, BoxError, Node, NodeBuilder, NodeError, Param, ParamHandle, Publisher, Subscription,
};

use crate::msg::{Msg, PoseArray, Sink};
use crate::pacing::Pacer;
use crate::sim::{Simulation, TopicSpec};

/// The handles of the simulator's parameters ([`node_builder`]).
#[derive(Clone)]
pub struct SimParams {
    /// `world`: the world file.
    pub world: ParamHandle<String>,
    /// `vehicles`: a YAML spawn list.
    pub vehicles: ParamHandle<String>,
    /// `vehicle_specs`: vehicles in the `--vehicle` form.
    pub vehicle_specs: ParamHandle<Vec<String>>,
    /// `seed`: the seed of every noise stream.
    pub seed: ParamHandle<i64>,
    /// `step_hz`: the physics rate.
    pub step_hz: ParamHandle<f64>,
    /// `real_time_factor`: the simulation speed (follows `ros2 param set`).
    pub real_time_factor: ParamHandle<f64>,
    /// `paused`: stop stepping (follows `ros2 param set`).
    pub paused: ParamHandle<bool>,
    /// `publish_clock`: publish `/clock`.
    pub publish_clock: ParamHandle<bool>,
    /// `clock_rate_hz`: the `/clock` rate (0: every step).
    pub clock_rate_hz: ParamHandle<f64>,
    /// `truth_rate_hz`: the truth pose rate.
    pub truth_rate_hz: ParamHandle<f64>,
    /// `duration_s`: stop after this much simulation time (0: never).
    pub duration_s: ParamHandle<f64>,
}

/// The simulator node with its parameters declared (`world`, `vehicles`, `vehicle_specs`, `seed`,
/// `step_hz`, `real_time_factor`, `paused`, `publish_clock`, `clock_rate_hz`,
/// `truth_rate_hz`, `duration_s`), and their handles.
pub fn node_builder() -> (NodeBuilder, SimParams) {
    let mut b = NodeBuilder::new("fieldproof_sim");
    let params = SimParams {
        world: b.declare(
            Param::string("world", "")
                .description("world file (worlds/<name>.yaml)")
                .read_only(),
        ),
        vehicles: b.declare(
            Param::string("vehicles", "")
                .description("YAML spawn list: [{ns, manifest, spawn, ...}]")
                .read_only(),
        ),
        vehicle_specs: b.declare(
            Param::strings("vehicle_specs", &[])
                .description("vehicles in the --vehicle form: ns=ugv1,manifest=...,spawn=...")
                .read_only(),
        ),
        seed: b.declare(
            Param::int("seed", 0)
                .description("seed of every noise stream")
                .read_only(),
        ),
        step_hz: b.declare(
            Param::double("step_hz", 1000.0)
                .description("physics rate")
                .range(10.0, 10000.0)
                .read_only(),
        ),
        real_time_factor: b.declare(
            Param::double("real_time_factor", 1.0)
                .description("simulation speed: 1 real time, >1 faster, 0 as fast as possible")
                .range(0.0, 1000.0),
        ),
        paused: b.declare(
            Param::bool("paused", false).description("stop stepping (step with ~/step, seconds)"),
        ),
        publish_clock: b.declare(
            Param::bool("publish_clock", true)
                .description("publish /clock")
                .read_only(),
        ),
        clock_rate_hz: b.declare(
            Param::double("clock_rate_hz", 0.0)
                .description("/clock rate, 0: every step")
                .range(0.0, 10000.0)
                .read_only(),
        ),
        truth_rate_hz: b.declare(
            Param::double("truth_rate_hz", 50.0)
                .description("truth pose rate")
                .range(1.0, 1000.0)
                .read_only(),
        ),
        duration_s: b.declare(
            Param::double("duration_s", 0.0)
                .description("stop after this much simulation time, 0: never")
                .range(0.0, 1e9)
                .read_only(),
        ),
    };
    (b, params)
}

/// The manifest's QoS as a runtime profile.
pub fn qos_spec(q: &Qos) -> QosSpec {
    let mut s = qos::default().keep_last(q.depth as usize);
    if q.reliability == Reliability::BestEffort {
        s = s.best_effort();
    }
    if q.durability == Durability::TransientLocal {
        s = s.transient_local();
    }
    s
}

enum AnyPub {
    Clock(Publisher<Clock>),
    Odometry(Publisher<Odometry>),
    Tf(Publisher<TFMessage>),
    JointState(Publisher<JointState>),
    Imu(Publisher<Imu>),
    NavSatFix(Publisher<NavSatFix>),
    LaserScan(Publisher<LaserScan>),
    Image(Publisher<Image>),
    CameraInfo(Publisher<CameraInfo>),
    PointCloud2(Publisher<PointCloud2>),
    Bool(Publisher<std_msgs::Bool>),
    PoseArray(Publisher<PoseArray>),
    PoseStamped(Publisher<PoseStamped>),
    TwistStamped(Publisher<TwistStamped>),
    String(Publisher<std_msgs::String>),
}

impl AnyPub {
    fn new(node: &Node, t: &TopicSpec) -> Result<Self, NodeError> {
        let q = qos_spec(&t.qos);
        let n = t.name.as_str();
        Ok(match t.ros_type {
            Clock::TYPE_NAME => AnyPub::Clock(node.publisher(n, q)?),
            Odometry::TYPE_NAME => AnyPub::Odometry(node.publisher(n, q)?),
            TFMessage::TYPE_NAME => AnyPub::Tf(node.publisher(n, q)?),
            JointState::TYPE_NAME => AnyPub::JointState(node.publisher(n, q)?),
            Imu::TYPE_NAME => AnyPub::Imu(node.publisher(n, q)?),
            NavSatFix::TYPE_NAME => AnyPub::NavSatFix(node.publisher(n, q)?),
            LaserScan::TYPE_NAME => AnyPub::LaserScan(node.publisher(n, q)?),
            Image::TYPE_NAME => AnyPub::Image(node.publisher(n, q)?),
            CameraInfo::TYPE_NAME => AnyPub::CameraInfo(node.publisher(n, q)?),
            PointCloud2::TYPE_NAME => AnyPub::PointCloud2(node.publisher(n, q)?),
            std_msgs::Bool::TYPE_NAME => AnyPub::Bool(node.publisher(n, q)?),
            PoseArray::TYPE_NAME => AnyPub::PoseArray(node.publisher(n, q)?),
            PoseStamped::TYPE_NAME => AnyPub::PoseStamped(node.publisher(n, q)?),
            TwistStamped::TYPE_NAME => AnyPub::TwistStamped(node.publisher(n, q)?),
            _ => AnyPub::String(node.publisher(n, q)?),
        })
    }

    fn publish(&self, msg: Msg) -> Result<(), NodeError> {
        match (self, msg) {
            (AnyPub::Clock(p), Msg::Clock(m)) => p.publish(m),
            (AnyPub::Odometry(p), Msg::Odometry(m)) => p.publish(m),
            (AnyPub::Tf(p), Msg::Tf(m)) => p.publish(m),
            (AnyPub::JointState(p), Msg::JointState(m)) => p.publish(m),
            (AnyPub::Imu(p), Msg::Imu(m)) => p.publish(m),
            (AnyPub::NavSatFix(p), Msg::NavSatFix(m)) => p.publish(m),
            (AnyPub::LaserScan(p), Msg::LaserScan(m)) => p.publish(m),
            (AnyPub::Image(p), Msg::Image(m)) => p.publish(m),
            (AnyPub::CameraInfo(p), Msg::CameraInfo(m)) => p.publish(m),
            (AnyPub::PointCloud2(p), Msg::PointCloud2(m)) => p.publish(m),
            (AnyPub::Bool(p), Msg::Bool(m)) => p.publish(m),
            (AnyPub::PoseArray(p), Msg::PoseArray(m)) => p.publish(m),
            (AnyPub::PoseStamped(p), Msg::PoseStamped(m)) => p.publish(m),
            (AnyPub::TwistStamped(p), Msg::TwistStamped(m)) => p.publish(m),
            (AnyPub::String(p), Msg::String(m)) => p.publish(m),
            (_, m) => {
                tracing::error!("internal: a {} for the wrong publisher", m.ros_type());
                Ok(())
            }
        }
    }

    fn subscription_count(&self) -> usize {
        match self {
            AnyPub::Image(p) => p.subscription_count(),
            AnyPub::PointCloud2(p) => p.subscription_count(),
            _ => 1,
        }
    }
}

/// Publishes the simulation's messages on DDS.
pub struct DdsSink {
    pubs: Vec<AnyPub>,
    /// Topics with a subscriber, refreshed now and then (cameras render only for them).
    wanted: Vec<bool>,
    /// Write errors so far (logged once per topic).
    errors: Vec<bool>,
    /// Messages published.
    pub published: u64,
}

impl DdsSink {
    /// Creates a publisher for every topic of `sim`.
    pub fn new(node: &Node, sim: &Simulation) -> Result<Self, NodeError> {
        let pubs = sim
            .topics()
            .iter()
            .map(|t| AnyPub::new(node, t))
            .collect::<Result<Vec<_>, _>>()?;
        let n = pubs.len();
        let mut s = Self {
            pubs,
            wanted: vec![true; n],
            errors: vec![false; n],
            published: 0,
        };
        s.refresh();
        Ok(s)
    }

    /// Re-reads which expensive topics have subscribers.
    pub fn refresh(&mut self) {
        for (w, p) in self.wanted.iter_mut().zip(&self.pubs) {
            *w = p.subscription_count() > 0;
        }
    }
}

impl Sink for DdsSink {
    fn publish(&mut self, topic: usize, msg: Msg) {
        if let Err(e) = self.pubs[topic].publish(msg) {
            if !self.errors[topic] {
                tracing::warn!("{e}");
                self.errors[topic] = true;
            }
        } else {
            self.published += 1;
        }
    }

    fn wants(&self, topic: usize) -> bool {
        self.wanted[topic]
    }
}

/// Settings of the run loop.
#[derive(Debug, Clone)]
pub struct RunOptions {
    /// Stop after this much simulation time (None: until shut down).
    pub duration_ns: Option<i64>,
    /// The `real_time_factor` parameter ([`SimParams::real_time_factor`]).
    pub real_time_factor: ParamHandle<f64>,
    /// The `paused` parameter ([`SimParams::paused`]).
    pub paused: ParamHandle<bool>,
}

/// Runs the simulation on DDS: commands in, messages out, paced by `real_time_factor`,
/// `paused` and step requests on `~/step` (`std_msgs/msg/Float64`, seconds of simulation
/// time to advance while paused).
pub async fn run(node: Node, mut sim: Simulation, opts: RunOptions) -> Result<(), BoxError> {
    let mut sink = DdsSink::new(&node, &sim)?;
    let commands: Vec<(usize, Subscription<Twist>)> = sim
        .command_topics()
        .iter()
        .map(|c| {
            Ok((
                c.vehicle,
                node.subscription::<Twist>(&c.name, qos_spec(&c.qos))?,
            ))
        })
        .collect::<Result<_, NodeError>>()?;
    let steps = node.subscription::<std_msgs::Float64>("~/step", qos::default())?;
    let (rtf, paused) = (opts.real_time_factor.clone(), opts.paused.clone());
    let mut pacer = Pacer::new(rtf.get(), Instant::now(), sim.time_ns());
    pacer.set_paused(paused.get(), Instant::now(), sim.time_ns());
    tracing::info!(
        "simulating {} vehicle(s) in world {} at {} Hz, real_time_factor {}{}; {} topics",
        sim.vehicles().len(),
        sim.world().name,
        1e9 / sim.step_ns() as f64,
        rtf.get(),
        if paused.get() { " (paused)" } else { "" },
        sim.topics().len()
    );
    let step_ns = sim.step_ns();
    sim.start(&mut sink);
    let mut last_refresh = Instant::now();
    let mut last_report = Instant::now();
    let mut report_sim = sim.time_ns();
    let mut non_finite =
        fieldproof_runtime::logging::Throttle::new(fieldproof_runtime::MALFORMED_LOG_PERIOD);
    loop {
        if let Some(d) = opts.duration_ns {
            if sim.time_ns() >= d {
                tracing::info!(
                    "simulated {:.3} s ({} messages published), stopping",
                    sim.time_ns() as f64 * 1e-9,
                    sink.published
                );
                return Ok(());
            }
        }
        for (v, sub) in &commands {
            while let Some(cmd) = sub.try_recv()? {
                if let Some((field, value)) = sim.set_command(*v, cmd) {
                    if let Some(since) = non_finite.hit() {
                        tracing::warn!(
                            "{}: command {field} = {value} is not finite: the vehicle stops \
                             instead ({since} since the last report, {} in all)",
                            sub.topic(),
                            non_finite.total()
                        );
                    }
                }
            }
        }
        while let Some(req) = steps.try_recv()? {
            let n = (req.data * 1e9 / step_ns as f64).round().max(0.0) as u64;
            pacer.request_steps(n.max(1));
        }
        let now = Instant::now();
        if rtf.get() != pacer.real_time_factor() {
            pacer.set_real_time_factor(rtf.get(), now, sim.time_ns());
        }
        if paused.get() != pacer.paused() {
            pacer.set_paused(paused.get(), now, sim.time_ns());
        }
        if now.duration_since(last_refresh) > Duration::from_millis(500) {
            sink.refresh();
            last_refresh = now;
        }
        if now.duration_since(last_report) > Duration::from_secs(10) {
            let wall = now.duration_since(last_report).as_secs_f64();
            tracing::debug!(
                "real time factor {:.2}, {} messages",
                (sim.time_ns() - report_sim) as f64 * 1e-9 / wall,
                sink.published
            );
            last_report = now;
            report_sim = sim.time_ns();
        }
        let mut max = 20;
        if let Some(d) = opts.duration_ns {
            max = max.min(((d - sim.time_ns()) / step_ns).max(0) as u64);
        }
        let (n, wait) = pacer.allowance(now, sim.time_ns(), step_ns, max);
        if n > 0 {
            sim.run_steps(n, &mut sink);
            // Let the runtime's tasks (parameter services, graph) run between batches.
            smol::future::yield_now().await;
        } else {
            async_io::Timer::after(wait.min(Duration::from_millis(20))).await;
        }
    }
}
