//! `kcontract serve`: the site on 127.0.0.1, rebuilt when the spec, the templates or the scanned
//! test files change, and reloaded in the open pages.
//!
//! Three parts, each on its own thread: the HTTP server (`http.rs`, which serves the last good site
//! from memory and pushes events to the pages), the watcher (`watch.rs`, which turns file-system
//! events into "rebuild now"), and the loop here, which rebuilds (`rebuild.rs`) and tells the server
//! what changed. The site is held in memory, never written: serving cannot overwrite the committed
//! `site/`, and there is no output to leave half-written. Ctrl-C (or SIGTERM, SIGHUP) is a message
//! the loop reads between rebuilds, so a rebuild under way finishes first (the only file one writes
//! is the test scan's cache, written atomically); serve then says so and exits 0.

mod http;
mod rebuild;
mod watch;

use std::net::TcpListener;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use crate::diagnostic::Diagnostic;
use crate::terminal::{Ctx, Failure, Outcome};
use crate::timings::Timings;

pub(crate) use http::Site;

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
    // The chapter files parsed by the last rebuild: an edit parses only the files it changed.
    let mut cache = crate::spec_source::ParseCache::default();
    let first = match rebuild::build(ctx, opts, &mut cache, None) {
        Ok(site) => site,
        Err(_) => {
            eprintln!("error: nothing to serve until the errors above are fixed");
            return Err(Failure::Input);
        }
    };
    let shared = Arc::new(http::Shared::new(first.site));
    // What the last good rebuild's pages were made from (none after a failed one).
    let mut kept = Some(first.kept);
    let watcher =
        watch::Watcher::start(ctx, opts, &first.tests_root, &first.tests).map_err(|d| {
            ctx.print_diagnostics(&[d], &Default::default());
            Failure::Input
        })?;
    http::spawn(listener, Arc::clone(&shared));
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
        let changed = &change.label;
        // How long the rebuild paused for the open page to show the edit (not part of the rebuild).
        let paused = std::cell::Cell::new(std::time::Duration::ZERO);
        let early = |pages: Vec<(String, Vec<u8>)>, load: &Timings| {
            let at = start.elapsed();
            // Up to 300 ms for the open page to show it (far longer than that takes here).
            let n = shared.update_and_wait(pages, std::time::Duration::from_millis(300));
            paused.set(start.elapsed() - at);
            // Where the time before the pages went: from the last good rebuild, its steps (the
            // edited chapters, the review of tests and the matrix, the render); from a full
            // load, the load's steps (the rest is the test scan, the matrix, the templates and
            // the pages' render).
            let steps: Vec<String> = load
                .steps()
                .iter()
                .map(|(s, d)| format!("{s} {:.1}", d.as_secs_f64() * 1e3))
                .collect();
            eprintln!(
                "  the edited chapter's pages in {} ms ({n} changed; {} ms); the page \
                 showed them in {} ms",
                at.as_millis(),
                if load.steps().iter().any(|(s, _)| *s == "edited chapters") {
                    format!("from the last build: {}", steps.join(", "))
                } else {
                    format!("load: {}", steps.join(", "))
                },
                paused.get().as_millis()
            );
        };
        // An edit of chapter files only: their pages from the last good rebuild with those files
        // read again, when that gives the full rebuild's pages (then the full rebuild renders
        // them again, and only the rest of the site is new); else the full rebuild shows them first.
        let last = kept.take();
        let fast = match (&change.chapters, last) {
            (Some(chapters), Some(last)) => rebuild::first_pass(ctx, opts, last, &cache, chapters),
            _ => None,
        };
        let shown_first = fast.map(|first| {
            let sent: Vec<(String, u128)> = first
                .pages
                .iter()
                .map(|(rel, bytes)| (rel.clone(), xxhash_rust::xxh3::xxh3_128(bytes)))
                .collect();
            early(first.pages, &first.timings);
            drop(first.spec);
            sent
        });
        let first = match shown_first {
            Some(_) => None,
            None => change
                .chapters
                .as_ref()
                .map(|c| (c, &early as &dyn Fn(Vec<(String, Vec<u8>)>, &Timings))),
        };
        match rebuild::build(ctx, opts, &mut cache, first) {
            Ok(mut built) => {
                // The first pages are the full rebuild's by construction, made from the same
                // files. One that is not: a file was saved again after the first pass read it and
                // before the full rebuild did (a second save, or a save in two writes), and the
                // rebuild of that save is waiting. Until it, the page shown first is served, so
                // that it is that rebuild which announces the page — in place, when only chapter
                // files changed — instead of this one, whose open copies would reload. With no
                // such rebuild waiting, say so (its open copy reloads with the full rebuild's,
                // as any changed page does).
                let mut newer = None;
                for (rel, hash) in shown_first.iter().flatten() {
                    let same = built
                        .site
                        .get(rel)
                        .is_some_and(|b| xxhash_rust::xxh3::xxh3_128(b) == *hash);
                    if same {
                        continue;
                    }
                    match shared.get(rel) {
                        Some(shown) if *newer.get_or_insert_with(|| watcher.pending()) => {
                            eprintln!("  {rel}: edited again since it was shown; shown next");
                            built.site.insert(rel.clone(), shown);
                        }
                        _ => {
                            eprintln!("warning: {rel} shown first differs from the full rebuild's")
                        }
                    }
                }
                kept = Some(built.kept);
                let files = shared.replace(built.site);
                let (parsed, read) = cache.parsed();
                eprintln!(
                    "rebuilt in {} ms ({changed}): {} file{} changed; {parsed} of {read} chapter \
                     files parsed again",
                    (start.elapsed() - paused.get()).as_millis(),
                    files,
                    if files == 1 { "" } else { "s" }
                );
            }
            Err(text) => {
                shared.fail(text);
                eprintln!(
                    "the rebuild failed ({changed}); still serving the last good site, and the \
                     diagnostics over its pages until they are fixed"
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
