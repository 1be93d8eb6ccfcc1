//! Benchmark (not a test; `scripts/bench/perception.sh` runs it in release): the committed
//! artifact's load and verification time (the boot gate plus tract's load and optimisation),
//! the inference time per 64x48 frame (p50, p99, max over `--frames` frames rendered by the
//! simulator's own renderer, the quad at the inspection goal turning so the mast crosses the
//! image), and the CPU this process uses running one frame per camera period (`--rate-hz`,
//! quad_ref's 10 Hz) for `--seconds`: the model's share of one core, DDS not included.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use fieldproof_perception::artifact::{load_public_key, open_verified, GateRequirements};
use fieldproof_perception::inference::{Segmenter, INPUT_SHAPE};
use fieldproof_robots::World;
use fieldproof_sim::sensors::{camera, frame_offset};
use fieldproof_sim::world::SimWorld;
use fieldproof_sim::{SimConfig, Simulation, Spawn, SpawnSpec};

/// Command-line settings.
struct Settings {
    frames: usize,
    rate_hz: f64,
    seconds: f64,
}

fn settings() -> Result<Settings, String> {
    let mut s = Settings {
        frames: 2000,
        rate_hz: 10.0,
        seconds: 20.0,
    };
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let value = args
            .next()
            .ok_or_else(|| format!("{flag}: needs a value"))?;
        let number = |what: &str| {
            value
                .parse::<f64>()
                .ok()
                .filter(|v| v.is_finite() && *v > 0.0)
                .ok_or_else(|| format!("{what}: {value} is not a positive number"))
        };
        match flag.as_str() {
            "--frames" => s.frames = number("--frames")?.round().max(1.0) as usize,
            "--rate-hz" => s.rate_hz = number("--rate-hz")?,
            "--seconds" => s.seconds = number("--seconds")?,
            other => {
                return Err(format!(
                    "{other}: unknown option (--frames, --rate-hz, --seconds)"
                ))
            }
        }
    }
    Ok(s)
}

/// CPU time (user + system) of this process so far, seconds.
fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .map(|(_, rest)| rest.split_whitespace().collect())
        .unwrap_or_default();
    let ticks = |i: usize| {
        fields
            .get(i)
            .and_then(|f| f.parse::<f64>().ok())
            .unwrap_or(0.0)
    };
    // utime and stime (fields 14 and 15 of stat; 11 and 12 after the command name), in
    // clock ticks of 1/100 s.
    (ticks(11) + ticks(12)) / 100.0
}

fn percentile_ms(sorted: &[Duration], p: f64) -> f64 {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i].as_secs_f64() * 1e3
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let s = settings()?;
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let repo = root.join("../..");

    let start = Instant::now();
    let requirements = GateRequirements {
        public_key: load_public_key(&root.join("keys/lab.pub"))?,
        min_version: semver::Version::new(1, 0, 0),
        device: "cpu".into(),
        input_shape: INPUT_SHAPE.to_vec(),
    };
    let artifact = open_verified(&root.join("artifacts/inspection_seg"), &requirements)?;
    let verified = start.elapsed();
    let segmenter = Segmenter::load(&artifact.model)?;
    let loaded = start.elapsed();

    // Frames: the quad at the inspection goal, turning from -30 to +30 degrees.
    let world = World::load(repo.join("worlds/inspection.yaml"))?;
    let sim_world = SimWorld::new(&world);
    let manifest = repo.join("robots/quad_ref/robot.yaml");
    let images = (0..64)
        .map(|i| {
            let yaw = -30.0 + 60.0 * f64::from(i) / 63.0;
            let spec = SpawnSpec::parse(&format!(
                "ns=quad1,manifest={},x=14.0,y=0.0,z=5.0,yaw_deg={yaw}",
                manifest.display()
            ))?;
            let spawn = Spawn::resolve(&spec, 0, &world)?;
            let sim = Simulation::new(&world, &[spawn], SimConfig::default());
            let quad = &sim.vehicles()[0];
            let cam = quad
                .manifest
                .sensors
                .iter()
                .find_map(|s| s.camera.clone())
                .ok_or("quad_ref has no camera")?;
            let mount = frame_offset(&quad.manifest, "camera_link");
            let frame = camera::render(&cam, &mount, &sim_world, sim.vehicles(), 0);
            Ok(frame.image("rgb8", 0, "camera_optical_link"))
        })
        .collect::<Result<Vec<_>, Box<dyn std::error::Error>>>()?;

    let mut times = Vec::with_capacity(s.frames);
    let mut found = 0usize;
    for i in 0..s.frames {
        let analysis = segmenter.detect(&images[i % images.len()], 0.5, 4)?;
        found += analysis.detections.len();
        times.push(analysis.duration);
    }
    times.sort();

    let period = Duration::from_secs_f64(1.0 / s.rate_hz);
    let paced_frames = (s.seconds * s.rate_hz).round() as usize;
    let (cpu_before, wall_before) = (cpu_seconds(), Instant::now());
    let mut next = Instant::now();
    for i in 0..paced_frames {
        segmenter.detect(&images[i % images.len()], 0.5, 4)?;
        next += period;
        if let Some(wait) = next.checked_duration_since(Instant::now()) {
            std::thread::sleep(wait);
        }
    }
    let cpu_share = (cpu_seconds() - cpu_before) / wall_before.elapsed().as_secs_f64() * 100.0;

    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    println!(
        "machine: {} cores, load average {}",
        std::thread::available_parallelism().map_or(0, |n| n.get()),
        load.split_whitespace()
            .take(3)
            .collect::<Vec<_>>()
            .join(" ")
    );
    println!(
        "artifact gate (read, signature, manifest, sha256, version, device, shape): {:.3} ms",
        verified.as_secs_f64() * 1e3
    );
    println!(
        "gate + tract load and optimise: {:.3} ms",
        loaded.as_secs_f64() * 1e3
    );
    println!(
        "inference per 64x48 frame over {} frames: p50 {:.3} ms, p99 {:.3} ms, max {:.3} ms \
         ({:.2} detections per frame)",
        s.frames,
        percentile_ms(&times, 0.5),
        percentile_ms(&times, 0.99),
        percentile_ms(&times, 1.0),
        found as f64 / s.frames as f64
    );
    println!(
        "CPU at {} Hz for {} s: {:.2} % of one core (this process: the model and its \
         pre/post-processing, no DDS)",
        s.rate_hz, s.seconds, cpu_share
    );
    Ok(())
}
