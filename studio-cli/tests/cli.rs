//! The `studio` CLI end to end: the real binary, run as a child process, against a real server
//! on SQLite, with a temporary config file per test.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use studio_core::api::{Balance, SeatRole, SessionInfo};
use studio_tests::{Backend, TestApp, spawn, unique_email};

const PASSWORD: &str = "correct horse battery";

/// The `studio` binary cargo built for this test target.
fn studio_bin() -> &'static Path {
    Path::new(env!("CARGO_BIN_EXE_studio"))
}

/// One finished `studio` run.
#[derive(Debug)]
struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

/// A temporary config location and how to run `studio` with it.
struct Cli {
    _dir: tempfile::TempDir,
    config: PathBuf,
}

impl Cli {
    fn new() -> Cli {
        let dir = tempfile::tempdir().expect("temp dir");
        // A directory that does not exist yet: `studio` creates it.
        let config = dir.path().join("studio").join("config.toml");
        Cli { _dir: dir, config }
    }

    /// `studio --config <temp> ARGS`, with no STUDIO_* variables but `env`, and `stdin` piped in.
    async fn run_with(&self, args: &[&str], env: &[(&str, &str)], stdin: Option<&str>) -> Run {
        let mut cmd = Command::new(studio_bin());
        cmd.arg("--config").arg(&self.config).args(args);
        for var in ["STUDIO_URL", "STUDIO_API_KEY", "STUDIO_CONFIG", "STUDIO_PASSWORD"] {
            cmd.env_remove(var);
        }
        cmd.envs(env.iter().copied()).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
        let stdin = stdin.unwrap_or_default().to_string();
        // The server runs on this runtime: wait for the child on a blocking thread.
        tokio::task::spawn_blocking(move || {
            let mut child = cmd.spawn().expect("spawn studio");
            child.stdin.take().expect("stdin").write_all(stdin.as_bytes()).expect("write stdin");
            let out = child.wait_with_output().expect("wait for studio");
            Run {
                code: out.status.code().expect("studio exited normally"),
                stdout: String::from_utf8(out.stdout).expect("utf-8 stdout"),
                stderr: String::from_utf8(out.stderr).expect("utf-8 stderr"),
            }
        })
        .await
        .expect("join")
    }

    async fn run(&self, args: &[&str]) -> Run {
        self.run_with(args, &[], None).await
    }

    /// A `key = "value"` line of the config file.
    fn value(&self, field: &str) -> Option<String> {
        let text = std::fs::read_to_string(&self.config).ok()?;
        let start = format!("{field} = \"");
        text.lines().find_map(|l| l.strip_prefix(start.as_str())?.strip_suffix('"').map(str::to_string))
    }

    async fn signup(&self, app: &TestApp, email: &str) -> String {
        let run = self.run(&["signup", "--url", &app.base, "--email", email, "--password", PASSWORD]).await;
        assert_eq!(run.code, 0, "{run:?}");
        self.value("api_key").expect("a key in the config")
    }
}

async fn app() -> TestApp {
    spawn(Backend::Sqlite, |_| {}).await.expect("sqlite app")
}

/// A key minted through the API for a new person; (email, key).
async fn minted_key(app: &TestApp, tag: &str) -> (String, String) {
    let email = unique_email(tag);
    let signed = app.client.sign_up(&email, PASSWORD, None).await.expect("sign up");
    let key = app.client.with_session(&signed.session).mint_key("from the API", None).await.expect("mint");
    (email, key.key.expect("secret"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn signup_writes_a_private_config_and_balance_reads_back() {
    let app = app().await;
    let cli = Cli::new();
    let email = unique_email("cli-signup");
    let run =
        cli.run(&["signup", "--url", &app.base, "--email", &email, "--password", PASSWORD, "--name", "Ada"]).await;
    assert_eq!(run.code, 0, "{run:?}");
    assert!(run.stdout.contains(&format!("Signed up {email} (Ada)")), "{run:?}");
    assert!(run.stdout.contains("House: Ada's house"), "{run:?}");
    assert!(run.stdout.contains("Tokens: 100 spendable"), "{run:?}");

    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&cli.config).expect("config written").permissions().mode();
        assert_eq!(mode & 0o777, 0o600, "config mode {mode:o}");
    }
    let key = cli.value("api_key").expect("api_key in the config");
    assert!(key.starts_with("studio_sk_"), "{key}");
    assert_eq!(cli.value("url").as_deref(), Some(app.base.as_str()));
    assert_eq!(cli.value("email").as_deref(), Some(email.as_str()));
    assert!(cli.value("key_id").expect("key_id").starts_with("key_"));

    let run = cli.run(&["balance", "--json"]).await;
    assert_eq!(run.code, 0, "{run:?}");
    let balance: Balance = serde_json::from_str(run.stdout.trim()).expect("balance JSON");
    assert_eq!(balance, Balance { balance: 100, grant: 100, topup: 0, held: 0, holds: vec![] });
    assert_eq!(app.client.with_api_key(&key).balance().await.expect("balance with the stored key"), balance);

    let run = cli.run(&["balance"]).await;
    assert_eq!(run.code, 0, "{run:?}");
    assert!(run.stdout.starts_with("Balance: 100 tokens spendable\n"), "{run:?}");
    assert!(run.stdout.contains("Open holds: none"), "{run:?}");

    // The same email again: 409 EMAIL_TAKEN, exit 1, and the stored key is untouched.
    let run = cli.run(&["signup", "--email", &email, "--password", PASSWORD]).await;
    assert_eq!(run.code, 1, "{run:?}");
    assert!(run.stderr.contains("error: EMAIL_TAKEN: "), "{run:?}");
    assert!(run.stderr.contains("studio login"), "{run:?}");
    assert_eq!(cli.value("api_key"), Some(key));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn login_with_a_wrong_password_exits_3() {
    let app = app().await;
    let cli = Cli::new();
    let email = unique_email("cli-login");
    app.client.sign_up(&email, PASSWORD, None).await.expect("sign up");

    let run = cli.run(&["login", "--url", &app.base, "--email", &email, "--password", "not the password"]).await;
    assert_eq!(run.code, 3, "{run:?}");
    assert!(run.stderr.contains("error: BAD_CREDENTIALS: "), "{run:?}");
    assert!(!cli.config.exists(), "nothing stored after a refused login");

    // The password from STUDIO_PASSWORD this time.
    let run =
        cli.run_with(&["login", "--url", &app.base, "--email", &email], &[("STUDIO_PASSWORD", PASSWORD)], None).await;
    assert_eq!(run.code, 0, "{run:?}");
    assert!(cli.value("api_key").expect("key stored").starts_with("studio_sk_"));
    assert_eq!(cli.value("url").as_deref(), Some(app.base.as_str()));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn whoami_json_shows_the_email() {
    let app = app().await;
    let cli = Cli::new();
    let email = unique_email("cli-whoami");
    let signed = app.client.sign_up(&email, PASSWORD, Some("Wes")).await.expect("sign up");

    // The password as a line on stdin; a viewer key.
    let line = format!("{PASSWORD}\n");
    let args: &[&str] = &["login", "--url", &app.base, "--email", &email, "--role", "viewer", "--key-name", "ci box"];
    let run = cli.run_with(args, &[], Some(&line)).await;
    assert_eq!(run.code, 0, "{run:?}");
    assert!(run.stdout.contains("\"ci box\""), "{run:?}");

    let run = cli.run(&["whoami", "--json"]).await;
    assert_eq!(run.code, 0, "{run:?}");
    let who: SessionInfo = serde_json::from_str(run.stdout.trim()).expect("session JSON");
    assert_eq!(who.user.email, email);
    assert_eq!(who.user.name.as_deref(), Some("Wes"));
    assert_eq!(who.organization.id, signed.account.organization.id);
    assert_eq!(who.role, SeatRole::Viewer);

    let run = cli.run(&["whoami"]).await;
    assert_eq!(run.code, 0, "{run:?}");
    assert!(run.stdout.starts_with(&format!("{email} (Wes)\n")), "{run:?}");
    assert!(run.stdout.contains("Role:   viewer"), "{run:?}");

    // The login session was signed out; only the key remains.
    let keys = app.client.with_session(&signed.session).list_keys().await.expect("list keys");
    assert_eq!(keys.keys.iter().map(|k| k.name.as_str()).collect::<Vec<_>>(), ["ci box"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn logout_then_balance_exits_3() {
    let app = app().await;
    let cli = Cli::new();
    let key = cli.signup(&app, &unique_email("cli-logout")).await;

    let run = cli.run(&["logout"]).await;
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(cli.value("api_key"), None);
    assert_eq!(cli.value("url").as_deref(), Some(app.base.as_str()), "the URL stays");

    let run = cli.run(&["balance"]).await;
    assert_eq!(run.code, 3, "{run:?}");
    assert!(run.stderr.contains("error: not signed in"), "{run:?}");
    assert!(run.stderr.contains("studio login"), "{run:?}");
    assert_eq!(run.stdout, "");

    // Plain logout revokes nothing: the key still works on the server.
    assert_eq!(app.client.with_api_key(&key).balance().await.expect("key still valid").balance, 100);
    // A second logout has nothing to forget.
    let run = cli.run(&["logout"]).await;
    assert_eq!(run.code, 0, "{run:?}");
    assert!(run.stdout.contains("nothing to forget"), "{run:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn logout_revoke_needs_a_session() {
    let app = app().await;
    let cli = Cli::new();
    let email = unique_email("cli-revoke");
    let key = cli.signup(&app, &email).await;

    // With only a key: it says it cannot revoke, forgets locally, and the key stays valid.
    let run = cli.run(&["logout", "--revoke"]).await;
    assert_eq!(run.code, 0, "{run:?}");
    assert!(run.stderr.contains("not revoked"), "{run:?}");
    assert_eq!(cli.value("api_key"), None);
    assert_eq!(app.client.with_api_key(&key).balance().await.expect("key still valid").balance, 100);

    // Store it again, then revoke it through a signed-in session.
    let run = cli.run(&["login", "--api-key", &key]).await;
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(cli.value("api_key").as_deref(), Some(key.as_str()));
    let run = cli.run(&["logout", "--revoke", "--email", &email, "--password", PASSWORD]).await;
    assert_eq!(run.code, 0, "{run:?}");
    assert!(run.stdout.contains("Revoked key key_"), "{run:?}");
    assert_eq!(cli.value("api_key"), None);
    let err = app.client.with_api_key(&key).balance().await.expect_err("revoked key refused");
    assert_eq!(err.status(), Some(401));

    // Storing the revoked key is refused with 401: exit 3.
    let run = cli.run(&["login", "--api-key", &key]).await;
    assert_eq!(run.code, 3, "{run:?}");
    assert!(run.stderr.contains("error: UNAUTHORIZED: "), "{run:?}");
    assert_eq!(cli.value("api_key"), None);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn api_key_env_overrides_the_config() {
    let app = app().await;
    let cli = Cli::new();
    let email_a = unique_email("cli-config");
    cli.signup(&app, &email_a).await;
    let (email_b, key_b) = minted_key(&app, "cli-env").await;

    let whoami = |run: Run| -> String {
        assert_eq!(run.code, 0, "{run:?}");
        serde_json::from_str::<SessionInfo>(run.stdout.trim()).expect("session JSON").user.email
    };
    assert_eq!(whoami(cli.run(&["whoami", "--json"]).await), email_a);
    assert_eq!(whoami(cli.run_with(&["whoami", "--json"], &[("STUDIO_API_KEY", &key_b)], None).await), email_b);
    assert_eq!(whoami(cli.run(&["whoami", "--json", "--api-key", &key_b]).await), email_b);
    let run = cli.run_with(&["whoami"], &[("STUDIO_API_KEY", &key_b)], None).await;
    assert!(run.stdout.contains("Key:    from STUDIO_API_KEY"), "{run:?}");

    // A bad key in the environment wins over the good one in the file: 401, exit 3.
    let run = cli.run_with(&["balance"], &[("STUDIO_API_KEY", "studio_sk_nonsense")], None).await;
    assert_eq!(run.code, 3, "{run:?}");
    assert!(run.stderr.contains("error: UNAUTHORIZED: "), "{run:?}");

    // STUDIO_URL overrides the file's URL too: nothing listens on port 9 here.
    let run = cli.run_with(&["balance"], &[("STUDIO_URL", "http://127.0.0.1:9")], None).await;
    assert_eq!(run.code, 1, "{run:?}");
    assert!(run.stderr.contains("http://127.0.0.1:9"), "{run:?}");

    // Logging in with the environment's key stores it.
    let run = cli.run_with(&["login"], &[("STUDIO_API_KEY", &key_b)], None).await;
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(cli.value("api_key"), Some(key_b));
    assert_eq!(cli.value("email"), Some(email_b.clone()));
    assert_eq!(whoami(cli.run(&["whoami", "--json"]).await), email_b);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn usage_errors_exit_2() {
    let cli = Cli::new();
    let run = cli.run(&["login"]).await;
    assert_eq!(run.code, 2, "{run:?}");
    assert!(run.stderr.contains("--email"), "{run:?}");
    let run = cli.run(&["balance", "--no-such-flag"]).await;
    assert_eq!(run.code, 2, "{run:?}");
    let run = cli.run(&["--help"]).await;
    assert_eq!(run.code, 0, "{run:?}");
    assert!(run.stdout.contains("Exit codes:"), "{run:?}");
    assert!(run.stdout.contains("4  insufficient tokens"), "{run:?}");
}
