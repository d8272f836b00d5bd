//! Bounded exhaustive exploration: every sequence of steps from a fixed alphabet, up to a depth,
//! checked against [`check_step`] and [`check_state`].
//!
//! Sequences are not replayed one by one (42 steps to depth 6 is 5.5 × 10⁹ sequences). The explorer
//! walks the *states* breadth-first instead: each distinct runtime state reached within the depth is
//! expanded once, by every step of the alphabet, and every such transition is checked. Because each
//! invariant is a property of one transition (or one state), and a sequence is a path of transitions
//! from the initial state, checking every transition out of every state reachable within `depth − 1`
//! steps checks every sequence of length ≤ `depth`. The number of sequences covered is counted
//! exactly by dynamic programming over the layers.
//!
//! Breadth-first order also makes the first counterexample found a shortest one.

use std::collections::{BTreeSet, HashMap};

use strum::VariantArray;

use super::hooks::{HookName, HookOutcome, Hooks};
use super::invariants::{Violation, check_state, check_step};
use super::op::{Action, Config, OnSigterm, Op, OpKind, Signal};
use super::runtime::Runtime;
use super::status::Status;
use super::step::StepResult;

/// The create configurations of the standard alphabet: every hook failure rule of both versions,
/// `process` unset, and both SIGTERM behaviours.
///
/// Hook outcomes are chosen so that each rule is reachable: a failing entry *after* a succeeding one
/// (so "remaining hooks" is observable), failing and succeeding poststop entries (warnings must not
/// stop the rest), and the v1.3.0-only hooks (ignored at v1.0.1).
pub fn standard_configs() -> Vec<Config> {
    use HookOutcome::{Fail, Ok};
    let hooks = |list: &[(HookName, &[HookOutcome])]| {
        list.iter()
            .fold(Hooks::none(), |h, (name, outcomes)| h.with(*name, outcomes))
    };
    let with = |hooks: Hooks| Config {
        hooks,
        ..Config::default()
    };
    vec![
        Config::default(),
        Config {
            on_sigterm: OnSigterm::Ignore,
            ..Config::default()
        },
        Config {
            process: false,
            ..Config::default()
        },
        with(hooks(&[
            (HookName::Prestart, &[Ok]),
            (HookName::CreateRuntime, &[Ok]),
            (HookName::CreateContainer, &[Ok]),
            (HookName::StartContainer, &[Ok]),
            (HookName::Poststart, &[Ok]),
            (HookName::Poststop, &[Ok]),
        ])),
        with(hooks(&[
            (HookName::Prestart, &[Ok, Fail]),
            (HookName::Poststop, &[Fail, Ok]),
        ])),
        with(hooks(&[
            (HookName::CreateRuntime, &[Fail]),
            (HookName::CreateContainer, &[Ok]),
            (HookName::Poststop, &[Ok]),
        ])),
        with(hooks(&[
            (HookName::CreateRuntime, &[Ok]),
            (HookName::CreateContainer, &[Ok, Fail]),
        ])),
        with(hooks(&[
            (HookName::StartContainer, &[Fail]),
            (HookName::Poststart, &[Ok]),
            (HookName::Poststop, &[Ok]),
        ])),
        with(hooks(&[
            (HookName::Poststart, &[Fail, Ok]),
            (HookName::Poststop, &[Fail]),
        ])),
        Config {
            on_sigterm: OnSigterm::Ignore,
            ..with(hooks(&[
                (HookName::Prestart, &[Ok]),
                (HookName::Poststop, &[Fail, Ok]),
            ]))
        },
    ]
}

/// The standard alphabet over `ids`: per ID, `state`, `create` with each of `configs`, `start`,
/// `kill` with SIGTERM, SIGKILL and SIGUSR1, `delete`, `exit` with codes 0 and 1, `shutdown` and
/// `reclaim`; plus `state`, `start` and `delete` invoked without an ID.
pub fn standard_alphabet(ids: &[&str], configs: &[Config]) -> Vec<Op> {
    let mut ops = Vec::new();
    for &id in ids {
        ops.push(Op::new(id, Action::State));
        for config in configs {
            ops.push(Op::new(id, Action::Create(config.clone())));
        }
        ops.push(Op::new(id, Action::Start));
        for signal in [
            Signal::Term,
            Signal::Kill,
            Signal::Other("SIGUSR1".to_owned()),
        ] {
            ops.push(Op::new(id, Action::Kill(signal)));
        }
        ops.push(Op::new(id, Action::Delete));
        ops.push(Op::new(id, Action::Exit { code: 0 }));
        ops.push(Op::new(id, Action::Exit { code: 1 }));
        ops.push(Op::new(id, Action::Shutdown { grace_seconds: 30 }));
        ops.push(Op::new(id, Action::Reclaim));
    }
    for action in [Action::State, Action::Start, Action::Delete] {
        ops.push(Op::without_id(action));
    }
    ops
}

/// What an exploration covered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stats {
    /// The depth bound.
    pub depth: usize,
    /// Number of steps in the alphabet.
    pub alphabet: usize,
    /// Distinct runtime states reached (including the initial one).
    pub states: usize,
    /// Distinct states first reached at each depth `0..=depth`.
    pub new_states_per_depth: Vec<usize>,
    /// Transitions (state, step) executed and checked.
    pub transitions: usize,
    /// Checked transitions whose operation generated an error.
    pub failed_transitions: usize,
    /// Checked transitions that ran at least one failing hook.
    pub hook_failure_transitions: usize,
    /// Sequences of length exactly `depth`.
    pub sequences_at_depth: u128,
    /// Sequences of length 1 to `depth`.
    pub sequences: u128,
    /// The (operation, status before) cells of the operation × status table that were exercised;
    /// `None` is "the container does not exist".
    pub cells: BTreeSet<(OpKind, Option<Status>)>,
}

/// A sequence that breaks a rule.
#[derive(Debug, Clone)]
pub struct Counterexample {
    /// The steps, from the initial state; the last one breaks the rule.
    pub ops: Vec<Op>,
    /// What the last step reported.
    pub last: StepResult,
    /// The broken rule.
    pub violation: Violation,
}

impl std::fmt::Display for Counterexample {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(f, "counterexample of {} steps:", self.ops.len())?;
        for (i, op) in self.ops.iter().enumerate() {
            writeln!(f, "  {i}: {}", describe(op))?;
        }
        write!(f, "  violation: {}", self.violation)
    }
}

/// A one-line description of a step.
pub fn describe(op: &Op) -> String {
    let id = op.id.as_deref().unwrap_or("<no id>");
    match &op.action {
        Action::Create(c) => {
            let hooks: Vec<String> = HookName::VARIANTS
                .iter()
                .copied()
                .filter(|&h| !c.hooks.get(h).is_empty())
                .map(|h| {
                    let o: Vec<&str> = c.hooks.get(h).iter().map(|o| o.as_str()).collect();
                    format!("{h}={}", o.join("/"))
                })
                .collect();
            format!(
                "create {id} process={} on_sigterm={:?} hooks=[{}]",
                c.process,
                c.on_sigterm,
                hooks.join(" ")
            )
        }
        Action::Kill(s) => format!("kill {id} {s}"),
        Action::Exit { code } => format!("exit {id} code={code}"),
        Action::Shutdown { grace_seconds } => format!("shutdown {id} grace={grace_seconds}s"),
        other => format!("{} {id}", other.kind()),
    }
}

/// Explores every sequence of up to `depth` steps from `alphabet`, starting at `initial`.
pub fn explore(
    initial: &Runtime,
    alphabet: &[Op],
    depth: usize,
) -> Result<Stats, Box<Counterexample>> {
    let mut states: Vec<Runtime> = vec![initial.clone()];
    let mut index: HashMap<Runtime, usize> = HashMap::from([(initial.clone(), 0)]);
    // How each state was first reached: (parent, step index).
    let mut parent: Vec<Option<(usize, usize)>> = vec![None];
    // Successors, filled when a state is expanded.
    let mut successors: Vec<Option<Vec<usize>>> = vec![None];
    let mut stats = Stats {
        depth,
        alphabet: alphabet.len(),
        states: 1,
        new_states_per_depth: vec![1],
        transitions: 0,
        failed_transitions: 0,
        hook_failure_transitions: 0,
        sequences_at_depth: if depth == 0 { 1 } else { 0 },
        sequences: 0,
        cells: BTreeSet::new(),
    };
    if let Err(violation) = check_state(initial) {
        return Err(Box::new(Counterexample {
            ops: Vec::new(),
            last: initial.clone().apply(&Op::without_id(Action::State)),
            violation,
        }));
    }

    let path_to = |parent: &[Option<(usize, usize)>], mut s: usize| {
        let mut ops = Vec::new();
        while let Some((p, k)) = parent[s] {
            ops.push(alphabet[k].clone());
            s = p;
        }
        ops.reverse();
        ops
    };

    let mut layer: HashMap<usize, u128> = HashMap::from([(0, 1)]);
    for d in 0..depth {
        let mut next: HashMap<usize, u128> = HashMap::new();
        let mut order: Vec<usize> = layer.keys().copied().collect();
        order.sort_unstable();
        let before_count = states.len();
        for s in order {
            let count = layer[&s];
            if successors[s].is_none() {
                let mut succ = Vec::with_capacity(alphabet.len());
                for (k, op) in alphabet.iter().enumerate() {
                    let before = &states[s];
                    let mut after = before.clone();
                    let result = after.apply(op);
                    stats.transitions += 1;
                    stats.failed_transitions += usize::from(!result.ok());
                    stats.hook_failure_transitions += usize::from(
                        result
                            .hooks_run
                            .iter()
                            .any(|h| h.outcome == HookOutcome::Fail),
                    );
                    if op.valid_id().is_some() {
                        let status = op
                            .valid_id()
                            .and_then(|id| before.container(id))
                            .map(|c| c.status);
                        stats.cells.insert((op.action.kind(), status));
                    }
                    if let Err(violation) = check_step(before, op, &result, &after) {
                        let mut ops = path_to(&parent, s);
                        ops.push(op.clone());
                        return Err(Box::new(Counterexample {
                            ops,
                            last: result,
                            violation,
                        }));
                    }
                    let t = match index.get(&after) {
                        Some(&t) => t,
                        None => {
                            let t = states.len();
                            index.insert(after.clone(), t);
                            states.push(after);
                            parent.push(Some((s, k)));
                            successors.push(None);
                            t
                        }
                    };
                    succ.push(t);
                }
                successors[s] = Some(succ);
            }
            for &t in successors[s].iter().flatten() {
                *next.entry(t).or_insert(0) += count;
            }
        }
        stats.new_states_per_depth.push(states.len() - before_count);
        let total: u128 = next.values().sum();
        stats.sequences += total;
        if d + 1 == depth {
            stats.sequences_at_depth = total;
        }
        layer = next;
    }
    stats.states = states.len();
    Ok(stats)
}
