//! One ```` ```clause ```` block: YAML → checked [`Clause`] fields.
//!
//! The YAML is read into a list of (key, value) pairs with their positions rather than straight into a
//! struct, so that one block can report *all* its problems at once (every unknown field, every missing
//! one, a bad level and a bad actor together), each at its own line and column.

use std::ops::Range;

use serde::de::{Deserialize, Deserializer, IgnoredAny, MapAccess, Visitor};
use serde_saphyr::Spanned;

use super::fast_yaml::{self, Scalar};
use crate::diagnostic::{Diagnostic, FileId, SourceFile, Span};
use crate::keywords::{Level, find_keywords};
use crate::spec::{Actor, Contract, Verify, check_id};

/// Every field a clause may have, in the documented order.
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
/// `reason` and `implicit` translate the source's, when it has them.
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

enum RawValue {
    Str(Spanned<String>),
    List(Vec<Spanned<String>>),
    Unknown,
}

struct RawBlock(Vec<(Spanned<String>, RawValue)>);

impl<'de> Deserialize<'de> for RawBlock {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = RawBlock;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a mapping of clause fields (`id: …`, `level: …`, …)")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<RawBlock, A::Error> {
                let mut fields = Vec::new();
                while let Some(key) = map.next_key::<Spanned<String>>()? {
                    let value = match key.value.as_str() {
                        "upstream-tests" => RawValue::List(map.next_value()?),
                        k if FIELDS.contains(&k) || k == "source" => {
                            RawValue::Str(map.next_value()?)
                        }
                        _ => {
                            map.next_value::<IgnoredAny>()?;
                            RawValue::Unknown
                        }
                    };
                    fields.push((key, value));
                }
                Ok(RawBlock(fields))
            }
        }
        d.deserialize_map(V)
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

    fn span_of<T>(&self, s: &Spanned<T>) -> Span {
        let start = self.offset(&s.referenced);
        let mut end = match s.referenced.span().byte_len() {
            Some(len) if len > 0 => (start + len as usize).min(self.content.end),
            _ => self.file.line_end(start),
        };
        // serde-saphyr's length can disagree with the text around characters it skips (a byte order
        // mark inside the block): never end a span inside a character.
        while end > start && !self.file.text.is_char_boundary(end) {
            end -= 1;
        }
        // Trailing newlines of block scalars would make the caret spill onto the next line.
        let text = &self.file.text[start..end.max(start)];
        let end = start + text.trim_end().len();
        Span::new(self.file_id, start..end.max(start))
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
    parse_block_with(pos, schema, diags, true)
}

/// Keys the deserializer reads as typed values (others are skipped whatever they hold).
fn known_key(k: &str) -> bool {
    FIELDS.contains(&k) || k == "source"
}

enum FieldValue<'a> {
    Str(Scalar<'a>),
    List(Vec<Scalar<'a>>),
    Ignored,
}

/// The fields of a block, from the fast path when the block is in its subset, else from
/// serde-saphyr (which also reports every syntax error).
fn read_fields<'a>(
    pos: &BlockPos<'a>,
    allow_fast: bool,
) -> Result<Vec<(Scalar<'a>, FieldValue<'a>)>, serde_saphyr::Error> {
    let yaml = &pos.file.text[pos.content.clone()];
    // The shapes serde-saphyr would reject (a scalar where a list is expected, or the reverse) are
    // left to it, so it reports them.
    // An unknown key's value is skipped by serde-saphyr, which still parses numbers there (and
    // rejects some, like `.inf`): keep number-like values of unknown keys off the fast path.
    let numeric = |v: &str| v.starts_with(|c: char| c.is_ascii_digit() || c == '.' || c == '+');
    let shapes_ok = |fields: &[fast_yaml::Field]| {
        fields.iter().all(|f| match (&f.value, &*f.key.value) {
            (fast_yaml::Value::List(items), k) => {
                k == "upstream-tests" || !known_key(k) && !items.iter().any(|i| numeric(&i.value))
            }
            (fast_yaml::Value::Str(s), k) => {
                k != "upstream-tests" && (known_key(k) || !numeric(&s.value))
            }
        })
    };
    if allow_fast
        && let Some(fields) = fast_yaml::parse(yaml, pos.content.start)
        && shapes_ok(&fields)
    {
        return Ok(fields
            .into_iter()
            .map(|f| {
                let v = match f.value {
                    fast_yaml::Value::Str(s) => FieldValue::Str(s),
                    fast_yaml::Value::List(l) => FieldValue::List(l),
                };
                (f.key, v)
            })
            .collect());
    }
    let raw: RawBlock = serde_saphyr::from_str(yaml)?;
    let scalar = |s: &Spanned<String>| Scalar {
        value: s.value.clone().into(),
        range: pos.span_of(s).range,
    };
    Ok(raw
        .0
        .iter()
        .map(|(k, v)| {
            let v = match v {
                RawValue::Str(s) => FieldValue::Str(scalar(s)),
                RawValue::List(items) => FieldValue::List(items.iter().map(scalar).collect()),
                RawValue::Unknown => FieldValue::Ignored,
            };
            (scalar(k), v)
        })
        .collect())
}

/// A block's fields as the loader reads them when the block is outside the fast path's subset
/// (serde-saphyr, the same reader as [`read_fields`]), in source order and without positions:
/// what `fmt` rewrites such a block from. `None` when the YAML does not parse or a field is not a
/// clause field (its value was skipped, so it could not be written back).
pub(crate) fn general_fields(yaml: &str) -> Option<Vec<fast_yaml::Field<'static>>> {
    let raw: RawBlock = serde_saphyr::from_str(yaml).ok()?;
    let scalar = |s: &Spanned<String>| Scalar {
        value: s.value.clone().into(),
        range: 0..0,
    };
    raw.0
        .iter()
        .map(|(k, v)| {
            let value = match v {
                RawValue::Str(s) => fast_yaml::Value::Str(scalar(s)),
                RawValue::List(items) => fast_yaml::Value::List(items.iter().map(scalar).collect()),
                RawValue::Unknown => return None,
            };
            Some(fast_yaml::Field {
                key: scalar(k),
                value,
            })
        })
        .collect()
}

/// [`parse_block`], with the fast path switchable (the equivalence test runs both ways).
#[doc(hidden)]
pub(super) fn parse_block_with(
    pos: &BlockPos<'_>,
    schema: Schema,
    diags: &mut Vec<Diagnostic>,
    allow_fast: bool,
) -> ClauseFields {
    let yaml = &pos.file.text[pos.content.clone()];
    let raw = match read_fields(pos, allow_fast) {
        Ok(r) => r,
        Err(e) => {
            let span = match e.location() {
                Some(loc) if !yaml.trim().is_empty() => {
                    let o = pos.offset(&loc);
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
                    .at(span, yaml_message(&e))
                    .help(
                        "a clause is a YAML mapping (`id: …` on its own line, then `level:`, `actor:`, …); \
                         quote values that start with a backtick or contain `: `, or use `text: >-` \
                         with the text indented on the following lines",
                    ),
            );
            return ClauseFields::default();
        }
    };

    let mut out = ClauseFields::default();
    let mut text_span = None;
    let mut level_span = None;
    let mut verify_span = None;
    let mut raw = raw;
    let mut seen: Vec<&str> = Vec::with_capacity(raw.len());
    let span_of = |s: &Scalar| Span::new(pos.file_id, s.range.clone());
    // By mutable reference, so the text can be moved out of its scalar rather than copied.
    for (key, value) in raw.iter_mut() {
        let key: &Scalar = key;
        let k: &str = &key.value;
        seen.push(k);
        let allowed = schema.fields();
        let ignored = &mut FieldValue::Ignored;
        let value = if allowed.contains(&k) { value } else { ignored };
        let s = match value {
            FieldValue::Str(s) => s,
            FieldValue::List(items) => {
                out.upstream_tests = items.iter().map(|i| i.value.to_string()).collect();
                let suffix = pos
                    .contract
                    .links
                    .upstream_tests
                    .as_ref()
                    .and_then(|l| l.suffix.as_deref());
                for item in items {
                    if !is_test_path(&item.value, suffix) {
                        let rule = match suffix {
                            Some(s) => format!(
                                "relative paths ending in `{s}` (`links.upstream-tests.suffix` of contract.yaml)"
                            ),
                            None => "relative paths".to_string(),
                        };
                        diags.push(
                            Diagnostic::error(
                                "K0117",
                                format!("`{}` is not an upstream test path", item.value),
                            )
                            .at(span_of(item), "expected a path like this")
                            .help(format!("`upstream-tests` lists the upstream's tests as {rule}: a-z, 0-9, `/`, `_`, `-`, `.`, no `..`, then optionally `#` and the test function (and `/subtest`), e.g. `test/conformance/runtime/envvars_test.go#TestMustEnvVars`")),
                        );
                    }
                }
                continue;
            }
            FieldValue::Ignored => {
                let mut d = Diagnostic::error("K0102", format!("unknown field `{k}`"))
                    .at(span_of(key), "not a clause field");
                d = d.help(match (schema, suggest(k, allowed)) {
                    (Schema::Translation, _) if FIELDS.contains(&k) && !allowed.contains(&k) => format!(
                        "a translated clause has only {}; `{k}` is inherited from the source-language clause",
                        allowed.join(", ")
                    ),
                    (_, Some(s)) => format!("did you mean `{s}`? The fields are: {}", allowed.join(", ")),
                    (_, None) => format!("the fields are: {}", allowed.join(", ")),
                });
                diags.push(d);
                continue;
            }
        };
        let span = span_of(s);
        let v = s.value.trim();
        match k {
            "id" => match check_id(v) {
                Ok(()) => out.id = Some((v.to_string(), span)),
                Err(why) => diags.push(
                    Diagnostic::error("K0107", format!("malformed clause id `{}`", v.escape_debug()))
                        .at(span, why.to_string())
                        .help("ids are lowercase, dot-separated segments of a-z, 0-9 and single `-`, at least two segments (e.g. `lifecycle.sigterm-on-kill`)"),
                ),
            },
            "level" => match Level::from_keyword(v) {
                Some(l) => {
                    // The keyword as written, its words joined by single spaces.
                    let mut keyword = String::with_capacity(v.len());
                    for (i, word) in v.split_whitespace().enumerate() {
                        if i > 0 {
                            keyword.push(' ');
                        }
                        keyword.push_str(word);
                    }
                    out.level = Some((l, keyword));
                    level_span = Some(span);
                }
                None => diags.push(
                    Diagnostic::error("K0109", format!("unknown level `{}`", v.escape_debug()))
                        .at(span, "not an RFC 2119 keyword")
                        .help(level_hint(v)),
                ),
            },
            "actor" => match pos.contract.actor(v) {
                Some(a) => out.actor = Some(a),
                None => diags.push(
                    Diagnostic::error("K0110", format!("unknown actor `{}`", v.escape_debug()))
                        .at(span, "not one of the actors")
                        .help(format!(
                            "actor is one of: {} (the `actors` of contract.yaml); see spec/README.md",
                            names(pos.contract.actor_list().map(Actor::as_str))
                        )),
                ),
            },
            "verify" => match pos.contract.verify_kind(v) {
                Some(x) => {
                    out.verify = Some(x);
                    verify_span = Some(span);
                }
                None => diags.push(
                    Diagnostic::error("K0111", format!("unknown verify value `{}`", v.escape_debug()))
                        .at(span, "not a verification method")
                        .help(format!(
                            "verify is one of: {} (the `verify` of contract.yaml; untestable needs `reason:`)",
                            names(pos.contract.verify_list().map(Verify::as_str))
                        )),
                ),
            },
            "review" if !v.is_empty() => {
                out.review = Some(v.to_string());
                out.review_span = Some(span);
            }
            "text" => {
                let mut text = std::mem::take(&mut s.value).into_owned();
                text.truncate(text.trim_end().len());
                out.text = Some(text);
                text_span = Some(span.clone());
                out.text_span = Some(span);
            }
            "source" => {
                out.source = Some(v.to_string());
                out.source_span = Some(span);
            }
            "reason" if !v.is_empty() => out.reason = Some(v.to_string()),
            "implicit" if !v.is_empty() => out.implicit = Some(v.to_string()),
            "oci" => {
                if is_oci_ref(v) {
                    out.oci = Some(v.to_string());
                } else {
                    diags.push(
                        Diagnostic::error("K0116", format!("`{}` is not an OCI spec reference", v.escape_debug()))
                            .at(span, "expected `<file>.md#<anchor>`")
                            .help("point into the OCI runtime spec, e.g. `runtime.md#kill` or `config.md#posix-platform-hooks`"),
                    );
                }
            }
            _ => {}
        }
    }

    for &req in schema.required() {
        if !seen.contains(&req) {
            diags.push(
                Diagnostic::error(
                    "K0103",
                    format!("clause is missing the required field `{req}`"),
                )
                .at(pos.fence_span(), format!("this clause has no `{req}`"))
                .help(format!(
                    "every clause needs {}; see spec/README.md",
                    REQUIRED.map(|r| format!("`{r}`")).join(", ")
                )),
            );
        }
    }

    if out.verify.is_some_and(Verify::is_untestable)
        && out.reason.is_none()
        && let Some(span) = verify_span
    {
        diags.push(
            Diagnostic::error("K0112", "an untestable clause needs a `reason`")
                .at(span, "untestable, but no reason given")
                .help("add `reason: …` saying why no observation can decide this clause (reviewers read it)"),
        );
    }

    if let (Schema::Source, Some(text), Some(tspan)) = (schema, &out.text, &text_span) {
        check_text_keywords(pos, text, tspan, &out, level_span.as_ref(), diags);
    }
    out
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

fn yaml_message(e: &serde_saphyr::Error) -> String {
    let msg = e.without_snippet().to_string();
    // serde-saphyr appends the position, which the snippet already shows.
    match msg.rfind(" at line ") {
        Some(i) => msg[..i].to_string(),
        None => msg,
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

    /// Run a block through both paths; return (fast path taken, fields, rendered diagnostics) per path.
    fn both(block: &str) -> ((bool, ClauseFields, String), (ClauseFields, String)) {
        let text = format!("```clause\n{block}```\n");
        let mut sources = crate::diagnostic::SourceMap::default();
        let id = sources.add("one.md".into(), text.clone());
        let file = sources.get(id);
        let pos = BlockPos {
            file_id: id,
            file,
            content: 10..text.len() - 4,
            fence: 0..9,
            contract: &crate::spec::Contract::default(),
        };
        let render = |d: &[Diagnostic]| {
            crate::diagnostic::render_all(d, &sources, &annotate_snippets::Renderer::plain())
        };
        let fast_taken = fast_yaml::parse(&text[pos.content.clone()], pos.content.start).is_some();
        let mut d1 = Vec::new();
        let f1 = parse_block_with(&pos, Schema::Source, &mut d1, true);
        let mut d2 = Vec::new();
        let f2 = parse_block_with(&pos, Schema::Source, &mut d2, false);
        ((fast_taken, f1, render(&d1)), (f2, render(&d2)))
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
        // 2,000 cases by default; `KC_FAST_YAML_CASES=100000` for a long run.
        #![proptest_config(ProptestConfig::with_cases(
            std::env::var("KC_FAST_YAML_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(2000)
        ))]

        /// The fast path is an optimisation only: fields and diagnostics are identical either way.
        #[test]
        fn fast_path_agrees_with_serde_saphyr(b in block()) {
            let ((_, f1, d1), (f2, d2)) = both(&b);
            prop_assert_eq!(f1, f2);
            prop_assert_eq!(d1, d2);
        }
    }

    #[test]
    fn fast_path_is_taken_for_the_shipped_spec() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("spec");
        let (mut fast, mut total) = (0, 0);
        for lang in ["en", "zh"] {
            for e in std::fs::read_dir(root.join(lang)).unwrap() {
                let text = std::fs::read_to_string(e.unwrap().path()).unwrap();
                for part in text.split("```clause\n").skip(1) {
                    let block = &part[..part.find("```").unwrap()];
                    total += 1;
                    let ((taken, f1, d1), (f2, d2)) = both(block);
                    assert_eq!(f1, f2, "{block}");
                    assert_eq!(d1, d2, "{block}");
                    fast += usize::from(taken);
                }
            }
        }
        assert!(total >= 200, "{total}");
        // Every shipped block is in the subset today (210 of 210); a future one with escapes, comments
        // or anchors would take the full parser, which is fine up to a point.
        assert!(
            fast * 10 >= total * 8,
            "{fast} of {total} blocks took the fast path"
        );
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
