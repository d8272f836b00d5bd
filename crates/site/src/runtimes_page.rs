//! The "Runtimes vs the spec" page's context (`rt` of `runtimes.html`): the deviations catalogue
//! in the page's language, Markdown rendered, traces as pretty JSON, observed output one line per
//! line.
//!
//! The catalogue holds English text and a Chinese translation in `*_zh` fields; a page in any other
//! language shows the English.

use serde_json::{Value, json};

use super::markdown::{to_html, to_inline_html};
use kcontract_oci::runtimes::{Catalogue, Observed};
use kcontract_spec::diagnostic::Diagnostic;

/// The catalogue's own translation language (its `*_zh` fields).
const CATALOGUE_TRANSLATION: &str = "zh";

pub(super) fn context(rt: &Catalogue, lang: &str) -> Result<Value, Diagnostic> {
    let translated = lang == CATALOGUE_TRANSLATION;
    let pick = |en: &str, tr: &str| {
        if translated {
            tr.to_string()
        } else {
            en.to_string()
        }
    };
    let lines = |lines: &[String], comparable: &[String]| {
        if lines.is_empty() {
            comparable.join("\n")
        } else {
            lines.join("\n")
        }
    };
    let observed = |o: &[Observed]| {
        o.iter()
            .map(|o| json!({"runtime": o.runtime, "lines": lines(&o.lines, &o.comparable)}))
            .collect::<Vec<_>>()
    };
    let mut deviations = Vec::with_capacity(rt.deviations.len());
    for d in &rt.deviations {
        let note = match (&d.note, &d.note_zh) {
            (Some(en), Some(tr)) => Some(to_html(&pick(en, tr))),
            (Some(en), None) => Some(to_html(en)),
            _ => None,
        };
        deviations.push(json!({
            "id": d.id,
            "title_html": to_inline_html(&pick(&d.title, &d.title_zh)),
            "summary_html": to_html(&pick(&d.summary, &d.summary_zh)),
            "note_html": note,
            "source": d.spec.source,
            "versions": d.spec.versions.join(", "),
            "sentence_html": to_inline_html(&d.spec.sentence),
            "runtimes": d.runtimes.iter().map(|r| format!("{} {}", r.name, r.version)).collect::<Vec<_>>().join(", "),
            "breaks": d.breaks,
            "trace": pretty(&d.trace, &d.id)?,
            "expected_version": d.expected.version,
            "expected": lines(&d.expected.lines, &d.expected.comparable),
            "observed": observed(&d.observed),
        }));
    }
    let mut hooks = Vec::with_capacity(rt.hooks.traces.len());
    for h in &rt.hooks.traces {
        hooks.push(json!({
            "id": h.id,
            "title_html": to_inline_html(&pick(&h.title, &h.title_zh)),
            "trace": pretty(&h.trace, &h.id)?,
            "expected": h.expected.iter().map(|e| json!({"version": e.version, "lines": lines(&e.lines, &e.comparable)})).collect::<Vec<_>>(),
            "observed": observed(&h.observed),
        }));
    }
    Ok(json!({
        "host": rt.measured.host,
        "runtimes": rt.measured.runtimes,
        "differential": rt.measured.differential,
        "deviations": deviations,
        "hooks_summary_html": to_html(&pick(&rt.hooks.summary, &rt.hooks.summary_zh)),
        "hooks": hooks,
    }))
}

/// A trace as pretty JSON; failing to write one is reported, not shown as an empty trace.
fn pretty(trace: &Value, id: &str) -> Result<String, Diagnostic> {
    serde_json::to_string_pretty(trace).map_err(|e| {
        Diagnostic::error(
            "K0701",
            format!("the trace of `{id}` in runtimes/deviations.yaml cannot be written as JSON"),
        )
        .help(format!("{e}"))
    })
}
