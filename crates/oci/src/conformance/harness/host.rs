//! The host side of a container: whether a process is alive, ending one, reading the files the
//! container's program and hooks append to.

use std::path::Path;

use crate::conformance::error::{HarnessError, IoContext};

/// Whether a host process exists and is not a zombie (`/proc/PID/stat`, field 3).
#[allow(clippy::disallowed_methods)] // /proc, the kernel's state
pub fn pid_alive(pid: i64) -> bool {
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return false;
    };
    // The command name (field 2) is in parentheses and may contain spaces.
    let state = stat
        .rsplit_once(") ")
        .and_then(|(_, rest)| rest.chars().next());
    !matches!(state, Some('Z' | 'X') | None)
}

/// The lines of a file the container's program or hooks append to. A file that does not exist yet
/// has no lines (nothing was written); any other read error is the harness's.
#[allow(clippy::disallowed_methods)] // the harness's own capture file, made by it
pub(crate) fn read_lines(path: &Path) -> Result<Vec<String>, HarnessError> {
    match std::fs::read_to_string(path) {
        Ok(text) => Ok(text.lines().map(str::to_owned).collect()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Vec::new()),
        Err(source) => Err(HarnessError::Io {
            doing: format!("read {}", path.display()),
            source,
        }),
    }
}

/// SIGKILL to a host process (the container process of a `created` container), with busybox's
/// `kill` so that no extra dependency is needed.
pub(crate) fn kill_host_process(pid: i64) -> Result<(), HarnessError> {
    let status = std::process::Command::new("busybox")
        .args(["kill", "-KILL", &pid.to_string()])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .doing(|| format!("run `busybox kill -KILL {pid}`"))?;
    if status.success() {
        Ok(())
    } else {
        Err(HarnessError::Unexpected(format!(
            "cannot SIGKILL process {pid}"
        )))
    }
}
