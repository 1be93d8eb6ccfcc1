//! `autopilot_stub`: between `mission_supervisor` and the multirotor, with its own command
//! watchdog (a thin shell over [`fieldproof_mission::autopilot::Autopilot`]).
//!
//! - in: `supervisor/setpoint` (geometry_msgs/msg/TwistStamped, ENU m/s), `supervisor/mode`
//!   (std_msgs/msg/String, latched), `odom` (nav_msgs/msg/Odometry: the yaw), `landed`
//!   (std_msgs/msg/Bool, the simulator's);
//! - out: `output` (geometry_msgs/msg/Twist, body frame: linear x, y, z and yaw rate, what
//!   the multirotor takes) at `rate_hz`, and `autopilot/status` (std_msgs/msg/String,
//!   latched) on every change: `following`, `holding: no setpoint for 0.5 s`,
//!   `landing: watchdog`, `landing: supervisor LAND`, `landed`, `complete: holding position`
//!   (`waiting: no setpoint yet` before the first setpoint).
//!
//! All timings are the node's clock (simulation time with `use_sim_time:=true`).
//!
//! ```text
//! autopilot_stub --ros-args -r __ns:=/quad1 -p use_sim_time:=true -p output:=cmd_vel
//! ```

use fieldproof_mission::autopilot::{
    Autopilot, Settings, Status, DEFAULT_LAND_DESCENT_MPS, DEFAULT_LAND_TIMEOUT_S,
    DEFAULT_SETPOINT_TIMEOUT_S,
};
use fieldproof_mission::supervisor::protocol::Mode;
use fieldproof_runtime::logging::Throttle;
use fieldproof_runtime::msgs::geometry_msgs::{Twist, TwistStamped};
use fieldproof_runtime::msgs::nav_msgs::Odometry;
use fieldproof_runtime::msgs::std_msgs;
use fieldproof_runtime::{qos, tracing, NodeBuilder, Param, ParamHandle, MALFORMED_LOG_PERIOD};
use futures::FutureExt;

/// The handles of the stub's parameters.
struct StubParams {
    output: ParamHandle<String>,
    rate_hz: ParamHandle<f64>,
    setpoint_timeout_s: ParamHandle<f64>,
    land_timeout_s: ParamHandle<f64>,
    land_descent_mps: ParamHandle<f64>,
    odom_yaw_offset_rad: ParamHandle<f64>,
}

fn declare(builder: &mut NodeBuilder) -> StubParams {
    StubParams {
        output: builder.declare(
            Param::string("output", "cmd_vel")
                .topic()
                .description("body-frame geometry_msgs/msg/Twist to the multirotor")
                .read_only(),
        ),
        rate_hz: builder.declare(
            Param::double("rate_hz", 20.0)
                .description("output rate, Hz of the node's clock")
                .range(1.0, 200.0)
                .read_only(),
        ),
        setpoint_timeout_s: builder.declare(
            Param::double("setpoint_timeout_s", DEFAULT_SETPOINT_TIMEOUT_S)
                .description("no setpoint for longer than this: hold (zero velocity), s")
                .range(0.05, 60.0)
                .read_only(),
        ),
        land_timeout_s: builder.declare(
            Param::double("land_timeout_s", DEFAULT_LAND_TIMEOUT_S)
                .description("holding for longer than this: land on its own, s")
                .range(0.0, 600.0)
                .read_only(),
        ),
        land_descent_mps: builder.declare(
            Param::double("land_descent_mps", DEFAULT_LAND_DESCENT_MPS)
                .description("descent speed while landing, m/s")
                .range(0.3, 0.7)
                .read_only(),
        ),
        odom_yaw_offset_rad: builder.declare(
            Param::double("odom_yaw_offset_rad", 0.0)
                .description(
                    "yaw of the odom frame in the setpoints' ENU frame (the spawn yaw: the \
                     simulator's odometry starts at the spawn pose), rad",
                )
                .range(-std::f64::consts::PI, std::f64::consts::PI)
                .read_only(),
        ),
    }
}

fn main() -> std::process::ExitCode {
    let mut builder = NodeBuilder::new("autopilot_stub");
    let params = declare(&mut builder);
    fieldproof_runtime::main(
        move || builder,
        |node| async move {
            let setpoint_sub =
                node.subscription::<TwistStamped>("supervisor/setpoint", qos::default())?;
            let mode_sub =
                node.subscription::<std_msgs::String>("supervisor/mode", qos::latched())?;
            let odom_sub = node.subscription::<Odometry>("odom", qos::sensor_data())?;
            let landed_sub = node.subscription::<std_msgs::Bool>("landed", qos::sensor_data())?;
            let output = node.publisher::<Twist>(&params.output.get(), qos::default())?;
            let status_pub =
                node.publisher::<std_msgs::String>("autopilot/status", qos::latched())?;
            let settings = Settings {
                setpoint_timeout_s: params.setpoint_timeout_s.get(),
                land_timeout_s: params.land_timeout_s.get(),
                land_descent_mps: params.land_descent_mps.get(),
            };
            let yaw_offset = params.odom_yaw_offset_rad.get();
            let mut autopilot = Autopilot::new(settings);
            let clock = node.clock();
            let mut timer = node.timer_hz(params.rate_hz.get());
            let mut rejected = Throttle::new(MALFORMED_LOG_PERIOD);
            let mut bad_input = Throttle::new(MALFORMED_LOG_PERIOD);
            let mut published: Option<Status> = None;
            let mut yawless_logged = false;
            tracing::info!(
                "from {} to {} at {} Hz; hold after {} s without a setpoint, land {} s later at {} m/s",
                setpoint_sub.topic(),
                output.topic(),
                params.rate_hz.get(),
                settings.setpoint_timeout_s,
                settings.land_timeout_s,
                settings.land_descent_mps
            );
            loop {
                futures::select! {
                    m = setpoint_sub.recv().fuse() => {
                        let v = m?.twist.linear;
                        autopilot.setpoint([v.x, v.y, v.z], clock.now_nanos());
                    }
                    m = mode_sub.recv().fuse() => {
                        let text = m?.data;
                        match text.parse::<Mode>() {
                            Ok(mode) => autopilot.mode(mode),
                            Err(e) => {
                                if let Some(n) = bad_input.hit() {
                                    tracing::warn!("{}: {text:?} is not a mode ({e}): ignored ({n} since the last report)", mode_sub.topic());
                                }
                            }
                        }
                    }
                    m = odom_sub.recv().fuse() => {
                        let q = m?.pose.pose.orientation;
                        if !autopilot.odometry_yaw(q.yaw() + yaw_offset) {
                            if let Some(n) = bad_input.hit() {
                                tracing::warn!("{}: orientation {q:?} gives no finite yaw: ignored ({n} since the last report)", odom_sub.topic());
                            }
                        }
                    }
                    m = landed_sub.recv().fuse() => {
                        autopilot.landed(m?.data);
                    }
                    t = timer.tick().fuse() => {
                        let command = autopilot.step(t);
                        if autopilot.status() == Status::Following && !autopilot.has_yaw() && !yawless_logged {
                            tracing::warn!(
                                "no odometry on {} yet: only the vertical part of the setpoints passes",
                                odom_sub.topic()
                            );
                            yawless_logged = true;
                        }
                        if let Some((field, value)) = command.rejected {
                            if let Some(n) = rejected.hit() {
                                tracing::warn!(
                                    "{field} = {value} is not finite: zero sent instead \
                                     ({n} such commands since the last report, {} in all)",
                                    rejected.total()
                                );
                            }
                        }
                        if let Err(e) = output.publish(command.twist) {
                            tracing::warn!("{e}");
                        }
                    }
                    _ = node.shutdown_requested().fuse() => break,
                }
                let status = autopilot.status();
                if published != Some(status) {
                    let text = status.text(&settings);
                    match status {
                        Status::Holding | Status::Landing(_) => tracing::warn!("{text}"),
                        _ => tracing::info!("{text}"),
                    }
                    if let Err(e) = status_pub.publish(std_msgs::String { data: text }) {
                        tracing::warn!("{e}");
                    }
                    published = Some(status);
                }
            }
            Ok(())
        },
    )
}
