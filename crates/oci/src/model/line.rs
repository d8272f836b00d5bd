//! The replay output line: the JSON line `kcontract model replay` prints for each step of the model
//! and `kcontract conformance run` prints for each step observed on a real runtime. One type for
//! both, so that the two outputs cannot drift apart: the harness builds a [`ReplayLine`] from what
//! it observed, the model from its [`StepResult`], and both are written by [`write_lines`].
//!
//! Fields, always present and in this order: `step`, `op`, `id`, `ok`, `status`, `error`,
//! `warnings`, `hooks_run`, `hook_states` (the state each hook read on its stdin), `signals`, then
//! `logs` (the developer-visible log entries written during the step) and `state` (what a
//! successful `state` returned, else `null`); `deviations` only under a runtime profile
//! (`model replay --profile`), `unspecified` only where the spec leaves the outcome open. The JSON
//! Schema of the line, for consumers, is `docs/replay-line.schema.json`.

use std::io::{self, Write};

use serde::Serialize;

use super::step::{StateDoc, StepResult};

/// One output line (see the module documentation for the field order and meaning).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ReplayLine {
    /// The step's index in the trace, from 0.
    pub step: usize,
    /// The operation's trace name.
    pub op: &'static str,
    /// The trace's ID (`None`: absent).
    pub id: Option<String>,
    /// Whether the operation succeeded.
    pub ok: bool,
    /// The container's status after the step (`None`: no such container).
    pub status: Option<String>,
    /// Why it failed.
    pub error: Option<String>,
    /// Warning-class outcomes.
    pub warnings: Vec<String>,
    /// The hooks run, as `name[index]`, in order.
    pub hooks_run: Vec<String>,
    /// The state each of those hooks read on its stdin, in the same order.
    pub hook_states: Vec<HookState>,
    /// Signals delivered.
    pub signals: Vec<String>,
    /// Developer-visible log entries.
    pub logs: Vec<String>,
    /// What a successful `state` returned.
    pub state: Option<LineState>,
    /// The deviations a runtime profile applied in this step; absent without a profile (the
    /// documented format is then unchanged).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deviations: Option<Vec<&'static str>>,
    /// Where the OCI runtime spec leaves this step's outcome to the runtime (an id it may reject,
    /// a signal name it may not know): why, beside the model's choice in the other fields. Absent
    /// when the spec decides the outcome.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unspecified: Option<String>,
}

/// The state a hook read on its stdin (config.md §POSIX-platform Hooks: "The state of the container
/// MUST be passed to hooks over stdin"), the fields a hook acts on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct HookState {
    /// Which hook run, `name[index]` (as in `hooks_run`).
    pub hook: String,
    /// The state's `status`, as the hook read it (a runtime may pass a status of its own, such as
    /// crun's `starting`; empty when the hook read no status).
    pub status: String,
    /// The state's `pid`, when it had one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pid: Option<i64>,
}

/// The state document of a `state` step (runtime.md §State), fields in the schema's order. The
/// model always has every field; a real runtime may leave one out (hence the options).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LineState {
    /// `ociVersion`.
    #[serde(rename = "ociVersion")]
    pub oci_version: Option<String>,
    /// The trace's ID.
    pub id: String,
    /// `status`.
    pub status: Option<String>,
    /// `pid`, when reported (runc and crun report 0 for a stopped container).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pid: Option<i64>,
    /// `bundle`.
    pub bundle: Option<String>,
}

impl From<&StateDoc> for LineState {
    fn from(doc: &StateDoc) -> LineState {
        LineState {
            oci_version: Some(doc.oci_version.clone()),
            id: doc.id.clone(),
            status: Some(doc.status.as_str().to_owned()),
            pid: doc.pid.map(i64::from),
            bundle: Some(doc.bundle.clone()),
        }
    }
}

impl ReplayLine {
    /// The line for step `step` of a model replay.
    pub(crate) fn from_step(step: usize, r: &StepResult) -> ReplayLine {
        ReplayLine {
            step,
            op: r.op.as_str(),
            id: r.id.clone(),
            ok: r.ok(),
            status: r.status.map(|s| s.as_str().to_owned()),
            error: r.error_message(),
            warnings: r.warning_messages(),
            hooks_run: r.hooks_run.iter().map(ToString::to_string).collect(),
            hook_states: r
                .hooks_run
                .iter()
                .map(|h| HookState {
                    hook: h.to_string(),
                    status: h.status_label.to_owned(),
                    pid: h.pid_seen.map(i64::from),
                })
                .collect(),
            signals: r.signals.iter().map(|s| s.as_str().to_owned()).collect(),
            logs: r.logs.iter().map(ToString::to_string).collect(),
            state: r.state.as_ref().map(LineState::from),
            deviations: r
                .profile
                .map(|_| r.deviations.iter().map(|d| d.id()).collect()),
            unspecified: unspecified(r),
        }
    }

    /// The line as JSON, without a trailing newline.
    pub fn to_json(&self) -> serde_json::Result<String> {
        serde_json::to_string(self)
    }
}

/// Why the spec does not decide a step's outcome, if it does not. The OCI runtime spec sets no
/// format or length for a container id (runtime.md §State: "the container's ID … MUST be unique")
/// and does not say what `kill` does with a signal the system does not have; real runtimes differ
/// on both (docs/runtimes.md), so the model's `ok` there is its choice, not the spec's.
fn unspecified(r: &StepResult) -> Option<String> {
    let mut why = Vec::new();
    if let Some(id) = &r.id {
        // An empty id is decided by the spec (create MUST fail without one).
        let portable = id.is_empty()
            || id
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.' | b'+'));
        if id == "." || id == ".." || !portable || id.len() > 255 {
            why.push(format!(
                "the OCI runtime spec sets no format or length for container ids; a runtime may reject `{}`",
                if id.len() > 40 { format!("{}… ({} bytes)", &id[..id.char_indices().nth(40).map_or(id.len(), |(i, _)| i)], id.len()) } else { id.clone() }
            ));
        }
    }
    for s in &r.signals {
        if !s.is_known() {
            why.push(format!(
                "the OCI runtime spec does not say what kill does with `{s}`, a signal the system does not have; a runtime may reject it"
            ));
        }
    }
    (!why.is_empty()).then(|| why.join("; "))
}

/// The lines of a model replay, one per step.
pub fn replay_lines(results: &[StepResult]) -> Vec<ReplayLine> {
    results
        .iter()
        .enumerate()
        .map(|(i, r)| ReplayLine::from_step(i, r))
        .collect()
}

/// The JSON lines (without trailing newlines) of a model replay.
pub fn to_json_lines(results: &[StepResult]) -> serde_json::Result<Vec<String>> {
    replay_lines(results)
        .iter()
        .map(ReplayLine::to_json)
        .collect()
}

/// Writes each item as one JSON line. Any serialisable line type is accepted (`conformance compare`
/// writes its own side-by-side lines the same way); a serialisation error is an I/O error here.
pub fn write_lines<T: Serialize>(out: &mut dyn Write, lines: &[T]) -> io::Result<()> {
    for line in lines {
        serde_json::to_writer(&mut *out, line)?;
        out.write_all(b"\n")?;
    }
    out.flush()
}
