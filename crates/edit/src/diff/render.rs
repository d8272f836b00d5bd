//! The three shapes of a diff: a terminal listing (coloured unless `--color never` or NO_COLOR),
//! Markdown to paste as a pull-request comment, and the stable JSON interface.

use std::fmt::Write as _;

use anstyle::{AnsiColor, Effects, Style};
use serde::Serialize;

use super::{Change, Diff, FORMAT, Kind, Op, Parts, Prose, Value, Words};
use kcontract_spec::diagnostic::plural;

/// One side of the comparison, as the outputs name it.
#[derive(Clone, Debug, Serialize)]
pub struct Side {
    /// What was read: a folder, `REV:folder`.
    pub label: String,
    /// Errors its spec had (the diff covers what parsed).
    pub errors: usize,
}

/// The JSON document (`kcontract diff --format json`).
#[derive(Serialize)]
struct Json<'a> {
    format: &'static str,
    old: &'a Side,
    new: &'a Side,
    #[serde(flatten)]
    parts: &'a Parts,
    changes: &'a [Change],
    prose: &'a [Prose],
    not_compared: &'a [String],
    /// [`Diff::formatting_only`].
    formatting_only: bool,
}

/// The JSON output, pretty-printed, with a final newline.
pub fn json(diff: &Diff, old: &Side, new: &Side) -> serde_json::Result<String> {
    let mut s = serde_json::to_string_pretty(&Json {
        format: FORMAT,
        old,
        new,
        parts: &diff.parts,
        changes: &diff.changes,
        prose: &diff.prose,
        not_compared: &diff.not_compared,
        formatting_only: diff.formatting_only(),
    })?;
    s.push('\n');
    Ok(s)
}

/// `1 added, 2 reworded`: how many changes of each kind, in kind order.
fn counts(changes: &[Change]) -> String {
    let mut by_kind = std::collections::BTreeMap::new();
    for c in changes {
        *by_kind.entry(c.kind).or_insert(0usize) += 1;
    }
    by_kind
        .iter()
        .map(|(k, n)| format!("{n} {}", k.as_str()))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The changes as a reader takes them in: what a clause obliges and whom (`level`, `actor`)
/// first, since one strengthened MUST matters more than a hundred moves; the moves summarised
/// (a restructured upstream moves most clauses at once); rewordings that only changed a link's
/// target (import rewrites links, so a new import changes many) apart; the rest by chapter.
struct Groups<'a> {
    first: Vec<&'a Change>,
    rest: Vec<&'a Change>,
    moved: Vec<&'a Change>,
    links: Vec<&'a Change>,
}

impl<'a> Groups<'a> {
    fn of(changes: &'a [Change]) -> Self {
        let mut g = Groups {
            first: Vec::new(),
            rest: Vec::new(),
            moved: Vec::new(),
            links: Vec::new(),
        };
        for c in changes {
            match c.kind {
                Kind::Level | Kind::Actor => g.first.push(c),
                Kind::Moved => g.moved.push(c),
                Kind::Reworded if link_targets_only(c) => g.links.push(c),
                _ => g.rest.push(c),
            }
        }
        g
    }

    /// `12 clauses moved: a → b (10), c → d (2)`: each distinct move and how many made it,
    /// the most common first (then in order), at most [`MOVES_SHOWN`] of them.
    fn moves_line(&self) -> Option<String> {
        if self.moved.is_empty() {
            return None;
        }
        let mut pairs: Vec<(String, usize)> = Vec::new();
        for c in &self.moved {
            let pair = format!("{} → {}", value(&c.old), value(&c.new));
            match pairs.iter_mut().find(|(p, _)| *p == pair) {
                Some((_, n)) => *n += 1,
                None => pairs.push((pair, 1)),
            }
        }
        pairs.sort_by_key(|(_, n)| std::cmp::Reverse(*n));
        let n = self.moved.len();
        let mut shown: Vec<String> = pairs
            .iter()
            .take(MOVES_SHOWN)
            .map(|(p, k)| format!("{p} ({k})"))
            .collect();
        if pairs.len() > MOVES_SHOWN {
            shown.push(format!("{} other moves", pairs.len() - MOVES_SHOWN));
        }
        Some(format!(
            "{n} clause{} moved: {}",
            plural(n),
            shown.join(", ")
        ))
    }
}

/// How many distinct moves the summary names.
const MOVES_SHOWN: usize = 5;

/// Whether a rewording changed only where links point: the words are the same once each
/// Markdown link `[words](target)` is read as its words.
fn link_targets_only(c: &Change) -> bool {
    match (&c.old, &c.new) {
        (Some(Value::Text(a)), Some(Value::Text(b))) => {
            let (a, b) = (link_words(a), link_words(b));
            a != link_words("") && a == b
        }
        _ => false,
    }
}

/// `text` with each inline link read as its words (its `(target)` and brackets left out, so a
/// link added around the same words is no rewording either) and whitespace collapsed.
fn link_words(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(i) = rest.find("](") {
        out.push_str(&rest[..=i]);
        let after = &rest[i + 2..];
        match after.find(')') {
            Some(j) => rest = &after[j + 1..],
            None => {
                rest = &rest[i + 1..];
            }
        }
    }
    out.push_str(rest);
    out.retain(|c| c != '[' && c != ']');
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The chapters of the changes, in order of first appearance, each with its changes.
fn by_chapter<'a>(changes: &[&'a Change]) -> Vec<(&'a str, Vec<&'a Change>)> {
    let mut out: Vec<(&str, Vec<&Change>)> = Vec::new();
    for &c in changes {
        match out.iter_mut().find(|(ch, _)| *ch == c.chapter) {
            Some((_, list)) => list.push(c),
            None => out.push((&c.chapter, vec![c])),
        }
    }
    out
}

fn value(v: &Option<Value>) -> String {
    match v {
        None => "—".to_owned(),
        Some(Value::Text(t)) => t.split_whitespace().collect::<Vec<_>>().join(" "),
        Some(Value::List(l)) if l.is_empty() => "(none)".to_owned(),
        Some(Value::List(l)) => l.join(", "),
    }
}

/// What a change says, after its kind and id: shared by the terminal and Markdown, which only
/// style its pieces differently.
fn detail(c: &Change, del: impl Fn(&str) -> String, ins: impl Fn(&str) -> String) -> String {
    match c.kind {
        Kind::Added => format!(
            "{}: {}",
            c.level.map_or("", |l| l.as_str()),
            ins(&value(&c.new))
        ),
        Kind::Removed => format!(
            "{}: {}{}",
            c.level.map_or("", |l| l.as_str()),
            del(&value(&c.old)),
            if c.informative {
                " (now informative: the words are in the chapter's prose)"
            } else {
                ""
            }
        ),
        Kind::Reworded => words(c.words.as_deref().unwrap_or_default(), &del, &ins),
        Kind::Level => format!(
            "{} → {} ({})",
            del(&value(&c.old)),
            ins(&value(&c.new)),
            c.direction.map_or("", |d| d.as_str())
        ),
        Kind::Renamed => format!("was {}", del(&value(&c.old))),
        Kind::Translation => format!(
            "{}: {} → {}",
            c.lang.as_deref().unwrap_or(""),
            match &c.old {
                None => "(new clause)".to_owned(),
                old => value(old),
            },
            ins(&value(&c.new))
        ),
        Kind::Keyword
        | Kind::Actor
        | Kind::Verify
        | Kind::Implicit
        | Kind::Oci
        | Kind::Tests
        | Kind::Review
        | Kind::Moved => {
            format!("{} → {}", del(&value(&c.old)), ins(&value(&c.new)))
        }
    }
}

fn words(w: &[Words], del: impl Fn(&str) -> String, ins: impl Fn(&str) -> String) -> String {
    w.iter()
        .map(|w| match w.op {
            Op::Delete => del(&w.text),
            Op::Insert => ins(&w.text),
            Op::Equal => w.text.clone(),
        })
        .collect()
}

/// `language added: de`, `chapters removed: a, b`: a line per kind of part added or removed,
/// each name shown by `name`.
fn parts_lines(parts: &Parts, name: impl Fn(&str) -> String) -> Vec<String> {
    [
        ("language", "added", &parts.languages_added),
        ("language", "removed", &parts.languages_removed),
        ("chapter", "added", &parts.chapters_added),
        ("chapter", "removed", &parts.chapters_removed),
    ]
    .into_iter()
    .filter(|(_, _, names)| !names.is_empty())
    .map(|(what, how, names)| {
        let list: Vec<String> = names.iter().map(|n| name(n)).collect();
        format!("{what}{} {how}: {}", plural(names.len()), list.join(", "))
    })
    .collect()
}

/// How many changed prose lines of a chapter are shown (the JSON has them all), and how long a
/// line may be: a diff names what changed briefly; the files say the rest.
const PROSE_LINES: usize = 6;
const PROSE_WIDTH: usize = 100;

/// The first [`PROSE_LINES`] changed lines of `p`, each `-` or `+` and its text cut at
/// [`PROSE_WIDTH`] characters, and how many more there are.
///
/// A changed table row is always shown: a table's rows are its statements (one row is one
/// mount, one header, one signal), so a changed row is the change, and it would otherwise be
/// lost behind the first lines of a long chapter.
fn prose_lines(p: &Prose) -> (Vec<(char, String)>, usize) {
    let shown: Vec<(char, String)> = p
        .lines
        .iter()
        .enumerate()
        .filter(|(i, w)| *i < PROSE_LINES || w.text.trim_start().starts_with('|'))
        .map(|(_, w)| {
            let sign = if w.op == Op::Delete { '-' } else { '+' };
            let mut text: String = w.text.chars().take(PROSE_WIDTH).collect();
            if w.text.chars().count() > PROSE_WIDTH {
                text.push('…');
            }
            (sign, text)
        })
        .collect();
    let more = p.lines.len() - shown.len();
    (shown, more)
}

/// A line per side that had errors, and one naming the clauses not compared because of them.
fn errors_note(diff: &Diff, old: &Side, new: &Side) -> Vec<String> {
    let mut notes: Vec<String> = [("old", old), ("new", new)]
        .into_iter()
        .filter(|(_, s)| s.errors > 0)
        .map(|(which, s)| {
            format!(
                "the {which} version ({}) has {} error{} (reported above); the diff covers what parsed",
                s.label,
                s.errors,
                plural(s.errors)
            )
        })
        .collect();
    if !diff.not_compared.is_empty() {
        notes.push(format!(
            "not compared (a block with errors on one side): {}",
            diff.not_compared.join(", ")
        ));
    }
    notes
}

/// The terminal listing: a heading per chapter, a line per change; colour when `styled`.
pub fn terminal(diff: &Diff, old: &Side, new: &Side, styled: bool) -> String {
    let paint = |style: Style, s: &str| {
        if styled && !s.is_empty() {
            format!("{}{s}{}", style.render(), style.render_reset())
        } else {
            s.to_owned()
        }
    };
    let red = Style::new().fg_color(Some(AnsiColor::Red.into()));
    let green = Style::new().fg_color(Some(AnsiColor::Green.into()));
    let bold = Style::new().effects(Effects::BOLD);
    let del = |s: &str| {
        if styled {
            paint(red.effects(Effects::STRIKETHROUGH), s)
        } else {
            format!("[-{s}-]")
        }
    };
    let ins = |s: &str| {
        if styled {
            paint(green, s)
        } else {
            format!("{{+{s}+}}")
        }
    };
    let mut out = String::new();
    let _ = writeln!(out, "{} → {}", old.label, new.label);
    for note in errors_note(diff, old, new) {
        let _ = writeln!(out, "note: {note}");
    }
    for line in parts_lines(&diff.parts, |n| paint(bold, n)) {
        let _ = writeln!(out, "{line}");
    }
    if diff.changes.is_empty() {
        let _ = writeln!(out, "no clause changed");
    } else {
        let n = diff.changes.len();
        let _ = writeln!(
            out,
            "{n} clause change{}: {}",
            plural(n),
            counts(&diff.changes)
        );
    }
    let width = diff.changes.iter().map(|c| c.id.chars().count()).max();
    let line = |c: &Change| {
        let pad = width.unwrap_or(0) - c.id.chars().count();
        format!(
            "  {:<11} {}{}  {}",
            c.kind.as_str(),
            paint(bold, &c.id),
            " ".repeat(pad),
            detail(c, del, ins)
        )
    };
    let groups = Groups::of(&diff.changes);
    if !groups.first.is_empty() {
        let _ = writeln!(out, "\n{}", paint(bold, "levels and actors"));
        for c in &groups.first {
            let _ = writeln!(out, "{}", line(c));
        }
    }
    for (chapter, changes) in by_chapter(&groups.rest) {
        let _ = writeln!(out, "\n{}", paint(bold, chapter));
        for c in changes {
            let _ = writeln!(out, "{}", line(c));
        }
    }
    if let Some(moves) = groups.moves_line() {
        let _ = writeln!(out, "\n{moves}");
    }
    if !groups.links.is_empty() {
        let _ = writeln!(
            out,
            "\n{}",
            paint(
                bold,
                &format!("link targets only (the same words): {}", groups.links.len())
            )
        );
        for c in &groups.links {
            let _ = writeln!(out, "{}", line(c));
        }
    }
    if !diff.prose.is_empty() {
        let _ = writeln!(out, "\n{}", paint(bold, "prose (lines)"));
        for p in &diff.prose {
            let _ = writeln!(
                out,
                "  {} ({})  {} {}",
                p.chapter,
                p.lang,
                paint(green, &format!("+{}", p.added)),
                paint(red, &format!("-{}", p.removed))
            );
            let (lines, more) = prose_lines(p);
            for (sign, text) in lines {
                let style = if sign == '-' { red } else { green };
                let _ = writeln!(out, "    {}", paint(style, &format!("{sign} {text}")));
            }
            if more > 0 {
                let _ = writeln!(out, "    … {more} more line{}", plural(more));
            }
        }
    }
    out
}

/// Markdown for a pull-request comment: a summary, a table per chapter, the prose counts. Text
/// from the spec is put in table cells, so `|` is escaped and line breaks become spaces.
pub fn markdown(diff: &Diff, old: &Side, new: &Side) -> String {
    let cell = |s: &str| s.replace('|', "\\|");
    let del = |s: &str| format!("<del>{}</del>", cell(s));
    let ins = |s: &str| format!("<ins>{}</ins>", cell(s));
    let mut out = String::new();
    let _ = writeln!(
        out,
        "### Contract changes: `{}` → `{}`\n",
        old.label, new.label
    );
    for note in errors_note(diff, old, new) {
        let _ = writeln!(out, "> [!WARNING]\n> {note}\n");
    }
    for line in parts_lines(&diff.parts, |n| format!("`{n}`")) {
        let mut line = line;
        line[..1].make_ascii_uppercase();
        let _ = writeln!(out, "{line}.\n");
    }
    if diff.changes.is_empty() {
        let _ = writeln!(out, "No clause changed.");
    } else {
        let n = diff.changes.len();
        let _ = writeln!(
            out,
            "**{n} clause change{}**: {}.",
            plural(n),
            counts(&diff.changes)
        );
    }
    let table = |out: &mut String, heading: &str, changes: &[&Change]| {
        let _ = writeln!(out, "\n#### {heading}\n");
        let _ = writeln!(out, "| change | clause | what |\n| --- | --- | --- |");
        for c in changes {
            let _ = writeln!(
                out,
                "| {} | `{}` | {} |",
                c.kind.as_str(),
                c.id,
                detail(c, del, ins)
            );
        }
    };
    let groups = Groups::of(&diff.changes);
    if !groups.first.is_empty() {
        table(&mut out, "Levels and actors", &groups.first);
    }
    for (chapter, changes) in by_chapter(&groups.rest) {
        table(&mut out, chapter, &changes);
    }
    if let Some(moves) = groups.moves_line() {
        let _ = writeln!(out, "\n{}.", cell(&moves));
    }
    if !groups.links.is_empty() {
        table(
            &mut out,
            "Link targets only (the same words)",
            &groups.links,
        );
    }
    if !diff.prose.is_empty() {
        let _ = writeln!(
            out,
            "\n#### Prose\n\n| chapter | language | lines added | lines removed |\n| --- | --- | --- | --- |"
        );
        for p in &diff.prose {
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} |",
                p.chapter, p.lang, p.added, p.removed
            );
        }
        // What changed, briefly: a diff block per chapter (a fence longer than any run of
        // backticks in the lines, so none closes it).
        for p in &diff.prose {
            let (lines, more) = prose_lines(p);
            let ticks = lines
                .iter()
                .map(|(_, t)| longest_run(t, '`'))
                .max()
                .unwrap_or(0)
                .max(2)
                + 1;
            let fence = "`".repeat(ticks);
            let _ = writeln!(out, "\n{} ({}):\n\n{fence}diff", p.chapter, p.lang);
            for (sign, text) in lines {
                let _ = writeln!(out, "{sign} {text}");
            }
            if more > 0 {
                let _ = writeln!(out, "… {more} more line{}", plural(more));
            }
            let _ = writeln!(out, "{fence}");
        }
    }
    out
}

/// The longest run of `c` in `s`.
fn longest_run(s: &str, c: char) -> usize {
    s.split(|x| x != c).map(str::len).max().unwrap_or(0)
}
