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
    #[arg(required_unless_present_any = ["all", "rename"], conflicts_with_all = ["all", "rename"])]
    ids: Vec<String>,
    /// Re-stamp every suspect test and every real test without a stamp (after reviewing them all).
    #[arg(long, conflicts_with = "rename")]
    all: bool,
    /// Re-point every claim of OLD (a clause removed or renamed) at NEW, keeping its stamp: the
    /// test is then current if NEW's text is the one it was reviewed against, else suspect.
    #[arg(long, num_args = 2, value_names = ["OLD", "NEW"])]
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

impl Review {
    pub(crate) fn run(self, ctx: &Ctx) -> Outcome {
        let setup = self.tests.setup(ctx, false)?;
        let ctx = &setup.ctx.writing("nothing was re-stamped");
        let mut stages = Stages::new(ctx);
        let loaded = stages.spec(LoadOptions::default(), Show::AllButTranslationState)?;
        let spec = &loaded.spec;
        setup.check_config(spec)?;
        if let [old, new] = self.rename.as_slice() {
            return rename(ctx, &mut stages, spec, &setup.at, old, new);
        }
        if let Some(id) = self.ids.iter().find(|id| spec.clause(id).is_none()) {
            return Err(unknown(ctx, spec, id));
        }
        let scan = stages.tests(spec, &setup.at)?;
        let target = if self.all {
            ReviewTarget::All
        } else {
            ReviewTarget::Ids(self.ids)
        };
        let docs = stale_docs(spec, &scan);
        let done = annotations::restamp(spec, &scan.tests, &scan.sources, &target, &docs)
            .map_err(|d| ctx.fail(&d, &scan.sources, "error: the files before it were re-stamped; this one and those after it were not"))?;
        let mut s = String::new();
        for (file, test, id) in &done {
            s.push_str(&format!(
                "reviewed {test} against {id} in {}\n",
                file.display()
            ));
        }
        s.push_str(&format!(
            "{} claim{} re-stamped\n",
            done.len(),
            plural(done.len())
        ));
        print(&s)
    }
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

/// `review --rename OLD NEW`: every `Clause: OLD` line becomes `Clause: NEW`, its stamp kept.
fn rename(
    ctx: &Ctx,
    stages: &mut Stages,
    spec: &Spec,
    at: &crate::pipeline::TestsAt,
    old: &str,
    new: &str,
) -> Outcome {
    if spec.clause(new).is_none() {
        return Err(unknown(ctx, spec, new));
    }
    let (scan, stale) = stages.tests_keeping_stale(spec, at)?;
    // Stale claims of other ids still stop the command: they need a decision of their own.
    let olds: Vec<&kcontract_spec::diagnostic::Span> = scan
        .tests
        .iter()
        .flat_map(|t| t.unknown.iter().filter(|k| k.id == old).map(|k| &k.span))
        .collect();
    let others: Vec<kcontract_spec::diagnostic::Diagnostic> = stale
        .into_iter()
        .filter(|d| d.span.as_ref().is_none_or(|s| !olds.contains(&s)))
        .collect();
    ctx.report(&others, &scan.sources)?;
    let done = annotations::repoint(&scan.tests, &scan.sources, old, new).map_err(|d| {
        ctx.fail(
            &d,
            &scan.sources,
            "error: the files before it were changed; this one and those after it were not",
        )
    })?;
    if done.is_empty() {
        return Err(ctx.usage(
            &format!("no test claims `{old}`"),
            "`kcontract matrix` lists the stale claims, and `kcontract check` the K0501 errors naming them",
        ));
    }
    let mut s = String::new();
    for (file, test, _) in &done {
        s.push_str(&format!(
            "re-pointed {test} from {old} to {new} in {}\n",
            file.display()
        ));
    }
    s.push_str(&format!(
        "{} claim{} re-pointed\n",
        done.len(),
        plural(done.len())
    ));
    print(&s)
}
