//! Which clauses a selector picks: one grammar for the matrix gate (`--require SELECTOR=STATUS`),
//! the scaffold's and the matrix's scope (`--select`, `select =` in `kcontract.toml`) and
//! `matrix --only`.
//!
//! ```text
//! selector := alternative ('|' alternative)*      any alternative holds (OR)
//! alternative := term (',' term)*                 every term holds (AND)
//! term := ['!'] ( '*' | LEVEL | level:LEVEL | actor:NAME | verify:NAME | chapter:NAME | id:GLOB )
//! ```
//!
//! `,` binds tighter than `|`, as in OpenFastTrace's and most filter languages' AND/OR; `!`
//! negates one term. `id:` takes a glob over the clause id (`*` any run of characters, `?` one),
//! so a crate can name single clauses (`id:config.env.port`) or families (`id:lifecycle.*`).
//! Names are checked against the contract ([`Selector::unknown_name`]), and a selector that picks
//! nothing is the caller's usage error: a gate over no clause would pass by default.

use std::fmt;
use std::str::FromStr;

use kcontract_spec::{Actor, Clause, Level, Spec, Verify};

/// One term of a selector.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Term {
    /// `*` (or `all`): every clause.
    All,
    /// A level (`MUST`, `level:SHOULD NOT`, synonyms accepted).
    Level(Level),
    /// `actor:…`.
    Actor(Actor),
    /// `verify:…`.
    Verify(Verify),
    /// `chapter:NAME`: the chapter's file stem.
    Chapter(String),
    /// `id:GLOB`: the clause id, `*` and `?` as wildcards.
    Id(String),
}

impl Term {
    fn matches(&self, c: &Clause) -> bool {
        match self {
            Term::All => true,
            Term::Level(l) => c.level == *l,
            Term::Actor(a) => c.actor == *a,
            Term::Verify(v) => c.verify == *v,
            Term::Chapter(ch) => c.chapter == *ch,
            Term::Id(g) => glob(g.as_bytes(), c.id.as_bytes()),
        }
    }
}

/// `*` matches any run of bytes, `?` one byte; everything else itself. Ids are ASCII.
fn glob(p: &[u8], s: &[u8]) -> bool {
    match (p.first(), s.first()) {
        (None, None) => true,
        (Some(b'*'), _) => glob(&p[1..], s) || (!s.is_empty() && glob(p, &s[1..])),
        (Some(b'?'), Some(_)) => glob(&p[1..], &s[1..]),
        (Some(a), Some(b)) if a == b => glob(&p[1..], &s[1..]),
        _ => false,
    }
}

/// A term, possibly negated (`!actor:developer`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lit {
    /// `!` was written before the term.
    pub negated: bool,
    /// The term.
    pub term: Term,
}

/// A parsed selector: alternatives (OR) of terms (AND). See the module documentation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Selector {
    /// As written, for messages.
    pub text: String,
    /// Any of these holds; each holds when all its literals do.
    pub any: Vec<Vec<Lit>>,
}

impl Selector {
    /// Does the selector pick clause `c`?
    pub fn selects(&self, c: &Clause) -> bool {
        self.any
            .iter()
            .any(|all| all.iter().all(|l| l.term.matches(c) != l.negated))
    }

    /// Every term, in order.
    pub(crate) fn terms(&self) -> impl Iterator<Item = &Term> {
        self.any.iter().flatten().map(|l| &l.term)
    }

    /// An actor or verify kind of the selector that `contract` does not have, and what it has
    /// (such a term would select nothing, and a gate pass by default).
    pub fn unknown_name(&self, contract: &kcontract_spec::Contract) -> Option<(String, String)> {
        let list = |names: Vec<&str>| names.join(", ");
        self.terms().find_map(|t| match t {
            Term::Actor(a) if contract.actor(a.as_str()).is_none() => Some((
                format!("actor:{a}"),
                format!(
                    "the actors are {}",
                    list(contract.actor_list().map(Actor::as_str).collect())
                ),
            )),
            Term::Verify(v) if contract.verify_kind(v.as_str()).is_none() => Some((
                format!("verify:{v}"),
                format!(
                    "the verify kinds are {}",
                    list(contract.verify_list().map(Verify::as_str).collect())
                ),
            )),
            _ => None,
        })
    }

    /// Why the selector picks no clause of `spec` (a hint for the usage error), or `None` when it
    /// picks some. Names the chapter meant when a `chapter:` term is misspelt, and the nearest id
    /// when an `id:` term without wildcards names no clause.
    pub fn selects_nothing(&self, spec: &Spec) -> Option<String> {
        if spec.clauses.iter().any(|c| self.selects(c)) {
            return None;
        }
        let mut hint = String::from("it selects no clause, so it would check nothing");
        for t in self.terms() {
            match t {
                Term::Chapter(ch) if !spec.contract.chapters.contains(ch) => {
                    let chapters = spec.contract.chapters.iter().map(String::as_str);
                    let near = spec
                        .contract
                        .chapters
                        .iter()
                        .find(|c| c.starts_with(ch.as_str()))
                        .map(String::as_str)
                        .or_else(|| {
                            kcontract_spec::suggest::closest(ch, chapters, |c| 3.max(c.len() / 3))
                        });
                    hint = match near {
                        Some(n) => {
                            format!("there is no chapter `{ch}`: did you mean `chapter:{n}`?")
                        }
                        None => format!(
                            "there is no chapter `{ch}`; the chapters are {}",
                            spec.contract.chapters.join(", ")
                        ),
                    };
                }
                Term::Id(g) if !g.contains(['*', '?']) && spec.clause(g).is_none() => {
                    let near = kcontract_spec::suggest::closest(
                        g,
                        spec.by_id.keys().map(String::as_str),
                        |k| 3.max(k.len() / 6),
                    );
                    hint = match near {
                        Some(n) => format!("there is no clause `{g}`: did you mean `id:{n}`?"),
                        None => format!(
                            "there is no clause `{g}` (`kcontract list` shows every id; `id:` takes globs such as `id:config.*`)"
                        ),
                    };
                }
                _ => {}
            }
        }
        Some(hint)
    }
}

impl fmt::Display for Selector {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// What a term may be, for the error message.
const TERMS: &str = "a level (MUST, MUST NOT, SHOULD, SHOULD NOT, MAY), actor:NAME, verify:NAME \
                     (the contract's actors and verify kinds), chapter:NAME, id:GLOB or *, \
                     each optionally preceded by `!`; join terms with `,` (all must hold) and \
                     alternatives with `|` (any may hold)";

/// A term of a selector that is none of the grammar's; its text is clap's message for the option
/// and the label of K0520 for a `kcontract.toml`'s `select`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SelectorError {
    /// A clause id written without `id:`.
    #[error("`{term}` is not a selector term (a clause id is written `id:{body}`): use {TERMS}", TERMS = TERMS)]
    BareId {
        /// The term as written.
        term: String,
        /// The term without its `!`: the id.
        body: String,
    },
    /// Anything else.
    #[error("`{term}` is not a selector term: use {TERMS}", TERMS = TERMS)]
    NotATerm {
        /// The term as written.
        term: String,
    },
}

impl FromStr for Selector {
    type Err = SelectorError;
    fn from_str(s: &str) -> Result<Self, SelectorError> {
        let mut any = Vec::new();
        for alt in s.split('|') {
            let mut all = Vec::new();
            for t in alt.split(',') {
                let t = t.trim();
                let (negated, body) = match t.strip_prefix('!') {
                    Some(rest) => (true, rest.trim_start()),
                    None => (false, t),
                };
                let (key, value) = match body.split_once(':') {
                    Some((k, v)) => (Some(k.trim()), v.trim()),
                    None => (None, body),
                };
                let level = |v: &str| {
                    let norm = v.to_uppercase().replace(['-', '_'], " ");
                    let norm = norm.split_whitespace().collect::<Vec<_>>().join(" ");
                    Level::from_keyword(&norm)
                };
                let term = match key {
                    None if value == "*" || value == "all" => Some(Term::All),
                    None | Some("level") => level(value).map(Term::Level),
                    Some("actor") if !value.is_empty() => Some(Term::Actor(Actor::new(value))),
                    Some("verify") if !value.is_empty() => Some(Term::Verify(Verify::new(value))),
                    Some("chapter") if !value.is_empty() => Some(Term::Chapter(value.to_string())),
                    Some("id") if !value.is_empty() && !value.contains(char::is_whitespace) => {
                        Some(Term::Id(value.to_string()))
                    }
                    _ => None,
                };
                let term = term.ok_or_else(|| {
                    if key.is_none() && body.contains('.') {
                        SelectorError::BareId {
                            term: t.to_string(),
                            body: body.to_string(),
                        }
                    } else {
                        SelectorError::NotATerm {
                            term: t.to_string(),
                        }
                    }
                })?;
                all.push(Lit { negated, term });
            }
            any.push(all);
        }
        Ok(Selector {
            text: s.trim().to_string(),
            any,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grammar() {
        let s: Selector = "verify:model".parse().unwrap();
        assert_eq!(
            s.terms().collect::<Vec<_>>(),
            [&Term::Verify(Verify::new("model"))]
        );
        let s: Selector = "MUST NOT,actor:platform".parse().unwrap();
        assert_eq!(s.any.len(), 1);
        assert_eq!(s.any[0].len(), 2);
        for t in ["must-not", "level:MUST_NOT", "SHALL NOT"] {
            let s: Selector = t.parse().unwrap();
            assert_eq!(s.terms().next(), Some(&Term::Level(Level::MustNot)), "{t}");
        }
        let s: Selector = "actor:platform,verify:conformance | id:config.* ,!MAY"
            .parse()
            .unwrap();
        assert_eq!(s.any.len(), 2);
        assert!(s.any[1][1].negated);
        assert_eq!(s.any[1][0].term, Term::Id("config.*".into()));
        for bad in [
            "",
            "verify:model,",
            "chapter:",
            "id:",
            "config.env.port",
            "a|",
        ] {
            let e = bad.parse::<Selector>().unwrap_err().to_string();
            assert!(e.contains("is not a selector term"), "{bad}: {e}");
        }
        assert!(
            "config.env.port"
                .parse::<Selector>()
                .unwrap_err()
                .to_string()
                .contains("`id:config.env.port`")
        );
    }

    #[test]
    fn globs() {
        for (p, s, want) in [
            ("config.*", "config.env.port", true),
            ("config.*", "configuration.x", false),
            ("*.port", "config.env.port", true),
            ("a.?", "a.b", true),
            ("a.?", "a.bc", false),
            ("a.b", "a.b", true),
            ("*", "", true),
        ] {
            assert_eq!(glob(p.as_bytes(), s.as_bytes()), want, "{p} {s}");
        }
    }
}
