//! Everything a command prints, and what a failure means for the exit code: the one place that
//! renders diagnostics, counts them and turns them into exit codes (0 fine, 1 problems in the
//! input, 2 usage errors — as clap does for the arguments it rejects itself).

use std::cell::Cell;
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use annotate_snippets::Renderer;

use kcontract_spec::diagnostic::{Diagnostic, SourceMap, render_all};

/// Why a command failed. Every failure has been reported on stderr before it is returned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Failure {
    /// Problems in the input (spec, tests, results, templates) or output that could not be
    /// written: exit 1.
    Input,
    /// The command line asks for something that does not exist: exit 2.
    Usage,
}

/// What a command ended with.
pub(crate) type Outcome = Result<(), Failure>;

/// The exit code of an outcome.
pub(crate) fn exit_code(outcome: Outcome) -> ExitCode {
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Input) => ExitCode::from(1),
        Err(Failure::Usage) => ExitCode::from(2),
    }
}

/// `--color`.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
pub(crate) enum ColorChoice {
    /// When stderr is a terminal and NO_COLOR is unset.
    Auto,
    Always,
    Never,
}

/// The terminal a command reports to, and the global options every command shares.
#[derive(Clone)]
pub(crate) struct Ctx {
    /// The spec folder (`--spec`, default `spec`).
    pub(crate) spec: PathBuf,
    /// Whether `--spec` was given (hints then name the flag's value, not the default).
    pub(crate) spec_given: bool,
    renderer: Renderer,
    /// `--color`, for what a command prints on stdout (`stdout_styled`).
    color: ColorChoice,
    /// What a failure means for the command's output, said after the error count (e.g. "nothing
    /// was written"); `None` for commands that never write.
    consequence: Option<String>,
    /// Warnings printed so far, so a command that succeeds does not say "no problems" under them.
    warnings: Cell<usize>,
    /// `--errors-only`: warnings are counted but not printed.
    errors_only: bool,
    /// Warnings not printed for `--errors-only`.
    hidden: Cell<usize>,
}

impl Ctx {
    pub(crate) fn new(spec: Option<PathBuf>, color: ColorChoice) -> Self {
        let styled = match color {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => {
                std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none()
            }
        };
        Ctx {
            spec_given: spec.is_some(),
            spec: spec.unwrap_or_else(|| PathBuf::from("spec")),
            renderer: if styled {
                Renderer::styled()
            } else {
                Renderer::plain()
            },
            color,
            consequence: None,
            warnings: Cell::new(0),
            errors_only: false,
            hidden: Cell::new(0),
        }
    }

    /// The same context, printing errors only when `yes` (`--errors-only`).
    pub(crate) fn errors_only(self, yes: bool) -> Self {
        Ctx {
            errors_only: yes,
            ..self
        }
    }

    /// Where the warnings counted so far are: `(above)`, or that `--errors-only` hid them.
    pub(crate) fn warnings_shown(&self) -> &'static str {
        if self.hidden.get() > 0 {
            "(not shown: --errors-only)"
        } else {
            "(above)"
        }
    }

    /// Whether to colour what the command prints on stdout: `--color`, or with `auto` when
    /// stdout is a terminal and NO_COLOR is unset (the rule of the diagnostics on stderr).
    pub(crate) fn stdout_styled(&self) -> bool {
        match self.color {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => {
                std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none()
            }
        }
    }

    /// The same context, for a command whose failure means `consequence` for its output.
    pub(crate) fn writing(&self, consequence: impl Into<String>) -> Self {
        Ctx {
            consequence: Some(consequence.into()),
            ..self.clone()
        }
    }

    /// Print `diags` (sorted by position) to stderr. With an error among them, say how many
    /// errors and warnings there were and what that means for the output, and fail.
    pub(crate) fn report(&self, diags: &[Diagnostic], sources: &SourceMap) -> Outcome {
        self.report_after(0, diags, sources)
    }

    /// [`Self::report`], when `before` errors of other source files were printed just before
    /// (an earlier version's, whose K0016 is among `diags`): the summary counts them too.
    pub(crate) fn report_after(
        &self,
        before: usize,
        diags: &[Diagnostic],
        sources: &SourceMap,
    ) -> Outcome {
        self.print_diagnostics(diags, sources);
        let own = diags.iter().filter(|d| d.is_error()).count();
        self.warnings.set(self.warnings.get() + diags.len() - own);
        if own == 0 {
            return Ok(());
        }
        let errors = before + own;
        // Every warning printed so far, not only this stage's: the count must match the screen.
        let warnings = self.warnings.get();
        let consequence = match &self.consequence {
            Some(c) => format!("; {c}"),
            None => String::new(),
        };
        let hidden = if self.hidden.get() > 0 {
            " (warnings not shown: --errors-only)"
        } else {
            ""
        };
        eprintln!(
            "error: {errors} error{} and {warnings} warning{} found{hidden}{consequence}",
            plural(errors),
            plural(warnings)
        );
        Err(Failure::Input)
    }

    /// Print `diags` (sorted by position) to stderr, without a summary; under `--errors-only`
    /// only the errors, the warnings counted as hidden.
    pub(crate) fn print_diagnostics(&self, diags: &[Diagnostic], sources: &SourceMap) {
        let errors: Vec<Diagnostic>;
        let diags = if self.errors_only {
            errors = diags.iter().filter(|d| d.is_error()).cloned().collect();
            self.hidden
                .set(self.hidden.get() + diags.len() - errors.len());
            &errors[..]
        } else {
            diags
        };
        if !diags.is_empty() {
            let text = render_all(diags, sources, &self.renderer);
            let _ = std::io::stderr().write_all(text.as_bytes());
        }
    }

    /// How many warnings were printed so far.
    pub(crate) fn warnings(&self) -> usize {
        self.warnings.get()
    }

    /// Report one diagnostic that ends the command, then `after` (what it means for the output).
    pub(crate) fn fail(&self, d: &Diagnostic, sources: &SourceMap, after: &str) -> Failure {
        eprint!("{}", d.render_with(sources, &self.renderer));
        eprintln!("\n{after}");
        Failure::Input
    }

    /// A diagnostic rendered for this terminal (for reports that add lines of their own).
    pub(crate) fn render(&self, d: &Diagnostic, sources: &SourceMap) -> String {
        d.render_with(sources, &self.renderer)
    }

    /// An output that cannot be written ([`output_error`]), reported; the command fails.
    pub(crate) fn output_failed(&self, what: &str, e: &dyn std::fmt::Display) -> Failure {
        self.print_diagnostics(&[output_error(what, e)], &SourceMap::default());
        Failure::Input
    }

    /// A usage error that clap cannot see (a value checked against data, e.g. a diagnostic code):
    /// printed like clap's, exit 2.
    pub(crate) fn usage(&self, message: &str, help: &str) -> Failure {
        eprintln!("error: {message}\n  = help: {help}");
        Failure::Usage
    }
}

/// Write to stdout, treating a closed pipe (`kcontract list | head`) as success rather than a panic.
pub(crate) fn print(s: &str) -> Outcome {
    let mut out = std::io::stdout().lock();
    match out.write_all(s.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => {
            let d = output_error("standard output", &e);
            eprint!("{}", d.render(&SourceMap::default()));
            Err(Failure::Input)
        }
    }
}

/// K0006: `what` (standard output, a report, a findings file) cannot be written, and why. Every
/// output a command writes besides the site, the scaffold and formatted chapters (which have codes
/// of their own) fails through this, so the failure has a code `explain` knows.
pub(crate) fn output_error(what: &str, e: &dyn std::fmt::Display) -> Diagnostic {
    Diagnostic::error("K0006", format!("cannot write {what}: {e}")).help(
        "check that the place can be written (the folder exists, the disk is not full, the file is not read-only); nothing else was changed",
    )
}

pub(crate) use kcontract_spec::diagnostic::plural;

/// `p` as a shell word: as it is when it holds only characters no shell treats specially, else in
/// single quotes.
/// Hints print commands to run; they must work when pasted into a shell.
pub(crate) fn shell_word(p: &str) -> String {
    let plain = !p.is_empty()
        && p.chars()
            .all(|c| c.is_ascii_alphanumeric() || "_./-:@+=,%".contains(c));
    if plain {
        p.to_string()
    } else {
        format!("'{}'", p.replace('\'', "'\\''"))
    }
}

/// What a rewrite of the file at `path` would change, from `old` to `new`, as a unified diff with
/// three lines of context (`a/PATH`, `b/PATH`, as git shows it): `--check` of `fmt` and `scaffold`
/// show it, so CI's log says what to change, not only that something would.
pub(crate) fn unified_diff(path: &std::path::Path, old: &str, new: &str) -> String {
    let name = path.display().to_string();
    similar::TextDiff::from_lines(old, new)
        .unified_diff()
        .context_radius(3)
        .header(&format!("a/{name}"), &format!("b/{name}"))
        .to_string()
}
