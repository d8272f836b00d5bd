//! Why reading a deployed probe failed (`platform verify`): one type for the plain-http reader
//! (`verify.rs`) and the TLS handshake (`tls.rs`), each variant its own diagnostic.

/// Why a probe could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FetchError {
    /// No connection (refused, unknown host, reset): K1130.
    Unreachable(String),
    /// No answer within the timeout: K1131.
    Timeout(String),
    /// An answer that is not a serving probe's facts: K1132.
    NotAProbe(String),
    /// A TLS certificate the roots do not vouch for (unknown authority, another name, expired):
    /// K1133.
    Untrusted(String),
    /// An https URL whose server does not complete a TLS handshake (plain HTTP, an alert, closed):
    /// K1134.
    NotTls(String),
}
