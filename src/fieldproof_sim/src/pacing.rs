//! Real-time pacing: how many steps may run now for a real-time factor, pause and step
//! requests. Pure bookkeeping over a wall clock the caller passes in (testable).

use std::time::{Duration, Instant};

/// Simulation time the pacer may fall behind its target before it lets the backlog go.
pub const MAX_LAG_NS: f64 = 100e6;

/// Paces simulation time against the wall clock.
#[derive(Debug, Clone)]
pub struct Pacer {
    rtf: f64,
    paused: bool,
    anchor_wall: Instant,
    anchor_sim_ns: i64,
    pending_steps: u64,
}

impl Pacer {
    /// A pacer at real-time factor `rtf` (1: real time, 2: twice as fast, 0: as fast as
    /// possible), anchored at `now` and simulation time `sim_ns`.
    pub fn new(rtf: f64, now: Instant, sim_ns: i64) -> Self {
        Self {
            rtf: rtf.max(0.0),
            paused: false,
            anchor_wall: now,
            anchor_sim_ns: sim_ns,
            pending_steps: 0,
        }
    }

    /// The real-time factor.
    pub fn real_time_factor(&self) -> f64 {
        self.rtf
    }

    /// Changes the real-time factor from now on.
    pub fn set_real_time_factor(&mut self, rtf: f64, now: Instant, sim_ns: i64) {
        self.rtf = rtf.max(0.0);
        self.anchor_wall = now;
        self.anchor_sim_ns = sim_ns;
    }

    /// Pauses or resumes (resuming re-anchors, so the time paused is not caught up).
    pub fn set_paused(&mut self, paused: bool, now: Instant, sim_ns: i64) {
        if self.paused && !paused {
            self.anchor_wall = now;
            self.anchor_sim_ns = sim_ns;
        }
        self.paused = paused;
    }

    /// True while paused.
    pub fn paused(&self) -> bool {
        self.paused
    }

    /// Queues `n` steps to run while paused (a step request).
    pub fn request_steps(&mut self, n: u64) {
        self.pending_steps += n;
    }

    /// How many steps of `step_ns` may run at `now` (at most `max`), and how long to wait
    /// before asking again when none may.
    pub fn allowance(
        &mut self,
        now: Instant,
        sim_ns: i64,
        step_ns: i64,
        max: u64,
    ) -> (u64, Duration) {
        if self.paused {
            let n = self.pending_steps.min(max);
            self.pending_steps -= n;
            // Keep the anchor current so resuming does not jump.
            self.anchor_wall = now;
            self.anchor_sim_ns = sim_ns + n as i64 * step_ns;
            return (n, Duration::from_millis(if n == 0 { 5 } else { 0 }));
        }
        if self.rtf == 0.0 {
            return (max, Duration::ZERO);
        }
        let wall_ns = now.saturating_duration_since(self.anchor_wall).as_nanos() as f64;
        let target_sim = self.anchor_sim_ns as f64 + wall_ns * self.rtf;
        let mut behind = target_sim - sim_ns as f64;
        if behind > MAX_LAG_NS {
            // Too slow for this factor: let the backlog go (the achieved factor drops, as
            // Gazebo's does) instead of bursting through it.
            self.anchor_wall = now;
            self.anchor_sim_ns = sim_ns + MAX_LAG_NS as i64;
            behind = MAX_LAG_NS;
        }
        if behind >= step_ns as f64 {
            ((behind / step_ns as f64) as u64)
                .min(max)
                .max(1)
                .pipe(|n| (n, Duration::ZERO))
        } else {
            let wait = (step_ns as f64 - behind) / self.rtf;
            (0, Duration::from_nanos(wait.max(0.0) as u64))
        }
    }
}

trait Pipe: Sized {
    fn pipe<R>(self, f: impl FnOnce(Self) -> R) -> R {
        f(self)
    }
}
impl<T> Pipe for T {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn allowance_follows_the_real_time_factor() {
        let t0 = Instant::now();
        let mut p = Pacer::new(2.0, t0, 0);
        // 10 ms of wall time at 2x: 20 steps of 1 ms.
        let (n, _) = p.allowance(t0 + Duration::from_millis(10), 0, 1_000_000, 1000);
        assert_eq!(n, 20);
        let (n, wait) = p.allowance(t0 + Duration::from_millis(10), 20_000_000, 1_000_000, 1000);
        assert_eq!(n, 0);
        assert_eq!(wait, Duration::from_micros(500));
        let mut fast = Pacer::new(0.0, t0, 0);
        assert_eq!(fast.allowance(t0, 0, 1_000_000, 50).0, 50);
    }

    #[test]
    fn a_backlog_is_dropped_not_burst_through() {
        let t0 = Instant::now();
        let mut p = Pacer::new(1.0, t0, 0);
        // 5 s late: at most MAX_LAG_NS of steps, not 5000.
        let (n, _) = p.allowance(t0 + Duration::from_secs(5), 0, 1_000_000, 100_000);
        assert_eq!(n, 100);
        let (n, _) = p.allowance(t0 + Duration::from_secs(5), 100_000_000, 1_000_000, 100_000);
        assert_eq!(n, 0);
    }

    #[test]
    fn paused_runs_only_requested_steps() {
        let t0 = Instant::now();
        let mut p = Pacer::new(1.0, t0, 0);
        p.set_paused(true, t0, 0);
        assert_eq!(
            p.allowance(t0 + Duration::from_secs(1), 0, 1_000_000, 1000)
                .0,
            0
        );
        p.request_steps(3);
        assert_eq!(
            p.allowance(t0 + Duration::from_secs(1), 0, 1_000_000, 1000)
                .0,
            3
        );
        assert_eq!(
            p.allowance(t0 + Duration::from_secs(1), 3_000_000, 1_000_000, 1000)
                .0,
            0
        );
        p.set_paused(false, t0 + Duration::from_secs(2), 3_000_000);
        // Resumed: no catching up of the paused time.
        assert_eq!(
            p.allowance(t0 + Duration::from_secs(2), 3_000_000, 1_000_000, 1000)
                .0,
            0
        );
    }
}
