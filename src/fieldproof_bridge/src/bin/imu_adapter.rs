//! `imu_adapter`: the node [`fieldproof_bridge::nodes::imu_adapter`] as its own process.

fn main() -> std::process::ExitCode {
    fieldproof_bridge::nodes::imu_adapter::node().main()
}
