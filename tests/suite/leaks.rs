//! Nothing leaks (issue #50): every URL from any input through one judge
//! (`kcontract_spec::url::judge`), every output path not an input of the same command, every file
//! read inside the folder it was given.

use std::path::Path;

use crate::common::cli::{copy_dir, kcontract, root};

/// The committed runc run report with its first documentation entry's link set to `url`, written
/// to `dir/r.json`.
fn report_with_doc_url(dir: &Path, url: &str) -> std::path::PathBuf {
    let text = std::fs::read_to_string(root().join("platforms/results/runc.json")).unwrap();
    let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
    v["documentation"][0]["url"] = url.into();
    let p = dir.join("r.json");
    std::fs::write(&p, serde_json::to_string_pretty(&v).unwrap()).unwrap();
    p
}

/// A run report's `documentation[].url` of `javascript:` is refused with a diagnostic at the
/// link, and no platforms page (en/ or zh/) carries it live; an http(s) link is published.
#[test]
fn a_script_link_in_a_run_report_is_refused_and_never_live() {
    let dir = tempfile::tempdir().unwrap();
    for bad in [
        "javascript:alert(document.cookie)",
        "java\tscript:alert(1)",
        "data:text/html,x",
    ] {
        let report = report_with_doc_url(dir.path(), bad);
        let out = dir.path().join("site");
        let (code, _, err) = kcontract(
            &root(),
            &[
                "--spec",
                "spec",
                "build",
                "--out",
                out.to_str().unwrap(),
                "--platform",
                report.to_str().unwrap(),
            ],
        );
        assert_eq!(code, 1, "{bad:?}: {err}");
        assert!(err.contains("error[K1107]"), "{err}");
        assert!(err.contains("is not a web address"), "{err}");
        for lang in ["en", "zh"] {
            if let Ok(page) = std::fs::read_to_string(out.join(lang).join("platforms.html")) {
                assert!(
                    !page.to_ascii_lowercase().contains("script:alert"),
                    "{lang}"
                );
                assert!(!page.contains("data:text"), "{lang}");
            }
        }
    }
    // The control: an https link is published, live, on both pages.
    let good = "https://docs.example.com/lifecycle";
    let report = report_with_doc_url(dir.path(), good);
    let out = dir.path().join("site");
    let (code, _, err) = kcontract(
        &root(),
        &[
            "--spec",
            "spec",
            "build",
            "--out",
            out.to_str().unwrap(),
            "--platform",
            report.to_str().unwrap(),
        ],
    );
    assert_eq!(code, 0, "{err}");
    for lang in ["en", "zh"] {
        let page = std::fs::read_to_string(out.join(lang).join("platforms.html")).unwrap();
        assert!(
            page.contains(&format!("<a href=\"{good}\" rel=\"nofollow\">")),
            "{lang}"
        );
    }
}

/// An output naming an input of the same command is a usage error (exit 2) before anything is
/// read or written: `--report` naming the `--profile` (also through a symbolic link or a hard
/// link), `--report` naming the log; the profile and the log stay as they were. The control: the
/// same command with another `--report` writes it (exit 0).
#[test]
fn an_output_naming_an_input_is_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("vendor.log");
    std::fs::copy(
        root().join(
            "upstream/knative/conformance-logs/2022-04-11-google-cloud-run.serving_runtime_e2e.log",
        ),
        &log,
    )
    .unwrap();
    let profile = dir.path().join("profile.yaml");
    std::fs::copy(root().join("platforms/knative-reference.yaml"), &profile).unwrap();
    let profile_text = std::fs::read(&profile).unwrap();
    let log_text = std::fs::read(&log).unwrap();
    let linked = dir.path().join("linked.yaml");
    std::os::unix::fs::symlink(&profile, &linked).unwrap();
    let hard = dir.path().join("hard.yaml");
    std::fs::hard_link(&profile, &hard).unwrap();
    let import = |report: &Path| {
        let p = profile.to_str().unwrap();
        kcontract(
            &root(),
            &[
                "--spec",
                "spec",
                "platform",
                "import-log",
                "--platform",
                "acme",
                log.to_str().unwrap(),
                "--profile",
                p,
                "--report",
                report.to_str().unwrap(),
            ],
        )
    };
    for report in [&profile, &linked, &hard, &log] {
        let (code, _, err) = import(report);
        assert_eq!(code, 2, "{}: {err}", report.display());
        assert!(
            err.contains("--report") && err.contains("writing it would replace it"),
            "{err}"
        );
    }
    // `platform run` refuses it before looking for a runtime.
    let p = profile.to_str().unwrap();
    let (code, _, err) = kcontract(
        &root(),
        &[
            "platform",
            "run",
            "--runtime",
            "runc",
            "--profile",
            p,
            "--report",
            p,
        ],
    );
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("--report") && err.contains("--profile"),
        "{err}"
    );
    assert_eq!(std::fs::read(&profile).unwrap(), profile_text);
    assert_eq!(std::fs::read(&log).unwrap(), log_text);
    let good = dir.path().join("r.json");
    let (code, _, err) = import(&good);
    assert!(code == 0 || code == 1, "{err}");
    assert!(good.exists(), "{err}");
}

/// The token of the decoy files below: no built file may hold it.
const TOKEN: &str = "ghp_DECOYTOKEN1234567890";

/// Every file under `dir` whose bytes hold [`TOKEN`].
fn holding_token(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return out;
    };
    for e in entries.flatten() {
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

/// `kcontract --spec spec build --out site` in `dir`.
fn build(dir: &Path) -> (i32, String) {
    let (code, _, err) = kcontract(dir, &["--spec", "spec", "build", "--out", "site"]);
    (code, err)
}

/// A file of the templates folder (used with no flag: it holds `i18n/`) linked to a decoy outside
/// it is refused with the chapter's diagnostic (K0004), and the token is in no built file: an
/// asset, a template, interface text. The control: the same files copied in are built.
#[test]
fn a_templates_file_linked_out_of_the_folder_is_refused() {
    for (name, decoy) in [
        ("assets/leak.txt", TOKEN.to_owned()),
        ("redirect.html", format!("<p>{TOKEN}</p>")),
        (
            "i18n/en.yaml",
            std::fs::read_to_string(root().join("templates/i18n/en.yaml"))
                .unwrap()
                .replacen(
                    "name: \"English\"",
                    &format!("name: \"English {TOKEN}\""),
                    1,
                ),
        ),
    ] {
        let dir = tempfile::tempdir().unwrap();
        copy_dir(&root().join("spec"), &dir.path().join("spec"));
        std::fs::create_dir_all(dir.path().join("templates/i18n")).unwrap();
        std::fs::create_dir_all(dir.path().join("templates/assets")).unwrap();
        let outside = dir.path().join("decoy");
        std::fs::write(&outside, &decoy).unwrap();
        let file = dir.path().join("templates").join(name);
        std::os::unix::fs::symlink(&outside, &file).unwrap();
        let (code, err) = build(dir.path());
        assert_eq!(code, 1, "{name}: {err}");
        assert!(
            err.contains("error[K0004]") && err.contains("outside the folder"),
            "{name}: {err}"
        );
        assert_eq!(
            holding_token(&dir.path().join("site")),
            Vec::<std::path::PathBuf>::new(),
            "{name}"
        );
        // The control: the same text copied into the folder is read (and so published).
        std::fs::remove_file(&file).unwrap();
        std::fs::write(&file, &decoy).unwrap();
        let (code, err) = build(dir.path());
        assert_eq!(code, 0, "{name}: {err}");
        assert!(
            !holding_token(&dir.path().join("site")).is_empty(),
            "{name}"
        );
    }
}

/// A `history:` folder of contract.yaml linked to a decoy spec folder outside the spec folder is
/// refused (K0004 at its `path`), and the decoy's text is in no built file (the Changes page, the
/// search index). The control: the decoy copied into the spec folder is published.
#[test]
fn a_history_folder_linked_out_of_the_spec_folder_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&root().join("spec"), &dir.path().join("spec"));
    let version = dir.path().join("spec/history/knative-serving-2018-07-26");
    let decoy = dir.path().join("decoy");
    copy_dir(&version, &decoy);
    // A clause's text of that version, changed: the Changes page shows it.
    let chapter = decoy.join("en/configuration.md");
    let text = std::fs::read_to_string(&chapter).unwrap();
    let changed = text.replacen(
        "allow additional volume mounts.",
        &format!("allow additional volume mounts {TOKEN}."),
        1,
    );
    assert_ne!(changed, text);
    std::fs::write(&chapter, changed).unwrap();
    std::fs::remove_dir_all(&version).unwrap();
    std::os::unix::fs::symlink(&decoy, &version).unwrap();
    let (code, err) = build(dir.path());
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("error[K0004]") && err.contains("outside the folder"),
        "{err}"
    );
    assert_eq!(
        holding_token(&dir.path().join("site")),
        Vec::<std::path::PathBuf>::new()
    );
    std::fs::remove_file(&version).unwrap();
    copy_dir(&decoy, &version);
    let (code, err) = build(dir.path());
    assert_eq!(code, 0, "{err}");
    assert!(!holding_token(&dir.path().join("site")).is_empty());
}

/// `kcontract ARGS` in `dir`, killed after 10 s: the exit code (`None` when killed), stderr and
/// how long it took.
fn timed(dir: &Path, args: &[&str]) -> (Option<i32>, String, std::time::Duration) {
    use std::io::Read as _;
    let start = std::time::Instant::now();
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_kcontract"))
        .current_dir(dir)
        .args(["--color", "never"])
        .args(args)
        .env("KCONTRACT_NO_CACHE", "1")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let code = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status.code();
        }
        if start.elapsed() > std::time::Duration::from_secs(10) {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    let took = start.elapsed();
    let mut err = String::new();
    let _ = child.stderr.take().unwrap().read_to_string(&mut err);
    (code, err, took)
}

/// A FIFO and `/dev/zero` (linked) as the project's `Cargo.toml`, `matrix --ci`'s file,
/// `tests/contract/.scaffolded` and `--manifest-path`: each command ends within 1 s (before: a
/// FIFO hung it, /dev/zero grew its memory without bound), and where the file is the one asked
/// for (`--ci`, `--manifest-path`) it says why it is not read.
#[cfg(unix)]
#[test]
fn special_files_are_refused_within_a_second() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    // A small spec: the time measured is the reading, not the debug binary's work.
    std::fs::create_dir_all(dir.join("spec/en")).unwrap();
    std::fs::write(
        dir.join("spec/contract.yaml"),
        "title: T\nversion: 0.1.0\nlanguages: [en]\nchapters: [one]\nupstream: {title: t, url: u, license: Apache-2.0, attribution: a}\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("spec/en/one.md"),
        "# One\n\n```clause\nid: one.good\nlevel: MUST\nactor: platform\ntext: The platform MUST do it.\nverify: conformance\n```\n",
    )
    .unwrap();
    std::fs::create_dir_all(dir.join("tests/contract")).unwrap();
    // An annotated test: the scan reads the project's Cargo.toml for its package's name.
    std::fs::write(
        dir.join("tests/t.rs"),
        "/// Clause: one.good\n#[test]\nfn t() {}\n",
    )
    .unwrap();
    let special = |p: &Path, fifo: bool| {
        let _ = std::fs::remove_file(p);
        if fifo {
            crate::common::cli::mkfifo(p);
        } else {
            std::os::unix::fs::symlink("/dev/zero", p).unwrap();
        }
    };
    let second = std::time::Duration::from_secs(1);
    for fifo in [true, false] {
        let what = if fifo { "FIFO" } else { "character device" };
        special(&dir.join("Cargo.toml"), fifo);
        for args in [
            &["--spec", "spec", "check"][..],
            &["--spec", "spec", "build", "--out", "site"],
        ] {
            let (code, err, took) = timed(dir, args);
            assert!(
                code.is_some() && took < second,
                "Cargo.toml {what} {args:?}: {code:?} {took:?} {err}"
            );
        }
        std::fs::remove_file(dir.join("Cargo.toml")).unwrap();

        special(&dir.join("coverage.json"), fifo);
        let (code, err, took) = timed(dir, &["--spec", "spec", "matrix", "--ci", "coverage.json"]);
        assert_eq!(code, Some(1), "--ci {what}: {err}");
        assert!(
            took < second && err.contains(what),
            "--ci {what}: {took:?} {err}"
        );

        special(&dir.join("tests/contract/.scaffolded"), fifo);
        let (code, err, took) = timed(dir, &["--spec", "spec", "scaffold"]);
        assert!(
            code.is_some() && took < second,
            ".scaffolded {what}: {code:?} {took:?} {err}"
        );

        std::fs::create_dir_all(dir.join("m")).unwrap();
        special(&dir.join("m/Cargo.toml"), fifo);
        let (code, err, took) = timed(
            dir,
            &["--spec", "spec", "check", "--manifest-path", "m/Cargo.toml"],
        );
        assert_eq!(code, Some(2), "--manifest-path {what}: {err}");
        assert!(
            took < second && err.contains(what),
            "--manifest-path {what}: {took:?} {err}"
        );
    }
}

/// The state of a spec folder: each file's path (relative, hidden temporary files of a killed
/// write left out) and text.
fn files_of(spec: &Path) -> std::collections::BTreeMap<String, String> {
    let mut out = std::collections::BTreeMap::new();
    for e in walkdir::WalkDir::new(spec) {
        let e = e.unwrap();
        let name = e.file_name().to_string_lossy();
        if !e.file_type().is_file() || name.contains(".kcontract-tmp-") {
            continue;
        }
        let rel = e.path().strip_prefix(spec).unwrap().display().to_string();
        out.insert(rel, std::fs::read_to_string(e.path()).unwrap());
    }
    out
}

/// After an `import --into` was stopped at any moment: `contract.yaml` is whole, the one from
/// before or the finished one; when it is the old one, running the import again finishes it (the
/// folder then the same as an import never stopped); either way `check` passes.
fn recovers(
    dir: &Path,
    spec: &Path,
    before: &str,
    done: &std::collections::BTreeMap<String, String>,
    what: &str,
) {
    let yaml = std::fs::read_to_string(spec.join("contract.yaml")).unwrap();
    assert!(
        yaml == before || yaml == done["contract.yaml"],
        "{what}: contract.yaml is neither:\n{yaml}"
    );
    let file = root().join("tests/fixtures/import/events-v1.md");
    if yaml == before {
        let (code, out, err) =
            kcontract(dir, &["import", file.to_str().unwrap(), "--into", "c/spec"]);
        assert_eq!(code, 0, "{what}: the re-run did not finish:\n{out}{err}");
    }
    let mut now = files_of(spec);
    now.remove(kcontract_edit::import::save::JOURNAL);
    assert_eq!(&now, done, "{what}");
    let (code, out, err) = kcontract(dir, &["--spec", "c/spec", "check"]);
    assert_eq!(code, 0, "{what}: check fails:\n{out}{err}");
}

/// `import --into` stopped after each of its writes (the test hook aborts as a kill would), then
/// killed for real at moments spread over its run: every time `contract.yaml` is whole and `check`
/// passes, or the re-run finishes (issue #50, item 2). Without the journal a stop between the
/// chapters and `contract.yaml` left chapters unlisted (K0012) and the re-run refused (K1005).
#[test]
fn import_into_stopped_at_any_write_leaves_a_whole_contract() {
    let base = tempfile::tempdir().unwrap();
    let (code, _, err) = kcontract(base.path(), &["init", "c", "--title", "Relay"]);
    assert_eq!(code, 0, "{err}");
    let spec = |d: &Path| d.join("c/spec");
    let before = std::fs::read_to_string(spec(base.path()).join("contract.yaml")).unwrap();
    let file = root().join("tests/fixtures/import/events-v1.md");
    let args = ["import", file.to_str().unwrap(), "--into", "c/spec"];
    let fresh = || {
        let d = tempfile::tempdir().unwrap();
        copy_dir(base.path(), d.path());
        d
    };
    let whole = fresh();
    let (code, out, err) = kcontract(whole.path(), &args);
    assert_eq!(code, 0, "{out}{err}");
    let done = files_of(&spec(whole.path()));
    // The journal, three chapters, contract.yaml, the journal removed: six writes.
    for n in 1..=6 {
        let d = fresh();
        let st = std::process::Command::new(env!("CARGO_BIN_EXE_kcontract"))
            .current_dir(d.path())
            .args(args)
            .env("KCONTRACT_TEST_ABORT_AFTER_WRITES", n.to_string())
            .output()
            .unwrap();
        assert_eq!(st.status.code(), None, "write {n}: not stopped");
        recovers(
            d.path(),
            &spec(d.path()),
            &before,
            &done,
            &format!("stopped after write {n}"),
        );
    }
    // Real kills, from at once to after the end (a debug import takes a few milliseconds).
    for step in 0..24u64 {
        let d = fresh();
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_kcontract"))
            .current_dir(d.path())
            .args(args)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_micros(step * step * 60));
        let _ = child.kill();
        let _ = child.wait();
        recovers(
            d.path(),
            &spec(d.path()),
            &before,
            &done,
            &format!("killed after {} µs", step * step * 60),
        );
    }
}

/// `import --out` stopped at any write leaves no output folder (the files are in a hidden
/// temporary folder beside it), so the next run is not refused as "not empty".
#[test]
fn import_out_stopped_at_any_write_leaves_no_half_folder() {
    let file = root().join("tests/fixtures/import/events-v1.md");
    let args = ["import", file.to_str().unwrap(), "--out", "spec"];
    for n in 1..=4 {
        let d = tempfile::tempdir().unwrap();
        let st = std::process::Command::new(env!("CARGO_BIN_EXE_kcontract"))
            .current_dir(d.path())
            .args(args)
            .env("KCONTRACT_TEST_ABORT_AFTER_WRITES", n.to_string())
            .output()
            .unwrap();
        assert_eq!(st.status.code(), None, "write {n}: not stopped");
        assert!(!d.path().join("spec").exists(), "write {n}: a half folder");
        let (code, out, err) = kcontract(d.path(), &args);
        assert_eq!(code, 0, "write {n}: {out}{err}");
        let (code, out, err) = kcontract(d.path(), &["check"]);
        assert_eq!(code, 0, "write {n}: {out}{err}");
    }
}

/// An image of the spec (`images/`, published by `build`) linked to a decoy outside the spec
/// folder is refused (K0004) and the token is in no built file; a FIFO there is refused at once,
/// not waited on. The control: the same bytes copied in are published as `images/NAME`.
#[test]
fn a_spec_image_linked_out_of_the_folder_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&root().join("spec"), &dir.path().join("spec"));
    let images = dir.path().join("spec/images");
    std::fs::create_dir_all(&images).unwrap();
    let outside = dir.path().join("decoy.png");
    std::fs::write(&outside, TOKEN).unwrap();
    let file = images.join("leak.png");
    std::os::unix::fs::symlink(&outside, &file).unwrap();
    let (code, err) = build(dir.path());
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("error[K0004]") && err.contains("outside the folder"),
        "{err}"
    );
    assert_eq!(
        holding_token(&dir.path().join("site")),
        Vec::<std::path::PathBuf>::new()
    );
    std::fs::remove_file(&file).unwrap();
    crate::common::cli::mkfifo(&file);
    let start = std::time::Instant::now();
    let (code, err) = build(dir.path());
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("FIFO"), "{err}");
    assert!(start.elapsed().as_secs() < 30);
    std::fs::remove_file(&file).unwrap();
    std::fs::write(&file, TOKEN).unwrap();
    let (code, err) = build(dir.path());
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("site/images/leak.png")).unwrap(),
        TOKEN
    );
}

/// Every `href` and `src` of every HTML page under `dir` whose value has a scheme other than
/// http(s) (after the characters browsers strip): the live links to a script or a local program.
fn live_script_links(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for e in walkdir::WalkDir::new(dir).into_iter().flatten() {
        if e.path().extension().is_none_or(|x| x != "html") {
            continue;
        }
        let page = std::fs::read_to_string(e.path()).unwrap();
        for attr in ["href=\"", "src=\""] {
            for part in page.split(attr).skip(1) {
                let value: String = part
                    .split('"')
                    .next()
                    .unwrap_or("")
                    .chars()
                    .filter(|c| !c.is_whitespace() && !c.is_control())
                    .collect::<String>()
                    .to_ascii_lowercase();
                let scheme = value.split_once(':').map(|(s, _)| s);
                let bad = scheme
                    .is_some_and(|s| !s.contains(['/', '?', '#']) && s != "http" && s != "https");
                if bad {
                    out.push(format!("{}: {value}", e.path().display()));
                }
            }
        }
    }
    out
}

/// The hostile addresses each test puts in an input.
const SCRIPT_URLS: [&str; 3] = [
    "javascript:alert(1)",
    "data:text/html,<script>alert(2)</script>",
    "mailto:victim@example.com?body=x",
];

/// A chapter's link with a scheme the site does not publish (`javascript:`, `data:`, `mailto:`)
/// is refused with a diagnostic at the link (K0124, a warning: the site shows `#`), and no page
/// carries it live (before: `#` without a word, and `mailto:` live); the control: the same link
/// with an https address checks without a warning.
#[test]
fn a_script_link_in_a_chapter_is_refused() {
    for url in SCRIPT_URLS {
        let dir = tempfile::tempdir().unwrap();
        let spec = dir.path().join("spec");
        std::fs::create_dir_all(spec.join("en")).unwrap();
        std::fs::write(
            spec.join("contract.yaml"),
            "title: T\nversion: 0.1.0\nlanguages: [en]\nchapters: [one]\nupstream: {title: t, url: https://x.example/, license: Apache-2.0, attribution: a}\n",
        )
        .unwrap();
        let chapter = |u: &str| {
            format!(
                "# One\n\nSee [the page]({u}).\n\n```clause\nid: one.good\nlevel: MUST\nactor: platform\ntext: The platform MUST do it.\nverify: conformance\n```\n"
            )
        };
        std::fs::write(spec.join("en/one.md"), chapter(url)).unwrap();
        let (code, _, err) = kcontract(dir.path(), &["build"]);
        assert_eq!(code, 0, "{url}: {err}");
        assert!(
            err.contains("warning[K0124]") && err.contains("is not a web address"),
            "{url}: {err}"
        );
        assert_eq!(
            live_script_links(&dir.path().join("site")),
            Vec::<String>::new()
        );
        std::fs::write(spec.join("en/one.md"), chapter("https://x.example/a")).unwrap();
        let (code, _, err) = kcontract(dir.path(), &["check"]);
        assert_eq!(code, 0, "{err}");
        assert!(!err.contains("K0124"), "{err}");
    }
}

/// A vendor log whose failing test printed script links (as text, as Markdown, as HTML) is
/// imported and built: no page carries a live one. Why it holds: the log's reader keeps test names
/// (letters, digits, `_`, `-`, `/`) and outcomes, never a test's words, so no URL of a log reaches
/// the report; the report's only links (`documentation[].url`) come from a checked profile.
#[test]
fn script_links_in_a_vendor_log_are_inert_in_the_site() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(root().join(
        "upstream/knative/conformance-logs/2022-04-11-google-cloud-run.serving_runtime_e2e.log",
    ))
    .unwrap();
    let mut said = String::new();
    for u in SCRIPT_URLS {
        said.push_str(&format!(
            "    x.go:1: {u} [x]({u}) <a href=\"{u}\">x</a> <img src=\"{u}\">\n"
        ));
    }
    let hostile = text.replacen(
        "--- PASS: TestShouldHaveStdinEOF",
        &format!("{said}--- FAIL: TestShouldHaveStdinEOF"),
        1,
    );
    assert_ne!(hostile, text);
    let log = dir.path().join("vendor.log");
    std::fs::write(&log, hostile).unwrap();
    let report = dir.path().join("r.json");
    let (_, _, err) = kcontract(
        &root(),
        &[
            "platform",
            "import-log",
            "--platform",
            "acme",
            log.to_str().unwrap(),
            "--report",
            report.to_str().unwrap(),
        ],
    );
    assert!(report.exists(), "{err}");
    let written = std::fs::read_to_string(&report).unwrap();
    assert!(written.contains("TestShouldHaveStdinEOF"), "{written}");
    assert!(!written.contains("alert("), "{written}");
    let out = dir.path().join("site");
    let (code, _, err) = kcontract(
        &root(),
        &[
            "--spec",
            "spec",
            "build",
            "--out",
            out.to_str().unwrap(),
            "--platform",
            report.to_str().unwrap(),
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(live_script_links(&out), Vec::<String>::new());
    // The control: the scan finds a live one where there is one.
    std::fs::write(out.join("en/x.html"), "<a href=\"javascript:x\">x</a>").unwrap();
    assert_eq!(live_script_links(&out).len(), 1);
}

/// Interface text (templates/i18n) holding script links as Markdown and HTML is escaped on every
/// page: no live link. The control: the same text is on the page, as text.
#[test]
fn script_links_in_interface_text_are_inert_in_the_site() {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&root().join("spec"), &dir.path().join("spec"));
    std::fs::create_dir_all(dir.path().join("templates/i18n")).unwrap();
    let hostile = "<a href=\\\"javascript:alert(1)\\\">x</a> [y](javascript:alert(2))";
    let en = std::fs::read_to_string(root().join("templates/i18n/en.yaml"))
        .unwrap()
        .replacen(
            "name: \"English\"",
            &format!("name: \"English {hostile}\""),
            1,
        );
    std::fs::write(dir.path().join("templates/i18n/en.yaml"), en).unwrap();
    let (code, err) = build(dir.path());
    assert_eq!(code, 0, "{err}");
    let site = dir.path().join("site");
    assert_eq!(live_script_links(&site), Vec::<String>::new());
    let page = std::fs::read_to_string(site.join("zh/index.html")).unwrap();
    assert!(page.contains("javascript:alert(2)"), "shown as text");
}
