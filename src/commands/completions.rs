//! `kcontract completions SHELL` and `kcontract man`: the shell completions and the man pages, made
//! by clap's own generators (clap_complete, clap_mangen) from `cli::command`, the definition
//! `--help` prints, so neither can drift from the options a build has.

use std::path::{Path, PathBuf};

use crate::terminal::{Ctx, Outcome, print};

/// Print the completion script of a shell (bash, zsh, fish, elvish, powershell).
#[derive(clap::Args, Debug)]
#[command(after_help = "\
Install (then start a new shell):
  bash  kcontract completions bash > ~/.local/share/bash-completion/completions/kcontract
  zsh   kcontract completions zsh > ~/.zfunc/_kcontract
        (~/.zshrc: fpath+=~/.zfunc before compinit)
  fish  kcontract completions fish > ~/.config/fish/completions/kcontract.fish")]
pub(crate) struct Completions {
    /// The shell to complete in.
    shell: clap_complete::Shell,
}

impl Completions {
    /// `cmd` is the whole command line (`cli::command`), given by the dispatcher so that
    /// this module does not depend on the definition that names it.
    pub(crate) fn run(self, _ctx: &Ctx, cmd: clap::Command) -> Outcome {
        print(&script(self.shell, cmd))
    }
}

/// The completion script of `shell` for the whole command line.
pub(crate) fn script(shell: clap_complete::Shell, mut cmd: clap::Command) -> String {
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut cmd, "kcontract", &mut out);
    String::from_utf8_lossy(&out).into_owned()
}

/// Print the man page kcontract(1), or write one page per command into a folder.
#[derive(clap::Args, Debug)]
#[command(after_help = "\
Examples:
  kcontract man | man -l -
      read kcontract(1) now
  kcontract man --out ~/.local/share/man/man1
      install every page (man kcontract-matrix, man kcontract-platform-run)")]
pub(crate) struct Man {
    /// Write kcontract.1 and a page per command (kcontract-check.1, kcontract-platform-run.1, …)
    /// into DIR, made if missing; each file is replaced whole.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
}

impl Man {
    /// `cmd` as for [`Completions::run`].
    pub(crate) fn run(self, ctx: &Ctx, cmd: clap::Command) -> Outcome {
        let pages = pages(cmd).map_err(|e| ctx.output_failed("the man pages", &e))?;
        let Some(dir) = self.out else {
            return print(pages.first().map_or("", |(_, text)| text.as_str()));
        };
        let ctx = ctx.writing(format!(
            "the man pages in {} may be incomplete",
            dir.display()
        ));
        write_pages(&dir, &pages).map_err(|(name, e)| ctx.output_failed(&name, &e))?;
        let names: Vec<&str> = pages.iter().map(|(name, _)| name.as_str()).collect();
        print(&format!(
            "wrote {} man pages into {}: {}\n",
            pages.len(),
            dir.display(),
            names.join(" ")
        ))
    }
}

/// Every man page, the top command's first: (file name, roff text). Hidden commands (the
/// generator of docs/commands.md) have none; `help` is left out as clap_mangen's `generate_to`
/// does.
pub(crate) fn pages(cmd: clap::Command) -> std::io::Result<Vec<(String, String)>> {
    let mut cmd = cmd.disable_help_subcommand(true);
    cmd.build();
    let mut pages = Vec::new();
    add_pages(cmd, &mut pages)?;
    Ok(pages)
}

/// The page of `cmd`, then its subcommands' pages, depth first.
fn add_pages(cmd: clap::Command, pages: &mut Vec<(String, String)>) -> std::io::Result<()> {
    let subcommands: Vec<clap::Command> = cmd
        .get_subcommands()
        .filter(|s| !s.is_hide_set())
        .cloned()
        .collect();
    let man = clap_mangen::Man::new(cmd)
        .manual("kcontract")
        .source(concat!("kcontract ", env!("CARGO_PKG_VERSION")));
    let mut text = Vec::new();
    man.render(&mut text)?;
    pages.push((
        man.get_filename(),
        String::from_utf8_lossy(&text).into_owned(),
    ));
    for sub in subcommands {
        add_pages(sub, pages)?;
    }
    Ok(())
}

/// Write each page into `dir` atomically; on failure, the file that could not be written.
fn write_pages(dir: &Path, pages: &[(String, String)]) -> Result<(), (String, std::io::Error)> {
    std::fs::create_dir_all(dir).map_err(|e| (dir.display().to_string(), e))?;
    for (name, text) in pages {
        let path = dir.join(name);
        kcontract_spec::fsutil::write_atomic(&path, text.as_bytes())
            .map_err(|e| (path.display().to_string(), e))?;
    }
    Ok(())
}
