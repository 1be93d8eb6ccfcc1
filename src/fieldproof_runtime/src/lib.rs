//! The node runtime every fieldproof node uses: ROS 2 context from the environment,
//! `--ros-args`, declared parameters and their services, clock, QoS, logging, shutdown.
//!
//! Nodes are async code on a `smol` executor:
//!
//! ```no_run
//! use fieldproof_runtime::{msgs::std_msgs, qos, NodeBuilder, Param};
//!
//! fn main() -> std::process::ExitCode {
//!     let mut builder = NodeBuilder::new("relay"); // default name; `-r __node:=x` overrides it
//!     let input = builder.declare::<String>(Param::string("input", "input").description("topic to read").read_only());
//!     // follows `ros2 param set`
//!     let dropout = builder.declare::<bool>(Param::bool("dropout", false).description("publish nothing while true"));
//!     let builder = builder.qos_params(qos::default()); // qos_reliability / qos_durability / qos_depth
//!     fieldproof_runtime::main(
//!         move || builder,
//!         |node| async move {
//!             let sub = node.subscription::<std_msgs::String>(&input.get(), node.qos_from_params())?;
//!             let out = node.publisher::<std_msgs::String>("output", node.qos_from_params())?;
//!             loop {
//!                 let msg = sub.recv().await?;
//!                 if !dropout.get() {
//!                     out.publish(msg)?;
//!                 }
//!             }
//!         },
//!     )
//! }
//! ```
//!
//! [`main`] parses the command line and environment (bad input: message on stderr, exit
//! code 2), opens the participant, serves the parameter services and `/clock`, runs the
//! body until it returns or SIGINT/SIGTERM arrives, then tears down in order (body, tasks,
//! node, participant) so peers see the node leave. See the crate's README.md.

pub mod args;
pub mod clock;
pub mod container;
pub mod env;
pub mod graph;
pub mod lifecycle;
pub mod logging;
pub mod names;
mod node;
pub mod params;
mod participant;
mod pubsub;
pub mod qos;
mod rpc;
mod service;
mod services;
pub mod value;

use std::future::Future;
use std::process::ExitCode;

pub use clock::{Clock, Timer};
/// The message types (`fieldproof_msgs`), re-exported.
pub use fieldproof_msgs as msgs;
pub use node::{Node, NodeBuilder, NodeConfig, NodeError, StartError};
pub use params::{Param, ParamAccessError, ParamChange, ParamHandle, ParamKind, Watch};
pub use participant::Participant;
pub use pubsub::{Publisher, Subscription, MALFORMED_LOG_PERIOD};
pub use qos::QosSpec;
pub use service::{Client, Server};
pub use tracing;
pub use value::{ParamType, ParamValue};

/// The error a node body returns (anything convertible, `?` works on every error type).
pub type BoxError = Box<dyn std::error::Error + Send + Sync + 'static>;

/// The body's result.
pub type NodeResult = Result<(), BoxError>;

/// Why [`run`] failed.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// Setting up the node on DDS failed.
    #[error("starting the node: {0}")]
    Setup(#[from] NodeError),
    /// The body returned an error.
    #[error("{0}")]
    Body(BoxError),
    /// Signal handling could not be installed.
    #[error("installing signal handlers: {0}")]
    Signals(std::io::Error),
    /// The node's configuration was refused ([`run_on_domain`]).
    #[error("configuring the node: {0}")]
    Config(#[from] StartError),
}

/// Resolves the node from the process's arguments and environment and runs it (see
/// [`run`]). Exit codes: 0 after a normal end or SIGINT/SIGTERM, 2 for bad command-line
/// arguments (one that is not UTF-8 included), parameters or environment (the message names
/// the culprit), 1 otherwise.
pub fn main<'a, B, F, Fut>(builder: B, body: F) -> ExitCode
where
    B: FnOnce() -> NodeBuilder,
    F: FnOnce(Node) -> Fut + 'a,
    Fut: Future<Output = NodeResult> + 'a,
{
    // args_os: a program path or argument that is not UTF-8 must not panic here.
    let prog = std::env::args_os()
        .next()
        .map(|p| {
            let p = std::path::PathBuf::from(p);
            p.file_name()
                .unwrap_or(p.as_os_str())
                .to_string_lossy()
                .into_owned()
        })
        .unwrap_or_else(|| "node".into());
    let builder = builder();
    if wants_help(std::env::args_os().skip(1)) {
        print!("{}", builder.help(&prog));
        return ExitCode::SUCCESS;
    }
    let cfg = match builder.resolve_from_process() {
        Ok(c) => c,
        Err(e) => {
            eprintln!("{prog}: error: {e}");
            return ExitCode::from(2);
        }
    };
    match run(cfg, body) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("{prog}: error: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Whether the arguments ask for the node's help: `--help` or `-h` before any
/// `--ros-args` (what follows `--ros-args` belongs to ROS). The node then prints its
/// declared parameters and exits 0 without opening DDS.
pub fn wants_help<I, S>(args: I) -> bool
where
    I: IntoIterator<Item = S>,
    S: AsRef<std::ffi::OsStr>,
{
    args.into_iter()
        .map(|a| a.as_ref().to_owned())
        .take_while(|a| a != "--ros-args")
        .any(|a| a == "--help" || a == "-h")
}

/// Runs a resolved node: installs logging, opens the participant, starts the parameter
/// services and the `/clock` follower, runs `body` until it returns, [`Node::shutdown`]
/// is called or SIGINT/SIGTERM arrives; then drops the body (its publishers and
/// subscriptions), the runtime's tasks, the node and finally the participant.
pub fn run<'a, F, Fut>(cfg: NodeConfig, body: F) -> Result<(), RunError>
where
    F: FnOnce(Node) -> Fut + 'a,
    Fut: Future<Output = NodeResult> + 'a,
{
    container::run_all(vec![container::Composable::new(cfg, body)], false)
}

/// Runs `body` as a node named `name` on ROS domain `domain_id`, in this process, with no
/// command line and none of the process's environment: an in-process peer beside the nodes
/// a test starts, or a tool that picks its own domain.
pub fn run_on_domain<'a, F, Fut>(name: &str, domain_id: u16, body: F) -> Result<(), RunError>
where
    F: FnOnce(Node) -> Fut + 'a,
    Fut: Future<Output = NodeResult> + 'a,
{
    let domain = domain_id.to_string();
    let cfg = NodeBuilder::new(name).resolve([name], |key| {
        (key == "ROS_DOMAIN_ID").then(|| domain.clone())
    })?;
    run(cfg, body)
}

/// As [`run`], but the body is never cut short: SIGINT/SIGTERM only request the shutdown
/// ([`Node::shutdown_requested`] resolves), and the run ends when the body returns. For
/// bodies that must finish their work (write their evidence, hand back their state).
pub fn run_to_completion<'a, F, Fut>(cfg: NodeConfig, body: F) -> Result<(), RunError>
where
    F: FnOnce(Node) -> Fut + 'a,
    Fut: Future<Output = NodeResult> + 'a,
{
    container::run_all(vec![container::Composable::new(cfg, body)], true)
}

#[cfg(test)]
mod tests {
    use super::wants_help;

    #[test]
    fn help_is_asked_before_the_ros_arguments_only() {
        assert!(wants_help(["--help"]));
        assert!(wants_help(["in.yaml", "-h", "--ros-args", "-p", "x:=1"]));
        assert!(!wants_help(["--ros-args", "-p", "x:=--help"]));
        assert!(!wants_help(["--ros-args", "--help"]));
        assert!(!wants_help(Vec::<String>::new()));
    }
}
