//! ONNX inference on the CPU (being built).
