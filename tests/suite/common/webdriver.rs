//! Headless Chromium over WebDriver (chromedriver): the one client of the browser test
//! (`tests/browser.rs`), the serve test (`tests/serve.rs`) and the serve benchmark (`bench/serve.rs`).
//! Open a URL, run a script, wait for a condition, find, click and type, resize, take a screenshot.

use std::net::TcpListener;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// The key under which WebDriver returns an element reference (W3C WebDriver, "Elements").
const ELEMENT: &str = "element-6066-11e4-a52e-4f735466cecf";

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

    /// POST a WebDriver command of this session (or `/session` itself); its `value`. A WebDriver
    /// error fails the test with the error.
    pub(crate) fn post(&self, path: &str, body: Value) -> Value {
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

    fn get(&self, path: &str) -> Value {
        let url = format!("{}/session/{}{path}", self.base, self.session);
        let mut resp = ureq::get(&url).call().expect(path);
        let v: Value = resp.body_mut().read_json().expect("JSON");
        v["value"].clone()
    }

    /// The address of the current page.
    pub(crate) fn url(&self) -> String {
        self.get("/url").as_str().unwrap_or_default().to_string()
    }

    /// [`Self::wait_for`] every 50 ms for up to 10 s: the pace of the browser test.
    pub(crate) fn wait(&self, expr: &str) -> Value {
        self.wait_for(expr, Duration::from_millis(50), Duration::from_secs(10))
    }

    fn find(&self, css: &str) -> String {
        let v = self.post("/element", json!({ "using": "css selector", "value": css }));
        v[ELEMENT].as_str().expect("element id").to_string()
    }

    /// Click the first element matching `css`.
    pub(crate) fn click(&self, css: &str) {
        let e = self.find(css);
        self.post(&format!("/element/{e}/click"), json!({}));
    }

    /// Clear the first element matching `css` and type `text` into it.
    pub(crate) fn type_into(&self, css: &str, text: &str) {
        let e = self.find(css);
        self.post(&format!("/element/{e}/clear"), json!({}));
        self.post(&format!("/element/{e}/value"), json!({ "text": text }));
    }

    /// Press keys (WebDriver key codes, e.g. "\u{E004}" for Tab) on whatever has focus.
    pub(crate) fn keys(&self, keys: &[&str]) {
        let mut actions = Vec::new();
        for k in keys {
            actions.push(json!({"type": "keyDown", "value": k}));
            actions.push(json!({"type": "keyUp", "value": k}));
        }
        self.post(
            "/actions",
            json!({"actions": [{"type": "key", "id": "keyboard", "actions": actions}]}),
        );
    }

    /// Resize the window so that the page's viewport is `width` CSS pixels wide.
    pub(crate) fn viewport(&self, width: i64, height: i64) {
        self.post("/window/rect", json!({ "width": width, "height": height }));
        // The window includes no chrome in headless mode, but check rather than assume.
        let inner = self
            .js("return window.innerWidth")
            .as_i64()
            .unwrap_or(width);
        if inner != width {
            self.post(
                "/window/rect",
                json!({ "width": width + (width - inner), "height": height }),
            );
        }
        assert_eq!(self.js("return window.innerWidth").as_i64(), Some(width));
    }

    /// A screenshot of the viewport, as PNG bytes (WebDriver returns it in base64).
    pub(crate) fn screenshot_png(&self) -> Vec<u8> {
        use base64::Engine as _;
        let b64 = self.get("/screenshot");
        let png = base64::engine::general_purpose::STANDARD
            .decode(b64.as_str().unwrap_or_default())
            .expect("PNG");
        assert!(png.starts_with(b"\x89PNG"), "a PNG screenshot");
        png
    }
}
