//! `kcontract import FILE.md --out DIR`: plain RFC 2119 Markdown into a new spec folder.

use std::fs;
use std::path::{Path, PathBuf};

use crate::terminal::{Ctx, Failure, Outcome, print};
use kcontract_edit::import::{Carry, Earlier, Imported};
use kcontract_spec::Loaded;
use kcontract_spec::diagnostic::Diagnostic;
use kcontract_spec::{Actor, Contract, Labelled};

/// Turn plain RFC 2119 Markdown into a spec folder: chapters from the top-level sections, a
/// clause for every sentence holding a keyword, the rest kept as prose.
#[derive(clap::Args, Debug)]
// One of --out and --into, named together in the usage line (`<--out <DIR>|--into <DIR>>`).
#[command(group(clap::ArgGroup::new("folder").required(true).args(["out", "into"])))]
pub(crate) struct Import {
    /// The Markdown file to import.
    file: PathBuf,
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
        let src = self.read_source(ctx)?;
        let earlier = (self.keep_ids_from.as_deref())
            .map(|dir| load_clean(ctx, dir, "keep ids from"))
            .transpose()?;
        let into = (self.into.as_deref())
            .map(|dir| load_clean(ctx, dir, "import into"))
            .transpose()?;
        let out = self.into.clone().or(self.out.clone()).unwrap_or_default();
        if into.is_none()
            && let Some(why) = not_empty(&out)
        {
            return fail(ctx, Diagnostic::error("K1002", format!("the output folder `{}` {why}", out.display()))
                    .in_file(&out)
                    .help("import writes a new spec folder and never overwrites one: give --out a folder that does not exist yet, or an empty one, or --into a spec folder to add the chapters to"));
        }
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
        };
        let imported = kcontract_edit::import::import(&src, &self.origin(), &contract, &options);
        match &into {
            Some(loaded) => self.write_into(ctx, &out, &contract, loaded, &imported)?,
            None => self.write_new(ctx, &out, &imported)?,
        }
        self.notes(&imported, into.is_some());
        Ok(())
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

    /// The file to import, as plain text. A FIFO, a device or an endless file is refused, not
    /// read until memory runs out.
    fn read_source(&self, ctx: &Ctx) -> Result<String, Failure> {
        let bytes =
            kcontract_spec::fsutil::read_regular(&self.file, kcontract_spec::fsutil::MAX_INPUT)
                .map_err(|e| {
                    fail_with(
                        ctx,
                        Diagnostic::error(
                            "K1001",
                            format!("`{}` cannot be read: {e}", self.file.display()),
                        )
                        .in_file(&self.file)
                        .help("check the path of the Markdown file to import"),
                    )
                })?;
        match String::from_utf8(bytes) {
            Ok(s) => Ok(kcontract_spec::fsutil::plain_text(s)),
            Err(_) => Err(fail_with(
                ctx,
                Diagnostic::error(
                    "K1001",
                    format!("`{}` is not UTF-8 text", self.file.display()),
                )
                .in_file(&self.file)
                .help("import reads Markdown in UTF-8; convert the file first (e.g. with iconv)"),
            )),
        }
    }

    /// The name the import records as the text's origin: the file's name.
    fn origin(&self) -> String {
        self.file.file_name().map_or_else(
            || self.file.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        )
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

    /// `--into`: the new chapters added to the contract in `out`, never overwriting one.
    fn write_into(
        &self,
        ctx: &Ctx,
        out: &Path,
        contract: &Contract,
        loaded: &Loaded,
        imported: &Imported,
    ) -> Outcome {
        let lang = contract.languages.first().map_or("en", String::as_str);
        let existing = &loaded.spec.contract.chapters;
        if let Some((name, _)) = imported.chapters.iter().find(|(n, _)| existing.contains(n)) {
            return fail(ctx, Diagnostic::error(
                    "K1005",
                    format!("the contract in `{}` has a chapter `{name}` already: import never overwrites a chapter", out.display()),
                )
                .in_file(out.join("contract.yaml"))
                .help("to follow a newer version of a text imported before, import it with --out into a new folder and --keep-ids-from the old one, then compare them with `kcontract diff`; nothing was written"));
        }
        let added = merge_into(out, lang, &imported.chapters).map_err(|d| fail_with(ctx, d))?;
        let files: Vec<String> = added.iter().map(|n| format!("{lang}/{n}.md")).collect();
        print(&format!(
            "imported {} into {}: {}\nmerged: new files {}; chapters {} added to `chapters:` of contract.yaml after its {}; no other file changed\nnext: kcontract --spec {} check\n",
            self.file.display(),
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
    fn write_new(&self, ctx: &Ctx, out: &Path, imported: &Imported) -> Outcome {
        let mut files = vec![(out.join("contract.yaml"), imported.contract_yaml.clone())];
        let source = &imported.source_lang;
        for (name, text) in &imported.chapters {
            files.push((out.join(source).join(format!("{name}.md")), text.clone()));
        }
        for (lang, name, text) in &imported.translations {
            files.push((out.join(lang).join(format!("{name}.md")), text.clone()));
        }
        write_all(out, &files).map_err(|d| fail_with(ctx, d))?;
        print(&format!(
            "imported {}: {} → {}\nnext: kcontract --spec {} check\n",
            self.file.display(),
            summary(imported),
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

/// The one-line account of an import.
fn summary(imported: &Imported) -> String {
    format!(
        "{} chapter(s), {} clause(s), {} with a `review:` note, {} boilerplate paragraph(s)",
        imported.chapters.len(),
        imported.clauses,
        imported.reviews,
        imported.boilerplate,
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

/// Add `chapters` to the spec folder `dir`: each as `<lang>/<name>.md`, a new file (an existing
/// one stops the import, K1005, before anything is written), and its name appended to the
/// `chapters:` of `contract.yaml`, the rest of which is kept as written. Returns the names added.
/// On a failure to write, what was written is removed and `contract.yaml` restored.
fn merge_into(
    dir: &Path,
    lang: &str,
    chapters: &[(String, String)],
) -> Result<Vec<String>, Diagnostic> {
    let yaml_path = dir.join("contract.yaml");
    // Read and written back as it was saved (a byte-order mark, Windows line ends).
    let raw = kcontract_spec::fsutil::read_text(&yaml_path).map_err(|e| {
        Diagnostic::error(
            "K1003",
            format!("`{}` cannot be read: {e}", yaml_path.display()),
        )
        .in_file(&yaml_path)
    })?;
    let encoding = kcontract_spec::fsutil::Encoding::of(&raw);
    let yaml = kcontract_spec::fsutil::plain_text(raw.clone());
    for (name, _) in chapters {
        let path = dir.join(lang).join(format!("{name}.md"));
        if path.exists() {
            return Err(Diagnostic::error(
                "K1005",
                format!("`{}` exists already: import never overwrites a file", path.display()),
            )
            .in_file(&path)
            .help("the chapter is not listed in contract.yaml but its file is there: rename or move that file, or import into another folder; nothing was written"));
        }
    }
    let names: Vec<String> = chapters.iter().map(|(n, _)| n.clone()).collect();
    let Some(merged) = add_chapters(&yaml, &names) else {
        return Err(Diagnostic::error(
            "K1005",
            format!("the `chapters:` list of `{}` cannot be extended", yaml_path.display()),
        )
        .in_file(&yaml_path)
        .help("import adds to a `chapters:` list written one name a line (`  - name`) or as `[a, b]`; write it so, or add the chapters by hand after `--out`; nothing was written"));
    };
    let mut written: Vec<PathBuf> = Vec::new();
    let result = chapters.iter().try_for_each(|(name, text)| {
        let path = dir.join(lang).join(format!("{name}.md"));
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent).map_err(|e| (path.clone(), e))?;
        }
        fs::write(&path, text).map_err(|e| (path.clone(), e))?;
        written.push(path);
        Ok(())
    });
    let result = result.and_then(|()| {
        fs::write(&yaml_path, encoding.apply(&merged)).map_err(|e| (yaml_path.clone(), e))
    });
    result.map_err(|(path, e)| {
        for p in &written {
            let _ = fs::remove_file(p);
        }
        let _ = fs::write(&yaml_path, &raw);
        Diagnostic::error("K1003", format!("`{}` cannot be written: {e}", path.display()))
            .in_file(&path)
            .help("check that the folder is writable; the new files were removed again and contract.yaml is as it was")
    })?;
    Ok(names)
}

/// `yaml` (a contract.yaml) with `names` appended to its top-level `chapters:` list, written
/// one name a line (`  - name`, as `init` writes it) or in brackets on the key's line; `None` for
/// any other form. Every other line is kept as it is.
fn add_chapters(yaml: &str, names: &[String]) -> Option<String> {
    let lines: Vec<&str> = yaml.split_inclusive('\n').collect();
    let at = lines.iter().position(|l| l.starts_with("chapters:"))?;
    let rest = lines[at]["chapters:".len()..].trim();
    let mut out = String::with_capacity(yaml.len() + 16 * names.len());
    if let Some(inner) = rest.strip_prefix('[').and_then(|r| r.strip_suffix(']')) {
        out.extend(lines[..at].iter().copied());
        let mut all: Vec<&str> = inner
            .split(',')
            .map(str::trim)
            .filter(|n| !n.is_empty())
            .collect();
        all.extend(names.iter().map(String::as_str));
        out.push_str(&format!("chapters: [{}]\n", all.join(", ")));
        out.extend(lines[at + 1..].iter().copied());
        return Some(out);
    }
    if !rest.is_empty() && !rest.starts_with('#') {
        return None;
    }
    // The item lines after the key (comments and blank lines between them allowed).
    let mut last = None;
    for (i, l) in lines.iter().enumerate().skip(at + 1) {
        let t = l.trim_start();
        if t.starts_with("- ") {
            last = Some(i);
        } else if !(t.is_empty() || t.starts_with('#')) {
            break;
        }
    }
    let last = last?;
    let first = lines[at + 1..=last]
        .iter()
        .find(|l| l.trim_start().starts_with("- "))?;
    let indent = &first[..first.len() - first.trim_start().len()];
    out.extend(lines[..=last].iter().copied());
    if !out.ends_with('\n') {
        out.push('\n');
    }
    for n in names {
        out.push_str(&format!("{indent}- {n}\n"));
    }
    out.extend(lines[last + 1..].iter().copied());
    Some(out)
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

/// Write every file under `root`; on a failure, remove what was written (the folder is left as it
/// was found: absent or empty).
pub(crate) fn write_all(root: &Path, files: &[(PathBuf, String)]) -> Result<(), Diagnostic> {
    let existed = root.exists();
    let result = files.iter().try_for_each(|(path, text)| {
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent).map_err(|e| (path, e))?;
        }
        fs::write(path, text).map_err(|e| (path, e))
    });
    result.map_err(|(path, e)| {
        let cleanup = if existed {
            fs::read_dir(root).map(|entries| {
                for e in entries.flatten() {
                    let p = e.path();
                    let _ = if p.is_dir() {
                        fs::remove_dir_all(&p)
                    } else {
                        fs::remove_file(&p)
                    };
                }
            })
        } else if root.exists() {
            fs::remove_dir_all(root)
        } else {
            Ok(())
        };
        let after = match cleanup {
            Ok(()) => "nothing was left behind",
            Err(_) => "some files could not be removed again",
        };
        Diagnostic::error(
            "K1003",
            format!("`{}` cannot be written: {e}", path.display()),
        )
        .in_file(path)
        .help(format!("check that the folder is writable; {after}"))
    })
}

#[cfg(test)]
mod tests {
    use super::add_chapters;

    #[test]
    fn chapters_are_appended_and_the_rest_kept() {
        let names = ["b".to_string(), "c".to_string()];
        assert_eq!(
            add_chapters("title: T\nchapters:\n  - a\n# who\nactors: [x]\n", &names).as_deref(),
            Some("title: T\nchapters:\n  - a\n  - b\n  - c\n# who\nactors: [x]\n")
        );
        assert_eq!(
            add_chapters("chapters: [a]  \nx: 1\n", &names).as_deref(),
            Some("chapters: [a, b, c]\nx: 1\n")
        );
        assert_eq!(add_chapters("chapters: a\n", &names), None);
        assert_eq!(add_chapters("title: T\n", &names), None);
    }
}
