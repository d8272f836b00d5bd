//! `kcontract list`: every clause, as a table or as the stable JSON interface.

use crate::pipeline::{Show, Stages};
use crate::terminal::{Ctx, Outcome, print};
use kcontract_spec::LoadOptions;

/// List every clause.
#[derive(clap::Args, Debug)]
pub(crate) struct List {
    #[arg(long, default_value = "table")]
    format: ListFormat,
}

#[derive(Clone, Copy, Debug, clap::ValueEnum)]
enum ListFormat {
    Table,
    Json,
}

impl List {
    pub(crate) fn run(self, ctx: &Ctx) -> Outcome {
        let ctx = &crate::commands::tests_flags::or_built_in(ctx.clone());
        let loaded = Stages::new(ctx).spec(LoadOptions::default(), Show::All)?;
        let text = match self.format {
            ListFormat::Table => kcontract_spec::list::table(&loaded.spec),
            ListFormat::Json => kcontract_spec::list::json(&loaded.spec)
                .map_err(|e| ctx.output_failed("the clause list as JSON", &e))?,
        };
        print(&text)
    }
}
