//! `platform verify` over https: the roots a platform's certificate is checked against (the
//! system's trust store, or `--ca-cert FILE`), the TLS handshake, and what a failed handshake
//! means. rustls with the `ring` provider; the handshake is done here on a connection of its own
//! before ureq's request, so that a failure is told apart exactly (a certificate the roots do not
//! vouch for, a server that does not speak TLS, no answer in time) and the version and cipher
//! suite a platform negotiates go into the report.

use std::io::{Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use rustls::crypto::CryptoProvider;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName};
use rustls::{CertificateError, ClientConfig, ClientConnection, RootCertStore};
use serde_json::{Value, json};

use kcontract_spec::diagnostic::Diagnostic;

use super::fetch_error::FetchError;

/// Why `--ca-cert FILE` cannot be used (K1135): nothing is requested.
#[derive(Debug, thiserror::Error)]
pub enum CaCertError {
    /// The file cannot be read.
    #[error("cannot read the CA certificate `{}`: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// The error, with its kind.
        #[source]
        source: std::io::Error,
    },
    /// It is not PEM.
    #[error("`{}` is not PEM: {source}", path.display())]
    NotPem {
        /// The file.
        path: PathBuf,
        /// What the PEM reader found.
        #[source]
        source: rustls::pki_types::pem::Error,
    },
    /// It holds no certificate block.
    #[error("`{}` holds no PEM certificate (no `-----BEGIN CERTIFICATE-----` block)", path.display())]
    NoCertificate {
        /// The file.
        path: PathBuf,
    },
    /// Some of its blocks are not X.509 certificates.
    #[error(
        "`{}`: {ignored} of its {total} certificates cannot be a root (not X.509 DER inside the PEM block)",
        path.display()
    )]
    NotRoots {
        /// The file.
        path: PathBuf,
        /// How many blocks are not certificates.
        ignored: usize,
        /// How many blocks it holds.
        total: usize,
    },
}

impl CaCertError {
    /// The error as the binary reports it: K1135, in the file, with what to give instead.
    pub fn diagnostic(&self) -> Diagnostic {
        let (CaCertError::Read { path, .. }
        | CaCertError::NotPem { path, .. }
        | CaCertError::NoCertificate { path }
        | CaCertError::NotRoots { path, .. }) = self;
        Diagnostic::error("K1135", self.to_string())
            .in_file(path)
            .help(
                "give the PEM file of the certificate authority that signed the platform's \
                 certificate (`-----BEGIN CERTIFICATE-----` blocks)",
            )
    }
}

/// The roots a platform's certificate must chain to (none for an http URL: `Trust::default()`).
#[derive(Debug, Clone, Default)]
pub struct Trust {
    /// The roots, as DER.
    pub certs: Vec<CertificateDer<'static>>,
    /// Where they come from, for messages and the report: `the system's trust store` or
    /// `--ca-cert FILE`.
    pub source: String,
}

/// The crypto provider: ring (a small C and assembly core built by cargo, no aws-lc toolchain).
fn provider() -> Arc<CryptoProvider> {
    Arc::new(rustls::crypto::ring::default_provider())
}

/// Makes ring the process's provider, which ureq's rustls connector uses (kcontract selects
/// no provider feature of ureq's). Installing twice is harmless: the first one stays.
pub(crate) fn install_provider() {
    let _ = rustls::crypto::ring::default_provider().install_default();
}

impl Trust {
    /// The system's trust store (rustls-native-certs: on Linux the bundle `SSL_CERT_FILE` or
    /// openssl's usual paths name). Certificates it cannot parse are skipped; none at all is not an
    /// error here: the handshake then fails with a message saying the store is empty.
    pub fn system() -> Trust {
        let found = rustls_native_certs::load_native_certs();
        Trust {
            certs: found.certs,
            source: "the system's trust store".to_owned(),
        }
    }

    /// The PEM certificates of `path` (`--ca-cert`).
    pub fn from_pem_file(path: &Path) -> Result<Trust, CaCertError> {
        let bytes = kcontract_spec::fsutil::read_given(path, 16 << 20).map_err(|source| {
            CaCertError::Read {
                path: path.to_owned(),
                source,
            }
        })?;
        let certs = CertificateDer::pem_slice_iter(&bytes)
            .collect::<Result<Vec<_>, _>>()
            .map_err(|source| CaCertError::NotPem {
                path: path.to_owned(),
                source,
            })?;
        if certs.is_empty() {
            return Err(CaCertError::NoCertificate {
                path: path.to_owned(),
            });
        }
        let mut store = RootCertStore::empty();
        let (_, ignored) = store.add_parsable_certificates(certs.iter().cloned());
        if ignored > 0 {
            return Err(CaCertError::NotRoots {
                path: path.to_owned(),
                ignored,
                total: certs.len(),
            });
        }
        Ok(Trust {
            certs,
            source: format!("`{}` (--ca-cert)", path.display()),
        })
    }

    /// The client configuration: these roots, TLS 1.2 and 1.3, ALPN `http/1.1` (what ureq
    /// speaks, so the platform negotiates what the request will use).
    fn client_config(&self) -> Result<Arc<ClientConfig>, rustls::Error> {
        let mut store = RootCertStore::empty();
        store.add_parsable_certificates(self.certs.iter().cloned());
        let mut config = ClientConfig::builder_with_provider(provider())
            .with_safe_default_protocol_versions()?
            .with_root_certificates(store)
            .with_no_client_auth();
        config.alpn_protocols = vec![b"http/1.1".to_vec()];
        Ok(Arc::new(config))
    }

    /// The same roots for ureq.
    pub(crate) fn ureq_roots(&self) -> ureq::tls::RootCerts {
        self.certs
            .iter()
            .map(|c| ureq::tls::Certificate::from_der(c.as_ref()).to_owned())
            .into()
    }
}

/// What a completed handshake negotiated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Handshake {
    /// `TLSv1_3`, `TLSv1_2`.
    pub version: String,
    /// The cipher suite, as rustls names it (`TLS13_AES_256_GCM_SHA384`).
    pub cipher_suite: String,
    /// The ALPN protocol the server chose, when it chose one.
    pub alpn: Option<String>,
    /// Where the roots came from ([`Trust::source`]).
    pub trust: String,
}

impl Handshake {
    /// The handshake as evidence in a report.
    pub(crate) fn evidence(&self) -> Value {
        json!({
            "version": self.version,
            "cipher_suite": self.cipher_suite,
            "alpn": self.alpn,
            "verified_against": self.trust,
        })
    }
}

/// How many bytes of the server's first answer are kept, to recognise plain HTTP.
const FIRST_BYTES: usize = 64;

/// A socket that keeps the first bytes the server sent.
struct Recorded {
    sock: TcpStream,
    first: Vec<u8>,
}

impl Read for Recorded {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.sock.read(buf)?;
        let room = FIRST_BYTES.saturating_sub(self.first.len());
        self.first.extend_from_slice(&buf[..n.min(room)]);
        Ok(n)
    }
}

impl Recorded {
    /// The server's status line, when it answered in plain HTTP. The rest of the line is read
    /// first when TLS stopped at a part of it (a server may write its status line in pieces).
    fn plain_http(&mut self) -> Option<String> {
        if !self.first.starts_with(b"HTTP/") {
            return None;
        }
        let mut byte = [0; 1];
        while self.first.len() < FIRST_BYTES && !self.first.contains(&b'\n') {
            match self.sock.read(&mut byte) {
                Ok(1) => self.first.push(byte[0]),
                _ => break,
            }
        }
        let text = String::from_utf8_lossy(&self.first);
        Some(text.lines().next().unwrap_or_default().trim().to_owned())
    }
}

impl Write for Recorded {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.sock.write(buf)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.sock.flush()
    }
}

/// Connects to `host:port` and completes a TLS handshake for `host` against `trust`. `what` begins
/// every message (`GET https://…/report`).
pub(crate) fn handshake(
    host: &str,
    port: u16,
    trust: &Trust,
    timeout: Duration,
    what: &str,
) -> Result<Handshake, FetchError> {
    let name = ServerName::try_from(host.to_owned()).map_err(|e| {
        FetchError::NotTls(format!("{what}: `{host}` cannot be a TLS server name: {e}"))
    })?;
    let config = trust
        .client_config()
        .map_err(|e| FetchError::NotTls(format!("rustls: {e}")))?;
    let mut conn = ClientConnection::new(config, name)
        .map_err(|e| FetchError::NotTls(format!("{what}: {e}")))?;
    let unreachable = |e: std::io::Error| FetchError::Unreachable(format!("{what}: io: {e}"));
    let addr = (host, port)
        .to_socket_addrs()
        .map_err(unreachable)?
        .next()
        .ok_or_else(|| FetchError::Unreachable(format!("{what}: `{host}` has no address")))?;
    let sock = TcpStream::connect_timeout(&addr, timeout).map_err(|e| {
        if is_timeout(&e) {
            FetchError::Timeout(format!(
                "{what}: no connection within {} s",
                timeout.as_secs()
            ))
        } else {
            unreachable(e)
        }
    })?;
    sock.set_read_timeout(Some(timeout)).map_err(unreachable)?;
    sock.set_write_timeout(Some(timeout)).map_err(unreachable)?;
    let mut sock = Recorded {
        sock,
        first: Vec::new(),
    };
    while conn.is_handshaking() {
        match conn.complete_io(&mut sock) {
            Ok((0, 0)) => {
                return Err(closed(what, &mut sock));
            }
            Ok(_) => {}
            Err(e) => return Err(failed(&e, host, trust, timeout, what, &mut sock)),
        }
    }
    let version = conn
        .protocol_version()
        .map_or_else(String::new, |v| format!("{v:?}"));
    let cipher_suite = conn
        .negotiated_cipher_suite()
        .map_or_else(String::new, |s| format!("{:?}", s.suite()));
    let alpn = conn
        .alpn_protocol()
        .map(|p| String::from_utf8_lossy(p).into_owned());
    conn.send_close_notify();
    let _ = conn.complete_io(&mut sock);
    Ok(Handshake {
        version,
        cipher_suite,
        alpn,
        trust: trust.source.clone(),
    })
}

fn is_timeout(e: &std::io::Error) -> bool {
    matches!(
        e.kind(),
        std::io::ErrorKind::TimedOut | std::io::ErrorKind::WouldBlock
    )
}

/// The connection closed before the handshake completed.
fn closed(what: &str, sock: &mut Recorded) -> FetchError {
    match sock.plain_http() {
        Some(line) => not_tls_http(what, &line),
        None => FetchError::NotTls(format!(
            "{what}: the server closed the connection during the TLS handshake"
        )),
    }
}

fn not_tls_http(what: &str, line: &str) -> FetchError {
    FetchError::NotTls(format!(
        "{what}: the server answered the TLS handshake in plain HTTP (`{line}`): it does not \
         serve https on this port"
    ))
}

/// What a failed handshake means.
fn failed(
    e: &std::io::Error,
    host: &str,
    trust: &Trust,
    timeout: Duration,
    what: &str,
    sock: &mut Recorded,
) -> FetchError {
    if let Some(line) = sock.plain_http() {
        return not_tls_http(what, &line);
    }
    if is_timeout(e) {
        return FetchError::Timeout(format!(
            "{what}: the TLS handshake had no answer within {} s",
            timeout.as_secs()
        ));
    }
    match e.get_ref().and_then(|i| i.downcast_ref::<rustls::Error>()) {
        Some(t) => from_rustls(t, host, trust, what),
        None if matches!(
            e.kind(),
            std::io::ErrorKind::UnexpectedEof
                | std::io::ErrorKind::ConnectionReset
                | std::io::ErrorKind::ConnectionAborted
        ) =>
        {
            closed(what, sock)
        }
        None => FetchError::NotTls(format!("{what}: the TLS handshake failed: {e}")),
    }
}

/// A rustls error of the handshake with `host`, as verify's error.
pub(crate) fn from_rustls(e: &rustls::Error, host: &str, trust: &Trust, what: &str) -> FetchError {
    use rustls::Error as E;
    match e {
        E::InvalidCertificate(c) => FetchError::Untrusted(format!(
            "{what}: the TLS certificate {}",
            certificate(c, host, trust)
        )),
        E::InvalidMessage(_)
        | E::InappropriateMessage { .. }
        | E::InappropriateHandshakeMessage { .. } => FetchError::NotTls(format!(
            "{what}: the server's answer to the TLS handshake is not TLS ({e})"
        )),
        E::AlertReceived(alert) => FetchError::NotTls(format!(
            "{what}: the server refused the TLS handshake (alert {alert:?})"
        )),
        other => FetchError::NotTls(format!("{what}: the TLS handshake failed: {other}")),
    }
}

/// Why the certificate of `host` was rejected, after "the TLS certificate".
fn certificate(c: &CertificateError, host: &str, trust: &Trust) -> String {
    match c {
        CertificateError::UnknownIssuer if trust.certs.is_empty() => format!(
            "of {host} cannot be checked: {} holds no certificate",
            trust.source
        ),
        CertificateError::UnknownIssuer => format!(
            "of {host} is signed by a certificate authority that {} does not hold",
            trust.source
        ),
        CertificateError::NotValidForNameContext { presented, .. } => format!(
            "is for {}, not for {host}",
            if presented.is_empty() {
                "no name".to_owned()
            } else {
                presented
                    .iter()
                    .map(|n| bare_name(n))
                    .collect::<Vec<_>>()
                    .join(", ")
            }
        ),
        CertificateError::NotValidForName => format!("is not for {host}"),
        CertificateError::Expired | CertificateError::ExpiredContext { .. } => {
            format!("of {host} has expired")
        }
        CertificateError::NotValidYet | CertificateError::NotValidYetContext { .. } => {
            format!("of {host} is not valid yet")
        }
        other => format!(
            "of {host} was rejected: {}",
            rustls::Error::InvalidCertificate(other.clone())
        ),
    }
}

/// A name rustls presents as `DnsName("probe.example.com")` or `IpAddress(…)`, bare.
fn bare_name(presented: &str) -> &str {
    presented
        .split_once('(')
        .and_then(|(_, rest)| rest.strip_suffix(')'))
        .map_or(presented, |inner| inner.trim_matches('"'))
}
