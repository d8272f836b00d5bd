//! The `tests:` globs of `contract.yaml`: how one pattern is compiled, and the files a set of them
//! selects.
//!
//! A leaf module (std and globset only): the spec loader validates the patterns (K0507) and the test
//! scan walks the files they select, and the loader must not depend on the scan, a later stage.

use std::collections::BTreeSet;
use std::fs;
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

    /// Excludes win over includes.
    pub(crate) fn matches(&self, rel: &str) -> bool {
        self.include.is_match(rel) && !self.exclude.is_match(rel)
    }

    /// Every matching file under `root`, as sorted `/`-separated relative paths. Hidden folders and
    /// `target/` are not entered; symbolic links are not followed.
    pub(crate) fn files(&self, root: &Path) -> Vec<String> {
        let mut out = BTreeSet::new();
        for base in &self.bases {
            let mut stack = vec![base.clone()];
            while let Some(rel) = stack.pop() {
                let abs = root.join(&rel);
                let Ok(meta) = fs::symlink_metadata(&abs) else {
                    continue;
                };
                if meta.is_file() {
                    let s = rel.to_string_lossy().replace('\\', "/");
                    if self.matches(&s) {
                        out.insert(s);
                    }
                    continue;
                }
                if !meta.is_dir() {
                    continue;
                }
                let Ok(entries) = fs::read_dir(&abs) else {
                    continue;
                };
                for e in entries.flatten() {
                    let name = e.file_name().to_string_lossy().into_owned();
                    if name.starts_with('.') || (name == "target" && rel.as_os_str().is_empty()) {
                        continue;
                    }
                    stack.push(rel.join(name));
                }
            }
        }
        out.into_iter().collect()
    }
}
