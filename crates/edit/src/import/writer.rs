//! One pass of an import over the source's blocks: prose stays as written, every statement with a
//! keyword becomes a clause block. A statement that ends with `:` (or stops without an end, "… MUST
//! be exposed in") holds what completes it — the list, table or code block after it, with a short
//! label paragraph ("cgroup v2:") before another such block — so that the requirement and its
//! content are one clause (what `diff`, the matrix and the site see). A note or an example that
//! uses a keyword ("(For example, … MUST be rejected.)") stays informative, marked for `check`.

use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;

use kcontract_spec::keywords::{Level, find_keywords};
use kcontract_spec::{BOILERPLATE_MARKER, Contract, INFORMATIVE_MARKER};

use super::carry::Carried;
use super::{Block, Kind, Written, blocks, text};

/// A statement that its following blocks complete, being read.
struct LeadIn {
    /// The sentence: a keyword, and `:` or no end.
    text: String,
    /// The blocks attached so far (lists, tables, code blocks, the labels before them).
    attached: Vec<String>,
    /// A short paragraph ending with `:` ("cgroup v2:") held until the next block says whether it
    /// labels one more attached block; otherwise it is prose after the clause.
    label: Option<String>,
}

/// State shared by one pass over the whole source.
pub(super) struct Writer<'c> {
    pub(super) contract: &'c Contract,
    /// The verify kind a new clause gets.
    pub(super) verify: String,
    /// The actor of a clause whose subject names none of the contract's.
    pub(super) fallback_actor: String,
    pub(super) ids: BTreeSet<String>,
    pub(super) section: String,
    pub(super) clauses: usize,
    pub(super) reviews: usize,
    /// Clauses whose actor is a guess.
    pub(super) guessed: usize,
    pub(super) boilerplate: usize,
    /// Clauses holding the list, table or code block that completes them.
    pub(super) attached: usize,
    /// Notes and examples with keywords kept informative.
    pub(super) informative: usize,
    lead_in: Option<LeadIn>,
    /// How many list items the block being written is in: `check` reads the informative marker
    /// and a note's quote only at a chapter's top level, so a note in an item stays a clause.
    in_items: usize,
    /// What each clause (by its index in the pass) takes from the earlier version.
    pub(super) carried: BTreeMap<usize, Carried>,
    /// How many clauses took a kept id.
    pub(super) kept_ids: usize,
    /// The nouns of the subjects that named no actor, and how often.
    pub(super) subjects: BTreeMap<String, usize>,
    /// Every clause written, in order.
    pub(super) written: Vec<Written>,
}

impl<'c> Writer<'c> {
    pub(super) fn new(contract: &'c Contract, verify: String, fallback_actor: String) -> Self {
        Writer {
            contract,
            verify,
            fallback_actor,
            ids: BTreeSet::new(),
            section: String::new(),
            clauses: 0,
            reviews: 0,
            guessed: 0,
            boilerplate: 0,
            attached: 0,
            informative: 0,
            lead_in: None,
            in_items: 0,
            carried: BTreeMap::new(),
            kept_ids: 0,
            subjects: BTreeMap::new(),
            written: Vec::new(),
        }
    }

    /// Append the clause made of `text` (holding at least one keyword) to `out`.
    fn clause(&mut self, out: &mut String, text: &str) {
        self.clause_about(out, text, None);
    }

    /// [`Writer::clause`], its actor and id taken from `about` (the statement within a longer
    /// text: a table's row under its header, a lead-in above its list) when given.
    fn clause_about(&mut self, out: &mut String, text: &str, about: Option<&str>) {
        self.clause_noted(out, text, about, Vec::new());
    }

    /// [`Writer::clause_about`] with `notes` for its `review:` besides those the text itself calls
    /// for.
    fn clause_noted(
        &mut self,
        out: &mut String,
        text: &str,
        about: Option<&str>,
        mut notes: Vec<String>,
    ) {
        let text = dedent(text.trim_end());
        let about = about.map_or_else(|| text.clone(), |a| a.trim().to_string());
        let hits = find_keywords(&text);
        let Some(first) = hits.first() else {
            return push_block(out, &text);
        };
        let level = first.level;
        let keyword = text[first.range.clone()]
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        let mut levels: Vec<Level> = Vec::new();
        for h in &hits {
            if !levels.contains(&h.level) {
                levels.push(h.level);
            }
        }
        if levels.len() > 1 {
            let names: Vec<&str> = levels.iter().map(|l| l.as_str()).collect();
            notes.insert(
                0,
                format!(
                    "holds {} levels ({}): split it into one clause per level",
                    levels.len(),
                    names.join(", ")
                ),
            );
        }
        notes.extend(text::unusual_forms(&text));
        let index = self.clauses;
        self.clauses += 1;
        self.written.push(Written {
            level,
            text: text.clone(),
            section: self.section.clone(),
        });
        let carried = self.carried.get(&index).cloned();
        let (actor, actor_note) = self.actor(&text, &about, carried.as_ref());
        notes.extend(actor_note);
        let id = match &carried {
            Some(c) => {
                self.kept_ids += 1;
                c.id.clone()
            }
            None => self.id(&about),
        };
        let fields = Fields {
            id: &id,
            keyword: &keyword,
            actor: &actor,
            text: &text,
        };
        let review = match carried.as_ref().and_then(|c| c.review(&text)) {
            Some(kept) => kept,
            None => (!notes.is_empty()).then(|| notes.join("; ")),
        };
        self.reviews += usize::from(review.is_some());
        let block = fields.block(self, carried.as_ref(), review.as_deref());
        // In the canonical form of `kcontract fmt` (one definition of it) here already: `fmt`
        // rewrites top-level blocks only, and this one may go into a list item.
        push_block(out, &crate::fmt::format_chapter(&block));
    }

    /// The clause's actor and, when it is a guess, the review note saying so. A carried actor (an
    /// editor's decision, or the earlier version's) stands while the subject names what it named
    /// then; a subject that now names another actor wins, with a note.
    fn actor(
        &mut self,
        text: &str,
        about: &str,
        carried: Option<&Carried>,
    ) -> (String, Option<String>) {
        let (guessed, sure) = self
            .guess(about)
            .unwrap_or_else(|| self.guess_or_fallback(text));
        if let Some(c) = carried
            && self.contract.actor(&c.actor).is_some()
        {
            let before = self.guess_or_fallback(&c.text);
            let now = self.guess_or_fallback(text);
            if !sure || before == now || guessed == c.actor {
                return (c.actor.clone(), None);
            }
            let note = format!(
                "actor: the earlier version had `{}`; the subject now names `{guessed}`",
                c.actor
            );
            return (guessed, Some(note));
        }
        if sure {
            return (guessed, None);
        }
        self.guessed += 1;
        let noun = find_keywords(about)
            .first()
            .and_then(|h| text::subject_noun(about, h.range.start));
        // Say what the subject is, when it names something: "names no single actor" read wrongly
        // of "The server MUST …", whose subject is one, just not the contract's.
        let note = match &noun {
            // The subject's noun is an actor, but the words before the keyword name others too.
            Some(noun) if self.contract.actor(noun).is_some() => format!(
                "actor `{guessed}` is a guess: the subject names more than one actor (`{noun}` and another)"
            ),
            Some(noun) => format!(
                "actor `{guessed}` is a guess: the subject `{noun}` is not one of the contract's actors"
            ),
            None => format!("actor `{guessed}` is a guess: the subject names no single actor"),
        };
        if let Some(noun) = noun {
            *self.subjects.entry(noun).or_insert(0) += 1;
        }
        (guessed, Some(note))
    }

    /// The actor the subject of `text` (before its first keyword) names, and whether it is sure;
    /// `None` without a keyword.
    fn guess(&self, text: &str) -> Option<(String, bool)> {
        let first = find_keywords(text).first()?.range.start;
        let (actor, sure) = text::guess_actor(self.contract, text, first);
        Some(if sure {
            (actor, true)
        } else {
            (self.fallback_actor.clone(), false)
        })
    }

    fn guess_or_fallback(&self, text: &str) -> (String, bool) {
        self.guess(text)
            .unwrap_or_else(|| (self.fallback_actor.clone(), false))
    }

    /// A unique id: `<section>.<key words>`, `-2`, `-3`, … when taken.
    fn id(&mut self, text: &str) -> String {
        // Text before any section belongs to the introduction chapter (never a bare `clause.`).
        let section = if self.section.is_empty() {
            "introduction".to_string()
        } else {
            self.section.clone()
        };
        let mut words = text::key_words(text);
        if words.is_empty() {
            words = "requirement".into();
        }
        let base = format!("{section}.{}", text::slug(&words, 90 - section.len()));
        let base = base.trim_end_matches(['.', '-']).to_string();
        let base = if base.ends_with('.') || !base.contains('.') {
            format!("{section}.requirement")
        } else {
            base
        };
        let mut id = base.clone();
        let mut n = 2;
        while !self.ids.insert(id.clone()) {
            id = format!("{base}-{n}");
            n += 1;
        }
        id
    }

    /// A paragraph: keyword-free runs of sentences stay prose, each sentence with a keyword is a
    /// clause, and a note or an example with a keyword is prose marked informative. The RFC 2119
    /// boilerplate is prose with its marker.
    fn paragraph(&mut self, out: &mut String, src: &str) {
        let lower = src.to_ascii_lowercase();
        if lower.contains("rfc 2119") && lower.contains("key words") {
            self.boilerplate += 1;
            return push_block(out, &format!("{BOILERPLATE_MARKER}\n{src}"));
        }
        if find_keywords(src).is_empty() {
            return push_block(out, src);
        }
        if self.in_items == 0 && text::informative_start(src) {
            return self.informative(out, src);
        }
        let mut prose = String::new();
        let sentences = text::sentences(src);
        let last = sentences.len().saturating_sub(1);
        for (n, r) in sentences.into_iter().enumerate() {
            let s = &src[r];
            if find_keywords(s).is_empty() {
                prose.push_str(s);
                continue;
            }
            if !prose.trim().is_empty() {
                push_block(out, prose.trim_end());
            }
            prose.clear();
            if self.in_items == 0 && text::informative_start(s) {
                self.informative(out, s);
            } else if n == last && text::ends_open(s) {
                // A lead-in ("… MUST follow these steps:"): what completes it may follow.
                self.lead_in = Some(LeadIn {
                    text: s.to_string(),
                    attached: Vec::new(),
                    label: None,
                });
            } else {
                self.clause(out, s);
            }
        }
        if !prose.trim().is_empty() {
            push_block(out, prose.trim_end());
        }
    }

    /// A note or example holding a keyword: prose, after the marker `check` reads as "informative
    /// on purpose".
    fn informative(&mut self, out: &mut String, src: &str) {
        self.informative += 1;
        push_block(out, &format!("{INFORMATIVE_MARKER}\n{}", src.trim_end()));
    }

    /// The lead-in held by [`Writer::paragraph`], as a clause with what was attached to it (a
    /// review note when it ends with `:` and nothing was), then a label held for nothing, as prose.
    pub(super) fn flush(&mut self, out: &mut String) {
        let Some(lead) = self.lead_in.take() else {
            return;
        };
        if lead.attached.is_empty() {
            let mut notes = Vec::new();
            if lead.text.trim_end().ends_with(':') {
                notes.push(
                    "ends with `:` but no list, table or code block follows it: check that the clause holds all it requires"
                        .to_string(),
                );
            }
            self.clause_noted(out, &lead.text, None, notes);
        } else {
            self.attached += 1;
            let text = format!("{}\n\n{}", lead.text.trim_end(), lead.attached.join("\n\n"));
            self.clause_about(out, &text, Some(&lead.text));
        }
        if let Some(label) = lead.label {
            push_block(out, &label);
        }
    }

    /// Whether the block `src` of `kind` continues the lead-in being read (and was taken).
    fn continue_lead_in(&mut self, src: &str, kind: &Kind) -> bool {
        let Some(lead) = self.lead_in.as_mut() else {
            return false;
        };
        let plain = find_keywords(src).is_empty();
        match kind {
            Kind::List(_) | Kind::Table if plain => {
                lead.attached.extend(lead.label.take());
                lead.attached.push(src.trim_end().to_string());
                true
            }
            Kind::Code => match code_as_tildes(src) {
                Some(code) => {
                    lead.attached.extend(lead.label.take());
                    lead.attached.push(code);
                    true
                }
                None => false,
            },
            Kind::Paragraph if plain && lead.label.is_none() && text::is_label(src) => {
                lead.label = Some(src.trim_end().to_string());
                true
            }
            _ => false,
        }
    }

    /// A block of a chapter or of a list item: `src` is its text, starting at `base` in the text
    /// its `kind` ranges are from.
    pub(super) fn block(&mut self, out: &mut String, src: &str, kind: &Kind, base: usize) {
        if self.continue_lead_in(src, kind) {
            return;
        }
        self.flush(out);
        match kind {
            Kind::Paragraph => self.paragraph(out, src),
            Kind::List(items) => self.list(out, src, items, base),
            Kind::Table => self.table(out, src),
            Kind::Quote if self.in_items == 0 && text::informative_start(src) => {
                // A note or an example, quoted: `check` reads such a quote as informative.
                self.informative += usize::from(!find_keywords(src).is_empty());
                push_block(out, src)
            }
            _ if find_keywords(src).is_empty() || matches!(kind, Kind::Code) => {
                push_block(out, src)
            }
            _ => self.clause(out, src),
        }
    }

    /// The blocks of `src` (a list item's content), each as [`Writer::block`] writes it.
    fn blocks(&mut self, out: &mut String, src: &str) {
        for b in blocks(src) {
            let Block { range, kind } = &b;
            self.block(out, &src[range.clone()], kind, range.start);
        }
        self.flush(out);
    }

    /// A table: each row holding a keyword is a clause, its text the table's header and that row
    /// (the columns keep their names); the runs of rows without one stay a table of prose. A
    /// header holding a keyword makes the whole table one clause.
    fn table(&mut self, out: &mut String, src: &str) {
        let lines: Vec<&str> = src.trim_end().lines().collect();
        if find_keywords(src).is_empty() {
            return push_block(out, src);
        }
        let [header, rule, rows @ ..] = lines.as_slice() else {
            return self.clause(out, src);
        };
        if !find_keywords(header).is_empty() {
            return self.clause(out, src);
        }
        let head = format!("{header}\n{rule}");
        let mut prose: Vec<&str> = Vec::new();
        for row in rows {
            if find_keywords(row).is_empty() {
                prose.push(row);
                continue;
            }
            if !prose.is_empty() {
                push_block(out, &format!("{head}\n{}", prose.join("\n")));
                prose.clear();
            }
            self.clause_about(out, &format!("{head}\n{row}"), Some(row));
        }
        if !prose.is_empty() {
            push_block(out, &format!("{head}\n{}", prose.join("\n")));
        }
    }

    /// A list stays a list: each item's content is written as a chapter's blocks are, so that a
    /// statement with a keyword becomes a clause block inside its item, at the item's indent
    /// (nested lists and the numbers of ordered steps kept).
    fn list(&mut self, out: &mut String, src: &str, items: &[Range<usize>], base: usize) {
        if find_keywords(src).is_empty() {
            return push_block(out, src);
        }
        let mut list = String::new();
        for (n, r) in items.iter().enumerate() {
            let item = &src[r.start - base..r.end - base];
            if n > 0 {
                // Loose (a blank line before the next item) or tight, as written.
                let before = &src[items[n - 1].start - base..r.start - base];
                let loose = before.lines().last().is_some_and(|l| l.trim().is_empty());
                list.push_str(if loose { "\n\n" } else { "\n" });
            }
            let (marker, content) = split_marker(item);
            let content = dedent(content.trim_end());
            let mut inner = String::new();
            if find_keywords(&content).is_empty() {
                inner = content;
            } else {
                self.in_items += 1;
                self.blocks(&mut inner, &content);
                self.in_items -= 1;
            }
            let pad = " ".repeat(marker.len() + 1);
            list.push_str(marker);
            list.push(' ');
            for (i, line) in inner.lines().enumerate() {
                if i > 0 {
                    list.push('\n');
                    if !line.is_empty() {
                        list.push_str(&pad);
                    }
                }
                list.push_str(line);
            }
        }
        push_block(out, &list);
    }
}

/// The fields a new clause block is written with.
struct Fields<'a> {
    id: &'a str,
    keyword: &'a str,
    actor: &'a str,
    text: &'a str,
}

impl Fields<'_> {
    /// The clause block: the new import's fields, and what `carried` keeps of the earlier
    /// version's (its verify kind and reason, OCI reference and upstream tests), in any order:
    /// `fmt` gives the canonical one.
    fn block(&self, w: &Writer<'_>, carried: Option<&Carried>, review: Option<&str>) -> String {
        let q = |s: &str| serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into());
        let decisions = carried.and_then(|c| c.decisions.as_ref());
        let verify = decisions
            .map(|d| d.verify.as_str())
            .filter(|v| w.contract.verify_kind(v).is_some())
            .unwrap_or(&w.verify);
        let mut block = format!(
            "```clause\nid: {}\nlevel: {}\nactor: {}\nverify: {verify}\n",
            self.id, self.keyword, self.actor
        );
        if let Some(d) = decisions {
            if let Some(reason) = d.reason.as_deref().filter(|_| verify == "untestable") {
                block.push_str(&format!("reason: {}\n", q(reason)));
            }
            if let Some(oci) = &d.oci {
                block.push_str(&format!("oci: {}\n", q(oci)));
            }
            if !d.upstream_tests.is_empty() {
                block.push_str("upstream-tests:\n");
                for t in &d.upstream_tests {
                    block.push_str(&format!("  - {}\n", q(t)));
                }
            }
        }
        if let Some(note) = review {
            block.push_str(&format!("review: {}\n", q(note)));
        }
        // Prose folds (`>-`: its line breaks are Markdown's soft breaks, spaces); a text holding a
        // blank line, an indented line (a list) or a hard break stays literal (`|`), where they
        // keep their meaning. Both are in the subset `fmt` rewrites, which gives the final layout.
        // A text that is more than one paragraph (a lead-in and its list, a table) is literal too.
        let literal =
            self.text.lines().any(|l| {
                l.trim().is_empty() || l.starts_with([' ', '\t']) || l.ends_with([' ', '\t'])
            }) || !matches!(
                blocks(self.text).as_slice(),
                [Block {
                    kind: Kind::Paragraph,
                    ..
                }]
            );
        block.push_str(if literal { "text: |\n" } else { "text: >-\n" });
        for line in self.text.lines() {
            if line.trim().is_empty() {
                block.push('\n');
            } else {
                block.push_str("    ");
                block.push_str(line);
                block.push('\n');
            }
        }
        block.push_str("```\n");
        block
    }
}

/// A code block to attach to a clause: fenced with `~` (a backtick fence inside the clause's own
/// ```` ``` ```` block would close it), an indented one fenced too (its indent would not survive
/// the clause's text). `None` when its lines hold a `~~~` fence of their own.
fn code_as_tildes(src: &str) -> Option<String> {
    let t = src.trim_end();
    let first = t.lines().next().unwrap_or("");
    let fence = first.trim_start();
    let (body, info): (Vec<&str>, &str) = if fence.starts_with("```") || fence.starts_with("~~~") {
        let c = fence.chars().next().unwrap_or('`');
        let info = fence.trim_start_matches(c);
        let lines: Vec<&str> = t.lines().skip(1).collect();
        let end = match lines.last() {
            Some(l)
                if l.trim_start().starts_with(c) && l.trim().trim_start_matches(c).is_empty() =>
            {
                lines.len() - 1
            }
            _ => lines.len(),
        };
        (lines[..end].to_vec(), info)
    } else {
        (t.lines().map(|l| l.get(4..).unwrap_or("")).collect(), "")
    };
    if body.iter().any(|l| l.trim_start().starts_with("~~~")) {
        return None;
    }
    Some(format!("~~~{info}\n{}\n~~~", body.join("\n")))
}

/// An item's list marker (`-`, `*`, `1.`, `2)`) and its content after the marker's spaces.
fn split_marker(item: &str) -> (&str, &str) {
    let t = item.trim_start();
    let len = if t.starts_with(['-', '*', '+']) {
        1
    } else {
        let digits = t.chars().take_while(char::is_ascii_digit).count();
        if digits > 0 && t[digits..].starts_with(['.', ')']) {
            digits + 1
        } else {
            0
        }
    };
    (&t[..len], t[len..].trim_start_matches([' ', '\t']))
}

/// `text` with its lines' common indentation (after the first line) removed.
pub(super) fn dedent(text: &str) -> String {
    let mut lines = text.lines();
    let first = lines.next().unwrap_or("").trim_start();
    let rest: Vec<&str> = lines.collect();
    let indent = rest
        .iter()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.len() - l.trim_start().len())
        .min()
        .unwrap_or(0);
    let mut out = first.to_string();
    for l in rest {
        out.push('\n');
        out.push_str(l.get(indent..).unwrap_or(l.trim_start()));
    }
    out
}

/// Append a Markdown block, separated from the previous one by a blank line.
pub(super) fn push_block(out: &mut String, block: &str) {
    if !out.is_empty() {
        out.push_str("\n\n");
    }
    out.push_str(block.trim_end_matches('\n'));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn code_blocks_are_fenced_with_tildes() {
        assert_eq!(
            code_as_tildes("```json\n{\"a\": 1}\n```\n").as_deref(),
            Some("~~~json\n{\"a\": 1}\n~~~")
        );
        assert_eq!(
            code_as_tildes("    GET / HTTP/1.1\n    Host: x\n").as_deref(),
            Some("~~~\nGET / HTTP/1.1\nHost: x\n~~~")
        );
        assert_eq!(code_as_tildes("```\n~~~\n```\n"), None);
    }
}
