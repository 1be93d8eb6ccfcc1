//! `throttle`: the node [`fieldproof_bridge::nodes::throttle`] as its own process.

fn main() -> std::process::ExitCode {
    fieldproof_bridge::nodes::throttle::node().main()
}
