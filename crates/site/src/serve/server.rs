//! The connections of `kcontract serve`: one thread, one readiness loop (mio: epoll on Linux,
//! kqueue on macOS) for every connection, so nothing a client does can take a thread from
//! another or from the rebuild loop.
//!
//! Why this design (docs/dependencies.md): a thread per connection ran out when the system
//! refused a thread (the accept loop panicked and the port closed), a client sending a byte every
//! few seconds held its thread for good, and pages that never read their event stream blocked the
//! rebuild loop, which wrote the events itself. Here every connection has a deadline for its whole
//! request head ([`HEAD_DEADLINE`]) and for its whole answer ([`ANSWER_DEADLINE`]); the number of
//! connections is bounded ([`MAX_CONNECTIONS`], the oldest unfinished request making room for a
//! new one) and so is the number of event streams ([`MAX_EVENT_STREAMS`], the oldest idle one
//! closed for a new one); the rebuild loop only queues an event and wakes this thread, which writes to each
//! event stream as far as its reader takes it, and drops a stream whose unread events pass
//! [`EVENT_BACKLOG`]. A request/response server crate (hyper with tokio) would bring an async
//! runtime for what is a small local server, and still need the event streams done by hand.

use std::collections::BTreeMap;
use std::io::{self, Read, Write};
use std::sync::{Arc, Mutex, PoisonError, RwLock};
use std::time::{Duration, Instant};

use mio::net::{TcpListener, TcpStream};
use mio::{Events, Interest, Poll, Token, Waker};
use serde::Serialize;

use super::http::{self, Answer, MAX_HEAD, Site};

/// The most connections open at once; past it, the oldest connection still sending its request
/// is closed to make room (an open browser tab holds one event stream and a few requests).
const MAX_CONNECTIONS: usize = 512;
/// The whole request head must arrive within this (not: each read), or the connection is closed.
const HEAD_DEADLINE: Duration = Duration::from_secs(10);
/// The whole answer must be taken within this (the largest file, the ×100 search index, is 3 MB).
const ANSWER_DEADLINE: Duration = Duration::from_secs(30);
/// After an answer, the client's end is read (and dropped) this long at most before closing, so
/// that closing with unread bytes does not reset the connection under the answer (RFC 9112 §9.6).
const LINGER: Duration = Duration::from_secs(2);
/// Event streams open at once; a new one past this closes the oldest idle one (nothing unsent),
/// else the oldest. Why: a stream has no end, and streams that never close (a client that opens
/// them and walks away) held every connection slot, so nothing new was served ([`make_room`]
/// closes only connections still waiting for their request); a browser tab holds one stream, and
/// 64 tabs on one local preview is far past any person's.
///
/// [`make_room`]: Server::make_room
const MAX_EVENT_STREAMS: usize = 64;
/// Unsent events one stream may hold; a page that reads none is dropped past this (a reload
/// event is a few KB, the diagnostics of a failed rebuild at most tens of KB).
const EVENT_BACKLOG: usize = 1 << 20;
/// A comment sent on every event stream this often: a page gone without closing its connection
/// (a machine asleep) is found and dropped.
const HEARTBEAT: Duration = Duration::from_secs(15);

const LISTENER: Token = Token(usize::MAX - 1);
const WAKE: Token = Token(usize::MAX - 2);

/// A running server, as the rebuild loop holds it (what the server thread and the loop share):
/// give it a new site or a failure to show. Made by [`start`].
pub struct Serving {
    site: RwLock<Arc<Site>>,
    /// The diagnostics of the failed rebuild the pages show, until a rebuild succeeds.
    failure: Mutex<Option<String>>,
    /// Events queued for every open event stream, sent by the server thread.
    outbox: Mutex<Vec<Arc<[u8]>>>,
    waker: Waker,
}

/// The `reload` event's data: the files whose bytes changed (or appeared, or went), and of those
/// the pages an open copy of which may update in place (see [`Serving::replace`]); any other
/// changed page reloads.
#[derive(Serialize)]
struct Reload<'a> {
    changed: Vec<&'a str>,
    swap: Vec<&'a str>,
}

impl Serving {
    /// Serve `site` from now on and tell the pages which files changed; returns how many did.
    /// `swap`: the change was of chapter files only, so a changed page differs only in what a
    /// chapter file makes of it (its title, the sidebar and the content; the header, the footer
    /// and the head come from contract.yaml, the templates and the interface text), and an open
    /// copy replaces those three in place (`templates/serve/reload.html`) instead of reloading:
    /// the reader keeps their place.
    pub fn replace(&self, site: Site, swap: bool) -> usize {
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
        let mut failure = self.failure.lock().unwrap_or_else(PoisonError::into_inner);
        let mut events = String::new();
        if failure.take().is_some() {
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
        // Queued under the failure's lock: a page subscribing meanwhile sees the state and the
        // events that follow it in order.
        self.broadcast(events.as_bytes());
        drop(failure);
        changed.len()
    }

    /// Keep serving the last good site; show `text` over the open pages (and any opened later).
    pub fn fail(&self, text: String) {
        let event = http::failed_event(&text);
        let mut failure = self.failure.lock().unwrap_or_else(PoisonError::into_inner);
        *failure = Some(text);
        self.broadcast(event.as_bytes());
    }

    /// Queue `event` for every open stream and wake the server thread; never waits for a page.
    fn broadcast(&self, event: &[u8]) {
        self.outbox
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(Arc::from(event));
        let _ = self.waker.wake();
    }

    /// The head of a new event stream and the current state (a failure being shown).
    fn stream_start(&self) -> Vec<u8> {
        let mut head = String::from(
            "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-store\r\n\
             Connection: keep-alive\r\n\r\nretry: 300\n\n",
        );
        if let Some(text) = &*self.failure.lock().unwrap_or_else(PoisonError::into_inner) {
            head.push_str(&http::failed_event(text));
        }
        head.into_bytes()
    }

    fn site(&self) -> Arc<Site> {
        Arc::clone(&self.site.read().unwrap_or_else(PoisonError::into_inner))
    }
}

/// Serve `site` on `listener` from a thread of its own; the returned state is how the rebuild
/// loop gives it new sites and failures. `on_error` is told when waiting for connections fails
/// (the loop goes on after a pause): the caller says so, the library does not print.
pub fn start(
    listener: std::net::TcpListener,
    site: Site,
    on_error: impl Fn(&io::Error) + Send + 'static,
) -> io::Result<Arc<Serving>> {
    listener.set_nonblocking(true)?;
    let mut listener = TcpListener::from_std(listener);
    let poll = Poll::new()?;
    poll.registry()
        .register(&mut listener, LISTENER, Interest::READABLE)?;
    let shared = Arc::new(Serving {
        site: RwLock::new(Arc::new(site)),
        failure: Mutex::new(None),
        outbox: Mutex::new(Vec::new()),
        waker: Waker::new(poll.registry(), WAKE)?,
    });
    let mut server = Server {
        poll,
        listener,
        shared: Arc::clone(&shared),
        conns: BTreeMap::new(),
        next: 0,
        accept_again: false,
        heartbeat: Instant::now() + HEARTBEAT,
        on_error: Box::new(on_error),
    };
    std::thread::Builder::new()
        .name("kcontract-serve-http".into())
        .spawn(move || server.run())?;
    Ok(shared)
}

/// One connection and where it is.
struct Conn {
    stream: TcpStream,
    state: State,
    /// When it must be done with its state, if ever (event streams have no end).
    deadline: Option<Instant>,
    /// When it was accepted: the oldest unfinished request makes room first.
    since: Instant,
}

enum State {
    /// Reading the request head; `scanned` bytes of it were looked at for its end already.
    Reading { buf: Vec<u8>, scanned: usize },
    /// Sending an answer: the head, then the body; `sent` bytes of both so far.
    Answering {
        head: Vec<u8>,
        body: Option<Arc<[u8]>>,
        sent: usize,
    },
    /// An event stream: bytes queued and not yet taken by the page.
    Events { queued: Vec<u8>, sent: usize },
    /// Answered and shut for writing: the client's bytes are read and dropped until it closes.
    Lingering,
}

/// What became of a connection after some work on it.
enum Next {
    Keep,
    Close,
}

struct Server {
    poll: Poll,
    listener: TcpListener,
    shared: Arc<Serving>,
    conns: BTreeMap<usize, Conn>,
    next: usize,
    /// Accepting stopped (no descriptor left, or full): try again on the next turn.
    accept_again: bool,
    heartbeat: Instant,
    /// Told when waiting for connections fails ([`start`]).
    on_error: Box<dyn Fn(&io::Error) + Send>,
}

impl Server {
    fn run(&mut self) {
        let mut events = Events::with_capacity(256);
        loop {
            let timeout = self.timeout();
            if let Err(e) = self.poll.poll(&mut events, Some(timeout))
                && e.kind() != io::ErrorKind::Interrupted
            {
                (self.on_error)(&e);
                std::thread::sleep(Duration::from_millis(50));
                continue;
            }
            for ev in events.iter() {
                match ev.token() {
                    LISTENER => self.accept(),
                    WAKE => {}
                    Token(id) => self.work(id),
                }
            }
            self.send_queued();
            self.expire();
            if self.accept_again {
                self.accept();
            }
        }
    }

    /// How long the next wait may be: until the nearest deadline or heartbeat.
    fn timeout(&self) -> Duration {
        let now = Instant::now();
        let mut until = self.heartbeat;
        for c in self.conns.values() {
            if let Some(d) = c.deadline {
                until = until.min(d);
            }
        }
        let wait = until.saturating_duration_since(now);
        if self.accept_again {
            wait.min(Duration::from_millis(50))
        } else {
            wait
        }
    }

    fn accept(&mut self) {
        self.accept_again = false;
        loop {
            if self.conns.len() >= MAX_CONNECTIONS && !self.make_room() {
                self.accept_again = true;
                return;
            }
            match self.listener.accept() {
                Ok((mut stream, _)) => {
                    let _ = stream.set_nodelay(true);
                    let id = self.next_id();
                    let interest = Interest::READABLE | Interest::WRITABLE;
                    if self
                        .poll
                        .registry()
                        .register(&mut stream, Token(id), interest)
                        .is_err()
                    {
                        continue;
                    }
                    let now = Instant::now();
                    self.conns.insert(
                        id,
                        Conn {
                            stream,
                            state: State::Reading {
                                buf: Vec::new(),
                                scanned: 0,
                            },
                            deadline: Some(now + HEAD_DEADLINE),
                            since: now,
                        },
                    );
                    // Data may have come with the connection (edge-triggered: no event for it).
                    self.work(id);
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) if e.kind() == io::ErrorKind::ConnectionAborted => {}
                Err(_) => {
                    // Out of file descriptors, most likely: free one, try again shortly.
                    self.make_room();
                    self.accept_again = true;
                    return;
                }
            }
        }
    }

    /// Close the connection that has waited longest for its request head; `false` if none is.
    fn make_room(&mut self) -> bool {
        let oldest = self
            .conns
            .iter()
            .filter(|(_, c)| matches!(c.state, State::Reading { .. } | State::Lingering))
            .min_by_key(|(_, c)| c.since)
            .map(|(id, _)| *id);
        match oldest {
            Some(id) => {
                self.conns.remove(&id);
                true
            }
            None => false,
        }
    }

    fn next_id(&mut self) -> usize {
        loop {
            self.next = (self.next + 1) % (usize::MAX - 16);
            if !self.conns.contains_key(&self.next) {
                return self.next;
            }
        }
    }

    /// Move connection `id` on as far as it goes without waiting.
    fn work(&mut self, id: usize) {
        let Some(mut conn) = self.conns.remove(&id) else {
            return;
        };
        let was_stream = matches!(conn.state, State::Events { .. });
        if let Next::Keep = self.step(&mut conn) {
            let is_stream = matches!(conn.state, State::Events { .. });
            self.conns.insert(id, conn);
            if is_stream && !was_stream {
                self.bound_streams(id);
            }
        }
    }

    /// Close event streams (never `keep`, the new one) until at most [`MAX_EVENT_STREAMS`] are
    /// open: the oldest idle one first (all its events sent), else the oldest.
    fn bound_streams(&mut self, keep: usize) {
        loop {
            let streams: Vec<(usize, Instant, bool)> = self
                .conns
                .iter()
                .filter(|(id, _)| **id != keep)
                .filter_map(|(id, c)| match &c.state {
                    State::Events { queued, sent } => Some((*id, c.since, *sent >= queued.len())),
                    _ => None,
                })
                .collect();
            if streams.len() < MAX_EVENT_STREAMS {
                return;
            }
            let oldest = streams
                .iter()
                .filter(|s| s.2)
                .min_by_key(|s| s.1)
                .or_else(|| streams.iter().min_by_key(|s| s.1))
                .map(|s| s.0);
            match oldest {
                Some(id) => {
                    self.conns.remove(&id);
                }
                None => return,
            }
        }
    }

    fn step(&self, conn: &mut Conn) -> Next {
        loop {
            match &mut conn.state {
                State::Reading { buf, scanned } => {
                    let mut chunk = [0u8; 4096];
                    match conn.stream.read(&mut chunk) {
                        Ok(0) => return Next::Close,
                        Ok(n) => {
                            buf.extend_from_slice(&chunk[..n]);
                            let answer = match http::head_end(buf, *scanned) {
                                Some(end) if end > MAX_HEAD => Some(http::too_large()),
                                Some(end) => Some(http::answer(&buf[..end], &self.shared.site())),
                                None if buf.len() > MAX_HEAD => Some(http::too_large()),
                                None => {
                                    *scanned = buf.len();
                                    None
                                }
                            };
                            match answer {
                                Some(Answer::Reply(head, body)) => {
                                    conn.state = State::Answering {
                                        head,
                                        body,
                                        sent: 0,
                                    };
                                    conn.deadline = Some(Instant::now() + ANSWER_DEADLINE);
                                }
                                Some(Answer::Events) => {
                                    conn.state = State::Events {
                                        queued: self.shared.stream_start(),
                                        sent: 0,
                                    };
                                    conn.deadline = None;
                                }
                                None => {}
                            }
                        }
                        Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Next::Keep,
                        Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                        Err(_) => return Next::Close,
                    }
                }
                State::Answering { head, body, sent } => {
                    let total = head.len() + body.as_ref().map_or(0, |b| b.len());
                    while *sent < total {
                        let rest: &[u8] = if *sent < head.len() {
                            &head[*sent..]
                        } else {
                            &body.as_ref().map_or(&[][..], |b| &b[..])[*sent - head.len()..]
                        };
                        match conn.stream.write(rest) {
                            Ok(0) => return Next::Close,
                            Ok(n) => *sent += n,
                            Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Next::Keep,
                            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                            Err(_) => return Next::Close,
                        }
                    }
                    let _ = conn.stream.shutdown(std::net::Shutdown::Write);
                    conn.state = State::Lingering;
                    conn.deadline = Some(Instant::now() + LINGER);
                }
                State::Events { .. } => return self.events_step(conn),
                State::Lingering => {
                    let mut chunk = [0u8; 4096];
                    match conn.stream.read(&mut chunk) {
                        Ok(0) => return Next::Close,
                        Ok(_) => {}
                        Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Next::Keep,
                        Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                        Err(_) => return Next::Close,
                    }
                }
            }
        }
    }

    /// An event stream: drop what the page sends (a closed page ends it), send what is queued.
    fn events_step(&self, conn: &mut Conn) -> Next {
        let mut chunk = [0u8; 1024];
        loop {
            match conn.stream.read(&mut chunk) {
                Ok(0) => return Next::Close,
                Ok(_) => {}
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(_) => return Next::Close,
            }
        }
        flush_events(conn)
    }

    /// Give every event stream what the rebuild loop queued, as far as each page takes it.
    fn send_queued(&mut self) {
        let mut queued = std::mem::take(
            &mut *self
                .shared
                .outbox
                .lock()
                .unwrap_or_else(PoisonError::into_inner),
        );
        let now = Instant::now();
        if now >= self.heartbeat {
            queued.push(Arc::from(&b": heartbeat\n\n"[..]));
            self.heartbeat = now + HEARTBEAT;
        }
        if queued.is_empty() {
            return;
        }
        let mut closed = Vec::new();
        for (id, conn) in &mut self.conns {
            let State::Events { queued: q, sent } = &mut conn.state else {
                continue;
            };
            if *sent > 0 {
                q.drain(..*sent);
                *sent = 0;
            }
            for ev in &queued {
                q.extend_from_slice(ev);
            }
            if q.len() > EVENT_BACKLOG {
                closed.push(*id);
                continue;
            }
            if let Next::Close = flush_events(conn) {
                closed.push(*id);
            }
        }
        for id in closed {
            self.conns.remove(&id);
        }
    }

    /// Close the connections past their deadline.
    fn expire(&mut self) {
        let now = Instant::now();
        self.conns.retain(|_, c| c.deadline.is_none_or(|d| d > now));
    }
}

/// Write an event stream's queued bytes until the page stops taking them.
fn flush_events(conn: &mut Conn) -> Next {
    let State::Events { queued, sent } = &mut conn.state else {
        return Next::Keep;
    };
    while *sent < queued.len() {
        match conn.stream.write(&queued[*sent..]) {
            Ok(0) => return Next::Close,
            Ok(n) => *sent += n,
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Next::Keep,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(_) => return Next::Close,
        }
    }
    queued.clear();
    *sent = 0;
    Next::Keep
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{BufRead, BufReader};
    use std::net::TcpStream as StdStream;

    fn serve() -> (Arc<Serving>, std::net::SocketAddr) {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let mut site = Site::new();
        site.insert("index.html".into(), Arc::from(&b"hello"[..]));
        (start(listener, site, |_| {}).unwrap(), addr)
    }

    fn events(addr: std::net::SocketAddr) -> StdStream {
        let mut s = StdStream::connect(addr).unwrap();
        s.write_all(b"GET /__kcontract/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            .unwrap();
        s
    }

    fn get(addr: std::net::SocketAddr) -> String {
        let mut s = StdStream::connect(addr).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
        s.write_all(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            .unwrap();
        let mut out = String::new();
        let _ = s.read_to_string(&mut out);
        out
    }

    /// Pages that never read their event stream hold no one up: the rebuild loop's `fail` and
    /// `replace` return at once although every one of their streams is full, a page that reads gets
    /// each event at once, requests are answered, and the stuck streams are dropped. Before the
    /// readiness loop the rebuild loop wrote to every stream itself and waited up to 10 s on each.
    #[test]
    fn pages_that_never_read_block_nothing() {
        let (shared, addr) = serve();
        let stuck: Vec<StdStream> = (0..5).map(|_| events(addr)).collect();
        let mut reader = BufReader::new(events(addr));
        reader
            .get_mut()
            .set_read_timeout(Some(Duration::from_secs(5)))
            .unwrap();
        // Far more than the stuck streams' socket buffers hold (8 × 900 KB).
        let text = "x".repeat(900 * 1024);
        for round in 0..8 {
            let start = Instant::now();
            shared.fail(format!("{round} {text}"));
            assert!(
                start.elapsed() < Duration::from_secs(1),
                "fail() waited {:?}",
                start.elapsed()
            );
            let got = Instant::now();
            let mut line = String::new();
            loop {
                line.clear();
                reader.read_line(&mut line).unwrap();
                if line.starts_with(&format!("data: {round} ")) {
                    break;
                }
            }
            assert!(
                got.elapsed() < Duration::from_secs(1),
                "{:?}",
                got.elapsed()
            );
            assert!(get(addr).ends_with("hello"));
        }
        let start = Instant::now();
        assert_eq!(shared.replace(Site::new(), false), 1);
        assert!(start.elapsed() < Duration::from_secs(1));
        drop(stuck);
    }

    /// Event streams that never close lock no one out: with more open than every connection slot
    /// ([`MAX_CONNECTIONS`] + 1, all idle), a new stream still gets its head and a page is still
    /// answered, and the oldest stream was closed to make room. Before the bound, the 513th
    /// connection waited for ever.
    #[test]
    fn streams_that_never_close_are_bounded_and_the_oldest_idle_one_dropped() {
        let (_shared, addr) = serve();
        let head = |s: &mut StdStream| {
            s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
            let mut r = BufReader::new(s);
            let mut line = String::new();
            let _ = r.read_line(&mut line);
            line
        };
        let mut first = events(addr);
        assert!(head(&mut first).starts_with("HTTP/1.1 200"));
        let open: Vec<StdStream> = (0..MAX_CONNECTIONS).map(|_| events(addr)).collect();
        let mut new = events(addr);
        assert!(
            head(&mut new).starts_with("HTTP/1.1 200"),
            "a new stream is served"
        );
        assert!(get(addr).ends_with("hello"), "a page is served");
        // The first stream was closed: its read ends (after its head, nothing more is sent but a
        // heartbeat every 15 s, so an open one would time out instead).
        first
            .set_read_timeout(Some(Duration::from_secs(5)))
            .unwrap();
        let mut rest = Vec::new();
        let ended = first.read_to_end(&mut rest);
        assert!(ended.is_ok(), "the oldest stream is still open: {ended:?}");
        drop(open);
    }

    /// A client that sends a byte now and then is closed when its whole request head is late, not
    /// kept as long as each byte comes within a timeout.
    #[test]
    fn a_trickling_request_is_closed_at_its_deadline() {
        let (_shared, addr) = serve();
        let mut s = StdStream::connect(addr).unwrap();
        s.set_read_timeout(Some(Duration::from_millis(200)))
            .unwrap();
        let start = Instant::now();
        let closed = loop {
            if start.elapsed() > HEAD_DEADLINE + Duration::from_secs(3) {
                break false;
            }
            if s.write_all(b"G").is_err() {
                break true;
            }
            let mut b = [0u8; 16];
            match s.read(&mut b) {
                Ok(0) => break true,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
                Err(e) if e.kind() == io::ErrorKind::TimedOut => {}
                _ => break true,
            }
            std::thread::sleep(Duration::from_millis(800));
        };
        assert!(closed, "still open after {:?}", start.elapsed());
        assert!(start.elapsed() >= HEAD_DEADLINE - Duration::from_millis(500));
    }
}
