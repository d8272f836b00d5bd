//! One file of the folder merged with the stubs it gains: untouched stubs refreshed (or removed
//! when their clause gets none), everything else kept byte for byte, new stubs placed beside their
//! neighbours in spec order under their sections' headings; and `main.rs`'s `mod` lines.

use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;

use super::Stubs;
use super::stubs::{render_stub_for, untouched_stub_for};
use super::{FileReport, Orphan, OrphanWhy};
use crate::annotations::{FileSyntax, FnItem, LexFailure, parse_in};
use crate::matrix::Scope;
use kcontract_spec::{Clause, Spec};

/// Merge one existing file with the stubs it should gain. Pure.
///
/// `add` are the clauses (indices into `spec.clauses`, ascending) that get new stubs here.
pub fn merge_file(
    file: &str,
    existing: &str,
    add: &[usize],
    spec: &Spec,
) -> Result<(String, FileReport, Vec<Orphan>), LexFailure> {
    merge_file_in(file, existing, add, spec, (&Scope::default(), &Stubs::Rust))
}

/// Is clause `id` one that gets a stub: in the contract, testable, in the crate's selection and
/// not exempt in it?
pub(super) fn wanted(spec: &Spec, scope: &Scope, id: &str) -> bool {
    spec.clause(id).is_some_and(|c| {
        !c.verify.is_untestable()
            && scope.select.as_ref().is_none_or(|s| s.selects(c))
            && !scope.exempt.contains_key(id)
    })
}

/// The byte range an untouched stub takes with the blank lines before it, and the generated
/// section heading above it when nothing else is under that heading (the next item is another
/// heading, or the file ends).
fn removal_range(src: &str, range: &Range<usize>, marker: &str) -> Range<usize> {
    let before = src[..range.start].trim_end();
    let mut start = before.len();
    let after = src[range.end..].trim_start();
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let heading = |l: &str| {
        l.trim()
            .strip_prefix(marker)
            .and_then(|r| r.strip_prefix(' '))
            .is_some_and(|rest| rest.starts_with(|c: char| c.is_ascii_digit()))
    };
    let next_line = after.lines().next().unwrap_or("");
    if heading(&before[line_start..]) && (after.is_empty() || heading(next_line)) {
        start = src[..line_start].trim_end().len();
    }
    if start == 0 {
        // The first item of the file: take the blank lines after it instead.
        return 0..src.len() - after.len();
    }
    start..range.end
}

/// [`merge_file`] for a crate's scope (untouched stubs of clauses outside it are removed), in the
/// language of `stubs`.
pub(super) fn merge_file_in(
    file: &str,
    existing: &str,
    add: &[usize],
    spec: &Spec,
    (scope, stubs): (&Scope, &Stubs),
) -> Result<(String, FileReport, Vec<Orphan>), LexFailure> {
    let syntax = parse_in(stubs.lang(), existing)?;
    let mut merge = Merge::new(file, existing, spec, scope, &syntax);
    merge.stubs = stubs.clone();
    for f in syntax.fns.iter().filter(|f| f.is_test()) {
        merge.test(f);
    }
    let at_end = merge.insert_stubs(add);
    let out = merge.apply(&at_end);
    Ok((out, merge.report, merge.orphans))
}

/// One file's merge under way: the edits to its text and what placing new stubs needs.
struct Merge<'a> {
    file: &'a str,
    existing: &'a str,
    spec: &'a Spec,
    scope: &'a Scope,
    syntax: &'a FileSyntax,
    report: FileReport,
    orphans: Vec<Orphan>,
    /// (range, replacement): replacements of untouched stubs and insertions (empty ranges).
    edits: Vec<(Range<usize>, String)>,
    /// Top-level tests that claim a current clause: (spec index, fn range), to place new stubs.
    anchors: Vec<(usize, Range<usize>)>,
    /// The names of the file's top-level functions, so that a new stub's name is unique.
    taken: BTreeSet<String>,
    /// The language of the stubs.
    stubs: Stubs,
}

/// Where a new stub goes: after the test ending at a byte, before the item starting at one, or
/// at the end of the file.
enum Place {
    After(usize),
    Before(usize),
    AtEnd,
}

impl<'a> Merge<'a> {
    fn new(
        file: &'a str,
        existing: &'a str,
        spec: &'a Spec,
        scope: &'a Scope,
        syntax: &'a FileSyntax,
    ) -> Self {
        Merge {
            file,
            existing,
            spec,
            scope,
            syntax,
            report: FileReport {
                file: file.to_string(),
                ..FileReport::default()
            },
            orphans: Vec::new(),
            edits: Vec::new(),
            anchors: Vec::new(),
            taken: syntax
                .fns
                .iter()
                .filter(|f| f.module.is_empty())
                .map(|f| f.name.clone())
                .collect(),
            stubs: Stubs::Rust,
        }
    }

    /// An existing test: an untouched stub is refreshed, or removed when its clause gets no stub;
    /// any other claiming test is kept as written, its claims of clauses that are gone reported.
    fn test(&mut self, f: &FnItem) {
        let syntax = self.syntax;
        let claims: Vec<&str> = syntax.claims_of(f).map(|s| s.id.as_str()).collect();
        if claims.is_empty() {
            return;
        }
        let mut path = f.module.clone();
        path.push(f.name.clone());
        let test = path.join("::");
        let untouched = untouched_stub_for(&self.stubs, self.existing, syntax, f, self.spec);
        if let Some(id) = &untouched
            && !wanted(self.spec, self.scope, id)
        {
            self.remove(f, id);
            return;
        }
        self.orphans_of(f, &claims, &test);
        if f.module.is_empty()
            && !f.in_macro
            && let Some(&first) = claims.iter().find_map(|id| self.spec.by_id.get(*id))
        {
            self.anchors.push((first, f.range.clone()));
        }
        match untouched {
            Some(id)
                if self
                    .spec
                    .clause(&id)
                    .is_some_and(|c| !c.verify.is_untestable()) =>
            {
                let c = self.spec.clause(&id).expect("checked above");
                let text = render_stub_for(&self.stubs, c, &f.name);
                self.edits.push((f.range.clone(), text));
                self.report.refreshed.push(id);
            }
            _ => self.report.kept.push(test),
        }
    }

    /// Remove an untouched stub of clause `id`, which gets no stub: generated, nothing of
    /// anyone's.
    fn remove(&mut self, f: &FnItem, id: &str) {
        // The text after the stub on its last line, if any, must not join the line before it
        // (a `// comment` there would swallow it).
        let rest_of_line = self.existing[f.range.end..]
            .split('\n')
            .next()
            .unwrap_or("");
        let sep = if rest_of_line.trim().is_empty() {
            ""
        } else {
            "\n"
        };
        self.edits.push((
            removal_range(self.existing, &f.range, self.stubs.comment()),
            sep.to_string(),
        ));
        self.report.removed.push(id.to_string());
    }

    /// The orphans among a kept test's claims (`test`, its path): clauses removed or now
    /// untestable, each with where a renamed clause went.
    fn orphans_of(&mut self, f: &FnItem, claims: &[&str], test: &str) {
        for id in claims {
            let why = match self.spec.clause(id) {
                None => OrphanWhy::Removed,
                Some(c) if c.verify.is_untestable() => OrphanWhy::Untestable,
                Some(_) => continue,
            };
            let stamp = self
                .syntax
                .claims_of(f)
                .find(|s| s.id == *id)
                .and_then(|s| s.stamp.clone());
            self.orphans.push(Orphan {
                file: self.file.to_string(),
                test: test.to_string(),
                name_range: f.name_range.clone(),
                id: id.to_string(),
                why,
                renamed_to: crate::annotations::renamed_to(self.spec, stamp.as_deref())
                    .filter(|new| *new != *id)
                    .map(str::to_string),
            });
        }
    }

    /// A function name for a new stub of clause `id` that no top-level function has.
    fn fresh_name(&mut self, id: &str) -> String {
        let base = self.stubs.test_name(id);
        let mut name = base.clone();
        let mut n = 2;
        while self.taken.contains(&name) {
            name = format!("{base}_{n}");
            n += 1;
        }
        self.taken.insert(name.clone());
        name
    }

    /// The new stubs (`add`, spec indices), as insertions grouped by anchor position; those with
    /// no anchor are returned, for the end of the file. A stub that opens a section in the file
    /// (its neighbour is in another section, and the file has no such heading yet) is preceded by
    /// the section's heading as a comment, so the stubs read in the spec's sections.
    fn insert_stubs(&mut self, add: &[usize]) -> Vec<String> {
        let mut after: BTreeMap<usize, Vec<String>> = BTreeMap::new();
        let mut before: BTreeMap<usize, Vec<String>> = BTreeMap::new();
        let mut at_end: Vec<String> = Vec::new();
        let mut headed: BTreeSet<String> = self
            .existing
            .lines()
            .filter_map(|l| {
                l.trim()
                    .strip_prefix(self.stubs.comment())
                    .and_then(|r| r.strip_prefix(' '))
                    .map(str::to_string)
            })
            .collect();
        let mut end_section = self
            .anchors
            .iter()
            .max_by_key(|(_, r)| r.end)
            .and_then(|(j, _)| self.label_of(*j));
        for &i in add {
            let c = &self.spec.clauses[i];
            let name = self.fresh_name(&c.id);
            let mut stub = render_stub_for(&self.stubs, c, &name);
            self.report.added.push(c.id.clone());
            let label = section_label(self.spec, c);
            let (place, neighbour) = self.place(i, &label, &end_section);
            if let Some(l) = &label
                && label != neighbour
                && headed.insert(l.clone())
            {
                stub = format!("{} {l}\n\n{stub}", self.stubs.comment());
            }
            match place {
                Place::After(pos) => after.entry(pos).or_default().push(stub),
                Place::Before(pos) => before.entry(pos).or_default().push(stub),
                Place::AtEnd => {
                    end_section = label;
                    at_end.push(stub);
                }
            }
        }
        for (pos, stubs) in after {
            let text: String = stubs.iter().map(|s| format!("\n\n{s}")).collect();
            self.edits.push((pos..pos, text));
        }
        for (pos, stubs) in before {
            let text: String = stubs.iter().map(|s| format!("{s}\n\n")).collect();
            self.edits.push((pos..pos, text));
        }
        at_end
    }

    /// The section heading of clause `j` (a spec index).
    fn label_of(&self, j: usize) -> Option<String> {
        section_label(self.spec, &self.spec.clauses[j])
    }

    /// Where the stub of clause `i` (its section `label`) goes, and the section of its neighbour
    /// there (`end_section`: the section the file ends in).
    fn place(
        &self,
        i: usize,
        label: &Option<String>,
        end_section: &Option<String>,
    ) -> (Place, Option<String>) {
        let prev = self
            .anchors
            .iter()
            .filter(|(j, _)| *j < i)
            .max_by_key(|(j, r)| (*j, r.end));
        let next = self
            .anchors
            .iter()
            .filter(|(j, _)| *j > i)
            .min_by_key(|(j, r)| (*j, r.start));
        // Into its own section when the test before it is in another one and the one after it
        // is in its section: under that section's heading, not at the end of the previous
        // section (where a stub deleted by hand and written again used to land).
        let into_next = next.filter(|(j, _)| {
            label.is_some()
                && self.label_of(*j) == *label
                && prev.is_none_or(|(p, _)| self.label_of(*p) != *label)
        });
        match (prev, next) {
            _ if into_next.is_some() => {
                let (_, r) = into_next.expect("checked");
                (Place::Before(r.start), label.clone())
            }
            (Some((j, r)), _) => (Place::After(r.end), self.label_of(*j)),
            (None, Some((j, r))) => {
                // Above the next test's section heading, if it has one, not between the two.
                let label = self
                    .label_of(*j)
                    .map(|l| format!("{} {l}", self.stubs.comment()));
                let at = heading_above(self.existing, r.start, label);
                (Place::Before(at), self.label_of(*j))
            }
            (None, None) => (Place::AtEnd, end_section.clone()),
        }
    }

    /// The file's new text: the edits applied, then the stubs for its end.
    fn apply(&mut self, at_end: &[String]) -> String {
        // Stable order: by start, insertions (empty) before a replacement starting at the same
        // place.
        self.edits.sort_by_key(|(r, _)| (r.start, r.end));
        let existing = self.existing;
        let mut out = String::with_capacity(
            existing.len() + self.edits.iter().map(|e| e.1.len()).sum::<usize>(),
        );
        let mut pos = 0;
        for (r, text) in &self.edits {
            out.push_str(&existing[pos..r.start]);
            out.push_str(text);
            pos = r.end;
        }
        out.push_str(&existing[pos..]);
        if !at_end.is_empty() {
            if !out.is_empty() && !out.ends_with('\n') {
                out.push('\n');
            }
            for s in at_end {
                if !out.is_empty() {
                    out.push('\n');
                }
                out.push_str(s);
                out.push('\n');
            }
        }
        out
    }
}

/// The heading a clause's stub is grouped under, numbered as the site numbers it
/// (`5.1 Root Filesystem`): the section the clause is in; `None` directly under the chapter's
/// title or before it.
fn section_label(spec: &Spec, c: &Clause) -> Option<String> {
    let (d, doc) = spec
        .documents
        .iter()
        .enumerate()
        .find(|(_, d)| d.chapter == c.chapter)?;
    let section = c.section.as_ref()?;
    let i = doc
        .headings
        .iter()
        .position(|h| h.anchor == section.anchor)?;
    // The chapter's title heads the whole file already (its `//!` header).
    if doc.headings[i].level <= 1 {
        return None;
    }
    let numbers = kcontract_spec::section_numbers(d + 1, &doc.headings);
    Some(format!("{} {}", numbers.get(i)?, doc.headings[i].title))
}

/// Where to insert above the item starting at `start`: before the `// LABEL` line (`line`, its
/// text) just above it (blank lines between allowed), if there is one, else at `start`.
fn heading_above(src: &str, start: usize, line: Option<String>) -> usize {
    let Some(line) = line else { return start };
    let above = src[..start].trim_end();
    let line_start = above.rfind('\n').map_or(0, |i| i + 1);
    if above[line_start..].trim() == line {
        line_start
    } else {
        start
    }
}

/// Add `mod NAME;` lines for missing modules to `main.rs`, keeping the declarations sorted the
/// way rustfmt orders them. The file is read as Rust tokens (`crate::annotations::mod_decls`), so
/// a declaration with a comment after it (`mod x; // ours`), inside a `/* */` or with attributes
/// is seen as the compiler sees it and never declared twice (E0428). A new line goes before the
/// first declaration (its attributes included) whose name sorts after it, else after the line of
/// the last declaration, else at the end; every other byte is kept.
pub(super) fn merge_main(existing: &str, modules: &BTreeSet<String>) -> Result<String, LexFailure> {
    let mut text = existing.to_string();
    for m in modules {
        let decls = crate::annotations::mod_decls(&text)?;
        if decls.iter().any(|d| d.name == *m) {
            continue;
        }
        let line = format!("mod {m};\n");
        let line_start = |at: usize| text[..at].rfind('\n').map_or(0, |i| i + 1);
        if let Some(d) = decls.iter().find(|d| d.name > *m) {
            let at = line_start(d.item.start);
            text.insert_str(at, &line);
        } else if let Some(d) = decls.last() {
            let at = text[d.item.end..]
                .find('\n')
                .map_or(text.len(), |i| d.item.end + i + 1);
            if at == text.len() && !text.ends_with('\n') {
                text.push('\n');
            }
            let at = at.min(text.len());
            text.insert_str(at, &line);
        } else {
            if !text.is_empty() && !text.ends_with('\n') {
                text.push('\n');
            }
            if !text.trim().is_empty() && !text.ends_with("\n\n") {
                text.push('\n');
            }
            text.push_str(&line);
        }
    }
    if !text.ends_with('\n') {
        text.push('\n');
    }
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn main_rs_gains_sorted_declarations() {
        let m: BTreeSet<String> = ["b", "d"].map(String::from).into();
        let out = merge_main("//! doc\n", &m).unwrap();
        assert_eq!(out, "//! doc\n\nmod b;\nmod d;\n");
        let m: BTreeSet<String> = ["a", "b", "c", "d", "e"].map(String::from).into();
        let out = merge_main("//! doc\n\nmod b;\nmod d;\n\nfn helper() {}\n", &m).unwrap();
        assert_eq!(
            out,
            "//! doc\n\nmod a;\nmod b;\nmod c;\nmod d;\nmod e;\n\nfn helper() {}\n"
        );
        // Declarations are read as tokens (issue #36: `mod b; // ours` was declared again, E0428).
        let m: BTreeSet<String> = ["b", "c", "d"].map(String::from).into();
        for (old, want) in [
            (
                "mod b; // added by the platform team\n",
                "mod b; // added by the platform team\nmod c;\nmod d;\n",
            ),
            ("mod b; /* ours */\n", "mod b; /* ours */\nmod c;\nmod d;\n"),
            (
                "pub mod b;\n#[cfg(feature = \"x\")]\nmod d;\n",
                "pub mod b;\nmod c;\n#[cfg(feature = \"x\")]\nmod d;\n",
            ),
            (
                "mod b {\n    fn x() {}\n}\nmod c;\nmod d;",
                "mod b {\n    fn x() {}\n}\nmod c;\nmod d;\n",
            ),
        ] {
            assert_eq!(merge_main(old, &m).unwrap(), want, "{old}");
        }
        // `// mod c;` is a comment: c is declared.
        assert_eq!(
            merge_main("mod b;\n// mod c;\nmod d;\n", &m).unwrap(),
            "mod b;\n// mod c;\nmod c;\nmod d;\n"
        );
        assert!(merge_main("mod b; \"\n", &m).is_err());
    }

    /// A spec in memory: one chapter with clauses under its title and in two sections.
    fn sectioned_spec(extra: &str) -> Spec {
        use kcontract_spec::{LoadOptions, Tree, load_from};
        use std::path::{Path, PathBuf};
        let block = |id: &str, text: &str| {
            format!(
                "```clause\nid: {id}\nlevel: MUST\nactor: platform\ntext: {text}\nverify: manual\n```\n\n"
            )
        };
        let chapter = format!(
            "# Chapter\n\n{}## Alpha\n\n{}{}## Beta\n\n{}{extra}",
            block("c.top", "The platform MUST be."),
            block("c.a1", "The platform MUST do a1."),
            block("c.a2", "The platform MUST do a2."),
            block("c.b1", "The platform MUST do b1."),
        );
        let files = BTreeMap::from([
            (
                PathBuf::from("s/contract.yaml"),
                b"title: T\nversion: 1.0.0\nlanguages: [en]\nchapters: [ch]\n".to_vec(),
            ),
            (PathBuf::from("s/en/ch.md"), chapter.into_bytes()),
        ]);
        let loaded = load_from(&Tree::Memory(files), Path::new("s"), LoadOptions::default());
        assert!(!loaded.has_errors(), "{:?}", loaded.diagnostics);
        loaded.spec
    }

    fn all(spec: &Spec) -> Vec<usize> {
        (0..spec.clauses.len()).collect()
    }

    /// Found by `scan_fuzz` (corrupted real files): text after a removed stub's closing brace on
    /// the same line must not join the comment line before the stub.
    #[test]
    fn removing_a_stub_keeps_the_rest_of_its_line_on_a_line_of_its_own() {
        let spec = sectioned_spec("");
        let fresh = merge_file("ch.rs", "//! header\n", &all(&spec), &spec)
            .unwrap()
            .0;
        let at = fresh.find("fn c_a1() {\n    todo!()\n}").unwrap()
            + "fn c_a1() {\n    todo!()\n}".len();
        let corrupted = format!("{}ed() {{\n    todo!()\n}}{}", &fresh[..at], &fresh[at..]);
        let empty = Spec::default();
        let (merged, report, _) = merge_file("ch.rs", &corrupted, &[], &empty).unwrap();
        assert!(report.removed.contains(&"c.a1".to_string()), "{report:?}");
        assert!(
            crate::annotations::parse_source(&merged).is_ok(),
            "{merged}"
        );
        assert!(merged.contains("\ned() {"), "{merged}");
    }

    /// A removed stub takes the generated heading above it when nothing else is under it.
    #[test]
    fn removing_the_last_stub_of_a_section_takes_its_heading() {
        let spec = sectioned_spec("");
        let fresh = merge_file("ch.rs", "//! header\n", &all(&spec), &spec)
            .unwrap()
            .0;
        assert!(fresh.contains("// 1.2 Beta\n"));
        let scope = Scope {
            exempt: [("c.b1".to_string(), "not here".to_string())].into(),
            ..Scope::default()
        };
        let (out, report, _) =
            merge_file_in("ch.rs", &fresh, &[], &spec, (&scope, &Stubs::Rust)).unwrap();
        assert_eq!(report.removed, ["c.b1"]);
        assert!(!out.contains("1.2 Beta") && !out.contains("c_b1"), "{out}");
        assert!(out.ends_with("fn c_a2() {\n    todo!()\n}\n"), "{out}");
        // Alpha keeps its heading: a2 is still under it.
        let scope = Scope {
            exempt: [("c.a1".to_string(), "not here".to_string())].into(),
            ..Scope::default()
        };
        let (out, _, _) =
            merge_file_in("ch.rs", &fresh, &[], &spec, (&scope, &Stubs::Rust)).unwrap();
        assert!(
            out.contains("// 1.1 Alpha\n\n/// The platform MUST do a2."),
            "{out}"
        );
    }

    #[test]
    fn stubs_are_grouped_under_their_section_headings() {
        let spec = sectioned_spec("");
        let (fresh, _, _) = merge_file("ch.rs", "//! header\n", &all(&spec), &spec).unwrap();
        let heads: Vec<&str> = fresh.lines().filter(|l| l.starts_with("// ")).collect();
        assert_eq!(heads, ["// 1.1 Alpha", "// 1.2 Beta"], "{fresh}");
        // The clause under the chapter's title comes first, with no heading of its own.
        let top = fresh.find("fn c_top").unwrap();
        assert!(top < fresh.find("// 1.1 Alpha").unwrap());
        assert!(fresh.find("fn c_a2").unwrap() < fresh.find("// 1.2 Beta").unwrap());
        // Regenerating changes nothing.
        let (again, _, _) = merge_file("ch.rs", &fresh, &[], &spec).unwrap();
        assert_eq!(again, fresh);

        // A new clause in an existing section joins it; one in a new section opens it with its
        // heading, after the section before it.
        let spec2 = sectioned_spec(
            "```clause\nid: c.b2\nlevel: MUST\nactor: platform\ntext: The platform MUST do b2.\nverify: manual\n```\n\n## Gamma\n\n```clause\nid: c.g1\nlevel: MUST\nactor: platform\ntext: The platform MUST do g1.\nverify: manual\n```\n",
        );
        let new: Vec<usize> = ["c.b2", "c.g1"].iter().map(|id| spec2.by_id[*id]).collect();
        let (grown, _, _) = merge_file("ch.rs", &fresh, &new, &spec2).unwrap();
        let heads: Vec<&str> = grown.lines().filter(|l| l.starts_with("// ")).collect();
        assert_eq!(
            heads,
            ["// 1.1 Alpha", "// 1.2 Beta", "// 1.3 Gamma"],
            "{grown}"
        );
        let at = |f: &str| grown.find(f).unwrap();
        assert!(at("fn c_b1") < at("fn c_b2") && at("fn c_b2") < at("// 1.3 Gamma"));
        assert!(at("// 1.3 Gamma") < at("fn c_g1"));
        assert!(grown.starts_with(&fresh[..fresh.find("fn c_b1").unwrap()]));

        // A stub placed before the file's first test goes above that test's heading.
        let only_beta = {
            let b1 = spec.by_id["c.b1"];
            merge_file("ch.rs", "//! header\n", &[b1], &spec).unwrap().0
        };
        assert!(
            only_beta.contains("// 1.2 Beta\n\n/// The platform MUST do b1."),
            "{only_beta}"
        );
        // A stub written again at the start of a section whose heading is still there (issue
        // #36: it landed at the end of the section before, under that heading).
        let spec_b2 = sectioned_spec(
            "```clause\nid: c.b2\nlevel: MUST\nactor: platform\ntext: The platform MUST do b2.\nverify: manual\n```\n",
        );
        let full = merge_file("ch.rs", "//! header\n", &all(&spec_b2), &spec_b2)
            .unwrap()
            .0;
        let without_b1 = {
            let start = full.find("/// The platform MUST do b1.").unwrap();
            let end = start + full[start..].find("}\n\n").unwrap() + 3;
            format!("{}{}", &full[..start], &full[end..])
        };
        assert!(!without_b1.contains("fn c_b1") && without_b1.contains("fn c_b2"));
        let (back, _, _) =
            merge_file("ch.rs", &without_b1, &[spec_b2.by_id["c.b1"]], &spec_b2).unwrap();
        let at = |f: &str| back.find(f).unwrap();
        assert!(
            at("// 1.2 Beta") < at("fn c_b1") && at("fn c_b1") < at("fn c_b2"),
            "{back}"
        );
        assert_eq!(back, full, "written again where it was");

        let a1 = spec.by_id["c.a1"];
        let (out, _, _) = merge_file("ch.rs", &only_beta, &[a1], &spec).unwrap();
        let at = |f: &str| out.find(f).unwrap();
        assert!(
            at("// 1.1 Alpha") < at("fn c_a1") && at("fn c_a1") < at("// 1.2 Beta"),
            "{out}"
        );
    }
}
