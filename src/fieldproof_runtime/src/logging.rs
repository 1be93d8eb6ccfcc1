//! Logging: `tracing` events printed to stderr like rclcpp
//! (`[INFO] [1700000000.123456789] [ns.node]: message`) and published on `/rosout`.

use std::cell::Cell;
use std::collections::HashMap;
use std::fmt::Write as _;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, Mutex};

use ros2_client::{Log, Publisher};
use tracing::field::{Field, Visit};
use tracing::span::Id;
use tracing::subscriber::Interest;
use tracing::{Event, Level, Subscriber};
use tracing_subscriber::layer::{Context, SubscriberExt};
use tracing_subscriber::registry::LookupSpan;
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

/// A node's log settings ([`register`]): its level, whether lines go to stderr, and its
/// `/rosout` writer once the node exists.
struct NodeLog {
    max: Level,
    stderr: bool,
    rosout: Option<Arc<Option<Publisher<Log>>>>,
    /// Which registration this is (a later node of the same name replaces it).
    generation: u64,
}

/// Every node of the process by logger name, and the one that logs what no node's span
/// covers (the first registered that is still running).
#[derive(Default)]
struct Table {
    nodes: HashMap<String, NodeLog>,
    fallback: Option<String>,
    generation: u64,
}

static TABLE: Mutex<Option<Table>> = Mutex::new(None);
/// The most verbose level any registered node shows ([`Level`] as 0 = TRACE .. 4 = ERROR).
static MOST_VERBOSE: AtomicU8 = AtomicU8::new(level_rank(Level::INFO));

const fn level_rank(l: Level) -> u8 {
    match l {
        Level::TRACE => 0,
        Level::DEBUG => 1,
        Level::INFO => 2,
        Level::WARN => 3,
        Level::ERROR => 4,
    }
}

fn with_table<T>(f: impl FnOnce(&mut Table) -> T) -> T {
    let mut guard = TABLE
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    f(guard.get_or_insert_with(Table::default))
}

/// A node's place in the process's log table; [`Registration::attach_rosout`] gives it its
/// `/rosout` writer, dropping it removes the node (its writer is dropped with it).
pub(crate) struct Registration {
    logger: String,
    generation: u64,
}

/// Registers a node's logger: lines logged in its span ([`node_span`]) show `logger`, are
/// filtered at `level` and go to stderr if `stderr`. Installs the process-wide subscriber
/// on first use.
pub(crate) fn register(logger: &str, level: LogLevel, stderr: bool) -> Registration {
    let _ = tracing::subscriber::set_global_default(tracing_subscriber::registry().with(RosLayer));
    let max = tracing_level(level);
    let generation = with_table(|table| {
        table.generation += 1;
        let generation = table.generation;
        table.nodes.insert(
            logger.to_string(),
            NodeLog {
                max,
                stderr,
                rosout: None,
                generation,
            },
        );
        table.fallback.get_or_insert_with(|| logger.to_string());
        let most = table.nodes.values().map(|n| level_rank(n.max)).min();
        MOST_VERBOSE.store(most.unwrap_or(level_rank(Level::INFO)), Ordering::Relaxed);
        generation
    });
    // levels are decided per event, as nodes come and go
    tracing::callsite::rebuild_interest_cache();
    Registration {
        logger: logger.to_string(),
        generation,
    }
}

impl Registration {
    /// Sends the node's log lines to `/rosout` through `writer` from now on.
    pub(crate) fn attach_rosout(&self, writer: Arc<Option<Publisher<Log>>>) {
        with_table(|table| {
            if let Some(n) = table.nodes.get_mut(&self.logger) {
                if n.generation == self.generation {
                    n.rosout = Some(writer);
                }
            }
        });
    }
}

impl Drop for Registration {
    fn drop(&mut self) {
        // The writer is dropped outside the lock: dropping a DDS writer may log.
        let removed = with_table(|table| {
            let ours = table
                .nodes
                .get(&self.logger)
                .is_some_and(|n| n.generation == self.generation);
            if !ours {
                return None;
            }
            if table.fallback.as_deref() == Some(&self.logger) {
                table.fallback = None;
            }
            let removed = table.nodes.remove(&self.logger);
            if table.fallback.is_none() {
                table.fallback = table.nodes.keys().min().cloned();
            }
            removed
        });
        drop(removed);
    }
}

/// The span a node's tasks run in: every line logged inside it carries the node's logger
/// name (and goes to its `/rosout` writer), whichever nodes share the process.
pub fn node_span(logger: &str) -> tracing::Span {
    tracing::error_span!(NODE_SPAN, logger = logger)
}

const NODE_SPAN: &str = "fieldproof_node";

/// The logger name a node span carries (kept in the span's extensions).
struct SpanLogger(String);

struct RosLayer;

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

#[derive(Default)]
struct LoggerField(Option<String>);

impl Visit for LoggerField {
    fn record_str(&mut self, field: &Field, value: &str) {
        if field.name() == "logger" {
            self.0 = Some(value.to_string());
        }
    }
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        if field.name() == "logger" {
            self.0 = Some(format!("{value:?}"));
        }
    }
}

/// Whether `level` is shown for a node showing `max`; the DDS libraries are chatty: their
/// warnings and errors only, unless the node debugs.
fn shown(target: &str, level: &Level, max: Level) -> bool {
    if is_library(target) {
        return *level <= Level::WARN || max >= Level::DEBUG;
    }
    *level <= max
}

/// Whether events of `meta`'s call site reach the layer: node spans, and events at a level
/// some registered node shows.
fn callsite_enabled(meta: &tracing::Metadata<'_>) -> bool {
    if meta.is_span() {
        return meta.name() == NODE_SPAN;
    }
    let most = match MOST_VERBOSE.load(Ordering::Relaxed) {
        0 => Level::TRACE,
        1 => Level::DEBUG,
        2 => Level::INFO,
        3 => Level::WARN,
        _ => Level::ERROR,
    };
    shown(meta.target(), meta.level(), most)
}

impl<S> Layer<S> for RosLayer
where
    S: Subscriber + for<'a> LookupSpan<'a>,
{
    // Decided once per call site (the hot paths of the DDS libraries are full of disabled
    // trace points) and again when a node registers ([`register`] rebuilds the cache).
    fn register_callsite(&self, meta: &'static tracing::Metadata<'static>) -> Interest {
        if callsite_enabled(meta) {
            Interest::always()
        } else {
            Interest::never()
        }
    }

    fn enabled(&self, meta: &tracing::Metadata<'_>, _: Context<'_, S>) -> bool {
        callsite_enabled(meta)
    }

    fn on_new_span(&self, attrs: &tracing::span::Attributes<'_>, id: &Id, ctx: Context<'_, S>) {
        if attrs.metadata().name() != NODE_SPAN {
            return;
        }
        let mut logger = LoggerField::default();
        attrs.record(&mut logger);
        if let (Some(name), Some(span)) = (logger.0, ctx.span(id)) {
            span.extensions_mut().insert(SpanLogger(name));
        }
    }

    fn on_event(&self, event: &Event<'_>, ctx: Context<'_, S>) {
        if IN_LOG.with(|f| f.replace(true)) {
            return; // an event raised while publishing a log record
        }
        let from_span = ctx.event_scope(event).and_then(|scope| {
            // the innermost node span: the node whose task this is
            scope
                .into_iter()
                .find_map(|span| span.extensions().get::<SpanLogger>().map(|l| l.0.clone()))
        });
        let meta = event.metadata();
        let target = with_table(|table| {
            let name = from_span.or_else(|| table.fallback.clone())?;
            let node = table.nodes.get(&name)?;
            shown(meta.target(), meta.level(), node.max)
                .then(|| (name, node.stderr, node.rosout.clone()))
        });
        if let Some((name, stderr, rosout)) = target {
            write_line(event, &name, stderr, rosout);
        }
        IN_LOG.with(|f| f.set(false));
    }
}

/// Prints a log line like rclcpp and publishes it on the node's `/rosout`.
fn write_line(
    event: &Event<'_>,
    name: &str,
    stderr: bool,
    rosout: Option<Arc<Option<Publisher<Log>>>>,
) {
    let mut m = Msg::default();
    event.record(&mut m);
    let text = format!("{}{}", m.message, m.fields);
    let meta = event.metadata();
    let (sev, ros_level) = severity(meta.level());
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    if stderr {
        eprintln!(
            "[{sev}] [{}.{:09}] [{name}]: {text}",
            now.as_secs(),
            now.subsec_nanos(),
        );
    }
    if is_library(meta.target()) {
        return;
    }
    if let Some(Some(writer)) = rosout.as_deref() {
        let _ = writer.publish(Log {
            stamp: ros2_client::builtin_interfaces::Time::from_nanos(now.as_nanos() as i64),
            level: ros_level,
            name: name.to_string(),
            msg: text,
            file: meta.file().unwrap_or("").to_string(),
            function: meta.module_path().unwrap_or("").to_string(),
            line: meta.line().unwrap_or(0),
        });
    }
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
