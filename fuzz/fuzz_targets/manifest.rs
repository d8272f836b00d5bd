//! Fuzz the site manifest (`.kcontract-manifest`), the file `build` trusts to decide that a
//! folder is a site it built and may replace: any bytes as the manifest of a folder that also
//! holds a person's files (`CNAME`, `.git/HEAD`) → `site::manifest_files` and `site::check_output`.
//! Never a panic; and the folder is accepted only when the manifest lists every file in it (a
//! manifest a pull request crafts cannot make `build` delete what it does not list).
#![no_main]

use std::path::PathBuf;
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;

struct Fixture {
    out: PathBuf,
    spec: PathBuf,
}

fn fixture() -> &'static Fixture {
    static F: OnceLock<Fixture> = OnceLock::new();
    F.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("kcontract-fuzz-manifest-{}", std::process::id()));
        let (out, spec) = (dir.join("site"), dir.join("spec"));
        for (rel, text) in [
            ("en/index.html", "<p>page</p>"),
            ("CNAME", "contract.example"),
            (".git/HEAD", "ref: refs/heads/gh-pages"),
        ] {
            let p = out.join(rel);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        }
        std::fs::create_dir_all(&spec).unwrap();
        Fixture { out, spec }
    })
}

fuzz_target!(|data: &[u8]| {
    let f = fixture();
    std::fs::write(f.out.join(".kcontract-manifest"), data).unwrap();
    let listed = std::str::from_utf8(data)
        .ok()
        .and_then(kcontract_site::manifest_files)
        .unwrap_or_default();
    if kcontract_site::check_output(&f.out, &f.spec).is_ok() {
        for person in ["CNAME", ".git/HEAD", "en/index.html"] {
            assert!(
                listed.iter().any(|(rel, _)| rel == person),
                "accepted a folder whose manifest does not list {person}"
            );
        }
    }
});
