//! `model_sign`: makes and checks signed model artifacts (a directory with `model.onnx`,
//! `manifest.yaml` and `manifest.sig`) for the perception node's boot gate.
//!
//! ```text
//! model_sign keygen   --out-dir keys --name lab
//! model_sign manifest --artifact DIR --name inspection_seg --version 1.0.0 --device cpu --input-shape 1,3,48,64
//! model_sign sign     --artifact DIR --key keys/lab.key
//! model_sign verify   --artifact DIR --pub keys/lab.pub --min-version 1.0.0 --device cpu --input-shape 1,3,48,64
//! ```
//!
//! Exit status 0 on success; 2 with the reason on standard error on any failure (a usage error
//! included).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use fieldproof_perception::artifact::{
    generate_key_pair, load_public_key, open_verified, parse_input_shape, sign_artifact,
    write_manifest, GateRequirements, MANIFEST_FILE, MODEL_FILE, SIGNATURE_FILE,
};

/// Makes and checks signed model artifacts for the perception node's boot gate.
///
/// An artifact is a directory holding model.onnx, manifest.yaml (name, version, device, input
/// shape and the model's SHA-256) and manifest.sig (the Ed25519 signature of manifest.yaml's
/// exact bytes, hex). The usual sequence: keygen once, then for each model: copy it to
/// DIR/model.onnx, `manifest`, `sign`, `verify`. Exit status 2 with the reason on any failure.
#[derive(Parser, Debug)]
#[command(name = "model_sign", version)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// An input shape taken as one argument (`1,3,48,64`): an alias, so that clap does not read
/// the `Vec` as a list of repeated arguments.
type InputShape = Vec<usize>;

#[derive(Subcommand, Debug)]
enum Command {
    /// Makes a new Ed25519 key pair: OUT_DIR/NAME.key (the secret seed, hex, mode 0600; keep
    /// it off the vehicle) and OUT_DIR/NAME.pub (the public key, hex, the node's
    /// `public_key`). Never overwrites an existing key.
    Keygen {
        /// Directory to write the two key files into (must exist).
        #[arg(long)]
        out_dir: PathBuf,
        /// Base name of the key files.
        #[arg(long)]
        name: String,
    },
    /// Writes DIR/manifest.yaml for the DIR/model.onnx already there, with that file's
    /// SHA-256. Sign it afterwards.
    Manifest {
        /// The artifact directory (holding model.onnx).
        #[arg(long)]
        artifact: PathBuf,
        /// The model's name, e.g. inspection_seg.
        #[arg(long)]
        name: String,
        /// The model's version (semver, e.g. 1.0.0); nodes refuse one below their minimum.
        #[arg(long)]
        version: semver::Version,
        /// The device the model targets, e.g. cpu.
        #[arg(long)]
        device: String,
        /// The model's input shape, NCHW, comma-separated, e.g. 1,3,48,64.
        #[arg(long, value_parser = parse_input_shape)]
        input_shape: InputShape,
    },
    /// Signs DIR/manifest.yaml with a secret key file, writing DIR/manifest.sig. Refuses a
    /// manifest that does not parse or whose SHA-256 is not DIR/model.onnx's.
    Sign {
        /// The artifact directory.
        #[arg(long)]
        artifact: PathBuf,
        /// The secret key file (NAME.key from keygen).
        #[arg(long)]
        key: PathBuf,
    },
    /// Runs the node's boot gate on an artifact: signature, manifest, SHA-256, version,
    /// device, input shape, in that order. Prints the manifest and exits 0 when every check
    /// passes; otherwise prints which check failed and the values, and exits 2.
    Verify {
        /// The artifact directory.
        #[arg(long)]
        artifact: PathBuf,
        /// The trusted public key file (NAME.pub from keygen).
        #[arg(long = "pub")]
        public_key: PathBuf,
        /// The lowest version accepted (semver).
        #[arg(long, default_value = "1.0.0")]
        min_version: semver::Version,
        /// The device the model must target.
        #[arg(long, default_value = "cpu")]
        device: String,
        /// The input shape the model must take, NCHW, comma-separated.
        #[arg(long, value_parser = parse_input_shape, default_value = "1,3,48,64")]
        input_shape: InputShape,
    },
}

/// Runs one subcommand; the error is the reason to print.
fn run(command: Command) -> Result<(), String> {
    match command {
        Command::Keygen { out_dir, name } => {
            let paths = generate_key_pair(&out_dir, &name).map_err(|error| error.to_string())?;
            println!(
                "wrote {} (secret: keep it off the vehicle) and {}",
                paths.signing_key.display(),
                paths.public_key.display()
            );
        }
        Command::Manifest {
            artifact,
            name,
            version,
            device,
            input_shape,
        } => {
            let manifest = write_manifest(&artifact, &name, &version, &device, &input_shape)
                .map_err(|error| error.to_string())?;
            print!(
                "wrote {}:\n{}",
                artifact.join(MANIFEST_FILE).display(),
                manifest.to_yaml()
            );
        }
        Command::Sign { artifact, key } => {
            sign_artifact(&artifact, &key).map_err(|error| error.to_string())?;
            println!("wrote {}", artifact.join(SIGNATURE_FILE).display());
        }
        Command::Verify {
            artifact,
            public_key,
            min_version,
            device,
            input_shape,
        } => {
            let requirements = GateRequirements {
                public_key: load_public_key(&public_key).map_err(|error| error.to_string())?,
                min_version,
                device,
                input_shape,
            };
            let verified =
                open_verified(&artifact, &requirements).map_err(|error| error.to_string())?;
            print!(
                "ok: {} passes every check ({} bytes of {MODEL_FILE})\n{}",
                artifact.display(),
                verified.model.len(),
                verified.manifest.to_yaml()
            );
        }
    }
    Ok(())
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(error) if !error.use_stderr() => {
            // --help and --version: print and succeed.
            let _ = error.print();
            return ExitCode::SUCCESS;
        }
        Err(error) => {
            let _ = error.print();
            return ExitCode::from(2);
        }
    };
    match run(cli.command) {
        Ok(()) => ExitCode::SUCCESS,
        Err(reason) => {
            eprintln!("model_sign: {reason}");
            ExitCode::from(2)
        }
    }
}
