//! A harness session: one runtime, a private work folder (rootfs, bundles, the runtime's `--root`
//! state folder) that is removed with everything the runtime created for it, and the waiting
//! parameters its sequences use.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use crate::conformance::bundle::Rootfs;
use crate::conformance::error::{HarnessError, IoContext};
use crate::conformance::oci::{OciRuntime, RuntimeCli};
use crate::model::Op;

use super::cleanup::{cgroup_dirs_with_prefix, disarm_all, parse_list, sweep_stale_sessions};
use super::observed::Observed;
use super::sequence::{Sequence, Timing};

/// Sessions started by this process: numbers their work folders and container IDs, so that
/// sessions of tests running in parallel never share one.
static SESSIONS: AtomicU64 = AtomicU64::new(0);

/// A harness session for one runtime: a private work folder (rootfs, bundles, the runtime's
/// `--root` state folder), removed with everything the runtime created for it when the session is
/// dropped — also when a test panics.
#[derive(Debug)]
pub struct Session {
    cli: RuntimeCli,
    work: PathBuf,
    /// The busybox rootfs of the trace sequences; `None` for a [`Session::bare`] one.
    rootfs: Option<Rootfs>,
    prefix: String,
    sequences: u64,
    timing: Timing,
}

impl Session {
    /// Sets up a session for `kind`: finds the binary, builds the rootfs. Fails saying why when the
    /// runtime or a static busybox is missing.
    pub fn new(kind: OciRuntime) -> Result<Session, HarnessError> {
        Session::start(kind, true)
    }

    /// A session without the busybox rootfs, for harnesses that bring their own bundles (the
    /// platform runs of `kcontract_platform`): the runtime, the private folders, and the same clean-up.
    pub fn bare(kind: OciRuntime) -> Result<Session, HarnessError> {
        Session::start(kind, false)
    }

    fn start(kind: OciRuntime, with_rootfs: bool) -> Result<Session, HarnessError> {
        let n = SESSIONS.fetch_add(1, Ordering::Relaxed);
        let prefix = format!("kc{}-{}-{n}", kind.as_str(), std::process::id());
        sweep_stale_sessions(
            |stale| RuntimeCli::locate(kind, &stale.join("state"), &stale.join("scratch")).ok(),
            kind,
        );
        let work = std::env::temp_dir().join(format!("kcontract-{prefix}"));
        let _ = std::fs::remove_dir_all(&work);
        std::fs::create_dir_all(&work).doing(|| format!("create {}", work.display()))?;
        // From here on the folder is removed even if the setup fails.
        let setup = || -> Result<(RuntimeCli, Option<Rootfs>), HarnessError> {
            let cli = RuntimeCli::locate(kind, &work.join("state"), &work.join("scratch"))?;
            let rootfs = if with_rootfs {
                Some(Rootfs::prepare(&work.join("rootfs"))?)
            } else {
                None
            };
            Ok((cli, rootfs))
        };
        match setup() {
            Ok((cli, rootfs)) => Ok(Session {
                cli,
                work,
                rootfs,
                prefix,
                sequences: 0,
                timing: Timing::default(),
            }),
            Err(e) => {
                let _ = std::fs::remove_dir_all(&work);
                Err(e)
            }
        }
    }

    /// The runtime.
    pub fn cli(&self) -> &RuntimeCli {
        &self.cli
    }

    /// The prefix of every container ID (and hence cgroup name) this session uses; IDs continue
    /// with `-`.
    pub fn id_prefix(&self) -> &str {
        &self.prefix
    }

    /// The work folder.
    pub fn work_dir(&self) -> &Path {
        &self.work
    }

    /// Runs `steps` on fresh container IDs and returns one observation per step. Every container
    /// the sequence created is force-deleted and its bundles removed before this returns, whether
    /// the steps succeed, the harness fails, or a panic unwinds through it.
    pub fn run(&mut self, steps: &[Op]) -> Result<Vec<Observed>, HarnessError> {
        let mut seq = self.begin()?;
        steps.iter().map(|op| seq.step(op)).collect()
    }

    /// Starts a sequence on fresh container IDs; run its steps with [`Sequence::step`]. Dropping
    /// the sequence force-deletes every container it created and removes its bundles.
    pub fn begin(&mut self) -> Result<Sequence<'_>, HarnessError> {
        let rootfs = self.rootfs.as_ref().ok_or_else(|| {
            HarnessError::Unexpected("a bare session has no rootfs to run sequences on".into())
        })?;
        self.sequences += 1;
        let dir = self.work.join(format!("seq-{}", self.sequences));
        std::fs::create_dir_all(&dir).doing(|| format!("create {}", dir.display()))?;
        let prefix = format!("{}-{}", self.prefix, self.sequences);
        Ok(Sequence::new(&self.cli, rootfs, self.timing, prefix, dir))
    }

    /// Containers the runtime still lists in this session's state folder (its `list -q`).
    pub fn listed_containers(&self) -> Result<Vec<String>, HarnessError> {
        let out = self.cli.run(&["list", "-q"])?;
        if !out.success {
            return Err(HarnessError::Unexpected(format!(
                "`{} list -q` failed: {}",
                self.cli.kind(),
                out.stderr.trim()
            )));
        }
        Ok(parse_list(&out.stdout))
    }

    /// Cgroup folders under `/sys/fs/cgroup` (three levels deep) named after this session's IDs.
    pub fn leftover_cgroups(&self) -> Vec<PathBuf> {
        // The dash keeps session 1 from matching session 10's IDs.
        cgroup_dirs_with_prefix(Path::new("/sys/fs/cgroup"), &format!("{}-", self.prefix), 3)
    }
}

impl Drop for Session {
    /// Force-deletes whatever the runtime still lists in the private state folder, removes empty
    /// cgroup folders named after this session's IDs that a runtime left behind, and removes the
    /// work folder. Errors are ignored: this is the last line of defence, and the tests check the
    /// result with [`Session::listed_containers`] and [`Session::leftover_cgroups`].
    fn drop(&mut self) {
        disarm_all(&self.work);
        if let Ok(ids) = self.listed_containers() {
            for id in ids {
                let _ = self.cli.run(&["delete", "--force", &id]);
            }
        }
        for dir in self.leftover_cgroups().into_iter().rev() {
            // rmdir on a cgroup folder only succeeds when it has no processes and no children.
            let _ = std::fs::remove_dir(dir);
        }
        let _ = std::fs::remove_dir_all(&self.work);
    }
}
