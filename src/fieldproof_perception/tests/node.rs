//! The `perception` node end to end on DDS, each test in a private network namespace: an
//! in-process peer publishes camera images (synthetic 64x48 rgb8 frames with the target's
//! colour at known positions) and reads what the node publishes; the boot gate's refusals exit
//! 2 before any DDS participant exists.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use fieldproof_runtime::msgs::builtin_interfaces::Time;
use fieldproof_runtime::msgs::diagnostic_msgs::{DiagnosticArray, DiagnosticStatus};
use fieldproof_runtime::msgs::sensor_msgs::Image;
use fieldproof_runtime::msgs::std_msgs::Header;
use fieldproof_runtime::msgs::vision_msgs::Detection2DArray;
use fieldproof_runtime::value::set_parameters_request;
use fieldproof_runtime::{qos, Node, ParamValue};
use fieldproof_testkit::{repo_root, NodeCommand, NodeProc};
use ros2_client::rcl_interfaces::{SetParametersRequest, SetParametersResponse};

/// How long an expected event may take to arrive (wall clock): generous, never a verdict.
const PATIENCE: Duration = Duration::from_secs(30);
/// How often an image is published again until the node has processed it (the node keeps
/// only the newest image, best effort).
const RESEND: Duration = Duration::from_millis(300);

const MAGENTA: [u8; 3] = [230, 30, 210];
const GROUND: [u8; 3] = [120, 110, 90];

fn package_dir() -> PathBuf {
    repo_root().join("src/fieldproof_perception")
}

/// The perception node in `/quad1` with the committed artifact and lab key, and `params`.
fn perception(domain: u16, params: &[String]) -> NodeCommand {
    let dir = package_dir();
    NodeProc::command(env!("CARGO_BIN_EXE_perception"))
        .domain(domain)
        .ros_args(&["-r", "__ns:=/quad1"])
        .params(&[
            format!(
                "artifact_dir:={}",
                dir.join("artifacts/inspection_seg").display()
            ),
            format!("public_key:={}", dir.join("keys/lab.pub").display()),
        ])
        .params(params)
}

/// Messages received so far on one topic (filled by a task of the peer).
#[derive(Clone)]
struct Seen<T>(Arc<Mutex<Vec<T>>>);

impl<T: Clone> Seen<T> {
    fn all(&self) -> Vec<T> {
        self.0.lock().unwrap().clone()
    }
}

/// Collects every message of `topic` once its publisher is matched.
async fn collect<M: fieldproof_runtime::msgs::RosMessage + Clone + Send + 'static>(
    node: &Node,
    topic: &str,
) -> Result<(Seen<M>, smol::Task<()>), fieldproof_runtime::NodeError> {
    let sub = node.subscription::<M>(topic, qos::default())?;
    sub.wait_for_publishers(1).await;
    let seen = Seen(Arc::new(Mutex::new(Vec::new())));
    let sink = seen.0.clone();
    let task = node.spawn(async move {
        while let Ok(m) = sub.recv().await {
            sink.lock().unwrap().push(m);
        }
    });
    Ok((seen, task))
}

fn stamp(ms: i64) -> Time {
    Time {
        sec: (ms / 1000) as i32,
        nanosec: ((ms % 1000) * 1_000_000) as u32,
    }
}

/// A 64x48 rgb8 frame of ground with the target's colour over columns x0..x1, rows y0..y1.
fn frame(ms: i64, patch: Option<[usize; 4]>) -> Image {
    let mut data = Vec::with_capacity(64 * 48 * 3);
    for y in 0..48 {
        for x in 0..64 {
            let inside = patch
                .is_some_and(|[x0, x1, y0, y1]| (x0..x1).contains(&x) && (y0..y1).contains(&y));
            data.extend_from_slice(if inside { &MAGENTA } else { &GROUND });
        }
    }
    Image {
        header: Header {
            stamp: stamp(ms),
            frame_id: "camera_optical_link".into(),
        },
        height: 48,
        width: 64,
        encoding: "rgb8".into(),
        is_bigendian: 0,
        step: 64 * 3,
        data,
    }
}

fn status(health: &DiagnosticArray) -> &DiagnosticStatus {
    assert_eq!(health.status.len(), 1, "{health:?}");
    &health.status[0]
}

fn value(health: &DiagnosticArray, key: &str) -> String {
    status(health)
        .value(key)
        .unwrap_or_else(|| panic!("no {key} in {health:?}"))
        .to_string()
}

/// Publishes `image` again every [`RESEND`] until a health report with its stamp arrives;
/// returns that report.
async fn process(
    camera: &fieldproof_runtime::Publisher<Image>,
    healths: &Seen<DiagnosticArray>,
    image: &Image,
) -> DiagnosticArray {
    let end = Instant::now() + PATIENCE;
    loop {
        camera.publish(image.clone()).expect("publish image");
        let resend = Instant::now() + RESEND;
        while Instant::now() < resend {
            if let Some(h) = healths
                .all()
                .into_iter()
                .find(|h| h.header.stamp == image.header.stamp)
            {
                return h;
            }
            smol::Timer::after(Duration::from_millis(10)).await;
        }
        assert!(
            Instant::now() < end,
            "no health for the image stamped {:?}",
            image.header.stamp
        );
    }
}

/// Every processed image gives one detections message and one health report, both with
/// the image's header: the detections at the target patch's centre, the health's stamp the
/// capture stamp, `inference_ms` the measured duration (3 decimals) and `frame_seq`
/// counting frames. A bad image is logged and skipped (no report carries its stamp) and the
/// node goes on. `reported_inference_ms` set through the parameter service is reported
/// from the next frame on, with level WARN; set back to 0, the measurement again.
#[test]
fn each_image_gives_detections_and_health_stamped_with_its_capture_time() {
    fieldproof_testkit::contain_or_return!();
    let domain = 40 + (std::process::id() % 20) as u16;
    let mut node = perception(domain, &[]).start();
    node.wait_for_log("verified", PATIENCE);
    let log = node.stderr.clone();
    fieldproof_runtime::run_on_domain("camera", domain, |peer| async move {
        let camera = peer.publisher::<Image>("/quad1/camera/image", qos::default())?;
        let (detections, _d) =
            collect::<Detection2DArray>(&peer, "/quad1/perception/detections").await?;
        let (healths, _h) = collect::<DiagnosticArray>(&peer, "/quad1/perception/health").await?;
        let end = Instant::now() + PATIENCE;
        while camera.subscription_count() == 0 {
            assert!(
                Instant::now() < end,
                "the node never subscribed to camera/image"
            );
            smol::Timer::after(Duration::from_millis(20)).await;
        }

        // (stamp ms, patch [x0, x1, y0, y1)): targets at several places, and none.
        let frames = [
            (1_000, Some([10, 20, 5, 15])),
            (1_100, Some([40, 52, 30, 44])),
            (1_200, None),
            (1_300, Some([0, 64, 20, 28])),
        ];
        let mut last_seq = 0u64;
        for (ms, patch) in frames {
            let image = frame(ms, patch);
            let health = process(&camera, &healths, &image).await;
            assert_eq!(health.header, image.header, "the capture stamp and frame");
            let st = status(&health);
            assert_eq!(
                (st.name.as_str(), st.hardware_id.as_str(), st.level),
                ("perception", "cpu", DiagnosticStatus::OK)
            );
            let reported: f64 = value(&health, "inference_ms").parse()?;
            assert!(reported > 0.0, "{health:?}");
            assert_eq!(
                value(&health, "inference_ms"),
                value(&health, "measured_inference_ms")
            );
            let seq: u64 = value(&health, "frame_seq").parse()?;
            assert!(seq > last_seq, "frame_seq {seq} after {last_seq}");
            last_seq = seq;
            assert_eq!(
                value(&health, "detections"),
                usize::from(patch.is_some()).to_string()
            );
            // The detections of the same frame (published just before its health, on
            // another topic: they may arrive after it).
            let end = Instant::now() + PATIENCE;
            let found = loop {
                if let Some(d) = detections
                    .all()
                    .into_iter()
                    .find(|d| d.header.stamp == image.header.stamp)
                {
                    break d;
                }
                assert!(Instant::now() < end, "no detections for {:?}", image.header);
                smol::Timer::after(Duration::from_millis(10)).await;
            };
            assert_eq!(found.header, image.header);
            match patch {
                None => assert_eq!(found.detections, []),
                Some([x0, x1, y0, y1]) => {
                    let [d] = &found.detections[..] else {
                        panic!("{found:?}")
                    };
                    let want = ((x0 + x1 - 1) as f64 / 2.0, (y0 + y1 - 1) as f64 / 2.0);
                    let c = d.bbox.center.position;
                    assert!(
                        (c.x - want.0).abs() <= 0.5 && (c.y - want.1).abs() <= 0.5,
                        "{c:?} vs {want:?}"
                    );
                    assert_eq!(
                        (d.bbox.size_x, d.bbox.size_y),
                        ((x1 - x0) as f64, (y1 - y0) as f64)
                    );
                    assert_eq!(d.header, image.header);
                    assert_eq!(d.results[0].hypothesis.class_id, "inspection_target");
                    assert!(d.results[0].hypothesis.score > 0.9, "{d:?}");
                }
            }
        }

        // A bad image: logged, skipped, nothing published with its stamp; the node goes on.
        let mut wide = frame(2_000, Some([10, 20, 5, 15]));
        wide.width = 640;
        let end = Instant::now() + PATIENCE;
        while log.count("image.width: 640 is not 64") == 0 {
            assert!(
                Instant::now() < end,
                "the bad image was not reported: {:?}",
                log.all()
            );
            camera.publish(wide.clone())?;
            smol::Timer::after(RESEND).await;
        }
        let after = frame(2_100, Some([30, 40, 10, 20]));
        process(&camera, &healths, &after).await;

        // The overload fault through the parameter service, then off again.
        let set = peer.client::<SetParametersRequest, SetParametersResponse>(
            "/quad1/perception/set_parameters",
            "rcl_interfaces/srv/SetParameters",
        )?;
        let r = set
            .call_retry(
                set_parameters_request([("reported_inference_ms", ParamValue::Double(120.0))]),
                Duration::from_secs(1),
                20,
            )
            .await?;
        assert!(r.results[0].successful, "{:?}", r.results);
        let overloaded = process(&camera, &healths, &frame(3_000, Some([10, 20, 5, 15]))).await;
        assert_eq!(value(&overloaded, "inference_ms"), "120.000");
        assert_ne!(value(&overloaded, "measured_inference_ms"), "120.000");
        assert_eq!(status(&overloaded).level, DiagnosticStatus::WARN);
        let refused = set
            .call_retry(
                set_parameters_request([("reported_inference_ms", ParamValue::Double(-1.0))]),
                Duration::from_secs(1),
                20,
            )
            .await?;
        assert!(!refused.results[0].successful, "{:?}", refused.results);
        let r = set
            .call_retry(
                set_parameters_request([("reported_inference_ms", ParamValue::Double(0.0))]),
                Duration::from_secs(1),
                20,
            )
            .await?;
        assert!(r.results[0].successful, "{:?}", r.results);
        let normal = process(&camera, &healths, &frame(3_100, None)).await;
        assert_eq!(status(&normal).level, DiagnosticStatus::OK);
        assert_eq!(
            value(&normal, "inference_ms"),
            value(&normal, "measured_inference_ms")
        );

        // Every report carries the stamp of an image the node was given, never the bad one's.
        let good: Vec<Time> = [1_000, 1_100, 1_200, 1_300, 2_100, 3_000, 3_100]
            .into_iter()
            .map(stamp)
            .collect();
        for h in healths.all() {
            assert!(good.contains(&h.header.stamp), "{:?}", h.header);
        }
        for d in detections.all() {
            assert!(good.contains(&d.header.stamp), "{:?}", d.header);
        }
        Ok(())
    })
    .expect("peer run");
    node.stop();
    assert!(node.child.try_wait().unwrap().unwrap().success());
    assert_eq!(node.stderr.count("panicked"), 0);
}

/// A copy of the committed artifact in a temporary directory.
fn artifact_copy(dir: &Path) -> PathBuf {
    let from = package_dir().join("artifacts/inspection_seg");
    let to = dir.join("inspection_seg");
    std::fs::create_dir(&to).unwrap();
    for file in ["model.onnx", "manifest.yaml", "manifest.sig"] {
        std::fs::copy(from.join(file), to.join(file)).unwrap();
    }
    to
}

/// Waits for the node's exit; its code.
fn exit_code(node: &mut NodeProc) -> Option<i32> {
    node.wait_exit(PATIENCE).code()
}

/// A tampered artifact (one byte of the model changed, in a copy), a version below the
/// minimum and another device: each exits 2 at boot with the failed check and its values on
/// stderr. Meanwhile a peer subscribed to the node's topics sees no publisher and no message:
/// the gate runs before the node joins DDS.
#[test]
fn a_refused_artifact_exits_2_with_the_reason_and_publishes_nothing() {
    fieldproof_testkit::contain_or_return!();
    let domain = 60 + (std::process::id() % 20) as u16;
    let dir = tempfile::tempdir().unwrap();
    let tampered = artifact_copy(dir.path());
    let model = tampered.join("model.onnx");
    let mut bytes = std::fs::read(&model).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 0x01;
    std::fs::write(&model, bytes).unwrap();
    let cases = [
        (
            vec![format!("artifact_dir:={}", tampered.display())],
            "sha256",
        ),
        (vec!["min_version:=2.0.0".to_string()], "version"),
        (vec!["device:=gpu".to_string()], "device"),
    ];
    fieldproof_runtime::run_on_domain("watcher", domain, |peer| async move {
        let detections =
            peer.subscription::<Detection2DArray>("/quad1/perception/detections", qos::default())?;
        let health =
            peer.subscription::<DiagnosticArray>("/quad1/perception/health", qos::default())?;
        for (params, check) in cases {
            let mut node = perception(domain, &params).start();
            let code = exit_code(&mut node);
            let log = node.stderr.all().join("\n");
            assert_eq!(code, Some(2), "{params:?}: {log}");
            assert!(
                log.contains("perception: error: artifact gate") && log.contains(check),
                "{params:?}: {log}"
            );
        }
        // Discovery would have matched a publisher within this time had one existed.
        smol::Timer::after(Duration::from_secs(2)).await;
        assert_eq!(
            (detections.publisher_count(), health.publisher_count()),
            (0, 0)
        );
        assert!(detections.try_recv()?.is_none() && health.try_recv()?.is_none());
        Ok(())
    })
    .expect("peer run");
}

/// Missing required parameters are refused the same way, naming the parameter.
#[test]
fn a_missing_artifact_dir_or_key_exits_2_naming_the_parameter() {
    fieldproof_testkit::contain_or_return!();
    for (params, want) in [
        (vec!["artifact_dir:=".to_string()], "artifact_dir: required"),
        (vec!["public_key:=".to_string()], "public_key: required"),
        (vec!["min_version:=one".to_string()], "min_version"),
    ] {
        let mut node = perception(77, &params).start();
        assert_eq!(exit_code(&mut node), Some(2), "{params:?}");
        let log = node.stderr.all().join("\n");
        assert!(log.contains(want), "{params:?}: {log}");
    }
}

/// `--help` lists every parameter from the declarations (no DDS: it exits before).
#[test]
fn help_lists_the_parameters() {
    fieldproof_testkit::contain_or_return!();
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_perception"))
        .arg("--help")
        .output()
        .unwrap();
    assert!(output.status.success());
    let help = String::from_utf8(output.stdout).unwrap();
    for name in [
        "artifact_dir",
        "public_key",
        "min_version",
        "device",
        "score_threshold",
        "min_blob_pixels",
        "reported_inference_ms",
        "image_topic",
        "detections_topic",
        "health_topic",
    ] {
        assert!(help.contains(name), "{name} missing from:\n{help}");
    }
}
