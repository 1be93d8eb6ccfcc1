//! What the host delivered during the timeline, so that a host too busy for the stack is not
//! taken for a failing robot. Under load the simulator keeps its pace while the stack's
//! processes wait for a CPU, the closed loop lags and the vehicle fails for the host's sake.
//!
//! Measured over the timeline from the kernel's own accounting: the time every thread of the
//! run's processes spent runnable but waiting for a CPU, per wake-up (`/proc/PID/task/TID/
//! schedstat`: what a timer or a message callback was delayed by before it could run), the
//! cores' busy share (`/proc/stat`), the CPU pressure (`/proc/pressure/cpu`, the share of time
//! some task waited) and the real-time factor the simulation achieved. The wait is judged in
//! simulation time (the wall-clock wait times the factor: what the simulated vehicle sees of
//! it, so a slower simulation asks less of the host): a run whose processes waited more than
//! [`WAKEUP_DELAY_BOUND_MS`] of simulation time per wake-up on average was starved, and if it
//! failed, its verdict is `inconclusive` instead of `failed`.
//!
//! `--real-time-factor auto` ([`Governor`]) judges the same figure over windows of
//! [`AUTO_WINDOW_S`] and paces the simulation at what the host sustains: slower while the
//! threads wait beyond the bound, faster again (up to the factor asked) once they do not.

use serde::Serialize;
use std::collections::HashMap;
use std::time::Instant;

/// Mean wait for a CPU per wake-up of the run's threads over the timeline, in simulation
/// time, above which the host is called overloaded (ms). Measured on a 2-core machine at real
/// time: `ugv_pair_link_loss` quiet 0.23 ms, beside 4 and 12 busy loops 0.81 and 2.75 ms
/// (passed), beside 4 busy loops at `nice -10` 9.2 ms (at 0.91x: 8.4 ms simulated; both
/// vehicles missed their goals); eight UGVs with their stacks, which keep both cores busy by
/// themselves, 1.28 ms (passed). A 50 Hz loop late by a tenth of its period is where the
/// bound sits.
pub const WAKEUP_DELAY_BOUND_MS: f64 = 2.0;

/// run.json's `host`: what the host delivered during the timeline.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HostLoad {
    /// Wall-clock length of the timeline (s).
    pub timeline_wall_s: f64,
    /// Simulation seconds per wall-clock second over the timeline.
    pub achieved_real_time_factor: Option<f64>,
    /// Online CPUs.
    pub cores: usize,
    /// Share of all cores' time spent busy (0..1), from `/proc/stat`.
    pub cpu_busy_share: Option<f64>,
    /// Share of the time at least one task waited for a CPU (0..1), from
    /// `/proc/pressure/cpu`; `None` where the kernel has no pressure accounting.
    pub cpu_pressure_share: Option<f64>,
    /// Threads of the run's processes seen during the timeline.
    pub threads: usize,
    /// CPU time of those threads over the timeline (s).
    pub cpu_s: f64,
    /// Time those threads were runnable but waited for a CPU (s).
    pub waited_s: f64,
    /// Times those threads were put on a CPU.
    pub wakeups: u64,
    /// `waited_s` per wake-up (ms of wall clock): how late a timer or a callback ran on
    /// average.
    pub mean_wakeup_delay_ms: Option<f64>,
    /// The same in simulation time (times the achieved real-time factor): how late the
    /// simulated vehicle saw its timers and callbacks run; what the bound judges.
    pub mean_wakeup_delay_sim_ms: Option<f64>,
    /// The bound on `mean_wakeup_delay_sim_ms` ([`WAKEUP_DELAY_BOUND_MS`]).
    pub wakeup_delay_bound_ms: f64,
    /// Whether the host starved the run beyond the bound.
    pub overloaded: bool,
    /// Under `--real-time-factor auto`: every change of the simulation's pace (none: it
    /// held the factor asked); absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub auto_pace: Option<Vec<PaceChange>>,
}

/// One change of the simulation's pace under `--real-time-factor auto`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PaceChange {
    /// When, in seconds of the timeline (simulation time).
    pub at_s: f64,
    /// The real-time factor set.
    pub real_time_factor: f64,
    /// The mean wait for a CPU per wake-up over the window that decided it (ms).
    pub window_wakeup_delay_ms: f64,
}

/// The slowest `--real-time-factor auto` paces a run (a run's wall-clock limit,
/// `timeouts.run_s`, is scaled by it).
pub const AUTO_FLOOR: f64 = 0.125;

/// Wall-clock seconds of each window `--real-time-factor auto` judges.
pub const AUTO_WINDOW_S: f64 = 5.0;

/// `--real-time-factor auto`: the simulation's pace from window to window. A window whose
/// threads waited beyond [`WAKEUP_DELAY_BOUND_MS`] of simulation time per wake-up (the
/// wall-clock wait times the factor in force) halves the factor (down to [`AUTO_FLOOR`]); one
/// below a quarter of the bound raises it by a quarter (up to the factor asked); in between
/// it holds, so the pace does not swing with every window.
#[derive(Debug, Clone)]
pub struct Governor {
    factor: f64,
    ceiling: f64,
}

impl Governor {
    /// Starts at `asked`, the most it will run at.
    pub fn new(asked: f64) -> Self {
        Governor {
            factor: asked,
            ceiling: asked,
        }
    }

    /// The factor in force.
    pub fn factor(&self) -> f64 {
        self.factor
    }

    /// The slowest it may pace the run: [`AUTO_FLOOR`], or the factor asked when lower.
    pub fn slowest(&self) -> f64 {
        AUTO_FLOOR.min(self.ceiling)
    }

    /// The factor after a window whose threads waited `window_delay_ms` of wall clock per
    /// wake-up; `Some` when it changed.
    pub fn next(&mut self, window_delay_ms: f64) -> Option<f64> {
        let simulated_ms = window_delay_ms * self.factor;
        let next = if simulated_ms > WAKEUP_DELAY_BOUND_MS {
            (self.factor / 2.0).max(self.slowest())
        } else if simulated_ms < WAKEUP_DELAY_BOUND_MS / 4.0 {
            (self.factor * 1.25).min(self.ceiling)
        } else {
            self.factor
        };
        if (next - self.factor).abs() < 1e-9 {
            return None;
        }
        self.factor = next;
        Some(next)
    }
}

impl HostLoad {
    /// One line on what the host delivered, for a verdict or a warning.
    pub fn describe(&self) -> String {
        let mut line = match (self.mean_wakeup_delay_ms, self.mean_wakeup_delay_sim_ms) {
            (Some(ms), Some(sim_ms)) => format!(
                "the run's threads waited {ms:.2} ms for a CPU per wake-up, {sim_ms:.2} ms of simulation time (bound {:.1} ms)",
                self.wakeup_delay_bound_ms
            ),
            (Some(ms), None) => format!(
                "the run's threads waited {ms:.2} ms for a CPU per wake-up (no simulation time passed)"
            ),
            _ => "the run's threads were not measured".to_string(),
        };
        if let Some(busy) = self.cpu_busy_share {
            line += &format!(", {} cores {:.0} % busy", self.cores, busy * 100.0);
        }
        if let Some(pressure) = self.cpu_pressure_share {
            line += &format!(
                ", some task waiting for a CPU {:.0} % of the time",
                pressure * 100.0
            );
        }
        if let Some(rtf) = self.achieved_real_time_factor {
            line += &format!(", simulation at {rtf:.2}x real time");
        }
        line
    }
}

/// A thread's scheduler counters (ns, ns, count).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
struct ThreadTimes {
    on_cpu_ns: u64,
    waited_ns: u64,
    wakeups: u64,
}

impl ThreadTimes {
    fn plus(&self, other: &ThreadTimes) -> ThreadTimes {
        ThreadTimes {
            on_cpu_ns: self.on_cpu_ns + other.on_cpu_ns,
            waited_ns: self.waited_ns + other.waited_ns,
            wakeups: self.wakeups + other.wakeups,
        }
    }

    /// Waited per wake-up (ms), if it woke at all.
    fn wakeup_delay_ms(&self) -> Option<f64> {
        (self.wakeups > 0).then(|| self.waited_ns as f64 / 1e6 / self.wakeups as f64)
    }

    fn since(&self, first: &ThreadTimes) -> ThreadTimes {
        ThreadTimes {
            on_cpu_ns: self.on_cpu_ns.saturating_sub(first.on_cpu_ns),
            waited_ns: self.waited_ns.saturating_sub(first.waited_ns),
            wakeups: self.wakeups.saturating_sub(first.wakeups),
        }
    }
}

/// The host-wide counters: (busy ticks, all ticks) and the CPU pressure total (µs).
#[derive(Debug, Clone, Copy, Default)]
struct HostCounters {
    busy_ticks: Option<(u64, u64)>,
    pressure_us: Option<u64>,
}

impl HostCounters {
    fn read() -> Self {
        use procfs::{Current, CurrentSI, KernelStats};
        let busy_ticks = KernelStats::current().ok().map(|stats| {
            let t = stats.total;
            let idle = t.idle + t.iowait.unwrap_or(0);
            let all = t.user
                + t.nice
                + t.system
                + t.idle
                + t.iowait.unwrap_or(0)
                + t.irq.unwrap_or(0)
                + t.softirq.unwrap_or(0)
                + t.steal.unwrap_or(0);
            (all - idle, all)
        });
        let pressure_us = procfs::CpuPressure::current().ok().map(|p| p.some.total);
        HostCounters {
            busy_ticks,
            pressure_us,
        }
    }
}

/// Measures [`HostLoad`] over the timeline: started when it starts, fed the run's process
/// ids at every sample, finished when it ends.
#[derive(Debug)]
pub struct HostMeter {
    started: Instant,
    host_at_start: HostCounters,
    /// Per (pid, tid): the counters when first seen and when last seen.
    threads: HashMap<(i32, i32), (ThreadTimes, ThreadTimes)>,
    /// The totals when the current window began ([`Self::window_delay_ms`]).
    window_start: ThreadTimes,
    /// Under `--real-time-factor auto`, the pace changes so far.
    auto_pace: Option<Vec<PaceChange>>,
}

impl HostMeter {
    /// Starts measuring (the timeline starts now).
    pub fn start(pids: &[i32]) -> Self {
        let mut meter = HostMeter {
            started: Instant::now(),
            host_at_start: HostCounters::read(),
            threads: HashMap::new(),
            window_start: ThreadTimes::default(),
            auto_pace: None,
        };
        meter.sample(pids);
        meter
    }

    /// Reads the scheduler counters of every thread of `pids`.
    pub fn sample(&mut self, pids: &[i32]) {
        for &pid in pids {
            let Ok(process) = procfs::process::Process::new(pid) else {
                continue;
            };
            let Ok(tasks) = process.tasks() else { continue };
            for task in tasks.flatten() {
                let Ok(stat) = task.schedstat() else { continue };
                let now = ThreadTimes {
                    on_cpu_ns: stat.sum_exec_runtime,
                    waited_ns: stat.run_delay,
                    wakeups: stat.pcount,
                };
                self.threads
                    .entry((pid, task.tid))
                    .and_modify(|(_, last)| *last = now)
                    .or_insert((now, now));
            }
        }
    }

    /// The mean wait for a CPU per wake-up since the last call (or the start), as of the
    /// last sample; a new window begins.
    pub fn window_delay_ms(&mut self) -> Option<f64> {
        let totals = self.totals();
        let delay = totals.since(&self.window_start).wakeup_delay_ms();
        self.window_start = totals;
        delay
    }

    /// Records a pace change (`--real-time-factor auto`); [`HostLoad::auto_pace`] lists them.
    pub fn record_pace(&mut self, change: PaceChange) {
        self.auto_pace.get_or_insert_with(Vec::new).push(change);
    }

    /// Marks the run as paced by `--real-time-factor auto` (no change yet).
    pub fn paced_automatically(&mut self) {
        self.auto_pace.get_or_insert_with(Vec::new);
    }

    /// Every thread's counters since it was first seen, summed.
    fn totals(&self) -> ThreadTimes {
        self.threads
            .values()
            .map(|(first, last)| last.since(first))
            .fold(ThreadTimes::default(), |sum, t| sum.plus(&t))
    }

    /// What the host delivered from the start to now, `simulated_s` of simulation time
    /// having run.
    pub fn finish(&self, simulated_s: f64) -> HostLoad {
        let wall_s = self.started.elapsed().as_secs_f64();
        let host_now = HostCounters::read();
        let totals = self.totals();
        let cpu_busy_share = match (self.host_at_start.busy_ticks, host_now.busy_ticks) {
            (Some((busy0, all0)), Some((busy1, all1))) if all1 > all0 => {
                Some((busy1 - busy0) as f64 / (all1 - all0) as f64)
            }
            _ => None,
        };
        let cpu_pressure_share = match (self.host_at_start.pressure_us, host_now.pressure_us) {
            (Some(before), Some(after)) if wall_s > 0.0 => {
                Some(((after.saturating_sub(before)) as f64 / 1e6 / wall_s).min(1.0))
            }
            _ => None,
        };
        judge(
            HostLoad {
                timeline_wall_s: wall_s,
                achieved_real_time_factor: (wall_s > 0.0 && simulated_s > 0.0)
                    .then(|| simulated_s / wall_s),
                cores: std::thread::available_parallelism()
                    .map(|n| n.get())
                    .unwrap_or(1),
                cpu_busy_share,
                cpu_pressure_share,
                threads: self.threads.len(),
                cpu_s: totals.on_cpu_ns as f64 / 1e9,
                waited_s: totals.waited_ns as f64 / 1e9,
                wakeups: totals.wakeups,
                mean_wakeup_delay_ms: totals.wakeup_delay_ms(),
                mean_wakeup_delay_sim_ms: None,
                wakeup_delay_bound_ms: WAKEUP_DELAY_BOUND_MS,
                overloaded: false,
                auto_pace: self.auto_pace.clone(),
            },
            WAKEUP_DELAY_BOUND_MS,
        )
    }
}

/// Sets the mean wake-up delay in simulation time and `overloaded` by the bound on it.
fn judge(mut load: HostLoad, bound_ms: f64) -> HostLoad {
    load.wakeup_delay_bound_ms = bound_ms;
    load.mean_wakeup_delay_sim_ms = load
        .mean_wakeup_delay_ms
        .zip(load.achieved_real_time_factor)
        .map(|(ms, factor)| ms * factor);
    load.overloaded = load
        .mean_wakeup_delay_sim_ms
        .is_some_and(|ms| ms > bound_ms);
    load
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load(mean_wakeup_delay_ms: Option<f64>) -> HostLoad {
        HostLoad {
            timeline_wall_s: 10.0,
            achieved_real_time_factor: Some(1.0),
            cores: 2,
            cpu_busy_share: Some(0.5),
            cpu_pressure_share: Some(0.1),
            threads: 10,
            cpu_s: 5.0,
            waited_s: 0.1,
            wakeups: 1000,
            mean_wakeup_delay_ms,
            mean_wakeup_delay_sim_ms: None,
            wakeup_delay_bound_ms: 0.0,
            overloaded: false,
            auto_pace: None,
        }
    }

    #[test]
    fn the_governor_halves_when_starved_recovers_by_quarters_and_holds_in_between() {
        let mut governor = Governor::new(1.0);
        assert_eq!(governor.next(0.2), None, "at the ceiling already");
        assert_eq!(governor.next(1.0), None, "within the band: hold");
        assert_eq!(governor.next(5.0), Some(0.5));
        assert_eq!(
            governor.next(3.0),
            None,
            "3 ms at 0.5x is 1.5 ms simulated: hold"
        );
        assert_eq!(governor.next(9.0), Some(0.25));
        assert_eq!(governor.next(9.0), Some(AUTO_FLOOR));
        assert_eq!(governor.next(40.0), None, "never below the floor");
        assert_eq!(governor.next(12.0), None, "1.5 ms simulated: hold");
        assert_eq!(governor.next(0.1), Some(0.15625));
        let mut factor = 0.15625;
        while let Some(next) = governor.next(0.1) {
            assert!(next > factor && next <= 1.0, "{next}");
            factor = next;
        }
        assert_eq!(factor, 1.0, "back to the factor asked, and no faster");
    }

    #[test]
    fn the_governor_never_runs_faster_than_asked() {
        let mut governor = Governor::new(0.1);
        assert_eq!(governor.next(0.0), None);
        assert_eq!(
            governor.next(50.0),
            None,
            "the floor is the asked factor when lower"
        );
    }

    #[test]
    fn windows_judge_only_their_own_waits() {
        let mut meter = HostMeter::start(&[]);
        let key = (1, 1);
        let at = |waited_ns, wakeups| ThreadTimes {
            on_cpu_ns: 0,
            waited_ns,
            wakeups,
        };
        meter.threads.insert(key, (at(0, 0), at(10_000_000, 10)));
        assert_eq!(meter.window_delay_ms(), Some(1.0));
        meter.threads.insert(key, (at(0, 0), at(110_000_000, 20)));
        assert_eq!(
            meter.window_delay_ms(),
            Some(10.0),
            "100 ms over 10 wake-ups"
        );
        assert_eq!(meter.window_delay_ms(), None, "no wake-up since");
        meter.record_pace(PaceChange {
            at_s: 3.0,
            real_time_factor: 0.5,
            window_wakeup_delay_ms: 10.0,
        });
        let load = meter.finish(3.0);
        assert_eq!(load.auto_pace.as_ref().map(Vec::len), Some(1));
        assert_eq!(load.mean_wakeup_delay_ms, Some(5.5));
    }

    #[test]
    fn overloaded_beyond_the_bound_only() {
        assert!(!judge(load(Some(0.3)), 2.0).overloaded);
        assert!(!judge(load(Some(2.0)), 2.0).overloaded);
        assert!(judge(load(Some(2.01)), 2.0).overloaded);
        assert!(
            !judge(load(None), 2.0).overloaded,
            "unmeasured is not overloaded"
        );
        let line = judge(load(Some(3.5)), 2.0).describe();
        assert!(
            line.contains(
                "3.50 ms for a CPU per wake-up, 3.50 ms of simulation time (bound 2.0 ms)"
            ),
            "{line}"
        );
        // The same wait at a quarter of real time is a quarter as late for the vehicle.
        let slow = judge(
            HostLoad {
                achieved_real_time_factor: Some(0.25),
                ..load(Some(6.0))
            },
            2.0,
        );
        assert_eq!(slow.mean_wakeup_delay_sim_ms, Some(1.5));
        assert!(!slow.overloaded);
    }

    #[test]
    fn a_child_competing_for_the_cpus_waits_and_the_meter_sees_it() {
        // More CPU-bound threads than cores: each waits for a CPU.
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let mut children: Vec<_> = (0..cores * 3)
            .map(|_| {
                std::process::Command::new("sh")
                    .args(["-c", "while :; do :; done"])
                    .spawn()
                    .unwrap()
            })
            .collect();
        let pids: Vec<i32> = children.iter().map(|c| c.id() as i32).collect();
        let mut meter = HostMeter::start(&pids);
        std::thread::sleep(std::time::Duration::from_millis(600));
        meter.sample(&pids);
        let load = meter.finish(0.6);
        for child in &mut children {
            let _ = child.kill();
            let _ = child.wait();
        }
        assert_eq!(load.threads, pids.len(), "{load:?}");
        assert!(load.cpu_s > 0.2, "{load:?}");
        assert!(
            load.waited_s > 0.1,
            "three busy threads a core wait: {load:?}"
        );
        assert!(
            load.wakeups > 0 && load.mean_wakeup_delay_ms.is_some(),
            "{load:?}"
        );
        assert!(load.cpu_busy_share.is_some_and(|b| b > 0.5), "{load:?}");
    }
}
