//! Spec-version profiles: every rule that differs between OCI runtime-spec v1.0.1 and v1.3.0 is a
//! method here, and each method's documentation quotes the sentence (file and section) it comes from.
//!
//! The runtime code in [`super::runtime`] never compares versions itself; it asks the profile. The
//! invariants in [`super::invariants`] ask the same profile, so a rule is stated once, with its source,
//! and both the executable model and its checks follow it.

use std::fmt;

use strum::VariantArray;

use super::hooks::{FailureRule, HookName, Namespace, Phase};

/// The OCI runtime-spec version whose rules the model follows.
///
/// Texts: `runtime-v1.0.1.md` / `config-v1.0.1.md` (the version the Knative runtime contract cites)
/// and `runtime-v1.3.0.md` / `config-v1.3.0.md` / `state-schema-v1.3.0.json` (the latest).
///
/// The version strings, the list (oldest first) and the parsing come from this declaration
/// (strum). Parsing accepts exactly the version strings of the two profiles: other 1.0.x or 1.x
/// versions are not silently mapped to a profile, since the rules changed between them and guessing
/// would hide that.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    strum::VariantArray,
    strum::IntoStaticStr,
    strum::EnumString,
)]
#[strum(
    parse_err_ty = UnsupportedVersion,
    parse_err_fn = UnsupportedVersion::of
)]
pub enum OciVersion {
    /// OCI runtime-spec v1.0.1.
    #[strum(serialize = "1.0.1")]
    V1_0_1,
    /// OCI runtime-spec v1.3.0.
    #[strum(serialize = "1.3.0")]
    V1_3_0,
}

impl OciVersion {
    /// The version string as written in `ociVersion` fields and in traces.
    pub fn as_str(self) -> &'static str {
        self.into()
    }

    /// Whether `config.json` at this version defines the hook.
    ///
    /// - v1.0.1, config.md §POSIX-platform Hooks: "`hooks` (object, OPTIONAL) MAY contain any of the
    ///   following properties: `prestart` … `poststart` … `poststop`" — three hooks only.
    /// - v1.3.0, same section, adds `createRuntime`, `createContainer` and `startContainer`, and marks
    ///   `prestart` "**DEPRECATED**" (deprecated, still defined and still run).
    ///
    /// A hook this version does not define is an *unknown property*: v1.0.1 config.md §Extensibility
    /// "Runtimes that are reading or processing this configuration file MUST NOT generate an error if
    /// they encounter an unknown property. Instead they MUST ignore unknown properties." So the model
    /// never runs it (see [`OciVersion::hooks_in_phase`]).
    pub(crate) fn defines_hook(self, hook: HookName) -> bool {
        match self {
            OciVersion::V1_0_1 => matches!(
                hook,
                HookName::Prestart | HookName::Poststart | HookName::Poststop
            ),
            OciVersion::V1_3_0 => true,
        }
    }

    /// In which operation, and where in it, the hook runs; `None` when this version does not define
    /// the hook.
    ///
    /// v1.0.1:
    /// - `prestart` → [`Phase::StartBeforeProgram`]. config.md §Prestart: "The pre-start hooks MUST be
    ///   called after the `start` operation is called but before the user-specified program command is
    ///   executed." (runtime.md lifecycle steps 3–5.)
    /// - `poststart` → [`Phase::StartAfterProgram`]. config.md §Poststart: "The post-start hooks MUST
    ///   be called after the user-specified process is executed but before the `start` operation
    ///   returns."
    /// - `poststop` → [`Phase::Destroy`]. config.md §Poststop: "The post-stop hooks MUST be called
    ///   after the container is deleted but before the `delete` operation returns."
    ///
    /// v1.3.0:
    /// - `prestart` → [`Phase::Create`]. config.md §Prestart: "The `prestart` hooks MUST be called as
    ///   part of the `create` operation after the runtime environment has been created …" — this is the
    ///   placement change between the two versions (runtime.md lifecycle step 3, before step 6 `start`).
    /// - `createRuntime`, `createContainer` → [`Phase::Create`]. config.md: "MUST be called as part of
    ///   the `create` operation …" (lifecycle steps 4 and 5).
    /// - `startContainer` → [`Phase::StartBeforeProgram`]. config.md: "MUST be called before the
    ///   user-specified process is executed as part of the `start` operation." (step 7)
    /// - `poststart` → [`Phase::StartAfterProgram`] (step 9), `poststop` → [`Phase::Destroy`] (step 13),
    ///   same sentences as v1.0.1.
    pub(crate) fn hook_phase(self, hook: HookName) -> Option<Phase> {
        if !self.defines_hook(hook) {
            return None;
        }
        Some(match (self, hook) {
            (OciVersion::V1_0_1, HookName::Prestart) => Phase::StartBeforeProgram,
            (OciVersion::V1_3_0, HookName::Prestart) => Phase::Create,
            (_, HookName::CreateRuntime | HookName::CreateContainer) => Phase::Create,
            (_, HookName::StartContainer) => Phase::StartBeforeProgram,
            (_, HookName::Poststart) => Phase::StartAfterProgram,
            (_, HookName::Poststop) => Phase::Destroy,
        })
    }

    /// The hooks of one phase, in the order they run.
    ///
    /// Across kinds the order is the lifecycle's step order. v1.3.0 says it twice more in config.md:
    /// "The `prestart` hooks MUST be called before the `createRuntime` hooks." and "The
    /// `createContainer` hooks MUST be called after the `createRuntime` hooks." Within one kind,
    /// config.md (both versions): "Hooks MUST be called in the listed order." Hooks this version does
    /// not define are absent (ignored as unknown properties, see [`OciVersion::defines_hook`]).
    pub(crate) fn hooks_in_phase(self, phase: Phase) -> Vec<HookName> {
        HookName::VARIANTS
            .iter()
            .copied()
            .filter(|&h| self.hook_phase(h) == Some(phase))
            .collect()
    }

    /// What a failing hook does at this version; `None` when the hook is not defined.
    ///
    /// v1.0.1 runtime.md §Lifecycle:
    /// - step 4: "If any prestart hook fails, the runtime MUST generate an error, stop the container,
    ///   and continue the lifecycle at step 9." → [`FailureRule::ErrorStopAndDestroy`]
    /// - step 6: "If any poststart hook fails, the runtime MUST log a warning, but the remaining hooks
    ///   and lifecycle continue as if the hook had succeeded." → [`FailureRule::Warn`]
    /// - step 10: "If any poststop hook fails, the runtime MUST log a warning, but the remaining hooks
    ///   and lifecycle continue as if the hook had succeeded." → [`FailureRule::Warn`]
    ///
    /// v1.3.0 runtime.md §Lifecycle, steps 3, 4, 5, 7 and 9: "If any `prestart` / `createRuntime` /
    /// `createContainer` / `startContainer` / `poststart` hook fails, the runtime MUST generate an
    /// error, stop the container, and continue the lifecycle at step 12." → error for all five. Note
    /// `poststart`: a warning at v1.0.1, an error at v1.3.0. Step 13: "If any `poststop` hook fails,
    /// the runtime MUST log a warning, but the remaining hooks and lifecycle continue as if the hook had
    /// succeeded." → [`FailureRule::Warn`].
    pub fn hook_failure(self, hook: HookName) -> Option<FailureRule> {
        if !self.defines_hook(hook) {
            return None;
        }
        Some(match (self, hook) {
            (_, HookName::Poststop) => FailureRule::Warn,
            (OciVersion::V1_0_1, HookName::Poststart) => FailureRule::Warn,
            _ => FailureRule::ErrorStopAndDestroy,
        })
    }

    /// The namespace a hook is executed in, where this version says; `None` where it is silent.
    ///
    /// v1.3.0 config.md: "The `prestart` hooks MUST be executed in the runtime namespace." and likewise
    /// `createRuntime` (runtime), `createContainer` (container), `startContainer` (container),
    /// `poststart` (runtime), `poststop` (runtime). v1.0.1 config.md does not say where hooks execute
    /// (the Knative contract's informative remark that prestart, poststart and poststop "are defined in
    /// the context of the runtime namespace" is not an OCI v1.0.1 rule), so the model records `None`.
    pub(crate) fn hook_namespace(self, hook: HookName) -> Option<Namespace> {
        match self {
            OciVersion::V1_0_1 => None,
            OciVersion::V1_3_0 => Some(match hook {
                HookName::CreateContainer | HookName::StartContainer => Namespace::Container,
                _ => Namespace::Runtime,
            }),
        }
    }

    /// The lifecycle step number at which the runtime destroys the container ("The container MUST be
    /// destroyed by undoing the steps performed during create phase (step 2)."): step 9 in v1.0.1,
    /// step 12 in v1.3.0. Used in error messages, which cite the step the lifecycle continues at.
    pub(crate) fn destroy_step(self) -> u8 {
        match self {
            OciVersion::V1_0_1 => 9,
            OciVersion::V1_3_0 => 12,
        }
    }

    /// The lifecycle step number of a hook kind at this version (for citations in messages).
    pub(crate) fn hook_step(self, hook: HookName) -> Option<u8> {
        if !self.defines_hook(hook) {
            return None;
        }
        Some(match (self, hook) {
            (OciVersion::V1_0_1, HookName::Prestart) => 4,
            (OciVersion::V1_0_1, HookName::Poststart) => 6,
            (OciVersion::V1_0_1, _) => 10,
            (OciVersion::V1_3_0, HookName::Prestart) => 3,
            (OciVersion::V1_3_0, HookName::CreateRuntime) => 4,
            (OciVersion::V1_3_0, HookName::CreateContainer) => 5,
            (OciVersion::V1_3_0, HookName::StartContainer) => 7,
            (OciVersion::V1_3_0, HookName::Poststart) => 9,
            (OciVersion::V1_3_0, HookName::Poststop) => 13,
        })
    }
}

impl fmt::Display for OciVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An `ociVersion` string the model has no profile for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnsupportedVersion(pub String);

impl UnsupportedVersion {
    /// The error of parsing `s` (strum's `parse_err_fn`).
    fn of(s: &str) -> Self {
        UnsupportedVersion(s.to_owned())
    }
}

impl fmt::Display for UnsupportedVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unsupported OCI version {:?} (supported: {})",
            self.0,
            OciVersion::VARIANTS
                .iter()
                .map(|v| v.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        )
    }
}

impl std::error::Error for UnsupportedVersion {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prestart_moves_from_start_to_create() {
        assert_eq!(
            OciVersion::V1_0_1.hook_phase(HookName::Prestart),
            Some(Phase::StartBeforeProgram)
        );
        assert_eq!(
            OciVersion::V1_3_0.hook_phase(HookName::Prestart),
            Some(Phase::Create)
        );
    }

    #[test]
    fn poststart_failure_is_a_warning_only_in_1_0_1() {
        assert_eq!(
            OciVersion::V1_0_1.hook_failure(HookName::Poststart),
            Some(FailureRule::Warn)
        );
        assert_eq!(
            OciVersion::V1_3_0.hook_failure(HookName::Poststart),
            Some(FailureRule::ErrorStopAndDestroy)
        );
    }

    #[test]
    fn create_phase_order_at_1_3_0() {
        assert_eq!(
            OciVersion::V1_3_0.hooks_in_phase(Phase::Create),
            vec![
                HookName::Prestart,
                HookName::CreateRuntime,
                HookName::CreateContainer
            ]
        );
        assert!(OciVersion::V1_0_1.hooks_in_phase(Phase::Create).is_empty());
        assert_eq!(
            OciVersion::V1_0_1.hooks_in_phase(Phase::StartBeforeProgram),
            vec![HookName::Prestart]
        );
    }

    #[test]
    fn undefined_hooks_have_no_rules() {
        for hook in [
            HookName::CreateRuntime,
            HookName::CreateContainer,
            HookName::StartContainer,
        ] {
            assert!(!OciVersion::V1_0_1.defines_hook(hook));
            assert_eq!(OciVersion::V1_0_1.hook_phase(hook), None);
            assert_eq!(OciVersion::V1_0_1.hook_failure(hook), None);
        }
    }

    #[test]
    fn version_strings_round_trip_and_others_are_refused() {
        for &v in OciVersion::VARIANTS {
            assert_eq!(v.as_str().parse::<OciVersion>(), Ok(v));
        }
        let err = "1.2.0".parse::<OciVersion>().unwrap_err();
        assert_eq!(
            err.to_string(),
            "unsupported OCI version \"1.2.0\" (supported: 1.0.1, 1.3.0)"
        );
    }
}
