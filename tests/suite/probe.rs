//! The probe's parts that run anywhere (`kcontract-probe`, the `probe/` crate; in this crate's tests so
//! that `cargo test --locked` runs them): its parsers of `mountinfo`, `resolv.conf`, request heads and
//! its command line, and its HTTP server answering `/report`, `/healthz` and anything else.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};

use kcontract_probe::collect::{Options, collect};
use kcontract_probe::facts::{Facts, mount_of, parse_mountinfo, parse_resolv_conf};
use kcontract_probe::http::{parse_head, serve};
use kcontract_probe::run::{OnTerm, Then, parse};

#[test]
fn mountinfo_lines_are_parsed() {
    let text = "22 1 0:21 / / rw,relatime shared:1 - ext4 /dev/vda rw\n\
                30 22 0:30 / /tmp rw,nosuid - tmpfs tmpfs rw,mode=1777\n\
                31 22 0:31 / /with\\040space ro master:2 propagate_from:3 - tmpfs none ro\n\
                32 22 0:32 / /tmp rw - tmpfs tmpfs rw\n\
                garbage\n";
    let m = parse_mountinfo(text);
    assert_eq!(m.len(), 4);
    assert_eq!(m[0].propagation, ["shared:1"]);
    assert_eq!(m[1].mount_point, "/tmp");
    assert_eq!(m[1].super_options, ["rw", "mode=1777"]);
    assert_eq!(m[2].mount_point, "/with space");
    assert_eq!(m[2].propagation, ["master:2", "propagate_from:3"]);
    // Stacked mounts: the last one is the visible one.
    assert_eq!(mount_of(&m, "/tmp/x").unwrap().id, 32);
    assert_eq!(mount_of(&m, "/tmpx").unwrap().id, 22);
    assert_eq!(mount_of(&m, "/tmp").unwrap().id, 32);
}

#[test]
fn resolv_conf_is_parsed() {
    let r = parse_resolv_conf(
        "# c\nnameserver 10.96.0.10\nnameserver ::1 ; x\nsearch a.svc b\noptions ndots:5\n",
    );
    assert!(r.readable);
    assert_eq!(r.nameservers, ["10.96.0.10", "::1"]);
    assert_eq!(r.search, ["a.svc", "b"]);
    assert_eq!(r.options, ["ndots:5"]);
}

#[test]
fn request_heads_are_parsed() {
    let r = parse_head("GET /report?x=1 HTTP/1.1\r\nHost: a:1\r\nX-Y:  z \r\n\r\n").unwrap();
    assert_eq!(
        (r.method.as_str(), r.target.as_str()),
        ("GET", "/report?x=1")
    );
    assert_eq!(r.protocol, "HTTP/1.1");
    assert_eq!(
        r.headers,
        [("Host".into(), "a:1".into()), ("X-Y".into(), "z".into())]
    );
    for bad in [
        "GET / HTTP/2\r\n\r\n",
        "GET /\r\n\r\n",
        "GET / HTTP/1.1\r\nno colon\r\n\r\n",
        "",
    ] {
        assert!(parse_head(bad).is_none(), "{bad:?}");
    }
}

fn args(s: &str) -> Vec<String> {
    s.split_whitespace().map(str::to_owned).collect()
}

#[test]
fn command_lines_are_parsed() {
    let c = parse(&args(
        "report --then serve --on-term delay:3 --path /x --port-fallback 8080",
    ))
    .unwrap()
    .unwrap();
    assert!(c.report);
    assert_eq!(c.then, Then::Serve);
    assert_eq!(c.on_term, OnTerm::Delay(3));
    assert_eq!(c.paths, ["/x"]);
    assert_eq!(c.port_fallback, Some(8080));
    let s = parse(&args("serve --on-term ignore")).unwrap().unwrap();
    assert!(!s.report);
    assert_eq!((s.then, s.on_term), (Then::Serve, OnTerm::Ignore));
    for bad in [
        "",
        "run",
        "serve --then wait",
        "report --on-term never",
        "report --path rel",
        "report --port-fallback 0",
        "report --path",
    ] {
        assert!(parse(&args(bad)).is_err(), "{bad}");
    }
    assert_eq!(parse(&args("--help")), Ok(None));
}

fn exchange(port: u16, request: &str) -> String {
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.write_all(request.as_bytes()).unwrap();
    let mut out = String::new();
    s.read_to_string(&mut out).unwrap();
    out
}

/// `serve` answers `/report` with the facts and this request, `/healthz`, 404 and 400, and
/// closes every connection.
#[test]
fn the_server_answers_with_the_facts_and_the_request() {
    let facts = collect(&Options {
        mode: "serve".into(),
        ..Options::default()
    });
    let listener = TcpListener::bind(("127.0.0.1", 0)).unwrap();
    let port = listener.local_addr().unwrap().port();
    let shared = Arc::new(Mutex::new(facts.clone()));
    std::thread::spawn(move || serve(listener, shared, None));
    let r = exchange(
        port,
        "GET /report HTTP/1.1\r\nHost: probe\r\nThis-Was-User-Set: a value\r\n\r\n",
    );
    let (head, body) = r.split_once("\r\n\r\n").unwrap();
    assert!(head.starts_with("HTTP/1.1 200 OK\r\n"), "{head}");
    assert!(head.contains("Content-Type: application/json"));
    let served: Facts = serde_json::from_str(body.trim()).unwrap();
    let req = served.request.clone().unwrap();
    assert_eq!(
        (req.method.as_str(), req.protocol.as_str()),
        ("GET", "HTTP/1.1")
    );
    assert!(
        req.headers
            .contains(&("This-Was-User-Set".into(), "a value".into()))
    );
    assert!(req.peer.unwrap().starts_with("127.0.0.1:"));
    assert_eq!(
        Facts {
            request: None,
            ..served
        },
        facts
    );
    assert!(exchange(port, "GET /healthz HTTP/1.0\r\n\r\n").ends_with("\r\n\r\nok\n"));
    assert!(exchange(port, "GET /other HTTP/1.1\r\n\r\n").starts_with("HTTP/1.1 404 "));
    assert!(exchange(port, "nonsense\r\n\r\n").starts_with("HTTP/1.1 400 "));
}
