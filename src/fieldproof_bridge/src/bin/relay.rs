//! `relay`: the node [`fieldproof_bridge::nodes::relay`] as its own process.

fn main() -> std::process::ExitCode {
    fieldproof_bridge::nodes::relay::node().main()
}
