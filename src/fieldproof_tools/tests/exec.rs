//! `fieldproof exec` hands its arguments to the executable byte for byte, as `ros2 run`
//! does, whether they are UTF-8 or not.

use std::ffi::OsString;
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::Path;
use std::process::Command;

use fieldproof_testkit::FakeAmentPrefix;

/// An install prefix with package `demo` whose executable `echo_args` writes each of its
/// arguments, NUL-terminated, to the file `$ARGS_OUT`.
fn install(root: &Path) -> std::path::PathBuf {
    let prefix = FakeAmentPrefix::at(&root.join("install/demo"));
    prefix.script(
        "demo",
        "echo_args",
        "printf '%s\\0' \"$@\" > \"$ARGS_OUT\"\n",
    );
    prefix.path().to_path_buf()
}

#[test]
fn arguments_reach_the_executable_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    let prefix = install(dir.path());
    let out = dir.path().join("args.bin");
    let args: Vec<OsString> = vec![
        OsString::from_vec(b"caf\xe9".to_vec()),
        OsString::from("--ros-args"),
        OsString::from("-p"),
        OsString::from_vec(b"input:=sc\xff\xfean".to_vec()),
        OsString::from("two words"),
        OsString::from(""),
    ];
    let status = Command::new(env!("CARGO_BIN_EXE_fieldproof"))
        .args(["exec", "demo", "echo_args"])
        .args(&args)
        .env("AMENT_PREFIX_PATH", &prefix)
        .env("ARGS_OUT", &out)
        .status()
        .unwrap();
    assert!(status.success(), "{status:?}");
    let expected: Vec<u8> = args
        .iter()
        .flat_map(|a| a.as_bytes().iter().copied().chain([0]))
        .collect();
    assert_eq!(std::fs::read(&out).unwrap(), expected);
}

#[test]
fn help_and_prefix_after_the_executable_are_the_executables() {
    let dir = tempfile::tempdir().unwrap();
    let prefix = install(dir.path());
    let out = dir.path().join("args.bin");
    let args = ["--help", "-h", "--prefix", "x", "--ros-args", "-p", "a:=1"];
    let status = Command::new(env!("CARGO_BIN_EXE_fieldproof"))
        .args(["exec", "demo", "echo_args"])
        .args(args)
        .env("AMENT_PREFIX_PATH", &prefix)
        .env("ARGS_OUT", &out)
        .status()
        .unwrap();
    assert!(status.success(), "{status:?}");
    let expected: Vec<u8> = args.iter().flat_map(|a| a.bytes().chain([0])).collect();
    assert_eq!(std::fs::read(&out).unwrap(), expected);
    // Before the package, --help is exec's own.
    let own = Command::new(env!("CARGO_BIN_EXE_fieldproof"))
        .args(["exec", "--help"])
        .output()
        .unwrap();
    assert!(own.status.success());
    assert!(String::from_utf8_lossy(&own.stdout).contains("as `ros2 run"));
}
