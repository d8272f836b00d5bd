//! The site: committed `site/` is fresh, builds are deterministic and atomic, spec text is inert,
//! translation staleness is visible.

use std::path::{Path, PathBuf};

use crate::common::cli::{kcontract, root};

fn files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                let rel = p
                    .strip_prefix(dir)
                    .unwrap()
                    .to_string_lossy()
                    .replace('\\', "/");
                out.push((rel, std::fs::read(&p).unwrap()));
            }
        }
    }
    out.sort();
    out
}

fn copy_spec(to: &Path) {
    for (rel, bytes) in files(&root().join("spec")) {
        let p = to.join("spec").join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, bytes).unwrap();
    }
}

#[test]
fn committed_site_is_a_fresh_build() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("site");
    let (code, _, err) = kcontract(&root(), &["build", "--out", out.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let fresh = files(&out);
    let committed = files(&root().join("site"));
    let names = |v: &[(String, Vec<u8>)]| v.iter().map(|(n, _)| n.clone()).collect::<Vec<_>>();
    assert_eq!(
        names(&committed),
        names(&fresh),
        "site/ has different files: run `cargo run --release -- build`"
    );
    for ((name, a), (_, b)) in committed.iter().zip(&fresh) {
        assert!(
            a == b,
            "site/{name} is stale: run `cargo run --release -- build` and commit site/"
        );
    }
}

#[test]
fn builds_are_byte_identical_across_directories() {
    let a = tempfile::tempdir().unwrap();
    let b = tempfile::tempdir().unwrap();
    copy_spec(a.path());
    copy_spec(b.path());
    assert_eq!(kcontract(a.path(), &["build"]).0, 0);
    assert_eq!(kcontract(b.path(), &["build"]).0, 0);
    // And a rebuild over an existing site.
    assert_eq!(kcontract(b.path(), &["build"]).0, 0);
    assert_eq!(files(&a.path().join("site")), files(&b.path().join("site")));
}

#[test]
fn pages_in_both_languages_with_lang_and_anchors() {
    let tmp = tempfile::tempdir().unwrap();
    copy_spec(tmp.path());
    assert_eq!(kcontract(tmp.path(), &["build"]).0, 0);
    let en =
        std::fs::read_to_string(tmp.path().join("site/en/runtime-and-lifecycle.html")).unwrap();
    let zh =
        std::fs::read_to_string(tmp.path().join("site/zh/runtime-and-lifecycle.html")).unwrap();
    assert!(en.contains(r#"<html lang="en""#));
    assert!(zh.contains(r#"<html lang="zh-CN""#));
    for page in [&en, &zh] {
        assert!(page.contains(r#"id="lifecycle.sigterm-on-kill""#));
        assert!(page.contains(r##"href="#lifecycle.sigterm-on-kill""##));
        assert!(
            !page.contains("http://") || !page.contains("<link rel=\"stylesheet\" href=\"http"),
            "no external assets"
        );
    }
    assert!(en.contains(r#"href="../zh/runtime-and-lifecycle.html""#));
    assert!(zh.contains(r#"href="../en/runtime-and-lifecycle.html""#));
    assert!(zh.contains("必须（"), "zh page shows the Chinese text");
    assert!(zh.contains("目录"), "zh interface text");
    let json: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(tmp.path().join("site/clauses.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(json["clauses"].as_array().unwrap().len(), 104);
    assert_eq!(json["clauses"][0]["translations"]["zh"]["state"], "current");
}

#[test]
fn changing_one_english_clause_makes_exactly_that_translation_stale() {
    let tmp = tempfile::tempdir().unwrap();
    copy_spec(tmp.path());
    let p = tmp.path().join("spec/en/runtime-and-lifecycle.md");
    let text = std::fs::read_to_string(&p).unwrap();
    let changed = text.replacen(
        "Failures of the developer-specified process MUST be logged",
        "Failures of the developer-specified process MUST always be logged",
        1,
    );
    assert_ne!(text, changed);
    std::fs::write(&p, changed).unwrap();

    let (code, _, err) = kcontract(tmp.path(), &["check"]);
    assert_eq!(code, 0, "stale is a warning by default:\n{err}");
    assert_eq!(err.matches("warning[K0303]").count(), 1, "{err}");
    assert!(
        err.contains("`lifecycle.process-failures-logged` is stale"),
        "{err}"
    );
    let (code, _, err) = kcontract(tmp.path(), &["check", "--strict"]);
    assert_eq!(code, 1);
    assert_eq!(err.matches("error[K0303]").count(), 1, "{err}");

    let (_, status, _) = kcontract(tmp.path(), &["i18n", "status"]);
    let row: Vec<&str> = status
        .lines()
        .find(|l| l.trim_start().starts_with("runtime-and-lifecycle"))
        .unwrap()
        .split_whitespace()
        .collect();
    assert_eq!(
        row,
        ["runtime-and-lifecycle", "21", "20", "1", "0", "11", "0"],
        "{status}"
    );

    assert_eq!(kcontract(tmp.path(), &["build"]).0, 0);
    let zh =
        std::fs::read_to_string(tmp.path().join("site/zh/runtime-and-lifecycle.html")).unwrap();
    assert_eq!(zh.matches("state-stale").count(), 1);
    assert!(zh.contains("译文已过期"));
    assert!(
        zh.contains("MUST</strong> always be logged"),
        "English original beside it"
    );

    // After review, stamping makes it current again.
    let (code, out, _) = kcontract(
        tmp.path(),
        &["i18n", "stamp", "lifecycle.process-failures-logged"],
    );
    assert_eq!(code, 0);
    assert!(out.contains("1 translation(s) stamped"));
    assert_eq!(kcontract(tmp.path(), &["check", "--strict"]).0, 0);
}

#[test]
fn hostile_spec_text_renders_inert() {
    let tmp = tempfile::tempdir().unwrap();
    let spec = tmp.path().join("spec");
    std::fs::create_dir_all(spec.join("en")).unwrap();
    std::fs::write(spec.join("contract.yaml"), "title: \"<script>alert('t')</script>\"\nversion: 0.1.0\nlanguages: [en]\nchapters: [one]\nupstream: {title: t, url: u, license: l, attribution: \"<b onmouseover=alert(1)>a</b>\"}\n").unwrap();
    std::fs::write(spec.join("en/one.md"), "# One <script>alert(1)</script>\n\n<script>alert(2)</script>\n\n<img src=x onerror=alert(3)>\n\n[x](javascript:alert(4))\n\n```clause\nid: one.a\nlevel: MUST\nactor: platform\ntext: >-\n  It MUST <script>alert(5)</script> [y](javascript:alert(6)) <!-- --><img src=x onerror=alert(7)>\nverify: manual\n```\n").unwrap();
    let (code, _, err) = kcontract(tmp.path(), &["build"]);
    assert_eq!(code, 0, "{err}");
    for (name, bytes) in files(&tmp.path().join("site")) {
        if !name.ends_with(".html") {
            continue;
        }
        let html = String::from_utf8(bytes).unwrap();
        let lower = html.to_ascii_lowercase();
        assert!(!lower.contains("javascript:"), "{name}");
        // The image is kept by the sanitizer, without its handler.
        assert!(!lower.contains("onerror"), "{name}");
        assert!(!html.contains("<b onmouseover"), "{name}");
        // The only script elements are the site's own two: the theme snippet and site.js (which
        // loads the search index when the search box is first used).
        assert_eq!(
            lower.matches("<script").count(),
            if name == "index.html" { 0 } else { 2 },
            "{name}: {html}"
        );
    }
    let search = std::fs::read_to_string(tmp.path().join("site/assets/search-en.js")).unwrap();
    assert!(!search.contains("</script>"));
}

/// An editor's HTML comment is a note the pages do not show, so the search index does not hold it
/// either; nor raw tags. The words between inline tags are searchable.
#[test]
fn html_comments_and_tags_stay_out_of_the_search_index() {
    let tmp = tempfile::tempdir().unwrap();
    let spec = tmp.path().join("spec");
    std::fs::create_dir_all(spec.join("en")).unwrap();
    std::fs::write(
        spec.join("contract.yaml"),
        "title: T\nversion: 0.1.0\nlanguages: [en]\nchapters: [one]\n",
    )
    .unwrap();
    std::fs::write(
        spec.join("en/one.md"),
        "# One\n\n<!-- editor note: secret -->\n\nSome <span class=\"x\">visible</span> words.\n\n<div>\nblock\n</div>\n",
    )
    .unwrap();
    let (code, _, err) = kcontract(tmp.path(), &["build"]);
    assert_eq!(code, 0, "{err}");
    let search = std::fs::read_to_string(tmp.path().join("site/assets/search-en.js")).unwrap();
    assert!(search.contains("Some visible words."), "{search}");
    for hidden in ["secret", "span", "div", "\\u003c"] {
        assert!(!search.contains(hidden), "{hidden}: {search}");
    }
    let page = std::fs::read_to_string(tmp.path().join("site/en/one.html")).unwrap();
    assert!(
        !page.contains("secret") && page.contains("visible"),
        "{page}"
    );
}

#[test]
fn a_failed_build_leaves_the_previous_site_untouched() {
    let tmp = tempfile::tempdir().unwrap();
    copy_spec(tmp.path());
    assert_eq!(kcontract(tmp.path(), &["build"]).0, 0);
    let before = files(&tmp.path().join("site"));
    let tpl = tmp.path().join("tpl");
    std::fs::create_dir_all(&tpl).unwrap();
    std::fs::write(
        tpl.join("chapter.html"),
        "{% extends \"base.html\" %}{% block content %}{{ blocks | no_such_filter }}{% endblock %}",
    )
    .unwrap();
    let (code, _, err) = kcontract(tmp.path(), &["build", "--templates", "tpl"]);
    assert_eq!(code, 1);
    assert!(err.contains("K0403"), "{err}");
    assert_eq!(files(&tmp.path().join("site")), before);
    // No temporary folders left beside it.
    let leftovers: Vec<_> = std::fs::read_dir(tmp.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains("kcontract"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[test]
fn output_that_is_a_file_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    copy_spec(tmp.path());
    std::fs::write(tmp.path().join("site"), "not a folder").unwrap();
    let (code, _, err) = kcontract(tmp.path(), &["build"]);
    assert_eq!(code, 1);
    assert!(err.contains("K0401") && err.contains("is a file"), "{err}");
    assert_eq!(
        std::fs::read_to_string(tmp.path().join("site")).unwrap(),
        "not a folder"
    );
}

#[test]
fn a_template_can_be_overridden_from_a_folder() {
    let tmp = tempfile::tempdir().unwrap();
    copy_spec(tmp.path());
    let tpl = tmp.path().join("tpl");
    std::fs::create_dir_all(&tpl).unwrap();
    std::fs::write(
        tpl.join("index.html"),
        "{% extends \"base.html\" %}{% block content %}<p id=\"custom\">{{ clause_count }} clauses</p>{% endblock %}",
    )
    .unwrap();
    let (code, _, err) = kcontract(tmp.path(), &["build", "--templates", "tpl"]);
    assert_eq!(code, 0, "{err}");
    let index = std::fs::read_to_string(tmp.path().join("site/en/index.html")).unwrap();
    assert!(
        index.contains(r#"<p id="custom">104 clauses</p>"#),
        "{index}"
    );
    // The other templates are still the embedded ones.
    let chapter = std::fs::read_to_string(tmp.path().join("site/en/abstract.html")).unwrap();
    assert!(chapter.contains(r#"class="toc""#));
}

#[test]
fn the_style_can_be_replaced_and_files_added_to_assets() {
    let tmp = tempfile::tempdir().unwrap();
    copy_spec(tmp.path());
    let tpl = tmp.path().join("tpl");
    std::fs::create_dir_all(tpl.join("assets/img")).unwrap();
    std::fs::write(tpl.join("assets/style.css"), "body { color: teal }\n").unwrap();
    std::fs::write(tpl.join("assets/img/logo.svg"), "<svg/>").unwrap();
    let (code, _, err) = kcontract(tmp.path(), &["build", "--templates", "tpl"]);
    assert_eq!(code, 0, "{err}");
    assert!(!err.contains("K0406"), "{err}");
    let site = tmp.path().join("site/assets");
    assert_eq!(
        std::fs::read_to_string(site.join("style.css")).unwrap(),
        "body { color: teal }\n"
    );
    assert_eq!(
        std::fs::read_to_string(site.join("img/logo.svg")).unwrap(),
        "<svg/>"
    );
    // The script was not replaced: it is the embedded one.
    assert_eq!(
        std::fs::read_to_string(site.join("site.js")).unwrap(),
        std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("templates/assets/site.js")
        )
        .unwrap()
    );
}

#[test]
fn missing_and_unknown_translations_are_reported_and_visible() {
    let tmp = tempfile::tempdir().unwrap();
    copy_spec(tmp.path());
    let p = tmp.path().join("spec/zh/runtime-and-lifecycle.md");
    let text = std::fs::read_to_string(&p).unwrap();
    // Rename one translated clause's id: its source clause is now untranslated, and the new id is unknown.
    let changed = text.replacen(
        "id: lifecycle.process-failures-logged",
        "id: lifecycle.process-failures-recorded",
        1,
    );
    assert_ne!(text, changed);
    std::fs::write(&p, changed).unwrap();
    let (code, _, err) = kcontract(tmp.path(), &["check"]);
    assert_eq!(code, 1, "an unknown id is an error");
    assert!(
        err.contains("error[K0302]") && err.contains("lifecycle.process-failures-recorded"),
        "{err}"
    );

    // Without the unknown clause, the missing translation is a warning, shown on the page.
    let text = std::fs::read_to_string(&p).unwrap();
    let start = text
        .find("```clause\nid: lifecycle.process-failures-recorded")
        .unwrap();
    let end = start + text[start + 3..].find("```\n").unwrap() + 3 + 4;
    std::fs::write(&p, format!("{}{}", &text[..start], &text[end..])).unwrap();
    let (code, _, err) = kcontract(tmp.path(), &["check"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(err.matches("warning[K0301]").count(), 1, "{err}");
    assert_eq!(kcontract(tmp.path(), &["check", "--strict"]).0, 1);
    assert_eq!(kcontract(tmp.path(), &["build"]).0, 0);
    let zh =
        std::fs::read_to_string(tmp.path().join("site/zh/runtime-and-lifecycle.html")).unwrap();
    assert_eq!(zh.matches("state-missing").count(), 1);
    assert!(zh.contains("尚未翻译"));
}

/// Every file under `dir` with its bytes, except under `skip`.
fn tree_except(dir: &Path, skip: &Path) -> Vec<(String, Vec<u8>)> {
    files(dir)
        .into_iter()
        .filter(|(rel, _)| !dir.join(rel).starts_with(skip))
        .collect()
}

#[test]
fn output_paths_that_would_escape_are_refused_and_nothing_else_is_touched() {
    let tmp = tempfile::tempdir().unwrap();
    copy_spec(tmp.path());
    let elsewhere = tmp.path().join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    std::fs::write(elsewhere.join("keep.txt"), "precious").unwrap();
    std::os::unix::fs::symlink(&elsewhere, tmp.path().join("linked")).unwrap();
    let before = files(tmp.path());
    for out in [".", "..", "/", "linked", "spec/..", "/tmp/.."] {
        let (code, _, err) = kcontract(tmp.path(), &["build", "--out", out]);
        assert_eq!(code, 1, "--out {out} must be refused:\n{err}");
        assert!(err.contains("K0401"), "{err}");
    }
    assert_eq!(files(tmp.path()), before, "a refused build changed files");

    // A good build writes only into its output folder.
    let (code, _, err) = kcontract(tmp.path(), &["build", "--out", "spec/../out-dir"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(tree_except(tmp.path(), &tmp.path().join("out-dir")), before);
    assert!(tmp.path().join("out-dir/en/index.html").exists());
}

#[test]
fn builds_at_different_times_are_identical() {
    let tmp = tempfile::tempdir().unwrap();
    copy_spec(tmp.path());
    assert_eq!(kcontract(tmp.path(), &["build", "--out", "a"]).0, 0);
    std::thread::sleep(std::time::Duration::from_millis(1100));
    assert_eq!(kcontract(tmp.path(), &["build", "--out", "b"]).0, 0);
    assert_eq!(files(&tmp.path().join("a")), files(&tmp.path().join("b")));
}

#[test]
fn runtimes_page_lists_the_delete_on_created_deviation_for_each_runtime() {
    let tmp = tempfile::tempdir().unwrap();
    copy_spec(tmp.path());
    assert_eq!(kcontract(tmp.path(), &["build"]).0, 0);
    for (lang, title) in [
        ("en", "Deleting a created container succeeds"),
        ("zh", "删除处于 created 状态的容器会成功"),
    ] {
        let page =
            std::fs::read_to_string(tmp.path().join(format!("site/{lang}/runtimes.html"))).unwrap();
        let start = page
            .find(r#"<section class="clause" id="delete-created""#)
            .expect("the deviation");
        let section = &page[start..start + page[start..].find("</section>").unwrap()];
        assert!(section.contains(title), "{lang}: {section}");
        for rt in ["runc 1.1.5", "crun 1.8.1", "youki 0.7.0"] {
            assert!(section.contains(rt), "{lang}: {rt}");
        }
        // The minimal trace, and each runtime's observed lines next to the model's.
        assert!(
            section.contains("&quot;op&quot;: &quot;delete&quot;"),
            "{section}"
        );
        for rt in ["runc", "crun", "youki"] {
            assert!(
                section.contains(&format!("<code>{rt}</code></summary>")),
                "{lang}: {rt} observed"
            );
        }
        assert!(page.contains(r#"id="hooks""#), "hook write-up");
        assert!(page.contains(r#"href="runtimes.html" aria-current="page""#));
    }
}

/// Every untestable clause's reason is on its matrix row, in both languages (the row once read a
/// field the context did not have, and no reason was ever shown).
#[test]
fn matrix_rows_show_why_a_clause_is_untestable() {
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(root().join("site/clauses.json")).unwrap())
            .unwrap();
    let with_reason: Vec<&str> = json["clauses"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["reason"].is_string())
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    assert!(!with_reason.is_empty());
    for (lang, label) in [("en", "Why untestable"), ("zh", "无法测试的原因")] {
        let html =
            std::fs::read_to_string(root().join(format!("site/{lang}/matrix.html"))).unwrap();
        for id in &with_reason {
            let start = html.find(&format!("<tr id=\"{id}\"")).unwrap();
            let row = &html[start..start + html[start..].find("</tr>").unwrap()];
            assert!(row.contains(label), "{lang} {id}: {row}");
        }
    }
}

/// The HTML files of a built site, by path.
fn pages(site: &Path) -> Vec<(String, String)> {
    files(site)
        .into_iter()
        .filter(|(n, _)| n.ends_with(".html"))
        .map(|(n, b)| (n, String::from_utf8(b).unwrap()))
        .collect()
}

/// Overriding a per-clause template changes that piece of every clause in every language: the
/// page templates include it, there is no second writer of the same markup.
#[test]
fn an_overridden_clause_template_is_used_for_every_clause_in_every_language() {
    let tmp = tempfile::tempdir().unwrap();
    copy_spec(tmp.path());
    let tpl = tmp.path().join("tpl");
    std::fs::create_dir_all(&tpl).unwrap();
    std::fs::write(
        tpl.join("clause.html"),
        "<div class=\"mine\" id=\"{{ c.id }}\">{{ actor_label[c.actor] }}: {{ c.text_html | safe }}</div>\n",
    )
    .unwrap();
    std::fs::write(
        tpl.join("clause-row.html"),
        "<tr class=\"my-row\"><td>{{ c.id }}</td></tr>\n",
    )
    .unwrap();
    std::fs::write(
        tpl.join("matrix-row.html"),
        "<tr class=\"my-matrix-row\"><td>{{ c.id }} {{ tests | length }}</td></tr>\n",
    )
    .unwrap();
    let (code, _, err) = kcontract(tmp.path(), &["build", "--templates", "tpl"]);
    assert_eq!(code, 0, "{err}");
    let site = pages(&tmp.path().join("site"));
    for lang in ["en", "zh"] {
        let ours = |name: &str| {
            &site
                .iter()
                .find(|(n, _)| n == &format!("{lang}/{name}"))
                .unwrap()
                .1
        };
        let chapters: Vec<&String> = site
            .iter()
            .filter(|(n, _)| {
                n.starts_with(&format!("{lang}/"))
                    && ![
                        "index.html",
                        "clauses.html",
                        "matrix.html",
                        "runtimes.html",
                        "changes.html",
                        "platforms.html",
                        "print.html",
                    ]
                    .iter()
                    .any(|p| n.ends_with(&format!("/{p}")))
            })
            .map(|(_, h)| h)
            .collect();
        assert_eq!(chapters.len(), 5);
        let mine: usize = chapters
            .iter()
            .map(|h| h.matches("<div class=\"mine\" id=\"").count())
            .sum();
        assert_eq!(mine, 104, "{lang}: every clause through the override");
        assert!(
            chapters
                .iter()
                .all(|h| !h.contains("<section class=\"clause"))
        );
        assert_eq!(
            ours("clauses.html")
                .matches("<tr class=\"my-row\">")
                .count(),
            104
        );
        assert!(!ours("clauses.html").contains("<tr data-level="));
        assert_eq!(
            ours("matrix.html")
                .matches("<tr class=\"my-matrix-row\">")
                .count(),
            104
        );
        assert!(!ours("matrix.html").contains("<tr id=\""));
    }
    let zh = &site
        .iter()
        .find(|(n, _)| n == "zh/runtime-and-lifecycle.html")
        .unwrap()
        .1;
    assert!(zh.contains("平台: "), "{zh}");
}

fn lang_de() -> PathBuf {
    root().join("tests/fixtures/lang-de")
}

/// A third language needs only its interface file and `spec/<lang>/`: the fixture's `de` builds,
/// its pages use its interface text, and on every page of every language the switch links each
/// other language, named in itself, keeping the page.
#[test]
fn a_third_language_builds_and_every_switch_reaches_every_other_language() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("site");
    let (code, _, err) = kcontract(
        &lang_de(),
        &[
            "build",
            "--templates",
            "templates",
            "--out",
            out.to_str().unwrap(),
        ],
    );
    assert_eq!(code, 0, "{err}");
    let names = [
        ("en", "English", "en"),
        ("zh", "中文", "zh-CN"),
        ("de", "Deutsch", "de"),
    ];
    let site = pages(&out);
    let mut checked = 0;
    for (lang, _, html_lang) in names {
        let of_lang: Vec<&(String, String)> = site
            .iter()
            .filter(|(n, _)| n.starts_with(&format!("{lang}/")))
            .collect();
        // index, clauses, matrix, the print page and the two chapters.
        assert_eq!(of_lang.len(), 6, "{lang}");
        for (name, html) in of_lang {
            let page = name.rsplit('/').next().unwrap();
            assert!(
                html.contains(&format!("<html lang=\"{html_lang}\" data-page=")),
                "{name}"
            );
            for (other, own_name, other_html_lang) in names {
                let link = format!(
                    "hreflang=\"{other}\" lang=\"{other_html_lang}\" href=\"../{other}/{page}\">{own_name}</a>"
                );
                assert_eq!(
                    html.contains(&link),
                    other != lang,
                    "{name}: the switch to {other}"
                );
            }
            checked += 1;
        }
    }
    assert_eq!(checked, 18);
    let de = std::fs::read_to_string(out.join("de/one.html")).unwrap();
    assert!(de.contains("Die Plattform MUSS"), "{de}");
    assert!(de.contains("aria-label=\"Sprache\""), "{de}");
    let two = std::fs::read_to_string(out.join("de/two.html")).unwrap();
    assert!(two.contains("Noch nicht übersetzt"), "{two}");
    assert!(out.join("assets/search-de.js").is_file());
}

/// No Rust source names the fixture's third language: it is data only.
#[test]
fn no_rust_source_names_the_third_language() {
    let mut stack = vec![root().join("src")];
    let mut seen = 0;
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") {
                let text = std::fs::read_to_string(&p).unwrap();
                assert!(!text.contains("\"de\""), "{} names \"de\"", p.display());
                seen += 1;
            }
        }
    }
    assert!(seen > 20);
}

fn copy_dir(from: &Path, to: &Path) {
    for (rel, bytes) in files(from) {
        let p = to.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, bytes).unwrap();
    }
}

/// The errors of a run's stderr (the fixture's missing translations are warnings before them).
fn errors_only(err: &str) -> &str {
    &err[err.find("error[").unwrap_or(0)..]
}

/// The warnings of a run's stderr about interface text (K0404).
fn interface_warnings(err: &str) -> String {
    err.split("\n\n")
        .filter(|w| w.starts_with("warning[K0404]"))
        .collect::<Vec<_>>()
        .join("\n\n")
}

/// Without its interface file, a configured language shows the English labels, with a warning
/// (K0404) saying which file to add: the site is built.
#[test]
fn k0404_a_language_without_interface_text() {
    let tmp = tempfile::tempdir().unwrap();
    copy_dir(&lang_de().join("spec"), &tmp.path().join("spec"));
    let (code, _, err) = kcontract(tmp.path(), &["build"]);
    assert_eq!(code, 0, "{err}");
    let page = std::fs::read_to_string(tmp.path().join("site/de/index.html")).unwrap();
    assert!(page.contains(">Clause index</a>"), "the English label");
    insta::assert_snapshot!(interface_warnings(&err));
}

/// An interface file that lacks keys shows them in English, with a warning naming them and the
/// file (K0404); the templates folder beside the spec folder is found without `--templates`.
#[test]
fn k0404_an_interface_file_missing_keys() {
    let tmp = tempfile::tempdir().unwrap();
    copy_dir(&lang_de(), tmp.path());
    let de = tmp.path().join("templates/i18n/de.yaml");
    let text = std::fs::read_to_string(&de).unwrap();
    let cut: String = text
        .lines()
        .filter(|l| !l.starts_with("  search") && !l.starts_with("  matrix:"))
        .map(|l| format!("{l}\n"))
        .collect();
    std::fs::write(&de, cut).unwrap();
    let (code, _, err) = kcontract(tmp.path(), &["build"]);
    assert_eq!(code, 0, "{err}");
    let page = std::fs::read_to_string(tmp.path().join("site/de/index.html")).unwrap();
    assert!(
        page.contains(">Traceability matrix</a>"),
        "the English label"
    );
    assert!(page.contains(">Klauselverzeichnis</a>"), "the German one");
    insta::assert_snapshot!(interface_warnings(&err));
}

/// A replacement of the English interface file that lacks a key shows the embedded English text
/// for it, as the warning says (it once showed nothing: the replacement stood in for itself).
#[test]
fn k0404_a_replaced_english_file_missing_a_key_shows_the_embedded_english() {
    let tmp = tempfile::tempdir().unwrap();
    copy_dir(&lang_de(), tmp.path());
    let english = std::fs::read_to_string(root().join("templates/i18n/en.yaml")).unwrap();
    let cut: String = english
        .lines()
        .filter(|l| !l.starts_with("  matrix:"))
        .map(|l| format!("{l}\n"))
        .collect();
    std::fs::write(tmp.path().join("templates/i18n/en.yaml"), cut).unwrap();
    let (code, _, err) = kcontract(tmp.path(), &["build"]);
    assert_eq!(code, 0, "{err}");
    let warnings = interface_warnings(&err);
    assert!(
        warnings.contains("the interface text of `en` lacks 1 key(s), shown in English: matrix")
            && warnings.contains("templates/i18n/en.yaml"),
        "{warnings}"
    );
    let page = std::fs::read_to_string(tmp.path().join("site/en/index.html")).unwrap();
    assert!(page.contains(">Traceability matrix</a>"), "{page}");
    assert!(
        !page.contains("href=\"matrix.html\"></a>"),
        "an empty label"
    );
}

/// A malformed interface file is an error with its `file:line:col` (K0405).
#[test]
fn k0405_a_malformed_interface_file() {
    let tmp = tempfile::tempdir().unwrap();
    copy_dir(&lang_de(), tmp.path());
    std::fs::write(
        tmp.path().join("templates/i18n/de.yaml"),
        "name: Deutsch\nhtml_lang: de\ntext:\n  contents: [1, 2]\n",
    )
    .unwrap();
    let (code, _, err) = kcontract(tmp.path(), &["build", "--templates", "templates"]);
    assert_eq!(code, 1);
    insta::assert_snapshot!(errors_only(&err));
}

/// An interface file with comments only says it holds no document (K0405).
#[test]
fn k0405_an_interface_file_without_a_document() {
    let tmp = tempfile::tempdir().unwrap();
    copy_dir(&lang_de(), tmp.path());
    std::fs::write(
        tmp.path().join("templates/i18n/de.yaml"),
        "# Deutsch: noch zu übersetzen\n",
    )
    .unwrap();
    let (code, _, err) = kcontract(tmp.path(), &["build", "--templates", "templates"]);
    assert_eq!(code, 1);
    insta::assert_snapshot!(errors_only(&err));
}

/// `--out` into folders that do not exist yet creates them; a failure names only the user's paths,
/// never the temporary folder the site is built in.
#[test]
fn build_creates_missing_parents_and_errors_show_no_temporary_folder() {
    let tmp = tempfile::tempdir().unwrap();
    copy_spec(tmp.path());
    let (code, _, err) = kcontract(tmp.path(), &["build", "--out", "a/new/b"]);
    assert_eq!(code, 0, "{err}");
    assert!(tmp.path().join("a/new/b/en/index.html").is_file());
    // A parent that is a file cannot be made a folder.
    std::fs::write(tmp.path().join("blocker"), "a file").unwrap();
    let (code, _, err) = kcontract(tmp.path(), &["build", "--out", "blocker/site"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("K0401"), "{err}");
    assert!(!err.contains("kcontract-new"), "{err}");
    assert!(!err.contains("kcontract-old"), "{err}");
}

/// The manifest lets a rebuild trust an old file without reading it when the file is older than
/// the manifest (what `make` and cargo trust too): a page edited by hand but given back an old
/// modification time survives the rebuild. A page edited (and so newer than the manifest) is
/// compared byte by byte and restored. Without its manifest the folder is no longer a site
/// kcontract built, and is refused (K0408), untouched.
#[cfg(unix)]
#[test]
fn the_manifest_vouches_for_old_files_and_marks_the_folder_as_a_site() {
    let tmp = tempfile::tempdir().unwrap();
    copy_spec(tmp.path());
    assert_eq!(kcontract(tmp.path(), &["build"]).0, 0);
    let site = tmp.path().join("site");
    let manifest = site.join(".kcontract-manifest");
    assert!(manifest.is_file(), "the build writes a manifest");
    let page = site.join("en/background.html");
    let good = std::fs::read(&page).unwrap();
    let mut bad = good.clone();
    bad[0] = b'X';
    // An hour before the build (a file's time can equal the manifest's, which is not trusted).
    let old = std::fs::metadata(&page).unwrap().modified().unwrap()
        - std::time::Duration::from_secs(3600);
    let f = std::fs::OpenOptions::new().write(true).open(&page).unwrap();
    std::io::Write::write_all(&mut &f, &bad).unwrap();
    f.set_modified(old).unwrap();
    drop(f);

    assert_eq!(kcontract(tmp.path(), &["build"]).0, 0);
    assert_eq!(
        std::fs::read(&page).unwrap(),
        bad,
        "trusted from the manifest"
    );

    // Newer than the manifest: compared, and rewritten.
    let f = std::fs::OpenOptions::new().write(true).open(&page).unwrap();
    f.set_modified(std::time::SystemTime::now() + std::time::Duration::from_secs(60))
        .unwrap();
    drop(f);
    assert_eq!(kcontract(tmp.path(), &["build"]).0, 0);
    assert_eq!(
        std::fs::read(&page).unwrap(),
        good,
        "compared and rewritten"
    );

    std::fs::remove_file(&manifest).unwrap();
    let before = files(&site);
    let (code, _, err) = kcontract(tmp.path(), &["build"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("K0408"), "{err}");
    assert_eq!(files(&site), before, "refused, untouched");
}

/// A rebuild over an existing site reuses (hard-links) the files whose bytes are unchanged and
/// writes the others; a previous file with the same size but other bytes, or a symbolic link, is
/// never reused; the result is the same site as a build into an empty folder.
#[cfg(unix)]
#[test]
fn a_rebuild_reuses_unchanged_files_and_rewrites_the_rest() {
    use std::os::unix::fs::MetadataExt;
    let tmp = tempfile::tempdir().unwrap();
    copy_spec(tmp.path());
    assert_eq!(kcontract(tmp.path(), &["build"]).0, 0);
    let site = tmp.path().join("site");
    let ino = |rel: &str| std::fs::metadata(site.join(rel)).unwrap().ino();
    let (index_before, abstract_before) = (ino("en/index.html"), ino("en/abstract.html"));
    // Same size, other bytes: must be rewritten from the spec.
    let tampered = site.join("en/background.html");
    let mut bytes = std::fs::read(&tampered).unwrap();
    bytes[0] = b'X';
    std::fs::write(&tampered, &bytes).unwrap();
    let background_before = ino("en/background.html");
    // A link where a page was: must be replaced by a real file, and its target left alone.
    let outside = tmp.path().join("outside.html");
    std::fs::copy(site.join("zh/abstract.html"), &outside).unwrap();
    std::fs::remove_file(site.join("zh/abstract.html")).unwrap();
    std::os::unix::fs::symlink(&outside, site.join("zh/abstract.html")).unwrap();
    // An edited clause changes its chapter page (and the index pages), not the others.
    let p = tmp.path().join("spec/en/network-environment.md");
    let text = std::fs::read_to_string(&p).unwrap();
    std::fs::write(&p, text.replacen("text: ", "text: Indeed, ", 1)).unwrap();

    let (code, _, err) = kcontract(tmp.path(), &["build"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(ino("en/index.html"), index_before, "unchanged page reused");
    assert_eq!(
        ino("en/abstract.html"),
        abstract_before,
        "unchanged page reused"
    );
    assert_ne!(
        ino("en/background.html"),
        background_before,
        "tampered page rewritten"
    );
    assert!(
        !std::fs::symlink_metadata(site.join("zh/abstract.html"))
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(
        std::fs::read(&outside).unwrap(),
        std::fs::read(site.join("zh/abstract.html")).unwrap()
    );
    let changed = std::fs::read_to_string(site.join("en/network-environment.html")).unwrap();
    assert!(changed.contains("Indeed, "));
    // The same bytes as a build into a fresh folder.
    assert_eq!(kcontract(tmp.path(), &["build", "--out", "fresh"]).0, 0);
    assert_eq!(files(&site), files(&tmp.path().join("fresh")));
}

#[test]
fn build_timings_name_every_step_and_part() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("site");
    let (code, _, err) = kcontract(
        &root(),
        &["build", "--timings", "--out", out.to_str().unwrap()],
    );
    assert_eq!(code, 0, "{err}");
    let at = |name: &str| {
        err.find(name)
            .unwrap_or_else(|| panic!("no `{name}` in --timings:\n{err}"))
    };
    // Steps in the order they run, then the parts of render+write, then the total.
    let order = [
        "  read ",
        "  parse ",
        "  assemble ",
        "  validate ",
        "  render+write ",
        "  swap ",
        "· contexts ",
        "· pages ",
        "· search index ",
        "· data files ",
        "· assets ",
        "  total ",
    ];
    let positions: Vec<usize> = order.iter().map(|n| at(n)).collect();
    assert!(positions.windows(2).all(|w| w[0] < w[1]), "{err}");
}

/// `(kind, id)` of each change entry of a Changes page (`<li id="change-…" data-kind data-id>`),
/// with the item's HTML.
fn change_entries(html: &str) -> Vec<(String, String, String)> {
    let attr = |item: &str, name: &str| {
        let at = item.find(&format!(" {name}=\"")).unwrap() + name.len() + 3;
        item[at..at + item[at..].find('"').unwrap()].to_string()
    };
    html.split("<li id=\"change-")
        .skip(1)
        .map(|piece| {
            let item = &piece[..piece.find("</li>").expect("an entry is closed")];
            (
                attr(item, "data-kind"),
                attr(item, "data-id"),
                item.to_string(),
            )
        })
        .collect()
}

/// The HTML escaping of the templates (tera's): what a text from the spec looks like on a page.
fn escaped(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\'', "&#39;")
}

/// The Changes page is `kcontract diff` of the history, in both languages: for each step between
/// two versions of `history:` (an upstream pull request), every change of a kind upstream can make
/// (`Kind::is_upstream` of the edit crate) that the command reports is an entry of that kind, and nothing else is;
/// the last step (to the current version, this contract's own edition) lists every kind. A level
/// change has the command's direction, a rewording its word diff. Among the steps, with their dates
/// and pull requests: #4531 deleted `/dev/log` (removed, not informative), #4550 turned
/// requirements into prose (removed, now informative), #9683 weakened `/var/log` from MUST to MAY,
/// #73 and #106 (cgroup v2); the clause #106 changed links from its chapter page to its entry.
#[test]
fn the_changes_page_lists_what_kcontract_diff_reports() {
    let tmp = tempfile::tempdir().unwrap();
    copy_spec(tmp.path());
    let (code, _, err) = kcontract(tmp.path(), &["build"]);
    assert_eq!(code, 0, "{err}");
    let loaded = kcontract_spec::load(&tmp.path().join("spec"));
    let mut history: Vec<_> = loaded.spec.contract.history.clone();
    history.sort_by(|a, b| a.date.cmp(&b.date));
    assert!(history.len() >= 13, "{} versions", history.len());
    let upstream = [
        "added", "removed", "renamed", "reworded", "level", "keyword", "moved",
    ];
    for (lang, weakens) in [("en", "weakens"), ("zh", "放宽")] {
        let html =
            std::fs::read_to_string(tmp.path().join(format!("site/{lang}/changes.html"))).unwrap();
        for (n, v) in history.iter().enumerate() {
            let next = history.get(n + 1);
            let new = next.map_or("spec".to_string(), |w| format!("spec/{}", w.path));
            let old = format!("spec/{}", v.path);
            let (code, out, err) = kcontract(tmp.path(), &["diff", &old, &new, "--format", "json"]);
            assert_eq!(code, 0, "{err}");
            let json: serde_json::Value = serde_json::from_str(&out).unwrap();
            let changes = json["changes"].as_array().unwrap();
            let mut expected: Vec<(String, String)> = changes
                .iter()
                .map(|c| {
                    (
                        c["kind"].as_str().unwrap().to_string(),
                        c["id"].as_str().unwrap().to_string(),
                    )
                })
                .filter(|(k, _)| next.is_none() || upstream.contains(&k.as_str()))
                .collect();
            expected.sort();
            let at = html
                .find(&format!("<h2 id=\"since-{}\">", v.name))
                .unwrap_or_else(|| panic!("{lang}: no step from {}", v.name));
            let step = &html[at..at + html[at..].find("</section>").unwrap()];
            if let Some(w) = next {
                let pr = w.pull_request.unwrap();
                assert!(
                    step.contains(&format!("{} · #{pr}", w.date)),
                    "{lang}: step to {} names no date and #{pr}",
                    w.name
                );
            }
            let entries = change_entries(step);
            let mut got: Vec<(String, String)> = entries
                .iter()
                .map(|(k, i, _)| (k.clone(), i.clone()))
                .collect();
            got.sort();
            assert_eq!(got, expected, "{lang}: {old} → {new}");
            for c in changes {
                let (kind, id) = (c["kind"].as_str().unwrap(), c["id"].as_str().unwrap());
                let Some((_, _, item)) = entries.iter().find(|(k, i, _)| k == kind && i == id)
                else {
                    continue;
                };
                if kind == "level" {
                    let d = c["direction"].as_str().unwrap();
                    assert!(
                        item.contains(&format!("data-direction=\"{d}\"")),
                        "{lang} {id}"
                    );
                }
                if kind == "reworded" {
                    for w in c["words"].as_array().unwrap() {
                        let text = escaped(w["text"].as_str().unwrap());
                        let piece = match w["op"].as_str().unwrap() {
                            "delete" => format!("<del>{text}</del>"),
                            "insert" => format!("<ins>{text}</ins>"),
                            _ => text,
                        };
                        assert!(item.contains(&piece), "{lang} {id}: {piece}");
                    }
                }
            }
        }
        let step_of = |pr: u64| {
            let v = history
                .iter()
                .position(|v| v.pull_request == Some(pr))
                .unwrap_or_else(|| panic!("#{pr} is no step"));
            let at = html
                .find(&format!("<h2 id=\"since-{}\">", history[v - 1].name))
                .unwrap();
            &html[at..at + html[at..].find("</section>").unwrap()]
        };
        let entry = |step: &str, kind: &str, id_part: &str| {
            change_entries(step)
                .into_iter()
                .find(|(k, i, _)| k == kind && i.contains(id_part))
                .unwrap_or_else(|| panic!("{lang}: no {kind} entry for {id_part}"))
                .2
        };
        // #4531: /dev/log deleted, its old text shown, no chapter page to link, not prose.
        let dev_log = entry(step_of(4531), "removed", "dev-log");
        assert!(
            dev_log.contains("/dev/log") && !dev_log.contains("href="),
            "{dev_log}"
        );
        assert!(!dev_log.contains("class=\"meta\"><"), "{dev_log}");
        // #4550: requirements turned into informative text, said so.
        let now_prose = if lang == "en" {
            "now informative"
        } else {
            "已改为说明性文字"
        };
        let turned = entry(step_of(4550), "removed", "developers-assume-traffic");
        assert!(turned.contains(now_prose), "{turned}");
        // #9683: /var/log weakened from MUST to MAY.
        let var_log = entry(step_of(9683), "level", "var-log");
        assert!(
            var_log.contains(&format!(
                "<del>MUST</del> → <ins>MAY</ins>{}<strong data-direction=\"weakens\">{weakens}</strong>",
                if lang == "en" { " (" } else { "（" }
            )),
            "{lang}: {var_log}"
        );
        assert!(step_of(73).contains("#73"));
        let cgroups = entry(step_of(106), "reworded", "cgroups");
        assert!(cgroups.contains("cgroup v2"), "{cgroups}");
        // The clause #106 changed links from its chapter page to that entry, with the date of the
        // version before it.
        let chapter =
            std::fs::read_to_string(tmp.path().join(format!("site/{lang}/configuration.html")))
                .unwrap();
        assert!(
            chapter.contains(
                "href=\"changes.html#change-knative-specs-2022-03-23-reworded-config.cgroups.limits-exposed\""
            ),
            "{lang}"
        );
        assert!(
            chapter.contains("2022-03-23"),
            "{lang}: the badge names the version"
        );
    }
}

/// Two earlier versions, listed newest first: the Changes page has a step for each, oldest first by
/// date, the second ending at the current version; only clauses changed in that last step carry a
/// badge on their chapter page, linking to their entry of that step.
#[test]
fn the_changes_page_has_a_step_per_earlier_version_in_date_order() {
    let tmp = tempfile::tempdir().unwrap();
    let clause = |id: &str, level: &str, text: &str| {
        format!(
            "```clause\nid: {id}\nlevel: {level}\nactor: platform\ntext: {text}\nverify: manual\n```\n\n"
        )
    };
    let contract = |history: &str| {
        format!(
            "title: T\nversion: 0.1.0\nlanguages: [en]\nchapters: [one]\n\
             upstream: {{title: Up, url: https://example.org/up, revision: cccccccc, license: Apache-2.0, attribution: a}}\n{history}"
        )
    };
    let write = |rel: &str, text: &str| {
        let p = tmp.path().join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    };
    write(
        "spec/contract.yaml",
        &contract(
            "history:\n  - {name: v2020, path: history/v2020, url: https://example.org/b, revision: bbbbbbbb, date: 2020-01-01}\n  - {name: v2019, path: history/v2019, url: https://example.org/a, revision: aaaaaaaa, date: 2019-01-01}\n",
        ),
    );
    write("spec/history/v2019/contract.yaml", &contract(""));
    write(
        "spec/history/v2019/en/one.md",
        &format!(
            "# One\n\n{}{}",
            clause("one.a", "MUST", "The platform MUST do A."),
            clause("one.b", "SHOULD", "The platform SHOULD do B.")
        ),
    );
    write("spec/history/v2020/contract.yaml", &contract(""));
    write(
        "spec/history/v2020/en/one.md",
        &format!(
            "# One\n\n{}{}",
            clause("one.a", "MUST", "The platform MUST always do A."),
            clause("one.c", "MAY", "The platform MAY do C.")
        ),
    );
    write(
        "spec/en/one.md",
        &format!(
            "# One\n\n{}{}{}",
            clause("one.a", "MAY", "The platform MAY always do A."),
            clause("one.c", "MAY", "The platform MAY do C."),
            clause("one.d", "MUST", "The platform MUST do D.")
        ),
    );
    let (code, _, err) = kcontract(tmp.path(), &["build"]);
    assert_eq!(code, 0, "{err}");
    let html = std::fs::read_to_string(tmp.path().join("site/en/changes.html")).unwrap();
    let first = html.find("<h2 id=\"since-v2019\">").expect("the 2019 step");
    let second = html.find("<h2 id=\"since-v2020\">").expect("the 2020 step");
    assert!(first < second, "oldest first");
    let (step1, step2) = (&html[first..second], &html[second..]);
    let kinds = |s: &str| {
        let mut v: Vec<(String, String)> = change_entries(s)
            .into_iter()
            .map(|(k, i, _)| (k, i))
            .collect();
        v.sort();
        v
    };
    let pair = |k: &str, i: &str| (k.to_string(), i.to_string());
    assert_eq!(
        kinds(step1),
        [
            pair("added", "one.c"),
            pair("removed", "one.b"),
            pair("reworded", "one.a")
        ]
    );
    assert_eq!(
        kinds(step2),
        [
            pair("added", "one.d"),
            pair("level", "one.a"),
            pair("reworded", "one.a")
        ]
    );
    assert!(step1.contains("v2019 → v2020"), "{step1}");
    // The step to the current version is this contract's own edition, said so.
    assert!(
        step2.contains("own edition of the latest upstream version"),
        "{step2}"
    );
    assert!(step2.contains("<code>cccccccc</code>"));
    let chapter = std::fs::read_to_string(tmp.path().join("site/en/one.html")).unwrap();
    let badges: Vec<&str> = chapter
        .split("<a class=\"badge changed\" href=\"changes.html#")
        .skip(1)
        .map(|p| &p[..p.find('"').unwrap()])
        .collect();
    // "Changed since" marks what upstream changed in its latest step (v2019 → v2020), not this
    // contract's own edition (one.a's level and one.d are the project's).
    assert_eq!(
        badges,
        ["change-v2019-reworded-one.a", "change-v2019-added-one.c"],
        "the badges are upstream's latest step's"
    );
    assert!(chapter.contains(">new since 2019-01-01</a>"));
    assert!(chapter.contains(">changed since 2019-01-01</a>"));
}

/// `build --platform REPORT…`: the matrix page of every language has a column per platform, each
/// clause's status there in the page's language (`stale` for a report of an older text), and the
/// coverage counts the executed checks; `matrix.json` has the columns too.
#[test]
fn platform_reports_are_columns_of_the_matrix_page_in_every_language() {
    let tmp = tempfile::tempdir().unwrap();
    let r = crate::common::platform_reports::write(tmp.path());
    let out = tmp.path().join("site");
    let (code, _, err) = kcontract(
        &root(),
        &[
            "build",
            "--out",
            out.to_str().unwrap(),
            "--platform",
            r.files[0].to_str().unwrap(),
            "--platform",
            r.files[1].to_str().unwrap(),
        ],
    );
    assert_eq!(code, 0, "{err}");
    // The page's words for fail, pass, stale, not run, and the coverage's executed column.
    let words = [
        ("en", ["fail", "pass", "stale", "not run", "executed"]),
        ("zh", ["未通过", "通过", "已过时", "未运行", "已执行"]),
    ];
    for (lang, [fail, pass, stale, not_run, executed]) in words {
        let html = std::fs::read_to_string(out.join(lang).join("matrix.html")).unwrap();
        // The two columns, in order, each headed by its name and its route.
        let at = |n: &str| html.find(&format!("<th scope=\"col\">{n}<br><small class=\"route\">"));
        assert!(
            matches!((at("runc"), at("crun")), (Some(a), Some(b)) if a < b),
            "{lang}: the two columns"
        );
        assert!(html.contains(&format!("<br><small>{executed}")), "{lang}");
        let row = |id: &str| {
            let start = html.find(&format!("<tr id=\"{id}\"")).unwrap();
            html[start..start + html[start..].find("</tr>").unwrap()].to_string()
        };
        let has = |row: &str, platform: &str, key: &str, word: &str| {
            let at = row
                .find(&format!("<td class=\"platform\" data-label=\"{platform}"))
                .unwrap_or_else(|| panic!("{lang}: no {platform} cell in {row}"));
            let td = &row[at..at + row[at..].find("</td>").unwrap()];
            td.contains(&format!("class=\"badge platform-{key}\""))
                && td.contains(&format!(">{word}</span>"))
        };
        let failed = row(&r.failed_on_runc);
        assert!(has(&failed, "runc", "fail", fail), "{lang}: {failed}");
        assert!(has(&failed, "crun", "pass", pass), "{lang}: {failed}");
        let old = row(&r.stale_on_runc);
        assert!(has(&old, "runc", "stale", stale), "{lang}: {old}");
        assert!(has(&old, "crun", "pass", pass), "{lang}: {old}");
        let skipped = row(&r.not_run_on_crun);
        assert!(
            has(&skipped, "crun", "not_run", not_run),
            "{lang}: {skipped}"
        );
    }
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("matrix.json")).unwrap()).unwrap();
    assert_eq!(json["platforms"][1]["name"], "crun");
    assert!(json["summary"]["total"]["executed"].as_u64().unwrap() > 20);
}

/// Issue #35: the platforms page of every language with two local-like and two vendor reports
/// (`build --platform`): a column per report in the order given, each column's count of MUST and
/// MUST NOT clauses passing as `matrix --format json` gives them, each clause's routes as the
/// JSON's, and a cell per report opening to the report's checks and messages.
#[test]
fn the_platforms_page_has_a_column_per_report_with_counts_routes_and_evidence() {
    let tmp = tempfile::tempdir().unwrap();
    let (r, args) = crate::common::platform_reports::four_columns(tmp.path());
    let out = tmp.path().join("site");
    let mut build = vec!["build", "--out", out.to_str().unwrap()];
    build.extend(args.iter().map(String::as_str));
    let (code, _, err) = kcontract(&root(), &build);
    assert_eq!(code, 0, "{err}");
    let mut matrix = vec!["matrix", "--format", "json"];
    matrix.extend(args.iter().map(String::as_str));
    let (code, json, err) = kcontract(&root(), &matrix);
    assert_eq!(code, 0, "{err}");
    let json: serde_json::Value = serde_json::from_str(&json).unwrap();
    let clauses = json["clauses"].as_array().unwrap();
    let names = ["runc", "crun", "google-cloud-run", "ibm-code-engine"];
    let must_total = clauses
        .iter()
        .filter(|c| {
            c["verify"] != "untestable"
                && ["MUST", "MUST NOT"].contains(&c["level"].as_str().unwrap())
        })
        .count();
    let must_pass: Vec<usize> = (0..names.len())
        .map(|i| {
            clauses
                .iter()
                .filter(|c| ["MUST", "MUST NOT"].contains(&c["level"].as_str().unwrap()))
                .filter(|c| c["platforms"][i]["status"] == "pass")
                .count()
        })
        .collect();
    // runc's fixture fails and is stale on two clauses that are not MUSTs: it passes every MUST;
    // crun did not run the third testable clause, a MUST. The vendor logs pass some, not all.
    assert_eq!(&must_pass[..2], [must_total, must_total - 1]);
    assert!(
        must_pass[2..].iter().all(|n| (6..must_total).contains(n)),
        "{must_pass:?}"
    );
    for (lang, pass_word, manual) in [("en", "pass", "manual"), ("zh", "通过", "人工")] {
        let html = std::fs::read_to_string(out.join(lang).join("platforms.html")).unwrap();
        // The four columns in order, each headed by its name and its route.
        let at: Vec<Option<usize>> = names
            .iter()
            .map(|n| html.find(&format!("<th scope=\"col\">{n}<br><small class=\"route\">")))
            .collect();
        assert!(
            at.iter().all(Option::is_some) && at.windows(2).all(|w| w[0] < w[1]),
            "{lang}: the four columns in order: {at:?}"
        );
        for (n, pass) in names.iter().zip(&must_pass) {
            let row = format!(
                "<tr class=\"column\" data-platform=\"{n}\"><th scope=\"row\">{n}</th><td class=\"must-pass\">{pass}/{must_total}</td>"
            );
            assert!(html.contains(&row), "{lang}: {row}");
        }
        // A row per testable clause, with the JSON's routes (or reason) as its badges.
        let testable: Vec<&serde_json::Value> = clauses
            .iter()
            .filter(|c| c["verify"] != "untestable")
            .collect();
        assert_eq!(
            html.matches(" data-routes=\"").count(),
            testable.len(),
            "{lang}"
        );
        for c in &testable {
            let id = c["id"].as_str().unwrap();
            let start = html.find(&format!("<tr id=\"{id}\"")).unwrap();
            let row = &html[start..start + html[start..].find("</tr>").unwrap()];
            let routes = crate::common::platform_reports::routes(c);
            let want = match c["route_reason"].as_str() {
                Some(reason) => reason.to_string(),
                None => routes.join(" "),
            };
            assert!(
                row.contains(&format!("data-routes=\"{want}\"")),
                "{lang}: {row}"
            );
            for route in &routes {
                assert!(
                    row.contains(&format!("href=\"#route-{route}\"")),
                    "{lang}: {row}"
                );
            }
            assert_eq!(
                row.matches("<td class=\"platform\"").count(),
                4,
                "{lang}: {id}"
            );
        }
        // runc's failing clause opens to the fixture's check and message.
        let id = &r.failed_on_runc;
        let start = html
            .find(&format!("<details class=\"evidence\" id=\"runc--{id}\""))
            .unwrap();
        let cell = &html[start..start + html[start..].find("</details>").unwrap()];
        assert!(
            cell.contains("<code>fixture-check</code> <small>fail</small>")
                && cell.contains("a fixture"),
            "{lang}: {cell}"
        );
        // A vendor cell names the Go tests that decided it.
        let start = html
            .find("<details class=\"evidence\" id=\"google-cloud-run--config.env.port\"")
            .unwrap();
        let cell = &html[start..start + html[start..].find("</details>").unwrap()];
        assert!(
            cell.contains(&format!(">{pass_word}</span>")) && cell.contains("TestMustEnvVars"),
            "{lang}: {cell}"
        );
        assert!(
            html.contains(&format!(
                "<span class=\"badge route reason\">{manual}</span>"
            )),
            "{lang}"
        );
        assert!(!html.contains("id=\"no-columns\""), "{lang}");
    }
}

/// Without reports (a contract with no `platforms/results/` beside its spec, and no `--platform`)
/// the platforms page still lists the routes with their commands and says how to make a column;
/// its sidebar entry is on every page.
#[test]
fn the_platforms_page_without_reports_says_how_to_make_a_column() {
    let tmp = tempfile::tempdir().unwrap();
    copy_spec(tmp.path());
    let out = tmp.path().join("site");
    let (code, _, err) = kcontract(tmp.path(), &["build", "--out", out.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    for lang in ["en", "zh"] {
        let html = std::fs::read_to_string(out.join(lang).join("platforms.html")).unwrap();
        assert!(html.contains("id=\"no-columns\""), "{lang}");
        // The commands that write a report (a column), from the routes table; not lint's.
        let start = html.find("<pre class=\"commands\"><code>").unwrap();
        let commands = &html[start..start + html[start..].find("</pre>").unwrap()];
        for command in [
            "platform run",
            "platform import-log",
            "platform verify",
            "build --platform",
        ] {
            assert!(
                commands.contains(&format!("kcontract {command} ")),
                "{lang}: {commands}"
            );
        }
        assert!(!commands.contains("platform lint"), "{lang}: {commands}");
        for route in ["simulated", "vendor-log", "deployed", "lint", "model"] {
            assert!(
                html.contains(&format!("<tr id=\"route-{route}\">")),
                "{lang}: {route}"
            );
        }
        assert!(
            !html.contains("<td class=\"platform\""),
            "{lang}: no column"
        );
        let index = std::fs::read_to_string(out.join(lang).join("index.html")).unwrap();
        assert!(index.contains("<a href=\"platforms.html\">"), "{lang}");
    }
}

/// The `<div class="informative" …>…</div>` frames of a page, each whole.
fn informative_frames(html: &str) -> Vec<&str> {
    html.match_indices("<div class=\"informative\"")
        .map(|(at, _)| &html[at..at + html[at..].find("</div>").unwrap() + "</div>".len()])
        .collect()
}

/// An informative note or example (a quote opening with "Note", in Chinese "注：", the block after
/// `<!-- kcontract: informative -->`) is shown as informative: framed and labelled in the page's
/// language, its keywords not highlighted, not a clause of the index or the count. Control: the
/// clause beside it keeps its highlighted keyword, and a plain quote is no note.
#[test]
fn informative_notes_are_labelled_and_their_keywords_not_highlighted() {
    let tmp = tempfile::tempdir().unwrap();
    let spec = tmp.path().join("spec");
    for (path, text) in [
        (
            "contract.yaml",
            "title: T\nversion: 0.1.0\nlanguages: [en, zh]\nchapters: [one]\n",
        ),
        (
            "en/one.md",
            "# One\n\n> Note: a relay that drops a message MUST NOT be counted as **delivering** it.\n\n> A plain quote.\n\n<!-- kcontract: informative -->\nFor example, a request without a host MAY be rejected.\n\n```clause\nid: one.a\nlevel: MUST\nactor: platform\ntext: The platform MUST do it.\nverify: manual\n```\n",
        ),
        (
            "zh/one.md",
            "# 一\n\n> 注：丢弃消息的中继不得（MUST NOT）被计为已送达。\n\n<!-- kcontract: informative -->\n例如，没有主机的请求可以（MAY）被拒绝。\n\n```clause\nid: one.a\ntext: 平台必须（MUST）这样做。\nsource: 87b30d4e0373\n```\n",
        ),
    ] {
        let p = spec.join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    let (code, _, err) = kcontract(tmp.path(), &["check"]);
    assert_eq!(code, 0, "{err}");
    let (code, _, err) = kcontract(tmp.path(), &["build"]);
    assert_eq!(code, 0, "{err}");
    let page = |rel: &str| std::fs::read_to_string(tmp.path().join("site").join(rel)).unwrap();
    let en = page("en/one.html");
    let frames = informative_frames(&en);
    assert_eq!(frames.len(), 2, "{en}");
    assert!(frames[0].contains("MUST NOT be counted") && frames[0].contains("<strong>delivering"));
    assert!(
        frames[1].contains("a host MAY be rejected"),
        "{}",
        frames[1]
    );
    for f in &frames {
        assert!(
            f.contains("<p class=\"informative-label\">Informative</p>"),
            "{f}"
        );
        assert!(
            !f.contains("class=\"kw"),
            "a note's keyword is highlighted: {f}"
        );
        assert!(!f.contains("kcontract: informative"), "{f}");
    }
    // Controls: the clause's keyword is highlighted; a quote that is no note is not framed.
    assert!(
        en.contains("<strong class=\"kw kw-must\">MUST</strong> do it"),
        "{en}"
    );
    assert!(!frames.iter().any(|f| f.contains("A plain quote")), "{en}");
    assert!(en.contains("A plain quote"));
    let zh = page("zh/one.html");
    let zh_frames = informative_frames(&zh);
    assert_eq!(zh_frames.len(), 2, "{zh}");
    for f in &zh_frames {
        assert!(
            f.contains(">说明性</p>") && !f.contains("class=\"kw"),
            "{f}"
        );
    }
    assert!(zh.contains("<strong class=\"kw kw-must\">"), "{zh}");
    // Not a clause: the index lists one, the data file counts one.
    let json: serde_json::Value = serde_json::from_str(&page("clauses.json")).unwrap();
    assert_eq!(json["clauses"].as_array().unwrap().len(), 1, "{json}");
    let index = page("en/clauses.html");
    assert!(!index.contains("delivering") && !index.contains("without a host"));
}

/// The informative text a step of the committed Changes page changed, in `lang`: its part after
/// the step's "Informative text" heading, found by the pull request that made the step.
fn prose_part_of_step(lang: &str, pr: u64) -> String {
    let loaded = kcontract_spec::load(&root().join("spec"));
    let mut history = loaded.spec.contract.history.clone();
    history.sort_by(|a, b| a.date.cmp(&b.date));
    let v = history
        .iter()
        .position(|v| v.pull_request == Some(pr))
        .unwrap_or_else(|| panic!("#{pr} is no step"));
    let html = std::fs::read_to_string(root().join(format!("site/{lang}/changes.html"))).unwrap();
    let anchor = format!("since-{}", history[v - 1].name);
    let at = html.find(&format!("<h2 id=\"{anchor}\">")).unwrap();
    let step = &html[at..at + html[at..].find("</section>").unwrap()];
    let prose = step
        .find(&format!("<h3 id=\"{anchor}-prose\">"))
        .unwrap_or_else(|| panic!("{lang} #{pr}: no informative text part"));
    step[prose..].to_string()
}

/// The Changes page shows informative text changed as words, sentence by sentence, as a reader
/// reads them: #2473 fixed "ressources" (a sentence changed, its word diff), #5001 dropped a
/// sentence (removed, its words), #4550 softened "may" to "might" in the prose; no raw Markdown in
/// any step's part, no line counts. A step that changed no informative words says so: #9683 (a
/// clause's level only) and #7783 (dead links fixed: link targets are no words).
#[test]
fn the_changes_page_shows_informative_text_as_words() {
    let none = [
        ("en", "No informative sentence changed"),
        ("zh", "没有说明性文字的句子变更"),
    ];
    for (lang, none) in none {
        let typo = prose_part_of_step(lang, 2473);
        assert!(
            typo.contains("<li data-kind=\"changed\">")
                && typo.contains("graceful shutdown of existing <del>ressources</del><ins>resources</ins> and connections."),
            "{lang}: {typo}"
        );
        let dropped = prose_part_of_step(lang, 5001);
        assert!(
            dropped.contains("<del>Serverless computation relies on inbound requests to determine container activeness.</del>"),
            "{lang}: {dropped}"
        );
        let softened = prose_part_of_step(lang, 4550);
        assert!(
            softened.contains("code <del>may</del><ins>might</ins> be scaled to zero"),
            "{lang}: {softened}"
        );
        for part in [&typo, &dropped, &softened] {
            assert!(!part.contains(none), "{lang}: {part}");
        }
        // Controls: no informative word changed, said so, and no sentence listed.
        for pr in [9683, 7783] {
            let part = prose_part_of_step(lang, pr);
            assert!(
                part.contains(none) && !part.contains("<li"),
                "{lang} #{pr}: {part}"
            );
        }
        let html =
            std::fs::read_to_string(root().join(format!("site/{lang}/changes.html"))).unwrap();
        for part in html.split("-prose\">").skip(1) {
            let part = &part[..part.find("</section>").unwrap()];
            for raw in ["**", "[", "](", "`", "<!--", "lines added", "新增行数"] {
                assert!(!part.contains(raw), "{lang}: {raw:?} in {part}");
            }
        }
    }
}
