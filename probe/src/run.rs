//! The command line and what each mode does over the probe's life: collect, print or serve the
//! facts, then wait for signals and act on SIGTERM as `--on-term` says.
//!
//! Standard output carries the facts document on its first line (`report`), then one JSON event
//! per line ([`Event`]): where it listens, each signal received, its exit. The harness reads that
//! file; a platform's log collection shows the same lines.

use std::io::Write;
use std::net::TcpListener;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::collect::{Options, collect};
use crate::facts::{Event, Facts, SignalSeen};
use crate::sys::{block_watched, wait_signal};

/// The usage text (`--help`, and after a usage error).
pub const USAGE: &str = "\
usage: kcontract-probe report [--then serve|wait] [OPTIONS]
       kcontract-probe serve [OPTIONS]

report   print the facts (one JSON document, kcontract-probe/1) on stdout; with --then, keep
         running: serve them over HTTP on $PORT, or just wait for signals
serve    answer GET /report on $PORT with the facts and the request received, GET /healthz

options:
  --on-term exit|ignore|delay:N   on SIGTERM: exit 0 (default), go on, or exit after N seconds
  --path PATH                     report this path too (repeatable)
  --write-test DIR                try to write a file in this directory too (repeatable)
  --port-fallback N               listen on N when PORT is unset or not a port
  --stdin-wait-ms N               wait at most N ms for stdin to be readable (default 500)
  --show-env NAME                 show this variable's value too (repeatable); every value but
                                  PORT, K_SERVICE, K_CONFIGURATION, K_REVISION is <redacted>
  --alive-ms N                    after a SIGTERM it does not exit on, print an `alive` line
                                  every N ms (default 1000)

environment:
  KCONTRACT_PROBE_TOKEN           when set, GET /report needs `Authorization: Bearer <it>`
";

/// What to do on SIGTERM.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OnTerm {
    /// Exit 0 at once.
    Exit,
    /// Record it and go on.
    Ignore,
    /// Exit 0 after this many seconds.
    Delay(u64),
}

impl OnTerm {
    fn action(self) -> String {
        match self {
            OnTerm::Exit => "exit".into(),
            OnTerm::Ignore => "ignore".into(),
            OnTerm::Delay(n) => format!("delay:{n}"),
        }
    }
}

/// What to do after printing the report.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Then {
    /// Exit.
    Exit,
    /// Serve the facts over HTTP and wait for signals.
    Serve,
    /// Wait for signals.
    Wait,
}

/// The parsed command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cli {
    /// Print the report first (`report`), or only serve (`serve`).
    pub report: bool,
    /// What comes after.
    pub then: Then,
    /// `--on-term`.
    pub on_term: OnTerm,
    /// `--path`.
    pub paths: Vec<String>,
    /// `--write-test`.
    pub write_tests: Vec<String>,
    /// `--port-fallback`.
    pub port_fallback: Option<u16>,
    /// `--stdin-wait-ms`.
    pub stdin_wait_ms: u64,
    /// `--show-env`.
    pub show_env: Vec<String>,
    /// `--alive-ms`.
    pub alive_ms: u64,
}

/// Parses the arguments after the program name. `Err` is the message for a usage error;
/// `Ok(None)` asks for the usage text (`--help`) or the version (`--version`, printed here).
pub fn parse(args: &[String]) -> Result<Option<Cli>, String> {
    let mut it = args.iter();
    let (report, mut then) = match it.next().map(String::as_str) {
        Some("report") => (true, Then::Exit),
        Some("serve") => (false, Then::Serve),
        Some("--help" | "-h" | "help") => return Ok(None),
        Some("--version" | "-V") => {
            println!("kcontract-probe {}", env!("CARGO_PKG_VERSION"));
            return Ok(None);
        }
        Some(other) => return Err(format!("unknown mode `{other}`")),
        None => return Err("a mode is needed: report or serve".into()),
    };
    let mut cli = Cli {
        report,
        then,
        on_term: OnTerm::Exit,
        paths: Vec::new(),
        write_tests: Vec::new(),
        port_fallback: None,
        stdin_wait_ms: 500,
        show_env: Vec::new(),
        alive_ms: 1000,
    };
    while let Some(flag) = it.next() {
        let mut value = || {
            it.next()
                .cloned()
                .ok_or_else(|| format!("`{flag}` needs a value"))
        };
        match flag.as_str() {
            "--then" if report => {
                then = match value()?.as_str() {
                    "serve" => Then::Serve,
                    "wait" => Then::Wait,
                    v => return Err(format!("`--then {v}`: serve or wait")),
                }
            }
            "--on-term" => {
                let v = value()?;
                cli.on_term = match v.as_str() {
                    "exit" => OnTerm::Exit,
                    "ignore" => OnTerm::Ignore,
                    d => match d.strip_prefix("delay:").map(str::parse) {
                        Some(Ok(n)) => OnTerm::Delay(n),
                        _ => return Err(format!("`--on-term {v}`: exit, ignore or delay:N")),
                    },
                }
            }
            "--path" => cli.paths.push(absolute(value()?)?),
            "--write-test" => cli.write_tests.push(absolute(value()?)?),
            "--port-fallback" => {
                let v = value()?;
                cli.port_fallback = Some(
                    v.parse()
                        .ok()
                        .filter(|p| *p > 0)
                        .ok_or(format!("`--port-fallback {v}`: a port, 1 to 65535"))?,
                );
            }
            "--stdin-wait-ms" => {
                let v = value()?;
                cli.stdin_wait_ms = v
                    .parse()
                    .map_err(|_| format!("`--stdin-wait-ms {v}`: a number"))?;
            }
            "--show-env" => cli.show_env.push(value()?),
            "--alive-ms" => {
                let v = value()?;
                cli.alive_ms = v.parse().ok().filter(|n| *n > 0).ok_or(format!(
                    "`--alive-ms {v}`: a number of milliseconds above 0"
                ))?;
            }
            other => return Err(format!("unknown option `{other}`")),
        }
    }
    cli.then = then;
    Ok(Some(cli))
}

fn absolute(p: String) -> Result<String, String> {
    if p.starts_with('/') {
        Ok(p)
    } else {
        Err(format!("`{p}`: paths are absolute"))
    }
}

/// Writes one line to standard output; a closed or full stdout is not the probe's concern.
fn emit(line: &str) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{line}");
    let _ = out.flush();
}

fn emit_event(event: &Event) {
    if let Ok(line) = serde_json::to_string(event) {
        emit(&line);
    }
}

/// Runs the probe; returns the exit status.
pub fn main(cli: &Cli, args: Vec<String>) -> i32 {
    let start = Instant::now();
    // Before any thread starts, so that every thread inherits the mask.
    if let Err(e) = block_watched() {
        eprintln!("kcontract-probe: cannot block signals: {e}");
        return 1;
    }
    let facts = collect(&Options {
        mode: if cli.report { "report" } else { "serve" }.into(),
        args,
        paths: cli.paths.clone(),
        write_tests: cli.write_tests.clone(),
        stdin_wait: Duration::from_millis(cli.stdin_wait_ms),
        show_env: cli.show_env.clone(),
    });
    if cli.report {
        emit(&serde_json::to_string(&facts).unwrap_or_default());
    }
    if cli.then == Then::Exit {
        return 0;
    }
    let facts = Arc::new(Mutex::new(facts));
    if cli.then == Then::Serve {
        start_serving(cli, &facts);
    } else {
        emit_event(&Event::Waiting);
    }
    wait_for_signals(cli, &facts, start)
}

/// The port from `PORT`, else `--port-fallback`; binds and serves on a thread of its own.
fn start_serving(cli: &Cli, facts: &Arc<Mutex<Facts>>) {
    let from_env = std::env::var("PORT")
        .ok()
        .and_then(|p| p.parse::<u16>().ok())
        .filter(|p| *p > 0);
    let (port, source) = match (from_env, cli.port_fallback) {
        (Some(p), _) => (p, "PORT"),
        (None, Some(p)) => (p, "fallback"),
        (None, None) => {
            emit_event(&Event::ServeError {
                message: "PORT is not set to a port, and there is no --port-fallback".into(),
            });
            return;
        }
    };
    match TcpListener::bind(("0.0.0.0", port)) {
        Ok(listener) => {
            emit_event(&Event::Listening {
                port,
                source: source.into(),
            });
            let facts = Arc::clone(facts);
            let token = std::env::var(crate::facts::TOKEN_ENV).ok();
            std::thread::spawn(move || crate::http::serve(listener, facts, token));
        }
        Err(e) => emit_event(&Event::ServeError {
            message: format!("cannot listen on port {port}: {e}"),
        }),
    }
}

fn since(start: Instant) -> u64 {
    u64::try_from(start.elapsed().as_millis()).unwrap_or(u64::MAX)
}

/// Prints an `alive` line every `every` from now on, on a thread of its own (once).
fn keep_saying_alive(every: Duration, start: Instant) {
    std::thread::spawn(move || {
        loop {
            std::thread::sleep(every);
            emit_event(&Event::Alive { ms: since(start) });
        }
    });
}

/// Receives the watched signals until SIGTERM says to exit.
fn wait_for_signals(cli: &Cli, facts: &Arc<Mutex<Facts>>, start: Instant) -> i32 {
    let on_term = cli.on_term;
    let mut alive = false;
    loop {
        let signal = match wait_signal() {
            Ok(s) => s,
            Err(e) => {
                eprintln!("kcontract-probe: cannot wait for signals: {e}");
                return 1;
            }
        };
        let ms = since(start);
        if let Ok(mut f) = facts.lock() {
            f.signals.push(SignalSeen {
                signal: signal.into(),
                ms,
            });
        }
        let term = signal == "SIGTERM";
        emit_event(&Event::Signal {
            signal: signal.into(),
            ms,
            action: if term {
                on_term.action()
            } else {
                "record".into()
            },
        });
        if !term {
            continue;
        }
        if on_term != OnTerm::Exit && !alive {
            alive = true;
            keep_saying_alive(Duration::from_millis(cli.alive_ms), start);
        }
        match on_term {
            OnTerm::Exit => {
                emit_event(&Event::Exit {
                    code: 0,
                    ms: since(start),
                });
                return 0;
            }
            OnTerm::Ignore => {}
            OnTerm::Delay(n) => {
                std::thread::spawn(move || {
                    std::thread::sleep(Duration::from_secs(n));
                    emit_event(&Event::Exit {
                        code: 0,
                        ms: since(start),
                    });
                    std::process::exit(0);
                });
            }
        }
    }
}
