//! Writing the site: into a fresh folder beside the output, swapped in at the end.
//!
//! A rebuild reuses (hard-links) the previous site's files whose bytes are unchanged. To know that
//! without reading them, the output folder keeps a manifest ([`MANIFEST`]) of every file's hash and
//! size, written last. Why: on the machines here the kernel evicts page cache that has been idle
//! for about half a minute, and comparing against an evicted 100 MB site read it back from disk —
//! a rebuild a minute after the last one spent more time reading the old site than rendering the
//! new one.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::SystemTime;

use rayon::prelude::*;

use kcontract_spec::diagnostic::Diagnostic;

/// The manifest's file name inside the output folder. It marks the folder as a site kcontract
/// built: `build` replaces a folder only when it is empty or holds this manifest and nothing but
/// the files the manifest lists.
pub(super) const MANIFEST: &str = ".kcontract-manifest";

const MANIFEST_HEADER: &str = "# kcontract build manifest, format 2: xxh3-128 hash, size and path of \
each file kcontract wrote here. It marks the folder as a site kcontract may replace (without it, or \
with other files here, `build` refuses) and lets the next build reuse unchanged files without reading \
them.\n";

/// The header of the first format, whose rows are the same: a site built before format 2 is still
/// a site kcontract built.
const MANIFEST_HEADER_1: &str = "# kcontract build manifest, format 1: xxh3-128 hash, size and path of \
each file, so the next build can reuse unchanged files without reading them. Safe to delete.\n";

/// A file's content identity: 128-bit xxh3 and length. Not cryptographic: it only has to tell a
/// rebuilt file from the one before it, and it hashes a large site in milliseconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Digest {
    hash: u128,
    len: u64,
}

impl Digest {
    fn of(bytes: &[u8]) -> Digest {
        Digest {
            hash: xxhash_rust::xxh3::xxh3_128(bytes),
            len: bytes.len() as u64,
        }
    }
}

/// The previous build's manifest, and when it was written.
struct Previous {
    files: BTreeMap<String, Digest>,
    written: SystemTime,
}

impl Previous {
    /// Read `dir`'s manifest: `None` when there is none, it is not a regular file or cannot be
    /// read, or it is not a manifest of a known format.
    fn read(dir: &Path) -> Option<Previous> {
        let path = dir.join(MANIFEST);
        let meta = fs::symlink_metadata(&path).ok()?;
        if !meta.is_file() {
            return None;
        }
        let written = meta.modified().ok()?;
        let bytes =
            kcontract_spec::fsutil::read_regular(&path, kcontract_spec::fsutil::MAX_INPUT).ok()?;
        Some(Previous {
            files: parse_manifest(std::str::from_utf8(&bytes).ok()?)?,
            written,
        })
    }

    /// The old file at `prev` (metadata `meta`) can be trusted to hold `want` without reading it:
    /// the manifest says so and the file was last modified before the manifest was written. A file
    /// edited after the build is newer than the manifest, so it is compared byte by byte instead.
    fn vouches(&self, rel: &str, meta: &fs::Metadata, want: Digest) -> bool {
        self.files.get(rel) == Some(&want) && meta.modified().is_ok_and(|m| m < self.written)
    }
}

/// The rows of a manifest (format 1 or 2), or `None` for anything else: another header, a
/// malformed row, a path that is absolute or has an empty, `.` or `..` part.
fn parse_manifest(text: &str) -> Option<BTreeMap<String, Digest>> {
    let body = text
        .strip_prefix(MANIFEST_HEADER)
        .or_else(|| text.strip_prefix(MANIFEST_HEADER_1))?;
    let mut files = BTreeMap::new();
    for line in body.lines() {
        let mut parts = line.splitn(3, ' ');
        let hash = parts.next()?;
        if hash.len() != 32 {
            return None;
        }
        let hash = u128::from_str_radix(hash, 16).ok()?;
        let len = parts.next()?.parse().ok()?;
        let rel = parts.next()?;
        if rel.split('/').any(|p| matches!(p, "" | "." | "..")) || rel.contains(['\\', '\r', '\0'])
        {
            return None;
        }
        files.insert(rel.to_string(), Digest { hash, len });
    }
    Some(files)
}

/// The files a site's manifest (`.kcontract-manifest`, its text `text`) lists, with their sizes,
/// in path order; `None` when `text` is not a manifest kcontract wrote (then `build` will not
/// replace the folder).
pub fn manifest_files(text: &str) -> Option<Vec<(String, u64)>> {
    Some(
        parse_manifest(text)?
            .into_iter()
            .map(|(rel, d)| (rel, d.len))
            .collect(),
    )
}

fn manifest_text(files: &BTreeMap<String, Digest>) -> String {
    let mut out = String::with_capacity(MANIFEST_HEADER.len() + files.len() * 80);
    out.push_str(MANIFEST_HEADER);
    for (rel, d) in files {
        out.push_str(&format!("{:032x} {} {rel}\n", d.hash, d.len));
    }
    out
}

/// What the output folder is, when it may be written.
enum Found {
    /// Nothing there yet.
    Absent,
    /// An empty folder.
    Empty,
    /// A site kcontract built, with nothing but the files its manifest lists.
    Site(Previous),
}

/// A refusal to write into `out` (K0408): its files stay as they are.
fn refuse(message: String, help: &str) -> Diagnostic {
    Diagnostic::error("K0408", message).help(help.to_string())
}

/// Whether `build` may replace the folder `out` with a site, and what is there now. Refused (so
/// nothing of a person's is ever deleted): the spec folder, a folder inside it or holding it; a
/// read-only folder; a folder that is not empty and not a site kcontract built (no manifest);
/// a site that holds files its manifest does not list (a `CNAME`, a `.git` of a gh-pages
/// checkout). `spec` is the spec folder.
fn inspect(out: &Path, spec: &Path) -> Result<Found, Diagnostic> {
    let shown = out.display();
    if let (Ok(o), Ok(s)) = (
        kcontract_spec::fsutil::resolved(out),
        kcontract_spec::fsutil::resolved(spec),
    ) {
        let what = if o == s {
            Some("is the spec folder")
        } else if o.starts_with(&s) {
            Some("is inside the spec folder")
        } else if s.starts_with(&o) {
            Some("holds the spec folder")
        } else {
            None
        };
        if let Some(what) = what {
            return Err(refuse(
                format!("the output folder `{shown}` {what}"),
                "pass --out with a folder beside the spec folder, e.g. --out site",
            ));
        }
    }
    let meta = match fs::symlink_metadata(out) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Found::Absent),
        Err(e) => {
            return Err(OutputDir::error(out, format!("cannot read `{shown}`"), &e));
        }
    };
    if meta.file_type().is_symlink() {
        return Err(Diagnostic::error(
            "K0401",
            format!("the output path `{shown}` is a symbolic link"),
        )
        .help(
            "pass the real folder with --out; kcontract does not write through or replace links",
        ));
    }
    if !meta.is_dir() {
        return Err(Diagnostic::error(
            "K0401",
            format!("the output path `{shown}` is a file, not a folder"),
        )
        .help("pass --out with a folder path; kcontract will not overwrite a file"));
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        if meta.permissions().mode() & 0o200 == 0 {
            return Err(refuse(
                format!(
                    "the output folder `{shown}` is read-only (mode {:o})",
                    meta.permissions().mode() & 0o7777
                ),
                "make it writable (chmod u+w) if kcontract may replace it, or pass --out with another folder",
            ));
        }
    }
    let mut entries = fs::read_dir(out)
        .map_err(|e| OutputDir::error(out, format!("cannot read `{shown}`"), &e))?;
    if entries.next().is_none() {
        return Ok(Found::Empty);
    }
    let Some(previous) = Previous::read(out) else {
        return Err(refuse(
            format!("the output folder `{shown}` is not empty and is not a site kcontract built"),
            "kcontract replaces only an empty folder or a site it built (marked by its `.kcontract-manifest`): pass --out with a new or empty folder, or move the files away yourself",
        ));
    };
    let unlisted = unlisted(out, &previous.files);
    if !unlisted.is_empty() {
        let mut names: Vec<String> = unlisted
            .iter()
            .take(5)
            .map(|p| format!("`{}`", out.join(p).display()))
            .collect();
        if unlisted.len() > 5 {
            names.push(format!("and {} more", unlisted.len() - 5));
        }
        return Err(refuse(
            format!(
                "the output folder `{shown}` holds files kcontract did not write: {}",
                names.join(", ")
            ),
            "kcontract replaces the whole folder: move these out of it (e.g. keep a gh-pages checkout elsewhere and copy the site in), or pass --out with another folder",
        ));
    }
    Ok(Found::Site(previous))
}

/// The entries of the site folder `out` that its manifest does not account for: a path not
/// listed, a folder with no listed file below it (named once, not file by file), a folder where a
/// file is listed. At a listed path anything but a folder is kcontract's to replace: a page a
/// person swapped for a symbolic link loses only the link, its target is not touched. Sorted.
fn unlisted(out: &Path, files: &BTreeMap<String, Digest>) -> Vec<PathBuf> {
    let mut folders: BTreeSet<&str> = BTreeSet::new();
    for rel in files.keys() {
        let mut at = 0;
        while let Some(i) = rel[at..].find('/') {
            folders.insert(&rel[..at + i]);
            at += i + 1;
        }
    }
    let mut found = Vec::new();
    let mut walk = walkdir::WalkDir::new(out)
        .min_depth(1)
        .follow_links(false)
        .sort_by_file_name()
        .into_iter();
    while let Some(entry) = walk.next() {
        let Ok(e) = entry else {
            continue;
        };
        let Ok(rel) = e.path().strip_prefix(out) else {
            continue;
        };
        let key = rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy())
            .collect::<Vec<_>>()
            .join("/");
        let ft = e.file_type();
        let ours = if ft.is_dir() {
            folders.contains(key.as_str())
        } else {
            key == MANIFEST || files.contains_key(&key)
        };
        if !ours {
            found.push(rel.to_path_buf());
            if ft.is_dir() {
                walk.skip_current_dir();
            }
        }
    }
    found
}

/// The output folder's site, put back from where a build stopped by a kill had moved it aside
/// ([`check_output`], [`BuildReport::restored`](crate::BuildReport::restored)): worth a note to
/// the person, who may wonder why an older site is there. Its text is the note's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Restored {
    /// The output folder.
    pub out: PathBuf,
}

impl std::fmt::Display for Restored {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "`{}` was put back from where a stopped build had moved it",
            self.out.display()
        )
    }
}

/// A build that left the site moved aside and was stopped before it moved the new one in (only
/// where the atomic exchange is not available): put the newest such site back at `out`, so that
/// `out` holds a whole site again before anything else is decided. Says so when it did.
fn recover(out: &Path, parent: &Path, name: &str) -> Option<Restored> {
    if fs::symlink_metadata(out).is_ok() {
        return None;
    }
    let prefix = format!(".{name}.kcontract-old-");
    let entries = fs::read_dir(parent).ok()?;
    let newest = entries
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with(&prefix))
        .filter(|e| e.path().join(MANIFEST).is_file())
        .filter_map(|e| Some((e.metadata().ok()?.modified().ok()?, e.path())))
        .max();
    let (_, aside) = newest?;
    fs::rename(&aside, out).ok()?;
    Some(Restored {
        out: out.to_path_buf(),
    })
}

/// Put back a site that a build stopped by a kill left moved aside from `out` (only where the
/// folders cannot be exchanged atomically: the old site is moved aside, then the new one in), and
/// say so: the binary calls it first, to tell the person why an older site is at `out`.
/// [`check_output`] and [`build`](crate::build) do it too, for any other caller.
pub fn restore_output(out: &Path) -> Result<Option<Restored>, Diagnostic> {
    let (parent, name) = parent_and_name(out)?;
    Ok(recover(out, &parent, &name))
}

/// Whether `build --out OUT` may write its site there (the checks of the build itself, made
/// before the spec is read so that a refusal comes at once; the build makes them again before it
/// replaces anything). `spec` is the spec folder. A site a stopped build left moved aside is put
/// back first ([`restore_output`]).
pub fn check_output(out: &Path, spec: &Path) -> Result<(), Diagnostic> {
    restore_output(out)?;
    inspect(out, spec).map(|_| ())
}

/// The folder holding `out` and `out`'s name; an error for a path without a name (`.`, `..`, `/`).
fn parent_and_name(out: &Path) -> Result<(PathBuf, String), Diagnostic> {
    let name = out
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .filter(|n| n != "." && n != "..")
        .ok_or_else(|| {
            Diagnostic::error(
                "K0401",
                format!("`{}` cannot be an output folder", out.display()),
            )
            .help("name the folder, e.g. --out site")
        })?;
    let parent = out
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    Ok((parent.to_path_buf(), name))
}

/// The places in [`OutputDir::commit`] where the swap of the new site for the old one can be
/// cut short, before and after each rename: what the caller's `at` hook is told, so a test can stop
/// the process there as a kill would (the binary does, under `KCONTRACT_TEST_KILL_AT=<step>`;
/// `tests/suite/boundaries.rs`). `KCONTRACT_TEST_NO_EXCHANGE` makes the build use the two renames
/// the exchange replaces.
#[derive(Clone, Copy, Debug, PartialEq, Eq, strum::IntoStaticStr)]
#[strum(serialize_all = "kebab-case")]
pub enum SwapStep {
    /// The new site is about to be exchanged with the old one.
    BeforeExchange,
    /// The two were exchanged; the old site (now at the temporary path) is not yet removed.
    AfterExchange,
    /// No exchange: the old site is about to be moved aside.
    BeforeAside,
    /// The old site is aside; the new one not yet in its place.
    BetweenRenames,
    /// The new site is in place; the old one, aside, not yet removed.
    AfterRenames,
}

impl SwapStep {
    /// The step's name (`before-exchange`, …).
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

/// How the new site took the old one's place.
enum Swapped {
    /// Atomically: the old site is now at the temporary path.
    Exchanged,
    /// The old site was moved aside to this path first, then the new one in.
    MovedAside(PathBuf),
    /// There was no old site.
    Placed,
}

/// Swap the folders `new` and `out` in one step where the system can (Linux's `renameat2` with
/// `RENAME_EXCHANGE`): at no moment is there no site at `out`. `Ok(false)` when the system or the
/// file system cannot.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn exchange(new: &Path, out: &Path) -> std::io::Result<bool> {
    use nix::errno::Errno;
    use nix::fcntl::{AT_FDCWD, RenameFlags, renameat2};
    if std::env::var_os("KCONTRACT_TEST_NO_EXCHANGE").is_some() {
        return Ok(false);
    }
    match renameat2(AT_FDCWD, new, AT_FDCWD, out, RenameFlags::RENAME_EXCHANGE) {
        Ok(()) => Ok(true),
        Err(Errno::EINVAL | Errno::ENOSYS | Errno::EOPNOTSUPP) => Ok(false),
        Err(e) => Err(std::io::Error::from(e)),
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn exchange(_new: &Path, _out: &Path) -> std::io::Result<bool> {
    Ok(false)
}

/// The output folder during a build: files go into a fresh sibling folder, which replaces the old
/// output only at the end ([`OutputDir::commit`]). A failed build calls [`OutputDir::abandon`], and
/// the previous site stays as it was. Paths are relative names produced by the renderer (fixed
/// names and validated chapter names), never taken from spec text.
pub(super) struct OutputDir {
    out: PathBuf,
    /// The spec folder, which the output must never be.
    spec: PathBuf,
    parent: PathBuf,
    name: String,
    tmp: PathBuf,
    /// The output folder held a site when the build began: files whose bytes are unchanged are
    /// hard-linked from it instead of written again.
    reuse: bool,
    /// The manifest of that site.
    previous: Option<Previous>,
    /// The site at `out` was put back from where a stopped build had moved it.
    pub(super) restored: Option<Restored>,
    /// Every file written or linked in this build, for the new manifest.
    written: Mutex<BTreeMap<String, Digest>>,
    /// Folders already created inside `tmp`.
    dirs: Mutex<BTreeSet<PathBuf>>,
}

impl OutputDir {
    fn error(out: &Path, what: String, e: &std::io::Error) -> Diagnostic {
        Diagnostic::error("K0401", format!("{what}: {e}"))
            .in_file(out)
            .help(
                "check that the output folder's parent is writable; the previous site is untouched",
            )
    }

    /// Check the output folder ([`check_output`]), sweep what killed builds left beside it, and
    /// make the folder to build into: a fresh name (the process id and random bits) no other
    /// build uses, even one of another container with the same process id.
    pub(super) fn prepare(out: &Path, spec: &Path) -> Result<OutputDir, Diagnostic> {
        let (parent, name) = parent_and_name(out)?;
        let restored = recover(out, &parent, &name);
        let found = inspect(out, spec)?;
        // `--out a/new/site` makes `a/new` first. Messages name the user's paths only: the
        // temporary folder is an implementation detail that no longer exists after a failure.
        fs::create_dir_all(&parent).map_err(|e| {
            Self::error(
                out,
                format!("cannot create the folder `{}`", parent.display()),
                &e,
            )
        })?;
        for kind in ["new", "old"] {
            kcontract_spec::fsutil::sweep_stale(&parent, &format!(".{name}.kcontract-{kind}-"));
        }
        let tmp = parent.join(format!(
            ".{name}.kcontract-new-{}",
            kcontract_spec::fsutil::unique_suffix()
        ));
        fs::create_dir(&tmp).map_err(|e| {
            Self::error(
                out,
                format!(
                    "cannot create a folder beside `{}` to build into",
                    out.display()
                ),
                &e,
            )
        })?;
        let (reuse, previous) = match found {
            Found::Site(p) => (true, Some(p)),
            Found::Absent | Found::Empty => (false, None),
        };
        Ok(OutputDir {
            out: out.to_path_buf(),
            spec: spec.to_path_buf(),
            parent,
            name,
            tmp,
            reuse,
            previous,
            restored,
            written: Mutex::default(),
            dirs: Mutex::default(),
        })
    }

    /// Write one file (safe to call from several threads).
    pub(super) fn write(&self, rel: &str, bytes: &[u8]) -> Result<(), Diagnostic> {
        let p = self.tmp.join(rel);
        let written = match p.parent() {
            Some(dir) if dir != self.tmp => {
                self.ensure_dir(dir).and_then(|()| self.put(rel, &p, bytes))
            }
            _ => self.put(rel, &p, bytes),
        };
        written.map_err(|e| {
            Self::error(
                &self.out,
                format!("cannot write `{rel}` of `{}`", self.out.display()),
                &e,
            )
        })
    }

    /// Create `dir` once per build (a thousand files share three folders).
    fn ensure_dir(&self, dir: &Path) -> std::io::Result<()> {
        let mut made = self.dirs.lock().unwrap_or_else(|e| e.into_inner());
        if !made.contains(dir) {
            fs::create_dir_all(dir)?;
            made.insert(dir.to_path_buf());
        }
        Ok(())
    }

    /// Write `bytes` at `p`, or hard-link the previous site's `rel` when it holds exactly these
    /// bytes: the manifest vouches for it, or its bytes compare equal. Why: rebuilding a large site
    /// rewrote (and then deleted) ~100 MB of unchanged files, and on the VMs here that kernel work
    /// was the most variable part of a build. The old file is only read, never changed, so a failed
    /// build still leaves the previous site as it was. Any doubt (not a plain file, another size, a
    /// read or link error) falls back to writing.
    fn put(&self, rel: &str, p: &Path, bytes: &[u8]) -> std::io::Result<()> {
        let digest = Digest::of(bytes);
        self.written
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(rel.to_string(), digest);
        if self.reuse {
            let prev = self.out.join(rel);
            if let Ok(meta) = fs::symlink_metadata(&prev)
                && meta.is_file()
                && meta.len() == digest.len
            {
                let vouched = self
                    .previous
                    .as_ref()
                    .is_some_and(|m| m.vouches(rel, &meta, digest));
                if (vouched || same_bytes(&prev, bytes)) && fs::hard_link(&prev, p).is_ok() {
                    return Ok(());
                }
            }
        }
        fs::write(p, bytes)
    }

    /// Give up: remove the partial new site; the old one was never touched.
    pub(super) fn abandon(self) {
        let _ = fs::remove_dir_all(&self.tmp);
    }

    /// Write the manifest (last, so its time is later than every file's), check the output folder
    /// again (a person may have put a file there during the build), then swap the new site in:
    /// exchanged with the old one in one step where the system can, else the old moved aside and
    /// the new moved in (a kill between the two is undone by the next build, [`recover`]); the
    /// old site is removed last. Under any kill, `out` holds the old site or the new one, whole.
    pub(super) fn commit(self, at: &dyn Fn(SwapStep)) -> Result<(), Diagnostic> {
        let files = std::mem::take(&mut *self.written.lock().unwrap_or_else(|e| e.into_inner()));
        let manifest = self.tmp.join(MANIFEST);
        if let Err(e) = fs::File::create(&manifest)
            .and_then(|mut f| f.write_all(manifest_text(&files).as_bytes()))
        {
            let _ = fs::remove_dir_all(&self.tmp);
            return Err(Self::error(
                &self.out,
                format!("cannot write `{MANIFEST}` of `{}`", self.out.display()),
                &e,
            ));
        }
        let found = match inspect(&self.out, &self.spec) {
            Ok(f) => f,
            Err(d) => {
                let _ = fs::remove_dir_all(&self.tmp);
                return Err(d);
            }
        };
        if let Ok(meta) = fs::metadata(&self.out) {
            // The folder keeps the permissions it had (a site served by another user).
            let _ = fs::set_permissions(&self.tmp, meta.permissions());
        }
        let swapped = match found {
            Found::Absent => self.place(),
            Found::Empty | Found::Site(_) => self.swap(at),
        };
        match swapped {
            Ok(Swapped::Exchanged) => {
                at(SwapStep::AfterExchange);
                remove_tree(&self.tmp);
            }
            Ok(Swapped::MovedAside(old)) => remove_tree(&old),
            Ok(Swapped::Placed) => {}
            Err(d) => {
                let _ = fs::remove_dir_all(&self.tmp);
                return Err(d);
            }
        }
        Ok(())
    }

    /// Move the new site to `out`, where there is none.
    fn place(&self) -> Result<Swapped, Diagnostic> {
        fs::rename(&self.tmp, &self.out).map_err(|e| {
            Self::error(
                &self.out,
                format!("cannot move the new site into `{}`", self.out.display()),
                &e,
            )
        })?;
        Ok(Swapped::Placed)
    }

    /// Put the new site in the old one's place.
    fn swap(&self, at: &dyn Fn(SwapStep)) -> Result<Swapped, Diagnostic> {
        at(SwapStep::BeforeExchange);
        match exchange(&self.tmp, &self.out) {
            Ok(true) => return Ok(Swapped::Exchanged),
            Ok(false) => {}
            Err(e) => {
                return Err(Self::error(
                    &self.out,
                    format!("cannot move the new site into `{}`", self.out.display()),
                    &e,
                ));
            }
        }
        let old = self.parent.join(format!(
            ".{}.kcontract-old-{}",
            self.name,
            kcontract_spec::fsutil::unique_suffix()
        ));
        at(SwapStep::BeforeAside);
        fs::rename(&self.out, &old).map_err(|e| {
            Self::error(
                &self.out,
                format!("cannot move the old `{}` aside", self.out.display()),
                &e,
            )
        })?;
        at(SwapStep::BetweenRenames);
        if let Err(e) = fs::rename(&self.tmp, &self.out) {
            let _ = fs::rename(&old, &self.out);
            return Err(Self::error(
                &self.out,
                format!("cannot move the new site into `{}`", self.out.display()),
                &e,
            ));
        }
        at(SwapStep::AfterRenames);
        Ok(Swapped::MovedAside(old))
    }
}

/// Whether the file at `p` holds exactly `bytes`, read in pieces through one small buffer (reading
/// each old file whole allocated as much again as the site).
fn same_bytes(p: &Path, bytes: &[u8]) -> bool {
    use std::io::Read;
    #[allow(clippy::disallowed_methods)] // kcontract's own output, compared before rewriting it
    let Ok(mut f) = fs::File::open(p) else {
        return false;
    };
    let mut buf = [0u8; 16 * 1024];
    let mut at = 0;
    loop {
        match f.read(&mut buf) {
            Ok(0) => return at == bytes.len(),
            Ok(n) => {
                if bytes.get(at..at + n) != Some(&buf[..n]) {
                    return false;
                }
                at += n;
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => return false,
        }
    }
}

/// Remove the previous site after the swap, its top-level entries (`en/`, `zh/`, `assets/`, files)
/// in parallel: unlinking a thousand files is a visible part of a large build. Best effort, like
/// any clean-up: a leftover is harmless, and removed by a later build once it is stale
/// ([`kcontract_spec::fsutil::sweep_stale`]).
fn remove_tree(dir: &Path) {
    if let Ok(entries) = fs::read_dir(dir) {
        let paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
        paths.par_iter().for_each(|p| {
            if fs::symlink_metadata(p).is_ok_and(|m| m.is_dir()) {
                let _ = fs::remove_dir_all(p);
            } else {
                let _ = fs::remove_file(p);
            }
        });
    }
    let _ = fs::remove_dir_all(dir);
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)] // tests read the files they wrote
mod tests {
    use super::*;

    #[test]
    fn manifest_round_trips_and_rejects_anything_else() {
        let mut files = BTreeMap::new();
        files.insert("en/index.html".to_string(), Digest::of(b"<p>hi</p>"));
        files.insert("a b/with space.html".to_string(), Digest::of(b""));
        let text = manifest_text(&files);
        assert_eq!(parse_manifest(&text), Some(files));
        // Another header (an older or newer format), a short line, a bad hash, a bad size.
        assert_eq!(
            parse_manifest(&text.replacen("format 2", "format 3", 1)),
            None
        );
        // A site of the first format is still one kcontract built.
        let first = text.replacen(MANIFEST_HEADER, MANIFEST_HEADER_1, 1);
        assert_eq!(parse_manifest(&first).map(|f| f.len()), Some(2));
        let h = "0".repeat(32);
        for bad in [
            "abc\n".to_string(),
            "xyz 1 a.html\n".into(),
            format!("{h} -1 a.html\n"),
            format!("{h} 1\n"),
            format!("{h} 1 ../a.html\n"),
            format!("{h} 1 /a.html\n"),
            format!("{h} 1 a//b.html\n"),
        ] {
            assert_eq!(
                parse_manifest(&format!("{MANIFEST_HEADER}{bad}")),
                None,
                "{bad}"
            );
        }
    }

    /// Two builds into one folder from one process (as two containers with the same process id
    /// on one volume): each builds in a folder of its own, and the folder ends up holding one
    /// whole site, the last one's, not a mix.
    #[test]
    fn two_builds_with_one_process_id_do_not_mix() {
        let tmp = tempfile::tempdir().unwrap();
        let (out, spec) = (tmp.path().join("site"), tmp.path().join("spec"));
        fs::create_dir_all(&spec).unwrap();
        let a = OutputDir::prepare(&out, &spec).unwrap();
        let b = OutputDir::prepare(&out, &spec).unwrap();
        assert_ne!(a.tmp, b.tmp);
        for (d, who) in [(&a, "a"), (&b, "b")] {
            d.write("en/page.html", who.as_bytes()).unwrap();
            d.write(&format!("{who}-only.html"), b"x").unwrap();
        }
        a.commit(&|_| {}).unwrap();
        b.commit(&|_| {}).unwrap();
        assert_eq!(fs::read(out.join("en/page.html")).unwrap(), b"b");
        assert!(out.join("b-only.html").is_file() && !out.join("a-only.html").exists());
        let names: Vec<String> = fs::read_dir(tmp.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names.len(), 2, "nothing left beside the site: {names:?}");
    }

    #[test]
    fn digests_tell_sizes_and_bytes_apart() {
        assert_ne!(Digest::of(b"a"), Digest::of(b"b"));
        assert_ne!(Digest::of(b"a"), Digest::of(b"aa"));
        assert_eq!(Digest::of(b"same"), Digest::of(b"same"));
    }
}
