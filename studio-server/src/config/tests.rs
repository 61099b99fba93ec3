//! The configuration's unit tests: precedence of the layers, each setting's checks, redaction and the signing key.

use super::*;
use std::collections::HashMap;
use studio_core::SigningKey;

#[test]
fn environment_beats_file_beats_defaults() {
    let dir = tempfile_dir();
    let file = dir.join("studio.toml");
    std::fs::write(
        &file,
        "listen = \"0.0.0.0:9000\"\nsignup_grant_tokens = 7\nadmin_emails = [\"Boss@Example.com\"]\n",
    )
    .unwrap();
    let env: HashMap<&str, &str> =
        HashMap::from([("STUDIO_SIGNUP_GRANT_TOKENS", "42"), ("STUDIO_PUBLIC_URL", "https://studio.example/")]);
    let c = ServerConfig::load(Some(&file), |k| env.get(k).map(|v| v.to_string())).unwrap();
    assert_eq!(c.listen, "0.0.0.0:9000");
    assert_eq!(c.signup_grant_tokens, 42);
    assert_eq!(c.admin_emails, vec!["boss@example.com".to_string()]);
    assert_eq!(c.public_url.as_deref(), Some("https://studio.example"));
    assert_eq!(c.data_dir, PathBuf::from("./studio-data"));
    assert!(c.database_url().starts_with("sqlite://"));
}

#[test]
fn debug_output_hides_secrets() {
    let c = ServerConfig {
        fal_key: Some("fal-secret-value".into()),
        ai_key: Some("ai-secret-value".into()),
        s3_secret_access_key: Some("s3-secret-value".into()),
        database_url: Some("postgres://user:pg-secret-value@db/studio".into()),
        ..ServerConfig::default()
    };
    let printed = format!("{c:?}");
    assert!(!printed.contains("secret-value"), "{printed}");
    assert!(printed.contains("<redacted>"));
}

#[test]
fn runner_and_fal_settings_from_the_environment() {
    let env: HashMap<&str, &str> = HashMap::from([
        ("STUDIO_RUNNER_CONCURRENCY", "4"),
        ("STUDIO_FAL_KEY", "k"),
        ("STUDIO_FAL_MODELS", "tryon=fal-ai/tryon, lookbook-video=fal-ai/video"),
    ]);
    let c = ServerConfig::load(None, |k| env.get(k).map(|v| v.to_string())).unwrap();
    assert_eq!(c.runner_concurrency, 4);
    assert_eq!(c.fal_models.get("tryon").map(String::as_str), Some("fal-ai/tryon"));
    let tools = c.providers().tools().to_vec();
    assert!(tools.contains(&"tryon".to_string()) && tools.contains(&"upscale".to_string()), "{tools:?}");
    assert!(ServerConfig::load(None, |k| (k == "STUDIO_RUNNER_LEASE_SECS").then(|| "1".to_string())).is_err());
    assert!(ServerConfig::load(None, |k| (k == "STUDIO_FAL_MODELS").then(|| "tryon".to_string())).is_err());
}

#[test]
fn the_catalog_comes_from_the_file() {
    let dir = tempfile_dir();
    let file = dir.join("catalog.toml");
    std::fs::write(
        &file,
        "[[billing_packs]]\nslug = \"pack_250\"\ntokens = 300\nprice_cents = 1200\n\n\
         [[billing_packs]]\nslug = \"pack_1000\"\ntokens = 1000\nprice_cents = 3600\nactive = false\n",
    )
    .unwrap();
    let c = ServerConfig::load(Some(&file), |_| None).unwrap();
    assert_eq!(c.billing_catalog.packs.len(), 2);
    assert_eq!((c.billing_catalog.packs[0].tokens, c.billing_catalog.packs[1].active), (300, false));
    assert_eq!(c.billing_catalog.tiers, studio_core::BillingConfig::default().tiers, "tiers keep their default");
    std::fs::write(&file, "[[billing_packs]]\nslug = \"pack_9\"\ntokens = 1\nprice_cents = 1\n").unwrap();
    assert!(ServerConfig::load(Some(&file), |_| None).is_err());
}

#[test]
fn polar_needs_its_token_and_the_webhook_secret() {
    let base: HashMap<&str, &str> = HashMap::from([
        ("STUDIO_BILLING", "polar"),
        ("STUDIO_POLAR_TOKEN", "polar_oat_x"),
        ("STUDIO_PAYMENTS_WEBHOOK_SECRET", "whsec_c2VjcmV0"),
        ("STUDIO_POLAR_PRODUCTS", "pack_250=prod_1,studio=prod_2"),
    ]);
    let c = ServerConfig::load(None, |k| base.get(k).map(|v| v.to_string())).unwrap();
    assert_eq!(c.payments().map(|p| p.name()), Some("polar"));
    assert_eq!(c.polar_products.get("pack_250").map(String::as_str), Some("prod_1"));
    assert!(!format!("{c:?}").contains("polar_oat_x"));
    let without_token = |k: &str| base.get(k).filter(|_| k != "STUDIO_POLAR_TOKEN").map(|v| v.to_string());
    assert!(ServerConfig::load(None, without_token).is_err());
}

#[test]
fn billing_is_off_unless_configured() {
    let c = ServerConfig::load(None, |_| None).unwrap();
    assert!(c.payments().is_none() && c.core_config().payments.is_none(), "no provider by default");
    let env: HashMap<&str, &str> =
        HashMap::from([("STUDIO_BILLING", "test"), ("STUDIO_PAYMENTS_WEBHOOK_SECRET", "whsec_c2VjcmV0")]);
    let test = ServerConfig::load(None, |k| env.get(k).map(|v| v.to_string())).unwrap();
    assert_eq!(test.payments().map(|p| p.name()), Some("test"));
    assert_eq!(test.payments().map(|p| p.webhook_secret().to_string()).as_deref(), Some("whsec_c2VjcmV0"));
    assert!(!format!("{test:?}").contains("whsec_c2VjcmV0"));
    assert!(ServerConfig::load(None, |k| (k == "STUDIO_BILLING").then(|| "paypal".to_string())).is_err());
}

#[test]
fn the_listen_address_says_whether_host_is_checked() {
    let listening = |listen: &str| ServerConfig { listen: listen.to_string(), ..ServerConfig::default() };
    for listen in ["127.0.0.1:8787", "127.0.0.1:0", "127.9.9.9:80", "[::1]:8787", "localhost:8787", "LOCALHOST:1"] {
        assert!(listening(listen).listens_on_loopback(), "{listen} is loopback");
    }
    for listen in ["0.0.0.0:8787", "[::]:8787", "10.0.0.5:8787", "studio.example:8787"] {
        assert!(!listening(listen).listens_on_loopback(), "{listen} is not loopback");
    }
    assert!(ServerConfig::default().listens_on_loopback(), "the default listen address is loopback");
}

#[test]
fn test_mode_runs_only_on_loopback_unless_told_otherwise() {
    let load = |pairs: &[(&str, &str)]| {
        let env: HashMap<String, String> = pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        ServerConfig::load(None, move |k| env.get(k).cloned())
    };
    let test = ("STUDIO_BILLING", "test");
    for url in ["http://127.0.0.1:8787", "http://localhost:9000/", "http://[::1]:8787", "https://127.8.0.1"] {
        assert!(load(&[test, ("STUDIO_PUBLIC_URL", url)]).is_ok(), "{url} is loopback");
    }
    assert!(load(&[test]).is_ok(), "the default listen address is loopback");
    for url in ["https://studio.example", "http://10.0.0.5:8787", "http://user@studio.example", "http://[2001:db8::1]"]
    {
        let refused = load(&[test, ("STUDIO_PUBLIC_URL", url)]);
        assert!(matches!(refused, Err(ConfigError::Env("STUDIO_BILLING=test", _))), "{url} is refused");
        assert!(load(&[test, ("STUDIO_PUBLIC_URL", url), ("STUDIO_BILLING_TEST_ANYWHERE", "1")]).is_ok());
    }
    assert!(load(&[test, ("STUDIO_LISTEN", "0.0.0.0:8787")]).is_err(), "every interface is not loopback");
    assert!(load(&[("STUDIO_PUBLIC_URL", "https://studio.example")]).is_ok(), "off needs no loopback");
}

#[test]
fn bad_values_are_refused() {
    assert!(ServerConfig::load(None, |k| (k == "STUDIO_SIGNUP_GRANT_TOKENS").then(|| "lots".to_string())).is_err());
    assert!(ServerConfig::load(None, |k| (k == "STUDIO_PUBLIC_URL").then(|| "studio.example".to_string())).is_err());
    let dir = tempfile_dir();
    let file = dir.join("bad.toml");
    std::fs::write(&file, "lisen = 1").unwrap();
    assert!(matches!(ServerConfig::load(Some(&file), |_| None), Err(ConfigError::Parse(..))));
}

#[test]
fn ai_settings_come_all_three_or_none() {
    let none = ServerConfig::load(None, |_| None).unwrap();
    assert!(none.ai_config().is_none() && none.core_config().ai.is_none());

    let env: HashMap<&str, &str> = HashMap::from([
        ("STUDIO_AI_URL", "https://ai.example/v1/"),
        ("STUDIO_AI_KEY", "sk-env"),
        ("STUDIO_AI_MODEL", "vision-1"),
    ]);
    let c = ServerConfig::load(None, |k| env.get(k).map(|v| v.to_string())).unwrap();
    let ai = c.core_config().ai.expect("configured");
    assert_eq!(
        (ai.base_url.as_str(), ai.key.as_str(), ai.model.as_str()),
        ("https://ai.example/v1", "sk-env", "vision-1")
    );
    let printed = format!("{c:?} {ai:?}");
    assert!(!printed.contains("sk-env"), "{printed}");

    // The file names them ai_url, ai_key, ai_model; the environment wins.
    let dir = tempfile_dir();
    let file = dir.join("ai.toml");
    std::fs::write(&file, "ai_url = \"http://127.0.0.1:8080/v1\"\nai_key = \"\"\nai_model = \"local\"\n").unwrap();
    let from_file = ServerConfig::load(Some(&file), |_| None).unwrap().ai_config().expect("configured");
    assert_eq!((from_file.base_url.as_str(), from_file.key.as_str()), ("http://127.0.0.1:8080/v1", ""));
    let env_model = ServerConfig::load(Some(&file), |k| (k == "STUDIO_AI_MODEL").then(|| "other".to_string()));
    assert_eq!(env_model.unwrap().ai_config().expect("configured").model, "other");

    // Some but not all, or a URL that is not http(s): refused.
    for partial in [&["STUDIO_AI_URL"][..], &["STUDIO_AI_KEY", "STUDIO_AI_MODEL"], &["STUDIO_AI_MODEL"]] {
        let only: HashMap<&str, &str> =
            env.iter().filter(|(k, _)| partial.contains(k)).map(|(k, v)| (*k, *v)).collect();
        assert!(ServerConfig::load(None, |k| only.get(k).map(|v| v.to_string())).is_err(), "{partial:?}");
    }
    let mut bad = env.clone();
    bad.insert("STUDIO_AI_URL", "ai.example");
    assert!(ServerConfig::load(None, |k| bad.get(k).map(|v| v.to_string())).is_err());
}

#[test]
fn rate_limit_settings() {
    let c = ServerConfig::load(None, |_| None).unwrap();
    assert_eq!((c.rate_limit_per_min, c.rate_limit_burst, c.trust_forwarded), (30, 10, false));
    let env: HashMap<&str, &str> = HashMap::from([
        ("STUDIO_RATE_LIMIT_PER_MIN", "0"),
        ("STUDIO_RATE_LIMIT_BURST", "0"),
        ("STUDIO_TRUST_FORWARDED", "TRUE"),
    ]);
    let off = ServerConfig::load(None, |k| env.get(k).map(|v| v.to_string())).unwrap();
    assert_eq!((off.rate_limit_per_min, off.trust_forwarded), (0, true), "0 turns the limit off");
    let dir = tempfile_dir();
    let file = dir.join("limits.toml");
    std::fs::write(&file, "rate_limit_per_min = 120\nrate_limit_burst = 40\ntrust_forwarded = true\n").unwrap();
    let from_file = ServerConfig::load(Some(&file), |_| None).unwrap();
    assert_eq!((from_file.rate_limit_per_min, from_file.rate_limit_burst, from_file.trust_forwarded), (120, 40, true));
    let bad = |name: &'static str, value: &'static str| {
        ServerConfig::load(None, move |k| (k == name).then(|| value.to_string())).is_err()
    };
    assert!(bad("STUDIO_RATE_LIMIT_BURST", "0"), "no burst while the limit is on");
    assert!(bad("STUDIO_RATE_LIMIT_PER_MIN", "-1"));
    assert!(bad("STUDIO_TRUST_FORWARDED", "maybe"));
}

#[test]
fn mail_settings() {
    let none = ServerConfig::load(None, |_| None).unwrap();
    assert!(none.mailer().unwrap().is_none(), "no SMTP by default: letters are archived only");
    assert_eq!(none.core_config().mail.link_base, "http://127.0.0.1:8787", "links default to the listen address");
    assert!(none.core_config().mail.webhook_secret.is_none());
    let env: HashMap<&str, &str> = HashMap::from([
        ("STUDIO_SMTP_URL", "smtps://ada:pa55word@mail.example.com"),
        ("STUDIO_MAIL_FROM", "Studio <studio@example.com>"),
        ("STUDIO_MAIL_WEBHOOK_SECRET", "whsec_bWFpbA=="),
        ("STUDIO_PUBLIC_URL", "https://studio.example/"),
    ]);
    let c = ServerConfig::load(None, |k| env.get(k).map(|v| v.to_string())).unwrap();
    assert_eq!(
        c.mailer().unwrap().map(|m| m.server().to_string()).as_deref(),
        Some("smtps://ada:***@mail.example.com")
    );
    let core = c.core_config();
    assert_eq!(
        (core.mail.link_base.as_str(), core.mail.webhook_secret.as_deref()),
        ("https://studio.example", Some("whsec_bWFpbA=="))
    );
    let printed = format!("{c:?}");
    assert!(!printed.contains("pa55word") && !printed.contains("bWFpbA"), "{printed}");
    let without_from = |k: &str| env.get(k).filter(|_| k != "STUDIO_MAIL_FROM").map(|v| v.to_string());
    assert!(ServerConfig::load(None, without_from).is_err(), "a sender is required with SMTP");
    let bad_url = |k: &str| {
        if k == "STUDIO_SMTP_URL" { Some("mail.example.com".to_string()) } else { env.get(k).map(|v| v.to_string()) }
    };
    assert!(ServerConfig::load(None, bad_url).is_err());
    let dir = tempfile_dir();
    let file = dir.join("mail.toml");
    std::fs::write(&file, "smtp_url = \"smtp://127.0.0.1:2525\"\nmail_from = \"studio@example.com\"\n").unwrap();
    assert!(ServerConfig::load(Some(&file), |_| None).unwrap().mailer().unwrap().is_some());
}

fn tempfile_dir() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("studio-config-{}", uuid::Uuid::new_v4()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn the_signing_key_is_configured_or_generated_once_in_the_data_dir() {
    let dir = tempfile::tempdir().unwrap();
    let c = ServerConfig { data_dir: dir.path().join("data"), ..ServerConfig::default() };
    let first = c.signing_key().expect("generated");
    let path = c.data_dir.join("signing.key");
    let kept = std::fs::read_to_string(&path).expect("kept in the data dir");
    assert_eq!(kept.trim().len(), 64, "32 random bytes as hex");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o600);
    }
    assert_eq!(c.signing_key().expect("read again"), first, "generated once, then reused");
    let set = ServerConfig { signing_key: Some("k".repeat(40)), ..c.clone() };
    assert_ne!(set.signing_key().expect("configured"), first, "STUDIO_SIGNING_KEY wins over the file");
    let short = ServerConfig { signing_key: Some("short".into()), ..c };
    assert!(matches!(short.signing_key(), Err(ConfigError::Env("STUDIO_SIGNING_KEY", _))));
}

#[test]
fn processes_starting_together_share_one_whole_signing_key() {
    for _ in 0..20 {
        let dir = tempfile::tempdir().unwrap();
        let c = ServerConfig { data_dir: dir.path().join("data"), ..ServerConfig::default() };
        let keys: Vec<SigningKey> = std::thread::scope(|s| {
            let starts: Vec<_> = (0..8).map(|_| s.spawn(|| c.signing_key().expect("whole key"))).collect();
            starts.into_iter().map(|t| t.join().unwrap()).collect()
        });
        assert!(keys.windows(2).all(|w| w[0] == w[1]), "every start uses the one key published");
        let names: Vec<_> = std::fs::read_dir(&c.data_dir).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(names, vec![std::ffi::OsString::from("signing.key")], "no temporary file is left");
    }
}

#[test]
fn content_credentials_are_generated_once_in_the_data_dir_or_configured() {
    let dir = tempfile::tempdir().unwrap();
    let c = ServerConfig { data_dir: dir.path().join("data"), ..ServerConfig::default() };
    let first = c.content_credentials().expect("generated");
    assert!(first.is_local());
    let path = c.data_dir.join("content-credentials.pem");
    let kept = std::fs::read_to_string(&path).expect("kept in the data dir");
    assert_eq!(kept.matches("BEGIN CERTIFICATE").count(), 2, "the signing certificate and its CA");
    assert_eq!(kept.matches("BEGIN PRIVATE KEY").count(), 1, "the signing key only; the CA's is not kept");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o600);
    }
    let again = c.content_credentials().expect("read again");
    assert_eq!(again.trust_anchor(), first.trust_anchor(), "generated once, then reused");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), kept);

    // Configured: the files named win; a key of another certificate, or one path alone, is refused.
    let mine = studio_core::provenance::generate_local_authority("Maison").unwrap();
    let other = studio_core::provenance::generate_local_authority("Other").unwrap();
    let write = |name: &str, text: &str| {
        let p = dir.path().join(name);
        std::fs::write(&p, text).unwrap();
        p.to_string_lossy().into_owned()
    };
    let (cert, key, wrong) =
        (write("chain.pem", &mine.chain_pem), write("key.pem", &mine.key_pem), write("other.pem", &other.key_pem));
    let env: HashMap<&str, String> = HashMap::from([("STUDIO_C2PA_CERT", cert.clone()), ("STUDIO_C2PA_KEY", key)]);
    let set = ServerConfig::load(None, |k| env.get(k).cloned()).unwrap();
    let set = ServerConfig { data_dir: c.data_dir.clone(), ..set };
    let configured = set.content_credentials().expect("configured");
    assert!(!configured.is_local());
    assert_ne!(configured.trust_anchor(), first.trust_anchor(), "the configured chain, not the data dir's");
    let mismatched = ServerConfig { c2pa_key: Some(wrong), ..set.clone() };
    let refused = mismatched.content_credentials().expect_err("a key of another certificate");
    assert!(matches!(&refused, ConfigError::Credentials(why) if why.contains("cannot sign")), "{refused}");
    let alone = ServerConfig { c2pa_key: None, ..set.clone() };
    assert!(matches!(alone.content_credentials(), Err(ConfigError::Env("STUDIO_C2PA_KEY", _))));
    let missing = ServerConfig { c2pa_cert: Some(dir.path().join("nope.pem").to_string_lossy().into()), ..set };
    assert!(matches!(missing.content_credentials(), Err(ConfigError::Credentials(why)) if why.contains("cannot read")));
}
