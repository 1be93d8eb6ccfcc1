//! `command_relay`: the node [`fieldproof_bridge::nodes::command_relay`] as its own process.

fn main() -> std::process::ExitCode {
    fieldproof_bridge::nodes::command_relay::node().main()
}
