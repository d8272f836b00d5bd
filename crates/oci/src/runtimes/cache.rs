//! The parsed runtimes catalogue kept between runs, keyed by the file's text.
//!
//! serde-saphyr reads the 111 KB catalogue in about 3 ms, a tenth of the real build (`cargo run
//! --release -- build` in this repository); the JSON of the same value reads in a tenth of that.
//! The catalogue depends on nothing but the file's text and this reader, so the value is stored under
//! the xxh3-128 hashes of both, and an unchanged file is not parsed again (docs/benchmarks-history.md, "Session 9:
//! the real build").
//!
//! **Where:** `runtimes-cache.json` in the folder of [`kcontract_spec::fsutil::cache_folder`] (`target/kcontract`
//! of the project whose tests are scanned); none without it.
//!
//! **Never in the way:** a missing, unreadable, corrupt or foreign cache (another file's text,
//! another reader) is not used, and a cache that cannot be written is left alone: the build is only
//! slower. A file with problems is never stored, so its diagnostics show on every run.

use std::fs;
use std::path::Path;

use serde::{Deserialize, Serialize};
use xxhash_rust::xxh3::xxh3_128;

use super::Catalogue;
use kcontract_spec::fsutil::write_atomic;

/// The file in the cache folder.
const FILE: &str = "runtimes-cache.json";

/// The reader's own source: a change to the catalogue's types or how it is read makes every stored
/// value foreign, even when the version was not bumped (as during development).
const READER: [&str; 2] = [include_str!("mod.rs"), include_str!("cache.rs")];

#[derive(Serialize, Deserialize)]
struct Stored {
    kcontract: String,
    /// [`key`] of the text the catalogue was parsed from.
    key: String,
    catalogue: Catalogue,
}

/// The identity of `text` as read by this reader.
fn key(text: &str) -> String {
    format!(
        "{:032x}-{:032x}",
        xxh3_128(READER.concat().as_bytes()),
        xxh3_128(text.as_bytes())
    )
}

/// The catalogue stored in `dir` for exactly `text`, if there is one and it reads.
pub(super) fn get(dir: &Path, text: &str) -> Option<Catalogue> {
    let bytes =
        kcontract_spec::fsutil::read_regular(&dir.join(FILE), kcontract_spec::fsutil::MAX_INPUT)
            .ok()?;
    let stored: Stored = serde_json::from_slice(&bytes).ok()?;
    (stored.kcontract == env!("CARGO_PKG_VERSION") && stored.key == key(text))
        .then_some(stored.catalogue)
}

/// Why the catalogue could not be stored (the build goes on without the cache; the note says why).
#[derive(Debug, thiserror::Error)]
pub(super) enum PutError {
    /// The value did not encode as JSON.
    #[error("{0}")]
    Encode(#[from] serde_json::Error),
    /// The folder or the file could not be written.
    #[error("cannot write {}: {source}", path.display())]
    Write {
        /// The folder or the file.
        path: std::path::PathBuf,
        /// The error, with its kind.
        #[source]
        source: std::io::Error,
    },
}

/// Store `catalogue`, parsed from `text`, in `dir` (created when missing; written atomically).
pub(super) fn put(dir: &Path, text: &str, catalogue: &Catalogue) -> Result<(), PutError> {
    #[derive(Serialize)]
    struct StoredRef<'c> {
        kcontract: &'c str,
        key: String,
        catalogue: &'c Catalogue,
    }
    let bytes = serde_json::to_vec(&StoredRef {
        kcontract: env!("CARGO_PKG_VERSION"),
        key: key(text),
        catalogue,
    })?;
    let written = |path: &Path| {
        let path = path.to_owned();
        move |source| PutError::Write { path, source }
    };
    fs::create_dir_all(dir).map_err(written(dir))?;
    let file = dir.join(FILE);
    write_atomic(&file, &bytes).map_err(written(&file))
}
