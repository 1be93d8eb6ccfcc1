//! CPU and memory of a run: each process of the run is sampled with its descendants (a
//! launch file's children count for the launch), and the run's totals come from the
//! kernel's own accounting of the runner and its reaped children.

use crate::host::{HostLoad, HostMeter};
use serde::Serialize;
use std::collections::{BTreeMap, HashMap};

/// What one process (with its descendants) used, as last sampled.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Usage {
    /// CPU time, user + system (s).
    pub cpu_s: f64,
    /// Largest resident set seen (MiB).
    pub peak_rss_mib: f64,
}

/// The whole run's resources.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct RunResources {
    /// CPU time of every process the run started, with their descendants, from the kernel's
    /// accounting once they were reaped (s).
    pub processes_cpu_s: f64,
    /// CPU time of the runner itself: recorder, timeline, link emulator (s).
    pub runner_cpu_s: f64,
    /// Largest sum of the resident sets of the run's processes and the runner seen at one
    /// sample (MiB).
    pub peak_rss_mib: f64,
    /// Samples taken.
    pub samples: u64,
}

/// CPU ticks and resident pages of one process.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Stat {
    ppid: i32,
    ticks: u64,
    rss_pages: u64,
}

/// Samples the process trees rooted at the run's processes.
#[derive(Debug)]
pub struct Sampler {
    ticks_per_s: f64,
    page_mib: f64,
    usage: BTreeMap<i32, Usage>,
    peak_rss_mib: f64,
    samples: u64,
    start_self: (f64, f64),
    /// Measuring what the host delivers, while the timeline runs.
    host: Option<HostMeter>,
    /// What the host delivered over the timeline, once it ended.
    host_load: Option<HostLoad>,
}

/// (runner's own CPU, reaped children's CPU) in seconds.
fn rusage_now() -> (f64, f64) {
    use nix::sys::resource::{getrusage, UsageWho};
    let secs = |who| {
        getrusage(who)
            .map(|u| {
                let (a, b) = (u.user_time(), u.system_time());
                a.tv_sec() as f64
                    + a.tv_usec() as f64 / 1e6
                    + b.tv_sec() as f64
                    + b.tv_usec() as f64 / 1e6
            })
            .unwrap_or(0.0)
    };
    (secs(UsageWho::RUSAGE_SELF), secs(UsageWho::RUSAGE_CHILDREN))
}

impl Sampler {
    /// Starts accounting (the kernel's counters are read as differences from now).
    pub fn new() -> Self {
        Sampler {
            ticks_per_s: procfs::ticks_per_second() as f64,
            page_mib: procfs::page_size() as f64 / (1024.0 * 1024.0),
            usage: BTreeMap::new(),
            peak_rss_mib: 0.0,
            samples: 0,
            start_self: rusage_now(),
            host: None,
            host_load: None,
        }
    }

    /// The timeline starts: what the host delivers is measured from now, over the runner and
    /// the trees of `roots` ([`crate::host`]).
    pub fn start_timeline(&mut self, roots: &[i32]) {
        let table = Self::table();
        self.host = Some(HostMeter::start(&run_threads(
            &table,
            &children_of(&table),
            roots,
        )));
    }

    /// The timeline ended, `simulated_s` of simulation time after its start.
    pub fn end_timeline(&mut self, roots: &[i32], simulated_s: f64) {
        if let Some(mut meter) = self.host.take() {
            let table = Self::table();
            meter.sample(&run_threads(&table, &children_of(&table), roots));
            self.host_load = Some(meter.finish(simulated_s));
        }
    }

    /// What the host delivered over the timeline (`None` if it never started or did not end).
    pub fn host_load(&self) -> Option<&HostLoad> {
        self.host_load.as_ref()
    }

    /// The host meter while the timeline runs (`--real-time-factor auto` asks it for each
    /// window's wait per wake-up and records its pace changes there).
    pub fn host_meter(&mut self) -> Option<&mut HostMeter> {
        self.host.as_mut()
    }

    fn table() -> HashMap<i32, Stat> {
        let mut t = HashMap::new();
        if let Ok(all) = procfs::process::all_processes() {
            for p in all.flatten() {
                if let Ok(st) = p.stat() {
                    t.insert(
                        st.pid,
                        Stat {
                            ppid: st.ppid,
                            ticks: st.utime + st.stime,
                            rss_pages: st.rss,
                        },
                    );
                }
            }
        }
        t
    }

    /// Samples the trees of `roots` (pids of running processes) and the runner.
    pub fn sample(&mut self, roots: &[i32]) {
        let table = Self::table();
        let children = children_of(&table);
        let totals = tree_totals(&table, &children, roots);
        let mut rss_sum = table
            .get(&(std::process::id() as i32))
            .map(|s| s.rss_pages as f64 * self.page_mib)
            .unwrap_or(0.0);
        for (root, (ticks, pages)) in totals {
            let rss = pages as f64 * self.page_mib;
            rss_sum += rss;
            let u = self.usage.entry(root).or_default();
            u.cpu_s = u.cpu_s.max(ticks as f64 / self.ticks_per_s);
            u.peak_rss_mib = u.peak_rss_mib.max(rss);
        }
        self.peak_rss_mib = self.peak_rss_mib.max(rss_sum);
        self.samples += 1;
        if let Some(meter) = &mut self.host {
            meter.sample(&run_threads(&table, &children, roots));
        }
    }

    /// What a process's tree used, as last sampled.
    pub fn usage(&self, pid: i32) -> Option<Usage> {
        self.usage.get(&pid).copied()
    }

    /// The run's totals (call after every process was reaped).
    pub fn finish(&self) -> RunResources {
        let (me, children) = rusage_now();
        RunResources {
            processes_cpu_s: children - self.start_self.1,
            runner_cpu_s: me - self.start_self.0,
            peak_rss_mib: self.peak_rss_mib,
            samples: self.samples,
        }
    }
}

impl Default for Sampler {
    fn default() -> Self {
        Self::new()
    }
}

/// The runner and the processes of the trees rooted at `roots` (those still running): what
/// [`HostMeter`] measures (the runner's threads carry the links and the timeline).
fn run_threads(
    table: &HashMap<i32, Stat>,
    children: &HashMap<i32, Vec<i32>>,
    roots: &[i32],
) -> Vec<i32> {
    let mut pids = tree_members(table, children, roots);
    pids.push(std::process::id() as i32);
    pids
}

/// The processes of the trees rooted at `roots` (those still running).
fn tree_members(
    table: &HashMap<i32, Stat>,
    children: &HashMap<i32, Vec<i32>>,
    roots: &[i32],
) -> Vec<i32> {
    roots
        .iter()
        .filter(|root| table.contains_key(root))
        .flat_map(|&root| tree_of(children, root))
        .collect()
}

/// `root` and all its descendants.
fn tree_of(children: &HashMap<i32, Vec<i32>>, root: i32) -> Vec<i32> {
    let mut members = Vec::new();
    let mut stack = vec![root];
    while let Some(pid) = stack.pop() {
        members.push(pid);
        stack.extend(children.get(&pid).into_iter().flatten().copied());
    }
    members
}

/// Each process's children, by parent.
fn children_of(table: &HashMap<i32, Stat>) -> HashMap<i32, Vec<i32>> {
    let mut children: HashMap<i32, Vec<i32>> = HashMap::new();
    for (pid, s) in table {
        children.entry(s.ppid).or_default().push(*pid);
    }
    children
}

/// Per root: the CPU ticks and resident pages of it and all its descendants.
fn tree_totals(
    table: &HashMap<i32, Stat>,
    children: &HashMap<i32, Vec<i32>>,
    roots: &[i32],
) -> BTreeMap<i32, (u64, u64)> {
    let mut out = BTreeMap::new();
    for &root in roots.iter().filter(|root| table.contains_key(root)) {
        let totals = tree_of(children, root)
            .iter()
            .filter_map(|pid| table.get(pid))
            .fold((0, 0), |(ticks, pages), s| {
                (ticks + s.ticks, pages + s.rss_pages)
            });
        out.insert(root, totals);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tree_counts_its_descendants_and_no_one_else() {
        let st = |ppid, ticks, rss_pages| Stat {
            ppid,
            ticks,
            rss_pages,
        };
        let table: HashMap<i32, Stat> = [
            (10, st(1, 100, 1000)), // a launch file
            (11, st(10, 50, 500)),  // its node
            (12, st(11, 5, 50)),    // the node's helper
            (20, st(1, 7, 70)),     // another process of the run
            (30, st(1, 999, 9999)), // not the run's
        ]
        .into_iter()
        .collect();
        let children = children_of(&table);
        let t = tree_totals(&table, &children, &[10, 20, 99]);
        assert_eq!(t[&10], (155, 1550));
        assert_eq!(t[&20], (7, 70));
        assert!(!t.contains_key(&99), "a process gone is skipped");
        let mut members = tree_members(&table, &children, &[10, 20, 99]);
        members.sort();
        assert_eq!(members, vec![10, 11, 12, 20]);
    }

    #[test]
    fn sampling_a_real_child_sees_its_memory_and_the_kernel_its_cpu() {
        let mut s = Sampler::new();
        // A child that burns about 0.2 s of CPU, then sleeps.
        let mut child = std::process::Command::new("sh")
            .args([
                "-c",
                "i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done; sleep 0.5",
            ])
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(300));
        s.sample(&[child.id() as i32]);
        let u = s.usage(child.id() as i32).unwrap();
        assert!(u.peak_rss_mib > 0.1, "{u:?}");
        child.wait().unwrap();
        let r = s.finish();
        assert!(r.processes_cpu_s > 0.0, "{r:?}");
        assert!(r.peak_rss_mib >= u.peak_rss_mib, "{r:?}");
        assert_eq!(r.samples, 1);
    }
}
