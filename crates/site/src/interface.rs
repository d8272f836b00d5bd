//! Interface text: the words of the page chrome (labels, badges, headings) in each language, read
//! from one YAML file per language, `templates/i18n/<lang>.yaml`.
//!
//! Why data and not code: a third language then needs only its interface file and `spec/<lang>/`,
//! no change to the program. The files are embedded like the templates, and a `--templates DIR`
//! may replace one or add another in `DIR/i18n/`. YAML, because serde-saphyr already reads the
//! spec's YAML (no new dependency), and it keeps CJK text and long sentences readable.
//!
//! The keys every file must have are the keys of the embedded English file (a test holds the
//! embedded files' keys equal), so the set is defined once, by the data.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use kcontract_spec::diagnostic::Diagnostic;

/// The language whose interface text stands in for what another language lacks.
const FALLBACK: &str = "en";

/// The embedded interface file of [`FALLBACK`]: (file name, source).
const FALLBACK_FILE: (&str, &str) = ("en.yaml", include_str!("../../../templates/i18n/en.yaml"));

/// The embedded interface files: (file name, source). The language is the file name without
/// `.yaml`.
const EMBEDDED: [(&str, &str); 2] = [
    FALLBACK_FILE,
    ("zh.yaml", include_str!("../../../templates/i18n/zh.yaml")),
];

/// Does kcontract carry interface text for `lang` (else a new language gets a copy of the English
/// file to translate, `templates/i18n/<lang>.yaml`)?
pub fn built_in(lang: &str) -> bool {
    EMBEDDED.iter().any(|(file, _)| lang_of(file) == lang)
}

/// One language's interface file.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Interface {
    /// The language's name in itself ("English", "中文"), shown in the language switch.
    pub name: String,
    /// The HTML `lang` of its pages (`zh-CN`).
    pub html_lang: String,
    /// Key → text: the `t` of the templates.
    pub text: BTreeMap<String, String>,
}

impl Interface {
    /// The text of `key`, or the key itself where this language has none (the interface a build
    /// uses has every key, see [`Interfaces::get`]; Rust code that names a key falls back this way).
    pub(super) fn text<'a>(&'a self, key: &'a str) -> &'a str {
        self.text.get(key).map_or(key, String::as_str)
    }
}

/// Where an interface file came from, for messages.
#[derive(Clone, Debug)]
struct Loaded {
    interface: Interface,
    origin: PathBuf,
}

/// Every interface file known to a build: the embedded ones, then those of `DIR/i18n/`.
#[derive(Clone, Debug)]
pub(super) struct Interfaces {
    by_lang: BTreeMap<String, Loaded>,
    /// The embedded English: its keys are the ones every language must have, and its text is
    /// shown for a key a language lacks, also when `DIR/i18n/en.yaml` replaces it (a replacement
    /// lacking a key would otherwise stand in for itself, and show nothing).
    fallback: Interface,
}

impl Interfaces {
    /// The embedded files, replaced or extended by the `*.yaml` files in `dir/i18n/` (if it exists).
    /// An embedded file a replacement stands for is not read, except the English one: it is the
    /// fallback.
    pub(super) fn load(dir: Option<&Path>) -> Result<Interfaces, Diagnostic> {
        let mut by_lang = BTreeMap::new();
        let root = dir;
        if let Some(dir) = dir.map(|d| d.join("i18n")).filter(|d| d.is_dir()) {
            let entries = fs::read_dir(&dir).map_err(|e| kcontract_spec::io_error(&dir, &e))?;
            for entry in entries {
                let path = entry
                    .map_err(|e| kcontract_spec::io_error(&dir, &e))?
                    .path();
                let Some(file) = path.file_name().and_then(|f| f.to_str()) else {
                    continue;
                };
                if !file.ends_with(".yaml") || !path.is_file() {
                    continue;
                }
                // Inside the templates folder only, as every file of it.
                let src = kcontract_spec::fsutil::read_text_inside(root.unwrap_or(&dir), &path)
                    .map(kcontract_spec::fsutil::plain_text)
                    .map_err(|e| kcontract_spec::io_error(&path, &e))?;
                let interface = parse(&src, &path)?;
                by_lang.insert(
                    lang_of(file).to_string(),
                    Loaded {
                        interface,
                        origin: path,
                    },
                );
            }
        }
        let embedded = |file: &str, src: &str| {
            let origin = Path::new("templates/i18n").join(file);
            parse(src, &origin).map(|interface| Loaded { interface, origin })
        };
        let english = embedded(FALLBACK_FILE.0, FALLBACK_FILE.1)?;
        let fallback = english.interface.clone();
        by_lang.entry(FALLBACK.to_string()).or_insert(english);
        for (file, src) in EMBEDDED {
            let lang = lang_of(file);
            if !by_lang.contains_key(lang) {
                by_lang.insert(lang.to_string(), embedded(file, src)?);
            }
        }
        Ok(Interfaces { by_lang, fallback })
    }

    /// Give each of the contract's `languages` every key: a language with no interface file, or a
    /// file lacking keys, shows the source language's text (English, embedded) for what it lacks,
    /// with a warning (K0404) saying which file to add or complete. Why not an error: a contract
    /// made by `init --languages en,de` is built at once, before anyone has translated the
    /// interface, and a binary's user has no templates/i18n/en.yaml to copy from.
    pub(super) fn complete(&mut self, languages: &[String]) -> Vec<Diagnostic> {
        let fallback = &self.fallback;
        let mut warnings = Vec::new();
        for lang in languages {
            let Some(l) = self.by_lang.get_mut(lang) else {
                warnings.push(
                    Diagnostic::warning(
                        "K0404",
                        format!("the language `{lang}` has no interface text: its pages show the English labels"),
                    )
                    .help(format!(
                        "add `templates/i18n/{lang}.yaml` beside the spec folder (or `i18n/{lang}.yaml` in the folder given with --templates): `name` (the language's own name), `html_lang` and `text`, the English labels translated (`kcontract init --languages en,{lang}` writes such a file to start from)"
                    )),
                );
                let interface = Interface {
                    name: lang.clone(),
                    html_lang: lang.clone(),
                    text: fallback.text.clone(),
                };
                let origin = PathBuf::from(format!("i18n/{lang}.yaml"));
                self.by_lang
                    .insert(lang.clone(), Loaded { interface, origin });
                continue;
            };
            let missing: Vec<&String> = fallback
                .text
                .keys()
                .filter(|k| !l.interface.text.contains_key(*k))
                .collect();
            if missing.is_empty() {
                continue;
            }
            warnings.push(
                Diagnostic::warning(
                    "K0404",
                    format!(
                        "the interface text of `{lang}` lacks {} key(s), shown in English: {}",
                        missing.len(),
                        missing.iter().map(|k| k.as_str()).collect::<Vec<_>>().join(", ")
                    ),
                )
                .in_file(&l.origin)
                .help("add the keys under `text:` (every interface file has the keys of the English one)"),
            );
            for k in missing {
                let text = fallback.text.get(k).cloned().unwrap_or_default();
                l.interface.text.insert(k.clone(), text);
            }
        }
        warnings
    }

    /// The interface of `lang`, checked to have every key.
    pub(super) fn get(&self, lang: &str) -> Result<&Interface, Diagnostic> {
        let Some(l) = self.by_lang.get(lang) else {
            return Err(Diagnostic::error(
                "K0404",
                format!("the language `{lang}` has no interface text"),
            )
            .help(format!(
                "add `i18n/{lang}.yaml` to a folder passed with --templates (copy templates/i18n/en.yaml and translate the values; known: {})",
                self.by_lang.keys().cloned().collect::<Vec<_>>().join(", ")
            )));
        };
        let missing: Vec<&str> = self
            .fallback
            .text
            .keys()
            .filter(|k| !l.interface.text.contains_key(*k))
            .map(String::as_str)
            .collect();
        if !missing.is_empty() {
            return Err(Diagnostic::error(
                "K0405",
                format!(
                    "the interface text of `{lang}` lacks {} key(s): {}",
                    missing.len(),
                    missing.join(", ")
                ),
            )
            .in_file(&l.origin)
            .help("every interface file has the keys of templates/i18n/en.yaml under `text:`"));
        }
        Ok(&l.interface)
    }
}

fn lang_of(file: &str) -> &str {
    file.strip_suffix(".yaml").unwrap_or(file)
}

fn parse(src: &str, origin: &Path) -> Result<Interface, Diagnostic> {
    serde_saphyr::from_str::<Interface>(src).map_err(|e| {
        let help =
            "the file has `name`, `html_lang` and `text` (key: text); see templates/i18n/en.yaml";
        if kcontract_spec::diagnostic::yaml_has_no_document(src) {
            return Diagnostic::error("K0405", "an interface text file holds no YAML document")
                .in_file(origin)
                .help(help);
        }
        let msg = kcontract_spec::diagnostic::yaml_message(&e);
        let at = match e.location() {
            Some(loc) => format!("{}:{}:{}", origin.display(), loc.line(), loc.column()),
            None => origin.display().to_string(),
        };
        Diagnostic::error("K0405", "an interface text file is not valid")
            .in_file(at)
            .help(format!("{msg}\n{help}"))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_embedded_files_parse_and_have_the_same_keys() {
        let all = Interfaces::load(None).unwrap();
        let required: Vec<&String> = all.fallback.text.keys().collect();
        assert_eq!(all.by_lang.len(), EMBEDDED.len());
        for (lang, l) in &all.by_lang {
            let keys: Vec<&String> = l.interface.text.keys().collect();
            assert_eq!(keys, required, "{lang}");
            assert!(all.get(lang).is_ok());
        }
    }

    #[test]
    fn an_unknown_language_and_a_bad_file_are_errors() {
        let all = Interfaces::load(None).unwrap();
        assert_eq!(all.get("xx").unwrap_err().code, "K0404");
        let bad = parse("name: X\nhtml_lang: x\ntext: [1]\n", Path::new("x.yaml")).unwrap_err();
        assert_eq!(bad.code, "K0405");
    }
}
