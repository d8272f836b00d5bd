//! A spec folder as it is in a git revision, read from git's objects without a checkout.
//!
//! `git` runs as a subprocess (`ls-tree` for the names, one `cat-file --batch` for all contents):
//! every machine that has a repository has git, it reads every repository format git does, and a
//! library (gix, git2) would add a large dependency for two read-only commands.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use kcontract_spec::Tree;

/// Why a revision could not be read.
#[derive(Debug)]
pub struct GitError {
    /// The revision does not exist (a usage error), rather than git failing.
    pub unknown_revision: bool,
    /// What failed.
    pub message: String,
    /// What to do about it.
    pub help: String,
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

/// The files of revision `rev` below the working directory that `keep` selects (by their path
/// relative to it): the project's Rust files and manifests, for the test scan of that revision.
pub fn project_files(
    rev: &str,
    keep: impl Fn(&Path) -> bool,
) -> Result<BTreeMap<PathBuf, Vec<u8>>, GitError> {
    let cwd = Path::new(".");
    let commit = resolve(cwd, rev)?;
    read_files(cwd, rev, &commit, ".", keep)
}

/// The commit `rev` names.
fn resolve(cwd: &Path, rev: &str) -> Result<String, GitError> {
    let commit = git(
        cwd,
        &["rev-parse", "--verify", "--quiet", &format!("{rev}^{{commit}}")],
        None,
    )
    .map_err(|e| GitError {
        // With --quiet, git says nothing about a revision that does not exist.
        unknown_revision: e.is_empty(),
        message: if e.is_empty() {
            format!("`{rev}` is not a revision of this repository")
        } else {
            format!("cannot read revision `{rev}`: {e}")
        },
        help: if e.is_empty() {
            "name a commit git knows (HEAD, HEAD~1, a branch, a tag, a hash); `git log --oneline` lists them".into()
        } else {
            "run kcontract diff inside the git repository that holds the spec, or compare two folders: kcontract diff OLD NEW".into()
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
        git(cwd, &["ls-tree", "-r", "-z", commit, "--", rel], None).map_err(|e| GitError {
            unknown_revision: false,
            message: format!("cannot list `{rel}` in `{rev}`: {e}"),
            help: "check that the folder is inside a git repository".into(),
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
    let blobs =
        git(cwd, &["cat-file", "--batch"], Some(input.into_bytes())).map_err(|e| GitError {
            unknown_revision: false,
            message: format!("cannot read the files of `{rev}`: {e}"),
            help: "check the repository with `git fsck`".into(),
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
            return Err(GitError {
                unknown_revision: false,
                message: format!("git did not return `{}`: {}", path.display(), header.trim()),
                help: "check the repository with `git fsck`".into(),
            });
        };
        let mut content = vec![0; size];
        let mut newline = [0u8; 1];
        if reader.read_exact(&mut content).is_err() || reader.read_exact(&mut newline).is_err() {
            return Err(GitError {
                unknown_revision: false,
                message: format!("git's output ended inside `{}`", path.display()),
                help: "check the repository with `git fsck`".into(),
            });
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

/// Run `git ARGS` in `cwd`, with `input` on stdin; its stdout, or its stderr's first line (empty
/// when git failed without a word).
fn git(cwd: &Path, args: &[&str], input: Option<Vec<u8>>) -> Result<Vec<u8>, String> {
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
        .map_err(|e| format!("git cannot be run ({e})"))?;
    // Written from a thread: git answers while it reads, and a full pipe would stop both.
    let writer = match (input, child.stdin.take()) {
        (Some(bytes), Some(mut stdin)) => Some(std::thread::spawn(move || {
            let _ = stdin.write_all(&bytes);
        })),
        _ => None,
    };
    let out = child
        .wait_with_output()
        .map_err(|e| format!("git failed ({e})"))?;
    if let Some(w) = writer {
        let _ = w.join();
    }
    if out.status.success() {
        Ok(out.stdout)
    } else {
        let err = String::from_utf8_lossy(&out.stderr);
        let first = err.lines().next().unwrap_or("").trim();
        Err(first.to_owned())
    }
}
