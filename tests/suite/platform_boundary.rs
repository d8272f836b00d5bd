//! The boundary of every platform input (issue #50): a profile, a Service, a manifest to lint, a
//! run report (named, or found in `platforms/results/`), a vendor's log and its list of required
//! tests, an `--events` log and a `--token-file` are each read only as a regular file inside the
//! folder they were given in. A symbolic link leading out of it is refused with the chapter's
//! diagnostic (K0004) and what it leads to appears nowhere; a FIFO or `/dev/zero` is refused
//! within a second. The control of each: a link to a file beside it is read.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::common::cli::root;

/// What the decoy outside the folder holds: no output may show it.
const TOKEN: &str = "ghp_PLATFORMDECOY0987654321";

/// A platform input and the command that reads it.
struct Case {
    /// The input, in words.
    what: &'static str,
    /// The file the link (or FIFO) replaces, relative to the project.
    file: &'static str,
    /// The command's arguments (the project is the working folder).
    args: &'static [&'static str],
}

/// Every platform input (each reader in turn; the others are valid files).
const CASES: &[Case] = &[
    Case {
        what: "a profile",
        file: "in/profile.yaml",
        args: &[
            "platform",
            "import-log",
            "--platform",
            "acme",
            "in/vendor.log",
            "--profile",
            "in/profile.yaml",
            "--report",
            "out/r.json",
        ],
    },
    Case {
        what: "a vendor log",
        file: "in/vendor.log",
        args: &[
            "platform",
            "import-log",
            "--platform",
            "acme",
            "in/vendor.log",
            "--report",
            "out/r.json",
        ],
    },
    Case {
        what: "a list of required tests",
        file: "in/required.txt",
        args: &[
            "platform",
            "import-log",
            "--platform",
            "acme",
            "in/vendor.log",
            "--require-tests",
            "in/required.txt",
            "--report",
            "out/r.json",
        ],
    },
    Case {
        what: "a manifest to lint",
        file: "in/service.yaml",
        args: &["platform", "lint", "in/service.yaml"],
    },
    Case {
        what: "a Service",
        file: "in/service.yaml",
        args: &[
            "platform",
            "verify",
            "--events",
            "in/events.log",
            "--profile",
            "in/profile.yaml",
            "--service",
            "in/service.yaml",
            "--report",
            "out/r.json",
        ],
    },
    Case {
        what: "an --events log",
        file: "in/events.log",
        args: &[
            "platform",
            "verify",
            "--events",
            "in/events.log",
            "--profile",
            "in/profile.yaml",
            "--report",
            "out/r.json",
        ],
    },
    Case {
        what: "a --token-file",
        file: "in/token",
        args: &[
            "platform",
            "verify",
            "--url",
            "http://127.0.0.1:9/",
            "--token-file",
            "in/token",
            "--profile",
            "in/profile.yaml",
            "--report",
            "out/r.json",
        ],
    },
    Case {
        what: "a run report named",
        file: "in/r.json",
        args: &[
            "--spec",
            "spec",
            "build",
            "--out",
            "out/site",
            "--platform",
            "in/r.json",
        ],
    },
    Case {
        what: "a run report of platforms/results/",
        file: "platforms/results/runc.json",
        args: &["--spec", "spec", "build", "--out", "out/site"],
    },
];

/// A project: the spec, and a valid file at every input's place (`in/`, `platforms/results/`).
fn project() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    // A small spec: the time measured is the reading, not the debug binary's work.
    std::fs::create_dir_all(d.join("spec/en")).unwrap();
    std::fs::write(
        d.join("spec/contract.yaml"),
        "title: T\nversion: 0.1.0\nlanguages: [en]\nchapters: [one]\nupstream: {title: t, url: u, license: Apache-2.0, attribution: a}\n",
    )
    .unwrap();
    std::fs::write(
        d.join("spec/en/one.md"),
        "# One\n\n```clause\nid: one.good\nlevel: MUST\nactor: platform\ntext: The platform MUST do it.\nverify: conformance\n```\n",
    )
    .unwrap();
    for dir in ["in", "out", "platforms/results"] {
        std::fs::create_dir_all(d.join(dir)).unwrap();
    }
    let copy = |from: &str, to: &str| {
        std::fs::copy(root().join(from), d.join(to)).unwrap();
    };
    copy("platforms/knative-reference.yaml", "in/profile.yaml");
    copy(
        "upstream/knative/conformance-logs/2022-04-11-google-cloud-run.serving_runtime_e2e.log",
        "in/vendor.log",
    );
    copy("platforms/deploy/service.yaml", "in/service.yaml");
    copy("platforms/results/runc.json", "in/r.json");
    copy("platforms/results/runc.json", "platforms/results/runc.json");
    std::fs::write(d.join("in/required.txt"), "TestMustHaveHeaders\n").unwrap();
    std::fs::write(d.join("in/events.log"), "kcontract-log-end\n").unwrap();
    std::fs::write(d.join("in/token"), "not-the-decoy\n").unwrap();
    tmp
}

/// `kcontract ARGS` in `dir`, killed after 10 s: the exit code (`None` when killed), stdout and
/// stderr together, and how long it took. (The outputs are a few diagnostics: the pipes never
/// fill while it runs.)
fn timed(dir: &Path, args: &[&str]) -> (Option<i32>, String, Duration) {
    use std::io::Read as _;
    let start = Instant::now();
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_kcontract"))
        .current_dir(dir)
        .args(["--color", "never"])
        .args(args)
        .env("KCONTRACT_NO_CACHE", "1")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let code = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status.code();
        }
        if start.elapsed() > Duration::from_secs(10) {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let took = start.elapsed();
    let mut out = String::new();
    let _ = child.stdout.take().unwrap().read_to_string(&mut out);
    let _ = child.stderr.take().unwrap().read_to_string(&mut out);
    (code, out, took)
}

/// Every file under `dir` holding [`TOKEN`].
fn holding_token(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(holding_token(&p));
        } else if std::fs::read(&p)
            .is_ok_and(|b| b.windows(TOKEN.len()).any(|w| w == TOKEN.as_bytes()))
        {
            out.push(p);
        }
    }
    out
}

/// Each input linked to a decoy outside its folder is refused with K0004 ("outside the folder"),
/// and the decoy's token is in no output (stdout, stderr, the report, the site). The control: the
/// same input linked to the valid file beside it is read (no K0004).
#[cfg(unix)]
#[test]
fn a_platform_input_linked_out_of_its_folder_is_refused() {
    for case in CASES {
        let tmp = project();
        let d = tmp.path();
        let decoy = d.join("decoy");
        std::fs::write(&decoy, format!("{TOKEN}: {TOKEN}\n")).unwrap();
        let file = d.join(case.file);
        let beside = file.with_file_name("valid-copy");
        std::fs::rename(&file, &beside).unwrap();
        std::os::unix::fs::symlink(&decoy, &file).unwrap();
        let (code, out, _) = timed(d, case.args);
        assert_eq!(code, Some(1), "{}: {out}", case.what);
        assert!(
            out.contains("error[K0004]") && out.contains("outside the folder"),
            "{}: {out}",
            case.what
        );
        assert!(!out.contains(TOKEN), "{}: {out}", case.what);
        assert_eq!(
            holding_token(&d.join("out")),
            Vec::<PathBuf>::new(),
            "{}",
            case.what
        );
        // The control: a link to the file beside it is followed and read.
        std::fs::remove_file(&file).unwrap();
        std::os::unix::fs::symlink("valid-copy", &file).unwrap();
        let (code, out, _) = timed(d, case.args);
        assert!(code.is_some(), "{}: {out}", case.what);
        assert!(!out.contains("K0004"), "{}: {out}", case.what);
    }
}

/// Each input a FIFO, then `/dev/zero` (named directly: the folder is `/dev`), is refused with
/// K0004 within a second (a FIFO would hang an ordinary read; `/dev/zero` grows memory without
/// bound).
#[cfg(unix)]
#[test]
fn a_platform_input_that_is_a_fifo_or_a_device_is_refused_within_a_second() {
    let tmp = project();
    let d = tmp.path();
    for case in CASES {
        let file = d.join(case.file);
        let valid = std::fs::read(&file).unwrap();
        std::fs::remove_file(&file).unwrap();
        crate::common::cli::mkfifo(&file);
        let (code, out, took) = timed(d, case.args);
        assert_eq!(code, Some(1), "{} FIFO: {out}", case.what);
        assert!(
            took < Duration::from_secs(1),
            "{} FIFO: {took:?}",
            case.what
        );
        assert!(
            out.contains("error[K0004]") && out.contains("FIFO"),
            "{} FIFO: {out}",
            case.what
        );
        std::fs::remove_file(&file).unwrap();
        std::fs::write(&file, valid).unwrap();
        if case.file.starts_with("platforms/") {
            continue;
        }
        let args: Vec<&str> = case
            .args
            .iter()
            .map(|a| if *a == case.file { "/dev/zero" } else { a })
            .collect();
        let (code, out, took) = timed(d, &args);
        assert_eq!(code, Some(1), "{} /dev/zero: {out}", case.what);
        assert!(
            took < Duration::from_secs(1),
            "{} /dev/zero: {took:?}",
            case.what
        );
        assert!(
            out.contains("error[K0004]") && out.contains("character device"),
            "{} /dev/zero: {out}",
            case.what
        );
    }
}
