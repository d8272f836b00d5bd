//! What `check` guarantees the site: every internal link and anchor resolves (K0118), a
//! translation's headings match the source's so sections keep their ids (K0307), and a Chinese
//! keyword's term says its level (K0308). Snapshots of the exact diagnostics, reviewed like code.

use std::process::Command;

const CONTRACT: &str = "title: T\nversion: 0.1.0\nlanguages: [en, zh]\nchapters: [one, two]\nupstream: {title: t, url: u, license: Apache-2.0, attribution: a}\n";

/// `stamp` of "The platform MUST do it." (as in `error_catalog.rs`).
const STAMP_A: &str = "87b30d4e0373";

const EN_ONE: &str = "# One\n\n## Default Filesystems\n\nSee [two](two.md#later) and [fs](#default-filesystems).\n\n```clause\nid: one.a\nlevel: MUST\nactor: platform\ntext: The platform MUST do it.\nverify: manual\n```\n";
const EN_TWO: &str = "# Two\n\n## Later\n\nText.\n";
const ZH_TWO: &str = "# 二\n\n## 稍后\n\n正文。\n";

fn zh_one(body: &str) -> String {
    format!(
        "# 一\n\n## 默认文件系统\n\n{body}\n\n```clause\nid: one.a\ntext: 平台必须（MUST）这样做。\nsource: {STAMP_A}\n```\n"
    )
}

/// A two-chapter bilingual spec in a temporary folder.
fn spec_dir(en_one: &str, zh_one: &str, zh_two: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (path, content) in [
        ("spec/contract.yaml", CONTRACT),
        ("spec/en/one.md", en_one),
        ("spec/en/two.md", EN_TWO),
        ("spec/zh/one.md", zh_one),
        ("spec/zh/two.md", zh_two),
    ] {
        let p = dir.path().join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, content).unwrap();
    }
    dir
}

/// `kcontract check` on a two-chapter bilingual spec.
fn check(en_one: &str, zh_one: &str, zh_two: &str) -> String {
    check_in(&spec_dir(en_one, zh_one, zh_two))
}

/// `kcontract check` on the spec of [`spec_dir`]: its exit code and output.
fn check_in(dir: &tempfile::TempDir) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_kcontract"))
        .current_dir(dir.path())
        .args(["--color", "never", "--spec", "spec", "check"])
        .output()
        .unwrap();
    format!(
        "exit: {}\n--- stdout\n{}--- stderr\n{}",
        out.status.code().map_or("signal".into(), |c| c.to_string()),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

#[test]
fn links_and_anchors_that_resolve_pass() {
    let out = check(
        EN_ONE,
        &zh_one("见[稍后](two.md#later)与[文件系统](#default-filesystems)。"),
        ZH_TWO,
    );
    assert!(out.starts_with("exit: 0\n"), "{out}");
}

#[test]
fn k0118_links_that_would_dangle() {
    let en = EN_ONE.replace("two.md#later", "two.md#latr").replace(
        "[fs](#default-filesystems)",
        "[fs](#default-filesystems) [x](three.md) [y](../README.md) [c](#one.a) [web](https://example.com/#nowhere)",
    );
    insta::assert_snapshot!(check(&en, &zh_one("见[文件系统](#默认文件系统)。"), ZH_TWO));
}

#[test]
fn k0307_translated_headings_that_differ() {
    insta::assert_snapshot!(check(
        EN_ONE,
        &zh_one("正文。").replace("## 默认文件系统", "### 默认文件系统"),
        "# 二\n\n正文。\n"
    ));
}

/// A chapter of sections at one level, each with a clause: a heading added to or dropped from its
/// translation leaves every level in place, and shows only in whose clauses a section holds.
const EN_WIDGETS: &str = "# One\n\n## Creating widgets\n\n```clause\nid: one.create\nlevel: MUST\nactor: platform\ntext: The platform MUST create it.\nverify: manual\n```\n\n## Listing widgets\n\n```clause\nid: one.list\nlevel: MUST\nactor: platform\ntext: The platform MUST list it.\nverify: manual\n```\n\n## Deleting widgets\n\n```clause\nid: one.delete\nlevel: MUST\nactor: platform\ntext: The platform MUST delete it.\nverify: manual\n```\n";

/// The translation of [`EN_WIDGETS`], its sections as `(heading, clause)`: `None` for a section
/// with no clause.
fn zh_widgets(sections: &[(&str, Option<(&str, &str)>)]) -> String {
    let mut out = "# 一\n".to_string();
    for (heading, clause) in sections {
        out.push_str(&format!("\n## {heading}\n\n"));
        match clause {
            Some((id, text)) => {
                let english = format!("The platform MUST {text} it.");
                out.push_str(&format!(
                    "```clause\nid: one.{id}\ntext: 平台必须（MUST）{text}。\nsource: {}\n```\n",
                    kcontract_spec::stamp(&english)
                ));
            }
            None => out.push_str("正文。\n"),
        }
    }
    out
}

/// `check` and `build` of [`EN_WIDGETS`] translated as `zh`: check's output and the Chinese page.
fn check_and_build_widgets(zh: &str) -> (String, String) {
    let dir = spec_dir(EN_WIDGETS, zh, ZH_TWO);
    let out = check_in(&dir);
    let built = Command::new(env!("CARGO_BIN_EXE_kcontract"))
        .current_dir(dir.path())
        .args(["--spec", "spec", "build", "--out", "site"])
        .output()
        .unwrap();
    assert!(built.status.success(), "{built:?}");
    let page = std::fs::read_to_string(dir.path().join("site/zh/one.html")).unwrap();
    (out, page)
}

/// `check` of [`EN_WIDGETS`] translated as `zh`, whose headings differ from the source's: the
/// built page has its `n` section headings, none with the id of a source section (each keeps an
/// id of its own text).
fn check_headings_that_shift(zh: &str, n: usize) -> String {
    let (out, page) = check_and_build_widgets(zh);
    let ids = h2_ids(&page);
    assert_eq!(ids.len(), n, "{page}");
    assert!(
        ids.iter().all(|h| !h.starts_with("creating-widgets")
            && !h.starts_with("listing-widgets")
            && !h.starts_with("deleting-widgets")),
        "{ids:?}"
    );
    out
}

/// The ids of the `<h2>` headings of `page`, with their text.
fn h2_ids(page: &str) -> Vec<String> {
    page.split("<h2 id=\"")
        .skip(1)
        .map(|rest| rest.split("</h2>").next().unwrap_or("").to_string())
        .collect()
}

#[test]
fn k0307_a_translated_heading_the_source_lacks() {
    let zh = zh_widgets(&[
        ("额外一节", None),
        ("创建组件", Some(("create", "create"))),
        ("列出组件", Some(("list", "list"))),
        ("删除组件", Some(("delete", "delete"))),
    ]);
    // The warning is at the added heading, no heading carries another section's id.
    insta::assert_snapshot!(check_headings_that_shift(&zh, 4));
}

#[test]
fn k0307_a_source_heading_the_translation_lacks() {
    let zh = zh_widgets(&[
        ("列出组件", Some(("list", "list"))),
        ("删除组件", Some(("delete", "delete"))),
    ]);
    insta::assert_snapshot!(check_headings_that_shift(&zh, 2));
}

/// Clauses moved between sections are not a heading added or dropped: the warning says whose clauses
/// the section holds.
#[test]
fn k0307_sections_holding_each_others_clauses() {
    let zh = zh_widgets(&[
        ("创建组件", Some(("list", "list"))),
        ("列出组件", Some(("create", "create"))),
        ("删除组件", Some(("delete", "delete"))),
    ]);
    insta::assert_snapshot!(check(EN_WIDGETS, &zh, ZH_TWO));
}

/// The translation with every heading: each takes the id of its source heading.
#[test]
fn translated_widgets_headings_take_the_source_ids() {
    let zh = zh_widgets(&[
        ("创建组件", Some(("create", "create"))),
        ("列出组件", Some(("list", "list"))),
        ("删除组件", Some(("delete", "delete"))),
    ]);
    let (out, page) = check_and_build_widgets(&zh);
    assert!(
        out.starts_with("exit: 0\n") && !out.contains("K0307"),
        "{out}"
    );
    let ids = h2_ids(&page);
    assert_eq!(ids.len(), 3, "{page}");
    for (id, (en, zh)) in ids.iter().zip([
        ("creating-widgets", "创建组件"),
        ("listing-widgets", "列出组件"),
        ("deleting-widgets", "删除组件"),
    ]) {
        assert!(
            id.starts_with(&format!("{en}\"")) && id.contains(zh),
            "{ids:?}"
        );
    }
}

#[test]
fn k0308_a_chinese_term_that_says_another_level() {
    let zh = zh_one("正文。").replace("平台必须（MUST）这样做。", "平台应当（SHALL）这样做。");
    insta::assert_snapshot!(check(EN_ONE, &zh, ZH_TWO));
}

#[test]
fn k0308_a_keyword_without_its_chinese_term() {
    let zh = zh_one("正文。").replace("平台必须（MUST）这样做。", "平台必需（MUST）这样做。");
    insta::assert_snapshot!(check(EN_ONE, &zh, ZH_TWO));
}

const EN_REASON: &str = "# One\n\n## Default Filesystems\n\n```clause\nid: one.a\nlevel: MAY\nactor: platform\ntext: The platform MAY do it.\nverify: untestable\nreason: A permission.\n```\n";

fn zh_reason(reason: Option<&str>, stamp: &str) -> String {
    let reason = reason.map_or(String::new(), |r| format!("reason: {r}\n"));
    format!(
        "# 一\n\n## 默认文件系统\n\n```clause\nid: one.a\ntext: 平台可以（MAY）这样做。\n{reason}source: {stamp}\n```\n"
    )
}

#[test]
fn a_translated_reason_is_stamped_and_goes_stale_with_the_source_reason() {
    let stamp = kcontract_spec::clause_stamp(
        "The platform MAY do it.",
        Some("A permission."),
        None,
        kcontract_spec::keywords::Level::May,
    );
    // The stamp covers the reason: the text's stamp alone is not current.
    assert_ne!(stamp, kcontract_spec::stamp("The platform MAY do it."));
    let ok = check(
        EN_REASON,
        &zh_reason(Some("这是一项许可。"), &stamp),
        ZH_TWO,
    );
    assert!(ok.starts_with("exit: 0\n") && !ok.contains("K0303"), "{ok}");
    let changed = EN_REASON.replace("A permission.", "A permission, nothing to observe.");
    let stale = check(&changed, &zh_reason(Some("这是一项许可。"), &stamp), ZH_TWO);
    assert!(
        stale.contains("warning[K0303]") && stale.contains("one.a"),
        "{stale}"
    );
}

#[test]
fn k0309_a_translated_reason_the_source_lacks() {
    let zh = zh_one("正文。").replace("source:", "reason: 无法测试。\nsource:");
    insta::assert_snapshot!(check(EN_ONE, &zh, ZH_TWO));
}

/// A YAML error in the source clause is reported once, where it is: its translation is not
/// reported as translating a clause that does not exist (K0302).
#[test]
fn a_broken_source_clause_does_not_make_its_translation_an_orphan() {
    for broken in [
        // Not YAML at all.
        EN_ONE.replace("text: The platform MUST do it.", "text: \"unterminated"),
        // YAML, but a field is wrong.
        EN_ONE.replace("actor: platform", "actor: nobody"),
    ] {
        let out = check(&broken, &zh_one("正文。"), ZH_TWO);
        assert!(out.starts_with("exit: 1\n"), "{out}");
        assert!(out.contains("spec/en/one.md"), "{out}");
        assert!(!out.contains("K0302"), "{out}");
    }
    // A translation of an id no source block has is still reported.
    let out = check(
        EN_ONE,
        &zh_one("正文。").replace("id: one.a", "id: one.zzz"),
        ZH_TWO,
    );
    assert!(out.contains("error[K0302]"), "{out}");
}

/// `kcontract check` on a one-language spec of chapters `one` and `two`: its output.
fn check_en(contract: &str, one: &str, two: &str) -> String {
    check_en_with(contract, one, two, &[])
}

/// [`check_en`] with `more` files (path, content) in the folder.
fn check_en_with(contract: &str, one: &str, two: &str, more: &[(&str, &str)]) -> String {
    let dir = tempfile::tempdir().unwrap();
    let files = [
        ("spec/contract.yaml", contract),
        ("spec/en/one.md", one),
        ("spec/en/two.md", two),
    ];
    for &(path, content) in files.iter().chain(more) {
        let p = dir.path().join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, content).unwrap();
    }
    check_in(&dir)
}

const CONTRACT_EN: &str = "title: T\nversion: 0.1.0\nlanguages: [en]\nchapters: [one, two]\n";

/// One run reports every error it can: a broken link into a sound chapter beside a bad level in
/// another clause (the links were checked only once the level was fixed). What an error hides is
/// left out: a link to the clause that failed (`#one.b`) is not called broken. Control: with the
/// level fixed, that link resolves and the broken one is still the only link error.
#[test]
fn a_broken_link_and_a_bad_level_are_reported_in_one_run() {
    let one = |level: &str| {
        format!(
            "# One\n\nSee [two](two.md#nowhere) and [b](#one.b).\n\n```clause\nid: one.a\nlevel: MUST\nactor: platform\ntext: The platform MUST do it.\nverify: manual\n```\n\n```clause\nid: one.b\nlevel: {level}\nactor: platform\ntext: The platform MUST do that.\nverify: manual\n```\n"
        )
    };
    let out = check_en(CONTRACT_EN, &one("MUSTY"), "# Two\n\nText.\n");
    assert!(out.starts_with("exit: 1\n"), "{out}");
    assert!(out.contains("error[K0109]: unknown level `MUSTY`"), "{out}");
    assert!(
        out.contains("error[K0118]: the link `two.md#nowhere`"),
        "{out}"
    );
    assert!(!out.contains("#one.b`"), "the failed clause's link: {out}");
    assert!(
        out.contains("error: 2 errors and 0 warnings found"),
        "{out}"
    );
    let fixed = check_en(CONTRACT_EN, &one("MUST"), "# Two\n\nText.\n");
    assert!(
        fixed.contains("error[K0118]: the link `two.md#nowhere`"),
        "{fixed}"
    );
    assert!(!fixed.contains("#one.b`"), "{fixed}");
    assert!(
        fixed.contains("error: 1 error and 0 warnings found"),
        "{fixed}"
    );
}

/// A runtimes catalogue that does not load (K0701).
const BAD_CATALOGUE: (&str, &str) = ("spec/runtimes/deviations.yaml", "runtimes: [\n");

/// What is read beside the chapters and does not depend on them is reported in the same run as
/// their errors: the runtimes catalogue's error beside a bad level (it waited until the spec loaded
/// without errors). Control: the catalogue alone fails the same way.
#[test]
fn a_catalogue_error_is_reported_beside_the_chapters_errors() {
    let bad = "# One\n\n```clause\nid: one.b\nlevel: MUSTY\nactor: platform\ntext: The platform MUST do that.\nverify: manual\n```\n";
    let out = check_en_with(CONTRACT_EN, bad, "# Two\n\nText.\n", &[BAD_CATALOGUE]);
    assert!(out.starts_with("exit: 1\n"), "{out}");
    assert!(
        out.contains("error[K0701]") && out.contains("error[K0109]"),
        "{out}"
    );
    assert!(
        out.contains("error: 2 errors and 0 warnings found"),
        "{out}"
    );
    let sound = bad.replace("MUSTY", "MUST");
    let alone = check_en_with(CONTRACT_EN, &sound, "# Two\n\nText.\n", &[BAD_CATALOGUE]);
    assert!(
        alone.contains("error[K0701]") && !alone.contains("K0109"),
        "{alone}"
    );
}

/// A spec whose loading fails stops there: with `contract.yaml` unreadable as a contract (its
/// `chapters:` not a list) no chapter can be found, so neither the chapters nor their links, the
/// translations, the test annotations, the runtimes catalogue, the earlier versions or the
/// templates are checked (they are read once the contract is): one error, the contract's.
#[test]
fn a_contract_that_does_not_load_stops_the_check() {
    let out = check_en_with(
        "title: T\nversion: 0.1.0\nlanguages: [en]\nchapters: 5\n",
        "# One\n\nSee [two](two.md#nowhere).\n\n```clause\nid: one.b\nlevel: MUSTY\nactor: platform\ntext: The platform MUST do that.\nverify: manual\n```\n",
        "# Two\n\nText.\n",
        &[BAD_CATALOGUE],
    );
    assert!(out.starts_with("exit: 1\n"), "{out}");
    assert!(out.contains("spec/contract.yaml"), "{out}");
    for not in ["K0118", "K0109", "K0701"] {
        assert!(!out.contains(not), "{not}: {out}");
    }
    assert!(out.contains("error: 1 error and 0 warnings found"), "{out}");
}
