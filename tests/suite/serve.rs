//! `kcontract serve`: the real binary on a copy of this repository's spec, on a free loopback port.
//!
//! Without a browser: pages are served, an edit is rebuilt and announced to the pages' event stream
//! (only the files that changed; the edited chapter's pages first, made from the last rebuild with
//! the edited file read again; saved again before the full rebuild read it, still to be updated in
//! place), a broken spec keeps the last good site and streams the diagnostics, fixing it clears
//! them, Ctrl-C stops serve with exit 0, and nothing is written into the project; a port in use is
//! K0901. With `--features browser`: a page open in headless Chromium shows an edit of its chapter
//! in place (keeping its scroll position; a renamed section in its sidebar, which stays the same
//! element; its search then finds the new words), reloads by itself after an edit of
//! contract.yaml, and shows the overlay while the spec is broken.
//! Mutants that fail them: every file announced as changed (also: every file not the same
//! allocation), no `fixed` event, no `location.reload()` in `templates/serve/reload.html`; there,
//! the sidebar never replaced, or replaced as an element, or no `kcontract:search-stale` event.

use std::io::{BufRead, BufReader, Read};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::cli::{copy_dir, root};

const CHAPTER: &str = "spec/en/runtime-and-lifecycle.md";
const SENTENCE: &str = "The container is sent a `SIGTERM` signal";

/// `kcontract serve --port 0` in `dir`, stopped (SIGKILL) when dropped if still running.
struct Serve {
    child: Child,
    url: String,
    stderr: std::path::PathBuf,
}

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Serve {
    fn start(dir: &Path) -> Serve {
        let stderr = dir.join("..").join(format!(
            "serve-stderr-{}.txt",
            dir.file_name().unwrap().to_string_lossy()
        ));
        let mut child = Command::new(env!("CARGO_BIN_EXE_kcontract"))
            .current_dir(dir)
            .args(["--color", "never", "serve", "--port", "0"])
            .stdout(Stdio::piped())
            .stderr(std::fs::File::create(&stderr).unwrap())
            .spawn()
            .expect("the kcontract binary runs");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let url = line
            .split_whitespace()
            .find(|w| w.starts_with("http://127.0.0.1:"))
            .unwrap_or_else(|| panic!("serve printed its URL first, not {line:?}"))
            .to_string();
        Serve { child, url, stderr }
    }

    fn get(&self, rel: &str) -> (u16, String) {
        let mut r = ureq::get(&format!("{}{rel}", self.url))
            .config()
            .http_status_as_error(false)
            .build()
            .call()
            .unwrap();
        (r.status().as_u16(), r.body_mut().read_to_string().unwrap())
    }

    fn stderr(&self) -> String {
        std::fs::read_to_string(&self.stderr).unwrap_or_default()
    }
}

/// The pages' event stream, read as text.
struct Events {
    stream: TcpStream,
    seen: String,
}

impl Events {
    fn open(url: &str) -> Events {
        let addr = url.trim_start_matches("http://").trim_end_matches('/');
        let mut stream = TcpStream::connect(addr).unwrap();
        std::io::Write::write_all(
            &mut stream,
            b"GET /__kcontract/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
        )
        .unwrap();
        stream
            .set_read_timeout(Some(Duration::from_millis(100)))
            .unwrap();
        let mut e = Events {
            stream,
            seen: String::new(),
        };
        e.wait_for("retry: 300\n\n");
        e
    }

    /// Read until the stream holds `what` after what was consumed; return what came before it and
    /// it, and consume that.
    fn wait_for(&mut self, what: &str) -> String {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            if let Some(i) = self.seen.find(what) {
                let upto = i + what.len();
                let got = self.seen[..upto].to_string();
                self.seen.drain(..upto);
                return got;
            }
            assert!(
                Instant::now() < deadline,
                "no {what:?} in the event stream; got {:?}",
                self.seen
            );
            let mut buf = [0u8; 4096];
            if let Ok(n) = self.stream.read(&mut buf) {
                assert!(n > 0, "the event stream closed; got {:?}", self.seen);
                self.seen.push_str(&String::from_utf8_lossy(&buf[..n]));
            }
        }
    }
}

/// A project folder with a copy of this repository's spec (no tests, no `site/`).
fn project() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("p");
    copy_dir(&root().join("spec"), &dir.join("spec"));
    tmp
}

fn edit(dir: &Path, from: &str, to: &str) {
    let p = dir.join(CHAPTER);
    let text = std::fs::read_to_string(&p).unwrap();
    assert!(text.contains(from), "{from:?} in {CHAPTER}");
    std::fs::write(&p, text.replacen(from, to, 1)).unwrap();
}

#[test]
fn serve_rebuilds_streams_changes_and_errors_and_stops_on_ctrl_c() {
    let tmp = project();
    let dir = tmp.path().join("p");
    let serve = Serve::start(&dir);

    let (status, page) = serve.get("en/runtime-and-lifecycle.html");
    assert_eq!(status, 200);
    assert!(page.contains("The container is sent a <code>SIGTERM</code> signal"));
    assert!(
        page.contains("/__kcontract/events"),
        "served pages carry the reload script"
    );
    assert_eq!(serve.get("").0, 200, "/ serves the root index.html");
    assert_eq!(serve.get("en/nope.html").0, 404);

    // An edit of a chapter: the site is rebuilt and the changed files announced; an edit of
    // chapter files only changes what they make of a page, so its open copies update in place.
    let mut events = Events::open(&serve.url);
    edit(&dir, SENTENCE, "The container is sent the `SIGTERM` signal");
    let got = events.wait_for("\n\n");
    assert!(got.contains("event: reload"), "{got}");
    for changed in [
        "en/runtime-and-lifecycle.html",
        "zh/runtime-and-lifecycle.html",
        "en/clauses.html",
        "en/print.html",
        "en/changes.html",
        "assets/search-en.js",
        "clauses.json",
    ] {
        assert!(got.contains(&format!("\"{changed}\"")), "{changed}: {got}");
    }
    assert!(
        got.contains("\"swap\":[\"en/changes.html\",\"en/clauses.html\",")
            && got.contains("\"en/runtime-and-lifecycle.html\""),
        "the changed pages update in place: {got}"
    );
    assert!(!got.contains("en/configuration.html"), "{got}");
    let (_, page) = serve.get("en/runtime-and-lifecycle.html");
    assert!(page.contains("The container is sent the <code>SIGTERM</code> signal"));
    // Said after the pages are told.
    let deadline = Instant::now() + Duration::from_secs(5);
    while !serve.stderr().contains("rebuilt in ") {
        assert!(Instant::now() < deadline, "{}", serve.stderr());
        std::thread::sleep(Duration::from_millis(20));
    }

    // A broken spec: the diagnostics are streamed, the last good site is still served.
    edit(&dir, "level: MUST\n", "level: MUSTY\n");
    let got = events.wait_for("\n\n");
    assert!(got.contains("event: failed"), "{got}");
    assert!(got.contains("error[K0109]: unknown level `MUSTY`"), "{got}");
    assert!(
        got.contains("data:   --> spec/en/runtime-and-lifecycle.md:"),
        "{got}"
    );
    let (status, page) = serve.get("en/runtime-and-lifecycle.html");
    assert_eq!(status, 200);
    assert!(page.contains("The container is sent the <code>SIGTERM</code> signal"));
    // A page opened now gets the failure at once.
    let mut late = Events::open(&serve.url);
    assert!(late.wait_for("\n\n").contains("K0109"));
    assert!(serve.stderr().contains("still serving the last good site"));

    // Fixed: the overlay is cleared and the pages told.
    edit(&dir, "level: MUSTY\n", "level: MUST\n");
    let got = events.wait_for("event: reload");
    assert!(got.contains("event: fixed"), "{got}");

    // An earlier version that no longer loads (the Changes page compares it): its error, in its
    // own file, and K0016 at its `history:` entry are streamed; fixed, the site comes back.
    let old = dir
        .join("spec/history/knative-specs-2024-01-11")
        .join(CHAPTER.trim_start_matches("spec/"));
    let text = std::fs::read_to_string(&old).unwrap();
    events.wait_for("\n\n"); // the rest of the reload event
    std::fs::write(&old, text.replacen("level: MUST\n", "level: MUSTY\n", 1)).unwrap();
    let got = events.wait_for("\n\n");
    assert!(got.contains("event: failed"), "{got}");
    assert!(got.contains("error[K0109]: unknown level `MUSTY`"), "{got}");
    assert!(
        got.contains("spec/history/knative-specs-2024-01-11/en/"),
        "{got}"
    );
    assert!(
        got.contains("error[K0016]: the earlier version `knative-specs-2024-01-11` has 1 error"),
        "{got}"
    );
    std::fs::write(&old, text).unwrap();
    let got = events.wait_for("event: reload");
    assert!(got.contains("event: fixed"), "{got}");

    // Ctrl-C: serve stops with exit 0, having written nothing into the project.
    let mut serve = serve;
    let pid = serve.child.id().to_string();
    assert!(
        Command::new("kill")
            .args(["-INT", &pid])
            .status()
            .unwrap()
            .success()
    );
    let deadline = Instant::now() + Duration::from_secs(10);
    let status = loop {
        if let Some(s) = serve.child.try_wait().unwrap() {
            break s;
        }
        assert!(Instant::now() < deadline, "serve did not stop on SIGINT");
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_eq!(status.code(), Some(0), "{}", serve.stderr());
    assert!(serve.stderr().ends_with("serve stopped\n"));
    let written: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(written, ["spec"], "serve writes nothing into the project");
}

#[test]
fn k0901_port_in_use() {
    let tmp = project();
    let taken = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().port().to_string();
    let (code, out, err) =
        crate::common::cli::kcontract(&tmp.path().join("p"), &["serve", "--port", &port]);
    insta::assert_snapshot!(format!(
        "exit: {code}\n--- stdout\n{out}--- stderr\n{}",
        err.replace(&port, "PORT")
    ));
}

/// What an open page shows, for a failure's message: where it is, whether it is the load that was
/// marked (`window.kcMark`) or a reload, the overlay, the title, the sidebar's sections.
const PAGE_STATE: &str = "JSON.stringify({ href: location.href, kcMark: String(window.kcMark), \
     navigation: (performance.getEntriesByType('navigation')[0] || {}).type, \
     overlayHidden: document.querySelector('#kc-serve-overlay').hidden, \
     overlay: document.querySelector('#kc-serve-overlay').textContent.slice(0, 2000), \
     title: document.title, tocSame: document.getElementById('toc') === window.kcToc, \
     kcServeShown: window.kcServeShown, \
     sections: (document.querySelector('#toc .sections') || {}).textContent }, null, 1)";

/// [`crate::common::webdriver::Driver::wait_for`] every 20 ms for up to 20 s; on a timeout the failure
/// says what serve printed and what the page shows.
fn wait_for(d: &crate::common::webdriver::Driver, serve: &Serve, expr: &str) -> serde_json::Value {
    let (every, within) = (Duration::from_millis(20), Duration::from_secs(20));
    d.poll(expr, every, within).unwrap_or_else(|| {
        let page = d
            .poll(PAGE_STATE, every, Duration::ZERO)
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_else(|| "(the page did not answer)".into());
        panic!(
            "timed out waiting for: {expr}\n--- the page\n{page}\n--- serve's stderr\n{}",
            serve.stderr()
        )
    })
}

#[test]
#[cfg_attr(
    not(feature = "browser"),
    ignore = "needs Chromium and chromedriver: cargo test --features browser"
)]
fn open_page_reloads_after_an_edit_and_shows_errors_over_it() {
    use crate::common::webdriver::{CHROMEDRIVER, CHROMIUM, Driver};
    for tool in [CHROMIUM, CHROMEDRIVER] {
        assert!(
            Path::new(tool).exists(),
            "{tool} is missing: apt-get install chromium chromium-driver (or leave out --features browser)"
        );
    }
    let tmp = project();
    let dir = tmp.path().join("p");
    let serve = Serve::start(&dir);
    let d = Driver::start();
    d.goto(&format!("{}en/runtime-and-lifecycle.html", serve.url));
    // A mark on this load of the page: gone once the page has reloaded by itself.
    d.js("window.kcMark = 1;");
    wait_for(
        &d,
        &serve,
        "document.querySelector('#kc-serve-overlay').hidden",
    );

    // An edit of the chapter: the page shows it in place (no reload: the mark stays), where the
    // reader was.
    d.js("window.scrollTo(0, 600);");
    let y = d.js("return window.scrollY;");
    edit(&dir, SENTENCE, "The container is sent the `SIGTERM` signal");
    wait_for(
        &d,
        &serve,
        "window.kcMark === 1 && window.kcServeShown && document.body.textContent.includes('The container is sent the SIGTERM signal')",
    );
    assert_eq!(
        d.js("return window.scrollY;"),
        y,
        "the reader keeps their place"
    );
    // A renamed section: the sidebar (whose children are kept when they are unchanged) shows the
    // new name in place, and stays the element site.js holds for its menu.
    d.js("window.kcToc = document.getElementById('toc');");
    edit(&dir, "## Warnings\n", "## Warnings renamed\n");
    wait_for(
        &d,
        &serve,
        "window.kcMark === 1 && document.getElementById('toc') === window.kcToc && document.querySelector('#toc .sections').textContent.includes('Warnings renamed')",
    );
    // The search index the page loaded before an edit is loaded again after it (the full rebuild
    // changed it; the page stayed): a search finds the new word.
    d.js("document.getElementById('q').focus();");
    wait_for(&d, &serve, "!!window.KC_SEARCH");
    edit(
        &dir,
        "The container is sent the `SIGTERM` signal",
        "The container is sent the zebrafinch `SIGTERM` signal",
    );
    wait_for(
        &d,
        &serve,
        "(function () { var q = document.getElementById('q'); q.value = 'zebrafinch'; q.dispatchEvent(new Event('input')); \
         return window.kcMark === 1 && document.querySelectorAll('#results a').length > 0; })()",
    );
    // What a chapter file does not make (here the header, from contract.yaml) reloads the page.
    let contract = dir.join("spec/contract.yaml");
    let text = std::fs::read_to_string(&contract).unwrap();
    std::fs::write(
        &contract,
        text.replacen(
            "title: Knative Runtime Contract\n",
            "title: Knative Runtime Contract edited\n",
            1,
        ),
    )
    .unwrap();
    wait_for(
        &d,
        &serve,
        "!window.kcMark && document.querySelector('header .brand').textContent.includes('Contract edited')",
    );

    d.js("window.kcMark = 2;");
    edit(&dir, "level: MUST\n", "level: MUSTY\n");
    let shown = wait_for(
        &d,
        &serve,
        "!document.querySelector('#kc-serve-overlay').hidden && document.querySelector('#kc-serve-diagnostics').textContent",
    );
    let shown = shown.as_str().unwrap_or_default();
    assert!(
        shown.contains("error[K0109]: unknown level `MUSTY`"),
        "{shown}"
    );
    assert_eq!(
        d.js("return window.kcMark;"),
        2,
        "a failed rebuild does not reload"
    );

    edit(&dir, "level: MUSTY\n", "level: MUST\n");
    wait_for(
        &d,
        &serve,
        "document.querySelector('#kc-serve-overlay').hidden",
    );
    assert_eq!(
        d.js("return window.kcMark;"),
        2,
        "fixing the error brings back the same page: overlay gone, no reload"
    );
}

/// One raw request to serve; what it answered (the whole response, as text) within 5 s.
fn raw(url: &str, request: &[u8]) -> String {
    let addr = url.trim_start_matches("http://").trim_end_matches('/');
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    std::io::Write::write_all(&mut s, request).unwrap();
    let mut out = Vec::new();
    let _ = s.read_to_end(&mut out);
    String::from_utf8_lossy(&out).into_owned()
}

/// What an HTTP server owes its client: a `Host` that is not this machine is refused (a DNS
/// rebinding page gets nothing), a request with bare LF line ends is answered, an oversized head
/// gets 431, a folder without its slash is redirected.
#[test]
fn serve_checks_the_host_and_answers_every_well_formed_request() {
    let tmp = project();
    let serve = Serve::start(&tmp.path().join("p"));
    let got = raw(
        &serve.url,
        b"GET /en/index.html HTTP/1.1\r\nHost: attacker.example:3000\r\n\r\n",
    );
    assert!(got.starts_with("HTTP/1.1 403 "), "{got}");
    assert!(!got.contains("<html"), "{got}");
    let got = raw(
        &serve.url,
        b"GET /__kcontract/events HTTP/1.1\r\nHost: attacker.example\r\n\r\n",
    );
    assert!(got.starts_with("HTTP/1.1 403 "), "{got}");
    let got = raw(
        &serve.url,
        b"GET /en/index.html HTTP/1.1\nHost: localhost\n\n",
    );
    assert!(got.starts_with("HTTP/1.1 200 OK\r\n"), "{got}");
    assert!(got.contains("<html"), "{got}");
    let mut big = b"GET / HTTP/1.1\r\nHost: localhost\r\nX-Big: ".to_vec();
    big.extend(std::iter::repeat_n(b'a', 40_000));
    big.extend_from_slice(b"\r\n\r\n");
    let got = raw(&serve.url, &big);
    assert!(got.starts_with("HTTP/1.1 431 "), "{got}");
    let got = raw(&serve.url, b"GET /en HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
    assert!(
        got.starts_with("HTTP/1.1 301 ") && got.contains("Location: /en/\r\n"),
        "{got}"
    );
}

/// 200 idle connections, 20 that send a byte every half second, and five event streams that never
/// read: a page is still answered within a second, and an edit reaches a page's event stream
/// within a second of its rebuild.
#[test]
fn serve_stays_up_under_idle_slow_and_stuck_clients() {
    let tmp = project();
    let dir = tmp.path().join("p");
    let serve = Serve::start(&dir);
    let addr = serve
        .url
        .trim_start_matches("http://")
        .trim_end_matches('/')
        .to_string();
    let _idle: Vec<TcpStream> = (0..200)
        .map(|_| TcpStream::connect(&addr).unwrap())
        .collect();
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let slow = {
        let (stop, addr) = (stop.clone(), addr.clone());
        std::thread::spawn(move || {
            let mut conns: Vec<TcpStream> = (0..20)
                .map(|_| TcpStream::connect(&addr).unwrap())
                .collect();
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                for c in &mut conns {
                    let _ = std::io::Write::write_all(c, b"G");
                }
                std::thread::sleep(Duration::from_millis(500));
            }
        })
    };
    let _stuck: Vec<TcpStream> = (0..5)
        .map(|_| {
            let mut s = TcpStream::connect(&addr).unwrap();
            std::io::Write::write_all(
                &mut s,
                b"GET /__kcontract/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
            )
            .unwrap();
            s
        })
        .collect();
    std::thread::sleep(Duration::from_millis(300));
    for _ in 0..3 {
        let start = Instant::now();
        let (status, page) = serve.get("en/runtime-and-lifecycle.html");
        assert_eq!(status, 200);
        assert!(page.contains("SIGTERM"));
        assert!(
            start.elapsed() < Duration::from_secs(1),
            "{:?}",
            start.elapsed()
        );
    }
    let mut events = Events::open(&serve.url);
    for round in 0..3 {
        let alt = format!("{SENTENCE} {round}");
        for (from, to) in [(SENTENCE, alt.as_str()), (alt.as_str(), SENTENCE)] {
            let before = serve.stderr().matches("rebuilt in ").count();
            let start = Instant::now();
            edit(&dir, from, to);
            let got = next_event(&mut events, "reload");
            let took = start.elapsed();
            // The rebuild's own time, as serve reports it (after telling the pages).
            let deadline = Instant::now() + Duration::from_secs(10);
            let rebuilt = loop {
                let err = serve.stderr();
                if let Some(ms) = err
                    .split("rebuilt in ")
                    .nth(before + 1)
                    .and_then(|rest| rest.split(" ms").next())
                    .and_then(|ms| ms.trim().parse::<u64>().ok())
                {
                    break Duration::from_millis(ms);
                }
                assert!(Instant::now() < deadline, "{err}");
                std::thread::sleep(Duration::from_millis(20));
            };
            assert!(
                took < rebuilt + Duration::from_secs(1),
                "the event came {took:?} after the edit, the rebuild took {rebuilt:?}: {got}"
            );
        }
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    slow.join().unwrap();
}

/// After the spec folder is deleted and made again (a branch switch, `rm -rf spec && git checkout
/// spec`), edits are still seen: the folder is watched anew. A chapter replaced by a FIFO fails
/// the rebuild at once (K0004), and serve goes on.
#[cfg(unix)]
#[test]
fn serve_follows_a_spec_folder_made_again_and_refuses_a_fifo() {
    let tmp = project();
    let dir = tmp.path().join("p");
    let serve = Serve::start(&dir);
    let mut events = Events::open(&serve.url);
    // Gone and back in one step each, so that no rebuild reads a half-deleted or half-copied
    // folder (that would be a different error, and a race in this test).
    std::fs::rename(dir.join("spec"), dir.join("spec.gone")).unwrap();
    std::fs::remove_dir_all(dir.join("spec.gone")).unwrap();
    let got = next_event(&mut events, "failed");
    assert!(got.contains("K0003"), "{got}");
    copy_dir(&root().join("spec"), &dir.join("spec.new"));
    std::fs::rename(dir.join("spec.new"), dir.join("spec")).unwrap();
    let got = next_event(&mut events, "reload");
    assert!(got.contains("event: fixed"), "{got}");
    // The edit after the folder came back: seen. (A rebuild the folder's late events started may
    // still reload with no page changed first: wait for the one that names the chapter.)
    edit(&dir, SENTENCE, "The container is sent the `SIGTERM` signal");
    next_event_naming(&mut events, "reload", "runtime-and-lifecycle.html");
    let (_, page) = serve.get("en/runtime-and-lifecycle.html");
    assert!(page.contains("The container is sent the <code>SIGTERM</code> signal"));

    let chapter = dir.join(CHAPTER);
    let text = std::fs::read_to_string(&chapter).unwrap();
    std::fs::remove_file(&chapter).unwrap();
    crate::common::cli::mkfifo(&chapter);
    let start = Instant::now();
    let got = next_event(&mut events, "failed");
    assert!(got.contains("K0004") && got.contains("FIFO"), "{got}");
    assert!(
        start.elapsed() < Duration::from_secs(5),
        "{:?}",
        start.elapsed()
    );
    assert_eq!(serve.get("en/index.html").0, 200);
    std::fs::remove_file(&chapter).unwrap();
    std::fs::write(&chapter, text).unwrap();
    let got = next_event(&mut events, "reload");
    assert!(got.contains("event: fixed"), "{got}");
}

/// Read events of `kind` until one names `needle` (within 20 s); everything read up to it.
fn next_event_naming(events: &mut Events, kind: &str, needle: &str) -> String {
    let deadline = Instant::now() + Duration::from_secs(20);
    let mut all = String::new();
    loop {
        let got = next_event(events, kind);
        all.push_str(&got);
        if got.contains(needle) {
            return all;
        }
        assert!(
            Instant::now() < deadline,
            "no {kind} naming {needle}; got {all:?}"
        );
    }
}

/// Read events until one of `kind` has come whole (within 20 s: the heartbeats a quiet stream
/// gets do not count); everything read up to it.
fn next_event(events: &mut Events, kind: &str) -> String {
    let deadline = Instant::now() + Duration::from_secs(20);
    let mut all = String::new();
    loop {
        let got = events.wait_for("\n\n");
        all.push_str(&got);
        if got.contains(&format!("event: {kind}\n")) {
            return all;
        }
        assert!(Instant::now() < deadline, "no {kind} event; got {all:?}");
    }
}

/// The spec's images are served as `build` publishes them (`images/NAME`, where a chapter's
/// `../images/NAME` lands); a name that is no image of the spec is not found.
#[test]
fn serve_shows_the_specs_images() {
    let tmp = project();
    let dir = tmp.path().join("p");
    std::fs::create_dir_all(dir.join("spec/images")).unwrap();
    std::fs::write(
        dir.join("spec/images/flow.png"),
        b"\x89PNG\r\n\x1a\nnot-a-real-png",
    )
    .unwrap();
    let serve = Serve::start(&dir);
    let got = raw(
        &serve.url,
        b"GET /images/flow.png HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
    );
    assert!(got.starts_with("HTTP/1.1 200 OK\r\n"), "{got}");
    assert!(got.contains("not-a-real-png"), "{got}");
    let got = raw(
        &serve.url,
        b"GET /images/other.png HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
    );
    assert!(got.starts_with("HTTP/1.1 404 "), "{got}");
}
