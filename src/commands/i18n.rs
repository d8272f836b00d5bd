//! `kcontract i18n`: translation status, and review stamps written into the translated files.

use std::path::PathBuf;

use crate::pipeline::{Show, Stages};
use crate::terminal::{Ctx, Outcome, print};
use kcontract_edit::i18n::StampTarget;
use kcontract_spec::LoadOptions;
use kcontract_spec::diagnostic::Diagnostic;

/// Translation status and review stamps.
#[derive(clap::Subcommand, Debug)]
pub(crate) enum I18n {
    /// Per chapter: clauses current, stale and missing; paragraphs and those still untranslated.
    Status,
    /// Add a language, or the chapter files it lacks.
    ///
    /// Each missing `<LANG>/<chapter>.md` is written with the source's headings and a stub of each
    /// clause (its source text and stamp) to translate, the language is added to contract.yaml's
    /// `languages`, and a language without built-in interface text gets `templates/i18n/<LANG>.yaml`
    /// (the English one) beside the spec folder. Nothing existing is overwritten.
    Add {
        /// The language tag, e.g. `de` (the folder name under the spec folder).
        lang: String,
    },
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
            I18n::Add { .. } => ctx.writing("no file was written"),
        };
        if let I18n::Add { lang } = &self
            && !kcontract_spec::is_language_tag(lang)
        {
            return Err(ctx.usage(
                &format!("`{lang}` is not a language tag"),
                "a language is a lowercase tag used as a folder name, e.g. de or pt-br",
            ));
        }
        // These commands report translation state themselves.
        let loaded = Stages::new(ctx).spec(LoadOptions::default(), Show::AllButTranslationState)?;
        let target = match self {
            I18n::Status => return print(&kcontract_edit::i18n::status(&loaded.spec)),
            I18n::Add { lang } => return add(ctx, &loaded, &lang),
            I18n::Stamp {
                all_reviewed: true, ..
            } => StampTarget::AllReviewed,
            I18n::Stamp { ids, .. } => StampTarget::Ids(ids),
        };
        match kcontract_edit::i18n::stamp_clauses(&loaded.spec, &loaded.sources, &target) {
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

/// `i18n add LANG`: see [`I18n::Add`].
fn add(ctx: &Ctx, loaded: &kcontract_spec::Loaded, lang: &str) -> Outcome {
    let spec = &loaded.spec;
    if spec.contract.languages.first().map(String::as_str) == Some(lang) {
        return Err(ctx.usage(
            &format!("`{lang}` is the source language"),
            "name the language to translate into; the first of contract.yaml's languages is the one translated from",
        ));
    }
    let fail = |path: &std::path::Path, what: String, help: &str| {
        let d = Diagnostic::error("K0311", what)
            .in_file(path)
            .help(help.to_string());
        Err(ctx.fail(&d, &loaded.sources, "error: i18n add stopped here; it never overwrites a file, so running it again after the fix completes the language"))
    };
    // contract.yaml's new text first: when it cannot be made, nothing is written.
    let contract = ctx.spec.join("contract.yaml");
    let listed = spec.contract.languages.iter().any(|l| l == lang);
    let new_contract = match (listed, loaded.sources.find(&contract)) {
        (true, _) => None,
        (false, file) => {
            match file
                .and_then(|f| Some(f.written(&kcontract_edit::i18n::add_language(&f.text, lang)?)))
            {
                Some(text) => Some(text),
                None => {
                    return fail(
                        &contract,
                        format!("`{lang}` cannot be added to `languages` in contract.yaml"),
                        &format!(
                            "add `{lang}` to the `languages` list by hand, then run this again (kcontract extends `languages: [en, {lang}]` or one `- {lang}` line per language)"
                        ),
                    );
                }
            }
        }
    };
    let mut wrote = Vec::new();
    let mut files: Vec<(PathBuf, String)> = spec
        .documents
        .iter()
        .map(|doc| {
            let path = ctx.spec.join(lang).join(format!("{}.md", doc.chapter));
            (
                path,
                kcontract_edit::i18n::stub_of(spec, &loaded.sources, doc, lang),
            )
        })
        .collect();
    let beside = ctx
        .spec
        .parent()
        .unwrap_or(std::path::Path::new(""))
        .join("templates");
    let interface = beside.join("i18n").join(format!("{lang}.yaml"));
    if !kcontract_site::built_in(lang) {
        files.push((interface.clone(), kcontract_site::interface_template(lang)));
    }
    for (path, text) in files {
        if path.exists() {
            continue;
        }
        let written = path
            .parent()
            .map_or(Ok(()), std::fs::create_dir_all)
            .and_then(|()| kcontract_spec::fsutil::write_atomic(&path, text.as_bytes()));
        if let Err(e) = written {
            return fail(
                &path,
                format!("`{}` cannot be written: {e}", path.display()),
                "check that the folder is writable",
            );
        }
        wrote.push(path);
    }
    if let Some(text) = &new_contract
        && let Err(e) = kcontract_spec::fsutil::write_atomic(&contract, text.as_bytes())
    {
        return fail(
            &contract,
            format!("`{}` cannot be written: {e}", contract.display()),
            "check that the file is writable",
        );
    }
    let mut out = String::new();
    for p in &wrote {
        out.push_str(&format!("wrote {}\n", p.display()));
    }
    if !listed {
        out.push_str(&format!(
            "added {lang} to the languages of {}\n",
            contract.display()
        ));
    }
    if wrote.is_empty() && listed {
        out.push_str(&format!("{lang} has every chapter file: nothing to add\n"));
    } else {
        out.push_str(&format!(
            "next: translate the headings, prose and clause texts in {}/; `kcontract i18n status` counts what is left, and `kcontract build` shows the rest in the source language\n",
            ctx.spec.join(lang).display()
        ));
        if wrote.contains(&interface) {
            out.push_str(&format!(
                "next: translate {}, the site's interface text in {lang}, copied from English, and set its `name` to the language's own name (the language switch shows it)\n",
                interface.display()
            ));
        }
    }
    print(&out)
}
