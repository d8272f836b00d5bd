//! Where a run of `scaffold` writes: a folder of test modules, in this project or in a crate of
//! its own.

use std::path::{Component, Path, PathBuf};

/// Where `scaffold` writes.
#[derive(Clone, Debug)]
pub struct Target {
    /// The project whose tests are scanned for real tests (the crate root in `--crate` mode).
    pub root: PathBuf,
    /// The folder of test modules.
    pub dir: PathBuf,
    /// `--crate NAME`: also write `Cargo.toml` and `src/lib.rs` into `root` when missing.
    crate_name: Option<String>,
    /// `--crate`, `--tests-root`/`--manifest-path`, or a kcontract.toml here: a crate of its own.
    own_crate: bool,
    /// The language of the stubs (Rust unless [`Target::writing`] says otherwise).
    pub stubs: super::Stubs,
}

impl Target {
    /// `--crate NAME [--out DIR]`: the crate in DIR (default ./NAME); else the crate of
    /// `--tests-root`/`--manifest-path` or of a kcontract.toml in the working directory
    /// (`crate_root`), its `tests/contract` unless `--out` says otherwise; else this project's
    /// `tests/contract`.
    pub fn new(
        out: Option<PathBuf>,
        crate_name: Option<String>,
        crate_root: Option<PathBuf>,
    ) -> Self {
        match (crate_name, crate_root) {
            (Some(name), _) => {
                let root = out.unwrap_or_else(|| PathBuf::from(&name));
                Self {
                    dir: root.join("tests").join("contract"),
                    root,
                    crate_name: Some(name),
                    own_crate: true,
                    stubs: super::Stubs::Rust,
                }
            }
            (None, Some(root)) => Self {
                dir: out.unwrap_or_else(|| tidy(&root.join("tests").join("contract"))),
                root,
                crate_name: None,
                own_crate: true,
                stubs: super::Stubs::Rust,
            },
            (None, None) => Self {
                root: PathBuf::from("."),
                dir: out.unwrap_or_else(|| PathBuf::from("tests/contract")),
                crate_name: None,
                own_crate: false,
                stubs: super::Stubs::Rust,
            },
        }
    }

    /// Whether this is a crate of its own (scanned with Cargo's layout in [`Self::root`]), not
    /// this project (scanned with the `tests:` globs of contract.yaml).
    pub fn is_crate(&self) -> bool {
        self.own_crate
    }

    /// The same target, its stubs written in another language.
    pub fn writing(self, stubs: super::Stubs) -> Self {
        Self { stubs, ..self }
    }

    /// `--crate NAME`: the name of the crate whose other files are written when missing.
    pub(super) fn crate_name(&self) -> Option<&str> {
        self.crate_name.as_deref()
    }
}

/// `./x` as `x`, as a user would write it.
fn tidy(p: &Path) -> PathBuf {
    p.strip_prefix(".")
        .map_or_else(|_| p.to_path_buf(), Path::to_path_buf)
}

/// The spec folder as the crate's kcontract.toml names it: relative to the crate (which need not
/// exist yet), so that the pair can move together and no machine's absolute path is written.
pub(super) fn spec_from(spec: &Path, root: &Path) -> String {
    let (s, r) = (absolute(spec), absolute(root));
    let mut up = PathBuf::new();
    let mut base = r.as_path();
    loop {
        if let Ok(rest) = s.strip_prefix(base) {
            return up.join(rest).display().to_string();
        }
        match base.parent() {
            Some(p) => {
                up.push("..");
                base = p;
            }
            None => return s.display().to_string(),
        }
    }
}

/// `p` made absolute: canonical when it exists; else the working directory joined and `.`/`..`
/// taken lexically, the parent canonical when that exists.
fn absolute(p: &Path) -> PathBuf {
    std::fs::canonicalize(p).unwrap_or_else(|_| {
        // Not there yet: the working directory joined and `.`/`..` taken lexically.
        let joined = std::env::current_dir().map_or_else(|_| p.to_path_buf(), |d| d.join(p));
        let mut out = PathBuf::new();
        for c in joined.components() {
            match c {
                Component::CurDir => {}
                Component::ParentDir => {
                    out.pop();
                }
                c => out.push(c),
            }
        }
        match out.parent().and_then(|p| std::fs::canonicalize(p).ok()) {
            Some(parent) => parent.join(out.file_name().unwrap_or_default()),
            None => out,
        }
    })
}
