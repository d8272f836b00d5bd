//! The careful reader is the only way to read a person's file (issue #50): clippy.toml bans
//! `std::fs::read`, `std::fs::read_to_string` and `std::fs::File::open` (clippy's
//! `disallowed-methods`), so `cargo clippy --all-targets --workspace -- -D warnings` fails on a new
//! reader that bypasses `kcontract_spec::fsutil`. These tests show the list is there and that it
//! bites: a scratch crate reading a file with `std::fs::read_to_string` under the repository's
//! clippy.toml fails the lint, and passes without it.

use std::path::Path;
use std::process::Command;

use crate::common::cli::root;

/// The methods banned, as clippy.toml names them.
const BANNED: [&str; 3] = [
    "std::fs::read",
    "std::fs::read_to_string",
    "std::fs::File::open",
];

/// clippy.toml at the workspace root lists each banned method with a reason naming the careful
/// reader.
#[test]
fn clippy_toml_bans_the_ways_around_the_careful_reader() {
    let text = std::fs::read_to_string(root().join("clippy.toml")).unwrap();
    assert!(text.contains("disallowed-methods"), "{text}");
    for method in BANNED {
        let entry = format!("path = \"{method}\"");
        let line = text
            .lines()
            .find(|l| l.contains(&entry))
            .unwrap_or_else(|| panic!("{method} is not banned:\n{text}"));
        assert!(line.contains("kcontract_spec::fsutil"), "{line}");
    }
}

/// `cargo clippy` on a scratch crate in `dir`, with `-D warnings`: its exit status and stderr. A
/// fresh target folder each time (`run`): cargo does not re-lint a crate whose clippy.toml alone
/// changed.
fn clippy(dir: &Path, run: &str) -> (bool, String) {
    let out = Command::new(env!("CARGO"))
        .current_dir(dir)
        .args(["clippy", "--offline", "--quiet", "--", "-D", "warnings"])
        .env("CARGO_TARGET_DIR", dir.join("target").join(run))
        .env_remove("RUSTC_WRAPPER")
        .output()
        .unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A scratch crate whose library reads a file with each banned method fails `cargo clippy -D
/// warnings` under the repository's clippy.toml, each call named; the control: the same crate
/// without the clippy.toml passes, and with it a crate reading nothing passes. Needs clippy (a
/// rustup component), so it is run by name: `cargo test --test suite clippy_ban -- --ignored`.
#[test]
#[ignore = "needs cargo clippy: run by name in CI (cargo test --test suite clippy_ban -- --ignored)"]
fn a_read_outside_the_careful_reader_fails_the_lint() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    std::fs::create_dir_all(dir.join("src")).unwrap();
    std::fs::write(
        dir.join("Cargo.toml"),
        "[package]\nname = \"scratch\"\nversion = \"0.0.0\"\nedition = \"2024\"\n\n[workspace]\n",
    )
    .unwrap();
    let reading = "pub fn a(p: &std::path::Path) -> String {\n    std::fs::read_to_string(p).unwrap_or_default()\n}\n\n\
pub fn b(p: &std::path::Path) -> Vec<u8> {\n    std::fs::read(p).unwrap_or_default()\n}\n\n\
pub fn c(p: &std::path::Path) -> bool {\n    std::fs::File::open(p).is_ok()\n}\n";
    std::fs::write(dir.join("src/lib.rs"), reading).unwrap();
    // The control first: without the ban the crate is clean.
    let (ok, err) = clippy(dir, "control");
    assert!(ok, "without clippy.toml: {err}");
    std::fs::copy(root().join("clippy.toml"), dir.join("clippy.toml")).unwrap();
    let (ok, err) = clippy(dir, "banned");
    assert!(!ok, "the ban did not bite: {err}");
    for method in BANNED {
        assert!(
            err.contains(&format!("use of a disallowed method `{method}`")),
            "{method}: {err}"
        );
    }
    std::fs::write(dir.join("src/lib.rs"), "pub fn a() -> u8 {\n    1\n}\n").unwrap();
    let (ok, err) = clippy(dir, "clean");
    assert!(ok, "a crate reading nothing: {err}");
}
