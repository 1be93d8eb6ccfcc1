//! Logging: `tracing` events printed to stderr like rclcpp
//! (`[INFO] [1700000000.123456789] [ns.node]: message`) and published on `/rosout`.

use std::cell::Cell;
use std::fmt::Write as _;
use std::sync::{Arc, Mutex};

use ros2_client::{Log, Publisher};
use tracing::field::{Field, Visit};
use tracing::{Event, Level, Subscriber};
use tracing_subscriber::layer::{Context, SubscriberExt};
use tracing_subscriber::Layer;

use crate::args::LogLevel;

/// The rcl logger name of a node: namespace tokens and name joined by dots (`/a/b` +
/// `n` → `a.b.n`).
pub fn logger_name(namespace: &str, node: &str) -> String {
    let ns: Vec<&str> = namespace.split('/').filter(|s| !s.is_empty()).collect();
    if ns.is_empty() {
        node.to_string()
    } else {
        format!("{}.{}", ns.join("."), node)
    }
}

/// The most verbose `tracing` level shown for a ROS level (`fatal` shows errors only).
pub fn tracing_level(l: LogLevel) -> Level {
    match l {
        LogLevel::Debug => Level::DEBUG,
        LogLevel::Unset | LogLevel::Info => Level::INFO,
        LogLevel::Warn => Level::WARN,
        LogLevel::Error | LogLevel::Fatal => Level::ERROR,
    }
}

/// Rate-limits a log line that bad input can repeat at any rate (like rclcpp's
/// `RCLCPP_WARN_THROTTLE`): every occurrence is counted, at most one is logged per period.
#[derive(Debug, Clone)]
pub struct Throttle {
    period: std::time::Duration,
    total: u64,
    /// When the last line was logged and the total it reported.
    last_logged: Option<(std::time::Instant, u64)>,
}

impl Throttle {
    /// At most one line per `period`.
    pub fn new(period: std::time::Duration) -> Self {
        Throttle {
            period,
            total: 0,
            last_logged: None,
        }
    }
    /// Counts one occurrence; `Some(n)` when it is to be logged now, `n` being the
    /// occurrences since the last logged one (this one included).
    pub fn hit(&mut self) -> Option<u64> {
        self.total += 1;
        let now = std::time::Instant::now();
        let due = self
            .last_logged
            .is_none_or(|(at, _)| now.duration_since(at) >= self.period);
        if !due {
            return None;
        }
        let since = self.total - self.last_logged.map_or(0, |(_, logged)| logged);
        self.last_logged = Some((now, self.total));
        Some(since)
    }
    /// Every occurrence counted so far.
    pub fn total(&self) -> u64 {
        self.total
    }
}

fn severity(l: &Level) -> (&'static str, u8) {
    match *l {
        Level::TRACE | Level::DEBUG => ("DEBUG", Log::DEBUG),
        Level::INFO => ("INFO", Log::INFO),
        Level::WARN => ("WARN", Log::WARN),
        Level::ERROR => ("ERROR", Log::ERROR),
    }
}

/// Where `/rosout` records go once the node exists.
pub(crate) type RosoutSlot = Arc<Mutex<Option<Arc<Option<Publisher<Log>>>>>>;

struct RosLayer {
    name: String,
    max: Level,
    stderr: bool,
    rosout: RosoutSlot,
}

thread_local! {
    static IN_LOG: Cell<bool> = const { Cell::new(false) };
}

#[derive(Default)]
struct Msg {
    message: String,
    fields: String,
}

impl Visit for Msg {
    fn record_str(&mut self, field: &Field, value: &str) {
        if field.name() == "message" {
            self.message.push_str(value);
        } else {
            let _ = write!(self.fields, " {}={}", field.name(), value);
        }
    }
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        if field.name() == "message" {
            let _ = write!(self.message, "{value:?}");
        } else {
            let _ = write!(self.fields, " {}={:?}", field.name(), value);
        }
    }
}

fn is_library(target: &str) -> bool {
    target.starts_with("rustdds") || target.starts_with("ros2_client")
}

impl<S: Subscriber> Layer<S> for RosLayer {
    fn enabled(&self, meta: &tracing::Metadata<'_>, _: Context<'_, S>) -> bool {
        if is_library(meta.target()) {
            // the DDS libraries are chatty: their warnings and errors only, unless debugging
            return *meta.level() <= Level::WARN || self.max >= Level::DEBUG;
        }
        *meta.level() <= self.max
    }

    fn on_event(&self, event: &Event<'_>, _: Context<'_, S>) {
        if IN_LOG.with(|f| f.replace(true)) {
            return; // an event raised while publishing a log record
        }
        let mut m = Msg::default();
        event.record(&mut m);
        let text = format!("{}{}", m.message, m.fields);
        let meta = event.metadata();
        let (sev, ros_level) = severity(meta.level());
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default();
        if self.stderr {
            eprintln!(
                "[{sev}] [{}.{:09}] [{}]: {text}",
                now.as_secs(),
                now.subsec_nanos(),
                self.name
            );
        }
        if !is_library(meta.target()) {
            let slot = self.rosout.lock().unwrap().clone();
            if let Some(w) = slot {
                if let Some(w) = w.as_ref() {
                    let _ = w.publish(Log {
                        stamp: ros2_client::builtin_interfaces::Time::from_nanos(
                            now.as_nanos() as i64
                        ),
                        level: ros_level,
                        name: self.name.clone(),
                        msg: text,
                        file: meta.file().unwrap_or("").to_string(),
                        function: meta.module_path().unwrap_or("").to_string(),
                        line: meta.line().unwrap_or(0),
                    });
                }
            }
        }
        IN_LOG.with(|f| f.set(false));
    }
}

/// Installs the process-wide log subscriber (once; later calls are ignored).
pub(crate) fn init(name: &str, level: LogLevel, stderr: bool) -> RosoutSlot {
    let slot: RosoutSlot = Arc::new(Mutex::new(None));
    let layer = RosLayer {
        name: name.to_string(),
        max: tracing_level(level),
        stderr,
        rosout: slot.clone(),
    };
    let _ = tracing::subscriber::set_global_default(tracing_subscriber::registry().with(layer));
    slot
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn throttle_counts_everything_and_lets_one_line_through_per_period() {
        let mut t = Throttle::new(std::time::Duration::from_secs(3600));
        assert_eq!(t.hit(), Some(1));
        assert!((0..999).all(|_| t.hit().is_none()));
        assert_eq!(t.total(), 1000);
        let mut every = Throttle::new(std::time::Duration::ZERO);
        assert_eq!((every.hit(), every.hit()), (Some(1), Some(1)));
    }

    #[test]
    fn logger_names_like_rcl() {
        assert_eq!(logger_name("/", "talker"), "talker");
        assert_eq!(logger_name("/a/b", "talker"), "a.b.talker");
    }

    #[test]
    fn levels() {
        assert_eq!(tracing_level(LogLevel::Debug), Level::DEBUG);
        assert_eq!(tracing_level(LogLevel::Unset), Level::INFO);
        assert_eq!(tracing_level(LogLevel::Fatal), Level::ERROR);
        assert_eq!(severity(&Level::WARN), ("WARN", 30));
    }
}
