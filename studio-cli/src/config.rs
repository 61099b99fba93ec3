//! The config file: where it lives, how it is read, and how it is written (mode 0600, atomically).

use std::fs;
use std::io::{ErrorKind, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context as _, Result, bail};
use serde::{Deserialize, Serialize};

/// The base URL used when neither a flag, the environment nor the config file names one.
pub(crate) const DEFAULT_URL: &str = "http://127.0.0.1:8787";

/// The first line of every config file `studio` writes.
const HEADER: &str = "# studio CLI configuration. It holds an organization key: keep it private (mode 0600).\n";

/// What `studio` remembers between runs. Not `Debug`: it holds a secret.
#[derive(Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Config {
    /// The deployment's base URL.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) url: Option<String>,
    /// The organization key (`studio_sk_...`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) api_key: Option<String>,
    /// The key's id, when known; `logout --revoke` revokes it by id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) key_id: Option<String>,
    /// The email of the person the key acts for, for messages.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) email: Option<String>,
}

impl Config {
    /// Drop the key and what describes it; the URL stays.
    pub(crate) fn forget_key(&mut self) {
        self.api_key = None;
        self.key_id = None;
        self.email = None;
    }
}

/// `<config dir>/studio/config.toml`, e.g. `~/.config/studio/config.toml` on Linux.
pub(crate) fn default_path() -> Result<PathBuf> {
    let dirs = directories::ProjectDirs::from("", "", "studio")
        .context("found no home directory to keep the config in; pass --config PATH or set STUDIO_CONFIG")?;
    Ok(dirs.config_dir().join("config.toml"))
}

/// Read the config file; a missing file is an empty config.
pub(crate) fn load(path: &Path) -> Result<Config> {
    let text = match fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == ErrorKind::NotFound => return Ok(Config::default()),
        Err(e) => return Err(e).with_context(|| format!("cannot read the config file {}", path.display())),
    };
    warn_if_shared(path);
    toml::from_str(&text).with_context(|| format!("the config file {} is not valid", path.display()))
}

/// Say so on stderr when others may read the key (unix only).
fn warn_if_shared(path: &Path) {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        if let Ok(meta) = fs::metadata(path)
            && meta.permissions().mode() & 0o077 != 0
        {
            eprintln!("warning: {} is readable by other users; run `chmod 600 {}`", path.display(), path.display());
        }
    }
    #[cfg(not(unix))]
    let _ = path;
}

/// Write the config file: create the directory if missing (0700), write a temporary file
/// with mode 0600 next to it, then rename it over the old one.
pub(crate) fn save(path: &Path, config: &Config) -> Result<()> {
    let Some(name) = path.file_name() else { bail!("the config path {} names no file", path.display()) };
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    create_dir(dir).with_context(|| format!("cannot create the config directory {}", dir.display()))?;
    let text = format!("{HEADER}{}", toml::to_string(config).context("cannot encode the config")?);
    let tmp = dir.join(format!(".{}.tmp-{}", name.to_string_lossy(), std::process::id()));
    let written = write_private(&tmp, text.as_bytes()).and_then(|()| fs::rename(&tmp, path));
    if let Err(e) = written {
        let _ = fs::remove_file(&tmp);
        return Err(e).with_context(|| format!("cannot write the config file {}", path.display()));
    }
    Ok(())
}

/// Create `dir` and its parents; on unix, directories created here get mode 0700.
fn create_dir(dir: &Path) -> std::io::Result<()> {
    let mut builder = fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        builder.mode(0o700);
    }
    builder.create(dir)
}

/// Write `bytes` to a new file readable and writable by its owner only.
fn write_private(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut options = fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    let mut file = options.open(path)?;
    #[cfg(unix)]
    {
        // The file may have existed (a stale temporary file) with a wider mode.
        use std::os::unix::fs::PermissionsExt;
        file.set_permissions(fs::Permissions::from_mode(0o600))?;
    }
    file.write_all(bytes)?;
    file.sync_all()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Config {
        Config {
            url: Some("http://127.0.0.1:9999".into()),
            api_key: Some("studio_sk_abc\"\\\u{7f}".into()),
            key_id: Some("key_1".into()),
            email: Some("a@example.com".into()),
        }
    }

    #[test]
    fn round_trips_and_is_private() {
        let dir = std::env::temp_dir().join(format!("studio-cli-config-test-{}", std::process::id()));
        let path = dir.join("nested").join("config.toml");
        save(&path, &sample()).unwrap();
        assert!(load(&path).unwrap() == sample());
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            assert_eq!(fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o600);
        }
        let mut config = sample();
        config.forget_key();
        save(&path, &config).unwrap();
        let text = fs::read_to_string(&path).unwrap();
        assert!(!text.contains("studio_sk_"), "{text}");
        assert!(load(&path).unwrap() == Config { url: Some("http://127.0.0.1:9999".into()), ..Config::default() });
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn missing_file_is_empty() {
        let path = std::env::temp_dir().join("studio-cli-surely-missing").join("config.toml");
        assert!(load(&path).unwrap() == Config::default());
    }
}
