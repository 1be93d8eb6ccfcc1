//! The faults every injector offers: `dropout` (publish nothing while true: the sensor is
//! silent) and `freeze` (repeat the last message as it was, stamp included, at the input's
//! rate: the sensor hangs).
//!
//! [`FaultSwitches`] is what the parameter hooks flip (shared, lock-free); [`Injector`] sits
//! at the end of an adapter's pipeline and decides, per incoming message, what goes out.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// The two switches, set at run time through the parameter services.
#[derive(Debug, Default)]
pub struct FaultSwitches {
    dropout: AtomicBool,
    freeze: AtomicBool,
}

impl FaultSwitches {
    /// Switches with the given initial values.
    pub fn new(dropout: bool, freeze: bool) -> Arc<Self> {
        Arc::new(Self {
            dropout: AtomicBool::new(dropout),
            freeze: AtomicBool::new(freeze),
        })
    }
    /// Turn `dropout` on or off.
    pub fn set_dropout(&self, on: bool) {
        self.dropout.store(on, Ordering::SeqCst);
    }
    /// Turn `freeze` on or off.
    pub fn set_freeze(&self, on: bool) {
        self.freeze.store(on, Ordering::SeqCst);
    }
    /// Whether `dropout` is on.
    pub fn dropout(&self) -> bool {
        self.dropout.load(Ordering::SeqCst)
    }
    /// Whether `freeze` is on.
    pub fn freeze(&self) -> bool {
        self.freeze.load(Ordering::SeqCst)
    }
}

/// Applies the fault switches to a stream of (already adapted) messages.
#[derive(Debug)]
pub struct Injector<T> {
    switches: Arc<FaultSwitches>,
    last: Option<T>,
}

impl<T: Clone> Injector<T> {
    /// An injector driven by `switches`.
    pub fn new(switches: Arc<FaultSwitches>) -> Self {
        Self {
            switches,
            last: None,
        }
    }

    /// What to publish for one incoming message: nothing under dropout; the last message
    /// published before the freeze (or, frozen from the start, the first one) under freeze;
    /// otherwise the message itself. Dropout wins over freeze.
    pub fn process(&mut self, msg: T) -> Option<T> {
        if self.switches.dropout() {
            return None;
        }
        if self.switches.freeze() {
            return Some(self.last.get_or_insert(msg).clone());
        }
        self.last = Some(msg.clone());
        Some(msg)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passes_drops_and_freezes() {
        let switches = FaultSwitches::new(false, false);
        let mut injector = Injector::new(switches.clone());
        assert_eq!(injector.process(1), Some(1));
        assert_eq!(injector.process(2), Some(2));
        switches.set_freeze(true);
        assert_eq!(
            injector.process(3),
            Some(2),
            "frozen: the last message again"
        );
        assert_eq!(injector.process(4), Some(2));
        switches.set_dropout(true);
        assert_eq!(injector.process(5), None, "dropout wins over freeze");
        switches.set_dropout(false);
        assert_eq!(injector.process(6), Some(2));
        switches.set_freeze(false);
        assert_eq!(injector.process(7), Some(7), "thawed: live again");
    }

    #[test]
    fn frozen_from_the_start_repeats_the_first_message() {
        let mut injector = Injector::new(FaultSwitches::new(false, true));
        assert_eq!(injector.process("a"), Some("a"));
        assert_eq!(injector.process("b"), Some("a"));
    }
}
