//! `spec/runtimes/deviations.yaml`: how real OCI runtimes differ from the spec, as measured
//! (docs/runtimes.md describes the shape and how the data is produced). Read from the spec folder
//! in a stage of its own ([`load`]) so the site can render the "Runtimes vs the spec" page;
//! `tests/deviations.rs` checks it against the model.

use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::diagnostic::{Diagnostic, SourceMap, Span};
use crate::spec_source::read_source;

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

/// The catalogue as read, with the file it came from and what reading it reported.
#[derive(Debug, Default)]
pub struct Loaded {
    pub catalogue: Option<Catalogue>,
    pub sources: SourceMap,
    pub diagnostics: Vec<Diagnostic>,
}

/// `runtimes/deviations.yaml` in the spec folder `spec_dir` (optional: `catalogue` is `None` without
/// it). A stage of its own: the catalogue is not part of the contract, only the site renders it.
pub fn load(spec_dir: &Path) -> Loaded {
    let mut out = Loaded::default();
    out.catalogue = read(spec_dir, &mut out.sources, &mut out.diagnostics);
    out
}

fn read(
    spec_dir: &Path,
    sources: &mut SourceMap,
    diags: &mut Vec<Diagnostic>,
) -> Option<Catalogue> {
    let path = spec_dir.join("runtimes").join("deviations.yaml");
    if !path.exists() {
        return None;
    }
    let fid = read_source(&path, sources, diags)?;
    let file = sources.get(fid);
    match serde_saphyr::from_str::<Catalogue>(&file.text) {
        Ok(c) if c.format == FORMAT => Some(c),
        Ok(c) => {
            diags.push(
                Diagnostic::error(
                    "K0701",
                    format!("runtimes/deviations.yaml has format `{}`", c.format),
                )
                .in_file(&path)
                .help(format!(
                    "this kcontract reads `{}`; see docs/runtimes.md",
                    FORMAT
                )),
            );
            None
        }
        Err(e) => {
            let msg = e.without_snippet().to_string();
            let msg = msg
                .rfind(" at line ")
                .map_or(msg.clone(), |i| msg[..i].to_string());
            let d = Diagnostic::error(
                "K0701",
                "runtimes/deviations.yaml is not a valid deviations catalogue",
            );
            let d = match e.location() {
                Some(loc) => {
                    let o = file.offset_of(loc.line() as usize, loc.column() as usize);
                    d.at(Span::new(fid, o..file.line_end(o)), msg)
                }
                None => d.in_file(&path).help(msg.clone()),
            };
            diags.push(d.help("the shape is documented in docs/runtimes.md"));
            None
        }
    }
}
