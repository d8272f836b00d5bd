//! Headless Chromium over WebDriver (chromedriver), the little of it that `tests/serve.rs` and the
//! serve benchmark (`bench/serve.rs`) need: open a URL, run a script, wait for a condition.

use std::net::TcpListener;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// Debian's paths (`apt-get install chromium chromium-driver`).
pub(crate) const CHROMIUM: &str = "/usr/bin/chromium";
/// See [`CHROMIUM`].
pub(crate) const CHROMEDRIVER: &str = "/usr/bin/chromedriver";

/// A chromedriver session, ended and chromedriver killed when dropped (also on a failed assertion).
pub(crate) struct Driver {
    child: Child,
    base: String,
    session: String,
    _profile: tempfile::TempDir,
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = ureq::delete(&format!("{}/session/{}", self.base, self.session)).call();
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Driver {
    /// Start chromedriver on a free loopback port and open a headless session.
    pub(crate) fn start() -> Driver {
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map(|a| a.port())
            .expect("a free loopback port");
        let child = Command::new(CHROMEDRIVER)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start chromedriver");
        let base = format!("http://127.0.0.1:{port}");
        let deadline = Instant::now() + Duration::from_secs(20);
        while ureq::get(&format!("{base}/status")).call().is_err() {
            assert!(Instant::now() < deadline, "chromedriver did not come up");
            std::thread::sleep(Duration::from_millis(50));
        }
        let profile = tempfile::tempdir().unwrap();
        // Off the network (the machine has none) and fit to run as root.
        let caps = json!({"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {
                "binary": CHROMIUM,
                "args": [
                    "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                    "--disable-quic", "--no-first-run", "--disable-background-networking",
                    "--disable-component-update", "--disable-sync", "--window-size=1280,900",
                    format!("--user-data-dir={}", profile.path().display()),
                ]
            }
        }}});
        let mut d = Driver {
            child,
            base,
            session: String::new(),
            _profile: profile,
        };
        let v = d.post("/session", caps);
        d.session = v["sessionId"].as_str().expect("session id").to_string();
        d
    }

    fn post(&self, path: &str, body: Value) -> Value {
        let url = if path == "/session" {
            format!("{}{path}", self.base)
        } else {
            format!("{}/session/{}{path}", self.base, self.session)
        };
        let mut resp = ureq::post(&url)
            .config()
            .http_status_as_error(false)
            .build()
            .send_json(body)
            .unwrap_or_else(|e| panic!("POST {path}: {e}"));
        let v: Value = resp.body_mut().read_json().expect("JSON from chromedriver");
        assert!(
            v["value"]["error"].is_null(),
            "WebDriver error on {path}: {}",
            v["value"]
        );
        v["value"].clone()
    }

    /// Navigate to `url` and wait for it to load.
    pub(crate) fn goto(&self, url: &str) {
        self.post("/url", json!({ "url": url }));
    }

    /// Run `script` (a function body) in the page; its return value.
    pub(crate) fn js(&self, script: &str) -> Value {
        self.post("/execute/sync", json!({ "script": script, "args": [] }))
    }

    /// Poll a JS expression every `every` until it is truthy (fail after `within`).
    pub(crate) fn wait_for(&self, expr: &str, every: Duration, within: Duration) -> Value {
        self.poll(expr, every, within)
            .unwrap_or_else(|| panic!("timed out waiting for: {expr}"))
    }

    /// [`Self::wait_for`], `None` when `within` has passed.
    pub(crate) fn poll(&self, expr: &str, every: Duration, within: Duration) -> Option<Value> {
        let deadline = Instant::now() + within;
        loop {
            // A page being replaced by its reload can fail a script: that is "not yet".
            let v = ureq::post(&format!(
                "{}/session/{}/execute/sync",
                self.base, self.session
            ))
            .config()
            .http_status_as_error(false)
            .build()
            .send_json(json!({ "script": format!("return ({expr});"), "args": [] }))
            .ok()
            .and_then(|mut r| r.body_mut().read_json::<Value>().ok())
            .map(|v| v["value"].clone())
            .unwrap_or(Value::Null);
            if v.as_bool() != Some(false) && !v.is_null() && v.get("error").is_none() {
                return Some(v);
            }
            if Instant::now() >= deadline {
                return None;
            }
            std::thread::sleep(every);
        }
    }
}
