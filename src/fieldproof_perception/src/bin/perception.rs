//! `perception`: the verified perception payload of one vehicle, in its namespace.
//!
//! At boot, before any DDS participant is opened, the artifact gate
//! ([`fieldproof_perception::artifact::open_verified`]): the manifest's Ed25519 signature
//! against `public_key`, the model's SHA-256, the version against `min_version` (no
//! rollback), the device and the input shape `[1, 3, 48, 64]`; then the verified model bytes
//! are loaded with tract. Any failure: the reason on stderr (`perception: error: artifact
//! gate: ...`) and exit code 2; nothing is published.
//!
//! Then, per image on `camera/image` (sensor_msgs/msg/Image, rgb8 64x48; best effort, keep
//! last 1: always the newest frame): the model, the score mask thresholded at
//! `score_threshold`, each connected blob of at least `min_blob_pixels` pixels one detection;
//! publishes `perception/detections` (vision_msgs/msg/Detection2DArray, header = the image's:
//! observations only, nothing steers from them) and `perception/health`
//! (diagnostic_msgs/msg/DiagnosticArray, header = the image's, so its stamp is the capture
//! time; `inference_ms` = the measured wall-clock duration, or `reported_inference_ms` when
//! that is above 0: the overload fault, settable at run time, which does not sleep). An image
//! of another size or encoding, or whose data does not match its step, is logged (throttled)
//! and skipped.
//!
//! ```text
//! perception --ros-args -r __ns:=/quad1 \
//!     -p artifact_dir:=src/fieldproof_perception/artifacts/inspection_seg \
//!     -p public_key:=src/fieldproof_perception/keys/lab.pub
//! ros2 param set /quad1/perception reported_inference_ms 120.0   # the overload fault
//! ```

use std::path::Path;
use std::process::ExitCode;
use std::time::Instant;

use fieldproof_perception::artifact::{load_public_key, open_verified, GateRequirements};
use fieldproof_perception::inference::report::{detections_message, health_message, FrameHealth};
use fieldproof_perception::inference::{Segmenter, INPUT_SHAPE};
use fieldproof_runtime::logging::Throttle;
use fieldproof_runtime::msgs::diagnostic_msgs::DiagnosticArray;
use fieldproof_runtime::msgs::sensor_msgs::Image;
use fieldproof_runtime::msgs::vision_msgs::Detection2DArray;
use fieldproof_runtime::{
    qos, tracing, NodeBuilder, Param, ParamHandle, ParamValue, MALFORMED_LOG_PERIOD,
};

/// The handles of the node's parameters.
struct PerceptionParams {
    artifact_dir: ParamHandle<String>,
    public_key: ParamHandle<String>,
    min_version: ParamHandle<String>,
    device: ParamHandle<String>,
    score_threshold: ParamHandle<f64>,
    min_blob_pixels: ParamHandle<i64>,
    reported_inference_ms: ParamHandle<f64>,
    image_topic: ParamHandle<String>,
    detections_topic: ParamHandle<String>,
    health_topic: ParamHandle<String>,
}

fn declare(builder: &mut NodeBuilder) -> PerceptionParams {
    PerceptionParams {
        artifact_dir: builder.declare(
            Param::string("artifact_dir", "")
                .description(
                    "the model artifact's directory (model.onnx, manifest.yaml, manifest.sig); \
                     required",
                )
                .read_only(),
        ),
        public_key: builder.declare(
            Param::string("public_key", "")
                .description("the trusted Ed25519 public key file (64 hex digits); required")
                .read_only(),
        ),
        min_version: builder.declare(
            Param::string("min_version", "1.0.0")
                .description("the lowest model version accepted (semver; no rollback below it)")
                .read_only()
                .on_change(|value| match value {
                    ParamValue::String(text) => semver::Version::parse(text)
                        .map(|_| ())
                        .map_err(|e| format!("min_version: {text:?} is not a semver version: {e}")),
                    other => Err(format!("min_version: {other} is not a string")),
                }),
        ),
        device: builder.declare(
            Param::string("device", "cpu")
                .description("this node's device; the manifest's must match (hardware_id)")
                .read_only(),
        ),
        score_threshold: builder.declare(
            Param::double("score_threshold", 0.5)
                .range(0.01, 0.99)
                .description("a pixel scoring at least this is in the target's mask"),
        ),
        min_blob_pixels: builder.declare(
            Param::int("min_blob_pixels", 4)
                .range(1.0, 3072.0)
                .description("a connected blob of fewer mask pixels is not a detection"),
        ),
        reported_inference_ms: builder.declare(
            Param::double("reported_inference_ms", 0.0)
                .range(0.0, 60_000.0)
                .description(
                    "0: report the measured inference duration; > 0: report this instead, ms \
                     (the overload fault; read per frame; it does not sleep)",
                ),
        ),
        image_topic: builder.declare(
            Param::string("image_topic", "camera/image")
                .topic()
                .description("sensor_msgs/msg/Image, rgb8 64x48")
                .read_only(),
        ),
        detections_topic: builder.declare(
            Param::string("detections_topic", "perception/detections")
                .topic()
                .description("vision_msgs/msg/Detection2DArray (observations only)")
                .read_only(),
        ),
        health_topic: builder.declare(
            Param::string("health_topic", "perception/health")
                .topic()
                .description("diagnostic_msgs/msg/DiagnosticArray: stamp = capture, inference_ms")
                .read_only(),
        ),
    }
}

/// What the gate passed: the loaded model and how it is named in the health.
struct Booted {
    segmenter: Segmenter,
    model: String,
    boot_ms: f64,
}

/// The artifact gate, then the model loaded: the reason of the first failure.
fn boot(params: &PerceptionParams) -> Result<Booted, String> {
    let started = Instant::now();
    let dir = params.artifact_dir.get();
    if dir.is_empty() {
        return Err("artifact_dir: required (the model artifact's directory)".into());
    }
    let key = params.public_key.get();
    if key.is_empty() {
        return Err("public_key: required (the trusted public key file)".into());
    }
    let min_version = params.min_version.get();
    let requirements = GateRequirements {
        public_key: load_public_key(Path::new(&key)).map_err(|e| e.to_string())?,
        min_version: semver::Version::parse(&min_version)
            .map_err(|e| format!("min_version: {min_version:?} is not a semver version: {e}"))?,
        device: params.device.get(),
        input_shape: INPUT_SHAPE.to_vec(),
    };
    let artifact = open_verified(Path::new(&dir), &requirements).map_err(|e| e.to_string())?;
    let segmenter = Segmenter::load(&artifact.model)
        .map_err(|e| format!("{dir}: the verified model does not load: {e}"))?;
    Ok(Booted {
        segmenter,
        model: format!("{} {}", artifact.manifest.name, artifact.manifest.version),
        boot_ms: started.elapsed().as_secs_f64() * 1e3,
    })
}

fn main() -> ExitCode {
    const PROG: &str = "perception";
    let mut builder = NodeBuilder::new(PROG);
    let params = declare(&mut builder);
    if fieldproof_runtime::wants_help(std::env::args_os().skip(1)) {
        print!("{}", builder.help(PROG));
        return ExitCode::SUCCESS;
    }
    let cfg = match builder.resolve_from_process() {
        Ok(cfg) => cfg,
        Err(e) => {
            eprintln!("{PROG}: error: {e}");
            return ExitCode::from(2);
        }
    };
    // The gate runs before DDS: a refused artifact never opens a participant.
    let booted = match boot(&params) {
        Ok(booted) => booted,
        Err(reason) => {
            eprintln!("{PROG}: error: {reason}");
            return ExitCode::from(2);
        }
    };
    let result = fieldproof_runtime::run(cfg, move |node| async move {
        let Booted {
            segmenter,
            model,
            boot_ms,
        } = booted;
        let device = params.device.get();
        let images =
            node.subscription::<Image>(&params.image_topic.get(), qos::sensor_data().keep_last(1))?;
        let detections =
            node.publisher::<Detection2DArray>(&params.detections_topic.get(), qos::default())?;
        let health =
            node.publisher::<DiagnosticArray>(&params.health_topic.get(), qos::default())?;
        tracing::info!(
            "artifact {} verified and model {model} loaded on {device} in {boot_ms:.1} ms; \
             reading {}, writing {} and {}",
            params.artifact_dir.get(),
            images.topic(),
            detections.topic(),
            health.topic()
        );
        let mut bad_images = Throttle::new(MALFORMED_LOG_PERIOD);
        let mut frame_seq: u64 = 0;
        loop {
            let image = images.recv().await?;
            let analysis = match segmenter.detect(
                &image,
                params.score_threshold.get() as f32,
                params.min_blob_pixels.get().max(1) as usize,
            ) {
                Ok(analysis) => analysis,
                Err(e) => {
                    if let Some(since) = bad_images.hit() {
                        tracing::warn!(
                            "{}: image skipped: {e} ({since} such since the last report, {} in all)",
                            images.topic(),
                            bad_images.total()
                        );
                    }
                    continue;
                }
            };
            frame_seq += 1;
            let frame = FrameHealth {
                measured_ms: analysis.duration.as_secs_f64() * 1e3,
                override_ms: params.reported_inference_ms.get(),
                frame_seq,
                detections: analysis.detections.len(),
                device: device.clone(),
                model: model.clone(),
            };
            // A failed write (a full window) is reported; the next frame goes on.
            if let Err(e) = detections.publish(detections_message(&image.header, &analysis)) {
                tracing::warn!("{e}");
            }
            if let Err(e) = health.publish(health_message(&image.header, &frame)) {
                tracing::warn!("{e}");
            }
        }
    });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("{PROG}: error: {e}");
            ExitCode::FAILURE
        }
    }
}
