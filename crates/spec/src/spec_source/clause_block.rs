//! One ```` ```clause ```` block: YAML → checked [`Clause`] fields.
//!
//! The YAML is read into [`ClauseYaml`], the one definition of what a block may hold: every field
//! optional and with its position, and every key that is no field kept with its own, so that one
//! block reports *all* its problems at once (every unknown field, every missing one, a bad level and
//! a bad actor together), each at its own line and column. [`check`] then validates it.
//!
//! Two readers fill it: `fast_yaml` for the plain YAML that clause blocks almost always are, and
//! serde-saphyr for everything else (and every syntax error). The general parser took a quarter of a
//! ×10 build's instructions and most of `check`'s (docs/benchmarks-history.md, "Wave 3"); a property test holds the
//! two readers to the same values and positions.

use std::ops::Range;

use serde::de::{Deserialize, Deserializer, IgnoredAny, MapAccess, Visitor};
use serde_saphyr::Spanned;

use super::fast_yaml;

use crate::diagnostic::{Diagnostic, FileId, SourceFile, Span};
use crate::keywords::{Level, find_keywords};
use crate::spec::{Actor, Contract, Verify, check_id};

/// Every field a clause may have, in the documented (and canonical) order.
pub(crate) const FIELDS: [&str; 10] = [
    "id",
    "level",
    "actor",
    "text",
    "verify",
    "reason",
    "implicit",
    "oci",
    "upstream-tests",
    "review",
];
const REQUIRED: [&str; 5] = ["id", "level", "actor", "text", "verify"];
/// A translated clause carries only these: everything else is inherited from the source clause.
/// `reason` and `implicit` translate the source's, when it has them; `source` is the stamp of the
/// source text translated.
pub(super) const TRANSLATION_FIELDS: [&str; 5] = ["id", "text", "source", "reason", "implicit"];
const TRANSLATION_REQUIRED: [&str; 3] = ["id", "text", "source"];

/// Which kind of chapter a block is in: the source language, or a translation of it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Schema {
    Source,
    Translation,
}

impl Schema {
    fn fields(self) -> &'static [&'static str] {
        match self {
            Schema::Source => &FIELDS,
            Schema::Translation => &TRANSLATION_FIELDS,
        }
    }
    fn required(self) -> &'static [&'static str] {
        match self {
            Schema::Source => &REQUIRED,
            Schema::Translation => &TRANSLATION_REQUIRED,
        }
    }
}

/// Field names as a hint lists them: `` `id`, `level` ``.
fn fields_list(names: &[&str]) -> String {
    names
        .iter()
        .map(|r| format!("`{r}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A value as written: its text (quotes removed, the lines of a block scalar joined) and its byte
/// range in the block.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Val {
    pub value: String,
    pub(crate) range: Range<usize>,
}

/// A clause block as written: each field, with where its value is, or `None` when the block does
/// not have it; a translation's `source` too. Nothing is checked yet but the YAML's shape. `V` is
/// [`Val`]; serde-saphyr's reader fills it with its own `Spanned` values first.
#[derive(Debug, PartialEq, Eq)]
pub struct ClauseYaml<V = Val> {
    pub(crate) id: Option<V>,
    pub(crate) level: Option<V>,
    pub(crate) actor: Option<V>,
    /// `text:`.
    pub text: Option<V>,
    pub(crate) verify: Option<V>,
    pub(crate) reason: Option<V>,
    pub(crate) implicit: Option<V>,
    pub(crate) oci: Option<V>,
    pub(crate) upstream_tests: Option<Vec<V>>,
    pub(crate) review: Option<V>,
    pub(crate) source: Option<V>,
    /// Every key as written, in order, with where it is: those that are no field (their values
    /// skipped) and those a schema does not allow are reported at them.
    pub(crate) keys: Vec<V>,
}

/// A field's value as [`ClauseYaml::fields`] lists it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FieldValue<'a> {
    /// A field with one value.
    Text(&'a Val),
    /// A list field (`upstream-tests`).
    List(&'a [Val]),
}

impl ClauseYaml {
    /// Read a block's YAML: the plain subset by `fast_yaml`, anything else by serde-saphyr.
    pub fn parse(yaml: &str) -> Result<Self, serde_saphyr::Error> {
        if let Some(c) = Self::parse_plain(yaml) {
            return Ok(c);
        }
        Self::parse_general(yaml)
    }

    /// serde-saphyr's reading, each value located in the block.
    fn parse_general(yaml: &str) -> Result<Self, serde_saphyr::Error> {
        let raw: ClauseYaml<Spanned<String>> = serde_saphyr::from_str(yaml)?;
        let lines = LineStarts::of(yaml);
        Ok(raw.map(|s| Val {
            range: lines.range(yaml, &s),
            value: s.value,
        }))
    }

    /// `fast_yaml`'s reading, when the block is in its subset and has the shapes serde-saphyr would
    /// accept (a list only for `upstream-tests`); `None` leaves it to serde-saphyr, which also
    /// reports every error.
    fn parse_plain(yaml: &str) -> Option<Self> {
        let fields = fast_yaml::parse(yaml, 0)?;
        let mut c = ClauseYaml::default();
        let val = |s: fast_yaml::Scalar| Val {
            value: s.value.into_owned(),
            range: s.range,
        };
        // An unknown key's value is skipped by serde-saphyr, which still parses numbers there (and
        // rejects some, like `.inf`): a number-like value of an unknown key stays with it.
        let numeric = |v: &str| v.starts_with(|c: char| c.is_ascii_digit() || c == '.' || c == '+');
        for f in fields {
            let name = f.key.value.to_string();
            c.keys.push(val(f.key));
            let slot = match (name.as_str(), f.value) {
                ("upstream-tests", fast_yaml::Value::List(items)) => {
                    c.upstream_tests = Some(items.into_iter().map(val).collect());
                    continue;
                }
                ("upstream-tests", fast_yaml::Value::Str(_)) => return None,
                (k, fast_yaml::Value::List(items)) if !is_field(k) => {
                    if items.iter().any(|i| numeric(&i.value)) {
                        return None;
                    }
                    continue;
                }
                (_, fast_yaml::Value::List(_)) => return None,
                (k, fast_yaml::Value::Str(s)) => match c.slot(k) {
                    Some(slot) => (slot, s),
                    None if numeric(&s.value) => return None,
                    None => continue,
                },
            };
            *slot.0 = Some(val(slot.1));
        }
        Some(c)
    }

    /// The keys that name no field.
    pub fn unknown(&self) -> impl Iterator<Item = &Val> {
        self.keys.iter().filter(|k| !is_field(&k.value))
    }

    /// The fields the block has, by name, in the canonical order ([`FIELDS`], then `source`, last
    /// because it seals the text above it). Every field is named here: a new one does not compile
    /// until it is.
    pub fn fields(&self) -> Vec<(&'static str, FieldValue<'_>)> {
        let ClauseYaml {
            id,
            level,
            actor,
            text,
            verify,
            reason,
            implicit,
            oci,
            upstream_tests,
            review,
            source,
            keys: _,
        } = self;
        [
            text_field("id", id),
            text_field("level", level),
            text_field("actor", actor),
            text_field("text", text),
            text_field("verify", verify),
            text_field("reason", reason),
            text_field("implicit", implicit),
            text_field("oci", oci),
            upstream_tests
                .as_deref()
                .map(|l| ("upstream-tests", FieldValue::List(l))),
            text_field("review", review),
            text_field("source", source),
        ]
        .into_iter()
        .flatten()
        .collect()
    }
}

/// `name` with its value, if the block has it.
fn text_field<'a>(
    name: &'static str,
    v: &'a Option<Val>,
) -> Option<(&'static str, FieldValue<'a>)> {
    v.as_ref().map(|v| (name, FieldValue::Text(v)))
}

/// Is `key` a clause field (or a translation's `source`)?
fn is_field(key: &str) -> bool {
    FIELDS.contains(&key) || key == "source"
}

impl<V> Default for ClauseYaml<V> {
    fn default() -> Self {
        ClauseYaml {
            id: None,
            level: None,
            actor: None,
            text: None,
            verify: None,
            reason: None,
            implicit: None,
            oci: None,
            upstream_tests: None,
            review: None,
            source: None,
            keys: Vec::new(),
        }
    }
}

impl<V> ClauseYaml<V> {
    /// The field of the text value `key`, for the readers.
    fn slot(&mut self, key: &str) -> Option<&mut Option<V>> {
        Some(match key {
            "id" => &mut self.id,
            "level" => &mut self.level,
            "actor" => &mut self.actor,
            "text" => &mut self.text,
            "verify" => &mut self.verify,
            "reason" => &mut self.reason,
            "implicit" => &mut self.implicit,
            "oci" => &mut self.oci,
            "review" => &mut self.review,
            "source" => &mut self.source,
            _ => return None,
        })
    }

    /// The same block with every value `f` of what it was.
    fn map<W>(self, mut f: impl FnMut(V) -> W) -> ClauseYaml<W> {
        let ClauseYaml {
            id,
            level,
            actor,
            text,
            verify,
            reason,
            implicit,
            oci,
            upstream_tests,
            review,
            source,
            keys,
        } = self;
        let mut one = |v: Option<V>| v.map(&mut f);
        ClauseYaml {
            id: one(id),
            level: one(level),
            actor: one(actor),
            text: one(text),
            verify: one(verify),
            reason: one(reason),
            implicit: one(implicit),
            oci: one(oci),
            review: one(review),
            source: one(source),
            upstream_tests: upstream_tests.map(|l| l.into_iter().map(&mut f).collect()),
            keys: keys.into_iter().map(&mut f).collect(),
        }
    }
}

/// Where the lines of a block start, to turn serde-saphyr's line and column into a byte range.
struct LineStarts(Vec<usize>);

impl LineStarts {
    fn of(text: &str) -> Self {
        let mut starts = vec![0];
        starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        LineStarts(starts)
    }

    /// The byte range in `text` of the value `s`: from its line and column (1-based, in characters)
    /// for its length in bytes, or to the end of its line; never ending inside a character (a byte
    /// order mark inside the block can make serde-saphyr's length disagree), nor on the trailing
    /// line breaks of a block scalar (a caret would spill onto the next line).
    fn range<T>(&self, text: &str, s: &Spanned<T>) -> Range<usize> {
        let loc = &s.referenced;
        let line = (loc.line() as usize)
            .saturating_sub(1)
            .min(self.0.len() - 1);
        let line_start = self.0[line];
        let line_end = text[line_start..]
            .find('\n')
            .map_or(text.len(), |i| line_start + i);
        let start = text[line_start..line_end]
            .char_indices()
            .nth((loc.column() as usize).saturating_sub(1))
            .map_or(line_end, |(i, _)| line_start + i);
        let mut end = match loc.span().byte_len() {
            Some(len) if len > 0 => (start + len as usize).min(text.len()),
            _ => line_end,
        };
        while end > start && !text.is_char_boundary(end) {
            end -= 1;
        }
        start..start + text[start..end].trim_end().len()
    }
}

/// serde-saphyr's reading of a block: every value with its `Spanned` position.
impl<'de> Deserialize<'de> for ClauseYaml<Spanned<String>> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Fields;
        impl<'de> Visitor<'de> for Fields {
            type Value = ClauseYaml<Spanned<String>>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a mapping of clause fields (`id: …`, `level: …`, …)")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut c = ClauseYaml::default();
                while let Some(key) = map.next_key::<Spanned<String>>()? {
                    let name = key.value.clone();
                    c.keys.push(key);
                    if name == "upstream-tests" {
                        c.upstream_tests = Some(map.next_value()?);
                    } else if let Some(slot) = c.slot(&name) {
                        *slot = Some(map.next_value()?);
                    } else {
                        map.next_value::<IgnoredAny>()?;
                    }
                }
                Ok(c)
            }
        }
        d.deserialize_map(Fields)
    }
}

/// The fields of a clause that parsed and passed the per-block checks. Fields that failed are `None`
/// and have a diagnostic; the caller builds a [`crate::spec::Clause`] only when all are present.
#[derive(Default, Debug, PartialEq)]
pub(super) struct ClauseFields {
    pub id: Option<(String, Span)>,
    pub level: Option<(Level, String)>,
    pub actor: Option<Actor>,
    pub text: Option<String>,
    pub verify: Option<Verify>,
    pub reason: Option<String>,
    pub implicit: Option<String>,
    pub oci: Option<String>,
    pub upstream_tests: Vec<String>,
    pub review: Option<String>,
    pub review_span: Option<Span>,
    /// Translations only: the stamp of the source text this translates.
    pub source: Option<String>,
    pub text_span: Option<Span>,
    pub source_span: Option<Span>,
}

/// Maps positions inside the YAML block to positions in the chapter file.
pub(super) struct BlockPos<'a> {
    pub file_id: FileId,
    pub file: &'a SourceFile,
    /// Byte offset of the block content (the line after the opening fence).
    pub content: Range<usize>,
    /// The opening fence line, for problems that have no better place.
    pub fence: Range<usize>,
    /// The contract: its actors and verify kinds are the names a clause may use.
    pub contract: &'a Contract,
}

impl BlockPos<'_> {
    fn first_line(&self) -> usize {
        self.file.line_col(self.content.start).0
    }

    /// File offset of a serde-saphyr location (1-based line/column within the block).
    fn offset(&self, loc: &serde_saphyr::Location) -> usize {
        let line = self.first_line() + (loc.line() as usize).saturating_sub(1);
        self.file
            .offset_of(line, loc.column() as usize)
            .clamp(self.content.start, self.content.end.max(self.content.start))
    }

    /// Where `v` is in the file.
    fn span_of(&self, v: &Val) -> Span {
        let at = |o: usize| (self.content.start + o).min(self.content.end);
        Span::new(self.file_id, at(v.range.start)..at(v.range.end))
    }

    fn fence_span(&self) -> Span {
        Span::new(self.file_id, self.fence.clone())
    }
}

/// Parse and check one block. Diagnostics go to `diags`.
pub(super) fn parse_block(
    pos: &BlockPos<'_>,
    schema: Schema,
    diags: &mut Vec<Diagnostic>,
) -> ClauseFields {
    let yaml = &pos.file.text[pos.content.clone()];
    match ClauseYaml::parse(yaml) {
        Ok(raw) => check(pos, schema, raw, diags),
        Err(_) if runs_on(yaml).is_some() => {
            diags.push(run_on_diagnostic(pos, yaml));
            ClauseFields::default()
        }
        Err(e) => {
            let span = match e.location() {
                Some(loc) if !yaml.trim().is_empty() => {
                    // A quote left open or a tab: where it is, not where the reader noticed.
                    let o =
                        crate::diagnostic::yaml_error_offset(&pos.file.text, &e, pos.offset(&loc));
                    let end = pos.file.text[o..]
                        .chars()
                        .next()
                        .filter(|c| *c != '\n')
                        .map_or(o, |c| o + c.len_utf8());
                    Span::new(pos.file_id, o..end)
                }
                _ => pos.fence_span(),
            };
            diags.push(
                Diagnostic::error("K0101", "this clause block is not valid YAML")
                    .at(span, crate::diagnostic::yaml_message(&e))
                    .help(
                        "a clause is a YAML mapping (`id: …` on its own line, then `level:`, `actor:`, …); \
                         quote values that start with a backtick or contain `: `, or use `text: >-` \
                         with the text indented on the following lines",
                    ),
            );
            ClauseFields::default()
        }
    }
}

/// Where in `yaml` (a clause block's text that is not valid YAML) the block ran on past the clause:
/// the first fence line (the next block's opening, which cannot close this one: a fence with an
/// info string never closes) or the first unindented line after a blank one that is neither a
/// `key:`, a comment nor a list item (a paragraph of prose). Either means the clause's closing
/// fence is missing and the reader went on until some later fence closed the block, so the YAML
/// error it reports is about the text after the clause, and its quoting hint misleads.
fn runs_on(yaml: &str) -> Option<usize> {
    let mut at = 0;
    let mut after_blank = false;
    for line in yaml.split_inclusive('\n') {
        let start = at;
        at += line.len();
        let trimmed = line.trim_start_matches(' ');
        let indent = line.len() - trimmed.len();
        if indent <= 3 && (trimmed.starts_with("```") || trimmed.starts_with("~~~")) {
            return Some(start);
        }
        if trimmed.trim().is_empty() {
            after_blank = true;
            continue;
        }
        if after_blank && indent == 0 && !yaml_line(trimmed) {
            return Some(start);
        }
        after_blank = false;
    }
    None
}

/// Whether an unindented `line` reads as YAML: a `key:`, a comment or a list item.
fn yaml_line(line: &str) -> bool {
    if line.starts_with('#') || line.starts_with("- ") || line.trim_end() == "-" {
        return true;
    }
    let key = line.split(':').next().unwrap_or_default();
    line.len() > key.len()
        && !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
}

/// K0123: the clause block's closing fence is missing and the block ran on into the text after
/// it (found by [`runs_on`]). Points at the opening fence, shows the line the block ran into, and
/// says what to add where: the last line of the clause itself is the one before the blank lines
/// that precede that line.
fn run_on_diagnostic(pos: &BlockPos<'_>, yaml: &str) -> Diagnostic {
    let into = runs_on(yaml).unwrap_or_default();
    let into_at = pos.content.start + into;
    let into_line = pos.file.line_end(into_at);
    // The clause ends before the blank lines and Markdown headings (YAML comments to the
    // reader) that lead to the prose.
    let mut last = yaml[..into].trim_end();
    while let Some(nl) = last.rfind('\n') {
        if !last[nl + 1..].starts_with('#') {
            break;
        }
        last = last[..nl].trim_end();
    }
    let close_after = pos.file.line_col(pos.content.start + last.len()).0;
    let (open_line, _) = pos.file.line_col(pos.fence.start);
    let fence = pos.file.text[pos.fence.clone()].trim_start();
    let (ch, width) = fence.chars().next().map_or(('`', 3), |c| {
        (c, fence.len() - fence.trim_start_matches(c).len())
    });
    Diagnostic::error(
        "K0123",
        "this clause block is never closed: it runs on into the text after it",
    )
    .at(
        pos.fence_span(),
        format!("the clause opened on line {open_line} has no closing fence"),
    )
    .with_context(
        Span::new(pos.file_id, into_at..into_line),
        "the block reads on into this line",
    )
    .help(format!(
        "add a line {} after the clause's last field (after line {close_after}), before this text",
        ch.to_string().repeat(width)
    ))
}

/// Check a block's fields: each value, the fields a schema requires or does not know, and the text's
/// keywords against the level.
fn check(
    pos: &BlockPos<'_>,
    schema: Schema,
    raw: ClauseYaml,
    diags: &mut Vec<Diagnostic>,
) -> ClauseFields {
    let mut c = FieldCheck {
        pos,
        schema,
        diags,
        out: ClauseFields::default(),
        level_span: None,
        verify_span: None,
    };
    c.unknown_keys(&raw.keys);
    c.upstream_tests(raw.upstream_tests.as_deref());
    c.id(raw.id.as_ref());
    c.level(raw.level.as_ref());
    c.actor(raw.actor.as_ref());
    c.verify(raw.verify.as_ref());
    c.plain_fields(&raw);
    c.oci(raw.oci.as_ref());
    c.required(&raw);
    c.untestable_reason();
    c.text_keywords();
    c.out
}

/// One block's fields being checked: the values that passed so far, and where the level and the
/// verify kind are (for the checks that need more than one field).
struct FieldCheck<'a, 'd> {
    pos: &'a BlockPos<'a>,
    schema: Schema,
    diags: &'d mut Vec<Diagnostic>,
    out: ClauseFields,
    level_span: Option<Span>,
    verify_span: Option<Span>,
}

impl FieldCheck<'_, '_> {
    /// Whether the schema has field `k` (a translation's block does not read the others).
    fn has(&self, k: &str) -> bool {
        self.schema.fields().contains(&k)
    }

    /// Field `k`'s value trimmed, with where it is, when the block has it and the schema reads it.
    fn trimmed(&self, k: &str, v: Option<&Val>) -> Option<(String, Span)> {
        v.filter(|_| self.has(k))
            .map(|v| (v.value.trim().to_string(), self.pos.span_of(v)))
    }

    /// K0102: keys that are no field, and fields a translation inherits instead of stating.
    fn unknown_keys(&mut self, keys: &[Val]) {
        let allowed = self.schema.fields();
        // The fields offered in a hint: `oci` and `upstream-tests` only to a contract that links
        // them (`links:` of contract.yaml), as a contract of another domain has no OCI spec or
        // upstream tests; they are still read where written.
        let links = &self.pos.contract.links;
        let offered: Vec<&str> = allowed
            .iter()
            .copied()
            .filter(|f| match *f {
                "oci" => links.oci.is_some(),
                "upstream-tests" => links.upstream_tests.is_some(),
                _ => true,
            })
            .collect();
        for key in keys.iter().filter(|k| !allowed.contains(&k.value.as_str())) {
            let k = &key.value;
            let help = match (self.schema, suggest(k, &offered)) {
                (Schema::Translation, _) if FIELDS.contains(&k.as_str()) => format!(
                    "a translated clause has only {}; `{k}` is inherited from the source-language clause",
                    offered.join(", ")
                ),
                (_, Some(s)) => {
                    format!("did you mean `{s}`? The fields are: {}", offered.join(", "))
                }
                (_, None) => format!("the fields are: {}", offered.join(", ")),
            };
            self.diags.push(
                Diagnostic::error("K0102", format!("unknown field `{k}`"))
                    .at(self.pos.span_of(key), "not a clause field")
                    .help(help),
            );
        }
    }

    /// `upstream-tests`: each a path, ending in the contract's suffix when it sets one (K0117).
    fn upstream_tests(&mut self, items: Option<&[Val]>) {
        let Some(items) = items.filter(|_| self.has("upstream-tests")) else {
            return;
        };
        self.out.upstream_tests = items.iter().map(|i| i.value.clone()).collect();
        let suffix = self
            .pos
            .contract
            .links
            .upstream_tests
            .as_ref()
            .and_then(|l| l.suffix.as_deref());
        for item in items.iter().filter(|i| !is_test_path(&i.value, suffix)) {
            let rule = match suffix {
                Some(s) => format!(
                    "relative paths ending in `{s}` (`links.upstream-tests.suffix` of contract.yaml)"
                ),
                None => "relative paths".to_string(),
            };
            self.diags.push(
                Diagnostic::error("K0117", format!("`{}` is not an upstream test path", item.value))
                    .at(self.pos.span_of(item), "expected a path like this")
                    .help(format!("`upstream-tests` lists the upstream's tests as {rule}: a-z, 0-9, `/`, `_`, `-`, `.`, no `..`, then optionally `#` and the test function (and `/subtest`), e.g. `test/conformance/runtime/envvars_test.go#TestMustEnvVars`")),
            );
        }
    }

    /// `id`: well formed (K0107).
    fn id(&mut self, raw: Option<&Val>) {
        let Some((v, span)) = self.trimmed("id", raw) else {
            return;
        };
        match check_id(&v) {
            Ok(()) => self.out.id = Some((v, span)),
            Err(why) => self.diags.push(
                Diagnostic::error("K0107", format!("malformed clause id `{}`", crate::diagnostic::shown(&v)))
                    .at(span, why.to_string())
                    .help("ids are lowercase, dot-separated segments of a-z, 0-9 and single `-`, at least two segments (e.g. `lifecycle.sigterm-on-kill`)"),
            ),
        }
    }

    /// `level`: an RFC 2119 keyword (K0109).
    fn level(&mut self, raw: Option<&Val>) {
        let Some((v, span)) = self.trimmed("level", raw) else {
            return;
        };
        match Level::from_keyword(&v) {
            Some(l) => {
                // The keyword as written, its words joined by single spaces.
                let keyword = v.split_whitespace().collect::<Vec<_>>().join(" ");
                self.out.level = Some((l, keyword));
                self.level_span = Some(span);
            }
            None => self.diags.push(
                Diagnostic::error(
                    "K0109",
                    format!("unknown level `{}`", crate::diagnostic::shown(&v)),
                )
                .at(span, "not an RFC 2119 keyword")
                .help(level_hint(&v)),
            ),
        }
    }

    /// `actor`: one of the contract's (K0110).
    fn actor(&mut self, raw: Option<&Val>) {
        let Some((v, span)) = self.trimmed("actor", raw) else {
            return;
        };
        let contract = self.pos.contract;
        match contract.actor(&v) {
            Some(a) => self.out.actor = Some(a),
            None => self.diags.push(
                Diagnostic::error(
                    "K0110",
                    format!("unknown actor `{}`", crate::diagnostic::shown(&v)),
                )
                .at(span, "not one of the actors")
                .help(format!(
                    "actor is one of: {} (the `actors` of contract.yaml); see spec/README.md",
                    names(contract.actor_list().map(Actor::as_str))
                )),
            ),
        }
    }

    /// `verify`: one of the contract's kinds (K0111).
    fn verify(&mut self, raw: Option<&Val>) {
        let Some((v, span)) = self.trimmed("verify", raw) else {
            return;
        };
        let contract = self.pos.contract;
        match contract.verify_kind(&v) {
            Some(x) => {
                self.out.verify = Some(x);
                self.verify_span = Some(span);
            }
            None => self.diags.push(
                Diagnostic::error("K0111", format!("unknown verify value `{}`", crate::diagnostic::shown(&v)))
                    .at(span, "not a verification method")
                    .help(format!(
                        "verify is one of: {} (the `verify` of contract.yaml; untestable needs `reason:`)",
                        names(contract.verify_list().map(Verify::as_str))
                    )),
            ),
        }
    }

    /// The fields taken as written: `review`, `text`, `source`, `reason` and `implicit` (an empty
    /// `review`, `reason` or `implicit` is none).
    fn plain_fields(&mut self, raw: &ClauseYaml) {
        if let Some((v, span)) = self
            .trimmed("review", raw.review.as_ref())
            .filter(|(v, _)| !v.is_empty())
        {
            self.out.review = Some(v);
            self.out.review_span = Some(span);
        }
        if let Some(t) = raw.text.as_ref().filter(|_| self.has("text")) {
            self.out.text = Some(t.value.trim_end().to_string());
            self.out.text_span = Some(self.pos.span_of(t));
        }
        if let Some((v, span)) = self.trimmed("source", raw.source.as_ref()) {
            self.out.source = Some(v);
            self.out.source_span = Some(span);
        }
        let nonempty = |k: &str, v: Option<&Val>| {
            self.trimmed(k, v)
                .filter(|(v, _)| !v.is_empty())
                .map(|(v, _)| v)
        };
        let reason = nonempty("reason", raw.reason.as_ref());
        let implicit = nonempty("implicit", raw.implicit.as_ref());
        self.out.reason = reason;
        self.out.implicit = implicit;
    }

    /// `oci`: a reference into the OCI runtime spec (K0116).
    fn oci(&mut self, raw: Option<&Val>) {
        let Some((v, span)) = self.trimmed("oci", raw) else {
            return;
        };
        if is_oci_ref(&v) {
            self.out.oci = Some(v);
        } else {
            self.diags.push(
                Diagnostic::error("K0116", format!("`{}` is not an OCI spec reference", crate::diagnostic::shown(&v)))
                    .at(span, "expected `<file>.md#<anchor>`")
                    .help("point into the OCI runtime spec, e.g. `runtime.md#kill` or `config.md#posix-platform-hooks`"),
            );
        }
    }

    /// K0103: each field the schema requires is written (whatever its value).
    fn required(&mut self, raw: &ClauseYaml) {
        let seen: Vec<&str> = raw.fields().into_iter().map(|(k, _)| k).collect();
        for &req in self.schema.required() {
            if seen.contains(&req) {
                continue;
            }
            self.diags.push(
                Diagnostic::error(
                    "K0103",
                    format!("clause is missing the required field `{req}`"),
                )
                .at(self.pos.fence_span(), format!("this clause has no `{req}`"))
                .help(match self.schema {
                    Schema::Source => format!(
                        "every clause needs {}; see spec/README.md",
                        fields_list(&REQUIRED)
                    ),
                    Schema::Translation => format!(
                        "a translated clause needs {}: `source` is the stamp of the text it translates (`kcontract i18n stamp` writes it); see spec/README.md",
                        fields_list(&TRANSLATION_REQUIRED)
                    ),
                }),
            );
        }
    }

    /// K0112: an untestable clause says why.
    fn untestable_reason(&mut self) {
        if self.out.verify.is_some_and(Verify::is_untestable)
            && self.out.reason.is_none()
            && let Some(span) = self.verify_span.clone()
        {
            self.diags.push(
                Diagnostic::error("K0112", "an untestable clause needs a `reason`")
                    .at(span, "untestable, but no reason given")
                    .help("add `reason: …` saying why no observation can decide this clause (reviewers read it)"),
            );
        }
    }

    /// A source clause's text: its keywords against its level ([`check_text_keywords`]).
    fn text_keywords(&mut self) {
        let out = &self.out;
        if let (Schema::Source, Some(text), Some(tspan)) = (self.schema, &out.text, &out.text_span)
        {
            let level_span = self.level_span.as_ref();
            check_text_keywords(self.pos, text, tspan, out, level_span, self.diags);
        }
    }
}

/// The level must agree with the keywords in the text; a text with no keyword needs `implicit`.
fn check_text_keywords(
    pos: &BlockPos<'_>,
    text: &str,
    tspan: &Span,
    out: &ClauseFields,
    level_span: Option<&Span>,
    diags: &mut Vec<Diagnostic>,
) {
    let hits = find_keywords(text);
    // Locate the same keywords in the raw YAML source of the value, so the caret lands on the word
    // itself (folding in `>-` blocks changes whitespace only, so the sequence of keywords is the same).
    // Only a diagnostic needs them, so they are found then.
    let hit_span = |i: usize| {
        let raw = find_keywords(&pos.file.text[tspan.range.clone()]);
        match raw.get(i) {
            Some(h) if raw.len() == hits.len() => Span::new(
                pos.file_id,
                tspan.range.start + h.range.start..tspan.range.start + h.range.end,
            ),
            _ => tspan.clone(),
        }
    };
    if hits.is_empty() {
        if out.implicit.is_none() {
            diags.push(
                Diagnostic::error("K0105", "the clause text has no RFC 2119 keyword")
                    .at(tspan.clone(), "no MUST, SHOULD, MAY, … in this text")
                    .help("a clause is a normative statement: use the keyword that matches `level`; if the upstream states an obligation without a keyword, keep its wording and add `implicit: <why this binds>`"),
            );
        }
        return;
    }
    if out.implicit.is_some() {
        diags.push(
            Diagnostic::error(
                "K0115",
                "`implicit` is for texts without a keyword, but this text has one",
            )
            .at(hit_span(0), "the text uses a keyword here")
            .help("remove the `implicit` field: the keyword already states the level"),
        );
    }
    let mut levels: Vec<(Level, usize)> = Vec::new();
    for (i, h) in hits.iter().enumerate() {
        if !levels.iter().any(|(l, _)| *l == h.level) {
            levels.push((h.level, i));
        }
    }
    // A clause with a `review:` note (from `import`) may still hold two levels: the note says so,
    // and `check` reports it (K0119) until a person has split the clause.
    if levels.len() > 1 && out.review.is_some() {
        return;
    }
    if levels.len() > 1 {
        let (l0, i0) = levels[0];
        let (l1, i1) = levels[1];
        diags.push(
            Diagnostic::error(
                "K0106",
                format!("the clause text mixes two levels: {l0} and {l1}"),
            )
            .at(hit_span(i1), format!("{l1} here"))
            .with_context(hit_span(i0), format!("{l0} here"))
            .help("one clause is one normative statement: split it into two clauses, one per level, keeping the upstream wording in each"),
        );
        return;
    }
    if let (Some((declared, written)), Some(lspan)) = (&out.level, level_span) {
        let (found, i) = levels[0];
        if found != *declared {
            let written_kw = &text[hits[i].range.clone()];
            diags.push(
                Diagnostic::error(
                    "K0104",
                    format!(
                        "level `{written}` contradicts the keyword `{}` in the text",
                        written_kw.split_whitespace().collect::<Vec<_>>().join(" ")
                    ),
                )
                .at(lspan.clone(), "declared here")
                .with_context(hit_span(i), format!("the text says {found}"))
                .help(format!(
                    "change `level` to `{found}`, or reword the text; a sentence with two levels must be split into two clauses"
                )),
            );
        }
    }
}

fn level_hint(v: &str) -> String {
    let upper = v.to_uppercase();
    if upper != v && Level::from_keyword(&upper).is_some() {
        return format!("keywords are uppercase: write `{upper}`");
    }
    "level is one of MUST, MUST NOT, SHOULD, SHOULD NOT, MAY (or REQUIRED, SHALL, SHALL NOT, RECOMMENDED, NOT RECOMMENDED, OPTIONAL)".to_string()
}

fn is_oci_ref(v: &str) -> bool {
    let (file, anchor) = v.split_once('#').unwrap_or((v, ""));
    let name_ok = |s: &str| {
        !s.is_empty()
            && s.chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
    };
    file.strip_suffix(".md").is_some_and(name_ok) && (anchor.is_empty() || name_ok(anchor))
}

fn is_test_path(v: &str, suffix: Option<&str>) -> bool {
    // `path#Test/subtest`: the test function (and subtest) in the file, as `go test -v` names it.
    let (path, test) = match v.split_once('#') {
        Some((path, test)) => (path, Some(test)),
        None => (v, None),
    };
    suffix.is_none_or(|s| path.ends_with(s))
        && !path.is_empty()
        && !path.starts_with('/')
        && !path.contains("..")
        && path
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '/' | '_' | '-' | '.'))
        && test.is_none_or(|t| {
            t.split('/').all(|name| {
                !name.is_empty()
                    && name
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-'))
            })
        })
}

/// Clauses that still carry a `review:` note (written by `import` where a person must decide):
/// warnings, errors under `--strict`.
pub(super) fn review_diagnostics(spec: &crate::spec::Spec, strict: bool) -> Vec<Diagnostic> {
    spec.clauses
        .iter()
        .filter_map(|c| {
            let (note, span) = c.review.as_ref()?;
            let msg = format!("clause `{}` needs review: {note}", c.id);
            let d = if strict {
                Diagnostic::error("K0119", msg)
            } else {
                Diagnostic::warning("K0119", msg)
            };
            Some(
                d.at(span.clone(), "a person has to decide this")
                    .with_context(c.id_span.clone(), "the clause")
                    .help("check the clause (split a sentence holding two levels, correct `actor`), then delete the `review:` line"),
            )
        })
        .collect()
}

/// `a, b, c`.
fn names<'n>(names: impl Iterator<Item = &'n str>) -> String {
    names.collect::<Vec<_>>().join(", ")
}

/// The closest known field name, for typos (`verfy` → `verify`).
fn suggest(unknown: &str, fields: &[&'static str]) -> Option<&'static str> {
    crate::suggest::closest(unknown, fields.iter().copied(), |f| 2.max(f.len() / 3))
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)] // tests read the files they wrote
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn an_upstream_test_may_name_its_function_and_subtest() {
        let go = Some("_test.go");
        for ok in [
            "test/conformance/runtime/user_test.go",
            "test/conformance/runtime/user_test.go#TestMustRunAsUser",
            "test/conformance/runtime/header_test.go#TestShouldHaveHeadersSet/x-forwarded-for",
        ] {
            assert!(is_test_path(ok, go), "{ok}");
        }
        for bad in [
            "test/conformance/runtime/user_test.go#",
            "test/conformance/runtime/user_test.go#Test Must",
            "test/conformance/runtime/user_test.go#TestA//b",
            "test/conformance/runtime/user.go#TestMustRunAsUser",
            "../user_test.go#TestMustRunAsUser",
        ] {
            assert!(!is_test_path(bad, go), "{bad}");
        }
    }

    fn word() -> impl Strategy<Value = String> {
        proptest::sample::select(vec![
            "The",
            "platform",
            "MUST",
            "MUST NOT",
            "SHOULD",
            "MAY",
            "do",
            "it.",
            "a.b",
            "lifecycle.x-y",
            "platform",
            "manual",
            "untestable",
            "model",
            "`code`",
            "容器",
            "é",
            "a:b",
            "a: b",
            "#x",
            " #x",
            "\"q\"",
            "'q'",
            "-",
            "- x",
            "true",
            "12",
            "1.0",
            "~",
            "null",
            "[a]",
            "{a}",
            "&a",
            "*a",
            "!t",
            "|",
            ">",
            "%",
            "@",
            "x_test.go",
            "runtime.md#kill",
            "",
            " ",
            "  ",
            "0x1F",
            "1e3",
            ".5",
            "0o7",
            ".inf",
            "Y",
            "NULL",
            "No",
            "3a7163a0d52f",
            "a\\b",
            "\\u00e9",
            "...",
            "---",
        ])
        .prop_map(str::to_string)
    }

    fn value() -> impl Strategy<Value = String> {
        let words = || proptest::collection::vec(word(), 1..6).prop_map(|w| w.join(" "));
        prop_oneof![
            4 => words().prop_map(|w| format!(" {w}\n")),
            // Double-quoted, sometimes with what the fast path leaves alone (escapes, inner quotes,
            // something after the closing quote).
            2 => (
                    words(),
                    proptest::sample::select(vec!["", "", "", "\\n", "\\\"", "\"", " # c", "#", ": x"]),
                    proptest::sample::select(vec!["", "", "", " # c", " ", "x", "\""]),
                )
                .prop_map(|(w, inside, after)| format!(" \"{w}{inside}\"{after}\n")),
            // A literal or folded block whose later lines are indented deeper (a nested list).
            2 => (proptest::sample::select(vec!["|", ">-", "|-"]), 1usize..3, proptest::collection::vec((0usize..4, words()), 1..5))
                .prop_map(|(ind, n, lines)| {
                    let mut s = format!(" {ind}\n");
                    for (k, (deeper, l)) in lines.iter().enumerate() {
                        let pad = if k == 0 { n } else { n + deeper };
                        s.push_str(&format!("{}{l}\n", " ".repeat(pad)));
                    }
                    s
                }),
            3 => (proptest::sample::select(vec![">-", "|", ">", "|-"]), 1usize..4, proptest::collection::vec(
                    prop_oneof![4 => words(), 1 => Just(String::new())], 1..5), any::<bool>())
                .prop_map(|(ind, n, lines, extra)| {
                    let mut s = format!(" {ind}\n");
                    for (i, l) in lines.iter().enumerate() {
                        let pad = if extra && i == 1 { n + 1 } else { n };
                        s.push_str(&format!("{}{l}\n", " ".repeat(if l.is_empty() { 0 } else { pad })));
                    }
                    s
                }),
            2 => (1usize..4, proptest::collection::vec(word(), 1..4), any::<bool>()).prop_map(|(n, items, zero)| {
                    let mut s = String::from("\n");
                    for it in items {
                        s.push_str(&format!("{}- {it}\n", " ".repeat(if zero { 0 } else { n })));
                    }
                    s
                }),
            1 => Just("\n".to_string()),
        ]
    }

    fn block() -> impl Strategy<Value = String> {
        let key = proptest::sample::select(vec![
            "id",
            "level",
            "actor",
            "text",
            "verify",
            "reason",
            "implicit",
            "oci",
            "upstream-tests",
            "colour",
            "verfy",
            "# c",
            "Id",
        ]);
        proptest::collection::vec((key, value()), 1..8).prop_map(|fields| {
            fields
                .into_iter()
                .map(|(k, v)| format!("{k}:{v}"))
                .collect()
        })
    }

    proptest! {
        /// Where the plain reader takes a block, it reads what serde-saphyr reads: every value, every
        /// key, every position.
        #[test]
        fn the_plain_reader_reads_what_serde_saphyr_reads(b in block()) {
            if let Some(plain) = ClauseYaml::parse_plain(&b) {
                let general = ClauseYaml::parse_general(&b);
                prop_assert!(general.is_ok(), "serde-saphyr rejects what the plain reader took: {b:?}");
                prop_assert_eq!(plain, general.unwrap(), "{:?}", b);
            }
        }
    }

    /// The shipped spec's blocks are all in the plain subset, and read the same both ways.
    #[test]
    fn the_plain_reader_takes_the_shipped_spec() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../spec");
        let mut total = 0;
        for lang in ["en", "zh"] {
            for e in std::fs::read_dir(root.join(lang)).unwrap() {
                let text = std::fs::read_to_string(e.unwrap().path()).unwrap();
                for part in text.split("```clause\n").skip(1) {
                    let block = &part[..part.find("```").unwrap()];
                    total += 1;
                    let plain = ClauseYaml::parse_plain(block);
                    assert!(plain.is_some(), "outside the subset: {block}");
                    assert_eq!(
                        plain.unwrap(),
                        ClauseYaml::parse_general(block).unwrap(),
                        "{block}"
                    );
                }
            }
        }
        assert!(total >= 200, "{total}");
    }

    /// The field names, the reader and the canonical list agree: each name of [`FIELDS`] (and a
    /// translation's `source`) read from a block fills that field, and only it, in the order
    /// [`ClauseYaml::fields`] lists them.
    #[test]
    fn every_field_name_is_read_into_its_field_in_the_documented_order() {
        let names: Vec<&str> = FIELDS.iter().copied().chain(["source"]).collect();
        for name in &names {
            let yaml = if *name == "upstream-tests" {
                format!("{name}:\n  - a_test.go\n")
            } else {
                format!("{name}: x\n")
            };
            let c = ClauseYaml::parse(&yaml).unwrap();
            let got: Vec<&str> = c.fields().into_iter().map(|(k, _)| k).collect();
            assert_eq!(got, [*name], "{yaml}");
            assert_eq!(c.unknown().count(), 0);
        }
        let all: String = names
            .iter()
            .rev()
            .map(|n| {
                if *n == "upstream-tests" {
                    format!("{n}:\n  - a_test.go\n")
                } else {
                    format!("{n}: x\n")
                }
            })
            .collect();
        let c = ClauseYaml::parse(&format!("{all}bogus: 1\n")).unwrap();
        let got: Vec<&str> = c.fields().into_iter().map(|(k, _)| k).collect();
        assert_eq!(got, names);
        let unknown: Vec<&str> = c.unknown().map(|k| k.value.as_str()).collect();
        assert_eq!(unknown, ["bogus"]);
    }

    #[test]
    fn suggests_close_field_names() {
        assert_eq!(suggest("verfy", &FIELDS), Some("verify"));
        assert_eq!(suggest("upstream_tests", &FIELDS), Some("upstream-tests"));
        assert_eq!(suggest("lvl", &FIELDS), Some("level"));
        assert_eq!(suggest("zzzz", &FIELDS), None);
        assert_eq!(suggest("colour", &FIELDS), None);
        assert_eq!(suggest("sorce", &TRANSLATION_FIELDS), Some("source"));
    }

    #[test]
    fn oci_refs() {
        assert!(is_oci_ref("runtime.md#kill"));
        assert!(is_oci_ref("config-linux.md"));
        assert!(!is_oci_ref("runtime#kill"));
        assert!(!is_oci_ref("https://x/runtime.md"));
        assert!(!is_oci_ref("runtime.md#Kill"));
    }
}
