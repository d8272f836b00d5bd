//! `kcontract platform image`: the probe as an OCI image, for a vendor to push to their registry
//! with their own tools (`skopeo copy oci-archive:probe.tar docker://…`) and deploy as a Knative
//! Service, so the same binary that `platform run` judges locally runs on their platform.
//!
//! The output is an OCI image layout (image-spec v1.1 `image-layout.md`: `oci-layout`,
//! `index.json`, `blobs/sha256/…`) in one tar archive: one uncompressed layer holding only the
//! static probe, an image config with a non-root user and the probe's `serve` mode as its entry
//! point, a manifest, an index. Nothing is compressed and every timestamp is zero, so the same probe
//! gives the same bytes (and so the same digests) on every machine: a vendor can tell from the
//! digest which probe ran.

use serde::Serialize;
use sha2::{Digest, Sha256};

use kcontract_spec::diagnostic::Diagnostic;

/// The probe's path inside the image: alone at the root, nothing else in the file system.
pub(crate) const PROBE_PATH: &str = "kcontract-probe";

/// The tag the index names the image by (`org.opencontainers.image.ref.name`).
pub const REF_NAME: &str = "latest";

/// The entry point: the probe serving `GET /report` on `$PORT` (8080 when a platform sets none,
/// which the report then says: its facts name where the port came from).
pub(crate) const ENTRYPOINT: [&str; 4] = ["/kcontract-probe", "serve", "--port-fallback", "8080"];

/// Media types of image-spec v1.1.
pub mod media {
    /// The index (`index.json`).
    pub(crate) const INDEX: &str = "application/vnd.oci.image.index.v1+json";
    /// The image manifest.
    pub(crate) const MANIFEST: &str = "application/vnd.oci.image.manifest.v1+json";
    /// The image config.
    pub(crate) const CONFIG: &str = "application/vnd.oci.image.config.v1+json";
    /// An uncompressed layer.
    pub(crate) const LAYER: &str = "application/vnd.oci.image.layer.v1.tar";
}

/// A user and group the image runs as: never root (the contract lets the developer choose a user;
/// the probe reports what it got, and a root default would hide a platform that ignores the
/// choice).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct User {
    /// The user id.
    pub uid: u32,
    /// The group id.
    pub gid: u32,
}

impl User {
    /// `UID` or `UID:GID` (numbers; the image has no `/etc/passwd` to look names up in), never 0.
    pub fn parse(s: &str) -> Result<User, UserError> {
        let (u, g) = s.split_once(':').unwrap_or((s, s));
        let num = |v: &str| {
            v.parse::<u32>()
                .map_err(|_| UserError::NotNumbers(s.to_owned()))
        };
        let user = User {
            uid: num(u)?,
            gid: num(g)?,
        };
        if user.uid == 0 || user.gid == 0 {
            return Err(UserError::Root(s.to_owned()));
        }
        Ok(user)
    }
}

/// Why `--user` is not a user the image can run as (a usage error).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum UserError {
    /// Not `UID` or `UID:GID` in numbers.
    #[error("`{0}` is not UID or UID:GID in numbers")]
    NotNumbers(String),
    /// A user or group 0.
    #[error("`{0}` is root; the probe's image runs as a non-root user")]
    Root(String),
}

/// Why the image could not be made; nothing is written.
#[derive(Debug, thiserror::Error)]
pub enum ImageError {
    /// The probe is an ELF file for a machine OCI names no architecture of here (K1110).
    #[error("the probe is an ELF file for a machine kcontract does not know")]
    UnknownMachine,
    /// The archive could not be written (K0006).
    #[error("cannot write the archive: {0}")]
    Archive(#[source] std::io::Error),
    /// A JSON document of the layout could not be written (K0006).
    #[error("{0}")]
    Json(#[from] serde_json::Error),
}

impl ImageError {
    /// The error as the binary reports it: K1110 for a probe that cannot be packed, K0006 for an
    /// archive that cannot be written.
    pub fn diagnostic(&self) -> Diagnostic {
        match self {
            ImageError::UnknownMachine => Diagnostic::error("K1110", self.to_string())
                .help("give a static probe built for x86_64, aarch64 or riscv64 (--probe FILE)"),
            ImageError::Archive(_) | ImageError::Json(_) => {
                Diagnostic::error("K0006", self.to_string())
                    .help("nothing was written; check the free space and try again")
            }
        }
    }
}

/// The probe's machine, from its ELF header, as OCI names architectures; `None` for one this
/// does not know.
pub(crate) fn architecture(elf: &[u8]) -> Option<&'static str> {
    let machine = elf
        .get(0x12..0x14)
        .map(|b| u16::from_le_bytes([b[0], b[1]]))?;
    match machine {
        0x3e => Some("amd64"),
        0xb7 => Some("arm64"),
        0xf3 => Some("riscv64"),
        _ => None,
    }
}

/// `sha256:<hex>` of `bytes`.
pub fn digest(bytes: &[u8]) -> String {
    let sum = Sha256::digest(bytes);
    let hex: String = sum.iter().map(|b| format!("{b:02x}")).collect();
    format!("sha256:{hex}")
}

#[derive(Serialize)]
struct Descriptor<'a> {
    #[serde(rename = "mediaType")]
    media_type: &'a str,
    digest: String,
    size: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    platform: Option<PlatformRef<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    annotations: Option<std::collections::BTreeMap<&'a str, &'a str>>,
}

impl<'a> Descriptor<'a> {
    fn of(media_type: &'a str, bytes: &[u8]) -> Self {
        Descriptor {
            media_type,
            digest: digest(bytes),
            size: bytes.len(),
            platform: None,
            annotations: None,
        }
    }
}

#[derive(Serialize)]
struct PlatformRef<'a> {
    architecture: &'a str,
    os: &'a str,
}

#[derive(Serialize)]
struct Config<'a> {
    architecture: &'a str,
    os: &'a str,
    config: RunConfig<'a>,
    rootfs: RootFs,
    history: [History; 1],
}

#[derive(Serialize)]
struct RunConfig<'a> {
    #[serde(rename = "User")]
    user: String,
    #[serde(rename = "Entrypoint")]
    entrypoint: [&'a str; 4],
    #[serde(rename = "Labels")]
    labels: std::collections::BTreeMap<&'a str, &'a str>,
}

#[derive(Serialize)]
struct RootFs {
    #[serde(rename = "type")]
    kind: &'static str,
    diff_ids: [String; 1],
}

#[derive(Serialize)]
struct History {
    created_by: &'static str,
}

#[derive(Serialize)]
struct Manifest<'a> {
    #[serde(rename = "schemaVersion")]
    schema_version: u32,
    #[serde(rename = "mediaType")]
    media_type: &'a str,
    config: Descriptor<'a>,
    layers: [Descriptor<'a>; 1],
}

#[derive(Serialize)]
struct Index<'a> {
    #[serde(rename = "schemaVersion")]
    schema_version: u32,
    #[serde(rename = "mediaType")]
    media_type: &'a str,
    manifests: [Descriptor<'a>; 1],
}

/// A tar archive of `entries` (folders end in `/`; files with their mode), every owner 0 and
/// every time 0, in the order given.
fn tar(entries: &[(&str, u32, &[u8])]) -> std::io::Result<Vec<u8>> {
    let mut b = tar::Builder::new(Vec::new());
    for (path, mode, bytes) in entries {
        let mut h = tar::Header::new_ustar();
        if path.ends_with('/') {
            h.set_entry_type(tar::EntryType::Directory);
            h.set_size(0);
        } else {
            h.set_entry_type(tar::EntryType::Regular);
            h.set_size(bytes.len() as u64);
        }
        h.set_mode(*mode);
        h.set_uid(0);
        h.set_gid(0);
        h.set_mtime(0);
        b.append_data(&mut h, path, *bytes)?;
    }
    b.into_inner()
}

/// The image layout, as one tar archive, of the static probe `probe` running as `user`; `version`
/// is kcontract's, recorded as a label. An error for a probe whose architecture is unknown.
pub fn layout(probe: &[u8], user: User, version: &str) -> Result<Vec<u8>, ImageError> {
    let architecture = architecture(probe).ok_or(ImageError::UnknownMachine)?;
    let layer = tar(&[(PROBE_PATH, 0o755, probe)]).map_err(ImageError::Archive)?;
    let labels = [
        ("org.opencontainers.image.title", "kcontract-probe"),
        (
            "org.opencontainers.image.description",
            "Reports what a container sees (kcontract-probe/1 facts) on GET /report",
        ),
        ("org.opencontainers.image.version", version),
    ]
    .into_iter()
    .collect();
    let config = Config {
        architecture,
        os: "linux",
        config: RunConfig {
            user: format!("{}:{}", user.uid, user.gid),
            entrypoint: ENTRYPOINT,
            labels,
        },
        rootfs: RootFs {
            kind: "layers",
            diff_ids: [digest(&layer)],
        },
        history: [History {
            created_by: "kcontract platform image",
        }],
    };
    let config = serde_json::to_vec(&config)?;
    let manifest = Manifest {
        schema_version: 2,
        media_type: media::MANIFEST,
        config: Descriptor::of(media::CONFIG, &config),
        layers: [Descriptor::of(media::LAYER, &layer)],
    };
    let manifest = serde_json::to_vec(&manifest)?;
    let mut described = Descriptor::of(media::MANIFEST, &manifest);
    described.platform = Some(PlatformRef {
        architecture,
        os: "linux",
    });
    described.annotations = Some(
        [("org.opencontainers.image.ref.name", REF_NAME)]
            .into_iter()
            .collect(),
    );
    let index = Index {
        schema_version: 2,
        media_type: media::INDEX,
        manifests: [described],
    };
    let index = serde_json::to_vec(&index)?;
    let blob = |bytes: &[u8]| format!("blobs/sha256/{}", &digest(bytes)["sha256:".len()..]);
    let mut blobs = [
        (blob(&layer), layer.as_slice()),
        (blob(&config), config.as_slice()),
        (blob(&manifest), manifest.as_slice()),
    ];
    blobs.sort();
    let mut entries: Vec<(&str, u32, &[u8])> = vec![
        ("oci-layout", 0o644, br#"{"imageLayoutVersion":"1.0.0"}"#),
        ("index.json", 0o644, &index),
        ("blobs/", 0o755, b""),
        ("blobs/sha256/", 0o755, b""),
    ];
    entries.extend(blobs.iter().map(|(p, b)| (p.as_str(), 0o644, *b)));
    tar(&entries).map_err(ImageError::Archive)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn users() {
        assert_eq!(
            User::parse("2020"),
            Ok(User {
                uid: 2020,
                gid: 2020
            })
        );
        assert_eq!(User::parse("1:2"), Ok(User { uid: 1, gid: 2 }));
        for bad in ["0", "0:5", "5:0", "nobody", "", "1:", ":1", "-1", "1:2:3"] {
            assert!(User::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn architectures() {
        let mut elf = vec![0u8; 64];
        elf[0x12] = 0x3e;
        assert_eq!(architecture(&elf), Some("amd64"));
        elf[0x12] = 0xb7;
        assert_eq!(architecture(&elf), Some("arm64"));
        elf[0x12] = 0x28;
        assert_eq!(architecture(&elf), None);
        assert_eq!(architecture(&[0x7f]), None);
    }
}
