//! A chapter file: Markdown prose with ```` ```clause ```` blocks.
//!
//! pulldown-cmark finds the blocks (so a fence inside a list, a quote or another code block is
//! recognised for what it is); we keep the prose verbatim between clauses and scan it for keywords.

use std::collections::HashMap;
use std::ops::Range;

use pulldown_cmark::{
    BrokenLink, CodeBlockKind, CowStr, Event, LinkType, Options, Parser, Tag, TagEnd,
};

use super::clause_block::{BlockPos, ClauseFields, Schema, parse_block};
use crate::diagnostic::{Diagnostic, FileId, SourceFile, Span};
use crate::keywords::{Level, find_keywords};
use crate::spec::{
    Clause, Contract, Heading, Link, LinkDef, LinkDefs, NestedClause, Prose, SectionRef,
    TranslatedClause, link_label,
};

/// Marker that exempts the next block from the "keyword in prose" rule (the RFC 2119 boilerplate).
pub const BOILERPLATE_MARKER: &str = "<!-- kcontract: rfc2119-boilerplate -->";

/// Marker that keeps the next block informative though it uses a keyword: a note or an example
/// ("(For example, a request without `Host` MUST be rejected.)") illustrates a requirement and
/// makes none. A block quote opening with "Note" or "Example" needs no marker
/// ([`is_note_quote`]).
pub const INFORMATIVE_MARKER: &str = "<!-- kcontract: informative -->";

/// Does a block quote's source open as a note or an example (`> Note:`, `> **Example**`,
/// `> [!NOTE]`)? Its keywords then illustrate, and `check` reads it as prose. "Note that the
/// runtime MUST …" points at a requirement and is not such a note. A Chinese translation's note
/// opens with its label, `注：` or `示例` (not `注意`, "note that"). Public so that the site shows as
/// informative exactly the quotes `check` reads as prose.
pub fn is_note_quote(src: &str) -> bool {
    let t = src
        .trim_start()
        .trim_start_matches(['>', ' ', '\t', '*', '_', '[', '!', '('])
        .to_ascii_lowercase();
    if ["注：", "注:", "示例"].iter().any(|w| t.starts_with(w)) {
        return true;
    }
    ["note", "example"].iter().any(|w| {
        t.strip_prefix(w).is_some_and(|rest| {
            rest.is_empty() || rest.starts_with([':', ' ', '*', '_', ']', ')', '.', ',', 's'])
        })
    }) && !t.starts_with("note that")
}

/// The Markdown extensions every reader of a chapter enables (tables, strikethrough, footnotes),
/// so `fmt`, `import` and the site see the same document the loader does.
pub fn markdown_options() -> Options {
    Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_FOOTNOTES
}

/// What a chapter parses into before ids are made global.
pub(super) struct ParsedChapter {
    pub title: Option<String>,
    pub headings: Vec<Heading>,
    /// Every link, in prose and in clause texts.
    pub links: Vec<Link>,
    /// The chapter's link reference definitions.
    pub link_defs: LinkDefs,
    /// The full and collapsed references no definition of the file resolves: where, and their
    /// label. [`settle_references`] reports them, once a translation's are known to be the
    /// source chapter's or none.
    pub undefined: Vec<(Span, String)>,
    /// The ids of source clause blocks left out for their errors (as far as an id can be read), so
    /// that their translations are not reported as translating nothing.
    pub unbuilt: Vec<String>,
    /// Prose pieces and clauses in order; a clause with errors is left out (its diagnostics say why).
    pub pieces: Vec<Piece>,
}

#[derive(Clone)]
pub(super) enum Piece {
    Prose(Prose),
    Clause(Box<Clause>),
    Translated(Box<TranslatedClause>),
}

enum Top {
    Clause {
        fence: Range<usize>,
        content: Range<usize>,
        contiguous: bool,
    },
    Other {
        masked: Vec<Range<usize>>,
        boilerplate: bool,
        /// A heading: a title, never a normative statement, so not scanned for keywords.
        title: bool,
        /// The clause blocks inside the block's list items, in order.
        nested: Vec<Nested>,
        /// The clause blocks inside a quote, a footnote or a table (K0114): no clause, but no
        /// prose either.
        misplaced: Vec<Range<usize>>,
    },
}

/// A clause block inside a list item (at the item's indent): a clause like a top-level one, which
/// the page shows in its place in the list, so that a requirement written as a list item keeps the
/// list around it.
struct Nested {
    /// The block, fences included.
    block: Range<usize>,
    /// Its opening fence line.
    fence: Range<usize>,
    /// Its YAML lines, each from its line start (indented as the item is: YAML reads a mapping
    /// indented as a whole like one at column 1, and its spans stay the file's).
    content: Range<usize>,
}

impl Nested {
    /// The nested clause block at `range` (from its opening fence to its closing one, or to the
    /// end of its item when it is left open).
    fn at(file: &SourceFile, range: &Range<usize>) -> Nested {
        let src = file.text.as_str();
        let fence_end = file.line_end(range.start);
        let start = (fence_end + 1).min(src.len());
        let end = closing_fence(src, range).unwrap_or(range.end);
        Nested {
            block: range.clone(),
            fence: range.start..fence_end,
            content: start..end.max(start),
        }
    }
}

/// Where the closing fence line of the fenced code block at `range` starts (`range` as
/// pulldown-cmark gives it, from the opening fence on), or `None` when the block is never closed:
/// CommonMark then runs it to the end of its container (the file, or its list item). A closing
/// fence is a line of the opening fence's character, at least as long, and nothing else.
fn closing_fence(src: &str, range: &Range<usize>) -> Option<usize> {
    let block = src.get(range.clone())?;
    let (ch, width) = fence_of(block)?;
    let body = block.trim_end_matches(['\n', '\r']);
    let last = body.rfind('\n')? + 1;
    let line = body[last..].trim_start();
    let run = line.len() - line.trim_start_matches(ch).len();
    (run >= width && line[run..].trim().is_empty()).then_some(range.start + last)
}

/// The character (`` ` `` or `~`) and length of the fence that opens `block`, a fenced code
/// block's text from its opening line on.
fn fence_of(block: &str) -> Option<(char, usize)> {
    let opening = block.trim_start_matches(' ');
    let ch = opening.chars().next().filter(|c| *c == '`' || *c == '~')?;
    Some((ch, opening.len() - opening.trim_start_matches(ch).len()))
}

/// Whether the open containers `stack` of a block are lists and list items only (where a clause
/// block may sit), not a quote, a footnote or a table.
fn in_list_items(stack: &[bool]) -> bool {
    !stack.is_empty() && stack.iter().all(|&list| list)
}

/// One chapter file to parse, and what its clause blocks are read against.
pub(super) struct ChapterInput<'a> {
    /// The file's id in the source map (every span points into it).
    pub file_id: FileId,
    /// The file itself.
    pub file: &'a SourceFile,
    /// The chapter's name (its file stem), recorded in each clause.
    pub chapter: &'a str,
    /// The file's language: a Chinese one also has its keyword terms checked (K0308).
    pub lang: &'a str,
    /// A source-language chapter or a translation's.
    pub schema: Schema,
    /// Its actors and verify kinds are the names a clause may use.
    pub contract: &'a Contract,
}

/// Parse one chapter file: its top-level blocks in one pass over pulldown-cmark's events
/// ([`ChapterReader`]), then its pieces in order, with the clause blocks parsed
/// ([`ChapterReader::assemble`]). Problems go to `diags`.
pub(super) fn parse_chapter(
    input: &ChapterInput<'_>,
    diags: &mut Vec<Diagnostic>,
) -> ParsedChapter {
    let mut undefined = Vec::new();
    let parser = Parser::new_with_broken_link_callback(
        input.file.text.as_str(),
        markdown_options(),
        Some(|b: BrokenLink<'_>| {
            if is_reference(b.link_type) {
                undefined.push((b.span, link_label(&b.reference)));
            }
            None
        }),
    );
    let link_defs: LinkDefs = parser
        .reference_definitions()
        .iter()
        .map(|(label, d)| {
            let def = LinkDef {
                dest: d.dest.to_string(),
                title: d.title.as_deref().unwrap_or_default().to_string(),
            };
            (link_label(label), def)
        })
        .collect();
    let mut reader = ChapterReader::new(input, diags);
    for (ev, range) in parser.into_offset_iter() {
        match ev {
            Event::Start(tag) => reader.on_start(tag, range),
            Event::End(tag) => reader.on_end(tag, range),
            Event::Text(t) | Event::Code(t) => reader.on_text(&t, range),
            _ => {}
        }
    }
    let undefined = undefined
        .into_iter()
        .map(|(span, label)| (Span::new(input.file_id, span), label))
        .collect();
    reader.assemble(link_defs, undefined)
}

/// A top-level clause block being read: its opening fence line, and its text events (their
/// ranges, and their text joined), to tell whether its YAML lies in the file as one piece.
struct OpenClause {
    fence: Range<usize>,
    texts: Vec<Range<usize>>,
    joined: String,
}

/// Any other fenced code block being read: its range, info string and text, to tell whether it is
/// a mistyped clause block (K0121).
struct OpenCode {
    range: Range<usize>,
    info: String,
    text: String,
}

/// The first pass over a chapter: pulldown-cmark's events gathered into top-level blocks
/// ([`Top`]), with the headings (and their anchors), the title and the links of the prose on the
/// way. What the events of one top-level block tell is held in the fields until its end.
struct ChapterReader<'a> {
    input: &'a ChapterInput<'a>,
    diags: &'a mut Vec<Diagnostic>,
    /// How many tags are open: 0 between top-level blocks.
    depth: usize,
    /// Where the top-level block being read starts.
    block_start: usize,
    /// The open containers of the block being read, the top-level one first: `true` for a list or
    /// a list item.
    stack: Vec<bool>,
    /// The code and HTML blocks inside the block being read, blanked out before its keyword scan.
    masked: Vec<Range<usize>>,
    /// The clause blocks inside the block's list items, in order.
    nested: Vec<Nested>,
    /// The clause blocks inside a quote, a footnote or a table (K0114).
    misplaced: Vec<Range<usize>>,
    /// The top-level clause block being read.
    clause: Option<OpenClause>,
    /// Any other fenced code block being read.
    code: Option<OpenCode>,
    /// The top-level heading being read: its level and text.
    heading: Option<(u8, String)>,
    /// The boilerplate marker came last: the next block is not scanned for keywords.
    exempt_next: bool,
    /// The top-level blocks read, in order.
    tops: Vec<(Range<usize>, Top)>,
    headings: Vec<Heading>,
    /// How many headings had each anchor so far (GitHub numbers the repeats: `x`, `x-1`, …).
    slugs: HashMap<String, usize>,
    /// The first level-1 heading.
    title: Option<String>,
    /// The links written in the prose (a clause's are found when it is parsed).
    links: Vec<Link>,
}

impl<'a> ChapterReader<'a> {
    fn new(input: &'a ChapterInput<'a>, diags: &'a mut Vec<Diagnostic>) -> Self {
        ChapterReader {
            input,
            diags,
            depth: 0,
            block_start: 0,
            stack: Vec::new(),
            masked: Vec::new(),
            nested: Vec::new(),
            misplaced: Vec::new(),
            clause: None,
            code: None,
            heading: None,
            exempt_next: false,
            tops: Vec::new(),
            headings: Vec::new(),
            slugs: HashMap::new(),
            title: None,
            links: Vec::new(),
        }
    }

    fn on_start(&mut self, tag: Tag<'_>, range: Range<usize>) {
        if self.depth == 0 {
            self.block_start = range.start;
            self.masked.clear();
            self.nested.clear();
            self.misplaced.clear();
            self.stack.clear();
        }
        if let Tag::CodeBlock(kind) = &tag {
            self.on_code_block(kind, &range);
        }
        self.stack.push(matches!(tag, Tag::List(_) | Tag::Item));
        match &tag {
            Tag::HtmlBlock => self.masked.push(range.clone()),
            Tag::Link { dest_url, .. } | Tag::Image { dest_url, .. } => {
                let src = self.input.file.text.as_str();
                self.links.push(Link {
                    dest: dest_url.to_string(),
                    span: Span::new(self.input.file_id, dest_range(src, &range, dest_url)),
                });
            }
            Tag::Heading { level, .. } if self.depth == 0 => {
                self.heading = Some((*level as u8, String::new()));
            }
            _ => {}
        }
        self.depth += 1;
    }

    /// The start of a code block: a top-level clause block opens; one in a list item is nested;
    /// one anywhere else is misplaced (K0114); any other fenced block is checked for a clause block
    /// it swallows (K0120) and read for its likeness to one (K0121).
    fn on_code_block(&mut self, kind: &CodeBlockKind<'_>, range: &Range<usize>) {
        let ChapterInput { file_id, file, .. } = *self.input;
        let is_clause = matches!(kind, CodeBlockKind::Fenced(info) if info.split_whitespace().next() == Some("clause"));
        if is_clause && (self.depth == 0 || in_list_items(&self.stack)) {
            check_closed(file_id, file, range, self.diags);
        }
        if self.depth == 0 && is_clause {
            self.clause = Some(OpenClause {
                fence: range.start..file.line_end(range.start),
                texts: Vec::new(),
                joined: String::new(),
            });
            return;
        }
        if let CodeBlockKind::Fenced(info) = kind {
            check_swallowed_clause(file_id, file, range, self.diags);
            if !is_clause {
                self.code = Some(OpenCode {
                    range: range.clone(),
                    info: info.to_string(),
                    text: String::new(),
                });
            }
        }
        if is_clause && in_list_items(&self.stack) {
            self.nested.push(Nested::at(file, range));
        } else if is_clause {
            self.misplaced.push(range.clone());
            self.diags.push(
                Diagnostic::error("K0114", "a clause block must not be nested")
                    .at(Span::new(file_id, range.start..file.line_end(range.start)), "this clause is inside a quote, a footnote or another block")
                    .help("start the ```clause fence at column 1, or in a list item at the item's indent; a clause cannot sit in a block quote, a footnote or a table"),
            );
        }
        self.masked.push(range.clone());
    }

    fn on_end(&mut self, tag: TagEnd, range: Range<usize>) {
        self.depth = self.depth.saturating_sub(1);
        if let (TagEnd::CodeBlock, Some(code)) = (tag, self.code.take()) {
            let ChapterInput { file_id, file, .. } = *self.input;
            check_lookalike(
                file_id,
                file,
                &code.range,
                &code.info,
                &code.text,
                self.diags,
            );
        }
        self.stack.pop();
        if self.depth == 0 {
            self.end_block(tag, self.block_start..range.end);
        }
    }

    /// The end of top-level block `block`: a clause block, an HTML block (the boilerplate marker
    /// exempts the block after it; HTML is never scanned for keywords), or prose (a heading among
    /// it).
    fn end_block(&mut self, tag: TagEnd, block: Range<usize>) {
        match tag {
            TagEnd::CodeBlock if self.clause.is_some() => {
                let top = self.clause.take().map(|c| self.clause_top(c));
                self.tops.extend(top.map(|top| (block, top)));
            }
            TagEnd::HtmlBlock => {
                let html = self.input.file.text[block].trim();
                if html == BOILERPLATE_MARKER || html == INFORMATIVE_MARKER {
                    self.exempt_next = true;
                }
            }
            other => {
                if matches!(other, TagEnd::BlockQuote(_))
                    && is_note_quote(&self.input.file.text[block.clone()])
                {
                    self.exempt_next = true;
                }
                let is_heading = matches!(other, TagEnd::Heading(_));
                if let (TagEnd::Heading(_), Some((level, text))) = (other, self.heading.take()) {
                    self.add_heading(level, text, &block);
                }
                let top = Top::Other {
                    masked: std::mem::take(&mut self.masked),
                    boilerplate: std::mem::take(&mut self.exempt_next),
                    title: is_heading,
                    nested: std::mem::take(&mut self.nested),
                    misplaced: std::mem::take(&mut self.misplaced),
                };
                self.tops.push((block, top));
            }
        }
    }

    /// A top-level clause block read: where its YAML is, and whether it is one piece of the file
    /// (not when the fence is indented and its lines lose their indent).
    fn clause_top(&self, clause: OpenClause) -> Top {
        let OpenClause {
            fence,
            texts,
            joined,
        } = clause;
        let ChapterInput { file, .. } = *self.input;
        let src = file.text.as_str();
        let content_start = texts
            .first()
            .map_or(file.line_end(fence.end) + 1, |r| r.start)
            .min(src.len());
        let content_end = texts.last().map_or(content_start, |r| r.end);
        let contiguous = src.get(content_start..content_end) == Some(joined.as_str());
        Top::Clause {
            fence,
            content: content_start..content_end,
            contiguous,
        }
    }

    /// A heading read: its anchor (numbered when the text repeats), and the title when it is the
    /// first of level 1.
    fn add_heading(&mut self, level: u8, text: String, block: &Range<usize>) {
        let ChapterInput { file_id, file, .. } = *self.input;
        let base = slugify(&text);
        let n = self.slugs.entry(base.clone()).or_insert(0);
        let anchor = if *n == 0 { base } else { format!("{base}-{n}") };
        *n += 1;
        if level == 1 && self.title.is_none() {
            self.title = Some(text.clone());
        }
        self.headings.push(Heading {
            level,
            title: text,
            anchor,
            line: file.line_col(block.start).0,
            span: Span::new(file_id, block.clone()),
        });
    }

    fn on_text(&mut self, t: &str, range: Range<usize>) {
        if let Some(clause) = self.clause.as_mut() {
            clause.texts.push(range);
            clause.joined.push_str(t);
        }
        if let Some(code) = self.code.as_mut() {
            code.text.push_str(t);
        }
        if let Some((_, h)) = self.heading.as_mut() {
            h.push_str(t);
        }
    }

    /// The second pass, over the top-level blocks read: the keyword scan of the prose, the clause
    /// blocks parsed, and the chapter's pieces in order. `link_defs` are the chapter's link
    /// reference definitions; `undefined`, the references of its prose none resolves.
    fn assemble(self, link_defs: LinkDefs, undefined: Vec<(Span, String)>) -> ParsedChapter {
        let ChapterReader {
            input,
            diags,
            tops,
            headings,
            title,
            links,
            ..
        } = self;
        // A clause belongs to the last heading that starts before it.
        let section_at = headings
            .iter()
            .map(|h| {
                let sec = SectionRef {
                    title: h.title.clone(),
                    anchor: h.anchor.clone(),
                };
                (input.file.line_start(h.line), sec)
            })
            .collect();
        let mut pieces = Pieces {
            input,
            diags,
            section_at,
            link_defs,
            links,
            undefined,
            unbuilt: Vec::new(),
            pieces: Vec::new(),
            held: Vec::new(),
            prose_from: 0,
        };
        for (block, top) in tops {
            pieces.add(block, top);
        }
        pieces.finish(title, headings)
    }
}

/// The second pass's state: the pieces made so far, and what the clause blocks parsed add to the
/// chapter (their links, their undefined references, the ids of those left out).
struct Pieces<'a> {
    input: &'a ChapterInput<'a>,
    diags: &'a mut Vec<Diagnostic>,
    /// Where each heading's section starts, in order.
    section_at: Vec<(usize, SectionRef)>,
    link_defs: LinkDefs,
    links: Vec<Link>,
    undefined: Vec<(Span, String)>,
    unbuilt: Vec<String>,
    pieces: Vec<Piece>,
    /// The clause blocks of the prose read since `prose_from`, for its piece (their ranges the
    /// file's, whole lines).
    held: Vec<NestedClause>,
    /// Where the prose not yet made a piece starts.
    prose_from: usize,
}

impl Pieces<'_> {
    /// Top-level block `block`: prose (a heading, a paragraph, a list that may hold clause
    /// blocks) or a clause block.
    fn add(&mut self, block: Range<usize>, top: Top) {
        let prose_end = block.end;
        // The clause blocks this top-level block holds: itself, or those in its list items (then
        // the block is prose that holds them).
        let (clauses, in_prose) = match top {
            Top::Other {
                masked,
                boilerplate,
                title,
                nested,
                misplaced,
            } => {
                let src = self.input.file.text.as_str();
                self.held.extend(misplaced.iter().map(|r| NestedClause {
                    range: whole_lines(src, r),
                    id: None,
                }));
                if title {
                    return;
                }
                if !boilerplate {
                    let ChapterInput { file_id, file, .. } = *self.input;
                    scan_prose(file_id, file, &block, &masked, self.diags);
                }
                if nested.is_empty() {
                    return;
                }
                (nested, true)
            }
            Top::Clause {
                fence,
                content,
                contiguous,
            } => match self.top_clause(block, fence, content, contiguous) {
                Some(top) => (vec![top], false),
                None => return,
            },
        };
        let built: Vec<Piece> = clauses
            .into_iter()
            .filter_map(|clause| self.clause(clause, in_prose))
            .collect();
        if in_prose {
            // The list is prose that holds clauses: it is one piece, its clauses after it.
            let src = self.input.file.text.as_str();
            let prose = prose_piece(src, self.prose_from..prose_end, &mut self.held);
            self.pieces.push(Piece::Prose(prose));
            self.prose_from = prose_end;
        }
        self.pieces.extend(built);
    }

    /// A top-level clause block: the prose before it becomes a piece; the block is parsed unless
    /// its fence is indented (K0114).
    fn top_clause(
        &mut self,
        block: Range<usize>,
        fence: Range<usize>,
        content: Range<usize>,
        contiguous: bool,
    ) -> Option<Nested> {
        let src = self.input.file.text.as_str();
        let prose = prose_piece(src, self.prose_from..block.start, &mut self.held);
        if !prose.text.trim().is_empty() {
            self.pieces.push(Piece::Prose(prose));
        }
        self.prose_from = block.end;
        if !contiguous {
            self.diags.push(
                Diagnostic::error("K0114", "a clause fence must start at column 1")
                    .at(Span::new(self.input.file_id, fence), "indented clause fence")
                    .help("remove the indentation before ```clause; clauses are top-level blocks, or sit in a list item at the item's indent"),
            );
            return None;
        }
        Some(Nested {
            block,
            fence,
            content,
        })
    }

    /// One clause block parsed and built (`None` when it has errors), its links and undefined
    /// references recorded; held by the prose piece it sits in when `in_prose`.
    fn clause(&mut self, clause: Nested, in_prose: bool) -> Option<Piece> {
        let Nested {
            block,
            fence,
            content,
        } = clause;
        let ChapterInput {
            file_id,
            file,
            chapter,
            lang,
            schema,
            contract,
        } = *self.input;
        let src = file.text.as_str();
        let pos = BlockPos {
            file_id,
            file,
            content,
            fence,
            contract,
        };
        let fields = parse_block(&pos, schema, self.diags);
        let within = fields.text_span.as_ref().map_or(&block, |s| &s.range);
        if is_chinese(lang)
            && let Some(text) = &fields.text
        {
            check_chinese_terms(text, src, within, file_id, self.diags);
        }
        self.clause_links(&fields, within);
        let section = self
            .section_at
            .iter()
            .rev()
            .find(|(off, _)| *off <= block.start)
            .map(|(_, s)| s.clone());
        let written_id = fields
            .id
            .as_ref()
            .map(|(id, _)| id.clone())
            .or_else(|| id_line(&src[pos_content(&block, src)]));
        let piece = match schema {
            Schema::Source => {
                let built = build_clause(fields, chapter, section, file, file_id, &block);
                if built.is_none() {
                    self.unbuilt.extend(written_id);
                }
                built.map(|c| Piece::Clause(Box::new(c)))
            }
            Schema::Translation => build_translated(fields, file, file_id, &block)
                .map(|c| Piece::Translated(Box::new(c))),
        };
        if in_prose {
            let id = match &piece {
                Some(Piece::Clause(c)) => Some(c.id.clone()),
                Some(Piece::Translated(t)) => Some(t.id.clone()),
                _ => None,
            };
            let range = whole_lines(src, &block);
            self.held.push(NestedClause { range, id });
        }
        piece
    }

    /// The links of a clause's text, `reason` and `implicit` (written `within` the block), and the
    /// references among them that no definition of the chapter resolves.
    fn clause_links(&mut self, fields: &ClauseFields, within: &Range<usize>) {
        let ChapterInput { file_id, file, .. } = *self.input;
        let src = file.text.as_str();
        for text in [&fields.text, &fields.reason, &fields.implicit]
            .into_iter()
            .flatten()
        {
            let (found, missing) = links_in(text, &self.link_defs);
            self.links.extend(found.into_iter().map(|dest| Link {
                span: Span::new(file_id, dest_range(src, within, &dest)),
                dest,
            }));
            self.undefined
                .extend(missing.into_iter().map(|(written, label)| {
                    (Span::new(file_id, dest_range(src, within, &written)), label)
                }));
        }
    }

    /// The prose after the last clause block as the last piece, and the chapter parsed.
    fn finish(mut self, title: Option<String>, headings: Vec<Heading>) -> ParsedChapter {
        let src = self.input.file.text.as_str();
        let tail = prose_piece(
            src,
            self.prose_from.min(src.len())..src.len(),
            &mut self.held,
        );
        if !tail.text.trim().is_empty() {
            self.pieces.push(Piece::Prose(tail));
        }
        ParsedChapter {
            title,
            headings,
            links: self.links,
            link_defs: self.link_defs,
            undefined: self.undefined,
            unbuilt: self.unbuilt,
            pieces: self.pieces,
        }
    }
}

/// The block's text (its range in `src`, clamped).
fn pos_content(block: &Range<usize>, src: &str) -> Range<usize> {
    block.start.min(src.len())..block.end.min(src.len())
}

/// The prose piece of `src[span]`, the blank lines around it trimmed, with the clause blocks of
/// `held` (all in `span`; taken), their ranges made the piece's, in order (a block in a quote of
/// a list item is held before the list's own).
fn prose_piece(src: &str, span: Range<usize>, held: &mut Vec<NestedClause>) -> Prose {
    held.sort_by_key(|c| c.range.start);
    let whole = &src[span.clone()];
    let text = whole.trim_matches('\n');
    let start = span.start + (whole.len() - whole.trim_start_matches('\n').len());
    let end = start + text.len();
    let local = |at: usize| at.clamp(start, end) - start;
    let clauses = held
        .drain(..)
        .map(|c| NestedClause {
            range: local(c.range.start)..local(c.range.end),
            id: c.id,
        })
        .collect();
    Prose {
        text: text.to_string(),
        clauses,
    }
}

/// `range` widened to whole lines: from the start of its first line to the end of its last
/// (its newline included), so that a block's list marker (`- ```clause`) and the indent of its
/// closing fence go with it.
fn whole_lines(src: &str, range: &Range<usize>) -> Range<usize> {
    let start = src[..range.start].rfind('\n').map_or(0, |i| i + 1);
    let end = if range.end <= range.start || src[..range.end].ends_with('\n') {
        range.end
    } else {
        src[range.end..]
            .find('\n')
            .map_or(src.len(), |i| range.end + i + 1)
    };
    start..end.max(start)
}

/// The value of an `id:` line in a clause block that did not parse, if there is one.
fn id_line(block: &str) -> Option<String> {
    block.lines().find_map(|l| {
        let v = l
            .trim_start()
            .strip_prefix("id:")?
            .trim()
            .trim_matches(['"', '\'']);
        (!v.is_empty()).then(|| v.to_string())
    })
}

/// Chinese (`zh`, `zh-CN`, `zh-Hans`, …): its clauses write RFC 2119 keywords as 必须（MUST）.
fn is_chinese(lang: &str) -> bool {
    lang == "zh" || lang.starts_with("zh-")
}

/// K0308: the Chinese term before each bracketed keyword says the keyword's level.
fn check_chinese_terms(
    text: &str,
    src: &str,
    within: &Range<usize>,
    file_id: FileId,
    diags: &mut Vec<Diagnostic>,
) {
    for m in crate::keywords::chinese_mismatches(text) {
        let written = &text[m.range.clone()];
        let span = Span::new(file_id, dest_range(src, within, written));
        let terms = crate::keywords::chinese_terms(m.level);
        let keyword = if m.keyword == m.level.as_str() {
            m.keyword.clone()
        } else {
            format!("{} ({})", m.keyword, m.level)
        };
        let (message, label) = match m.term {
            Some((term, says)) => (
                format!("`{term}` reads as {says}, but the keyword is {keyword}"),
                format!("{term} means {says}"),
            ),
            None => (
                format!("the keyword {keyword} has no Chinese term of the keyword table before it"),
                "no term of the table here".to_string(),
            ),
        };
        diags.push(
            Diagnostic::error("K0308", message)
                .at(span, label)
                .help(format!(
                    "write {}: the keyword table of spec/README.md gives each keyword its Chinese term, so that a reader of the Chinese sees the level the English keyword has",
                    terms.iter().map(|t| format!("{t}（{}）", m.keyword)).collect::<Vec<_>>().join(" or "),
                )),
        );
    }
}

/// The link destinations in a piece of Markdown (a clause's text), references resolved against
/// the chapter's `defs`; and the references written in it that no definition resolves (`[text][ref]`,
/// `[ref][]`): as written, and their label.
fn links_in<'m>(markdown: &'m str, defs: &LinkDefs) -> (Vec<String>, Vec<(String, String)>) {
    let mut undefined = Vec::new();
    let mut resolve = resolver(Some(defs));
    let parser = Parser::new_with_broken_link_callback(
        markdown,
        markdown_options(),
        Some(|b: BrokenLink<'m>| {
            let (span, reference) = (b.span.clone(), is_reference(b.link_type));
            let label = link_label(&b.reference);
            let found = resolve(b);
            if found.is_none() && reference {
                undefined.push((markdown[span].to_string(), label));
            }
            found
        }),
    );
    let found = parser
        .filter_map(|ev| match ev {
            Event::Start(Tag::Link { dest_url, .. } | Tag::Image { dest_url, .. }) => {
                Some(dest_url.to_string())
            }
            _ => None,
        })
        .collect();
    (found, undefined)
}

/// A full (`[text][ref]`) or collapsed (`[ref][]`) reference: written as a link, so one that
/// resolves nowhere is an error. A shortcut (`[ref]`) resolves when defined, but undefined it is
/// ordinary bracketed text (`[optional]`, `array[0]`), as CommonMark reads it.
fn is_reference(t: LinkType) -> bool {
    matches!(t, LinkType::Reference | LinkType::Collapsed)
}

/// pulldown-cmark's callback for references its own parse cannot resolve: looked up in `defs`, a
/// chapter's definitions, so that Markdown parsed apart from its chapter (a clause's text, one
/// prose piece of a page) links where the chapter says.
pub fn resolver<'d, 'a>(
    defs: Option<&'d LinkDefs>,
) -> impl FnMut(BrokenLink<'a>) -> Option<(CowStr<'a>, CowStr<'a>)> + 'd {
    move |b| {
        let d = defs?.get(&link_label(&b.reference))?;
        Some((d.dest.clone().into(), d.title.clone().into()))
    }
}

/// Settle a parsed chapter's references: a translation's chapter also resolves them against
/// `inherited`, the definitions of the source chapter it translates (a translator need not copy
/// the `[ref]: url` lines, which are not text to translate); its own definitions come first. What
/// neither defines is K0118.
pub(super) fn settle_references(
    parsed: &mut ParsedChapter,
    inherited: Option<&LinkDefs>,
    diags: &mut Vec<Diagnostic>,
) {
    if let Some(inherited) = inherited {
        for (label, def) in inherited {
            parsed
                .link_defs
                .entry(label.clone())
                .or_insert_with(|| def.clone());
        }
    }
    for (span, label) in std::mem::take(&mut parsed.undefined) {
        if !parsed.link_defs.contains_key(&label) {
            diags.push(undefined_reference(span, &label, &parsed.link_defs));
        }
    }
}

/// K0118 for a reference whose label (`label`, as CommonMark matches it) none of `defs`, its
/// chapter file's definitions, has.
fn undefined_reference(span: Span, label: &str, defs: &LinkDefs) -> Diagnostic {
    let near = crate::suggest::closest(label, defs.keys().map(String::as_str), |l| l.len() / 3 + 1)
        .map(|l| format!("did you mean `[{l}]`? Else "))
        .unwrap_or_default();
    Diagnostic::error(
        "K0118",
        format!("the link reference `[{label}]` is not defined in this chapter"),
    )
    .at(span, "this link leads nowhere")
    .help(format!("{near}add the line `[{label}]: https://…` to this chapter file (a translation also has its source chapter's), or write the link inline as `[text](https://…)`"))
}

/// Where `dest` is written inside `within` (the link, or the clause block), for a diagnostic; the
/// whole range when it is not written there verbatim (a reference link, an escaped character).
fn dest_range(src: &str, within: &Range<usize>, dest: &str) -> Range<usize> {
    src.get(within.clone())
        .filter(|_| !dest.is_empty())
        .and_then(|s| s.find(dest))
        .map_or(within.clone(), |at| {
            within.start + at..within.start + at + dest.len()
        })
}

fn build_clause(
    f: ClauseFields,
    chapter: &str,
    section: Option<SectionRef>,
    file: &SourceFile,
    file_id: FileId,
    block: &Range<usize>,
) -> Option<Clause> {
    let (id, id_span) = f.id?;
    let (level, keyword) = f.level?;
    let text = f.text?;
    Some(Clause {
        id,
        level,
        keyword,
        actor: f.actor?,
        stamp: crate::spec::clause_stamp(&text, f.reason.as_deref(), f.implicit.as_deref(), level),
        text,
        verify: f.verify?,
        reason: f.reason,
        implicit: f.implicit,
        oci: f.oci,
        upstream_tests: f.upstream_tests,
        review: f.review.zip(f.review_span),
        chapter: chapter.to_string(),
        section,
        file: file.path.clone(),
        line: file.line_col(block.start).0,
        span: Span::new(file_id, block.clone()),
        id_span,
    })
}

fn build_translated(
    f: ClauseFields,
    file: &SourceFile,
    file_id: FileId,
    block: &Range<usize>,
) -> Option<TranslatedClause> {
    let (id, id_span) = f.id?;
    Some(TranslatedClause {
        id,
        text: f.text?,
        reason: f.reason,
        implicit: f.implicit,
        source: f.source?,
        file: file.path.clone(),
        line: file.line_col(block.start).0,
        span: id_span,
        source_span: f
            .source_span
            .unwrap_or_else(|| Span::new(file_id, block.clone())),
    })
}

/// K0120: a fenced code block whose text holds a ```` ```clause ```` line that would have closed it
/// but for its info string (same fence character, at least as long, at most 3 spaces in): the
/// author left the code block open and the clause after it became code, silently, with its
/// requirement gone. A longer outer fence (```` ```` ````) showing a clause block as an example
/// is what CommonMark means it for, and is not reported.
fn check_swallowed_clause(
    file_id: FileId,
    file: &SourceFile,
    range: &Range<usize>,
    diags: &mut Vec<Diagnostic>,
) {
    let block = &file.text[range.clone()];
    let Some((ch, width)) = fence_of(block) else {
        return;
    };
    let mut at = 0;
    for line in block.split_inclusive('\n') {
        let start = at;
        at += line.len();
        if start == 0 {
            continue;
        }
        let indent = line.len() - line.trim_start_matches(' ').len();
        let fence = &line[indent..];
        let run = fence.len() - fence.trim_start_matches(ch).len();
        let info = fence[run..].split_whitespace().next();
        if indent <= 3 && run >= width && info == Some("clause") {
            let open = range.start..file.line_end(range.start);
            let clause = range.start + start..range.start + start + line.trim_end().len();
            diags.push(
                Diagnostic::error("K0120", "a code block left open swallows a clause block")
                    .at(Span::new(file_id, open), "this code block is never closed before the clause")
                    .with_context(Span::new(file_id, clause), "this clause is read as code")
                    .help(format!(
                        "close the code block (a line {}) before the ```clause fence; to show a clause block as an example, open the outer block with a longer fence ({})",
                        ch.to_string().repeat(width),
                        ch.to_string().repeat(width + 1),
                    )),
            );
            return;
        }
    }
}

/// K0122: a clause block with no closing fence. CommonMark runs it to the end of its container,
/// so one left open at the end of the file (or of its list item) still reads as a clause, and
/// nothing shows that the fence was forgotten until text is added after it and becomes YAML.
fn check_closed(
    file_id: FileId,
    file: &SourceFile,
    range: &Range<usize>,
    diags: &mut Vec<Diagnostic>,
) {
    let src = file.text.as_str();
    if closing_fence(src, range).is_some() {
        return;
    }
    let (ch, width) = fence_of(&src[range.clone()]).unwrap_or(('`', 3));
    let open = range.start..file.line_end(range.start);
    diags.push(
        Diagnostic::warning("K0122", "this clause block is never closed")
            .at(Span::new(file_id, open), "no closing fence after this one")
            .help(format!(
                "end it with a line {}: without it the block runs to the end of the file (or of its list item), and anything written after it becomes part of the clause",
                ch.to_string().repeat(width)
            )),
    );
}

/// Why a fenced code block that is no clause block looks like a mistyped one (K0121).
#[derive(Debug, PartialEq, Eq)]
enum Lookalike {
    /// Its info string's first word is `clause` misspelt or in other case (```` ```Clause ````).
    Info,
    /// It holds a clause's fields: `id:` and `level:` with an RFC 2119 level, or a translated
    /// clause's `id:`, `text:` and `source:`.
    Fields,
}

/// Whether the fenced code block with `info` and `text` looks like a clause block its author
/// mistyped, so that its requirement would be silently lost as code. Narrow on purpose, so that
/// code examples are not flagged: the info string must be within two edits of `clause`
/// (case aside), or the block's own lines (not those of a block shown inside it, as an example
/// of a clause block is, in a longer fence) must start with a clause's fields.
fn lookalike(info: &str, text: &str) -> Option<Lookalike> {
    let word = info.split_whitespace().next().unwrap_or_default();
    if !word.is_empty() && crate::suggest::edit_distance(&word.to_lowercase(), "clause") <= 2 {
        return Some(Lookalike::Info);
    }
    let (mut id, mut level, mut text_, mut source) = (false, false, false, false);
    let mut inner: Option<(char, usize)> = None;
    for line in text.lines() {
        let fence = fence_of(line).filter(|_| line.len() - line.trim_start_matches(' ').len() <= 3);
        match (inner, fence) {
            (None, Some(f)) => inner = Some(f),
            (Some((ch, width)), Some((c, w)))
                if c == ch && w >= width && line.trim().len() == w =>
            {
                inner = None;
            }
            (Some(_), _) => {}
            (None, None) => match line.split_once(':') {
                Some(("id", _)) => id = true,
                Some(("level", v)) => {
                    level |= Level::from_keyword(v.trim().trim_matches(['"', '\''])).is_some();
                }
                Some(("text", _)) => text_ = true,
                Some(("source", _)) => source = true,
                _ => {}
            },
        }
    }
    (id && (level || text_ && source)).then_some(Lookalike::Fields)
}

/// K0121: a fenced code block that looks like a mistyped clause block ([`lookalike`]), reported
/// at its opening fence.
fn check_lookalike(
    file_id: FileId,
    file: &SourceFile,
    range: &Range<usize>,
    info: &str,
    text: &str,
    diags: &mut Vec<Diagnostic>,
) {
    let Some(why) = lookalike(info, text) else {
        return;
    };
    let word = info.split_whitespace().next().unwrap_or_default();
    let message = if word.is_empty() {
        "this code block looks like a clause block, but it has no info string".to_string()
    } else {
        format!(
            "this code block looks like a clause block: its info string `{word}` is not `clause`"
        )
    };
    let (label, as_code) = match why {
        Lookalike::Info => (
            "read as code: no clause is made of it",
            "name the code's language instead (```text)",
        ),
        Lookalike::Fields => (
            "it holds a clause's fields, read as code: no clause is made of them",
            "show the whole clause block, its ```clause fence included, inside a longer fence (````markdown)",
        ),
    };
    let open = range.start..file.line_end(range.start);
    diags.push(
        Diagnostic::warning("K0121", message)
            .at(Span::new(file_id, open), label)
            .help(format!(
                "write ```clause to make it a clause; if it is meant as code, {as_code}"
            )),
    );
}

/// Report every RFC 2119 keyword in a prose block. Nested code and HTML blocks are blanked out first
/// (same byte length, so offsets stay true).
fn scan_prose(
    file_id: FileId,
    file: &SourceFile,
    block: &Range<usize>,
    masked: &[Range<usize>],
    diags: &mut Vec<Diagnostic>,
) {
    let slice = &file.text[block.clone()];
    let mut bytes = slice.as_bytes().to_vec();
    for m in masked {
        let a = m.start.saturating_sub(block.start).min(bytes.len());
        let b = m.end.saturating_sub(block.start).min(bytes.len());
        bytes[a..b].fill(b' ');
    }
    let cleaned = String::from_utf8(bytes).unwrap_or_default();
    for hit in find_keywords(&cleaned) {
        let range = block.start + hit.range.start..block.start + hit.range.end;
        diags.push(
            Diagnostic::error(
                "K0201",
                format!("RFC 2119 keyword {} in prose, outside any clause", hit.level),
            )
            .at(Span::new(file_id, range), "normative keyword in informative text")
            .help("if the sentence is normative, move it into a ```clause block; if not, write the word in lowercase. A note or an example that uses a keyword stays informative in a quote opening with \"Note\" or \"Example\", or after the line `<!-- kcontract: informative -->`; the RFC 2119 boilerplate paragraph after the line `<!-- kcontract: rfc2119-boilerplate -->`"),
        );
    }
}

/// GitHub-style heading anchor: lowercase, punctuation dropped, spaces to `-`. Non-ASCII letters
/// (Chinese headings) are kept, as GitHub does.
pub(super) fn slugify(title: &str) -> String {
    let mut out = String::new();
    for c in title.trim().chars() {
        if c.is_alphanumeric() || c == '_' || c == '-' {
            out.extend(c.to_lowercase());
        } else if c.is_whitespace() {
            out.push('-');
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slugs_match_github() {
        assert_eq!(slugify("Runtime and Lifecycle"), "runtime-and-lifecycle");
        assert_eq!(slugify("Protocols and Ports"), "protocols-and-ports");
        assert_eq!(slugify("Posix-platform Hooks"), "posix-platform-hooks");
        assert_eq!(slugify("Memory and CPU limits"), "memory-and-cpu-limits");
        assert_eq!(slugify("运行时和生命周期"), "运行时和生命周期");
    }

    /// A note or an example in English or in a Chinese translation; "note that" and "注意" (the
    /// same) point at a requirement.
    #[test]
    fn note_quotes() {
        for yes in [
            "> Note: x",
            "> **Example** x",
            "> [!NOTE]\n> x",
            "> 注：x",
            "> 示例：x",
        ] {
            assert!(is_note_quote(yes), "{yes}");
        }
        for no in ["> Note that x", "> 注意，x", "> A quote"] {
            assert!(!is_note_quote(no), "{no}");
        }
    }

    /// The prose pieces of `src`, parsed as a source chapter, and the codes of what it reports.
    fn prose_of(src: &str) -> (Vec<Prose>, Vec<String>) {
        let file = SourceFile::new("t.md".into(), src.to_string());
        let mut diags = Vec::new();
        let contract = crate::spec::Contract::default();
        let input = ChapterInput {
            file_id: FileId(0),
            file: &file,
            chapter: "t",
            lang: "en",
            schema: Schema::Source,
            contract: &contract,
        };
        let parsed = parse_chapter(&input, &mut diags);
        let prose = parsed
            .pieces
            .into_iter()
            .filter_map(|p| match p {
                Piece::Prose(p) => Some(p),
                _ => None,
            })
            .collect();
        (
            prose,
            diags.into_iter().map(|d| d.code.to_string()).collect(),
        )
    }

    /// What looks like a mistyped clause block: a near miss of `clause` as info string, or a
    /// clause's fields on the block's own lines; not code that merely mentions them, nor a clause
    /// block shown as an example inside a longer fence.
    #[test]
    fn lookalikes_of_clause_blocks() {
        let fields =
            "id: a.b\nlevel: MUST\nactor: user\ntext: A user MUST see this.\nverify: manual\n";
        for info in ["Clause", "claus", "CLAUSE", "clauses", "cluase x"] {
            assert_eq!(lookalike(info, "x\n"), Some(Lookalike::Info), "{info}");
        }
        for info in ["yaml", "", "text", "Clause"] {
            assert!(lookalike(info, fields).is_some(), "{info}");
        }
        let translated = "id: a.b\ntext: 用户必须（MUST）看到。\nsource: 0123456789ab\n";
        assert_eq!(lookalike("yml", translated), Some(Lookalike::Fields));
        assert_eq!(
            lookalike("yaml", "id: a.b\nlevel: \"SHOULD NOT\"\n"),
            Some(Lookalike::Fields)
        );
        let not = [
            ("rust", "fn clause() {}\n"),
            ("yaml", "id: a.b\nlevel: high\n"),
            ("yaml", "id: a.b\ntext: x\n"),
            ("yaml", "  id: a.b\n  level: MUST\n"),
            ("yaml", "level: MUST\n"),
            ("markdown", &format!("Text.\n\n```clause\n{fields}```\n")),
            ("markdown", &format!("~~~~clause\n{fields}~~~~\n")),
            ("sh", "echo\n"),
            ("go", "x\n"),
        ];
        for (info, text) in not {
            assert_eq!(lookalike(info, text), None, "{info}: {text}");
        }
        // After an example that is closed, the block's own lines count again.
        let after = format!("```text\nx\n```\n{fields}");
        assert_eq!(lookalike("markdown", &after), Some(Lookalike::Fields));
    }

    /// A fenced block is closed by a line of its own fence character, at least as long; a clause
    /// block in a list item fenced with `~~~` reads without its closing line.
    #[test]
    fn closing_fences() {
        let closed = |s: &str| closing_fence(s, &(0..s.len()));
        assert_eq!(closed("```clause\nid: a\n```\n"), Some(16));
        assert_eq!(closed("````clause\nid: a\n`````  \n"), Some(17));
        assert_eq!(closed("  ~~~clause\n  id: a\n  ~~~\n"), Some(20));
        assert_eq!(closed("```clause\nid: a\n"), None);
        assert_eq!(closed("```clause\nid: a\n~~~\n"), None);
        assert_eq!(closed("````clause\nid: a\n```\n"), None);
        assert_eq!(closed("```clause\nid: a\n``` x\n"), None);
        assert_eq!(closed("```clause"), None);
        let (_, codes) = prose_of(
            "- A:\n  ~~~clause\n  id: t.a\n  level: MAY\n  actor: platform\n  text: It MAY.\n  verify: manual\n  ~~~\n",
        );
        assert!(codes.is_empty(), "{codes:?}");
    }

    /// Each prose piece records exactly the clause blocks it holds, as whole lines (the list
    /// marker's line, the closing fence's), with the id of the clause built from each: none for
    /// a block with errors or one in a quote (K0114), which are not prose either; a block left
    /// open ends with its item. Cut out, they leave the prose around them intact.
    #[test]
    fn prose_records_the_clause_blocks_it_holds() {
        let good = "  ```clause\n  id: t.good\n  level: MUST\n  actor: platform\n  \
                    text: The platform MUST go.\n  verify: manual\n  ```\n";
        let bad = "  - ```clause\n    id: t.bad\n    level: MUST\n    ```\n";
        let open = "  ```clause\n  id: t.open\n  level: MAY\n  actor: platform\n  \
                    text: The platform MAY stay.\n  verify: manual\n";
        let quoted = "> ```clause\n> id: t.quoted\n> ```\n";
        let in_quote = "  > ```clause\n  > id: t.in-quote\n  > ```\n";
        let top = "```clause\nid: t.top\nlevel: MAY\nactor: platform\ntext: The platform MAY \
                   rest.\nverify: manual\n```\n";
        let last = good.replace("t.good", "t.last");
        let src = format!(
            "# T\n\nIntro.\n\n{quoted}\n- First:\n{good}- Quoted:\n{in_quote}- Broken:\n{bad}- Open:\n{open}- After.\n\n\
             {top}\nBetween.\n\n- Last:\n{last}\nTail.\n\n{quoted}"
        );
        let (prose, codes) = prose_of(&src);
        // The quoted blocks, the broken one's missing fields and the one left open: nothing else.
        assert_eq!(
            codes,
            [
                "K0114", "K0114", "K0122", "K0114", "K0103", "K0103", "K0103"
            ]
        );
        let blocks: Vec<_> = prose.iter().map(Prose::blocks).collect();
        let want: Vec<Vec<(&str, Option<&str>)>> = vec![
            vec![
                (quoted, None),
                (good, Some("t.good")),
                (in_quote, None),
                (bad, None),
                (open, Some("t.open")),
            ],
            vec![(last.trim_end(), Some("t.last"))],
            vec![(quoted.trim_end(), None)],
        ];
        assert_eq!(blocks, want);
        let around: Vec<String> = prose
            .iter()
            .map(|p| p.without_clauses().into_owned())
            .collect();
        assert_eq!(
            around,
            [
                "# T\n\nIntro.\n\n\n- First:\n- Quoted:\n- Broken:\n- Open:\n- After.",
                "Between.\n\n- Last:\n",
                "Tail.\n\n",
            ]
        );
    }
}
