//! The `kcontract serve` benchmark: `cargo run --release --example serve-bench -- [--copies 1,100]
//! [--runs 21]`, after `cargo run --release --example bench` has generated `target/bench/xN`.
//!
//! For each N, `kcontract serve` (the release binary) on the ×N spec and `mdbook serve` on the same
//! English text (a copy of `target/bench/xN/mdbook`), with its default watcher (`poll`) and with
//! `--watcher native`, each with its chapter page open in its own headless Chromium.
//! One sample: a one-clause edit is saved (a marker appended to the first `SIGTERM` clause of
//! `runtime-and-lifecycle-1`), and the time runs from just before the write to the moment the open
//! page shows the marker, on the page's own clock (`performance.timeOrigin` + a time of the page),
//! so polling the page from here adds nothing to the figure. That moment is, for a page that
//! reloaded by itself (mdBook; kcontract before session 8), the end of DOMContentLoaded of the new
//! navigation; for a page kcontract's script updated in place, the end of the script's replacement
//! of the title, sidebar and content in the document (`kcServeShown.shown`) — in both cases the new
//! text is in the document, before it is painted. "until the update starts" is the part before the
//! page began to reload (its navigation's start) or received serve's event; "painted" is the first
//! contentful paint of a reloaded page, or the end of the first task after the frame that follows
//! an in-place update (requestAnimationFrame, then a timeout). The servers take turns sample by
//! sample, each round in another order; the figure is the median. serve's own "rebuilt in N ms"
//! lines give the share of the rebuild. Nothing is asserted.
//!
//! A kcontract sample ends when serve's log says its rebuild finished (the rest of the site is
//! rendered after the page showed the edit), so that it does not share the two cores with the next
//! server's sample; then 600 ms for a reloaded page to connect again.
//!
//! `--kcontract NAME=BINARY` (repeatable) compares kcontract binaries in one run, each serving its
//! own copy of the ×N spec; `--mdbook no` leaves mdBook out.

#![allow(clippy::disallowed_methods)] // the benchmark reads the files it generated (clippy.toml)

#[path = "../tests/suite/common/webdriver.rs"]
#[allow(dead_code)]
mod webdriver;

use std::fs;
use std::io::{BufRead, BufReader};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use webdriver::Driver;

const CHAPTER: &str = "runtime-and-lifecycle-1";
const SENTENCE: &str = "The container is sent a `SIGTERM` signal";

struct Killed(Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// One server with its page open, and the file its edits go to.
struct Server {
    name: String,
    _child: Killed,
    driver: Driver,
    file: PathBuf,
    original: String,
    samples: Vec<f64>,
    /// The share of each sample before the page started reloading (the rest is the reload).
    until_reload: Vec<f64>,
    /// The page this server's edits show on.
    page: String,
    /// Samples whose edit never showed (the page is then opened again by hand).
    misses: usize,
    /// The first contentful paint of the reloaded page, or the frame after an in-place update.
    painted: Vec<f64>,
    /// Samples shown by an in-place update rather than a reload.
    swapped: usize,
    /// kcontract's log: a sample ends only when its whole rebuild has, so that the rest of one
    /// server's rebuild does not share the processor with the next server's sample.
    log: Option<PathBuf>,
}

/// The rebuilds a kcontract log reports as finished (good or failed).
fn finished(log: &Path) -> usize {
    fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .filter(|l| l.starts_with("rebuilt in ") || l.starts_with("the rebuild failed"))
        .count()
}

impl Server {
    /// One sample; `false` when the page did not show the edit within 20 s (counted as a miss).
    fn sample(&mut self, i: usize) -> bool {
        let before = self.log.as_deref().map(finished);
        let shown = self.show(i);
        if let (Some(log), Some(before)) = (self.log.as_deref(), before) {
            let deadline = Instant::now() + Duration::from_secs(20);
            while finished(log) <= before && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(10));
            }
        }
        shown
    }

    fn show(&mut self, i: usize) -> bool {
        let marker = format!("kcedit{i}");
        let edited = self
            .original
            .replacen(SENTENCE, &format!("{SENTENCE} {marker}"), 1);
        let t0 = now_ms();
        fs::write(&self.file, edited).unwrap();
        // Two ways a page shows an edit: reloaded (the end is DOMContentLoaded of the new
        // navigation, as before), or updated in place by serve's script (the end is the new
        // content in the document, `kcServeShown.shown`). Both on the page's clock; beside
        // them, the first contentful paint of a reload or the frame after an in-place update.
        let v = self.driver.poll(
            &format!(
                "(function () {{ if (!document.body || !document.body.textContent.includes('{marker}')) return false; \
                 var s = window.kcServeShown; \
                 if (s) return s.painted ? [performance.timeOrigin, s.start, s.shown, s.painted, 1] : false; \
                 var n = performance.getEntriesByType('navigation')[0]; \
                 if (!n || !n.domContentLoadedEventEnd) return false; \
                 var p = performance.getEntriesByName('first-contentful-paint')[0]; \
                 return [performance.timeOrigin, 0, n.domContentLoadedEventEnd, p ? p.startTime : -1, 0]; }})()"
            ),
            Duration::from_millis(5),
            Duration::from_secs(20),
        );
        let Some(v) = v else {
            self.misses += 1;
            self.driver.goto(&self.page);
            return false;
        };
        let f = |i: usize| v[i].as_f64().unwrap();
        let (origin, start, shown, painted) = (f(0), f(1), f(2), f(3));
        self.samples.push(origin + shown - t0);
        self.until_reload.push(origin + start - t0);
        if painted >= 0.0 {
            self.painted.push(origin + painted - t0);
        }
        if f(4) == 1.0 {
            self.swapped += 1;
        }
        true
    }
}

/// The file as generated: without a marker an interrupted run left behind.
fn unmarked(file: &Path) -> String {
    let mut text = fs::read_to_string(file).unwrap();
    while let Some(i) = text.find(" kcedit") {
        let end = text[i + 7..]
            .find(|c: char| !c.is_ascii_digit())
            .map_or(text.len(), |e| i + 7 + e);
        text.replace_range(i..end, "");
    }
    text
}

/// Copy a folder (the generated mdBook book: files and folders only).
fn copy(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for e in fs::read_dir(from).unwrap().flatten() {
        if e.path().is_dir() {
            copy(&e.path(), &to.join(e.file_name()));
        } else {
            fs::copy(e.path(), to.join(e.file_name())).unwrap();
        }
    }
}

fn now_ms() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs_f64()
        * 1000.0
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .unwrap()
}

fn median(v: &[f64]) -> f64 {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    let n = s.len();
    if n % 2 == 1 {
        s[n / 2]
    } else {
        (s[n / 2 - 1] + s[n / 2]) / 2.0
    }
}

fn wait_http(url: &str) {
    let deadline = Instant::now() + Duration::from_secs(120);
    while ureq::get(url).call().is_err() {
        assert!(Instant::now() < deadline, "{url} did not come up");
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn kcontract(bin: &Path, dir: &Path, stderr: &Path) -> (Killed, String) {
    let mut child = Command::new(bin)
        .current_dir(dir)
        .args(["--color", "never", "serve", "--port", "0"])
        .stdout(Stdio::piped())
        .stderr(fs::File::create(stderr).unwrap())
        .spawn()
        .expect("target/release/kcontract (cargo build --release)");
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let url = line
        .split_whitespace()
        .find(|w| w.starts_with("http://"))
        .unwrap_or_else(|| panic!("no URL in {line:?}"))
        .to_string();
    (Killed(child), url)
}

fn main() {
    let mut copies = vec![1, 100];
    let mut runs = 21;
    // The kcontract binaries compared, by name; each serves its own copy of the spec.
    let mut binaries: Vec<(String, PathBuf)> = Vec::new();
    let mut with_mdbook = true;
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        let v = it.next().unwrap_or_default();
        match a.as_str() {
            "--copies" => copies = v.split(',').filter_map(|s| s.parse().ok()).collect(),
            "--runs" => runs = v.parse().unwrap_or(21),
            "--kcontract" => match v.split_once('=') {
                Some((name, bin)) => binaries.push((name.to_string(), PathBuf::from(bin))),
                None => binaries.push((v.clone(), PathBuf::from(&v))),
            },
            "--mdbook" => with_mdbook = v != "no",
            _ => {
                eprintln!(
                    "usage: serve-bench [--copies 1,100] [--runs 21] [--kcontract NAME=BINARY]... [--mdbook no]"
                );
                std::process::exit(2);
            }
        }
    }
    println!(
        "runs per figure: {runs}; the servers take turns sample by sample, each round in another order"
    );
    for n in copies {
        let dir = PathBuf::from(format!("target/bench/x{n}"));
        assert!(
            dir.join("spec/contract.yaml").exists(),
            "{} missing: run `cargo run --release --example bench -- --copies {n} --runs 1` first",
            dir.display()
        );
        let release = std::env::current_dir()
            .unwrap()
            .join("target/release/kcontract");
        let named = if binaries.is_empty() {
            vec![("kcontract serve (en+zh)".to_string(), release)]
        } else {
            binaries.clone()
        };
        let mut servers = Vec::new();
        let mut logs = Vec::new();
        for (k, (name, bin)) in named.iter().enumerate() {
            // One binary serves the generated folder; several serve a copy each (an edit of one
            // copy rebuilds only its server).
            let here = if named.len() == 1 {
                dir.clone()
            } else {
                let d = std::env::temp_dir().join(format!("kcontract-serve-bench-x{n}-kc{k}"));
                let _ = fs::remove_dir_all(&d);
                copy(&dir.join("spec"), &d.join("spec"));
                d
            };
            let log = here.join("serve-stderr.txt");
            let (kc, url) = kcontract(bin, &here, &log);
            let kc_file = here.join(format!("spec/en/{CHAPTER}.md"));
            let s = Server {
                name: name.clone(),
                _child: kc,
                driver: Driver::start(),
                original: unmarked(&kc_file),
                file: kc_file,
                samples: Vec::new(),
                until_reload: Vec::new(),
                page: format!("{url}en/{CHAPTER}.html"),
                misses: 0,
                painted: Vec::new(),
                swapped: 0,
                log: Some(log.clone()),
            };
            s.driver.goto(&s.page);
            servers.push(s);
            logs.push((name.clone(), log));
        }
        // mdBook's watcher skips what git ignores, and target/ is ignored here: its book is
        // served from a copy outside the repository.
        let mut mdbook_pages = None;
        if with_mdbook && Command::new("mdbook").arg("--version").output().is_ok() {
            for (name, watcher) in [
                ("mdbook serve (en)", "poll"),
                ("mdbook serve --watcher native", "native"),
            ] {
                // A copy each: both would otherwise rebuild on every edit.
                let book =
                    std::env::temp_dir().join(format!("kcontract-serve-bench-x{n}-{watcher}"));
                let _ = fs::remove_dir_all(&book);
                copy(&dir.join("mdbook"), &book);
                let port = free_port();
                let child = Command::new("mdbook")
                    .current_dir(&book)
                    .args(["serve", "-n", "127.0.0.1", "-p", &port.to_string()])
                    .args(["--watcher", watcher])
                    .stdout(Stdio::null())
                    .stderr(Stdio::null())
                    .spawn()
                    .unwrap();
                let murl = format!("http://127.0.0.1:{port}/");
                wait_http(&murl);
                let file = book.join(format!("src/{CHAPTER}.md"));
                let s = Server {
                    name: name.to_string(),
                    _child: Killed(child),
                    driver: Driver::start(),
                    original: unmarked(&file),
                    file,
                    samples: Vec::new(),
                    until_reload: Vec::new(),
                    page: format!("{murl}{CHAPTER}.html"),
                    misses: 0,
                    painted: Vec::new(),
                    swapped: 0,
                    log: None,
                };
                s.driver.goto(&s.page);
                servers.push(s);
                mdbook_pages = Some(murl);
            }
        }
        let _ = mdbook_pages;
        // Let the pages connect to their servers' event stream or websocket.
        std::thread::sleep(Duration::from_secs(2));
        // Warm-up (untimed figure): the first rebuild of each.
        for s in &mut servers {
            s.sample(1_000_000);
            s.samples.clear();
            s.until_reload.clear();
            s.misses = 0;
            s.painted.clear();
            s.swapped = 0;
            std::thread::sleep(Duration::from_millis(800));
        }
        for i in 0..runs {
            // Each round in another order: first, second, … rotate.
            let len = servers.len();
            for k in 0..len {
                let s = &mut servers[(i + k) % len];
                s.sample(i);
                // Let the reloaded page reconnect to its server before the next edit.
                std::thread::sleep(Duration::from_millis(600));
            }
        }
        for s in &servers {
            fs::write(&s.file, &s.original).unwrap();
        }
        println!(
            "\n## ×{n}: save of a one-clause edit → the open page shows it (headless Chromium)"
        );
        for s in &servers {
            let min = s.samples.iter().cloned().fold(f64::MAX, f64::min);
            let max = s.samples.iter().cloned().fold(0.0, f64::max);
            let painted = if s.painted.is_empty() {
                "n/a".to_string()
            } else {
                format!("{:.1} ms", median(&s.painted))
            };
            println!(
                "  {:<30} median {:>8.1} ms  [{:.1}–{:.1}]; until the update starts {:.1} ms; \
                 painted {painted}; {} of {} in place; {} missed",
                s.name,
                median(&s.samples),
                min,
                max,
                median(&s.until_reload),
                s.swapped,
                s.samples.len(),
                s.misses
            );
        }
        for (name, log) in &logs {
            let text = fs::read_to_string(log).unwrap_or_default();
            let rebuilds = log_figures(&text, "rebuilt in ");
            if rebuilds.len() > 1 {
                // The first is the warm-up; the last restores the file.
                let timed = &rebuilds[1..rebuilds.len().min(runs + 1)];
                println!(
                    "  of which {name}'s rebuild (its own log) median {:.1} ms over {} rebuilds",
                    median(timed),
                    timed.len()
                );
            }
            // From the start of a rebuild to the edited chapter's pages handed to the server
            // (load, test scan, matrix, templates, those pages rendered).
            let first = log_figures(&text, "  the edited chapter's pages in ");
            if first.len() > 1 {
                let timed = &first[1..first.len().min(runs + 1)];
                println!(
                    "  {name}: rebuild start → the edited chapter's pages ready, median {:.1} ms",
                    median(timed)
                );
            }
        }
        for other in &servers[1..] {
            println!(
                "  ratio kcontract / {}: {:.3}",
                other.name,
                median(&servers[0].samples) / median(&other.samples)
            );
        }
    }
}

/// The figure after `prefix` on each line of serve's log that starts with it (`rebuilt in 12 ms`).
fn log_figures(log: &str, prefix: &str) -> Vec<f64> {
    log.lines()
        .filter_map(|l| l.strip_prefix(prefix))
        .filter_map(|l| l.split(' ').next()?.parse().ok())
        .collect()
}
