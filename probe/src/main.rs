//! `kcontract-probe`: see the library ([`kcontract_probe`]) and `kcontract-probe --help`.

use std::process::ExitCode;

use kcontract_probe::run::{USAGE, main as run, parse};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match parse(&args) {
        Ok(Some(cli)) => ExitCode::from(u8::try_from(run(&cli, args)).unwrap_or(1)),
        Ok(None) => {
            if !args.iter().any(|a| a == "--version" || a == "-V") {
                print!("{USAGE}");
            }
            ExitCode::SUCCESS
        }
        Err(message) => {
            eprintln!("kcontract-probe: {message}\n\n{USAGE}");
            ExitCode::from(2)
        }
    }
}
