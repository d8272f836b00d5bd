//! Invoking a real OCI runtime's command line (`runc`, `crun`, `youki`): locating the binary,
//! building each command with a private `--root` state directory, and running it with a deadline.
//!
//! Two facts about these runtimes shape the code:
//!
//! - `create` hands its standard streams to the container process, which outlives the command. A
//!   pipe would stay open until the container exits, so reading it would hang: every command writes
//!   its stdout and stderr to files instead, and stdin is `/dev/null`.
//! - On a cgroup "hybrid" host (cgroup v1 controllers under `/sys/fs/cgroup`, a near-empty cgroup2
//!   mounted at `/sys/fs/cgroup/unified`) crun 1.8 refuses to run ("cgroups in hybrid mode not
//!   supported"). Each `crun create` then runs inside a private mount namespace in which that one
//!   cgroup2 mount is unmounted (`unshare -m --propagation private`); the host's mounts are not
//!   touched. The other commands (`state`, `start`, `kill`, `delete`) work without it.

use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

pub use crate::model::OciRuntime;

use super::error::{CommandFailure, HarnessError, IoContext};

/// What one runtime command did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CmdOutput {
    /// Exit status 0.
    pub success: bool,
    /// Its exit code (`None` when killed by a signal).
    pub code: Option<i32>,
    /// Standard output, lossily decoded.
    pub stdout: String,
    /// Standard error, lossily decoded.
    pub stderr: String,
}

/// How long a single runtime command may take before the harness kills it and reports a failure.
/// Every command here normally takes well under a second; a hung runtime must not hang the tests.
pub(crate) const COMMAND_DEADLINE: Duration = Duration::from_secs(20);

/// A runtime binary with a private state directory.
#[derive(Debug, Clone)]
pub struct RuntimeCli {
    kind: OciRuntime,
    program: PathBuf,
    root: PathBuf,
    version: String,
    /// Set for crun on a hybrid cgroup host: wrap each call in a private mount namespace.
    hide_unified_cgroup: bool,
    /// Folder for the per-command output files.
    scratch: PathBuf,
}

static CALLS: AtomicU64 = AtomicU64::new(0);

impl RuntimeCli {
    /// Finds `kind` on `PATH` and reads its version. `root` is the private state directory passed
    /// as `--root` (created if missing); `scratch` holds the files commands write their output to.
    pub fn locate(
        kind: OciRuntime,
        root: &Path,
        scratch: &Path,
    ) -> Result<RuntimeCli, HarnessError> {
        let program = find_in_path(kind.as_str()).ok_or(HarnessError::NotInstalled {
            program: kind.as_str(),
            why: "",
            install: install_hint(kind),
        })?;
        std::fs::create_dir_all(root).doing(|| format!("create {}", root.display()))?;
        std::fs::create_dir_all(scratch).doing(|| format!("create {}", scratch.display()))?;
        let hide_unified_cgroup = kind == OciRuntime::Crun && is_cgroup_hybrid();
        if hide_unified_cgroup && find_in_path("unshare").is_none() {
            return Err(HarnessError::NotInstalled {
                program: "unshare",
                why: " (crun needs it on this cgroup-hybrid host)",
                install: "apt-get install util-linux (Debian)",
            });
        }
        let mut cli = RuntimeCli {
            kind,
            program,
            root: root.to_owned(),
            version: String::new(),
            hide_unified_cgroup,
            scratch: scratch.to_owned(),
        };
        let out = cli.run_raw(&[OsStr::new("--version")], false)?;
        cli.version =
            parse_version(kind, &out.stdout).ok_or(HarnessError::NoVersion { runtime: kind })?;
        Ok(cli)
    }

    /// Which runtime.
    pub fn kind(&self) -> OciRuntime {
        self.kind
    }

    /// Its version as `--version` reports it (`1.1.5+ds1`, `1.8.1`, `0.7.0`).
    pub fn version(&self) -> &str {
        &self.version
    }

    /// The binary.
    pub fn program(&self) -> &Path {
        &self.program
    }

    /// Runs `<runtime> --root ROOT ARGS…` and waits for it (at most [`COMMAND_DEADLINE`]).
    pub fn run<S: AsRef<OsStr>>(&self, args: &[S]) -> Result<CmdOutput, HarnessError> {
        let args: Vec<&OsStr> = args.iter().map(AsRef::as_ref).collect();
        self.run_raw(&args, true)
    }

    /// Runs `<runtime> --root ROOT ARGS…` with the given standard streams (which a `create`
    /// hands to the container process) and waits for it (at most [`COMMAND_DEADLINE`]).
    pub fn run_with_stdio<S: AsRef<OsStr>>(
        &self,
        args: &[S],
        stdin: Stdio,
        stdout: Stdio,
        stderr: Stdio,
    ) -> Result<std::process::ExitStatus, HarnessError> {
        let args: Vec<&OsStr> = args.iter().map(AsRef::as_ref).collect();
        let mut cmd = self.command(&args, true);
        cmd.stdin(stdin).stdout(stdout).stderr(stderr);
        wait_with_deadline(&mut cmd, COMMAND_DEADLINE)
            .map_err(|failure| self.failed(&args, failure))
    }

    /// The error of `<runtime> ARGS…` that did not run to its end.
    fn failed(&self, args: &[&OsStr], failure: CommandFailure) -> HarnessError {
        let args: Vec<_> = args.iter().map(|a| a.to_string_lossy()).collect();
        HarnessError::Command {
            command: format!("{} {}", self.kind, args.join(" ")),
            failure,
        }
    }

    /// The command line for `args`, wrapped for crun's `create` on a hybrid host.
    fn command(&self, args: &[&OsStr], with_root: bool) -> Command {
        let mut argv: Vec<OsString> = Vec::new();
        if with_root {
            argv.push("--root".into());
            argv.push(self.root.clone().into());
        }
        argv.extend(args.iter().map(|a| a.to_os_string()));
        // Only `create` sets up cgroups and trips over the hybrid layout; the other commands read
        // and signal existing containers and run unwrapped (a wrapper costs two more processes).
        let wrap = self.hide_unified_cgroup && args.first() == Some(&OsStr::new("create"));
        if wrap {
            // `$0` is the runtime binary, `$@` its arguments: no quoting of user data in the script.
            let mut c = Command::new("unshare");
            c.args(["-m", "--propagation", "private", "sh", "-c"])
                .arg("umount /sys/fs/cgroup/unified && exec \"$0\" \"$@\"")
                .arg(&self.program)
                .args(&argv);
            c
        } else {
            let mut c = Command::new(&self.program);
            c.args(&argv);
            c
        }
    }

    fn run_raw(&self, args: &[&OsStr], with_root: bool) -> Result<CmdOutput, HarnessError> {
        let n = CALLS.fetch_add(1, Ordering::Relaxed);
        let out_path = self.scratch.join(format!("cmd-{n}.out"));
        let err_path = self.scratch.join(format!("cmd-{n}.err"));
        let mut cmd = self.command(args, with_root);
        let create = |p: &Path| File::create(p).doing(|| format!("create {}", p.display()));
        cmd.stdin(Stdio::null())
            .stdout(create(&out_path)?)
            .stderr(create(&err_path)?);
        let result = wait_with_deadline(&mut cmd, COMMAND_DEADLINE);
        let stdout = read_lossy(&out_path);
        let stderr = read_lossy(&err_path);
        // Scratch files: a failed removal leaves a file in the session's folder, removed with it.
        let _ = std::fs::remove_file(&out_path);
        let _ = std::fs::remove_file(&err_path);
        let (stdout, stderr) = (stdout?, stderr?);
        let status = result.map_err(|failure| self.failed(args, failure))?;
        Ok(CmdOutput {
            success: status.success(),
            code: status.code(),
            stdout,
            stderr,
        })
    }
}

/// Spawns and waits, killing the process when the deadline passes.
fn wait_with_deadline(
    cmd: &mut Command,
    deadline: Duration,
) -> Result<std::process::ExitStatus, CommandFailure> {
    let mut child = cmd.spawn().map_err(CommandFailure::Start)?;
    let start = Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return Ok(status),
            Ok(None) if start.elapsed() < deadline => std::thread::sleep(Duration::from_millis(2)),
            Ok(None) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(CommandFailure::Deadline(deadline));
            }
            Err(e) => return Err(CommandFailure::Wait(e)),
        }
    }
}

/// A command's captured output (a file the harness created for it), as text.
fn read_lossy(path: &Path) -> Result<String, HarnessError> {
    #[allow(clippy::disallowed_methods)] // a capture file the harness created
    let bytes = std::fs::read(path).doing(|| format!("read {}", path.display()))?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// How to install `kind` (a hint of [`HarnessError::NotInstalled`]).
fn install_hint(kind: OciRuntime) -> &'static str {
    match kind {
        OciRuntime::Runc | OciRuntime::Crun => "apt-get install runc crun (Debian)",
        OciRuntime::Youki => {
            "`cargo install youki`, or `.ci/install-youki` in kcontract's repository"
        }
    }
}

/// The first executable file named `name` in `PATH`.
pub fn find_in_path(name: &str) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|p| {
            std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
}

/// The version number from `--version` output: `runc version 1.1.5+ds1`, `crun version 1.8.1`,
/// `youki version: 0.7.0` (first line).
fn parse_version(kind: OciRuntime, stdout: &str) -> Option<String> {
    let first = stdout.lines().next()?;
    let rest = first.strip_prefix(kind.as_str())?.trim_start();
    let rest = rest.strip_prefix("version")?.trim_start_matches(':').trim();
    (!rest.is_empty()).then(|| rest.to_owned())
}

/// Whether this host mounts cgroup v1 controllers and a separate cgroup2 at
/// `/sys/fs/cgroup/unified` (systemd's "hybrid" layout), read from `/proc/self/mountinfo`.
pub fn is_cgroup_hybrid() -> bool {
    #[allow(clippy::disallowed_methods)] // /proc, the kernel's state
    let Ok(info) = std::fs::read_to_string("/proc/self/mountinfo") else {
        return false;
    };
    info.lines().any(|line| {
        // `… mount-point … - fstype source options`
        let mut halves = line.splitn(2, " - ");
        let (Some(left), Some(right)) = (halves.next(), halves.next()) else {
            return false;
        };
        left.split(' ').nth(4) == Some("/sys/fs/cgroup/unified")
            && right.split(' ').next() == Some("cgroup2")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_are_read_from_each_runtimes_banner() {
        assert_eq!(
            parse_version(
                OciRuntime::Runc,
                "runc version 1.1.5+ds1\ncommit: 1.1.5+ds1-1+deb12u1\n"
            ),
            Some("1.1.5+ds1".into())
        );
        assert_eq!(
            parse_version(OciRuntime::Crun, "crun version 1.8.1\ncommit: f8a0\n"),
            Some("1.8.1".into())
        );
        assert_eq!(
            parse_version(OciRuntime::Youki, "youki version: 0.7.0\ncommit: 0.7.0\n"),
            Some("0.7.0".into())
        );
        assert_eq!(parse_version(OciRuntime::Runc, "crun version 1\n"), None);
        assert_eq!(parse_version(OciRuntime::Runc, ""), None);
    }
}
