//! Each language's grammar on tables of sources, and the property that an annotation written inside
//! a string, a raw string or a block comment is never read.

use proptest::prelude::*;

use super::{Lang, LangExt, parse};
use crate::annotations::FileSyntax;

/// (name as the runner reports it, claimed ids, stub, ignored) of every test of `src`.
fn tests_of(lang: Lang, src: &str) -> Vec<(String, Vec<String>, bool, bool)> {
    let syn = parse(lang, src).unwrap();
    syn.fns
        .iter()
        .map(|f| {
            let mut p = f.module.clone();
            p.push(f.name.clone());
            (
                p.join(lang.separator()),
                syn.claims_of(f).map(|s| s.id.clone()).collect(),
                f.is_stub(),
                f.ignore_reason().is_some(),
            )
        })
        .collect()
}

fn site_ids(syn: &FileSyntax) -> Vec<&str> {
    syn.sites.iter().map(|s| s.id.as_str()).collect()
}

fn t(name: &str, ids: &[&str], stub: bool, ignored: bool) -> (String, Vec<String>, bool, bool) {
    (
        name.to_string(),
        ids.iter().map(|s| s.to_string()).collect(),
        stub,
        ignored,
    )
}

#[test]
fn languages_from_extensions() {
    for (path, lang) in [
        ("a/b_test.go", Lang::Go),
        ("tests/test_x.py", Lang::Python),
        ("x.test.ts", Lang::JavaScript),
        ("x.spec.mjs", Lang::JavaScript),
        ("c.tsx", Lang::JavaScript),
        ("tests/a.rs", Lang::Rust),
        ("test/ports_test.cc", Lang::C),
        ("src/test/java/PortsTest.java", Lang::Java),
        ("README", Lang::Rust),
    ] {
        assert_eq!(
            kcontract_spec::TestGlobs::default().language_of(path),
            lang,
            "{path}"
        );
    }
}

#[test]
fn go_tests_and_subtests() {
    let src = r#"package fixture

import "testing"

// Clause: a.one @ 0123456789ab
func TestOne(t *testing.T) {
	s := `
// Clause: not.raw
`
	/* Clause: not.block */
	_ = "// Clause: not.string"
	// Clause: a.sub
	t.Run("with space", func(t *testing.T) {
		// Clause: a.deeper
		t.Run("inner", func(t *testing.T) { t.Skip("later") })
	})
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {})
	}
}

// Clause: a.stub

func TestNotDirectlyBelow(t *testing.T) { t.Fatal("x") }

// Clause: a.skip
func TestSkipped(t *testing.T) {
	t.Skip("not yet written: a.skip")
}

// Clause: a.helper
func helper(t *testing.T) {}

func Testlower(t *testing.T) {}
"#;
    assert_eq!(
        tests_of(Lang::Go, src),
        [
            t("TestOne", &["a.one"], false, false),
            t("TestOne/with_space", &["a.sub"], false, false),
            t("TestOne/with_space/inner", &["a.deeper"], true, false),
            t("TestNotDirectlyBelow", &[], false, false),
            t("TestSkipped", &["a.skip"], true, false),
        ]
    );
    let syn = parse(Lang::Go, src).unwrap();
    assert_eq!(
        site_ids(&syn),
        ["a.one", "a.sub", "a.deeper", "a.stub", "a.skip", "a.helper"]
    );
    for s in &syn.sites {
        assert_eq!(&src[s.id_range.clone()], s.id);
    }
    assert_eq!(syn.sites[0].stamp.as_deref(), Some("0123456789ab"));
    assert_eq!(&src[syn.sites[0].stamp_range.clone()], "0123456789ab");
}

#[test]
fn python_tests_in_modules_and_classes() {
    let src = r#"import pytest

# Clause: a.one
def test_one():
    s = """
# Clause: not.triple
"""
    t = rb'# Clause: not.prefixed' + f"{x}# Clause: not.fstring"
    assert s


# Clause: a.skipped
@pytest.mark.skip(reason="slow")
def test_skipped():
    assert False


class TestGroup:
    # Clause: a.method
    def test_method(self):
        pytest.skip("not yet written: a.method")

    def helper(self):
        # Clause: a.nested
        def test_inner():
            pass

    @pytest.mark.parametrize("x", [1, \
        2])
    # Clause: a.decorated
    async def test_async(self, x):
        """Docstring."""
        assert x


class Helper:
    # Clause: a.not-collected
    def test_no(self):
        pass

# Clause: a.last
def test_last(): pass
"#;
    assert_eq!(
        tests_of(Lang::Python, src),
        [
            t("test_one", &["a.one"], false, false),
            t("test_skipped", &["a.skipped"], false, true),
            t("TestGroup::test_method", &["a.method"], true, false),
            t("TestGroup::test_async", &["a.decorated"], false, false),
            t("test_last", &["a.last"], true, false),
        ]
    );
    let syn = parse(Lang::Python, src).unwrap();
    assert_eq!(
        site_ids(&syn),
        [
            "a.one",
            "a.skipped",
            "a.method",
            "a.nested",
            "a.decorated",
            "a.not-collected",
            "a.last"
        ]
    );
}

#[test]
fn javascript_and_typescript_tests() {
    let src = r#"import { describe, it, test, expect } from "vitest";

// Clause: a.top
test("top level", async () => {
  const re = /["'`]\/ Clause: not.regex/g;
  const s = `// Clause: not.template ${ "nested // Clause: not.nested" + `${1}` }`;
  /* Clause: not.block */
  expect(1 / 2).toBe(0.5);
});

describe("group", () => {
  // Clause: a.inner
  it("does it", function () {
    expect(true).toBe(true);
  });

  describe.skip("skipped", () => {
    // Clause: a.in-skipped
    it("is skipped", () => { expect(1).toBe(1) });
  });

  // Clause: a.todo
  test.todo("later");

  test.each([1, 2])("table %i", (n) => {});
});

// Clause: a.typed
it("typed", async (): Promise<void> => {});
"#;
    assert_eq!(
        tests_of(Lang::JavaScript, src),
        [
            t("top level", &["a.top"], false, false),
            t("group > does it", &["a.inner"], false, false),
            t(
                "group > skipped > is skipped",
                &["a.in-skipped"],
                false,
                true
            ),
            t("group > later", &["a.todo"], true, false),
            t("typed", &["a.typed"], true, false),
        ]
    );
    let syn = parse(Lang::JavaScript, src).unwrap();
    assert_eq!(
        site_ids(&syn),
        ["a.top", "a.inner", "a.in-skipped", "a.todo", "a.typed"]
    );
}

#[test]
fn googletest_and_criterion_tests() {
    let src = r#"#include <gtest/gtest.h>
#define NOTE "// Clause: not.macro"

namespace runtime {

// Clause: a.one
TEST(Ports, Default) {
  const char* s = R"x(
// Clause: not.raw
)x";
  /* Clause: not.block */
  EXPECT_EQ(8080, port(s, '"'));
}

// Clause: a.fixture
TEST_F(PortFixture, Env) { GTEST_SKIP() << "not yet written: a.fixture"; }

// Clause: a.disabled
TEST(Ports, DISABLED_Slow) { EXPECT_TRUE(slow()); }

}  // namespace runtime

// Clause: a.criterion
Test(misc, passing, .timeout = 1) {
    cr_assert(1);
}
"#;
    assert_eq!(
        tests_of(Lang::C, src),
        [
            t("Ports.Default", &["a.one"], false, false),
            t("PortFixture.Env", &["a.fixture"], true, false),
            t("Ports.DISABLED_Slow", &["a.disabled"], false, true),
            t("misc.passing", &["a.criterion"], false, false),
        ]
    );
    let syn = parse(Lang::C, src).unwrap();
    assert_eq!(
        site_ids(&syn),
        ["a.one", "a.fixture", "a.disabled", "a.criterion"]
    );
}

#[test]
fn junit_test_methods() {
    let src = r#"package com.example;

import org.junit.jupiter.api.*;

class PortsTest {
    // Clause: a.one
    @Test
    void env() {
        String s = """
            // Clause: not.text-block
            """;
        /* Clause: not.block */
        assertEquals("// Clause: not.string", s);
    }

    @Test
    // Clause: a.between
    @DisplayName("x")
    public void between() throws Exception { Assumptions.abort("not yet written: a.between"); }

    // Clause: a.disabled
    @Disabled("slow")
    @Test
    void slow() { assertTrue(true); }

    // Clause: a.helper
    void helper() {}

    @Nested
    class Inner {
        // Clause: a.nested
        @Test
        void deep() { assertTrue(true); }
    }
}
"#;
    assert_eq!(
        tests_of(Lang::Java, src),
        [
            t("com.example.PortsTest.env", &["a.one"], false, false),
            t("com.example.PortsTest.between", &["a.between"], true, false),
            t("com.example.PortsTest.slow", &["a.disabled"], false, true),
            t(
                "com.example.PortsTest$Inner.deep",
                &["a.nested"],
                false,
                false
            ),
        ]
    );
    let syn = parse(Lang::Java, src).unwrap();
    assert_eq!(
        site_ids(&syn),
        ["a.one", "a.between", "a.disabled", "a.helper", "a.nested"]
    );
}

#[test]
fn unclosed_literals_are_located_failures() {
    for (lang, src) in [
        (Lang::Go, "package x\nvar s = `raw\n"),
        (Lang::Go, "package x\n/* never closed\n"),
        (Lang::Go, "package x\nvar s = \"line\n\"\n"),
        (Lang::Python, "s = '''never\n"),
        (Lang::Python, "s = 'line\n'\n"),
        (Lang::JavaScript, "const s = `never ${1}\n"),
        (Lang::JavaScript, "f(() => {\n"),
        (Lang::C, "const char* s = R\"x(never\n"),
        (Lang::C, "/* never\n"),
        (Lang::Java, "class A { String s = \"\"\"\nnever\n"),
    ] {
        let e = parse(lang, src).unwrap_err();
        assert!(e.range.end <= src.len(), "{src:?}: {e:?}");
        assert!(!e.message.is_empty());
    }
}

/// A language's literal or comment holding `body`, and a test annotated for real after it.
fn embed(lang: Lang, form: usize, body: &str) -> String {
    match (lang, form % 3) {
        (Lang::Go, 0) => format!("package x\nvar s = `{body}`\n"),
        (Lang::Go, 1) => format!("package x\n/* {body} */\n"),
        (Lang::Go, _) => format!("package x\nvar s = \"{}\"\n", body.replace('\n', "\\n")),
        (Lang::Python, 0) => format!("s = \"\"\"{body}\"\"\"\n"),
        (Lang::Python, 1) => format!("s = r'''{body}'''\n"),
        (Lang::Python, _) => format!("s = f\"{}\"\n", body.replace('\n', "\\n")),
        (Lang::Java, 0) => format!("class S {{ String s = \"\"\"\n{body}\"\"\"; }}\n"),
        (Lang::Java, 1) => format!("/* {body} */\n"),
        (Lang::Java, _) => format!(
            "class S {{ String s = \"{}\"; }}\n",
            body.replace('\n', "\\n")
        ),
        (Lang::C, 0) => format!("const char* s = R\"k({body})k\";\n"),
        (Lang::C, 1) => format!("/* {body} */\n"),
        (Lang::C, _) => format!("const char* s = \"{}\";\n", body.replace('\n', "\\n")),
        (_, 0) => format!("const s = `{body}`;\n"),
        (_, 1) => format!("/* {body} */\n"),
        (_, _) => format!("const s = '{}';\n", body.replace('\n', "\\n")),
    }
}

fn real_test(lang: Lang) -> &'static str {
    match lang {
        Lang::Go => "// Clause: real.one\nfunc TestReal(t *testing.T) { t.Log(1) }\n",
        Lang::Python => "# Clause: real.one\ndef test_real():\n    assert 1\n",
        Lang::C => "// Clause: real.one\nTEST(Real, One) { EXPECT_TRUE(1); }\n",
        Lang::Java => {
            "class RealTest {\n    // Clause: real.one\n    @Test\n    void one() { assertTrue(true); }\n}\n"
        }
        _ => "// Clause: real.one\ntest(\"real\", () => { expect(1).toBe(1); });\n",
    }
}

proptest! {
    /// Whatever a string, a raw string or a block comment holds (annotations in any comment
    /// syntax, on their own lines or not), only the real annotation after it is read.
    #[test]
    fn annotations_in_literals_are_never_read(
        lang in prop::sample::select(vec![Lang::Go, Lang::Python, Lang::JavaScript, Lang::C, Lang::Java]),
        form in 0usize..3,
        before in "[a-z {}()=;,.:\n]{0,20}",
        marker in prop::sample::select(vec!["// Clause: in.literal", "# Clause: in.literal", "Clause: in.literal @ 1234", "\n// Clause: in.literal\n", "\n# Clause: in.literal\n"]),
        after in "[a-z {}()=;,.:\n]{0,20}",
    ) {
        let body = format!("{before}{marker}{after}");
        // The braces of a template literal's text are text, unless they open a substitution.
        let body = body.replace("${", "$ {");
        let src = format!("{}{}", embed(lang, form, &body), real_test(lang));
        let syn = parse(lang, &src).unwrap();
        prop_assert_eq!(site_ids(&syn), vec!["real.one"], "{}", src);
        prop_assert_eq!(syn.fns.len(), 1);
    }
}
