//! The tests of Knative's runtime conformance suite (knative/serving `test/conformance/runtime/`)
//! that the contract's `upstream-tests:` do not cite, each with what kcontract takes it to decide,
//! so that a vendor's log is read whole: every result of the suite either decides a clause (through
//! a clause's `upstream-tests:` or this table) or is named as deciding none, with the reason.
//!
//! Why a table here and not more `upstream-tests:` entries: an entry of the contract names a test
//! of the suite as upstream has it now (`upstream/knative/conformance-tests.txt`, checked by
//! `tests/suite/upstream_coverage.rs`), and says that its failure fails the clause. The vendors'
//! published logs ran the suite of Knative 1.0 to 1.3, which had tests upstream has since removed
//! (the four probe-port cases), and one test here decides its clause only when it passes. A
//! test of the suite the contract cites is never in this table (a test checks both ways), so each
//! test's meaning is written once.
//!
//! Read from the suite's source: knative/serving at `knative-v1.0.0`, `knative-v1.3.0` and
//! `98e5ef90` (2026-08-21), the files named on each entry.

/// What a test of the suite decides.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decides {
    /// The clause: a pass passes it, a failure fails it, a skip leaves it not run.
    Clause(&'static str),
    /// The clause, but only a pass decides it: a failure leaves it undecided (the test checks
    /// one way of meeting the clause, not the only one).
    PassOnly(&'static str),
    /// No clause of the contract: what it checks is not something the contract requires.
    Nothing,
}

/// A test of the suite the contract does not cite (see the module's documentation).
#[derive(Clone, Copy, Debug)]
pub struct SuiteTest {
    /// The test as `go test` names it (`TestX`, `TestX/sub`); an entry for a function covers the
    /// subtests it names at run time.
    pub name: &'static str,
    /// Its file in knative/serving.
    pub file: &'static str,
    /// What it decides.
    pub decides: Decides,
    /// What it does, and why that decides what it does.
    pub why: &'static str,
    /// The upstream change that removed it, when it is no longer in the suite.
    pub removed: Option<&'static str>,
}

const CONTAINER: &str = "test/conformance/runtime/container_test.go";

/// The probe-port cases of `TestMustNotContainerConstraints`: a Service whose probe targets port
/// 8888, not the container's, must be refused.
const PROBE_PORT_WHY: &str = "creates a Service whose probe targets port 8888, not the container port, and passes when the platform refuses it: the platform holds developers to the clause";

/// Removed with the probe-port cases.
const PROBE_PORT_REMOVED: Option<&str> = Some(
    "knative/serving #12606 (afe46a93, 2022-03-07): Knative allows a probe port other than the container port since 1.4",
);

/// Every test of the suite the contract's `upstream-tests:` do not cite.
pub const SUITE: &[SuiteTest] = &[
    SuiteTest {
        name: "TestMustNotContainerConstraints/TestReadinessHTTPProbePort",
        file: CONTAINER,
        decides: Decides::Clause("network.probes.http-or-tcp-on-port"),
        why: PROBE_PORT_WHY,
        removed: PROBE_PORT_REMOVED,
    },
    SuiteTest {
        name: "TestMustNotContainerConstraints/TestLivenessHTTPProbePort",
        file: CONTAINER,
        decides: Decides::Clause("network.probes.http-or-tcp-on-port"),
        why: PROBE_PORT_WHY,
        removed: PROBE_PORT_REMOVED,
    },
    SuiteTest {
        name: "TestMustNotContainerConstraints/TestReadinessTCPProbePort",
        file: CONTAINER,
        decides: Decides::Clause("network.probes.http-or-tcp-on-port"),
        why: PROBE_PORT_WHY,
        removed: PROBE_PORT_REMOVED,
    },
    SuiteTest {
        name: "TestMustNotContainerConstraints/TestLivenessTCPProbePort",
        file: CONTAINER,
        decides: Decides::Clause("network.probes.http-or-tcp-on-port"),
        why: PROBE_PORT_WHY,
        removed: PROBE_PORT_REMOVED,
    },
    SuiteTest {
        name: "TestShouldRunAsUserContainerDefault",
        file: "test/conformance/runtime/user_test.go",
        decides: Decides::PassOnly("config.user.platform-default"),
        why: "sets no runAsUser and passes when the process runs as the image's USER, Knative's default: a default was used; a failure means another default, which the clause allows",
        removed: None,
    },
    SuiteTest {
        name: "TestCmdArgs",
        file: "test/conformance/runtime/cmd_args_test.go",
        decides: Decides::Nothing,
        why: "the Service's command and args reach the process: no clause of the contract is about them",
        removed: None,
    },
    SuiteTest {
        name: "TestWorkingDirService",
        file: "test/conformance/runtime/workingdir_test.go",
        decides: Decides::Nothing,
        why: "the Service's workingDir is the process's: no clause of the contract is about it",
        removed: None,
    },
    SuiteTest {
        name: "TestSecretsViaEnv",
        file: "test/conformance/runtime/envpropagation_test.go",
        decides: Decides::Nothing,
        why: "a Secret's values in the environment (env, envFrom): the contract's Secret clauses are about mounted volumes",
        removed: None,
    },
    SuiteTest {
        name: "TestConfigsViaEnv",
        file: "test/conformance/runtime/envpropagation_test.go",
        decides: Decides::Nothing,
        why: "a ConfigMap's values in the environment (env, envFrom): the contract's ConfigMap clauses are about mounted volumes",
        removed: None,
    },
    SuiteTest {
        name: "TestProtocols/h2c",
        file: "test/conformance/runtime/protocol_test.go",
        decides: Decides::Nothing,
        why: "a port named h2c gets HTTP/2 with prior knowledge; network.ports.h2c-upgrade asks for the `Upgrade: h2c` option on the HTTP/1.1 port, which it does not test",
        removed: None,
    },
    SuiteTest {
        name: "TestProbeRuntimeAfterStartup",
        file: "test/conformance/runtime/readiness_probe_test.go",
        decides: Decides::Nothing,
        why: "readiness failing after startup: it describes Knative's behaviour (knative/serving #10765), which the contract does not specify",
        removed: None,
    },
    SuiteTest {
        name: "TestLivenessWithFail",
        file: "test/conformance/runtime/liveness_probe_test.go",
        decides: Decides::Nothing,
        why: "a failing liveness probe restarts the container: the contract does not say what a failed liveness probe does",
        removed: None,
    },
];

/// The entry for `test` (or for the function of a subtest named at run time), if any.
pub fn entry(test: &str) -> Option<&'static SuiteTest> {
    SUITE.iter().find(|t| {
        test == t.name
            || test
                .strip_prefix(t.name)
                .is_some_and(|rest| rest.starts_with('/'))
    })
}

/// The tests of the table that decide clause `id`, each with whether a failure decides it.
pub(crate) fn deciding(id: &str) -> impl Iterator<Item = (&'static str, bool)> + '_ {
    SUITE.iter().filter_map(move |t| match t.decides {
        Decides::Clause(c) if c == id => Some((t.name, true)),
        Decides::PassOnly(c) if c == id => Some((t.name, false)),
        _ => None,
    })
}
