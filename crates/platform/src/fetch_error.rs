//! Why reading a deployed probe failed (`platform verify`): one type for the plain-http reader
//! (`verify.rs`) and the TLS handshake (`tls.rs`), each variant its own diagnostic.

use kcontract_spec::diagnostic::Diagnostic;

/// Why a probe could not be read; each variant's message says what was asked (`GET URL`) and
/// what came back.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FetchError {
    /// No connection (refused, unknown host, reset): K1130.
    #[error("{0}")]
    Unreachable(String),
    /// No answer within the timeout: K1131.
    #[error("{0}")]
    Timeout(String),
    /// An answer that is not a serving probe's facts: K1132.
    #[error("{0}")]
    NotAProbe(String),
    /// A TLS certificate the roots do not vouch for (unknown authority, another name, expired):
    /// K1133.
    #[error("{0}")]
    Untrusted(String),
    /// An https URL whose server does not complete a TLS handshake (plain HTTP, an alert, closed):
    /// K1134.
    #[error("{0}")]
    NotTls(String),
}

impl FetchError {
    /// The error as the binary reports it: its code, and what to check.
    pub fn diagnostic(&self) -> Diagnostic {
        let (code, help) = match self {
            FetchError::Unreachable(_) => (
                "K1130",
                "check the URL (the Service's URL, as `kn service describe` or `kubectl get ksvc` shows it) and that the platform answers on it",
            ),
            FetchError::Timeout(_) => (
                "K1131",
                "the probe may be scaling from zero: try again, or give a longer --timeout SECS",
            ),
            FetchError::NotAProbe(_) => (
                "K1132",
                "give the URL of a Service running the probe in `serve` mode (`kcontract platform image`); verify reads URL/report",
            ),
            FetchError::Untrusted(_) => (
                "K1133",
                "for a platform whose certificates a private authority signs, give that authority's certificate with --ca-cert FILE; the URL's host must be a name the certificate lists",
            ),
            FetchError::NotTls(_) => (
                "K1134",
                "check the URL's port; if the platform serves this URL in plain http, give http://",
            ),
        };
        Diagnostic::error(code, self.to_string()).help(help)
    }
}
