//! `kcontract import FILE.md --out DIR`: plain RFC 2119 Markdown into a new spec folder.

use std::fs;
use std::path::{Path, PathBuf};

use crate::terminal::{Ctx, Failure, Outcome, print};
use kcontract_edit::import::{Carry, Earlier, Imported, save};
use kcontract_spec::Loaded;
use kcontract_spec::diagnostic::Diagnostic;
use kcontract_spec::{Actor, Contract, Labelled};

/// Turn plain RFC 2119 Markdown into a spec folder: chapters from the top-level sections, a
/// clause for every sentence holding a keyword, the rest kept as prose.
#[derive(clap::Args, Debug)]
// One of --out and --into, named together in the usage line (`<--out <DIR>|--into <DIR>>`).
#[command(group(clap::ArgGroup::new("folder").required(true).args(["out", "into"])))]
pub(crate) struct Import {
    /// The Markdown file to import; with --into, several, imported together: a link from one to
    /// another (`other.md`, `other.md#section`) lands on the chapter the other became.
    #[arg(value_name = "FILE", required = true)]
    files: Vec<PathBuf>,
    /// The spec folder to create (must not exist, or be empty).
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// An existing spec folder (one `kcontract init` made) to add the chapters to: its
    /// vocabulary is used, its clause ids and chapter names are kept free, the new chapters are
    /// appended to the `chapters:` of its contract.yaml; an existing chapter file is never
    /// overwritten (the import stops instead).
    #[arg(long, value_name = "DIR")]
    into: Option<PathBuf>,
    /// The contract's actors, comma-separated (e.g. producer,consumer,intermediary): written into
    /// the new contract.yaml, and each clause's actor is the one its subject names ("Producers
    /// MUST …": producer; plurals match). Without it (and without --into or --keep-ids-from),
    /// the actors are the nouns the subjects name, and a clause naming none gets `unassigned`
    /// with a review note.
    #[arg(
        long,
        value_name = "NAMES",
        value_delimiter = ',',
        conflicts_with = "into"
    )]
    actors: Vec<String>,
    /// An earlier import of the text (a spec folder, edited or not): each clause whose statement
    /// it had keeps that clause's id — the same words, a rewording at the same level with at least
    /// 60% of its key words in common (Dice coefficient), or the same statement at another level
    /// (85%) — and its actor and the editors' other decisions (verify, reason, oci,
    /// upstream-tests, a review note resolved); its contract.yaml (less `history:`) and the
    /// translations of the chapters are kept; no new clause takes one of its ids.
    #[arg(long, value_name = "DIR")]
    keep_ids_from: Option<PathBuf>,
    /// With --keep-ids-from: keep only the ids and actors, none of the editors' other decisions,
    /// contract.yaml or translations — the new version is what the upstream text says (the
    /// contract's history is built so).
    #[arg(long, requires = "keep_ids_from")]
    upstream_only: bool,
    /// Where the source's relative links to other files point: the URL of the folder the file
    /// lives in upstream (e.g. https://github.com/opencontainers/runtime-spec/blob/v1.3.0/).
    /// Without it such links keep only their words (each is reported).
    #[arg(long, value_name = "URL")]
    link_base: Option<String>,
}

impl Import {
    pub(crate) fn run(self, ctx: &Ctx) -> Outcome {
        self.check_actors(ctx)?;
        self.check_files(ctx)?;
        // Every input is read and every problem found reported together, before the first stops
        // the import: the texts, the earlier version, the contract imported into, the output.
        let sources: Vec<Result<String, Failure>> =
            self.files.iter().map(|f| read_source(ctx, f)).collect();
        let earlier =
            (self.keep_ids_from.as_deref()).map(|dir| load_clean(ctx, dir, "keep ids from"));
        let into = (self.into.as_deref())
            .map(|dir| recover(ctx, dir).and_then(|()| load_clean(ctx, dir, "import into")));
        let out = self.into.clone().or(self.out.clone()).unwrap_or_default();
        let out_ok = match (&self.into, not_empty(&out)) {
            (None, Some(why)) => fail(ctx, Diagnostic::error("K1002", format!("the output folder `{}` {why}", out.display()))
                    .in_file(&out)
                    .help("import writes a new spec folder and never overwrites one: give --out a folder that does not exist yet, or an empty one, or --into a spec folder to add the chapters to")),
            _ => Ok(()),
        };
        let sources: Vec<String> = sources.into_iter().collect::<Result<_, _>>()?;
        let earlier = earlier.transpose()?;
        let into = into.transpose()?;
        out_ok?;
        let contract = self.contract(into.as_ref().or(earlier.as_ref()));
        let carry = if self.upstream_only {
            Carry::UpstreamOnly
        } else {
            Carry::Decisions
        };
        let options = kcontract_edit::import::Options {
            link_base: self.link_base.as_deref(),
            earlier: (earlier.as_ref())
                .zip(self.keep_ids_from.as_deref())
                .map(|(loaded, dir)| Earlier { loaded, dir, carry }),
            into: into.as_ref().map(|l| &l.spec),
            actors_from_subjects: self.actors.is_empty() && into.is_none() && earlier.is_none(),
            ..Default::default()
        };
        let texts: Vec<(&Path, &str)> = (self.files.iter().map(PathBuf::as_path))
            .zip(sources.iter().map(String::as_str))
            .collect();
        let images = kcontract_edit::import::images::copy(&texts, self.into.as_deref());
        let imported = self.import_all(&sources, &contract, options, &images.names);
        match &into {
            Some(loaded) => {
                self.write_into(ctx, &out, &contract, loaded, &imported, &images.files)?
            }
            None => self.write_new(ctx, &out, &imported[0], &images.files)?,
        }
        for (file, dest, why) in &images.refused {
            eprintln!(
                "note: the image `{dest}` of {} was not copied into the spec ({why}): it keeps its words",
                file.display()
            );
        }
        if !images.files.is_empty() {
            eprintln!(
                "note: {} image(s) copied into `images/` of the spec, which the site publishes",
                images.files.len()
            );
        }
        for one in &imported {
            self.notes(one, into.is_some());
        }
        Ok(())
    }

    /// Several files only with --into (and without --keep-ids-from): a new folder or a new
    /// version of a text is made of one.
    fn check_files(&self, ctx: &Ctx) -> Outcome {
        if self.files.len() > 1 && (self.into.is_none() || self.keep_ids_from.is_some()) {
            return Err(ctx.usage(
                &format!(
                    "{} files to import: several are imported together only with --into, and without --keep-ids-from",
                    self.files.len()
                ),
                "several documents are imported together into an existing spec folder (kcontract init makes one): --into DIR, without --keep-ids-from; or import one file with --out",
            ));
        }
        Ok(())
    }

    /// Import each text. Documents imported together are placed first (where each one's
    /// sections go), then imported with the links between them made to land there, each taking
    /// no clause id or chapter name an earlier one took. One document is one import.
    fn import_all(
        &self,
        sources: &[String],
        contract: &Contract,
        options: kcontract_edit::import::Options<'_>,
        images: &[std::collections::BTreeMap<String, String>],
    ) -> Vec<Imported> {
        use kcontract_edit::import::{Taken, import};
        let names: Vec<String> = self.files.iter().map(|f| origin(f)).collect();
        let mut options = options;
        if options.into.is_some() {
            let mut taken = Taken::default();
            for ((src, name), images) in sources.iter().zip(&names).zip(images) {
                options.taken = taken.clone();
                options.images = images.clone();
                let placed = import(src, name, contract, &options);
                placed.take(&mut taken);
                options.siblings.insert(name.clone(), placed.placed());
            }
        }
        let mut taken = Taken::default();
        let mut all = Vec::new();
        for ((src, name), images) in sources.iter().zip(&names).zip(images) {
            options.taken = taken.clone();
            options.images = images.clone();
            let imported = import(src, name, contract, &options);
            imported.take(&mut taken);
            all.push(imported);
        }
        all
    }

    /// Every `--actors` name is one a clause can write.
    fn check_actors(&self, ctx: &Ctx) -> Outcome {
        match self
            .actors
            .iter()
            .find(|a| !kcontract_spec::is_language_tag(a))
        {
            Some(bad) => Err(ctx.usage(
                &format!("`{bad}` is not an actor name"),
                "actors are written in clauses: lowercase a-z, 0-9 and `-`, e.g. --actors producer,consumer",
            )),
            None => Ok(()),
        }
    }

    /// The vocabulary the new chapters are written in: the `--into` or `--keep-ids-from`
    /// contract's (else the default one, which import replaces by the subjects' own), with
    /// `--actors` when given.
    fn contract(&self, given: Option<&Loaded>) -> Contract {
        let mut contract = given.map_or_else(Contract::default, |l| l.spec.contract.clone());
        if !self.actors.is_empty() {
            contract.actors = self
                .actors
                .iter()
                .map(|a| Labelled::plain(Actor::new(a)))
                .collect();
        }
        contract
    }

    /// `--into`: the new chapters (of every text imported) added to the contract in `out`,
    /// never overwriting one.
    fn write_into(
        &self,
        ctx: &Ctx,
        out: &Path,
        contract: &Contract,
        loaded: &Loaded,
        imported: &[Imported],
        images: &[(String, Vec<u8>)],
    ) -> Outcome {
        let lang = contract.languages.first().map_or("en", String::as_str);
        let existing = &loaded.spec.contract.chapters;
        let chapters: Vec<(String, String)> =
            imported.iter().flat_map(|i| i.chapters.clone()).collect();
        if let Some((name, _)) = chapters.iter().find(|(n, _)| existing.contains(n)) {
            return fail(ctx, Diagnostic::error(
                    "K1005",
                    format!("the contract in `{}` has a chapter `{name}` already: import never overwrites a chapter", out.display()),
                )
                .in_file(out.join("contract.yaml"))
                .help("to follow a newer version of a text imported before, import it with --out into a new folder and --keep-ids-from the old one, then compare them with `kcontract diff`; nothing was written"));
        }
        let mut seen = std::collections::BTreeSet::new();
        if let Some((name, _)) = chapters.iter().find(|(n, _)| !seen.insert(n.as_str())) {
            return fail(ctx, Diagnostic::error(
                    "K1005",
                    format!("two of the documents imported together make a chapter `{name}`"),
                )
                .in_file(out.join("contract.yaml"))
                .help("each chapter is a top-level section, named by its heading: rename one of the two headings, or import the documents one at a time into different contracts; nothing was written"));
        }
        let added = save::merge_into(out, lang, &chapters, images, &abort_after_writes())
            .map_err(|d| fail_with(ctx, d))?;
        let files: Vec<String> = added.iter().map(|n| format!("{lang}/{n}.md")).collect();
        let names: Vec<String> = self.files.iter().map(|f| f.display().to_string()).collect();
        print(&format!(
            "imported {} into {}: {}\nmerged: new files {}; chapters {} added to `chapters:` of contract.yaml after its {}; no other file changed\nnext: kcontract --spec {} check\n",
            names.join(", "),
            out.display(),
            summary(imported),
            files.join(", "),
            added.join(", "),
            existing.len(),
            out.display(),
        ))?;
        let others: Vec<&str> = contract
            .languages
            .iter()
            .skip(1)
            .map(String::as_str)
            .collect();
        if !others.is_empty() {
            eprintln!(
                "note: the new chapters are in `{lang}/` only; the translations ({}) do not have them yet",
                others.join(", ")
            );
        }
        Ok(())
    }

    /// `--out`: a new spec folder, written whole or not at all.
    fn write_new(
        &self,
        ctx: &Ctx,
        out: &Path,
        imported: &Imported,
        images: &[(String, Vec<u8>)],
    ) -> Outcome {
        let mut files = vec![(
            out.join("contract.yaml"),
            imported.contract_yaml.clone().into_bytes(),
        )];
        let source = &imported.source_lang;
        for (name, text) in &imported.chapters {
            let path = out.join(source).join(format!("{name}.md"));
            files.push((path, text.clone().into_bytes()));
        }
        for (lang, name, text) in &imported.translations {
            let path = out.join(lang).join(format!("{name}.md"));
            files.push((path, text.clone().into_bytes()));
        }
        for (name, bytes) in images {
            let path = out.join(kcontract_spec::IMAGES_FOLDER).join(name);
            files.push((path, bytes.clone()));
        }
        write_new_hooked(out, &files, &abort_after_writes()).map_err(|d| fail_with(ctx, d))?;
        print(&format!(
            "imported {}: {} → {}\nnext: kcontract --spec {} check\n",
            self.files[0].display(),
            summary(std::slice::from_ref(imported)),
            out.display(),
            out.display(),
        ))
    }

    /// What a person should know after the import: the actors the subjects suggest, the ids kept,
    /// the links rewritten or dropped.
    fn notes(&self, imported: &Imported, into: bool) {
        if !imported.actors_from_subjects.is_empty()
            || (self.actors.is_empty() && !into && self.keep_ids_from.is_none())
        {
            eprintln!("{}", subjects_note(imported));
        } else if self.actors.is_empty() && !into && !imported.subjects.is_empty() {
            // The vocabulary the text suggests: a person decides which of these are actors.
            let shown: Vec<&(String, usize)> = imported.subjects.iter().take(8).collect();
            eprintln!(
                "note: {} clause(s) have a guessed actor; their subjects name: {}\n  = help: to bind each clause to the actor its subject names, import again with --actors {}",
                imported.guessed,
                shown
                    .iter()
                    .map(|(n, c)| format!("{n} ({c})"))
                    .collect::<Vec<_>>()
                    .join(", "),
                shown
                    .iter()
                    .map(|(n, _)| n.as_str())
                    .collect::<Vec<_>>()
                    .join(","),
            );
        }
        if let Some(dir) = &self.keep_ids_from {
            eprintln!("{}", kept_note(imported, dir));
        }
        if imported.attached > 0 {
            eprintln!(
                "note: {} clause(s) end with `:` or run on, and hold the list, table or code block that completes them",
                imported.attached
            );
        }
        if imported.informative > 0 {
            eprintln!(
                "note: {} note(s) or example(s) use a keyword and stay informative (marked `<!-- kcontract: informative -->`, or a quote opening with \"Note\" or \"Example\"): check that none is a requirement",
                imported.informative
            );
        }
        if imported.links_rewritten > 0 {
            eprintln!(
                "note: {} relative link(s) now point into the new chapters or under --link-base",
                imported.links_rewritten
            );
        }
        if !imported.links_dropped.is_empty() {
            eprintln!("{}", dropped_links_note(&imported.links_dropped));
        }
    }
}

/// The file to import, as plain text. A FIFO, a device or an endless file is refused, not
/// read until memory runs out.
fn read_source(ctx: &Ctx, file: &Path) -> Result<String, Failure> {
    let bytes = kcontract_spec::fsutil::read_regular(file, kcontract_spec::fsutil::MAX_INPUT)
        .map_err(|e| {
            fail_with(
                ctx,
                Diagnostic::error("K1001", format!("`{}` cannot be read: {e}", file.display()))
                    .in_file(file)
                    .help("check the path of the Markdown file to import"),
            )
        })?;
    match String::from_utf8(bytes) {
        Ok(s) => {
            let text = kcontract_spec::fsutil::plain_text(s);
            let prepared = kcontract_edit::import::source::prepare(file, text);
            ctx.print_diagnostics(&prepared.diagnostics, &prepared.sources);
            prepared.text.ok_or(Failure::Input)
        }
        Err(_) => Err(fail_with(
            ctx,
            Diagnostic::error("K1001", format!("`{}` is not UTF-8 text", file.display()))
                .in_file(file)
                .help("import reads Markdown in UTF-8; convert the file first (e.g. with iconv)"),
        )),
    }
}

/// The name the import records as the text's origin: the file's name.
fn origin(file: &Path) -> String {
    file.file_name().map_or_else(
        || file.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}

/// Where the actors came from when none were given: the subjects, and the clauses left to a person.
fn subjects_note(imported: &Imported) -> String {
    let named: Vec<String> = imported
        .actors_from_subjects
        .iter()
        .map(|(n, c)| format!("{n} ({c})"))
        .collect();
    let actors = if named.is_empty() {
        "no subject names one".to_string()
    } else {
        named.join(", ")
    };
    format!(
        "note: the actors are the nouns the subjects name: {actors}; {} clause(s) name none of them and have actor `unassigned` with a review note\n  = help: to give the contract actors of your own, import again with --actors NAME,NAME (each clause gets the one its subject names)",
        imported.guessed
    )
}

/// What `--keep-ids-from` kept.
fn kept_note(imported: &Imported, dir: &Path) -> String {
    let mut note = format!(
        "note: {} of {} clause(s) kept their id from `{}`",
        imported.kept,
        imported.clauses,
        dir.display()
    );
    if imported.contract_kept {
        note.push_str(&format!(
            ", with their actors and the editors' decisions; contract.yaml is `{}`'s (without its `history:`, whose folders are beside it, not here){}",
            dir.display(),
            if imported.translations.is_empty() {
                String::new()
            } else {
                format!("; {} translated chapter file(s) kept", imported.translations.len())
            }
        ));
    } else {
        note.push_str(", with their actors (--upstream-only: nothing else of it)");
    }
    note
}

/// The one-line account of an import (of every text imported together).
fn summary(imported: &[Imported]) -> String {
    let sum = |f: fn(&Imported) -> usize| imported.iter().map(f).sum::<usize>();
    format!(
        "{} chapter(s), {} clause(s), {} with a `review:` note, {} boilerplate paragraph(s)",
        sum(|i| i.chapters.len()),
        sum(|i| i.clauses),
        sum(|i| i.reviews),
        sum(|i| i.boilerplate),
    )
}

/// The note for links that kept only their words: each target once, in the order of the text.
fn dropped_links_note(dropped: &[String]) -> String {
    let mut targets: Vec<&str> = Vec::new();
    for t in dropped {
        if !targets.contains(&t.as_str()) {
            targets.push(t);
        }
    }
    let shown = &targets[..targets.len().min(5)];
    let more = targets.len() - shown.len();
    format!(
        "note: {} link(s) kept only their words, their targets being outside the new spec: {}{}\n  \
         = help: pass --link-base URL (the folder the source lives in upstream) to keep links to other files as links",
        dropped.len(),
        shown.join(", "),
        if more > 0 {
            format!(" and {more} other target(s)")
        } else {
            String::new()
        },
    )
}

/// `d` reported; the command fails.
fn fail_with(ctx: &Ctx, d: Diagnostic) -> Failure {
    ctx.print_diagnostics(&[d], &Default::default());
    Failure::Input
}

/// `d` reported, as the command's outcome.
fn fail(ctx: &Ctx, d: Diagnostic) -> Outcome {
    Err(fail_with(ctx, d))
}

/// The contract in `dir`, loaded without errors: else its errors are shown, and K1004 says what
/// could not be done (`what`: "import into", "keep ids from").
fn load_clean(ctx: &Ctx, dir: &Path, what: &str) -> Result<Loaded, Failure> {
    let loaded = kcontract_spec::load(dir);
    if !loaded.has_errors() {
        return Ok(loaded);
    }
    let mut shown: Vec<Diagnostic> = loaded
        .diagnostics
        .iter()
        .filter(|d| d.is_error())
        .cloned()
        .collect();
    shown.push(
        Diagnostic::error(
            "K1004",
            format!("cannot {what} `{}`: its contract has errors", dir.display()),
        )
        .in_file(dir)
        .help(format!(
            "fix its errors first (listed with this one; `kcontract --spec {} check` shows them too); nothing was written",
            dir.display()
        )),
    );
    ctx.print_diagnostics(&shown, &loaded.sources);
    Err(Failure::Input)
}

/// Finish what an `import --into` killed in `dir` left ([`save::recover`]), saying so.
fn recover(ctx: &Ctx, dir: &Path) -> Outcome {
    match save::recover(dir) {
        Ok(None) => Ok(()),
        Ok(Some(r)) => {
            let files: Vec<String> = r.removed.iter().map(|p| p.display().to_string()).collect();
            eprintln!(
                "note: an earlier `import --into {}` stopped before it finished; {}",
                dir.display(),
                if files.is_empty() {
                    "nothing it wrote was left unlisted".to_string()
                } else {
                    format!("removed the chapter file(s) it wrote without listing them: {}", files.join(", "))
                }
            );
            Ok(())
        }
        Err(e) => fail(
            ctx,
            Diagnostic::error(
                "K1003",
                format!("cannot finish the interrupted import in `{}`: {e}", dir.display()),
            )
            .in_file(dir.join(save::JOURNAL))
            .help("an earlier `import --into` was stopped; check that the folder is writable, then run the import again"),
        ),
    }
}

/// Why `dir` cannot receive a new spec (`None`: it can).
pub(crate) fn not_empty(dir: &Path) -> Option<&'static str> {
    if !dir.exists() {
        return None;
    }
    if !dir.is_dir() {
        return Some("exists and is not a folder");
    }
    match fs::read_dir(dir) {
        Ok(mut entries) => entries.next().map(|_| "is not empty"),
        Err(_) => Some("cannot be read"),
    }
}

/// Write every file under `root` (absent or empty), whole or not at all: in a temporary folder
/// beside it, renamed into place ([`save::write_new`]).
pub(crate) fn write_all(root: &Path, files: &[(PathBuf, String)]) -> Result<(), Diagnostic> {
    let bytes: Vec<(PathBuf, Vec<u8>)> = files
        .iter()
        .map(|(p, text)| (p.clone(), text.clone().into_bytes()))
        .collect();
    write_new_hooked(root, &bytes, &|_| {})
}

fn write_new_hooked(
    root: &Path,
    files: &[(PathBuf, Vec<u8>)],
    after: save::After<'_>,
) -> Result<(), Diagnostic> {
    let rel: Vec<(PathBuf, Vec<u8>)> = files
        .iter()
        .map(|(p, bytes)| {
            let rel = p.strip_prefix(root).unwrap_or(p).to_path_buf();
            (rel, bytes.clone())
        })
        .collect();
    save::write_new(root, &rel, after).map_err(|(path, e)| {
        Diagnostic::error(
            "K1003",
            format!("`{}` cannot be written: {e}", path.display()),
        )
        .in_file(&path)
        .help("check that the folder is writable; nothing was left behind")
    })
}

/// The test hook of `tests/suite/leaks.rs`: with `KCONTRACT_TEST_ABORT_AFTER_WRITES=N` the process
/// stops after its Nth file write as a kill would (no clean-up, no message), so the test can check
/// that every moment of an import leaves a whole contract and that the next run recovers.
fn abort_after_writes() -> impl Fn(&Path) {
    let limit: Option<usize> = std::env::var("KCONTRACT_TEST_ABORT_AFTER_WRITES")
        .ok()
        .and_then(|v| v.parse().ok());
    let count = std::cell::Cell::new(0usize);
    move |_: &Path| {
        count.set(count.get() + 1);
        if limit == Some(count.get()) {
            std::process::abort();
        }
    }
}
