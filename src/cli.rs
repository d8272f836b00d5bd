//! The `kcontract` command line: the global options and the list of subcommands. Each subcommand
//! is a struct in `commands/` with its own arguments and `run`; this file only parses the command
//! line, hands it over, and turns the outcome into the exit code (`crate::terminal`).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

use crate::commands::{
    build::Build, check::Check, conformance::Conformance, diff::Diff, explain::Explain, fmt::Fmt,
    i18n::I18n, import::Import, init::Init, list::List, matrix::Matrix, model::Model,
    platform::Platform, review::Review, scaffold::Scaffold, serve::Serve,
};
use crate::terminal::{ColorChoice, Ctx, exit_code};

#[derive(Parser, Debug)]
#[command(
    name = "kcontract",
    version,
    about = "The Knative Runtime Contract as an executable specification",
    long_about = "Checks the clause-structured contract in spec/, lists its clauses, and renders it."
)]
struct Cli {
    /// Folder holding contract.yaml and the chapter files [default: spec]. The commands that read
    /// no spec folder (init, import, explain, model, conformance, platform image) refuse it.
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
}

/// Run the command line of this process; the exit code is 0 when all went well, 1 for problems
/// in the input, 2 for usage errors.
pub(crate) fn run() -> ExitCode {
    let cli = Cli::parse();
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
