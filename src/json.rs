//! A JSON writer for the site's large JSON files, writing byte for byte what serde_json writes.
//!
//! Why: at ×100, `clauses.json` (10 MB) and the two search indexes (3 MB each) were ~10 % of a
//! build, half of it in serde's escaping and half in its generic machinery. Written here field by
//! field, with [`crate::escape::escape_json`], they cost about a third. The shapes stay defined by
//! the serde types they mirror: the tests of each writer compare its bytes with serde_json's
//! output for the same data.
//!
//! The layout rules are serde_json's: pretty output indents by two spaces, puts each member on its
//! own line and writes an empty array or object as `[]` / `{}`; compact output has no whitespace.

use crate::escape::escape_json;

pub struct JsonWriter<'a> {
    out: &'a mut Vec<u8>,
    pretty: bool,
    script_safe: bool,
    depth: usize,
    /// Whether the innermost open array or object already has a member (serde_json's `has_value`;
    /// one flag suffices because a nested value always ends by setting it for its parent).
    has_value: bool,
}

impl<'a> JsonWriter<'a> {
    /// `serde_json::to_writer_pretty`'s layout.
    pub fn pretty(out: &'a mut Vec<u8>) -> Self {
        JsonWriter {
            out,
            pretty: true,
            script_safe: false,
            depth: 0,
            has_value: false,
        }
    }

    /// `serde_json::to_writer`'s layout, with `<` written `\u003c` in strings so the JSON can sit
    /// inside a `<script>`.
    pub fn compact_script_safe(out: &'a mut Vec<u8>) -> Self {
        JsonWriter {
            out,
            pretty: false,
            script_safe: true,
            depth: 0,
            has_value: false,
        }
    }

    fn newline_indent(&mut self) {
        self.out.push(b'\n');
        for _ in 0..self.depth {
            self.out.extend_from_slice(b"  ");
        }
    }

    /// Before a member of the open array or object.
    fn member(&mut self) {
        if self.pretty {
            if self.has_value {
                self.out.push(b',');
            }
            self.newline_indent();
        } else if self.has_value {
            self.out.push(b',');
        }
    }

    fn open(&mut self, b: u8) {
        self.out.push(b);
        self.depth += 1;
        self.has_value = false;
    }

    fn close(&mut self, b: u8) {
        self.depth -= 1;
        if self.pretty && self.has_value {
            self.newline_indent();
        }
        self.out.push(b);
        self.has_value = true;
    }

    pub fn begin_object(&mut self) {
        self.open(b'{');
    }

    pub fn end_object(&mut self) {
        self.close(b'}');
    }

    pub fn begin_array(&mut self) {
        self.open(b'[');
    }

    pub fn end_array(&mut self) {
        self.close(b']');
    }

    /// Start a member of the open object: its key; the value is written next.
    pub fn key(&mut self, key: &str) {
        self.member();
        self.string(key);
        self.out
            .extend_from_slice(if self.pretty { b": " } else { b":" });
    }

    /// Start an element of the open array; the value is written next.
    pub fn item(&mut self) {
        self.member();
    }

    fn string(&mut self, s: &str) {
        self.out.push(b'"');
        escape_json(self.out, s, self.script_safe);
        self.out.push(b'"');
    }

    pub fn str(&mut self, s: &str) {
        self.string(s);
        self.has_value = true;
    }

    /// A string built from pieces, written as one JSON string.
    pub fn str_parts(&mut self, parts: &[&str]) {
        self.out.push(b'"');
        for p in parts {
            escape_json(self.out, p, self.script_safe);
        }
        self.out.push(b'"');
        self.has_value = true;
    }

    pub fn opt_str(&mut self, s: Option<&str>) {
        match s {
            Some(s) => self.str(s),
            None => self.null(),
        }
    }

    pub fn null(&mut self) {
        self.out.extend_from_slice(b"null");
        self.has_value = true;
    }

    pub fn uint(&mut self, n: u64) {
        let mut digits = [0u8; 20];
        let mut at = digits.len();
        let mut n = n;
        loop {
            at -= 1;
            digits[at] = b'0' + (n % 10) as u8;
            n /= 10;
            if n == 0 {
                break;
            }
        }
        self.out.extend_from_slice(&digits[at..]);
        self.has_value = true;
    }

    /// An array of strings.
    pub fn strs<S: AsRef<str>>(&mut self, items: &[S]) {
        self.begin_array();
        for s in items {
            self.item();
            self.str(s.as_ref());
        }
        self.end_array();
    }

    pub fn field_str(&mut self, key: &str, value: &str) {
        self.key(key);
        self.str(value);
    }

    pub fn field_opt_str(&mut self, key: &str, value: Option<&str>) {
        self.key(key);
        self.opt_str(value);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::Value;

    /// Write any JSON value with the writer (objects keep their key order).
    fn write(w: &mut JsonWriter, v: &Value) {
        match v {
            Value::Null => w.null(),
            Value::String(s) => w.str(s),
            Value::Number(n) => w.uint(n.as_u64().unwrap()),
            Value::Array(items) => {
                w.begin_array();
                for i in items {
                    w.item();
                    write(w, i);
                }
                w.end_array();
            }
            Value::Object(members) => {
                w.begin_object();
                for (k, v) in members {
                    w.key(k);
                    write(w, v);
                }
                w.end_object();
            }
            Value::Bool(_) => unreachable!("not generated"),
        }
    }

    fn value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<u64>().prop_map(Value::from),
            "(a|<|\"|\\\\|\n|\u{1}|容| )*".prop_map(Value::from),
        ];
        leaf.prop_recursive(4, 32, 4, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
                proptest::collection::vec(("(k|<|\"|é){0,3}", inner), 0..4)
                    .prop_map(|kv| Value::Object(kv.into_iter().collect())),
            ]
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(1024))]

        /// Any nesting of arrays, objects, strings, numbers and nulls, empty ones included:
        /// pretty and compact output are serde_json's bytes.
        #[test]
        fn the_writer_writes_what_serde_json_writes(v in value()) {
            let mut pretty = Vec::new();
            write(&mut JsonWriter::pretty(&mut pretty), &v);
            prop_assert_eq!(String::from_utf8(pretty).unwrap(), serde_json::to_string_pretty(&v).unwrap());

            let mut compact = Vec::new();
            write(&mut JsonWriter::compact_script_safe(&mut compact), &v);
            let expected = serde_json::to_string(&v).unwrap().replace('<', "\\u003c");
            prop_assert_eq!(String::from_utf8(compact).unwrap(), expected);
        }
    }
}
