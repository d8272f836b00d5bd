//! Nothing lost, nothing leaked (issue #38): what kcontract reads and writes stays inside its
//! bounds, whatever the input and however the process ends.
//!
//! - `build --out` replaces only an empty folder or a site kcontract built; a person's folder, the
//!   spec folder, the project, a gh-pages checkout's files, a read-only folder are refused and left
//!   as they were;
//! - the spec folder is a boundary: a chapter or `contract.yaml` linked out of it is not read, and
//!   its text reaches no output; FIFOs and devices are refused at once;
//! - chapter names of the site's own pages are refused;
//! - the swap of a new site leaves the old site or the new one, whole, wherever the process is
//!   killed (fault injection at each rename, and kills at random moments); killed builds' leftovers
//!   are swept; two builds into one folder do not mix;
//! - files rewritten in place (`fmt`) keep their mode, their symbolic link, their hard links;
//! - published files name chapters relative to the spec folder; diagnostics are capped per code.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use crate::common::cli::{copy_dir, kcontract, root};

const CONTRACT: &str = "title: T\nversion: 0.1.0\nlanguages: [en]\nchapters: [one]\n";
const ONE: &str = "# One\n\n```clause\nid: one.a\nlevel: MUST\nactor: platform\ntext: The platform MUST do it.\nverify: manual\n```\n";

/// A one-chapter spec in `dir/spec`.
fn small_spec(dir: &Path) {
    std::fs::create_dir_all(dir.join("spec/en")).unwrap();
    std::fs::write(dir.join("spec/contract.yaml"), CONTRACT).unwrap();
    std::fs::write(dir.join("spec/en/one.md"), ONE).unwrap();
}

/// Every entry under `dir` (files with their bytes, folders and links by name), sorted.
fn tree(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    for e in walkdir::WalkDir::new(dir).min_depth(1).sort_by_file_name() {
        let e = e.unwrap();
        let rel = e
            .path()
            .strip_prefix(dir)
            .unwrap()
            .to_string_lossy()
            .into_owned();
        let t = e.file_type();
        let bytes = if t.is_file() {
            std::fs::read(e.path()).unwrap()
        } else if t.is_symlink() {
            format!("-> {}", std::fs::read_link(e.path()).unwrap().display()).into_bytes()
        } else {
            b"<dir>".to_vec()
        };
        out.push((rel, bytes));
    }
    out
}

/// The names in `dir` that kcontract made for itself (temporary folders and files).
fn leftovers(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".kcontract-"))
        .collect()
}

#[test]
fn build_refuses_a_persons_folder_the_spec_folder_and_the_project() {
    let tmp = tempfile::tempdir().unwrap();
    let proj = tmp.path().join("proj");
    small_spec(&proj);
    std::fs::create_dir_all(proj.join("notes")).unwrap();
    std::fs::write(proj.join("notes/plan.txt"), "my plan").unwrap();
    std::fs::write(proj.join("README.md"), "readme").unwrap();
    let before = tree(tmp.path());
    for out in ["notes", "spec", "spec/en", "spec/site", "../proj", "."] {
        let (code, stdout, err) = kcontract(&proj, &["build", "--out", out]);
        assert_eq!(code, 1, "--out {out} must be refused:\n{stdout}{err}");
        assert!(err.contains("K0408") || err.contains("K0401"), "{err}");
        assert!(err.contains("unchanged"), "{err}");
        assert_eq!(tree(tmp.path()), before, "--out {out} changed files");
    }
    // From a folder below the project, the project is `..` spelled with its name.
    std::fs::create_dir_all(proj.join("sub")).unwrap();
    let before = tree(tmp.path());
    let (code, _, err) = kcontract(
        &proj.join("sub"),
        &["--spec", "../spec", "build", "--out", "../../proj"],
    );
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("holds the spec folder"), "{err}");
    assert_eq!(tree(tmp.path()), before);
    // An empty folder and a new one are fine.
    std::fs::create_dir_all(proj.join("empty")).unwrap();
    for out in ["empty", "new/site"] {
        let (code, _, err) = kcontract(&proj, &["build", "--out", out]);
        assert_eq!(code, 0, "{err}");
        assert!(proj.join(out).join("en/one.html").is_file());
    }
}

/// A site kcontract built is replaced; once a person's files are in it (a gh-pages checkout's
/// `.git`, `CNAME`, `.nojekyll`), or its manifest is gone, or it is read-only, it is not.
#[test]
fn a_site_is_replaced_only_while_it_holds_nothing_else() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    small_spec(dir);
    assert_eq!(kcontract(dir, &["build"]).0, 0);
    assert_eq!(kcontract(dir, &["build"]).0, 0, "a site it built");
    let site = dir.join("site");
    std::fs::create_dir_all(site.join(".git/refs")).unwrap();
    std::fs::write(site.join(".git/HEAD"), "ref: refs/heads/gh-pages\n").unwrap();
    std::fs::write(site.join("CNAME"), "contract.example\n").unwrap();
    std::fs::write(site.join(".nojekyll"), "").unwrap();
    let before = tree(dir);
    let (code, _, err) = kcontract(dir, &["build"]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("`site/.git`")
            && err.contains("`site/.nojekyll`")
            && err.contains("`site/CNAME`"),
        "{err}"
    );
    assert!(!err.contains(".git/HEAD"), "a folder is named once: {err}");
    assert_eq!(tree(dir), before);
    for f in [".git", "CNAME", ".nojekyll"] {
        let p = site.join(f);
        if p.is_dir() {
            std::fs::remove_dir_all(p).unwrap();
        } else {
            std::fs::remove_file(p).unwrap();
        }
    }
    // Without its manifest it is a folder like any other.
    std::fs::rename(site.join(".kcontract-manifest"), dir.join("manifest")).unwrap();
    let before = tree(dir);
    let (code, _, err) = kcontract(dir, &["build"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("not a site kcontract built"), "{err}");
    assert_eq!(tree(dir), before);
    std::fs::rename(dir.join("manifest"), site.join(".kcontract-manifest")).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&site, std::fs::Permissions::from_mode(0o555)).unwrap();
        let before = tree(dir);
        let (code, _, err) = kcontract(dir, &["build"]);
        assert_eq!(code, 1, "{err}");
        assert!(err.contains("read-only (mode 555)"), "{err}");
        assert_eq!(tree(dir), before);
        std::fs::set_permissions(&site, std::fs::Permissions::from_mode(0o750)).unwrap();
        assert_eq!(kcontract(dir, &["build"]).0, 0);
        let mode = std::fs::metadata(&site).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o750, "the new site keeps the folder's mode");
    }
    assert!(leftovers(dir).is_empty(), "{:?}", leftovers(dir));
}

/// A chapter (or contract.yaml) that is a symbolic link out of the spec folder is an error naming
/// it, and its text appears in no output: not the site (none is written), not the terminal. A
/// link that stays inside the folder is read.
#[cfg(unix)]
#[test]
fn links_out_of_the_spec_folder_are_not_read() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    small_spec(dir);
    let secret = "CI_TOKEN=ghp_0123456789abcdefSECRET";
    std::fs::write(
        dir.join("outside.md"),
        format!("# Env\n\n{secret}\n\n{}", &ONE[7..]),
    )
    .unwrap();
    std::fs::remove_file(dir.join("spec/en/one.md")).unwrap();
    std::os::unix::fs::symlink("../../outside.md", dir.join("spec/en/one.md")).unwrap();
    for cmd in [&["check"][..], &["build"], &["list", "--format", "json"]] {
        let (code, out, err) = kcontract(dir, cmd);
        assert_eq!(code, 1, "{cmd:?}: {err}");
        assert!(
            err.contains("K0004") && err.contains("outside the folder"),
            "{err}"
        );
        assert!(
            !out.contains("SECRET") && !err.contains("SECRET"),
            "{out}{err}"
        );
    }
    assert!(!dir.join("site").exists());
    // /proc/self/environ, /etc/passwd: the same.
    for target in ["/proc/self/environ", "/etc/passwd"] {
        std::fs::remove_file(dir.join("spec/en/one.md")).unwrap();
        std::os::unix::fs::symlink(target, dir.join("spec/en/one.md")).unwrap();
        let (code, _, err) = kcontract(dir, &["build"]);
        assert_eq!(code, 1, "{err}");
        assert!(err.contains("K0004"), "{err}");
        assert!(!err.contains("root:"), "{err}");
    }
    // contract.yaml too.
    std::fs::remove_file(dir.join("spec/en/one.md")).unwrap();
    std::fs::write(dir.join("spec/en/one.md"), ONE).unwrap();
    std::fs::write(dir.join("contract.yaml"), CONTRACT).unwrap();
    std::fs::remove_file(dir.join("spec/contract.yaml")).unwrap();
    std::os::unix::fs::symlink("../contract.yaml", dir.join("spec/contract.yaml")).unwrap();
    let (code, _, err) = kcontract(dir, &["check"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("`spec/contract.yaml` is not read"), "{err}");
    // Inside the folder, a link is followed.
    std::fs::remove_file(dir.join("spec/contract.yaml")).unwrap();
    std::fs::write(dir.join("spec/shared.yaml"), CONTRACT).unwrap();
    std::os::unix::fs::symlink("shared.yaml", dir.join("spec/contract.yaml")).unwrap();
    let (code, _, err) = kcontract(dir, &["build"]);
    assert_eq!(code, 0, "{err}");
}

/// A FIFO as a chapter, as contract.yaml or as a results file, and a device as a chapter: an
/// error naming it within a second (before, the command waited forever for a writer, and read
/// /dev/zero until the memory ran out).
#[cfg(unix)]
#[test]
fn fifos_and_devices_are_refused_at_once() {
    let mkfifo = |p: &Path| {
        let _ = std::fs::remove_file(p);
        crate::common::cli::mkfifo(p);
    };
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    small_spec(dir);
    let timed = |args: &[&str]| {
        let start = Instant::now();
        let (code, _, err) = kcontract(dir, args);
        (code, err, start.elapsed())
    };
    mkfifo(&dir.join("spec/en/one.md"));
    let (code, err, took) = timed(&["check"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("FIFO"), "{err}");
    assert!(took < Duration::from_secs(1), "{took:?}");
    std::fs::remove_file(dir.join("spec/en/one.md")).unwrap();
    std::fs::write(dir.join("spec/en/one.md"), ONE).unwrap();

    mkfifo(&dir.join("spec/contract.yaml"));
    let (code, err, took) = timed(&["build"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("`spec/contract.yaml` is not read"), "{err}");
    assert!(took < Duration::from_secs(1), "{took:?}");
    std::fs::remove_file(dir.join("spec/contract.yaml")).unwrap();
    std::fs::write(dir.join("spec/contract.yaml"), CONTRACT).unwrap();

    mkfifo(&dir.join("results.xml"));
    let (code, err, took) = timed(&["matrix", "--results", "results.xml"]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("`results.xml` is not read") && err.contains("FIFO"),
        "{err}"
    );
    assert!(took < Duration::from_secs(1), "{took:?}");

    // A character device in the folder (root may make one; skipped where it may not).
    std::fs::remove_file(dir.join("spec/en/one.md")).unwrap();
    let made = Command::new("mknod")
        .args(["-m", "644"])
        .arg(dir.join("spec/en/one.md"))
        .args(["c", "1", "5"])
        .status()
        .is_ok_and(|s| s.success());
    if made {
        let (code, err, took) = timed(&["check"]);
        assert_eq!(code, 1, "{err}");
        assert!(err.contains("a character device"), "{err}");
        assert!(took < Duration::from_secs(1), "{took:?}");
    }
}

/// Every page the site writes beside the chapters' is a name `check` refuses for a chapter: the
/// reserved list and the renderer cannot drift apart.
#[test]
fn every_page_of_the_site_is_a_reserved_chapter_name() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    copy_dir(&root().join("spec"), &dir.join("spec"));
    assert_eq!(kcontract(dir, &["build", "--out", "out"]).0, 0);
    let chapters: Vec<String> = [
        "abstract",
        "background",
        "runtime-and-lifecycle",
        "network-environment",
        "configuration",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let mut own = Vec::new();
    for e in std::fs::read_dir(dir.join("out/en")).unwrap() {
        let name = e.unwrap().file_name().to_string_lossy().into_owned();
        let stem = name.strip_suffix(".html").unwrap().to_string();
        if !chapters.contains(&stem) {
            own.push(stem);
        }
    }
    own.sort();
    assert!(own.len() >= 5, "{own:?}");
    for page in own.iter().map(String::as_str).chain(["changes"]) {
        let t = tempfile::tempdir().unwrap();
        small_spec(t.path());
        std::fs::write(
            t.path().join("spec/contract.yaml"),
            CONTRACT.replace("[one]", &format!("[one, {page}]")),
        )
        .unwrap();
        std::fs::write(t.path().join(format!("spec/en/{page}.md")), "# P\n").unwrap();
        let (code, _, err) = kcontract(t.path(), &["check"]);
        assert_eq!(code, 1, "a chapter named `{page}` must be refused: {err}");
        assert!(err.contains("K0013"), "{err}");
    }
}

/// `KCONTRACT_TEST_KILL_AT=<step>` aborts the build at that step of the swap. Killed before or
/// after each rename, the output folder holds the old site or the new one, whole: at once where
/// the folders are exchanged atomically, and after the next start (which puts a site moved aside
/// back) where they are moved one after the other.
#[test]
fn a_build_killed_at_any_rename_leaves_the_old_or_the_new_site() {
    let modes: [(&str, &[&str]); 2] = [
        ("exchange", &["before-exchange", "after-exchange"]),
        (
            "renames",
            &["before-aside", "between-renames", "after-renames"],
        ),
    ];
    for (mode, steps) in modes {
        for step in steps {
            let tmp = tempfile::tempdir().unwrap();
            let dir = tmp.path();
            small_spec(dir);
            assert_eq!(kcontract(dir, &["build"]).0, 0);
            let old = tree(&dir.join("site"));
            std::fs::write(
                dir.join("spec/en/one.md"),
                ONE.replace("do it", "do it well"),
            )
            .unwrap();
            assert_eq!(kcontract(dir, &["build", "--out", "reference"]).0, 0);
            let new = tree(&dir.join("reference"));
            assert_ne!(old, new);
            let mut cmd = Command::new(env!("CARGO_BIN_EXE_kcontract"));
            cmd.current_dir(dir)
                .args(["--color", "never", "build"])
                .env("KCONTRACT_TEST_KILL_AT", step);
            if mode == "renames" {
                cmd.env("KCONTRACT_TEST_NO_EXCHANGE", "1");
            }
            let out = cmd.output().unwrap();
            assert_eq!(out.status.code(), None, "{mode}/{step}: killed by a signal");
            let site = dir.join("site");
            if mode == "exchange" {
                let now = tree(&site);
                assert!(now == old || now == new, "{mode}/{step}: a mixed site");
            }
            // The next start: a build that fails (a broken spec) still puts the site back first.
            std::fs::write(dir.join("spec/en/one.md"), "# One\n\nIt MUST.\n").unwrap();
            let (code, _, err) = kcontract(dir, &["build"]);
            assert_eq!(code, 1, "{err}");
            let now = tree(&site);
            assert!(
                now == old || now == new,
                "{mode}/{step}: after the next start, neither the old nor the new site: {:?}",
                now.iter().map(|(n, _)| n).collect::<Vec<_>>()
            );
            let expect_new = matches!(*step, "after-exchange" | "after-renames");
            assert_eq!(now == new, expect_new, "{mode}/{step}");
        }
    }
}

/// Killed at random moments (SIGKILL, nothing runs after it), a rebuild of the shipped spec
/// leaves the old site or the new one, whole, every time.
#[cfg(unix)]
#[test]
fn a_build_killed_at_random_moments_leaves_a_whole_site() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    copy_dir(&root().join("spec"), &dir.join("spec"));
    assert_eq!(kcontract(dir, &["build"]).0, 0);
    let old = tree(&dir.join("site"));
    let chapter = dir.join("spec/en/background.md");
    let text = std::fs::read_to_string(&chapter).unwrap();
    std::fs::write(
        &chapter,
        text.replacen("# Background", "# Background edited", 1),
    )
    .unwrap();
    let start = Instant::now();
    assert_eq!(kcontract(dir, &["build", "--out", "reference"]).0, 0);
    let full = start.elapsed();
    let new = tree(&dir.join("reference"));
    let mut seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .subsec_nanos() as u64
        | 1;
    let mut outcomes = (0, 0);
    for _ in 0..8 {
        // The site back to the old one for each try.
        std::fs::remove_dir_all(dir.join("site")).unwrap();
        std::fs::write(&chapter, &text).unwrap();
        assert_eq!(kcontract(dir, &["build"]).0, 0);
        std::fs::write(
            &chapter,
            text.replacen("# Background", "# Background edited", 1),
        )
        .unwrap();
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let after = full.mul_f64((seed % 1000) as f64 / 1000.0 * 1.2);
        let mut child = Command::new(env!("CARGO_BIN_EXE_kcontract"))
            .current_dir(dir)
            .args(["--color", "never", "build"])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(after);
        let _ = child.kill();
        let _ = child.wait();
        let now = tree(&dir.join("site"));
        assert!(
            now == old || now == new,
            "killed after {after:?}: a mixed site"
        );
        if now == new {
            outcomes.1 += 1;
        } else {
            outcomes.0 += 1;
        }
    }
    eprintln!(
        "old site {} times, new site {} times",
        outcomes.0, outcomes.1
    );
}

/// What killed builds left beside the output (a temporary folder, a site moved aside) is removed
/// once it is stale; a young one (a build under way) is left alone.
#[test]
fn stale_leftovers_of_killed_builds_are_swept() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    small_spec(dir);
    let stale = [".site.kcontract-new-4242", ".site.kcontract-old-4242-00ff"];
    for name in stale {
        std::fs::create_dir_all(dir.join(name).join("en")).unwrap();
        std::fs::write(dir.join(name).join("en/one.html"), "x").unwrap();
        let f = std::fs::File::open(dir.join(name)).unwrap();
        f.set_modified(std::time::SystemTime::now() - Duration::from_secs(7200))
            .unwrap();
    }
    std::fs::create_dir_all(dir.join(".site.kcontract-new-99-young")).unwrap();
    assert_eq!(kcontract(dir, &["build"]).0, 0);
    assert_eq!(leftovers(dir), [".site.kcontract-new-99-young"]);
}

/// `fmt` rewrites a chapter through its symbolic link (the link stays, its target changes), keeps
/// the file's mode, and refuses a file with another hard link (which would keep the old text).
#[cfg(unix)]
#[test]
fn fmt_keeps_mode_links_and_hard_links() {
    use std::os::unix::fs::PermissionsExt;
    let unformatted = ONE.replace("verify: manual\n", "verify:   manual\n");
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    small_spec(dir);
    let chapter = dir.join("spec/en/one.md");
    std::fs::write(dir.join("spec/one-real.md"), &unformatted).unwrap();
    std::fs::set_permissions(
        dir.join("spec/one-real.md"),
        std::fs::Permissions::from_mode(0o600),
    )
    .unwrap();
    std::fs::remove_file(&chapter).unwrap();
    std::os::unix::fs::symlink("../one-real.md", &chapter).unwrap();
    let (code, out, err) = kcontract(dir, &["fmt"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        std::fs::symlink_metadata(&chapter)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("spec/one-real.md")).unwrap(),
        ONE
    );
    let mode = std::fs::metadata(dir.join("spec/one-real.md"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o600);

    std::fs::remove_file(&chapter).unwrap();
    std::fs::write(&chapter, &unformatted).unwrap();
    std::fs::hard_link(&chapter, dir.join("backup.md")).unwrap();
    let (code, _, err) = kcontract(dir, &["fmt"]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("K0805") && err.contains("2 hard links"),
        "{err}"
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("backup.md")).unwrap(),
        unformatted
    );
    assert_eq!(std::fs::read_to_string(&chapter).unwrap(), unformatted);
    assert!(leftovers(&dir.join("spec/en")).is_empty());
}

/// `clauses.json` names each chapter file relative to the spec folder: the same bytes whether
/// `--spec` is relative or absolute, and no path of the building machine in it.
#[test]
fn published_paths_are_relative_to_the_spec_folder() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    small_spec(dir);
    let abs = std::fs::canonicalize(dir.join("spec")).unwrap();
    let abs = abs.to_str().unwrap();
    assert_eq!(kcontract(dir, &["build", "--out", "a"]).0, 0);
    assert_eq!(kcontract(dir, &["--spec", abs, "build", "--out", "b"]).0, 0);
    let a = std::fs::read_to_string(dir.join("a/clauses.json")).unwrap();
    let b = std::fs::read_to_string(dir.join("b/clauses.json")).unwrap();
    assert_eq!(a, b);
    assert!(a.contains("\"file\": \"en/one.md\""), "{a}");
    assert!(!b.contains(abs), "{b}");
}

/// Ten thousand unknown fields: the first twenty are shown, the rest counted in one line (before,
/// eighty thousand lines).
#[test]
fn diagnostics_are_capped_per_code() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    small_spec(dir);
    let mut block = String::from(
        "# One\n\n```clause\nid: one.a\nlevel: MUST\nactor: platform\ntext: The platform MUST do it.\nverify: manual\n",
    );
    for i in 0..10_000 {
        block.push_str(&format!("field{i}: x\n"));
    }
    block.push_str("```\n");
    std::fs::write(dir.join("spec/en/one.md"), block).unwrap();
    let (code, _, err) = kcontract(dir, &["check"]);
    assert_eq!(code, 1);
    assert!(err.lines().count() < 400, "{} lines", err.lines().count());
    assert!(err.contains("more K0102 not shown"), "{err}");
    assert!(err.contains("10000 errors"), "the count is of all: {err}");
}

/// A repeated key is named as such, without the YAML library's advice to its programmers.
#[test]
fn yaml_messages_are_for_the_writer() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    small_spec(dir);
    std::fs::write(
        dir.join("spec/contract.yaml"),
        format!("{CONTRACT}title: again\n"),
    )
    .unwrap();
    let (code, _, err) = kcontract(dir, &["check"]);
    assert_eq!(code, 1);
    assert!(err.contains("the key `title` appears twice"), "{err}");
    assert!(
        !err.contains("DuplicateKeyPolicy") && !err.contains("Options"),
        "{err}"
    );
}
