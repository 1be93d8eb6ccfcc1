//! The signals that interrupt a run: SIGINT (Ctrl-C), SIGTERM and SIGHUP. They are caught
//! for the whole run, not only while its ROS node spins, so a signal at any phase (the
//! bundles, the network, the bring-up, the timeline) ends in the same ordered teardown:
//! processes stopped, namespaces removed, evidence written.

use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
use signal_hook::SigId;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// Catches the interrupting signals while it lives.
#[derive(Debug)]
pub struct Interrupt {
    caught: Arc<AtomicUsize>,
    ids: Vec<SigId>,
}

impl Interrupt {
    /// Starts catching SIGINT, SIGTERM and SIGHUP.
    pub fn catch() -> std::io::Result<Self> {
        let caught = Arc::new(AtomicUsize::new(0));
        let mut ids = Vec::new();
        for sig in [SIGINT, SIGTERM, SIGHUP] {
            ids.push(signal_hook::flag::register_usize(
                sig,
                caught.clone(),
                sig as usize,
            )?);
        }
        Ok(Interrupt { caught, ids })
    }

    /// The name of the first signal caught, if any.
    pub fn caught(&self) -> Option<&'static str> {
        match self.caught.load(Ordering::Acquire) as i32 {
            0 => None,
            SIGINT => Some("SIGINT"),
            SIGTERM => Some("SIGTERM"),
            SIGHUP => Some("SIGHUP"),
            _ => Some("a signal"),
        }
    }
}

impl Drop for Interrupt {
    fn drop(&mut self) {
        for id in self.ids.drain(..) {
            signal_hook::low_level::unregister(id);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_signal_is_caught_and_named() {
        let i = Interrupt::catch().unwrap();
        assert_eq!(i.caught(), None);
        signal_hook::low_level::raise(SIGHUP).unwrap();
        assert_eq!(i.caught(), Some("SIGHUP"));
    }
}
