//! The node: builder (declarations + command line → [`NodeConfig`]), the running [`Node`]
//! handle, publishers, subscriptions, services.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use event_listener::Event;
use ros2_client::parameters::raw;
use ros2_client::{MessageTypeName, Name, NodeName, NodeOptions, ServiceMapping, ServiceTypeName};
use serde::{de::DeserializeOwned, Serialize};
use thiserror::Error;

use crate::args::{self, ArgsError, LogLevel, ParamsSection, RosArgs};
use crate::clock::{Clock, Timer};
use crate::env::{DdsEnv, EnvError};
use crate::graph::{Graph, NodeInfo};
use crate::msgs::RosMessage;
use crate::names::{self, NameError};
use crate::params::{Param, ParamError, ParamHandle, ParamHook, ParamKind, ParamStore, Watcher};
use crate::participant::Participant;
use crate::pubsub::{Publisher, Subscription};
use crate::qos::{self, QosError, QosSpec};
use crate::rpc::RawBody;
use crate::service::{Client, Server, Wire};
use crate::value::ParamValue;

/// Why a node could not start (bad command line, environment, names or parameters).
/// Node mains exit with code 2 on these.
#[derive(Debug, Error)]
pub enum StartError {
    /// Malformed or unknown `--ros-args`.
    #[error(transparent)]
    Args(#[from] ArgsError),
    /// An invalid node name, namespace or topic name.
    #[error(transparent)]
    Name(#[from] NameError),
    /// A parameter override or declaration that does not fit.
    #[error(transparent)]
    Param(#[from] ParamError),
    /// An invalid QoS parameter value.
    #[error(transparent)]
    Qos(#[from] QosError),
    /// An invalid ROS environment variable.
    #[error(transparent)]
    Env(#[from] EnvError),
    /// A `--params-file` that cannot be read.
    #[error("--params-file {path}: {reason}")]
    ParamsFile {
        /// The file.
        path: String,
        /// The I/O or parse error.
        reason: String,
    },
}

/// A DDS-level failure while the node runs (creating an entity, writing, reading).
#[derive(Debug, Error)]
pub enum NodeError {
    /// A name that does not resolve.
    #[error(transparent)]
    Name(#[from] NameError),
    /// A message type name not of the form `package/msg/Name` (or `package/srv/Name`).
    #[error("invalid type name '{0}': expected package/msg/Name")]
    TypeName(String),
    /// Entity creation failed in ros2-client/rustdds.
    #[error("creating {what} '{name}': {reason}")]
    Create {
        /// publisher, subscription, service, client
        what: &'static str,
        /// The resolved name.
        name: String,
        /// The DDS error.
        reason: String,
    },
    /// Writing failed.
    #[error("publishing on '{topic}': {reason}")]
    Write {
        /// The topic.
        topic: String,
        /// The DDS error.
        reason: String,
    },
    /// Reading failed.
    #[error("receiving on '{topic}': {reason}")]
    Read {
        /// The topic.
        topic: String,
        /// The DDS error.
        reason: String,
    },
    /// A service call failed.
    #[error("calling service '{service}': {reason}")]
    Call {
        /// The service.
        service: String,
        /// The error.
        reason: String,
    },
}

/// Declares a node: default name and namespace, parameters, hooks.
///
/// ```no_run
/// use fieldproof_runtime::{NodeBuilder, Param, qos};
/// let b = NodeBuilder::new("relay")
///     .param(Param::string("input", "input").description("topic to read").read_only())
///     .param(Param::double("max_linear_mps", 0.0).range(0.0, 100.0))
///     .qos_params(qos::default());
/// ```
pub struct NodeBuilder {
    name: String,
    namespace: String,
    params: Vec<Param>,
    hooks: Vec<ParamHook>,
    /// The handles of [`Self::declare`], bound to the store by [`Self::resolve`].
    handles: Vec<(String, Watcher)>,
    /// Declaration mistakes (a handle of the wrong type), reported by [`Self::resolve`].
    errors: Vec<ParamError>,
    qos_default: Option<QosSpec>,
    rosout: bool,
}

impl NodeBuilder {
    /// A node whose default name is `name` (overridden by `-r __node:=`).
    pub fn new(name: &str) -> NodeBuilder {
        NodeBuilder {
            name: name.to_string(),
            namespace: "/".to_string(),
            params: Vec::new(),
            hooks: Vec::new(),
            handles: Vec::new(),
            errors: Vec::new(),
            qos_default: None,
            rosout: true,
        }
    }

    /// Default namespace (overridden by `-r __ns:=`).
    pub fn namespace(mut self, ns: &str) -> NodeBuilder {
        self.namespace = ns.to_string();
        self
    }

    /// Declares a parameter the node reads by name or not at all (prefer [`Self::declare`]).
    pub fn param(mut self, p: Param) -> NodeBuilder {
        self.params.push(p);
        self
    }

    /// Declares a parameter and returns its typed handle, which holds the start-up value
    /// once the node is resolved and follows every accepted change ([`ParamHandle`]).
    /// A handle whose type `T` is not the declared one (or a dynamically typed parameter)
    /// makes [`Self::resolve`] fail naming the parameter ([`ParamError::HandleType`]).
    pub fn declare<T: ParamKind>(&mut self, p: Param) -> ParamHandle<T> {
        let handle = ParamHandle::new(p.name(), T::from_value(&p.default).unwrap_or_default());
        if p.ptype() != T::TYPE || p.dynamic_typing {
            self.errors.push(ParamError::HandleType {
                name: p.name().to_string(),
                declared: if p.dynamic_typing {
                    "dynamic".to_string()
                } else {
                    p.ptype().to_string()
                },
                requested: T::TYPE.to_string(),
            });
        }
        self.handles.push((p.name().to_string(), handle.binder()));
        self.params.push(p);
        handle
    }

    /// Declares `qos_reliability` (`reliable`|`best_effort`), `qos_durability`
    /// (`volatile`|`transient_local`) and `qos_depth` (>= 1), defaulting to `default`;
    /// read them back with [`Node::qos_from_params`]. They are read-only: a QoS is fixed
    /// when a publisher or subscription is created.
    pub fn qos_params(mut self, default: QosSpec) -> NodeBuilder {
        let (r, d, n) = default.param_strings();
        self.params.push(
            Param::string("qos_reliability", r)
                .description("QoS reliability of the node's topics")
                .one_of(&["reliable", "best_effort"])
                .read_only(),
        );
        self.params.push(
            Param::string("qos_durability", d)
                .description("QoS durability of the node's topics")
                .one_of(&["volatile", "transient_local"])
                .read_only(),
        );
        self.params.push(
            Param::int("qos_depth", n)
                .description("QoS history depth (keep last) of the node's topics")
                .range(1.0, 100_000.0)
                .read_only(),
        );
        self.qos_default = Some(default);
        self
    }

    /// A hook run before every run-time parameter change (after type/range checks);
    /// `Err(reason)` rejects the change, which is reported to the caller.
    pub fn on_set_parameter(
        mut self,
        hook: impl Fn(&str, &ParamValue) -> Result<(), String> + Send + Sync + 'static,
    ) -> NodeBuilder {
        self.hooks.push(Arc::new(hook));
        self
    }

    /// Whether to publish logs on `/rosout` (default true; `--disable-rosout-logs` wins).
    pub fn rosout(mut self, on: bool) -> NodeBuilder {
        self.rosout = on;
        self
    }

    /// Resolves the node against a command line (with `argv[0]`) and environment lookup:
    /// ROS arguments, names, parameter overrides. Opens no DDS participant.
    pub fn resolve<I, S>(
        self,
        argv: I,
        env: impl Fn(&str) -> Option<String>,
    ) -> Result<NodeConfig, StartError>
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        if let Some(e) = self.errors.into_iter().next() {
            return Err(e.into());
        }
        let (ros, rest) = args::parse(argv)?;
        names::validate_node_name(&self.name)?;
        let name = ros
            .node_name_for(&self.name)
            .unwrap_or(&self.name)
            .to_string();
        let namespace = match ros.namespace_for(&self.name) {
            Some(ns) => ns.to_string(),
            None => names::normalize_namespace(&self.namespace)?,
        };
        let fqn = names::fully_qualified(&namespace, &name);
        let mut files = Vec::new();
        for path in &ros.params_files {
            let shown = path.display().to_string();
            let text = read_file(path).map_err(|reason| StartError::ParamsFile {
                path: shown.clone(),
                reason,
            })?;
            let secs: Vec<ParamsSection> =
                args::parse_params_file(&text, &shown).map_err(|e| StartError::ParamsFile {
                    path: shown.clone(),
                    reason: e.reason,
                })?;
            files.push((shown, secs));
        }
        let store = ParamStore::new(self.params, self.hooks, &name, &fqn, &ros, &files)?;
        store.check_topics(&name, &namespace)?;
        if self.qos_default.is_some() {
            qos_from_store(&store)?;
        }
        for (param, bind) in self.handles {
            store.watch(&param, bind);
        }
        let dds = DdsEnv::from_lookup(env)?;
        // A bad FIELDPROOF_DDS_INTERFACES is refused here, before any participant exists.
        dds.check_interfaces(&crate::env::local_addresses())?;
        let logger = crate::logging::logger_name(&namespace, &name);
        let log_level = ros.log_level_for(&logger).unwrap_or(LogLevel::Info);
        let rosout = ros.rosout_logs.unwrap_or(self.rosout);
        let stderr = ros.stdout_logs.unwrap_or(true);
        Ok(NodeConfig {
            name,
            namespace,
            fqn,
            logger,
            log_level,
            rosout,
            stderr,
            ros,
            args: rest,
            dds,
            store,
            has_qos_params: self.qos_default.is_some(),
        })
    }

    /// What `--help` prints: the node's default name and namespace, how to pass ROS
    /// arguments, and every declared parameter ([`Param::help_entry`]).
    pub fn help(&self, program: &str) -> String {
        let mut params: Vec<&Param> = self.params.iter().collect();
        params.sort_by(|a, b| a.name().cmp(b.name()));
        let mut text = format!(
            "{program}: ROS 2 node '{}'{}\n\nusage: {program} [--ros-args [-r __ns:=/namespace] [-r __node:=name] \
             [-r from:=to] [-p name:=value] [--params-file file.yaml] [--log-level level]]\n\n\
             parameters (set with -p name:=value or a --params-file; `ros2 param` at run time \
             unless read-only):\n",
            self.name,
            if self.namespace.is_empty() || self.namespace == "/" {
                String::new()
            } else {
                format!(" in namespace '{}'", self.namespace)
            }
        );
        for p in params {
            text.push_str(&p.help_entry());
            text.push('\n');
        }
        if !self.params.iter().any(|p| p.name() == "use_sim_time") {
            text.push_str(
                "  use_sim_time (bool, default false)\n      follow /clock \
                 (rosgraph_msgs/msg/Clock) instead of the system clock\n",
            );
        }
        text
    }

    /// [`Self::resolve`] against the process's arguments and environment. An argument
    /// that is not valid UTF-8 is refused (naming it, lossily displayed), not a panic.
    pub fn resolve_from_process(self) -> Result<NodeConfig, StartError> {
        self.resolve_os(std::env::args_os(), |k| std::env::var(k).ok())
    }

    /// [`Self::resolve`] over OS strings (`std::env::args_os`): every argument must be
    /// valid UTF-8 ([`ArgsError::NotUnicode`] names the first that is not).
    pub fn resolve_os<I>(
        self,
        argv: I,
        env: impl Fn(&str) -> Option<String>,
    ) -> Result<NodeConfig, StartError>
    where
        I: IntoIterator<Item = std::ffi::OsString>,
    {
        self.resolve(args::utf8_args(argv)?, env)
    }
}

fn read_file(path: &Path) -> Result<String, String> {
    std::fs::read_to_string(path).map_err(|e| e.to_string())
}

pub(crate) fn qos_from_store(store: &ParamStore) -> Result<QosSpec, QosError> {
    let get = |n| store.get(n).unwrap_or(ParamValue::Bool(false));
    QosSpec::from_param_values(
        &get("qos_reliability"),
        &get("qos_durability"),
        &get("qos_depth"),
    )
}

/// A node resolved from its declaration and the command line, not yet on DDS.
pub struct NodeConfig {
    name: String,
    namespace: String,
    fqn: String,
    logger: String,
    log_level: LogLevel,
    rosout: bool,
    stderr: bool,
    ros: RosArgs,
    args: Vec<String>,
    dds: DdsEnv,
    store: ParamStore,
    has_qos_params: bool,
}

impl NodeConfig {
    /// Node name after `-r __node:=`.
    pub fn name(&self) -> &str {
        &self.name
    }
    /// Namespace after `-r __ns:=`.
    pub fn namespace(&self) -> &str {
        &self.namespace
    }
    /// Fully qualified node name.
    pub fn fully_qualified_name(&self) -> &str {
        &self.fqn
    }
    /// Current value of a parameter (after overrides).
    pub fn param(&self, name: &str) -> Option<ParamValue> {
        self.store.get(name)
    }
    /// Current value of a parameter as `T`; `Err` names it when it was not declared or
    /// holds another type.
    pub fn param_as<T: ParamKind>(&self, name: &str) -> Result<T, crate::ParamAccessError> {
        self.store.get_as(name)
    }
    /// The non-ROS arguments, `argv[0]` first.
    pub fn args(&self) -> &[String] {
        &self.args
    }
    /// The parsed ROS arguments.
    pub fn ros_args(&self) -> &RosArgs {
        &self.ros
    }
    /// The DDS environment.
    pub fn dds_env(&self) -> &DdsEnv {
        &self.dds
    }
    /// Logger name (`ns.name`).
    pub fn logger_name(&self) -> &str {
        &self.logger
    }
    /// Effective log level for this node's logger.
    pub fn log_level(&self) -> LogLevel {
        self.log_level
    }
    /// Whether logs go to stderr.
    pub fn stderr_logs(&self) -> bool {
        self.stderr
    }
    /// Whether logs go to `/rosout`.
    pub fn rosout_logs(&self) -> bool {
        self.rosout
    }
}

pub(crate) struct NodeInner {
    // Field order is drop order: the ros2-client node (announcing its removal) goes
    // before the participant (which closes once no node of it is left).
    ros: Mutex<ros2_client::Node>,
    param_events: ros2_client::Publisher<raw::ParameterEvent>,
    rosout: Arc<Option<ros2_client::Publisher<ros2_client::Log>>>,
    participant: Arc<Participant>,
    name: String,
    namespace: String,
    fqn: String,
    logger: String,
    /// The span the node's tasks run in: their log lines carry the node's logger name.
    span: tracing::Span,
    ros_args: RosArgs,
    args: Vec<String>,
    pub(crate) params: ParamStore,
    has_qos_params: bool,
    clock: Clock,
    mapping: ServiceMapping,
    shutdown: AtomicBool,
    shutdown_event: Event,
    executor: Mutex<Weak<smol::Executor<'static>>>,
    pub(crate) graph: Arc<Graph>,
}

/// A running node; cheap to clone (shared handle).
#[derive(Clone)]
pub struct Node {
    pub(crate) inner: Arc<NodeInner>,
}

impl std::fmt::Debug for Node {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Node")
            .field("fqn", &self.inner.fqn)
            .finish()
    }
}

fn create_err(what: &'static str, name: &str, e: impl std::fmt::Display) -> NodeError {
    NodeError::Create {
        what,
        name: name.to_string(),
        reason: e.to_string(),
    }
}

/// `topic` again (name and type as ros2-client spells them) with `type_name`'s hash in its
/// QoS's USER_DATA: every endpoint created on it announces the hash, as Jazzy's do.
fn announcing_type_hash(
    context: &ros2_client::Context,
    topic: &rustdds::Topic,
    type_name: &str,
) -> ros2_client::CreateResult<rustdds::Topic> {
    let announcing = context.domain_participant().create_topic(
        rustdds::TopicDescription::name(topic),
        rustdds::TopicDescription::get_type(topic)
            .name()
            .to_string(),
        &crate::pubsub::with_type_hash_of(type_name, rustdds::qos::HasQoSPolicy::qos(topic)),
        rustdds::TopicKind::NoKey,
    )?;
    Ok(announcing)
}

fn split_type(type_name: &str, kind: &str) -> Result<(String, String), NodeError> {
    let parts: Vec<&str> = type_name.split('/').collect();
    match parts.as_slice() {
        [pkg, k, name] if *k == kind && !pkg.is_empty() && !name.is_empty() => {
            Ok((pkg.to_string(), name.to_string()))
        }
        _ => Err(NodeError::TypeName(type_name.to_string())),
    }
}

impl Node {
    /// Puts the node on DDS in `participant` (shared with the process's other nodes):
    /// a ros2-client node under the resolved name and namespace (so `ros_discovery_info`
    /// shows it), `/parameter_events` and `/rosout`. Logs go to the node's logger once
    /// [`crate::logging`] knows it (the run functions register it).
    pub fn create_in(participant: &Arc<Participant>, cfg: NodeConfig) -> Result<Node, NodeError> {
        let context = participant.context().clone();
        let node_name = NodeName::new(&cfg.namespace, &cfg.name)
            .map_err(|e| create_err("node", &cfg.fqn, e))?;
        let options = NodeOptions::new()
            // our own /rosout writer below, with rcl's rosout QoS
            .enable_rosout(false)
            .start_parameter_services(false);
        let mut ros = context
            .new_node(node_name, options)
            .map_err(|e| create_err("node", &cfg.fqn, e))?;
        let pe_topic = ros
            .create_topic(
                &Name::parse("/parameter_events").expect("valid name"),
                MessageTypeName::new("rcl_interfaces", "ParameterEvent"),
                &qos::parameter_events().to_profile(),
            )
            .and_then(|t| announcing_type_hash(&context, &t, "rcl_interfaces/msg/ParameterEvent"))
            .map_err(|e| create_err("publisher", "/parameter_events", e))?;
        let param_events = ros
            .create_publisher(&pe_topic, Some(qos::parameter_events().to_profile()))
            .map_err(|e| create_err("publisher", "/parameter_events", e))?;
        let rosout = if cfg.rosout {
            let q = qos::rosout().to_profile();
            let t = ros
                .create_topic(
                    &Name::parse("/rosout").expect("valid name"),
                    MessageTypeName::new("rcl_interfaces", "Log"),
                    &q,
                )
                .and_then(|t| announcing_type_hash(&context, &t, "rcl_interfaces/msg/Log"))
                .map_err(|e| create_err("publisher", "/rosout", e))?;
            Some(
                ros.create_publisher(&t, Some(q))
                    .map_err(|e| create_err("publisher", "/rosout", e))?,
            )
        } else {
            None
        };
        let use_sim = matches!(cfg.store.get("use_sim_time"), Some(ParamValue::Bool(true)));
        let clock = Clock::sharing(use_sim, participant.sim_time());
        let mapping = if cfg.dds.cyclone_services {
            ServiceMapping::Cyclone
        } else {
            ServiceMapping::Enhanced
        };
        let node = Node {
            inner: Arc::new(NodeInner {
                ros: Mutex::new(ros),
                param_events,
                rosout: Arc::new(rosout),
                participant: participant.clone(),
                span: crate::logging::node_span(&cfg.logger),
                name: cfg.name,
                namespace: cfg.namespace,
                fqn: cfg.fqn,
                logger: cfg.logger,
                ros_args: cfg.ros,
                args: cfg.args,
                params: cfg.store,
                has_qos_params: cfg.has_qos_params,
                clock: clock.clone(),
                mapping,
                shutdown: AtomicBool::new(false),
                shutdown_event: Event::new(),
                executor: Mutex::new(Weak::new()),
                graph: participant.graph(),
            }),
        };
        let c = clock.clone();
        node.inner.params.watch(
            "use_sim_time",
            Arc::new(move |v| c.set_sim(matches!(v, ParamValue::Bool(true)))),
        );
        // rclcpp announces declared parameters as new ones
        let all = node.inner.params.all();
        node.publish_param_event(
            all.iter()
                .map(|(n, v)| raw::Parameter {
                    name: n.clone(),
                    value: v.to_raw(),
                })
                .collect(),
            vec![],
        );
        Ok(node)
    }

    pub(crate) fn ros_node(&self) -> std::sync::MutexGuard<'_, ros2_client::Node> {
        self.inner.ros.lock().unwrap()
    }

    pub(crate) fn rosout_writer(&self) -> Arc<Option<ros2_client::Publisher<ros2_client::Log>>> {
        self.inner.rosout.clone()
    }

    pub(crate) fn set_executor(&self, ex: &Arc<smol::Executor<'static>>) {
        *self.inner.executor.lock().unwrap() = Arc::downgrade(ex);
    }

    /// Node name (after `-r __node:=`).
    pub fn name(&self) -> &str {
        &self.inner.name
    }
    /// Namespace (after `-r __ns:=`).
    pub fn namespace(&self) -> &str {
        &self.inner.namespace
    }
    /// Fully qualified name (`/ns/name`).
    pub fn fully_qualified_name(&self) -> &str {
        &self.inner.fqn
    }
    /// Logger name (`ns.name`), shown in log lines.
    pub fn logger_name(&self) -> &str {
        &self.inner.logger
    }
    /// The non-ROS command-line arguments, `argv[0]` first.
    pub fn args(&self) -> &[String] {
        &self.inner.args
    }
    /// The parsed ROS arguments.
    pub fn ros_args(&self) -> &RosArgs {
        &self.inner.ros_args
    }
    /// The DDS domain id.
    pub fn domain_id(&self) -> u16 {
        self.inner.participant.domain_id()
    }
    /// The ros2-client context (escape hatch).
    pub fn context(&self) -> &ros2_client::Context {
        self.inner.participant.context()
    }

    /// The participant the node is on (shared by the nodes of a container).
    pub fn participant(&self) -> &Arc<Participant> {
        &self.inner.participant
    }

    /// The node's span: what runs in it logs under the node's logger name.
    pub fn span(&self) -> &tracing::Span {
        &self.inner.span
    }

    /// Expands and remaps a topic name like rcl (`rcl_node_resolve_name`).
    pub fn resolve_topic_name(&self, name: &str) -> Result<String, NameError> {
        names::resolve(
            name,
            &self.inner.name,
            &self.inner.namespace,
            &self.inner.ros_args.remaps,
        )
    }

    /// Expands and remaps a service name (same rules as topics).
    pub fn resolve_service_name(&self, name: &str) -> Result<String, NameError> {
        self.resolve_topic_name(name)
    }

    fn topic<M: RosMessage>(
        &self,
        what: &'static str,
        topic: &str,
        qos: &QosSpec,
    ) -> Result<(String, rustdds::Topic), NodeError> {
        let resolved = self.resolve_topic_name(topic)?;
        let (pkg, ty) = split_type(M::TYPE_NAME, "msg")?;
        let name = Name::parse(&resolved).map_err(|e| create_err(what, &resolved, e))?;
        let t = self
            .ros_node()
            .create_topic(&name, MessageTypeName::new(&pkg, &ty), &qos.to_profile())
            .map_err(|e| create_err(what, &resolved, e))?;
        let t = announcing_type_hash(self.context(), &t, M::TYPE_NAME)
            .map_err(|e| create_err(what, &resolved, e))?;
        Ok((resolved, t))
    }

    /// A publisher on `topic` (resolved and remapped) with `qos`.
    pub fn publisher<M: RosMessage>(
        &self,
        topic: &str,
        qos: QosSpec,
    ) -> Result<Publisher<M>, NodeError> {
        let (resolved, t) = self.topic::<M>("publisher", topic, &qos)?;
        let inner = self
            .ros_node()
            .create_publisher(&t, Some(qos.to_profile()))
            .map_err(|e| create_err("publisher", &resolved, e))?;
        Ok(Publisher::new(inner, resolved, self.inner.graph.clone()))
    }

    /// A subscription on `topic` (resolved and remapped) with `qos`.
    pub fn subscription<M: RosMessage>(
        &self,
        topic: &str,
        qos: QosSpec,
    ) -> Result<Subscription<M>, NodeError> {
        let (resolved, t) = self.topic::<M>("subscription", topic, &qos)?;
        let inner = self
            .ros_node()
            .create_subscription(&t, Some(qos.to_profile()))
            .map_err(|e| create_err("subscription", &resolved, e))?;
        Ok(Subscription::new(inner, resolved, self.inner.graph.clone()))
    }

    /// A service server for `service` of type `type_name` (`pkg/srv/Name`), with
    /// ROS 2's service QoS. Serve it with [`Server::serve`].
    pub fn server<Req, Resp>(
        &self,
        service: &str,
        type_name: &str,
    ) -> Result<Server<Req, Resp>, NodeError>
    where
        Req: Serialize + DeserializeOwned + Clone + Send + 'static,
        Resp: Serialize + DeserializeOwned + Send + 'static,
    {
        self.server_qos(service, type_name, qos::services())
    }

    pub(crate) fn server_qos<Req, Resp>(
        &self,
        service: &str,
        type_name: &str,
        q: QosSpec,
    ) -> Result<Server<Req, Resp>, NodeError>
    where
        Req: Serialize + DeserializeOwned + Clone + Send + 'static,
        Resp: Serialize + DeserializeOwned + Send + 'static,
    {
        let resolved = self.resolve_service_name(service)?;
        let (pkg, ty) = split_type(type_name, "srv")?;
        let name = Name::parse(&resolved).map_err(|e| create_err("service", &resolved, e))?;
        let inner = self
            .ros_node()
            .create_server_with_user_data::<RawBody, RawBody>(
                // decoded here in either mapping; replies carry related_sample_identity
                ServiceMapping::Enhanced,
                &name,
                &ServiceTypeName::new(&pkg, &ty),
                q.to_profile(),
                q.to_profile(),
                // both endpoints announce the service type's hash, as Jazzy's do
                fieldproof_msgs::type_hash::user_data(type_name).ok(),
            )
            .map_err(|e| create_err("service", &resolved, e))?;
        Ok(Server::new(
            inner,
            resolved,
            self.inner.mapping == ServiceMapping::Cyclone,
            self.inner.graph.clone(),
            self.context().domain_participant(),
        ))
    }

    /// A service client for `service` of type `type_name` (`pkg/srv/Name`).
    pub fn client<Req, Resp>(
        &self,
        service: &str,
        type_name: &str,
    ) -> Result<Client<Req, Resp>, NodeError>
    where
        Req: Serialize + DeserializeOwned + Clone + Send + 'static,
        Resp: Serialize + DeserializeOwned + Send + 'static,
    {
        let resolved = self.resolve_service_name(service)?;
        let (pkg, ty) = split_type(type_name, "srv")?;
        let name = Name::parse(&resolved).map_err(|e| create_err("client", &resolved, e))?;
        let q = qos::services().to_profile();
        let inner = self
            .ros_node()
            .create_client_with_user_data::<Wire<Req>, Wire<Resp>>(
                self.inner.mapping,
                &name,
                &ServiceTypeName::new(&pkg, &ty),
                q.clone(),
                q,
                fieldproof_msgs::type_hash::user_data(type_name).ok(),
            )
            .map_err(|e| create_err("client", &resolved, e))?;
        Ok(Client {
            inner,
            name: resolved,
            graph: self.inner.graph.clone(),
            participant: self.context().domain_participant(),
        })
    }

    /// The node's ROS clock (simulation time while `use_sim_time` is true).
    pub fn clock(&self) -> Clock {
        self.inner.clock.clone()
    }

    /// Current ROS time.
    pub fn now(&self) -> crate::msgs::builtin_interfaces::Time {
        self.inner.clock.now()
    }

    /// A timer ticking every `period` of ROS time.
    pub fn timer(&self, period: Duration) -> Timer {
        self.inner.clock.timer(period)
    }

    /// A timer at `hz` ticks per second of ROS time.
    pub fn timer_hz(&self, hz: f64) -> Timer {
        self.timer(Duration::from_secs_f64(1.0 / hz))
    }

    pub(crate) fn publish_param_event(
        &self,
        new: Vec<raw::Parameter>,
        changed: Vec<raw::Parameter>,
    ) {
        let now = self.inner.clock.now();
        let ev = raw::ParameterEvent {
            stamp: ros2_client::builtin_interfaces::Time::new(now.sec, now.nanosec),
            node: self.inner.fqn.clone(),
            new_parameters: new,
            changed_parameters: changed,
            deleted_parameters: vec![],
        };
        if let Err(e) = self.inner.param_events.publish(ev) {
            tracing::warn!("publishing /parameter_events: {e:?}");
        }
    }

    pub(crate) fn has_qos_params(&self) -> bool {
        self.inner.has_qos_params
    }

    /// The ROS nodes currently in the graph (from `ros_discovery_info`), this one included.
    pub fn nodes(&self) -> Vec<NodeInfo> {
        self.inner.graph.nodes()
    }

    /// The ROS nodes in the graph grouped by the DDS participant announcing them (a process,
    /// or a container's nodes together).
    pub fn nodes_by_participant(&self) -> Vec<Vec<NodeInfo>> {
        self.inner.graph.nodes_by_participant()
    }

    /// Waits until a node with fully qualified name `fqn` is in the graph.
    pub async fn wait_for_node(&self, fqn: &str) {
        self.inner
            .graph
            .wait(|g| g.nodes().iter().any(|n| n.fully_qualified_name() == fqn))
            .await
    }

    /// Waits until no node with fully qualified name `fqn` is in the graph.
    pub async fn wait_for_node_gone(&self, fqn: &str) {
        self.inner
            .graph
            .wait(|g| g.nodes().iter().all(|n| n.fully_qualified_name() != fqn))
            .await
    }

    /// Asks the run loop to stop (as a signal would).
    pub fn shutdown(&self) {
        self.inner.shutdown.store(true, Ordering::Release);
        self.inner.shutdown_event.notify(usize::MAX);
    }

    /// Whether shutdown was requested.
    pub fn is_shutting_down(&self) -> bool {
        self.inner.shutdown.load(Ordering::Acquire)
    }

    /// Resolves when shutdown is requested (by a signal or [`Self::shutdown`]).
    pub async fn shutdown_requested(&self) {
        loop {
            let l = self.inner.shutdown_event.listen();
            if self.is_shutting_down() {
                return;
            }
            l.await;
        }
    }

    /// Spawns a task on the node's executor; it is cancelled when the node shuts down.
    /// Panics outside [`crate::run`].
    pub fn spawn<T: Send + 'static>(
        &self,
        fut: impl std::future::Future<Output = T> + Send + 'static,
    ) -> smol::Task<T> {
        let ex = self
            .inner
            .executor
            .lock()
            .unwrap()
            .upgrade()
            .expect("Node::spawn outside fieldproof_runtime::run");
        ex.spawn(tracing::Instrument::instrument(
            fut,
            self.inner.span.clone(),
        ))
    }
}
