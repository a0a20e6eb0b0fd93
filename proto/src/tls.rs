//! TLS files (PEM) for both sides, checked when they are loaded so a bad file is named at
//! start: the server's certificate chain and key (`serve --tls-cert/--tls-key`), the CA a
//! client trusts (`--ca-cert`). rustls with the ring provider; no system roots.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use rustls::pki_types::pem::PemObject as _;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use tonic::transport::{Certificate, ClientTlsConfig, Identity, ServerTlsConfig};

use crate::error::{Error, Result};

/// A TLS handshake that has not finished by then is given up (a plaintext client that
/// sends nothing, a peer that stalls).
pub const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);

fn tls_error(path: &Path, reason: impl Into<String>) -> Error {
    Error::TlsFile { path: path.display().to_string(), reason: reason.into() }
}

fn read(path: &Path) -> Result<Vec<u8>> {
    std::fs::read(path).map_err(|e| tls_error(path, format!("cannot read it: {e}")))
}

fn certificates(path: &Path, pem: &[u8]) -> Result<Vec<CertificateDer<'static>>> {
    let certs = CertificateDer::pem_slice_iter(pem)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| tls_error(path, format!("not a PEM certificate file: {e}")))?;
    if certs.is_empty() {
        return Err(tls_error(path, "holds no `-----BEGIN CERTIFICATE-----` block"));
    }
    Ok(certs)
}

fn provider() -> Arc<rustls::crypto::CryptoProvider> {
    Arc::new(rustls::crypto::ring::default_provider())
}

/// The server's identity from its certificate chain and private key files. Refused, naming
/// the file, when either is unreadable or not PEM, or when the key does not match the
/// certificate.
pub fn server_config(cert: &Path, key: &Path) -> Result<ServerTlsConfig> {
    let cert_pem = read(cert)?;
    let key_pem = read(key)?;
    let chain = certificates(cert, &cert_pem)?;
    let private = PrivateKeyDer::from_pem_slice(&key_pem)
        .map_err(|e| tls_error(key, format!("holds no PEM private key (PKCS#8, PKCS#1 or SEC1): {e}")))?;
    // Built once here only to check the pair; tonic builds its own from the same PEM.
    rustls::ServerConfig::builder_with_provider(provider())
        .with_safe_default_protocol_versions()
        .map_err(|e| tls_error(cert, e.to_string()))?
        .with_no_client_auth()
        .with_single_cert(chain, private)
        .map_err(|e| tls_error(key, format!("does not fit the certificate in {}: {e}", cert.display())))?;
    Ok(ServerTlsConfig::new().identity(Identity::from_pem(cert_pem, key_pem)).timeout(HANDSHAKE_TIMEOUT))
}

/// The CA file's PEM and the store of its certificates (the farm's own CA, no system roots).
fn roots(ca: &Path) -> Result<(Vec<u8>, rustls::RootCertStore)> {
    let pem = read(ca)?;
    let mut roots = rustls::RootCertStore::empty();
    for cert in certificates(ca, &pem)? {
        roots.add(cert).map_err(|e| tls_error(ca, format!("not a usable CA certificate: {e}")))?;
    }
    Ok((pem, roots))
}

/// A rustls client trusting only the CA certificate(s) in `ca`, for clients that speak
/// HTTP/1.1 to the farm's port rather than gRPC (the JSON API client, `web::client`).
pub fn rustls_client(ca: &Path) -> Result<Arc<rustls::ClientConfig>> {
    let (_, roots) = roots(ca)?;
    let config = rustls::ClientConfig::builder_with_provider(provider())
        .with_safe_default_protocol_versions()
        .map_err(|e| tls_error(ca, e.to_string()))?
        .with_root_certificates(roots)
        .with_no_client_auth();
    Ok(Arc::new(config))
}

/// A client trusting only the CA certificate(s) in `ca` (the farm's own CA).
pub fn client_config(ca: &Path) -> Result<ClientTlsConfig> {
    let (pem, _) = roots(ca)?;
    Ok(ClientTlsConfig::new().ca_certificate(Certificate::from_pem(pem)).timeout(HANDSHAKE_TIMEOUT))
}
