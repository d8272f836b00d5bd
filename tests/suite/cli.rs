//! The commands on the contract shipped in `spec/`, through the real binary.

/// `kcontract ARGS` in this repository.
fn kcontract(args: &[&str]) -> (i32, String, String) {
    crate::common::cli::kcontract(&crate::common::cli::root(), args)
}

#[test]
fn check_passes_on_the_shipped_spec_and_summarises() {
    let (code, out, err) = kcontract(&["check"]);
    assert_eq!(code, 0, "{err}");
    assert!(err.is_empty(), "no diagnostics expected:\n{err}");
    assert!(out.starts_with("checked spec: 5 chapters, "), "{out}");
    for word in [
        "MUST NOT",
        "SHOULD",
        "MAY",
        "platform",
        "developer",
        "container",
        "model",
        "untestable",
    ] {
        assert!(out.contains(word), "summary lacks {word}:\n{out}");
    }
    assert!(out.ends_with("ok: no problems found\n"));
}

#[test]
fn list_json_is_the_documented_shape() {
    let (code, out, err) = kcontract(&["list", "--format", "json"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["format"], "kcontract-clauses/1");
    assert_eq!(v["contract"]["title"], "Knative Runtime Contract");
    let clauses = v["clauses"].as_array().unwrap();
    assert!(clauses.len() >= 80, "{}", clauses.len());
    let levels = ["MUST", "MUST NOT", "SHOULD", "SHOULD NOT", "MAY"];
    for c in clauses {
        for key in [
            "id",
            "level",
            "keyword",
            "actor",
            "verify",
            "chapter",
            "file",
            "line",
            "text",
            "upstream_tests",
        ] {
            assert!(!c[key].is_null(), "{key} missing in {c}");
        }
        assert!(levels.contains(&c["level"].as_str().unwrap()), "{c}");
        assert!(c["file"].as_str().unwrap().starts_with("spec/en/"), "{c}");
        assert!(c["line"].as_u64().unwrap() >= 1);
    }
    // The line points at the clause's opening fence.
    let first = &clauses[0];
    let file = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(first["file"].as_str().unwrap()),
    )
    .unwrap();
    let line = file
        .lines()
        .nth(first["line"].as_u64().unwrap() as usize - 1)
        .unwrap();
    assert_eq!(line, "```clause");
    // The model clauses the reference model's tests claim are there.
    for id in [
        "lifecycle.sigterm-on-kill",
        "lifecycle.sigkill-after-grace",
        "lifecycle.stopped-may-be-reclaimed",
        "lifecycle.process-failures-logged",
        "lifecycle.oci-compliant-default",
    ] {
        let c = clauses
            .iter()
            .find(|c| c["id"] == id)
            .unwrap_or_else(|| panic!("{id}"));
        assert_eq!(c["verify"], "model", "{id}");
    }
}

#[test]
fn list_table_has_a_row_per_clause() {
    let (code, out, _) = kcontract(&["list"]);
    assert_eq!(code, 0);
    let (_, json, _) = kcontract(&["list", "--format", "json"]);
    let n = serde_json::from_str::<serde_json::Value>(&json).unwrap()["clauses"]
        .as_array()
        .unwrap()
        .len();
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines[0].starts_with("ID"));
    assert_eq!(lines.len(), n + 2, "header + rows + count");
    assert_eq!(lines.last().unwrap(), &format!("{n} clauses"));
}

/// `kcontract completions bash` prints a script bash accepts (`bash -n`) that completes every
/// command; the negative control: the same script cut short is rejected by the same check.
#[test]
fn completions_bash_is_a_script_bash_accepts() {
    let (code, script, err) = kcontract(&["completions", "bash"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        bash_accepts(&script),
        "bash -n rejects the completion script"
    );
    for command in [
        "check",
        "build",
        "matrix",
        "review-docs",
        "import-log",
        "completions",
    ] {
        assert!(script.contains(command), "no completion of {command}");
    }
    assert!(script.contains("--errors-only") && script.contains("--require"));
    let cut = &script[..script.find("case \"${cmd}\" in").expect("bash's dispatch") + 20];
    assert!(
        !bash_accepts(cut),
        "bash -n accepts a truncated script: the check checks nothing"
    );
}

/// `bash -n` on `script` (parse, run nothing).
fn bash_accepts(script: &str) -> bool {
    use std::io::Write;
    let mut child = std::process::Command::new("bash")
        .arg("-n")
        .stdin(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("bash runs");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(script.as_bytes())
        .unwrap();
    child.wait().unwrap().success()
}

/// zsh's and fish's scripts are written too (their shells are not on the test machine: the
/// scripts name every command and are clap_complete's own format).
#[test]
fn completions_for_zsh_and_fish_name_every_command() {
    let (code, zsh, _) = kcontract(&["completions", "zsh"]);
    assert_eq!(code, 0);
    assert!(zsh.starts_with("#compdef kcontract"), "{}", &zsh[..40]);
    let (code, fish, _) = kcontract(&["completions", "fish"]);
    assert_eq!(code, 0);
    for command in ["check", "review-docs", "man"] {
        assert!(zsh.contains(command) && fish.contains(command), "{command}");
    }
    let (code, _, err) = kcontract(&["completions", "tcsh"]);
    assert_eq!(code, 2, "{err}");
}

/// `kcontract --version` names the upstream revision of the contract built in (spec/contract.yaml
/// as it was when the binary was built); `-V` too, on one line.
#[test]
fn version_names_the_contract_s_upstream_revision() {
    #[derive(serde::Deserialize)]
    struct Contract {
        upstream: Upstream,
    }
    #[derive(serde::Deserialize)]
    struct Upstream {
        revision: String,
    }
    let yaml =
        std::fs::read_to_string(crate::common::cli::root().join("spec/contract.yaml")).unwrap();
    let contract: Contract = serde_saphyr::from_str(&yaml).unwrap();
    let revision = contract.upstream.revision;
    let (code, long, _) = kcontract(&["--version"]);
    assert_eq!(code, 0);
    assert!(
        long.starts_with(concat!("kcontract ", env!("CARGO_PKG_VERSION"))),
        "{long}"
    );
    assert!(
        long.contains(&format!("upstream revision: {revision}")),
        "{long}"
    );
    let (code, short, _) = kcontract(&["-V"]);
    assert_eq!(code, 0);
    assert_eq!(short.lines().count(), 1, "{short}");
    assert!(short.contains(&revision), "{short}");
}

/// `kcontract man` prints kcontract(1) with the exit codes; `--out DIR` writes a page per command,
/// each a man page of its own, the same set of commands the reference documents.
#[test]
fn man_pages_are_written_for_every_command() {
    let (code, page, err) = kcontract(&["man"]);
    assert_eq!(code, 0, "{err}");
    assert!(page.contains(".TH kcontract 1"), "{}", &page[..200]);
    assert!(page.contains("Exit status:"));
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("man1");
    let (code, said, err) = kcontract(&["man", "--out", out.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let mut written: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    written.sort();
    assert!(
        said.starts_with(&format!("wrote {} man pages", written.len())),
        "{said}"
    );
    let (_, reference, _) = kcontract(&["reference"]);
    let mut documented: Vec<String> = reference
        .lines()
        .filter_map(|l| l.strip_prefix("## kcontract"))
        .map(|rest| format!("kcontract{}.1", rest.replace(' ', "-")))
        .collect();
    documented.sort();
    assert_eq!(written, documented);
    for name in &written {
        let text = std::fs::read_to_string(out.join(name)).unwrap();
        let title = name.trim_end_matches(".1");
        assert!(text.contains(&format!(".TH {title} 1")), "{name}");
        assert!(
            text.contains(".SH NAME") && text.contains(".SH SYNOPSIS"),
            "{name}"
        );
    }
    // The five most used commands show examples, in --help and in their pages.
    for (command, page) in [
        (vec!["check"], "kcontract-check.1"),
        (vec!["build"], "kcontract-build.1"),
        (vec!["serve"], "kcontract-serve.1"),
        (vec!["matrix"], "kcontract-matrix.1"),
        (vec!["platform", "run"], "kcontract-platform-run.1"),
    ] {
        let mut args = command.clone();
        args.push("--help");
        let (_, help, _) = kcontract(&args);
        assert!(
            help.contains("Examples:\n  "),
            "{command:?} --help has no examples"
        );
        let text = std::fs::read_to_string(out.join(page)).unwrap();
        assert!(text.contains("Examples:"), "{page}");
    }
}
