//! Access to real OCI runtimes for the tests that need them (`tests/differential.rs`,
//! `tests/deviations.rs`). Those tests run only when asked for with a Cargo feature — `runtimes`
//! (root, runc, crun, busybox-static) or `youki` — and are otherwise listed by `cargo test` as
//! ignored with the reason. Once asked for, a runtime that cannot be used is a failure that says
//! why: a test never passes without having done its work.

use kcontract_oci::conformance::{HarnessError, Session, require_root};
use kcontract_oci::model::OciRuntime;

/// A harness session on `runtime`, or a panic that names what is missing and how to install it.
pub(crate) fn session(runtime: OciRuntime) -> Session {
    started(runtime, Session::new)
}

/// A session without the busybox rootfs (the platform runs bring their own bundles).
pub(crate) fn bare_session(runtime: OciRuntime) -> Session {
    started(runtime, Session::bare)
}

fn started(runtime: OciRuntime, start: fn(OciRuntime) -> Result<Session, HarnessError>) -> Session {
    let session = require_root("the runtime tests").and_then(|()| start(runtime));
    session.unwrap_or_else(|reason| {
        let (feature, install) = match runtime {
            OciRuntime::Youki => (
                "youki",
                ".ci/install-youki; apt-get install -y busybox-static",
            ),
            _ => ("runtimes", "apt-get install -y runc crun busybox-static"),
        };
        panic!(
            "{runtime} cannot be tested: {reason}\n\
             (`--features {feature}` asks for these tests; run as root after `{install}`, \
             or leave the feature out to list them as ignored)"
        )
    })
}

/// `runtime_test!(RUNTIME, NAME, FUNCTION)`: the test `NAME` calling `FUNCTION(OciRuntime::…)`,
/// ignored with the reason (what it needs, the command that runs it) unless the runtime's feature
/// is on. The one place the reasons are written.
#[allow(unused_macros)] // the test crates that share `common` without runtime tests
macro_rules! runtime_test {
    (runc, $name:ident, $function:path) => {
        #[test]
        #[cfg_attr(
            not(feature = "runtimes"),
            ignore = "needs root, runc, busybox-static: cargo test --features runtimes"
        )]
        fn $name() {
            $function(kcontract_oci::model::OciRuntime::Runc);
        }
    };
    (crun, $name:ident, $function:path) => {
        #[test]
        #[cfg_attr(
            not(feature = "runtimes"),
            ignore = "needs root, crun, busybox-static: cargo test --features runtimes"
        )]
        fn $name() {
            $function(kcontract_oci::model::OciRuntime::Crun);
        }
    };
    (youki, $name:ident, $function:path) => {
        #[test]
        #[cfg_attr(
            not(feature = "youki"),
            ignore = "needs root, youki (.ci/install-youki), busybox-static: cargo test --features youki"
        )]
        fn $name() {
            $function(kcontract_oci::model::OciRuntime::Youki);
        }
    };
}

#[allow(unused_imports)] // likewise
pub(crate) use runtime_test;
