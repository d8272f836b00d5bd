//! The model's proptest strategies, shared by the property tests (`tests/model_props.rs`) and the
//! differential tests against real runtimes (`tests/differential.rs`), so both explore the same
//! space of operation sequences.

use kcontract_oci::model::{Action, Config, HookName, HookOutcome, Hooks, OnSigterm, Op, Signal};
use proptest::prelude::*;
use strum::VariantArray;

/// The container IDs sequences use.
pub(crate) const IDS: [&str; 3] = ["a", "b", "c"];

pub(crate) fn outcome() -> impl Strategy<Value = HookOutcome> {
    prop_oneof![4 => Just(HookOutcome::Ok), 1 => Just(HookOutcome::Fail)]
}

pub(crate) fn hooks() -> impl Strategy<Value = Hooks> {
    let lists = proptest::collection::vec(proptest::collection::vec(outcome(), 0..=2), 6);
    prop_oneof![
        1 => Just(Hooks::none()),
        1 => lists.prop_map(|lists| {
            HookName::VARIANTS
                .iter()
                .copied()
                .zip(lists)
                .fold(Hooks::none(), |h, (name, l)| h.with(name, &l))
        }),
    ]
}

pub(crate) fn config() -> impl Strategy<Value = Config> {
    (
        prop_oneof![6 => Just(true), 1 => Just(false)],
        prop_oneof![Just(OnSigterm::Exit), Just(OnSigterm::Ignore)],
        hooks(),
    )
        .prop_map(|(process, on_sigterm, hooks)| Config {
            process,
            on_sigterm,
            hooks,
        })
}

pub(crate) fn signal() -> impl Strategy<Value = Signal> {
    prop_oneof![
        3 => Just(Signal::Term),
        2 => Just(Signal::Kill),
        1 => Just(Signal::Other("SIGUSR1".to_owned())),
        1 => Just(Signal::Other("SIGHUP".to_owned())),
        // A name Linux does not have: the spec leaves it to the runtime (runc refuses it).
        1 => Just(Signal::Other("SIGFOO".to_owned())),
    ]
}

pub(crate) fn action() -> impl Strategy<Value = Action> {
    prop_oneof![
        4 => config().prop_map(Action::Create),
        4 => Just(Action::Start),
        3 => signal().prop_map(Action::Kill),
        3 => Just(Action::Delete),
        2 => prop_oneof![Just(0), Just(1), Just(2), Just(137)].prop_map(|code| Action::Exit { code }),
        2 => (0u64..120).prop_map(|grace_seconds| Action::Shutdown { grace_seconds }),
        1 => Just(Action::Reclaim),
        2 => Just(Action::State),
    ]
}

pub(crate) fn id() -> impl Strategy<Value = Option<String>> {
    prop_oneof![
        20 => proptest::sample::select(&IDS[..]).prop_map(|s| Some(s.to_owned())),
        1 => Just(None),
        1 => Just(Some(String::new())),
        // IDs whose validity the spec leaves to the runtime ("or is not valid in any other way"):
        // passed to it as they are, so the runtimes' own checks are compared (runc refuses `é`;
        // both refuse an ID longer than a file name).
        1 => Just(Some("é".to_owned())),
        1 => Just(Some("x".repeat(300))),
    ]
}

pub(crate) fn op() -> impl Strategy<Value = Op> {
    (id(), action()).prop_map(|(id, action)| Op { id, action })
}
