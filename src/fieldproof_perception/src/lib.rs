//! The verified perception payload, one module per concern, one binary per node or tool
//! (`src/bin/`):
//!
//! - [`artifact`]: the model artifact (`model.onnx`, `manifest.yaml`, `manifest.sig`) and the
//!   boot gate that checks it before any inference (`model_sign` makes and checks artifacts);
//! - [`inference`]: the segmentation model run on the CPU with tract, its mask turned into a
//!   bounding box (`perception` node).

pub mod artifact;
pub mod inference;
