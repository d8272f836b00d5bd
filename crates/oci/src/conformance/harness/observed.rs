//! What one step did on a real runtime ([`Observed`]), and its output line: the model's
//! [`ReplayLine`], so that `kcontract conformance run` prints exactly the shape `kcontract model
//! replay` prints.

use crate::model::{HookState, LineState, Op, OpKind, ReplayLine};

/// One hook run as the hook program recorded it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ObservedHook {
    /// `name[index]`.
    pub name: String,
    /// The `status` in the state the hook read on stdin (empty if it read none).
    pub status_seen: String,
    /// The `pid` in that state, if it had one.
    pub pid_seen: Option<i64>,
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
    pub state: Option<LineState>,
}

impl Observed {
    pub(super) fn new(op: &Op) -> Observed {
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

    /// The output line: `kcontract model replay`'s, with what the runtime did.
    pub fn to_line(&self, step: usize) -> ReplayLine {
        ReplayLine {
            step,
            op: self.op.as_str(),
            id: self.id.clone(),
            ok: self.ok,
            status: self.status.clone(),
            error: self.error.clone(),
            warnings: self.warnings.clone(),
            hooks_run: self.hooks_run.iter().map(|h| h.name.clone()).collect(),
            hook_states: self
                .hooks_run
                .iter()
                .map(|h| HookState {
                    hook: h.name.clone(),
                    status: h.status_seen.clone(),
                    pid: h.pid_seen,
                })
                .collect(),
            signals: self.signals.clone(),
            logs: self.logs.clone(),
            state: self.state.clone(),
            deviations: None,
            unspecified: None,
        }
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
}
