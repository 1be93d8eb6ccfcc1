//! What the host delivered during the timeline, so that a host too busy for the stack is not
//! taken for a failing robot. Under load the simulator keeps its pace while the stack's
//! processes wait for a CPU, the closed loop lags and the vehicle fails for the host's sake.
//!
//! Measured over the timeline from the kernel's own accounting: the time every thread of the
//! run's processes spent runnable but waiting for a CPU, per wake-up (`/proc/PID/task/TID/
//! schedstat`: what a timer or a message callback was delayed by before it could run), the
//! cores' busy share (`/proc/stat`), the CPU pressure (`/proc/pressure/cpu`, the share of time
//! some task waited) and the real-time factor the simulation achieved. A run whose processes
//! waited more than [`WAKEUP_DELAY_BOUND_MS`] per wake-up on average was starved: if it
//! failed, its verdict is `inconclusive` instead of `failed`.

use serde::Serialize;
use std::collections::HashMap;
use std::time::Instant;

/// Mean wait for a CPU per wake-up of the run's threads over the timeline above which the
/// host is called overloaded (ms). Measured on a 2-core machine: `ugv_pair_link_loss` quiet
/// 0.23 ms, beside 4 and 12 busy loops 0.81 and 2.75 ms (passed), beside 4 busy loops at
/// `nice -10` 9.2 ms (both vehicles missed their goals); eight UGVs with their stacks, which
/// keep both cores busy by themselves, 1.28 ms (passed). A 50 Hz loop late by a tenth of its
/// period is where the bound sits.
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
    /// `waited_s` per wake-up (ms): how late a timer or a callback ran on average.
    pub mean_wakeup_delay_ms: Option<f64>,
    /// The bound on `mean_wakeup_delay_ms` ([`WAKEUP_DELAY_BOUND_MS`]).
    pub wakeup_delay_bound_ms: f64,
    /// Whether the host starved the run beyond the bound.
    pub overloaded: bool,
}

impl HostLoad {
    /// One line on what the host delivered, for a verdict or a warning.
    pub fn describe(&self) -> String {
        let mut line = match self.mean_wakeup_delay_ms {
            Some(ms) => format!(
                "the run's threads waited {ms:.2} ms for a CPU per wake-up (bound {:.1} ms)",
                self.wakeup_delay_bound_ms
            ),
            None => "the run's threads were not measured".to_string(),
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
}

impl HostMeter {
    /// Starts measuring (the timeline starts now).
    pub fn start(pids: &[i32]) -> Self {
        let mut meter = HostMeter {
            started: Instant::now(),
            host_at_start: HostCounters::read(),
            threads: HashMap::new(),
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

    /// What the host delivered from the start to now, `simulated_s` of simulation time
    /// having run.
    pub fn finish(&self, simulated_s: f64) -> HostLoad {
        let wall_s = self.started.elapsed().as_secs_f64();
        let host_now = HostCounters::read();
        let totals = self
            .threads
            .values()
            .map(|(first, last)| last.since(first))
            .fold(ThreadTimes::default(), |sum, t| ThreadTimes {
                on_cpu_ns: sum.on_cpu_ns + t.on_cpu_ns,
                waited_ns: sum.waited_ns + t.waited_ns,
                wakeups: sum.wakeups + t.wakeups,
            });
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
                mean_wakeup_delay_ms: (totals.wakeups > 0)
                    .then(|| totals.waited_ns as f64 / 1e6 / totals.wakeups as f64),
                wakeup_delay_bound_ms: WAKEUP_DELAY_BOUND_MS,
                overloaded: false,
            },
            WAKEUP_DELAY_BOUND_MS,
        )
    }
}

/// Sets `overloaded` by the bound on the mean wake-up delay.
fn judge(mut load: HostLoad, bound_ms: f64) -> HostLoad {
    load.wakeup_delay_bound_ms = bound_ms;
    load.overloaded = load.mean_wakeup_delay_ms.is_some_and(|ms| ms > bound_ms);
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
            wakeup_delay_bound_ms: 0.0,
            overloaded: false,
        }
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
            line.contains("3.50 ms") && line.contains("bound 2.0 ms"),
            "{line}"
        );
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
