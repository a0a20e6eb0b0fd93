//! How a client reaches a coordinator: one function turns a URL (`http://` or `https://`)
//! and an optional CA file into an endpoint, used by the worker and by every command.
//!
//! A protocol mismatch is told apart from a coordinator that is merely down, so callers that
//! retry (the worker) stop at once with a message saying what to fix instead of retrying
//! forever: `http://` against a TLS server, `https://` against a plaintext one, a server
//! certificate the CA did not sign.
//!
//! ```
//! use proto::endpoint::endpoint;
//!
//! let plain = endpoint("http://127.0.0.1:7878", None)?;
//! assert!(!plain.is_tls());
//! // https:// needs the farm's CA, and http:// takes none.
//! assert!(endpoint("https://farm:7878", None).unwrap_err().to_string().contains("--ca-cert"));
//! let wrong = endpoint("http://farm:7878", Some("ca.pem".as_ref())).unwrap_err();
//! assert!(wrong.to_string().contains("https://"));
//! # Ok::<(), proto::Error>(())
//! ```

use std::error::Error as StdError;
use std::path::Path;
use std::time::Duration;

use rustls::{CertificateError, Error as Tls};
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tonic::transport::{Channel, Endpoint};

use crate::error::{Error, Result};

/// A connection attempt (TCP, and the TLS handshake) that takes longer is given up.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);

/// The HTTP/2 client preface: a plaintext gRPC server answers it with a SETTINGS frame.
const H2_PREFACE: &[u8] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";

/// A coordinator's address, with TLS when the URL is `https://`.
#[derive(Clone, Debug)]
pub struct FarmEndpoint {
    url: String,
    endpoint: Endpoint,
    tls: bool,
}

/// The endpoint of the coordinator at `url`. `https://` needs `ca_cert`, the PEM of the CA
/// that signed the coordinator's certificate (no system roots are used); `http://` refuses
/// one, since it would be silently ignored.
pub fn endpoint(url: &str, ca_cert: Option<&Path>) -> Result<FarmEndpoint> {
    let bad = |reason: String| Error::Endpoint { url: url.to_owned(), reason };
    let endpoint = Endpoint::from_shared(url.to_owned()).map_err(|e| bad(format!("not a URL: {e}")))?;
    let scheme = endpoint.uri().scheme_str().unwrap_or_default().to_owned();
    let tls = match (scheme.as_str(), ca_cert) {
        ("http", None) => false,
        ("https", Some(_)) => true,
        ("http", Some(ca)) => {
            return Err(bad(format!(
                "--ca-cert {} is for a TLS coordinator: use an https:// URL, or drop --ca-cert",
                ca.display()
            )));
        }
        ("https", None) => {
            return Err(bad(
                "an https:// coordinator needs --ca-cert CA.pem, the certificate of the CA that signed its certificate"
                    .into(),
            ));
        }
        _ => return Err(bad("expected an http:// or https:// URL".into())),
    };
    let endpoint = endpoint.connect_timeout(CONNECT_TIMEOUT).tcp_nodelay(true);
    let endpoint = match ca_cert {
        Some(ca) => endpoint.tls_config(crate::tls::client_config(ca)?).map_err(|e| bad(chain(&e)))?,
        None => endpoint,
    };
    Ok(FarmEndpoint { url: url.to_owned(), endpoint, tls })
}

impl FarmEndpoint {
    pub fn url(&self) -> &str {
        &self.url
    }

    pub fn is_tls(&self) -> bool {
        self.tls
    }

    /// HTTP/2 keep-alive: a ping `interval` after the last frame received, also while only a
    /// stream is open, and the connection dropped when no answer comes within `timeout`. This
    /// is how a watch stream notices a frozen or cut-off coordinator.
    pub fn keep_alive(mut self, interval: Duration, timeout: Duration) -> FarmEndpoint {
        self.endpoint =
            self.endpoint.http2_keep_alive_interval(interval).keep_alive_timeout(timeout).keep_alive_while_idle(true);
        self
    }

    /// Connects. [`Error::Unreachable`] when the coordinator may be up later (worth
    /// retrying); [`Error::TlsMismatch`] when retrying cannot help.
    pub async fn connect(&self) -> Result<Channel> {
        if !self.tls {
            self.probe_plaintext().await?;
        }
        self.endpoint.connect().await.map_err(|e| self.classify(&e))
    }

    /// Sends the HTTP/2 preface on a connection of its own and looks at the first byte
    /// back: a TLS server answers with an alert record (0x15) or closes, where a plaintext
    /// gRPC server sends a SETTINGS frame (its first byte is 0: frames are short). The
    /// channel itself cannot tell: its connection is set up lazily and a TLS server's
    /// reply only shows later as a protocol error on the first call.
    async fn probe_plaintext(&self) -> Result<()> {
        let uri = self.endpoint.uri();
        let host = uri.host().unwrap_or_default().trim_start_matches('[').trim_end_matches(']');
        let port = uri.port_u16().unwrap_or(80);
        let unreachable = |reason: String| Error::Unreachable { url: self.url.clone(), reason };
        let mut stream = tokio::time::timeout(CONNECT_TIMEOUT, tokio::net::TcpStream::connect((host, port)))
            .await
            .map_err(|_| unreachable("timed out connecting".into()))?
            .map_err(|e| unreachable(e.to_string()))?;
        let mut first = [0u8; 1];
        let reply = tokio::time::timeout(CONNECT_TIMEOUT, async {
            stream.write_all(H2_PREFACE).await?;
            stream.read(&mut first).await
        })
        .await;
        match reply {
            Ok(Ok(1)) if first[0] == 0x15 || first[0] == 0x16 => Err(self.speaks_tls()),
            // The server hung up on the preface without a word: a TLS server that sends no
            // alert does that; a gRPC server never does.
            Ok(Ok(0)) => Err(self.speaks_tls()),
            Ok(Ok(_)) => Ok(()),
            Ok(Err(e)) => Err(unreachable(e.to_string())),
            Err(_) => Err(unreachable("no answer to the HTTP/2 preface".into())),
        }
    }

    fn speaks_tls(&self) -> Error {
        Error::TlsMismatch {
            url: self.url.clone(),
            reason: format!(
                "the coordinator speaks TLS, not plaintext: use {} with --ca-cert CA.pem",
                self.url.replacen("http://", "https://", 1)
            ),
        }
    }

    fn classify(&self, error: &tonic::transport::Error) -> Error {
        let Some(tls) = rustls_error(error) else {
            return Error::Unreachable { url: self.url.clone(), reason: chain(error) };
        };
        let reason = match tls {
            Tls::InvalidCertificate(CertificateError::UnknownIssuer | CertificateError::BadSignature) => {
                "the coordinator's certificate is not signed by the CA given with --ca-cert: pass the farm's CA".into()
            }
            Tls::InvalidCertificate(
                CertificateError::NotValidForName | CertificateError::NotValidForNameContext { .. },
            ) => "the coordinator's certificate does not name this host: dial the name it was issued for".into(),
            Tls::InvalidCertificate(other) => format!(
                "the coordinator's certificate is refused ({other:?}): it must be a server certificate signed by the CA given with --ca-cert"
            ),
            Tls::InvalidMessage(_) => format!(
                "the coordinator does not speak TLS: use {} without --ca-cert",
                self.url.replacen("https://", "http://", 1)
            ),
            other => format!("the TLS handshake failed: {other}"),
        };
        Error::TlsMismatch { url: self.url.clone(), reason }
    }
}

/// The rustls error inside a transport error, if the TLS handshake is what failed.
/// `io::Error` hides its payload from `source()`, so each one is opened with `get_ref`.
fn rustls_error<'a>(error: &'a (dyn StdError + 'static)) -> Option<&'a Tls> {
    let mut next = Some(error);
    while let Some(e) = next {
        if let Some(tls) = e.downcast_ref::<Tls>() {
            return Some(tls);
        }
        if let Some(tls) =
            e.downcast_ref::<std::io::Error>().and_then(|io| io.get_ref()).and_then(|inner| rustls_error(inner))
        {
            return Some(tls);
        }
        next = e.source();
    }
    None
}

/// An error and its sources on one line (`transport error: ... : connection refused`).
fn chain(error: &(dyn StdError + 'static)) -> String {
    let mut text = error.to_string();
    let mut next = error.source();
    while let Some(e) = next {
        let part = e.to_string();
        if !text.contains(&part) {
            text.push_str(": ");
            text.push_str(&part);
        }
        next = e.source();
    }
    text
}
