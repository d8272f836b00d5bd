//! What `kcontract serve` watches, and when that means a rebuild: the spec folder, the templates
//! folder (`--templates`), and the files the `tests:` globs select. notify (inotify on Linux) reports
//! the events; editors save in bursts (a temporary file, a rename, a second write), so a rebuild
//! waits until the events have been quiet for [`QUIET`]. A watched folder that is deleted and made
//! again (`rm -rf spec && git checkout spec`, a branch switch) is watched again: the folder above
//! it is watched too, and the folder's identity (device and inode) is compared at every event.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender, channel};
use std::time::{Duration, Instant};

use notify::{EventKind, RecommendedWatcher, RecursiveMode, Watcher as _};

use super::Options;
use crate::terminal::Ctx;
use kcontract_spec::TestGlobs;
use kcontract_spec::diagnostic::Diagnostic;
use kcontract_spec::globs::GlobMatcher;

/// How long the events must be quiet before a rebuild starts.
const QUIET: Duration = Duration::from_millis(10);
/// A rebuild starts at the latest this long after the first event, even if events keep coming.
const MOST: Duration = Duration::from_millis(200);

/// A burst of changes that needs a rebuild.
pub(super) struct Change {
    /// The files changed, as the terminal names them.
    pub(super) label: String,
    /// When every changed file is a chapter file (`spec/<lang>/<chapter>.md`, still there): those
    /// chapters, whose pages serve renders and reloads first.
    pub(super) chapters: Option<BTreeSet<String>>,
}

/// What the rebuild loop waits for.
enum Message {
    File(notify::Result<notify::Event>),
    /// Ctrl-C (SIGINT), SIGTERM or SIGHUP: stop after the rebuild under way, if any.
    Stop,
}

/// The file-system watch of one `serve`.
pub(super) struct Watcher {
    /// Its watches end when it is dropped.
    watcher: RecommendedWatcher,
    /// The identity of the spec folder and the templates folder as watched (`None`: not there).
    watched: Vec<(PathBuf, Option<Identity>)>,
    events: Receiver<Message>,
    /// The working directory: the root of the test globs.
    root: PathBuf,
    spec: PathBuf,
    templates: Option<PathBuf>,
    /// The folder the test globs are relative to (contract.yaml's), canonical.
    tests_root: PathBuf,
    tests: GlobMatcher,
    /// The folders watched for tests, to say what is watched.
    test_dirs: Vec<PathBuf>,
}

impl Watcher {
    /// Watch the spec folder, the templates folder and the test files of `tests` (globs relative
    /// to `tests_root`, as the test scan reads them).
    pub(super) fn start(
        ctx: &Ctx,
        opts: &Options,
        tests_root: &Path,
        tests: &TestGlobs,
    ) -> Result<Watcher, Diagnostic> {
        let fail = |what: &Path, e: &dyn std::fmt::Display| {
            Diagnostic::error("K0902", format!("cannot watch `{}`: {e}", what.display())).help(
                "on Linux, raise fs.inotify.max_user_watches, or make the watched folders smaller",
            )
        };
        let root = std::env::current_dir().map_err(|e| fail(Path::new("."), &e))?;
        let (tx, events) = channel();
        let stop: Sender<Message> = tx.clone();
        // Replacing the default (which ends the process at once, also mid-rebuild) by a message
        // the loop reads between rebuilds. If it cannot be installed, the default stays.
        if let Err(e) = ctrlc::set_handler(move || {
            let _ = stop.send(Message::Stop);
        }) {
            eprintln!("warning: Ctrl-C will end serve without a goodbye: {e}");
        }
        let mut watcher = notify::recommended_watcher(move |r| {
            let _ = tx.send(Message::File(r));
        })
        .map_err(|e| fail(&root, &e))?;
        let spec = root.join(&ctx.spec);
        watcher
            .watch(&spec, RecursiveMode::Recursive)
            .map_err(|e| fail(&ctx.spec, &e))?;
        let templates = opts.templates.as_ref().map(|t| root.join(t));
        if let Some(t) = &templates {
            watcher
                .watch(t, RecursiveMode::Recursive)
                .map_err(|e| fail(t, &e))?;
        }
        let mut watched = Vec::new();
        for dir in std::iter::once(&spec).chain(&templates) {
            // The folder above, for the folder's own deletion and creation.
            if let Some(parent) = dir.parent() {
                let _ = watcher.watch(parent, RecursiveMode::NonRecursive);
            }
            watched.push((dir.clone(), identity(dir)));
        }
        // Canonical, so that the paths of its events (`spec/../tests/…` otherwise) strip cleanly.
        let tests_root =
            std::fs::canonicalize(root.join(tests_root)).unwrap_or_else(|_| root.join(tests_root));
        let matcher = GlobMatcher::new(&tests.include, &tests.exclude);
        let mut test_dirs = Vec::new();
        for base in matcher.bases() {
            let dir = tests_root.join(base);
            if !dir.is_dir() {
                continue;
            }
            if base.as_os_str().is_empty() {
                // A glob that starts with a wildcard: the root itself, but not `target/` or hidden
                // folders (a build writes thousands of files there).
                watcher
                    .watch(&dir, RecursiveMode::NonRecursive)
                    .map_err(|e| fail(&dir, &e))?;
                let entries = std::fs::read_dir(&dir).map_err(|e| fail(&dir, &e))?;
                for e in entries.flatten() {
                    let name = e.file_name().to_string_lossy().into_owned();
                    if e.path().is_dir() && !ignored(&name) && name != "target" {
                        watcher
                            .watch(&e.path(), RecursiveMode::Recursive)
                            .map_err(|err| fail(&e.path(), &err))?;
                    }
                }
            } else {
                watcher
                    .watch(&dir, RecursiveMode::Recursive)
                    .map_err(|e| fail(&dir, &e))?;
            }
            test_dirs.push(dir);
        }
        Ok(Watcher {
            watcher,
            watched,
            events,
            root,
            spec,
            templates,
            tests_root,
            tests: matcher,
            test_dirs,
        })
    }

    /// The folders watched, for the terminal.
    pub(super) fn describe(&self) -> String {
        let mut parts = vec![self.rel(&self.spec)];
        if let Some(t) = &self.templates {
            parts.push(self.rel(t));
        }
        for d in &self.test_dirs {
            let d = self.rel(d);
            parts.push(format!(
                "{} (tests)",
                if d.is_empty() { ".".into() } else { d }
            ));
        }
        parts.join(", ")
    }

    /// Wait for a change that needs a rebuild, then for the burst of events to end. `None` when
    /// serve is to stop.
    pub(super) fn next_change(&mut self) -> Option<Change> {
        let mut paths: Vec<PathBuf> = loop {
            match self.recv(None) {
                Ok(Message::File(Ok(ev))) => {
                    self.rewatch();
                    let found = self.relevant(&ev);
                    if !found.is_empty() {
                        break found;
                    }
                }
                Ok(Message::File(Err(e))) => eprintln!("warning: watching the files: {e}"),
                Ok(Message::Stop) | Err(_) => return None,
            }
        };
        let start = Instant::now();
        while start.elapsed() < MOST {
            match self.recv(Some(QUIET)) {
                Ok(Message::File(Ok(ev))) => {
                    self.rewatch();
                    paths.extend(self.relevant(&ev));
                }
                Ok(Message::File(Err(_))) => {}
                Ok(Message::Stop) | Err(RecvTimeoutError::Disconnected) => return None,
                Err(RecvTimeoutError::Timeout) => break,
            }
        }
        self.rewatch();
        paths.sort();
        paths.dedup();
        Some(self.change(&paths))
    }

    /// Watch again a watched folder that was deleted and made anew (its identity changed): the
    /// old watch went with the old folder. Cheap (one `stat` per folder), so done at every event.
    fn rewatch(&mut self) {
        for (dir, was) in &mut self.watched {
            let now = identity(dir);
            if now == *was {
                continue;
            }
            let _ = self.watcher.unwatch(dir);
            if now.is_some()
                && let Err(e) = self.watcher.watch(dir, RecursiveMode::Recursive)
            {
                eprintln!("warning: cannot watch `{}` again: {e}", dir.display());
                continue;
            }
            *was = now;
        }
    }

    /// The next message (within `timeout`, if given).
    fn recv(&self, timeout: Option<Duration>) -> Result<Message, RecvTimeoutError> {
        match timeout {
            Some(t) => self.events.recv_timeout(t),
            None => self
                .events
                .recv()
                .map_err(|_| RecvTimeoutError::Disconnected),
        }
    }

    /// What a burst of changed files means. An editor that saves through a temporary file (sed's
    /// `sedXXXX`, renamed over the chapter) leaves events for a file that is gone by now: it is
    /// neither named nor counted, unless nothing else changed (a file was deleted).
    fn change(&self, paths: &[PathBuf]) -> Change {
        let kept: Vec<&PathBuf> = paths.iter().filter(|p| p.exists()).collect();
        let named: Vec<&PathBuf> = if kept.is_empty() {
            paths.iter().collect()
        } else {
            kept.clone()
        };
        let label = named
            .iter()
            .map(|p| self.rel(p))
            .collect::<Vec<_>>()
            .join(", ");
        let chapters = edited_chapters(&self.spec, paths);
        Change { label, chapters }
    }

    /// The paths of files `ev` changed that the site is built from.
    fn relevant(&self, ev: &notify::Event) -> Vec<PathBuf> {
        if matches!(ev.kind, EventKind::Access(_) | EventKind::Other) {
            return Vec::new();
        }
        ev.paths
            .iter()
            .filter(|p| {
                let Some(name) = p.file_name().map(|n| n.to_string_lossy()) else {
                    return false;
                };
                if ignored(&name) {
                    return false;
                }
                let from_spec = p.starts_with(&self.spec);
                let from_templates = self.templates.as_ref().is_some_and(|t| p.starts_with(t));
                let slashed = |rel: &Path| {
                    rel.components()
                        .map(|c| c.as_os_str().to_string_lossy())
                        .collect::<Vec<_>>()
                        .join("/")
                };
                let test = p.strip_prefix(&self.tests_root).is_ok_and(|rel| {
                    let rel = slashed(rel);
                    !rel.starts_with("target/") && self.tests.matches(&rel)
                });
                from_spec || from_templates || test
            })
            .cloned()
            .collect()
    }

    fn rel(&self, p: &Path) -> String {
        p.strip_prefix(&self.root)
            .unwrap_or(p)
            .display()
            .to_string()
    }
}

/// The chapters whose files alone a burst changed (`spec/<lang>/<chapter>.md`, still there), or
/// `None` when anything else changed too (contract.yaml, a template, a test, a deleted chapter):
/// then only the whole site is rebuilt. A file that is gone and was not a chapter file (an
/// editor's temporary file renamed over one) does not count.
fn edited_chapters(spec: &Path, paths: &[PathBuf]) -> Option<BTreeSet<String>> {
    let chapter = |p: &Path| -> Option<String> {
        let rel = p.strip_prefix(spec).ok()?;
        let mut parts = rel.components();
        let (_lang, file) = (parts.next()?, parts.next()?);
        if parts.next().is_some() {
            return None;
        }
        let file = Path::new(file.as_os_str());
        (file.extension()? == "md").then(|| file.file_stem()?.to_str().map(str::to_string))?
    };
    let mut chapters = BTreeSet::new();
    for p in paths {
        match (p.exists(), chapter(p)) {
            (true, Some(c)) if !p.is_dir() => {
                chapters.insert(c);
            }
            (true, _) if p.is_dir() => {}
            (false, None) => {}
            _ => return None,
        }
    }
    (!chapters.is_empty()).then_some(chapters)
}

/// Which folder is at a path: its device and inode (`None` when nothing is there). A folder made
/// anew at the same path is another folder.
type Identity = (u64, u64);

fn identity(dir: &Path) -> Option<Identity> {
    let meta = std::fs::metadata(dir).ok()?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        Some((meta.dev(), meta.ino()))
    }
    #[cfg(not(unix))]
    {
        Some((0, u64::from(meta.is_dir())))
    }
}

/// Editors' temporary and backup files (`.x.swp`, `x~`, vim's `4913`), and hidden folders.
fn ignored(name: &str) -> bool {
    name.starts_with('.') || name.ends_with('~') || name == "4913"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_chapter_files_make_a_chapter_edit() {
        let tmp = tempfile::tempdir().unwrap();
        let spec = tmp.path().join("spec");
        std::fs::create_dir_all(spec.join("en")).unwrap();
        for f in ["en/a.md", "en/b.md", "contract.yaml"] {
            std::fs::write(spec.join(f), "x").unwrap();
        }
        let p = |f: &str| spec.join(f);
        let set = |c: &[&str]| Some(c.iter().map(|s| s.to_string()).collect());
        assert_eq!(edited_chapters(&spec, &[p("en/a.md")]), set(&["a"]));
        // sed -i: a temporary file, gone by now, renamed over the chapter; the folder's own event.
        assert_eq!(
            edited_chapters(&spec, &[p("en"), p("en/a.md"), p("en/sedX1b2")]),
            set(&["a"])
        );
        assert_eq!(
            edited_chapters(&spec, &[p("en/a.md"), p("en/b.md")]),
            set(&["a", "b"])
        );
        assert_eq!(
            edited_chapters(&spec, &[p("en/a.md"), p("contract.yaml")]),
            None
        );
        assert_eq!(
            edited_chapters(&spec, &[p("en/gone.md")]),
            None,
            "a deleted chapter"
        );
        assert_eq!(
            edited_chapters(&spec, &[p("en")]),
            None,
            "nothing but a folder"
        );
    }
}
