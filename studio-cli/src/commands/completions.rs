//! `studio completions SHELL`: the shell's completion script for every command and flag, on
//! stdout, generated from the same definitions the parser uses.

use std::io::Write;

use anyhow::{Context as _, Result};
use clap_complete::Shell;

/// How to install the script, shown by `studio completions --help`.
const INSTALL: &str = "\
Install:
  bash  studio completions bash > ~/.local/share/bash-completion/completions/studio
  zsh   studio completions zsh > ~/.zfunc/_studio
        (with `fpath+=~/.zfunc` before `compinit` in ~/.zshrc)
  fish  studio completions fish > ~/.config/fish/completions/studio.fish
Open a new shell afterwards.";

/// Print a completion script for SHELL.
#[derive(clap::Args)]
#[command(after_help = INSTALL)]
pub(crate) struct Args {
    /// The shell: bash, zsh, fish (also elvish, powershell).
    #[arg(value_enum, value_name = "SHELL")]
    shell: Shell,
}

/// Write the script for `args.shell`, built from `command` (the whole `studio` command tree).
pub(crate) fn run(mut command: clap::Command, args: &Args) -> Result<()> {
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut command, "studio", &mut script);
    let mut out = std::io::stdout().lock();
    out.write_all(&script).and_then(|()| out.flush()).context("cannot write the script to stdout")
}
