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

use crate::diagnostic::Diagnostic;

/// The manifest's file name inside the output folder. Deleting it is harmless: the next build then
/// compares every file byte by byte, and writes a new one.
pub(super) const MANIFEST: &str = ".kcontract-manifest";

const MANIFEST_HEADER: &str = "# kcontract build manifest, format 1: xxh3-128 hash, size and path of \
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
    /// Read `dir`'s manifest. Anything unexpected (missing, unreadable, another format, a malformed
    /// line) means no manifest: every file is then compared byte by byte, as without one.
    fn read(dir: &Path) -> Option<Previous> {
        let path = dir.join(MANIFEST);
        let meta = fs::symlink_metadata(&path).ok()?;
        if !meta.is_file() {
            return None;
        }
        let written = meta.modified().ok()?;
        let text = fs::read_to_string(&path).ok()?;
        Some(Previous {
            files: parse_manifest(&text)?,
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

fn parse_manifest(text: &str) -> Option<BTreeMap<String, Digest>> {
    let body = text.strip_prefix(MANIFEST_HEADER)?;
    let mut files = BTreeMap::new();
    for line in body.lines() {
        let mut parts = line.splitn(3, ' ');
        let hash = u128::from_str_radix(parts.next()?, 16).ok()?;
        let len = parts.next()?.parse().ok()?;
        let rel = parts.next()?;
        files.insert(rel.to_string(), Digest { hash, len });
    }
    Some(files)
}

fn manifest_text(files: &BTreeMap<String, Digest>) -> String {
    let mut out = String::with_capacity(MANIFEST_HEADER.len() + files.len() * 80);
    out.push_str(MANIFEST_HEADER);
    for (rel, d) in files {
        out.push_str(&format!("{:032x} {} {rel}\n", d.hash, d.len));
    }
    out
}

/// The output folder during a build: files go into a fresh sibling folder, which replaces the old
/// output only at the end ([`OutputDir::commit`]). A failed build calls [`OutputDir::abandon`], and
/// the previous site stays as it was. Paths are relative names produced by the renderer (fixed
/// names and validated chapter names), never taken from spec text.
pub(super) struct OutputDir {
    out: PathBuf,
    tmp: PathBuf,
    old: PathBuf,
    /// The output folder held a site when the build began: files whose bytes are unchanged are
    /// hard-linked from it instead of written again.
    reuse: bool,
    /// The manifest of that site, if it had a usable one.
    previous: Option<Previous>,
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

    pub(super) fn prepare(out: &Path) -> Result<OutputDir, Diagnostic> {
        if fs::symlink_metadata(out).is_ok_and(|m| m.file_type().is_symlink()) {
            return Err(Diagnostic::error(
                "K0401",
                format!("the output path `{}` is a symbolic link", out.display()),
            )
            .help("pass the real folder with --out; kcontract does not write through or replace links"));
        }
        if out.exists() && !out.is_dir() {
            return Err(Diagnostic::error(
                "K0401",
                format!(
                    "the output path `{}` is a file, not a folder",
                    out.display()
                ),
            )
            .help("pass --out with a folder path; kcontract will not overwrite a file"));
        }
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
        let pid = std::process::id();
        let reuse = out.is_dir();
        let dir = OutputDir {
            out: out.to_path_buf(),
            tmp: parent.join(format!(".{name}.kcontract-new-{pid}")),
            old: parent.join(format!(".{name}.kcontract-old-{pid}")),
            reuse,
            previous: if reuse { Previous::read(out) } else { None },
            written: Mutex::default(),
            dirs: Mutex::default(),
        };
        // `--out a/new/site` makes `a/new` first. Messages name the user's paths only: the
        // temporary folder is an implementation detail that no longer exists after a failure.
        fs::create_dir_all(parent).map_err(|e| {
            Self::error(
                out,
                format!("cannot create the folder `{}`", parent.display()),
                &e,
            )
        })?;
        let _ = fs::remove_dir_all(&dir.tmp);
        fs::create_dir(&dir.tmp).map_err(|e| {
            Self::error(
                out,
                format!(
                    "cannot create a folder beside `{}` to build into",
                    out.display()
                ),
                &e,
            )
        })?;
        Ok(dir)
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

    /// Write the manifest (last, so its time is later than every file's), then swap the new site
    /// in.
    pub(super) fn commit(self) -> Result<(), Diagnostic> {
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
        if self.out.exists()
            && let Err(e) = fs::rename(&self.out, &self.old)
        {
            let _ = fs::remove_dir_all(&self.tmp);
            return Err(Self::error(
                &self.out,
                format!("cannot move the old `{}` aside", self.out.display()),
                &e,
            ));
        }
        if let Err(e) = fs::rename(&self.tmp, &self.out) {
            let _ = fs::rename(&self.old, &self.out);
            let _ = fs::remove_dir_all(&self.tmp);
            return Err(Self::error(
                &self.out,
                format!("cannot move the new site into `{}`", self.out.display()),
                &e,
            ));
        }
        remove_tree(&self.old);
        Ok(())
    }
}

/// Whether the file at `p` holds exactly `bytes`, read in pieces through one small buffer (reading
/// each old file whole allocated as much again as the site).
fn same_bytes(p: &Path, bytes: &[u8]) -> bool {
    use std::io::Read;
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
/// any clean-up: a leftover is harmless and named after this process.
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
            parse_manifest(&text.replacen("format 1", "format 2", 1)),
            None
        );
        for bad in ["abc\n", "xyz 1 a.html\n", "00 -1 a.html\n", "00 1\n"] {
            assert_eq!(
                parse_manifest(&format!("{MANIFEST_HEADER}{bad}")),
                None,
                "{bad}"
            );
        }
    }

    #[test]
    fn digests_tell_sizes_and_bytes_apart() {
        assert_ne!(Digest::of(b"a"), Digest::of(b"b"));
        assert_ne!(Digest::of(b"a"), Digest::of(b"aa"));
        assert_eq!(Digest::of(b"same"), Digest::of(b"same"));
    }
}
