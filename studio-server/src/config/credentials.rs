//! The content-credentials signer: `STUDIO_C2PA_CERT` and `STUDIO_C2PA_KEY` (PEM files: the
//! certificate chain and its private key), or a local certificate authority generated once
//! into the data directory and reused after restarts (docs/provenance.md).

use std::path::Path;

use studio_core::provenance::{ContentCredentials, generate_local_authority};

use super::signing::kept_or_published;
use super::{ConfigError, ServerConfig};

/// The file in the data directory holding the generated chain and its key.
const LOCAL_FILE: &str = "content-credentials.pem";

impl ServerConfig {
    /// The signer of every develop output's content credentials. Both paths set: their files,
    /// checked by signing and reading back a small frame. Neither: the pair kept in
    /// `<data_dir>/content-credentials.pem`, generated there (mode 0600) the first time. One
    /// without the other is refused.
    pub fn content_credentials(&self) -> Result<ContentCredentials, ConfigError> {
        let fail = |e: String| ConfigError::Credentials(e);
        match (&self.c2pa_cert, &self.c2pa_key) {
            (Some(cert), Some(key)) => {
                let read =
                    |path: &str| std::fs::read_to_string(path).map_err(|e| fail(format!("cannot read {path}: {e}")));
                let credentials =
                    ContentCredentials::from_pem(&read(cert)?, &read(key)?, false).map_err(|e| fail(e.to_string()))?;
                tracing::info!(cert = %cert, "content credentials are signed with the configured certificate");
                Ok(credentials)
            }
            (Some(_), None) => Err(ConfigError::Env("STUDIO_C2PA_KEY", "set it with STUDIO_C2PA_CERT".into())),
            (None, Some(_)) => Err(ConfigError::Env("STUDIO_C2PA_CERT", "set it with STUDIO_C2PA_KEY".into())),
            (None, None) => self.local_credentials(),
        }
    }

    fn local_credentials(&self) -> Result<ContentCredentials, ConfigError> {
        let path = self.data_dir.join(LOCAL_FILE);
        let generate = || {
            let authority = generate_local_authority("Studio").map_err(std::io::Error::other)?;
            Ok(format!("{}{}", authority.chain_pem, authority.key_pem))
        };
        let kept = kept_or_published(&self.data_dir, &path, "a local content-credentials authority", generate)
            .map_err(|e| ConfigError::KeyFile(path.clone(), e))?;
        let (chain, key) = split_pem(&kept);
        let credentials = ContentCredentials::from_pem(&chain, &key, true)
            .map_err(|e| ConfigError::Credentials(format!("{}: {e}", path.display())))?;
        warn_local(&path);
        Ok(credentials)
    }
}

/// The certificates and the private key of one PEM file, each as PEM.
fn split_pem(pem: &str) -> (String, String) {
    let (mut certificates, mut key) = (String::new(), String::new());
    let mut block = String::new();
    for line in pem.lines() {
        block.push_str(line);
        block.push('\n');
        if line.starts_with("-----END ") {
            if line.contains("CERTIFICATE") {
                certificates.push_str(&block);
            } else if line.contains("PRIVATE KEY") {
                key.push_str(&block);
            }
            block.clear();
        }
    }
    (certificates, key)
}

fn warn_local(path: &Path) {
    tracing::warn!(
        path = %path.display(),
        "content credentials are signed under a local certificate authority generated for this deployment: C2PA \
         readers will find them intact but call the signer untrusted. Set STUDIO_C2PA_CERT and STUDIO_C2PA_KEY to \
         sign with a certificate they trust (replicas must share one)."
    );
}
