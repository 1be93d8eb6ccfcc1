//! Several nodes in one process on one DDS participant, as an rclcpp component container
//! holds them: each keeps its name, namespace, parameters and their services, clock and
//! logger (its lines and `/rosout` records carry its own name), so `ros2 param set
//! /ugv1/imu_adapter dropout true` reaches the same node whether it runs alone or composed.
//!
//! ```no_run
//! use fieldproof_runtime::container::{self, Composable};
//! use fieldproof_runtime::NodeBuilder;
//!
//! let talker = NodeBuilder::new("talker").resolve(["talker"], |_| None).unwrap();
//! let listener = NodeBuilder::new("listener").resolve(["listener"], |_| None).unwrap();
//! container::run(vec![
//!     Composable::new(talker, |node| async move { Ok(()) }),
//!     Composable::new(listener, |node| async move { Ok(()) }),
//! ])
//! .unwrap();
//! ```

use std::future::Future;
use std::sync::Arc;

use futures::future::LocalBoxFuture;
use futures::stream::FuturesUnordered;
use futures::{FutureExt, StreamExt};
use tracing::Instrument;

use crate::participant::Participant;
use crate::{logging, services, Node, NodeBuilder, NodeConfig, NodeResult, RunError, StartError};

/// A node's body, boxed: what runs once the node is on DDS.
type Body<'a> = Box<dyn FnOnce(Node) -> LocalBoxFuture<'a, NodeResult> + 'a>;

/// Boxes `body` as a [`Body`].
fn boxed_body<'a, F, Fut>(body: F) -> Body<'a>
where
    F: FnOnce(Node) -> Fut + 'a,
    Fut: Future<Output = NodeResult> + 'a,
{
    Box::new(move |node| body(node).boxed_local())
}

/// A resolved node and its body, to run in a container.
pub struct Composable<'a> {
    config: NodeConfig,
    body: Body<'a>,
}

impl<'a> Composable<'a> {
    /// The node `config` describes, running `body` once it is on DDS.
    pub fn new<F, Fut>(config: NodeConfig, body: F) -> Composable<'a>
    where
        F: FnOnce(Node) -> Fut + 'a,
        Fut: Future<Output = NodeResult> + 'a,
    {
        Composable {
            config,
            body: boxed_body(body),
        }
    }

    /// The node's resolved configuration.
    pub fn config(&self) -> &NodeConfig {
        &self.config
    }
}

impl std::fmt::Debug for Composable<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Composable")
            .field("node", &self.config.fully_qualified_name())
            .finish()
    }
}

/// Runs `nodes` in this process on one participant (opened as the first node's environment
/// says) until every body has returned or SIGINT/SIGTERM arrives. A node whose body returns
/// `Ok` or calls [`Node::shutdown`] stops alone (its parameter services and clock follower
/// with it); a body's error ends the container with that error, naming the node, as an
/// exception ends an rclcpp container.
pub fn run(nodes: Vec<Composable<'_>>) -> Result<(), RunError> {
    run_all(nodes, false)
}

fn signal_name(s: Option<std::io::Result<async_signal::Signal>>) -> &'static str {
    match s {
        Some(Ok(async_signal::Signal::Int)) => "SIGINT",
        _ => "SIGTERM",
    }
}

/// [`run`], or with `to_completion` [`crate::run_to_completion`]'s rule for every node: a
/// signal only requests the shutdown, and each body decides when it is done.
pub(crate) fn run_all(nodes: Vec<Composable<'_>>, to_completion: bool) -> Result<(), RunError> {
    let Some(first) = nodes.first() else {
        return Ok(());
    };
    let dds = first.config.dds_env().clone();
    let named = nodes.len() > 1;
    let registrations: Vec<logging::Registration> = nodes
        .iter()
        .map(|n| {
            logging::register(
                n.config.logger_name(),
                n.config.log_level(),
                n.config.stderr_logs(),
            )
        })
        .collect();
    // Signals first: a SIGTERM during setup must not kill us with the participant open.
    let mut signals =
        async_signal::Signals::new([async_signal::Signal::Int, async_signal::Signal::Term])
            .map_err(RunError::Signals)?;
    let participant = Participant::open(&dds)?;
    let mut created = Vec::with_capacity(nodes.len());
    for (composable, registration) in nodes.into_iter().zip(&registrations) {
        let node = Node::create_in(&participant, composable.config)?;
        registration.attach_rosout(node.rosout_writer());
        created.push((node, composable.body));
    }
    let ex = Arc::new(smol::Executor::new());
    let graph_task = ex.spawn(participant.clone().follow_graph());
    let mut node_tasks = Vec::with_capacity(created.len());
    let mut bodies = FuturesUnordered::new();
    let mut handles = Vec::with_capacity(created.len());
    for (index, (node, body)) in created.into_iter().enumerate() {
        node.set_executor(&ex);
        let services = services::parameter_services(&node)?;
        node_tasks.push(Some([
            node.spawn(services),
            node.spawn(services::clock_follower(node.clone())),
        ]));
        let span = node.span().clone();
        let stoppable = node.clone();
        let body = body(node.clone());
        let run = async move {
            if to_completion {
                return body.await;
            }
            let body = body.fuse();
            let stop = stoppable.shutdown_requested().fuse();
            futures::pin_mut!(body, stop);
            futures::select! {
                result = body => result,
                _ = stop => Ok(()),
            }
        }
        .instrument(span);
        bodies.push(async move { (index, run.await) }.boxed_local());
        handles.push(node);
    }

    let outcome = smol::block_on(ex.run(async {
        loop {
            if bodies.is_empty() {
                return Ok(());
            }
            futures::select! {
                (index, result) = bodies.select_next_some() => {
                    // The node is done: its services and clock follower go with it.
                    node_tasks[index] = None;
                    if let Err(e) = result {
                        return Err(RunError::Body(if named {
                            format!("{}: {e}", handles[index].fully_qualified_name()).into()
                        } else {
                            e
                        }));
                    }
                }
                signal = signals.next().fuse() => {
                    if !to_completion {
                        tracing::info!("{} received, shutting down", signal_name(signal));
                        return Ok(());
                    }
                    tracing::info!("{} received, finishing", signal_name(signal));
                    for node in &handles {
                        node.shutdown();
                    }
                }
            }
        }
    }));
    // Teardown in order: the bodies (their publishers and subscriptions), the runtime's
    // tasks (tasks spawned by the bodies are cancelled with the executor), the /rosout
    // writers, the nodes, finally the participant.
    drop(bodies);
    drop(node_tasks);
    drop(graph_task);
    drop(ex);
    for node in &handles {
        let remaining = Arc::strong_count(&node.inner);
        if remaining > 1 {
            tracing::warn!(
                "{} handle(s) to {} outlive its run; the participant closes when they drop",
                remaining - 1,
                node.fully_qualified_name()
            );
        }
    }
    drop(handles);
    drop(registrations);
    outcome
}

/// Makes a node's [`Component`] (its declarations and body, not yet resolved): what a
/// package's table of composable nodes holds, by executable name.
pub type ComponentFactory = fn() -> Component;

/// A kind of node as its binary defines it (declarations and body), which runs alone
/// ([`Self::main`]: what the node's binary does) or resolved into a [`Composable`] among
/// others in a container ([`Self::resolve`]).
pub struct Component {
    builder: NodeBuilder,
    body: Body<'static>,
}

impl Component {
    /// The node `builder` declares, running `body`.
    pub fn new<F, Fut>(builder: NodeBuilder, body: F) -> Component
    where
        F: FnOnce(Node) -> Fut + 'static,
        Fut: Future<Output = NodeResult> + 'static,
    {
        Component {
            builder,
            body: boxed_body(body),
        }
    }

    /// Runs the node as its own process: [`crate::main`] (command line, environment, exit
    /// codes).
    pub fn main(self) -> std::process::ExitCode {
        let Component { builder, body } = self;
        crate::main(move || builder, body)
    }

    /// What `--help` prints for the node ([`NodeBuilder::help`]).
    pub fn help(&self, program: &str) -> String {
        self.builder.help(program)
    }

    /// Resolves the node against its own command line (`argv[0]` first, then its
    /// `--ros-args`) and an environment lookup, ready to compose.
    pub fn resolve<I, S>(
        self,
        argv: I,
        env: impl Fn(&str) -> Option<String>,
    ) -> Result<Composable<'static>, StartError>
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let config = self.builder.resolve(argv, env)?;
        Ok(Composable {
            config,
            body: self.body,
        })
    }
}
