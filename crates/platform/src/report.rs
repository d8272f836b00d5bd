//! The report of a platform run (`kcontract-run/1`, `docs/run-report.schema.json`): which platform
//! (runtime and version, the profile and its SHA-256, the Service, the probe), and per testable
//! clause of the loaded spec its status with the check, the evidence, a message and the route it
//! was decided on (`simulated`, `deployed`, `vendor-log`). Each clause carries its stamp from the
//! spec the run was judged against, so a reader can tell a report made for an older text of a
//! clause. [`read`] reads one back; [`load`] is the reader of the matrix's
//! platform columns (`matrix --platform`), with `file:line:col` diagnostics.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use kcontract_spec::Spec;
use kcontract_spec::diagnostic::Diagnostic;

use super::checks::{self, Status, Verdict};
use super::profile::DocReview;
use super::routes::Route;

/// The `format` of the reports this version writes and reads.
pub const RUN_FORMAT: &str = "kcontract-run/1";

/// A run report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// Always [`RUN_FORMAT`].
    pub format: String,
    /// What was run, where, against what.
    pub platform: Platform,
    /// How many clauses have each status (`pass`, `fail`, `n/a`, `not-run`, `error`).
    pub summary: BTreeMap<String, usize>,
    /// One entry per check of a testable clause (one per clause without a check), in spec order.
    pub clauses: Vec<ClauseResult>,
    /// The documentation clauses as the profile's reviewed `docs` links answer them (added to
    /// `kcontract-run/1`: absent in a report without a profile, an imported log's).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub documentation: Vec<DocResult>,
}

/// The platform a report is about.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Platform {
    /// The command that made the report: `local` (`platform run`: kcontract simulated the platform
    /// with an OCI runtime), `conformance-log` (`platform import-log`: a vendor's log), `verify`
    /// (`platform verify`: a deployed probe). Each entry's `route` says where it was decided.
    pub kind: String,
    /// `runc`, `crun`; the URL's host for `verify`.
    pub runtime: String,
    /// The runtime's version (`1.1.5+ds1`).
    pub runtime_version: String,
    /// The host (kernel, architecture, cgroup layout).
    pub host: String,
    /// The day of the run (UTC, `YYYY-MM-DD`).
    pub date: String,
    /// The profile judged against.
    pub profile: FileRef,
    /// The Service deployed.
    pub service: FileRef,
    /// The grace period used, in seconds.
    pub grace_period_s: u64,
    /// The profile's optional features.
    pub features: Vec<String>,
    /// The probe binary.
    pub probe: FileRef,
    /// kcontract's version.
    pub kcontract: String,
    /// The contract judged against.
    pub contract: ContractRef,
    /// The negative control the run applied (`null` for a real run).
    pub control: Option<String>,
}

/// `platform.kind` of a report read from a vendor's conformance log (`platform import-log`).
pub const LOG_KIND: &str = "conformance-log";

impl Platform {
    /// The route of the report's entries when they do not say (a report written before they
    /// carried it), from `kind`.
    pub fn route(&self) -> Option<Route> {
        Route::of_kind(&self.kind)
    }

    /// The report's column in the matrix: the runtime of a local run (`runc`), the platform's
    /// name of a vendor's log (`google-cloud-run`, given to `import-log`, which is the profile's
    /// name there: its runtime is only "knative conformance log").
    pub fn column_name(&self) -> &str {
        if self.kind == LOG_KIND {
            &self.profile.name
        } else {
            &self.runtime
        }
    }
}

/// A file a run used.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileRef {
    /// Its name (the profile's or Service's own, the probe's version).
    pub name: String,
    /// The path given (`null` for a built-in file).
    pub path: Option<String>,
    /// SHA-256 of its bytes, hexadecimal.
    pub sha256: String,
}

/// The contract a report was judged against.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ContractRef {
    /// Its title.
    pub title: String,
    /// Its version.
    pub version: String,
}

/// One clause's result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClauseResult {
    /// The clause id.
    pub id: String,
    /// Its level (`MUST`, …).
    pub level: String,
    /// Its stamp in the spec the run was judged against.
    pub stamp: String,
    /// The status.
    pub status: Status,
    /// The check's name (`null` when no check of this run decides it).
    pub check: Option<String>,
    /// The facts the check compared.
    pub evidence: Value,
    /// What was found, or why it was not run.
    pub message: String,
    /// Where it was decided, or would have been: `simulated` (a local run), `deployed` (verify),
    /// `vendor-log` (an imported log). Added within `kcontract-run/1`: absent from a report written
    /// before it, whose entries' route is the report's `platform.kind`'s ([`Platform::route`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub route: Option<Route>,
}

/// Whether a failing clause of this level fails the run (a MUST or MUST NOT).
pub fn blocks(level: &str) -> bool {
    matches!(level, "MUST" | "MUST NOT")
}

/// The SHA-256 of `bytes`, hexadecimal.
pub fn sha256(bytes: &[u8]) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The entries of a local run (the simulated route) for `spec`'s testable clauses: each simulated
/// check's verdict (`verdicts`, keyed by the check's clause and name), `not-run` with the reason for
/// a clause no simulated check decides.
pub fn clause_results(
    spec: &Spec,
    verdicts: &BTreeMap<(String, String), Verdict>,
) -> Vec<ClauseResult> {
    let mut out = Vec::new();
    for c in spec.clauses.iter().filter(|c| !c.verify.is_untestable()) {
        let level = c.level.as_str().to_owned();
        let rows: Vec<_> = checks::for_clause_on(&c.id, Route::Simulated).collect();
        if rows.is_empty() {
            let message = if c.verify.as_str() == "model" {
                "decided by the model's tests and the differential runs against runc and crun \
                 (tests/suite/model_*.rs, tests/suite/differential.rs), not by a platform run"
            } else {
                "no simulated check: it needs the probe deployed on a real platform (platform \
                 verify), a lint of the Service, a vendor's log, or a person's review"
            };
            out.push(ClauseResult {
                id: c.id.clone(),
                level,
                stamp: c.stamp.clone(),
                status: Status::NotRun,
                check: None,
                evidence: Value::Null,
                message: message.to_owned(),
                route: Some(Route::Simulated),
            });
            continue;
        }
        for row in rows {
            let v = verdicts.get(&(row.clause.to_owned(), row.name.to_owned()));
            out.push(ClauseResult {
                id: c.id.clone(),
                level: level.clone(),
                stamp: c.stamp.clone(),
                status: v.map_or(Status::NotRun, |v| v.status),
                check: Some(row.name.to_owned()),
                evidence: v.map_or(Value::Null, |v| v.evidence.clone()),
                message: v
                    .map_or_else(|| "the check was not run".to_owned(), |v| v.message.clone()),
                route: Some(Route::Simulated),
            });
        }
    }
    out
}

/// The count per status.
pub fn summary(clauses: &[ClauseResult]) -> BTreeMap<String, usize> {
    let mut s: BTreeMap<String, usize> = [
        Status::Pass,
        Status::Fail,
        Status::NotApplicable,
        Status::NotRun,
        Status::Error,
    ]
    .iter()
    .map(|st| (st.as_str().to_owned(), 0))
    .collect();
    for c in clauses {
        *s.entry(c.status.as_str().to_owned()).or_default() += 1;
    }
    s
}

/// Whether the run passes: no MUST or MUST NOT clause failed or could not be checked.
pub fn passes(clauses: &[ClauseResult]) -> bool {
    !clauses
        .iter()
        .any(|c| blocks(&c.level) && matches!(c.status, Status::Fail | Status::Error))
}

/// Reads a run report: the file, as JSON, in this version's format. The reader of the matrix's
/// platform columns.
pub fn read(path: &Path) -> Result<Report, Diagnostic> {
    let text = crate::input::read_text(path, |e| {
        Diagnostic::error(
            "K1107",
            format!("cannot read the run report `{}`: {e}", path.display()),
        )
        .in_file(path)
        .help("give the file `kcontract platform run --report` wrote")
    })?;
    let not_a_report = |e: String| {
        Diagnostic::error(
            "K1107",
            format!("`{}` is not a run report: {e}", path.display()),
        )
        .in_file(path)
        .help("a run report is the JSON `kcontract platform run --report` writes (docs/run-report.schema.json)")
    };
    let value: Value = serde_json::from_str(&text).map_err(|e| not_a_report(e.to_string()))?;
    match value.get("format").and_then(Value::as_str) {
        Some(RUN_FORMAT) => {}
        Some(other) => {
            return Err(Diagnostic::error(
                "K1107",
                format!(
                    "`{}` is a `{other}` report; this kcontract reads `{RUN_FORMAT}`",
                    path.display()
                ),
            )
            .in_file(path)
            .help("run the report's platform again with this kcontract"));
        }
        None => return Err(not_a_report("it has no `format`".into())),
    }
    let report: Report = serde_json::from_value(value).map_err(|e| not_a_report(e.to_string()))?;
    if let Some((id, url, why)) = refused_url(&report) {
        return Err(not_a_report(format!(
            "the documentation link of `{id}` is not a web address ({why}): `{}`",
            kcontract_spec::diagnostic::shown(url)
        )));
    }
    Ok(report)
}

/// The first `documentation[].url` of `report` that [`kcontract_spec::url::judge`] refuses or
/// that is not an `http(s)` address (a profile's docs link must be one): the clause, the URL and
/// why. A report is written by `platform run` from a checked profile, but the file a build is given
/// may have been written by anyone, and the platforms page publishes the link.
fn refused_url(report: &Report) -> Option<(&str, &str, String)> {
    use kcontract_spec::url::{UrlKind, judge};
    report.documentation.iter().find_map(|d| {
        let url = d.url.as_deref()?;
        match judge(url) {
            Ok(UrlKind::Web) => None,
            Ok(_) => Some((d.id.as_str(), url, "not an http(s) address".to_owned())),
            Err(why) => Some((d.id.as_str(), url, why.to_string())),
        }
    })
}

/// A run report read for the matrix, with where its clause ids are in its file.
#[derive(Debug, Clone)]
pub struct Located {
    /// The report.
    pub report: Report,
    /// The file it was read from, in the source map given to [`load`].
    pub file: kcontract_spec::diagnostic::FileId,
    /// The byte range of each entry's `id` in the file (the string with its quotes), in the
    /// order of `report.clauses`.
    pub id_spans: Vec<std::ops::Range<usize>>,
}

/// Where the reader finds `format` and each clause's `id` in the text: borrowed slices of the
/// text itself ([`serde_json::value::RawValue`]), whose offsets are the positions (serde's
/// values carry none).
#[derive(Deserialize)]
struct Positions<'a> {
    #[serde(borrow, default)]
    format: Option<&'a serde_json::value::RawValue>,
    #[serde(borrow, default)]
    clauses: Option<Vec<IdPosition<'a>>>,
}

#[derive(Deserialize)]
struct IdPosition<'a> {
    #[serde(borrow, default)]
    id: Option<&'a serde_json::value::RawValue>,
}

/// The byte range of `part`, a slice of `text`, in `text`.
fn range_in(text: &str, part: &str) -> std::ops::Range<usize> {
    let start = (part.as_ptr() as usize).saturating_sub(text.as_ptr() as usize);
    start..start + part.len()
}

/// Reads the run report `path` into `sources` for the matrix's platform columns: every problem is
/// a K1107 at its `file:line:col` (JSON that does not parse, a `format` other than
/// [`RUN_FORMAT`], a field of the wrong shape), pushed to `diags`; `None` then. Only `path` is
/// read, and only inside its own folder (K0004 for a link leading out, a FIFO, a device).
pub fn load(
    path: &Path,
    sources: &mut kcontract_spec::diagnostic::SourceMap,
    diags: &mut Vec<Diagnostic>,
) -> Option<Located> {
    // Inside its own folder (`platforms/results/` when none is named): the boundary of platform
    // inputs (crate::input), refused with the chapter's diagnostic (K0004). Checked before the
    // read (which refuses FIFOs and devices itself), so a NUL byte or bad UTF-8 stays a report's
    // problem; a link swapped between the two is a writer racing the command, not a committed file.
    if let Err(e) = kcontract_spec::fsutil::inside(kcontract_spec::fsutil::given_folder(path), path)
        && kcontract_spec::fsutil::is_refusal(&e)
    {
        diags.push(kcontract_spec::io_error(path, &e));
        return None;
    }
    let fid = kcontract_spec::read_source(path, sources, diags)?;
    let file = sources.get(fid);
    parse_located(path, fid, file)
        .map_err(|d| diags.push(d))
        .ok()
}

/// [`load`] of a file already read.
fn parse_located(
    path: &Path,
    fid: kcontract_spec::diagnostic::FileId,
    file: &kcontract_spec::diagnostic::SourceFile,
) -> Result<Located, Diagnostic> {
    use kcontract_spec::diagnostic::Span;
    let text = file.text.as_str();
    // Not a report: the error at byte `at` (to the end of its character, on its line).
    let not_a_report = |at: usize, label: String| {
        let at = at.min(text.len());
        let end = text[at..]
            .chars()
            .next()
            .map_or(at, |c| at + c.len_utf8())
            .min(file.line_end(at))
            .max(at);
        Diagnostic::error("K1107", format!("`{}` is not a run report", path.display()))
            .at(Span::new(fid, at..end), label)
            .help(
                "a run report is the JSON `kcontract platform run --report` writes \
             (docs/run-report.schema.json)",
            )
    };
    // serde_json's message ends with the position, which the diagnostic shows.
    let json_error = |e: serde_json::Error| {
        let full = e.to_string();
        let suffix = format!(" at line {} column {}", e.line(), e.column());
        let message = full.strip_suffix(&suffix).unwrap_or(&full).to_owned();
        not_a_report(file.offset_of(e.line(), e.column()), message)
    };
    // serde reads a struct from an array too; a report is an object.
    let first = text.len() - text.trim_start().len();
    if !text[first..].starts_with('{') {
        return Err(not_a_report(first, "a run report is a JSON object".into()));
    }
    let positions: Positions = serde_json::from_str(text).map_err(json_error)?;
    let Some(format) = positions.format else {
        return Err(not_a_report(first, "it has no `format`".into()));
    };
    if serde_json::from_str::<&str>(format.get()).ok() != Some(RUN_FORMAT) {
        return Err(Diagnostic::error(
            "K1107",
            format!("`{}` is not a `{RUN_FORMAT}` report", path.display()),
        )
        .at(
            Span::new(fid, range_in(text, format.get())),
            format!("this kcontract reads `{RUN_FORMAT}`"),
        )
        .help(
            "run the report's platform again with this kcontract \
             (`kcontract platform run --report FILE`)",
        ));
    }
    let report: Report = serde_json::from_str(text).map_err(json_error)?;
    if let Some((id, url, why)) = refused_url(&report) {
        // The URL's place in the file: its JSON string (the first one, as written by serde).
        let quoted = serde_json::to_string(url).unwrap_or_default();
        let at = text.find(&quoted).unwrap_or(first);
        return Err(Diagnostic::error(
            "K1107",
            format!("`{}` is not a run report", path.display()),
        )
        .at(
            Span::new(fid, at..(at + quoted.len()).min(file.line_end(at)).max(at)),
            format!("the documentation link of `{id}` is not a web address: {why}"),
        )
        .help(
            "a documentation link is an http(s) address; write the run report again with \
             `kcontract platform run --report FILE`",
        ));
    }
    let id_spans = positions
        .clauses
        .unwrap_or_default()
        .iter()
        .map(|c| c.id.map_or(0..0, |id| range_in(text, id.get())))
        .collect();
    Ok(Located {
        report,
        file: fid,
        id_spans,
    })
}

/// How many clause ids a report may name that the contract does not have before the rest are
/// counted, not each shown: the terminal shows twenty of a kind anyway, and each shown one costs
/// a "did you mean" search over every clause.
pub const UNKNOWN_SHOWN: usize = 20;

/// The clause ids of a report the contract does not have: the first [`UNKNOWN_SHOWN`] distinct
/// ones with where they are, and how many distinct others there are.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Unknown<'r> {
    /// Each id and its byte range in the report's file, in the report's order.
    pub shown: Vec<(&'r str, std::ops::Range<usize>)>,
    /// Distinct unknown ids beyond those.
    pub more: usize,
}

/// The ids of `report` (read with its `id_spans`, [`Located`]) that `known` says the contract does not have, each asked once per entry
/// and counted once. Linear in the report: one `known` per entry and one hash insert per unknown
/// id, whatever their number (a report of 40,000 unknown ids once took 15 s, each given its own
/// diagnostic and "did you mean" search, and its position counted from the start of its line,
/// which in a one-line report is the whole file).
pub fn unknown_ids<'r>(
    report: &'r Report,
    id_spans: &[std::ops::Range<usize>],
    mut known: impl FnMut(&str) -> bool,
) -> Unknown<'r> {
    let mut seen = std::collections::HashSet::new();
    let mut out = Unknown::default();
    for (entry, span) in report.clauses.iter().zip(id_spans) {
        if known(&entry.id) || !seen.insert(entry.id.as_str()) {
            continue;
        }
        if out.shown.len() < UNKNOWN_SHOWN {
            out.shown.push((entry.id.as_str(), span.clone()));
        } else {
            out.more += 1;
        }
    }
    out
}

/// A documentation clause's status on a platform. The words (serde's and strum's the same) come
/// from this declaration.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, strum::IntoStaticStr)]
#[serde(rename_all = "lowercase")]
#[strum(serialize_all = "lowercase")]
pub enum DocStatus {
    /// A reviewed link, the review current.
    Documented,
    /// No link, a link without a review, or a stale review ([`Undocumented`]).
    Undocumented,
    /// The profile says the clause does not apply to the platform.
    #[serde(rename = "n/a")]
    #[strum(serialize = "n/a")]
    NotApplicable,
}

impl DocStatus {
    /// The name in the JSON, the table, the CSV and the site's data.
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

/// Why a clause is undocumented.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Undocumented {
    /// The profile has no link for it (or the report no `docs` at all: a conformance log).
    NoLink,
    /// A link no one has reviewed.
    NotReviewed,
    /// A review of another link or of another text of the clause.
    StaleReview,
}

/// One documentation clause in a run report.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DocResult {
    /// The clause id.
    pub id: String,
    /// The clause's stamp when judged.
    pub stamp: String,
    /// Its status.
    pub status: DocStatus,
    /// Why it is undocumented (`null` otherwise).
    pub undocumented: Option<Undocumented>,
    /// The link, when the profile gives one.
    pub url: Option<String>,
    /// The review, when one is recorded (stale or not).
    pub review: Option<DocReview>,
    /// A sentence for people.
    pub message: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The committed runc report with `n` entries of unknown ids added (each twice) after its own.
    fn with_unknown(n: usize) -> (kcontract_spec::diagnostic::SourceMap, Located, usize) {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../platforms/results/runc.json");
        let text = kcontract_spec::fsutil::read_text(&path).unwrap();
        let mut v: Value = serde_json::from_str(&text).unwrap();
        let clauses = v["clauses"].as_array_mut().unwrap();
        let own = clauses.len();
        let template = clauses[0].clone();
        for i in 0..n {
            for _ in 0..2 {
                let mut c = template.clone();
                c["id"] = format!("zz.unknown.c{i}").into();
                clauses.push(c);
            }
        }
        // One line, as `serde_json::to_string` writes it: the worst case for positions.
        let text = serde_json::to_string(&v).unwrap();
        let mut sources = kcontract_spec::diagnostic::SourceMap::default();
        let fid = sources.add(path.clone(), text);
        let located = parse_located(&path, fid, sources.get(fid)).unwrap();
        (sources, located, own)
    }

    /// 40,000 unknown ids (each named twice) cost one lookup per entry, and only the first
    /// [`UNKNOWN_SHOWN`] are kept to be shown (each a "did you mean" search and a position); the
    /// rest are counted. The control: the report's own ids, all known, give nothing.
    #[test]
    fn unknown_ids_are_found_in_one_lookup_per_entry() {
        let n = 40_000;
        let (sources, located, own) = with_unknown(n);
        let mut lookups = 0usize;
        let unknown = unknown_ids(&located.report, &located.id_spans, |id| {
            lookups += 1;
            !id.starts_with("zz.")
        });
        assert_eq!(lookups, own + 2 * n);
        assert_eq!(unknown.shown.len(), UNKNOWN_SHOWN);
        assert_eq!(unknown.more, n - UNKNOWN_SHOWN);
        assert_eq!(unknown.shown[0].0, "zz.unknown.c0");
        assert_eq!(unknown.shown[1].0, "zz.unknown.c1");
        let file = sources.get(located.file);
        let (id, span) = &unknown.shown[0];
        assert_eq!(&file.text[span.clone()], format!("\"{id}\""));
        let none = unknown_ids(&located.report, &located.id_spans, |_| true);
        assert_eq!(none, Unknown::default());
    }
}
