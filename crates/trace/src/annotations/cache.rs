//! The scan's per-file syntax kept between runs, keyed by the file's bytes.
//!
//! Lexing with proc-macro2 is most of what the scan costs, and what it yields ([`parse_source`]'s
//! result) depends on nothing but the file's text. So that result is stored under the xxh3-128 hash
//! of the text, and a file whose bytes are unchanged is not lexed again. Everything that depends on
//! anything else (the file's path, its Cargo package and target, the spec's clause ids) is still
//! computed on every run, so the output is the same with or without a cache.
//!
//! **Where:** `<scan root>/target/kcontract/scan-cache.json`, beside Cargo's own build cache, and
//! only when `<scan root>/target` is already a folder: kcontract never creates `target/`, so a
//! project that Cargo has not built (a fixture, a spec-only checkout) gets no stray files.
//! `KCONTRACT_NO_CACHE=1` (any value) turns the cache off.
//!
//! **Never in the way:** a missing, unreadable, corrupt, truncated or foreign cache (another
//! kcontract version, format or scanner) is ignored and rebuilt; one that cannot be written is
//! left alone. Neither is an error or a warning — the build is only slower — but the scan's
//! [`CacheStatus`] says it, and `build --timings` prints it.
//!
//! **Files without the marker are not read again.** Most selected files (116 of 150 here) hold no
//! `clause:` at all; reading them was 6 % of the real build's CPU time. The cache keeps each such
//! file's [`Stamp`] (size, device and inode, modification and change times) under its path, and a
//! file whose stamp is unchanged is skipped unread. The change time is set by the kernel on every
//! write, rename or `touch` and cannot be set back by any tool, so a file that was written since
//! has another stamp, whatever its size and modification time. A file changed less than
//! [`SETTLE`] before the scan is not recorded: a second write within the same tick of the file
//! system's clock (up to 2 s on FAT) could leave its stamp as it was (git's "racy" case).
//!
//! The file is rewritten (atomically) only when it changed: it holds exactly the entries the last
//! scan used, so it never grows beyond the files the `tests:` globs select.

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use serde::{Deserialize, Serialize};
use xxhash_rust::xxh3::xxh3_128;

use kcontract_spec::fsutil::write_atomic;

use super::lang::Lang;
use super::syntax::{FileSyntax, LexFailure};

/// Bump when the stored shape changes (the serde types of [`FileSyntax`], [`Entry`] and [`Stamp`]),
/// or what a stored field means (4: `todo_body` also holds for a body with no statement; 5: the
/// key is of the language and the text, and `FileSyntax` has its `lang`).
const FORMAT: u32 = 5;

/// How long ago a file must have last changed for its [`Stamp`] to be kept: longer than the
/// coarsest file system clock tick (FAT's 2 s).
const SETTLE: Duration = Duration::from_secs(3);

/// The scanner's own source: a change to how files are read invalidates the cache even when
/// neither the version nor [`FORMAT`] was bumped (as during development).
const SCANNER: [&str; 11] = [
    include_str!("lang/java.rs"),
    include_str!("lang/c.rs"),
    include_str!("syntax.rs"),
    include_str!("lang/mod.rs"),
    include_str!("lang/go.rs"),
    include_str!("lang/python.rs"),
    include_str!("lang/js.rs"),
    include_str!("items.rs"),
    include_str!("sites.rs"),
    include_str!("tokens.rs"),
    include_str!("cache.rs"),
];

/// What the scan does about a cache.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CacheChoice {
    /// Lex every file.
    Off,
    /// Read and keep the cache at this path.
    At(PathBuf),
}

impl CacheChoice {
    /// The default for a scan of `root`: `root/target/kcontract/scan-cache.json` when `root/target`
    /// is a folder and `KCONTRACT_NO_CACHE` is not set.
    pub fn for_root(root: &Path) -> CacheChoice {
        match kcontract_spec::fsutil::cache_folder(root) {
            Some(dir) => CacheChoice::At(dir.join("scan-cache.json")),
            None => CacheChoice::Off,
        }
    }
}

/// One file's result, as [`parse_source`] gave it.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(super) enum Entry {
    Syntax(FileSyntax),
    NotTokens(LexFailure),
}

impl Entry {
    fn of(text: &str, lang: Lang) -> Entry {
        match super::lang::parse(lang, text) {
            // A file without a `Clause:` line yields nothing; its items need not be kept.
            Ok(s) if s.sites.is_empty() => Entry::Syntax(FileSyntax::default()),
            Ok(s) => Entry::Syntax(s),
            Err(f) => Entry::NotTokens(f),
        }
    }
}

/// A file as it is on disk, without reading it: equal stamps mean it was not written in between
/// (see the module's doc). Only where the platform has change times and inodes (Unix).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct Stamp {
    len: u64,
    dev: u64,
    ino: u64,
    mtime: (i64, i64),
    ctime: (i64, i64),
}

impl Stamp {
    #[cfg(unix)]
    fn of(meta: &fs::Metadata) -> Option<Stamp> {
        use std::os::unix::fs::MetadataExt;
        Some(Stamp {
            len: meta.len(),
            dev: meta.dev(),
            ino: meta.ino(),
            mtime: (meta.mtime(), meta.mtime_nsec()),
            ctime: (meta.ctime(), meta.ctime_nsec()),
        })
    }

    #[cfg(not(unix))]
    fn of(_: &fs::Metadata) -> Option<Stamp> {
        None
    }

    /// The stamp, if the file last changed at least [`SETTLE`] before `now` (and after 1970).
    fn settled(meta: &fs::Metadata, now: SystemTime) -> Option<Stamp> {
        let s = Stamp::of(meta)?;
        let since_epoch = Duration::new(
            u64::try_from(s.ctime.0).ok()?,
            u32::try_from(s.ctime.1).ok()?,
        );
        let changed = SystemTime::UNIX_EPOCH.checked_add(since_epoch)?;
        (s.ctime.0 > 0 && changed + SETTLE <= now).then_some(s)
    }
}

/// The file on disk.
#[derive(Serialize, Deserialize)]
struct Stored {
    kcontract: String,
    format: u32,
    scanner: String,
    /// Hex xxh3-128 of a file's bytes → its result (sorted, so equal contents give equal files).
    files: BTreeMap<String, Entry>,
    /// Path (relative to the scan root) of a file without the marker → its stamp when it was read.
    /// (Absent from older formats, which the format check then names.)
    #[serde(default)]
    unmarked: BTreeMap<String, Stamp>,
}

/// The identity a stored cache must match to be used.
fn scanner_key() -> String {
    format!("{:032x}", xxh3_128(SCANNER.concat().as_bytes()))
}

/// The cache during one scan: what was loaded (read-only, shared by the worker threads).
pub(super) struct Cache {
    path: Option<PathBuf>,
    loaded: HashMap<String, Entry>,
    unmarked: HashMap<String, Stamp>,
    /// Why nothing was loaded, when a cache was wanted.
    ignored: Option<String>,
    /// When the scan started, for [`Stamp::settled`].
    now: SystemTime,
}

/// What the scan did with one file, for [`Cache::keep`].
pub(super) enum Used {
    /// Its syntax (or its lexing failure) under the hash of its bytes, and whether that came from
    /// the cache.
    Syntax(String, Entry, bool),
    /// A file without the marker, by path: its stamp, and whether it was skipped unread.
    Unmarked(String, Stamp, bool),
}

impl Cache {
    /// Load the cache `choice` names; anything wrong with it yields an empty cache.
    pub(super) fn open(choice: &CacheChoice) -> Cache {
        let path = match choice {
            CacheChoice::Off => {
                return Cache {
                    path: None,
                    loaded: HashMap::new(),
                    unmarked: HashMap::new(),
                    ignored: None,
                    now: SystemTime::now(),
                };
            }
            CacheChoice::At(p) => p.clone(),
        };
        let (loaded, unmarked, ignored) = match load(&path) {
            Ok(s) => (
                s.files.into_iter().collect(),
                s.unmarked.into_iter().collect(),
                None,
            ),
            Err(why) => (HashMap::new(), HashMap::new(), why.map(|e| e.to_string())),
        };
        Cache {
            path: Some(path),
            loaded,
            unmarked,
            ignored,
            now: SystemTime::now(),
        }
    }

    /// For a file recorded as without the marker: its stamp, if the file at `path` still has it
    /// (then it need not be read).
    pub(super) fn unread(&self, rel: &str, path: &Path) -> Option<Stamp> {
        let stored = self.unmarked.get(rel)?;
        let now = Stamp::of(&fs::metadata(path).ok()?)?;
        (now == *stored).then_some(now)
    }

    /// The stamp to record for a file about to be read (`meta`, its metadata), when a cache is in
    /// use and the file has settled.
    pub(super) fn stamp(&self, meta: &fs::Metadata) -> Option<Stamp> {
        self.path.as_ref()?;
        Stamp::settled(meta, self.now)
    }

    /// Is a cache in use (should the scan hand its entries to [`Cache::keep`])?
    pub(super) fn wanted(&self) -> bool {
        self.path.is_some()
    }

    /// The result for `text` read as `lang`, from the cache or by lexing it: its key (empty when the
    /// cache is off) and whether it was a hit, for [`Cache::keep`]. The key is of the language and
    /// the bytes: the same text in a `.go` and a `.rs` file is read two ways.
    pub(super) fn get(&self, text: &str, lang: Lang) -> (String, Entry, bool) {
        if self.path.is_none() {
            return (String::new(), Entry::of(text, lang), false);
        }
        let mut keyed = Vec::with_capacity(text.len() + 12);
        keyed.extend_from_slice(lang.as_str().as_bytes());
        keyed.push(0);
        keyed.extend_from_slice(text.as_bytes());
        let key = format!("{:032x}", xxh3_128(&keyed));
        match self.loaded.get(&key) {
            Some(e) => (key, e.clone(), true),
            None => {
                let e = Entry::of(text, lang);
                (key, e, false)
            }
        }
    }

    /// Store the entries this scan used when they differ from what was loaded.
    pub(super) fn keep(self, used: Vec<Used>) -> CacheStatus {
        let Some(path) = self.path else {
            return CacheStatus::Off;
        };
        let (mut hits, mut misses, mut unread) = (0, 0, 0);
        let mut files = BTreeMap::new();
        let mut unmarked = BTreeMap::new();
        for u in used {
            match u {
                Used::Syntax(key, entry, hit) => {
                    if hit {
                        hits += 1;
                    } else {
                        misses += 1;
                    }
                    files.insert(key, entry);
                }
                Used::Unmarked(rel, stamp, skipped) => {
                    unread += usize::from(skipped);
                    unmarked.insert(rel, stamp);
                }
            }
        }
        // Unchanged: every entry came from the cache and every loaded entry was used.
        let outcome = if misses == 0
            && self.ignored.is_none()
            && files.len() == self.loaded.len()
            && unread == unmarked.len()
            && unmarked.len() == self.unmarked.len()
        {
            CacheOutcome::Unchanged
        } else {
            match store(&path, files, unmarked) {
                Ok(()) => CacheOutcome::Written,
                Err(e) => CacheOutcome::NotWritten(e.to_string()),
            }
        };
        CacheStatus::Used {
            path,
            hits,
            misses,
            unread,
            ignored: self.ignored,
            outcome,
        }
    }
}

/// Why a stored cache was not used, or could not be written. Never a diagnostic: the scan is only
/// slower, so its text goes into [`CacheStatus`] (`ignored`, [`CacheOutcome::NotWritten`]), which
/// `build --timings` prints.
#[derive(Debug, thiserror::Error)]
enum CacheError {
    /// The stored cache exists but cannot be read.
    #[error("cannot be read ({source})")]
    Read { path: PathBuf, source: io::Error },
    /// It is not JSON of the stored shape.
    #[error("is not a scan cache ({0})")]
    NotACache(serde_json::Error),
    /// Another version, format or scanner wrote it.
    #[error("was written by another kcontract ({kcontract}, format {format})")]
    Foreign { kcontract: String, format: u32 },
    /// This scan's entries could not be encoded.
    #[error("{0}")]
    Encode(serde_json::Error),
    /// The cache's folder could not be made.
    #[error("{source}")]
    CreateDir { path: PathBuf, source: io::Error },
    /// The file could not be written.
    #[error("{source}")]
    Write { path: PathBuf, source: io::Error },
}

/// Read a stored cache; `Err(None)` when there is none, `Err(Some(why))` when it is unusable.
fn load(path: &Path) -> Result<Stored, Option<CacheError>> {
    let bytes = match kcontract_spec::fsutil::read_regular(path, kcontract_spec::fsutil::MAX_INPUT)
    {
        Ok(b) => b,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Err(None),
        Err(source) => {
            return Err(Some(CacheError::Read {
                path: path.to_path_buf(),
                source,
            }));
        }
    };
    let stored: Stored =
        serde_json::from_slice(&bytes).map_err(|e| Some(CacheError::NotACache(e)))?;
    if stored.kcontract != env!("CARGO_PKG_VERSION")
        || stored.format != FORMAT
        || stored.scanner != scanner_key()
    {
        return Err(Some(CacheError::Foreign {
            kcontract: stored.kcontract,
            format: stored.format,
        }));
    }
    Ok(stored)
}

fn store(
    path: &Path,
    files: BTreeMap<String, Entry>,
    unmarked: BTreeMap<String, Stamp>,
) -> Result<(), CacheError> {
    let stored = Stored {
        kcontract: env!("CARGO_PKG_VERSION").to_string(),
        format: FORMAT,
        scanner: scanner_key(),
        files,
        unmarked,
    };
    let bytes = serde_json::to_vec(&stored).map_err(CacheError::Encode)?;
    if let Some(dir) = path.parent() {
        fs::create_dir_all(dir).map_err(|source| CacheError::CreateDir {
            path: dir.to_path_buf(),
            source,
        })?;
    }
    write_atomic(path, &bytes).map_err(|source| CacheError::Write {
        path: path.to_path_buf(),
        source,
    })
}

/// What the cache did in one scan.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CacheStatus {
    /// No cache was used (`KCONTRACT_NO_CACHE`, no `target/` folder, or a caller that asked for none).
    Off,
    /// The cache at `path` was read (or found missing) and kept up to date.
    Used {
        /// The cache file.
        path: PathBuf,
        /// Files whose result came from the cache.
        hits: usize,
        /// Files lexed (not in the cache).
        misses: usize,
        /// Files without the marker skipped unread, their stamps unchanged.
        unread: usize,
        /// Why the stored cache was not used, if it existed but was unusable.
        ignored: Option<String>,
        /// Whether the file was rewritten after the scan.
        outcome: CacheOutcome,
    },
}

/// Whether the cache file was rewritten.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CacheOutcome {
    /// Every file was served as stored: nothing to write.
    Unchanged,
    /// The cache was rewritten with this scan's entries.
    Written,
    /// It should have been rewritten but could not be (the reason); the next run lexes again.
    NotWritten(String),
}

/// One line for `build --timings`: where the cache is, how it served, and any problem with it.
impl fmt::Display for CacheStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CacheStatus::Off => write!(
                f,
                "scan cache: off (no target/ folder in the scan root, or KCONTRACT_NO_CACHE is set)"
            ),
            CacheStatus::Used {
                path,
                hits,
                misses,
                unread,
                ignored,
                outcome,
            } => {
                write!(
                    f,
                    "scan cache: {hits} files from {}, {misses} lexed, {unread} without the marker not read",
                    path.display()
                )?;
                if let Some(why) = ignored {
                    write!(f, "; the old cache {why} and was rebuilt")?;
                }
                match outcome {
                    CacheOutcome::Unchanged => write!(f, "; unchanged"),
                    CacheOutcome::Written => write!(f, "; written"),
                    CacheOutcome::NotWritten(e) => {
                        write!(
                            f,
                            "; could not be written ({e}), so the next build lexes again"
                        )
                    }
                }
            }
        }
    }
}
