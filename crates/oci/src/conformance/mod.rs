//! The reference model against real OCI runtimes (`runc`, `crun`, `youki`).
//!
//! - [`oci`]: invoking a runtime's command line with a private state folder and a deadline.
//! - [`bundle`]: the rootfs (static busybox) and the `config.json` generated from a trace's
//!   `create` step: the program the host drives through a control folder, hooks that log their
//!   name and the status they were shown.
//! - [`compare`]: what the differential tests compare, and the one normalisation they apply.
//! - [`harness`]: replaying a trace on a runtime and observing each step; the output line is
//!   `kcontract model replay`'s ([`crate::model::ReplayLine`]); the clean-up guards.
//! - [`error`]: why the harness could not do what was asked ([`HarnessError`], K0703).
//!
//! `docs/runtimes.md` describes the harness, the differential tests (`tests/suite/differential.rs`) and
//! the deviations the runtimes were found to have (`spec/runtimes/deviations.yaml`).

mod bundle;
mod compare;
mod error;
mod harness;
mod oci;

pub use bundle::{Rootfs, is_static_elf, write_bundle};
pub use compare::{Comparable, first_difference, from_model, from_observed};
pub use error::{CommandFailure, HarnessError, IoContext};
pub use harness::{
    Observed, ObservedHook, Sequence, Session, Timing, cgroup_dirs_with_prefix, normalise_stderr,
    pid_alive, real_id,
};
pub use oci::{CmdOutput, OciRuntime, RuntimeCli, find_in_path, is_cgroup_hybrid};

/// Whether this process runs as root (effective uid 0, from `/proc/self/status`).
#[allow(clippy::disallowed_methods)] // /proc, the kernel's state
pub fn is_root() -> bool {
    std::fs::read_to_string("/proc/self/status").is_ok_and(|s| {
        s.lines()
            .find_map(|l| l.strip_prefix("Uid:"))
            .and_then(|l| l.split_whitespace().nth(1))
            == Some("0")
    })
}

/// Nothing, when this process runs as root; else the error saying that `command` needs it.
pub fn require_root(command: &'static str) -> Result<(), HarnessError> {
    if is_root() {
        Ok(())
    } else {
        Err(HarnessError::NotRoot { command })
    }
}
