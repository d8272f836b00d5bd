//! `kcontract import FILE.md --out DIR`: plain RFC 2119 Markdown into a new spec folder.

use std::fs;
use std::path::{Path, PathBuf};

use crate::diagnostic::Diagnostic;
use crate::spec::Contract;
use crate::terminal::{Ctx, Failure, Outcome, print};

/// Turn plain RFC 2119 Markdown into a spec folder: chapters from the top-level sections, a
/// clause for every sentence holding a keyword, the rest kept as prose.
#[derive(clap::Args, Debug)]
pub(crate) struct Import {
    /// The Markdown file to import.
    file: PathBuf,
    /// The spec folder to create (must not exist, or be empty).
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    /// Where the source's relative links to other files point: the URL of the folder the file
    /// lives in upstream (e.g. https://github.com/opencontainers/runtime-spec/blob/v1.3.0/).
    /// Without it such links keep only their words (each is reported).
    #[arg(long, value_name = "URL")]
    link_base: Option<String>,
}

impl Import {
    pub(crate) fn run(self, ctx: &Ctx) -> Outcome {
        let fail = |d: Diagnostic| {
            ctx.print_diagnostics(&[d], &Default::default());
            Err(Failure::Input)
        };
        let src = match fs::read(&self.file) {
            Ok(b) => match String::from_utf8(b) {
                Ok(s) => crate::fsutil::plain_text(s),
                Err(_) => {
                    return fail(
                        Diagnostic::error("K1001", format!("`{}` is not UTF-8 text", self.file.display()))
                            .in_file(&self.file)
                            .help("import reads Markdown in UTF-8; convert the file first (e.g. with iconv)"),
                    );
                }
            },
            Err(e) => {
                return fail(
                    Diagnostic::error(
                        "K1001",
                        format!("`{}` cannot be read: {e}", self.file.display()),
                    )
                    .in_file(&self.file)
                    .help("check the path of the Markdown file to import"),
                );
            }
        };
        if let Some(why) = not_empty(&self.out) {
            return fail(
                Diagnostic::error("K1002", format!("the output folder `{}` {why}", self.out.display()))
                    .in_file(&self.out)
                    .help("import writes a new spec folder and never overwrites one: give --out a folder that does not exist yet, or an empty one"),
            );
        }
        let origin = self.file.file_name().map_or_else(
            || self.file.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        );
        let imported = crate::import::import(
            &src,
            &origin,
            &Contract::default(),
            self.link_base.as_deref(),
        );
        let mut files = vec![(
            self.out.join("contract.yaml"),
            imported.contract_yaml.clone(),
        )];
        for (name, text) in &imported.chapters {
            files.push((self.out.join("en").join(format!("{name}.md")), text.clone()));
        }
        if let Err(d) = write_all(&self.out, &files) {
            return fail(d);
        }
        print(&format!(
            "imported {}: {} chapter(s), {} clause(s), {} with a `review:` note, {} boilerplate paragraph(s) → {}\nnext: kcontract --spec {} check\n",
            self.file.display(),
            imported.chapters.len(),
            imported.clauses,
            imported.reviews,
            imported.boilerplate,
            self.out.display(),
            self.out.display(),
        ))?;
        if imported.links_rewritten > 0 {
            eprintln!(
                "note: {} relative link(s) now point into the new chapters or under --link-base",
                imported.links_rewritten
            );
        }
        if !imported.links_dropped.is_empty() {
            // Each target once, in the order of the text.
            let mut targets: Vec<&str> = Vec::new();
            for t in &imported.links_dropped {
                if !targets.contains(&t.as_str()) {
                    targets.push(t);
                }
            }
            let shown = &targets[..targets.len().min(5)];
            let more = targets.len() - shown.len();
            eprintln!(
                "note: {} link(s) kept only their words, their targets being outside the new spec: {}{}\n  \
                 = help: pass --link-base URL (the folder the source lives in upstream) to keep links to other files as links",
                imported.links_dropped.len(),
                shown.join(", "),
                if more > 0 {
                    format!(" and {more} other target(s)")
                } else {
                    String::new()
                },
            );
        }
        Ok(())
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
