//! `tessera-cts-runner`: see the crate docs of `tessera_cts_runner` and `cts-runner/README.md`.

use std::process::ExitCode;

use tessera_cts_runner::cli::{self, Parsed};
use tessera_cts_runner::run;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let code = match cli::parse(&args) {
        Ok(Parsed::Help) => {
            println!("{}", cli::USAGE);
            run::EXIT_OK
        }
        Ok(Parsed::Run(a)) => match run::run(&a) {
            Ok(code) => code,
            Err(e) => {
                eprintln!("tessera-cts-runner: error: {e}");
                run::EXIT_ERROR
            }
        },
        Err(e) => {
            eprintln!("tessera-cts-runner: {e}\n\n{}", cli::USAGE);
            run::EXIT_ERROR
        }
    };
    ExitCode::from(code as u8)
}
