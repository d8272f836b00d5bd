//! The deployed route (`kcontract platform verify`) judged and shown to fail: a fake ingress on
//! 127.0.0.1 answers `/report` with the facts a probe reported when run as a platform runs the
//! kit's Service (`tests/fixtures/deployed/report.json`, see its README), with the request as it
//! reached the "container", and a platform log of a conforming shutdown. The conforming one passes
//! every check of the deployed route; each doctored control (`kcontract_platform::doctored`: a
//! doctored `/report`, request or log) must fail exactly the clauses whose checks name it. That
//! every check of the deployed route names a doctor is `checks::tests::
//! every_deployed_check_names_a_doctor_and_every_doctor_is_named`; this file runs each doctor.
//!
//! Then the real probe, served on 127.0.0.1 as a platform would run it (`PORT`, `K_*` set, a
//! secret in its environment): what verify judges on it, that the secret reaches neither `/report`
//! nor the report, and the bearer token.

use std::collections::BTreeSet;
use std::io::{Read, Write};
use std::net::{IpAddr, SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use kcontract_platform::checks::{clauses_failed_by_doctor, on};
use kcontract_platform::doctored::Doctor;
use kcontract_platform::platform_log::{END_MARKER, PlatformLog};
use kcontract_platform::profile::{self, Profile};
use kcontract_platform::routes::Route;
use kcontract_probe::facts::{Event, Facts};
use kcontract_probe::http::parse_head;
use serde_json::Value;
use strum::VariantArray;

use super::platform_verify::{Ca, read_head, respond, serve, serve_tls, verify_with, with_status};
use crate::common::cli::{kcontract, root};

/// The reference profile, which the fixture's run followed.
const PROFILE: &str = "platforms/knative-reference.yaml";

/// The host name the by-name ingress routes.
const HOST: &str = "kcontract-probe.default.example.com";

fn profile() -> &'static Profile {
    static P: OnceLock<Profile> = OnceLock::new();
    P.get_or_init(|| {
        let mut sources = kcontract_spec::diagnostic::SourceMap::default();
        profile::load(&root().join(PROFILE), &mut sources).unwrap()
    })
}

/// The facts of the fixture: a probe's `/report` under runc as the reference platform runs the
/// kit's Service, without the request.
fn facts() -> &'static Facts {
    static F: OnceLock<Facts> = OnceLock::new();
    F.get_or_init(|| {
        let text =
            std::fs::read_to_string(root().join("tests/fixtures/deployed/report.json")).unwrap();
        serde_json::from_str(&text).unwrap()
    })
}

/// How the fake ingress is reached.
#[derive(Clone, Copy)]
struct Ingress {
    /// What it gets wrong.
    doctor: Option<Doctor>,
    /// Routes only requests for this `Host` (404 otherwise), as an ingress routing by name does.
    by_name: bool,
}

/// A fake ingress in front of the fixture's probe: over https when the doctor is read so.
fn ingress(i: Ingress, tls: Option<&Ca>) -> SocketAddr {
    match tls {
        None => serve(move |s| {
            let client = s.peer_addr().unwrap().ip();
            answer(s, client, "http", i);
        }),
        Some(ca) => serve_tls(ca.server(&["127.0.0.1"]), move |s, client| {
            answer(s, client, "https", i)
        }),
    }
}

/// Answers one request on `s` as an ingress would, with the doctor's change.
fn answer(mut s: impl Read + Write, client: IpAddr, scheme: &str, i: Ingress) {
    let head = read_head(&mut s);
    let Some(mut req) = parse_head(&head) else {
        return respond(s, "400 Bad Request", "");
    };
    let header = |n: &str| {
        req.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(n))
            .map(|(_, v)| v.clone())
    };
    if i.by_name && header("Host").as_deref() != Some(HOST) {
        return respond(s, "404 Not Found", "");
    }
    let refuses = i.doctor.is_some_and(Doctor::refuses_h2c);
    if header("Upgrade").is_some() && !refuses {
        let _ = write!(
            s,
            "HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: h2c\r\n\r\n"
        );
        return;
    }
    let client = client.to_string();
    req.headers
        .push(("Forwarded".into(), format!("for={client};proto={scheme}")));
    req.headers.push(("X-Forwarded-For".into(), client));
    req.headers
        .push(("X-Forwarded-Proto".into(), scheme.to_owned()));
    req.peer = Some("10.0.0.5:41234".into());
    let mut doc = facts().clone();
    doc.request = Some(req);
    if let Some(d) = i.doctor {
        d.apply(profile(), &mut doc);
    }
    respond(s, "200 OK", &serde_json::to_string(&doc).unwrap());
}

/// The grace period the kit's Service gives (its `timeoutSeconds`), in ms.
const GRACE_MS: u64 = 120_000;

/// A platform's log of a conforming shutdown, doctored: the probe starts, receives SIGTERM, runs
/// on (`alive` every second) and is gone before the grace period ends; then the end marker.
fn log_file(dir: &Path, doctor: Option<Doctor>) -> PathBuf {
    let term = 5_000;
    let mut events = vec![
        Event::Listening {
            port: 8080,
            source: "PORT".into(),
        },
        Event::Signal {
            signal: "SIGTERM".into(),
            ms: term,
            action: "ignore".into(),
        },
    ];
    let mut ms = term + 1_000;
    while ms < term + GRACE_MS {
        events.push(Event::Alive { ms });
        ms += 1_000;
    }
    if let Some(d) = doctor {
        d.apply_to_log(&mut events, GRACE_MS);
    }
    let p = dir.join("probe.log");
    // As `kubectl logs --prefix` prints it: a prefix before each of the probe's lines; the end
    // marker is appended by whoever captured it (docs/deploying.md).
    let text: String = PlatformLog::render(&events, true)
        .lines()
        .map(|l| match l {
            END_MARKER => format!("{l}\n"),
            _ => format!("[pod/kcontract-probe-00001/user-container] {l}\n"),
        })
        .collect();
    std::fs::write(&p, text).unwrap();
    p
}

/// `platform verify` of the fake ingress `i` with a log: exit code, output, the report.
fn verify_deployed(i: Ingress, log: Option<Doctor>, extra: &[&str]) -> (i32, String, Value) {
    let dir = tempfile::tempdir().unwrap();
    let https = i.doctor.is_some_and(Doctor::over_https);
    let ca = https.then(|| Ca::new("kcontract test CA"));
    let addr = ingress(i, ca.as_ref());
    let scheme = if https { "https" } else { "http" };
    let log = log_file(dir.path(), log);
    let mut args = vec!["--events", log.to_str().unwrap()];
    let pem = ca.as_ref().map(|c| c.pem_file(dir.path()));
    if let Some(p) = &pem {
        args.extend(["--ca-cert", p.as_str()]);
    }
    args.extend_from_slice(extra);
    let (code, out, err, report) = verify_with(
        PROFILE,
        &format!("{scheme}://{addr}"),
        &dir.path().join("r.json"),
        &args,
    );
    let r = report.unwrap_or_else(|| panic!("no report\n{out}{err}"));
    (code, format!("{out}{err}"), r)
}

/// The status of clause `id` in report `r`.
fn status(r: &Value, id: &str) -> String {
    r["clauses"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == id)
        .map(|c| c["status"].as_str().unwrap().to_owned())
        .unwrap_or_default()
}

/// The clauses the deployed route decides.
fn deployed_clauses() -> BTreeSet<String> {
    on(Route::Deployed).map(|c| c.clause.to_owned()).collect()
}

#[test]
fn a_conforming_platform_passes_every_check_of_the_deployed_route() {
    let i = Ingress {
        doctor: None,
        by_name: false,
    };
    let (code, out, r) = verify_deployed(i, None, &[]);
    assert_eq!(code, 0, "{out}");
    let mut want = deployed_clauses();
    // Over http: https termination needs an https URL.
    want.remove("network.ports.https-termination");
    assert_eq!(with_status(&r, "pass"), want, "{out}");
    assert!(with_status(&r, "fail").is_empty(), "{out}");
    assert!(want.len() >= 28, "{} clauses judged", want.len());
    // Every entry says where it was decided.
    for c in r["clauses"].as_array().unwrap() {
        assert_eq!(c["route"], "deployed", "{c}");
    }
    for id in ["lifecycle.sigterm-on-kill", "lifecycle.sigkill-after-grace"] {
        assert_eq!(status(&r, id), "pass", "{id}");
    }
}

/// `--host NAME`: an ingress that routes by name answers only a request for its host; verify
/// reaches it by its address with the name in `Host`.
#[test]
fn verify_reaches_an_ingress_by_name_with_host() {
    let i = Ingress {
        doctor: None,
        by_name: true,
    };
    let dir = tempfile::tempdir().unwrap();
    let addr = ingress(i, None);
    let url = format!("http://{addr}");
    let (code, out, err, _) = verify_with(PROFILE, &url, &dir.path().join("a.json"), &[]);
    assert_eq!(
        code, 1,
        "without --host the ingress answers 404: {out}{err}"
    );
    assert!(err.contains("answered 404"), "{err}");
    let (code, out, err, r) =
        verify_with(PROFILE, &url, &dir.path().join("b.json"), &["--host", HOST]);
    assert_eq!(code, 0, "{out}{err}");
    let r = r.unwrap();
    assert!(err.contains(&format!("Host: {HOST}")), "{err}");
    assert_eq!(status(&r, "network.headers.host"), "pass");
    let host = r["clauses"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == "network.headers.host")
        .unwrap();
    assert_eq!(host["evidence"]["received"], HOST);
}

/// Each doctored control fails exactly the clauses whose deployed checks name it, and nothing
/// else: a judge of the deployed route that cannot fail turns this red.
#[test]
fn each_doctored_control_fails_exactly_its_clauses() {
    let mut problems = Vec::new();
    for d in Doctor::VARIANTS.iter().copied() {
        let i = Ingress {
            doctor: Some(d),
            by_name: false,
        };
        let (_, out, r) = verify_deployed(i, Some(d), &[]);
        let failed = with_status(&r, "fail");
        let want: BTreeSet<String> = clauses_failed_by_doctor(d)
            .into_iter()
            .map(str::to_owned)
            .collect();
        assert!(!want.is_empty(), "{}: names no clause", d.name());
        if failed != want {
            problems.push(format!(
                "{} ({}): fails {failed:?}, should fail exactly {want:?}\n{out}",
                d.name(),
                d.describe()
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// A log without the probe's event lines (or no log) leaves the lifecycle clauses not-run, never
/// pass; one that stops before the container's end cannot say SIGTERM never came.
#[test]
fn a_log_without_the_events_leaves_the_lifecycle_clauses_not_run() {
    let lifecycle = ["lifecycle.sigterm-on-kill", "lifecycle.sigkill-after-grace"];
    let dir = tempfile::tempdir().unwrap();
    let addr = ingress(
        Ingress {
            doctor: None,
            by_name: false,
        },
        None,
    );
    let url = format!("http://{addr}");
    let cases: [(&str, Option<&str>); 3] = [
        ("no log", None),
        (
            "a log of other lines",
            Some("I1201 10:00:00 starting\nsome other container's line\nkcontract-log-end\n"),
        ),
        (
            "a log cut before the end",
            Some("{\"event\":\"listening\",\"port\":8080,\"source\":\"PORT\"}\n"),
        ),
    ];
    for (what, text) in cases {
        let mut extra = Vec::new();
        let log = dir.path().join("log.txt");
        if let Some(t) = text {
            std::fs::write(&log, t).unwrap();
            extra.extend(["--events", log.to_str().unwrap()]);
        }
        let (_, out, err, r) = verify_with(PROFILE, &url, &dir.path().join("r.json"), &extra);
        let r = r.unwrap_or_else(|| panic!("{what}: no report {out}{err}"));
        for id in lifecycle {
            assert_eq!(status(&r, id), "not-run", "{what}: {id}\n{out}");
        }
    }
}

/// A log alone (no URL) decides the lifecycle clauses and leaves the rest not-run.
#[test]
fn a_log_alone_decides_the_lifecycle_clauses() {
    let dir = tempfile::tempdir().unwrap();
    let log = log_file(dir.path(), None);
    let report = dir.path().join("r.json");
    let (code, out, err) = kcontract(
        &root(),
        &[
            "--spec",
            "spec",
            "platform",
            "verify",
            "--events",
            log.to_str().unwrap(),
            "--profile",
            PROFILE,
            "--report",
            report.to_str().unwrap(),
        ],
    );
    assert_eq!(code, 0, "{out}{err}");
    let r: Value = serde_json::from_slice(&std::fs::read(&report).unwrap()).unwrap();
    assert_eq!(
        with_status(&r, "pass"),
        BTreeSet::from([
            "lifecycle.sigkill-after-grace".to_owned(),
            "lifecycle.sigterm-on-kill".to_owned()
        ])
    );
}

// ---- The real probe on 127.0.0.1 ----

/// The secret the probe's environment holds.
const SECRET: &str = "s3cr3t-value-that-must-not-leak";

/// The static probe serving on a free port of 127.0.0.1 as a platform would run it: `PORT` and
/// the `K_*` names set, a `SECRET_TOKEN`, and `extra` variables. Killed when dropped.
struct Served {
    child: Child,
    port: u16,
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A platform's log of the static probe as the kit's Service runs it (`--on-term ignore`): its
/// standard output captured to a file while it is stopped as a platform stops it (SIGTERM, then
/// SIGKILL `after` later), then the end marker appended, as docs/deploying.md captures it.
fn captured_log(dir: &Path, after: Duration) -> PathBuf {
    let log = dir.join("probe.log");
    let out = std::fs::File::create(&log).unwrap();
    let mut child = Command::new(crate::common::probe::static_probe())
        .args(["serve", "--on-term", "ignore", "--alive-ms", "200"])
        .env_clear()
        .env("PORT", free_port().to_string())
        .stdin(Stdio::null())
        .stdout(out)
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while !std::fs::read_to_string(&log).unwrap().contains("listening") {
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "the probe never started"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let status = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    std::thread::sleep(after);
    child.kill().unwrap();
    child.wait().unwrap();
    let mut f = std::fs::OpenOptions::new().append(true).open(&log).unwrap();
    writeln!(f, "{END_MARKER}").unwrap();
    log
}

/// A port of 127.0.0.1 free a moment ago.
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn serve_probe(extra: &[(&str, &str)]) -> Served {
    let port = free_port();
    let mut cmd = Command::new(crate::common::probe::static_probe());
    cmd.arg("serve")
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .env("PORT", port.to_string())
        .env("K_SERVICE", "kcontract-probe")
        .env("K_CONFIGURATION", "kcontract-probe")
        .env("K_REVISION", "kcontract-probe-00001")
        .env("SECRET_TOKEN", SECRET)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    for (k, v) in extra {
        cmd.env(k, v);
    }
    let child = cmd.spawn().unwrap();
    let start = Instant::now();
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "the probe never listened"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    Served { child, port }
}

/// `GET /report` of the probe on `port`, raw.
fn get_report(port: u16, auth: Option<&str>) -> String {
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    let auth = auth.map_or_else(String::new, |t| format!("Authorization: Bearer {t}\r\n"));
    write!(s, "GET /report HTTP/1.1\r\nHost: probe\r\n{auth}\r\n").unwrap();
    let mut out = String::new();
    s.read_to_string(&mut out).unwrap();
    out
}

/// The probe served as a platform would run it: verify judges at least 28 clauses (pass or fail,
/// with evidence) on it — on this host, not in a container, some fail — and the secret in its
/// environment reaches neither `/report` nor the report.
#[test]
fn the_real_probe_on_127_0_0_1_is_judged_and_leaks_no_secret() {
    let probe = serve_probe(&[]);
    let body = get_report(probe.port, None);
    assert!(body.starts_with("HTTP/1.1 200"), "{body}");
    assert!(!body.contains(SECRET), "/report shows the secret");
    assert!(body.contains("\"SECRET_TOKEN\":\"<redacted>\""), "{body}");
    assert!(body.contains("\"K_REVISION\":\"kcontract-probe-00001\""));
    let dir = tempfile::tempdir().unwrap();
    let log = captured_log(dir.path(), Duration::from_millis(1_500));
    let report = dir.path().join("r.json");
    let (code, out, err, r) = verify_with(
        PROFILE,
        &format!("http://127.0.0.1:{}", probe.port),
        &report,
        &["--host", HOST, "--events", log.to_str().unwrap()],
    );
    let r = r.unwrap_or_else(|| panic!("no report: {code} {out}{err}"));
    let judged: Vec<&Value> = r["clauses"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["status"] == "pass" || c["status"] == "fail")
        .collect();
    let ids: BTreeSet<&str> = judged.iter().map(|c| c["id"].as_str().unwrap()).collect();
    assert!(
        ids.len() >= 28,
        "{} clauses judged: {ids:?}\n{out}",
        ids.len()
    );
    assert!(judged.iter().all(|c| !c["evidence"].is_null()), "{out}");
    // The lifecycle, from the log of a probe stopped as a platform stops it.
    for id in ["lifecycle.sigterm-on-kill", "lifecycle.sigkill-after-grace"] {
        assert_eq!(status(&r, id), "pass", "{id}\n{out}");
    }
    let text = std::fs::read_to_string(&report).unwrap();
    assert!(!text.contains(SECRET), "the report shows the secret");
    assert!(!out.contains(SECRET) && !err.contains(SECRET));
}

/// With `KCONTRACT_PROBE_TOKEN` set, `/report` answers only the bearer of the token (never showing
/// it); verify gives it with `--token-file`, and without it says what to give.
#[test]
fn a_token_is_required_when_set() {
    let token = "t0ken-of-the-probe";
    let probe = serve_probe(&[("KCONTRACT_PROBE_TOKEN", token)]);
    assert!(get_report(probe.port, None).starts_with("HTTP/1.1 401"));
    assert!(get_report(probe.port, Some("wrong")).starts_with("HTTP/1.1 401"));
    let body = get_report(probe.port, Some(token));
    assert!(body.starts_with("HTTP/1.1 200"), "{body}");
    assert!(!body.contains(token), "/report shows the token");
    let dir = tempfile::tempdir().unwrap();
    let url = format!("http://127.0.0.1:{}", probe.port);
    let (code, _, err, _) = verify_with(PROFILE, &url, &dir.path().join("a.json"), &[]);
    assert_eq!(code, 1);
    assert!(err.contains("--token-file"), "{err}");
    let file = dir.path().join("token");
    std::fs::write(&file, format!("{token}\n")).unwrap();
    let report = dir.path().join("b.json");
    let (_, out, err, r) = verify_with(
        PROFILE,
        &url,
        &report,
        &["--token-file", file.to_str().unwrap()],
    );
    assert!(r.is_some(), "{out}{err}");
    assert!(!std::fs::read_to_string(&report).unwrap().contains(token));
}

/// K1140: an `--events` or `--token-file` that cannot be read; nothing is requested.
#[test]
fn k1140_a_file_verify_cannot_read() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing.log");
    let (code, out, err, r) = verify_with(
        PROFILE,
        "http://127.0.0.1:1",
        &dir.path().join("r.json"),
        &["--events", missing.to_str().unwrap()],
    );
    assert_eq!(code, 1, "{out}{err}");
    assert!(r.is_none(), "no report");
    let (code, _, err2, _) = verify_with(
        PROFILE,
        "http://127.0.0.1:1",
        &dir.path().join("r.json"),
        &["--token-file", dir.path().to_str().unwrap()],
    );
    assert_eq!(code, 1);
    let text = format!("{err}\n{err2}").replace(&dir.path().display().to_string(), "DIR");
    insta::assert_snapshot!(text);
}

/// The deployment kit's Service passes `platform lint`, and is what verify judges against by
/// default (built in).
#[test]
fn the_kit_passes_platform_lint() {
    let (code, out, err) = kcontract(
        &root(),
        &["platform", "lint", "platforms/deploy/service.yaml"],
    );
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        err.contains("no MUST or MUST NOT clause broken, 0 warnings"),
        "{err}"
    );
    assert_eq!(
        kcontract_platform::service::DEPLOY_SERVICE,
        std::fs::read_to_string(root().join("platforms/deploy/service.yaml")).unwrap()
    );
}

/// Writes the report of `platform verify` of a conforming ingress over http (or https) with a log
/// into `path`.
fn verify_into(path: &Path, https: bool) {
    let dir = tempfile::tempdir().unwrap();
    let ca = https.then(|| Ca::new("kcontract test CA"));
    let i = Ingress {
        doctor: None,
        by_name: false,
    };
    let addr = ingress(i, ca.as_ref());
    let log = log_file(dir.path(), None);
    let mut args = vec!["--events", log.to_str().unwrap()];
    let pem = ca.as_ref().map(|c| c.pem_file(dir.path()));
    if let Some(p) = &pem {
        args.extend(["--ca-cert", p.as_str()]);
    }
    let scheme = if https { "https" } else { "http" };
    let (code, out, err, _) = verify_with(PROFILE, &format!("{scheme}://{addr}"), path, &args);
    assert_eq!(code, 0, "{out}{err}");
}

/// `matrix --platform NAME=FILE` twice with one name: an http and an https verify of one platform
/// are one column, where h2c (http only) and https termination (https only) both pass, each cell
/// naming the route it was decided on. Without the name the two are K0613.
#[test]
fn matrix_merges_an_http_and_an_https_verify_into_one_column() {
    let dir = tempfile::tempdir().unwrap();
    let http = dir.path().join("http.json");
    let https = dir.path().join("https.json");
    verify_into(&http, false);
    verify_into(&https, true);
    let named = |p: &Path| format!("edge={}", p.display());
    let (a, b) = (named(&http), named(&https));
    let (code, out, err) = kcontract(
        &root(),
        &[
            "matrix",
            "--platform",
            &a,
            "--platform",
            &b,
            "--format",
            "json",
        ],
    );
    assert_eq!(code, 0, "{err}");
    let m: Value = serde_json::from_str(&out).unwrap();
    let columns = m["platforms"].as_array().unwrap();
    assert_eq!(columns.len(), 1, "{columns:?}");
    assert_eq!(columns[0]["name"], "edge");
    assert_eq!(columns[0]["files"].as_array().unwrap().len(), 2);
    assert_eq!(columns[0]["routes"], serde_json::json!(["deployed"]));
    let cell = |id: &str| {
        m["clauses"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["id"] == id)
            .unwrap()["platforms"][0]
            .clone()
    };
    for id in [
        "network.ports.h2c-upgrade",
        "network.ports.https-termination",
        "config.env.port",
        "lifecycle.sigterm-on-kill",
    ] {
        let c = cell(id);
        assert_eq!(c["status"], "pass", "{id}: {c}");
        assert_eq!(c["routes"], serde_json::json!(["deployed"]), "{id}");
        assert!(
            c["checks"]
                .as_array()
                .unwrap()
                .iter()
                .all(|k| k["route"] == "deployed"),
            "{id}: {c}"
        );
    }
    // The table names the route in the cell.
    let (_, table, _) = kcontract(&root(), &["matrix", "--platform", &a, "--platform", &b]);
    assert!(table.contains("pass (deployed)"), "{table}");
    // Without a name the two reports of one platform (127.0.0.1) cannot be told apart.
    let (code, _, err) = kcontract(
        &root(),
        &[
            "matrix",
            "--platform",
            http.to_str().unwrap(),
            "--platform",
            https.to_str().unwrap(),
        ],
    );
    assert_eq!(code, 1);
    assert!(err.contains("error[K0613]"), "{err}");
}
