//! Benchmark (not a test; `scripts/bench/perception_gate.sh` runs it in release): the boot
//! gate's time, `artifact::open_verified` on a model of `--model-bytes` bytes (default 100 kB),
//! over `--runs` runs (default 50) after one warm-up run. Each run reads the three files,
//! verifies the Ed25519 signature, parses the manifest, hashes the model (SHA-256) and checks
//! version, device and input shape. Prints p50, p90, min and max in milliseconds.
//!
//! The artifact is made here in a temporary directory with a fresh key: deterministic
//! pseudo-random bytes stand in for the model (the gate hashes bytes; it does not load them).

use std::time::Instant;

use fieldproof_perception::artifact::{
    generate_key_pair, load_public_key, open_verified, sign_artifact, write_manifest,
    GateRequirements, MODEL_FILE,
};
use rand::{RngCore, SeedableRng};

/// Command-line settings.
struct Settings {
    runs: usize,
    model_bytes: usize,
}

fn settings() -> Result<Settings, String> {
    let mut settings = Settings {
        runs: 50,
        model_bytes: 100_000,
    };
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let value = args
            .next()
            .ok_or_else(|| format!("{flag}: needs a value"))?;
        let count = value
            .parse::<usize>()
            .ok()
            .filter(|count| *count > 0)
            .ok_or_else(|| format!("{flag}: {value:?} is not a positive whole number"))?;
        match flag.as_str() {
            "--runs" => settings.runs = count,
            "--model-bytes" => settings.model_bytes = count,
            other => return Err(format!("{other}: unknown option (--runs, --model-bytes)")),
        }
    }
    Ok(settings)
}

/// The value at `fraction` (0..=1) of sorted `values` (nearest rank).
fn percentile(sorted: &[f64], fraction: f64) -> f64 {
    let rank = (fraction * sorted.len() as f64).ceil().max(1.0) as usize;
    sorted[rank.min(sorted.len()) - 1]
}

fn run(settings: &Settings) -> Result<(), String> {
    let work = tempfile::tempdir().map_err(|error| format!("temporary directory: {error}"))?;
    let keys = generate_key_pair(work.path(), "bench").map_err(|error| error.to_string())?;
    let artifact = work.path().join("artifact");
    std::fs::create_dir(&artifact).map_err(|error| format!("{}: {error}", artifact.display()))?;
    let mut model = vec![0u8; settings.model_bytes];
    rand::rngs::StdRng::seed_from_u64(18).fill_bytes(&mut model);
    std::fs::write(artifact.join(MODEL_FILE), &model)
        .map_err(|error| format!("{MODEL_FILE}: {error}"))?;
    let shape = [1, 3, 48, 64];
    write_manifest(
        &artifact,
        "bench_model",
        &semver::Version::new(1, 0, 0),
        "cpu",
        &shape,
    )
    .map_err(|error| error.to_string())?;
    sign_artifact(&artifact, &keys.signing_key).map_err(|error| error.to_string())?;
    let requirements = GateRequirements {
        public_key: load_public_key(&keys.public_key).map_err(|error| error.to_string())?,
        min_version: semver::Version::new(1, 0, 0),
        device: "cpu".to_string(),
        input_shape: shape.to_vec(),
    };

    open_verified(&artifact, &requirements).map_err(|error| error.to_string())?;
    let mut milliseconds = Vec::with_capacity(settings.runs);
    for _ in 0..settings.runs {
        let start = Instant::now();
        let verified =
            open_verified(&artifact, &requirements).map_err(|error| error.to_string())?;
        milliseconds.push(start.elapsed().as_secs_f64() * 1e3);
        assert_eq!(verified.model.len(), settings.model_bytes);
    }
    milliseconds.sort_by(f64::total_cmp);
    println!(
        "open_verified, {} byte model, {} runs: p50 {:.3} ms, p90 {:.3} ms, min {:.3} ms, max {:.3} ms",
        settings.model_bytes,
        settings.runs,
        percentile(&milliseconds, 0.5),
        percentile(&milliseconds, 0.9),
        milliseconds[0],
        milliseconds[milliseconds.len() - 1],
    );
    Ok(())
}

fn main() -> std::process::ExitCode {
    match settings().and_then(|settings| run(&settings)) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(reason) => {
            eprintln!("gate_bench: {reason}");
            std::process::ExitCode::from(2)
        }
    }
}
