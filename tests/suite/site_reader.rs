//! What a reader needs to read the site right (issue #48, items 2, 5, 6, 8), in the committed site:
//! the landing page names the upstream revision and date, explains a clause card and labels its
//! counts; every page that shows a status, a level or a route carries its legend; the print page
//! carries its source; the Chinese clause index marks stale and missing translations as the
//! chapter pages do.

use crate::common::cli::root;

fn page(rel: &str) -> String {
    std::fs::read_to_string(root().join("site").join(rel)).unwrap()
}

#[test]
fn the_landing_page_names_its_source_and_explains_a_card() {
    for (lang, clauses, reading) in [
        ("en", "(104 clauses)", "How to read this site"),
        ("zh", "104 条条款", "如何阅读本站"),
    ] {
        let html = page(&format!("{lang}/index.html"));
        assert!(
            html.contains("c6ebb0c3") && html.contains("2024-01-11"),
            "{lang}: the upstream revision and its date"
        );
        assert!(html.contains(clauses), "{lang}: the count labelled");
        assert!(html.contains(reading), "{lang}: the account of a card");
        assert!(
            html.contains("<section class=\"clause"),
            "{lang}: an example card"
        );
        assert!(html.contains("class=\"legend\""), "{lang}: its legend");
    }
}

/// Every page that shows a badge has the legend that explains it: a level badge, a status badge,
/// a route badge outside the legend each need the legend's section for them.
#[test]
fn every_page_with_badges_has_its_legend() {
    for lang in ["en", "zh"] {
        for e in std::fs::read_dir(root().join("site").join(lang)).unwrap() {
            let p = e.unwrap().path();
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            let html = std::fs::read_to_string(&p).unwrap();
            let (legend, rest) = match html.find("<details class=\"legend\"") {
                Some(at) => {
                    let end = at + html[at..].find("</details>").unwrap();
                    (&html[at..end], format!("{}{}", &html[..at], &html[end..]))
                }
                None => ("", html.clone()),
            };
            for (badge, what) in [
                ("class=\"badge lvl ", "levels"),
                ("class=\"badge status ", "statuses"),
                ("class=\"badge route", "routes"),
            ] {
                // The Changes page (another helper's) and the runtimes page show no clause card.
                if ["changes.html", "runtimes.html"].contains(&name.as_str()) {
                    continue;
                }
                if rest.contains(badge) {
                    assert!(
                        legend.contains(badge),
                        "{lang}/{name} shows {what} without explaining them"
                    );
                }
            }
        }
    }
}

#[test]
fn the_print_page_carries_its_source_in_print_media() {
    for lang in ["en", "zh"] {
        let html = page(&format!("{lang}/print.html"));
        let front = &html[html.find("<header class=\"print-front\">").unwrap()..];
        let front = &front[..front.find("</header>").unwrap()];
        for word in [
            "c6ebb0c3be6a9b95b8826ff629970858428f1c5d",
            "2024-01-11",
            "Apache-2.0",
            "The Knative Authors",
        ] {
            assert!(front.contains(word), "{lang}: {word}");
        }
        assert!(html.contains("<footer>"), "{lang}");
    }
    // The print stylesheet hides the navigation, not the footer (the attribution's place).
    let css = page("assets/style.css");
    let print = &css[css.find("@media print").unwrap()..];
    let rule = &print[..print.find("display: none").unwrap()];
    let selectors = &rule[rule.rfind('\n').unwrap()..];
    assert!(selectors.contains(".toc"), "{selectors}");
    assert!(
        !selectors.contains("footer"),
        "print hides the footer: {selectors}"
    );
}

/// A clause whose English text changed since its translation: the zh clause index marks its row
/// stale, as its chapter page marks its card (the index did not). The committed contract has no
/// stale translation, so this one is made: a copy of the spec with one English text changed.
#[test]
fn the_zh_clause_index_marks_stale_translations() {
    let tmp = tempfile::tempdir().unwrap();
    crate::common::cli::copy_dir(&root().join("spec"), &tmp.path().join("spec"));
    let en = tmp.path().join("spec/en/runtime-and-lifecycle.md");
    let text = std::fs::read_to_string(&en).unwrap();
    let from = "text: The container MAY be killed when the container is inactive.";
    assert!(text.contains(from));
    std::fs::write(&en, text.replace(from, &format!("{from} Really."))).unwrap();
    let (code, _, err) = crate::common::cli::kcontract(tmp.path(), &["build"]);
    assert_eq!(code, 0, "{err}");
    let read = |rel: &str| std::fs::read_to_string(tmp.path().join("site/zh").join(rel)).unwrap();
    let stale = "<span class=\"badge warn\">译文已过期</span>";
    let chapter = read("runtime-and-lifecycle.html");
    let index = read("clauses.html");
    let row = &index[index.find("#lifecycle.may-kill-inactive\"").unwrap()..];
    let row = &row[..row.find("</tr>").unwrap()];
    assert!(chapter.contains(stale), "the chapter page marks it");
    assert!(row.contains(stale), "the clause index marks it: {row}");
    // Only that row.
    let legend = index.find("<details class=\"legend\"").map_or(0, |at| {
        let end = at + index[at..].find("</details>").unwrap();
        index[at..end].matches(stale).count()
    });
    assert_eq!(index.matches(stale).count() - legend, 1);
}

/// A clause id cited in a text, a reason or the prose of a chapter is a link (to its card, or the
/// link the text already made); the clause upstream has since contradicted carries its note with
/// the source, in both languages (issue #48, item 7).
#[test]
fn clause_ids_are_links_and_the_contradicted_clause_says_so() {
    let loaded = kcontract_spec::load(&root().join("spec"));
    assert!(!loaded.has_errors());
    let spec = &loaded.spec;
    let mut linked = 0;
    for lang in ["en", "zh"] {
        for doc in &spec.documents {
            let html = page(&format!("{lang}/{}.html", doc.chapter));
            for c in &spec.clauses {
                let cited = format!("<code>{}</code>", c.id);
                for (at, _) in html.match_indices(&cited) {
                    let before = &html[..at];
                    let open = before.rfind("<a ");
                    let in_link = open > before.rfind("</a>") && before.ends_with("\">");
                    assert!(
                        in_link,
                        "{lang}/{}: {} cited without a link",
                        doc.chapter, c.id
                    );
                    linked += 1;
                }
            }
        }
        let html = page(&format!("{lang}/network-environment.html"));
        let card = &html[html
            .find("id=\"network.probes.http-or-tcp-on-port\"")
            .unwrap()..];
        let card = &card[..card.find("</section>").unwrap()];
        assert!(
            card.contains("class=\"note contradicted\"")
                && card.contains("https://github.com/knative/serving/pull/12606"),
            "{lang}: the contradicted clause's note"
        );
    }
    assert!(linked >= 18, "only {linked} cited clause ids");
}
