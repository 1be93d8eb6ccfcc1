//! The node's ROS clock: simulation time from `/clock` while `use_sim_time` is true, the
//! system clock otherwise, and timers that tick in that clock.
//!
//! The nodes of one participant (a process: one node, or a container's nodes) share one
//! [`SimTime`], fed by one `/clock` subscription however many of them follow it: each
//! `/clock` sample is received, deserialized and stored once per process, not once per node.

use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use event_listener::Event;
use futures::FutureExt;

use crate::msgs::builtin_interfaces::Time;

/// Nanoseconds → `builtin_interfaces/Time` (negative times clamp to zero; seconds saturate).
pub fn time_from_nanos(ns: i64) -> Time {
    let ns = ns.max(0);
    let sec = (ns / 1_000_000_000).min(i32::MAX as i64) as i32;
    Time {
        sec,
        nanosec: (ns % 1_000_000_000) as u32,
    }
}

/// `builtin_interfaces/Time` → nanoseconds.
pub fn nanos_from_time(t: Time) -> i64 {
    t.sec as i64 * 1_000_000_000 + t.nanosec as i64
}

fn system_nanos() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos() as i64)
        .unwrap_or(0)
}

/// Simulation time as the last `/clock` sample gave it, shared by the clocks of one
/// participant's nodes, and which of them feeds it.
#[derive(Debug, Default)]
pub(crate) struct SimTime {
    ns: AtomicI64,
    /// Notified on every sample and on every clock's `use_sim_time` change.
    changed: Event,
    /// Whether a node's follower holds the `/clock` subscription ([`SimTime::feed`]).
    fed: AtomicBool,
    /// Notified when the follower holding the subscription lets it go.
    released: Event,
}

impl SimTime {
    /// Time zero, no feeder.
    pub(crate) fn new() -> Arc<SimTime> {
        Arc::new(SimTime::default())
    }

    /// Takes the feeder's place if it is free: the one follower that subscribes `/clock`
    /// for all the participant's nodes holds it until the returned guard drops.
    pub(crate) fn feed(self: &Arc<Self>) -> Option<Feeder> {
        self.fed
            .compare_exchange(false, true, Ordering::AcqRel, Ordering::Acquire)
            .ok()
            .map(|_| Feeder(self.clone()))
    }

    /// Waits until no follower feeds the time (the feeder's node stopped following).
    pub(crate) async fn wait_unfed(&self) {
        loop {
            let listener = self.released.listen();
            if !self.fed.load(Ordering::Acquire) {
                return;
            }
            listener.await;
        }
    }
}

/// The feeder's place (see [`SimTime::feed`]), released when dropped.
#[derive(Debug)]
pub(crate) struct Feeder(Arc<SimTime>);

impl Drop for Feeder {
    fn drop(&mut self) {
        self.0.fed.store(false, Ordering::Release);
        self.0.released.notify(usize::MAX);
    }
}

struct ClockInner {
    use_sim: AtomicBool,
    sim: Arc<SimTime>,
}

/// The node's ROS clock (cheap to clone, shared).
#[derive(Clone)]
pub struct Clock {
    inner: Arc<ClockInner>,
}

impl Default for Clock {
    fn default() -> Self {
        Clock::new(false)
    }
}

impl std::fmt::Debug for Clock {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Clock")
            .field("use_sim_time", &self.is_sim())
            .field("now_nanos", &self.now_nanos())
            .finish()
    }
}

impl Clock {
    /// A clock of its own; with `use_sim_time` it reads 0 until the first `/clock` sample.
    pub fn new(use_sim_time: bool) -> Clock {
        Clock::sharing(use_sim_time, SimTime::new())
    }

    /// A clock that reads simulation time from `sim` (shared with the other nodes of its
    /// participant) while `use_sim_time` is true.
    pub(crate) fn sharing(use_sim_time: bool, sim: Arc<SimTime>) -> Clock {
        Clock {
            inner: Arc::new(ClockInner {
                use_sim: AtomicBool::new(use_sim_time),
                sim,
            }),
        }
    }

    /// The simulation time this clock reads while `use_sim_time` is true.
    pub(crate) fn sim_time(&self) -> &Arc<SimTime> {
        &self.inner.sim
    }

    /// Whether this clock follows `/clock`.
    pub fn is_sim(&self) -> bool {
        self.inner.use_sim.load(Ordering::Acquire)
    }

    /// Switches between simulation and system time (the `use_sim_time` parameter).
    pub fn set_sim(&self, on: bool) {
        self.inner.use_sim.store(on, Ordering::Release);
        self.inner.sim.changed.notify(usize::MAX);
    }

    /// Feeds a `/clock` sample (to every clock sharing this one's simulation time).
    pub fn set_sim_time(&self, t: Time) {
        let sim = &self.inner.sim;
        sim.ns.store(nanos_from_time(t), Ordering::Release);
        sim.changed.notify(usize::MAX);
    }

    /// Current ROS time in nanoseconds since the epoch.
    pub fn now_nanos(&self) -> i64 {
        if self.is_sim() {
            self.inner.sim.ns.load(Ordering::Acquire)
        } else {
            system_nanos()
        }
    }

    /// Current ROS time.
    pub fn now(&self) -> Time {
        time_from_nanos(self.now_nanos())
    }

    /// Waits until ROS time reaches `target_ns`. In simulation time this sleeps until
    /// `/clock` samples get there (no polling while `/clock` is silent).
    pub async fn sleep_until_nanos(&self, target_ns: i64) {
        loop {
            let listener = self.inner.sim.changed.listen();
            let now = self.now_nanos();
            if now >= target_ns {
                return;
            }
            self.wait(listener, target_ns - now).await;
        }
    }

    /// Waits for `d` of ROS time.
    pub async fn sleep(&self, d: Duration) {
        let target = self.now_nanos().saturating_add(d.as_nanos() as i64);
        self.sleep_until_nanos(target).await
    }

    async fn wait(&self, listener: event_listener::EventListener, remaining_ns: i64) {
        if self.is_sim() {
            listener.await;
        } else {
            let t = async_io::Timer::after(Duration::from_nanos(remaining_ns.max(0) as u64));
            futures::select! {
                _ = listener.fuse() => {},
                _ = FutureExt::fuse(t) => {},
            }
        }
    }

    /// Waits until the clock is (`true`) or is not (`false`) in simulation time.
    pub(crate) async fn wait_sim(&self, want: bool) {
        loop {
            let listener = self.inner.sim.changed.listen();
            if self.is_sim() == want {
                return;
            }
            listener.await;
        }
    }

    /// A timer ticking every `period` of this clock, first one `period` from now.
    pub fn timer(&self, period: Duration) -> Timer {
        let period_ns = (period.as_nanos() as i64).max(1);
        Timer {
            clock: self.clone(),
            period_ns,
            next: self.now_nanos().saturating_add(period_ns),
        }
    }
}

/// A periodic timer in ROS time (see [`Clock::timer`]). Like rcl timers, periods missed
/// because time jumped are skipped (one tick, then realigned), and a backwards time jump
/// restarts the timer.
#[derive(Debug)]
pub struct Timer {
    clock: Clock,
    period_ns: i64,
    next: i64,
}

impl Timer {
    /// Waits for the next tick; returns the ROS time (nanoseconds) at the tick.
    pub async fn tick(&mut self) -> i64 {
        loop {
            let listener = self.clock.inner.sim.changed.listen();
            let now = self.clock.now_nanos();
            if now < self.next - self.period_ns {
                // time went backwards (simulation reset): restart
                self.next = now.saturating_add(self.period_ns);
            }
            if now >= self.next {
                let ahead = now - self.next;
                self.next += (ahead / self.period_ns + 1) * self.period_ns;
                return now;
            }
            self.clock.wait(listener, self.next - now).await;
        }
    }

    /// The period.
    pub fn period(&self) -> Duration {
        Duration::from_nanos(self.period_ns as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures::task::noop_waker;
    use std::future::Future;
    use std::pin::pin;
    use std::task::{Context, Poll};

    fn t(ms: i64) -> Time {
        time_from_nanos(ms * 1_000_000)
    }

    #[test]
    fn conversions() {
        assert_eq!(
            time_from_nanos(1_500_000_000),
            Time {
                sec: 1,
                nanosec: 500_000_000
            }
        );
        assert_eq!(nanos_from_time(Time { sec: 2, nanosec: 5 }), 2_000_000_005);
        assert_eq!(time_from_nanos(-5), Time::default());
    }

    #[test]
    fn sim_clock_reads_clock_samples() {
        let c = Clock::new(true);
        assert_eq!(c.now_nanos(), 0);
        c.set_sim_time(t(1234));
        assert_eq!(c.now(), t(1234));
        c.set_sim(false);
        assert!(c.now().sec > 1_600_000_000);
    }

    /// Drives a 20 Hz timer by hand with 10 ms sim-time steps over 1 s: 20 ticks, and the
    /// timer future stays pending (not spinning) between steps.
    #[test]
    fn sim_timer_ticks_per_sim_period() {
        let c = Clock::new(true);
        let mut timer = c.timer(Duration::from_millis(50));
        let waker = noop_waker();
        let mut cx = Context::from_waker(&waker);
        let mut ticks = Vec::new();
        for step in 0..=100 {
            c.set_sim_time(t(step * 10));
            loop {
                let fut = pin!(timer.tick());
                match fut.poll(&mut cx) {
                    Poll::Ready(now) => ticks.push(now / 1_000_000),
                    Poll::Pending => break,
                }
            }
        }
        assert_eq!(ticks.len(), 20, "{ticks:?}");
        assert_eq!(ticks[0], 50);
        assert_eq!(ticks[19], 1000);
    }

    #[test]
    fn sim_timer_skips_missed_periods_and_restarts_on_reset() {
        let c = Clock::new(true);
        c.set_sim_time(t(1000));
        let mut timer = c.timer(Duration::from_millis(100));
        let waker = noop_waker();
        let mut cx = Context::from_waker(&waker);
        let mut poll = |timer: &mut Timer| match pin!(timer.tick()).poll(&mut cx) {
            Poll::Ready(n) => Some(n / 1_000_000),
            Poll::Pending => None,
        };
        assert_eq!(poll(&mut timer), None);
        c.set_sim_time(t(1550)); // 5 periods late: one tick
        assert_eq!(poll(&mut timer), Some(1550));
        assert_eq!(poll(&mut timer), None);
        c.set_sim_time(t(1600));
        assert_eq!(poll(&mut timer), Some(1600));
        c.set_sim_time(t(0)); // reset
        assert_eq!(poll(&mut timer), None);
        c.set_sim_time(t(100));
        assert_eq!(poll(&mut timer), Some(100));
    }

    /// Clocks sharing one simulation time read every sample fed through any of them; one
    /// that does not follow `/clock` reads the system clock; one feeder at a time.
    #[test]
    fn clocks_of_one_participant_share_their_simulation_time() {
        let sim = SimTime::new();
        let (a, b) = (
            Clock::sharing(true, sim.clone()),
            Clock::sharing(true, sim.clone()),
        );
        let system = Clock::sharing(false, sim.clone());
        a.set_sim_time(t(250));
        assert_eq!(b.now(), t(250));
        assert!(system.now().sec > 1_600_000_000);
        let feeder = a.sim_time().feed().expect("the feeder's place is free");
        assert!(b.sim_time().feed().is_none(), "one feeder at a time");
        let waiting = std::thread::spawn({
            let sim = sim.clone();
            move || smol::block_on(sim.wait_unfed())
        });
        drop(feeder);
        waiting.join().unwrap();
        assert!(
            b.sim_time().feed().is_some(),
            "free again once the feeder let go"
        );
    }

    #[test]
    fn system_timer_ticks() {
        let c = Clock::new(false);
        let mut timer = c.timer(Duration::from_millis(5));
        let start = c.now_nanos();
        let a = smol::block_on(timer.tick());
        let b = smol::block_on(timer.tick());
        assert!(a - start >= 5_000_000);
        assert!(b > a);
    }
}
