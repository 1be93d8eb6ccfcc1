//! `contract_check`'s refusals: bad arguments and unreadable contracts exit 2 before any DDS
//! participant is opened.

use std::process::Command;

fn contract_check(args: &[&str]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_contract_check"))
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn bad_arguments_exit_2_with_the_reason() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let (code, err) = contract_check(&[d]);
    assert_eq!(code, 2);
    assert!(err.contains("contract.yaml: cannot read"), "{err}");
    std::fs::write(dir.path().join("contract.yaml"), "robot: [\n").unwrap();
    let (code, err) = contract_check(&[d]);
    assert_eq!(code, 2);
    assert!(err.contains("contract.yaml: "), "{err}");
    for (args, needle) in [
        (
            vec![d, "--tolerance=-1"],
            "--tolerance: -1 must be a positive number",
        ),
        (
            vec![d, "--timeout", "0"],
            "--timeout: 0 must be a positive number",
        ),
        (
            vec![d, "--render-tolerance", "nan"],
            "--render-tolerance: NaN",
        ),
        (vec![d, "--samples", "1"], "--samples: 1 is too few"),
        (vec![d, "--bogus"], "unexpected argument '--bogus'"),
        (vec![], "<BUNDLE>"),
    ] {
        let (code, err) = contract_check(&args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.contains(needle), "{args:?}: {err}");
    }
    let out = Command::new(env!("CARGO_BIN_EXE_contract_check"))
        .arg(d)
        .env("FIELDPROOF_CONTRACT_RENDER_TOLERANCE", "half")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr)
        .contains("FIELDPROOF_CONTRACT_RENDER_TOLERANCE: \"half\" is not a number"));
}
