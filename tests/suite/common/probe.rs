//! The static probe for the tests that run it under a runtime: `$KCONTRACT_PROBE` when set (CI
//! builds it first), else built here, once per test binary, with the README's command into
//! `target/probe` (Cargo's lock there lets parallel test binaries wait for one build).

use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;

use super::cli::root;

static PROBE: OnceLock<Result<PathBuf, String>> = OnceLock::new();

/// The static probe, or a panic saying why there is none.
pub(crate) fn static_probe() -> PathBuf {
    PROBE
        .get_or_init(|| {
            if let Some(p) = std::env::var_os("KCONTRACT_PROBE") {
                return Ok(PathBuf::from(p));
            }
            let target = root().join("target/probe");
            let status = Command::new(env!("CARGO"))
                .current_dir(root())
                .env("RUSTFLAGS", "-Ctarget-feature=+crt-static")
                .env("CARGO_TARGET_DIR", &target)
                .args([
                    "build",
                    "--locked",
                    "--quiet",
                    "-p",
                    "kcontract-probe",
                    "--release",
                    "--target",
                    "x86_64-unknown-linux-gnu",
                ])
                .status()
                .map_err(|e| format!("cannot run cargo: {e}"))?;
            if !status.success() {
                return Err(format!("building the static probe failed ({status})"));
            }
            Ok(target.join("x86_64-unknown-linux-gnu/release/kcontract-probe"))
        })
        .clone()
        .unwrap_or_else(|e| panic!("no static probe: {e}"))
}
