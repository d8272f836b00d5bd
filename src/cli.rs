//! The `kcontract` command line. Thin: parse arguments, call the library, map results to exit codes
//! (0 = fine, 1 = problems in the input, 2 = usage error, as clap does).

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use annotate_snippets::Renderer;
use clap::{Parser, Subcommand, ValueEnum};

use crate::diagnostic::{Diagnostic, SourceMap, render_all};
use crate::i18n::{self, StampTarget};
use crate::list;
use crate::matrix::Requirement;
use crate::site;
use crate::spec_source::{LoadOptions, Loaded, load_with};
use crate::workflow::{self, MatrixFormat, ScaffoldTarget};

#[derive(Parser, Debug)]
#[command(
    name = "kcontract",
    version,
    about = "The Knative Runtime Contract as an executable specification",
    long_about = "Checks the clause-structured contract in spec/, lists its clauses, and renders it."
)]
pub struct Cli {
    /// Folder holding contract.yaml and the chapter files.
    #[arg(long, global = true, default_value = "spec", value_name = "DIR")]
    pub spec: PathBuf,
    /// Colour diagnostics: auto (when stderr is a terminal and NO_COLOR is unset), always, never.
    #[arg(long, global = true, default_value = "auto", value_name = "WHEN")]
    pub color: ColorChoice,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum ColorChoice {
    Auto,
    Always,
    Never,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Validate the spec; print a summary. Exit 0 when there are no errors, 1 otherwise.
    Check {
        /// Missing or stale translations are errors, not warnings.
        #[arg(long)]
        strict: bool,
    },
    /// Print the catalogue entry for a diagnostic code (e.g. `kcontract explain K0104`).
    Explain {
        /// The code, as printed in `error[K0104]`.
        code: String,
    },
    /// The reference model of the OCI container lifecycle.
    #[command(subcommand)]
    Model(ModelCommand),
    /// The model against real OCI runtimes (runc, crun, youki); needs root.
    #[command(subcommand)]
    Conformance(ConformanceCommand),
    /// Translation status and review stamps.
    #[command(subcommand)]
    I18n(I18nCommand),
    /// List every clause.
    List {
        #[arg(long, default_value = "table")]
        format: ListFormat,
    },
    /// Check the spec and render the site.
    Build {
        /// Output folder.
        #[arg(long, default_value = "site", value_name = "DIR")]
        out: PathBuf,
        /// Folder of templates overriding the embedded ones (same file names).
        #[arg(long, value_name = "DIR")]
        templates: Option<PathBuf>,
        /// Missing or stale translations are errors, not warnings.
        #[arg(long)]
        strict: bool,
        /// Print where the time went to stderr: the steps (read, parse, assemble, validate,
        /// tests+matrix, templates, prepare, render+write, swap) and the parts of render+write.
        #[arg(long)]
        timings: bool,
        /// Test results (JUnit XML or libtest output) to show in the matrix page.
        #[arg(long, value_name = "FILE")]
        results: Vec<PathBuf>,
    },
    /// The traceability matrix: each clause's tests and status, coverage per level and actor.
    Matrix {
        /// Test results: cargo-nextest JUnit XML or libtest's plain output (repeatable).
        #[arg(long, value_name = "FILE")]
        results: Vec<PathBuf>,
        #[arg(long, default_value = "table")]
        format: MatrixFormat,
        /// SELECTOR=STATUS: exit 1 unless every selected clause has at least STATUS
        /// (e.g. `MUST=implemented`, `verify:model=passing`; repeatable).
        #[arg(long, value_name = "SELECTOR=STATUS")]
        require: Vec<Requirement>,
    },
    /// Write Rust test stubs for the clauses (one file per chapter); regeneration keeps your work.
    Scaffold {
        /// Folder of test modules (default tests/contract); with --crate, the crate's root (default ./NAME).
        #[arg(long, value_name = "DIR")]
        out: Option<PathBuf>,
        /// Write a standalone crate NAME (Cargo.toml and src/lib.rs when missing, tests/contract/).
        #[arg(long = "crate", value_name = "NAME", value_parser = crate::scaffold::check_crate_name)]
        crate_name: Option<String>,
        /// Write nothing; exit 1 when a file would change.
        #[arg(long)]
        check: bool,
    },
}

#[derive(Subcommand, Debug)]
pub enum ModelCommand {
    /// Replay a JSON trace against the model; prints one JSON object per step.
    Replay {
        /// The trace file.
        file: PathBuf,
        /// OCI runtime-spec version to follow (1.0.1 or 1.3.0), overriding the trace's `oci_version`.
        #[arg(long)]
        oci_version: Option<String>,
        /// Reproduce a real runtime's documented deviations (runc, crun or youki; see
        /// spec/runtimes/deviations.yaml); each line then lists the deviations that took effect.
        #[arg(long, value_name = "RUNTIME")]
        profile: Option<String>,
    },
}

#[derive(Subcommand, Debug)]
pub enum ConformanceCommand {
    /// Replay a JSON trace on a real OCI runtime; prints one JSON object per step, like
    /// `model replay`.
    Run(ConformanceArgs),
    /// Replay a trace on a real OCI runtime and on the model (with and without the runtime's
    /// profile); prints the comparable fields side by side. Exit 1 on an unexplained difference.
    Compare(ConformanceArgs),
}

#[derive(clap::Args, Debug)]
pub struct ConformanceArgs {
    /// runc, crun or youki (found on PATH).
    #[arg(long)]
    runtime: String,
    /// The trace file.
    file: PathBuf,
    /// Read the trace as this OCI version (1.0.1 or 1.3.0), overriding its `oci_version`.
    #[arg(long)]
    oci_version: Option<String>,
}

#[derive(Subcommand, Debug)]
pub enum I18nCommand {
    /// Per-chapter counts of current, stale and missing translations.
    Status,
    /// Record that translations were reviewed against the current source text.
    Stamp {
        /// Clause ids whose translations were reviewed.
        #[arg(
            required_unless_present = "all_reviewed",
            conflicts_with = "all_reviewed"
        )]
        ids: Vec<String>,
        /// Re-stamp every stale translation (after reviewing them all).
        #[arg(long)]
        all_reviewed: bool,
    },
}

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum ListFormat {
    Table,
    Json,
}

pub fn run() -> ExitCode {
    let cli = Cli::parse();
    let renderer = match cli.color {
        ColorChoice::Always => Renderer::styled(),
        ColorChoice::Never => Renderer::plain(),
        ColorChoice::Auto => {
            if std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none() {
                Renderer::styled()
            } else {
                Renderer::plain()
            }
        }
    };
    let spec_dir = cli.spec;
    // Load the spec, print its diagnostics, and stop with exit 1 if it has errors.
    let load = |strict: bool, quiet_translations: bool| -> Result<Loaded, ExitCode> {
        let mut loaded = load_with(&spec_dir, LoadOptions { strict });
        if quiet_translations {
            // The i18n commands report translation state themselves.
            loaded
                .diagnostics
                .retain(|d| !matches!(d.code, "K0301" | "K0303"));
        }
        report(&loaded, &renderer);
        if loaded.has_errors() {
            Err(finish(&loaded))
        } else {
            Ok(loaded)
        }
    };
    let fail = |d: &Diagnostic, sources: &SourceMap, after: &str| {
        eprint!("{}", d.render_with(sources, &renderer));
        eprintln!("\n{after}");
        ExitCode::from(1)
    };
    match cli.command {
        Command::Explain { code } => match crate::explain::explain(&code) {
            Some(entry) => write_stdout(&format!("{entry}\n")),
            None => {
                let codes: Vec<&str> = crate::explain::entries().iter().map(|(c, _)| *c).collect();
                eprintln!(
                    "error: no diagnostic `{code}`\n  = help: the codes are {}",
                    codes.join(", ")
                );
                ExitCode::from(1)
            }
        },
        // The model reads a trace, not the spec: it works from any folder.
        Command::Model(ModelCommand::Replay {
            file,
            oci_version,
            profile,
        }) => crate::model::replay_command(&file, oci_version.as_deref(), profile.as_deref()),
        Command::Conformance(cmd) => {
            use crate::conformance::cli::{Mode, run_conformance};
            let (mode, args) = match cmd {
                ConformanceCommand::Run(a) => (Mode::Run, a),
                ConformanceCommand::Compare(a) => (Mode::Compare, a),
            };
            let code = run_conformance(
                mode,
                &args.runtime,
                &args.file,
                args.oci_version.as_deref(),
                &mut std::io::stdout().lock(),
                &mut std::io::stderr().lock(),
            );
            ExitCode::from(code)
        }
        Command::Check { strict } => match load(strict, false) {
            Ok(mut loaded) => match workflow::scan_tests(&mut loaded, &renderer) {
                Ok(scan) => {
                    let code = write_stdout(&format!(
                        "{}{}ok: no problems found\n",
                        list::summary(&loaded.spec, &spec_dir),
                        workflow::tests_summary(&scan)
                    ));
                    // As after `build`: the process ends, freeing the spec piece by piece is waste.
                    std::mem::forget(loaded);
                    code
                }
                Err(code) => code,
            },
            Err(code) => code,
        },
        Command::Matrix {
            results,
            format,
            require,
        } => match load(false, false) {
            Ok(mut loaded) => {
                workflow::matrix_command(&mut loaded, &results, format, &require, &renderer)
            }
            Err(code) => code,
        },
        Command::Scaffold {
            out,
            crate_name,
            check,
        } => match load(false, false) {
            Ok(mut loaded) => {
                let target = ScaffoldTarget::new(out, crate_name);
                workflow::scaffold_command(&mut loaded, &target, check, &renderer)
            }
            Err(code) => code,
        },
        Command::List { format } => match load(false, false) {
            Ok(loaded) => write_stdout(&match format {
                ListFormat::Table => list::table(&loaded.spec),
                ListFormat::Json => list::json(&loaded.spec),
            }),
            Err(code) => code,
        },
        Command::I18n(cmd) => {
            let loaded = match load(false, true) {
                Ok(l) => l,
                Err(code) => return code,
            };
            let target = match cmd {
                I18nCommand::Status => return write_stdout(&i18n::status(&loaded.spec)),
                I18nCommand::Stamp {
                    all_reviewed: true, ..
                } => StampTarget::AllReviewed,
                I18nCommand::Stamp { ids, .. } => StampTarget::Ids(ids),
            };
            match i18n::stamp_clauses(&loaded.spec, &loaded.sources, &target) {
                Ok(done) => {
                    let mut s = String::new();
                    for (file, id) in &done {
                        s.push_str(&format!("stamped {id} in {}\n", file.display()));
                    }
                    s.push_str(&format!("{} translation(s) stamped\n", done.len()));
                    write_stdout(&s)
                }
                Err(d) => fail(&d, &loaded.sources, "error: nothing was stamped"),
            }
        }
        Command::Build {
            out,
            templates,
            strict,
            timings,
            results,
        } => {
            let mut loaded = match load(strict, false) {
                Ok(l) => l,
                Err(code) => return code,
            };
            let opts = site::BuildOptions {
                out: out.clone(),
                templates,
            };
            let built = workflow::with_matrix(&mut loaded, &results, &renderer, |m, _| {
                site::build(m, m.spec.runtimes.as_ref(), &opts)
            });
            let built = match built {
                Ok(b) => b,
                Err(code) => return code,
            };
            match built {
                Ok(r) => {
                    if timings {
                        let mut t = loaded.timings.clone();
                        t.extend(&r.timings);
                        eprint!("{}", t.report());
                    }
                    let code = write_stdout(&format!(
                        "{}built {} pages ({} files) into {}\n",
                        list::summary(&loaded.spec, &spec_dir),
                        r.pages,
                        r.files,
                        out.display()
                    ));
                    // The process ends here: freeing every clause, source file and span one by one
                    // only costs time (tens of ms on a large spec).
                    std::mem::forget(loaded);
                    code
                }
                Err(d) => fail(
                    &d,
                    &loaded.sources,
                    &format!(
                        "error: the site was not built; {} is unchanged",
                        out.display()
                    ),
                ),
            }
        }
    }
}

/// Print diagnostics to stderr, sorted by position.
pub(crate) fn report(loaded: &Loaded, renderer: &Renderer) {
    if loaded.diagnostics.is_empty() {
        return;
    }
    let text = render_all(&loaded.diagnostics, &loaded.sources, renderer);
    let _ = std::io::stderr().write_all(text.as_bytes());
}

fn finish(loaded: &Loaded) -> ExitCode {
    let (e, w) = (loaded.error_count(), loaded.warning_count());
    if e > 0 {
        eprintln!(
            "error: {e} error{} and {w} warning{} found; nothing was written",
            plural(e),
            plural(w)
        );
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

pub(crate) fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// Write to stdout, treating a closed pipe (`kcontract list | head`) as success rather than a panic.
pub(crate) fn write_stdout(s: &str) -> ExitCode {
    let mut out = std::io::stdout().lock();
    match out.write_all(s.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: cannot write to standard output: {e}");
            ExitCode::from(1)
        }
    }
}
