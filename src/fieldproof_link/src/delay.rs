//! The delay line of one direction of a link, with netem's semantics and no I/O:
//! every frame gets a release time from the profile (or is dropped), and frames leave in
//! release order (a binary heap keyed by release time, then arrival).
//!
//! - loss: each frame independently, before anything else;
//! - reorder: a frame is sent at once (release = now) instead of delayed, so it overtakes;
//! - latency + jitter: `latency + jitter · N(0, 1)`, clamped at 0 (without a rate, jitter
//!   reorders as in netem's time-sorted queue);
//! - rate: a frame's transmission time `len · 8 / rate` is added behind the last queued
//!   frame (netem's rule: the queue's tail is the reference point), so a burst queues;
//!   each band holds at most [`QUEUE_LIMIT`] frames and drops what does not fit.
//!
//! Two bands as in the kernel tree: ICMP (the ground station's probes) gets latency,
//! jitter, loss and reordering only; everything else also the rate and the queue.

use crate::profile::Profile;
use crate::rng::Rng;
use serde::Serialize;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Frames the traffic band holds (netem's default limit).
pub const QUEUE_LIMIT: usize = 1000;

/// Which band a frame takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Band {
    /// ICMP: the probes, unaffected by the rate's queue.
    Probe,
    /// Everything else.
    Traffic,
}

/// ICMP over IPv4 (optionally VLAN-tagged) is the probe band; everything else traffic.
pub fn classify(frame: &[u8]) -> Band {
    let mut off = 12;
    let ethertype = |o: usize| {
        frame
            .get(o..o + 2)
            .map(|b| u16::from_be_bytes([b[0], b[1]]))
    };
    let mut et = ethertype(off);
    if et == Some(0x8100) {
        off += 4;
        et = ethertype(off);
    }
    if et == Some(0x0800) && frame.get(off + 2 + 9) == Some(&1) {
        Band::Probe
    } else {
        Band::Traffic
    }
}

/// Counters of one band of one direction.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct BandCounters {
    /// Frames that entered.
    pub rx_packets: u64,
    /// Bytes that entered.
    pub rx_bytes: u64,
    /// Frames delivered.
    pub packets: u64,
    /// Bytes delivered.
    pub bytes: u64,
    /// Frames dropped by the profile's loss (a dropped link included).
    pub drops_loss: u64,
    /// Frames dropped because the queue was full.
    pub drops_overflow: u64,
    /// Frames queued now.
    pub backlog_packets: u64,
    /// Bytes queued now.
    pub backlog_bytes: u64,
}

impl BandCounters {
    /// All drops.
    pub fn drops(&self) -> u64 {
        self.drops_loss + self.drops_overflow
    }
}

/// Lateness of deliveries against their release time, in 1 µs buckets up to 10 ms.
#[derive(Debug, Clone)]
pub struct Lateness {
    buckets: Vec<u64>,
    count: u64,
    max_ns: u64,
    sum_ns: u128,
}

impl Default for Lateness {
    fn default() -> Self {
        Lateness {
            buckets: vec![0; 10_001],
            count: 0,
            max_ns: 0,
            sum_ns: 0,
        }
    }
}

/// Summary of [`Lateness`] (µs).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct LatenessSummary {
    /// Deliveries measured.
    pub count: u64,
    /// Mean lateness.
    pub mean_us: f64,
    /// Median.
    pub p50_us: u64,
    /// 90th percentile.
    pub p90_us: u64,
    /// 99th percentile.
    pub p99_us: u64,
    /// 99.9th percentile.
    pub p999_us: u64,
    /// Largest.
    pub max_us: f64,
}

impl Lateness {
    /// Records one delivery `ns` after its release time.
    pub fn record(&mut self, ns: u64) {
        let b = ((ns / 1000) as usize).min(self.buckets.len() - 1);
        self.buckets[b] += 1;
        self.count += 1;
        self.max_ns = self.max_ns.max(ns);
        self.sum_ns += ns as u128;
    }

    /// Percentiles (bucket upper bounds, so conservative by < 1 µs).
    pub fn summary(&self) -> LatenessSummary {
        let pct = |q: f64| -> u64 {
            let target = ((self.count as f64) * q).ceil() as u64;
            let mut acc = 0;
            for (i, c) in self.buckets.iter().enumerate() {
                acc += c;
                if acc >= target.max(1) {
                    return i as u64 + 1;
                }
            }
            self.buckets.len() as u64
        };
        if self.count == 0 {
            return LatenessSummary::default();
        }
        LatenessSummary {
            count: self.count,
            mean_us: self.sum_ns as f64 / self.count as f64 / 1000.0,
            p50_us: pct(0.5),
            p90_us: pct(0.9),
            p99_us: pct(0.99),
            p999_us: pct(0.999),
            max_us: self.max_ns as f64 / 1000.0,
        }
    }
}

#[derive(Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Pending {
    release_ns: u64,
    seq: u64,
    probe: bool,
    data: Vec<u8>,
}

/// What happened to an enqueued frame.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Enqueued {
    /// Queued, to leave at this time (ns on the caller's clock).
    At(u64),
    /// Lost by the profile.
    Lost,
    /// The traffic band's queue was full.
    Overflow,
}

/// One direction's delay line.
#[derive(Debug)]
pub struct DelayLine {
    profile: Profile,
    rng: Rng,
    heap: BinaryHeap<Reverse<Pending>>,
    seq: u64,
    /// Release time of the last traffic frame queued behind the rate.
    tail_ns: u64,
    /// Traffic band counters.
    pub traffic: BandCounters,
    /// Probe band counters.
    pub probe: BandCounters,
    /// Delivery lateness (filled by the I/O loop).
    pub lateness: Lateness,
}

impl DelayLine {
    /// An empty line carrying `profile`, drawing from `rng`.
    pub fn new(profile: Profile, rng: Rng) -> Self {
        DelayLine {
            profile,
            rng,
            heap: BinaryHeap::new(),
            seq: 0,
            tail_ns: 0,
            traffic: BandCounters::default(),
            probe: BandCounters::default(),
            lateness: Lateness::default(),
        }
    }

    /// The profile in force.
    pub fn profile(&self) -> &Profile {
        &self.profile
    }

    /// Changes the profile for the frames that arrive from now on (queued frames keep
    /// their release time, as `tc qdisc change` does).
    pub fn set_profile(&mut self, p: Profile) {
        self.profile = p;
    }

    /// Frames queued (both bands).
    pub fn len(&self) -> usize {
        self.heap.len()
    }

    /// Whether nothing is queued.
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }

    /// Offers a frame that arrived at `now_ns`.
    pub fn enqueue(&mut self, now_ns: u64, data: Vec<u8>) -> Enqueued {
        let probe = classify(&data) == Band::Probe;
        let len = data.len() as u64;
        let p = &self.profile;
        let c = if probe {
            &mut self.probe
        } else {
            &mut self.traffic
        };
        c.rx_packets += 1;
        c.rx_bytes += len;
        if self.rng.chance_pct(p.loss_pct) {
            c.drops_loss += 1;
            return Enqueued::Lost;
        }
        if c.backlog_packets as usize >= QUEUE_LIMIT {
            c.drops_overflow += 1;
            return Enqueued::Overflow;
        }
        let release = if p.reorder_pct > 0.0 && self.rng.chance_pct(p.reorder_pct) {
            now_ns
        } else {
            let mut delay = p.latency_ms * 1e6;
            if p.jitter_ms > 0.0 {
                delay += p.jitter_ms * 1e6 * self.rng.normal();
            }
            let mut delay = delay.max(0.0) as u64;
            let mut base = now_ns;
            match p.rate_kbit {
                Some(rate) if !probe => {
                    if self.tail_ns > now_ns {
                        delay = delay.saturating_sub(self.tail_ns - now_ns);
                        base = self.tail_ns;
                    }
                    delay += (len as f64 * 8.0 / (rate * 1000.0) * 1e9) as u64;
                    self.tail_ns = base + delay;
                }
                _ => {}
            }
            base + delay
        };
        c.backlog_packets += 1;
        c.backlog_bytes += len;
        self.seq += 1;
        self.heap.push(Reverse(Pending {
            release_ns: release,
            seq: self.seq,
            probe,
            data,
        }));
        Enqueued::At(release)
    }

    /// Release time of the next frame.
    pub fn next_release(&self) -> Option<u64> {
        self.heap.peek().map(|Reverse(p)| p.release_ns)
    }

    /// Takes the next frame due at `now_ns`, with its release time.
    pub fn pop_due(&mut self, now_ns: u64) -> Option<(u64, Vec<u8>)> {
        if self.next_release()? > now_ns {
            return None;
        }
        let Reverse(p) = self.heap.pop()?;
        let c = if p.probe {
            &mut self.probe
        } else {
            &mut self.traffic
        };
        let len = p.data.len() as u64;
        c.backlog_packets -= 1;
        c.backlog_bytes -= len;
        c.packets += 1;
        c.bytes += len;
        Some((p.release_ns, p.data))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    /// An Ethernet + IPv4 frame of `len` bytes with IP protocol `proto`.
    pub(crate) fn frame(len: usize, proto: u8) -> Vec<u8> {
        let mut f = vec![0u8; len.max(34)];
        f[12] = 0x08;
        f[13] = 0x00;
        f[14 + 9] = proto;
        f
    }

    fn line(p: Profile) -> DelayLine {
        DelayLine::new(p, Rng::new(42))
    }

    #[test]
    fn classify_icmp_as_probe() {
        assert_eq!(classify(&frame(98, 1)), Band::Probe);
        assert_eq!(classify(&frame(98, 17)), Band::Traffic);
        assert_eq!(classify(&[0u8; 10]), Band::Traffic);
        let mut arp = frame(60, 1);
        arp[12] = 0x08;
        arp[13] = 0x06;
        assert_eq!(classify(&arp), Band::Traffic);
    }

    #[test]
    fn latency_delays_every_frame_and_keeps_order() {
        let mut l = line(Profile {
            latency_ms: 5.0,
            ..Default::default()
        });
        assert_eq!(l.enqueue(0, frame(100, 17)), Enqueued::At(5 * MS));
        assert_eq!(l.enqueue(MS, frame(100, 17)), Enqueued::At(6 * MS));
        assert!(l.pop_due(5 * MS - 1).is_none());
        assert_eq!(l.pop_due(5 * MS).unwrap().0, 5 * MS);
        assert_eq!(l.traffic.backlog_packets, 1);
        assert_eq!(l.pop_due(10 * MS).unwrap().0, 6 * MS);
        assert_eq!(
            (l.traffic.packets, l.traffic.bytes, l.traffic.backlog_bytes),
            (2, 200, 0)
        );
    }

    #[test]
    fn jitter_is_normal_around_the_latency() {
        let mut l = line(Profile {
            latency_ms: 60.0,
            jitter_ms: 20.0,
            ..Default::default()
        });
        let n = 20_000;
        let ds: Vec<f64> = (0..n)
            .map(|_| {
                let r = l.enqueue(0, frame(60, 17));
                l.pop_due(u64::MAX);
                match r {
                    Enqueued::At(t) => t as f64 / 1e6,
                    e => panic!("{e:?}"),
                }
            })
            .collect();
        let mean = ds.iter().sum::<f64>() / n as f64;
        let sd = (ds.iter().map(|d| (d - mean).powi(2)).sum::<f64>() / n as f64).sqrt();
        // Standard error of the mean 0.14 ms, of the sd about 0.1 ms: bounds are > 5 σ.
        assert!((mean - 60.0).abs() < 1.0, "{mean}");
        assert!((sd - 20.0).abs() < 1.0, "{sd}");
    }

    #[test]
    fn loss_is_independent_at_the_rate() {
        let mut l = line(Profile {
            loss_pct: 3.0,
            ..Default::default()
        });
        let lost = (0..100_000)
            .filter(|_| l.enqueue(0, frame(60, 17)) == Enqueued::Lost)
            .count();
        // Expected 3000, sd 54: ±400 is > 7 σ.
        assert!((2600..3400).contains(&lost), "{lost}");
        assert_eq!(l.traffic.drops_loss as usize, lost);
        let mut d = line(Profile::drop_profile());
        assert!((0..1000).all(|_| d.enqueue(0, frame(60, 1)) == Enqueued::Lost));
    }

    #[test]
    fn reorder_sends_at_once_and_overtakes() {
        let mut l = line(Profile {
            latency_ms: 10.0,
            reorder_pct: 25.0,
            ..Default::default()
        });
        let n = 10_000;
        let at_once = (0..n)
            .filter(|_| {
                let r = l.enqueue(MS, frame(60, 17));
                l.pop_due(u64::MAX);
                r == Enqueued::At(MS)
            })
            .count();
        // Expected 2500, sd 43.
        assert!((2250..2750).contains(&at_once), "{at_once}");
        let mut l = line(Profile {
            latency_ms: 10.0,
            reorder_pct: 100.0,
            ..Default::default()
        });
        l.set_profile(Profile {
            latency_ms: 10.0,
            ..Default::default()
        });
        l.enqueue(0, b"first-delayed-frame-padding-up-to-34-bytes".to_vec());
        l.set_profile(Profile {
            latency_ms: 10.0,
            reorder_pct: 100.0,
            ..Default::default()
        });
        l.enqueue(MS, b"second-overtakes-frame-padding-up-to-34-b".to_vec());
        assert!(l.pop_due(MS).unwrap().1.starts_with(b"second"));
    }

    #[test]
    fn rate_spaces_a_burst_and_the_queue_overflows() {
        // 1000 kbit/s: a 1250-byte frame takes 10 ms.
        let mut l = line(Profile {
            latency_ms: 20.0,
            rate_kbit: Some(1000.0),
            ..Default::default()
        });
        let r: Vec<Enqueued> = (0..3).map(|_| l.enqueue(0, frame(1250, 17))).collect();
        assert_eq!(
            r,
            vec![
                Enqueued::At(30 * MS),
                Enqueued::At(40 * MS),
                Enqueued::At(50 * MS)
            ]
        );
        // An idle link again after the queue drained: latency + transmission time.
        assert_eq!(l.enqueue(100 * MS, frame(1250, 17)), Enqueued::At(130 * MS));
        // A probe bypasses the rate's queue.
        assert_eq!(l.enqueue(100 * MS, frame(1250, 1)), Enqueued::At(120 * MS));

        let mut q = line(Profile {
            rate_kbit: Some(1000.0),
            ..Default::default()
        });
        let res: Vec<Enqueued> = (0..1200).map(|_| q.enqueue(0, frame(100, 17))).collect();
        assert_eq!(
            res.iter().filter(|e| **e == Enqueued::Overflow).count(),
            200
        );
        assert_eq!(
            (q.traffic.backlog_packets, q.traffic.drops_overflow),
            (1000, 200)
        );
        // Probes still get through a full traffic queue.
        assert!(matches!(q.enqueue(0, frame(100, 1)), Enqueued::At(_)));
    }

    #[test]
    fn throughput_through_the_rate_matches_it() {
        // Offer 2x the rate for 1 s; what leaves within the second is the rate.
        let mut l = line(Profile {
            rate_kbit: Some(4000.0),
            ..Default::default()
        });
        let frame_bits = 1000.0 * 8.0;
        let offered = (2.0 * 4_000_000.0 / frame_bits) as u64; // 1000 frames/s
        for i in 0..offered {
            l.enqueue(i * 1_000_000_000 / offered, frame(1000, 17));
        }
        let mut delivered = 0u64;
        while l.pop_due(1_000_000_000).is_some() {
            delivered += 1;
        }
        assert_eq!(delivered, 500);
        assert_eq!(l.traffic.drops_overflow, 0);
    }

    #[test]
    fn lateness_percentiles() {
        let mut h = Lateness::default();
        for i in 0..100 {
            h.record(i * 1000);
        }
        let s = h.summary();
        assert_eq!((s.count, s.p50_us, s.p99_us), (100, 50, 99));
        assert!((s.max_us - 99.0).abs() < 1e-9);
    }
}
