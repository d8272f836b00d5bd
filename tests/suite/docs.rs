//! The documentation a newcomer reads first stays true: the command reference (docs/commands.md)
//! is what the binary generates from its command line, the README is read in two minutes and
//! starts with the two commands, BENCHMARKS.md holds the current figures only, and there is a
//! changelog.

use crate::common::cli::{kcontract, root};

/// The one command that regenerates docs/commands.md (src/commands/reference.rs says the same).
const REGENERATE: &str = "cargo run -- reference --out docs/commands.md";

/// docs/commands.md is exactly what `kcontract reference` prints: an option added, renamed or
/// reworded in the code without regenerating the file fails here, with the command that fixes it.
#[test]
fn the_command_reference_is_fresh() {
    let (code, generated, err) = kcontract(&root(), &["reference"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        generated.contains(REGENERATE),
        "the generator names another command"
    );
    let committed = std::fs::read_to_string(root().join("docs/commands.md")).unwrap_or_default();
    if committed != generated {
        let first = committed
            .lines()
            .zip(generated.lines())
            .position(|(a, b)| a != b)
            .unwrap_or(committed.lines().count().min(generated.lines().count()));
        panic!(
            "docs/commands.md is stale (first difference at line {}: committed {:?}, generated {:?}).\n\
             Regenerate it with `{REGENERATE}` and commit it.",
            first + 1,
            committed.lines().nth(first),
            generated.lines().nth(first),
        );
    }
}

/// The negative control of the test above: the generator's output changes with the command line
/// (a stale file cannot compare equal): `--spec` is refused, and the reference documents the
/// global option the test binary sees.
#[test]
fn the_reference_follows_the_command_line() {
    let (_, generated, _) = kcontract(&root(), &["reference"]);
    for needle in [
        "## kcontract check",
        "`--errors-only`",
        "## kcontract platform run",
        "## Exit codes",
    ] {
        assert!(
            generated.contains(needle),
            "{needle} missing from the reference"
        );
    }
    let (code, _, err) = kcontract(&root(), &["--spec", "spec", "reference"]);
    assert_eq!(code, 2, "{err}");
}

/// README.md: at most 150 lines; its first 15 hold the run command and the test command, and the
/// test command is the line `.ci/run` runs.
#[test]
fn the_readme_is_short_and_starts_with_the_two_commands() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let lines: Vec<&str> = readme.lines().collect();
    assert!(
        lines.len() <= 150,
        "README.md has {} lines (at most 150)",
        lines.len()
    );
    let top = lines[..lines.len().min(15)].join("\n");
    for command in ["cargo run --release -- build", "cargo test --locked"] {
        assert!(
            top.contains(command),
            "`{command}` is not in README.md's first 15 lines"
        );
    }
    let ci = std::fs::read_to_string(root().join(".ci/run")).unwrap();
    assert!(
        ci.lines().any(|l| l.trim() == "cargo test --locked"),
        ".ci/run no longer runs the README's test command as written"
    );
}

/// BENCHMARKS.md: the current figures in at most 400 lines, each table row with its command
/// (the diary is docs/benchmarks-history.md); CHANGELOG.md exists in Keep a Changelog form.
#[test]
fn benchmarks_are_current_figures_and_there_is_a_changelog() {
    let bench = std::fs::read_to_string(root().join("BENCHMARKS.md")).unwrap();
    let n = bench.lines().count();
    assert!(n <= 400, "BENCHMARKS.md has {n} lines (at most 400)");
    assert!(root().join("docs/benchmarks-history.md").is_file());
    let changelog = std::fs::read_to_string(root().join("CHANGELOG.md")).unwrap();
    assert!(changelog.starts_with("# Changelog"));
    assert!(changelog.contains("keepachangelog.com"));
    assert!(changelog.contains("## [Unreleased]"));
}

/// Every table of BENCHMARKS.md has a `command` column, filled in every row: a figure without the
/// command that made it cannot be checked.
#[test]
fn every_benchmark_row_names_its_command() {
    let bench = std::fs::read_to_string(root().join("BENCHMARKS.md")).unwrap();
    let mut tables = 0;
    let mut column: Option<usize> = None;
    let mut in_table = false;
    for (n, line) in bench.lines().enumerate() {
        if !line.starts_with('|') {
            in_table = false;
            continue;
        }
        let cells: Vec<&str> = line.trim_matches('|').split(" | ").map(str::trim).collect();
        if !in_table {
            in_table = true;
            tables += 1;
            column = cells.iter().position(|c| c.contains("command"));
            assert!(
                column.is_some(),
                "BENCHMARKS.md:{}: a table without a command column",
                n + 1
            );
            continue;
        }
        if cells
            .iter()
            .all(|c| c.chars().all(|ch| ch == '-' || ch == ':'))
        {
            continue;
        }
        let cell = cells.get(column.unwrap()).copied().unwrap_or("");
        assert!(
            !cell.is_empty(),
            "BENCHMARKS.md:{}: a row without its command",
            n + 1
        );
    }
    assert!(tables >= 6, "{tables} tables");
}

/// The README's count of clauses per route is the one the site computes from the spec (the Routes
/// table of the platforms page): a check added to a route, or a clause rewritten, cannot leave the
/// README claiming more, or less, than kcontract decides.
#[test]
fn the_readme_counts_the_routes_as_the_site_does() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let page = std::fs::read_to_string(root().join("site/en/platforms.html")).unwrap();
    let mut seen = 0;
    for line in readme.lines().filter(|l| l.starts_with("| ")) {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        let (route, count) = (cells[1], cells[2]);
        if count.parse::<usize>().is_err() {
            continue;
        }
        let anchor = format!("<tr id=\"route-{}\">", route.replace(' ', "-"));
        let at = page
            .find(&anchor)
            .unwrap_or_else(|| panic!("the README's route {route:?} is not on the platforms page"));
        let row = &page[at..at + page[at..].find("</tr>").unwrap()];
        let site = row.split("<td>").nth(1).and_then(|c| c.split('<').next());
        assert_eq!(
            site,
            Some(count),
            "README.md says the {route} route decides {count} clauses; site/en/platforms.html says {site:?}"
        );
        seen += 1;
    }
    assert_eq!(
        seen, 5,
        "the README's route table lost rows (deployed, simulated, vendor log, lint, model)"
    );
}
