//! Safe output: a corpus of hostile spec texts renders inert, and hostile ids are rejected.
//!
//! "Inert" is checked on the generated HTML itself: every tag in every page is scanned; no element may
//! carry an event-handler attribute, no URL attribute may use a script-capable scheme, and the only
//! `<script>` elements are the site's own (the theme snippet and the two `src` scripts).

use std::path::Path;

/// `kcontract ARGS` in `dir`: the exit code and stderr.
fn kcontract(dir: &Path, args: &[&str]) -> (i32, String) {
    let (code, _, err) = crate::common::cli::kcontract(dir, args);
    (code, err)
}

const HOSTILE: &[&str] = &[
    "<script>alert(1)</script>",
    "<SCRIPT SRC=//x.invalid/x.js></SCRIPT>",
    "<img src=x onerror=alert(2)>",
    "<svg onload=alert(3)>",
    "<a href=\"javascript:alert(4)\">x</a>",
    "[link](javascript:alert(5))",
    "[link](JAVASCRIPT:alert(6))",
    "[link](java\tscript:alert(7))",
    "[data](data:text/html;base64,PHNjcmlwdD5hbGVydCg4KTwvc2NyaXB0Pg==)",
    "![img](javascript:alert(9))",
    "[v](vbscript:msgbox(10))",
    "<!-- --!> <script>alert(11)</script> -->",
    "<!--> <img src=x onerror=alert(12)> -->",
    "<style>body{display:none}</style>",
    "<iframe src=\"https://example.invalid\"></iframe>",
    "<div style=\"background:url(javascript:alert(13))\">x</div>",
    "\"><script>alert(14)</script>",
    "' onmouseover='alert(15)",
    "</code></pre><script>alert(16)</script>",
    "{{ 7*7 }} {% raw %} {# tera #}",
    "\u{202e}evil\u{202c} and \u{200b}zero\u{200b}width",
];

fn write_spec(dir: &Path, chapter: &str, zh: Option<&str>) {
    std::fs::create_dir_all(dir.join("spec/en")).unwrap();
    let langs = if zh.is_some() { "[en, zh]" } else { "[en]" };
    std::fs::write(
        dir.join("spec/contract.yaml"),
        format!("title: \"T <script>alert(0)</script>\"\nversion: \"1 onload=x\"\nlanguages: {langs}\nchapters: [one]\nupstream: {{title: t, url: \"https://example.invalid/?q=<script>alert(1)</script>\", license: \"<b>l</b>\", attribution: \"<img src=x onerror=alert(1)>\"}}\n"),
    )
    .unwrap();
    std::fs::write(dir.join("spec/en/one.md"), chapter).unwrap();
    if let Some(zh) = zh {
        std::fs::create_dir_all(dir.join("spec/zh")).unwrap();
        std::fs::write(dir.join("spec/zh/one.md"), zh).unwrap();
    }
}

/// Every tag in `html`: (tag name, [(attribute name, value)]), by a small tolerant scanner.
fn tags(html: &str) -> Vec<(String, Vec<(String, String)>)> {
    let mut out = Vec::new();
    let b = html.as_bytes();
    let mut i = 0;
    while let Some(off) = html[i..].find('<') {
        let start = i + off + 1;
        i = start;
        if !b.get(start).is_some_and(|c| c.is_ascii_alphabetic()) {
            continue;
        }
        let end = html[start..].find('>').map_or(html.len(), |e| start + e);
        let inner = &html[start..end];
        let name_end = inner
            .find(|c: char| c.is_whitespace() || c == '/')
            .unwrap_or(inner.len());
        let name = inner[..name_end].to_ascii_lowercase();
        let mut attrs = Vec::new();
        let mut rest = &inner[name_end..];
        loop {
            rest = rest.trim_start_matches(|c: char| c.is_whitespace() || c == '/');
            if rest.is_empty() {
                break;
            }
            let n_end = rest
                .find(|c: char| c.is_whitespace() || c == '=')
                .unwrap_or(rest.len());
            let aname = rest[..n_end].to_ascii_lowercase();
            rest = &rest[n_end..];
            let mut value = String::new();
            if let Some(r) = rest.strip_prefix('=') {
                let (v, r2) = match r.chars().next() {
                    Some(q @ ('"' | '\'')) => {
                        let close = r[1..].find(q).map_or(r.len(), |c| c + 1);
                        (&r[1..close], r.get(close + 1..).unwrap_or(""))
                    }
                    _ => {
                        let e = r.find(char::is_whitespace).unwrap_or(r.len());
                        (&r[..e], &r[e..])
                    }
                };
                value = v.to_string();
                rest = r2;
            }
            attrs.push((aname, value));
        }
        out.push((name, attrs));
        i = end;
    }
    out
}

fn assert_inert(name: &str, html: &str) {
    let mut scripts = 0;
    for (tag, attrs) in tags(html) {
        assert!(
            !matches!(
                tag.as_str(),
                "iframe" | "svg" | "style" | "object" | "embed" | "base"
            ),
            "{name}: <{tag}> from spec text"
        );
        if tag == "script" {
            scripts += 1;
            if let Some((_, src)) = attrs.iter().find(|(a, _)| a == "src") {
                assert!(src.starts_with("../assets/"), "{name}: script src {src}");
            }
        }
        for (a, v) in &attrs {
            assert!(
                !a.starts_with("on"),
                "{name}: event handler {a}={v} on <{tag}>"
            );
            if matches!(
                a.as_str(),
                "href" | "src" | "action" | "formaction" | "style"
            ) {
                let squashed: String = v
                    .chars()
                    .filter(|c| !c.is_whitespace() && !c.is_control())
                    .collect::<String>()
                    .to_ascii_lowercase();
                for scheme in ["javascript:", "vbscript:", "data:"] {
                    assert!(!squashed.contains(scheme), "{name}: {a}={v} on <{tag}>");
                }
            }
        }
    }
    assert!(scripts <= 3, "{name}: {scripts} script elements");
}

fn assert_site_inert(dir: &Path) {
    let mut stack = vec![dir.join("site")];
    let mut pages = 0;
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "html") {
                pages += 1;
                assert_inert(
                    &p.display().to_string(),
                    &std::fs::read_to_string(&p).unwrap(),
                );
            } else if p.extension().is_some_and(|x| x == "js") {
                let js = std::fs::read_to_string(&p).unwrap();
                assert!(
                    !js.to_ascii_lowercase().contains("</script"),
                    "{}",
                    p.display()
                );
            }
        }
    }
    assert!(pages >= 3);
}

#[test]
fn the_scanner_sees_what_it_must() {
    // The checker itself can fail: raw hostile HTML is caught.
    let bad = tags("<a href=\"javascript:x\">a</a><img src=x onerror=alert(1)><p class=x>");
    assert_eq!(bad.len(), 3);
    assert_eq!(bad[1].1[1], ("onerror".to_string(), "alert(1)".to_string()));
    let caught = std::panic::catch_unwind(|| assert_inert("x", "<img src=x onerror=alert(1)>"));
    assert!(caught.is_err());
}

#[test]
fn hostile_prose_and_clause_texts_render_inert() {
    let tmp = tempfile::tempdir().unwrap();
    let mut md = String::from("# One <script>alert('h1')</script>\n\n");
    for (i, h) in HOSTILE.iter().enumerate() {
        md.push_str(&format!(
            "## H{i} {h}\n\nProse {h} here.\n\n- item {h}\n  - nested {h}\n\n> quote {h}\n\n"
        ));
        let yaml_text = h.replace('\\', "\\\\").replace('"', "\\\"");
        md.push_str(&format!(
            "```clause\nid: one.c{i}\nlevel: MUST\nactor: platform\ntext: \"It MUST {yaml_text}\"\nverify: untestable\nreason: \"{yaml_text}\"\noci: runtime.md#kill\n```\n\n"
        ));
    }
    let mut zh = String::from("# 一 <script>alert('zh')</script>\n\n");
    for (i, h) in HOSTILE.iter().enumerate() {
        let yaml_text = h.replace('\\', "\\\\").replace('"', "\\\"");
        zh.push_str(&format!(
            "```clause\nid: one.c{i}\ntext: \"必须（MUST）{yaml_text}\"\nsource: pending\n```\n\n"
        ));
    }
    write_spec(tmp.path(), &md, Some(&zh));
    let (code, err) = kcontract(tmp.path(), &["build"]);
    assert_eq!(code, 0, "{err}");
    assert_site_inert(tmp.path());
    // The sanitizer removed the script with its content; the text around it is there (a
    // heading's title, shown as text in the sidebar, keeps the script's words, inert).
    let page = std::fs::read_to_string(tmp.path().join("site/en/one.html")).unwrap();
    assert!(page.contains("<p>Prose  here.</p>"), "{page}");
}

#[test]
fn huge_and_deep_inputs_build() {
    let tmp = tempfile::tempdir().unwrap();
    let mut md = String::from("# One\n\n");
    // Deeply nested list and quote.
    for depth in 0..2000 {
        md.push_str(&"  ".repeat(depth.min(400)));
        md.push_str("- level\n");
    }
    md.push('\n');
    md.push_str(&">".repeat(5000));
    md.push_str(" deep quote\n\n");
    // A 200 KB single line of prose.
    md.push_str(&"word ".repeat(40_000));
    md.push_str("\n\n");
    // A 1 MB clause text.
    let big = "the platform MUST keep going ".repeat(36_000);
    md.push_str(&format!("```clause\nid: one.big\nlevel: MUST\nactor: platform\ntext: >-\n  {big}\nverify: manual\n```\n"));
    write_spec(tmp.path(), &md, None);
    let (code, err) = kcontract(tmp.path(), &["build"]);
    assert_eq!(code, 0, "{err}");
    assert_site_inert(tmp.path());
    let page = std::fs::read_to_string(tmp.path().join("site/en/one.html")).unwrap();
    assert!(page.len() > 1_000_000);
}

#[test]
fn hostile_ids_are_rejected_with_a_clear_message() {
    let tmp = tempfile::tempdir().unwrap();
    let ids = [
        "one.\u{202e}evil",
        "one.zero\u{200b}width",
        "one.\u{0430}pple", // Cyrillic a
        "one.<script>",
        "../../etc.passwd",
        "one.a/b",
        "one.\"quote",
    ];
    let mut md = String::from("# One\n\n");
    for id in ids {
        let q = id.replace('\\', "\\\\").replace('"', "\\\"");
        md.push_str(&format!("```clause\nid: \"{q}\"\nlevel: MUST\nactor: platform\ntext: It MUST.\nverify: manual\n```\n\n"));
    }
    write_spec(tmp.path(), &md, None);
    let (code, err) = kcontract(tmp.path(), &["check"]);
    assert_eq!(code, 1);
    assert_eq!(err.matches("error[K0107]").count(), ids.len(), "{err}");
    assert!(
        err.contains("U+202E") && err.contains("U+200B") && err.contains("U+0430"),
        "{err}"
    );
    assert!(!tmp.path().join("site").exists(), "nothing written");
}
