//! Writing files without ever leaving a half-written one behind, and where kcontract keeps its caches.

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// Write `bytes` to a temporary file beside `path`, then rename it over `path` (atomic on POSIX).
pub(crate) fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = dir.join(format!(".{name}.kcontract-tmp-{}", std::process::id()));
    let result = (|| {
        let mut f = fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result
}

/// The folder of kcontract's caches for the project at `root`: `root/target/kcontract`, beside
/// Cargo's own build cache, and only when `root/target` is already a folder (kcontract never creates
/// `target/`, so a project Cargo has not built gets no stray files); `None` as well when
/// `KCONTRACT_NO_CACHE` is set (any value). A cache never changes a result, only how fast it comes.
pub(crate) fn cache_folder(root: &Path) -> Option<PathBuf> {
    if std::env::var_os("KCONTRACT_NO_CACHE").is_some() {
        return None;
    }
    let target = root.join("target");
    target.is_dir().then(|| target.join("kcontract"))
}
