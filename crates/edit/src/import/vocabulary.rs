//! The vocabulary of a text imported without one: its actors are the nouns its requirements'
//! subjects name ("The producer MUST": `producer`), the most frequent first, and a clause whose
//! subject names none gets a neutral actor with a review note; its verify kinds are those of a new
//! contract (`kcontract init`'s). No word of another contract (Knative's `platform`, `container`,
//! `model`) is given to a text that does not use it.

use std::collections::BTreeMap;

use kcontract_spec::{Actor, Contract, Labelled, Verify};

use super::{Pass, Start, import_text};

/// The actor of a clause whose subject names none of the text's actors: a person decides.
pub(super) const UNASSIGNED: &str = "unassigned";

/// The verify kinds of an imported text: a test, a person's review, or none possible.
const VERIFY: [&str; 3] = ["test", "manual", "untestable"];

/// The most actors taken from the subjects: beyond them a noun is too rare to be one of the
/// text's parties, and its clauses are left to a person.
const MOST: usize = 8;

/// The vocabulary `src`'s subjects make, and each actor with how many clauses name it.
pub(super) fn from_subjects(
    src: &str,
    origin: &str,
    start: &Start,
) -> (Contract, Vec<(String, usize)>) {
    let neutral = contract(&[]);
    let definitions = BTreeMap::new();
    let pass = Pass {
        origin,
        contract: &neutral,
        fallback: UNASSIGNED,
        definitions: &definitions,
        start,
    };
    // With no actor but the neutral one, every subject is a guess, and every noun counted.
    let mut named: Vec<(String, usize)> = import_text(src, &pass)
        .subjects
        .into_iter()
        .filter(|(n, _)| n != UNASSIGNED && kcontract_spec::is_language_tag(n))
        .collect();
    named.truncate(MOST);
    let names: Vec<&str> = named.iter().map(|(n, _)| n.as_str()).collect();
    (contract(&names), named)
}

/// A contract of `actors` and [`UNASSIGNED`], and the [`VERIFY`] kinds.
fn contract(actors: &[&str]) -> Contract {
    Contract {
        actors: actors
            .iter()
            .copied()
            .chain([UNASSIGNED])
            .map(|a| Labelled::plain(Actor::new(a)))
            .collect(),
        verify: VERIFY
            .iter()
            .map(|v| Labelled::plain(Verify::new(v)))
            .collect(),
        ..Contract::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn actors_are_the_subjects_nouns() {
        let src = "# T\n\n## A\n\nThe producer MUST send. A producer SHOULD retry. The consumer MAY drop. \
                   The `code` field MUST be unique.\n";
        let (c, named) = from_subjects(src, "t.md", &Start::default());
        let actors: Vec<&str> = c.actor_list().map(|a| a.as_str()).collect();
        assert_eq!(actors, ["producer", "consumer", UNASSIGNED]);
        assert_eq!(
            named,
            [("producer".to_string(), 2), ("consumer".to_string(), 1)]
        );
        let verify: Vec<&str> = c.verify_list().map(|v| v.as_str()).collect();
        assert_eq!(verify, VERIFY);
    }
}
