//! `contract.yaml`: the title, languages, chapter order, upstream attribution and test globs.

use std::collections::BTreeSet;

use serde::Deserialize;
use serde_saphyr::Spanned;

use crate::diagnostic::{Diagnostic, FileId, SourceMap, Span};
use crate::spec::{Contract, TestGlobs, Upstream};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawContract {
    title: String,
    version: Spanned<String>,
    languages: Vec<Spanned<String>>,
    chapters: Vec<Spanned<String>>,
    upstream: RawUpstream,
    #[serde(default)]
    tests: Option<RawTests>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawTests {
    #[serde(default)]
    include: Option<Vec<Spanned<String>>>,
    #[serde(default)]
    exclude: Vec<Spanned<String>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawUpstream {
    title: String,
    url: String,
    license: String,
    attribution: String,
}

/// The contract description, and the span of each listed chapter (diagnostics about a chapter
/// file that is missing point at the line that lists it). `None` after reporting why not.
pub(super) fn parse_contract(
    cid: FileId,
    sources: &SourceMap,
    diags: &mut Vec<Diagnostic>,
) -> Option<(Contract, Vec<Span>)> {
    let file = sources.get(cid);
    let span_of = |loc: &serde_saphyr::Location| {
        let o = file.offset_of(loc.line() as usize, loc.column() as usize);
        let end = match loc.span().byte_len() {
            Some(n) if n > 0 => (o + n as usize).min(file.line_end(o)),
            _ => file.line_end(o),
        };
        Span::new(cid, o..end)
    };
    let raw: RawContract = match serde_saphyr::from_str(&file.text) {
        Ok(r) => r,
        Err(e) => {
            let msg = e.without_snippet().to_string();
            let msg = msg
                .rfind(" at line ")
                .map_or(msg.clone(), |i| msg[..i].to_string());
            let d = Diagnostic::error("K0010", "contract.yaml is not a valid contract description");
            let d = match e.location() {
                Some(loc) => d.at(span_of(&loc), msg),
                None => d.in_file(&file.path).help(msg.clone()),
            };
            diags.push(d.help(
                "contract.yaml has exactly: title, version, languages (list), chapters (list), upstream {title, url, license, attribution}, and optionally tests {include, exclude}; see spec/README.md",
            ));
            return None;
        }
    };
    let mut ok = true;
    let mut seen = BTreeSet::new();
    for c in &raw.chapters {
        let span = span_of(&c.referenced);
        if !is_chapter_name(&c.value) {
            ok = false;
            diags.push(
                Diagnostic::error(
                    "K0013",
                    format!("`{}` is not a valid chapter name", c.value.escape_debug()),
                )
                .at(span, "chapter names are file stems")
                .help("use lowercase a-z, 0-9 and `-` (the file is <lang>/<name>.md)"),
            );
        } else if !seen.insert(c.value.clone()) {
            ok = false;
            diags.push(
                Diagnostic::error("K0013", format!("chapter `{}` is listed twice", c.value))
                    .at(span, "listed again here")
                    .help("each chapter appears once in `chapters`"),
            );
        }
    }
    if raw.languages.is_empty() {
        ok = false;
        diags.push(
            Diagnostic::error("K0010", "contract.yaml lists no language")
                .at(span_of(&raw.version.referenced), "in this file")
                .help("add `languages: [en]`; the first language is the source"),
        );
    }
    for l in &raw.languages {
        if !is_chapter_name(&l.value) {
            ok = false;
            diags.push(
                Diagnostic::error(
                    "K0010",
                    format!("`{}` is not a language tag", l.value.escape_debug()),
                )
                .at(span_of(&l.referenced), "expected a tag like `en` or `zh`")
                .help("languages are lowercase tags used as folder names: en, zh"),
            );
        }
    }
    let mut tests = TestGlobs::default();
    if let Some(t) = &raw.tests {
        for g in t.include.iter().flatten().chain(&t.exclude) {
            if let Err(e) = crate::globs::glob(&g.value) {
                ok = false;
                diags.push(
                    Diagnostic::error("K0507", format!("`{}` is not a valid glob", g.value.escape_debug()))
                        .at(span_of(&g.referenced), e.kind().to_string())
                        .help("globs are relative to the folder of contract.yaml, `/`-separated: `*` within a folder, `**` across folders, `../` up, e.g. `../tests/**/*.rs`"),
                );
            }
        }
        if let Some(include) = &t.include {
            tests.include = include.iter().map(|g| g.value.clone()).collect();
        }
        tests.exclude = t.exclude.iter().map(|g| g.value.clone()).collect();
    }
    if !ok {
        return None;
    }
    let spans = raw
        .chapters
        .iter()
        .map(|c| span_of(&c.referenced))
        .collect();
    Some((
        Contract {
            title: raw.title,
            version: raw.version.value,
            languages: raw.languages.into_iter().map(|l| l.value).collect(),
            chapters: raw.chapters.into_iter().map(|c| c.value).collect(),
            upstream: Upstream {
                title: raw.upstream.title,
                url: raw.upstream.url,
                license: raw.upstream.license,
                attribution: raw.upstream.attribution,
            },
            tests,
        },
        spans,
    ))
}

pub(super) fn is_chapter_name(s: &str) -> bool {
    !s.is_empty()
        && !s.starts_with('-')
        && s.chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
}
