//! `battery`: the node [`fieldproof_bridge::nodes::battery`] as its own process.

fn main() -> std::process::ExitCode {
    fieldproof_bridge::nodes::battery::node().main()
}
