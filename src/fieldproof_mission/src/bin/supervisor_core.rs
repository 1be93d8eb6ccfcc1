//! `supervisor_core`: the mission computer's health policy as a process of its own.
//!
//! Reads one 15-field frame per line on stdin and writes one 6-field command per frame on
//! stdout, flushed at once (the protocol is in `fieldproof_mission::supervisor::protocol`).
//! Exit codes: 0 at the end of the input; 2 for a rejected frame (malformed, out of range,
//! replayed: the reason on stderr, no command for it) or an unusable threshold; 1 when stdin
//! or stdout fails. No DDS: `mission_supervisor` runs it as its child.
//!
//! ```text
//! supervisor_core --help
//! supervisor_core --vision-required false < frames.in > frames.out
//! ```

use std::io::{self, Write};
use std::process::ExitCode;

use clap::Parser;
use fieldproof_mission::supervisor::{serve, Policy, PolicyConfig};

/// The defaults every flag shows, from `PolicyConfig::default()`.
fn defaults() -> PolicyConfig {
    PolicyConfig::default()
}

/// The health policy of the mission computer behind its line protocol: frames
/// (`sequence now imu_stamp gnss_stamp vision_stamp link_stamp battery pos_e pos_n pos_u
/// target_e target_n target_u inference_ms complete`) on stdin, commands (`sequence mode reason
/// velocity_e velocity_n velocity_u`) on stdout. Times are simulation seconds. Exits 2 on a
/// rejected frame (reason on stderr, no command for it), 0 at the end of the input.
#[derive(Debug, Parser)]
#[command(name = "supervisor_core", version)]
struct Args {
    /// Continuous health in INIT before ACTIVE, s (the spec's 1 s)
    #[arg(long, default_value_t = defaults().init_dwell_s)]
    init_dwell_s: f64,
    /// Continuous health that ends a fault episode; HOLD lands once the episode is this old, s (the spec's 2 s)
    #[arg(long, default_value_t = defaults().episode_s)]
    episode_s: f64,
    /// Continuous health in HOLD before ACTIVE again, s, below --episode-s (lab choice)
    #[arg(long, default_value_t = defaults().recovery_dwell_s)]
    recovery_dwell_s: f64,
    /// Oldest acceptable IMU stamp, s (lab choice: 5 simulator steps)
    #[arg(long, default_value_t = defaults().imu_max_age_s)]
    imu_max_age_s: f64,
    /// Oldest acceptable GNSS fix, s (lab choice: 5 periods at 10 Hz)
    #[arg(long, default_value_t = defaults().gnss_max_age_s)]
    gnss_max_age_s: f64,
    /// Oldest acceptable camera capture, s, if vision is required (lab choice: 5 frames at 10 Hz)
    #[arg(long, default_value_t = defaults().vision_max_age_s)]
    vision_max_age_s: f64,
    /// Oldest acceptable ground-station heartbeat, s (lab choice: 5 periods at 5 Hz)
    #[arg(long, default_value_t = defaults().link_max_age_s)]
    link_max_age_s: f64,
    /// Longest acceptable reported inference, ms, if vision is required (lab choice; the spec injects 120 ms)
    #[arg(long, default_value_t = defaults().inference_max_ms)]
    inference_max_ms: f64,
    /// Battery fraction below which the vehicle lands, in [0, 1) (lab choice)
    #[arg(long, default_value_t = defaults().battery_floor)]
    battery_floor: f64,
    /// Horizontal radius about the world's origin beyond which the vehicle lands, m (lab choice)
    #[arg(long, default_value_t = defaults().geofence_radius_m)]
    geofence_radius_m: f64,
    /// Altitude (ENU up) above which the vehicle lands, m (lab choice, below quad_ref's 60 m)
    #[arg(long, default_value_t = defaults().ceiling_m)]
    ceiling_m: f64,
    /// Bound on the ACTIVE setpoint's speed, m/s (lab choice)
    #[arg(long, default_value_t = defaults().max_speed_mps)]
    max_speed_mps: f64,
    /// ACTIVE speed per metre of distance to the target, 1/s (lab choice)
    #[arg(long, default_value_t = defaults().approach_gain_per_s)]
    approach_gain_per_s: f64,
    /// Distance to the target inside which ACTIVE commands zero velocity, m (lab choice)
    #[arg(long, default_value_t = defaults().goal_acceptance_m)]
    goal_acceptance_m: f64,
    /// LAND's descent speed, m/s, in [0.3, 0.7] (the spec's range)
    #[arg(long, default_value_t = defaults().descent_mps)]
    descent_mps: f64,
    /// Whether vision freshness and inference duration count toward health (false for `vision: none`)
    #[arg(long, default_value_t = defaults().vision_required, action = clap::ArgAction::Set)]
    vision_required: bool,
}

impl Args {
    fn config(&self) -> PolicyConfig {
        PolicyConfig {
            init_dwell_s: self.init_dwell_s,
            episode_s: self.episode_s,
            recovery_dwell_s: self.recovery_dwell_s,
            imu_max_age_s: self.imu_max_age_s,
            gnss_max_age_s: self.gnss_max_age_s,
            vision_max_age_s: self.vision_max_age_s,
            link_max_age_s: self.link_max_age_s,
            inference_max_ms: self.inference_max_ms,
            battery_floor: self.battery_floor,
            geofence_radius_m: self.geofence_radius_m,
            ceiling_m: self.ceiling_m,
            max_speed_mps: self.max_speed_mps,
            approach_gain_per_s: self.approach_gain_per_s,
            goal_acceptance_m: self.goal_acceptance_m,
            descent_mps: self.descent_mps,
            vision_required: self.vision_required,
        }
    }
}

fn main() -> ExitCode {
    let args = Args::parse();
    let mut policy = match Policy::new(args.config()) {
        Ok(policy) => policy,
        Err(error) => {
            eprintln!("supervisor_core: {error}");
            return ExitCode::from(2);
        }
    };
    let stdin = io::stdin().lock();
    let stdout = io::stdout().lock();
    match serve(stdin, stdout, &mut policy) {
        Ok(_) => ExitCode::SUCCESS,
        Err(error) => {
            let _ = writeln!(io::stderr(), "supervisor_core: {error}");
            ExitCode::from(error.exit_code())
        }
    }
}
