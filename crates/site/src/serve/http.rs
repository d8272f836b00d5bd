//! HTTP for `kcontract serve`: a request head read and answered from the site held in memory. Pure
//! functions of the bytes received and the site; the connections, their deadlines and the event
//! streams are `server.rs`'s. GET and HEAD, ETags, `Connection: close`; the `Host` must be
//! 127.0.0.1 or localhost (a page of another site that a DNS trick points at 127.0.0.1 gets
//! nothing); lines may end in CRLF or LF alone (RFC 9112 allows a bare LF); a head over
//! [`MAX_HEAD`] is answered 431; a folder without its slash is redirected to it.

use std::collections::BTreeMap;
use std::sync::Arc;

/// The site as served: relative path → bytes.
pub type Site = BTreeMap<String, Arc<[u8]>>;

/// Where the pages' script listens for events (`templates/serve/reload.html`).
pub(super) const EVENTS: &str = "/__kcontract/events";

/// The longest request head read; a browser's GET is far shorter.
pub(super) const MAX_HEAD: usize = 16 * 1024;

/// What to do with a request.
pub(super) enum Answer {
    /// Send this head, then this body (none for HEAD and for answers without one), then close.
    Reply(Vec<u8>, Option<Arc<[u8]>>),
    /// The page's event stream: keep the connection open for events.
    Events,
}

/// Where the request head in `buf` ends (just after its blank line), if it is all there. Lines
/// end in CRLF or a bare LF. `from`: how much of `buf` was looked at before, so that a head
/// arriving a byte at a time is scanned once, not once per byte.
pub(super) fn head_end(buf: &[u8], from: usize) -> Option<usize> {
    let mut i = from.saturating_sub(2);
    while let Some(off) = buf[i..].iter().position(|&b| b == b'\n') {
        let nl = i + off;
        let blank_lf = nl >= 1 && buf[nl - 1] == b'\n';
        let blank_crlf = nl >= 2 && buf[nl - 1] == b'\r' && buf[nl - 2] == b'\n';
        if blank_lf || blank_crlf {
            return Some(nl + 1);
        }
        i = nl + 1;
    }
    None
}

/// The answer to a head too large to read (RFC 6585).
pub(super) fn too_large() -> Answer {
    text_reply(
        "431 Request Header Fields Too Large",
        "the request head is larger than 16 KiB\n",
        false,
    )
}

/// Answer the request whose head is `head` (up to and including its blank line).
pub(super) fn answer(head: &[u8], site: &Site) -> Answer {
    let Ok(head) = std::str::from_utf8(head) else {
        return text_reply("400 Bad Request", "the request is not text\n", false);
    };
    let mut lines = head.split('\n').map(|l| l.strip_suffix('\r').unwrap_or(l));
    let request_line = lines.next().unwrap_or_default();
    let mut words = request_line.split(' ');
    let (Some(method), Some(target), Some(version), None) =
        (words.next(), words.next(), words.next(), words.next())
    else {
        return text_reply("400 Bad Request", "a malformed request line\n", false);
    };
    if !version.starts_with("HTTP/1.") {
        return text_reply("505 HTTP Version Not Supported", "HTTP/1.1 only\n", false);
    }
    let mut host = None;
    let mut if_none_match = None;
    for line in lines.take_while(|l| !l.is_empty()) {
        let Some((name, value)) = line.split_once(':') else {
            return text_reply("400 Bad Request", "a malformed header line\n", false);
        };
        let name = name.trim();
        if name.eq_ignore_ascii_case("host") {
            if host.is_some() {
                return text_reply("400 Bad Request", "two Host headers\n", false);
            }
            host = Some(value.trim());
        } else if name.eq_ignore_ascii_case("if-none-match") {
            if_none_match = Some(value.trim());
        }
    }
    if !host.is_some_and(host_allowed) {
        return text_reply(
            "403 Forbidden",
            "kcontract serve answers requests for 127.0.0.1 or localhost only\n",
            false,
        );
    }
    if !matches!(method, "GET" | "HEAD") {
        return text_reply("405 Method Not Allowed", "GET or HEAD only\n", false);
    }
    let head_only = method == "HEAD";
    let path = target.split(['?', '#']).next().unwrap_or("");
    if path == EVENTS {
        return Answer::Events;
    }
    let rel = path.trim_start_matches('/');
    let file = if rel.is_empty() || rel.ends_with('/') {
        format!("{rel}index.html")
    } else {
        rel.to_string()
    };
    let Some(bytes) = site.get(&file) else {
        // `/en` is the folder `/en/`: where its index is, the browser is sent there (relative
        // links of the page resolve against the slash).
        if !rel.is_empty() && !rel.ends_with('/') && site.contains_key(&format!("{rel}/index.html"))
        {
            let head = format!(
                "HTTP/1.1 301 Moved Permanently\r\nLocation: /{rel}/\r\nContent-Length: 0\r\n\
                 Cache-Control: no-cache\r\nConnection: close\r\n\r\n"
            );
            return Answer::Reply(head.into_bytes(), None);
        }
        return text_reply("404 Not Found", &format!("not found: /{file}\n"), head_only);
    };
    // Revalidated on every load, answered 304 when unchanged: an unchanged search index (3 MB at
    // ×100) is then neither sent again nor compiled again by the browser.
    let etag = format!("\"{:016x}\"", xxhash_rust::xxh3::xxh3_64(bytes));
    let ctype = content_type(&file);
    if if_none_match.is_some_and(|tags| tags.split(',').any(|t| t.trim() == etag)) {
        let head = format!(
            "HTTP/1.1 304 Not Modified\r\nContent-Type: {ctype}\r\nETag: {etag}\r\n\
             Cache-Control: no-cache\r\nConnection: close\r\n\r\n"
        );
        return Answer::Reply(head.into_bytes(), None);
    }
    let head = format!(
        "HTTP/1.1 200 OK\r\nContent-Type: {ctype}\r\nContent-Length: {}\r\nETag: {etag}\r\n\
         Cache-Control: no-cache\r\nConnection: close\r\n\r\n",
        bytes.len()
    );
    Answer::Reply(head.into_bytes(), (!head_only).then(|| Arc::clone(bytes)))
}

/// A plain-text answer.
fn text_reply(status: &str, body: &str, head_only: bool) -> Answer {
    let head = format!(
        "HTTP/1.1 {status}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: {}\r\n\
         Cache-Control: no-cache\r\nConnection: close\r\n\r\n",
        body.len()
    );
    let body: Arc<[u8]> = Arc::from(body.as_bytes());
    Answer::Reply(head.into_bytes(), (!head_only).then_some(body))
}

/// Whether a `Host` header names this machine's loopback address: `127.0.0.1` or `localhost`,
/// with any port (a forwarded port is still this server). Anything else is a name some other
/// site's page may have made resolve to 127.0.0.1 (DNS rebinding).
fn host_allowed(host: &str) -> bool {
    let name = match host.rsplit_once(':') {
        Some((name, port)) if !port.is_empty() && port.bytes().all(|b| b.is_ascii_digit()) => name,
        Some(_) => return false,
        None => host,
    };
    name == "127.0.0.1"
        || name.eq_ignore_ascii_case("localhost")
        || name.eq_ignore_ascii_case("localhost.")
}

/// A `failed` event: every line of the text is one `data:` line, so the page gets it whole. A
/// line ends at CR, LF or CRLF, as the page's EventSource reads it, so no text (a file name with a
/// carriage return in it) can end the `data:` and start an event of its own.
pub(super) fn failed_event(text: &str) -> String {
    let mut e = String::from("event: failed\n");
    for line in text.replace("\r\n", "\n").split(['\r', '\n']) {
        e.push_str("data: ");
        e.push_str(line);
        e.push('\n');
    }
    e.push('\n');
    e
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
    use super::*;

    fn site() -> Site {
        let mut s = Site::new();
        s.insert("index.html".into(), Arc::from(&b"root"[..]));
        s.insert("en/index.html".into(), Arc::from(&b"en index"[..]));
        s.insert("en/a.html".into(), Arc::from(&b"page a"[..]));
        s
    }

    /// The status line and body of the answer to `head`.
    fn status(head: &str) -> (String, String) {
        match answer(head.as_bytes(), &site()) {
            Answer::Reply(h, body) => {
                let h = String::from_utf8(h).unwrap();
                let body = body.map(|b| String::from_utf8(b.to_vec()).unwrap());
                (
                    h.lines().next().unwrap().to_string(),
                    h + &body.unwrap_or_default(),
                )
            }
            Answer::Events => ("events".into(), String::new()),
        }
    }

    #[test]
    fn types_by_extension() {
        assert_eq!(content_type("en/index.html"), "text/html; charset=utf-8");
        assert_eq!(content_type("assets/fonts/a.woff2"), "font/woff2");
        assert_eq!(content_type("assets/logo.JPG"), "image/jpeg");
        assert_eq!(content_type("assets/logo.jpeg"), "image/jpeg");
        assert_eq!(content_type("matrix"), "application/octet-stream");
    }

    #[test]
    fn heads_end_at_a_blank_line_with_crlf_or_lf() {
        assert_eq!(head_end(b"GET / HTTP/1.1\r\nHost: a\r\n\r\n", 0), Some(27));
        assert_eq!(head_end(b"GET / HTTP/1.1\nHost: a\n\n", 0), Some(24));
        assert_eq!(head_end(b"GET / HTTP/1.1\r\nHost: a\n\r\n", 0), Some(26));
        assert_eq!(head_end(b"GET / HTTP/1.1\r\nHost: a\r\n", 0), None);
        // Fed a byte at a time, scanning on from where it stopped.
        let full = b"GET / HTTP/1.1\r\nHost: a\r\n\r\n";
        let mut found = None;
        for n in 1..=full.len() {
            found = found.or(head_end(&full[..n], n - 1));
        }
        assert_eq!(found, Some(full.len()));
    }

    #[test]
    fn answers() {
        let ok = |p: &str| format!("GET {p} HTTP/1.1\r\nHost: 127.0.0.1:3000\r\n\r\n");
        assert_eq!(status(&ok("/")).0, "HTTP/1.1 200 OK");
        assert!(status(&ok("/en/a.html?x=1")).1.ends_with("page a"));
        assert_eq!(status(&ok("/en/nope.html")).0, "HTTP/1.1 404 Not Found");
        let (line, all) = status(&ok("/en"));
        assert_eq!(line, "HTTP/1.1 301 Moved Permanently");
        assert!(all.contains("Location: /en/\r\n"), "{all}");
        assert_eq!(status(&ok(EVENTS)).0, "events");
        // LF alone.
        assert_eq!(
            status("GET /en/ HTTP/1.1\nHost: localhost\n\n").0,
            "HTTP/1.1 200 OK"
        );
        // HEAD: the head without the body.
        let (line, all) = status("HEAD /en/a.html HTTP/1.1\r\nHost: localhost:1\r\n\r\n");
        assert_eq!(line, "HTTP/1.1 200 OK");
        assert!(all.ends_with("\r\n\r\n"), "{all}");
        assert_eq!(
            status("POST / HTTP/1.1\r\nHost: localhost\r\n\r\n").0,
            "HTTP/1.1 405 Method Not Allowed"
        );
        assert_eq!(status("garbage\r\n\r\n").0, "HTTP/1.1 400 Bad Request");
    }

    #[test]
    fn only_loopback_hosts_are_answered() {
        for host in ["127.0.0.1", "127.0.0.1:3000", "localhost", "LOCALHOST:80"] {
            let req = format!("GET / HTTP/1.1\r\nHost: {host}\r\n\r\n");
            assert_eq!(status(&req).0, "HTTP/1.1 200 OK", "{host}");
        }
        for host in [
            "evil.example",
            "evil.example:3000",
            "localhost.evil.example",
            "127.0.0.1.nip.io",
            "127.0.0.1:x",
            "",
        ] {
            let req = format!("GET / HTTP/1.1\r\nHost: {host}\r\n\r\n");
            assert_eq!(status(&req).0, "HTTP/1.1 403 Forbidden", "{host}");
        }
        assert_eq!(status("GET / HTTP/1.1\r\n\r\n").0, "HTTP/1.1 403 Forbidden");
        assert_eq!(
            status("GET / HTTP/1.1\r\nHost: localhost\r\nHost: evil\r\n\r\n").0,
            "HTTP/1.1 400 Bad Request"
        );
    }

    #[test]
    fn a_failed_event_cannot_be_ended_by_its_text() {
        let e = failed_event("error in spec/en/a\revent: fixed\rdata: x\r\n.md\nnext");
        assert_eq!(
            e,
            "event: failed\ndata: error in spec/en/a\ndata: event: fixed\ndata: data: x\ndata: .md\ndata: next\n\n"
        );
        // What an EventSource reads: every line a data line, one event.
        let lines: Vec<&str> = e.split(['\r', '\n']).filter(|l| !l.is_empty()).collect();
        assert!(lines[1..].iter().all(|l| l.starts_with("data: ")));
    }
}
