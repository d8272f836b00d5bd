//! A spec folder as it is in a git revision, read from git's objects without a checkout.
//!
//! `git` runs as a subprocess (`ls-tree` for the names, one `cat-file --batch` for all contents):
//! every machine that has a repository has git, it reads every repository format git does, and a
//! library (gix, git2) would add a large dependency for two read-only commands.

use std::collections::BTreeMap;
use std::io;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};

use kcontract_spec::Tree;
use kcontract_spec::diagnostic::Diagnostic;

/// Why a revision could not be read. [`GitError::diagnostic`] is K0801 for all but
/// [`GitError::UnknownRevision`], which is the person's mistake: the binary shows it as a usage
/// error ([`GitError::is_usage`]).
#[derive(Debug, thiserror::Error)]
pub enum GitError {
    /// The revision does not exist (git failed without a word: `rev-parse --quiet`).
    #[error("`{rev}` is not a revision of this repository")]
    UnknownRevision {
        /// The revision as given.
        rev: String,
    },
    /// `rev-parse` failed: not a repository, or git could not run.
    #[error("cannot read revision `{rev}`: {source}")]
    Resolve {
        /// The revision as given.
        rev: String,
        /// What git did.
        source: GitRun,
    },
    /// `ls-tree` failed.
    #[error("cannot list `{rel}` in `{rev}`: {source}")]
    List {
        /// The revision as given.
        rev: String,
        /// The folder listed.
        rel: String,
        /// What git did.
        source: GitRun,
    },
    /// `cat-file --batch` failed.
    #[error("cannot read the files of `{rev}`: {source}")]
    Read {
        /// The revision as given.
        rev: String,
        /// What git did.
        source: GitRun,
    },
    /// `cat-file` answered a file with a header that is not `<object> blob <size>`.
    #[error("git did not return `{}`: {header}", path.display())]
    Missing {
        /// The file asked for.
        path: PathBuf,
        /// The header git wrote instead.
        header: String,
    },
    /// `cat-file`'s output ended before the file did.
    #[error("git's output ended inside `{}`", path.display())]
    Truncated {
        /// The file being read.
        path: PathBuf,
    },
}

impl GitError {
    /// A revision that does not exist: a usage error (exit 2), not a failure of git.
    pub fn is_usage(&self) -> bool {
        matches!(self, GitError::UnknownRevision { .. })
    }

    /// What to do about it.
    pub fn help(&self) -> &'static str {
        match self {
            GitError::UnknownRevision { .. } => {
                "name a commit git knows (HEAD, HEAD~1, a branch, a tag, a hash); `git log --oneline` lists them"
            }
            GitError::Resolve { .. } => {
                "run kcontract diff inside the git repository that holds the spec, or compare two folders: kcontract diff OLD NEW"
            }
            GitError::List { .. } => "check that the folder is inside a git repository",
            GitError::Read { .. } | GitError::Missing { .. } | GitError::Truncated { .. } => {
                "check the repository with `git fsck`"
            }
        }
    }

    /// The diagnostic the binary shows: K0801 (a git revision cannot be read), with the help.
    pub fn diagnostic(&self) -> Diagnostic {
        Diagnostic::error("K0801", self.to_string()).help(self.help())
    }
}

/// A `git` subprocess that did not give its output: the arguments it was run with, and why.
#[derive(Debug, thiserror::Error)]
pub enum GitRun {
    /// It could not be started (git is not installed, or not on `PATH`).
    #[error("git cannot be run ({source})")]
    Start {
        /// `git`'s arguments.
        args: Vec<String>,
        /// The error of starting it.
        source: io::Error,
    },
    /// Its output could not be read.
    #[error("git failed ({source})")]
    Wait {
        /// `git`'s arguments.
        args: Vec<String>,
        /// The error of reading its output.
        source: io::Error,
    },
    /// It exited with a failure; `stderr` is the first line it wrote (empty when it wrote none).
    #[error("{stderr}")]
    Exit {
        /// `git`'s arguments.
        args: Vec<String>,
        /// How it exited.
        status: ExitStatus,
        /// The first line of its error output, trimmed.
        stderr: String,
    },
}

/// The files below `spec_dir` in revision `rev`, keyed `REV:<spec_dir>/…` (the name git gives an
/// object of a revision), and that folder's name. `spec_dir` is a folder of the working tree's
/// repository, as given to `--spec`.
pub fn read_revision(rev: &str, spec_dir: &Path) -> Result<(Tree, PathBuf), GitError> {
    let root = PathBuf::from(format!("{rev}:{}", spec_dir.display()));
    // The folder may be missing from the working tree (deleted, or not yet created): then ask from
    // the nearest folder above it that exists, with the rest as the path.
    let (cwd, rel) = existing_ancestor(spec_dir);
    let commit = resolve(&cwd, rev)?;
    let files = read_files(&cwd, rev, &commit, &rel, |_| true)?;
    let files = files
        .into_iter()
        .map(|(path, bytes)| (root.join(path), bytes))
        .collect();
    Ok((Tree::Memory(files), root))
}

/// The files of revision `rev` in the whole repository holding `spec_dir` that `keep` selects
/// (by their path from the repository's top), and where `spec_dir` is among them (its path from
/// the top): the project's Rust files and manifests, for the test scan of that revision. `spec_dir`
/// may be relative to the working directory or absolute: the same files are read either way.
pub fn project_files(
    rev: &str,
    spec_dir: &Path,
    keep: impl Fn(&Path) -> bool,
) -> Result<(BTreeMap<PathBuf, Vec<u8>>, PathBuf), GitError> {
    let (cwd, rest) = existing_ancestor(spec_dir);
    let top =
        git(&cwd, &["rev-parse", "--show-toplevel"], None).map_err(|source| GitError::Resolve {
            rev: rev.to_owned(),
            source,
        })?;
    let top = PathBuf::from(String::from_utf8_lossy(&top).trim());
    // The spec folder from the top: its existing part resolved as git resolved the top.
    let here = std::fs::canonicalize(&cwd).unwrap_or(cwd);
    let top_real = std::fs::canonicalize(&top).unwrap_or(top.clone());
    let mut spec = here
        .strip_prefix(&top_real)
        .map(Path::to_path_buf)
        .unwrap_or_default();
    if rest != "." {
        spec.push(rest);
    }
    let commit = resolve(&top, rev)?;
    let files = read_files(&top, rev, &commit, ".", keep)?;
    Ok((files, spec))
}

/// A temporary folder for a revision's files, named unpredictably (no other user can make it
/// first, or guess it to plant a link) and removed when dropped, on every way out of the command
/// that unwinds; the command removes it on a signal itself ([`Scratch::path`]).
pub struct Scratch(tempfile::TempDir);

impl Scratch {
    /// A new empty folder in the system's temporary folder (`TMPDIR`), readable by its owner only.
    pub fn new() -> std::io::Result<Scratch> {
        tempfile::Builder::new()
            .prefix("kcontract-diff-")
            .tempdir()
            .map(Scratch)
    }

    /// Where it is.
    pub fn path(&self) -> &Path {
        self.0.path()
    }

    /// Write `files` (paths relative to the folder) into it.
    pub fn put(&self, files: &BTreeMap<PathBuf, Vec<u8>>) -> std::io::Result<()> {
        for (rel, bytes) in files {
            let p = self.0.path().join(rel);
            if let Some(dir) = p.parent() {
                std::fs::create_dir_all(dir)?;
            }
            std::fs::write(p, bytes)?;
        }
        Ok(())
    }
}

/// The commit `rev` names.
fn resolve(cwd: &Path, rev: &str) -> Result<String, GitError> {
    let commit = git(
        cwd,
        &[
            "rev-parse",
            "--verify",
            "--quiet",
            &format!("{rev}^{{commit}}"),
        ],
        None,
    )
    .map_err(|e| match e {
        // With --quiet, git says nothing about a revision that does not exist.
        GitRun::Exit { stderr, .. } if stderr.is_empty() => GitError::UnknownRevision {
            rev: rev.to_owned(),
        },
        source => GitError::Resolve {
            rev: rev.to_owned(),
            source,
        },
    })?;
    Ok(String::from_utf8_lossy(&commit).trim().to_owned())
}

/// The files below `rel` (a path from `cwd`) in `commit` that `keep` selects, keyed by their path
/// below `rel`.
fn read_files(
    cwd: &Path,
    rev: &str,
    commit: &str,
    rel: &str,
    keep: impl Fn(&Path) -> bool,
) -> Result<BTreeMap<PathBuf, Vec<u8>>, GitError> {
    let listing =
        git(cwd, &["ls-tree", "-r", "-z", commit, "--", rel], None).map_err(|source| {
            GitError::List {
                rev: rev.to_owned(),
                rel: rel.to_owned(),
                source,
            }
        })?;
    // `<mode> <type> <object>\t<path>`; blobs only (a symbolic link or submodule is not a file).
    let mut entries: Vec<(String, PathBuf)> = Vec::new();
    for record in listing.split(|&b| b == 0).filter(|r| !r.is_empty()) {
        let record = String::from_utf8_lossy(record);
        let Some((meta, path)) = record.split_once('\t') else {
            continue;
        };
        let mut meta = meta.split(' ');
        let (mode, kind, oid) = (meta.next(), meta.next(), meta.next());
        if kind != Some("blob") || mode == Some("120000") {
            continue;
        }
        let Some(oid) = oid else { continue };
        let path = Path::new(path);
        let below = if rel == "." {
            path
        } else {
            match path.strip_prefix(rel) {
                Ok(below) => below,
                Err(_) => continue,
            }
        };
        if keep(below) {
            entries.push((oid.to_owned(), below.to_path_buf()));
        }
    }
    let input: String = entries.iter().map(|(oid, _)| format!("{oid}\n")).collect();
    let blobs = git(cwd, &["cat-file", "--batch"], Some(input.into_bytes())).map_err(|source| {
        GitError::Read {
            rev: rev.to_owned(),
            source,
        }
    })?;
    let mut reader = BufReader::new(blobs.as_slice());
    let mut files = BTreeMap::new();
    for (_, path) in entries {
        let mut header = String::new();
        reader.read_line(&mut header).ok();
        let size: Option<usize> = header
            .trim_end()
            .rsplit(' ')
            .next()
            .and_then(|s| s.parse().ok());
        let Some(size) = size else {
            return Err(GitError::Missing {
                path,
                header: header.trim().to_owned(),
            });
        };
        let mut content = vec![0; size];
        let mut newline = [0u8; 1];
        if reader.read_exact(&mut content).is_err() || reader.read_exact(&mut newline).is_err() {
            return Err(GitError::Truncated { path });
        }
        files.insert(path, content);
    }
    Ok(files)
}

/// The nearest existing folder at or above `dir` and the path from the repository's point of view
/// of `dir` below it (`.`-relative, as `ls-tree` reads a pathspec from its working directory).
fn existing_ancestor(dir: &Path) -> (PathBuf, String) {
    let mut base = dir.to_path_buf();
    let mut rest: Vec<String> = Vec::new();
    loop {
        if base.as_os_str().is_empty() {
            base = PathBuf::from(".");
        }
        if base.is_dir() {
            break;
        }
        match (base.file_name(), base.parent()) {
            (Some(name), Some(parent)) => {
                rest.push(name.to_string_lossy().into_owned());
                base = parent.to_path_buf();
            }
            _ => {
                base = PathBuf::from(".");
                break;
            }
        }
    }
    rest.reverse();
    let rel = if rest.is_empty() {
        ".".to_owned()
    } else {
        rest.join("/")
    };
    (base, rel)
}

/// Run `git ARGS` in `cwd`, with `input` on stdin; its stdout, or why there is none.
fn git(cwd: &Path, args: &[&str], input: Option<Vec<u8>>) -> Result<Vec<u8>, GitRun> {
    let args_owned = || args.iter().map(|a| a.to_string()).collect();
    let mut child = Command::new("git")
        .arg("-C")
        .arg(cwd)
        .args(args)
        .stdin(if input.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|source| GitRun::Start {
            args: args_owned(),
            source,
        })?;
    // Written from a thread: git answers while it reads, and a full pipe would stop both.
    let writer = match (input, child.stdin.take()) {
        (Some(bytes), Some(mut stdin)) => Some(std::thread::spawn(move || {
            let _ = stdin.write_all(&bytes);
        })),
        _ => None,
    };
    let out = child.wait_with_output().map_err(|source| GitRun::Wait {
        args: args_owned(),
        source,
    })?;
    if let Some(w) = writer {
        let _ = w.join();
    }
    if out.status.success() {
        Ok(out.stdout)
    } else {
        let err = String::from_utf8_lossy(&out.stderr);
        Err(GitRun::Exit {
            args: args_owned(),
            status: out.status,
            stderr: err.lines().next().unwrap_or("").trim().to_owned(),
        })
    }
}
