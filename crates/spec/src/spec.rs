//! The in-memory contract: what `spec_source` produces and every consumer (check, list, site, matrix,
//! scaffold) reads. Plain data, no I/O: consumers take `&Spec`.

use std::collections::BTreeMap;
use std::fmt;
use std::path::PathBuf;

use serde::Serialize;

use crate::diagnostic::Span;
pub use crate::keywords::Level;

/// The names of the contract's vocabulary (actors, verify kinds), interned: a name is stored once
/// per process, so [`Actor`] and [`Verify`] stay `Copy` and compare as strings, while the list of
/// names is the contract's (`actors:` and `verify:` in `contract.yaml`), not the tool's.
fn intern(name: &str) -> &'static str {
    use std::collections::BTreeSet;
    use std::sync::Mutex;
    static NAMES: Mutex<BTreeSet<&'static str>> = Mutex::new(BTreeSet::new());
    let mut names = NAMES.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(n) = names.get(name) {
        return n;
    }
    let n: &'static str = Box::leak(name.to_owned().into_boxed_str());
    names.insert(n);
    n
}

/// Who a clause binds: one of the contract's `actors` (the Knative contract's are `platform`,
/// `developer` and `container`, the defaults).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(transparent)]
pub struct Actor(&'static str);

impl Actor {
    /// The actor named `name` (any name; whether the contract knows it is [`Contract::actor`]'s
    /// question).
    pub fn new(name: &str) -> Self {
        Actor(intern(name))
    }
    /// The name written in `actor:` (`platform`).
    pub fn as_str(self) -> &'static str {
        self.0
    }
}

impl fmt::Display for Actor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How conformance to a clause is shown: one of the contract's `verify` kinds (the Knative
/// contract's are `model`, `conformance`, `manual` and `untestable`, the defaults).
/// [`Verify::UNTESTABLE`] is always a kind and keeps its meaning: the clause needs a `reason` and
/// is not counted as needing a test.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(transparent)]
pub struct Verify(&'static str);

impl Verify {
    /// `untestable`: cannot be checked; the clause gives a `reason`.
    pub const UNTESTABLE: Verify = Verify("untestable");
    /// The kind named `name` (any name; whether the contract knows it is [`Contract::verify_kind`]'s
    /// question).
    pub fn new(name: &str) -> Self {
        if name == Self::UNTESTABLE.0 {
            return Self::UNTESTABLE;
        }
        Verify(intern(name))
    }
    /// The name written in `verify:` (`model`).
    pub fn as_str(self) -> &'static str {
        self.0
    }
    /// Is this `untestable` (no test expected)?
    pub fn is_untestable(self) -> bool {
        self == Self::UNTESTABLE
    }
}

impl fmt::Display for Verify {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A word of the vocabulary and its label on the site in each language (a language without a
/// label shows the name).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Labelled<T> {
    /// The word, as written in clauses.
    pub value: T,
    /// Language → label.
    pub labels: BTreeMap<String, String>,
}

impl<T> Labelled<T> {
    /// Unlabelled.
    pub fn plain(value: T) -> Self {
        Self {
            value,
            labels: BTreeMap::new(),
        }
    }
    /// The label in `lang`, if the contract gives one.
    pub fn label(&self, lang: &str) -> Option<&str> {
        self.labels.get(lang).map(String::as_str)
    }
}

/// Where a reference in a clause points on the web: the base URL a value is appended to, and the
/// label shown before the links (per language; without one the site's interface text is used).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LinkBase {
    /// Prefix of every link (`https://github.com/opencontainers/runtime-spec/blob/v1.0.1/`).
    pub base: String,
    /// Language → label.
    pub labels: BTreeMap<String, String>,
    /// What every value must end with (`_test.go` for Knative's Go tests), if anything.
    pub suffix: Option<String>,
}

impl LinkBase {
    /// The link of `value` (`base` + `value`).
    pub fn url(&self, value: &str) -> String {
        format!("{}{value}", self.base)
    }
}

/// `links:` in `contract.yaml`: the link bases of `oci:`, `upstream-tests:` and the annotated tests.
/// Without one, the values are shown without links.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Links {
    /// Base of `oci:` references (`<file>.md#<anchor>`).
    pub oci: Option<LinkBase>,
    /// Base of `upstream-tests:` paths.
    pub upstream_tests: Option<LinkBase>,
    /// Where this contract's own annotated tests can be read on the web (the repository's file
    /// view, e.g. `https://github.com/OWNER/REPO/blob/main/`): the matrix page links each test as
    /// `BASE<file>#L<line>`. Without it, file and line are shown as text (an offline site has no
    /// other place to send a reader).
    pub tests: Option<LinkBase>,
}

/// `spec/contract.yaml`.
#[derive(Clone, Debug)]
pub struct Contract {
    /// The contract's title, shown on the site.
    pub title: String,
    /// Version of this executable edition (not of the upstream text).
    pub version: String,
    /// The first is the source language.
    pub languages: Vec<String>,
    /// Chapter order: each name is a file `<lang>/<name>.md`.
    pub chapters: Vec<String>,
    /// The text the contract was converted from, and its attribution (optional: a new contract
    /// has none).
    pub upstream: Option<Upstream>,
    /// `actors:`, in display order (default: the Knative contract's).
    pub actors: Vec<Labelled<Actor>>,
    /// `verify:`, in display order, `untestable` always among them (default: the Knative
    /// contract's).
    pub verify: Vec<Labelled<Verify>>,
    /// `links:`, the link bases of `oci:` and `upstream-tests:`.
    pub links: Links,
    /// Which files hold the tests that claim clauses (`tests:`, optional).
    pub tests: TestGlobs,
    /// The title and attribution in each translation (`translated:`, optional), by language.
    pub translated: BTreeMap<String, TranslatedMeta>,
    /// Earlier versions of this contract, each kept whole in a folder of its own (`history:`,
    /// optional), in the order listed.
    pub history: Vec<EarlierVersion>,
    /// `search_hint:` (optional), per language: a few words of this contract a reader might search
    /// for, shown as the example in the search box (`SIGTERM, PORT`). A contract without one shows
    /// no example: the built-in interface text names no contract's words.
    pub search_hint: BTreeMap<String, String>,
}

/// An entry of `history:` in `contract.yaml`: an earlier version of the contract, kept as a
/// complete spec folder (its own `contract.yaml` and chapters) rather than named by a git
/// revision, so that every checkout has it: a shallow clone or a source archive has no history.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EarlierVersion {
    /// Its name (a lowercase word, unique among the entries).
    pub name: String,
    /// Language → how the site names it (the name where absent).
    pub labels: BTreeMap<String, String>,
    /// Its folder, relative to the folder of `contract.yaml` (`history/<name>`), `/`-separated.
    pub path: String,
    /// The upstream text that version followed: where it is,
    pub url: String,
    /// the upstream's revision (a git commit id),
    pub revision: String,
    /// and that revision's date (`YYYY-MM-DD`).
    pub date: String,
    /// The upstream pull request that made this version, and its title: what the step to it on
    /// the Changes page is.
    pub pull_request: Option<u64>,
    /// The pull request's title.
    pub title: Option<String>,
    /// The pull requests of upstream versions just before this one that changed only the form of
    /// the text (their import is this one's words): folded into the step to this version.
    pub formatting_only: Vec<u64>,
    /// Where `path` is written in `contract.yaml`: a problem with the folder's contents points here.
    pub span: crate::diagnostic::Span,
}

impl EarlierVersion {
    /// Its folder, given the folder of `contract.yaml`.
    pub fn dir(&self, spec_dir: &std::path::Path) -> std::path::PathBuf {
        spec_dir.join(&self.path)
    }
    /// How the site names it in `lang`: its label there, else its name.
    pub fn label(&self, lang: &str) -> &str {
        self.labels.get(lang).map_or(&self.name, String::as_str)
    }
    /// The repository of `url` when it is a GitHub one (`knative/serving`), where the pull
    /// requests are.
    pub fn repository(&self) -> Option<&str> {
        let rest = self.url.strip_prefix("https://github.com/")?;
        let owner = rest.split('/').next()?;
        let name = rest[owner.len()..]
            .trim_start_matches('/')
            .split('/')
            .next()?;
        (!owner.is_empty() && !name.is_empty()).then(|| &rest[..owner.len() + 1 + name.len()])
    }
}

impl Contract {
    /// The title in `lang` (the source title when the language gives none).
    pub fn title_in(&self, lang: &str) -> &str {
        self.translated.get(lang).map_or(&self.title, |t| &t.title)
    }
    /// The attribution in `lang`, and whether it is translated (else the source language's); none
    /// for a contract without `upstream:` that gives no translated one either.
    pub fn attribution_in(&self, lang: &str) -> Option<(&str, bool)> {
        match self
            .translated
            .get(lang)
            .and_then(|t| t.attribution.as_deref())
        {
            Some(a) => Some((a, true)),
            None => self
                .upstream
                .as_ref()
                .map(|u| (u.attribution.as_str(), false)),
        }
    }
}

/// `translated.<lang>` in `contract.yaml`: what of the contract's own description a translation
/// gives in its language.
#[derive(Clone, Debug, Default)]
pub struct TranslatedMeta {
    /// The contract's title in that language.
    pub title: String,
    /// The attribution notice in that language (the source's when absent).
    pub attribution: Option<String>,
}

impl Default for Contract {
    fn default() -> Self {
        Self {
            title: String::new(),
            version: String::new(),
            languages: Vec::new(),
            chapters: Vec::new(),
            upstream: None,
            actors: DEFAULT_ACTORS
                .map(|a| Labelled::plain(Actor::new(a)))
                .to_vec(),
            verify: DEFAULT_VERIFY
                .map(|v| Labelled::plain(Verify::new(v)))
                .to_vec(),
            links: Links::default(),
            tests: TestGlobs::default(),
            translated: BTreeMap::new(),
            history: Vec::new(),
            search_hint: BTreeMap::new(),
        }
    }
}

/// The actors of a contract that does not list its own: the Knative contract's.
pub(crate) const DEFAULT_ACTORS: [&str; 3] = ["platform", "developer", "container"];
/// The verify kinds of a contract that does not list its own: the Knative contract's.
pub(crate) const DEFAULT_VERIFY: [&str; 4] = ["model", "conformance", "manual", "untestable"];

impl Contract {
    /// The actor named `name`, if the contract has it.
    pub fn actor(&self, name: &str) -> Option<Actor> {
        self.actors
            .iter()
            .map(|a| a.value)
            .find(|a| a.as_str() == name)
    }
    /// The verify kind named `name`, if the contract has it.
    pub fn verify_kind(&self, name: &str) -> Option<Verify> {
        self.verify
            .iter()
            .map(|v| v.value)
            .find(|v| v.as_str() == name)
    }
    /// Every actor, in display order.
    pub fn actor_list(&self) -> impl Iterator<Item = Actor> + '_ {
        self.actors.iter().map(|a| a.value)
    }
    /// Every verify kind, in display order.
    pub fn verify_list(&self) -> impl Iterator<Item = Verify> + '_ {
        self.verify.iter().map(|v| v.value)
    }
}

/// `tests:` in `contract.yaml`: the test files scanned for `Clause:` annotations, as globs relative
/// to the folder of `contract.yaml` (`/`-separated; `**` crosses folders; `../` goes up), and the
/// languages of file extensions kcontract does not know by itself. Excludes win. The default: the
/// Cargo layout of the folder above it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TestGlobs {
    /// Globs of files to scan.
    pub include: Vec<String>,
    /// Globs of files to leave out, even when included.
    pub exclude: Vec<String>,
    /// `languages:` — file extension (without its dot) → the language its files are read as,
    /// before [`TestLanguage::of_extension`]'s table: a team whose Go tests end in `.gotest`
    /// says so once instead of renaming its files.
    pub languages: BTreeMap<String, TestLanguage>,
}

impl TestGlobs {
    /// The language the test file at `path` is read as: its extension in `languages:`, else
    /// the extensions kcontract knows, else Rust (what every file was read as before other
    /// languages were).
    pub fn language_of(&self, path: &str) -> TestLanguage {
        let name = path.rsplit('/').next().unwrap_or(path);
        let ext = name.rsplit_once('.').map_or("", |(_, e)| e);
        self.languages
            .get(ext)
            .copied()
            .or_else(|| TestLanguage::of_extension(ext))
            .unwrap_or(TestLanguage::Rust)
    }
}

/// The language a test file is written in: what decides its comment syntax, its test items and
/// how its runner names a test. Defined here, beside `tests:` which names the words, and used by
/// the test scan (`kcontract_trace`).
#[derive(
    Clone,
    Copy,
    Debug,
    Default,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    serde::Deserialize,
    strum::IntoStaticStr,
    strum::EnumString,
    strum::EnumIter,
    strum::VariantNames,
)]
#[strum(serialize_all = "lowercase", ascii_case_insensitive)]
#[serde(rename_all = "lowercase")]
pub enum TestLanguage {
    /// Rust: `/// Clause:` doc lines on `#[test]` functions.
    #[default]
    Rust,
    /// Go: `// Clause:` above `func TestX(t *testing.T)` or a `t.Run("name", …)` subtest.
    Go,
    /// Python: `# Clause:` above a pytest `def test_…`.
    Python,
    /// JavaScript and TypeScript: `// Clause:` above a `test(…)` or `it(…)` call.
    #[strum(serialize = "javascript")]
    JavaScript,
    /// C and C++: `// Clause:` above a GoogleTest `TEST(…)`/`TEST_F(…)` or a Criterion `Test(…)`.
    C,
    /// Java: `// Clause:` above a JUnit `@Test` method (or between its annotations).
    Java,
}

impl TestLanguage {
    /// The word for the language (`go`, `python`, `javascript`), as `tests: languages:` takes it.
    pub fn as_str(self) -> &'static str {
        self.into()
    }

    /// The language of the file extensions kcontract knows (without the dot), `None` for others.
    pub fn of_extension(ext: &str) -> Option<TestLanguage> {
        Some(match ext {
            "rs" => TestLanguage::Rust,
            "go" => TestLanguage::Go,
            "py" => TestLanguage::Python,
            "js" | "mjs" | "cjs" | "jsx" | "ts" | "mts" | "cts" | "tsx" => TestLanguage::JavaScript,
            "c" | "h" | "cc" | "cpp" | "cxx" | "c++" | "hh" | "hpp" | "hxx" => TestLanguage::C,
            "java" => TestLanguage::Java,
            _ => return None,
        })
    }
}

impl Default for TestGlobs {
    fn default() -> Self {
        Self {
            include: vec!["../tests/**/*.rs".into(), "../src/**/*.rs".into()],
            exclude: Vec::new(),
            languages: BTreeMap::new(),
        }
    }
}

/// `upstream:` in `contract.yaml`: the text the contract was converted from.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Upstream {
    /// The upstream document's title.
    pub title: String,
    /// Where the upstream document is.
    pub url: String,
    /// The upstream's revision the contract follows (a git commit id), when `contract.yaml` names it.
    pub revision: Option<String>,
    /// The day of that revision (`YYYY-MM-DD`), when `contract.yaml` gives it: the site's landing
    /// and print pages say which upstream text, of when, the clauses follow.
    pub date: Option<String>,
    /// The upstream's licence (`Apache-2.0`), shown in the site's footer.
    pub license: String,
    /// The attribution notice, shown on the site's index and footer.
    pub attribution: String,
}

/// One normative statement.
#[derive(Clone, Debug)]
pub struct Clause {
    /// The stable id (`lifecycle.sigterm-on-kill`), validated by [`check_id`].
    pub id: String,
    /// The normalised level.
    pub level: Level,
    /// The keyword as the editor wrote it in `level:` (`SHALL`, `OPTIONAL`, …), kept for display.
    pub keyword: String,
    /// Who the clause binds.
    pub actor: Actor,
    /// Markdown (inline, possibly a list).
    pub text: String,
    /// [`clause_stamp`] of its text, reason and implicit, computed once when the clause is read:
    /// translations are compared with it several times per build.
    pub stamp: String,
    /// How conformance is shown.
    pub verify: Verify,
    /// Why it cannot be tested (required with `verify: untestable`).
    pub reason: Option<String>,
    /// Why a statement written without an RFC 2119 keyword is binding at `level`.
    pub implicit: Option<String>,
    /// Where the OCI runtime spec says the related thing: `<file>.md#<anchor>`.
    pub oci: Option<String>,
    /// `upstream-tests`: the upstream's tests of this clause, as paths (linked with
    /// `links.upstream-tests` of `contract.yaml`; for Knative, Go tests in knative/serving).
    pub upstream_tests: Vec<String>,
    /// `review`: what a person still has to decide about this clause (written by `import`);
    /// `check` warns while it is there, `check --strict` fails.
    pub review: Option<(String, Span)>,
    /// Chapter name (file stem) and the heading the clause sits under.
    pub chapter: String,
    /// The heading the clause sits under (`None` before the first heading).
    pub section: Option<SectionRef>,
    /// The chapter file, as the user should see it.
    pub file: PathBuf,
    /// 1-based line where the block starts.
    pub line: usize,
    /// Where the block is (the whole fenced block), and where its `id` value is.
    pub span: Span,
    /// The `id` value.
    pub id_span: Span,
}

/// A heading a clause sits under, for links to it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SectionRef {
    /// The heading's text.
    pub title: String,
    /// Its GitHub-style anchor (see `slugify`), unique in the document.
    pub anchor: String,
}

/// Section numbers of a chapter's headings (the site's and the scaffold's), the `chapter`th of the contract: `3` for its title,
/// `3.1`, `3.2` for the sections under it, `3.2.1` below those. Headings align across languages,
/// so the numbers are the same in every language.
pub fn section_numbers(chapter: usize, headings: &[Heading]) -> Vec<String> {
    let mut counters: Vec<usize> = Vec::new();
    headings
        .iter()
        .map(|h| {
            let depth = usize::from(h.level.max(1)) - 1;
            if depth == 0 {
                counters.clear();
                return chapter.to_string();
            }
            counters.resize(depth, 0);
            counters[depth - 1] += 1;
            let mut n = chapter.to_string();
            for c in &counters {
                n.push('.');
                n.push_str(&c.to_string());
            }
            n
        })
        .collect()
}

/// A heading of a chapter.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Heading {
    /// Markdown heading level, 1 to 6.
    pub level: u8,
    /// The heading's text.
    pub title: String,
    /// Its id on the page: in the source language the GitHub-style anchor of its text, made unique
    /// in the document with `-1`, `-2`, … suffixes; in a translation the id of the source heading at
    /// the same position, so a link or the language switch lands on the same section in every
    /// language.
    pub anchor: String,
    /// 1-based line of the heading.
    pub line: usize,
    /// Where the heading is (the whole heading block).
    pub span: Span,
}

/// A piece of a chapter, in source order.
#[derive(Clone, Debug)]
pub enum Block {
    /// Informative Markdown, verbatim (headings included).
    Prose(Prose),
    /// Index into [`Spec::clauses`].
    Clause(usize),
    /// Prose of the source chapter that a translation lacks (headings included), shown in the
    /// source language under a banner (`spec_source/untranslated.rs`).
    Untranslated(Prose),
}

/// Informative Markdown of a chapter, verbatim, and where it holds clause blocks (those of its
/// list items). The loader finds them once, as it builds their clauses; what reads the prose
/// afterwards (the page, the search index, `diff`, `fmt`'s meaning) takes their places from
/// here rather than looking for them again, so that every reader agrees on what is prose.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Prose {
    /// The Markdown, clause blocks included.
    pub text: String,
    /// The clause blocks in `text`, in order.
    pub clauses: Vec<NestedClause>,
}

/// A clause block inside prose.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NestedClause {
    /// Its byte range in the prose's text: whole lines (a line the block touches is the block's,
    /// as the list marker line `- ```clause` is), fences included.
    pub range: std::ops::Range<usize>,
    /// The id of the clause the loader built from it (a translated clause's: the id it
    /// translates); `None` when it built none (the block has errors, or sits where no clause may),
    /// so that it is shown as written, yet never read as prose.
    pub id: Option<String>,
}

impl Prose {
    /// The text without its clause blocks: what compares prose (`diff`, `fmt`'s meaning) compares
    /// those clauses as clauses, and their YAML is not prose.
    pub fn without_clauses(&self) -> std::borrow::Cow<'_, str> {
        if self.clauses.is_empty() {
            return self.text.as_str().into();
        }
        let mut out = String::with_capacity(self.text.len());
        let mut at = 0;
        for c in &self.clauses {
            out.push_str(&self.text[at..c.range.start.max(at)]);
            at = at.max(c.range.end);
        }
        out.push_str(&self.text[at..]);
        out.into()
    }

    /// The part of the prose at `range` (a cut between top-level blocks, which no clause block
    /// straddles), with the clause blocks in it.
    pub(crate) fn slice(&self, range: std::ops::Range<usize>) -> Prose {
        let clauses = self
            .clauses
            .iter()
            .filter(|c| range.start <= c.range.start && c.range.end <= range.end)
            .map(|c| NestedClause {
                range: c.range.start - range.start..c.range.end - range.start,
                id: c.id.clone(),
            })
            .collect();
        Prose {
            text: self.text[range].to_string(),
            clauses,
        }
    }

    /// Each clause block's text and id, for a test to compare with what it wrote.
    #[cfg(test)]
    pub(crate) fn blocks(&self) -> Vec<(&str, Option<&str>)> {
        self.clauses
            .iter()
            .map(|c| (&self.text[c.range.clone()], c.id.as_deref()))
            .collect()
    }

    /// `more` appended after a blank line, its clause blocks with it.
    pub(crate) fn append(&mut self, more: Prose) {
        self.text.push_str("\n\n");
        let shift = self.text.len();
        self.text.push_str(&more.text);
        self.clauses
            .extend(more.clauses.into_iter().map(|c| NestedClause {
                range: c.range.start + shift..c.range.end + shift,
                id: c.id,
            }));
    }
}

/// One chapter file in one language.
#[derive(Clone, Debug)]
pub struct Document {
    /// Chapter name (file stem), as listed in `contract.yaml`.
    pub chapter: String,
    /// Language code (`en`, `zh`).
    pub lang: String,
    /// The file, as the user should see it.
    pub file: PathBuf,
    /// Text of the first level-1 heading, or the chapter name.
    pub title: String,
    /// Every heading, in source order.
    pub headings: Vec<Heading>,
    /// Prose and clauses, in source order.
    pub blocks: Vec<Block>,
    /// Every link in the chapter's Markdown (prose and clause texts), for `check` to resolve.
    pub links: Vec<Link>,
    /// The chapter's link reference definitions (`[rfc]: https://… "title"`).
    pub link_defs: LinkDefs,
}

/// A chapter's link reference definitions, by label in the form CommonMark matches labels in
/// ([`link_label`]). A reference (`[text][ref]`, `[ref][]`, `[ref]`) anywhere in the chapter
/// resolves against them: in its prose, and in its clauses' `text`, `reason` and `implicit`,
/// which are Markdown parsed apart from the prose (so pulldown-cmark alone would not see the
/// definitions), on every page that shows them.
pub type LinkDefs = BTreeMap<String, LinkDef>;

/// Where a link reference definition points.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LinkDef {
    /// The destination, as written (`https://…`, `other.md#anchor`).
    pub dest: String,
    /// The title, empty when none is given.
    pub title: String,
}

/// A reference label as CommonMark matches it: case-insensitive, runs of whitespace as one space.
pub fn link_label(label: &str) -> String {
    label
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// A link written in a chapter, as the editor wrote it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Link {
    /// The destination (`configuration.md#default-filesystems`, `#root`, `https://…`).
    pub dest: String,
    /// Where the destination is written (the clause block when it cannot be found in the file).
    pub span: Span,
}

/// A clause in a translation: only its text. Level, actor, verification and tests are the source
/// clause's (same id), so a translation can never change what the contract requires.
#[derive(Clone, Debug)]
pub struct TranslatedClause {
    /// The id of the source clause it translates.
    pub id: String,
    /// The translated text (inline Markdown).
    pub text: String,
    /// The translated `reason` (why untestable), if the translation gives one.
    pub reason: Option<String>,
    /// The translated `implicit` (why a keyword-less statement binds), if the translation gives one.
    pub implicit: Option<String>,
    /// The [`stamp`] of the source text the translator worked from.
    pub source: String,
    /// The translation's file, as the user should see it.
    pub file: PathBuf,
    /// 1-based line where the block starts.
    pub line: usize,
    /// Where its `id` value is.
    pub span: Span,
    /// Where its `source` stamp is (the whole block when there is none).
    pub source_span: Span,
}

/// Is a translated clause up to date with its source?
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, strum::IntoStaticStr)]
#[serde(rename_all = "lowercase")]
#[strum(serialize_all = "lowercase")]
pub enum TranslationState {
    /// Made from the current source text (the stamps agree).
    Current,
    /// Made from an older source text (the stamps differ).
    Stale,
    /// The clause has no translation.
    Missing,
}

impl TranslationState {
    /// The serialised name.
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

/// One target language: its documents (blocks point at source clauses by index) and clause texts.
#[derive(Clone, Debug, Default)]
pub struct Translation {
    /// Language code (`zh`).
    pub lang: String,
    /// The translated chapters, in chapter order.
    pub documents: Vec<Document>,
    /// The translated clauses, each at the index of its source clause in [`Spec::clauses`]
    /// (`None`: not translated). A translation of a clause that does not exist is reported by
    /// the loader and not kept. Indexed rather than keyed by id: a build looks up every clause's
    /// translation several times, and at 10,000 clauses the map lookups showed in profiles.
    pub clauses: Vec<Option<Box<TranslatedClause>>>,
    /// The chapters whose file does not exist in this language, with the path it would have:
    /// their documents are the source's, untranslated.
    pub missing_chapters: Vec<(String, PathBuf)>,
}

impl Translation {
    /// The translation of the source clause at `index`.
    pub fn get(&self, index: usize) -> Option<&TranslatedClause> {
        self.clauses.get(index).and_then(|t| t.as_deref())
    }

    /// The state of the translation of `source`, the clause at `index` of [`Spec::clauses`].
    pub fn state(&self, index: usize, source: &Clause) -> TranslationState {
        self.lookup(index, source).0
    }

    /// The state of the translation of `source` (the clause at `index` of [`Spec::clauses`]) and
    /// the translation itself.
    pub fn lookup(
        &self,
        index: usize,
        source: &Clause,
    ) -> (TranslationState, Option<&TranslatedClause>) {
        let t = self.get(index);
        debug_assert!(
            t.is_none_or(|t| t.id == source.id),
            "translation index out of step"
        );
        let state = match t {
            None => TranslationState::Missing,
            Some(t) if t.source == source.stamp => TranslationState::Current,
            Some(_) => TranslationState::Stale,
        };
        (state, t)
    }
}

/// The stamp of a source text: the first 12 hex digits of SHA-256 over the text with runs of
/// whitespace collapsed to one space, so re-wrapping a paragraph does not make translations stale
/// but any change of wording does.
pub fn stamp(text: &str) -> String {
    use sha2::{Digest, Sha256};
    thread_local! {
        static JOINED: std::cell::RefCell<String> = const { std::cell::RefCell::new(String::new()) };
    }
    // The words joined by single spaces, hashed in one piece: fed word by word, the hasher's
    // per-call overhead was most of the cost (a buffer per thread is reused for the join).
    let digest = JOINED.with_borrow_mut(|joined| {
        joined.clear();
        for word in text.split_whitespace() {
            if !joined.is_empty() {
                joined.push(' ');
            }
            joined.push_str(word);
        }
        Sha256::digest(joined.as_bytes())
    });
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(12);
    for b in &digest[..6] {
        out.push(HEX[usize::from(b >> 4)] as char);
        out.push(HEX[usize::from(b & 15)] as char);
    }
    out
}

/// The stamp of what a translation translates and a test was reviewed against: a clause's text,
/// and its `reason` and `implicit` when it has them (so a changed reason makes the translation
/// stale too). A clause whose text states no RFC 2119 keyword (it has `implicit`) has its `level`
/// in the stamp as well: there the words cannot show a change of level, which must still make its
/// tests suspect and its translations stale. Elsewhere the keyword in the text is the level (K0104),
/// so the level adds nothing and existing stamps stay valid. A clause with neither has the
/// [`stamp`] of its text alone.
pub fn clause_stamp(
    text: &str,
    reason: Option<&str>,
    implicit: Option<&str>,
    level: Level,
) -> String {
    if reason.is_none() && implicit.is_none() {
        return stamp(text);
    }
    let mut all = text.to_string();
    let level = implicit.map(|_| level.as_str());
    for (name, value) in [("reason", reason), ("implicit", implicit), ("level", level)] {
        if let Some(v) = value {
            all.push_str(" \u{1f}");
            all.push_str(name);
            all.push_str(": ");
            all.push_str(v);
        }
    }
    stamp(&all)
}

/// The whole contract, validated.
#[derive(Clone, Debug, Default)]
pub struct Spec {
    /// `contract.yaml`.
    pub contract: Contract,
    /// Source-language documents in chapter order.
    pub documents: Vec<Document>,
    /// All source-language clauses in document order.
    pub clauses: Vec<Clause>,
    /// id → index into `clauses`.
    pub by_id: BTreeMap<String, usize>,
    /// The other languages of `contract.languages`, in order.
    pub translations: Vec<Translation>,
}

impl Spec {
    /// The source clause with id `id`.
    pub fn clause(&self, id: &str) -> Option<&Clause> {
        self.by_id.get(id).map(|&i| &self.clauses[i])
    }
}

/// Why an id is malformed, for the diagnostic's hint.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum IdError {
    /// The id is empty.
    Empty,
    /// Longer than 100 characters (the length is given).
    TooLong(usize),
    /// Fewer than two dot-separated segments.
    OneSegment,
    /// A character outside lowercase `a-z`, digits, `-` and `.`.
    BadChar(char),
    /// `..`, or a leading or trailing `.`.
    EmptySegment,
    /// A segment starts or ends with `-`, or contains `--`.
    BadHyphen,
}

impl fmt::Display for IdError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            IdError::Empty => write!(f, "the id is empty"),
            IdError::TooLong(n) => write!(f, "the id has {n} characters; at most 100 are allowed"),
            IdError::OneSegment => write!(
                f,
                "an id needs at least two dot-separated segments, the first naming the area"
            ),
            IdError::BadChar(c) => write!(
                f,
                "{c:?} (U+{:04X}) is not allowed; use lowercase a-z, digits, `-` and `.`",
                *c as u32
            ),
            IdError::EmptySegment => write!(
                f,
                "an id segment is empty (`..`, or a leading or trailing `.`)"
            ),
            IdError::BadHyphen => {
                write!(f, "a segment may not start or end with `-` or contain `--`")
            }
        }
    }
}

/// The id rules: lowercase ASCII, dot-separated segments of `[a-z0-9]` joined by single hyphens, at
/// least two segments, at most 100 characters. ASCII-only on purpose: ids become URL fragments, file
/// names and Rust identifiers, and must not carry look-alike or invisible characters.
pub fn check_id(id: &str) -> Result<(), IdError> {
    if id.is_empty() {
        return Err(IdError::Empty);
    }
    if let Some(c) = id
        .chars()
        .find(|c| !(c.is_ascii_lowercase() || c.is_ascii_digit() || *c == '-' || *c == '.'))
    {
        return Err(IdError::BadChar(c));
    }
    if id.len() > 100 {
        return Err(IdError::TooLong(id.len()));
    }
    if id.split('.').any(str::is_empty) {
        return Err(IdError::EmptySegment);
    }
    if !id.contains('.') {
        return Err(IdError::OneSegment);
    }
    if id
        .split('.')
        .any(|s| s.starts_with('-') || s.ends_with('-') || s.contains("--"))
    {
        return Err(IdError::BadHyphen);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stamps_ignore_wrapping_but_not_wording() {
        let a = stamp("The container MUST\n  accept HTTP/1.1 requests.");
        assert_eq!(a.len(), 12);
        assert_eq!(a, stamp("The container MUST accept HTTP/1.1 requests.  "));
        assert_ne!(a, stamp("The container MUST accept HTTP/2 requests."));
        assert_ne!(a, stamp("The container SHOULD accept HTTP/1.1 requests."));
    }

    #[test]
    fn good_ids() {
        for id in [
            "lifecycle.sigterm-on-kill",
            "a.b",
            "network.headers.x-forwarded-for",
            "config.env.k8s-1",
        ] {
            assert_eq!(check_id(id), Ok(()), "{id}");
        }
    }

    #[test]
    fn bad_ids() {
        assert_eq!(check_id(""), Err(IdError::Empty));
        assert_eq!(check_id("lifecycle"), Err(IdError::OneSegment));
        assert_eq!(check_id("Lifecycle.x"), Err(IdError::BadChar('L')));
        assert_eq!(check_id("a.b_c"), Err(IdError::BadChar('_')));
        assert_eq!(check_id("a b.c"), Err(IdError::BadChar(' ')));
        assert_eq!(check_id("a.\u{200b}b"), Err(IdError::BadChar('\u{200b}')));
        assert_eq!(check_id("a.\u{202e}b"), Err(IdError::BadChar('\u{202e}')));
        assert_eq!(check_id("a..b"), Err(IdError::EmptySegment));
        assert_eq!(check_id(".a.b"), Err(IdError::EmptySegment));
        assert_eq!(check_id("a.b."), Err(IdError::EmptySegment));
        assert_eq!(check_id("a.-b"), Err(IdError::BadHyphen));
        assert_eq!(check_id("a.b-"), Err(IdError::BadHyphen));
        assert_eq!(check_id("a.b--c"), Err(IdError::BadHyphen));
        let long = format!("a.{}", "b".repeat(99));
        assert_eq!(check_id(&long), Err(IdError::TooLong(101)));
        assert_eq!(check_id(&format!("a.{}", "b".repeat(98))), Ok(()));
    }

    /// Prose made of `parts`: each a line of prose (`false`) or a clause block (`true`, with an id).
    fn prose_of(parts: &[(bool, String)]) -> Prose {
        let mut p = Prose::default();
        for (i, (block, line)) in parts.iter().enumerate() {
            let start = p.text.len();
            p.text.push_str(line);
            p.text.push('\n');
            if *block {
                p.clauses.push(NestedClause {
                    range: start..p.text.len(),
                    id: Some(format!("c.{i}")),
                });
            }
        }
        p
    }

    proptest::proptest! {
        /// The range arithmetic the untranslated prose relies on: `without_clauses` drops exactly
        /// the blocks' bytes; `slice` at a cut between lines keeps the blocks inside it, shifted;
        /// `append` and `slice` undo each other, so a cut-and-joined piece still knows its blocks.
        #[test]
        fn prose_keeps_its_clause_blocks_through_slice_and_append(
            a in proptest::collection::vec((proptest::bool::ANY, "[a-z 容]{0,8}"), 0..6),
            b in proptest::collection::vec((proptest::bool::ANY, "[a-z 器]{0,8}"), 0..6),
        ) {
            let (pa, pb) = (prose_of(&a), prose_of(&b));
            let kept: String = a.iter().filter(|(blk, _)| !blk).map(|(_, l)| format!("{l}\n")).collect();
            let without = pa.without_clauses();
            proptest::prop_assert_eq!(without.as_ref(), kept.as_str());
            proptest::prop_assert_eq!(pa.slice(0..pa.text.len()), pa.clone());
            let mut joined = pa.clone();
            joined.append(pb.clone());
            let cut = pa.text.len();
            proptest::prop_assert_eq!(joined.slice(0..cut), pa.clone());
            proptest::prop_assert_eq!(joined.slice(cut + 2..joined.text.len()), pb.clone());
            let texts = |p: &Prose| -> Vec<String> {
                p.clauses.iter().map(|c| p.text[c.range.clone()].to_string()).collect()
            };
            proptest::prop_assert_eq!(texts(&joined), [texts(&pa), texts(&pb)].concat());
        }
    }

    #[test]
    fn the_level_is_in_the_stamp_only_where_the_words_do_not_state_it() {
        let (text, why) = ("The platform passes.", Some("It is implied."));
        // A keyword-less clause: its level changes its stamp.
        assert_ne!(
            clause_stamp(text, None, why, Level::Must),
            clause_stamp(text, None, why, Level::Should)
        );
        // Elsewhere the keyword is in the text: the stamp is the text's, whatever the level.
        let t = "The platform MUST pass.";
        assert_eq!(clause_stamp(t, None, None, Level::Must), stamp(t));
        assert_eq!(
            clause_stamp(t, Some("r"), None, Level::Must),
            clause_stamp(t, Some("r"), None, Level::Should)
        );
    }
}
