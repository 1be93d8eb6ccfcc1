//! [`Configured`]: the callbacks of a node whose configuration is one value built from its
//! parameters (read them, validate, set up), kept while configured and dropped on cleanup.

use std::sync::{Arc, Mutex};

use super::machine::{CallbackReturn, Callbacks};
use crate::msgs::lifecycle_msgs::State;

struct Slot<T> {
    value: Option<T>,
    error: Option<String>,
}

/// Callbacks that run `setup` on configure (success when it returns `Ok`, failure with the
/// error logged and kept otherwise) and drop the value on cleanup and shutdown.
/// Activate and deactivate succeed; the node's body serves with the value while ACTIVE.
pub struct Configured<T> {
    slot: Arc<Mutex<Slot<T>>>,
    setup: Box<dyn FnMut() -> Result<T, String> + Send>,
}

/// The body's side of [`Configured`]: takes the configured value to serve with and puts it
/// back when it stops serving.
pub struct ConfiguredValue<T> {
    slot: Arc<Mutex<Slot<T>>>,
}

impl<T> Clone for ConfiguredValue<T> {
    fn clone(&self) -> Self {
        Self {
            slot: self.slot.clone(),
        }
    }
}

fn lock<T>(slot: &Mutex<Slot<T>>) -> std::sync::MutexGuard<'_, Slot<T>> {
    slot.lock().unwrap_or_else(|p| p.into_inner())
}

impl<T: Send + 'static> Configured<T> {
    /// The callbacks and the handle to the value they configure.
    pub fn new(
        setup: impl FnMut() -> Result<T, String> + Send + 'static,
    ) -> (Self, ConfiguredValue<T>) {
        let slot = Arc::new(Mutex::new(Slot {
            value: None,
            error: None,
        }));
        (
            Self {
                slot: slot.clone(),
                setup: Box::new(setup),
            },
            ConfiguredValue { slot },
        )
    }
}

impl<T> ConfiguredValue<T> {
    /// Takes the configured value (None when not configured or already taken).
    pub fn take(&self) -> Option<T> {
        lock(&self.slot).value.take()
    }

    /// Puts the value back (after serving), for cleanup to drop or a new activation to take.
    pub fn put(&self, value: T) {
        lock(&self.slot).value = Some(value);
    }

    /// The error of the last failed configure, if the last configure failed.
    pub fn last_error(&self) -> Option<String> {
        lock(&self.slot).error.clone()
    }
}

impl<T: Send + 'static> Callbacks for Configured<T> {
    fn on_configure(&mut self, _previous: &State) -> CallbackReturn {
        let r = (self.setup)();
        let mut slot = lock(&self.slot);
        match r {
            Ok(v) => {
                slot.value = Some(v);
                slot.error = None;
                CallbackReturn::Success
            }
            Err(e) => {
                tracing::error!("configure: {e}");
                slot.error = Some(e);
                CallbackReturn::Failure
            }
        }
    }

    fn on_cleanup(&mut self, _previous: &State) -> CallbackReturn {
        lock(&self.slot).value = None;
        CallbackReturn::Success
    }

    fn on_shutdown(&mut self, _previous: &State) -> CallbackReturn {
        lock(&self.slot).value = None;
        CallbackReturn::Success
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lifecycle::StateMachine;
    use crate::msgs::lifecycle_msgs::Transition;

    #[test]
    fn configure_keeps_the_value_or_the_error_and_cleanup_drops_it() {
        let mut attempt = 0;
        let (mut cb, value) = Configured::new(move || {
            attempt += 1;
            if attempt == 1 {
                Err("scenario: no such file".to_string())
            } else {
                Ok(attempt)
            }
        });
        let mut m = StateMachine::new();
        let mut go = |m: &mut StateMachine, label: &str| {
            m.change_state(&Transition::new(0, label), &mut cb, &mut |_| {})
                .unwrap()
        };
        assert_eq!(go(&mut m, "configure"), CallbackReturn::Failure);
        assert_eq!(
            value.last_error().as_deref(),
            Some("scenario: no such file")
        );
        assert_eq!(value.take(), None);
        assert_eq!(go(&mut m, "configure"), CallbackReturn::Success);
        assert_eq!(value.last_error(), None);
        assert_eq!(value.take(), Some(2));
        value.put(2);
        assert_eq!(go(&mut m, "cleanup"), CallbackReturn::Success);
        assert_eq!(value.take(), None);
    }
}
