//! Escaping text for HTML and for JSON strings, eight bytes at a time.
//!
//! Why: a ×100 build escapes ~100 MB of text into pages, `clauses.json` and the search indexes.
//! Almost every byte needs no escape, so the time went into asking each byte whether it does. Here a
//! machine word of eight bytes is tested at once (the "has a zero byte" bit trick on the word XORed
//! with each special byte); only a word that holds a special byte is looked at byte by byte.
//!
//! Both escapers must write exactly what they replace: [`escape_html`] what tera's default
//! escaper writes, [`escape_json`] what serde_json writes inside a string. The tests compare them
//! with byte-by-byte reference versions on random text.

const LO: u64 = 0x0101_0101_0101_0101;
const HI: u64 = 0x8080_8080_8080_8080;

/// Is any byte of `v` zero? Exact (the borrow of a zero byte can only wrongly flag bytes above
/// a zero byte, never a word without one).
#[inline(always)]
fn has_zero(v: u64) -> bool {
    v.wrapping_sub(LO) & !v & HI != 0
}

/// Is any byte of `v` equal to `b`?
#[inline(always)]
fn has_byte(v: u64, b: u8) -> bool {
    has_zero(v ^ (LO * b as u64))
}

/// Is any byte of `v` less than `n` (n ≤ 128)? Exact, like [`has_zero`].
#[inline(always)]
fn has_less(v: u64, n: u8) -> bool {
    v.wrapping_sub(LO * n as u64) & !v & HI != 0
}

/// The index of the first byte at or after `i` that is `special`. `word` must say true for every
/// eight-byte word that holds a special byte (it may also say true for some that do not).
#[inline(always)]
fn find(bytes: &[u8], mut i: usize, word: impl Fn(u64) -> bool, special: &[bool; 256]) -> usize {
    while i + 8 <= bytes.len() {
        let mut w = [0u8; 8];
        w.copy_from_slice(&bytes[i..i + 8]);
        if word(u64::from_le_bytes(w)) {
            break;
        }
        i += 8;
    }
    while i < bytes.len() && !special[bytes[i] as usize] {
        i += 1;
    }
    i
}

const fn table(bytes: &[u8], below: u8) -> [bool; 256] {
    let mut t = [false; 256];
    let mut b = 0;
    while b < below as usize {
        t[b] = true;
        b += 1;
    }
    let mut i = 0;
    while i < bytes.len() {
        t[bytes[i] as usize] = true;
        i += 1;
    }
    t
}

static HTML: [bool; 256] = table(b"&<>\"'", 0);

fn html_word(v: u64) -> bool {
    has_byte(v, b'&')
        | has_byte(v, b'<')
        | has_byte(v, b'>')
        | has_byte(v, b'"')
        | has_byte(v, b'\'')
}

/// HTML-escape `s` the way tera's default escaper does (`&`, `<`, `>`, `"`, `'`), handing `emit`
/// the runs between special bytes whole.
pub fn html_runs<E>(s: &str, mut emit: impl FnMut(&str) -> Result<(), E>) -> Result<(), E> {
    let bytes = s.as_bytes();
    let mut from = 0;
    loop {
        let i = find(bytes, from, html_word, &HTML);
        if i == bytes.len() {
            return emit(&s[from..]);
        }
        // Special bytes are ASCII, so both slices end on character boundaries.
        emit(&s[from..i])?;
        emit(match bytes[i] {
            b'&' => "&amp;",
            b'<' => "&lt;",
            b'>' => "&gt;",
            b'"' => "&quot;",
            _ => "&#39;",
        })?;
        from = i + 1;
    }
}

/// HTML-escape `s` onto `out` (see [`html_runs`]).
pub fn escape_html(out: &mut String, s: &str) {
    let _ = html_runs::<std::convert::Infallible>(s, |run| {
        out.push_str(run);
        Ok(())
    });
}

static JSON: [bool; 256] = table(b"\"\\", 0x20);
static JSON_SCRIPT: [bool; 256] = table(b"\"\\<", 0x20);

/// Write `s` escaped as the inside of a JSON string, as serde_json does: `"` and `\` with a
/// backslash, the control characters below U+0020 as `\b \t \n \f \r` or `\u00XX`, everything
/// else as it is. With `script_safe`, `<` is written `\u003c` too, so `</script>` cannot end a
/// script that embeds the JSON.
pub fn escape_json(out: &mut Vec<u8>, s: &str, script_safe: bool) {
    // Two instances, so the word test is inlined into the scan (a function pointer chosen at run
    // time was called for every word).
    if script_safe {
        json_with::<true>(out, s)
    } else {
        json_with::<false>(out, s)
    }
}

#[inline(always)]
fn json_word<const SCRIPT: bool>(v: u64) -> bool {
    has_less(v, 0x20) | has_byte(v, b'"') | has_byte(v, b'\\') | (SCRIPT && has_byte(v, b'<'))
}

fn json_with<const SCRIPT: bool>(out: &mut Vec<u8>, s: &str) {
    let bytes = s.as_bytes();
    let table = if SCRIPT { &JSON_SCRIPT } else { &JSON };
    let mut from = 0;
    loop {
        let i = find(bytes, from, json_word::<SCRIPT>, table);
        out.extend_from_slice(&bytes[from..i]);
        let Some(&b) = bytes.get(i) else { return };
        match b {
            b'"' => out.extend_from_slice(b"\\\""),
            b'\\' => out.extend_from_slice(b"\\\\"),
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\t' => out.extend_from_slice(b"\\t"),
            b'\r' => out.extend_from_slice(b"\\r"),
            0x08 => out.extend_from_slice(b"\\b"),
            0x0c => out.extend_from_slice(b"\\f"),
            _ => {
                const HEX: &[u8; 16] = b"0123456789abcdef";
                out.extend_from_slice(b"\\u00");
                out.push(HEX[(b >> 4) as usize]);
                out.push(HEX[(b & 0xf) as usize]);
            }
        }
        from = i + 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The escaping of tera's default escaper, byte by byte.
    fn html_reference(s: &str) -> String {
        let mut out = String::new();
        for c in s.chars() {
            match c {
                '&' => out.push_str("&amp;"),
                '<' => out.push_str("&lt;"),
                '>' => out.push_str("&gt;"),
                '"' => out.push_str("&quot;"),
                '\'' => out.push_str("&#39;"),
                c => out.push(c),
            }
        }
        out
    }

    /// Text that crowds the special bytes, their neighbours (`%`, `=`, `?`, `[`, `]`, DEL) and
    /// multi-byte characters together, at every offset within a word.
    fn text() -> impl Strategy<Value = String> {
        proptest::collection::vec(
            prop_oneof![
                4 => proptest::char::range('a', 'z'),
                3 => proptest::sample::select(vec![
                    '&', '<', '>', '"', '\'', '\\', '%', '=', '?', '[', ']', '\u{7f}', ' ', '\n',
                    '\t', '\r', '\u{8}', '\u{c}', '\0', '\u{1f}', '\u{1}', '!', '#', '/',
                ]),
                1 => proptest::char::range('\u{80}', '\u{10ffff}'),
                1 => proptest::char::range('\0', '\u{7f}'),
            ],
            0..80,
        )
        .prop_map(|cs| cs.into_iter().collect())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2048))]

        #[test]
        fn html_escaping_equals_the_byte_by_byte_reference(s in text()) {
            let mut out = String::new();
            escape_html(&mut out, &s);
            prop_assert_eq!(out, html_reference(&s));
        }

        /// serde_json is the reference for JSON strings; script-safe is the same with `<` as
        /// `\u003c`.
        #[test]
        fn json_escaping_equals_serde_json(s in text()) {
            let mut out = vec![b'"'];
            escape_json(&mut out, &s, false);
            out.push(b'"');
            prop_assert_eq!(String::from_utf8(out).unwrap(), serde_json::to_string(&s).unwrap());

            let mut safe = vec![b'"'];
            escape_json(&mut safe, &s, true);
            safe.push(b'"');
            let safe = String::from_utf8(safe).unwrap();
            prop_assert!(!safe.contains('<'));
            prop_assert_eq!(safe, serde_json::to_string(&s).unwrap().replace('<', "\\u003c"));
        }
    }

    #[test]
    fn the_word_tests_find_a_special_byte_in_every_lane() {
        for lane in 0..8 {
            for b in 0..=255u8 {
                let mut w = *b"abcdefgh";
                w[lane] = b;
                let v = u64::from_le_bytes(w);
                assert_eq!(
                    html_word(v),
                    HTML[b as usize],
                    "html, byte {b:#x} in lane {lane}"
                );
                assert_eq!(
                    json_word::<false>(v),
                    JSON[b as usize],
                    "json, byte {b:#x} in lane {lane}"
                );
                assert_eq!(
                    json_word::<true>(v),
                    JSON_SCRIPT[b as usize],
                    "script, byte {b:#x} in lane {lane}"
                );
            }
        }
    }
}
