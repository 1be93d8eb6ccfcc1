//! The scenario runner (`fieldproof run` / `fieldproof validate`).
//!
//! - [`model`]: the scenario file, validated with field-path errors before anything runs;
//! - [`timeline`]: the timeline engine (at / after / when / every in simulation time);
//! - [`store`] + [`assertions`]: recorded samples and the assertions evaluated over them;
//! - [`evidence`]: run.json, the MCAP recording + rosbag2 metadata.yaml, report.md/html.

pub mod assertions;
pub mod duration;
pub mod evidence;
pub mod model;
pub mod plan;
pub mod run;
pub mod store;
pub mod timeline;
