//! The `tests:` globs of `contract.yaml`: how one pattern is compiled, and the files a set of them
//! selects.
//!
//! A leaf module (std, globset and walkdir only): the spec loader validates the patterns (K0507) and the test
//! scan walks the files they select, and the loader must not depend on the scan, a later stage.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// One pattern as `tests:` means it: `/`-separated, `*` stays within a folder (`**` crosses
/// folders), `\` escapes. The loader reports an `Err` as K0507.
pub(crate) fn glob(pattern: &str) -> Result<globset::Glob, globset::Error> {
    globset::GlobBuilder::new(pattern)
        .literal_separator(true)
        .backslash_escape(true)
        .build()
}

/// Why `pattern` is not a `tests:` glob (an absolute path, or one that does not parse), or
/// `None` when it is one: for the readers of globs other than contract.yaml's (`kcontract.toml`).
pub fn wrong_glob(pattern: &str) -> Option<String> {
    if pattern.starts_with('/') {
        return Some("an absolute path: patterns are relative to the folder of the file".into());
    }
    glob(pattern).err().map(|e| e.kind().to_string())
}

/// The compiled include and exclude globs. Invalid patterns were reported by the spec loader
/// (K0507) before any scan, so here they are skipped, not errors.
pub struct GlobMatcher {
    include: globset::GlobSet,
    exclude: globset::GlobSet,
    /// Literal leading directories of the include globs: the only folders walked.
    bases: Vec<PathBuf>,
}

impl GlobMatcher {
    /// The files matching one of `include` and none of `exclude` (globs relative to a root).
    pub fn new(include: &[String], exclude: &[String]) -> Self {
        let set = |pats: &[String]| {
            let mut b = globset::GlobSetBuilder::new();
            for p in pats {
                if let Ok(g) = glob(p) {
                    b.add(g);
                }
            }
            b.build().unwrap_or_else(|_| globset::GlobSet::empty())
        };
        let mut bases: Vec<PathBuf> = include
            .iter()
            .map(|p| {
                let mut base = PathBuf::new();
                for c in p.split('/') {
                    if c.contains(['*', '?', '[', '{', '\\']) {
                        break;
                    }
                    base.push(c);
                }
                base
            })
            .collect();
        bases.sort();
        bases.dedup();
        Self {
            include: set(include),
            exclude: set(exclude),
            bases,
        }
    }

    /// The literal leading folders of the include globs (`""` for a glob starting with a
    /// wildcard): the folders `files` walks, and `kcontract serve` watches.
    pub fn bases(&self) -> &[PathBuf] {
        &self.bases
    }

    /// Excludes win over includes.
    pub fn matches(&self, rel: &str) -> bool {
        self.include.is_match(rel) && !self.exclude.is_match(rel)
    }

    /// Every matching file under `root`, as sorted `/`-separated relative paths. Hidden folders and
    /// `target/` are not entered; symbolic links are not followed.
    pub fn files(&self, root: &Path) -> Vec<String> {
        let mut out = BTreeSet::new();
        for base in &self.bases {
            // walkdir tells files from folders by the directory entry's type, so a file costs no
            // `stat` of its own.
            let walk = walkdir::WalkDir::new(root.join(base))
                .follow_links(false)
                .into_iter()
                .filter_entry(|e| {
                    let name = e.file_name().to_string_lossy();
                    let top_target = name == "target" && e.path().parent() == Some(root);
                    e.depth() == 0 || !(name.starts_with('.') || top_target)
                });
            for e in walk.flatten() {
                if !e.file_type().is_file() {
                    continue;
                }
                let Ok(rel) = e.path().strip_prefix(root) else {
                    continue;
                };
                let s = rel.to_string_lossy().replace('\\', "/");
                if self.matches(&s) {
                    out.insert(s);
                }
            }
        }
        out.into_iter().collect()
    }
}

/// Where a scan walks and the globs it matches there, after [`rebase`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rooted {
    /// The folder walked; `.` when it is the working directory.
    pub root: PathBuf,
    /// The include globs, relative to `root`.
    pub include: Vec<String>,
    /// The exclude globs, relative to `root`.
    pub exclude: Vec<String>,
}

/// Globs written relative to `base` (the folder of `contract.yaml`), turned into globs relative
/// to one folder that all of them lie under, so that a scan finds the same files from any working
/// directory. `../tests/**/*.rs` from `spec/` walks `tests/` of the folder above; a glob that goes
/// up fewer levels than another is prefixed with the names of the folders it stays in (read from
/// the real path of `base`, escaped so that they match literally).
pub fn rebase(base: &Path, include: &[String], exclude: &[String]) -> Rooted {
    let ups = |p: &str| {
        let mut n = 0;
        let mut rest = p;
        while let Some(r) = rest.strip_prefix("../") {
            n += 1;
            rest = r.trim_start_matches("./");
        }
        (n, rest.trim_start_matches("./").to_string())
    };
    let up = include
        .iter()
        .chain(exclude)
        .map(|p| ups(p).0)
        .max()
        .unwrap_or(0);
    // The names of `base`'s last `up` folders, outermost first (only needed when a glob goes up
    // fewer levels than `up`).
    let real = std::fs::canonicalize(base).unwrap_or_else(|_| base.to_path_buf());
    let names: Vec<String> = real
        .components()
        .filter_map(|c| match c {
            std::path::Component::Normal(n) => Some(escape(&n.to_string_lossy())),
            _ => None,
        })
        .collect();
    let prefix = |k: usize| -> String {
        let keep = up - k;
        let from = names.len().saturating_sub(keep);
        names[from..].iter().map(|n| format!("{n}/")).collect()
    };
    let map = |pats: &[String]| -> Vec<String> {
        pats.iter()
            .map(|p| {
                let (k, rest) = ups(p);
                format!("{}{rest}", prefix(k))
            })
            .collect()
    };
    let mut root = PathBuf::new();
    for c in base.components() {
        match c {
            std::path::Component::CurDir => {}
            c => root.push(c),
        }
    }
    for _ in 0..up {
        let last_is_normal = matches!(
            root.components().next_back(),
            Some(std::path::Component::Normal(_))
        );
        if last_is_normal {
            root.pop();
        } else {
            root.push("..");
        }
    }
    if root.as_os_str().is_empty() {
        root.push(".");
    }
    Rooted {
        root,
        include: map(include),
        exclude: map(exclude),
    }
}

/// A folder name as a glob that matches it literally.
fn escape(name: &str) -> String {
    let mut s = String::new();
    for c in name.chars() {
        if matches!(c, '*' | '?' | '[' | ']' | '{' | '}' | '\\') {
            s.push('\\');
        }
        s.push(c);
    }
    s
}

/// `rel` (a path a scan of `root` found) as a path usable from the working directory.
pub fn under(root: &Path, rel: &str) -> PathBuf {
    if root == Path::new(".") {
        PathBuf::from(rel)
    } else {
        root.join(rel)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Globs relative to the spec folder become globs relative to the folder they all lie in.
    #[test]
    fn rebase_walks_from_the_common_folder() {
        let r = rebase(
            Path::new("spec"),
            &["../tests/**/*.rs".into(), "../src/**/*.rs".into()],
            &["../tests/fixtures/**".into()],
        );
        assert_eq!(r.root, Path::new("."));
        assert_eq!(r.include, ["tests/**/*.rs", "src/**/*.rs"]);
        assert_eq!(r.exclude, ["tests/fixtures/**"]);
        let r = rebase(Path::new("a/b/spec"), &["../t/*.rs".into()], &[]);
        assert_eq!(r.root, Path::new("a/b"));
        let r = rebase(Path::new("/x/spec"), &["t/*.rs".into()], &[]);
        assert_eq!(
            (r.root.as_path(), r.include[0].as_str()),
            (Path::new("/x/spec"), "t/*.rs")
        );
        let r = rebase(Path::new("../spec"), &["../../t/*.rs".into()], &[]);
        assert_eq!(r.root, Path::new("../.."));
        // A glob staying below `base` while another goes up keeps `base`'s name.
        let tmp = tempfile::tempdir().unwrap();
        let base = tmp.path().join("sp[e]c");
        std::fs::create_dir(&base).unwrap();
        let r = rebase(&base, &["../t/*.rs".into(), "own/*.rs".into()], &[]);
        assert_eq!(r.include, ["t/*.rs", "sp\\[e\\]c/own/*.rs"]);
    }

    /// What the walk enters and what it leaves out: hidden folders, the root's `target/`, excluded
    /// paths; a `target` folder deeper down is an ordinary folder.
    #[test]
    fn files_walks_what_the_globs_select() {
        let tmp = tempfile::tempdir().unwrap();
        for rel in [
            "tests/a.rs",
            "tests/.hidden/b.rs",
            "tests/fixtures/c.rs",
            "target/d.rs",
            "src/target/e.rs",
            "src/f.txt",
            "g.rs",
        ] {
            let p = tmp.path().join(rel);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, "").unwrap();
        }
        let m = GlobMatcher::new(&["**/*.rs".into()], &["tests/fixtures/**".into()]);
        assert_eq!(
            m.files(tmp.path()),
            ["g.rs", "src/target/e.rs", "tests/a.rs"]
        );
        let m = GlobMatcher::new(&["tests/**/*.rs".into(), "src/**/*.rs".into()], &[]);
        assert_eq!(
            m.files(tmp.path()),
            ["src/target/e.rs", "tests/a.rs", "tests/fixtures/c.rs"]
        );
    }
}
