//! `kcontract init`: the files of a new, empty contract — `spec/contract.yaml` with its own
//! vocabulary spelled out, one chapter per language with an example clause, and a short guide —
//! such that `check` and `build` work in the new folder at once.

use crate::i18n::StubPiece;
use kcontract_spec::stamp;

/// The example clause's text (the source language's; the other languages start from a stub of it,
/// as `i18n add` writes them).
const EXAMPLE: &str = "The implementation MUST reject a request it cannot parse.";

/// One file of a new contract.
pub struct NewFile {
    /// Its path relative to the new folder.
    pub path: String,
    /// What it is, for init's summary ("the source chapter"): every file is named there, so a file
    /// the person must edit (a translation, an interface text copied from English) is not missed.
    pub what: String,
    /// Its text.
    pub text: String,
    /// Whether the person is to translate it (init's "next:" line names these).
    pub translate: bool,
}

/// The files of a new contract in `languages` (the first is the source). Languages without
/// built-in interface text get an interface text file to translate (`templates/i18n/<lang>.yaml`):
/// `interfaces` holds that file's text per such language (the site crate writes it:
/// `kcontract_site::interface_template`; this crate does not render sites).
pub fn files(
    title: &str,
    languages: &[String],
    interfaces: &std::collections::BTreeMap<String, String>,
) -> Vec<NewFile> {
    let file = |path: String, what: String, text: String, translate: bool| NewFile {
        path,
        what,
        text,
        translate,
    };
    let q = |s: &str| serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into());
    let langs = languages.join(", ");
    let mut out = vec![file(
        "spec/contract.yaml".to_string(),
        "the table of contents: title, languages, chapters, vocabulary".to_string(),
        format!(
            "# The contract's table of contents; `kcontract check` reads this first (spec/README.md of\n\
             # kcontract documents every field).\n\
             title: {}\n\
             version: 0.1.0\n\
             # The first language is the source; the others are translations of it.\n\
             languages: [{langs}]\n\
             # Chapter order: each name is a file `<lang>/<name>.md`.\n\
             chapters:\n  - introduction\n\
             # Who a clause binds (`actor:`), with the site's label per language (else the name).\n\
             actors:\n  - {{name: implementation, label: {{en: implementation}}}}\n  - {{name: user, label: {{en: user}}}}\n\
             # How a clause is verified (`verify:`); `untestable` needs `reason:` and no test.\n\
             verify:\n  - test\n  - manual\n  - untestable\n\
             # Optional: where `oci:` and `upstream-tests:` values link to, and their label.\n\
             # links:\n#   upstream-tests:\n#     base: https://example.org/tests/\n#     label: {{en: Upstream tests}}\n\
             # Optional: the text this contract was converted from.\n\
             # upstream: {{title: …, url: …, license: …, attribution: …}}\n\
             # Optional: the Rust files scanned for `/// Clause: <id>` test annotations, relative to\n\
             # this folder (these are the defaults; set them and `check` warns while none is found).\n\
             # tests:\n#   include: [\"../tests/**/*.rs\", \"../src/**/*.rs\"]\n",
            q(title)
        ),
        false,
    )];
    let source = stamp(EXAMPLE);
    for (i, lang) in languages.iter().enumerate() {
        let chapter = if i == 0 {
            format!(
                "# Introduction\n\nWhat this contract covers, for whom, and why. Informative text like this \
                 paragraph may use any words but the RFC 2119 keywords in capitals, which belong in clauses.\n\n\
                 ```clause\nid: intro.reject-unparsable\nlevel: MUST\nactor: implementation\n\
                 text: {EXAMPLE}\nverify: test\n```\n"
            )
        } else {
            crate::i18n::stub_chapter(
                lang,
                &[
                    StubPiece::Heading("# Introduction"),
                    StubPiece::Clause {
                        id: "intro.reject-unparsable",
                        fields: vec![("text", EXAMPLE)],
                        stamp: &source,
                    },
                ],
            )
        };
        let what = if i == 0 {
            format!("the first chapter, in {lang} (the source language)")
        } else {
            format!("the first chapter in {lang}: a stub of the source, to translate")
        };
        out.push(file(
            format!("spec/{lang}/introduction.md"),
            what,
            chapter,
            i > 0,
        ));
        if let Some(text) = interfaces.get(lang) {
            out.push(file(
                format!("templates/i18n/{lang}.yaml"),
                format!("the site's interface text in {lang} (labels, buttons), copied from English, to translate"),
                text.clone(),
                true,
            ));
        }
    }
    let to_translate = to_translate(languages, interfaces);
    out.push(file(
        "README.md".to_string(),
        "a short guide to these files and the commands".to_string(),
        format!(
            "# {title}\n\nA contract written as an executable specification with kcontract.\n\n\
             ```sh\nkcontract check          # validate spec/: ids, levels, actors, translations\n\
             kcontract build          # check, then render the site into site/ (with templates/, if any)\n\
             kcontract list           # every clause\n```\n\n\
             - `spec/contract.yaml`: title, languages ({langs}), chapter order, and the vocabulary: \
             `actors`, `verify` kinds, `links`. Change them to fit your field.\n\
             - `spec/<lang>/<chapter>.md`: Markdown prose with ```` ```clause ```` blocks. A clause has \
             `id` (dot-separated, lowercase), `level` (the RFC 2119 keyword its text uses), `actor`, \
             `verify`, `text`; an untestable clause gives a `reason`.\n\
             {to_translate}\
             - Tests claim clauses with a `/// Clause: <id>` line on a Rust test; `kcontract scaffold` \
             writes stubs, `kcontract matrix` shows what is covered.\n\
             - Existing RFC 2119 text: `kcontract import FILE.md --out DIR` makes a spec folder of it.\n"
        ),
        false,
    ));
    out
}

/// What a person has to translate in a new contract in `languages`, as README.md bullet lines
/// (empty for one language with built-in interface text); `kcontract init`'s "next:" line names
/// the same files.
fn to_translate(
    languages: &[String],
    interfaces: &std::collections::BTreeMap<String, String>,
) -> String {
    let mut out = String::new();
    if let [source, others @ ..] = languages
        && !others.is_empty()
    {
        out.push_str(&format!(
            "- Translations: `spec/<lang>/` of {} holds a stub of each {source} clause (its text and a \
             `source:` stamp) to translate; `kcontract i18n status` counts what is left.\n",
            others.join(", ")
        ));
    }
    for lang in languages.iter().filter(|l| interfaces.contains_key(*l)) {
        out.push_str(&format!(
            "- `templates/i18n/{lang}.yaml`: the site's interface text in {lang} (\"Contents\", \
             \"Previous\", \"Next\", …), copied from English: translate its values, and set `name` to \
             the language's own name (the language switch shows it).\n"
        ));
    }
    out
}
