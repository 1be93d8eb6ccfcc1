//! Typed parameter handles ([`ParamHandle`], from [`crate::NodeBuilder::declare`]) and the
//! node's parameter accessors, none of which panics on a name that was not declared.

use std::sync::{Arc, Mutex, RwLock};

use ros2_client::parameters::raw;
use thiserror::Error;

use super::{ParamChange, ParamStore, Watch, Watcher};
use crate::node::Node;
use crate::qos::QosSpec;
use crate::value::{ParamType, ParamValue};

/// A Rust type a parameter handle reads: one per ROS parameter type.
pub trait ParamKind: Clone + Default + Send + Sync + 'static {
    /// The parameter type whose values this Rust type holds.
    const TYPE: ParamType;
    /// The value as this type (`None` for a value of another parameter type).
    fn from_value(value: &ParamValue) -> Option<Self>;
}

macro_rules! param_kind {
    ($rust:ty, $variant:ident) => {
        impl ParamKind for $rust {
            const TYPE: ParamType = ParamType::$variant;
            fn from_value(value: &ParamValue) -> Option<Self> {
                match value {
                    ParamValue::$variant(v) => Some(v.clone()),
                    _ => None,
                }
            }
        }
    };
}

param_kind!(bool, Bool);
param_kind!(i64, Integer);
param_kind!(f64, Double);
param_kind!(String, String);
param_kind!(Vec<u8>, ByteArray);
param_kind!(Vec<bool>, BoolArray);
param_kind!(Vec<i64>, IntegerArray);
param_kind!(Vec<f64>, DoubleArray);
param_kind!(Vec<String>, StringArray);

type Follower<T> = Arc<dyn Fn(&T) + Send + Sync>;

struct HandleCell<T> {
    name: String,
    value: RwLock<T>,
    followers: Mutex<Vec<Follower<T>>>,
}

/// A declared parameter's current value, typed: what [`crate::NodeBuilder::declare`]
/// returns. Once the node is resolved it holds the start-up value (default, parameter files,
/// `-p`) and follows every accepted change (`set_parameters`, [`Node::set_param`]); before
/// that, the declared default. Cheap to clone and to read (a short read lock).
///
/// ```
/// use fieldproof_runtime::{NodeBuilder, Param, ParamHandle};
/// let mut builder = NodeBuilder::new("driver");
/// let max_speed: ParamHandle<f64> =
///     builder.declare(Param::double("max_speed", 1.0).range(0.0, 10.0));
/// let cfg = builder.resolve(["driver", "--ros-args", "-p", "max_speed:=2.5"], |_| None).unwrap();
/// assert_eq!(max_speed.get(), 2.5);
/// # drop(cfg);
/// ```
pub struct ParamHandle<T> {
    cell: Arc<HandleCell<T>>,
}

impl<T> Clone for ParamHandle<T> {
    fn clone(&self) -> Self {
        ParamHandle {
            cell: self.cell.clone(),
        }
    }
}

impl<T: ParamKind + std::fmt::Debug> std::fmt::Debug for ParamHandle<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ParamHandle")
            .field("name", &self.cell.name)
            .field("value", &self.get())
            .finish()
    }
}

impl<T: ParamKind> ParamHandle<T> {
    pub(crate) fn new(name: &str, value: T) -> ParamHandle<T> {
        ParamHandle {
            cell: Arc::new(HandleCell {
                name: name.to_string(),
                value: RwLock::new(value),
                followers: Mutex::new(Vec::new()),
            }),
        }
    }

    /// The parameter's name.
    pub fn name(&self) -> &str {
        &self.cell.name
    }

    /// The current value.
    pub fn get(&self) -> T {
        self.cell
            .value
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// Calls `f` with the current value now and after every accepted change.
    pub fn follow(&self, f: impl Fn(&T) + Send + Sync + 'static) {
        let f: Follower<T> = Arc::new(f);
        let now = {
            let mut followers = self
                .cell
                .followers
                .lock()
                .unwrap_or_else(|e| e.into_inner());
            followers.push(f.clone());
            self.get()
        };
        f(&now);
    }

    /// The values the parameter takes from now on, as a stream (a channel receiver).
    pub fn changes(&self) -> async_channel::Receiver<T> {
        let (tx, rx) = async_channel::unbounded();
        self.cell
            .followers
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(Arc::new(move |v: &T| {
                let _ = tx.try_send(v.clone());
            }));
        rx
    }

    /// The watcher that binds this handle to a store: keeps the value and tells followers.
    pub(crate) fn binder(&self) -> Watcher {
        let cell = self.cell.clone();
        Arc::new(move |v: &ParamValue| {
            let Some(v) = T::from_value(v) else {
                return;
            };
            *cell.value.write().unwrap_or_else(|e| e.into_inner()) = v.clone();
            let followers = cell
                .followers
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .clone();
            for f in followers {
                f(&v);
            }
        })
    }
}

/// Why a parameter could not be read by name ([`Node::param_as`], [`crate::NodeConfig::param_as`]).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ParamAccessError {
    /// No parameter of that name was declared.
    #[error("parameter '{0}' is not declared")]
    Undeclared(String),
    /// The parameter holds another type.
    #[error("parameter '{name}' is of type {actual}, not {requested}")]
    WrongType {
        /// Parameter name.
        name: String,
        /// Its value's type.
        actual: ParamType,
        /// The type asked for.
        requested: ParamType,
    },
}

impl ParamStore {
    /// The value of `name` as `T`; `Err` names the parameter.
    pub(crate) fn get_as<T: ParamKind>(&self, name: &str) -> Result<T, ParamAccessError> {
        let value = self
            .get(name)
            .ok_or_else(|| ParamAccessError::Undeclared(name.to_string()))?;
        T::from_value(&value).ok_or_else(|| ParamAccessError::WrongType {
            name: name.to_string(),
            actual: value.ptype(),
            requested: T::TYPE,
        })
    }
}

impl Node {
    /// Current value of parameter `name` (`None` if it was not declared).
    pub fn param(&self, name: &str) -> Option<ParamValue> {
        self.inner.params.get(name)
    }

    /// Current value of parameter `name` as `T`; `Err` when it was not declared or holds
    /// another type. Prefer the handles of [`crate::NodeBuilder::declare`].
    pub fn param_as<T: ParamKind>(&self, name: &str) -> Result<T, ParamAccessError> {
        self.inner.params.get_as(name)
    }

    /// Any parameter `name`, kept current on every change (`None` if undeclared).
    pub fn watch(&self, name: &str) -> Watch<Option<ParamValue>> {
        self.inner.params.watch_value(name)
    }

    /// Adds a hook run before every run-time change (after type/range checks);
    /// `Err(reason)` rejects the change. Hooks must not set parameters themselves (use
    /// [`Self::on_parameter_changed`] to react).
    pub fn on_set_parameter(
        &self,
        hook: impl Fn(&str, &ParamValue) -> Result<(), String> + Send + Sync + 'static,
    ) {
        self.inner.params.add_hook(Arc::new(hook));
    }

    /// Calls `f` after each accepted change of parameter `name` (and once now; never for
    /// a name that was not declared).
    pub fn on_parameter_changed(
        &self,
        name: &str,
        f: impl Fn(&ParamValue) + Send + Sync + 'static,
    ) {
        self.inner.params.watch(name, Arc::new(f));
    }

    /// The values parameter `name` takes from now on, as a stream (a channel receiver).
    pub fn param_changes(&self, name: &str) -> async_channel::Receiver<ParamValue> {
        let (tx, rx) = async_channel::unbounded();
        self.inner.params.watch_changes(
            name,
            Arc::new(move |v| {
                let _ = tx.try_send(v.clone());
            }),
        );
        rx
    }

    /// Sets a parameter as the `set_parameters` service would (validation, hooks,
    /// `/parameter_events`). `Err` is the reason it was rejected.
    pub fn set_param(&self, name: &str, value: ParamValue) -> Result<(), String> {
        let c = self.inner.params.set(name, Some(&value))?;
        self.publish_changes(&[c]);
        Ok(())
    }

    pub(crate) fn publish_changes(&self, changes: &[ParamChange]) {
        let changed = changes
            .iter()
            .map(|c| raw::Parameter {
                name: c.name.clone(),
                value: c.value.to_raw(),
            })
            .collect();
        self.publish_param_event(vec![], changed);
        for c in changes {
            tracing::debug!("parameter {} set to {}", c.name, c.value);
        }
    }

    /// The QoS from the `qos_*` parameters. Panics unless the builder called
    /// [`crate::NodeBuilder::qos_params`].
    pub fn qos_from_params(&self) -> QosSpec {
        assert!(
            self.has_qos_params(),
            "qos_from_params() needs NodeBuilder::qos_params()"
        );
        crate::node::qos_from_store(&self.inner.params).expect("validated at startup")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_handle_reads_its_type_and_tells_followers() {
        let h: ParamHandle<f64> = ParamHandle::new("speed", 1.0);
        assert_eq!(h.get(), 1.0);
        let seen = Arc::new(Mutex::new(Vec::new()));
        let s = seen.clone();
        h.follow(move |v| s.lock().unwrap().push(*v));
        let changes = h.changes();
        let bind = h.binder();
        bind(&ParamValue::Double(2.5));
        // a value of another type (a dynamically typed parameter) leaves the handle alone
        bind(&ParamValue::String("fast".into()));
        assert_eq!(h.get(), 2.5);
        assert_eq!(*seen.lock().unwrap(), vec![1.0, 2.5]);
        assert_eq!(changes.try_recv(), Ok(2.5));
        assert!(changes.try_recv().is_err());
    }

    #[test]
    fn declared_handles_hold_the_start_up_value() {
        use crate::{NodeBuilder, Param};
        let mut b = NodeBuilder::new("n");
        let speed: ParamHandle<f64> = b.declare(Param::double("speed", 1.0).range(0.0, 10.0));
        let mode: ParamHandle<String> = b.declare(Param::string("mode", "a").one_of(&["a", "b"]));
        let names: ParamHandle<Vec<String>> = b.declare(Param::strings("names", &["x"]));
        // before the node is resolved: the defaults
        assert_eq!((speed.get(), mode.get()), (1.0, "a".to_string()));
        let cfg = b
            .resolve(
                ["n", "--ros-args", "-p", "speed:=2.5", "-p", "mode:=b"],
                |_| None,
            )
            .unwrap();
        assert_eq!(speed.get(), 2.5);
        assert_eq!(mode.get(), "b");
        assert_eq!(names.get(), vec!["x".to_string()]);
        assert_eq!(speed.name(), "speed");
        assert_eq!(cfg.param_as::<f64>("speed"), Ok(2.5));
        assert_eq!(
            cfg.param_as::<f64>("sped").unwrap_err().to_string(),
            "parameter 'sped' is not declared"
        );
    }

    #[test]
    fn a_handle_of_another_type_fails_the_start_naming_the_parameter() {
        use crate::{NodeBuilder, Param};
        let mut b = NodeBuilder::new("n");
        let _wrong: ParamHandle<i64> = b.declare(Param::double("speed", 1.0));
        let e = b.resolve(["n"], |_| None).err().unwrap();
        assert_eq!(
            e.to_string(),
            "parameter 'speed' is declared as double but its handle reads integer"
        );
        let mut b = NodeBuilder::new("n");
        let _dynamic: ParamHandle<f64> = b.declare(Param::double("any", 1.0).dynamic_typing());
        let e = b.resolve(["n"], |_| None).err().unwrap();
        assert!(e.to_string().contains("declared as dynamic"), "{e}");
    }

    #[test]
    fn reading_by_name_is_an_error_not_a_panic() {
        let (ros, _) = crate::args::parse(["p"]).unwrap();
        let store = ParamStore::new(
            vec![super::super::Param::double("speed", 0.5)],
            vec![],
            "n",
            "/n",
            &ros,
            &[],
        )
        .unwrap();
        assert_eq!(store.get_as::<f64>("speed"), Ok(0.5));
        let e = store.get_as::<f64>("typo").unwrap_err();
        assert_eq!(e.to_string(), "parameter 'typo' is not declared");
        let e = store.get_as::<String>("speed").unwrap_err();
        assert_eq!(
            e.to_string(),
            "parameter 'speed' is of type double, not string"
        );
    }
}
