//! `kcontract init`: the files of a new, empty contract — `spec/contract.yaml` with its own
//! vocabulary spelled out, one chapter per language with an example clause, and a short guide —
//! such that `check` and `build` work in the new folder at once.

use crate::i18n::StubPiece;
use crate::spec::stamp;

/// The example clause's text (the source language's; the other languages start from a stub of it,
/// as `i18n add` writes them).
const EXAMPLE: &str = "The implementation MUST reject a request it cannot parse.";

/// The files of a new contract in `languages` (the first is the source), as (path relative to
/// the new folder, text). Languages other than `en` and `zh` get an interface text file to
/// translate (`templates/i18n/<lang>.yaml`, a copy of the English one).
pub(crate) fn files(title: &str, languages: &[String]) -> Vec<(String, String)> {
    let q = |s: &str| serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into());
    let langs = languages.join(", ");
    let mut out = vec![(
        "spec/contract.yaml".to_string(),
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
        out.push((format!("spec/{lang}/introduction.md"), chapter));
        if !crate::site::built_in(lang) {
            out.push((
                format!("templates/i18n/{lang}.yaml"),
                crate::site::interface_template(lang),
            ));
        }
    }
    out.push((
        "README.md".to_string(),
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
             - Tests claim clauses with a `/// Clause: <id>` line on a Rust test; `kcontract scaffold` \
             writes stubs, `kcontract matrix` shows what is covered.\n\
             - Existing RFC 2119 text: `kcontract import FILE.md --out DIR` makes a spec folder of it.\n"
        ),
    ));
    out
}
