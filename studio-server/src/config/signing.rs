//! The link-signing key: `STUDIO_SIGNING_KEY`, or one generated once and kept in the data
//! directory, published whole so processes starting together share it.

use std::path::Path;

use studio_core::SigningKey;

use super::{ConfigError, ServerConfig};

/// Create `path` holding `bytes` (mode 0600), whole or not at all: written and synced under a
/// temporary name beside it, then hard-linked to `path`, which fails with `AlreadyExists` when
/// another process got there first. A reader never sees the file empty or half written, and a
/// crash leaves at most a stray temporary file, never an empty file that stops every start.
pub(super) fn publish_whole(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let temp = path.with_file_name(format!(".{name}.{}", uuid::Uuid::new_v4().simple()));
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let written = options.open(&temp).and_then(|mut file| {
        std::io::Write::write_all(&mut file, bytes)?;
        file.sync_all()
    });
    let linked = written.and_then(|()| std::fs::hard_link(&temp, path));
    let _ = std::fs::remove_file(&temp);
    linked
}

impl ServerConfig {
    /// The link-signing key: `STUDIO_SIGNING_KEY` when set, else the key kept in
    /// `<data_dir>/signing.key`, generated there (mode 0600) the first time. A replica with its
    /// own data directory would generate its own, so replicas set `STUDIO_SIGNING_KEY`.
    pub fn signing_key(&self) -> Result<SigningKey, ConfigError> {
        if let Some(secret) = &self.signing_key {
            return SigningKey::from_secret(secret).map_err(|e| ConfigError::Env("STUDIO_SIGNING_KEY", e));
        }
        let path = self.data_dir.join("signing.key");
        let io = |e| ConfigError::KeyFile(path.clone(), e);
        match std::fs::read_to_string(&path) {
            Ok(kept) => {
                SigningKey::from_secret(&kept).map_err(|e| ConfigError::KeyFile(path.clone(), std::io::Error::other(e)))
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                std::fs::create_dir_all(&self.data_dir).map_err(io)?;
                let secret = SigningKey::generate();
                let kept = match publish_whole(&path, format!("{secret}\n").as_bytes()) {
                    Ok(()) => {
                        tracing::info!(path = %path.display(), "generated the link-signing key");
                        secret
                    }
                    // Another process of this data directory published one first: use theirs.
                    Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                        std::fs::read_to_string(&path).map_err(io)?
                    }
                    Err(e) => return Err(io(e)),
                };
                SigningKey::from_secret(&kept).map_err(|e| ConfigError::KeyFile(path.clone(), std::io::Error::other(e)))
            }
            Err(e) => Err(io(e)),
        }
    }
}
