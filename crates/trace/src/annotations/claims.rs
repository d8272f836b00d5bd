//! Whether a `Clause:` line on a test names a clause: a well-formed id (K0502) that the contract has
//! (K0501, with the nearest id as a "did you mean").

use kcontract_spec::diagnostic::{Diagnostic, FileId, Span};
use kcontract_spec::{Spec, check_id};

use super::sites::Site;

/// What an annotation's id is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Validity {
    /// A clause of the contract.
    Known,
    /// A well-formed id that is not (or no longer) in the contract: a stale claim (K0501).
    Unknown,
    /// Not an id (K0502).
    Malformed,
}

/// Check one annotation's id: well-formed (K0502 otherwise) and existing (K0501, whose hint names
/// the clause that now has the text the test was reviewed against, if one has: a renamed clause
/// keeps its stamp, and `review` is the command, with its options, that re-points the test).
pub(super) fn validate_claim(
    spec: &Spec,
    s: &Site,
    fid: FileId,
    diags: &mut Vec<Diagnostic>,
    review: &str,
) -> Validity {
    let span = if s.id.is_empty() {
        Span::new(fid, s.marker_range.clone())
    } else {
        Span::new(fid, s.id_range.clone())
    };
    if s.id.is_empty() {
        diags.push(
            Diagnostic::error("K0502", "`Clause:` without a clause id")
                .at(span, "expected a clause id after this")
                .help("write one id per line, e.g. `/// Clause: lifecycle.sigterm-on-kill` (`kcontract list` shows them all)"),
        );
        return Validity::Malformed;
    }
    if s.id.split_whitespace().count() > 1 || s.id.contains(',') {
        diags.push(
            Diagnostic::error(
                "K0502",
                format!("`Clause: {}` names more than one id", s.id),
            )
            .at(span, "one id per `Clause:` line")
            .help("put each clause on its own `/// Clause: <id>` line"),
        );
        return Validity::Malformed;
    }
    if let Err(e) = check_id(&s.id) {
        diags.push(
            Diagnostic::error(
                "K0502",
                format!(
                    "malformed clause id `{}` in an annotation",
                    kcontract_spec::diagnostic::shown(&s.id)
                ),
            )
            .at(span, "not a clause id")
            .help(format!("{e}")),
        );
        return Validity::Malformed;
    }
    if spec.clause(&s.id).is_none() {
        let help = match renamed_to(spec, s.stamp.as_deref()) {
            Some(new) => format!(
                "`{new}` has the text this test was reviewed against (the same stamp): the clause was renamed; run `{review} --rename {} {new}` to re-point the test",
                s.id
            ),
            None => match closest(spec, &s.id) {
            Some(near) => format!("did you mean `{near}`? If the clause was removed from the contract, remove or re-point this annotation"),
            None => "`kcontract list` shows every clause id; if the clause was removed from the contract, remove or re-point this annotation".to_string(),
            },
        };
        diags.push(
            Diagnostic::error("K0501", format!("no clause `{}` in the contract", s.id))
                .at(span, "unknown clause id")
                .help(help),
        );
        return Validity::Unknown;
    }
    Validity::Known
}

/// The clause whose stamp is the one recorded on a claim of an id the contract lacks: where the
/// clause went when it was renamed (a rename keeps its text, so its stamp).
pub fn renamed_to<'a>(spec: &'a Spec, stamp: Option<&str>) -> Option<&'a str> {
    let stamp = stamp?;
    spec.clauses
        .iter()
        .find(|c| c.stamp == stamp)
        .map(|c| c.id.as_str())
}

/// The clause id nearest to `id` by edit distance, if it is close enough to be a typo.
pub fn closest<'a>(spec: &'a Spec, id: &str) -> Option<&'a str> {
    kcontract_spec::suggest::closest(id, spec.by_id.keys().map(String::as_str), |k| {
        3.max(k.len() / 6)
    })
}
