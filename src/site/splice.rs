//! Large finished HTML goes to the page templates as short placeholders and is spliced into the
//! rendered page afterwards.
//!
//! Why: a page's sidebar, its clause sections and the rows of the two index pages are finished
//! HTML — 100 MB of the 107 MB of a ×100 site. Handed to tera as values, each was copied into the
//! value, then copied again by the renderer into the page. With placeholders the template renders a
//! few kilobytes and every piece of HTML is copied once, into the page. This is only done while the
//! page templates are the embedded ones, which print these values as they are (an overriding template
//! might filter or measure them, so it gets the real values); and if the placeholders are not each
//! found exactly once in what the template rendered, the page is rendered again with the real
//! values. `tests/site.rs` holds the spliced site byte-identical to one rendered without it.

use std::ops::Range;

use tera::value::Value;

/// Opens and closes a placeholder. Markdown text cannot contain it (CommonMark replaces it), and a
/// value that smuggles a placeholder in makes its count wrong, which the check below catches.
const MARK: u8 = 0;

/// The finished HTML of one page, slot by slot. A slot is a few adjacent pieces (the sidebar is
/// three: up to the current page's link, its `aria-current` attribute, the rest).
#[derive(Default)]
pub struct Slots<'a> {
    pieces: Vec<&'a str>,
    slots: Vec<Range<usize>>,
}

impl<'a> Slots<'a> {
    /// Add a slot made of `pieces`, in order; returns its number.
    pub fn add(&mut self, pieces: &[&'a str]) -> usize {
        let start = self.pieces.len();
        self.pieces.extend_from_slice(pieces);
        self.slots.push(start..self.pieces.len());
        self.slots.len() - 1
    }

    /// The bytes of HTML over all slots.
    pub fn len(&self) -> usize {
        self.pieces.iter().map(|p| p.len()).sum()
    }

    /// The value a template gets for slot `i`: its placeholder, or its HTML (both marked safe).
    pub fn value(&self, i: usize, placeholder: bool) -> Value {
        if placeholder {
            Value::safe_string(&format!("\0kc:{i}\0"))
        } else {
            Value::safe_string(&self.pieces[self.slots[i].clone()].concat())
        }
    }

    /// `rendered` with each placeholder replaced by its slot's HTML, or `None` unless every slot's
    /// placeholder occurs exactly once and nothing else looks like one.
    pub fn splice(&self, rendered: &[u8]) -> Option<Vec<u8>> {
        let mut out = Vec::with_capacity(rendered.len() + self.len());
        let mut seen = vec![false; self.slots.len()];
        let mut rest = rendered;
        while let Some(at) = rest.iter().position(|&b| b == MARK) {
            out.extend_from_slice(&rest[..at]);
            let after = rest[at + 1..].strip_prefix(b"kc:")?;
            let end = after.iter().position(|&b| b == MARK)?;
            let digits = &after[..end];
            if digits.is_empty() || digits.len() > 9 || !digits.iter().all(u8::is_ascii_digit) {
                return None;
            }
            let i: usize = std::str::from_utf8(digits).ok()?.parse().ok()?;
            if std::mem::replace(seen.get_mut(i)?, true) {
                return None;
            }
            for piece in &self.pieces[self.slots[i].clone()] {
                out.extend_from_slice(piece.as_bytes());
            }
            rest = &after[end + 1..];
        }
        out.extend_from_slice(rest);
        seen.iter().all(|s| *s).then_some(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn placeholder(s: &Slots, i: usize) -> String {
        s.value(i, true).as_str().unwrap().to_string()
    }

    proptest! {
        /// Text with placeholders spliced equals the same text with the HTML put in directly.
        #[test]
        fn splicing_equals_putting_the_html_in(
            slots in proptest::collection::vec(proptest::collection::vec("[a-z<>\"&容 ]{0,6}", 1..4), 0..6),
            around in proptest::collection::vec("[a-z<> \n器]{0,8}", 7),
        ) {
            let mut s = Slots::default();
            for pieces in &slots {
                let refs: Vec<&str> = pieces.iter().map(String::as_str).collect();
                s.add(&refs);
            }
            let (mut with_placeholders, mut direct) = (around[6].clone(), around[6].clone());
            // Slots in reverse order, to show order does not matter.
            for i in (0..slots.len()).rev() {
                with_placeholders.push_str(&placeholder(&s, i));
                with_placeholders.push_str(&around[i]);
                direct.push_str(&slots[i].concat());
                direct.push_str(&around[i]);
            }
            prop_assert_eq!(s.splice(with_placeholders.as_bytes()), Some(direct.into_bytes()));
        }
    }

    #[test]
    fn a_missing_repeated_or_forged_placeholder_is_refused() {
        let mut s = Slots::default();
        let toc = s.add(&["<nav>", " aria-current", "</nav>"]);
        let body = s.add(&["<p>x</p>"]);
        let (t, b) = (placeholder(&s, toc), placeholder(&s, body));
        assert_eq!(
            s.splice(format!("a{t}b{b}c").as_bytes()),
            Some(b"a<nav> aria-current</nav>b<p>x</p>c".to_vec())
        );
        assert_eq!(
            s.value(toc, false).as_str(),
            Some("<nav> aria-current</nav>")
        );
        for bad in [
            format!("a{t}"),            // a slot not printed
            format!("{t}{b}{b}"),       // printed twice
            format!("{t}{b}\0kc:9\0"),  // no such slot
            format!("{t}{b}\0kc:\0"),   // no number
            format!("{t}{b}\0kc:1"),    // not closed
            format!("{t}{b}\0"),        // a stray mark
            format!("{t}{b}\0kc:+1\0"), // not digits
            format!("{t}{b}\0kc:99999999999999999999\0"),
        ] {
            assert_eq!(s.splice(bad.as_bytes()), None, "{bad:?}");
        }
    }
}
