//! The `Clause:` lines of a file: every doc attribute, at any depth, whose text has a line starting
//! with the marker (in any ASCII case: a miscased one is reported, K0504), located in the source.

use std::ops::Range;

use serde::{Deserialize, Serialize};

use proc_macro2::{Delimiter, TokenTree};

use super::tokens::{AttrKind, attr_kind, group, is_punct, range_of};

/// One `Clause:` line in a doc attribute anywhere in a file.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Site {
    /// Start of the doc attribute holding it (identifies the attribute).
    pub attr_start: usize,
    /// The text after `Clause:` (trimmed) and its byte range.
    pub id: String,
    /// Byte range of `id` in the file.
    pub id_range: Range<usize>,
    /// The whole `Clause:` marker, for diagnostics when the id is empty.
    pub marker_range: Range<usize>,
    /// The clause's stamp recorded after ` @ ` (`Clause: config.env.port @ 3ffbcbe9a1b2`): the
    /// clause text the test was last reviewed against. `None` for an annotation without one (an
    /// older test suite, still valid).
    pub stamp: Option<String>,
    /// Byte range of `stamp` in the file; when there is none, the empty range just after the id
    /// (where `review` and `scaffold` insert ` @ <stamp>`).
    pub stamp_range: Range<usize>,
    /// The marker was not spelled exactly `Clause:` (e.g. `clause:`).
    pub miscased: bool,
}

/// Every `Clause:` line in every doc attribute, at any depth (function bodies, impls, macros):
/// the ones not on a test are reported as stray.
pub(super) fn collect_sites(trees: &[TokenTree], src: &str, out: &mut Vec<Site>) {
    let markers: Vec<usize> = marker_offsets(src.as_bytes()).collect();
    if !markers.is_empty() {
        walk(trees, src, &markers, out);
    }
}

/// Does a marker lie within `r`? `markers` are the sorted offsets of every marker in the file.
/// A site's marker is found verbatim inside its attribute, so an attribute or a group without one
/// holds no site: it is neither decoded nor entered (most of a file, in practice).
fn holds_marker(markers: &[usize], r: Range<usize>) -> bool {
    let i = markers.partition_point(|&m| m < r.start);
    markers.get(i).is_some_and(|&m| m + MARKER.len() <= r.end)
}

fn walk(trees: &[TokenTree], src: &str, markers: &[usize], out: &mut Vec<Site>) {
    let mut i = 0;
    while i < trees.len() {
        if let TokenTree::Punct(p) = &trees[i]
            && p.as_char() == '#'
        {
            let bang = is_punct(trees.get(i + 1), '!');
            let gi = if bang { i + 2 } else { i + 1 };
            if let Some(g) = group(trees.get(gi), Delimiter::Bracket) {
                let attr = range_of(&trees[i]).start..g.span().byte_range().end;
                if holds_marker(markers, attr.clone())
                    && let AttrKind::Doc(text) = attr_kind(&g.stream())
                {
                    sites_in_doc(&text, src, attr, out);
                }
                i = gi + 1;
                continue;
            }
        }
        if let TokenTree::Group(g) = &trees[i]
            && holds_marker(markers, g.span().byte_range())
        {
            let inner: Vec<TokenTree> = g.stream().into_iter().collect();
            walk(&inner, src, markers, out);
        }
        i += 1;
    }
}

/// Find the `Clause:` lines of one doc attribute and locate each in the source (the attribute's
/// text is searched in order, so two lines with the same id get their own spans).
pub(super) fn sites_in_doc(text: &str, src: &str, attr: Range<usize>, out: &mut Vec<Site>) {
    let slice = src.get(attr.clone()).unwrap_or("");
    let mut from = 0;
    for line in text.lines() {
        let t = line.trim_start();
        // Skip a leading `*` of a block doc comment's continuation lines.
        let t = t.strip_prefix('*').map_or(t, str::trim_start);
        if t.len() < 7 || !t.is_char_boundary(7) || !t[..7].eq_ignore_ascii_case("clause:") {
            continue;
        }
        let marker = &t[..7];
        let rest = t[7..].trim();
        // `<id> @ <stamp>`: the stamp is whatever follows the last `@` (ids never hold one).
        let (id, stamp) = match rest.rsplit_once('@') {
            Some((id, stamp)) => (id.trim(), Some(stamp.trim())),
            None => (rest, None),
        };
        // Locate in the source: the marker, then the id after it, then the stamp.
        let Some(m) = slice[from..].find(marker) else {
            continue;
        };
        let mstart = from + m;
        let after = mstart + marker.len();
        let id_off = slice[after..]
            .find(|c: char| !c.is_whitespace() || c == '\n')
            .map_or(after, |k| after + k);
        let (id_start, id_end) = if id.is_empty() || !slice[id_off..].starts_with(id) {
            (id_off, id_off)
        } else {
            (id_off, id_off + id.len())
        };
        let stamp_range = match stamp {
            Some(st) => {
                let line_end = slice[id_end..]
                    .find('\n')
                    .map_or(slice.len(), |k| id_end + k);
                match slice[id_end..line_end].find('@') {
                    Some(at) => {
                        let s0 = id_end + at + 1;
                        let s0 = slice[s0..line_end]
                            .find(|c: char| !c.is_whitespace())
                            .map_or(s0, |k| s0 + k);
                        if slice[s0..].starts_with(st) {
                            s0..s0 + st.len()
                        } else {
                            s0..s0
                        }
                    }
                    None => id_end..id_end,
                }
            }
            None => id_end..id_end,
        };
        from = id_end.max(after).max(stamp_range.end);
        out.push(Site {
            attr_start: attr.start,
            id: id.to_string(),
            id_range: attr.start + id_start..attr.start + id_end,
            marker_range: attr.start + mstart..attr.start + after,
            miscased: marker != "Clause:",
            stamp: stamp.map(str::to_string),
            stamp_range: attr.start + stamp_range.start..attr.start + stamp_range.end,
        });
    }
}

/// The marker as `sites_in_doc` compares it (ASCII case ignored, so a miscased one is found too).
const MARKER: &[u8] = b"clause:";

/// The offsets of the marker in a text, in order.
fn marker_offsets(text: &[u8]) -> impl Iterator<Item = usize> + '_ {
    text.windows(MARKER.len())
        .enumerate()
        .filter(|(_, w)| w.eq_ignore_ascii_case(MARKER))
        .map(|(i, _)| i)
}

/// Whether a file's bytes can hold a `Clause:` line at all. A site's marker is always found
/// verbatim in the source (in some ASCII case), so a file without those seven bytes has no sites,
/// and the scan need not tokenise it: on this repository that is most of its Rust files. (A
/// `#[doc = "…"]` that spells the marker with escapes is not located in the source and was never a
/// site.)
pub fn may_hold_annotation(text: &[u8]) -> bool {
    marker_offsets(text).next().is_some()
}
