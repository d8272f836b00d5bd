//! The whole upstream sentence a fragment clause shows (issue #48, item 7): every fragment clause
//! (a text with `…`) has one, and each one is a sentence of the upstream text the contract follows
//! (`upstream/knative/runtime-contract.knative-specs.md`, the revision of `contract.yaml`), word
//! for word. Why: the card presents it as upstream's words; a sentence recorded wrong, or joined
//! from fragments that upstream never wrote together, would put words in upstream's mouth.

use crate::common::cli::root;

/// The words of Markdown `text`, in order: link targets left out (`[text](url)` is `text`), then
/// every run of letters and digits a word. Punctuation, table pipes, list marks and code ticks are
/// the layout, which differs between a sentence on a card and the same sentence in a table.
fn words(text: &str) -> Vec<String> {
    let mut bare = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("](") {
        bare.push_str(&rest[..at]);
        rest = &rest[at + 2..];
        rest = rest.find(')').map_or("", |end| &rest[end + 1..]);
    }
    bare.push_str(rest);
    bare.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect()
}

/// Does `hay` hold `needle` as a run of consecutive words?
fn holds(hay: &[String], needle: &[String]) -> bool {
    !needle.is_empty() && hay.windows(needle.len()).any(|w| w == needle)
}

#[test]
fn every_fragment_shows_a_sentence_upstream_wrote() {
    let loaded = kcontract_spec::load(&root().join("spec"));
    assert!(!loaded.has_errors());
    let spec = &loaded.spec;
    let upstream =
        std::fs::read_to_string(root().join("upstream/knative/runtime-contract.knative-specs.md"))
            .unwrap();
    let upstream = words(&upstream);
    let sentences = kcontract_site::upstream_sentences(spec);
    for (id, sentence) in &sentences {
        assert!(
            holds(&upstream, &words(sentence)),
            "{id}: the sentence shown is not upstream's words: {sentence}"
        );
    }
    for c in &spec.clauses {
        if c.text.contains('…') {
            assert!(
                sentences.iter().any(|(id, _)| *id == c.id),
                "{}: a fragment with no whole upstream sentence",
                c.id
            );
        }
    }
}

/// The comparison is not vacuous: a sentence with one word changed is not upstream's.
#[test]
fn a_sentence_with_a_word_changed_is_not_upstreams() {
    let upstream = words(
        "| `/var/log` | MAY be a directory with write permissions for logs storage. |\n\
         The `hostPort` parameter\nSHOULD NOT be set by the [developer](x.html).",
    );
    assert!(holds(
        &upstream,
        &words("`/var/log`: MAY be a directory with write permissions")
    ));
    assert!(holds(
        &upstream,
        &words("The `hostPort` parameter SHOULD NOT be set by the developer.")
    ));
    assert!(!holds(
        &upstream,
        &words("The `hostPort` parameter MUST NOT be set by the developer.")
    ));
}
