//! The scenario runner (`fieldproof run` / `fieldproof validate`).
//!
//! - [`model`]: the scenario file, validated with field-path errors before anything runs;
//! - [`timeline`]: the timeline engine (at / after / when / every in simulation time);
//! - [`store`] + [`assertions`]: recorded samples and the assertions evaluated over them;
//! - [`evidence`]: run.json, the MCAP recording + rosbag2 metadata.yaml, report.md/html;
//! - [`plan`] + [`run`]: the processes of a run and the orchestrator; [`interrupt`] (signals
//!   at any phase end in the same teardown), [`resources`] (CPU and memory) and [`host`]
//!   (what the host delivered: a starved run is inconclusive, not failed).

pub mod assertions;
pub mod duration;
pub mod evidence;
pub mod host;
pub mod interrupt;
pub mod model;
pub mod plan;
pub mod resources;
pub mod run;
pub mod store;
pub mod timeline;
