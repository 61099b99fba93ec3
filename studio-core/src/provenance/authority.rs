//! The local certificate authority: when a deployment configures no certificate of its own,
//! it signs content credentials with a certificate issued by a CA it generated itself (C2PA
//! readers refuse a bare self-signed signer). The server keeps the pair in its data dir and
//! reuses it after restarts; readers call such a signer valid but untrusted.

use rcgen::{
    BasicConstraints, CertificateParams, DistinguishedName, DnType, ExtendedKeyUsagePurpose, IsCa, Issuer, KeyPair,
    KeyUsagePurpose, PKCS_ECDSA_P256_SHA256,
};

/// A generated signing identity, as PEM: the chain (signing certificate, then the CA's) and
/// the signing certificate's private key (PKCS#8). The CA's own key is discarded.
#[derive(Clone)]
pub struct LocalAuthority {
    /// The signing certificate followed by the CA certificate.
    pub chain_pem: String,
    /// The signing certificate's private key.
    pub key_pem: String,
}

impl std::fmt::Debug for LocalAuthority {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("LocalAuthority(<redacted>)")
    }
}

/// How long the generated CA and signing certificate are valid: ten years from now.
const VALID_DAYS: u64 = 3_650;

/// Generate a CA and an ECDSA P-256 signing certificate under it, both named for `house`
/// (the deployment's display name). The signing certificate is an end entity with the
/// digital-signature key usage and the e-mail-protection extended key usage that C2PA's
/// certificate profile accepts.
pub fn generate_local_authority(house: &str) -> Result<LocalAuthority, rcgen::Error> {
    // From a minute back (a reader whose clock is a little behind still sees it valid).
    let since = (chrono::Utc::now().timestamp() - 60).max(0) as u64;
    let now = rcgen::date_time_ymd(1970, 1, 1) + std::time::Duration::from_secs(since);
    let until = now + std::time::Duration::from_secs(VALID_DAYS * 86_400);

    let ca_key = KeyPair::generate_for(&PKCS_ECDSA_P256_SHA256)?;
    let mut ca = CertificateParams::new(Vec::<String>::new())?;
    ca.distinguished_name = name(&format!("{house} local content-credentials CA"), house);
    ca.is_ca = IsCa::Ca(BasicConstraints::Constrained(0));
    ca.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign, KeyUsagePurpose::DigitalSignature];
    ca.not_before = now;
    ca.not_after = until;
    let ca_cert = ca.self_signed(&ca_key)?;
    let issuer = Issuer::new(ca, ca_key);

    let key = KeyPair::generate_for(&PKCS_ECDSA_P256_SHA256)?;
    let mut leaf = CertificateParams::new(Vec::<String>::new())?;
    leaf.distinguished_name = name(&format!("{house} content credentials"), house);
    leaf.is_ca = IsCa::ExplicitNoCa;
    leaf.key_usages = vec![KeyUsagePurpose::DigitalSignature];
    leaf.extended_key_usages = vec![ExtendedKeyUsagePurpose::EmailProtection];
    leaf.use_authority_key_identifier_extension = true;
    leaf.not_before = now;
    leaf.not_after = until;
    let leaf_cert = leaf.signed_by(&key, &issuer)?;

    Ok(LocalAuthority { chain_pem: format!("{}{}", leaf_cert.pem(), ca_cert.pem()), key_pem: key.serialize_pem() })
}

fn name(common: &str, organisation: &str) -> DistinguishedName {
    let mut dn = DistinguishedName::new();
    dn.push(DnType::CommonName, common);
    dn.push(DnType::OrganizationName, organisation);
    dn
}
