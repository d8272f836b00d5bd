//! Reaching a container from the host: an HTTP/1.1 request sent from inside its network namespace
//! (a thread of its own enters it with `setns`; a network namespace is per thread, so the rest of
//! the process stays where it is), and a pseudo-terminal for the control that makes standard
//! output a terminal.

use std::fs::File;
use std::io::{Read, Write};
use std::net::{Ipv4Addr, SocketAddr, TcpStream};
use std::os::fd::{AsFd, OwnedFd};
use std::os::unix::fs::OpenOptionsExt;
use std::time::{Duration, Instant};

use kcontract_oci::conformance::{HarnessError, IoContext};
use rustix::thread::{LinkNameSpaceType, move_into_link_name_space};

/// Why a request to a container did not get an answer (what a run records of its HTTP exchange).
#[derive(Debug, thiserror::Error)]
pub(super) enum RequestError {
    /// The process's network namespace could not be opened.
    #[error("cannot open the network namespace of process {pid}: {source}")]
    Namespace {
        /// The container's process.
        pid: i64,
        /// The error, with its kind.
        #[source]
        source: std::io::Error,
    },
    /// The request's thread could not enter it.
    #[error("cannot enter the container's network namespace: {0}")]
    Enter(#[source] std::io::Error),
    /// The request's thread panicked.
    #[error("the request thread panicked")]
    Panicked,
    /// No connection before the deadline.
    #[error("cannot connect to port {port}: {source}")]
    Connect {
        /// The port.
        port: u16,
        /// The last connection's error.
        #[source]
        source: std::io::Error,
    },
    /// The socket's timeouts could not be set.
    #[error("{0}")]
    Timeouts(#[source] std::io::Error),
    /// The request could not be sent.
    #[error("cannot send the request: {0}")]
    Send(#[source] std::io::Error),
    /// The response could not be read.
    #[error("cannot read the response: {0}")]
    Receive(#[source] std::io::Error),
    /// The answer is not HTTP (its first characters).
    #[error("not an HTTP response: {0:?}")]
    NotHttp(String),
}

/// A response: the status line, and the body.
#[derive(Debug, Clone)]
pub(super) struct Response {
    /// `HTTP/1.1 200 OK`.
    pub(super) status_line: String,
    /// Everything after the head.
    pub(super) body: String,
}

/// `GET path HTTP/1.1` to `127.0.0.1:port` inside the network namespace of host process `pid`,
/// retrying the connection for up to `wait` (the server may still be starting).
pub(super) fn get(
    pid: i64,
    port: u16,
    path: &str,
    wait: Duration,
) -> Result<Response, RequestError> {
    #[allow(clippy::disallowed_methods)] // /proc, the kernel's state
    let ns = File::open(format!("/proc/{pid}/ns/net"))
        .map_err(|source| RequestError::Namespace { pid, source })?;
    let path = path.to_owned();
    std::thread::scope(|s| {
        s.spawn(move || {
            move_into_link_name_space(ns.as_fd(), Some(LinkNameSpaceType::Network))
                .map_err(|e| RequestError::Enter(e.into()))?;
            exchange(port, &path, wait)
        })
        .join()
        .unwrap_or(Err(RequestError::Panicked))
    })
}

fn exchange(port: u16, path: &str, wait: Duration) -> Result<Response, RequestError> {
    let addr = SocketAddr::from((Ipv4Addr::LOCALHOST, port));
    let start = Instant::now();
    let mut stream = loop {
        match TcpStream::connect_timeout(&addr, Duration::from_secs(2)) {
            Ok(s) => break s,
            Err(e) if start.elapsed() < wait => {
                let _ = e;
                std::thread::sleep(Duration::from_millis(20));
            }
            Err(source) => return Err(RequestError::Connect { port, source }),
        }
    };
    let timeout = Some(Duration::from_secs(5));
    stream
        .set_read_timeout(timeout)
        .and_then(|()| stream.set_write_timeout(timeout))
        .map_err(RequestError::Timeouts)?;
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUser-Agent: kcontract\r\nConnection: close\r\n\r\n"
    )
    .map_err(RequestError::Send)?;
    let mut raw = Vec::new();
    stream
        .read_to_end(&mut raw)
        .map_err(RequestError::Receive)?;
    let text = String::from_utf8_lossy(&raw);
    let (head, body) = text
        .split_once("\r\n\r\n")
        .ok_or_else(|| RequestError::NotHttp(text.chars().take(80).collect()))?;
    Ok(Response {
        status_line: head.lines().next().unwrap_or_default().to_owned(),
        body: body.to_owned(),
    })
}

/// A pseudo-terminal: the controller side, and the terminal's own side to hand to a process.
pub(super) fn pty() -> Result<(OwnedFd, OwnedFd), HarnessError> {
    use rustix::pty::{OpenptFlags, grantpt, openpt, ptsname, unlockpt};
    let controller = openpt(OpenptFlags::RDWR | OpenptFlags::NOCTTY | OpenptFlags::CLOEXEC)
        .map_err(std::io::Error::from)
        .doing(|| "open a pseudo-terminal".into())?;
    grantpt(&controller)
        .and_then(|()| unlockpt(&controller))
        .map_err(std::io::Error::from)
        .doing(|| "unlock the pseudo-terminal".into())?;
    let name = ptsname(&controller, Vec::new())
        .map_err(std::io::Error::from)
        .doing(|| "name the pseudo-terminal (ptsname)".into())?;
    let terminal = File::options()
        .read(true)
        .write(true)
        // Never this process's controlling terminal.
        .custom_flags(rustix::fs::OFlags::NOCTTY.bits() as i32)
        .open(name.to_string_lossy().as_ref())
        .doing(|| format!("open {}", name.to_string_lossy()))?;
    Ok((controller, terminal.into()))
}
