//! The `kcontract` command line: the global options and the list of subcommands. Each subcommand
//! is a struct in `commands/` with its own arguments and `run`; this file only parses the command
//! line, hands it over, and turns the outcome into the exit code (`crate::terminal`).
//!
//! [`command`] is the one definition of the command line that `--help`, the shell completions, the
//! man page and the command reference (docs/commands.md) are all made from: the derive, plus what
//! a derive cannot say (the version naming the contract carried, the exit codes, the examples).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};

use crate::commands::{
    build::Build,
    check::Check,
    completions::{Completions, Man},
    conformance::Conformance,
    diff::Diff,
    explain::Explain,
    fmt::Fmt,
    i18n::I18n,
    import::Import,
    init::Init,
    list::List,
    matrix::Matrix,
    model::Model,
    platform::Platform,
    reference::Reference,
    review::Review,
    scaffold::Scaffold,
    serve::Serve,
};
use crate::terminal::{ColorChoice, Ctx, exit_code};

#[derive(Parser, Debug)]
#[command(
    name = "kcontract",
    about = "The Knative Runtime Contract as an executable specification",
    long_about = "The Knative Runtime Contract as an executable specification: checks the clause-structured contract in spec/, lists its clauses, renders it as a bilingual site, traces the tests that claim its clauses, and runs it on platforms."
)]
struct Cli {
    /// Folder holding contract.yaml and the chapter files [default: spec]. The commands that read
    /// no spec folder (init, import, explain, model, conformance, platform image, completions, man) refuse it.
    #[arg(long, global = true, value_name = "DIR")]
    spec: Option<PathBuf>,
    /// Colour diagnostics: auto (when stderr is a terminal and NO_COLOR is unset), always, never.
    #[arg(long, global = true, default_value = "auto", value_name = "WHEN")]
    color: ColorChoice,
    /// Print errors only: warnings are counted, not shown (a spec with hundreds of review
    /// warnings still shows its one error at once). Exit codes are unchanged.
    #[arg(long, global = true)]
    errors_only: bool,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    Check(Check),
    Explain(Explain),
    #[command(subcommand)]
    Model(Model),
    #[command(subcommand)]
    Conformance(Conformance),
    #[command(subcommand)]
    I18n(I18n),
    List(List),
    Build(Build),
    Matrix(Matrix),
    Scaffold(Scaffold),
    Diff(Diff),
    Fmt(Fmt),
    Serve(Serve),
    Import(Import),
    Init(Init),
    Review(Review),
    #[command(subcommand)]
    Platform(Platform),
    Completions(Completions),
    Man(Man),
    #[command(hide = true)]
    Reference(Reference),
}

/// What every command exits with (`--help`, the man page and docs/commands.md show this text; the
/// codes themselves are `terminal::exit_code`'s).
pub(crate) const EXIT_CODES: &str = "\
Exit status:
  0  success; warnings may have been printed
  1  problems in the input (the spec, tests, results, a report, a profile, a manifest: every
     problem is reported, not only the first), an output that could not be written, or a gate
     not met (--require, --ci, --fail-on, --check of fmt and scaffold, a MUST or MUST NOT clause
     failing on a platform, an unexplained difference in conformance compare)
  2  usage: an unknown command or option, a value kcontract rejects (an unknown explain code, a
     selector that selects no clause), or --spec given to a command that reads no spec folder";

/// Examples shown under `--help` of the most used commands, each a command line and what it does.
/// A unit test parses every one, so an example cannot name an option that is gone.
const EXAMPLES: &[(&str, &[(&str, &str)])] = &[
    (
        "check",
        &[
            ("kcontract check", "the contract in spec/"),
            (
                "kcontract check --strict",
                "missing or stale translations and suspect tests are errors (CI)",
            ),
            (
                "kcontract --spec ../other/spec check",
                "another contract's spec folder",
            ),
            (
                "kcontract check --manifest-path ../platform-tests/Cargo.toml",
                "with the annotated tests of a crate elsewhere",
            ),
        ],
    ),
    (
        "build",
        &[
            ("kcontract build", "check, then render spec/ into site/"),
            (
                "kcontract build --out public",
                "into another folder (empty, or a site kcontract built)",
            ),
            (
                "kcontract build --results target/nextest/ci/junit.xml --platform runc.json --out target/site-ci",
                "with test results and a platform's run report as a column",
            ),
            ("kcontract build --timings", "where the time went"),
        ],
    ),
    (
        "serve",
        &[
            (
                "kcontract serve",
                "http://127.0.0.1:3000/, rebuilt and reloaded on every save",
            ),
            (
                "kcontract serve --port 0 --open",
                "any free port, opened in the browser",
            ),
        ],
    ),
    (
        "matrix",
        &[
            (
                "kcontract matrix",
                "each clause's tests and status, coverage per level and actor",
            ),
            (
                "kcontract matrix --results target/nextest/ci/junit.xml --require verify:model=passing --require '*=stub'",
                "this repository's CI gate",
            ),
            (
                "kcontract matrix --only failing,suspect",
                "only what needs a person",
            ),
            (
                "kcontract matrix --format json",
                "the stable JSON interface (docs/formats.md)",
            ),
            (
                "kcontract matrix --ci tests/coverage.json",
                "the coverage ratchet (add --accept to write the snapshot)",
            ),
        ],
    ),
    (
        "platform run",
        &[
            (
                "sudo kcontract platform run --runtime runc --profile platforms/knative-reference.yaml --report r.json",
                "the reference profile under runc (root)",
            ),
            (
                "sudo kcontract platform run --runtime crun --profile my-platform.yaml --service svc.yaml --report r.json --junit r.xml",
                "a platform's profile and a Knative Service, with JUnit for CI",
            ),
        ],
    ),
];

/// The command line's definition: the derive's, with the version, the exit codes and the examples.
pub(crate) fn command() -> clap::Command {
    with_examples(Cli::command(), "")
        .version(version(false))
        .long_version(version(true))
        .after_long_help(EXIT_CODES)
}

/// `cmd` (at `path`: `""`, `platform`, `platform run`) and its subcommands with their examples.
/// Every subcommand is taken out and put back in its order (`mut_subcommand` appends it), so the
/// order of `--help`, the completions and the reference stays the declaration's.
fn with_examples(mut cmd: clap::Command, path: &str) -> clap::Command {
    let names: Vec<String> = cmd
        .get_subcommands()
        .map(|s| s.get_name().to_owned())
        .collect();
    for name in names {
        let sub_path = format!("{path} {name}").trim_start().to_owned();
        cmd = cmd.mut_subcommand(&name, |c| with_examples(c, &sub_path));
    }
    let Some((_, examples)) = EXAMPLES.iter().find(|(p, _)| *p == path) else {
        return cmd;
    };
    let mut text = String::from("Examples:");
    for (line, what) in *examples {
        text.push_str(&format!("\n  {line}\n      {what}"));
    }
    cmd.after_help(text)
}

/// `--version` (`long`) and `-V`: kcontract's version and the contract built into it (its version
/// and the upstream revision it follows), so a report or a bug says what was judged against.
fn version(long: bool) -> String {
    let yaml = crate::embedded::BUILT_IN
        .iter()
        .find(|(path, _)| *path == "contract.yaml")
        .map_or("", |(_, text)| text);
    let about = ContractAbout::of(yaml);
    let revision = about.revision.as_deref().unwrap_or("none named");
    if !long {
        return format!(
            "{} (contract {}, upstream revision {revision})",
            env!("CARGO_PKG_VERSION"),
            about.version
        );
    }
    let mut text = format!(
        "{}\ncontract: {} {} (spec/ as built into this binary)\nupstream revision: {revision}",
        env!("CARGO_PKG_VERSION"),
        about.title,
        about.version,
    );
    if let Some(url) = &about.url {
        text.push_str(&format!("\nupstream: {url}"));
    }
    text
}

/// What `--version` says of the built-in contract, read from its `contract.yaml`: the top-level
/// `title` and `version`, and `upstream`'s `revision` and `url`. A line scan rather than the
/// loader: `--version` must not load the contract, and a unit test holds the scan to the loader's
/// reading of `spec/`.
#[derive(Debug, Default, PartialEq)]
struct ContractAbout {
    title: String,
    version: String,
    revision: Option<String>,
    url: Option<String>,
}

impl ContractAbout {
    fn of(yaml: &str) -> Self {
        let mut about = ContractAbout::default();
        let mut in_upstream = false;
        for line in yaml.lines() {
            let indented = line.starts_with([' ', '\t']);
            let Some((key, value)) = line.trim().split_once(':') else {
                continue;
            };
            let value = scalar(value);
            match (indented, key) {
                (false, "title") => about.title = value,
                (false, "version") => about.version = value,
                (false, _) => in_upstream = key == "upstream",
                (true, "revision") if in_upstream => about.revision = Some(value),
                (true, "url") if in_upstream => about.url = Some(value),
                _ => {}
            }
        }
        about
    }
}

/// A one-line YAML scalar as written after its key: without a trailing comment and quotes.
fn scalar(raw: &str) -> String {
    let raw = raw.split(" #").next().unwrap_or_default().trim();
    raw.trim_matches(|c| c == '"' || c == '\'').to_owned()
}

/// Run the command line of this process; the exit code is 0 when all went well, 1 for problems
/// in the input, 2 for usage errors.
pub(crate) fn run() -> ExitCode {
    let matches = command().get_matches();
    let cli = match Cli::from_arg_matches(&matches) {
        Ok(cli) => cli,
        Err(e) => e.exit(),
    };
    let ctx = Ctx::new(cli.spec, cli.color).errors_only(cli.errors_only);
    if ctx.spec_given
        && let Some((name, instead)) = cli.command.without_spec()
    {
        return exit_code(Err(ctx.usage(
            &format!("--spec has no effect on `kcontract {name}`"),
            instead,
        )));
    }
    // A command run in a crate reads its kcontract.toml (the spec it names), whichever it is.
    let ctx = match cli.command.without_spec() {
        Some(_) => ctx,
        None => match crate::commands::tests_flags::in_crate(ctx) {
            Ok(ctx) => ctx,
            Err(failure) => return exit_code(Err(failure)),
        },
    };
    exit_code(match cli.command {
        Command::Check(c) => c.run(&ctx),
        Command::Explain(c) => c.run(&ctx),
        Command::Model(c) => c.run(&ctx),
        Command::Conformance(c) => c.run(&ctx),
        Command::I18n(c) => c.run(&ctx),
        Command::List(c) => c.run(&ctx),
        Command::Build(c) => c.run(&ctx),
        Command::Matrix(c) => c.run(&ctx),
        Command::Scaffold(c) => c.run(&ctx),
        Command::Diff(c) => c.run(&ctx),
        Command::Fmt(c) => c.run(&ctx),
        Command::Serve(c) => c.run(&ctx),
        Command::Import(c) => c.run(&ctx),
        Command::Init(c) => c.run(&ctx),
        Command::Review(c) => c.run(&ctx),
        Command::Platform(c) => c.run(&ctx),
        Command::Completions(c) => c.run(&ctx, command()),
        Command::Man(c) => c.run(&ctx, command()),
        Command::Reference(c) => c.run(&ctx, command()),
    })
}

impl Command {
    /// For a command that never reads the spec folder: its name and what to give instead of
    /// `--spec`. `--spec` is global (clap accepts it anywhere), and a flag taken and then ignored
    /// is a silent failure: `kcontract --spec custom init c` would write `c/spec/` while the person
    /// expected `custom`. The match names every command, so a new one has to say which it is.
    fn without_spec(&self) -> Option<(&'static str, &'static str)> {
        match self {
            Command::Init(_) => Some((
                "init",
                "leave --spec out: init writes the new contract into the DIR argument (DIR/spec/ is its spec folder), e.g. kcontract init my-contract",
            )),
            Command::Import(_) => Some((
                "import",
                "leave --spec out and name the spec folder to write with --out DIR (a new one) or --into DIR (one `kcontract init` made)",
            )),
            Command::Explain(_) => Some((
                "explain",
                "leave --spec out: explain prints the catalogue built into kcontract (docs/errors.md)",
            )),
            Command::Model(Model::Replay { .. }) => Some((
                "model replay",
                "leave --spec out: model replay reads only the trace FILE",
            )),
            Command::Conformance(Conformance::Run(_) | Conformance::Compare(_)) => Some((
                "conformance",
                "leave --spec out: conformance reads only the trace FILE",
            )),
            Command::Platform(Platform::Image(_)) => Some((
                "platform image",
                "leave --spec out: platform image packs the probe (--probe FILE) and reads no contract",
            )),
            Command::Completions(_) => Some((
                "completions",
                "leave --spec out: the completions describe kcontract's command line and read no contract",
            )),
            Command::Man(_) => Some((
                "man",
                "leave --spec out: the man pages describe kcontract's command line and read no contract",
            )),
            Command::Reference(_) => Some((
                "reference",
                "leave --spec out: the reference describes kcontract's command line and reads no contract",
            )),
            Command::Platform(
                Platform::Run(_)
                | Platform::ImportLog(_)
                | Platform::Lint(_)
                | Platform::Verify(_)
                | Platform::ReviewDocs(_),
            )
            | Command::Check(_)
            | Command::I18n(_)
            | Command::List(_)
            | Command::Build(_)
            | Command::Matrix(_)
            | Command::Scaffold(_)
            | Command::Diff(_)
            | Command::Fmt(_)
            | Command::Serve(_)
            | Command::Review(_) => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every example under `--help` parses: an option renamed or removed fails here, not in a
    /// reader's shell.
    #[test]
    fn every_example_parses() {
        for (path, examples) in EXAMPLES {
            for (line, _) in *examples {
                let words = shell_words(line);
                let words: Vec<&str> = words
                    .iter()
                    .map(String::as_str)
                    .skip_while(|w| *w == "sudo")
                    .collect();
                assert!(
                    words.join(" ").contains(&format!("kcontract {path}"))
                        || words.join(" ").contains(&format!(" {path}")),
                    "example of {path} runs another command: {line}"
                );
                if let Err(e) = command().try_get_matches_from(&words) {
                    panic!("example of `{path}` does not parse: {line}\n{e}");
                }
            }
        }
    }

    /// The negative control of the test above: an example with an option that does not exist is
    /// rejected by the same parse.
    #[test]
    fn an_example_with_an_unknown_option_is_caught() {
        let words = shell_words("kcontract check --no-such-option");
        assert!(command().try_get_matches_from(&words).is_err());
    }

    /// Words of a command line as a shell splits them (single quotes only, as the examples write
    /// them).
    fn shell_words(line: &str) -> Vec<String> {
        let mut words = Vec::new();
        let mut word = String::new();
        let mut quoted = false;
        for c in line.chars() {
            match c {
                '\'' => quoted = !quoted,
                ' ' if !quoted => {
                    if !word.is_empty() {
                        words.push(std::mem::take(&mut word));
                    }
                }
                c => word.push(c),
            }
        }
        words.push(word);
        words
    }

    /// `--version` names the upstream revision of the contract built in, as the loader reads it
    /// from spec/contract.yaml; the scan agrees with the loader on title, version, revision, url.
    #[test]
    fn version_names_the_contract_and_its_upstream_revision() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let loaded = kcontract_spec::load(&root.join("spec"));
        let contract = &loaded.spec.contract;
        let upstream = contract
            .upstream
            .as_ref()
            .expect("spec/ names its upstream");
        let revision = upstream.revision.clone().expect("spec/ names a revision");
        #[allow(clippy::disallowed_methods)] // a test reading the repository's own spec
        let yaml = std::fs::read_to_string(root.join("spec/contract.yaml")).unwrap();
        assert_eq!(
            ContractAbout::of(&yaml),
            ContractAbout {
                title: contract.title.clone(),
                version: contract.version.clone(),
                revision: Some(revision.clone()),
                url: Some(upstream.url.clone()),
            }
        );
        for long in [false, true] {
            let v = version(long);
            assert!(v.contains(&revision), "{v}");
            assert!(v.starts_with(env!("CARGO_PKG_VERSION")), "{v}");
        }
    }

    /// The scan reads what YAML allows around a scalar (quotes, a comment) and takes `revision`
    /// and `url` only inside `upstream:`; a contract without an upstream has no revision.
    #[test]
    fn the_contract_scan_reads_only_upstream_s_revision() {
        let yaml = "title: \"T\"\nversion: '2.0' # ours\nhistory:\n  - revision: aaaa\n    url: https://old\nupstream:\n  url: https://new\n  revision: bbbb  # pinned\nsearch_hint: x\n";
        assert_eq!(
            ContractAbout::of(yaml),
            ContractAbout {
                title: "T".into(),
                version: "2.0".into(),
                revision: Some("bbbb".into()),
                url: Some("https://new".into()),
            }
        );
        assert_eq!(ContractAbout::of("title: T\nversion: 1\n").revision, None);
    }
}
