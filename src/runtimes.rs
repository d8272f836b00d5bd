//! `spec/runtimes/deviations.yaml`: how real OCI runtimes differ from the spec, as measured
//! (docs/runtimes.md describes the shape and how the data is produced). Loaded with the spec so the
//! site can render the "Runtimes vs the spec" page; `tests/deviations.rs` checks it against the model.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The `format:` this version reads.
pub const FORMAT: &str = "kcontract-runtimes/1";

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Catalogue {
    pub format: String,
    pub measured: Measured,
    pub deviations: Vec<Entry>,
    pub hooks: Hooks,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Measured {
    pub host: String,
    pub runtimes: Vec<MeasuredRuntime>,
    pub differential: Vec<DifferentialRun>,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct MeasuredRuntime {
    pub name: String,
    pub version: String,
    pub source: String,
    pub state_oci_version: String,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct DifferentialRun {
    pub runtime: String,
    pub sequences: u64,
    pub steps: u64,
    pub seconds: f64,
    pub unexplained: u64,
    pub how: String,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Entry {
    pub id: String,
    pub kind: String,
    #[serde(default)]
    pub nondeterministic: bool,
    pub title: String,
    pub title_zh: String,
    pub summary: String,
    pub summary_zh: String,
    #[serde(default)]
    pub note: Option<String>,
    #[serde(default)]
    pub note_zh: Option<String>,
    pub spec: SpecRef,
    pub runtimes: Vec<RuntimeRef>,
    pub breaks: Option<String>,
    pub trace: Value,
    pub expected: Expected,
    pub observed: Vec<Observed>,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct SpecRef {
    pub source: String,
    pub versions: Vec<String>,
    pub sentence: String,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RuntimeRef {
    pub name: String,
    pub version: String,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Expected {
    pub version: String,
    #[serde(default)]
    pub lines: Vec<String>,
    pub comparable: Vec<String>,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Observed {
    pub runtime: String,
    #[serde(default)]
    pub lines: Vec<String>,
    pub comparable: Vec<String>,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Hooks {
    pub summary: String,
    pub summary_zh: String,
    pub traces: Vec<HookTrace>,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct HookTrace {
    pub id: String,
    pub title: String,
    pub title_zh: String,
    pub trace: Value,
    pub expected: Vec<Expected>,
    pub observed: Vec<Observed>,
}
