//! The `irc` command line. Exit codes: 0 ok; 1 invalid model, failed inference or `--check`
//! drift; 2 bad usage.

use crate::error::Error;
use crate::xml;
use clap::{Parser, Subcommand};
use std::path::PathBuf;

#[derive(Parser, Debug)]
#[command(
    name = "irc",
    version,
    about = "A compiler for OpenVINO IR (model.xml + model.bin)"
)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand, Debug)]
enum Cmd {
    /// Read, validate and write the model back in canonical form (OUT.bin beside OUT.xml).
    Normalize {
        /// Input model.xml (model.bin is read from beside it).
        input: PathBuf,
        /// Output .xml path.
        #[arg(short, long)]
        output: PathBuf,
    },
    /// Print a stable, compact text form of the graph (for snapshot review and diffs).
    Dump { input: PathBuf },
}

/// Run the CLI; returns the process exit code.
pub fn main() -> i32 {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            return code;
        }
    };
    match std::panic::catch_unwind(|| run(cli)) {
        Ok(Ok(code)) => code,
        Ok(Err(e)) => {
            eprint!("{e}");
            1
        }
        Err(_) => {
            eprintln!(
                "irc: internal error (this is a bug in irc; please report it with the input file)"
            );
            1
        }
    }
}

fn run(cli: Cli) -> Result<i32, Error> {
    match cli.cmd {
        Cmd::Normalize { input, output } => {
            let parsed = xml::read_file(&input)?;
            xml::write_files(&parsed.model, &output)?;
            Ok(0)
        }
        Cmd::Dump { input } => {
            let parsed = xml::read_file(&input)?;
            print!("{}", crate::dump::dump(&parsed.model));
            Ok(0)
        }
    }
}
