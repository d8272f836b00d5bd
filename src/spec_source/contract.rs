//! `contract.yaml`: the title, languages, chapter order, upstream attribution, test globs, and the
//! vocabulary (actors, verify kinds, link bases of `oci:` and `upstream-tests:`).

use std::collections::{BTreeMap, BTreeSet};

use serde::Deserialize;
use serde_saphyr::Spanned;

use crate::diagnostic::{Diagnostic, FileId, SourceMap, Span};
use crate::spec::{
    Actor, Contract, DEFAULT_ACTORS, DEFAULT_VERIFY, Labelled, LinkBase, Links, TestGlobs,
    TranslatedMeta, Upstream, Verify,
};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawContract {
    title: String,
    version: Spanned<String>,
    languages: Vec<Spanned<String>>,
    chapters: Vec<Spanned<String>>,
    #[serde(default)]
    upstream: Option<RawUpstream>,
    #[serde(default)]
    tests: Option<RawTests>,
    #[serde(default)]
    translated: BTreeMap<String, RawTranslated>,
    #[serde(default)]
    actors: Option<Spanned<Vec<Spanned<RawWord>>>>,
    #[serde(default)]
    verify: Option<Spanned<Vec<Spanned<RawWord>>>>,
    #[serde(default)]
    links: Option<RawLinks>,
}

/// `translated: {zh: {title, attribution}}`: the contract's title and attribution in a translation.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawTranslated {
    title: Spanned<String>,
    #[serde(default)]
    attribution: Option<String>,
}

/// A word of the vocabulary: a bare name (`- platform`) or a name with labels per language
/// (`- {name: platform, label: {en: platform, zh: 平台}}`).
#[derive(Deserialize)]
#[serde(untagged)]
enum RawWord {
    Name(String),
    Labelled(RawLabelled),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawLabelled {
    name: String,
    #[serde(default)]
    label: BTreeMap<String, String>,
}

impl RawWord {
    fn name(&self) -> &String {
        match self {
            RawWord::Name(n) => n,
            RawWord::Labelled(l) => &l.name,
        }
    }
    fn labels(&self) -> BTreeMap<String, String> {
        match self {
            RawWord::Name(_) => BTreeMap::new(),
            RawWord::Labelled(l) => l.label.clone(),
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawLinks {
    #[serde(default)]
    oci: Option<RawLink>,
    #[serde(default, rename = "upstream-tests")]
    upstream_tests: Option<RawLink>,
    #[serde(default)]
    tests: Option<RawLink>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawLink {
    base: String,
    #[serde(default)]
    suffix: Option<String>,
    #[serde(default)]
    label: BTreeMap<String, String>,
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
                "contract.yaml has: title, version, languages (list), chapters (list), and optionally upstream {title, url, license, attribution}, tests {include, exclude}, translated {<lang>: {title, attribution}}, actors (list), verify (list), links {oci, upstream-tests, tests} (each {base, suffix, label}); see spec/README.md",
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
    for (lang, t) in &raw.translated {
        if !raw.languages.iter().skip(1).any(|l| &l.value == lang) {
            ok = false;
            diags.push(
                Diagnostic::error(
                    "K0010",
                    format!("`translated` names `{}`, which is not a translation of the contract", lang.escape_debug()),
                )
                .at(span_of(&t.title.referenced), "the title of a language not listed")
                .help("`translated` gives the title and attribution of each language after the first in `languages`"),
            );
        }
    }
    let actors = words(
        raw.actors.as_ref(),
        &DEFAULT_ACTORS,
        "actors",
        &span_of,
        diags,
        &mut ok,
    );
    let mut verify = words(
        raw.verify.as_ref(),
        &DEFAULT_VERIFY,
        "verify",
        &span_of,
        diags,
        &mut ok,
    );
    if !verify.iter().any(|v| v.0 == Verify::UNTESTABLE.as_str()) {
        // `untestable` is always a kind: a clause no observation can decide must be sayable.
        verify.push((Verify::UNTESTABLE.as_str().to_string(), BTreeMap::new()));
    }
    if !ok {
        return None;
    }
    let links = raw.links.map_or_else(Links::default, |l| Links {
        oci: l.oci.map(link),
        upstream_tests: l.upstream_tests.map(link),
        tests: l.tests.map(link),
    });
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
            upstream: raw.upstream.map(|u| Upstream {
                title: u.title,
                url: u.url,
                license: u.license,
                attribution: u.attribution,
            }),
            actors: actors
                .into_iter()
                .map(|(name, labels)| Labelled {
                    value: Actor::new(&name),
                    labels,
                })
                .collect(),
            verify: verify
                .into_iter()
                .map(|(name, labels)| Labelled {
                    value: Verify::new(&name),
                    labels,
                })
                .collect(),
            links,
            tests,
            translated: raw
                .translated
                .into_iter()
                .map(|(lang, t)| {
                    let meta = TranslatedMeta {
                        title: t.title.value,
                        attribution: t.attribution,
                    };
                    (lang, meta)
                })
                .collect(),
        },
        spans,
    ))
}

fn link(l: RawLink) -> LinkBase {
    LinkBase {
        base: l.base,
        labels: l.label,
        suffix: l.suffix,
    }
}

/// The names and labels of `actors:` or `verify:` (the defaults when absent), each name checked
/// (a lowercase word, listed once; at least one).
fn words(
    raw: Option<&Spanned<Vec<Spanned<RawWord>>>>,
    defaults: &[&str],
    field: &str,
    span_of: &dyn Fn(&serde_saphyr::Location) -> Span,
    diags: &mut Vec<Diagnostic>,
    ok: &mut bool,
) -> Vec<(String, BTreeMap<String, String>)> {
    let Some(raw) = raw else {
        return defaults
            .iter()
            .map(|d| (d.to_string(), BTreeMap::new()))
            .collect();
    };
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    for w in &raw.value {
        let (name, span) = (w.value.name(), span_of(&w.referenced));
        if !is_chapter_name(name) {
            *ok = false;
            diags.push(
                Diagnostic::error(
                    "K0014",
                    format!("`{}` is not a valid name in `{field}`", name.escape_debug()),
                )
                .at(span, "not a lowercase word")
                .help(format!("names in `{field}` are written in clauses: use lowercase a-z, 0-9 and `-` (e.g. `platform`); give the site's wording as `label`")),
            );
        } else if !seen.insert(name.clone()) {
            *ok = false;
            diags.push(
                Diagnostic::error("K0014", format!("`{}` is listed twice in `{field}`", name))
                    .at(span, "listed again here")
                    .help(format!("each name appears once in `{field}`")),
            );
        } else {
            out.push((name.clone(), w.value.labels()));
        }
    }
    if raw.value.is_empty() {
        *ok = false;
        diags.push(
            Diagnostic::error("K0014", format!("`{field}` is empty"))
                .at(span_of(&raw.referenced), "no name listed")
                .help(format!("list at least one name in `{field}`, or leave the field out for the defaults: {}", defaults.join(", "))),
        );
    }
    out
}

pub(crate) fn is_chapter_name(s: &str) -> bool {
    !s.is_empty()
        && !s.starts_with('-')
        && s.chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
}
