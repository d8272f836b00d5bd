//! `kcontract import`: plain RFC 2119 Markdown into a spec folder. Chapters are the top-level
//! sections; every sentence (or table row, quote) holding a keyword becomes a clause, with
//! its level from the keyword, an id from its section and key words, and a guessed actor; the rest
//! stays prose, verbatim. Lists stay lists: a statement in an item becomes a clause block inside
//! that item, so nesting and the numbers of steps survive. What a person has to decide (two
//! levels in one clause, an actor the subject does not name) is a `review:` note, which `check`
//! reports until it is removed.
//!
//! Pure: [`import`] turns a text into files; the command writes them.

mod ids;
mod links;
mod text;

use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;
use std::path::{Path, PathBuf};

use pulldown_cmark::{Event, HeadingLevel, Parser, Tag};

use kcontract_spec::keywords::find_keywords;
use kcontract_spec::{BOILERPLATE_MARKER, LoadOptions, Tree, load_from, markdown_options};
use kcontract_spec::{Contract, Spec};

/// A spec folder made from one Markdown text.
#[derive(Debug, Clone)]
pub struct Imported {
    /// The contract's title (the text's first heading).
    pub title: String,
    /// `contract.yaml`.
    pub contract_yaml: String,
    /// Each chapter: its name and the text of `en/<name>.md`, in order.
    pub chapters: Vec<(String, String)>,
    /// How many clauses, and how many of them carry a `review:` note.
    pub clauses: usize,
    /// Clauses with a `review:` note.
    pub reviews: usize,
    /// RFC 2119 boilerplate paragraphs recognised (and marked).
    pub boilerplate: usize,
    /// Links to a section of the source, now to the chapter holding it, and links to other files
    /// now under the link base.
    pub links_rewritten: usize,
    /// How many clauses kept the id of an earlier import's clause (`Options::earlier`).
    pub kept: usize,
    /// The nouns that the subjects of clauses whose actor is a guess end with ("The producer
    /// MUST": `producer`), most frequent first: the actors the text itself suggests.
    pub subjects: Vec<(String, usize)>,
    /// The targets of links kept as their words only (another file and no link base, or a
    /// section no chapter has): the command reports them.
    pub links_dropped: Vec<String>,
}

/// What an import is made with besides the text and its vocabulary.
#[derive(Default)]
pub struct Options<'a> {
    /// Where the source's relative links to other files point (`--link-base`).
    pub link_base: Option<&'a str>,
    /// The earlier import of the text (`--keep-ids-from`): a clause whose statement it had, the
    /// same or reworded ([`ids`]), keeps its id; no other clause takes one of its ids.
    pub earlier: Option<&'a Spec>,
    /// The contract imported into (`--into`): its clause ids are taken, and the introduction (text
    /// before the first heading) is named apart from its chapters.
    pub into: Option<&'a Spec>,
}

/// A top-level block of the source: its range, and what it is.
struct Block {
    range: Range<usize>,
    kind: Kind,
}

enum Kind {
    Heading(u8),
    Paragraph,
    /// A list, with the range of each of its items.
    List(Vec<Range<usize>>),
    /// A table (GitHub's pipe tables).
    Table,
    /// Anything else (code, quote, HTML, rule): kept whole.
    Other,
}

/// The top-level blocks of `src`.
fn blocks(src: &str) -> Vec<Block> {
    let mut out = Vec::new();
    let mut depth = 0usize;
    let mut current: Option<Block> = None;
    for (event, range) in Parser::new_ext(src, markdown_options()).into_offset_iter() {
        match event {
            Event::Start(tag) => {
                if depth == 0 {
                    let kind = match tag {
                        Tag::Heading { level, .. } => Kind::Heading(heading_level(level)),
                        Tag::Paragraph => Kind::Paragraph,
                        Tag::List(_) => Kind::List(Vec::new()),
                        Tag::Table(_) => Kind::Table,
                        _ => Kind::Other,
                    };
                    current = Some(Block {
                        range: range.clone(),
                        kind,
                    });
                } else if depth == 1
                    && let (
                        Tag::Item,
                        Some(Block {
                            kind: Kind::List(items),
                            ..
                        }),
                    ) = (&tag, current.as_mut())
                {
                    items.push(range.clone());
                }
                depth += 1;
            }
            Event::End(_) => {
                depth = depth.saturating_sub(1);
                if depth == 0
                    && let Some(b) = current.take()
                {
                    out.push(b);
                }
            }
            // Leaf blocks at the top (a rule, an HTML block's text outside a tag pair).
            _ if depth == 0 => out.push(Block {
                range,
                kind: Kind::Other,
            }),
            _ => {}
        }
    }
    out
}

fn heading_level(l: HeadingLevel) -> u8 {
    match l {
        HeadingLevel::H1 => 1,
        HeadingLevel::H2 => 2,
        HeadingLevel::H3 => 3,
        HeadingLevel::H4 => 4,
        HeadingLevel::H5 => 5,
        HeadingLevel::H6 => 6,
    }
}

/// The text of a heading's source line(s): `#`s, closing `#`s and HTML tags left out.
fn heading_text(src: &str) -> String {
    let line = src.lines().next().unwrap_or("").trim();
    let line = line.trim_start_matches('#').trim_end_matches('#').trim();
    let mut out = String::new();
    let mut in_tag = false;
    for c in line.chars() {
        match c {
            '<' => in_tag = true,
            '>' if in_tag => in_tag = false,
            _ if !in_tag => out.push(c),
            _ => {}
        }
    }
    out.trim().to_string()
}

/// One chapter being written.
struct Chapter {
    name: String,
    out: String,
}

/// State shared by the whole import.
struct Writer<'c> {
    contract: &'c Contract,
    verify: String,
    ids: BTreeSet<String>,
    section: String,
    clauses: usize,
    reviews: usize,
    boilerplate: usize,
    /// A sentence with a keyword ending a paragraph with `:`, held until the next block says
    /// whether it leads in a list.
    lead_in: Option<String>,
    /// The ids kept from an earlier import, by the text of their clause ([`ids::key`]), in order.
    kept: BTreeMap<String, Vec<String>>,
    /// How many clauses took a kept id.
    kept_ids: usize,
    /// The nouns of the subjects that named no actor, and how often.
    subjects: BTreeMap<String, usize>,
}

impl Writer<'_> {
    /// Append the clause made of `text` (holding at least one keyword) to `out`.
    fn clause(&mut self, out: &mut String, text: &str) {
        self.clause_about(out, text, None);
    }

    /// [`Writer::clause`], its actor and id taken from `about` (the statement within a longer
    /// text: a table's row under its header, a lead-in above its list) when given.
    fn clause_about(&mut self, out: &mut String, text: &str, about: Option<&str>) {
        let text = dedent(text.trim_end());
        let about = about.map_or_else(|| text.clone(), |a| a.trim().to_string());
        let hits = find_keywords(&text);
        let Some(first) = hits.first() else {
            return push_block(out, &text);
        };
        let mut levels = Vec::new();
        for h in &hits {
            if !levels.contains(&h.level) {
                levels.push(h.level);
            }
        }
        let keyword = text[first.range.clone()]
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        let (actor, sure) = match find_keywords(&about).first() {
            Some(h) => text::guess_actor(self.contract, &about, h.range.start),
            None => text::guess_actor(self.contract, &text, first.range.start),
        };
        let mut review = Vec::new();
        if levels.len() > 1 {
            let names: Vec<&str> = levels.iter().map(|l| l.as_str()).collect();
            review.push(format!(
                "holds {} levels ({}): split it into one clause per level",
                levels.len(),
                names.join(", ")
            ));
        }
        if !sure {
            let noun = match find_keywords(&about).first() {
                Some(h) => text::subject_noun(&about, h.range.start),
                None => None,
            };
            // Say what the subject is, when it names something: "names no single actor" read
            // wrongly of "The server MUST …", whose subject is one, just not the contract's.
            review.push(match &noun {
                Some(noun) => {
                    format!("actor `{actor}` is a guess: the subject `{noun}` is not one of the contract's actors")
                }
                None => format!("actor `{actor}` is a guess: the subject names no single actor"),
            });
            if let Some(noun) = noun {
                *self.subjects.entry(noun).or_insert(0) += 1;
            }
        }
        let kept = self
            .kept
            .get_mut(&ids::key(&text))
            .filter(|k| !k.is_empty())
            .map(|k| k.remove(0));
        self.kept_ids += usize::from(kept.is_some());
        let id = kept.unwrap_or_else(|| self.id(&about));
        self.clauses += 1;
        let mut block = format!(
            "```clause\nid: {id}\nlevel: {keyword}\nactor: {actor}\nverify: {}\n",
            self.verify
        );
        if !review.is_empty() {
            self.reviews += 1;
            let note = review.join("; ");
            let quoted =
                serde_json::to_string(&note).unwrap_or_else(|_| "\"check this clause\"".into());
            block.push_str(&format!("review: {quoted}\n"));
        }
        // Prose folds (`>-`: its line breaks are Markdown's soft breaks, spaces); a text holding a
        // blank line, an indented line (a list) or a hard break stays literal (`|`), where they
        // keep their meaning. Both are in the subset `fmt` rewrites, which gives the final layout.
        // A text that is more than one paragraph (a lead-in and its list, a table) is literal too.
        let literal = text
            .lines()
            .any(|l| l.trim().is_empty() || l.starts_with([' ', '\t']) || l.ends_with([' ', '\t']))
            || !matches!(
                blocks(&text).as_slice(),
                [Block {
                    kind: Kind::Paragraph,
                    ..
                }]
            );
        block.push_str(if literal { "text: |\n" } else { "text: >-\n" });
        for line in text.lines() {
            if line.trim().is_empty() {
                block.push('\n');
            } else {
                block.push_str("    ");
                block.push_str(line);
                block.push('\n');
            }
        }
        block.push_str("```\n");
        // In the canonical form of `kcontract fmt` (one definition of it) here already: `fmt`
        // rewrites top-level blocks only, and this one may go into a list item.
        push_block(out, &crate::fmt::format_chapter(&block));
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
    /// clause. The RFC 2119 boilerplate is prose with its marker.
    fn paragraph(&mut self, out: &mut String, src: &str) {
        let lower = src.to_ascii_lowercase();
        if lower.contains("rfc 2119") && lower.contains("key words") {
            self.boilerplate += 1;
            return push_block(out, &format!("{BOILERPLATE_MARKER}\n{src}"));
        }
        if find_keywords(src).is_empty() {
            return push_block(out, src);
        }
        let mut prose = String::new();
        let sentences = text::sentences(src);
        let last = sentences.len().saturating_sub(1);
        for (n, r) in sentences.into_iter().enumerate() {
            let s = &src[r];
            if find_keywords(s).is_empty() {
                prose.push_str(s);
            } else {
                if !prose.trim().is_empty() {
                    push_block(out, prose.trim_end());
                }
                prose.clear();
                if n == last && s.trim_end().ends_with(':') {
                    // A lead-in ("… MUST follow these steps:"): its list may follow.
                    self.lead_in = Some(s.to_string());
                } else {
                    self.clause(out, s);
                }
            }
        }
        if !prose.trim().is_empty() {
            push_block(out, prose.trim_end());
        }
    }

    /// The lead-in held by [`Writer::paragraph`], as a clause of its own (no list came after it).
    fn flush(&mut self, out: &mut String) {
        if let Some(lead) = self.lead_in.take() {
            self.clause(out, &lead);
        }
    }

    /// A block of a chapter or of a list item: `src` is its text, starting at `base` in the text
    /// its `kind` ranges are from.
    fn block(&mut self, out: &mut String, src: &str, kind: &Kind, base: usize) {
        if let Some(lead) = self.lead_in.take() {
            // A lead-in with a keyword, then a list without one: the lead-in's keyword binds every
            // step, so the clause is the lead-in with its list (numbers and nesting kept).
            if matches!(kind, Kind::List(_)) && find_keywords(src).is_empty() {
                let text = format!("{}\n\n{}", lead.trim_end(), src.trim_end());
                return self.clause_about(out, &text, Some(&lead));
            }
            self.clause(out, &lead);
        }
        match kind {
            Kind::Paragraph => self.paragraph(out, src),
            Kind::List(items) => self.list(out, src, items, base),
            Kind::Table => self.table(out, src),
            _ if find_keywords(src).is_empty()
                || src.trim_start().starts_with("```")
                || src.trim_start().starts_with("~~~")
                || src.starts_with("    ") =>
            {
                push_block(out, src)
            }
            _ => self.clause(out, src),
        }
    }

    /// The blocks of `src` (a list item's content), each as [`Writer::block`] writes it.
    fn blocks(&mut self, out: &mut String, src: &str) {
        for b in blocks(src) {
            self.block(out, &src[b.range.clone()], &b.kind, b.range.start);
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
                self.blocks(&mut inner, &content);
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
fn dedent(text: &str) -> String {
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
fn push_block(out: &mut String, block: &str) {
    if !out.is_empty() {
        out.push_str("\n\n");
    }
    out.push_str(block.trim_end_matches('\n'));
}

/// The ids a pass starts from: those taken, and those kept by text.
#[derive(Default, Clone)]
struct Ids {
    taken: BTreeSet<String>,
    chapters: BTreeSet<String>,
    kept: BTreeMap<String, Vec<String>>,
}

/// Import `src` (Markdown; `origin` names it in `contract.yaml`) with the vocabulary of `contract`
/// (its actors are guessed among; the first verify kind that is not `untestable` is given).
pub fn import(src: &str, origin: &str, contract: &Contract, options: &Options<'_>) -> Imported {
    let link_base = options.link_base;
    let mut start = Ids::default();
    for spec in [options.earlier, options.into].into_iter().flatten() {
        // An earlier version's ids are never given to another statement.
        start
            .taken
            .extend(spec.clauses.iter().map(|c| c.id.clone()));
    }
    if let Some(into) = options.into {
        start
            .chapters
            .extend(into.contract.chapters.iter().cloned());
    }
    let first = import_text(src, origin, contract, &BTreeMap::new(), &start);
    // Where each heading of the source went: the chapters the loader reads, in memory, give the ids
    // `check` resolves links against (one definition of a heading's id).
    let loaded = load_imported(&first);
    let anchors: BTreeMap<String, String> = loaded
        .spec
        .documents
        .iter()
        .flat_map(|d| {
            d.headings
                .iter()
                .map(|h| (h.anchor.clone(), d.chapter.clone()))
        })
        .collect();
    let links = links::rewrite(src, &anchors, link_base);
    let definitions = links::definitions(src, &anchors, link_base);
    let rewritten = links.to_chapters + links.to_base;
    let mut ids = start;
    if let Some(earlier) = options.earlier {
        let new: Vec<ids::Statement<'_>> = loaded
            .spec
            .clauses
            .iter()
            .map(|c| ids::Statement {
                level: c.level,
                text: &c.text,
            })
            .collect();
        let old: Vec<(ids::Statement<'_>, &str)> = earlier
            .clauses
            .iter()
            .map(|c| {
                let s = ids::Statement {
                    level: c.level,
                    text: &c.text,
                };
                (s, c.id.as_str())
            })
            .collect();
        for (i, id) in ids::matches(&new, &old) {
            ids.kept
                .entry(ids::key(&loaded.spec.clauses[i].text))
                .or_default()
                .push(id);
        }
    }
    if rewritten == 0
        && links.to_text.is_empty()
        && definitions.is_empty()
        && options.earlier.is_none()
    {
        return first;
    }
    // Only link targets changed, and definitions were added: the chapters, headings and clauses
    // come out the same, with the ids kept.
    let mut again = import_text(&links.text, origin, contract, &definitions, &ids);
    again.links_rewritten = rewritten;
    again.links_dropped = links.to_text;
    again
}

/// An import's spec folder as `check` reads it, in memory.
fn load_imported(imported: &Imported) -> kcontract_spec::Loaded {
    let mut files: BTreeMap<PathBuf, Vec<u8>> = imported
        .chapters
        .iter()
        .map(|(name, text)| {
            (
                PathBuf::from(format!("spec/en/{name}.md")),
                text.clone().into_bytes(),
            )
        })
        .collect();
    files.insert(
        "spec/contract.yaml".into(),
        imported.contract_yaml.clone().into_bytes(),
    );
    load_from(
        &Tree::Memory(files),
        Path::new("spec"),
        LoadOptions::default(),
    )
}

/// One pass of [`import`], the links left as they are; each chapter ends with the link reference
/// `definitions` it uses.
fn import_text(
    src: &str,
    origin: &str,
    contract: &Contract,
    definitions: &BTreeMap<String, links::Definition>,
    start: &Ids,
) -> Imported {
    let blocks = blocks(src);
    let headings: Vec<u8> = blocks
        .iter()
        .filter_map(|b| match b.kind {
            Kind::Heading(l) => Some(l),
            _ => None,
        })
        .collect();
    let top = headings.iter().copied().min().unwrap_or(1);
    // One heading at the top level, first: the document's title; its subsections are chapters.
    let titled =
        headings.first() == Some(&top) && headings.iter().filter(|l| **l == top).count() == 1;
    let chapter_level = if titled {
        headings
            .iter()
            .copied()
            .filter(|l| *l > top)
            .min()
            .unwrap_or(top + 1)
    } else {
        top
    };
    let mut title = String::new();
    // `manual` (a person checks it) when the vocabulary has it: nothing is known yet about how an
    // imported clause can be tested.
    let verify = contract
        .verify_list()
        .find(|v| v.as_str() == "manual")
        .or_else(|| contract.verify_list().find(|v| !v.is_untestable()))
        .map_or("untestable", |v| v.as_str())
        .to_string();
    let mut w = Writer {
        contract,
        verify,
        ids: start.taken.clone(),
        section: String::new(),
        clauses: 0,
        reviews: 0,
        boilerplate: 0,
        lead_in: None,
        kept: start.kept.clone(),
        kept_ids: 0,
        subjects: BTreeMap::new(),
    };
    let mut chapters: Vec<Chapter> = Vec::new();
    let mut names = BTreeSet::new();
    let mut intro = String::new();
    for b in &blocks {
        let s = &src[b.range.clone()];
        if let Kind::Heading(level) = b.kind {
            w.flush(chapters.last_mut().map_or(&mut intro, |c| &mut c.out));
            let text = heading_text(s);
            if titled && level == top && title.is_empty() {
                title = text;
                continue;
            }
            w.section = text::slug(text::unnumbered(&text), 40);
            if level <= chapter_level {
                let mut name = w.section.clone();
                if name.is_empty() {
                    name = "chapter".into();
                }
                let base = name.clone();
                let mut n = 2;
                while !names.insert(name.clone()) {
                    name = format!("{base}-{n}");
                    n += 1;
                }
                chapters.push(Chapter {
                    name,
                    out: String::new(),
                });
            }
            let shifted = shift_heading(s, level, chapter_level);
            let out = chapters.last_mut().map_or(&mut intro, |c| &mut c.out);
            push_block(out, &shifted);
            continue;
        }
        let out = chapters.last_mut().map_or(&mut intro, |c| &mut c.out);
        w.block(out, s, &b.kind, b.range.start);
    }
    w.flush(chapters.last_mut().map_or(&mut intro, |c| &mut c.out));
    if title.is_empty() {
        title = origin.to_string();
    }
    if !intro.trim().is_empty() {
        // Named by no heading, so free to avoid the chapters of the contract imported into.
        let mut name = "introduction".to_string();
        while names.contains(&name) || start.chapters.contains(&name) {
            name.push_str("-0");
        }
        chapters.insert(
            0,
            Chapter {
                name,
                out: format!("# {title}\n\n{intro}"),
            },
        );
    }
    if chapters.is_empty() {
        chapters.push(Chapter {
            name: "main".into(),
            out: format!("# {title}"),
        });
    }
    for c in &mut chapters {
        let used = links::definitions_used(&c.out, definitions);
        if !used.is_empty() {
            push_block(&mut c.out, &used);
        }
    }
    let chapter_names: Vec<String> = chapters.iter().map(|c| c.name.clone()).collect();
    let contract_yaml = contract_yaml(&title, origin, &chapter_names, contract);
    Imported {
        title,
        contract_yaml,
        chapters: chapters
            .into_iter()
            // In the canonical form `kcontract fmt` writes (one definition of it), so that a
            // first `fmt --check` of the new spec passes.
            .map(|c| {
                (
                    c.name,
                    crate::fmt::format_chapter(&format!("{}\n", c.out.trim_end())),
                )
            })
            .collect(),
        clauses: w.clauses,
        reviews: w.reviews,
        boilerplate: w.boilerplate,
        links_rewritten: 0,
        links_dropped: Vec::new(),
        kept: w.kept_ids,
        subjects: {
            let mut named: Vec<(String, usize)> = w.subjects.into_iter().collect();
            named.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
            named
        },
    }
}

/// A heading at `level` moved so that chapter headings are level 1 (ATX headings only).
fn shift_heading(s: &str, level: u8, chapter_level: u8) -> String {
    let new = level.saturating_sub(chapter_level.saturating_sub(1)).max(1);
    let t = s.trim_start();
    if !t.starts_with('#') {
        return s.to_string();
    }
    let hashes = t.chars().take_while(|c| *c == '#').count();
    format!("{}{}", "#".repeat(usize::from(new)), &t[hashes..])
}

/// The `contract.yaml` of an import: title, one language, the chapters, the vocabulary (the
/// actors and verify kinds of `contract`, spelled out so that the editor sees and can change
/// them), and the upstream left for the editor to fill in.
fn contract_yaml(title: &str, origin: &str, chapters: &[String], contract: &Contract) -> String {
    let q = |s: &str| serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into());
    let mut y = format!(
        "# Made by `kcontract import {origin}`. Check every clause carrying `review:`, then delete that line.\ntitle: {}\nversion: 0.1.0\nlanguages: [en]\nchapters:\n",
        q(title)
    );
    for c in chapters {
        y.push_str(&format!("  - {c}\n"));
    }
    let list = |words: Vec<&str>| words.join(", ");
    y.push_str(&format!(
        "# Who a clause binds (`actor:`) and how it is verified (`verify:`).\nactors: [{}]\nverify: [{}]\n",
        list(contract.actor_list().map(|a| a.as_str()).collect()),
        list(contract.verify_list().map(|v| v.as_str()).collect()),
    ));
    y.push_str(&format!(
        "# Optional: where the text came from, shown on the site.\n# upstream:\n#   title: {}\n#   url: https://…\n#   license: …\n#   attribution: …\n",
        q(title)
    ));
    y
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Keyword count per level.
    fn levels(text: &str) -> std::collections::BTreeMap<kcontract_spec::keywords::Level, usize> {
        let mut m = std::collections::BTreeMap::new();
        for h in find_keywords(text) {
            *m.entry(h.level).or_insert(0) += 1;
        }
        m
    }

    /// A sentence: a few words, sometimes a keyword, code span or link, and an end.
    fn sentence() -> impl Strategy<Value = String> {
        let word = prop_oneof![
            Just("the".to_string()),
            Just("runtime".to_string()),
            Just("container".to_string()),
            Just("MUST".to_string()),
            Just("SHOULD NOT".to_string()),
            Just("MAY".to_string()),
            Just("`a. MUST b`".to_string()),
            Just("[x. y](u.md#z)".to_string()),
            Just("e.g.".to_string()),
            "[a-z]{1,8}",
        ];
        (
            prop::collection::vec(word, 1..8),
            prop_oneof![Just("."), Just("!"), Just("")],
        )
            .prop_map(|(w, end)| format!("{}{end}", w.join(" ")))
    }

    /// A list of `items` (`- ` or numbered), each maybe with a nested list, tight or loose.
    fn list(items: Vec<(String, Vec<String>)>, ordered: bool, loose: bool) -> String {
        let mut out = Vec::new();
        for (n, (item, nested)) in items.iter().enumerate() {
            let marker = if ordered {
                format!("{}.", n + 1)
            } else {
                "-".into()
            };
            let pad = " ".repeat(marker.len() + 1);
            let mut text = format!("{marker} {item}");
            for s in nested {
                text.push_str(&format!("\n{pad}- {s}"));
            }
            out.push(text);
        }
        out.join(if loose { "\n\n" } else { "\n" })
    }

    /// A document: headings, paragraphs of sentences, lists (nested, numbered, after a lead-in
    /// ending with `:`), tables.
    fn document() -> impl Strategy<Value = String> {
        let item = (sentence(), prop::collection::vec(sentence(), 0..3));
        let block = prop_oneof![
            "[A-Z][a-z]{2,8}".prop_map(|t| format!("## {t}")),
            prop::collection::vec(sentence(), 1..4).prop_map(|s| s.join(" ")),
            (
                prop::collection::vec(item, 1..4),
                any::<bool>(),
                any::<bool>()
            )
                .prop_map(|(items, ordered, loose)| list(items, ordered, loose)),
            (sentence(), prop::collection::vec(sentence(), 1..3)).prop_map(|(lead, steps)| {
                let steps = steps.into_iter().map(|s| (s, Vec::new())).collect();
                format!("{lead}:\n\n{}", list(steps, true, false))
            }),
            prop::collection::vec((sentence(), sentence()), 1..4).prop_map(|rows| {
                let rows: Vec<String> =
                    rows.iter().map(|(a, b)| format!("| {a} | {b} |")).collect();
                format!("| name | rule |\n| --- | --- |\n{}", rows.join("\n"))
            }),
        ];
        prop::collection::vec(block, 1..8).prop_map(|b| format!("# Title\n\n{}\n", b.join("\n\n")))
    }

    /// A normative sentence of its own: `n` makes it unlike every other.
    fn statement(n: usize, words: &[String]) -> String {
        format!("The runtime MUST handle case {n} {}.", words.join(" "))
    }

    /// Each clause's id by its text.
    fn ids_by_text(loaded: &kcontract_spec::Loaded) -> BTreeMap<String, String> {
        loaded
            .spec
            .clauses
            .iter()
            .map(|c| (c.text.clone(), c.id.clone()))
            .collect()
    }

    /// A statement that changed its level is a new one: its id is not the old statement's, even
    /// where its words would make it so; a reworded one keeps its id.
    #[test]
    fn ids_of_an_earlier_version_are_kept_or_left_alone() {
        let v1 = "# T\n\n## 4.1 Stops\n\nThe runtime MUST stop. The producer MUST include a unique id in every event.\n";
        let v2 = "# T\n\n## 4.2 Stops\n\nThe runtime MUST NOT stop. Producers MUST put a unique id into every event.\n";
        let first = import(v1, "v1.md", &Contract::default(), &Options::default());
        let before = load_imported(&first);
        let options = Options {
            earlier: Some(&before.spec),
            ..Default::default()
        };
        let second = import(v2, "v2.md", &Contract::default(), &options);
        let ids = |l: &kcontract_spec::Loaded| {
            l.spec
                .clauses
                .iter()
                .map(|c| c.id.clone())
                .collect::<Vec<_>>()
        };
        assert_eq!(
            ids(&before),
            [
                "stops.runtime-stop",
                "stops.producer-include-unique-id-every-event"
            ]
        );
        assert_eq!(
            ids(&load_imported(&second)),
            [
                "stops.runtime-stop-2",
                "stops.producer-include-unique-id-every-event"
            ]
        );
        assert_eq!(second.kept, 1);
    }

    proptest! {
        /// A re-import of a newer version, with sentences added and removed around the others,
        /// keeps the id of every clause whose text did not change, and gives no new clause an id
        /// the earlier version had for another text.
        #[test]
        fn unchanged_clauses_keep_their_ids(
            words in prop::collection::vec(prop::collection::vec("[a-z]{1,6}", 0..4), 2..10),
            keep in prop::collection::vec(any::<bool>(), 10),
            added in prop::collection::vec(prop::collection::vec("[a-z]{1,6}", 0..4), 0..4),
            sections in 1usize..3,
        ) {
            let doc = |sentences: &[String]| {
                let per = sentences.len().div_ceil(sections).max(1);
                let parts: Vec<String> = sentences
                    .chunks(per)
                    .enumerate()
                    .map(|(i, c)| format!("## Part {i}\n\n{}", c.join(" ")))
                    .collect();
                format!("# Title\n\n{}\n", parts.join("\n\n"))
            };
            let old: Vec<String> = words.iter().enumerate().map(|(n, w)| statement(n, w)).collect();
            let mut new: Vec<String> = Vec::new();
            for (i, s) in old.iter().enumerate() {
                if let Some(w) = added.get(i) {
                    new.push(statement(100 + i, w));
                }
                if keep[i] {
                    new.push(s.clone());
                }
            }
            let first = import(&doc(&old), "v1.md", &Contract::default(), &Options::default());
            let before = load_imported(&first);
            prop_assert!(!before.has_errors());
            let options = Options { earlier: Some(&before.spec), ..Default::default() };
            let second = import(&doc(&new), "v2.md", &Contract::default(), &options);
            let after = load_imported(&second);
            prop_assert!(!after.has_errors());
            let (was, is) = (ids_by_text(&before), ids_by_text(&after));
            for (text, id) in &is {
                match was.get(text) {
                    Some(old_id) => prop_assert_eq!(old_id, id, "{}", text),
                    // A new text takes an old id only as a rewording of that id's text.
                    None => {
                        for (old_text, _) in was.iter().filter(|(_, o)| *o == id) {
                            let s = ids::similarity(&ids::words(text), &ids::words(old_text));
                            prop_assert!(s >= ids::SIMILAR, "{} took {} from {}", text, id, old_text);
                        }
                    }
                }
            }
        }

        /// Sentences cover the paragraph exactly, in order.
        #[test]
        fn sentences_cover_the_text(s in prop::collection::vec(sentence(), 0..6)) {
            let text = s.join(" ");
            let pieces: String = text::sentences(&text).into_iter().map(|r| &text[r]).collect();
            prop_assert_eq!(pieces, text);
        }

        /// Every keyword of the source lands in a clause, at its level; the prose holds none; the
        /// result loads without errors.
        #[test]
        fn every_keyword_lands_in_a_clause(doc in document()) {
            let imported = import(&doc, "doc.md", &Contract::default(), &Options::default());
            let dir = tempfile::tempdir().unwrap();
            let spec = dir.path().join("spec");
            std::fs::create_dir_all(spec.join("en")).unwrap();
            std::fs::write(spec.join("contract.yaml"), &imported.contract_yaml).unwrap();
            for (name, text) in &imported.chapters {
                std::fs::write(spec.join("en").join(format!("{name}.md")), text).unwrap();
            }
            let loaded = kcontract_spec::load(&spec);
            let errors: Vec<String> = loaded
                .diagnostics
                .iter()
                .filter(|d| d.is_error())
                .map(|d| format!("{d:?}"))
                .collect();
            prop_assert!(errors.is_empty(), "{doc}\n{errors:?}");
            let mut in_clauses = std::collections::BTreeMap::new();
            for c in &loaded.spec.clauses {
                for (l, n) in levels(&c.text) {
                    *in_clauses.entry(l).or_insert(0) += n;
                }
            }
            prop_assert_eq!(in_clauses, levels(&doc), "{}", doc);
        }
    }
}
