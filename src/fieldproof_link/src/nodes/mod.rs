//! The package's nodes that compose, each a
//! [`Component`](fieldproof_runtime::container::Component): run alone by its binary
//! (`src/bin/<executable>.rs`) or as a node of a container's process (`bundle_container
//! --failsafe` holds the failsafe beside the vehicle's bridge adapters).

use fieldproof_runtime::container::ComponentFactory;

pub mod link_monitor;

/// Every composable node of the package by executable name.
pub const COMPONENTS: [(&str, ComponentFactory); 1] = [("link_monitor", link_monitor::node)];
