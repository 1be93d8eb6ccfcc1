//! `navsat_adapter`: the node [`fieldproof_bridge::nodes::navsat_adapter`] as its own process.

fn main() -> std::process::ExitCode {
    fieldproof_bridge::nodes::navsat_adapter::node().main()
}
