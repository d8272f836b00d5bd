//! The files of a standalone test crate (`scaffold --crate NAME`), each written once, when
//! missing, and never touched again.

use kcontract_spec::Spec;

/// `Cargo.toml` of a standalone test crate (written only when missing).
pub(super) fn crate_manifest(spec: &Spec, name: &str) -> String {
    format!(
        "[package]\n\
         name = \"{name}\"\n\
         version = \"0.1.0\"\n\
         edition = \"2024\"\n\
         publish = false\n\
         description = \"Tests for the {} {}, scaffolded by kcontract\"\n\
         \n\
         # A workspace of its own, so the crate builds wherever it is put.\n\
         [workspace]\n\
         \n\
         [dependencies]\n",
        spec.contract.title.replace(['"', '\\'], ""),
        spec.contract.version.replace(['"', '\\'], "")
    )
}

/// `.config/nextest.toml` of a standalone test crate (written only when missing): the `ci` profile
/// whose JUnit report `kcontract matrix --results` reads.
pub(super) const CRATE_NEXTEST: &str = "# cargo-nextest configuration, written once by `kcontract scaffold --crate`. The `ci` profile runs\n# every test even after a failure and writes a JUnit report to target/nextest/ci/junit.xml, which\n# `kcontract matrix --results` reads.\n[profile.ci]\nfail-fast = false\n\n[profile.ci.junit]\npath = \"junit.xml\"\n";

/// `README.md` of a standalone test crate (written only when missing): the workflow, run in the
/// crate (its `kcontract.toml` names the spec and the selection, so no command needs a flag).
pub(super) fn crate_readme(spec: &Spec, name: &str) -> String {
    format!(
        "# {name}\n\n\
         Tests for the {title} {version}, scaffolded by `kcontract`. Each file in `tests/contract/` is\n\
         a chapter; each test claims its clause with a `/// Clause: <id> @ <stamp>` line. Write a test's\n\
         body and remove its `#[ignore]` line; regenerating keeps your work. `kcontract.toml` says where\n\
         the contract is, which clauses this crate answers for (`select`) and which do not apply here\n\
         (`[exempt]`, each with its reason); every command below reads it.\n\n\
         ```sh\n\
         # 1. generate (again, after the contract changed: new clauses get stubs, nothing is lost)\n\
         kcontract scaffold\n\
         # 2. run the tests, with a JUnit report (the `ci` profile of .config/nextest.toml)\n\
         cargo nextest run --profile ci\n\
         # 3. the traceability matrix of the selected clauses; exit 1 unless each passes (or is exempt)\n\
         kcontract matrix --results target/nextest/ci/junit.xml --require '*=passing'\n\
         # 4. in CI, also fail when coverage drops below the committed snapshot (write it once with --accept)\n\
         kcontract matrix --results target/nextest/ci/junit.xml --ci coverage.json\n\
         ```\n",
        title = spec.contract.title,
        version = spec.contract.version,
    )
}

/// `.gitignore` of a standalone test crate (written only when missing): Cargo's output, where
/// kcontract also keeps its scan cache.
pub(super) const CRATE_GITIGNORE: &str = "/target\n";

/// `src/lib.rs` of a standalone test crate (written only when missing).
pub(super) const CRATE_LIB: &str = "//! Helpers shared by the contract tests in `tests/contract/` (a client for the platform\n//! under test, fixtures, …). `kcontract scaffold` wrote this file once and never touches it again.\n";

/// A `--crate NAME` that Cargo would not take as a package name; its text is clap's message for
/// the option.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "`{0}` is not a Cargo package name: use ASCII letters, digits, `-` and `_`, starting with a letter or `_`, at most 64 characters"
)]
pub struct CrateNameError(String);

/// Is `name` usable as a Cargo package name?
pub fn check_crate_name(name: &str) -> Result<String, CrateNameError> {
    let ok = !name.is_empty()
        && name.len() <= 64
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        && !name.starts_with(|c: char| c.is_ascii_digit() || c == '-');
    if ok {
        Ok(name.to_string())
    } else {
        Err(CrateNameError(name.to_string()))
    }
}
