//! `kcontract platform verify` against fake ingresses on 127.0.0.1: each a thread of this test
//! that answers `/report` the way a Knative ingress in front of the probe would (the probe's own
//! facts, as a probe reported them under runc (tests/fixtures/deployed), with the request as it reached the "container"). One conforms
//! and passes every request-side clause; each of the others breaks one thing a platform can get
//! wrong, and must fail exactly that clause. Then the ways a URL is not a probe.

use std::collections::BTreeSet;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{IpAddr, SocketAddr, TcpListener, TcpStream};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use kcontract_probe::facts::{Facts, Ids};
use kcontract_probe::http::parse_head;
use rustls::pki_types::{PrivateKeyDer, PrivatePkcs8KeyDer};
use serde_json::Value;

use crate::common::cli::{kcontract, root};
use crate::common::platform_reports::clause as clause_of;

/// What a fake ingress gets wrong.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Fault {
    /// Nothing: a conforming ingress.
    None,
    /// It drops the user's header.
    DropsUserHeader,
    /// It sends the container its own name for the Service as `Host`.
    WrongHost,
    /// It sets no `Forwarded`.
    NoForwarded,
    /// It sets `Forwarded` to a bare address, not RFC 7239 pairs.
    BadForwarded,
    /// It sets no `X-Forwarded-For` / `X-Forwarded-Proto`.
    NoXForwarded,
    /// It drops `traceparent`.
    DropsTraceparent,
    /// It starts a new trace instead of continuing the client's.
    NewTrace,
    /// It ignores `Upgrade: h2c`.
    NoH2c,
    /// The probe's PORT is not the profile's default.
    WrongPort,
    /// The probe runs as root, not the image's user.
    RootUser,
    /// Over https: the request reaches the probe as HTTP/2, not turned into HTTP/1.1.
    NoProtocolTransformation,
}

/// The facts of the probe "behind" the ingresses: what a probe reported under runc as the
/// reference platform runs the kit's Service (tests/fixtures/deployed/README.md): every check of the
/// deployed route passes on them.
fn facts() -> &'static Facts {
    static FACTS: OnceLock<Facts> = OnceLock::new();
    FACTS.get_or_init(|| {
        let text =
            std::fs::read_to_string(root().join("tests/fixtures/deployed/report.json")).unwrap();
        serde_json::from_str(&text).unwrap()
    })
}

/// Reads a request head from `s`.
pub(crate) fn read_head(s: impl Read) -> String {
    let mut reader = BufReader::new(s);
    let mut head = String::new();
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            break;
        }
        head.push_str(&line);
        if line == "\r\n" || line == "\n" {
            break;
        }
    }
    head
}

pub(crate) fn respond(mut s: impl Write, status: &str, body: &str) {
    let _ = write!(
        s,
        "HTTP/1.1 {status}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
}

/// Serves `answer` on a fresh port of 127.0.0.1, a connection at a time, for the rest of the test
/// binary's life.
pub(crate) fn serve(answer: impl Fn(TcpStream) + Send + 'static) -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        for s in listener.incoming().flatten() {
            answer(s);
        }
    });
    addr
}

/// A fake ingress in front of the probe, with `fault`.
pub(crate) fn ingress(fault: Fault) -> SocketAddr {
    serve(move |s| {
        let client = s.peer_addr().unwrap().ip();
        answer(s, client, "http", fault);
    })
}

/// Answers one request on `s` as an ingress with `fault` would: `client` is the peer's address,
/// `scheme` the one the client used (what `Forwarded` and `X-Forwarded-Proto` say).
fn answer(mut s: impl Read + Write, client: IpAddr, scheme: &str, fault: Fault) {
    {
        let head = read_head(&mut s);
        let Some(mut req) = parse_head(&head) else {
            return respond(s, "400 Bad Request", "");
        };
        let has = |r: &kcontract_probe::facts::Request, n: &str| {
            r.headers.iter().any(|(k, _)| k.eq_ignore_ascii_case(n))
        };
        if has(&req, "Upgrade") && fault != Fault::NoH2c {
            let _ = write!(
                s,
                "HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: h2c\r\n\r\n"
            );
            return;
        }
        let client = client.to_string();
        let drop: &[&str] = match fault {
            Fault::DropsUserHeader => &["This-Was-User-Set"],
            Fault::DropsTraceparent => &["traceparent"],
            Fault::NewTrace => &["traceparent"],
            Fault::WrongHost => &["Host"],
            _ => &[],
        };
        req.headers
            .retain(|(k, _)| !drop.iter().any(|d| k.eq_ignore_ascii_case(d)));
        let mut add = |k: &str, v: String| req.headers.push((k.to_owned(), v));
        match fault {
            Fault::WrongHost => add("Host", "kcontract-probe.default.svc.cluster.local".into()),
            Fault::NewTrace => add(
                "traceparent",
                "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01".into(),
            ),
            _ => {}
        }
        match fault {
            Fault::NoForwarded => {}
            Fault::BadForwarded => add("Forwarded", client.clone()),
            _ => add("Forwarded", format!("for={client};proto={scheme}")),
        }
        if fault != Fault::NoXForwarded {
            add("X-Forwarded-For", client);
            add("X-Forwarded-Proto", scheme.into());
        }
        add("K-Proxy-Request", "activator".into());
        req.peer = Some("10.0.0.5:41234".into());
        let mut doc = facts().clone();
        match fault {
            Fault::WrongPort => {
                doc.env.insert("PORT".into(), "9090".into());
            }
            Fault::RootUser => {
                doc.process.uid = Some(Ids {
                    real: 0,
                    effective: 0,
                    saved: 0,
                    filesystem: 0,
                });
            }
            Fault::NoProtocolTransformation => req.protocol = "HTTP/2.0".into(),
            _ => {}
        }
        doc.request = Some(req);
        respond(s, "200 OK", &serde_json::to_string(&doc).unwrap());
    }
}

/// `platform verify --url URL` with the reference profile: exit code, stdout, stderr, the report.
fn verify(url: &str, extra: &[&str]) -> (i32, String, String, Option<Value>) {
    let dir = tempfile::tempdir().unwrap();
    verify_with(
        "platforms/knative-reference.yaml",
        url,
        &dir.path().join("r.json"),
        extra,
    )
}

/// `platform verify --url URL` with `profile`, the report written to `report`: exit code, stdout,
/// stderr, the report.
pub(crate) fn verify_with(
    profile: &str,
    url: &str,
    report: &std::path::Path,
    extra: &[&str],
) -> (i32, String, String, Option<Value>) {
    let mut args = vec![
        "--spec",
        "spec",
        "platform",
        "verify",
        "--url",
        url,
        "--profile",
        profile,
        "--report",
        report.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    let (code, out, err) = kcontract(&root(), &args);
    let value = std::fs::read(report)
        .ok()
        .map(|b| serde_json::from_slice(&b).unwrap());
    (code, out, err, value)
}

/// The clauses of `report` with `status`.
pub(crate) fn with_status(report: &Value, status: &str) -> BTreeSet<String> {
    report["clauses"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["status"] == status)
        .map(|c| c["id"].as_str().unwrap().to_owned())
        .collect()
}

/// The clauses verify passes on a conforming platform over http without a log: every clause of
/// the deployed route but the lifecycle (from the log) and https termination (an https URL).
fn judged() -> BTreeSet<String> {
    kcontract_platform::checks::on(kcontract_platform::routes::Route::Deployed)
        .map(|c| c.clause.to_owned())
        .filter(|c| !c.starts_with("lifecycle.sig") && c != "network.ports.https-termination")
        .collect()
}

/// The port of `text`'s 127.0.0.1 addresses replaced, for snapshots.
fn redact(text: &str, addr: SocketAddr) -> String {
    text.replace(&addr.port().to_string(), "PORT")
}

#[test]
fn a_conforming_ingress_passes_every_request_side_clause() {
    let addr = ingress(Fault::None);
    let (code, out, err, report) = verify(&format!("http://{addr}"), &[]);
    assert_eq!(code, 0, "{out}{err}");
    let r = report.expect("a report");
    let schema: Value = serde_json::from_str(
        &std::fs::read_to_string(root().join("docs/run-report.schema.json")).unwrap(),
    )
    .unwrap();
    let validator = jsonschema::draft202012::new(&schema).unwrap();
    let problems: Vec<String> = validator.iter_errors(&r).map(|e| e.to_string()).collect();
    assert!(problems.is_empty(), "{problems:?}");
    assert_eq!(r["platform"]["kind"], "verify");
    assert_eq!(r["platform"]["runtime"], "127.0.0.1");
    let want = judged();
    assert!(want.len() >= 26, "{want:?}");
    assert_eq!(with_status(&r, "pass"), want);
    assert!(with_status(&r, "fail").is_empty());
    let clause = |id: &str| clause_of(&r, id).clone();
    // Evidence: the values seen.
    assert_eq!(
        clause("network.headers.host")["evidence"]["received"],
        addr.to_string()
    );
    assert_eq!(
        clause("network.headers.forwarded")["evidence"]["received"],
        "for=127.0.0.1;proto=http"
    );
    // What verify cannot judge says why.
    for id in [
        "network.headers.stripped-common-prefix",
        "network.ports.https-termination",
    ] {
        let c = clause(id);
        assert_eq!(c["status"], "not-run", "{id}");
        assert!(!c["message"].as_str().unwrap().is_empty());
    }
    insta::assert_snapshot!(redact(&out, addr));
}

#[test]
fn each_broken_ingress_fails_exactly_its_clause() {
    let cases = [
        (Fault::DropsUserHeader, "network.headers.preserve-inbound"),
        (Fault::WrongHost, "network.headers.host"),
        (Fault::NoForwarded, "network.headers.forwarded"),
        (Fault::BadForwarded, "network.headers.forwarded"),
        (Fault::NoXForwarded, "network.headers.x-forwarded"),
        (Fault::DropsTraceparent, "network.headers.tracing"),
        (Fault::NewTrace, "network.headers.tracing"),
        (Fault::NoH2c, "network.ports.h2c-upgrade"),
        (Fault::WrongPort, "network.ports.default-port"),
        (Fault::RootUser, "config.user.platform-default"),
    ];
    for (fault, clause) in cases {
        let addr = ingress(fault);
        let (code, out, err, report) = verify(&format!("http://{addr}"), &[]);
        let r = report.unwrap_or_else(|| panic!("{fault:?}: no report\n{out}{err}"));
        let failed = with_status(&r, "fail");
        assert_eq!(
            failed,
            BTreeSet::from([clause.to_owned()]),
            "{fault:?}\n{out}"
        );
        let blocks = clause.starts_with("network.headers.host")
            || clause.starts_with("network.headers.forwarded")
            || clause == "network.ports.default-port"
            || clause == "config.user.platform-default";
        assert_eq!(code, i32::from(blocks), "{fault:?}: {out}{err}");
        assert!(out.contains("fail "), "{out}");
    }
}

#[test]
fn h2c_is_not_applicable_without_the_feature() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(root().join("platforms/knative-reference.yaml")).unwrap();
    let profile = dir.path().join("p.yaml");
    std::fs::write(
        &profile,
        text.replace("features: [h2c-upgrade, https]", "features: [https]"),
    )
    .unwrap();
    let addr = ingress(Fault::NoH2c);
    let (code, out, err, r) = verify_with(
        profile.to_str().unwrap(),
        &format!("http://{addr}/"),
        &dir.path().join("r.json"),
        &[],
    );
    assert_eq!(code, 0, "{out}{err}");
    let r = r.expect("a report");
    assert!(with_status(&r, "n/a").contains("network.ports.h2c-upgrade"));
    assert!(with_status(&r, "fail").is_empty());
}

/// A port nothing listens on.
fn closed_port() -> SocketAddr {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    l.local_addr().unwrap()
}

#[test]
fn k1130_connection_refused() {
    let addr = closed_port();
    let (code, out, err, report) = verify(&format!("http://{addr}"), &[]);
    assert_eq!((code, report.is_none()), (1, true), "{out}{err}");
    insta::assert_snapshot!(redact(&err, addr));
}

#[test]
fn k1131_no_answer_in_time() {
    let addr = serve(|s| {
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_secs(5));
            drop(s);
        });
    });
    let (code, out, err, report) = verify(&format!("http://{addr}"), &["--timeout", "1"]);
    assert_eq!((code, report.is_none()), (1, true), "{out}{err}");
    insta::assert_snapshot!(redact(&err, addr));
}

#[test]
fn k1132_not_a_probe() {
    let answers: [(&str, &str, &str); 5] = [
        ("404", "404 Not Found", "not found\n"),
        (
            "redirect",
            "308 Permanent Redirect\r\nLocation: https://probe.example.com/report",
            "",
        ),
        ("html", "200 OK", "<html>hello</html>"),
        ("other-format", "200 OK", "{\"format\":\"kcontract-run/1\"}"),
        ("not-serving", "200 OK", ""),
    ];
    let mut all = String::new();
    for (name, status, body) in answers {
        let body = if name == "not-serving" {
            serde_json::to_string(facts()).unwrap()
        } else {
            body.to_owned()
        };
        let addr = serve(move |s| {
            read_head(&s);
            respond(s, status, &body);
        });
        let (code, out, err, report) = verify(&format!("http://{addr}"), &[]);
        assert_eq!((code, report.is_none()), (1, true), "{name}: {out}{err}");
        all.push_str(&format!("--- {name}\n{}", redact(&err, addr)));
    }
    insta::assert_snapshot!(all);
}

#[test]
fn usage_errors() {
    for (args, needle) in [
        (
            vec!["--url", "ftp://probe.example.com"],
            "neither http nor https",
        ),
        (
            vec!["--url", "http://127.0.0.1:1", "--ca-cert", "ca.pem"],
            "--ca-cert without an https:// URL",
        ),
        (
            vec![
                "--url",
                "https://127.0.0.1:1",
                "--host",
                "probe.example.com",
            ],
            "--host with an https:// URL",
        ),
        (
            vec!["--url", "http://127.0.0.1:1", "--host", "a b"],
            "is not a host name",
        ),
        (
            vec!["--events", "log.txt", "--host", "probe.example.com"],
            "--host and --token-file go with --url",
        ),
        (vec!["--url", "not a url"], "is not a URL"),
        (vec!["--url", "probe.example.com"], "has no scheme"),
        (
            vec!["--url", "http://127.0.0.1:1", "--timeout", "0"],
            "--timeout 0",
        ),
    ] {
        let mut all = vec!["--spec", "spec", "platform", "verify"];
        all.extend(args);
        all.extend([
            "--profile",
            "platforms/knative-reference.yaml",
            "--report",
            "/nonexistent/r.json",
        ]);
        let (code, out, err) = kcontract(&root(), &all);
        assert_eq!(code, 2, "{out}{err}");
        assert!(err.contains(needle), "{err}");
    }
}

/// `kcontract [GLOBAL…] platform verify` of a closed port with the reference profile, run in `dir`.
fn verify_a_closed_port(dir: &std::path::Path, global: &[&str]) -> (i32, String, String) {
    let profile = root().join("platforms/knative-reference.yaml");
    let url = format!("http://{}", closed_port());
    let args = [
        "platform",
        "verify",
        "--url",
        &url,
        "--profile",
        profile.to_str().unwrap(),
        "--report",
        "r.json",
    ];
    kcontract(dir, &[global, &args[..]].concat())
}

/// Run from a folder outside the repository with no spec folder, as a platform team runs it:
/// verify judges against the contract built into the binary and goes as far as the request (here
/// to a closed port: K1130), never stopping at a missing `spec/` (K0003).
#[test]
fn outside_the_repository_verify_uses_the_built_in_contract() {
    let dir = tempfile::tempdir().unwrap();
    let (code, out, err) = verify_a_closed_port(dir.path(), &[]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(err.contains("error[K1130]"), "{err}");
    assert!(!err.contains("K0003"), "{err}");
}

#[test]
fn k1108_a_verify_against_a_spec_lacking_a_checked_clause() {
    let dir = tempfile::tempdir().unwrap();
    crate::common::cli::spec_with_clause_renamed(
        dir.path(),
        "network-environment",
        "network.headers.host",
        "network.headers.host-header",
    );
    let (code, out, err) = verify_a_closed_port(dir.path(), &["--spec", "spec"]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        err.contains(
            "error[K1108]: `spec` (Knative Runtime Contract 0.1.0) lacks 1 of the 29 clauses `platform verify` judges: `network.headers.host`"
        ),
        "{err}"
    );
    assert!(!dir.path().join("r.json").exists());
}

/// A certificate authority minted for a test, and certificates it signs.
pub(crate) struct Ca {
    issuer: rcgen::CertifiedIssuer<'static, rcgen::KeyPair>,
}

impl Ca {
    pub(crate) fn new(name: &str) -> Ca {
        let mut params = rcgen::CertificateParams::new(Vec::<String>::new()).unwrap();
        params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
        params
            .distinguished_name
            .push(rcgen::DnType::CommonName, name);
        let key = rcgen::KeyPair::generate().unwrap();
        Ca {
            issuer: rcgen::CertifiedIssuer::self_signed(params, key).unwrap(),
        }
    }

    /// The CA's certificate as a PEM file in `dir`.
    pub(crate) fn pem_file(&self, dir: &std::path::Path) -> String {
        let p = dir.join("ca.pem");
        std::fs::write(&p, self.issuer.pem()).unwrap();
        p.to_str().unwrap().to_owned()
    }

    /// A server configuration with a certificate for `names` signed by this CA.
    pub(crate) fn server(&self, names: &[&str]) -> Arc<rustls::ServerConfig> {
        let params = rcgen::CertificateParams::new(
            names.iter().map(|n| (*n).to_owned()).collect::<Vec<_>>(),
        )
        .unwrap();
        let key = rcgen::KeyPair::generate().unwrap();
        let cert = params.signed_by(&key, &self.issuer).unwrap();
        let config = rustls::ServerConfig::builder_with_provider(Arc::new(
            rustls::crypto::ring::default_provider(),
        ))
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(
            vec![cert.der().clone()],
            PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(key.serialize_der())),
        )
        .unwrap();
        Arc::new(config)
    }
}

/// Serves `answer` over TLS with `config` on a fresh port of 127.0.0.1.
pub(crate) fn serve_tls(
    config: Arc<rustls::ServerConfig>,
    answer: impl Fn(rustls::StreamOwned<rustls::ServerConnection, TcpStream>, IpAddr) + Send + 'static,
) -> SocketAddr {
    serve(move |s| {
        let _ = s.set_read_timeout(Some(Duration::from_secs(10)));
        let peer = s.peer_addr().unwrap().ip();
        let conn = rustls::ServerConnection::new(config.clone()).unwrap();
        answer(rustls::StreamOwned::new(conn, s), peer);
    })
}

/// A fake ingress serving https with `config`, with `fault`.
fn tls_ingress(config: Arc<rustls::ServerConfig>, fault: Fault) -> SocketAddr {
    serve_tls(config, move |s, peer| answer(s, peer, "https", fault))
}

#[test]
fn over_https_a_conforming_ingress_passes_what_it_passes_over_http_and_terminates_tls() {
    let dir = tempfile::tempdir().unwrap();
    let ca = Ca::new("kcontract test CA");
    let addr = tls_ingress(ca.server(&["127.0.0.1"]), Fault::None);
    let (code, out, err, report) = verify(
        &format!("https://{addr}"),
        &["--ca-cert", &ca.pem_file(dir.path())],
    );
    assert_eq!(code, 0, "{out}{err}");
    let r = report.expect("a report");
    // Every clause judged over http passes, but the h2c upgrade (cleartext only); https
    // termination passes in its place.
    let mut want = judged();
    want.remove("network.ports.h2c-upgrade");
    want.insert("network.ports.https-termination".into());
    assert_eq!(with_status(&r, "pass"), want);
    assert!(with_status(&r, "fail").is_empty());
    let clause = |id: &str| clause_of(&r, id).clone();
    let h2c = clause("network.ports.h2c-upgrade");
    assert_eq!(h2c["status"], "not-run");
    assert!(h2c["message"].as_str().unwrap().contains("cleartext"));
    let t = clause("network.ports.https-termination")["evidence"].clone();
    assert_eq!(t["received_protocol"], "HTTP/1.1");
    assert_eq!(t["X-Forwarded-Proto"], "https");
    assert_eq!(t["tls"]["version"], "TLSv1_3");
    assert!(
        t["tls"]["verified_against"]
            .as_str()
            .unwrap()
            .ends_with("ca.pem` (--ca-cert)")
    );
    assert_eq!(
        clause("network.headers.x-forwarded")["evidence"]["X-Forwarded-Proto"],
        "https"
    );
    assert_eq!(r["platform"]["host"], format!("https://{addr}"));
    assert!(err.contains("ca.pem` (--ca-cert))"), "{err}");
}

#[test]
fn over_https_each_broken_ingress_fails_exactly_its_clause() {
    let ca = Ca::new("kcontract test CA");
    let config = ca.server(&["127.0.0.1"]);
    let dir = tempfile::tempdir().unwrap();
    let pem = ca.pem_file(dir.path());
    for (fault, clause) in [
        // HTTP/2 reaching the probe is neither terminated nor HTTP/1.1.
        (
            Fault::NoProtocolTransformation,
            "network.ports.https-termination network.ports.accept-http1",
        ),
        (Fault::NoXForwarded, "network.headers.x-forwarded"),
        (Fault::WrongHost, "network.headers.host"),
    ] {
        let addr = tls_ingress(config.clone(), fault);
        let (_, out, err, report) = verify(&format!("https://{addr}"), &["--ca-cert", &pem]);
        let r = report.unwrap_or_else(|| panic!("{fault:?}: no report\n{out}{err}"));
        assert_eq!(
            with_status(&r, "fail"),
            clause
                .split(' ')
                .map(str::to_owned)
                .collect::<BTreeSet<_>>(),
            "{fault:?}\n{out}"
        );
    }
}

/// An ingress that says `X-Forwarded-Proto: http` to the probe of an https request fails
/// `x-forwarded`: the header must carry the scheme the client used.
#[test]
fn over_https_x_forwarded_proto_http_fails() {
    let ca = Ca::new("kcontract test CA");
    let dir = tempfile::tempdir().unwrap();
    let addr = serve_tls(ca.server(&["127.0.0.1"]), |s, peer| {
        answer(s, peer, "http", Fault::None);
    });
    let (_, out, err, report) = verify(
        &format!("https://{addr}"),
        &["--ca-cert", &ca.pem_file(dir.path())],
    );
    let r = report.unwrap_or_else(|| panic!("no report\n{out}{err}"));
    assert_eq!(
        with_status(&r, "fail"),
        BTreeSet::from(["network.headers.x-forwarded".to_owned()])
    );
    assert!(
        out.contains("X-Forwarded-Proto is `http`, the URL's scheme is https"),
        "{out}"
    );
}

/// `verify` of `url` with `--ca-cert` of `ca` (when given) and `--timeout 2`: exit 1, no report,
/// the diagnostic with the port redacted.
fn tls_error(addr: SocketAddr, ca: Option<&Ca>, extra: &[&str]) -> String {
    let dir = tempfile::tempdir().unwrap();
    let mut args = Vec::new();
    if !extra.contains(&"--timeout") {
        args.extend(["--timeout".to_owned(), "2".to_owned()]);
    }
    if let Some(ca) = ca {
        args.extend(["--ca-cert".to_owned(), ca.pem_file(dir.path())]);
    }
    args.extend(extra.iter().map(|s| (*s).to_owned()));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (code, out, err, report) = verify(&format!("https://{addr}"), &args);
    assert_eq!((code, report.is_none()), (1, true), "{out}{err}");
    assert!(!err.contains("panicked"), "{err}");
    redact(&err, addr).replace(dir.path().to_str().unwrap(), "DIR")
}

#[test]
fn k1133_a_certificate_of_an_unknown_authority() {
    let signer = Ca::new("a CA nobody trusts");
    let other = Ca::new("the CA verify is given");
    let addr = tls_ingress(signer.server(&["127.0.0.1"]), Fault::None);
    insta::assert_snapshot!(tls_error(addr, Some(&other), &[]));
    // The system's roots do not hold a CA minted a moment ago either.
    let err = tls_error(addr, None, &[]);
    assert!(err.contains("error[K1133]"), "{err}");
    assert!(
        err.contains("roots: the system's trust store") && err.contains("does not hold"),
        "{err}"
    );
}

#[test]
fn k1133_a_certificate_for_another_name() {
    let ca = Ca::new("kcontract test CA");
    let addr = tls_ingress(ca.server(&["probe.example.com"]), Fault::None);
    insta::assert_snapshot!(tls_error(addr, Some(&ca), &[]));
}

#[test]
fn k1134_plain_http_on_an_https_url() {
    let ca = Ca::new("kcontract test CA");
    // A plain HTTP server answers the ClientHello's bytes as a bad request, as most do.
    let addr = serve(|mut s| {
        let mut buf = [0; 512];
        let _ = s.read(&mut buf);
        respond(s, "400 Bad Request", "");
    });
    insta::assert_snapshot!(tls_error(addr, Some(&ca), &[]));
    // One that closes without a word.
    let addr = serve(|mut s| {
        let mut buf = [0; 512];
        let _ = s.read(&mut buf);
    });
    let err = tls_error(addr, Some(&ca), &[]);
    assert!(
        err.contains("error[K1134]") && err.contains("closed the connection during the TLS"),
        "{err}"
    );
}

#[test]
fn k1131_a_tls_server_that_never_answers() {
    let ca = Ca::new("kcontract test CA");
    // It accepts the connection and reads the ClientHello, but never answers it.
    let addr = serve(|s| {
        std::thread::spawn(move || {
            let mut s = s;
            let mut buf = [0; 512];
            let _ = s.read(&mut buf);
            std::thread::sleep(Duration::from_secs(5));
        });
    });
    let handshake = tls_error(addr, Some(&ca), &["--timeout", "1"]);
    // It completes the handshake, then never answers the request.
    let addr2 = serve_tls(ca.server(&["127.0.0.1"]), |mut s, _| {
        std::thread::spawn(move || {
            read_head(&mut s);
            std::thread::sleep(Duration::from_secs(5));
        });
    });
    let request = tls_error(addr2, Some(&ca), &["--timeout", "1"]);
    insta::assert_snapshot!(format!(
        "--- handshake\n{handshake}--- request\n{}",
        redact(&request, addr2)
    ));
}

#[test]
fn k1135_a_ca_file_that_is_not_a_certificate() {
    let dir = tempfile::tempdir().unwrap();
    let mut all = String::new();
    for (name, text) in [
        ("empty.pem", ""),
        (
            "key.pem",
            "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n",
        ),
        (
            "garbage.pem",
            "-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydA==\n-----END CERTIFICATE-----\n",
        ),
    ] {
        let p = dir.path().join(name);
        std::fs::write(&p, text).unwrap();
        let (code, out, err, report) =
            verify("https://127.0.0.1:1", &["--ca-cert", p.to_str().unwrap()]);
        assert_eq!((code, report.is_none()), (1, true), "{name}: {out}{err}");
        all.push_str(&format!(
            "--- {name}\n{}",
            err.replace(dir.path().to_str().unwrap(), "DIR")
        ));
    }
    let missing = dir.path().join("missing.pem");
    let (code, _, err, _) = verify(
        "https://127.0.0.1:1",
        &["--ca-cert", missing.to_str().unwrap()],
    );
    assert_eq!(code, 1);
    assert!(
        err.contains("error[K1135]: cannot read the CA certificate"),
        "{err}"
    );
    insta::assert_snapshot!(all);
}
