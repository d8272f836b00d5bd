//! `spec/runtimes/deviations.yaml`: how real OCI runtimes differ from the spec, as measured
//! (docs/runtimes.md describes the shape and how the data is produced). Read from the spec folder
//! in a stage of its own ([`load`]) so the site can render the "Runtimes vs the spec" page;
//! `tests/deviations.rs` checks it against the model.

use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use kcontract_spec::diagnostic::{Diagnostic, SourceMap, Span};
use kcontract_spec::{Tree, read_spec_source};

mod cache;

/// The `format:` this version reads.
pub(crate) const FORMAT: &str = "kcontract-runtimes/1";

/// The whole of `deviations.yaml` (unknown fields are errors).
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Catalogue {
    /// The shape's version; must be [`FORMAT`].
    pub format: String,
    /// Where and on which runtimes the observations were made.
    pub measured: Measured,
    /// The deviations, exactly the ids of the model's `Deviation` (its declaration's order).
    pub deviations: Vec<Entry>,
    /// Hook order and failing hooks: the runtimes against the model.
    pub hooks: Hooks,
    /// What the platform runs' probe found the runtimes doing with a config
    /// (`kcontract platform run`, docs/platforms.md); absent in older catalogues.
    #[serde(default)]
    pub platform_findings: Vec<PlatformFinding>,
}

/// The measurement setup: host, runtime versions and the recorded differential runs.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Measured {
    /// Where the observations were made (OS, architecture, kernel, cgroup layout, user).
    pub host: String,
    /// One entry per runtime measured.
    pub runtimes: Vec<MeasuredRuntime>,
    /// Recorded runs of the differential tests (`tests/suite/differential.rs`).
    pub differential: Vec<DifferentialRun>,
}

/// One runtime as measured.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct MeasuredRuntime {
    /// `runc`, `crun` or `youki`.
    pub name: String,
    /// The runtime's own version (`1.1.5`).
    pub version: String,
    /// How it was installed (Debian package, `cargo install` command).
    pub source: String,
    /// The `ociVersion` the runtime reports in `state` (`1.0.2-dev`).
    pub state_oci_version: String,
}

/// One recorded run of the differential tests on one runtime.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct DifferentialRun {
    /// The runtime's name.
    pub runtime: String,
    /// Generated operation sequences run.
    pub sequences: u64,
    /// Operations executed over all the sequences.
    pub steps: u64,
    /// Wall time of the run, in seconds.
    pub seconds: f64,
    /// Differences from the model that no catalogued deviation explains (0 for a clean run).
    pub unexplained: u64,
    /// The command that ran it and the conditions (cores, what else ran).
    pub how: String,
}

/// One deviation: a runtime behaviour that differs from the spec model, with its evidence.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Entry {
    /// Stable id (`delete-created`), one of the model's `Deviation` ids.
    pub id: String,
    /// `spec` (breaks a sentence of the spec), `model-choice` (differs from a documented choice
    /// where the spec is silent) or `later-spec` (follows v1.3.0 where v1.0.1 says otherwise).
    pub kind: String,
    /// The behaviour does not show on every run (only `poststart-before-program`).
    #[serde(default)]
    pub nondeterministic: bool,
    /// One-line title, English.
    pub title: String,
    /// The title in Simplified Chinese.
    pub title_zh: String,
    /// A paragraph of Markdown, English.
    pub summary: String,
    /// The summary in Simplified Chinese.
    pub summary_zh: String,
    /// An optional further paragraph, English (both `note` and `note_zh`, or neither).
    #[serde(default)]
    pub note: Option<String>,
    /// The note in Simplified Chinese.
    #[serde(default)]
    pub note_zh: Option<String>,
    /// The spec sentence the behaviour departs from.
    pub spec: SpecRef,
    /// The runtimes (and versions) that show the behaviour.
    pub runtimes: Vec<RuntimeRef>,
    /// The model invariant rule id the behaviour violates (`delete-only-stopped`), or `None`.
    pub breaks: Option<String>,
    /// The trace that shows it, in the `kcontract model replay` format.
    pub trace: Value,
    /// What the spec model does on the trace, at the trace's `oci_version`.
    pub expected: Expected,
    /// What each runtime of `runtimes` did, in the same order.
    pub observed: Vec<Observed>,
}

/// Where in the OCI runtime spec a deviation departs from it.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct SpecRef {
    /// File and section (`runtime.md §Delete`, the `docs/model.md` citation style).
    pub source: String,
    /// The spec versions it departs from (`1.0.1`, `1.3.0`).
    pub versions: Vec<String>,
    /// The sentence, verbatim and in English.
    pub sentence: String,
}

/// A runtime showing a deviation.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RuntimeRef {
    /// `runc`, `crun` or `youki`.
    pub name: String,
    /// The version it was observed on.
    pub version: String,
}

/// The spec model's output for a trace at one spec version.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Expected {
    /// The OCI spec version of the model profile (`1.3.0`).
    pub version: String,
    /// `kcontract model replay` output, one JSON line per step (absent for hook traces).
    #[serde(default)]
    pub lines: Vec<String>,
    /// The compared fields (the JSON of `compare::Comparable`), one line per step.
    pub comparable: Vec<String>,
}

/// One runtime's output for a trace.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Observed {
    /// The runtime's name.
    pub runtime: String,
    /// `kcontract conformance run` output from one run, one JSON line per step, with the runtime's
    /// own error texts and pids (absent for hook traces).
    #[serde(default)]
    pub lines: Vec<String>,
    /// The compared fields, one line per step; equal to the model's with the runtime's profile.
    pub comparable: Vec<String>,
}

/// Hook order and failing hooks on the real runtimes.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Hooks {
    /// A paragraph of Markdown, English.
    pub summary: String,
    /// The summary in Simplified Chinese.
    pub summary_zh: String,
    /// `hooks-order`, then `<kind>-fails` for the six hook kinds.
    pub traces: Vec<HookTrace>,
}

/// One hook trace with the model's output per spec version and each runtime's.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct HookTrace {
    /// Stable id (`hooks-order`, `<kind>-fails`).
    pub id: String,
    /// One-line title, English.
    pub title: String,
    /// The title in Simplified Chinese.
    pub title_zh: String,
    /// The trace, in the `kcontract model replay` format.
    pub trace: Value,
    /// The spec model's output, one per spec version (1.0.1, 1.3.0).
    pub expected: Vec<Expected>,
    /// Each runtime's output (runc, crun, youki).
    pub observed: Vec<Observed>,
}

/// A difference between runtimes that the probe of the platform runs shows: the config that shows
/// it, written out whole, and what the probe reported under each runtime.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct PlatformFinding {
    /// Stable id (`tmpfs-mode-ignored`).
    pub id: String,
    /// One-line title, English.
    pub title: String,
    /// The title in Simplified Chinese.
    pub title_zh: String,
    /// A paragraph of Markdown, English.
    pub summary: String,
    /// The summary in Simplified Chinese.
    pub summary_zh: String,
    /// The spec sentence the behaviour departs from, or the one it bears on.
    pub spec: SpecRef,
    /// The runtimes (and versions) that show the behaviour.
    pub runtimes: Vec<RuntimeRef>,
    /// Upstream issues and pull requests (`opencontainers/runc#3911`).
    #[serde(default)]
    pub upstream: Vec<String>,
    /// The `config.json` (`$ROOTFS` stands for the root filesystem; `linux.cgroupsPath` is the
    /// harness's).
    pub config: Value,
    /// Modes (octal) the root filesystem's folders are given before the run.
    #[serde(default)]
    pub modes: std::collections::BTreeMap<String, String>,
    /// What the probe reported, per runtime: `kcontract::platform::observed::fact_summary` keys
    /// (`/tmp mode`, `/tmp write`, `/ propagation`) and their values.
    pub observed: Vec<FindingObservation>,
}

/// What the probe reported under one runtime.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct FindingObservation {
    /// The runtime's name.
    pub runtime: String,
    /// Summary key → value.
    pub facts: std::collections::BTreeMap<String, String>,
}

/// The catalogue as read, with the file it came from and what reading it reported.
#[derive(Debug, Default)]
pub struct Loaded {
    /// The catalogue, or `None` when the file is absent or could not be read.
    pub catalogue: Option<Catalogue>,
    /// The file read, for rendering the diagnostics.
    pub sources: SourceMap,
    /// What reading and checking the file reported.
    pub diagnostics: Vec<Diagnostic>,
    /// What the parse cache did, for `build --timings` (`None` without a cache).
    pub cache: Option<String>,
}

/// `runtimes/deviations.yaml` in the spec folder `spec_dir` (optional: `catalogue` is `None` without
/// it). A stage of its own: the catalogue is not part of the contract, only the site renders it.
pub fn load(spec_dir: &Path) -> Loaded {
    load_cached(spec_dir, None)
}

/// [`load`], with the parsed catalogue kept in the folder `cache` (see `runtimes/cache.rs`): when the file's
/// text is the one parsed last time, the stored value is read instead of parsing the YAML again.
/// The result is the same either way.
pub fn load_cached(spec_dir: &Path, cache: Option<&Path>) -> Loaded {
    let mut out = Loaded::default();
    let path = spec_dir.join("runtimes").join("deviations.yaml");
    if !path.exists() {
        return out;
    }
    let Some(fid) = read_spec_source(
        &Tree::Disk,
        spec_dir,
        &path,
        &mut out.sources,
        &mut out.diagnostics,
    ) else {
        return out;
    };
    let text = &out.sources.get(fid).text;
    if let Some(dir) = cache
        && let Some(c) = cache::get(dir, text)
    {
        out.catalogue = Some(c);
        out.cache = Some("runtimes cache: used".into());
        return out;
    }
    out.catalogue = parse(&path, fid, &out.sources, &mut out.diagnostics);
    if let (Some(dir), Some(c)) = (cache, &out.catalogue) {
        out.cache = Some(match cache::put(dir, &out.sources.get(fid).text, c) {
            Ok(()) => "runtimes cache: parsed, written".into(),
            Err(e) => format!("runtimes cache: parsed, not written ({e})"),
        });
    }
    out
}

/// The catalogue in file `fid` (at `path`), or its problems.
fn parse(
    path: &Path,
    fid: kcontract_spec::diagnostic::FileId,
    sources: &SourceMap,
    diags: &mut Vec<Diagnostic>,
) -> Option<Catalogue> {
    let file = sources.get(fid);
    match serde_saphyr::from_str::<Catalogue>(&file.text) {
        Ok(c) if c.format == FORMAT => Some(c),
        Ok(c) => {
            diags.push(
                Diagnostic::error(
                    "K0701",
                    format!("runtimes/deviations.yaml has format `{}`", c.format),
                )
                .in_file(path)
                .help(format!(
                    "this kcontract reads `{}`; see docs/runtimes.md",
                    FORMAT
                )),
            );
            None
        }
        Err(_) if kcontract_spec::diagnostic::yaml_has_no_document(&file.text) => {
            diags.push(
                Diagnostic::error("K0701", "runtimes/deviations.yaml holds no YAML document")
                    .in_file(path)
                    .help("the shape is documented in docs/runtimes.md"),
            );
            None
        }
        Err(e) => {
            let msg = kcontract_spec::diagnostic::yaml_message(&e);
            let d = Diagnostic::error(
                "K0701",
                "runtimes/deviations.yaml is not a valid deviations catalogue",
            );
            let d = match e.location() {
                Some(loc) => {
                    let o = file.offset_of(loc.line() as usize, loc.column() as usize);
                    let o = kcontract_spec::diagnostic::yaml_error_offset(&file.text, &e, o);
                    d.at(Span::new(fid, o..file.line_end(o)), msg)
                }
                None => d.in_file(path).help(msg.clone()),
            };
            diags.push(d.help("the shape is documented in docs/runtimes.md"));
            None
        }
    }
}
