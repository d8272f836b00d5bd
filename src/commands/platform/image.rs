//! `kcontract platform image`: the static probe packed as an OCI image layout in one tar archive
//! (one layer, a non-root user, the probe's `serve` mode as entry point). Exit 1 when the probe
//! cannot be used (K1110) or the archive cannot be written (K0006), 2 for a root `--user`.

use std::path::PathBuf;

use super::shared::{fail, find_probe};
use crate::terminal::{Ctx, Outcome, print, shell_word};
use kcontract_platform::image::{REF_NAME, User, digest, layout};
use kcontract_spec::diagnostic::Diagnostic;

#[derive(clap::Args, Debug)]
pub(crate) struct ImageArgs {
    /// Where to write the archive (an OCI image layout, tar).
    #[arg(long, value_name = "FILE")]
    out: PathBuf,
    /// The static probe [default: as `platform run` finds it].
    #[arg(long, value_name = "FILE")]
    probe: Option<PathBuf>,
    /// The user the image runs as: UID or UID:GID, never 0.
    #[arg(long, value_name = "UID[:GID]", default_value = "65532:65532")]
    user: String,
}

impl ImageArgs {
    /// Runs the command, after checking the user and the output path.
    pub(super) fn run(self, ctx: &Ctx) -> Outcome {
        let user = User::parse(&self.user).map_err(|e| {
            ctx.usage(
                &format!("--user {e}"),
                "give a non-root UID or UID:GID, e.g. --user 65532:65532",
            )
        })?;
        let ctx = ctx.writing("no image was written");
        let failed = |d: Diagnostic| fail(&ctx, d);
        if self.out.is_dir() {
            return Err(failed(
                Diagnostic::error(
                    "K0006",
                    format!(
                        "--out {} is a folder; the image is one file (a tar archive)",
                        self.out.display()
                    ),
                )
                .help("give the path of the archive to write, e.g. --out probe.tar"),
            ));
        }
        let probe = find_probe(self.probe.as_deref()).map_err(failed)?;
        let bytes = kcontract_spec::fsutil::read_regular(&probe, 256 << 20)
            .map_err(|e| failed(kcontract_spec::io_error(&probe, &e)))?;
        let archive =
            layout(&bytes, user, env!("CARGO_PKG_VERSION")).map_err(|e| failed(e.diagnostic()))?;
        kcontract_spec::fsutil::write_atomic(&self.out, &archive).map_err(|e| {
            failed(
                Diagnostic::error("K0006", format!("cannot write {}: {e}", self.out.display()))
                    .help("check the path and its folder's permissions"),
            )
        })?;
        print(&format!(
            "wrote {} ({} bytes): an OCI image layout of {} ({}), user {}:{}\n\
             push it with your own tools, e.g.\n  skopeo copy oci-archive:{}:{REF_NAME} docker://REGISTRY/kcontract-probe:TAG\n",
            self.out.display(),
            archive.len(),
            probe.display(),
            digest(&bytes),
            user.uid,
            user.gid,
            shell_word(&self.out.display().to_string()),
        ))
    }
}
