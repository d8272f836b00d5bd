//! A minimal HTTP/1.x server on `std::net`, a thread per connection: the platform terminates TLS
//! and speaks HTTP/1.1 to the container, which is all the probe needs to answer. `GET /report`
//! returns the facts with the request added, `GET /healthz` answers `ok` (for platforms' probes);
//! anything else is 404. Every response closes the connection.
//!
//! With a token (`KCONTRACT_PROBE_TOKEN`, [`crate::facts::TOKEN_ENV`]) `/report` answers only a
//! request carrying `Authorization: Bearer TOKEN` (401 otherwise); the echoed request never shows
//! an `Authorization` value.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::facts::{Facts, REDACTED, Request};

/// The longest request head read (request line and headers).
const MAX_HEAD: u64 = 64 * 1024;

/// Parses a request head (request line and headers, up to the empty line). `None` for anything
/// that is not an HTTP/1.x request.
pub fn parse_head(head: &str) -> Option<Request> {
    let mut lines = head.split('\n').map(|l| l.strip_suffix('\r').unwrap_or(l));
    let mut first = lines.next()?.split(' ');
    let (method, target, protocol) = (first.next()?, first.next()?, first.next()?);
    if first.next().is_some() || !protocol.starts_with("HTTP/1.") || method.is_empty() {
        return None;
    }
    let mut headers = Vec::new();
    for line in lines {
        if line.is_empty() {
            break;
        }
        let (name, value) = line.split_once(':')?;
        headers.push((name.to_owned(), value.trim().to_owned()));
    }
    Some(Request {
        method: method.to_owned(),
        target: target.to_owned(),
        protocol: protocol.to_owned(),
        headers,
        peer: None,
    })
}

/// Serves `listener` forever; each answer to `/report` is `facts()` with the request added, only to
/// a request bearing `token` when one is given.
pub fn serve(listener: TcpListener, facts: Arc<Mutex<Facts>>, token: Option<String>) {
    let token: Option<Arc<str>> = token.filter(|t| !t.is_empty()).map(Arc::from);
    for stream in listener.incoming().flatten() {
        let facts = Arc::clone(&facts);
        let token = token.clone();
        std::thread::spawn(move || {
            let _ = answer(stream, &facts, token.as_deref());
        });
    }
}

/// Whether `req` carries `Authorization: Bearer TOKEN` (compared in time independent of where the
/// first difference is).
fn authorized(req: &Request, token: &str) -> bool {
    req.headers.iter().any(|(name, value)| {
        name.eq_ignore_ascii_case("authorization")
            && value
                .strip_prefix("Bearer ")
                .is_some_and(|given| same(given.trim().as_bytes(), token.as_bytes()))
    })
}

fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

fn answer(stream: TcpStream, facts: &Mutex<Facts>, token: Option<&str>) -> std::io::Result<()> {
    stream.set_read_timeout(Some(Duration::from_secs(10)))?;
    let peer = stream.peer_addr().ok().map(|a| a.to_string());
    let mut reader = BufReader::new(stream.try_clone()?).take(MAX_HEAD);
    let mut head = String::new();
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line)? == 0 {
            break;
        }
        head.push_str(&line);
        if line == "\r\n" || line == "\n" {
            break;
        }
    }
    let (status, kind, body) = match parse_head(&head) {
        None => ("400 Bad Request", "text/plain", "bad request\n".to_owned()),
        Some(mut req) => {
            req.peer = peer;
            let path = req.target.split('?').next().unwrap_or("");
            let allowed = token.is_none_or(|t| authorized(&req, t));
            for (name, value) in &mut req.headers {
                if name.eq_ignore_ascii_case("authorization") {
                    *value = REDACTED.to_owned();
                }
            }
            match (req.method.as_str(), path) {
                ("GET", "/report") if !allowed => (
                    "401 Unauthorized\r\nWWW-Authenticate: Bearer",
                    "text/plain",
                    "a bearer token is required\n".to_owned(),
                ),
                ("GET", "/report") => {
                    let mut doc = facts
                        .lock()
                        .map_or_else(|p| p.into_inner().clone(), |f| f.clone());
                    doc.request = Some(req);
                    let body = serde_json::to_string(&doc).unwrap_or_default();
                    ("200 OK", "application/json", body + "\n")
                }
                ("GET", "/healthz") => ("200 OK", "text/plain", "ok\n".to_owned()),
                _ => ("404 Not Found", "text/plain", "not found\n".to_owned()),
            }
        }
    };
    let mut out = stream;
    write!(
        out,
        "HTTP/1.1 {status}\r\nContent-Type: {kind}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )?;
    out.flush()
}
