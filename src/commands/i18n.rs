//! `kcontract i18n`: translation status, and review stamps written into the translated files.

use crate::i18n::StampTarget;
use crate::pipeline::{Show, Stages};
use crate::spec_source::LoadOptions;
use crate::terminal::{Ctx, Outcome, print};

/// Translation status and review stamps.
#[derive(clap::Subcommand, Debug)]
pub(crate) enum I18n {
    /// Per-chapter counts of current, stale and missing translations.
    Status,
    /// Record that translations were reviewed against the current source text.
    Stamp {
        /// Clause ids whose translations were reviewed.
        #[arg(
            required_unless_present = "all_reviewed",
            conflicts_with = "all_reviewed"
        )]
        ids: Vec<String>,
        /// Re-stamp every stale translation (after reviewing them all).
        #[arg(long)]
        all_reviewed: bool,
    },
}

impl I18n {
    pub(crate) fn run(self, ctx: &Ctx) -> Outcome {
        let ctx = &match self {
            I18n::Status => ctx.clone(),
            I18n::Stamp { .. } => ctx.writing("nothing was stamped"),
        };
        // These commands report translation state themselves.
        let loaded = Stages::new(ctx).spec(LoadOptions::default(), Show::AllButTranslationState)?;
        let target = match self {
            I18n::Status => return print(&crate::i18n::status(&loaded.spec)),
            I18n::Stamp {
                all_reviewed: true, ..
            } => StampTarget::AllReviewed,
            I18n::Stamp { ids, .. } => StampTarget::Ids(ids),
        };
        match crate::i18n::stamp_clauses(&loaded.spec, &loaded.sources, &target) {
            Ok(done) => {
                let mut s = String::new();
                for (file, id) in &done {
                    s.push_str(&format!("stamped {id} in {}\n", file.display()));
                }
                s.push_str(&format!("{} translation(s) stamped\n", done.len()));
                print(&s)
            }
            Err(d) => Err(ctx.fail(&d, &loaded.sources, "error: nothing was stamped")),
        }
    }
}
