//! `kcontract platform image`: the archive read back as a registry tool would read it. Every
//! blob's digest and size is the one its descriptor names, the media types are image-spec v1.1's,
//! the layer holds the probe alone with its bytes, the config runs it as a non-root user in
//! `serve` mode, and the same probe gives the same bytes.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::Path;

use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::common::cli::kcontract;

/// A 64-bit little-endian x86-64 ELF header with no program headers: static, as far as the
/// probe check can tell, and enough to be packed.
fn fake_probe(dir: &Path) -> std::path::PathBuf {
    let mut elf = vec![0u8; 64];
    elf[..6].copy_from_slice(&[0x7f, b'E', b'L', b'F', 2, 1]);
    elf[0x12] = 0x3e;
    elf.extend_from_slice(b"the probe's code");
    let p = dir.join("kcontract-probe");
    std::fs::write(&p, elf).unwrap();
    p
}

/// Every entry of a tar archive: path → bytes (folders: empty), and each entry's mode.
fn entries(tar: &[u8]) -> (BTreeMap<String, Vec<u8>>, BTreeMap<String, u32>) {
    let mut files = BTreeMap::new();
    let mut modes = BTreeMap::new();
    let mut archive = tar::Archive::new(tar);
    for e in archive.entries().unwrap() {
        let mut e = e.unwrap();
        let path = e.path().unwrap().to_string_lossy().into_owned();
        assert_eq!(e.header().mtime().unwrap(), 0, "{path}");
        assert_eq!(e.header().uid().unwrap(), 0, "{path}");
        modes.insert(path.clone(), e.header().mode().unwrap());
        let mut bytes = Vec::new();
        e.read_to_end(&mut bytes).unwrap();
        files.insert(path, bytes);
    }
    (files, modes)
}

fn sha256(bytes: &[u8]) -> String {
    let sum = Sha256::digest(bytes);
    let hex: String = sum.iter().map(|b| format!("{b:02x}")).collect();
    format!("sha256:{hex}")
}

/// The blob a descriptor names, after checking its digest and size against the bytes.
fn blob<'a>(files: &'a BTreeMap<String, Vec<u8>>, descriptor: &Value, media: &str) -> &'a [u8] {
    assert_eq!(descriptor["mediaType"], media, "{descriptor}");
    let digest = descriptor["digest"].as_str().unwrap();
    let hex = digest.strip_prefix("sha256:").unwrap();
    let bytes = files
        .get(&format!("blobs/sha256/{hex}"))
        .unwrap_or_else(|| panic!("no blob {digest}"));
    assert_eq!(
        sha256(bytes),
        digest,
        "the blob's bytes do not have its digest"
    );
    assert_eq!(descriptor["size"], bytes.len(), "{descriptor}");
    bytes
}

/// Read the layout the way a registry client does, from the index down; the layer's files.
fn read_back(archive: &[u8]) -> (Value, BTreeMap<String, Vec<u8>>, BTreeMap<String, u32>) {
    let (files, _) = entries(archive);
    let layout: Value = serde_json::from_slice(&files["oci-layout"]).unwrap();
    assert_eq!(layout["imageLayoutVersion"], "1.0.0");
    let index: Value = serde_json::from_slice(&files["index.json"]).unwrap();
    assert_eq!(index["schemaVersion"], 2);
    assert_eq!(
        index["mediaType"],
        "application/vnd.oci.image.index.v1+json"
    );
    let manifests = index["manifests"].as_array().unwrap();
    assert_eq!(manifests.len(), 1);
    assert_eq!(
        manifests[0]["annotations"]["org.opencontainers.image.ref.name"],
        "latest"
    );
    let manifest: Value = serde_json::from_slice(blob(
        &files,
        &manifests[0],
        "application/vnd.oci.image.manifest.v1+json",
    ))
    .unwrap();
    assert_eq!(manifest["schemaVersion"], 2);
    let config: Value = serde_json::from_slice(blob(
        &files,
        &manifest["config"],
        "application/vnd.oci.image.config.v1+json",
    ))
    .unwrap();
    let layers = manifest["layers"].as_array().unwrap();
    assert_eq!(layers.len(), 1);
    let layer = blob(&files, &layers[0], "application/vnd.oci.image.layer.v1.tar");
    assert_eq!(config["rootfs"]["type"], "layers");
    assert_eq!(
        config["rootfs"]["diff_ids"],
        serde_json::json!([sha256(layer)])
    );
    assert_eq!(
        manifests[0]["platform"]["architecture"],
        config["architecture"]
    );
    // Nothing in the archive that no descriptor names.
    let named: Vec<String> = [&manifests[0], &manifest["config"], &layers[0]]
        .iter()
        .map(|d| format!("blobs/sha256/{}", &d["digest"].as_str().unwrap()[7..]))
        .collect();
    for path in files
        .keys()
        .filter(|p| p.starts_with("blobs/sha256/") && p.len() > 13)
    {
        assert!(named.contains(path), "{path} is named by no descriptor");
    }
    let (layer_files, layer_modes) = entries(layer);
    (config, layer_files, layer_modes)
}

#[test]
fn the_probe_image_reads_back_digest_by_digest() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let probe = fake_probe(dir);
    let probe_arg = probe.to_str().unwrap();
    let (code, out, err) = kcontract(
        dir,
        &[
            "platform",
            "image",
            "--probe",
            probe_arg,
            "--out",
            "probe.tar",
        ],
    );
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains("skopeo copy oci-archive:probe.tar:latest"),
        "{out}"
    );
    let archive = std::fs::read(dir.join("probe.tar")).unwrap();
    let (config, layer, modes) = read_back(&archive);
    assert_eq!(config["architecture"], "amd64");
    assert_eq!(config["os"], "linux");
    assert_eq!(config["config"]["User"], "65532:65532");
    assert_eq!(
        config["config"]["Entrypoint"],
        serde_json::json!(["/kcontract-probe", "serve", "--port-fallback", "8080"])
    );
    assert_eq!(layer.keys().collect::<Vec<_>>(), ["kcontract-probe"]);
    assert_eq!(layer["kcontract-probe"], std::fs::read(&probe).unwrap());
    assert_eq!(modes["kcontract-probe"] & 0o777, 0o755);

    // The same probe, the same bytes; another user, another config.
    let (code, _, err) = kcontract(
        dir,
        &[
            "platform",
            "image",
            "--probe",
            probe_arg,
            "--out",
            "again.tar",
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(std::fs::read(dir.join("again.tar")).unwrap(), archive);
    let (code, _, err) = kcontract(
        dir,
        &[
            "platform", "image", "--probe", probe_arg, "--out", "u.tar", "--user", "2020",
        ],
    );
    assert_eq!(code, 0, "{err}");
    let (config, _, _) = read_back(&std::fs::read(dir.join("u.tar")).unwrap());
    assert_eq!(config["config"]["User"], "2020:2020");
}

/// The real static probe (`$KCONTRACT_PROBE`, which CI sets, or built here with the README's
/// command): packed, read back, its bytes the layer's one file.
#[test]
#[cfg_attr(
    not(feature = "runtimes"),
    ignore = "needs the static probe (a static build of probe/): cargo test --features runtimes"
)]
fn the_real_probe_packs() {
    let probe = crate::common::probe::static_probe();
    let tmp = tempfile::tempdir().unwrap();
    let (code, out, err) = kcontract(
        tmp.path(),
        &[
            "platform",
            "image",
            "--probe",
            Path::new(&probe).to_str().unwrap(),
            "--out",
            "probe.tar",
        ],
    );
    assert_eq!(code, 0, "{out}{err}");
    let (_, layer, _) = read_back(&std::fs::read(tmp.path().join("probe.tar")).unwrap());
    assert_eq!(layer["kcontract-probe"], std::fs::read(&probe).unwrap());
}

#[test]
fn bad_requests_write_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let probe = fake_probe(dir);
    let probe_arg = probe.to_str().unwrap();
    // Root: a usage error.
    let (code, _, err) = kcontract(
        dir,
        &[
            "platform", "image", "--probe", probe_arg, "--out", "p.tar", "--user", "0",
        ],
    );
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("root") && err.contains("--user"), "{err}");
    // Not a static executable.
    std::fs::write(dir.join("script"), "#!/bin/sh\n").unwrap();
    let (code, _, err) = kcontract(
        dir,
        &["platform", "image", "--probe", "script", "--out", "p.tar"],
    );
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("not a static executable"), "{err}");
    // A folder as the output.
    std::fs::create_dir(dir.join("out")).unwrap();
    let (code, _, err) = kcontract(
        dir,
        &["platform", "image", "--probe", probe_arg, "--out", "out"],
    );
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("is a folder"), "{err}");
    // A machine it does not know.
    let mut elf = std::fs::read(&probe).unwrap();
    elf[0x12] = 0x28;
    std::fs::write(dir.join("arm32"), elf).unwrap();
    let (code, _, err) = kcontract(
        dir,
        &["platform", "image", "--probe", "arm32", "--out", "p.tar"],
    );
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("machine"), "{err}");
    assert!(!dir.join("p.tar").exists());
}

/// K0006 and K1110 as `platform image` reports them, whole: an output that is a folder, a probe
/// that is not a static executable, a probe that does not exist. Nothing is written.
#[test]
fn k0006_k1110_image_errors() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    fake_probe(dir);
    std::fs::create_dir(dir.join("out")).unwrap();
    std::fs::write(dir.join("script"), "#!/bin/sh\n").unwrap();
    let mut shown = String::new();
    for args in [
        &[
            "platform",
            "image",
            "--probe",
            "kcontract-probe",
            "--out",
            "out",
        ][..],
        &["platform", "image", "--probe", "script", "--out", "p.tar"][..],
        &["platform", "image", "--probe", "missing", "--out", "p.tar"][..],
    ] {
        let (code, out, err) = kcontract(dir, args);
        shown.push_str(&format!(
            "$ kcontract {}\nexit: {code}\n--- stdout\n{out}--- stderr\n{err}\n",
            args.join(" ")
        ));
    }
    assert!(!dir.join("p.tar").exists());
    insta::assert_snapshot!(shown);
}
