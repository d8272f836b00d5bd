//! `kcontract explain CODE`: the entry for a diagnostic code, from `docs/errors.md` (embedded, so the
//! binary explains itself without the repository at hand).

/// The catalogue, as shipped.
pub(crate) const CATALOGUE: &str = include_str!("../docs/errors.md");

/// All documented codes with their entries (heading line included), in catalogue order.
pub(crate) fn entries() -> Vec<(&'static str, &'static str)> {
    let mut out = Vec::new();
    let starts: Vec<usize> = CATALOGUE
        .match_indices("\n## K")
        .map(|(i, _)| i + 1)
        .collect();
    for (n, &start) in starts.iter().enumerate() {
        let end = starts.get(n + 1).copied().unwrap_or(CATALOGUE.len());
        let entry = CATALOGUE[start..end].trim_end();
        let code = &entry[3..8];
        out.push((code, entry));
    }
    out
}

/// The entry for `code` (case-insensitive), or `None`.
pub(crate) fn explain(code: &str) -> Option<&'static str> {
    let code = code.trim().to_ascii_uppercase();
    entries()
        .into_iter()
        .find(|(c, _)| *c == code)
        .map(|(_, e)| e)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_are_parsed_and_found() {
        let all = entries();
        assert!(all.len() >= 30, "{}", all.len());
        assert!(
            all.iter()
                .all(|(c, e)| c.len() == 5 && e.starts_with(&format!("## {c}: ")))
        );
        assert!(explain("k0104").unwrap().contains("contradicts"));
        assert_eq!(explain(&format!("K{}", 9999)), None);
        assert_eq!(explain(""), None);
    }
}
