//! What the harness does for each operation of a trace on a real runtime, and how long it waits
//! for the effect the step must cause (see the harness's documentation, "Waiting").

use std::path::Path;
use std::time::Instant;

use crate::conformance::bundle::write_bundle;
use crate::conformance::error::{HarnessError, IoContext};
use crate::conformance::harness::host::{kill_host_process, pid_alive};
use crate::conformance::harness::observed::{Observed, normalise_stderr};
use crate::model::{Config, LogEntry, ProcessFailure, Signal};

use super::{Bundle, DISARM, Liveness, Sequence};

impl Sequence<'_> {
    pub(super) fn create(
        &mut self,
        out: &mut Observed,
        id: Option<&str>,
        config: &Config,
    ) -> Result<(), HarnessError> {
        self.created += 1;
        let dir = self.dir.join(format!("c{}", self.created));
        std::fs::create_dir_all(&dir).doing(|| format!("create {}", dir.display()))?;
        // Named with the prefix, as the prefixed container IDs are: the session's clean-up finds it.
        let cgroup = format!("{}-c{}", self.prefix, self.created);
        let ctl = write_bundle(self.rootfs, &dir, &self.dir.join(DISARM), config, &cgroup)?;
        let bundle_arg = dir.to_string_lossy().into_owned();
        if let Some(id) = id.filter(|i| !i.is_empty()) {
            self.maybe_live.insert(id.to_owned());
        }
        let r = self.oci(&["create", "--bundle", &bundle_arg], id, &[])?;
        self.record(out, &r);
        if let Some(id) = id.filter(|i| !i.is_empty()) {
            let entry = Bundle {
                ctl,
                hooks_read: 0,
                signals_read: 0,
            };
            let list = self.bundles.entry(id.to_owned()).or_default();
            if r.success {
                list.push(entry);
            } else {
                // Keep the existing container current; the failed bundle's hook log is still read.
                let at = list.len().saturating_sub(1);
                list.insert(at, entry);
            }
        }
        Ok(())
    }

    /// `start`, then until the program runs (its `started` marker) or the container process is
    /// gone: runtimes return from `start` before the program has been executed, and a failing
    /// `startContainer` hook ends the process asynchronously.
    pub(super) fn start(
        &mut self,
        out: &mut Observed,
        id: Option<&str>,
    ) -> Result<(), HarnessError> {
        let r = self.oci(&["start"], id, &[])?;
        self.record(out, &r);
        let Some(id) = id.filter(|i| !i.is_empty() && r.success) else {
            return Ok(());
        };
        if let (Some(polled), Some(ctl)) = (self.poll(id)?, self.ctl(id))
            && let Some(pid) = polled.pid
        {
            self.wait_until(self.timing.deadline, || {
                ctl.join("started").exists() || !pid_alive(pid)
            });
        }
        Ok(())
    }

    pub(super) fn kill(
        &mut self,
        out: &mut Observed,
        id: Option<&str>,
        signal: &Signal,
    ) -> Result<(), HarnessError> {
        if let Some((id, before, ended)) = self.deliver(out, id, signal)?
            && *signal == Signal::Kill
            && before == Liveness::Program
            && ended
        {
            out.logs.push(log(id, ProcessFailure::Killed));
        }
        Ok(())
    }

    /// OCI `kill` with `signal`, recorded as the step's command, then (when the runtime accepted
    /// it) a wait for its effect ([`Self::settle_after_signal`]). Returns the container id, whether
    /// the program or only the process was alive before, and whether the process ended; `None`
    /// when there was no id or the runtime refused. `kill` and the first half of `shutdown`.
    fn deliver<'i>(
        &mut self,
        out: &mut Observed,
        id: Option<&'i str>,
        signal: &Signal,
    ) -> Result<Option<(&'i str, Liveness, bool)>, HarnessError> {
        let valid = id.filter(|i| !i.is_empty());
        let (before, pid) = match valid {
            Some(id) => self.liveness(id)?,
            None => (Liveness::Dead, None),
        };
        // Signal lines the program wrote before this step are not this step's.
        if let Some(id) = valid {
            self.new_signal_lines(id)?;
        }
        let r = self.oci(&["kill"], id, &[signal.as_str()])?;
        self.record(out, &r);
        let Some(id) = valid.filter(|_| r.success) else {
            return Ok(None);
        };
        out.signals.push(signal.as_str().to_owned());
        let ended = self.settle_after_signal(id, before, pid, signal)?;
        Ok(Some((id, before, ended)))
    }

    /// Waits until a delivered signal has had its effect, watching the program's signal log and
    /// the container process in `/proc`: SIGKILL → the process is gone; a signal the running
    /// program traps → the program logged it (and, if it said it exits, the process is gone);
    /// anything else → the process dies within the quiet period, or nothing happens. Returns
    /// whether the container process ended; an error only when the signal log cannot be read.
    fn settle_after_signal(
        &mut self,
        id: &str,
        before: Liveness,
        pid: Option<i64>,
        signal: &Signal,
    ) -> Result<bool, HarnessError> {
        let Some(pid) = pid.filter(|_| before != Liveness::Dead) else {
            return Ok(false);
        };
        let gone = || !pid_alive(pid);
        if *signal == Signal::Kill {
            return Ok(self.wait_until(self.timing.deadline, gone));
        }
        let name = signal.as_str().trim_start_matches("SIG").to_owned();
        if before == Liveness::Program && traps(&name) {
            let mut exits = false;
            let start = Instant::now();
            while start.elapsed() < self.timing.deadline && !gone() {
                let lines = self.new_signal_lines(id)?;
                if let Some(line) = lines.iter().find(|l| l.split(' ').next() == Some(&name)) {
                    exits = line.ends_with(" exit");
                    break;
                }
                std::thread::sleep(self.timing.poll);
            }
            if exits {
                return Ok(self.wait_until(self.timing.deadline, gone));
            }
            return Ok(gone());
        }
        Ok(self.wait_until(self.timing.quiet, gone))
    }

    /// The `exit` event: the program exits on its own with `code` (host writes the trigger file);
    /// in a container whose program has not started, the container process dies (the host kills
    /// it by its pid from `state`).
    pub(super) fn exit(
        &mut self,
        out: &mut Observed,
        id: Option<&str>,
        code: i32,
    ) -> Result<(), HarnessError> {
        let Some(id) = id.filter(|i| !i.is_empty()) else {
            out.error = Some("no container ID provided".into());
            return Ok(());
        };
        let Some(polled) = self.poll(id)? else {
            out.error = Some(format!("container {id:?} does not exist"));
            return Ok(());
        };
        let before = self.liveness_of(Some(&polled.status), id);
        let pid = match (before, polled.pid) {
            (Liveness::Dead, _) => {
                out.error = Some(format!(
                    "container {id:?} has no live process to exit (status {})",
                    polled.status
                ));
                return Ok(());
            }
            (_, None) => {
                return Err(HarnessError::Unexpected(format!(
                    "`state` of live container {id:?} has no pid"
                )));
            }
            (_, Some(pid)) => pid,
        };
        if before == Liveness::Program {
            let Some(ctl) = self.ctl(id) else {
                return Err(HarnessError::Unexpected(format!(
                    "no bundle recorded for {id:?}"
                )));
            };
            self.trigger_exit(&ctl.join("exit"), code, pid)?;
        } else {
            kill_host_process(pid)?;
        }
        out.ok = true;
        let ended = self.wait_until(self.timing.deadline, || !pid_alive(pid));
        if before == Liveness::Program && code != 0 && ended {
            out.logs.push(log(id, ProcessFailure::ExitCode(code)));
        }
        Ok(())
    }

    /// Knative's orderly shutdown, done as the model does it: OCI `kill SIGTERM`; if the container
    /// has not shut down when the grace period is over, OCI `kill SIGKILL`. The harness does not
    /// sleep `grace_seconds`: a program that handles SIGTERM says whether it exits (`TERM exit`) or
    /// goes on (`TERM`), and the harness waits for that, or, when the program is not running, for
    /// the quiet period.
    pub(super) fn shutdown(
        &mut self,
        out: &mut Observed,
        id: Option<&str>,
        grace_seconds: u64,
    ) -> Result<(), HarnessError> {
        let Some((id, _, ended)) = self.deliver(out, id, &Signal::Term)? else {
            return Ok(());
        };
        if ended {
            return Ok(());
        }
        // Still alive after the grace period (as far as the platform can tell: `state`).
        let (still, pid) = self.liveness(id)?;
        if still == Liveness::Dead {
            return Ok(());
        }
        let r = self.oci(&["kill"], Some(id), &["SIGKILL"])?;
        if !r.success {
            out.ok = false;
            out.error = Some(format!(
                "SIGKILL after the grace period failed: {}",
                normalise_stderr(&r.stderr).join("; ")
            ));
            return Ok(());
        }
        out.warnings.extend(normalise_stderr(&r.stderr));
        out.signals.push("SIGKILL".into());
        if self.settle_after_signal(id, still, pid, &Signal::Kill)? && still == Liveness::Program {
            out.logs
                .push(log(id, ProcessFailure::KilledAfterGrace { grace_seconds }));
        }
        Ok(())
    }

    /// Writes the exit status into the program's FIFO. The FIFO is opened without blocking (a
    /// blocking open would hang if the program died); while the program is between two `read`s
    /// (running a trap) there is no reader and the open is retried.
    fn trigger_exit(&self, fifo: &Path, code: i32, pid: i64) -> Result<(), HarnessError> {
        use std::io::Write;
        use std::os::unix::fs::OpenOptionsExt;
        /// `O_NONBLOCK` on Linux (x86, Arm, RISC-V, …).
        const O_NONBLOCK: i32 = 0o4000;
        let start = Instant::now();
        loop {
            let opened = std::fs::OpenOptions::new()
                .write(true)
                .custom_flags(O_NONBLOCK)
                .open(fifo);
            match opened {
                Ok(mut f) => {
                    return f
                        .write_all(format!("{code}\n").as_bytes())
                        .doing(|| format!("write the exit trigger {}", fifo.display()));
                }
                Err(e) if start.elapsed() < self.timing.deadline && pid_alive(pid) => {
                    let _ = e;
                    std::thread::sleep(self.timing.poll);
                }
                Err(source) => {
                    return Err(HarnessError::Io {
                        doing: format!("write the exit trigger {}", fifo.display()),
                        source,
                    });
                }
            }
        }
    }
}

/// Whether the program traps (and logs) this signal (name without `SIG`).
fn traps(name: &str) -> bool {
    name == "TERM" || crate::conformance::bundle::LOGGED_SIGNALS.contains(&name)
}

fn log(id: &str, failure: ProcessFailure) -> String {
    LogEntry {
        id: id.to_owned(),
        failure,
    }
    .to_string()
}
