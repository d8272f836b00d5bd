//! Clean-up of what a runtime leaves behind: the marker that disarms a sequence's hooks, the
//! sessions of processes that died without running destructors, and the listings (containers,
//! cgroup folders) the clean-up and the tests check.

use std::path::{Path, PathBuf};

use crate::conformance::oci::{OciRuntime, RuntimeCli};

/// The clean-up marker's name in a sequence's folder: once it exists, every hook of the sequence's
/// containers succeeds without logging, so that a configured failing poststop hook cannot stop the
/// clean-up (youki refuses even `delete --force` while a poststop hook fails).
pub(crate) const DISARM: &str = "cleanup";

/// Creates the clean-up marker in every sequence folder under `work`.
pub(super) fn disarm_all(work: &Path) {
    if let Ok(entries) = std::fs::read_dir(work) {
        for e in entries.flatten() {
            if e.file_name().to_string_lossy().starts_with("seq-") {
                let _ = std::fs::write(e.path().join(DISARM), b"");
            }
        }
    }
}

/// Removes what sessions of processes that no longer exist left behind (a test run killed by a
/// signal runs no destructors): for each `kcontract-kc<runtime>-<pid>-<n>` folder in the temporary
/// folder whose process is gone, the containers in its state folder are force-deleted, empty
/// cgroups named after it removed, and the folder deleted. Sessions of live processes (another
/// test run) are left alone.
pub(crate) fn sweep_stale_sessions(
    cli_for: impl Fn(&Path) -> Option<RuntimeCli>,
    kind: OciRuntime,
) {
    let marker = format!("kcontract-kc{}-", kind.as_str());
    let Ok(entries) = std::fs::read_dir(std::env::temp_dir()) else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let Some(rest) = name.strip_prefix(&marker) else {
            continue;
        };
        let Some(pid) = rest.split('-').next().and_then(|p| p.parse::<i64>().ok()) else {
            continue;
        };
        if pid == i64::from(std::process::id()) || Path::new(&format!("/proc/{pid}")).exists() {
            continue;
        }
        let work = e.path();
        disarm_all(&work);
        if let Some(cli) = cli_for(&work)
            && let Ok(out) = cli.run(&["list", "-q"])
        {
            for id in parse_list(&out.stdout) {
                let _ = cli.run(&["delete", "--force", &id]);
            }
        }
        let prefix = format!("{}-", name.trim_start_matches("kcontract-"));
        for dir in cgroup_dirs_with_prefix(Path::new("/sys/fs/cgroup"), &prefix, 3)
            .into_iter()
            .rev()
        {
            let _ = std::fs::remove_dir(dir);
        }
        let _ = std::fs::remove_dir_all(&work);
    }
}

/// The container IDs in `list -q` output: runc and crun print one per line, youki 0.7 prints its
/// whole table (header `ID PID STATUS …`) regardless of `-q`; the ID is the first column.
pub(crate) fn parse_list(stdout: &str) -> Vec<String> {
    stdout
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .filter(|id| !matches!(*id, "ID" | "NAME"))
        .map(str::to_owned)
        .collect()
}

/// Cgroup folders (up to `depth` levels under `root`) named after a container ID starting with
/// `prefix`. runc and crun name a container's cgroup after its ID; youki 0.7 names it
/// `:youki:<ID>`.
pub fn cgroup_dirs_with_prefix(root: &Path, prefix: &str, depth: usize) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let Ok(entries) = std::fs::read_dir(root) else {
        return found;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if !entry.file_type().is_ok_and(|t| t.is_dir()) {
            continue;
        }
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with(prefix)
            || name
                .rsplit(':')
                .next()
                .is_some_and(|n| n.starts_with(prefix))
        {
            found.push(path.clone());
        }
        if depth > 1 {
            found.extend(cgroup_dirs_with_prefix(&path, prefix, depth - 1));
        }
    }
    found.sort();
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn list_output_of_every_runtime_gives_the_ids() {
        assert_eq!(parse_list("kc-1-ia\nkc-1-ib\n"), ["kc-1-ia", "kc-1-ib"]);
        let youki = "ID  PID    STATUS   BUNDLE  CREATED  CREATOR\nkc-1-ia  19400  Running  /b  2026  root\n";
        assert_eq!(parse_list(youki), ["kc-1-ia"]);
        assert!(parse_list("ID  PID  STATUS  BUNDLE  CREATED  CREATOR\n").is_empty());
        assert!(parse_list("").is_empty());
    }
}
