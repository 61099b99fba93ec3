//! The link-signing key: `STUDIO_SIGNING_KEY`, or one generated once and kept in the data
//! directory, published whole so processes starting together share it.

use std::path::Path;

use studio_core::SigningKey;

use super::{ConfigError, ServerConfig};

/// Create `path` holding `bytes` (mode 0600), whole or not at all: written and synced under a
/// temporary name beside it, then hard-linked to `path`, which fails with `AlreadyExists` when
/// another process got there first. A reader never sees the file empty or half written, and a
/// crash leaves at most a stray temporary file, never an empty file that stops every start.
fn publish_whole(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
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

/// The text kept at `path` in `dir`; when there is none yet, `generate`d and published whole
/// (mode 0600), and the log names `what` was generated. When another process of the same
/// directory publishes first, theirs is used, so processes starting together share one. Nothing
/// is written when `generate` fails.
pub(super) fn kept_or_published(
    dir: &Path,
    path: &Path,
    what: &str,
    generate: impl FnOnce() -> std::io::Result<String>,
) -> std::io::Result<String> {
    match std::fs::read_to_string(path) {
        Ok(kept) => Ok(kept),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            std::fs::create_dir_all(dir)?;
            let made = generate()?;
            match publish_whole(path, made.as_bytes()) {
                Ok(()) => {
                    tracing::info!(path = %path.display(), "generated {what}");
                    Ok(made)
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => std::fs::read_to_string(path),
                Err(e) => Err(e),
            }
        }
        Err(e) => Err(e),
    }
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
        let kept = kept_or_published(&self.data_dir, &path, "the link-signing key", || {
            Ok(format!("{}\n", SigningKey::generate()))
        })
        .map_err(|e| ConfigError::KeyFile(path.clone(), e))?;
        SigningKey::from_secret(&kept).map_err(|e| ConfigError::KeyFile(path.clone(), std::io::Error::other(e)))
    }
}
