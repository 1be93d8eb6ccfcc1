//! Decoding arbitrary bytes as each registered message type never panics and never
//! allocates without bound: a length prefix of 4 GB in a small sample must not reserve
//! 4 GB. Bounded property tests (a few seconds), over arbitrary bytes and over valid samples
//! with words overwritten by extreme lengths.
//!
//! What the decoder does with huge lengths (cdr-encoding 0.11): a string or byte sequence
//! takes its bytes as a slice of the input (a length past the end is `Eof` before any
//! allocation); a sequence of elements gives serde no size hint, so `Vec` grows only with
//! elements actually decoded, each consuming input. The test measures the largest single
//! allocation while decoding and bounds it by the input size.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use fieldproof_msgs::{AnyMessage, MessageKind};
use proptest::prelude::*;

/// The system allocator, recording the largest single request made by this thread while
/// recording is on.
struct Recording;

thread_local! {
    static LARGEST: Cell<Option<usize>> = const { Cell::new(None) };
}

// SAFETY: forwards every call to `System` unchanged; only reads and writes a thread-local
// `Cell` (const-initialised, no destructor, so no allocation and no re-entrance).
unsafe impl GlobalAlloc for Recording {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        note(layout.size());
        System.alloc(layout)
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        note(layout.size());
        System.alloc_zeroed(layout)
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        note(new_size);
        System.realloc(ptr, layout, new_size)
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout)
    }
}

fn note(size: usize) {
    let _ = LARGEST.try_with(|l| {
        if let Some(max) = l.get() {
            l.set(Some(max.max(size)));
        }
    });
}

#[global_allocator]
static ALLOCATOR: Recording = Recording;

/// Decodes `bytes` as `kind`; returns the largest single allocation made meanwhile.
fn decode_recording(kind: MessageKind, bytes: &[u8]) -> usize {
    LARGEST.with(|l| l.set(Some(0)));
    let result = AnyMessage::from_cdr(kind, bytes);
    let largest = LARGEST.with(|l| l.replace(None)).unwrap_or(0);
    drop(result);
    largest
}

/// The most a decode of `len` input bytes may allocate at once: a decoded value is at
/// most a small multiple of its wire size (a 4-byte empty string becomes a 24-byte
/// `String`; a `Vec` may double), plus a fixed allowance.
fn allocation_bound(len: usize) -> usize {
    64 * len + 64 * 1024
}

fn any_kind() -> impl Strategy<Value = MessageKind> {
    prop::sample::select(MessageKind::ALL)
}

/// A 32-bit word a hostile sample would put where a length goes.
fn extreme_word() -> impl Strategy<Value = u32> {
    prop_oneof![
        Just(u32::MAX),
        Just(u32::MAX - 3),
        Just(0x8000_0000),
        Just(0x4000_0000),
        Just(1 << 20),
        Just(0),
        any::<u32>(),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_bytes_never_panic_nor_allocate_without_bound(
        kind in any_kind(),
        le in any::<bool>(),
        body in prop::collection::vec(any::<u8>(), 0..512),
    ) {
        let mut bytes = vec![0, u8::from(le), 0, 0];
        bytes.extend_from_slice(&body);
        let largest = decode_recording(kind, &bytes);
        prop_assert!(
            largest <= allocation_bound(bytes.len()),
            "{}: {} bytes allocated at once for a {}-byte sample",
            kind.name(), largest, bytes.len()
        );
    }

    #[test]
    fn valid_samples_with_extreme_lengths_never_panic_nor_allocate_without_bound(
        kind in any_kind(),
        words in prop::collection::vec((any::<prop::sample::Index>(), extreme_word()), 1..4),
        cut in any::<prop::sample::Index>(),
    ) {
        // A well-formed sample of the type with a few aligned words overwritten, so the
        // decoder gets past the fixed fields and meets the lengths.
        let mut bytes = AnyMessage::default_of(kind).to_cdr().unwrap();
        let mut extended = bytes.clone();
        for (at, word) in &words {
            let slots = (bytes.len() - 4) / 4;
            if slots == 0 {
                continue;
            }
            let at = 4 + 4 * at.index(slots);
            bytes[at..at + 4].copy_from_slice(&word.to_le_bytes());
            extended[at..at + 4].copy_from_slice(&word.to_le_bytes());
        }
        // The same, with some plausible payload after it and truncated somewhere.
        extended.extend(std::iter::repeat_n(0x41, 64));
        let truncated = &extended[..4 + cut.index(extended.len() - 3)];
        for sample in [&bytes[..], &extended[..], truncated] {
            let largest = decode_recording(kind, sample);
            prop_assert!(
                largest <= allocation_bound(sample.len()),
                "{}: {} bytes allocated at once for a {}-byte sample",
                kind.name(), largest, sample.len()
            );
        }
    }
}

/// A 4 GB length in front of every string and sequence of every type: refused quickly,
/// nothing near 4 GB reserved.
#[test]
fn a_4_gb_length_prefix_is_refused_without_reserving_it() {
    for &kind in MessageKind::ALL {
        let mut bytes = vec![0, 1, 0, 0];
        bytes.extend(std::iter::repeat_n(0xff, 256));
        let largest = decode_recording(kind, &bytes);
        assert!(
            largest <= allocation_bound(bytes.len()),
            "{}: {largest} bytes allocated at once",
            kind.name()
        );
        assert!(
            AnyMessage::from_cdr(kind, &bytes).is_err(),
            "{}",
            kind.name()
        );
    }
}

/// The recording sees what a decode allocates (else the bounds above prove nothing).
#[test]
fn the_recording_sees_a_large_decoded_field() {
    let image = fieldproof_msgs::sensor_msgs::Image {
        data: vec![7; 100_000],
        ..Default::default()
    };
    let bytes = fieldproof_msgs::cdr::to_bytes(&image).unwrap();
    let largest = decode_recording(
        MessageKind::from_name("sensor_msgs/msg/Image").unwrap(),
        &bytes,
    );
    assert!(largest >= 100_000, "{largest}");
}
