//! `kcontract review`: record that tests were reviewed against their clauses' current text, by
//! writing the clause's stamp on their `Clause:` lines (`/// Clause: <id> @ <stamp>`). Suspect tests
//! (`check`, `matrix`) are cleared this way, after a person has looked at them.

use crate::annotations::{self, ReviewTarget};
use crate::pipeline::{Show, Stages};
use crate::spec_source::LoadOptions;
use crate::terminal::{Ctx, Outcome, plural, print};

/// Record that the tests claiming these clauses were reviewed against the current clause text.
#[derive(clap::Args, Debug)]
pub(crate) struct Review {
    /// Clause ids whose tests were reviewed.
    #[arg(required_unless_present = "all", conflicts_with = "all")]
    ids: Vec<String>,
    /// Re-stamp every suspect test and every real test without a stamp (after reviewing them all).
    #[arg(long)]
    all: bool,
    #[command(flatten)]
    tests: crate::commands::tests_flags::TestsFlags,
}

impl Review {
    pub(crate) fn run(self, ctx: &Ctx) -> Outcome {
        let ctx = &ctx.writing("nothing was re-stamped");
        let mut stages = Stages::new(ctx);
        let loaded = stages.spec(LoadOptions::default(), Show::AllButTranslationState)?;
        let spec = &loaded.spec;
        for id in &self.ids {
            if spec.clause(id).is_none() {
                let help =
                    match crate::suggest::closest(id, spec.by_id.keys().map(String::as_str), |k| {
                        3.max(k.len() / 6)
                    }) {
                        Some(near) => {
                            format!("did you mean `{near}`? (`kcontract list` shows every id)")
                        }
                        None => "`kcontract list` shows every clause id".to_string(),
                    };
                return Err(ctx.usage(&format!("no clause `{id}` in the contract"), &help));
            }
        }
        let scan = stages.tests(spec, &self.tests.at(ctx, false)?)?;
        let target = if self.all {
            ReviewTarget::All
        } else {
            ReviewTarget::Ids(self.ids)
        };
        let done = annotations::restamp(spec, &scan.tests, &scan.sources, &target)
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
