//! The HTTP side of `kcontract serve`: a small HTTP/1.1 server on std's `TcpListener` (GET and HEAD
//! of the site held in memory, with ETags; one thread per connection, `Connection: close`) and the event stream
//! the pages listen to (server-sent events at [`EVENTS`]). std suffices: the server answers a local
//! browser with files it already holds, and the event stream is a response that is never finished,
//! which a request/response library would have to be worked around for.

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex, PoisonError, RwLock};
use std::time::Duration;

use serde::Serialize;

/// The site as served: relative path → bytes.
pub(crate) type Site = BTreeMap<String, Arc<[u8]>>;

/// Where the pages' script listens for events (`templates/serve/reload.html`).
const EVENTS: &str = "/__kcontract/events";

/// The longest request head read; a browser's GET is far shorter.
const MAX_HEAD: usize = 16 * 1024;

/// What the server threads and the rebuild loop share.
pub(super) struct Shared {
    site: RwLock<Arc<Site>>,
    /// The diagnostics of the failed rebuild the pages show, until a rebuild succeeds.
    failure: Mutex<Option<String>>,
    /// Open event streams; a write that fails drops its stream.
    clients: Mutex<Vec<TcpStream>>,
}

/// The `reload` event's data: the files whose bytes changed (or appeared, or went), and of those
/// the pages an open copy of which may update in place (see [`Shared::replace`]); any other
/// changed page reloads.
#[derive(Serialize)]
struct Reload<'a> {
    changed: Vec<&'a str>,
    swap: Vec<&'a str>,
}

impl Shared {
    pub(super) fn new(site: Site) -> Shared {
        Shared {
            site: RwLock::new(Arc::new(site)),
            failure: Mutex::new(None),
            clients: Mutex::new(Vec::new()),
        }
    }

    /// Serve `site` from now on and tell the pages which files changed; returns how many did.
    /// `swap`: the change was of chapter files only, so a changed page differs only in what a
    /// chapter file makes of it (its title, the sidebar and the content; the header, the footer
    /// and the head come from contract.yaml, the templates and the interface text), and an open
    /// copy replaces those three in place (`templates/serve/reload.html`) instead of reloading:
    /// the reader keeps their place.
    pub(super) fn replace(&self, site: Site, swap: bool) -> usize {
        let site = Arc::new(site);
        let old = std::mem::replace(
            &mut *self.site.write().unwrap_or_else(PoisonError::into_inner),
            Arc::clone(&site),
        );
        let mut changed: Vec<&str> = site
            .iter()
            .filter(|(rel, bytes)| old.get(*rel).is_none_or(|was| was != *bytes))
            .map(|(rel, _)| rel.as_str())
            .collect();
        changed.extend(
            old.keys()
                .filter(|rel| !site.contains_key(*rel))
                .map(String::as_str),
        );
        let was_failing = self
            .failure
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
            .is_some();
        let mut events = String::new();
        if was_failing {
            events.push_str("event: fixed\ndata: \n\n");
        }
        let swapped = if swap {
            changed
                .iter()
                .copied()
                .filter(|rel| rel.ends_with(".html"))
                .collect()
        } else {
            Vec::new()
        };
        let data = serde_json::to_string(&Reload {
            changed: changed.clone(),
            swap: swapped,
        })
        .unwrap_or_else(|_| String::from("{\"changed\":[],\"swap\":[]}"));
        events.push_str(&format!("event: reload\ndata: {data}\n\n"));
        self.broadcast(&events);
        changed.len()
    }

    /// Keep serving the last good site; show `text` over the open pages (and any opened later).
    pub(super) fn fail(&self, text: String) {
        let event = failed_event(&text);
        *self.failure.lock().unwrap_or_else(PoisonError::into_inner) = Some(text);
        self.broadcast(&event);
    }

    fn broadcast(&self, event: &str) {
        let mut clients = self.clients.lock().unwrap_or_else(PoisonError::into_inner);
        clients.retain_mut(|c| {
            c.write_all(event.as_bytes())
                .and_then(|_| c.flush())
                .is_ok()
        });
    }

    /// A page opened an event stream: send the current state, then keep it for later events.
    fn subscribe(&self, mut stream: TcpStream) {
        let mut head = String::from(
            "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-store\r\n\
             Connection: keep-alive\r\n\r\nretry: 300\n\n",
        );
        // Under the clients' lock, so no event is sent between this state and the subscription.
        let mut clients = self.clients.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(text) = &*self.failure.lock().unwrap_or_else(PoisonError::into_inner) {
            head.push_str(&failed_event(text));
        }
        if stream.write_all(head.as_bytes()).is_ok() {
            clients.push(stream);
        }
    }
}

/// A `failed` event: every line of the text is one `data:` line, so the page gets it whole.
fn failed_event(text: &str) -> String {
    let mut e = String::from("event: failed\n");
    for line in text.lines() {
        e.push_str("data: ");
        e.push_str(line);
        e.push('\n');
    }
    e.push('\n');
    e
}

/// Accept connections on their own thread, each connection on a thread of its own.
pub(super) fn spawn(listener: TcpListener, shared: Arc<Shared>) {
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let shared = Arc::clone(&shared);
            std::thread::spawn(move || handle(stream, &shared));
        }
    });
}

fn handle(mut stream: TcpStream, shared: &Shared) {
    let _ = stream.set_read_timeout(Some(Duration::from_secs(10)));
    let _ = stream.set_write_timeout(Some(Duration::from_secs(10)));
    let Some(head) = read_head(&mut stream) else {
        return;
    };
    let mut words = head.lines().next().unwrap_or_default().split(' ');
    let (method, target) = (words.next().unwrap_or(""), words.next().unwrap_or(""));
    let path = target.split(['?', '#']).next().unwrap_or("");
    if !matches!(method, "GET" | "HEAD") {
        respond(
            &mut stream,
            "405 Method Not Allowed",
            "text/plain; charset=utf-8",
            None,
            b"GET or HEAD only\n",
            false,
        );
        return;
    }
    if path == EVENTS {
        shared.subscribe(stream);
        return;
    }
    let rel = path.trim_start_matches('/');
    let rel = if rel.is_empty() || rel.ends_with('/') {
        format!("{rel}index.html")
    } else {
        rel.to_string()
    };
    let site = Arc::clone(&shared.site.read().unwrap_or_else(PoisonError::into_inner));
    let head_only = method == "HEAD";
    let Some(bytes) = site.get(&rel) else {
        let body = format!("not found: /{rel}\n");
        let ctype = "text/plain; charset=utf-8";
        respond(
            &mut stream,
            "404 Not Found",
            ctype,
            None,
            body.as_bytes(),
            head_only,
        );
        return;
    };
    // Revalidated on every load, answered 304 when unchanged: an unchanged search index (3 MB at
    // ×100) is then neither sent again nor compiled again by the browser.
    let etag = format!("\"{:016x}\"", xxhash_rust::xxh3::xxh3_64(bytes));
    if if_none_match(&head).is_some_and(|tags| tags.split(',').any(|t| t.trim() == etag)) {
        respond(
            &mut stream,
            "304 Not Modified",
            content_type(&rel),
            Some(&etag),
            b"",
            true,
        );
    } else {
        respond(
            &mut stream,
            "200 OK",
            content_type(&rel),
            Some(&etag),
            bytes,
            head_only,
        );
    }
}

/// The `If-None-Match` header's value, if any.
fn if_none_match(head: &str) -> Option<&str> {
    head.lines().skip(1).find_map(|l| {
        let (name, value) = l.split_once(':')?;
        name.trim()
            .eq_ignore_ascii_case("if-none-match")
            .then_some(value.trim())
    })
}

/// The request head, up to the blank line; `None` when the client sends something else.
fn read_head(stream: &mut TcpStream) -> Option<String> {
    let mut buf = Vec::with_capacity(1024);
    let mut chunk = [0u8; 1024];
    while !buf.windows(4).any(|w| w == b"\r\n\r\n") {
        let n = stream.read(&mut chunk).ok()?;
        if n == 0 || buf.len() + n > MAX_HEAD {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
    }
    String::from_utf8(buf).ok()
}

fn respond(
    stream: &mut TcpStream,
    status: &str,
    ctype: &str,
    etag: Option<&str>,
    body: &[u8],
    head_only: bool,
) {
    let etag = etag.map(|e| format!("ETag: {e}\r\n")).unwrap_or_default();
    let length = if status.starts_with("304") || status.starts_with("204") {
        String::new()
    } else {
        format!("Content-Length: {}\r\n", body.len())
    };
    let head = format!(
        "HTTP/1.1 {status}\r\nContent-Type: {ctype}\r\n{length}{etag}\
         Cache-Control: no-cache\r\nConnection: close\r\n\r\n"
    );
    let _ = stream.write_all(head.as_bytes());
    if !head_only {
        let _ = stream.write_all(body);
    }
    let _ = stream.flush();
}

/// The type of a served file, by its extension: the site's own kinds, and what a replaced style in
/// `--templates DIR/assets/` may bring along (images, fonts).
fn content_type(rel: &str) -> &'static str {
    let ext = rel.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase());
    match ext.as_deref() {
        Some("html") => "text/html; charset=utf-8",
        Some("css") => "text/css; charset=utf-8",
        Some("js") => "text/javascript; charset=utf-8",
        Some("json") => "application/json",
        Some("csv") => "text/csv; charset=utf-8",
        Some("svg") => "image/svg+xml",
        Some("png") => "image/png",
        Some("jpg" | "jpeg") => "image/jpeg",
        Some("gif") => "image/gif",
        Some("webp") => "image/webp",
        Some("ico") => "image/x-icon",
        Some("woff2") => "font/woff2",
        Some("woff") => "font/woff",
        Some("ttf") => "font/ttf",
        Some("otf") => "font/otf",
        _ => "application/octet-stream",
    }
}

#[cfg(test)]
mod tests {
    use super::content_type;

    #[test]
    fn types_by_extension() {
        assert_eq!(content_type("en/index.html"), "text/html; charset=utf-8");
        assert_eq!(content_type("assets/fonts/a.woff2"), "font/woff2");
        assert_eq!(content_type("assets/logo.JPG"), "image/jpeg");
        assert_eq!(content_type("assets/logo.jpeg"), "image/jpeg");
        assert_eq!(content_type("matrix"), "application/octet-stream");
    }
}
