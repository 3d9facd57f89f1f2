//! A throwaway certificate authority and the host's server certificate.
//!
//! The key app only fetches discovery documents over HTTPS with real certificate
//! checks (README "Configuration": "Discovery is HTTPS only"). Rather than weaken that for tests,
//! the test host makes its own CA, signs a leaf for its domain with it, and hands the
//! CA's PEM to the key app as an `extra_root_certs` entry. Nothing is written to disk
//! here; a fresh CA is made for every host.

use std::sync::Arc;

use rcgen::{
    BasicConstraints, CertificateParams, DistinguishedName, DnType, ExtendedKeyUsagePurpose, IsCa, Issuer, KeyPair,
    KeyUsagePurpose,
};
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};

use crate::TestHostError;

/// The CA's PEM (what a client trusts) and the server's TLS configuration.
pub(crate) struct Tls {
    pub(crate) ca_pem: String,
    pub(crate) server_config: Arc<rustls::ServerConfig>,
}

/// Makes a CA ("SchCP test host CA") and a leaf for `domain` signed by it.
pub(crate) fn make(domain: &str) -> Result<Tls, TestHostError> {
    let ca_key = KeyPair::generate()?;
    let mut ca_params = CertificateParams::new(Vec::<String>::new())?;
    let mut dn = DistinguishedName::new();
    dn.push(DnType::CommonName, "SchCP test host CA (throwaway)");
    ca_params.distinguished_name = dn;
    // A CA that can sign leaves only: path length 0.
    ca_params.is_ca = IsCa::Ca(BasicConstraints::Constrained(0));
    ca_params.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
    let ca_cert = ca_params.self_signed(&ca_key)?;
    let issuer = Issuer::new(ca_params, ca_key);

    let leaf_key = KeyPair::generate()?;
    let mut leaf_params = CertificateParams::new(vec![domain.to_owned()])?;
    let mut dn = DistinguishedName::new();
    dn.push(DnType::CommonName, domain);
    leaf_params.distinguished_name = dn;
    leaf_params.is_ca = IsCa::ExplicitNoCa;
    leaf_params.key_usages = vec![KeyUsagePurpose::DigitalSignature];
    leaf_params.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
    let leaf_cert = leaf_params.signed_by(&leaf_key, &issuer)?;

    // ring explicitly, rather than the process default provider: another crate in the
    // same build enabling aws-lc-rs would otherwise make the default ambiguous.
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let chain: Vec<CertificateDer<'static>> = vec![leaf_cert.der().clone(), ca_cert.der().clone()];
    let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(leaf_key.serialize_der()));
    let mut server_config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()?
        .with_no_client_auth()
        .with_single_cert(chain, key)?;
    // The server speaks HTTP/1.1 only (hyper's http1 connection).
    server_config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(Tls { ca_pem: ca_cert.pem(), server_config: Arc::new(server_config) })
}
