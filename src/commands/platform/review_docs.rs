//! `kcontract platform review-docs`: the clause must be a documentation clause of the spec and the
//! profile must link it; the entry is rewritten on its line as `{url: …, reviewed: {by, date,
//! stamp}}` (the profile read back first, so a file that would not load is never written). Exit 1
//! when there is no link to review (K1136) or the profile is wrong, 2 for a clause that is not a
//! documentation clause, a name that is not one line or a date that is not one.

use std::path::PathBuf;

use super::shared::{fail, load_contract, today};
use crate::terminal::{Ctx, Failure, Outcome, print};
use kcontract_platform::docs;
use kcontract_platform::profile::{self, DocLink, DocReview, Profile};
use kcontract_spec::Clause;
use kcontract_spec::diagnostic::{Diagnostic, FileId, SourceMap};

#[derive(clap::Args, Debug)]
pub(crate) struct ReviewDocsArgs {
    /// The documentation clause whose link you reviewed.
    #[arg(value_name = "CLAUSE")]
    clause: String,
    /// The platform profile whose `docs:` holds the link; the review is written into it.
    #[arg(long, value_name = "FILE")]
    profile: PathBuf,
    /// Your name, as the review records it.
    #[arg(long, value_name = "NAME")]
    by: String,
    /// The day of the review (YYYY-MM-DD; default: today, UTC).
    #[arg(long, value_name = "DATE")]
    date: Option<String>,
}

impl ReviewDocsArgs {
    /// Runs the command, after checking the name and the date.
    pub(super) fn run(self, ctx: &Ctx) -> Outcome {
        if self.by.trim().is_empty() || self.by.contains(['\n', '\r']) {
            return Err(ctx.usage(
                "--by needs a name on one line",
                "give the reviewer's name, e.g. --by \"Ada Lovelace\"",
            ));
        }
        if let Some(d) = &self.date
            && !profile::is_date(d)
        {
            return Err(ctx.usage(
                &format!("--date {d} is not a date YYYY-MM-DD"),
                "give the day of the review, e.g. --date 2026-11-27, or leave it out for today",
            ));
        }
        review_docs(ctx, &self)
    }
}

/// The command's steps: the clause, the profile, its link, the rewritten entry checked, written.
fn review_docs(ctx: &Ctx, args: &ReviewDocsArgs) -> Outcome {
    let (loaded, _) = load_contract(ctx)?;
    let spec = &loaded.spec;
    let Some(clause) = spec.clause(&args.clause) else {
        return Err(crate::commands::review::unknown(ctx, spec, &args.clause));
    };
    if !docs::is_documentation(clause) {
        return Err(ctx.usage(
            &format!(
                "`{}` is not a documentation clause: a check, a log or a person's test decides it",
                clause.id
            ),
            "the documentation clauses are those with `route_reason: documentation` in `kcontract matrix --format json`",
        ));
    }
    let mut sources = SourceMap::default();
    let file = kcontract_platform::yaml::read(&args.profile, &mut sources, "K1101")
        .map_err(|d| ctx.report(&[d], &sources).err().unwrap_or(Failure::Input))?;
    let profile = profile::parse(file, &sources)
        .map_err(|d| ctx.report(&d, &sources).err().unwrap_or(Failure::Input))?;
    let url = link(args, clause, &profile).map_err(|d| fail(ctx, d))?;
    let review = DocReview {
        by: args.by.trim().to_owned(),
        date: args.date.clone().unwrap_or_else(today),
        stamp: docs::stamp(clause, &url),
    };
    let new_text = rewritten(ctx, args, clause, (file, &sources), &url, &review)?;
    let shown = args.profile.display();
    kcontract_spec::fsutil::write_atomic(&args.profile, new_text.as_bytes()).map_err(|e| {
        fail(
            ctx,
            cannot(args, format!("cannot write `{shown}`: {e}"))
                .help("check the file's permissions; nothing was written"),
        )
    })?;
    print(&format!(
        "reviewed the docs link of {} by {} on {}: {url} (stamp {}) in {shown}\n",
        clause.id, review.by, review.date, review.stamp
    ))
}

/// A K1136 error about the profile.
fn cannot(args: &ReviewDocsArgs, message: String) -> Diagnostic {
    Diagnostic::error("K1136", message).in_file(&args.profile)
}

/// The link the profile gives `clause`, or why there is none to review (K1136).
fn link(args: &ReviewDocsArgs, clause: &Clause, profile: &Profile) -> Result<String, Diagnostic> {
    let shown = args.profile.display();
    match profile.docs.get(&clause.id) {
        Some(DocLink::Link { url, .. }) => Ok(url.clone()),
        Some(DocLink::NotApplicable(_)) => Err(cannot(
            args,
            format!(
                "`{shown}` says `{}` is not applicable: there is no link to review",
                clause.id
            ),
        )
        .help("to review a link instead, write `CLAUSE: URL` under `docs:`")),
        None => Err(cannot(
            args,
            format!("`{shown}` has no docs link for `{}`", clause.id),
        )
        .help(format!(
            "add the page of the platform's documentation under `docs:`, `{}: https://…`, then review it",
            clause.id
        ))),
    }
}

/// The profile's text with the clause's entry rewritten as reviewed, once it is known to load and
/// to judge the clause documented; else the command's end (K1136: nothing is written).
fn rewritten(
    ctx: &Ctx,
    args: &ReviewDocsArgs,
    clause: &Clause,
    (file, sources): (FileId, &SourceMap),
    url: &str,
    review: &DocReview,
) -> Result<String, Failure> {
    let Some(span) = profile::doc_entry_span(file, sources, &clause.id) else {
        return Err(Failure::Input);
    };
    let text = &sources.get(file).text;
    let new_text = docs::rewrite_entry(text, span.range.start, &docs::reviewed_entry(url, review))
        .map_err(|e| {
            ctx.report(&[e.diagnostic(&clause.id, span.clone())], sources)
                .err()
                .unwrap_or(Failure::Input)
        })?;
    // The new text must load and judge the clause documented before it replaces the file.
    let mut check = SourceMap::default();
    let cid = check.add(args.profile.clone(), new_text.clone());
    let judged = profile::parse(cid, &check)
        .ok()
        .map(|p| docs::judge(clause, p.docs.get(&clause.id)).status);
    if judged != Some(docs::DocStatus::Documented) {
        return Err(fail(
            ctx,
            cannot(
                args,
                format!(
                    "the review could not be written into `{}` without breaking it; nothing was written",
                    args.profile.display()
                ),
            )
            .help("write the entry on one line, `CLAUSE: URL` or `CLAUSE: {url: URL}`, then review it"),
        ));
    }
    Ok(new_text)
}
