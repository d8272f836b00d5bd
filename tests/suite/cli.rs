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
