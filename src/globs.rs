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

/// The compiled include and exclude globs. Invalid patterns were reported by the spec loader
/// (K0507) before any scan, so here they are skipped, not errors.
pub(crate) struct GlobMatcher {
    include: globset::GlobSet,
    exclude: globset::GlobSet,
    /// Literal leading directories of the include globs: the only folders walked.
    bases: Vec<PathBuf>,
}

impl GlobMatcher {
    pub(crate) fn new(include: &[String], exclude: &[String]) -> Self {
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
    pub(crate) fn bases(&self) -> &[PathBuf] {
        &self.bases
    }

    /// Excludes win over includes.
    pub(crate) fn matches(&self, rel: &str) -> bool {
        self.include.is_match(rel) && !self.exclude.is_match(rel)
    }

    /// Every matching file under `root`, as sorted `/`-separated relative paths. Hidden folders and
    /// `target/` are not entered; symbolic links are not followed.
    pub(crate) fn files(&self, root: &Path) -> Vec<String> {
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

#[cfg(test)]
mod tests {
    use super::*;

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
