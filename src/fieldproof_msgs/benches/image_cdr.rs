//! CDR encode/decode of camera-size `sensor_msgs/Image`s: this crate's `Image` (whose `data` goes
//! through `serde_bytes`, one memcpy) against the same struct with serde's default
//! element-by-element `Vec<u8>`. Run with `cargo bench -p fieldproof_msgs --bench image_cdr`.
//!
//! Measured on the 2-core dev machine (median, warm cache), 2026-12-02:
//!
//! | image | serialize serde_bytes | serialize per element | deserialize serde_bytes | deserialize per element |
//! |---|---|---|---|---|
//! | 640x480 rgb8 (921,600 B) | 20 us | 774 us | 20 us | 1028 us |
//! | 2048x1024 mono8 (2 MiB) | 44 us | 1746 us | 44 us | 2327 us |
//!
//! The bytes are identical either way (asserted below); `serde_bytes` is ~40-50x faster.

use std::time::{Duration, Instant};

use fieldproof_msgs::{builtin_interfaces::Time, cdr, sensor_msgs::Image, std_msgs::Header};
use serde::{Deserialize, Serialize};

/// `sensor_msgs/Image` with a plain `Vec<u8>` (what a naive derive gives).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct NaiveImage {
    header: Header,
    height: u32,
    width: u32,
    encoding: String,
    is_bigendian: u8,
    step: u32,
    data: Vec<u8>,
}

fn image(width: u32, height: u32, channels: u32) -> Image {
    let len = (width * height * channels) as usize;
    // Deterministic, non-constant pixels.
    let data = (0..len)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    Image {
        header: Header {
            stamp: Time::new(1_700_000_000, 123),
            frame_id: "camera_optical".into(),
        },
        height,
        width,
        encoding: if channels == 3 { "rgb8" } else { "mono8" }.into(),
        is_bigendian: 0,
        step: width * channels,
        data,
    }
}

/// Median wall time of `f` over enough runs to fill ~0.5 s (at least 5).
fn median(mut f: impl FnMut()) -> Duration {
    let start = Instant::now();
    let mut times = Vec::new();
    while times.len() < 5 || (start.elapsed() < Duration::from_millis(500) && times.len() < 2000) {
        let t = Instant::now();
        f();
        times.push(t.elapsed());
    }
    times.sort();
    times[times.len() / 2]
}

fn report(label: &str, bytes: usize, t: Duration) {
    let mbps = bytes as f64 / t.as_secs_f64() / 1e6;
    println!(
        "{label:<44} {:>10.1} us  {:>9.0} MB/s",
        t.as_secs_f64() * 1e6,
        mbps
    );
}

fn main() {
    let cases = [
        ("640x480 rgb8 (921,600 B)", image(640, 480, 3)),
        ("2 MB mono8 (2048x1024)", image(2048, 1024, 1)),
    ];
    for (label, img) in cases {
        let naive = NaiveImage {
            header: img.header.clone(),
            height: img.height,
            width: img.width,
            encoding: img.encoding.clone(),
            is_bigendian: img.is_bigendian,
            step: img.step,
            data: img.data.clone(),
        };
        let fast_bytes = cdr::to_bytes(&img).unwrap();
        let naive_bytes = cdr::to_bytes(&naive).unwrap();
        assert_eq!(
            fast_bytes, naive_bytes,
            "serde_bytes must not change the encoding"
        );
        let n = fast_bytes.len();
        println!("{label}: {n} bytes of CDR");
        report(
            "  serialize   serde_bytes",
            n,
            median(|| {
                std::hint::black_box(cdr::to_bytes(std::hint::black_box(&img)).unwrap());
            }),
        );
        report(
            "  serialize   Vec<u8> per element",
            n,
            median(|| {
                std::hint::black_box(cdr::to_bytes(std::hint::black_box(&naive)).unwrap());
            }),
        );
        report(
            "  deserialize serde_bytes",
            n,
            median(|| {
                let m: Image = cdr::from_bytes(std::hint::black_box(&fast_bytes)).unwrap();
                std::hint::black_box(m);
            }),
        );
        report(
            "  deserialize Vec<u8> per element",
            n,
            median(|| {
                let m: NaiveImage = cdr::from_bytes(std::hint::black_box(&naive_bytes)).unwrap();
                std::hint::black_box(m);
            }),
        );
    }
}
