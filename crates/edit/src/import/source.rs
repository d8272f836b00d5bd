//! The text to import, made safe to import before anything is made of it: a NUL byte is refused
//! (no chapter may hold one, `check` rejects it, K0005: it is a binary file or a damaged one), and
//! a carriage return without a line feed (an old Mac line end) is read as the line end CommonMark
//! makes of it, with a warning (a clause block would otherwise end up holding one, which its YAML
//! reads as a line end where Markdown does not).

use std::path::Path;

use kcontract_spec::diagnostic::{Diagnostic, SourceMap, Span};

/// The text to import and what was found in it.
pub struct Prepared {
    /// The text, lone carriage returns made line feeds; `None` when it cannot be imported.
    pub text: Option<String>,
    /// K1006 (an error: the text is not imported) or K1007 (a warning: the text was normalised).
    pub diagnostics: Vec<Diagnostic>,
    /// The file the diagnostics point into.
    pub sources: SourceMap,
}

/// `text` (read from `path`, its byte-order mark and `\r\n` line ends already made plain) checked
/// for NUL bytes and lone carriage returns.
pub fn prepare(path: &Path, text: String) -> Prepared {
    let mut sources = SourceMap::default();
    if let Some(at) = text.find('\0') {
        let count = text.matches('\0').count();
        let id = sources.add(path.to_path_buf(), text);
        let d = Diagnostic::error(
            "K1006",
            format!(
                "`{}` holds {count} NUL byte(s): it is not Markdown text",
                path.display()
            ),
        )
        .at(Span::new(id, at..at + 1), "a NUL byte (0x00)")
        .help("a spec's files are text and hold no NUL byte (check rejects one, K0005): check that this is the file you meant, or remove the bytes (`grep -nP '\\x00' FILE` finds them); nothing was written");
        return Prepared {
            text: None,
            diagnostics: vec![d],
            sources,
        };
    }
    let Some(at) = text.find('\r') else {
        return Prepared {
            text: Some(text),
            diagnostics: Vec::new(),
            sources,
        };
    };
    let count = text.matches('\r').count();
    let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    // One byte for one: the offsets of the original are the normalised text's.
    let normalised = text.replace('\r', "\n");
    let id = sources.add(path.to_path_buf(), normalised.clone());
    let d = Diagnostic::warning(
        "K1007",
        format!(
            "`{}` has {count} carriage return(s) without a line feed: each is read as a line end",
            path.display()
        ),
    )
    .at(
        Span::new(id, line_start..at),
        "this line ends with a carriage return (0x0D) alone, read as a line end",
    )
    .help("CommonMark reads a lone carriage return as a line end, and so does import: the new chapters end their lines with line feeds; check the text reads as you expect there");
    Prepared {
        text: Some(normalised),
        diagnostics: vec![d],
        sources,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nul_is_refused_lone_cr_is_a_line_end() {
        let p = prepare(Path::new("a.md"), "# T\n\nIt MUST\0 go.\n".into());
        assert!(p.text.is_none());
        assert_eq!(p.diagnostics[0].code, "K1006");
        let p = prepare(Path::new("a.md"), "# T\r\rIt MUST go.\n".into());
        assert_eq!(p.text.as_deref(), Some("# T\n\nIt MUST go.\n"));
        assert_eq!(p.diagnostics[0].code, "K1007");
        let p = prepare(Path::new("a.md"), "# T\n".into());
        assert!(p.diagnostics.is_empty());
    }
}
