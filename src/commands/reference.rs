//! `kcontract reference` (hidden): the command reference, docs/commands.md, written from the same
//! definition `--help`, the completions and the man pages come from (`cli::command`), so the
//! guide cannot describe an option that is gone or miss a new one. tests/suite/docs.rs compares the
//! committed file with this output and fails with [`REGENERATE`] when they differ.

use std::fmt::Write as _;
use std::path::PathBuf;

use crate::terminal::{Ctx, Outcome, print};

/// The one command that writes docs/commands.md anew (the stale-reference test prints it).
pub(crate) const REGENERATE: &str = "cargo run -- reference --out docs/commands.md";

/// Print the command reference (docs/commands.md) as Markdown.
#[derive(clap::Args, Debug)]
pub(crate) struct Reference {
    /// Write it to FILE (replaced whole) instead of standard output.
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
}

impl Reference {
    /// `cmd` is the whole command line (`cli::command`), given by the dispatcher so that
    /// this module does not depend on the definition that names it.
    pub(crate) fn run(self, ctx: &Ctx, cmd: clap::Command) -> Outcome {
        let text = markdown(cmd);
        match self.out {
            None => print(&text),
            Some(path) => kcontract_spec::fsutil::write_atomic(&path, text.as_bytes())
                .map_err(|e| ctx.output_failed(&path.display().to_string(), &e)),
        }
    }
}

/// The whole reference: an index, the exit codes, then one section per command, depth first.
/// The exit codes are the top command's long help epilogue (`cli::EXIT_CODES`).
pub(crate) fn markdown(cmd: clap::Command) -> String {
    let mut cmd = cmd.disable_help_subcommand(true);
    cmd.build();
    let mut out = String::new();
    out.push_str("# Command reference\n\n");
    let _ = writeln!(
        out,
        "<!-- Generated from kcontract's command line (src/cli.rs, src/commands/) by `{REGENERATE}`; \
         do not edit: tests/suite/docs.rs fails when this file is stale. -->\n"
    );
    out.push_str(
        "Every command of `kcontract` with its arguments and options, as `kcontract COMMAND --help` \
         prints them; the shell completions (`kcontract completions SHELL`) and the man pages \
         (`kcontract man`) are made from the same definitions. Every command takes `-h` (a summary) \
         and `--help`; `kcontract --version` prints kcontract's version and the contract built into \
         it, with the upstream revision it follows. The guide is [docs/README.md](README.md).\n\n",
    );
    out.push_str("- [Exit codes](#exit-codes)\n");
    index(&cmd, "kcontract", 0, &mut out);
    let _ = write!(
        out,
        "\n## Exit codes\n\nThe same for every command:\n\n```text\n{}\n```\n",
        cmd.get_after_long_help()
            .map(ToString::to_string)
            .unwrap_or_default()
    );
    section(&cmd, "kcontract", &mut out);
    out
}

/// The index: a link per command, indented by depth, with its one-line summary.
fn index(cmd: &clap::Command, path: &str, depth: usize, out: &mut String) {
    let about = cmd.get_about().map(|a| a.to_string()).unwrap_or_default();
    let _ = writeln!(
        out,
        "{}- [`{path}`](#{}){}",
        "  ".repeat(depth),
        path.replace(' ', "-"),
        if depth == 0 {
            " and its global options".to_owned()
        } else {
            format!(": {}", text(first_sentence(&about)))
        }
    );
    for sub in visible_subcommands(cmd) {
        index(sub, &format!("{path} {}", sub.get_name()), depth + 1, out);
    }
}

/// The section of `cmd` (named by its `path`), then those of its subcommands.
fn section(cmd: &clap::Command, path: &str, out: &mut String) {
    while out.ends_with("\n\n") {
        out.pop();
    }
    let _ = writeln!(out, "\n## {path}\n");
    if let Some(about) = cmd.get_long_about().or(cmd.get_about()) {
        let _ = writeln!(out, "{}\n", text(&about.to_string()));
    }
    let usage = cmd.clone().render_usage().to_string();
    let usage = usage.trim_start_matches("Usage:").trim();
    let _ = writeln!(out, "```text\n{usage}\n```\n");
    let top = !path.contains(' ');
    let args: Vec<&clap::Arg> = cmd
        .get_arguments()
        .filter(|a| !a.is_hide_set() && !is_builtin(a) && (top || !a.is_global_set()))
        .collect();
    if !args.is_empty() {
        out.push_str(if top {
            "Global options (taken by every command):\n\n"
        } else {
            "Arguments and options (and the [global options](#kcontract)):\n\n"
        });
        for arg in args {
            argument(arg, out);
        }
        out.push('\n');
    }
    let subs = visible_subcommands(cmd);
    if !subs.is_empty() {
        out.push_str("Commands:\n\n");
        for sub in &subs {
            let sub_path = format!("{path} {}", sub.get_name());
            let about = sub.get_about().map(|a| a.to_string()).unwrap_or_default();
            let _ = writeln!(
                out,
                "- [`{sub_path}`](#{}): {}",
                sub_path.replace(' ', "-"),
                text(first_sentence(&about))
            );
        }
        out.push('\n');
    }
    if let Some(after) = cmd.get_after_help().filter(|_| !top) {
        let _ = writeln!(out, "```text\n{}\n```\n", after.to_string().trim_end());
    }
    for sub in subs {
        section(sub, &format!("{path} {}", sub.get_name()), out);
    }
}

/// One argument as a list item: its form, its help, its values and default.
fn argument(arg: &clap::Arg, out: &mut String) {
    let value = arg
        .get_value_names()
        .map(|names| {
            names
                .iter()
                .map(|n| format!("<{n}>"))
                .collect::<Vec<_>>()
                .join(" ")
        })
        .unwrap_or_else(|| format!("<{}>", arg.get_id().as_str().to_uppercase()));
    let takes_value = arg.get_action().takes_values();
    let mut form = match (arg.get_short(), arg.get_long()) {
        (_, None) => value.clone(),
        (Some(s), Some(l)) => format!("-{s}, --{l}"),
        (None, Some(l)) => format!("--{l}"),
    };
    if arg.get_long().is_some() && takes_value {
        form = format!("{form} {value}");
    }
    let mut notes = Vec::new();
    if arg.is_required_set() {
        notes.push("required".to_owned());
    }
    if matches!(arg.get_action(), clap::ArgAction::Append) {
        notes.push("repeatable".to_owned());
    }
    let defaults: Vec<String> = arg
        .get_default_values()
        .iter()
        .map(|v| v.to_string_lossy().into_owned())
        .collect();
    if takes_value && !defaults.is_empty() {
        notes.push(format!("default `{}`", defaults.join(",")));
    }
    let help = arg
        .get_long_help()
        .or(arg.get_help())
        .map(|h| h.to_string())
        .unwrap_or_default();
    let notes = if notes.is_empty() {
        String::new()
    } else {
        format!(" ({})", notes.join("; "))
    };
    let help = text(help.trim()).replace('\n', "\n  ");
    let sep = if help.is_empty() { "" } else { ": " };
    let _ = writeln!(out, "- `{form}`{notes}{sep}{help}");
    let values: Vec<_> = arg
        .get_possible_values()
        .into_iter()
        .filter(|v| !v.is_hide_set())
        .collect();
    if takes_value && !values.is_empty() {
        for v in values {
            match v.get_help() {
                Some(h) => {
                    let _ = writeln!(out, "  - `{}`: {}", v.get_name(), text(&h.to_string()));
                }
                None => {
                    let _ = writeln!(out, "  - `{}`", v.get_name());
                }
            }
        }
    }
}

/// The subcommands shown: not hidden, not clap's `help`.
fn visible_subcommands(cmd: &clap::Command) -> Vec<&clap::Command> {
    cmd.get_subcommands()
        .filter(|s| !s.is_hide_set() && s.get_name() != "help")
        .collect()
}

/// clap's own `--help` and `--version`, said once in the introduction.
fn is_builtin(arg: &clap::Arg) -> bool {
    matches!(
        arg.get_action(),
        clap::ArgAction::Help
            | clap::ArgAction::HelpShort
            | clap::ArgAction::HelpLong
            | clap::ArgAction::Version
    )
}

/// The first sentence of a summary (up to a `. ` before a capital letter, so `e.g. x` stays), for
/// the lists of commands.
fn first_sentence(about: &str) -> &str {
    let about = about.trim();
    let end = about
        .match_indices(". ")
        .map(|(i, _)| i)
        .find(|&i| about[i + 2..].starts_with(|c: char| c.is_ascii_uppercase()));
    match end {
        Some(i) => &about[..i],
        None => about.trim_end_matches('.'),
    }
}

/// Help text as Markdown text: outside `code` spans, the characters Markdown would read as markup
/// (`<` an HTML tag GitHub strips, `*` emphasis, `[` a link) are escaped; code spans stay as they are.
fn text(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for (i, piece) in s.split('`').enumerate() {
        if i > 0 {
            out.push('`');
        }
        if i % 2 == 1 {
            out.push_str(piece);
            continue;
        }
        for c in piece.chars() {
            match c {
                '<' => out.push_str("&lt;"),
                '*' | '[' | ']' | '_' | '\\' => {
                    out.push('\\');
                    out.push(c);
                }
                c => out.push(c),
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every command and every option of the command line is in the reference, under its heading:
    /// the reference is made from the definition, not a copy of it that could miss one.
    #[test]
    fn every_command_and_option_is_in_the_reference() {
        let md = markdown(crate::cli::command());
        let mut cmd = crate::cli::command().disable_help_subcommand(true);
        cmd.build();
        fn walk(cmd: &clap::Command, path: &str, md: &str) {
            assert!(
                md.contains(&format!("\n## {path}\n")),
                "no section for {path}"
            );
            // clap's own --help and --version are said once, in the introduction (below).
            for arg in cmd
                .get_arguments()
                .filter(|a| !a.is_hide_set() && !is_builtin(a))
            {
                if let Some(long) = arg.get_long() {
                    assert!(
                        md.contains(&format!("`--{long}")),
                        "{path}: --{long} missing"
                    );
                }
            }
            for sub in visible_subcommands(cmd) {
                walk(sub, &format!("{path} {}", sub.get_name()), md);
            }
        }
        walk(&cmd, "kcontract", &md);
        assert!(md.contains(crate::cli::EXIT_CODES));
        assert!(md.contains("`--help`") && md.contains("`kcontract --version`"));
        // The hidden generator documents everything but itself.
        assert!(!md.contains("## kcontract reference"));
    }

    /// Markup in help text is escaped outside code spans and kept inside them.
    #[test]
    fn help_text_is_escaped_outside_code_spans() {
        assert_eq!(
            text("a <id> and *x* in `<id> *x*`"),
            "a &lt;id> and \\*x\\* in `<id> *x*`"
        );
        assert_eq!(first_sentence("One. Two."), "One");
        assert_eq!(
            first_sentence("A code (e.g. `K0104`). Then"),
            "A code (e.g. `K0104`)"
        );
        assert_eq!(first_sentence("Only one."), "Only one");
    }
}
