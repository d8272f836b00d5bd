//! `kcontract init DIR`: a new contract, ready for `check` and `build`.

use std::path::{Path, PathBuf};

use crate::terminal::{Ctx, Failure, Outcome, print};
use kcontract_spec::diagnostic::Diagnostic;

/// Start a new contract in DIR: spec/contract.yaml with its own vocabulary, one chapter per
/// language, and a short guide (README.md).
#[derive(clap::Args, Debug)]
pub(crate) struct Init {
    /// The folder to create (must not exist, or be empty).
    dir: PathBuf,
    /// The contract's title.
    #[arg(long, default_value = "A new contract")]
    title: String,
    /// The languages, comma-separated; the first is the source.
    #[arg(long, value_delimiter = ',', default_value = "en")]
    languages: Vec<String>,
}

impl Init {
    pub(crate) fn run(self, ctx: &Ctx) -> Outcome {
        let fail = |d: Diagnostic| {
            ctx.print_diagnostics(&[d], &Default::default());
            Err(Failure::Input)
        };
        if let Some(bad) = self
            .languages
            .iter()
            .find(|l| !kcontract_spec::is_language_tag(l))
        {
            return Err(ctx.usage(
                &format!("`{bad}` is not a language tag"),
                "languages are lowercase tags used as folder names, e.g. --languages en,zh",
            ));
        }
        let mut seen = std::collections::BTreeSet::new();
        if let Some(dup) = self.languages.iter().find(|l| !seen.insert(*l)) {
            return Err(ctx.usage(
                &format!("`{dup}` is given twice"),
                "list each language once, the source first",
            ));
        }
        if let Some(why) = super::import::not_empty(&self.dir) {
            return fail(
                Diagnostic::error("K1002", format!("the output folder `{}` {why}", self.dir.display()))
                    .in_file(&self.dir)
                    .help("init writes a new contract and never overwrites files: give it a folder that does not exist yet, or an empty one"),
            );
        }
        let interfaces = self
            .languages
            .iter()
            .filter(|lang| !kcontract_site::built_in(lang))
            .map(|lang| (lang.clone(), kcontract_site::interface_template(lang)))
            .collect();
        let new = kcontract_edit::init::files(&self.title, &self.languages, &interfaces);
        let files: Vec<(PathBuf, String)> = new
            .iter()
            .map(|f| (self.dir.join(&f.path), f.text.clone()))
            .collect();
        if let Err(d) = super::import::write_all(&self.dir, &files) {
            return fail(d);
        }
        print(&summary(&self.dir, &new))
    }
}

/// What `init` says it did: every file it wrote and what it is, then what to do next — the files
/// to translate first, when there are any, so a copy of the English interface text is not left
/// to show English words on another language's pages.
fn summary(dir: &Path, files: &[kcontract_edit::init::NewFile]) -> String {
    let dir = dir.display();
    let width = files.iter().map(|f| f.path.len()).max().unwrap_or(0);
    let mut out = format!("created {dir} ({} files):\n", files.len());
    for f in files {
        out.push_str(&format!("  {:width$}  {}\n", f.path, f.what));
    }
    let translate: Vec<&str> = files
        .iter()
        .filter(|f| f.translate)
        .map(|f| f.path.as_str())
        .collect();
    if !translate.is_empty() {
        out.push_str(&format!(
            "next: translate {} (README.md says how); ",
            translate.join(", ")
        ));
    } else {
        out.push_str("next: ");
    }
    out.push_str(&format!("cd {dir} && kcontract check && kcontract build\n"));
    out
}
