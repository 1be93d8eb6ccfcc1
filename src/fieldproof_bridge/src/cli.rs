//! What the package's command-line tools share.

use std::ffi::OsString;
use std::process::ExitCode;

/// Parses `args` (program name first) into `C`. On `--help` or `--version` clap prints
/// the text and the error is exit 0; on a bad argument it prints the usage error and the
/// error is exit 2 (bad input). The caller returns the code as it is.
pub fn parse_args<C, I, T>(args: I) -> Result<C, ExitCode>
where
    C: clap::Parser,
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    C::try_parse_from(args).map_err(|error| {
        let code = if error.use_stderr() { 2 } else { 0 };
        let _ = error.print();
        ExitCode::from(code)
    })
}

/// [`parse_args`] over the process's own arguments.
pub fn parse<C: clap::Parser>() -> Result<C, ExitCode> {
    parse_args(std::env::args_os())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, clap::Parser)]
    struct Example {
        #[arg(long)]
        rate_hz: f64,
    }

    #[test]
    fn a_good_command_line_parses_and_a_bad_one_is_exit_2() {
        let ok: Example = parse_args(["example", "--rate-hz", "2.5"]).unwrap();
        assert_eq!(ok.rate_hz, 2.5);
        let bad = parse_args::<Example, _, _>(["example", "--rate-hz", "fast"]).unwrap_err();
        assert_eq!(bad, ExitCode::from(2));
        let help = parse_args::<Example, _, _>(["example", "--help"]).unwrap_err();
        assert_eq!(help, ExitCode::SUCCESS);
    }
}
