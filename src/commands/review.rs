//! `kcontract review`: record that tests were reviewed against their clauses' current text, by
//! writing the clause's stamp on their `Clause:` lines (`/// Clause: <id> @ <stamp>`). Suspect tests
//! (`check`, `matrix`) are cleared this way, after a person has looked at them. `--rename OLD NEW`
//! re-points the claims of a renamed clause (K0501 names the new id when the stamps agree).

use crate::pipeline::{Show, Stages};
use crate::terminal::{Ctx, Failure, Outcome, plural, print};
use kcontract_spec::LoadOptions;
use kcontract_spec::Spec;
use kcontract_trace::annotations::{self, ReviewTarget};

/// Record that the tests claiming these clauses were reviewed against the current clause text.
#[derive(clap::Args, Debug)]
pub(crate) struct Review {
    /// Clause ids whose tests were reviewed.
    #[arg(required_unless_present_any = ["all", "rename"], conflicts_with = "all")]
    ids: Vec<String>,
    /// Re-stamp every suspect test and every real test without a stamp (after reviewing them all),
    /// and re-point every claim of a renamed clause (one whose stamp is a current clause's).
    #[arg(long)]
    all: bool,
    /// Re-point every claim of OLD (a clause removed or renamed) at NEW, keeping its stamp: the
    /// test is then current if NEW's text is the one it was reviewed against, else suspect
    /// (repeatable: `--rename A A2 --rename B B2`).
    #[arg(long, num_args = 2, value_names = ["OLD", "NEW"], action = clap::ArgAction::Append)]
    rename: Vec<String>,
    #[command(flatten)]
    tests: crate::commands::tests_flags::TestsFlags,
}

/// A usage error for an id the contract lacks, with the nearest one.
pub(crate) fn unknown(ctx: &Ctx, spec: &Spec, id: &str) -> Failure {
    let help =
        match kcontract_spec::suggest::closest(id, spec.by_id.keys().map(String::as_str), |k| {
            3.max(k.len() / 6)
        }) {
            Some(near) => format!("did you mean `{near}`? (`kcontract list` shows every id)"),
            None => "`kcontract list` shows every clause id".to_string(),
        };
    ctx.usage(&format!("no clause `{id}` in the contract"), &help)
}

/// [`unknown`], but for an id some test still claims and whose stamp is a current clause's: the
/// clause was renamed, and the hint is the `--rename` that re-points its claims (a `review` of the
/// new id would find no test to re-stamp).
fn unknown_or_renamed(
    ctx: &Ctx,
    spec: &Spec,
    scan: &annotations::Scan,
    at: &crate::pipeline::TestsAt,
    id: &str,
) -> Failure {
    let pairs = renamed_pairs(
        spec,
        scan.tests
            .iter()
            .flat_map(|t| &t.unknown)
            .filter(|k| k.id == id)
            .map(|k| (k.id.as_str(), k.stamp.as_deref())),
    );
    match pairs.first() {
        Some((_, new)) => ctx.usage(
            &format!("no clause `{id}` in the contract"),
            &format!(
                "it was renamed `{new}` (its tests were reviewed against that text): run `{}` to re-point them",
                rename_command(at, &pairs)
            ),
        ),
        None => unknown(ctx, spec, id),
    }
}

impl Review {
    pub(crate) fn run(self, ctx: &Ctx) -> Outcome {
        let setup = self.tests.setup_for_authors(ctx, false)?;
        let ctx = &setup.ctx.writing("nothing was re-stamped");
        let mut stages = Stages::new(ctx);
        let loaded = stages.spec(LoadOptions::default(), Show::AllButTranslationState)?;
        let spec = &loaded.spec;
        setup.check_config(spec)?;
        let renames: Vec<(String, String)> = self
            .rename
            .chunks(2)
            .map(|p| (p[0].clone(), p[1].clone()))
            .collect();
        if let Some(id) = renames
            .iter()
            .map(|(_, new)| new)
            .find(|id| spec.clause(id).is_none())
        {
            return Err(unknown(ctx, spec, id));
        }
        // Claims of ids the contract lacks never stop a review: each is resolved on its own.
        let (scan, stale) = stages.tests_keeping_stale(spec, &setup.at)?;
        if let Some(id) = self.ids.iter().find(|id| spec.clause(id).is_none()) {
            return Err(unknown_or_renamed(ctx, spec, &scan, &setup.at, id));
        }
        if let Some((old, _)) = renames.iter().find(|(old, _)| {
            !scan
                .tests
                .iter()
                .any(|t| t.claims.iter().chain(&t.unknown).any(|k| k.id == *old))
        }) {
            return Err(ctx.usage(
                &format!("no test claims `{old}`"),
                "`kcontract matrix` lists the stale claims, and `kcontract check` the K0501 errors naming them",
            ));
        }
        let target = if self.all {
            ReviewTarget::All
        } else {
            ReviewTarget::Ids(self.ids)
        };
        let docs = stale_docs(spec, &scan);
        let done = annotations::review(spec, &scan.tests, &scan.sources, &target, &renames, &docs)
            .map_err(|d| {
                ctx.fail(
                    &d,
                    &scan.sources,
                    "error: the files before it were changed; this one and those after it were not",
                )
            })?;
        print(&summary(&done))?;
        let repointed: Vec<&str> = done.repointed.iter().map(|r| r.2.as_str()).collect();
        left_stale(&setup, spec, &scan, stale, &repointed, self.all)
    }
}

/// What a review did, one line a claim, then the counts.
fn summary(done: &annotations::Reviewed) -> String {
    let mut s = String::new();
    for (file, test, old, new) in &done.repointed {
        s.push_str(&format!(
            "re-pointed {test} from {old} to {new} in {}\n",
            file.display()
        ));
    }
    for (file, test, id) in &done.restamped {
        s.push_str(&format!(
            "reviewed {test} against {id} in {}\n",
            file.display()
        ));
    }
    if !done.repointed.is_empty() {
        s.push_str(&format!(
            "{} claim{} re-pointed\n",
            done.repointed.len(),
            plural(done.repointed.len())
        ));
    }
    if !done.restamped.is_empty() || done.repointed.is_empty() {
        s.push_str(&format!(
            "{} claim{} re-stamped\n",
            done.restamped.len(),
            plural(done.restamped.len())
        ));
    }
    s
}

/// The stale claims this review left: after `--all`, those it could not re-point (no current
/// clause has their stamp) are the K0501 errors they are, so the command fails after doing the
/// rest; otherwise a note counts them with the command that re-points the renamed ones.
fn left_stale(
    setup: &crate::commands::tests_flags::Setup,
    spec: &Spec,
    scan: &annotations::Scan,
    stale: Vec<kcontract_spec::diagnostic::Diagnostic>,
    repointed: &[&str],
    all: bool,
) -> Outcome {
    let left: Vec<&annotations::Claim> = scan
        .tests
        .iter()
        .flat_map(|t| &t.unknown)
        .filter(|k| !repointed.contains(&k.id.as_str()))
        .collect();
    if left.is_empty() {
        return Ok(());
    }
    if all {
        let spans: Vec<&kcontract_spec::diagnostic::Span> = left.iter().map(|k| &k.span).collect();
        let errors: Vec<_> = stale
            .into_iter()
            .filter(|d| d.span.as_ref().is_some_and(|s| spans.contains(&s)))
            .collect();
        let ctx = setup.ctx.writing("the claims listed above were changed");
        return ctx.report(&errors, &scan.sources);
    }
    let pairs = renamed_pairs(
        spec,
        left.iter().map(|k| (k.id.as_str(), k.stamp.as_deref())),
    );
    let mut note = format!(
        "note: {} claim{} of ids the contract no longer has {} left (`{}` lists them)",
        left.len(),
        plural(left.len()),
        if left.len() == 1 { "is" } else { "are" },
        setup.at.command("check")
    );
    if !pairs.is_empty() {
        note.push_str(&format!(
            "; `{}` re-points the renamed ones",
            rename_command(&setup.at, &pairs)
        ));
    }
    eprintln!("{note}");
    Ok(())
}

/// The distinct `(OLD, NEW)` of stale claims whose stamp is a current clause's, in claim order.
fn renamed_pairs<'a>(
    spec: &Spec,
    claims: impl Iterator<Item = (&'a str, Option<&'a str>)>,
) -> Vec<(String, String)> {
    let mut pairs: Vec<(String, String)> = Vec::new();
    for (id, stamp) in claims {
        if let Some(new) = annotations::renamed_to(spec, stamp)
            && !pairs.iter().any(|(o, _)| o == id)
        {
            pairs.push((id.to_string(), new.to_string()));
        }
    }
    pairs
}

/// `kcontract … review --rename A A2 --rename B B2 …` with the options of this run.
fn rename_command(at: &crate::pipeline::TestsAt, pairs: &[(String, String)]) -> String {
    let mut cmd = at.command("review");
    for (old, new) in pairs {
        cmd.push_str(&format!(" --rename {old} {new}"));
    }
    cmd
}

/// For the matrix, after its K0501 errors: when two or more renamed clauses are claimed, the one
/// command that re-points them all (each K0501's hint names its own pair).
pub(crate) fn rename_all_hint(
    m: &kcontract_trace::matrix::Matrix,
    at: &crate::pipeline::TestsAt,
) -> Option<String> {
    let pairs = renamed_pairs(
        m.spec,
        m.stale
            .iter()
            .flat_map(|st| st.test.unknown.iter().filter(|k| k.id == st.id))
            .map(|k| (k.id.as_str(), k.stamp.as_deref())),
    );
    (pairs.len() > 1).then(|| {
        format!(
            "`{}` re-points the {} renamed clauses' claims in one run",
            rename_command(at, &pairs),
            pairs.len()
        )
    })
}

/// The generated doc comments of the scanned tests that still show an older text of their clause
/// (`kcontract_trace::scaffold::stale_doc`), keyed by the test's name.
fn stale_docs(
    spec: &Spec,
    scan: &annotations::Scan,
) -> Vec<(
    kcontract_spec::diagnostic::Span,
    std::ops::Range<usize>,
    String,
)> {
    let mut out = Vec::new();
    let mut files: Vec<kcontract_spec::diagnostic::FileId> =
        scan.tests.iter().map(|t| t.name_span.file).collect();
    files.dedup();
    for fid in files {
        let text = &scan.sources.get(fid).text;
        let Ok(syntax) = annotations::parse_source(text) else {
            continue;
        };
        for f in syntax.fns.iter().filter(|f| f.is_test()) {
            if let Some((range, block)) =
                kcontract_trace::scaffold::stale_doc(text, &syntax, f, spec)
            {
                out.push((
                    kcontract_spec::diagnostic::Span::new(fid, f.name_range.clone()),
                    range,
                    block,
                ));
            }
        }
    }
    out
}
