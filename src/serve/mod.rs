//! `kcontract serve`: the site on 127.0.0.1, rebuilt when the spec, the templates or the scanned
//! test files change, and reloaded in the open pages.
//!
//! Three parts, each on its own thread: the server ([`kcontract_site::serve`], one readiness loop
//! for every connection, answering from the last good site held in memory, and pushing events to
//! the pages), the watcher (`watch.rs`, which turns file-system events into "rebuild now"), and
//! the loop here, which rebuilds (`rebuild.rs`) and tells the server what changed, never waiting
//! for a page. The site is held in memory, never written: serving cannot overwrite the committed
//! `site/`, and there is no output to leave half-written. Ctrl-C (or SIGTERM, SIGHUP) is a message
//! the loop reads between rebuilds, so a rebuild under way finishes first (the only file one writes
//! is the test scan's cache, written atomically); serve then says so and exits 0.

mod rebuild;
mod watch;

use std::net::TcpListener;
use std::path::PathBuf;
use std::time::Instant;

use crate::terminal::{Ctx, Failure, Outcome};
use kcontract_spec::diagnostic::Diagnostic;

use kcontract_site::serve::{self as server, Site};

/// What `kcontract serve` was asked for.
pub(crate) struct Options {
    /// The port on 127.0.0.1; 0 picks a free one.
    pub(crate) port: u16,
    /// Open the site in the default browser once it is served.
    pub(crate) open: bool,
    /// `--templates`.
    pub(crate) templates: Option<PathBuf>,
    /// `--strict`.
    pub(crate) strict: bool,
}

/// Build, serve, and rebuild on every change until the process is stopped.
pub(crate) fn run(ctx: &Ctx, opts: &Options) -> Outcome {
    let started = Instant::now();
    let listener = TcpListener::bind(("127.0.0.1", opts.port)).map_err(|e| {
        let d = Diagnostic::error(
            "K0901",
            format!("cannot listen on 127.0.0.1:{}: {e}", opts.port),
        )
        .help("pass another `--port`, or `--port 0` for a free one");
        ctx.print_diagnostics(&[d], &Default::default());
        Failure::Input
    })?;
    let addr = listener.local_addr().map_err(|_| Failure::Input)?;
    let url = format!("http://{addr}/");
    let first = match rebuild::build(ctx, opts) {
        Ok(site) => site,
        Err(_) => {
            eprintln!("error: nothing to serve until the errors above are fixed");
            return Err(Failure::Input);
        }
    };
    let mut watcher =
        watch::Watcher::start(ctx, opts, &first.tests_root, &first.tests).map_err(|d| {
            ctx.print_diagnostics(&[d], &Default::default());
            Failure::Input
        })?;
    let on_error = |e: &std::io::Error| eprintln!("warning: serve: waiting for connections: {e}");
    let shared = server::start(listener, first.site, on_error).map_err(|e| {
        let d = Diagnostic::error("K0901", format!("cannot serve on {url}: {e}")).help(
            "the system refused a thread or a poll; free some resources and start serve again",
        );
        ctx.print_diagnostics(&[d], &Default::default());
        Failure::Input
    })?;
    println!(
        "serving {url} (built in {} ms); watching {}; Ctrl-C stops",
        started.elapsed().as_millis(),
        watcher.describe()
    );
    if opts.open {
        open_browser(&url);
    }
    while let Some(change) = watcher.next_change() {
        let start = Instant::now();
        match rebuild::build(ctx, opts) {
            Ok(built) => {
                // After an edit of chapter files only, an open page of theirs updates in place.
                let files = shared.replace(built.site, change.chapters.is_some());
                eprintln!(
                    "rebuilt in {} ms ({}): {files} file{} changed",
                    start.elapsed().as_millis(),
                    change.label,
                    if files == 1 { "" } else { "s" }
                );
            }
            Err(text) => {
                shared.fail(text);
                eprintln!(
                    "the rebuild failed ({}); still serving the last good site, and the \
                     diagnostics over its pages until they are fixed",
                    change.label
                );
            }
        }
    }
    eprintln!("serve stopped");
    Ok(())
}

/// Open `url` in the default browser, as mdBook's and Zola's `--open` do: a failure is reported,
/// not fatal (the URL is printed anyway).
fn open_browser(url: &str) {
    let mut cmd = if cfg!(target_os = "macos") {
        std::process::Command::new("open")
    } else if cfg!(windows) {
        let mut c = std::process::Command::new("cmd");
        c.args(["/C", "start", ""]);
        c
    } else {
        std::process::Command::new("xdg-open")
    };
    if let Err(e) = cmd.arg(url).spawn() {
        eprintln!("warning: could not open a browser ({e}); open {url} yourself");
    }
}
