//! One local run: the harness plays the platform for two containers of the probe — the Service as
//! given (`main`) and the Service without a port or user (`defaults`) — on a real runtime.
//!
//! Per container: a root filesystem holding only the probe (hard-linked, else copied) and the mount
//! points; the config generated from the profile and the Service (then a negative control's
//! change, if any); `create` with stdin `/dev/null` and stdout and stderr in files (never pipes: the
//! container keeps them); the container's cgroup limits read on the host; `start`; the facts line
//! awaited; for `main`, `GET /report` inside its network namespace. Then the shutdown, both at
//! once: `main` exits on SIGTERM; `defaults` ignores it, is checked alive shortly before the grace
//! period ends and gets SIGKILL when it does. Every container is force-deleted and its folder
//! removed whatever happens (the [`Created`] guard; the session's own clean-up is the last line).

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{Read, Write};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use kcontract_probe::facts::{Event, Facts};
use serde_json::Value;

use kcontract_oci::conformance::cgroup_dirs_with_prefix;
use kcontract_oci::conformance::pid_alive;
use kcontract_oci::conformance::{HarnessError, IoContext, RuntimeCli, find_in_path};

use super::controls::{self, Control, ControlEnv};
use super::expect::{Image, expected, probe_image};
use super::netns;
use super::observed::{Container, Http, Observed, Role, Shutdown};
use super::oci_config::{HostPaths, config};
use super::profile::{Profile, resolv_conf_text};
use super::service::Service;

/// How long the harness waits for what must happen (the facts line, the server, a killed process).
const DEADLINE: Duration = Duration::from_secs(10);

/// What every run of a session shares.
pub(crate) struct Harness<'a> {
    /// The runtime.
    pub cli: &'a RuntimeCli,
    /// The session's work folder.
    pub work: &'a Path,
    /// The session's container id prefix.
    pub prefix: &'a str,
    /// The static probe binary.
    pub probe: &'a Path,
    /// The profile.
    pub profile: &'a Profile,
    /// The Service.
    pub service: &'a Service,
    runs: AtomicUsize,
}

impl<'a> Harness<'a> {
    /// A harness for a session's runtime and folders.
    pub(crate) fn new(
        cli: &'a RuntimeCli,
        work: &'a Path,
        prefix: &'a str,
        probe: &'a Path,
        profile: &'a Profile,
        service: &'a Service,
    ) -> Self {
        Harness {
            cli,
            work,
            prefix,
            probe,
            profile,
            service,
            runs: AtomicUsize::new(0),
        }
    }

    /// One run, with `control`'s change when given.
    pub(crate) fn run(&self, control: Option<Control>) -> Result<Observed, HarnessError> {
        let n = self.runs.fetch_add(1, Ordering::Relaxed) + 1;
        let dir = self.work.join(format!("run-{n}"));
        create_dir(&dir)?;
        let mut created = Created {
            cli: self.cli,
            ids: Vec::new(),
            dir: dir.clone(),
        };
        let main = self.prepare(&dir, n, Role::Main, control)?;
        let defaults = self.prepare(&dir, n, Role::Defaults, control)?;
        let mut started = Vec::new();
        for p in [main, defaults] {
            created.ids.push(p.id.clone());
            started.push(self.start(p)?);
        }
        let host_namespaces = own_namespaces();
        let [main, defaults]: [Started; 2] = started
            .try_into()
            .map_err(|_| HarnessError::Unexpected("two containers expected".into()))?;
        let (main, defaults) = std::thread::scope(|s| {
            let m = s.spawn(|| self.finish(main, control));
            let d = s.spawn(|| self.finish(defaults, control));
            (m.join(), d.join())
        });
        let (main, defaults) = match (main, defaults) {
            (Ok(m), Ok(d)) => (m?, d?),
            _ => {
                return Err(HarnessError::Unexpected(
                    "a container's thread panicked".into(),
                ));
            }
        };
        drop(created);
        Ok(Observed {
            main,
            defaults,
            host_namespaces,
            ingress: None,
            log: None,
        })
    }

    /// The bundle of one container.
    fn prepare(
        &self,
        dir: &Path,
        n: usize,
        role: Role,
        control: Option<Control>,
    ) -> Result<Prepared, HarnessError> {
        let id = format!("{}-{n}-{}", self.prefix, role.as_str());
        let bundle = dir.join(role.as_str());
        let rootfs = bundle.join("rootfs");
        build_rootfs(&rootfs, self.probe)?;
        let mine = control.filter(|c| c.role() == role);
        let mut service = match role {
            Role::Main => self.service.clone(),
            Role::Defaults => self.service.without_developer_choices(),
        };
        if mine == Some(Control::HostNetwork) {
            // On the host's network the Service's port may be taken; any free port will do, as a
            // developer may name any.
            service.container_port = Some(free_port()?);
        }
        let mut args: Vec<String> = vec!["/kcontract-probe".into(), "report".into()];
        match role {
            Role::Main => args.extend(["--then", "serve", "--on-term", "exit"].map(String::from)),
            Role::Defaults => {
                args.extend(["--then", "wait", "--on-term", "ignore"].map(String::from))
            }
        }
        let image: Image = probe_image(args);
        let expected = expected(self.profile, &service, &image);
        let mut image = image;
        if role == Role::Main {
            image.args.push("--port-fallback".into());
            image.args.push(expected.port.to_string());
        }
        for p in self
            .profile
            .masked_paths
            .iter()
            .chain(&self.profile.readonly_paths)
        {
            image.args.push("--path".into());
            image.args.push(p.clone());
        }
        let resolv = bundle.join("resolv.conf");
        write_mode(
            &resolv,
            resolv_conf_text(&self.profile.resolv_conf).as_bytes(),
            0o644,
        )?;
        let empty_resolv = bundle.join("resolv-empty.conf");
        write_mode(&empty_resolv, b"# no resolver\n", 0o644)?;
        let cgroups_path = format!("/{id}");
        let mut config = config(
            self.profile,
            &expected,
            &image,
            &HostPaths {
                rootfs: &rootfs,
                resolv_conf: &resolv,
                cgroups_path: &cgroups_path,
            },
        );
        if let Some(c) = mine {
            let hook = find_in_path("sh").unwrap_or_else(|| PathBuf::from("/bin/sh"));
            controls::apply(
                c,
                &mut config,
                &ControlEnv {
                    default_port: self.profile.default_port,
                    hook_program: &hook,
                    empty_resolv_conf: &empty_resolv,
                },
            );
            if c == Control::ResolvConfFromImage {
                write_mode(
                    &rootfs.join("etc/resolv.conf"),
                    resolv_conf_text(&self.profile.resolv_conf).as_bytes(),
                    0o644,
                )?;
            }
        }
        write_json(&bundle.join("config.json"), &config)?;
        Ok(Prepared {
            id,
            role,
            bundle,
            cgroups_path,
            config,
            expected,
            control: mine,
        })
    }

    /// `create` (with the control's standard streams), the host's view of the limits, `start`.
    fn start(&self, p: Prepared) -> Result<Started, HarnessError> {
        let stdout_path = p.bundle.join("stdout");
        let stderr_path = p.bundle.join("stderr");
        let stdin: Stdio = if p.control == Some(Control::StdinData) {
            let (reader, mut writer) = std::io::pipe().doing(|| "open a pipe".into())?;
            writer
                .write_all(b"data the platform should not have sent\n")
                .doing(|| "write to the pipe of standard input".into())?;
            drop(writer);
            reader.into()
        } else {
            dev_null()?.into()
        };
        let mut drain = None;
        let stdout: Stdio = if p.control == Some(Control::StdoutTty) {
            let (controller, terminal) = netns::pty()?;
            let mut out = create_file(&stdout_path)?;
            drain = Some(std::thread::spawn(move || {
                let mut controller = File::from(controller);
                let mut buf = [0u8; 8192];
                // Ends with EIO once every process holding the terminal is gone.
                while let Ok(n) = controller.read(&mut buf) {
                    if n == 0 || out.write_all(&buf[..n]).is_err() {
                        break;
                    }
                }
            }));
            terminal.into()
        } else {
            create_file(&stdout_path)?.into()
        };
        let bundle = p.bundle.as_os_str().to_owned();
        let status = self.cli.run_with_stdio(
            &[
                std::ffi::OsStr::new("create"),
                std::ffi::OsStr::new("--bundle"),
                &bundle,
                std::ffi::OsStr::new(&p.id),
            ],
            stdin,
            stdout,
            create_file(&stderr_path)?.into(),
        )?;
        let mut started = Started {
            prepared: p,
            stdout_path,
            stderr_path,
            pid: None,
            problem: None,
            host_cgroup: BTreeMap::new(),
            drain,
        };
        if !status.success() {
            started.problem = Some(format!(
                "`{} create` failed: {}",
                self.cli.kind(),
                read_text(&started.stderr_path).trim()
            ));
            return Ok(started);
        }
        started.pid = self.state(&started.prepared.id)?.1;
        started.host_cgroup = host_cgroup(&started.prepared.cgroups_path);
        let out = self.cli.run(&["start", &started.prepared.id])?;
        if !out.success {
            started.problem = Some(format!(
                "`{} start` failed (exit {}): {}{}",
                self.cli.kind(),
                out.code.map_or("by a signal".into(), |c| c.to_string()),
                out.stderr.trim(),
                out.stdout.trim()
            ));
        }
        Ok(started)
    }

    /// The facts, the request (main), the shutdown, the events; then `delete`.
    fn finish(&self, mut s: Started, control: Option<Control>) -> Result<Container, HarnessError> {
        let role = s.prepared.role;
        let mut container = Container {
            role,
            expected: s.prepared.expected.clone(),
            config: Some(s.prepared.config.clone()),
            facts: None,
            problem: s.problem.clone(),
            events: Vec::new(),
            http: None,
            routed: None,
            host_cgroup: s.host_cgroup.clone(),
            shutdown: Shutdown::default(),
        };
        let pid = match (s.pid, &s.problem) {
            (Some(pid), None) => pid,
            _ => {
                if container.problem.is_none() {
                    container.problem = Some("the runtime reports no process".into());
                }
                self.end(&mut s);
                return Ok(container);
            }
        };
        match wait_for_facts(&s.stdout_path) {
            Ok(f) => container.facts = Some(f),
            Err(e) => {
                container.problem =
                    Some(format!("{e}; stderr: {}", read_text(&s.stderr_path).trim()))
            }
        }
        if role == Role::Main && container.facts.is_some() {
            let events = wait_for_events(&s.stdout_path, |e| {
                matches!(
                    e,
                    Event::Listening { .. } | Event::ServeError { .. } | Event::Waiting
                )
            });
            let port = events.iter().find_map(|e| match e {
                Event::Listening { port, .. } => Some(*port),
                _ => None,
            });
            if let Some(port) = port {
                container.http = Some(request(pid, port));
            }
            let assigned = container.expected.port;
            container.routed = if port == Some(assigned) {
                container.http.clone()
            } else {
                Some(request(pid, assigned))
            };
        }
        container.shutdown = self.shutdown(&s, pid, control)?;
        self.end(&mut s);
        container.events = read_events(&s.stdout_path);
        Ok(container)
    }

    /// The platform's part: SIGTERM (a control: SIGKILL), the grace period, SIGKILL.
    fn shutdown(
        &self,
        s: &Started,
        pid: i64,
        control: Option<Control>,
    ) -> Result<Shutdown, HarnessError> {
        let id = &s.prepared.id;
        let grace = s.prepared.expected.grace;
        let mine = control.filter(|c| c.role() == s.prepared.role);
        let first = mine.map_or("SIGTERM", Control::first_signal);
        let mut out = Shutdown {
            first_signal: first.to_owned(),
            grace_ms: millis(grace),
            ..Shutdown::default()
        };
        let t0 = Instant::now();
        self.cli.run(&["kill", id, first])?;
        if mine == Some(Control::NoGrace) {
            self.cli.run(&["kill", id, "SIGKILL"])?;
            out.kill_after_ms = Some(millis(t0.elapsed()));
        }
        if s.prepared.role == Role::Defaults {
            // Shortly before the grace period ends: a quarter of it, at most half a second.
            let margin = (grace / 4).min(Duration::from_millis(500));
            let gone = wait_until(t0 + grace - margin, || !pid_alive(pid));
            if let Some(at) = gone {
                out.gone_after_ms = Some(millis(at - t0));
            }
            out.alive_before_grace = Some(pid_alive(pid));
        }
        if out.gone_after_ms.is_none()
            && let Some(at) = wait_until(t0 + grace, || !pid_alive(pid))
        {
            out.gone_after_ms = Some(millis(at - t0));
        }
        if pid_alive(pid) {
            self.cli.run(&["kill", id, "SIGKILL"])?;
            out.kill_after_ms = Some(millis(t0.elapsed()));
            if let Some(at) = wait_until(Instant::now() + DEADLINE, || !pid_alive(pid)) {
                out.gone_after_ms = Some(millis(at - t0));
            }
        }
        out.final_status = self.state(id)?.0;
        Ok(out)
    }

    /// `state`: the status and pid, `None`s when `state` fails.
    fn state(&self, id: &str) -> Result<(Option<String>, Option<i64>), HarnessError> {
        let out = self.cli.run(&["state", id])?;
        if !out.success {
            return Ok((None, None));
        }
        let v: Value = serde_json::from_str(&out.stdout).unwrap_or(Value::Null);
        Ok((
            v["status"].as_str().map(str::to_owned),
            v["pid"].as_i64().filter(|p| *p > 0),
        ))
    }

    /// Force-deletes the container and waits for the terminal's reader to end (it ends when the
    /// last process holding the terminal is gone).
    fn end(&self, s: &mut Started) {
        let _ = self.cli.run(&["delete", "--force", &s.prepared.id]);
        if let Some(pid) = s.pid {
            wait_until(Instant::now() + DEADLINE, || !pid_alive(pid));
        }
        if let Some(d) = s.drain.take() {
            let _ = d.join();
        }
    }
}

/// Runs the probe once with a config of its own (`$ROOTFS` in it is replaced by the root
/// filesystem's path; `linux.cgroupsPath` is set to `/<id>`), the root filesystem's folders given
/// the modes of `modes` first; returns the facts line. For the catalogue of runtime findings
/// (`spec/runtimes/deviations.yaml`, `platform_findings`), whose configs are written out whole.
pub fn run_config(
    cli: &RuntimeCli,
    dir: &Path,
    id: &str,
    probe: &Path,
    config: &Value,
    modes: &[(String, u32)],
) -> Result<Facts, HarnessError> {
    create_dir(dir)?;
    let created = Created {
        cli,
        ids: vec![id.to_owned()],
        dir: dir.to_owned(),
    };
    let rootfs = dir.join("rootfs");
    build_rootfs(&rootfs, probe)?;
    for (folder, mode) in modes {
        let p = rootfs.join(folder.trim_start_matches('/'));
        create_dir(&p)?;
        set_mode(&p, *mode)?;
    }
    let text = serde_json::to_string_pretty(config)
        .map_err(|e| HarnessError::Unexpected(format!("the config is not JSON: {e}")))?
        .replace("$ROOTFS", &rootfs.display().to_string());
    let mut config: Value = serde_json::from_str(&text).map_err(|e| {
        HarnessError::Unexpected(format!(
            "the config with its root filesystem is not JSON: {e}"
        ))
    })?;
    config["linux"]["cgroupsPath"] = Value::from(format!("/{id}"));
    let path = dir.join("config.json");
    std::fs::write(&path, config.to_string()).doing(|| format!("write {}", path.display()))?;
    let (stdout, stderr) = (dir.join("stdout"), dir.join("stderr"));
    let status = cli.run_with_stdio(
        &[
            std::ffi::OsStr::new("create"),
            std::ffi::OsStr::new("--bundle"),
            dir.as_os_str(),
            std::ffi::OsStr::new(id),
        ],
        dev_null()?.into(),
        create_file(&stdout)?.into(),
        create_file(&stderr)?.into(),
    )?;
    if !status.success() {
        return Err(HarnessError::Unexpected(format!(
            "`{} create` failed: {}",
            cli.kind(),
            read_text(&stderr).trim()
        )));
    }
    let out = cli.run(&["start", id])?;
    if !out.success {
        return Err(HarnessError::Unexpected(format!(
            "`{} start` failed: {}",
            cli.kind(),
            out.stderr.trim()
        )));
    }
    let facts = wait_for_facts(&stdout).map_err(|e| HarnessError::Unexpected(e.to_string()));
    drop(created);
    facts
}

/// Force-deletes the run's containers and removes its folder when dropped.
struct Created<'a> {
    cli: &'a RuntimeCli,
    ids: Vec<String>,
    dir: PathBuf,
}

impl Drop for Created<'_> {
    /// Also removes the containers' cgroup folders the runtime left: on a loaded machine runc's
    /// `delete` now and then leaves them (empty) behind. `rmdir` on a cgroup only succeeds when it
    /// holds no process, so a folder that stays is a real leak, which the tests report.
    fn drop(&mut self) {
        for id in &self.ids {
            let _ = self.cli.run(&["kill", id, "SIGKILL"]);
            let _ = self.cli.run(&["delete", "--force", id]);
            wait_until(Instant::now() + Duration::from_secs(2), || {
                let left = cgroup_dirs_with_prefix(Path::new("/sys/fs/cgroup"), id, 3);
                for dir in left.iter().rev() {
                    let _ = std::fs::remove_dir(dir);
                }
                left.is_empty()
            });
        }
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

struct Prepared {
    id: String,
    role: Role,
    bundle: PathBuf,
    cgroups_path: String,
    config: Value,
    expected: super::expect::Expected,
    control: Option<Control>,
}

struct Started {
    prepared: Prepared,
    stdout_path: PathBuf,
    stderr_path: PathBuf,
    pid: Option<i64>,
    problem: Option<String>,
    host_cgroup: BTreeMap<String, String>,
    drain: Option<std::thread::JoinHandle<()>>,
}

/// `GET /report` inside the network namespace of `pid`.
fn request(pid: i64, port: u16) -> Http {
    match netns::get(pid, port, "/report", Duration::from_secs(2)) {
        Ok(r) => Http {
            port,
            facts: r
                .status_line
                .contains(" 200 ")
                .then(|| serde_json::from_str(r.body.trim()).ok())
                .flatten(),
            status_line: Some(r.status_line),
            error: None,
        },
        Err(e) => Http {
            port,
            error: Some(e.to_string()),
            ..Http::default()
        },
    }
}

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// Polls `done` every 10 ms until `until`; the instant it became true.
fn wait_until(until: Instant, mut done: impl FnMut() -> bool) -> Option<Instant> {
    loop {
        if done() {
            return Some(Instant::now());
        }
        let now = Instant::now();
        if now >= until {
            return None;
        }
        std::thread::sleep(Duration::from_millis(10).min(until - now));
    }
}

fn write_mode(path: &Path, bytes: &[u8], mode: u32) -> Result<(), HarnessError> {
    if let Some(parent) = path.parent() {
        create_dir(parent)?;
    }
    std::fs::write(path, bytes).doing(|| format!("write {}", path.display()))?;
    set_mode(path, mode)
}

/// `value` as pretty JSON in the file `path`.
fn write_json(path: &Path, value: &Value) -> Result<(), HarnessError> {
    serde_json::to_string_pretty(value)
        .map_err(std::io::Error::from)
        .and_then(|text| std::fs::write(path, text))
        .doing(|| format!("write {}", path.display()))
}

/// The folder `path` and its parents, created.
fn create_dir(path: &Path) -> Result<(), HarnessError> {
    std::fs::create_dir_all(path).doing(|| format!("create {}", path.display()))
}

/// The file `path`, created (emptied) for writing.
fn create_file(path: &Path) -> Result<File, HarnessError> {
    File::create(path).doing(|| format!("create {}", path.display()))
}

/// `/dev/null`, opened for reading.
#[allow(clippy::disallowed_methods)] // /dev/null, no one's file
fn dev_null() -> Result<File, HarnessError> {
    File::open("/dev/null").doing(|| "open /dev/null".into())
}

/// `path`'s mode set to `mode`.
fn set_mode(path: &Path, mode: u32) -> Result<(), HarnessError> {
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))
        .doing(|| format!("set the mode of {}", path.display()))
}

/// The image's root filesystem: the probe and empty mount points; `/tmp` and `/var/log` open to
/// every user, as an image's are (runc 1.1 keeps that mode under a tmpfs mounted there:
/// `spec/runtimes/deviations.yaml`, `tmpfs-mode-ignored`).
fn build_rootfs(rootfs: &Path, probe: &Path) -> Result<(), HarnessError> {
    for d in ["proc", "dev", "sys", "etc", "run", "tmp", "var/log"] {
        create_dir(&rootfs.join(d))?;
    }
    for d in ["tmp", "var/log"] {
        set_mode(&rootfs.join(d), 0o1777)?;
    }
    let target = rootfs.join("kcontract-probe");
    if std::fs::hard_link(probe, &target).is_err() {
        std::fs::copy(probe, &target)
            .doing(|| format!("copy {} to {}", probe.display(), target.display()))?;
    }
    set_mode(&target, 0o755)
}

fn free_port() -> Result<u16, HarnessError> {
    std::net::TcpListener::bind(("127.0.0.1", 0))
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .doing(|| "find a free port on 127.0.0.1".into())
}

#[allow(clippy::disallowed_methods)] // a capture file the harness created
fn read_text(path: &Path) -> String {
    std::fs::read(path)
        .map(|b| String::from_utf8_lossy(&b).into_owned())
        .unwrap_or_default()
}

/// Why a container's facts could not be read (a container's problem in the report).
#[derive(Debug, thiserror::Error)]
enum FactsError {
    /// Nothing was printed before the deadline.
    #[error("the probe printed no facts")]
    None,
    /// The first line is not a facts document.
    #[error("the facts line is not a facts document: {0}")]
    NotFacts(#[source] serde_json::Error),
}

/// The first line of the container's standard output, once it is complete.
fn wait_for_facts(stdout: &Path) -> Result<Facts, FactsError> {
    let mut line = None;
    wait_until(Instant::now() + DEADLINE, || {
        let text = read_text(stdout);
        match text.split_once('\n') {
            Some((first, _)) => {
                line = Some(first.trim_end_matches('\r').to_owned());
                true
            }
            None => false,
        }
    });
    let line = line.ok_or(FactsError::None)?;
    serde_json::from_str(&line).map_err(FactsError::NotFacts)
}

/// The event lines (after the facts).
fn read_events(stdout: &Path) -> Vec<Event> {
    read_text(stdout)
        .lines()
        .skip(1)
        .filter_map(|l| serde_json::from_str(l.trim_end_matches('\r')).ok())
        .collect()
}

/// The events once one matches `wanted` (or the deadline passed).
fn wait_for_events(stdout: &Path, wanted: impl Fn(&Event) -> bool) -> Vec<Event> {
    let mut events = Vec::new();
    wait_until(Instant::now() + Duration::from_secs(5), || {
        events = read_events(stdout);
        events.iter().any(&wanted)
    });
    events
}

/// The harness's own namespaces, by the probe's names.
fn own_namespaces() -> BTreeMap<String, u64> {
    ["cgroup", "ipc", "mnt", "net", "pid", "time", "user", "uts"]
        .iter()
        .filter_map(|ns| {
            let l = std::fs::read_link(format!("/proc/self/ns/{ns}")).ok()?;
            let l = l.to_string_lossy().into_owned();
            let inode = l.split_once(":[")?.1.strip_suffix(']')?.parse().ok()?;
            Some(((*ns).to_owned(), inode))
        })
        .collect()
}

/// The contract's limit files of the cgroup `path` as the host sees them, keyed by their path in
/// the container: cgroup v1 controllers under `/sys/fs/cgroup/<controller>`, or the unified
/// hierarchy when the host has only that.
fn host_cgroup(path: &str) -> BTreeMap<String, String> {
    let root = Path::new("/sys/fs/cgroup");
    let rel = path.trim_start_matches('/');
    let files: &[(&str, &str, &str)] = if root.join("cgroup.controllers").exists() {
        &[
            ("", "memory.max", "/sys/fs/cgroup/memory.max"),
            ("", "cpu.weight", "/sys/fs/cgroup/cpu.weight"),
            ("", "cpu.max", "/sys/fs/cgroup/cpu.max"),
        ]
    } else {
        &[
            (
                "memory",
                "memory.limit_in_bytes",
                "/sys/fs/cgroup/memory/memory.limit_in_bytes",
            ),
            ("cpu", "cpu.shares", "/sys/fs/cgroup/cpu/cpu.shares"),
            (
                "cpu",
                "cpu.cfs_period_us",
                "/sys/fs/cgroup/cpu/cpu.cfs_period_us",
            ),
            (
                "cpu",
                "cpu.cfs_quota_us",
                "/sys/fs/cgroup/cpu/cpu.cfs_quota_us",
            ),
        ]
    };
    files
        .iter()
        .filter_map(|(controller, file, inside)| {
            #[allow(clippy::disallowed_methods)] // /sys/fs/cgroup, the kernel's state
            let value = std::fs::read_to_string(root.join(controller).join(rel).join(file)).ok()?;
            Some(((*inside).to_owned(), value.trim().to_owned()))
        })
        .collect()
}
