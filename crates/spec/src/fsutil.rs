//! The file system, used carefully: input read only from regular files (never waiting on a FIFO,
//! never reading a device without end, never more than [`MAX_INPUT`] bytes), files replaced without
//! ever leaving a half-written one and without losing their mode, their symbolic link or their hard
//! links, temporary names no two processes share, and where kcontract keeps its caches.

use std::collections::hash_map::RandomState;
use std::fs;
use std::hash::{BuildHasher, Hasher};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

/// The largest input file read (a chapter, contract.yaml, a results file): far above any real one
/// (the ×100 benchmark's largest chapter is under 1 MB, a large JUnit report tens of MB), far
/// below what would exhaust a CI machine's memory.
pub const MAX_INPUT: u64 = 256 << 20;

/// A temporary file or folder of kcontract's older than this is left over from a process that was
/// killed (a build takes seconds), and is removed by the next process that writes beside it.
pub(crate) const STALE: Duration = Duration::from_secs(3600);

/// Why a path was not read or not written, beyond what the operating system says.
#[derive(Debug)]
pub(crate) enum Refused {
    /// Not a regular file: what it is instead ("a FIFO", "a character device", …).
    NotRegular(&'static str),
    /// Larger than the limit (bytes).
    TooLarge(u64),
    /// It resolves (through symbolic links) to `target`, outside the folder it must stay in.
    Outside {
        /// Where the path really leads.
        target: PathBuf,
    },
    /// A file with this many hard links: replacing it would leave the other names with the old
    /// text.
    HardLinked(u64),
}

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Refused::NotRegular(what) => write!(f, "it is {what}, not a regular file"),
            Refused::TooLarge(limit) => {
                write!(f, "it is larger than {} MiB", limit >> 20)
            }
            Refused::Outside { target } => {
                write!(f, "it leads to `{}`, outside the folder", target.display())
            }
            Refused::HardLinked(n) => write!(
                f,
                "it has {n} hard links, and replacing it would leave the others with the old text"
            ),
        }
    }
}

impl std::error::Error for Refused {}

impl Refused {
    fn into_io(self) -> io::Error {
        io::Error::new(io::ErrorKind::InvalidInput, self)
    }
}

/// The [`Refused`] reason inside `e`, if that is what it is.
pub(crate) fn refusal(e: &io::Error) -> Option<&Refused> {
    e.get_ref()?.downcast_ref::<Refused>()
}

/// What a file that is not a regular file or a folder is, in words.
fn kind_of(ft: fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if ft.is_fifo() {
            return "a FIFO (named pipe)";
        }
        if ft.is_char_device() {
            return "a character device";
        }
        if ft.is_block_device() {
            return "a block device";
        }
        if ft.is_socket() {
            return "a socket";
        }
    }
    if ft.is_symlink() {
        return "a symbolic link";
    }
    "not a file"
}

/// Read the regular file at `path`, at most `limit` bytes. Opened without waiting (a FIFO with no
/// writer would block an ordinary open forever), then checked on the open file, so what is read
/// is what was checked: a FIFO, a device or a socket is [`Refused::NotRegular`], a folder
/// `IsADirectory`, a file over `limit` (also one growing while it is read) [`Refused::TooLarge`].
pub fn read_regular(path: &Path, limit: u64) -> io::Result<Vec<u8>> {
    read_regular_with_meta(path, limit).map(|(bytes, _)| bytes)
}

/// [`read_regular`], with the open file's metadata taken before reading it (a cache's stamp: a
/// write during the read changes what the next read sees).
pub fn read_regular_with_meta(path: &Path, limit: u64) -> io::Result<(Vec<u8>, fs::Metadata)> {
    let mut opts = fs::OpenOptions::new();
    opts.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        opts.custom_flags(nix::fcntl::OFlag::O_NONBLOCK.bits());
    }
    let f = opts.open(path)?;
    let meta = f.metadata()?;
    if meta.is_dir() {
        return Err(io::ErrorKind::IsADirectory.into());
    }
    if !meta.is_file() {
        return Err(Refused::NotRegular(kind_of(meta.file_type())).into_io());
    }
    if meta.len() > limit {
        return Err(Refused::TooLarge(limit).into_io());
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    f.take(limit + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(Refused::TooLarge(limit).into_io());
    }
    Ok((bytes, meta))
}

/// [`read_regular`] of a UTF-8 text file of at most [`MAX_INPUT`] bytes: what `fs::read_to_string`
/// does, without hanging on a FIFO or reading a device without end. Not UTF-8 is `InvalidData`.
pub fn read_text(path: &Path) -> io::Result<String> {
    String::from_utf8(read_regular(path, MAX_INPUT)?)
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidData, "it is not UTF-8 text"))
}

/// [`read_regular`] of a file that must lie inside the folder `root`: `path`, with every symbolic
/// link on the way resolved, must still be below `root` (itself resolved). Why: a spec folder is
/// often someone else's (a pull request a CI builds previews of), and git stores symbolic links;
/// a chapter linked to `/proc/self/environ` would otherwise publish the build's secrets.
/// The boundary of every folder kcontract reads (the spec, the templates, an earlier version,
/// the platform results): a file is read with this, never with `fs::read*` (clippy.toml bans those
/// outside this module).
pub fn read_inside(root: &Path, path: &Path, limit: u64) -> io::Result<Vec<u8>> {
    read_regular(&inside(root, path)?, limit)
}

/// `path` resolved (every symbolic link on the way followed), when it lies below `root` (itself
/// resolved); [`Refused::Outside`] when it leads out. For a folder given inside another (an
/// earlier version's folder inside the spec folder) as for a file.
pub fn inside(root: &Path, path: &Path) -> io::Result<PathBuf> {
    let real = fs::canonicalize(path)?;
    let real_root = fs::canonicalize(root)?;
    if !real.starts_with(&real_root) {
        return Err(Refused::Outside { target: real }.into_io());
    }
    Ok(real)
}

/// [`read_inside`] of a UTF-8 text file of at most [`MAX_INPUT`] bytes (a template, interface
/// text).
pub fn read_text_inside(root: &Path, path: &Path) -> io::Result<String> {
    String::from_utf8(read_inside(root, path, MAX_INPUT)?)
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidData, "it is not UTF-8 text"))
}

/// The folder a file named by a person (on the command line, or found in a folder kcontract
/// looks in, like `platforms/results/`) is read inside: the folder that holds it as named (`.`
/// for a bare name). Why: a profile, a Service, a run report, a vendor log, an `--events` log or
/// a token file is often committed by someone else (a pull request a CI runs kcontract on), and
/// git stores symbolic links; one linked to `/proc/self/environ` would otherwise put the CI's
/// secrets into a diagnostic, a report or the built site.
pub fn given_folder(path: &Path) -> &Path {
    path.parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
}

/// [`read_inside`] the file's own folder ([`given_folder`]): the boundary of a platform input. A
/// symbolic link to a file beside it is followed; one leading out of its folder is
/// [`Refused::Outside`]; a FIFO or a device is [`Refused::NotRegular`] without waiting.
pub fn read_given(path: &Path, limit: u64) -> io::Result<Vec<u8>> {
    read_inside(given_folder(path), path, limit)
}

/// [`read_given`] of a UTF-8 text file of at most [`MAX_INPUT`] bytes.
pub fn read_text_given(path: &Path) -> io::Result<String> {
    String::from_utf8(read_given(path, MAX_INPUT)?)
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidData, "it is not UTF-8 text"))
}

/// Whether `e` is one of the careful reader's refusals (not a regular file, outside its folder,
/// too large): a reader outside this crate reports those with the chapter's diagnostic (K0004,
/// [`crate::io_error`]) and the others with its own.
pub fn is_refusal(e: &io::Error) -> bool {
    refusal(e).is_some()
}

/// The byte-order mark some editors (Notepad, many Windows tools) write at the start of a UTF-8
/// file.
const BOM: char = '\u{feff}';

/// Text as kcontract reads it, whatever editor saved it: a leading UTF-8 byte-order mark removed and
/// Windows line endings (`\r\n`) made `\n`. Why here, once, for every input (chapters,
/// contract.yaml, interface text, results, profiles, imported Markdown): a BOM turns a chapter's
/// `# Title` into a paragraph and a `\r` makes a clause fence look indented, both silently, while a
/// spec saved on Windows means the same as its plain twin. Line numbers and columns stay true: only
/// the invisible mark and the `\r` before each line's end go. A lone `\r` is left alone.
pub fn plain_text(text: String) -> String {
    let body = text.strip_prefix(BOM).unwrap_or(&text);
    if body.len() == text.len() && !text.contains("\r\n") {
        return text;
    }
    body.replace("\r\n", "\n")
}

/// How a file's text was written, to write it back the same way after [`plain_text`] (`fmt`
/// rewrites chapters in place and must not change a Windows file's line endings).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Encoding {
    /// The file started with a byte-order mark.
    pub bom: bool,
    /// The file's lines ended with `\r\n` (its first line end is taken as its convention).
    pub crlf: bool,
}

impl Encoding {
    /// How `raw` (the text as read) is written.
    pub fn of(raw: &str) -> Self {
        Self::of_bytes(raw.as_bytes())
    }

    /// [`Encoding::of`] the bytes of a file.
    pub fn of_bytes(raw: &[u8]) -> Self {
        Encoding {
            bom: raw.starts_with("\u{feff}".as_bytes()),
            crlf: raw
                .iter()
                .position(|&b| b == b'\n')
                .is_some_and(|i| i > 0 && raw[i - 1] == b'\r'),
        }
    }

    /// `plain` (text with `\n` line ends) written back in this encoding.
    pub fn apply(self, plain: &str) -> String {
        let mut out = String::with_capacity(plain.len() + 3);
        if self.bom {
            out.push(BOM);
        }
        if self.crlf {
            out.push_str(&plain.replace('\n', "\r\n"));
        } else {
            out.push_str(plain);
        }
        out
    }
}

/// A name part no other process uses at the same time: the process id (unique on this machine)
/// and 64 random bits (processes of two containers sharing a volume can have the same id), from
/// std's per-process random hash keys, so no dependency is needed for them.
pub fn unique_suffix() -> String {
    let mut h = RandomState::new().build_hasher();
    h.write_u128(
        SystemTime::now()
            .duration_since(SystemTime::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos()),
    );
    format!("{}-{:016x}", std::process::id(), h.finish())
}

/// Remove what killed processes left in `dir`: entries whose names start with `prefix` and that
/// were last modified more than [`STALE`] ago (a running process's are younger). Best effort.
pub fn sweep_stale(dir: &Path, prefix: &str) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    let now = SystemTime::now();
    for e in entries.flatten() {
        if !e.file_name().to_string_lossy().starts_with(prefix) {
            continue;
        }
        let Ok(meta) = fs::symlink_metadata(e.path()) else {
            continue;
        };
        let old = meta
            .modified()
            .ok()
            .and_then(|m| now.duration_since(m).ok())
            .is_some_and(|age| age > STALE);
        if old {
            let _ = if meta.is_dir() {
                fs::remove_dir_all(e.path())
            } else {
                fs::remove_file(e.path())
            };
        }
    }
}

/// The folder holding `path` (`.` for a bare name) and `path`'s name.
fn dir_and_name(path: &Path) -> (PathBuf, String) {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    (dir.to_path_buf(), name)
}

/// Replace the file at `path` by `bytes` atomically: written to a temporary file beside it, then
/// renamed over it, so a reader or a kill sees the old text or the new, never a part. What the
/// person set up stays: through a symbolic link the file it names is replaced (the link stays),
/// the file's permissions and, where allowed, its owner are kept; a file with other hard links is
/// refused ([`Refused::HardLinked`]) rather than silently split from them, and so is anything but
/// a regular file.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let target = match fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => fs::canonicalize(path)?,
        _ => path.to_path_buf(),
    };
    let existing = match fs::metadata(&target) {
        Ok(m) => Some(m),
        Err(e) if e.kind() == io::ErrorKind::NotFound => None,
        Err(e) => return Err(e),
    };
    if let Some(m) = &existing {
        if !m.is_file() {
            return Err(Refused::NotRegular(kind_of(m.file_type())).into_io());
        }
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            if m.nlink() > 1 {
                return Err(Refused::HardLinked(m.nlink()).into_io());
            }
        }
    }
    let (dir, name) = dir_and_name(&target);
    let prefix = format!(".{name}.kcontract-tmp-");
    sweep_stale(&dir, &prefix);
    let tmp = dir.join(format!("{prefix}{}", unique_suffix()));
    let result = (|| {
        let mut f = fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)?;
        f.write_all(bytes)?;
        if let Some(m) = &existing {
            f.set_permissions(m.permissions())?;
            #[cfg(unix)]
            {
                use std::os::unix::fs::MetadataExt;
                // Only root may give a file away; anyone else keeps being its owner, as before.
                let _ = std::os::unix::fs::fchown(&f, Some(m.uid()), Some(m.gid()));
            }
        }
        f.sync_all()?;
        fs::rename(&tmp, &target)
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result
}

/// `path` made absolute and free of `.` and `..`, without requiring it to exist: its longest
/// existing ancestor resolved (symbolic links included), the rest appended by name. For telling
/// whether two paths are the same folder or one lies inside the other.
pub fn resolved(path: &Path) -> io::Result<PathBuf> {
    let abs = std::path::absolute(path)?;
    let mut base = abs.as_path();
    let mut rest = Vec::new();
    let real = loop {
        match fs::canonicalize(base) {
            Ok(r) => break r,
            Err(_) => {
                rest.push(base.file_name().map(|n| n.to_os_string()));
                match base.parent() {
                    Some(p) => base = p,
                    None => return Ok(abs),
                }
            }
        }
    };
    let mut out = real;
    for part in rest.into_iter().rev() {
        match part {
            Some(name) => out.push(name),
            // `..` has no file name: step up, as the system would once the folders exist.
            None => {
                out.pop();
            }
        }
    }
    Ok(out.components().collect::<PathBuf>())
}

/// The folder of kcontract's caches for the project at `root`: `root/target/kcontract`, beside
/// Cargo's own build cache, and only when `root/target` is already a folder (kcontract never creates
/// `target/`, so a project Cargo has not built gets no stray files); `None` as well when
/// `KCONTRACT_NO_CACHE` is set (any value). A cache never changes a result, only how fast it comes.
pub fn cache_folder(root: &Path) -> Option<PathBuf> {
    if std::env::var_os("KCONTRACT_NO_CACHE").is_some() {
        return None;
    }
    let target = root.join("target");
    target.is_dir().then(|| target.join("kcontract"))
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)] // tests read the files they wrote
mod tests {
    use super::*;

    #[test]
    fn plain_text_drops_the_bom_and_carriage_returns_only() {
        assert_eq!(plain_text("\u{feff}# T\r\n\r\nx\r\n".into()), "# T\n\nx\n");
        assert_eq!(plain_text("a\rb\n".into()), "a\rb\n");
        assert_eq!(plain_text("a\u{feff}b".into()), "a\u{feff}b");
        let raw = "\u{feff}a\r\nb\r\n";
        let enc = Encoding::of(raw);
        assert_eq!(
            enc,
            Encoding {
                bom: true,
                crlf: true
            }
        );
        assert_eq!(enc.apply(&plain_text(raw.into())), raw);
        assert_eq!(Encoding::of("a\nb\r\n"), Encoding::default());
    }

    #[test]
    fn temporary_names_differ_within_one_process() {
        let a = unique_suffix();
        let b = unique_suffix();
        assert_ne!(a, b);
        assert!(a.starts_with(&format!("{}-", std::process::id())));
    }

    #[cfg(unix)]
    #[test]
    fn special_files_are_refused_without_waiting() {
        let tmp = tempfile::tempdir().unwrap();
        let fifo = tmp.path().join("pipe");
        assert!(
            std::process::Command::new("mkfifo")
                .arg(&fifo)
                .status()
                .unwrap()
                .success()
        );
        let start = std::time::Instant::now();
        let e = read_regular(&fifo, MAX_INPUT).unwrap_err();
        assert!(start.elapsed() < Duration::from_secs(1));
        assert!(matches!(refusal(&e), Some(Refused::NotRegular(w)) if w.contains("FIFO")));
        let e = read_regular(Path::new("/dev/zero"), MAX_INPUT).unwrap_err();
        assert!(matches!(refusal(&e), Some(Refused::NotRegular(_))), "{e}");
        let e = read_regular(tmp.path(), MAX_INPUT).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::IsADirectory);
        let big = tmp.path().join("big");
        fs::write(&big, vec![b'x'; 2000]).unwrap();
        let e = read_regular(&big, 1000).unwrap_err();
        assert!(matches!(refusal(&e), Some(Refused::TooLarge(1000))));
        assert_eq!(read_regular(&big, 2000).unwrap().len(), 2000);
        // read_text: the same refusals, and bytes that are not UTF-8 are InvalidData.
        let e = read_text(&fifo).unwrap_err();
        assert!(matches!(refusal(&e), Some(Refused::NotRegular(_))), "{e}");
        fs::write(&big, b"ok \xff").unwrap();
        assert_eq!(
            read_text(&big).unwrap_err().kind(),
            io::ErrorKind::InvalidData
        );
        fs::write(&big, "ok \u{e9}").unwrap();
        assert_eq!(read_text(&big).unwrap(), "ok \u{e9}");
    }

    #[cfg(unix)]
    #[test]
    fn links_out_of_the_folder_are_refused_and_links_inside_followed() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("spec");
        fs::create_dir_all(root.join("en")).unwrap();
        fs::write(tmp.path().join("secret"), "token").unwrap();
        fs::write(root.join("common.md"), "common").unwrap();
        std::os::unix::fs::symlink("../../secret", root.join("en/out.md")).unwrap();
        std::os::unix::fs::symlink("../common.md", root.join("en/in.md")).unwrap();
        let e = read_inside(&root, &root.join("en/out.md"), MAX_INPUT).unwrap_err();
        assert!(matches!(refusal(&e), Some(Refused::Outside { .. })), "{e}");
        assert_eq!(
            read_inside(&root, &root.join("en/in.md"), MAX_INPUT).unwrap(),
            b"common"
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_named_file_is_read_inside_its_own_folder() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("platforms");
        fs::create_dir_all(&dir).unwrap();
        fs::write(tmp.path().join("secret"), "token").unwrap();
        fs::write(dir.join("real.yaml"), "ok").unwrap();
        std::os::unix::fs::symlink("../secret", dir.join("out.yaml")).unwrap();
        std::os::unix::fs::symlink("real.yaml", dir.join("in.yaml")).unwrap();
        std::os::unix::fs::symlink("/dev/zero", dir.join("zero.yaml")).unwrap();
        let e = read_given(&dir.join("out.yaml"), MAX_INPUT).unwrap_err();
        assert!(matches!(refusal(&e), Some(Refused::Outside { .. })), "{e}");
        assert!(is_refusal(&e));
        assert!(is_refusal(
            &read_given(&dir.join("zero.yaml"), MAX_INPUT).unwrap_err()
        ));
        assert_eq!(read_text_given(&dir.join("in.yaml")).unwrap(), "ok");
        assert_eq!(read_text_given(&dir.join("real.yaml")).unwrap(), "ok");
        assert!(!is_refusal(
            &read_given(&dir.join("missing"), MAX_INPUT).unwrap_err()
        ));
        assert_eq!(given_folder(Path::new("a.yaml")), Path::new("."));
    }

    #[cfg(unix)]
    #[test]
    fn rewrites_keep_mode_links_and_refuse_hard_links() {
        use std::os::unix::fs::PermissionsExt;
        let tmp = tempfile::tempdir().unwrap();
        let real = tmp.path().join("real.md");
        fs::write(&real, "old").unwrap();
        fs::set_permissions(&real, fs::Permissions::from_mode(0o600)).unwrap();
        let link = tmp.path().join("link.md");
        std::os::unix::fs::symlink("real.md", &link).unwrap();
        write_atomic(&link, b"new").unwrap();
        assert!(
            fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(fs::read_to_string(&real).unwrap(), "new");
        assert_eq!(
            fs::metadata(&real).unwrap().permissions().mode() & 0o777,
            0o600
        );
        let hard = tmp.path().join("hard.md");
        fs::hard_link(&real, &hard).unwrap();
        let e = write_atomic(&hard, b"newer").unwrap_err();
        assert!(matches!(refusal(&e), Some(Refused::HardLinked(2))), "{e}");
        assert_eq!(fs::read_to_string(&real).unwrap(), "new");
        // Nothing left beside them.
        let names: Vec<String> = fs::read_dir(tmp.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names.len(), 3, "{names:?}");
    }

    #[test]
    fn stale_temporaries_are_swept_and_fresh_ones_kept() {
        let tmp = tempfile::tempdir().unwrap();
        let stale = tmp.path().join(".a.md.kcontract-tmp-1");
        let fresh = tmp.path().join(".a.md.kcontract-tmp-2");
        let other = tmp.path().join("a.md");
        for p in [&stale, &fresh, &other] {
            fs::write(p, "x").unwrap();
        }
        let f = fs::File::options().write(true).open(&stale).unwrap();
        f.set_modified(SystemTime::now() - STALE * 2).unwrap();
        let f = fs::File::options().write(true).open(&other).unwrap();
        f.set_modified(SystemTime::now() - STALE * 2).unwrap();
        sweep_stale(tmp.path(), ".a.md.kcontract-tmp-");
        assert!(!stale.exists() && fresh.exists() && other.exists());
    }

    #[test]
    fn resolved_paths_need_not_exist() {
        let tmp = tempfile::tempdir().unwrap();
        let base = fs::canonicalize(tmp.path()).unwrap();
        assert_eq!(
            resolved(&tmp.path().join("a/b/../c")).unwrap(),
            base.join("a/c")
        );
        assert_eq!(resolved(&tmp.path().join("x/..")).unwrap(), base);
    }
}
