//! Running a replay-format trace against a real OCI runtime and observing what it does, step by
//! step, in the shape of `kcontract model replay`'s output.
//!
//! Per step the harness invokes the runtime's command line (the OCI operations), or acts as the
//! platform (the trace's `exit` event and Knative's `shutdown` and `reclaim`, built from OCI
//! operations as the model builds them), then waits for the runtime to settle and reads `state`.
//!
//! What each output field is, for a real runtime:
//!
//! - `ok`: the command's exit status was 0 (for `exit`: the container had a live process to end;
//!   for `shutdown`: its `kill SIGTERM` succeeded).
//! - `status`: the `status` of `state <id>` after the step, `null` when `state` fails.
//! - `error`: the runtime's standard error, normalised (see [`normalise_stderr`]), when `ok` is
//!   false. `warnings`: the same when `ok` is true and the runtime wrote anything (the spec's "log a
//!   warning"; these runtimes log to standard error).
//! - `hooks_run`: the lines the hook programs appended to the control folder's `hooks.log`, in
//!   order. The status each hook read from its stdin is kept in [`ObservedHook::status_seen`].
//! - `signals`: the signals whose `kill` the runtime accepted.
//! - `logs`: what the platform logs as failures of the developer's process (the Knative clause),
//!   from what it observed: a running program that exited non-zero on the `exit` trigger, or that a
//!   SIGKILL it sent ended.
//! - `state`: what a successful `state` step returned (`ociVersion`, `id` mapped back to the trace's
//!   ID, `status`, `pid`, `bundle`).
//!
//! Waiting. Runtimes apply signals and some hook failures asynchronously, so after `start`,
//! `kill`, `exit` and `shutdown` the harness waits for the event the step must cause — the
//! program's `started` marker, its log of a handled signal, the container process's end — watching
//! files and `/proc/PID/stat` rather than polling `state` (each `state` starts a process), up to a
//! deadline. Where nothing has to happen (a signal to a container whose program is not running
//! yet) it waits a quiet period for the process to die. `state` is read once, after the wait.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use serde::Serialize;
use serde_json::Value;

use crate::model::{Action, Config, LogEntry, Op, OpKind, ProcessFailure, Signal};

use super::bundle::{Rootfs, write_bundle};
use super::oci::{CmdOutput, HarnessError, OciRuntime, RuntimeCli};

/// One hook run as the hook program recorded it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ObservedHook {
    /// `name[index]`.
    pub name: String,
    /// The `status` in the state the hook read on stdin (empty if it read none).
    pub status_seen: String,
}

/// The state document a runtime's `state` returned, with the fields of runtime.md §State in the
/// model's order (`id` mapped back to the trace's ID, the bundle path in the trace's terms).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct StateSeen {
    /// `ociVersion` as the runtime reports it.
    #[serde(rename = "ociVersion")]
    pub oci_version: Option<String>,
    /// The trace's ID.
    pub id: String,
    /// `status`.
    pub status: Option<String>,
    /// `pid`, if reported (runc and crun report 0 for a stopped container).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pid: Option<i64>,
    /// `bundle`.
    pub bundle: Option<String>,
}

/// What one step did on the real runtime.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Observed {
    /// The operation.
    pub op: OpKind,
    /// The trace's ID.
    pub id: Option<String>,
    /// Whether it succeeded.
    pub ok: bool,
    /// The runtime's (or the harness's) error message when it did not.
    pub error: Option<String>,
    /// What the runtime wrote to standard error although it succeeded.
    pub warnings: Vec<String>,
    /// `state`'s `status` after the step (`None`: `state` failed, no such container).
    pub status: Option<String>,
    /// Hook runs, in the order they were recorded.
    pub hooks_run: Vec<ObservedHook>,
    /// Signals the runtime accepted.
    pub signals: Vec<String>,
    /// The platform's log entries about the developer's process.
    pub logs: Vec<String>,
    /// The state document returned by a successful `state` step.
    pub state: Option<StateSeen>,
}

impl Observed {
    fn new(op: &Op) -> Observed {
        Observed {
            op: op.action.kind(),
            id: op.id.clone(),
            ok: false,
            error: None,
            warnings: Vec::new(),
            status: None,
            hooks_run: Vec::new(),
            signals: Vec::new(),
            logs: Vec::new(),
            state: None,
        }
    }

    /// The output line, with the fields and field order of `kcontract model replay`.
    pub fn to_json_line(&self, step: usize) -> String {
        #[derive(Serialize)]
        struct Line<'a> {
            step: usize,
            op: &'static str,
            id: Option<&'a str>,
            ok: bool,
            status: Option<&'a str>,
            error: Option<&'a str>,
            warnings: &'a [String],
            hooks_run: Vec<&'a str>,
            signals: &'a [String],
            logs: &'a [String],
            state: Option<&'a StateSeen>,
        }
        let line = Line {
            step,
            op: self.op.as_str(),
            id: self.id.as_deref(),
            ok: self.ok,
            status: self.status.as_deref(),
            error: self.error.as_deref(),
            warnings: &self.warnings,
            hooks_run: self.hooks_run.iter().map(|h| h.name.as_str()).collect(),
            signals: &self.signals,
            logs: &self.logs,
            state: self.state.as_ref(),
        };
        serde_json::to_string(&line).unwrap_or_default()
    }
}

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

static SESSIONS: AtomicU64 = AtomicU64::new(0);

/// A harness session for one runtime: a private work folder (rootfs, bundles, the runtime's
/// `--root` state folder), removed with everything the runtime created for it when the session is
/// dropped — also when a test panics.
#[derive(Debug)]
pub struct Session {
    cli: RuntimeCli,
    work: PathBuf,
    rootfs: Rootfs,
    prefix: String,
    sequences: u64,
    timing: Timing,
}

impl Session {
    /// Sets up a session for `kind`: finds the binary, builds the rootfs. Fails with a readable
    /// reason when the runtime or a static busybox is missing.
    pub fn new(kind: OciRuntime) -> Result<Session, String> {
        let n = SESSIONS.fetch_add(1, Ordering::Relaxed);
        let prefix = format!("kc{}-{}-{n}", kind.as_str(), std::process::id());
        sweep_stale_sessions(
            |stale| RuntimeCli::locate(kind, &stale.join("state"), &stale.join("scratch")).ok(),
            kind,
        );
        let work = std::env::temp_dir().join(format!("kcontract-{prefix}"));
        let _ = std::fs::remove_dir_all(&work);
        std::fs::create_dir_all(&work)
            .map_err(|e| format!("cannot create {}: {e}", work.display()))?;
        // From here on the folder is removed even if the setup fails.
        let setup = || -> Result<(RuntimeCli, Rootfs), String> {
            let cli = RuntimeCli::locate(kind, &work.join("state"), &work.join("scratch"))?;
            let rootfs = Rootfs::prepare(&work.join("rootfs"))?;
            Ok((cli, rootfs))
        };
        match setup() {
            Ok((cli, rootfs)) => Ok(Session {
                cli,
                work,
                rootfs,
                prefix,
                sequences: 0,
                timing: Timing::default(),
            }),
            Err(e) => {
                let _ = std::fs::remove_dir_all(&work);
                Err(e)
            }
        }
    }

    /// The runtime.
    pub fn cli(&self) -> &RuntimeCli {
        &self.cli
    }

    /// The prefix of every container ID (and hence cgroup name) this session uses; IDs continue
    /// with `-`.
    pub fn id_prefix(&self) -> &str {
        &self.prefix
    }

    /// The work folder.
    pub fn work_dir(&self) -> &Path {
        &self.work
    }

    /// Replaces the waiting parameters.
    pub fn set_timing(&mut self, timing: Timing) {
        self.timing = timing;
    }

    /// Runs `steps` on fresh container IDs and returns one observation per step. Every container
    /// the sequence created is force-deleted and its bundles removed before this returns, whether
    /// the steps succeed, the harness fails, or a panic unwinds through it.
    pub fn run(&mut self, steps: &[Op]) -> Result<Vec<Observed>, HarnessError> {
        let mut seq = self.begin()?;
        steps.iter().map(|op| seq.step(op)).collect()
    }

    /// Starts a sequence on fresh container IDs; run its steps with [`Sequence::step`]. Dropping
    /// the sequence force-deletes every container it created and removes its bundles.
    pub fn begin(&mut self) -> Result<Sequence<'_>, HarnessError> {
        self.sequences += 1;
        let dir = self.work.join(format!("seq-{}", self.sequences));
        std::fs::create_dir_all(&dir)?;
        Ok(Sequence {
            cli: &self.cli,
            rootfs: &self.rootfs,
            timing: self.timing,
            prefix: format!("{}-{}", self.prefix, self.sequences),
            dir,
            bundles: BTreeMap::new(),
            created: 0,
            maybe_live: BTreeSet::new(),
        })
    }

    /// Containers the runtime still lists in this session's state folder (its `list -q`).
    pub fn listed_containers(&self) -> Result<Vec<String>, HarnessError> {
        let out = self.cli.run(&["list", "-q"])?;
        if !out.success {
            return Err(HarnessError(format!(
                "`{} list -q` failed: {}",
                self.cli.kind(),
                out.stderr.trim()
            )));
        }
        Ok(parse_list(&out.stdout))
    }

    /// Cgroup folders under `/sys/fs/cgroup` (three levels deep) named after this session's IDs.
    pub fn leftover_cgroups(&self) -> Vec<PathBuf> {
        // The dash keeps session 1 from matching session 10's IDs.
        cgroup_dirs_with_prefix(Path::new("/sys/fs/cgroup"), &format!("{}-", self.prefix), 3)
    }
}

impl Drop for Session {
    /// Force-deletes whatever the runtime still lists in the private state folder, removes empty
    /// cgroup folders named after this session's IDs that a runtime left behind, and removes the
    /// work folder. Errors are ignored: this is the last line of defence, and the tests check the
    /// result with [`Session::listed_containers`] and [`Session::leftover_cgroups`].
    fn drop(&mut self) {
        disarm_all(&self.work);
        if let Ok(ids) = self.listed_containers() {
            for id in ids {
                let _ = self.cli.run(&["delete", "--force", &id]);
            }
        }
        for dir in self.leftover_cgroups().into_iter().rev() {
            // rmdir on a cgroup folder only succeeds when it has no processes and no children.
            let _ = std::fs::remove_dir(dir);
        }
        let _ = std::fs::remove_dir_all(&self.work);
    }
}

/// Creates the clean-up marker in every sequence folder under `work`.
fn disarm_all(work: &Path) {
    if let Ok(entries) = std::fs::read_dir(work) {
        for e in entries.flatten() {
            if e.file_name().to_string_lossy().starts_with("seq-") {
                let _ = std::fs::write(e.path().join(DISARM), b"");
            }
        }
    }
}

/// Removes what sessions of processes that no longer exist left behind (a test run killed by a
/// signal runs no destructors): for each `kcontract-kc<runtime>-<pid>-<n>` folder in the temporary
/// folder whose process is gone, the containers in its state folder are force-deleted, empty
/// cgroups named after it removed, and the folder deleted. Sessions of live processes (another
/// test run) are left alone.
pub fn sweep_stale_sessions(cli_for: impl Fn(&Path) -> Option<RuntimeCli>, kind: OciRuntime) {
    let marker = format!("kcontract-kc{}-", kind.as_str());
    let Ok(entries) = std::fs::read_dir(std::env::temp_dir()) else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let Some(rest) = name.strip_prefix(&marker) else {
            continue;
        };
        let Some(pid) = rest.split('-').next().and_then(|p| p.parse::<i64>().ok()) else {
            continue;
        };
        if pid == i64::from(std::process::id()) || Path::new(&format!("/proc/{pid}")).exists() {
            continue;
        }
        let work = e.path();
        disarm_all(&work);
        if let Some(cli) = cli_for(&work)
            && let Ok(out) = cli.run(&["list", "-q"])
        {
            for id in parse_list(&out.stdout) {
                let _ = cli.run(&["delete", "--force", &id]);
            }
        }
        let prefix = format!("{}-", name.trim_start_matches("kcontract-"));
        for dir in cgroup_dirs_with_prefix(Path::new("/sys/fs/cgroup"), &prefix, 3)
            .into_iter()
            .rev()
        {
            let _ = std::fs::remove_dir(dir);
        }
        let _ = std::fs::remove_dir_all(&work);
    }
}

/// The container IDs in `list -q` output: runc and crun print one per line, youki 0.7 prints its
/// whole table (header `ID PID STATUS …`) regardless of `-q`; the ID is the first column.
pub fn parse_list(stdout: &str) -> Vec<String> {
    stdout
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .filter(|id| !matches!(*id, "ID" | "NAME"))
        .map(str::to_owned)
        .collect()
}

/// Cgroup folders (up to `depth` levels under `root`) named after a container ID starting with
/// `prefix`. runc and crun name a container's cgroup after its ID; youki 0.7 names it
/// `:youki:<ID>`.
pub fn cgroup_dirs_with_prefix(root: &Path, prefix: &str, depth: usize) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let Ok(entries) = std::fs::read_dir(root) else {
        return found;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if !entry.file_type().is_ok_and(|t| t.is_dir()) {
            continue;
        }
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with(prefix)
            || name
                .rsplit(':')
                .next()
                .is_some_and(|n| n.starts_with(prefix))
        {
            found.push(path.clone());
        }
        if depth > 1 {
            found.extend(cgroup_dirs_with_prefix(&path, prefix, depth - 1));
        }
    }
    found.sort();
    found
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

/// The clean-up marker's name in a sequence's folder: once it exists, every hook of the sequence's
/// containers succeeds without logging, so that a configured failing poststop hook cannot stop the
/// clean-up (youki refuses even `delete --force` while a poststop hook fails).
pub const DISARM: &str = "cleanup";

/// The runtime's container ID for a trace ID: unique per session and sequence, and made of
/// characters every runtime accepts. Alphanumeric trace IDs stay readable (`…-ia`); others are
/// hex-encoded (`…-h2f61`), so the mapping is injective.
pub fn real_id(prefix: &str, trace_id: &str) -> String {
    if trace_id.bytes().all(|b| b.is_ascii_alphanumeric()) {
        format!("{prefix}-i{trace_id}")
    } else {
        let hex: String = trace_id.bytes().map(|b| format!("{b:02x}")).collect();
        format!("{prefix}-h{hex}")
    }
}

/// A runtime's standard error, normalised: blank lines and youki's stack backtraces dropped, runc's
/// `time=… level=… msg="…"` lines reduced to `level: msg`, one entry per remaining line.
pub fn normalise_stderr(stderr: &str) -> Vec<String> {
    let mut lines = Vec::new();
    for line in stderr.lines() {
        let line = line.trim();
        if line.starts_with("Stack backtrace:") {
            break;
        }
        if line.is_empty() {
            continue;
        }
        lines.push(logrus_message(line).unwrap_or_else(|| line.to_owned()));
    }
    lines
}

/// `time="…" level=error msg="a \"b\""` → `error: a "b"`.
fn logrus_message(line: &str) -> Option<String> {
    let rest = line.strip_prefix("time=\"")?;
    let (_, rest) = rest.split_once("\" level=")?;
    let (level, rest) = rest.split_once(" msg=\"")?;
    let mut msg = String::new();
    let mut chars = rest.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => msg.extend(chars.next()),
            '"' => break,
            c => msg.push(c),
        }
    }
    Some(format!("{level}: {msg}"))
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

impl Sequence<'_> {
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
            HarnessError(format!(
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
    fn new_signal_lines(&mut self, trace_id: &str) -> Vec<String> {
        let Some(b) = self.bundles.get_mut(trace_id).and_then(|b| b.last_mut()) else {
            return Vec::new();
        };
        let lines = read_lines(&b.ctl.join("signals"));
        let new = lines.get(b.signals_read..).unwrap_or_default().to_vec();
        b.signals_read = lines.len();
        new
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
                    out.state = Some(self.state_doc(&r.stdout, id.as_deref().unwrap_or("")));
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
            out.hooks_run = self.new_hook_runs(id);
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

    fn state_doc(&self, stdout: &str, trace_id: &str) -> StateSeen {
        let doc: Value = serde_json::from_str(stdout).unwrap_or(Value::Null);
        let text = |key: &str| doc.get(key).and_then(Value::as_str).map(str::to_owned);
        StateSeen {
            oci_version: text("ociVersion"),
            id: trace_id.to_owned(),
            status: text("status"),
            pid: doc.get("pid").and_then(Value::as_i64),
            bundle: text("bundle").map(|b| self.untangle(&b)),
        }
    }

    fn create(
        &mut self,
        out: &mut Observed,
        id: Option<&str>,
        config: &Config,
    ) -> Result<(), HarnessError> {
        self.created += 1;
        let dir = self.dir.join(format!("c{}", self.created));
        std::fs::create_dir_all(&dir)?;
        let ctl = write_bundle(self.rootfs, &dir, &self.dir.join(DISARM), config)?;
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
    fn start(&mut self, out: &mut Observed, id: Option<&str>) -> Result<(), HarnessError> {
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

    fn new_hook_runs(&mut self, trace_id: &str) -> Vec<ObservedHook> {
        let mut runs = Vec::new();
        for b in self.bundles.get_mut(trace_id).into_iter().flatten() {
            let lines = read_lines(&b.ctl.join("hooks.log"));
            for line in lines.get(b.hooks_read..).unwrap_or_default() {
                let (name, status) = line.split_once(' ').unwrap_or((line, ""));
                runs.push(ObservedHook {
                    name: name.to_owned(),
                    status_seen: status.to_owned(),
                });
            }
            b.hooks_read = lines.len();
        }
        runs
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

    fn kill(
        &mut self,
        out: &mut Observed,
        id: Option<&str>,
        signal: &Signal,
    ) -> Result<(), HarnessError> {
        let valid = id.filter(|i| !i.is_empty());
        let (before, pid) = match valid {
            Some(id) => self.liveness(id)?,
            None => (Liveness::Dead, None),
        };
        // Signal lines the program wrote before this step are not this step's.
        if let Some(id) = valid {
            self.new_signal_lines(id);
        }
        let r = self.oci(&["kill"], id, &[signal.as_str()])?;
        self.record(out, &r);
        let Some(id) = valid.filter(|_| r.success) else {
            return Ok(());
        };
        out.signals.push(signal.as_str().to_owned());
        let ended = self.settle_after_signal(id, before, pid, signal);
        if *signal == Signal::Kill && before == Liveness::Program && ended {
            out.logs.push(log(id, ProcessFailure::Killed));
        }
        Ok(())
    }

    /// Waits until a delivered signal has had its effect, watching the program's signal log and
    /// the container process in `/proc`: SIGKILL → the process is gone; a signal the running
    /// program traps → the program logged it (and, if it said it exits, the process is gone);
    /// anything else → the process dies within the quiet period, or nothing happens. Returns
    /// whether the container process ended.
    fn settle_after_signal(
        &mut self,
        id: &str,
        before: Liveness,
        pid: Option<i64>,
        signal: &Signal,
    ) -> bool {
        let Some(pid) = pid.filter(|_| before != Liveness::Dead) else {
            return false;
        };
        let gone = || !pid_alive(pid);
        if *signal == Signal::Kill {
            return self.wait_until(self.timing.deadline, gone);
        }
        let name = signal.as_str().trim_start_matches("SIG").to_owned();
        if before == Liveness::Program && traps(&name) {
            let mut exits = false;
            let start = Instant::now();
            while start.elapsed() < self.timing.deadline && !gone() {
                let lines = self.new_signal_lines(id);
                if let Some(line) = lines.iter().find(|l| l.split(' ').next() == Some(&name)) {
                    exits = line.ends_with(" exit");
                    break;
                }
                std::thread::sleep(self.timing.poll);
            }
            if exits {
                return self.wait_until(self.timing.deadline, gone);
            }
            return gone();
        }
        self.wait_until(self.timing.quiet, gone)
    }

    /// The `exit` event: the program exits on its own with `code` (host writes the trigger file);
    /// in a container whose program has not started, the container process dies (the host kills
    /// it by its pid from `state`).
    fn exit(
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
                return Err(HarnessError(format!(
                    "`state` of live container {id:?} has no pid"
                )));
            }
            (_, Some(pid)) => pid,
        };
        if before == Liveness::Program {
            let Some(ctl) = self.ctl(id) else {
                return Err(HarnessError(format!("no bundle recorded for {id:?}")));
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
    fn shutdown(
        &mut self,
        out: &mut Observed,
        id: Option<&str>,
        grace_seconds: u64,
    ) -> Result<(), HarnessError> {
        let valid = id.filter(|i| !i.is_empty());
        let (before, pid) = match valid {
            Some(id) => self.liveness(id)?,
            None => (Liveness::Dead, None),
        };
        if let Some(id) = valid {
            self.new_signal_lines(id);
        }
        let r = self.oci(&["kill"], id, &["SIGTERM"])?;
        self.record(out, &r);
        let Some(id) = valid.filter(|_| r.success) else {
            return Ok(());
        };
        out.signals.push("SIGTERM".into());
        if self.settle_after_signal(id, before, pid, &Signal::Term) {
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
        if self.settle_after_signal(id, still, pid, &Signal::Kill) && still == Liveness::Program {
            out.logs
                .push(log(id, ProcessFailure::KilledAfterGrace { grace_seconds }));
        }
        Ok(())
    }
}

impl Sequence<'_> {
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
                    f.write_all(format!("{code}\n").as_bytes())?;
                    return Ok(());
                }
                Err(e) if start.elapsed() < self.timing.deadline && pid_alive(pid) => {
                    let _ = e;
                    std::thread::sleep(self.timing.poll);
                }
                Err(e) => {
                    return Err(HarnessError(format!(
                        "cannot write the exit trigger {}: {e}",
                        fifo.display()
                    )));
                }
            }
        }
    }
}

/// Whether the program traps (and logs) this signal (name without `SIG`).
fn traps(name: &str) -> bool {
    name == "TERM" || super::bundle::LOGGED_SIGNALS.contains(&name)
}

/// Whether a host process exists and is not a zombie (`/proc/PID/stat`, field 3).
fn pid_alive(pid: i64) -> bool {
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return false;
    };
    // The command name (field 2) is in parentheses and may contain spaces.
    let state = stat
        .rsplit_once(") ")
        .and_then(|(_, rest)| rest.chars().next());
    !matches!(state, Some('Z' | 'X') | None)
}

fn log(id: &str, failure: ProcessFailure) -> String {
    LogEntry {
        id: id.to_owned(),
        failure,
    }
    .to_string()
}

fn read_lines(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .map(|s| s.lines().map(str::to_owned).collect())
        .unwrap_or_default()
}

/// SIGKILL to a host process (the container process of a `created` container), with busybox's
/// `kill` so that no extra dependency is needed.
fn kill_host_process(pid: i64) -> Result<(), HarnessError> {
    let status = std::process::Command::new("busybox")
        .args(["kill", "-KILL", &pid.to_string()])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()?;
    if status.success() {
        Ok(())
    } else {
        Err(HarnessError(format!("cannot SIGKILL process {pid}")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stderr_is_normalised_per_runtime() {
        let runc =
            "time=\"2026-11-22T05:06:18Z\" level=error msg=\"cannot delete \\\"x\\\": running\"\n";
        assert_eq!(
            normalise_stderr(runc),
            ["error: cannot delete \"x\": running"]
        );
        let youki = "ERROR youki: error in executing command: container x does not exist.\n\nStack backtrace:\n   0: <unknown>\n";
        assert_eq!(
            normalise_stderr(youki),
            ["ERROR youki: error in executing command: container x does not exist."]
        );
        assert_eq!(
            normalise_stderr("error executing hook `/bin/busybox` (exit code: 1)\n\n"),
            ["error executing hook `/bin/busybox` (exit code: 1)"]
        );
        assert!(normalise_stderr("\n \n").is_empty());
    }

    #[test]
    fn list_output_of_every_runtime_gives_the_ids() {
        assert_eq!(parse_list("kc-1-ia\nkc-1-ib\n"), ["kc-1-ia", "kc-1-ib"]);
        let youki = "ID  PID    STATUS   BUNDLE  CREATED  CREATOR\nkc-1-ia  19400  Running  /b  2026  root\n";
        assert_eq!(parse_list(youki), ["kc-1-ia"]);
        assert!(parse_list("ID  PID  STATUS  BUNDLE  CREATED  CREATOR\n").is_empty());
        assert!(parse_list("").is_empty());
    }

    #[test]
    fn real_ids_are_injective_and_safe() {
        assert_eq!(real_id("kc-1", "a"), "kc-1-ia");
        assert_eq!(real_id("kc-1", "a b"), "kc-1-h612062");
        assert_ne!(real_id("kc-1", "h61"), real_id("kc-1", "a"));
        assert!(
            real_id("kc", "../x")
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-')
        );
    }
}
