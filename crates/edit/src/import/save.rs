//! An import written to disk so that a kill at any moment leaves the earlier state or the finished
//! one, and the next run recovers by itself (no file a person must delete first).
//!
//! - `--out`: every file is written into a temporary folder beside the output folder, which is
//!   then renamed into place (over an empty folder, as `rename(2)` allows): the folder is absent
//!   (or empty) or whole. A killed run leaves only the hidden temporary folder, swept by the next
//!   run after an hour ([`kcontract_spec::fsutil::sweep_stale`]).
//! - `--into`: several files change in a folder that already holds the contract. Each is replaced
//!   atomically ([`write_atomic`]: a temporary file beside it, then a rename), chapters first and
//!   `contract.yaml` last, so the contract never lists a chapter whose file is missing. Chapters
//!   written but not listed yet (a kill before `contract.yaml`) would make `check` fail (K0012) and
//!   a re-run refuse (K1005): a journal ([`JOURNAL`]), written before the first chapter and removed
//!   after `contract.yaml`, names them, and [`recover`] removes those still unlisted before the
//!   next import.
//!
//! Each write is followed by a call of the `after` hook the command gives (its test kills the
//! process there, `tests/suite/leaks.rs`).

use std::collections::BTreeSet;
use std::fs;
use std::io;
use std::path::{Component, Path, PathBuf};

use kcontract_spec::diagnostic::Diagnostic;
use kcontract_spec::fsutil::{self, write_atomic};

/// The journal of an `import --into` under way, in the spec folder: the chapters it adds and
/// their files. Present only while the import runs (or after it was killed).
pub const JOURNAL: &str = ".kcontract-import-pending";

/// The prefix of the temporary folder an `--out` import is written into, beside the output.
const NEW_PREFIX: &str = ".kcontract-import-";

/// Called after each file is written (or renamed, or removed) with its path.
pub type After<'a> = &'a dyn Fn(&Path);

/// Write a new spec folder `out` (absent or empty) with `files` (paths relative to it): in a
/// temporary folder beside it, renamed into place at the end. The error names the path that
/// could not be written.
pub fn write_new(
    out: &Path,
    files: &[(PathBuf, Vec<u8>)],
    after: After<'_>,
) -> Result<(), (PathBuf, io::Error)> {
    let parent = out
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    if parent.exists() && !parent.is_dir() {
        let e = io::Error::new(io::ErrorKind::NotADirectory, "it is not a folder");
        return Err((parent.to_path_buf(), e));
    }
    fs::create_dir_all(parent).map_err(|e| (parent.to_path_buf(), e))?;
    fsutil::sweep_stale(parent, NEW_PREFIX);
    let tmp = tempfile::Builder::new()
        .prefix(NEW_PREFIX)
        .tempdir_in(parent)
        .map_err(|e| (parent.to_path_buf(), e))?;
    for (rel, bytes) in files {
        let p = tmp.path().join(rel);
        let shown = out.join(rel);
        if let Some(dir) = p.parent() {
            fs::create_dir_all(dir).map_err(|e| (shown.clone(), e))?;
        }
        fs::write(&p, bytes).map_err(|e| (shown, e))?;
        after(&p);
    }
    // `tempfile` made it 0700; a spec folder is as readable as any folder the person makes.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(tmp.path(), fs::Permissions::from_mode(0o755))
            .map_err(|e| (out.to_path_buf(), e))?;
    }
    // Renamed over `out` (absent, or an empty folder); nothing is left to remove.
    let kept = tmp.keep();
    match fs::rename(&kept, out) {
        Ok(()) => {
            after(out);
            Ok(())
        }
        Err(e) => {
            let _ = fs::remove_dir_all(&kept);
            Err((out.to_path_buf(), e))
        }
    }
}

/// What [`recover`] did: the chapter files an interrupted `--into` import had written without
/// listing them, now removed.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Recovered {
    /// The files removed, relative to the spec folder.
    pub removed: Vec<PathBuf>,
}

/// Finish what an interrupted `--into` import left in `dir`: with its journal there, the chapter
/// files it names whose chapter `contract.yaml` does not list are removed (the import stopped
/// before listing them), and the journal. A chapter listed is kept: the import had finished.
/// Only `<lang>/<name>.md` paths inside `dir` are ever removed, whatever the journal says.
/// `Ok(None)`: no journal.
pub fn recover(dir: &Path) -> io::Result<Option<Recovered>> {
    let journal = dir.join(JOURNAL);
    let text = match fsutil::read_regular(&journal, 1 << 20) {
        Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    let yaml = fsutil::read_text(&dir.join("contract.yaml"))?;
    let listed = listed_chapters(&yaml);
    let mut recovered = Recovered::default();
    for rel in text.lines().filter_map(|l| l.strip_prefix("chapter ")) {
        let rel = Path::new(rel.trim());
        let Some(name) = chapter_of(rel) else {
            continue;
        };
        if listed.contains(name) {
            continue;
        }
        match fs::remove_file(dir.join(rel)) {
            Ok(()) => recovered.removed.push(rel.to_path_buf()),
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => return Err(e),
        }
    }
    fs::remove_file(&journal)?;
    Ok(Some(recovered))
}

/// The chapter name of `rel` when it is `<lang>/<name>.md` (two plain components).
fn chapter_of(rel: &Path) -> Option<&str> {
    let parts: Vec<Component<'_>> = rel.components().collect();
    if parts.len() != 2 || !parts.iter().all(|c| matches!(c, Component::Normal(_))) {
        return None;
    }
    rel.file_name()?.to_str()?.strip_suffix(".md")
}

/// The names in the top-level `chapters:` list of a contract.yaml, written one a line or in
/// brackets (the forms [`add_chapters`] extends).
fn listed_chapters(yaml: &str) -> BTreeSet<&str> {
    let mut out = BTreeSet::new();
    let mut lines = yaml.lines().skip_while(|l| !l.starts_with("chapters:"));
    let Some(first) = lines.next() else {
        return out;
    };
    let rest = first["chapters:".len()..].trim();
    if let Some(inner) = rest.strip_prefix('[').and_then(|r| r.split(']').next()) {
        out.extend(inner.split(',').map(str::trim).filter(|n| !n.is_empty()));
        return out;
    }
    for l in lines {
        let t = l.trim_start();
        if let Some(name) = t.strip_prefix("- ") {
            out.insert(name.split('#').next().unwrap_or("").trim());
        } else if !(t.is_empty() || t.starts_with('#')) {
            break;
        }
    }
    out
}

/// Add `chapters` to the spec folder `dir`: each as `<lang>/<name>.md`, a new file (an existing
/// one stops the import, K1005, before anything is written), and its name appended to the
/// `chapters:` of `contract.yaml`, the rest of which is kept as written. Returns the names added.
/// Chapters are written first, then `images` (new files of `images/`, by name), `contract.yaml`
/// last, each atomically, under a journal (see the module); on a failure to write, what was
/// written is removed and `contract.yaml` is as it was. An image left by a killed import is
/// harmless (no chapter listed shows it) and the next import finds it the same.
pub fn merge_into(
    dir: &Path,
    lang: &str,
    chapters: &[(String, String)],
    images: &[(String, Vec<u8>)],
    after: After<'_>,
) -> Result<Vec<String>, Diagnostic> {
    let yaml_path = dir.join("contract.yaml");
    // Read and written back as it was saved (a byte-order mark, Windows line ends).
    let raw = fsutil::read_text(&yaml_path).map_err(|e| {
        Diagnostic::error(
            "K1003",
            format!("`{}` cannot be read: {e}", yaml_path.display()),
        )
        .in_file(&yaml_path)
    })?;
    let encoding = fsutil::Encoding::of(&raw);
    let yaml = fsutil::plain_text(raw);
    let rel = |name: &str| PathBuf::from(lang).join(format!("{name}.md"));
    for (name, _) in chapters {
        let path = dir.join(rel(name));
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
    let journal: String = std::iter::once(
        "# kcontract import --into, not finished: the next import removes these files unless contract.yaml lists them\n".to_string(),
    )
    .chain(
        names
            .iter()
            .map(|n| format!("chapter {}\n", rel(n).display())),
    )
    .collect();
    let mut written: Vec<PathBuf> = Vec::new();
    let result = (|| {
        let journal_path = dir.join(JOURNAL);
        write_atomic(&journal_path, journal.as_bytes()).map_err(|e| (journal_path.clone(), e))?;
        after(&journal_path);
        for (name, text) in chapters {
            let path = dir.join(rel(name));
            if let Some(parent) = path.parent() {
                fs::create_dir_all(parent).map_err(|e| (path.clone(), e))?;
            }
            write_atomic(&path, text.as_bytes()).map_err(|e| (path.clone(), e))?;
            written.push(path.clone());
            after(&path);
        }
        for (name, bytes) in images {
            let path = dir.join(kcontract_spec::IMAGES_FOLDER).join(name);
            if let Some(parent) = path.parent() {
                fs::create_dir_all(parent).map_err(|e| (path.clone(), e))?;
            }
            write_atomic(&path, bytes).map_err(|e| (path.clone(), e))?;
            written.push(path.clone());
            after(&path);
        }
        write_atomic(&yaml_path, encoding.apply(&merged).as_bytes())
            .map_err(|e| (yaml_path.clone(), e))?;
        after(&yaml_path);
        // Finished: what the journal names is listed now. A failure to remove it is harmless
        // (the next import finds every chapter listed and only removes the journal).
        if fs::remove_file(&journal_path).is_ok() {
            after(&journal_path);
        }
        Ok(())
    })();
    result.map_err(|(path, e): (PathBuf, io::Error)| {
        for p in &written {
            let _ = fs::remove_file(p);
        }
        let _ = fs::remove_file(dir.join(JOURNAL));
        Diagnostic::error("K1003", format!("`{}` cannot be written: {e}", path.display()))
            .in_file(&path)
            .help("check that the folder is writable; the new files were removed again and contract.yaml is as it was")
    })?;
    Ok(names)
}

/// `yaml` (a contract.yaml) with `names` appended to its top-level `chapters:` list, written
/// one name a line (`  - name`, as `init` writes it) or in brackets on the key's line; `None` for
/// any other form. Every other line is kept as it is.
pub fn add_chapters(yaml: &str, names: &[String]) -> Option<String> {
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

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn listed_chapters_read_both_forms() {
        let l = listed_chapters("title: T\nchapters:\n  - a\n  # c\n  - b # x\nactors: [y]\n");
        assert_eq!(l, BTreeSet::from(["a", "b"]));
        let l = listed_chapters("chapters: [a, b]\n");
        assert_eq!(l, BTreeSet::from(["a", "b"]));
    }

    /// A journal naming a listed chapter, an unlisted one, a path outside the folder and a file
    /// that is not a chapter: only the unlisted chapter is removed.
    #[test]
    fn recovery_removes_only_unlisted_chapters() {
        let tmp = tempfile::tempdir().unwrap();
        let d = tmp.path();
        fs::create_dir_all(d.join("en")).unwrap();
        fs::write(d.join("contract.yaml"), "chapters:\n  - a\n").unwrap();
        for f in ["en/a.md", "en/b.md", "keep.md", "en/c.txt"] {
            fs::write(d.join(f), "x").unwrap();
        }
        fs::write(
            d.join(JOURNAL),
            "# j\nchapter en/a.md\nchapter en/b.md\nchapter ../keep.md\nchapter en/c.txt\nchapter en/gone.md\n",
        )
        .unwrap();
        let r = recover(d).unwrap().unwrap();
        assert_eq!(r.removed, [PathBuf::from("en/b.md")]);
        assert!(d.join("en/a.md").exists() && d.join("keep.md").exists());
        assert!(d.join("en/c.txt").exists() && !d.join(JOURNAL).exists());
        assert_eq!(recover(d).unwrap(), None);
    }
}
