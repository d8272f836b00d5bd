//! The trace format read by `kcontract model replay` (and `kcontract conformance`); the JSON lines
//! it writes are [`super::line`].
//!
//! Input (see `docs/model.md` for the full description):
//!
//! ```json
//! { "oci_version": "1.3.0",
//!   "steps": [
//!     {"op": "create", "id": "a", "process": true, "on_sigterm": "exit",
//!      "hooks": {"prestart": ["ok"], "createRuntime": ["ok", "fail"]}},
//!     {"op": "start", "id": "a"},
//!     {"op": "kill", "id": "a", "signal": "SIGTERM"},
//!     {"op": "exit", "id": "a", "code": 0},
//!     {"op": "shutdown", "id": "a", "grace_seconds": 10},
//!     {"op": "delete", "id": "a"},
//!     {"op": "reclaim", "id": "a"},
//!     {"op": "state", "id": "a"} ] }
//! ```
//!
//! Parsing is strict: unknown top-level or step fields, fields that do not belong to the step's op,
//! unknown hook names and outcomes, and malformed signal names are errors, reported with the
//! `line:column` serde_json gives and the path of the offending value (`steps[2].signal`). A step
//! whose `id` is absent or `null` is *well-formed*: it models an operation invoked without a container
//! ID, which the runtime answers with an error.
//!
//! Hooks that exist in config.md v1.3.0 but not v1.0.1 (`createRuntime`, `createContainer`,
//! `startContainer`) are accepted at both versions: at v1.0.1 they are unknown `config.json`
//! properties, which that version's config.md §Extensibility says to ignore ("MUST NOT generate an
//! error … MUST ignore unknown properties"); the model therefore never runs them there. A name that
//! is not a hook at any version (a typo) is a malformed trace.

use std::cell::RefCell;
use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use strum::VariantArray;

use super::hooks::{HookName, HookOutcome, Hooks};
use super::op::{Action, Config, OnSigterm, Op, OpKind, Signal};
use super::profile::OciRuntime;
use super::runtime::Runtime;
use super::step::StepResult;
use super::version::OciVersion;

/// A parsed trace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Trace {
    /// The profile to replay under (the trace's `oci_version`, or the override).
    pub version: OciVersion,
    /// The steps, in order.
    pub steps: Vec<Op>,
}

/// A malformed trace: where, and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TraceError {
    /// 1-based line (0 when the input has no position, e.g. an I/O error).
    pub line: usize,
    /// 1-based column.
    pub column: usize,
    /// Path of the offending value, e.g. `steps[2].signal`; empty at the top level.
    pub path: String,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for TraceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: ", self.line, self.column)?;
        if !self.path.is_empty() {
            write!(f, "{}: ", self.path)?;
        }
        f.write_str(&self.message)
    }
}

impl std::error::Error for TraceError {}

/// One segment of the path to the value being read.
#[derive(Debug, Clone)]
enum Seg {
    Field(String),
    Index(usize),
}

type Path = RefCell<Vec<Seg>>;

fn render_path(path: &[Seg]) -> String {
    let mut out = String::new();
    for seg in path {
        match seg {
            Seg::Field(name) => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(name);
            }
            Seg::Index(i) => out.push_str(&format!("[{i}]")),
        }
    }
    out
}

/// Parses a trace. With `version_override`, the trace's own `oci_version` may be absent or any
/// string (it is not used); without, it must name a supported profile.
pub fn parse_trace(text: &str, version_override: Option<OciVersion>) -> Result<Trace, TraceError> {
    let path: Path = RefCell::new(Vec::new());
    let mut de = serde_json::Deserializer::from_str(text);
    let result = TraceSeed {
        path: &path,
        version_override,
    }
    .deserialize(&mut de)
    .and_then(|trace| de.end().map(|()| trace));
    result.map_err(|e| {
        let full = e.to_string();
        let suffix = format!(" at line {} column {}", e.line(), e.column());
        let message = full.strip_suffix(&suffix).unwrap_or(&full).to_owned();
        TraceError {
            line: e.line(),
            column: e.column(),
            path: render_path(&path.borrow()),
            message,
        }
    })
}

/// Replays a trace on a fresh runtime: one [`StepResult`] per step, in order. Failed operations are
/// results, not errors; only a malformed trace is an error.
pub fn replay(
    trace_json: &str,
    version_override: Option<OciVersion>,
) -> Result<Vec<StepResult>, TraceError> {
    replay_profiled(trace_json, version_override, None)
}

/// [`replay`] on a runtime that reproduces a real runtime's documented deviations
/// (`kcontract model replay --profile`), or the spec when `profile` is `None`.
pub fn replay_profiled(
    trace_json: &str,
    version_override: Option<OciVersion>,
    profile: Option<OciRuntime>,
) -> Result<Vec<StepResult>, TraceError> {
    let trace = parse_trace(trace_json, version_override)?;
    let mut runtime = match profile {
        Some(p) => Runtime::with_profile(trace.version, p),
        None => Runtime::new(trace.version),
    };
    Ok(trace.steps.iter().map(|op| runtime.apply(op)).collect())
}

/// Writes a trace in the replay format (the inverse of [`parse_trace`]): one step per line, fields
/// that have their default value left out. Used to print generated sequences so that they can be
/// replayed with `kcontract model replay` and `kcontract conformance run`.
pub fn trace_to_json(version: OciVersion, steps: &[Op]) -> String {
    use serde_json::Value;
    let step = |op: &Op| -> String {
        // Fields in the order the docs list them (a serde_json map would sort them).
        let mut fields: Vec<(&str, Value)> = vec![("op", op.action.kind().as_str().into())];
        if let Some(id) = &op.id {
            fields.push(("id", id.as_str().into()));
        }
        match &op.action {
            Action::Create(config) => {
                if !config.process {
                    fields.push(("process", false.into()));
                }
                if config.on_sigterm == OnSigterm::Ignore {
                    fields.push(("on_sigterm", <&str>::from(OnSigterm::Ignore).into()));
                }
                let mut hooks = serde_json::Map::new();
                for &hook in HookName::VARIANTS {
                    let list = config.hooks.get(hook);
                    if !list.is_empty() {
                        let outcomes = list.iter().map(|o| o.as_str().into()).collect();
                        hooks.insert(hook.as_str().into(), Value::Array(outcomes));
                    }
                }
                if !hooks.is_empty() {
                    fields.push(("hooks", Value::Object(hooks)));
                }
            }
            Action::Kill(signal) => fields.push(("signal", signal.as_str().into())),
            Action::Exit { code } => fields.push(("code", (*code).into())),
            Action::Shutdown { grace_seconds } => {
                fields.push(("grace_seconds", (*grace_seconds).into()));
            }
            Action::State | Action::Start | Action::Delete | Action::Reclaim => {}
        }
        let body: Vec<String> = fields
            .iter()
            .map(|(k, v)| format!("\"{k}\": {v}"))
            .collect();
        format!("{{{}}}", body.join(", "))
    };
    let lines: Vec<String> = steps.iter().map(|op| format!("  {}", step(op))).collect();
    format!(
        "{{\"oci_version\": \"{version}\", \"steps\": [\n{}\n]}}",
        lines.join(",\n")
    )
}

struct TraceSeed<'a> {
    path: &'a Path,
    version_override: Option<OciVersion>,
}

impl<'de> DeserializeSeed<'de> for TraceSeed<'_> {
    type Value = Trace;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Trace, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for TraceSeed<'_> {
    type Value = Trace;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a trace object {\"oci_version\": …, \"steps\": […]}")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Trace, A::Error> {
        let mut version: Option<Option<OciVersion>> = None;
        let mut steps: Option<Vec<Op>> = None;
        while let Some(key) = map.next_key::<String>()? {
            self.path.borrow_mut().push(Seg::Field(key.clone()));
            match key.as_str() {
                "oci_version" => {
                    if version.is_some() {
                        return Err(de::Error::custom("duplicate field `oci_version`"));
                    }
                    let raw: String = map.next_value()?;
                    version = Some(match self.version_override {
                        Some(_) => None,
                        None => Some(raw.parse::<OciVersion>().map_err(|e| {
                            de::Error::custom(format!("{e}; use --oci-version to override"))
                        })?),
                    });
                }
                "steps" => {
                    if steps.is_some() {
                        return Err(de::Error::custom("duplicate field `steps`"));
                    }
                    steps = Some(map.next_value_seed(StepsSeed { path: self.path })?);
                }
                other => {
                    return Err(de::Error::custom(format!(
                        "unknown field `{other}`, expected `oci_version` or `steps`"
                    )));
                }
            }
            self.path.borrow_mut().pop();
        }
        let version = match (self.version_override, version.flatten()) {
            (Some(v), _) | (None, Some(v)) => v,
            (None, None) => {
                return Err(de::Error::custom(
                    "missing field `oci_version` (or pass --oci-version)",
                ));
            }
        };
        let steps = steps.ok_or_else(|| de::Error::custom("missing field `steps`"))?;
        Ok(Trace { version, steps })
    }
}

struct StepsSeed<'a> {
    path: &'a Path,
}

impl<'de> DeserializeSeed<'de> for StepsSeed<'_> {
    type Value = Vec<Op>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Vec<Op>, D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for StepsSeed<'_> {
    type Value = Vec<Op>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an array of steps")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<Op>, A::Error> {
        let mut steps = Vec::new();
        loop {
            self.path.borrow_mut().push(Seg::Index(steps.len()));
            match seq.next_element_seed(StepSeed { path: self.path })? {
                Some(op) => steps.push(op),
                None => {
                    self.path.borrow_mut().pop();
                    return Ok(steps);
                }
            }
            self.path.borrow_mut().pop();
        }
    }
}

struct StepSeed<'a> {
    path: &'a Path,
}

impl<'de> DeserializeSeed<'de> for StepSeed<'_> {
    type Value = Op;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Op, D::Error> {
        d.deserialize_map(self)
    }
}

/// The operations' names, `state, create, …`, for messages.
fn op_names() -> String {
    let names: Vec<&str> = OpKind::VARIANTS.iter().map(|k| k.as_str()).collect();
    names.join(", ")
}

/// Words as a message lists the accepted ones: `` `a` or `b` ``, `` `a`, `b` or `c` ``.
fn either<T: Copy + Into<&'static str>>(words: &[T]) -> String {
    let quoted: Vec<String> = words
        .iter()
        .map(|&w| {
            let word: &'static str = w.into();
            format!("`{word}`")
        })
        .collect();
    match quoted.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
        _ => quoted.concat(),
    }
}

/// The fields a step may carry besides `op` and `id`, and which ops they belong to.
fn field_allowed(op: OpKind, field: &str) -> bool {
    matches!(
        (op, field),
        (OpKind::Create, "process" | "on_sigterm" | "hooks")
            | (OpKind::Kill, "signal")
            | (OpKind::Exit, "code")
            | (OpKind::Shutdown, "grace_seconds")
    )
}

impl<'de> Visitor<'de> for StepSeed<'_> {
    type Value = Op;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a step object {\"op\": …, \"id\": …}")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Op, A::Error> {
        let mut op: Option<OpKind> = None;
        let mut id: Option<Option<String>> = None;
        let mut process: Option<bool> = None;
        let mut on_sigterm: Option<OnSigterm> = None;
        let mut hooks: Option<Hooks> = None;
        let mut signal: Option<Signal> = None;
        let mut code: Option<i32> = None;
        let mut grace: Option<u64> = None;
        let mut seen: Vec<String> = Vec::new();
        while let Some(key) = map.next_key::<String>()? {
            self.path.borrow_mut().push(Seg::Field(key.clone()));
            if seen.contains(&key) {
                return Err(de::Error::custom(format!("duplicate field `{key}`")));
            }
            match key.as_str() {
                "op" => {
                    let name: String = map.next_value()?;
                    op = Some(name.parse().map_err(|_| {
                        de::Error::custom(format!(
                            "unknown op `{name}`, expected one of {}",
                            op_names()
                        ))
                    })?);
                }
                "id" => id = Some(map.next_value()?),
                "process" => process = Some(map.next_value()?),
                "on_sigterm" => {
                    let v: String = map.next_value()?;
                    on_sigterm = Some(v.parse().map_err(|_| {
                        de::Error::custom(format!(
                            "unknown on_sigterm `{v}`, expected {}",
                            either(OnSigterm::VARIANTS)
                        ))
                    })?);
                }
                "hooks" => hooks = Some(map.next_value_seed(HooksSeed { path: self.path })?),
                "signal" => {
                    let v: String = map.next_value()?;
                    signal = Some(Signal::parse(&v).ok_or_else(|| {
                        de::Error::custom(format!(
                            "invalid signal `{v}`: expected a name such as SIGTERM, SIGKILL or SIGUSR1"
                        ))
                    })?);
                }
                "code" => code = Some(map.next_value()?),
                "grace_seconds" => grace = Some(map.next_value()?),
                other => {
                    return Err(de::Error::custom(format!(
                        "unknown field `{other}`, expected one of op, id, process, on_sigterm, hooks, signal, code, grace_seconds"
                    )));
                }
            }
            self.path.borrow_mut().pop();
            seen.push(key);
        }
        let Some(op) = op else {
            return Err(de::Error::custom(format!(
                "missing field `op` (one of {})",
                op_names()
            )));
        };
        for field in &seen {
            if !matches!(field.as_str(), "op" | "id") && !field_allowed(op, field) {
                self.path.borrow_mut().push(Seg::Field(field.clone()));
                return Err(de::Error::custom(format!(
                    "field `{field}` does not apply to op `{op}`"
                )));
            }
        }
        let action = match op {
            OpKind::State => Action::State,
            OpKind::Create => Action::Create(Config {
                process: process.unwrap_or(true),
                on_sigterm: on_sigterm.unwrap_or_default(),
                hooks: hooks.unwrap_or_default(),
            }),
            OpKind::Start => Action::Start,
            OpKind::Kill => Action::Kill(
                signal.ok_or_else(|| de::Error::custom("missing field `signal` for op `kill`"))?,
            ),
            OpKind::Delete => Action::Delete,
            OpKind::Exit => Action::Exit {
                code: code.unwrap_or(0),
            },
            OpKind::Shutdown => Action::Shutdown {
                grace_seconds: grace.ok_or_else(|| {
                    de::Error::custom("missing field `grace_seconds` for op `shutdown`")
                })?,
            },
            OpKind::Reclaim => Action::Reclaim,
        };
        Ok(Op {
            id: id.flatten(),
            action,
        })
    }
}

struct HooksSeed<'a> {
    path: &'a Path,
}

impl<'de> DeserializeSeed<'de> for HooksSeed<'_> {
    type Value = Hooks;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Hooks, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for HooksSeed<'_> {
    type Value = Hooks;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object mapping hook names to arrays of \"ok\"/\"fail\"")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Hooks, A::Error> {
        let mut hooks = Hooks::none();
        let mut seen: Vec<HookName> = Vec::new();
        while let Some(key) = map.next_key::<String>()? {
            self.path.borrow_mut().push(Seg::Field(key.clone()));
            let hook: HookName = key.parse().map_err(|_| {
                let names: Vec<&str> = HookName::VARIANTS.iter().map(|h| h.as_str()).collect();
                de::Error::custom(format!(
                    "unknown hook `{key}`, expected one of {}",
                    names.join(", ")
                ))
            })?;
            if seen.contains(&hook) {
                return Err(de::Error::custom(format!("duplicate hook `{key}`")));
            }
            seen.push(hook);
            let raw: Vec<String> = map.next_value()?;
            let mut outcomes = Vec::with_capacity(raw.len());
            for (i, o) in raw.iter().enumerate() {
                outcomes.push(o.parse().map_err(|_| {
                    self.path.borrow_mut().push(Seg::Index(i));
                    de::Error::custom(format!(
                        "unknown hook outcome `{o}`, expected {}",
                        either(HookOutcome::VARIANTS)
                    ))
                })?);
            }
            hooks.set(hook, outcomes);
            self.path.borrow_mut().pop();
        }
        Ok(hooks)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_render_like_json_accessors() {
        let path = vec![
            Seg::Field("steps".into()),
            Seg::Index(2),
            Seg::Field("hooks".into()),
            Seg::Field("poststop".into()),
            Seg::Index(1),
        ];
        assert_eq!(render_path(&path), "steps[2].hooks.poststop[1]");
    }

    #[test]
    fn traces_written_parse_back_to_the_same_steps() {
        use crate::model::hooks::HookOutcome;
        let steps = vec![
            Op::new(
                "a",
                Action::Create(Config {
                    process: false,
                    on_sigterm: OnSigterm::Ignore,
                    hooks: Hooks::none()
                        .with(HookName::Poststop, &[HookOutcome::Ok, HookOutcome::Fail]),
                }),
            ),
            Op::new("a", Action::Create(Config::default())),
            Op::without_id(Action::Start),
            Op::new("", Action::Kill(Signal::Other("SIGUSR1".into()))),
            Op::new("b", Action::Exit { code: -3 }),
            Op::new("b", Action::Shutdown { grace_seconds: 7 }),
            Op::new("b", Action::Reclaim),
            Op::new("b", Action::State),
            Op::new("b", Action::Delete),
        ];
        for &version in OciVersion::VARIANTS {
            let text = trace_to_json(version, &steps);
            let back = parse_trace(&text, None).unwrap();
            assert_eq!(back.version, version);
            assert_eq!(back.steps, steps, "{text}");
        }
    }

    #[test]
    fn fields_belong_to_their_ops() {
        assert!(field_allowed(OpKind::Create, "hooks"));
        assert!(field_allowed(OpKind::Kill, "signal"));
        assert!(!field_allowed(OpKind::Start, "signal"));
        assert!(!field_allowed(OpKind::Create, "grace_seconds"));
    }
}
