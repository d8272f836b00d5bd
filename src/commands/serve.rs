//! `kcontract serve`: the site on 127.0.0.1 with live reload, for spec editors (`crate::serve`).

use std::path::PathBuf;

use crate::serve::{self, Options};
use crate::terminal::{Ctx, Outcome};

/// Serve the site on 127.0.0.1, rebuild it when the spec, templates or tests change, and reload
/// the open pages; errors are shown in the terminal and over the page until fixed.
#[derive(clap::Args, Debug)]
pub(crate) struct Serve {
    /// Port on 127.0.0.1 (0: any free port; the URL is printed).
    #[arg(long, default_value_t = 3000, value_name = "N")]
    port: u16,
    /// Open the site in the default browser.
    #[arg(long)]
    open: bool,
    /// Folder overriding the embedded templates, interface text and assets, as `build`'s (and,
    /// without it, `templates/` beside the spec folder when it holds `i18n/`); watched too.
    #[arg(long, value_name = "DIR")]
    templates: Option<PathBuf>,
    /// Missing or stale translations are errors, not warnings.
    #[arg(long)]
    strict: bool,
}

impl Serve {
    pub(crate) fn run(self, ctx: &Ctx) -> Outcome {
        serve::run(
            ctx,
            &Options {
                port: self.port,
                open: self.open,
                templates: kcontract_site::templates_folder(self.templates.as_deref(), &ctx.spec),
                strict: self.strict,
            },
        )
    }
}
