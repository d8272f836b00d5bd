//! Every URL kcontract publishes, from any input (contract.yaml, a chapter's links, a profile, a
//! Service, a run report, a vendor log, interface text), judged by one function, [`judge`]: a web
//! address (`http:`, `https:`), a relative path or a fragment is kept; anything else
//! (`javascript:`, `data:`, `vbscript:`, `file:`, `mailto:`, an unknown scheme, a scheme hidden by a
//! tab or a newline that browsers strip) is refused. Why one function: each reader used to carry its
//! own test, and the one that had none (a run report's `documentation[].url`) published a live
//! `javascript:` link. A reader refuses a refused URL with a diagnostic; a page that must still
//! show something uses [`inert`].

/// The schemes a published link may have; any other could run in a reader's browser or open a
/// local file or program. `mailto:` is refused too: an address is not a script, but it hands the
/// reader to a local mail program with text the link's author chose, and the rule of issue #50 is
/// the list (web, relative, fragment), so the next scheme someone finds harmless is a decision to
/// make here, not a gap. A contract names a mailing list by its web page.
pub const LINK_SCHEMES: [&str; 2] = ["http", "https"];

/// What a kept URL is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UrlKind {
    /// `http:` or `https:` (or protocol-relative `//host/…`).
    Web,
    /// A path relative to the page (`other.html`, `../x/`, `?q`).
    Relative,
    /// `#anchor` on the same page.
    Fragment,
}

/// Why a URL is refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum UrlRefused {
    /// Whitespace or a control character: browsers strip them, so `java\tscript:` is `javascript:`.
    Hidden,
    /// A scheme other than [`LINK_SCHEMES`], as written.
    Scheme(String),
}

impl std::fmt::Display for UrlRefused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            UrlRefused::Hidden => f.write_str("whitespace or a control character in an address"),
            UrlRefused::Scheme(s) => write!(f, "the `{s}:` scheme is not a web link"),
        }
    }
}

impl std::error::Error for UrlRefused {}

/// The scheme of a URL (`https` of `https://…`), as written, if it has one (RFC 3986: a letter,
/// then letters, digits, `+`, `-`, `.`, then `:`).
pub fn scheme_of(url: &str) -> Option<&str> {
    let (scheme, _) = url.split_once(':')?;
    (!scheme.is_empty()
        && scheme.starts_with(|c: char| c.is_ascii_alphabetic())
        && scheme
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c)))
    .then_some(scheme)
}

/// Whether `url` may be published as a link, and as what. The URL is judged as written (a
/// leading or trailing space included): a reader that trims does so before calling.
pub fn judge(url: &str) -> Result<UrlKind, UrlRefused> {
    if url.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err(UrlRefused::Hidden);
    }
    match scheme_of(url) {
        Some(s) => match s.to_ascii_lowercase().as_str() {
            "http" | "https" => Ok(UrlKind::Web),
            _ => Err(UrlRefused::Scheme(s.to_owned())),
        },
        // `a:b` whose part before `:` is not a scheme (`1x:`, `:x`): a browser reads it as a
        // relative path only when it has a `/`, `?` or `#` before the `:`; refuse the others.
        None if url
            .split(['/', '?', '#'])
            .next()
            .is_some_and(|p| p.contains(':')) =>
        {
            Err(UrlRefused::Scheme(
                url.split(':').next().unwrap_or("").to_owned(),
            ))
        }
        None if url.starts_with("//") => Ok(UrlKind::Web),
        None if url.starts_with('#') => Ok(UrlKind::Fragment),
        None => Ok(UrlKind::Relative),
    }
}

/// `url` when [`judge`] keeps it, `#` (a link to nowhere) when it refuses it: for a page that
/// shows what an already-checked input holds, so a reader that forgot the check still publishes
/// nothing live.
pub fn inert(url: &str) -> &str {
    if judge(url).is_ok() { url } else { "#" }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn web_relative_and_fragments_are_kept_and_the_rest_refused() {
        for (u, k) in [
            ("https://x.example/a", UrlKind::Web),
            ("HTTP://x", UrlKind::Web),
            ("//x.example/a", UrlKind::Web),
            ("other.html#a", UrlKind::Relative),
            ("../x/y:z", UrlKind::Relative),
            ("?q=a:b", UrlKind::Relative),
            ("#top", UrlKind::Fragment),
        ] {
            assert_eq!(judge(u), Ok(k), "{u}");
        }
        for u in [
            "javascript:alert(1)",
            "JaVaScRiPt:alert(1)",
            "java\tscript:alert(1)",
            " javascript:x",
            "data:text/html,x",
            "vbscript:x",
            "file:///etc/passwd",
            "mailto:a@b",
            "1x:y",
            ":x",
        ] {
            assert!(judge(u).is_err(), "{u:?}");
            assert_eq!(inert(u), "#");
        }
        assert_eq!(inert("https://x"), "https://x");
    }
}
