//! `link_monitor`: the failsafe [`fieldproof_link::nodes::link_monitor`] as its own process.

fn main() -> std::process::ExitCode {
    fieldproof_link::nodes::link_monitor::node().main()
}
