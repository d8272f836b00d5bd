//! The scan of a project: the files the `tests:` globs select, read and tokenised in parallel, then
//! joined in path order into the annotated tests and the problems found (unknown or malformed ids
//! are errors; stray or miscased annotations, claims made twice, written stubs still ignored and
//! unreadable files are warnings).
//!
//! The result owns what it read: the files its tests and diagnostics point into are in its own
//! [`SourceMap`], so the scan depends on the loaded spec but never writes into it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use rayon::prelude::*;

use kcontract_spec::diagnostic::{Diagnostic, FileId, SourceFile, SourceMap, Span};
use kcontract_spec::globs::GlobMatcher;
use kcontract_spec::{Spec, TestGlobs};

use super::cache::{Cache, CacheChoice, CacheStatus, Entry, Stamp, Used};
use super::claims::{Validity, validate_claim};
use super::items::{FnItem, STUB_IGNORE_PREFIX};
use super::lang::{Lang, LangExt};
use super::sites::{Site, may_hold_annotation};
use super::syntax::{FileSyntax, LexFailure};
use super::targets::{Place, Places, Target};
use super::tokens::AttrKind;
use super::{Claim, TestFn, TestKind};

/// The tests of a project and what the scan found wrong.
pub struct Scan {
    /// The tests that claim at least one clause, in path order.
    pub tests: Vec<TestFn>,
    /// How many files the globs selected (each was read; only those whose bytes hold the marker
    /// were tokenised).
    pub files: usize,
    /// The files the tests' and the diagnostics' spans point into: only those with an annotation or
    /// a problem.
    pub sources: SourceMap,
    /// In path order; render with `kcontract_spec::diagnostic::render_all(&diagnostics, &sources, …)`.
    pub diagnostics: Vec<Diagnostic>,
    /// What the syntax cache did (for `build --timings`).
    pub cache: CacheStatus,
}

/// Where the tests of a spec are: the folder to walk and the `tests:` globs relative to it. The
/// globs of `contract.yaml` are relative to its folder, `spec_dir` (`../tests/**/*.rs`), so the
/// same tests are found from any working directory.
pub fn rooted(spec_dir: &Path, globs: &TestGlobs) -> (PathBuf, TestGlobs) {
    let r = kcontract_spec::globs::rebase(spec_dir, &globs.include, &globs.exclude);
    (
        r.root,
        TestGlobs {
            include: r.include,
            exclude: r.exclude,
            languages: globs.languages.clone(),
        },
    )
}

/// The Cargo layout of a crate: what `--tests-root DIR` scans in DIR.
pub fn cargo_layout() -> TestGlobs {
    TestGlobs {
        include: vec!["tests/**/*.rs".into(), "src/**/*.rs".into()],
        exclude: Vec::new(),
        languages: Default::default(),
    }
}

/// Scan the project at `root` for annotated tests, lexing every file (no cache): [`scan_with`]
/// with [`CacheChoice::Off`].
pub fn scan(spec: &Spec, root: &Path, globs: &TestGlobs) -> Scan {
    scan_with(spec, root, globs, &CacheChoice::Off)
}

/// Scan the project at `root` (globs relative to it; see [`rooted`]) for annotated tests; report unknown and malformed ids (errors), stray
/// annotations and unreadable files (warnings). Only tests that claim at least one clause are
/// returned. Files whose bytes the `cache` has seen are not lexed again, and files it recorded as
/// without the marker are not read again while unchanged (the result is the same). [`find`], then
/// [`Found::scan`].
pub fn scan_with(spec: &Spec, root: &Path, globs: &TestGlobs, cache: &CacheChoice) -> Scan {
    find(root, globs, cache).scan(spec)
}

/// The first half of a scan, which needs no spec: the files the globs select, read, and those
/// that may hold an annotation tokenised (or taken from the cache), with the place of each in its
/// crate. A command can run it while the spec loads (`pipeline::Stages::spec_and_tests`).
pub struct Found {
    /// Each selected file (relative to the root) with what reading it gave, in path order.
    files: Vec<(String, Read)>,
    cache: CacheStatus,
}

/// Walk `root` for the files `globs` select, read them and tokenise those that may hold an
/// annotation, in parallel; keep the cache's new entries.
pub fn find(root: &Path, globs: &TestGlobs, cache: &CacheChoice) -> Found {
    let files = GlobMatcher::new(&globs.include, &globs.exclude).files(root);
    let cache = Cache::open(cache);
    let places = Mutex::new(Places::new(root));
    // Reading and lexing is most of the work and each file is independent; `collect` keeps the
    // path order, so nothing after this depends on the threads.
    let read: Vec<(Read, Option<Used>)> = files
        .par_iter()
        .map(|rel| read(root, rel, globs.language_of(rel), &cache, &places))
        .collect();
    let mut used = Vec::new();
    let files = files
        .into_iter()
        .zip(read)
        .map(|(rel, (r, u))| {
            used.extend(u);
            (rel, r)
        })
        .collect();
    Found {
        files,
        cache: cache.keep(used),
    }
}

impl Found {
    /// The second half: the tests and their claims, each claimed id looked up in `spec`.
    pub(crate) fn scan(self, spec: &Spec) -> Scan {
        self.scan_for(spec, "kcontract review")
    }

    /// [`Self::scan`], where `review` is the command (with the options of the current one) that
    /// hints name for re-pointing a claim of a renamed clause.
    pub fn scan_for(self, spec: &Spec, review: &str) -> Scan {
        let mut out = Scan {
            tests: Vec::new(),
            files: self.files.len(),
            sources: SourceMap::default(),
            diagnostics: Vec::new(),
            cache: self.cache,
        };
        for (rel, r) in self.files {
            out.add(spec, &rel, r, review);
        }
        out.tests
            .retain(|t| !t.claims.is_empty() || !t.unknown.is_empty());
        out
    }
}

/// One file as a worker thread leaves it.
enum Read {
    /// Nothing to report: no marker in its bytes (not tokenised), or no `Clause:` line in its docs.
    Nothing,
    Unreadable(std::io::Error),
    /// Not UTF-8 (the text decoded lossily, for the diagnostic) up to byte `at`.
    NotUtf8 {
        file: SourceFile,
        at: usize,
    },
    NotTokens {
        file: SourceFile,
        failure: LexFailure,
        /// The language it was read as.
        lang: Lang,
    },
    Tokens {
        file: SourceFile,
        syntax: FileSyntax,
        /// Its package, test target and module path.
        place: Place,
    },
}

/// Read one file and, if it may hold an annotation, tokenise it (or take its syntax from the
/// cache) and find its place in its crate.
fn read(
    root: &Path,
    rel: &str,
    lang: Lang,
    cache: &Cache,
    places: &Mutex<Places>,
) -> (Read, Option<Used>) {
    let path = root.join(rel);
    if let Some(stamp) = cache.unread(rel, &path) {
        return (
            Read::Nothing,
            Some(Used::Unmarked(rel.to_string(), stamp, true)),
        );
    }
    let (bytes, stamp) = match read_stamped(&path, cache) {
        Ok(r) => r,
        Err(e) => return (Read::Unreadable(e), None),
    };
    // A BOM and `\r\n` line ends are read as for every input; `review` writes them back.
    let encoding = kcontract_spec::fsutil::Encoding::of_bytes(&bytes);
    let text = match String::from_utf8(bytes) {
        Ok(t) => kcontract_spec::fsutil::plain_text(t),
        Err(e) => {
            let at = e.utf8_error().valid_up_to();
            let text = String::from_utf8_lossy(e.as_bytes()).into_owned();
            let file = SourceFile::new(kcontract_spec::globs::under(root, rel), text);
            return (Read::NotUtf8 { file, at }, None);
        }
    };
    if !may_hold_annotation(text.as_bytes()) {
        let unmarked = stamp.map(|s| Used::Unmarked(rel.to_string(), s, false));
        return (Read::Nothing, unmarked);
    }
    let (key, entry, hit) = cache.get(&text, lang);
    let file =
        |text| SourceFile::new(kcontract_spec::globs::under(root, rel), text).written_as(encoding);
    let read = match &entry {
        Entry::Syntax(syntax) if syntax.sites.is_empty() => Read::Nothing,
        Entry::Syntax(syntax) => Read::Tokens {
            file: file(text),
            syntax: syntax.clone(),
            // Each folder's Cargo.toml is read once, under the lock; few files get here. A test of
            // another language is named by its runner, without a Cargo package or target.
            place: if lang == Lang::Rust {
                places
                    .lock()
                    .unwrap_or_else(|poisoned| poisoned.into_inner())
                    .of(Path::new(rel))
            } else {
                Place {
                    package: None,
                    target: Some(Target::Foreign(lang)),
                    module: Vec::new(),
                }
            },
        },
        Entry::NotTokens(failure) => Read::NotTokens {
            file: file(text),
            failure: failure.clone(),
            lang,
        },
    };
    (
        read,
        cache.wanted().then_some(Used::Syntax(key, entry, hit)),
    )
}

/// The bytes of the file at `path` and, for the cache, its stamp, from the opened file's metadata
/// taken before reading it (as `fs::read` takes it for the size): a write during the read changes
/// what the next scan sees, and no second lookup of the path is made.
fn read_stamped(path: &Path, cache: &Cache) -> std::io::Result<(Vec<u8>, Option<Stamp>)> {
    let (bytes, meta) =
        kcontract_spec::fsutil::read_regular_with_meta(path, kcontract_spec::fsutil::MAX_INPUT)?;
    Ok((bytes, cache.stamp(&meta)))
}

impl Scan {
    /// The tests by the clause id they claim: `binary::name` (or the name when the binary is
    /// unknown), sorted; what `kcontract diff` compares between two versions.
    pub fn claims_by_clause(&self) -> BTreeMap<String, BTreeSet<String>> {
        let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for t in &self.tests {
            let name = match t.binary_id() {
                Some(b) => format!("{b}::{}", t.path),
                None => t.path.clone(),
            };
            for c in &t.claims {
                out.entry(c.id.clone()).or_default().insert(name.clone());
            }
        }
        out
    }

    /// Add one file's tests and problems (problems are warnings: the compiler reports them properly).
    fn add(&mut self, spec: &Spec, rel: &str, read: Read, review: &str) {
        match read {
            Read::Nothing => {}
            Read::Unreadable(e) => self.diagnostics.push(
                Diagnostic::warning("K0506", format!("`{rel}` cannot be read ({e}); its annotations were not scanned"))
                    .in_file(rel)
                    .help("check the file's permissions, or exclude it with `tests: exclude:` in contract.yaml"),
            ),
            Read::NotUtf8 { file, at } => {
                let fid = self.sources.add_file(file);
                self.diagnostics.push(
                    Diagnostic::warning(
                        "K0506",
                        format!("`{rel}` is not UTF-8; its annotations were not scanned"),
                    )
                    .at(
                        Span::new(fid, at..at + '\u{fffd}'.len_utf8()),
                        "invalid UTF-8 here",
                    )
                    .help("Rust sources are UTF-8; re-save the file as UTF-8"),
                );
            }
            Read::NotTokens {
                file,
                failure,
                lang,
            } => {
                let fid = self.sources.add_file(file);
                let ext = rel.rsplit('/').next().and_then(|n| n.rsplit_once('.'));
                let unknown = match ext {
                    Some((_, e)) if lang == Lang::Rust && e != "rs" => Some(e),
                    _ => None,
                };
                let (lang, tool) = match lang {
                    Lang::Rust => ("Rust", "cargo build"),
                    Lang::Go => ("Go", "go vet"),
                    Lang::Python => ("Python", "python -m py_compile"),
                    Lang::JavaScript => ("JavaScript or TypeScript", "its compiler"),
                    Lang::C => ("C or C++", "its compiler"),
                    Lang::Java => ("Java", "javac"),
                };
                self.diagnostics.push(
                    Diagnostic::warning("K0506", format!("`{rel}` cannot be read as {lang} tokens; its annotations were not scanned"))
                        .at(Span::new(fid, failure.range), failure.message)
                        .help(match unknown {
                            // An extension kcontract does not know is read as Rust: the likeliest
                            // cause is a language not named, not a broken file.
                            Some(e) => format!("a file ending in `.{e}` is read as Rust; if it holds another language's tests, name it in contract.yaml (`tests: languages: {{{e}: go}}`, or python, javascript, c, java), or exclude it with `tests: exclude:`"),
                            None => format!("fix the file ({tool} shows the error), or exclude it with `tests: exclude:` in contract.yaml"),
                        }),
                );
            }
            Read::Tokens {
                file,
                syntax,
                place,
            } => {
                let fid = self.sources.add_file(file);
                self.add_tests(spec, rel, fid, &syntax, &place, review);
            }
        }
    }

    /// The tests of one tokenised file, and its annotations that are not on a test.
    fn add_tests(
        &mut self,
        spec: &Spec,
        rel: &str,
        fid: FileId,
        syntax: &FileSyntax,
        place: &Place,
        review: &str,
    ) {
        let mut on_tests = BTreeSet::new();
        for f in &syntax.fns {
            let sites: Vec<&Site> = syntax.claims_of(f).collect();
            if sites.is_empty() {
                continue;
            }
            if !f.is_test() {
                continue;
            }
            let mut claims: Vec<Claim> = Vec::new();
            let mut unknown: Vec<Claim> = Vec::new();
            for s in sites {
                on_tests.insert(s.id_range.start);
                let claim = Claim {
                    id: s.id.clone(),
                    span: Span::new(fid, s.id_range.clone()),
                    stamp: s.stamp.clone(),
                    stamp_span: Span::new(fid, s.stamp_range.clone()),
                };
                match validate_claim(spec, s, fid, &mut self.diagnostics, review) {
                    Validity::Known => {}
                    Validity::Unknown => {
                        // A stub of a removed clause is generated code: say who removes it.
                        if f.is_stub()
                            && super::claims::renamed_to(spec, s.stamp.as_deref()).is_none()
                            && let Some(d) = self.diagnostics.last_mut()
                        {
                            d.help = Some(
                                "the clause was removed from the contract, and this is a stub (its body is `todo!()`): `kcontract scaffold` removes it if it is untouched; else delete it".into(),
                            );
                        }
                        unknown.push(claim);
                        continue;
                    }
                    Validity::Malformed => continue,
                }
                if claims.iter().any(|c| c.id == s.id) {
                    self.diagnostics.push(
                        Diagnostic::warning(
                            "K0505",
                            format!("`{}` is claimed twice by this test", s.id),
                        )
                        .at(Span::new(fid, s.id_range.clone()), "claimed again here")
                        .help("one `Clause:` line per clause is enough; remove the repeated line"),
                    );
                    continue;
                }
                claims.push(claim);
            }
            if !f.is_stub()
                && let Some(Some(reason)) = f.ignore_reason()
                && reason.starts_with(STUB_IGNORE_PREFIX)
                && let Some(a) = f
                    .attrs
                    .iter()
                    .find(|a| matches!(a.kind, AttrKind::Ignore(_)))
            {
                self.diagnostics.push(
                Diagnostic::warning("K0508", format!("`{}` has been written but is still ignored as \"{reason}\"", f.name))
                    .at(Span::new(fid, a.range.clone()), "the test never runs while this is here")
                    .help("remove this `#[ignore]` line so the test runs (until then its clause cannot show as passing)"),
            );
            }
            let path = test_path(syntax.lang, rel, place, f);
            let (line, _) = self.sources.get(fid).line_col(f.name_range.start);
            self.tests.push(TestFn {
                file: rel.to_string(),
                line,
                name_span: Span::new(fid, f.name_range.clone()),
                package: place.package.clone(),
                target: place.target.clone(),
                path,
                claims,
                unknown,
                kind: if f.is_stub() {
                    TestKind::Stub
                } else {
                    TestKind::Real
                },
                ignored: f.ignore_reason().is_some(),
            });
        }
        for s in &syntax.sites {
            if on_tests.contains(&s.id_range.start) {
                continue;
            }
            let span = Span::new(
                fid,
                s.marker_range.start..s.id_range.end.max(s.marker_range.end),
            );
            if s.miscased {
                self.diagnostics.push(
                Diagnostic::warning("K0504", format!("`{}` is not an annotation: the marker is spelled `Clause:`", &self.sources.get(fid).text[s.marker_range.clone()]))
                    .at(span, "not recognised")
                    .help("write `/// Clause: <id>` (capital C) to claim a clause, or reword the line"),
            );
            } else {
                self.diagnostics.push(
                    Diagnostic::warning(
                        "K0503",
                        "this `Clause:` annotation is not on a test function",
                    )
                    .at(span, "claims nothing here")
                    .help(stray_help(syntax.lang)),
                );
            }
        }
    }
}

/// A test's name as its runner reports it: Rust's module path (`m::name`), Go's `TestX/sub`,
/// pytest's node id (`path/test_x.py::TestClass::test_y`), `describe > test` for JavaScript.
fn test_path(lang: Lang, rel: &str, place: &Place, f: &FnItem) -> String {
    let mut parts: Vec<String> = match lang {
        Lang::Python => vec![rel.to_string()],
        _ => place.module.clone(),
    };
    parts.extend(f.module.iter().cloned());
    parts.push(f.name.clone());
    parts.join(lang.separator())
}

/// Where an annotation is read, by language: what K0503 says to do with a stray one.
fn stray_help(lang: Lang) -> &'static str {
    match lang {
        Lang::Rust => {
            "put the line in the doc comment of a `#[test]` function (directly above it); annotations on helpers, modules or other items are not read"
        }
        Lang::Go => {
            "put `// Clause: <id>` directly above a `func TestX(t *testing.T)` or a `t.Run(\"name\", …)` whose name is a string literal (no blank line between)"
        }
        Lang::Python => {
            "put `# Clause: <id>` directly above a pytest `def test_…` (or its decorators), at the top level or in a `class Test…` (no blank line between)"
        }
        Lang::Java => {
            "put `// Clause: <id>` directly above a JUnit `@Test` method (above or between its annotations; no blank line between)"
        }
        Lang::C => {
            "put `// Clause: <id>` directly above a GoogleTest `TEST(Suite, Name)`/`TEST_F(…)` or a Criterion `Test(suite, name)` (no blank line between)"
        }
        Lang::JavaScript => {
            "put `// Clause: <id>` directly above a `test(\"name\", …)` or `it(\"name\", …)` call, at the top level or in a `describe` callback (no blank line between)"
        }
    }
}
