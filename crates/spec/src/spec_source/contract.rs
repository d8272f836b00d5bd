//! `contract.yaml`: the title, languages, chapter order, upstream attribution, test globs, the
//! vocabulary (actors, verify kinds, link bases of `oci:` and `upstream-tests:`), and the earlier
//! versions kept beside the contract (`history:`).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use serde::Deserialize;
use serde_saphyr::Spanned;

use super::Tree;
use crate::diagnostic::{Diagnostic, FileId, SourceFile, SourceMap, Span};
use crate::spec::{
    Actor, Contract, DEFAULT_ACTORS, DEFAULT_VERIFY, EarlierVersion, Labelled, LinkBase, Links,
    TestGlobs, TranslatedMeta, Upstream, Verify,
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
    #[serde(default)]
    history: Vec<RawEarlierVersion>,
    #[serde(default)]
    search_hint: Option<RawSearchHint>,
}

/// `search_hint:` one text for every language, or one per language (`{en: …, zh: …}`).
#[derive(Deserialize)]
#[serde(untagged)]
enum RawSearchHint {
    All(String),
    PerLanguage(BTreeMap<String, Spanned<String>>),
}

/// An entry of `history:`: `{name, label, path, url, revision, date}` (`label` optional), and
/// the upstream change that made it: `pull_request`, its `title`, and `formatting_only` (the pull
/// requests of versions before it that changed only the form of the text), all optional.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawEarlierVersion {
    name: Spanned<String>,
    #[serde(default)]
    label: BTreeMap<String, String>,
    path: Spanned<String>,
    url: Spanned<String>,
    revision: Spanned<String>,
    date: Spanned<String>,
    #[serde(default)]
    pull_request: Option<u64>,
    #[serde(default)]
    title: Option<String>,
    #[serde(default)]
    formatting_only: Vec<u64>,
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
    base: Spanned<String>,
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
    /// File extension → language word (`gotest: go`).
    #[serde(default)]
    languages: BTreeMap<String, Spanned<String>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawUpstream {
    title: String,
    url: Spanned<String>,
    #[serde(default)]
    revision: Option<Spanned<String>>,
    #[serde(default)]
    date: Option<Spanned<String>>,
    license: String,
    attribution: String,
}

/// The contract description, and the span of each listed chapter (diagnostics about a chapter
/// file that is missing point at the line that lists it). `None` after reporting why not. `tree`
/// and `dir` (the folder of `contract.yaml`) are where the `history:` folders are looked for.
/// Each section of the file is checked in turn, every problem reported before giving up.
pub(super) fn parse_contract(
    tree: &Tree,
    dir: &Path,
    cid: FileId,
    sources: &SourceMap,
    diags: &mut Vec<Diagnostic>,
) -> Option<(Contract, Vec<Span>)> {
    let mut c = ContractReader {
        cid,
        file: sources.get(cid),
        diags,
        ok: true,
    };
    let raw = c.read()?;
    c.chapters(&raw.chapters);
    c.languages(&raw.languages, &raw.version);
    let tests = c.tests(raw.tests.as_ref());
    c.search_hint(raw.search_hint.as_ref(), &raw.languages);
    c.translated(&raw.translated, &raw.languages);
    let actors = c.words(raw.actors.as_ref(), &DEFAULT_ACTORS, "actors");
    let verify = c.words(raw.verify.as_ref(), &DEFAULT_VERIFY, "verify");
    c.upstream(raw.upstream.as_ref());
    let history = c.history(&raw.history, tree, dir);
    c.urls(&raw);
    if !c.ok {
        return None;
    }
    let spans = raw
        .chapters
        .iter()
        .map(|chapter| c.span_of(&chapter.referenced))
        .collect();
    let checked = Checked {
        tests,
        actors,
        verify: with_untestable(verify),
        history,
    };
    Some((contract(raw, checked), spans))
}

/// `contract.yaml` being read: its file, and the problems found so far.
struct ContractReader<'a> {
    cid: FileId,
    file: &'a SourceFile,
    diags: &'a mut Vec<Diagnostic>,
    /// No error so far: the contract is made only then.
    ok: bool,
}

/// The sections of `contract.yaml` that checking turns into the contract's values.
struct Checked {
    tests: TestGlobs,
    actors: Vec<(String, BTreeMap<String, String>)>,
    verify: Vec<(String, BTreeMap<String, String>)>,
    history: Vec<EarlierVersion>,
}

impl ContractReader<'_> {
    /// An error: reported, and the contract is not made.
    fn error(&mut self, d: Diagnostic) {
        self.ok = false;
        self.diags.push(d);
    }

    /// Where a value serde-saphyr located is in the file: its own length, or to its line's end.
    fn span_of(&self, loc: &serde_saphyr::Location) -> Span {
        let file = self.file;
        let o = file.offset_of(loc.line() as usize, loc.column() as usize);
        let end = match loc.span().byte_len() {
            Some(n) if n > 0 => (o + n as usize).min(file.line_end(o)),
            _ => file.line_end(o),
        };
        Span::new(self.cid, o..end)
    }

    /// A YAML error where the editor's slip is (an unclosed quote's opening, a tab), to the line's
    /// end.
    fn error_span(&self, e: &serde_saphyr::Error, loc: &serde_saphyr::Location) -> Span {
        let file = self.file;
        let o = file.offset_of(loc.line() as usize, loc.column() as usize);
        match crate::diagnostic::yaml_error_offset(&file.text, e, o) {
            moved if moved != o => Span::new(self.cid, moved..file.line_end(moved)),
            _ => self.span_of(loc),
        }
    }

    /// The file's YAML read into its sections (K0010 when it is none, or not a contract's).
    fn read(&mut self) -> Option<RawContract> {
        let file = self.file;
        let e = match serde_saphyr::from_str(&file.text) {
            Ok(r) => return Some(r),
            Err(e) => e,
        };
        let d = if crate::diagnostic::yaml_has_no_document(&file.text) {
            Diagnostic::error("K0010", "contract.yaml holds no YAML document").in_file(&file.path)
        } else {
            let msg = crate::diagnostic::yaml_message(&e);
            let d = Diagnostic::error("K0010", "contract.yaml is not a valid contract description");
            match e.location() {
                Some(loc) => d.at(self.error_span(&e, &loc), msg),
                None => d.in_file(&file.path).help(msg.clone()),
            }
        };
        self.error(d.help(
            "contract.yaml has: title, version, languages (list), chapters (list), and optionally upstream {title, url, revision, date, license, attribution}, tests {include, exclude, languages {<extension>: <language>}}, translated {<lang>: {title, attribution}}, search_hint (text, or {<lang>: text}), actors (list), verify (list), links {oci, upstream-tests, tests} (each {base, suffix, label}), history (list of {name, label, path, url, revision, date, and optionally pull_request, title, formatting_only}); see spec/README.md",
        ));
        None
    }

    /// `chapters:` each a file stem, not a page of the site's own, listed once (K0013).
    fn chapters(&mut self, chapters: &[Spanned<String>]) {
        let mut seen = BTreeSet::new();
        for c in chapters {
            let span = self.span_of(&c.referenced);
            if !is_chapter_name(&c.value) {
                self.error(
                    Diagnostic::error(
                        "K0013",
                        format!(
                            "`{}` is not a valid chapter name",
                            crate::diagnostic::shown(&c.value)
                        ),
                    )
                    .at(span, "chapter names are file stems")
                    .help("use lowercase a-z, 0-9 and `-` (the file is <lang>/<name>.md)"),
                );
            } else if RESERVED_PAGES.contains(&c.value.as_str()) {
                self.error(
                    Diagnostic::error(
                        "K0013",
                        format!("`{}` is the name of a page the site makes", c.value),
                    )
                    .at(span, "its page would replace the site's own")
                    .help(format!(
                        "rename the chapter (file and entry); these names are reserved: {}",
                        RESERVED_PAGES.join(", ")
                    )),
                );
            } else if !seen.insert(c.value.clone()) {
                self.error(
                    Diagnostic::error("K0013", format!("chapter `{}` is listed twice", c.value))
                        .at(span, "listed again here")
                        .help("each chapter appears once in `chapters`"),
                );
            }
        }
    }

    /// `languages:` at least one, each a tag that is no folder of the site's own (K0010).
    fn languages(&mut self, languages: &[Spanned<String>], version: &Spanned<String>) {
        if languages.is_empty() {
            self.error(
                Diagnostic::error("K0010", "contract.yaml lists no language")
                    .at(self.span_of(&version.referenced), "in this file")
                    .help("add `languages: [en]`; the first language is the source"),
            );
        }
        let mut seen = std::collections::BTreeSet::new();
        for l in languages {
            if !seen.insert(l.value.as_str()) {
                // Read once: a second `en` would be a translation of `en` into itself, and every
                // clause of the source would be reported as a translated block gone wrong.
                self.error(
                    Diagnostic::error(
                        "K0010",
                        format!("language `{}` is listed twice", l.value),
                    )
                    .at(self.span_of(&l.referenced), "listed again here")
                    .help("each language appears once in `languages`; the first is the source, the others its translations"),
                );
            } else if !is_chapter_name(&l.value) {
                self.error(
                    Diagnostic::error(
                        "K0010",
                        format!(
                            "`{}` is not a language tag",
                            crate::diagnostic::shown(&l.value)
                        ),
                    )
                    .at(
                        self.span_of(&l.referenced),
                        "expected a tag like `en` or `zh`",
                    )
                    .help("languages are lowercase tags used as folder names: en, zh"),
                );
            } else if RESERVED_FOLDERS.contains(&l.value.as_str()) {
                self.error(
                    Diagnostic::error(
                        "K0010",
                        format!("`{}` is the name of a folder the site makes", l.value),
                    )
                    .at(
                        self.span_of(&l.referenced),
                        "its pages would mix with the site's own files",
                    )
                    .help(format!(
                        "a language is a folder of the site; these names are reserved: {}",
                        RESERVED_FOLDERS.join(", ")
                    )),
                );
            }
        }
    }

    /// `tests:` the globs of the test files, each relative and valid (K0507).
    fn tests(&mut self, raw: Option<&RawTests>) -> TestGlobs {
        let mut tests = TestGlobs::default();
        let Some(t) = raw else {
            return tests;
        };
        for g in t.include.iter().flatten().chain(&t.exclude) {
            // An absolute pattern would be joined to the folder of contract.yaml and select
            // nothing, silently: refused like a pattern that does not parse.
            let wrong = if g.value.starts_with('/') {
                Some(
                    "an absolute path: patterns are relative to the folder of contract.yaml"
                        .to_string(),
                )
            } else {
                crate::globs::glob(&g.value)
                    .err()
                    .map(|e| e.kind().to_string())
            };
            if let Some(wrong) = wrong {
                self.error(
                    Diagnostic::error("K0507", format!("`{}` is not a valid glob", crate::diagnostic::shown(&g.value)))
                        .at(self.span_of(&g.referenced), wrong)
                        .help("globs are relative to the folder of contract.yaml, `/`-separated: `*` within a folder, `**` across folders, `../` up, e.g. `../tests/**/*.rs`"),
                );
            }
        }
        if let Some(include) = &t.include {
            tests.include = include.iter().map(|g| g.value.clone()).collect();
        }
        tests.exclude = t.exclude.iter().map(|g| g.value.clone()).collect();
        tests.languages = self.test_languages(&t.languages);
        tests
    }

    /// `tests: languages:` each an extension without its dot mapped to a language kcontract
    /// reads (K0010): a misspelt word would leave the files read as Rust and their tests silently
    /// unclaimed.
    fn test_languages(
        &mut self,
        raw: &BTreeMap<String, Spanned<String>>,
    ) -> BTreeMap<String, crate::TestLanguage> {
        use strum::VariantNames;
        let mut out = BTreeMap::new();
        for (ext, word) in raw {
            let at = self.span_of(&word.referenced);
            if ext.is_empty() || ext.contains(['.', '/', '*']) {
                self.error(
                    Diagnostic::error(
                        "K0010",
                        format!("`tests: languages:` names the extension `{}`", crate::diagnostic::shown(ext)),
                    )
                    .at(at, "for this language")
                    .help("name a file extension without its dot, e.g. `gotest: go` for files ending in `.gotest`"),
                );
                continue;
            }
            match word.value.parse::<crate::TestLanguage>() {
                Ok(lang) => {
                    out.insert(ext.clone(), lang);
                }
                Err(_) => {
                    let words = crate::TestLanguage::VARIANTS;
                    // `ts`, `py`, `cpp` name an extension; `golang` starts with a word; else a typo.
                    let lower = word.value.to_ascii_lowercase();
                    let near = crate::TestLanguage::of_extension(&lower)
                        .map(crate::TestLanguage::as_str)
                        .or_else(|| {
                            words
                                .iter()
                                .copied()
                                .find(|w| lower.starts_with(w) && w.len() > 1)
                        })
                        .or_else(|| {
                            crate::suggest::closest(&lower, words.iter().copied(), |w| {
                                w.len() / 3 + 1
                            })
                        });
                    let hint = match near {
                        Some(w) => {
                            format!("did you mean `{w}`? kcontract reads {}", words.join(", "))
                        }
                        None => format!("kcontract reads {}", words.join(", ")),
                    };
                    self.error(
                        Diagnostic::error(
                            "K0010",
                            format!(
                                "`{}` is not a language whose tests kcontract reads",
                                crate::diagnostic::shown(&word.value)
                            ),
                        )
                        .at(at, format!("the language of `.{ext}` files"))
                        .help(hint),
                    );
                }
            }
        }
        out
    }

    /// `search_hint:` per language, only for languages of the contract (K0010).
    fn search_hint(&mut self, raw: Option<&RawSearchHint>, languages: &[Spanned<String>]) {
        let Some(RawSearchHint::PerLanguage(hints)) = raw else {
            return;
        };
        for (lang, hint) in hints {
            if !languages.iter().any(|l| &l.value == lang) {
                self.error(
                    Diagnostic::error(
                        "K0010",
                        format!("`search_hint` names `{}`, which is not a language of the contract", crate::diagnostic::shown(lang)),
                    )
                    .at(self.span_of(&hint.referenced), "the hint of a language not listed")
                    .help("`search_hint` is one text for every language, or one per language listed in `languages`"),
                );
            }
        }
    }

    /// `translated:` only for the translations (the languages after the first) (K0010).
    fn translated(
        &mut self,
        translated: &BTreeMap<String, RawTranslated>,
        languages: &[Spanned<String>],
    ) {
        for (lang, t) in translated {
            if !languages.iter().skip(1).any(|l| &l.value == lang) {
                self.error(
                    Diagnostic::error(
                        "K0010",
                        format!("`translated` names `{}`, which is not a translation of the contract", crate::diagnostic::shown(lang)),
                    )
                    .at(self.span_of(&t.title.referenced), "the title of a language not listed")
                    .help("`translated` gives the title and attribution of each language after the first in `languages`"),
                );
            }
        }
    }

    /// The names and labels of `actors:` or `verify:` (the defaults when absent), each name
    /// checked (a lowercase word, listed once; at least one) (K0014).
    fn words(
        &mut self,
        raw: Option<&Spanned<Vec<Spanned<RawWord>>>>,
        defaults: &[&str],
        field: &str,
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
            let (name, span) = (w.value.name(), self.span_of(&w.referenced));
            if !is_chapter_name(name) {
                self.error(
                    Diagnostic::error(
                        "K0014",
                        format!("`{}` is not a valid name in `{field}`", crate::diagnostic::shown(name)),
                    )
                    .at(span, "not a lowercase word")
                    .help(format!("names in `{field}` are written in clauses: use lowercase a-z, 0-9 and `-` (e.g. `platform`); give the site's wording as `label`")),
                );
            } else if !seen.insert(name.clone()) {
                self.error(
                    Diagnostic::error("K0014", format!("`{}` is listed twice in `{field}`", name))
                        .at(span, "listed again here")
                        .help(format!("each name appears once in `{field}`")),
                );
            } else {
                out.push((name.clone(), w.value.labels()));
            }
        }
        if raw.value.is_empty() {
            self.error(
                Diagnostic::error("K0014", format!("`{field}` is empty"))
                    .at(self.span_of(&raw.referenced), "no name listed")
                    .help(format!("list at least one name in `{field}`, or leave the field out for the defaults: {}", defaults.join(", "))),
            );
        }
        out
    }

    /// `upstream:` its revision a git commit id, its date a `YYYY-MM-DD` date (K0015).
    fn upstream(&mut self, upstream: Option<&RawUpstream>) {
        if let Some(r) = upstream.and_then(|u| u.revision.as_ref())
            && !is_revision(&r.value)
        {
            self.error(not_a_revision(&r.value, self.span_of(&r.referenced)));
        }
        if let Some(d) = upstream.and_then(|u| u.date.as_ref())
            && !is_date(&d.value)
        {
            self.error(not_a_date(&d.value, self.span_of(&d.referenced)));
        }
    }

    /// The entries of `history:`, each checked: a lowercase name listed once; a relative path below
    /// the folder of `contract.yaml`, listed once, to a folder holding a `contract.yaml` (looked for
    /// in the working tree only: a spec held in memory, such as the one `fmt` checks, has only its
    /// own files); a git commit id; a `YYYY-MM-DD` date (K0015).
    fn history(
        &mut self,
        raw: &[RawEarlierVersion],
        tree: &Tree,
        dir: &Path,
    ) -> Vec<EarlierVersion> {
        let (mut names, mut paths) = (BTreeSet::new(), BTreeSet::new());
        for v in raw {
            let (name, path) = (&v.name.value, &v.path.value);
            let name_span = self.span_of(&v.name.referenced);
            let path_span = self.span_of(&v.path.referenced);
            if !is_chapter_name(name) {
                self.error(k0015(format!("`{}` is not a valid name of an earlier version", crate::diagnostic::shown(name)))
                    .at(name_span, "not a lowercase word")
                    .help("name an earlier version with lowercase a-z, 0-9 and `-` (e.g. `knative-serving-2019-04-28`); give the site's wording as `label`"));
            } else if !names.insert(name.as_str()) {
                self.error(
                    k0015(format!("the earlier version `{name}` is listed twice"))
                        .at(name_span, "listed again here")
                        .help("each earlier version appears once in `history`"),
                );
            }
            if let Some(why) = path_problem(path) {
                self.error(k0015(format!("`{}` is not a folder below the spec folder", crate::diagnostic::shown(path)))
                    .at(path_span, why)
                    .help("`path` is relative to the folder of contract.yaml and stays below it, `/`-separated, e.g. `history/knative-serving-2019-04-28`"));
            } else if !paths.insert(path.as_str()) {
                self.error(
                    k0015(format!("the folder `{path}` is listed twice"))
                        .at(path_span, "listed again here")
                        .help("each earlier version has a folder of its own"),
                );
            } else if let Some(e) = matches!(tree, Tree::Disk)
                .then(|| crate::fsutil::inside(dir, &dir.join(path)).err())
                .flatten()
                .filter(|e| crate::fsutil::refusal(e).is_some())
            {
                // A folder linked out of the spec folder: its text would be published on the
                // Changes page and in the search index (a decoy, `/proc`, a secret).
                self.error(
                    crate::io_error(&dir.join(path), &e)
                        .at(path_span, "this folder leads out of the spec folder"),
                );
            } else if matches!(tree, Tree::Disk)
                && !tree.exists(&dir.join(path).join("contract.yaml"))
            {
                self.error(k0015(format!("the earlier version `{}` has no contract.yaml", crate::diagnostic::shown(name)))
                    .at(path_span, format!("`{}` holds no contract.yaml", dir.join(path).display()))
                    .help("keep the earlier version there as a complete spec folder (contract.yaml and the chapters), or correct `path`"));
            }
            if !is_revision(&v.revision.value) {
                self.error(not_a_revision(
                    &v.revision.value,
                    self.span_of(&v.revision.referenced),
                ));
            }
            if !is_date(&v.date.value) {
                self.error(not_a_date(&v.date.value, self.span_of(&v.date.referenced)));
            }
        }
        raw.iter()
            .map(|v| EarlierVersion {
                name: v.name.value.clone(),
                labels: v.label.clone(),
                path: v.path.value.clone(),
                url: v.url.value.clone(),
                revision: v.revision.value.clone(),
                date: v.date.value.clone(),
                pull_request: v.pull_request,
                title: v.title.clone(),
                formatting_only: v.formatting_only.clone(),
                span: self.span_of(&v.path.referenced),
            })
            .collect()
    }

    /// Every URL the site may publish (`links:` bases, `upstream.url`, `history:` urls) a web
    /// address (K0017): a `javascript:` link base would be a live script in every page that links
    /// a clause.
    fn urls(&mut self, raw: &RawContract) {
        let links = raw.links.iter().flat_map(|l| {
            [
                ("links.oci.base", l.oci.as_ref()),
                ("links.upstream-tests.base", l.upstream_tests.as_ref()),
                ("links.tests.base", l.tests.as_ref()),
            ]
            .into_iter()
            .filter_map(|(f, l)| Some((f, &l?.base)))
        });
        let urls = links
            .chain(raw.upstream.iter().map(|u| ("upstream.url", &u.url)))
            .chain(raw.history.iter().map(|h| ("history: url", &h.url)));
        for (field, url) in urls {
            if let Some(why) = url_problem(&url.value) {
                self.error(
                    Diagnostic::error(
                        "K0017",
                        format!(
                            "`{field}` is not a web address: `{}`",
                            crate::diagnostic::shown(&url.value)
                        ),
                    )
                    .at(self.span_of(&url.referenced), why)
                    .help(format!(
                        "write an address with {}, or a relative path (the site links it as written)",
                        super::links::LINK_SCHEMES
                            .iter()
                            .map(|s| format!("`{s}:`"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    )),
                );
            }
        }
    }
}

/// The verify kinds with `untestable` among them: it is always a kind, as a clause no observation
/// can decide must be sayable.
fn with_untestable(
    mut verify: Vec<(String, BTreeMap<String, String>)>,
) -> Vec<(String, BTreeMap<String, String>)> {
    if !verify.iter().any(|v| v.0 == Verify::UNTESTABLE.as_str()) {
        verify.push((Verify::UNTESTABLE.as_str().to_string(), BTreeMap::new()));
    }
    verify
}

/// The contract made of the file's sections, once every one checked.
fn contract(raw: RawContract, checked: Checked) -> Contract {
    let Checked {
        tests,
        actors,
        verify,
        history,
    } = checked;
    let links = raw.links.map_or_else(Links::default, |l| Links {
        oci: l.oci.map(link),
        upstream_tests: l.upstream_tests.map(link),
        tests: l.tests.map(link),
    });
    let search_hint = match raw.search_hint {
        None => BTreeMap::new(),
        Some(RawSearchHint::All(hint)) => raw
            .languages
            .iter()
            .map(|l| (l.value.clone(), hint.clone()))
            .collect(),
        Some(RawSearchHint::PerLanguage(hints)) => {
            hints.into_iter().map(|(l, h)| (l, h.value)).collect()
        }
    };
    Contract {
        search_hint,
        title: raw.title,
        version: raw.version.value,
        languages: {
            // A language listed twice (K0010) is read once, where it is first listed.
            let mut seen = std::collections::BTreeSet::new();
            raw.languages
                .into_iter()
                .map(|l| l.value)
                .filter(|l| seen.insert(l.clone()))
                .collect()
        },
        chapters: raw.chapters.into_iter().map(|c| c.value).collect(),
        upstream: raw.upstream.map(|u| Upstream {
            title: u.title,
            url: u.url.value,
            revision: u.revision.map(|r| r.value),
            date: u.date.map(|d| d.value),
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
        history,
    }
}

/// A problem of `history:` or `upstream.revision`.
fn k0015(message: String) -> Diagnostic {
    Diagnostic::error("K0015", message)
}

fn not_a_revision(value: &str, span: Span) -> Diagnostic {
    k0015(format!("`{}` is not a revision", crate::diagnostic::shown(value)))
        .at(span, "expected a git commit id")
        .help("write the commit's id, 7 to 40 lowercase hex digits (the full 40 keep it unambiguous), e.g. `c6ebb0c3be6a9b95b8826ff629970858428f1c5d`")
}

/// K0015 for a date (`history:`'s, `upstream:`'s) that is not `YYYY-MM-DD`.
fn not_a_date(value: &str, span: Span) -> Diagnostic {
    k0015(format!(
        "`{}` is not a date",
        crate::diagnostic::shown(value)
    ))
    .at(span, "expected YYYY-MM-DD")
    .help("the date of the upstream revision, e.g. `2019-04-28`")
}

/// A git commit id, abbreviated or not: 7 to 40 lowercase hex digits.
fn is_revision(s: &str) -> bool {
    (7..=40).contains(&s.len())
        && s.bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// `YYYY-MM-DD`, with a month 01–12 and a day 01–31.
fn is_date(s: &str) -> bool {
    let b = s.as_bytes();
    let num = |r: std::ops::Range<usize>| -> Option<u32> {
        b[r].iter().try_fold(0, |n, c| {
            c.is_ascii_digit().then(|| n * 10 + u32::from(c - b'0'))
        })
    };
    b.len() == 10
        && b[4] == b'-'
        && b[7] == b'-'
        && num(0..4).is_some()
        && num(5..7).is_some_and(|m| (1..=12).contains(&m))
        && num(8..10).is_some_and(|d| (1..=31).contains(&d))
}

/// Why `path` is not a relative path below the spec folder, if it is not.
fn path_problem(path: &str) -> Option<&'static str> {
    if path.is_empty() {
        Some("empty")
    } else if path.starts_with('/') || path.contains('\\') || path.contains(':') {
        Some("not a relative, `/`-separated path")
    } else if path.split('/').any(|seg| matches!(seg, "" | "." | "..")) {
        Some("an empty, `.` or `..` segment")
    } else {
        None
    }
}

/// Why `url` may not be published as a link, if it may not: [`crate::url::judge`]'s refusal.
fn url_problem(url: &str) -> Option<String> {
    crate::url::judge(url).err().map(|why| why.to_string())
}

/// Chapter names that would replace a page of the site's own (`<lang>/<name>.html`): the
/// landing page, the clause index, the matrix, the print page, the runtimes page, the changes
/// page and the platforms page. A test (`tests/suite/boundaries.rs`) holds this list and the pages
/// the site writes together.
pub(crate) const RESERVED_PAGES: [&str; 7] = [
    "index",
    "clauses",
    "matrix",
    "print",
    "runtimes",
    "changes",
    "platforms",
];

/// Language names that would mix a language's pages with a folder of the site's own.
pub(crate) const RESERVED_FOLDERS: [&str; 2] = ["assets", super::images::IMAGES_FOLDER];

fn link(l: RawLink) -> LinkBase {
    LinkBase {
        base: l.base.value,
        labels: l.label,
        suffix: l.suffix,
    }
}

/// Whether `s` may name a chapter or a language (a file or folder name of the spec): lowercase
/// ASCII letters, digits and hyphens, not starting with a hyphen.
pub fn is_chapter_name(s: &str) -> bool {
    !s.is_empty()
        && !s.starts_with('-')
        && s.chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
}
