//! Running the real binary on a project folder, the way a user does.

#![allow(clippy::disallowed_methods)] // shared with tests/contract: tests read the files they wrote (clippy.toml)

use std::path::{Path, PathBuf};
use std::process::Command;

/// This repository's root (the crate's manifest folder).
pub(crate) fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `kcontract --color never ARGS`, run in `dir`: the exit code (-1 for a signal), stdout, stderr.
pub(crate) fn kcontract(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_kcontract"))
        .current_dir(dir)
        .args(["--color", "never"])
        .args(args)
        .output()
        .expect("the kcontract binary runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Copy a folder (hidden files included, `target/` folders left out) into `to`.
pub(crate) fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let p = e.path();
        if p.is_dir() {
            if e.file_name() != "target" {
                copy_dir(&p, &to.join(e.file_name()));
            }
        } else {
            std::fs::copy(&p, to.join(e.file_name())).unwrap();
        }
    }
}

/// A copy of the repository's `spec/` at `dir/spec` with clause `id` renamed `new` in both
/// languages of `chapter` (another version of the contract, for the platform commands' K1108).
pub(crate) fn spec_with_clause_renamed(dir: &Path, chapter: &str, id: &str, new: &str) {
    copy_dir(&root().join("spec"), &dir.join("spec"));
    for lang in ["en", "zh"] {
        let p = dir.join(format!("spec/{lang}/{chapter}.md"));
        let text = std::fs::read_to_string(&p).unwrap();
        let renamed = text.replace(&format!("id: {id}\n"), &format!("id: {new}\n"));
        assert_ne!(text, renamed, "{} has no clause {id}", p.display());
        std::fs::write(&p, renamed).unwrap();
    }
}

/// A named pipe (FIFO) at `path`, with no writer: what a reader must refuse at once rather than
/// wait on forever.
pub(crate) fn mkfifo(path: &Path) {
    nix::unistd::mkfifo(path, nix::sys::stat::Mode::S_IRWXU).unwrap();
}
