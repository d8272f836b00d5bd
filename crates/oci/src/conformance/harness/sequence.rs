//! One sequence of steps on fresh container IDs: the trace's IDs mapped to the runtime's, the
//! bundle of each `create`, the runtime's command line per step and what `state` says afterwards;
//! dropping it force-deletes every container it created. What each operation does is in
//! `actions` (`sequence/actions.rs`).

mod actions;

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::conformance::bundle::Rootfs;
use crate::conformance::error::HarnessError;
use crate::conformance::oci::{CmdOutput, RuntimeCli};
use crate::model::{Action, LineState, Op};

use super::cleanup::DISARM;
use super::host::{pid_alive, read_lines};
use super::observed::{Observed, ObservedHook, normalise_stderr};

/// How long the harness waits for things to happen.
#[derive(Debug, Clone, Copy)]
pub struct Timing {
    /// Between two `state` polls.
    pub poll: Duration,
    /// For something that must happen (the program starting, a killed process being reported
    /// `stopped`).
    pub deadline: Duration,
    /// For something that may happen (a signal to a container whose program is not running).
    pub quiet: Duration,
}

impl Default for Timing {
    /// `KCONTRACT_QUIET_MS` overrides the quiet period (default 150 ms).
    fn default() -> Self {
        let quiet = std::env::var("KCONTRACT_QUIET_MS")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(150);
        Timing {
            poll: Duration::from_millis(5),
            deadline: Duration::from_secs(5),
            quiet: Duration::from_millis(quiet),
        }
    }
}

/// One container (one `create`) of a sequence: its bundle and what the harness has read so far.
#[derive(Debug)]
struct Bundle {
    ctl: PathBuf,
    hooks_read: usize,
    signals_read: usize,
}

/// One sequence of steps on fresh container IDs. Dropping it force-deletes every container it may
/// have created and removes its bundles — also when a panic unwinds through its owner.
pub struct Sequence<'a> {
    cli: &'a RuntimeCli,
    rootfs: &'a Rootfs,
    timing: Timing,
    prefix: String,
    dir: PathBuf,
    /// Per trace ID, every bundle created for it (the last successful one is the current one).
    bundles: BTreeMap<String, Vec<Bundle>>,
    created: usize,
    /// Trace IDs that may have a container: from the first `create` until `state` reports none.
    maybe_live: BTreeSet<String>,
}

impl Drop for Sequence<'_> {
    /// `delete --force` for every ID that may still have a container (errors, e.g. for an ID
    /// without one, are ignored), after disarming the hooks (see [`DISARM`]). The bundles are
    /// removed only when every container is gone, so that the session's own clean-up can retry.
    ///
    /// A live container is first sent SIGKILL and its process awaited through `/proc`: runc's
    /// `delete --force` of a live container polls in 100 ms sleeps, which would dominate the cost
    /// of a generated sequence.
    fn drop(&mut self) {
        let _ = std::fs::write(self.dir.join(DISARM), b"");
        let ids: Vec<String> = self.maybe_live.iter().cloned().collect();
        let mut all_gone = true;
        for id in ids {
            let real = self.real(&id);
            if let Ok(Some(Polled {
                pid: Some(pid),
                status,
            })) = self.poll(&id)
                && matches!(status.as_str(), "created" | "running")
                && self.cli.run(&["kill", &real, "SIGKILL"]).is_ok()
            {
                self.wait_until(self.timing.deadline, || !pid_alive(pid));
            }
            let _ = self.cli.run(&["delete", "--force", &real]);
            all_gone &= matches!(self.poll(&id), Ok(None));
        }
        if all_gone {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }
}

/// The runtime's container ID for a trace ID. Alphanumeric IDs get the sequence's prefix (`…-ia`):
/// unique per session and sequence, so a container a failed clean-up left behind never meets the
/// next sequence. Any other ID the runtime can be given safely is passed exactly as the trace has it,
/// so that what the runtime does with it (`a.b`, `ünï`, a 1,024-byte ID: the OCI spec sets no
/// format, and runtimes differ) is what the harness observes. Only IDs that could not be passed
/// safely are hex-encoded with the prefix (`…-h2e2e`): `.` and `..` (a runtime that does not
/// check them would put its state at `--root/..`, outside its state folder), IDs holding `/` or a
/// control character (a path, or a broken log line), and IDs starting with `-` (read as an
/// option), or with the prefix itself. The mapping stays injective: every prefixed ID starts with
/// the prefix and no verbatim one does.
pub fn real_id(prefix: &str, trace_id: &str) -> String {
    if trace_id.bytes().all(|b| b.is_ascii_alphanumeric()) {
        format!("{prefix}-i{trace_id}")
    } else if passes_verbatim(prefix, trace_id) {
        trace_id.to_owned()
    } else {
        let hex: String = trace_id.bytes().map(|b| format!("{b:02x}")).collect();
        format!("{prefix}-h{hex}")
    }
}

/// Whether a (non-alphanumeric) trace ID is given to the runtime as it is (see [`real_id`]).
fn passes_verbatim(prefix: &str, id: &str) -> bool {
    !id.is_empty()
        && id != "."
        && id != ".."
        && !id.starts_with('-')
        && !id.starts_with(prefix)
        && !id.chars().any(|c| c == '/' || c.is_control())
}

/// A status from `state`, as the harness reads it.
#[derive(Debug, Clone)]
struct Polled {
    status: String,
    pid: Option<i64>,
}

/// What is alive in a container, as far as the harness can tell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Liveness {
    /// No container, or no live container process.
    Dead,
    /// The container process exists but the developer's program has not started in it.
    ContainerProcess,
    /// The developer's program runs.
    Program,
}

impl<'a> Sequence<'a> {
    /// A sequence whose container IDs start with `prefix` and whose bundles go into `dir`.
    pub(super) fn new(
        cli: &'a RuntimeCli,
        rootfs: &'a Rootfs,
        timing: Timing,
        prefix: String,
        dir: PathBuf,
    ) -> Sequence<'a> {
        Sequence {
            cli,
            rootfs,
            timing,
            prefix,
            dir,
            bundles: BTreeMap::new(),
            created: 0,
            maybe_live: BTreeSet::new(),
        }
    }

    fn real(&self, trace_id: &str) -> String {
        real_id(&self.prefix, trace_id)
    }

    fn current(&self, trace_id: &str) -> Option<&Bundle> {
        self.bundles.get(trace_id).and_then(|b| b.last())
    }

    fn ctl(&self, trace_id: &str) -> Option<PathBuf> {
        self.current(trace_id).map(|b| b.ctl.clone())
    }

    /// `state` of the container: its status and pid, `None` when `state` fails.
    fn poll(&self, trace_id: &str) -> Result<Option<Polled>, HarnessError> {
        let out = self.cli.run(&["state", &self.real(trace_id)])?;
        if !out.success {
            return Ok(None);
        }
        let doc: Value = serde_json::from_str(&out.stdout).map_err(|e| {
            HarnessError::Unexpected(format!(
                "`{} state` printed no JSON ({e}): {}",
                self.cli.kind(),
                out.stdout.trim()
            ))
        })?;
        let status = doc
            .get("status")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        let pid = doc.get("pid").and_then(Value::as_i64).filter(|&p| p > 0);
        Ok(Some(Polled { status, pid }))
    }

    fn status(&self, trace_id: &str) -> Result<Option<String>, HarnessError> {
        Ok(self.poll(trace_id)?.map(|p| p.status))
    }

    /// Polls a cheap condition (files, `/proc`) every couple of milliseconds until it holds or
    /// `limit` passes; returns whether it held. The runtime's `state` is read once afterwards by
    /// the caller, rather than polled: each `state` call starts a process.
    fn wait_until(&self, limit: Duration, done: impl Fn() -> bool) -> bool {
        let start = Instant::now();
        loop {
            if done() {
                return true;
            }
            if start.elapsed() >= limit {
                return false;
            }
            std::thread::sleep(self.timing.poll);
        }
    }

    /// New signal lines the current program wrote since the last read.
    fn new_signal_lines(&mut self, trace_id: &str) -> Result<Vec<String>, HarnessError> {
        let Some(b) = self.bundles.get_mut(trace_id).and_then(|b| b.last_mut()) else {
            return Ok(Vec::new());
        };
        let lines = read_lines(&b.ctl.join("signals"))?;
        let new = lines.get(b.signals_read..).unwrap_or_default().to_vec();
        b.signals_read = lines.len();
        Ok(new)
    }

    /// The runtime's container ID for one of the trace's IDs.
    pub fn runtime_id(&self, trace_id: &str) -> String {
        self.real(trace_id)
    }

    /// Runs one step and observes it.
    pub fn step(&mut self, op: &Op) -> Result<Observed, HarnessError> {
        let mut out = Observed::new(op);
        let id = op.id.clone();
        match &op.action {
            Action::State => {
                let r = self.oci(&["state"], id.as_deref(), &[])?;
                self.record(&mut out, &r);
                if r.success {
                    out.state = Some(self.state_doc(&r.stdout, id.as_deref().unwrap_or(""))?);
                }
            }
            Action::Create(config) => self.create(&mut out, id.as_deref(), config)?,
            Action::Start => self.start(&mut out, id.as_deref())?,
            Action::Kill(signal) => self.kill(&mut out, id.as_deref(), signal)?,
            Action::Delete | Action::Reclaim => {
                let r = self.oci(&["delete"], id.as_deref(), &[])?;
                self.record(&mut out, &r);
            }
            Action::Exit { code } => self.exit(&mut out, id.as_deref(), *code)?,
            Action::Shutdown { grace_seconds } => {
                self.shutdown(&mut out, id.as_deref(), *grace_seconds)?;
            }
        }
        if let Some(id) = op.valid_id() {
            out.status = self.status(id)?;
            out.hooks_run = self.new_hook_runs(id)?;
            if out.status.is_none() {
                self.maybe_live.remove(id);
            }
        }
        Ok(out)
    }

    /// Runs an OCI operation: `ARGS… [ID] EXTRA…`, leaving the ID out when the trace gives none.
    fn oci(
        &self,
        args: &[&str],
        id: Option<&str>,
        extra: &[&str],
    ) -> Result<CmdOutput, HarnessError> {
        let mut argv: Vec<String> = args.iter().map(|s| (*s).to_owned()).collect();
        match id {
            // An empty ID is passed as such: the runtime must refuse it.
            Some("") => argv.push(String::new()),
            Some(id) => argv.push(self.real(id)),
            None => {}
        }
        argv.extend(extra.iter().map(|s| (*s).to_owned()));
        self.cli.run(&argv)
    }

    /// A runtime message with this session's paths and IDs put back in the trace's terms: the
    /// work folder becomes `$WORK`, a container ID the trace's ID (`kcrunc-41-0-3-ia` → `a`), so
    /// that messages are the same from run to run.
    fn untangle(&self, text: &str) -> String {
        let mut text = text.to_owned();
        if let Some(work) = self.dir.parent() {
            text = text.replace(&work.display().to_string(), "$WORK");
        }
        text.replace(&format!("{}-i", self.prefix), "")
    }

    /// Sets `ok`, and `error` or `warnings`, from a command's result.
    fn record(&self, out: &mut Observed, r: &CmdOutput) {
        out.ok = r.success;
        let lines: Vec<String> = normalise_stderr(&r.stderr)
            .iter()
            .map(|l| self.untangle(l))
            .collect();
        if r.success {
            out.warnings = lines;
        } else {
            let code = r
                .code
                .map_or_else(|| "a signal".to_owned(), |c| c.to_string());
            let text = if lines.is_empty() {
                "(no message)".to_owned()
            } else {
                lines.join("; ")
            };
            out.error = Some(format!("{} exited with {code}: {text}", self.cli.kind()));
        }
    }

    /// The state document a successful `state` printed, in the trace's terms; output that is not
    /// JSON is a harness error (the runtime said it succeeded).
    fn state_doc(&self, stdout: &str, trace_id: &str) -> Result<LineState, HarnessError> {
        let doc: Value = serde_json::from_str(stdout).map_err(|e| {
            HarnessError::Unexpected(format!(
                "`{} state` succeeded but printed no JSON ({e}): {}",
                self.cli.kind(),
                stdout.trim()
            ))
        })?;
        let text = |key: &str| doc.get(key).and_then(Value::as_str).map(str::to_owned);
        Ok(LineState {
            oci_version: text("ociVersion"),
            id: trace_id.to_owned(),
            status: text("status"),
            pid: doc.get("pid").and_then(Value::as_i64),
            bundle: text("bundle").map(|b| self.untangle(&b)),
        })
    }

    /// The hook runs logged since the last read, by every container (bundle) the trace ID had: a
    /// failed `create`'s hooks are this step's too.
    fn new_hook_runs(&mut self, trace_id: &str) -> Result<Vec<ObservedHook>, HarnessError> {
        let mut runs = Vec::new();
        for b in self.bundles.get_mut(trace_id).into_iter().flatten() {
            let lines = read_lines(&b.ctl.join("hooks.log"))?;
            for line in lines.get(b.hooks_read..).unwrap_or_default() {
                // `NAME[INDEX] STATUS PID` (see the hook script), either of the last two empty.
                let mut parts = line.splitn(3, ' ');
                let name = parts.next().unwrap_or_default();
                let status = parts.next().unwrap_or_default();
                let pid = parts.next().and_then(|p| p.trim().parse::<i64>().ok());
                runs.push(ObservedHook {
                    name: name.to_owned(),
                    status_seen: status.to_owned(),
                    pid_seen: pid,
                });
            }
            b.hooks_read = lines.len();
        }
        Ok(runs)
    }

    /// Whether the container's process is alive and whether it is the developer's program: the
    /// status `state` reports, and for `running` the program's own `started` marker (a runtime may
    /// report `running` for a container whose program never ran; see the deviations).
    fn liveness(&self, id: &str) -> Result<(Liveness, Option<i64>), HarnessError> {
        let polled = self.poll(id)?;
        let status = polled.as_ref().map(|p| p.status.as_str());
        let pid = polled.as_ref().and_then(|p| p.pid);
        Ok((self.liveness_of(status, id), pid))
    }

    fn liveness_of(&self, status: Option<&str>, id: &str) -> Liveness {
        let started = self
            .current(id)
            .is_some_and(|b| b.ctl.join("started").exists());
        match status {
            Some("running") if started => Liveness::Program,
            Some("created" | "running") => Liveness::ContainerProcess,
            _ => Liveness::Dead,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn real_ids_are_injective_and_safe() {
        assert_eq!(real_id("kc-1", "a"), "kc-1-ia");
        // What the OCI spec leaves to the runtime reaches it unchanged.
        for id in ["a b", "a.b", "ünï", "a+b_c", "x-y"] {
            assert_eq!(real_id("kc-1", id), id);
        }
        let long = "x.".repeat(512);
        assert_eq!(real_id("kc-1", &long), long);
        // What cannot be passed safely is encoded, into letters, digits and dashes only.
        for id in [".", "..", "../x", "a/b", "-a", "a\nb", "kc-1-ia"] {
            let real = real_id("kc-1", id);
            assert!(real.starts_with("kc-1-h"), "{id:?} → {real}");
            assert!(real.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-'));
        }
        let ids = [
            "a", "h61", "a b", "kc-1-ia", "kc-1-h61", ".", "..", "-a", "a.b",
        ];
        let reals: std::collections::BTreeSet<String> =
            ids.iter().map(|i| real_id("kc-1", i)).collect();
        assert_eq!(reals.len(), ids.len(), "{reals:?}");
    }
}
