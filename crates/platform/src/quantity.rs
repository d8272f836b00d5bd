//! Kubernetes resource quantities as a Service writes them: CPU (`1`, `0.5`, `125m`) in
//! millicores, memory (`128Mi`, `1G`, `134217728`) in bytes. The suffixes are Kubernetes'
//! (`k8s.io/apimachinery/pkg/api/resource`): `m`; decimal `k M G T P E`; binary `Ki Mi Gi Ti Pi Ei`.
//! Exponent notation is not read.

/// A quantity's value times `scale`, rounded up to an integer (Kubernetes rounds CPU up to the
/// millicore), or `None` when the text is not a quantity or the value does not fit.
fn scaled(text: &str, scale: u128) -> Option<u64> {
    let suffixes: [(&str, u128, u128); 14] = [
        ("Ki", 1 << 10, 1),
        ("Mi", 1 << 20, 1),
        ("Gi", 1 << 30, 1),
        ("Ti", 1 << 40, 1),
        ("Pi", 1 << 50, 1),
        ("Ei", 1 << 60, 1),
        ("k", 1_000, 1),
        ("M", 1_000_000, 1),
        ("G", 1_000_000_000, 1),
        ("T", 1_000_000_000_000, 1),
        ("P", 1_000_000_000_000_000, 1),
        ("E", 1_000_000_000_000_000_000, 1),
        ("m", 1, 1_000),
        ("", 1, 1),
    ];
    let (number, mul, div) = suffixes
        .iter()
        .find_map(|(s, m, d)| text.strip_suffix(s).map(|n| (n, *m, *d)))?;
    let (int, frac) = number.split_once('.').unwrap_or((number, ""));
    if int.is_empty() && frac.is_empty()
        || !int.chars().all(|c| c.is_ascii_digit())
        || !frac.chars().all(|c| c.is_ascii_digit())
        || frac.len() > 9
        || int.len() > 20
    {
        return None;
    }
    let frac_den = 10u128.pow(frac.len() as u32);
    let whole: u128 = if int.is_empty() { 0 } else { int.parse().ok()? };
    let part: u128 = if frac.is_empty() {
        0
    } else {
        frac.parse().ok()?
    };
    let numerator = (whole * frac_den + part)
        .checked_mul(mul)?
        .checked_mul(scale)?;
    let denominator = frac_den * div;
    u64::try_from(numerator.div_ceil(denominator)).ok()
}

/// A CPU quantity in millicores.
pub(crate) fn cpu_millis(text: &str) -> Option<u64> {
    scaled(text, 1_000)
}

/// A memory quantity in bytes (a fractional byte rounds up).
pub(crate) fn memory_bytes(text: &str) -> Option<u64> {
    scaled(text, 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantities_follow_kubernetes() {
        assert_eq!(cpu_millis("1"), Some(1_000));
        assert_eq!(cpu_millis("0.5"), Some(500));
        assert_eq!(cpu_millis(".25"), Some(250));
        assert_eq!(cpu_millis("125m"), Some(125));
        assert_eq!(cpu_millis("0.0001"), Some(1));
        assert_eq!(memory_bytes("128Mi"), Some(134_217_728));
        assert_eq!(memory_bytes("1G"), Some(1_000_000_000));
        assert_eq!(memory_bytes("1.5Ki"), Some(1_536));
        assert_eq!(memory_bytes("134217728"), Some(134_217_728));
        for bad in [
            "",
            ".",
            "1x",
            "-1",
            "1.2.3",
            "Mi",
            "1e3",
            " 1",
            "99999999999Ei",
        ] {
            assert_eq!(memory_bytes(bad), None, "{bad}");
        }
    }
}
