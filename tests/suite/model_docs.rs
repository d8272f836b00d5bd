//! `docs/model.md` stays in step with the code: it names every invariant rule, and the Knative clauses
//! the model verifies (`verify: model` in spec/) are each claimed by a test of the model.

use std::path::Path;

use kcontract_oci::model::invariants::ALL_RULES;

fn read(rel: &str) -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(rel))
        .unwrap_or_else(|e| panic!("{rel}: {e}"))
}

#[test]
fn docs_name_every_invariant_rule() {
    let docs = read("docs/model.md");
    for rule in ALL_RULES {
        assert!(
            docs.contains(&format!("`{}`", rule.id)),
            "docs/model.md does not mention rule `{}`",
            rule.id
        );
    }
}

#[test]
fn every_model_clause_is_claimed_by_a_model_test() {
    let clauses = [
        "lifecycle.oci-compliant-default",
        "lifecycle.sigterm-on-kill",
        "lifecycle.sigkill-after-grace",
        "lifecycle.stopped-may-be-reclaimed",
        "lifecycle.process-failures-logged",
    ];
    let tests: String = [
        "tests/suite/model_exhaustive.rs",
        "tests/suite/model_props.rs",
        "tests/suite/model_mutants.rs",
        "tests/suite/model_replay.rs",
    ]
    .iter()
    .map(|f| read(f))
    .collect();
    for clause in clauses {
        assert!(
            tests.lines().any(|l| {
                let l = l.trim();
                l == format!("/// Clause: {clause}")
                    || l.starts_with(&format!("/// Clause: {clause} @ "))
            }),
            "no model test claims {clause}"
        );
    }
}
