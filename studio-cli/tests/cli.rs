//! The `studio` CLI end to end: the real binary, run as a child process, against a real server
//! on SQLite, with a temporary config file per test.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use studio_core::api::{Asset, AssetKind, AssetList, Balance, FolderList, FolderResponse, Pack, SeatRole, SessionInfo};
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
        self.exec(args, env, stdin, None).await
    }

    /// `studio --config <temp> ARGS` run from the directory `cwd`.
    async fn run_in(&self, cwd: &Path, args: &[&str]) -> Run {
        self.exec(args, &[], None, Some(cwd)).await
    }

    async fn exec(&self, args: &[&str], env: &[(&str, &str)], stdin: Option<&str>, cwd: Option<&Path>) -> Run {
        let mut cmd = Command::new(studio_bin());
        cmd.arg("--config").arg(&self.config).args(args);
        if let Some(dir) = cwd {
            cmd.current_dir(dir);
        }
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
    assert!(run.stdout.contains("4    insufficient tokens"), "{run:?}");
}

/// A small PNG of `w`x`h` at `path`, creating the directories on the way.
fn write_png(path: &Path, w: u32, h: u32) {
    std::fs::create_dir_all(path.parent().expect("a parent")).expect("create dirs");
    let img = image::RgbImage::from_fn(w, h, |x, y| image::Rgb([(x * 40) as u8, (y * 40) as u8, 90]));
    img.save_with_format(path, image::ImageFormat::Png).expect("write png");
}

/// A file of `text` at `path`, creating the directories on the way.
fn write_text(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().expect("a parent")).expect("create dirs");
    std::fs::write(path, text).expect("write text");
}

fn utf8(path: &Path) -> &str {
    path.to_str().expect("a UTF-8 temp path")
}

/// `studio assets ls --json [--folder ID]`, parsed.
async fn listed(cli: &Cli, folder: Option<&str>) -> AssetList {
    let mut args = vec!["assets", "ls", "--json"];
    args.extend(folder.map(|f| ["--folder", f]).into_iter().flatten());
    let run = cli.run(&args).await;
    assert_eq!(run.code, 0, "{run:?}");
    serde_json::from_str(run.stdout.trim()).expect("asset list JSON")
}

/// The names of a listing, sorted.
fn names(list: &AssetList) -> Vec<String> {
    let mut names: Vec<String> = list.assets.iter().map(|a| a.name.clone()).collect();
    names.sort();
    names
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn upload_a_directory_carries_on_past_a_bad_file() {
    let app = app().await;
    let cli = Cli::new();
    cli.signup(&app, &unique_email("cli-upload")).await;
    let files = tempfile::tempdir().expect("temp dir");
    let dir = files.path().join("looks");
    write_png(&dir.join("a.png"), 4, 3);
    write_png(&dir.join("sub").join("b.png"), 5, 2);
    write_text(&dir.join("bad.png"), "not an image at all");
    // Hidden entries are skipped: were they sent, they would fail too.
    write_text(&dir.join(".hidden.png"), "not an image either");
    write_text(&dir.join(".cache").join("c.png"), "nor this");

    let run = cli.run(&["upload", utf8(&dir)]).await;
    assert_eq!(run.code, 1, "{run:?}");
    let bad = dir.join("bad.png");
    assert!(run.stderr.contains(&format!("{}: UNSUPPORTED_TYPE: ", bad.display())), "{run:?}");
    assert!(run.stderr.contains("error: 1 of 3 not uploaded"), "{run:?}");
    assert!(!run.stderr.contains("hidden") && !run.stderr.contains("c.png"), "{run:?}");
    assert!(run.stdout.contains(&format!("{}  ", dir.join("a.png").display())), "{run:?}");
    assert!(run.stdout.contains("Uploaded 2 files of 3."), "{run:?}");
    // No terminal: no progress bar drawn.
    assert!(!run.stderr.contains("1/3") && !run.stderr.contains("3/3"), "{run:?}");

    let list = listed(&cli, None).await;
    assert_eq!(names(&list), ["a", "b"]);
    for asset in &list.assets {
        let (w, h) = if asset.name == "a" { (4, 3) } else { (5, 2) };
        assert_eq!((asset.width, asset.height), (Some(w), Some(h)), "{asset:?}");
        assert_eq!(asset.mime, "image/png");
        assert_eq!(asset.kind, AssetKind::Clothes);
        assert_eq!((asset.folder_id.as_deref(), asset.sku.as_deref()), (None, None));
    }
    // --limit pages newest first; --json gives the cursor that --cursor follows.
    let run = cli.run(&["assets", "ls", "--limit", "1", "--json"]).await;
    assert_eq!(run.code, 0, "{run:?}");
    let first: AssetList = serde_json::from_str(run.stdout.trim()).expect("asset page JSON");
    assert_eq!(first.assets.len(), 1);
    assert_eq!(first.assets[0].id, list.assets[0].id, "the newest first");
    let cursor = first.next_cursor.clone().expect("one more after the first page");
    let run = cli.run(&["assets", "ls", "--limit", "1", "--cursor", &cursor, "--json"]).await;
    assert_eq!(run.code, 0, "{run:?}");
    let second: AssetList = serde_json::from_str(run.stdout.trim()).unwrap();
    assert_eq!(second.assets.iter().map(|a| &a.id).collect::<Vec<_>>(), [&list.assets[1].id]);
    assert_eq!(second.next_cursor, None, "the last page");
    let run = cli.run(&["assets", "ls", "--limit", "0"]).await;
    assert_eq!(run.code, 2, "a limit out of range is a usage error: {run:?}");
    let run = cli.run(&["assets", "ls", "--cursor", &cursor]).await;
    assert_eq!(run.code, 2, "--cursor needs --limit: {run:?}");

    let run = cli.run(&["assets", "ls"]).await;
    assert_eq!(run.code, 0, "{run:?}");
    assert!(run.stdout.starts_with("ID "), "{run:?}");
    assert!(run.stdout.contains("CREATED (UTC)"), "{run:?}");
    for asset in &list.assets {
        let size = format!("{}x{}", asset.width.unwrap(), asset.height.unwrap());
        let row = run.stdout.lines().find(|l| l.starts_with(&asset.id)).expect("a row per asset");
        assert!(row.contains(" clothes ") && row.contains(&size), "{row}");
    }

    // --json with --kind and --sku; a missing path fails on this side and the rest goes on.
    let missing = files.path().join("missing.png");
    let a_png = dir.join("a.png");
    let args = ["upload", "--json", "--kind", "jewelry", "--sku", "RING-7", utf8(&a_png), utf8(&missing)];
    let run = cli.run(&args).await;
    assert_eq!(run.code, 1, "{run:?}");
    let report: serde_json::Value = serde_json::from_str(run.stdout.trim()).expect("upload JSON");
    let uploaded: Vec<Asset> = serde_json::from_value(report["uploaded"].clone()).expect("assets");
    assert_eq!(uploaded.len(), 1, "{report}");
    assert_eq!((uploaded[0].name.as_str(), uploaded[0].kind), ("a", AssetKind::Jewelry));
    assert_eq!(uploaded[0].sku.as_deref(), Some("RING-7"));
    let failed = report["failed"].as_array().expect("failed");
    assert_eq!(failed.len(), 1, "{report}");
    assert_eq!(failed[0]["path"], utf8(&missing));
    assert_eq!(failed[0]["error"], "NOT_FOUND");
    assert!(run.stderr.contains(&format!("{}: NOT_FOUND: ", missing.display())), "{run:?}");
    assert_eq!(listed(&cli, None).await.assets.len(), 3);

    // An unknown key: the first upload's 401 stops the run with exit 3.
    let run = cli.run_with(&["upload", utf8(&dir)], &[("STUDIO_API_KEY", "studio_sk_nonsense")], None).await;
    assert_eq!(run.code, 3, "{run:?}");
    assert!(run.stderr.contains("error: UNAUTHORIZED: "), "{run:?}");
    assert!(!run.stderr.contains("bad.png"), "stopped before the other files: {run:?}");
    assert_eq!(listed(&cli, None).await.assets.len(), 3);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn folders_narrow_uploads_and_rename() {
    let app = app().await;
    let cli = Cli::new();
    cli.signup(&app, &unique_email("cli-folders")).await;
    let files = tempfile::tempdir().expect("temp dir");
    write_png(&files.path().join("root.png"), 3, 3);
    write_png(&files.path().join("gown.png"), 2, 6);

    let made = |run: Run| -> FolderResponse {
        assert_eq!(run.code, 0, "{run:?}");
        serde_json::from_str(run.stdout.trim()).expect("folder JSON")
    };
    let ss25 = made(cli.run(&["folders", "new", "SS25", "--json"]).await).folder;
    assert_eq!((ss25.name.as_str(), ss25.parent_id.as_deref()), ("SS25", None));
    let dresses = made(cli.run(&["folders", "new", "Dresses", "--parent", &ss25.id, "--json"]).await).folder;
    assert_eq!((dresses.name.as_str(), dresses.parent_id.as_deref()), ("Dresses", Some(ss25.id.as_str())));
    let run = cli.run(&["folders", "new", "AW25"]).await;
    assert_eq!(run.code, 0, "{run:?}");
    assert!(run.stdout.starts_with("Created collection \"AW25\" ("), "{run:?}");
    assert!(run.stdout.trim_end().ends_with(") at the root"), "{run:?}");

    let run = cli.run(&["folders", "ls", "--json"]).await;
    assert_eq!(run.code, 0, "{run:?}");
    let list: FolderList = serde_json::from_str(run.stdout.trim()).expect("folder list JSON");
    let shown: Vec<_> = list.folders.iter().map(|f| (f.name.as_str(), f.parent_id.as_deref())).collect();
    assert_eq!(shown, [("SS25", None), ("Dresses", Some(ss25.id.as_str())), ("AW25", None)]);
    let aw25 = &list.folders[2];
    let run = cli.run(&["folders", "ls"]).await;
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(run.stdout, format!("SS25  ({})\n  Dresses  ({})\nAW25  ({})\n", ss25.id, dresses.id, aw25.id));

    let run = cli.run(&["upload", utf8(&files.path().join("root.png"))]).await;
    assert_eq!(run.code, 0, "{run:?}");
    let run = cli.run(&["upload", "--folder", &dresses.id, utf8(&files.path().join("gown.png"))]).await;
    assert_eq!(run.code, 0, "{run:?}");
    assert!(run.stdout.contains("Uploaded 1 file of 1."), "{run:?}");

    let in_dresses = listed(&cli, Some(&dresses.id)).await;
    assert_eq!(names(&in_dresses), ["gown"]);
    assert_eq!(in_dresses.assets[0].folder_id.as_deref(), Some(dresses.id.as_str()));
    assert_eq!((in_dresses.assets[0].width, in_dresses.assets[0].height), (Some(2), Some(6)));
    assert_eq!(names(&listed(&cli, None).await), ["gown", "root"]);
    assert!(listed(&cli, Some(&ss25.id)).await.assets.is_empty());
    let run = cli.run(&["assets", "ls", "--folder", &ss25.id]).await;
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(run.stdout, "No assets in this collection.\n");

    // An unknown collection is refused before anything is sent.
    let run = cli.run(&["upload", "--folder", "fld_nope", utf8(files.path())]).await;
    assert_eq!(run.code, 1, "{run:?}");
    assert!(run.stderr.contains("error: NOT_FOUND: no collection fld_nope"), "{run:?}");
    assert_eq!(listed(&cli, None).await.assets.len(), 2);

    let renamed = made(cli.run(&["folders", "rename", &dresses.id, "Gowns", "--json"]).await).folder;
    assert_eq!((renamed.id.as_str(), renamed.name.as_str()), (dresses.id.as_str(), "Gowns"));
    assert_eq!(renamed.parent_id.as_deref(), Some(ss25.id.as_str()));
    let run = cli.run(&["folders", "rename", &ss25.id, "Spring 25"]).await;
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(run.stdout, format!("Renamed collection \"Spring 25\" ({}) at the root\n", ss25.id));
    let list = app.client.with_api_key(cli.value("api_key").expect("key")).list_folders().await.expect("folders");
    let names: Vec<_> = list.folders.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, ["Spring 25", "Gowns", "AW25"]);

    let run = cli.run(&["folders", "rename", "fld_nope", "X"]).await;
    assert_eq!(run.code, 1, "{run:?}");
    assert!(run.stderr.contains("error: NOT_FOUND: "), "{run:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn assets_show_and_rm() {
    let app = app().await;
    let cli = Cli::new();
    cli.signup(&app, &unique_email("cli-assets")).await;
    let files = tempfile::tempdir().expect("temp dir");
    write_png(&files.path().join("keep.png"), 3, 2);
    write_png(&files.path().join("drop.png"), 2, 2);
    let run = cli.run(&["upload", "--sku", "SKU-1", utf8(files.path())]).await;
    assert_eq!(run.code, 0, "{run:?}");
    assert!(run.stdout.contains("Uploaded 2 files of 2."), "{run:?}");
    let list = listed(&cli, None).await;
    let by_name = |name: &str| list.assets.iter().find(|a| a.name == name).expect("listed").clone();
    let (keep, drop) = (by_name("keep"), by_name("drop"));

    let run = cli.run(&["assets", "show", &keep.id, "--json"]).await;
    assert_eq!(run.code, 0, "{run:?}");
    let shown: serde_json::Value = serde_json::from_str(run.stdout.trim()).expect("asset JSON");
    let shown: Asset = serde_json::from_value(shown["asset"].clone()).expect("an asset");
    assert_eq!(shown, keep);
    let run = cli.run(&["assets", "show", &keep.id]).await;
    assert_eq!(run.code, 0, "{run:?}");
    assert!(run.stdout.starts_with(&format!("{}  \"keep\"\n", keep.id)), "{run:?}");
    assert!(run.stdout.contains("  sku         SKU-1\n"), "{run:?}");
    assert!(run.stdout.contains(&format!("  size        3x2, {} bytes\n", keep.bytes)), "{run:?}");
    assert!(run.stdout.contains("Origin:  uploaded\n"), "{run:?}");

    // Download: into a directory (named after the asset) and to a file name; bytes as uploaded.
    let out = tempfile::tempdir().expect("temp dir");
    let run = cli.run(&["assets", "get", &keep.id, "-o", utf8(out.path())]).await;
    assert_eq!(run.code, 0, "{run:?}");
    let saved = out.path().join("keep.png");
    assert_eq!(std::fs::read(&saved).expect("saved"), std::fs::read(files.path().join("keep.png")).unwrap());
    assert!(
        run.stderr.contains("Saved \"keep\" to") && run.stderr.contains(&format!("({} bytes)", keep.bytes)),
        "{run:?}"
    );
    let named = out.path().join("k.bin");
    let run = cli.run(&["assets", "get", &keep.id, "--output", utf8(&named)]).await;
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(std::fs::metadata(&named).expect("written").len() as i64, keep.bytes);
    let run = cli.run(&["assets", "get", "ast_missing", "-o", utf8(out.path())]).await;
    assert!(run.code == 1 && run.stderr.contains("error: NOT_FOUND: no asset ast_missing"), "{run:?}");
    assert_eq!(std::fs::read_dir(out.path()).unwrap().count(), 2, "a refused download leaves nothing");

    let run = cli.run(&["assets", "rm", &drop.id, "--json"]).await;
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(run.stdout.trim()).expect("JSON"),
        serde_json::json!({"deleted": 1})
    );
    let left = listed(&cli, None).await;
    assert_eq!(left.assets.iter().map(|a| a.id.as_str()).collect::<Vec<_>>(), [keep.id.as_str()]);

    // Gone: show says NOT_FOUND, a second rm deletes nothing and says so.
    let run = cli.run(&["assets", "show", &drop.id]).await;
    assert_eq!(run.code, 1, "{run:?}");
    assert!(run.stderr.contains(&format!("error: NOT_FOUND: no asset {}", drop.id)), "{run:?}");
    let run = cli.run(&["assets", "rm", &drop.id]).await;
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(run.stdout, "Deleted 0 assets\n");
    assert!(run.stderr.contains("1 id named no asset"), "{run:?}");

    let run = cli.run(&["assets", "rm", &keep.id]).await;
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(run.stdout, "Deleted 1 asset\n");
    assert!(listed(&cli, None).await.assets.is_empty());
    let run = cli.run(&["assets", "ls"]).await;
    assert_eq!(run.stdout, "No assets.\n");

    // Without a key: exit 3 before any call.
    let run = cli.run(&["logout"]).await;
    assert_eq!(run.code, 0, "{run:?}");
    let run = cli.run(&["assets", "ls"]).await;
    assert_eq!(run.code, 3, "{run:?}");
    assert!(run.stderr.contains("error: not signed in"), "{run:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn assets_mv_between_collections() {
    let app = app().await;
    let cli = Cli::new();
    cli.signup(&app, &unique_email("cli-mv")).await;
    let files = tempfile::tempdir().expect("temp dir");
    write_png(&files.path().join("coat.png"), 2, 3);
    write_png(&files.path().join("scarf.png"), 3, 1);
    let run = cli.run(&["upload", utf8(files.path())]).await;
    assert_eq!(run.code, 0, "{run:?}");
    let list = listed(&cli, None).await;
    let id_of = |name: &str| list.assets.iter().find(|a| a.name == name).expect("listed").id.clone();
    let (coat, scarf) = (id_of("coat"), id_of("scarf"));
    let run = cli.run(&["folders", "new", "Outerwear", "--json"]).await;
    assert_eq!(run.code, 0, "{run:?}");
    let outerwear = serde_json::from_str::<FolderResponse>(run.stdout.trim()).expect("folder JSON").folder.id;

    let run = cli.run(&["assets", "mv", &coat, "--folder", &outerwear]).await;
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(run.stdout, format!("Moved 1 asset to collection {outerwear}\n"));
    assert_eq!(names(&listed(&cli, Some(&outerwear)).await), ["coat"]);

    let run = cli.run(&["assets", "mv", &scarf, "--folder", &outerwear, "--json"]).await;
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(run.stdout.trim()).expect("JSON"),
        serde_json::json!({"updated": 1})
    );
    assert_eq!(names(&listed(&cli, Some(&outerwear)).await), ["coat", "scarf"]);

    // Back to the root, with an unknown id along: it is skipped and named in a note.
    let run = cli.run(&["assets", "mv", &coat, &scarf, "ast_nope", "--root"]).await;
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(run.stdout, "Moved 2 assets to the root\n");
    assert!(run.stderr.contains("note: 1 id named no asset"), "{run:?}");
    assert!(listed(&cli, Some(&outerwear)).await.assets.is_empty());
    assert!(listed(&cli, None).await.assets.iter().all(|a| a.folder_id.is_none()));

    // An unknown collection is refused; neither or both of --folder and --root is a usage error.
    let run = cli.run(&["assets", "mv", &coat, "--folder", "fld_nope"]).await;
    assert_eq!(run.code, 1, "{run:?}");
    assert!(run.stderr.contains("error: NOT_FOUND: "), "{run:?}");
    for args in [vec!["assets", "mv", coat.as_str()], vec!["assets", "mv", &coat, "--root", "--folder", &outerwear]] {
        let run = cli.run(&args).await;
        assert_eq!(run.code, 2, "{run:?}");
    }
    assert!(listed(&cli, None).await.assets.iter().all(|a| a.folder_id.is_none()));
}

/// Python's `zipfile` on `path`: `testzip()` (every entry's CRC) must find nothing wrong, and
/// unzip, 7z and bsdtar must accept it (`studio_tests::archives`); the entry names in archive
/// order, each stored (not compressed).
fn python_zip_names(path: &Path) -> Vec<String> {
    let script = "import sys, zipfile\nz = zipfile.ZipFile(sys.argv[1])\nbad = z.testzip()\nassert bad is None, bad\nfor i in z.infolist():\n    assert i.compress_type == zipfile.ZIP_STORED, i.filename\n    print(i.filename)\n";
    let out = Command::new("python3").arg("-c").arg(script).arg(path).output().expect("python3 runs");
    assert!(out.status.success(), "zipfile refused {}: {}", path.display(), String::from_utf8_lossy(&out.stderr));
    studio_tests::archives::assert_tools_accept(path);
    String::from_utf8(out.stdout).expect("utf-8 names").lines().map(str::to_string).collect()
}

/// Upload `names` as small PNGs (into `folder` when given); their ids, in the order of `names`.
async fn upload_pngs(cli: &Cli, names: &[&str], folder: Option<&str>) -> Vec<String> {
    upload_with(cli, names, folder, |path, i| write_png(path, 4 + i as u32, 3)).await
}

/// Upload one photo of a piece standing on a plain ground per name (what the cutout tools and
/// their subject gate take), returning the asset ids in order.
async fn upload_shots(cli: &Cli, names: &[&str]) -> Vec<String> {
    upload_with(cli, names, None, |path, i| write_shot(path, 96 + 8 * i as u32, 128)).await
}

/// A PNG of a dark piece standing on a plain light ground, `w` × `h`.
fn write_shot(path: &Path, w: u32, h: u32) {
    let img = image::RgbImage::from_fn(w, h, |x, y| {
        let inside = x > w / 4 && x < 3 * w / 4 && y > h / 8 && y < 7 * h / 8;
        if inside { image::Rgb([40 + (x % 7) as u8, 44, 60 + (y % 5) as u8]) } else { image::Rgb([232, 230, 226]) }
    });
    img.save_with_format(path, image::ImageFormat::Png).expect("write png");
}

async fn upload_with(cli: &Cli, names: &[&str], folder: Option<&str>, write: impl Fn(&Path, usize)) -> Vec<String> {
    let files = tempfile::tempdir().expect("temp dir");
    let mut ids = Vec::new();
    for (i, name) in names.iter().enumerate() {
        let path = files.path().join(format!("{name}.png"));
        write(&path, i);
        let mut args = vec!["upload", "--json", utf8(&path)];
        args.extend(folder.map(|f| ["--folder", f]).into_iter().flatten());
        let run = cli.run(&args).await;
        assert_eq!(run.code, 0, "{run:?}");
        let report: serde_json::Value = serde_json::from_str(run.stdout.trim()).expect("upload JSON");
        ids.push(report["uploaded"][0]["id"].as_str().expect("an id").to_string());
    }
    ids
}

/// What `studio pack --json` prints.
#[derive(Debug, serde::Deserialize)]
struct PackReport {
    pack: Pack,
    path: String,
    verified: bool,
    entries: usize,
}

/// A successful `studio pack ... --json`, parsed.
fn pack_report(run: &Run) -> PackReport {
    assert_eq!(run.code, 0, "{run:?}");
    serde_json::from_str(run.stdout.trim()).expect("pack JSON")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pack_ids_into_a_verified_zip() {
    let app = app().await;
    let cli = Cli::new();
    cli.signup(&app, &unique_email("cli-pack")).await;
    let ids = upload_pngs(&cli, &["coat", "dress", "scarf"], None).await;
    let out_dir = tempfile::tempdir().expect("temp dir");
    let out = out_dir.path().join("out.zip");

    let run = cli.run(&["pack", &ids[0], &ids[1], &ids[2], "-o", utf8(&out), "--json"]).await;
    let report = pack_report(&run);
    assert!(report.verified);
    assert_eq!(report.entries, 3);
    assert_eq!(report.path, utf8(&out));
    assert_eq!((report.pack.mode.as_str(), report.pack.status.as_str()), ("instant", "ready"));
    assert_eq!((report.pack.items, report.pack.seconds, report.pack.error.as_deref()), (3, 0, None));
    assert!(report.pack.pack_id.starts_with("pck_"), "{report:?}");
    assert!(report.pack.filename.starts_with("studio-pack-") && report.pack.filename.ends_with(".zip"), "{report:?}");
    let size = std::fs::metadata(&out).expect("the zip exists").len();
    assert_eq!(report.pack.bytes, size as i64);
    assert_eq!(python_zip_names(&out), ["coat.png", "dress.png", "scarf.png"]);
    // Downloaded beside the destination, then moved into place: nothing else is left.
    let left: Vec<_> = std::fs::read_dir(out_dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(left, [std::ffi::OsString::from("out.zip")]);

    // Without -o: the pack's file name (here from --name) in the current directory; a summary.
    let here = tempfile::tempdir().expect("temp dir");
    let run = cli.run_in(here.path(), &["pack", &ids[2], &ids[0], "--name", "SS25 picks"]).await;
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(run.stdout, "Packed 2 items (<0.01 MB) into SS25 picks.zip\n");
    assert_eq!(run.stderr, "", "no bars, no notes off a terminal");
    assert_eq!(python_zip_names(&here.path().join("SS25 picks.zip")), ["scarf.png", "coat.png"]);

    // -o naming a directory: the pack's file name inside it.
    let run = cli.run(&["pack", &ids[1], "--name", "one", "-o", utf8(out_dir.path()), "--json"]).await;
    let report = pack_report(&run);
    assert_eq!((report.entries, report.pack.filename.as_str()), (1, "one.zip"));
    assert_eq!(report.path, utf8(&out_dir.path().join("one.zip")));
    assert_eq!(python_zip_names(&out_dir.path().join("one.zip")), ["dress.png"]);

    // Ids of no asset of this house: the server's 404, exit 1, nothing written.
    let none = out_dir.path().join("none.zip");
    let run = cli.run(&["pack", "ast_nope", "-o", utf8(&none)]).await;
    assert_eq!(run.code, 1, "{run:?}");
    assert!(run.stderr.contains("error: NOT_FOUND: "), "{run:?}");
    assert!(!none.exists());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pack_a_whole_collection() {
    let app = app().await;
    let cli = Cli::new();
    cli.signup(&app, &unique_email("cli-pack-folder")).await;
    let run = cli.run(&["folders", "new", "SS25", "--json"]).await;
    assert_eq!(run.code, 0, "{run:?}");
    let ss25 = serde_json::from_str::<FolderResponse>(run.stdout.trim()).expect("folder JSON").folder.id;
    let run = cli.run(&["folders", "new", "Empty", "--json"]).await;
    assert_eq!(run.code, 0, "{run:?}");
    let empty = serde_json::from_str::<FolderResponse>(run.stdout.trim()).expect("folder JSON").folder.id;
    upload_pngs(&cli, &["gown", "veil"], Some(&ss25)).await;
    upload_pngs(&cli, &["loose"], None).await;
    let out_dir = tempfile::tempdir().expect("temp dir");
    let out = out_dir.path().join("ss25.zip");

    let run = cli.run(&["pack", "--folder", &ss25, "-o", utf8(&out), "--json"]).await;
    let report = pack_report(&run);
    assert!(report.verified);
    assert_eq!((report.entries, report.pack.items), (2, 2));
    let mut names = python_zip_names(&out);
    names.sort();
    assert_eq!(names, ["gown.png", "veil.png"], "only the collection's assets");

    // An empty collection has nothing to pack; an unknown one is the server's 404.
    let run = cli.run(&["pack", "--folder", &empty, "-o", utf8(&out_dir.path().join("e.zip"))]).await;
    assert_eq!(run.code, 1, "{run:?}");
    assert!(run.stderr.contains(&format!("error: nothing to pack: collection {empty} holds no assets")), "{run:?}");
    let run = cli.run(&["pack", "--folder", "fld_nope", "-o", utf8(&out_dir.path().join("n.zip"))]).await;
    assert_eq!(run.code, 1, "{run:?}");
    assert!(run.stderr.contains("error: NOT_FOUND: "), "{run:?}");
    assert!(!out_dir.path().join("e.zip").exists() && !out_dir.path().join("n.zip").exists());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pack_with_a_rendition_size() {
    let app = app().await;
    let cli = Cli::new();
    cli.signup(&app, &unique_email("cli-pack-size")).await;
    let ids = upload_pngs(&cli, &["a", "b", "c"], None).await;
    let out = tempfile::tempdir().expect("temp dir");
    let zip = out.path().join("sized.zip");

    let run = cli.run(&["pack", &ids[0], &ids[1], &ids[2], "--size", "web:32x32", "-o", utf8(&zip), "--json"]).await;
    let report = pack_report(&run);
    assert!(report.verified);
    assert_eq!((report.entries, report.pack.items), (6, 6));
    assert_eq!(python_zip_names(&zip), ["a.png", "b.png", "c.png", "web/a.jpg", "web/b.jpg", "web/c.jpg"]);

    // Malformed sizes are usage errors, caught before anything is sent.
    for bad in ["web", "web:32", "web:8x8", ":32x32"] {
        let run = cli.run(&["pack", &ids[0], "--size", bad, "-o", utf8(&zip)]).await;
        assert_eq!(run.code, 2, "{bad}: {run:?}");
        assert!(run.stderr.contains("--size"), "{run:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pack_waits_for_a_queued_pack() {
    // Three frames are above the instant threshold of 2: the pack is built in the background.
    let app = spawn(Backend::Sqlite, |c| c.packs.instant_frames = 2).await.expect("sqlite app");
    let cli = Cli::new();
    cli.signup(&app, &unique_email("cli-pack-queued")).await;
    let ids = upload_pngs(&cli, &["one", "two", "three"], None).await;
    let out = tempfile::tempdir().expect("temp dir");

    let zip = out.path().join("queued.zip");
    let run = cli.run(&["pack", &ids[0], &ids[1], &ids[2], "-o", utf8(&zip), "--json"]).await;
    let report = pack_report(&run);
    assert!(report.verified);
    assert_eq!((report.pack.mode.as_str(), report.pack.status.as_str()), ("pack", "ready"));
    assert_eq!((report.entries, report.pack.items, report.pack.seconds), (3, 3, 0));
    assert_eq!(report.pack.bytes, std::fs::metadata(&zip).expect("the zip exists").len() as i64);
    assert_eq!(python_zip_names(&zip), ["one.png", "two.png", "three.png"]);

    // Off a terminal, a line on stderr says it waits; the summary follows.
    let zip = out.path().join("queued-2.zip");
    let run = cli.run(&["pack", &ids[0], &ids[1], &ids[2], "-o", utf8(&zip)]).await;
    assert_eq!(run.code, 0, "{run:?}");
    assert!(
        run.stderr.starts_with("Pack pck_") && run.stderr.contains(" is queued; waiting (the server estimates "),
        "{run:?}"
    );
    assert_eq!(run.stdout, format!("Packed 3 items (<0.01 MB) into {}\n", zip.display()));
    assert_eq!(python_zip_names(&zip).len(), 3);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pack_that_fails_exits_1() {
    let app = spawn(Backend::Sqlite, |c| c.packs.instant_frames = 2).await.expect("sqlite app");
    let cli = Cli::new();
    cli.signup(&app, &unique_email("cli-pack-failed")).await;
    let ids = upload_pngs(&cli, &["x", "y"], None).await;
    // One original's bytes vanish from the blob store: the background build cannot finish.
    let blob = find_file(&app.data_dir.join("blobs"), &ids[1]).expect("the blob of the upload");
    std::fs::remove_file(&blob).expect("remove blob");
    let out = tempfile::tempdir().expect("temp dir");
    let zip = out.path().join("failed.zip");

    let run = cli.run(&["pack", &ids[0], &ids[1], "-o", utf8(&zip)]).await;
    assert_eq!(run.code, 1, "{run:?}");
    assert!(run.stderr.contains("error: PACK_FAILED: pack pck_"), "{run:?}");
    assert!(run.stderr.contains("The archive could not be built; pack again."), "{run:?}");
    assert_eq!(run.stdout, "");
    assert!(!zip.exists());
}

/// The file named `name` somewhere under `dir`.
fn find_file(dir: &Path, name: &str) -> Option<PathBuf> {
    for entry in std::fs::read_dir(dir).ok()? {
        let path = entry.ok()?.path();
        if path.is_dir() {
            if let Some(found) = find_file(&path, name) {
                return Some(found);
            }
        } else if path.file_name().is_some_and(|n| n == name) {
            return Some(path);
        }
    }
    None
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pack_needs_ids_or_a_folder_not_both() {
    let cli = Cli::new();
    for args in [vec!["pack", "-o", "x.zip"], vec!["pack", "--json"], vec!["pack", "ast_1", "--folder", "fld_1"]] {
        let run = cli.run(&args).await;
        assert_eq!(run.code, 2, "{args:?}: {run:?}");
        assert!(run.stderr.contains("ASSET_ID") && run.stderr.contains("--folder"), "{run:?}");
        assert_eq!(run.stdout, "");
    }
    let run = cli.run(&["pack", "--help"]).await;
    assert_eq!(run.code, 0, "{run:?}");
    for flag in ["-o, --output <FILE>", "--folder <ID>", "--name <NAME>", "--size <NAME:WxH>", "--json"] {
        assert!(run.stdout.contains(flag), "{flag}: {run:?}");
    }
}

// Develops: `studio develop`, `jobs`, `takes`, `runs` and `prices` (spec §2.4 to §2.8, §4.3, §6).

use std::io::{BufRead, BufReader, Read};

use studio_core::api::{
    CancelReason, CancelResponse, DevelopStatus, DuplicateResponse, Job, JobList, JobStatus, PriceBook,
    RunCancelResponse, RunList, SubmitResponse, TakesResponse,
};

/// A server whose runner never starts: jobs stay queued until the test runs them with
/// `app.studio.run_next_job()`.
async fn app_without_runner() -> TestApp {
    spawn(Backend::Sqlite, |c| c.runner_concurrency = 0).await.expect("sqlite app")
}

/// A signed-in CLI and a 64x48 PNG to develop, in a temporary directory kept with it.
async fn develop_setup(app: &TestApp, tag: &str) -> (Cli, tempfile::TempDir, PathBuf) {
    let cli = Cli::new();
    cli.signup(app, &unique_email(tag)).await;
    let dir = tempfile::tempdir().expect("temp dir");
    let input = dir.path().join("coat.png");
    write_png(&input, 64, 48);
    (cli, dir, input)
}

/// Parse a successful run's stdout as `T`.
fn parsed<T: serde::de::DeserializeOwned>(run: &Run) -> T {
    assert_eq!(run.code, 0, "{run:?}");
    serde_json::from_str(run.stdout.trim()).unwrap_or_else(|e| panic!("{e}: {run:?}"))
}

/// What `tool` costs at `quality`, from `studio prices --json`.
async fn price_of(cli: &Cli, tool: &str, quality: &str) -> i64 {
    let book: PriceBook = parsed(&cli.run(&["prices", "--json"]).await);
    let tool = book.tools.iter().find(|t| t.tool == tool).unwrap_or_else(|| panic!("{tool} not priced: {book:?}"));
    tool.prices.iter().find(|p| p.resolution == quality).expect("a price at that quality").tokens
}

/// `studio develop TOOL --image INPUT --quality Q --json`: the queued job.
async fn submit(cli: &Cli, tool: &str, input: &Path, quality: &str) -> SubmitResponse {
    let submitted: SubmitResponse =
        parsed(&cli.run(&["develop", tool, "--image", utf8(input), "--quality", quality, "--json"]).await);
    assert_eq!(submitted.status, JobStatus::Queued);
    submitted
}

/// `studio balance --json`.
async fn balance_of(cli: &Cli) -> Balance {
    parsed(&cli.run(&["balance", "--json"]).await)
}

/// `studio jobs ls --json`: the job `id`.
async fn listed_job(cli: &Cli, id: &str) -> Job {
    let list: JobList = parsed(&cli.run(&["jobs", "ls", "--json"]).await);
    list.jobs.into_iter().find(|j| j.id == id).unwrap_or_else(|| panic!("job {id} not listed"))
}

/// A `studio` child left running, with stdout and stderr piped.
fn start(cli: &Cli, args: &[&str]) -> std::process::Child {
    let mut cmd = Command::new(studio_bin());
    cmd.arg("--config").arg(&cli.config).args(args);
    for var in ["STUDIO_URL", "STUDIO_API_KEY", "STUDIO_CONFIG", "STUDIO_PASSWORD"] {
        cmd.env_remove(var);
    }
    cmd.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
    cmd.spawn().expect("spawn studio")
}

/// Read lines from `reader` on a blocking thread until one satisfies `done` (30 s at most);
/// every line read, and the reader.
async fn read_until<R: BufRead + Send + 'static>(
    mut reader: R,
    done: impl Fn(&str) -> bool + Send + 'static,
) -> (Vec<String>, R) {
    let read = tokio::task::spawn_blocking(move || {
        let mut lines = Vec::new();
        loop {
            let mut line = String::new();
            if reader.read_line(&mut line).expect("read a line") == 0 {
                panic!("the output ended before the line waited for: {lines:?}");
            }
            let line = line.trim_end().to_string();
            let found = done(&line);
            lines.push(line);
            if found {
                return (lines, reader);
            }
        }
    });
    tokio::time::timeout(std::time::Duration::from_secs(30), read).await.expect("the line within 30 s").expect("join")
}

/// Press Ctrl-C on the child (SIGINT), then wait for it: its exit code and the rest of `rest`.
async fn interrupt(mut child: std::process::Child, mut rest: impl Read + Send + 'static) -> (i32, String) {
    let status = Command::new("kill").arg("-INT").arg(child.id().to_string()).status().expect("kill -INT");
    assert!(status.success());
    tokio::task::spawn_blocking(move || {
        let mut text = String::new();
        rest.read_to_string(&mut text).expect("read the rest");
        let code = child.wait().expect("wait for studio").code().expect("exited, not killed by the signal");
        (code, text)
    })
    .await
    .expect("join")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn prices_list_upscale() {
    let app = app().await;
    let cli = Cli::new();
    cli.signup(&app, &unique_email("cli-prices")).await;
    let book: PriceBook = parsed(&cli.run(&["prices", "--json"]).await);
    let upscale = book.tools.iter().find(|t| t.tool == "upscale").expect("upscale advertised");
    let qualities: Vec<&str> = upscale.prices.iter().map(|p| p.resolution.as_str()).collect();
    assert!(["1k", "2k", "4k"].iter().all(|q| qualities.contains(q)), "{upscale:?}");
    assert!(upscale.prices.iter().all(|p| p.tokens > 0), "{upscale:?}");

    let run = cli.run(&["prices"]).await;
    assert_eq!(run.code, 0, "{run:?}");
    assert!(run.stdout.starts_with("TOOL"), "{run:?}");
    assert!(run.stdout.lines().any(|l| l.starts_with("upscale ")), "{run:?}");
    assert!(run.stdout.contains("1K") && run.stdout.contains("4K"), "{run:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn develop_upscale_waits_and_saves_a_jpeg() {
    let app = app().await;
    let (cli, dir, input) = develop_setup(&app, "cli-develop").await;
    let price = price_of(&cli, "upscale", "1k").await;
    let out = dir.path().join("out.jpg");

    let args = ["develop", "upscale", "--image", utf8(&input), "--quality", "1k", "--wait", "-o", utf8(&out), "--json"];
    let run = cli.run(&args).await;
    let status: DevelopStatus = parsed(&run);
    assert_eq!((status.status, status.tool.as_str(), status.error.as_deref()), (JobStatus::Done, "upscale", None));
    assert_eq!((status.tokens_estimated, status.tokens_settled), (price, Some(price)));
    let result = status.result_asset_id.clone().expect("a result asset");
    assert!(
        run.stderr.starts_with(&format!("job {} queued, {price} tokens held\n", status.job_id)),
        "the job id comes first: {run:?}"
    );
    let bytes = std::fs::read(&out).expect("the result written");
    assert!(bytes.starts_with(&[0xFF, 0xD8, 0xFF]), "a JPEG");
    let img = image::load_from_memory(&bytes).expect("decodes");
    assert_eq!((img.width(), img.height()), (1024, 768), "1k on the long edge");
    assert!(!dir.path().join("out.jpg.part").exists());
    let balance = balance_of(&cli).await;
    assert_eq!((balance.balance, balance.held), (100 - price, 0));
    assert!(listed(&cli, None).await.assets.iter().any(|a| a.id == result), "the result is in the library");

    // A library asset as the input, human output, the result saved into a directory.
    let upload: serde_json::Value = parsed(&cli.run(&["upload", "--json", utf8(&input)]).await);
    let asset = upload["uploaded"][0]["id"].as_str().expect("an asset id").to_string();
    let saved = tempfile::tempdir().expect("temp dir");
    let run = cli
        .run(&["develop", "upscale", "--image", &asset, "--quality", "1k", "--wait", "-o", utf8(saved.path())])
        .await;
    assert_eq!(run.code, 0, "{run:?}");
    let job = run.stderr.strip_prefix("job ").and_then(|s| s.split(' ').next()).expect("job id on stderr").to_string();
    assert!(run.stdout.starts_with(&format!("job {job} done: result ast_")), "{run:?}");
    assert!(run.stdout.contains(&format!("{price} tokens settled")), "{run:?}");
    let file = saved.path().join(format!("{job}.jpg"));
    assert!(run.stdout.contains(&format!("to {}", file.display())), "{run:?}");
    assert!(std::fs::read(&file).expect("saved in the directory").starts_with(&[0xFF, 0xD8, 0xFF]));

    // Without --wait: the job id alone on stdout, the hold on stderr; `jobs show` follows it.
    let run = cli.run(&["develop", "upscale", "--image", utf8(&input), "--quality", "1k"]).await;
    assert_eq!(run.code, 0, "{run:?}");
    let job = run.stdout.trim().to_string();
    assert!(job.starts_with("job_") && !job.contains(char::is_whitespace), "{run:?}");
    assert_eq!(run.stderr, format!("job {job} queued, {price} tokens held\n"));
    let shown: DevelopStatus = parsed(&cli.run(&["jobs", "show", &job, "--json"]).await);
    assert_eq!((shown.job_id.as_str(), shown.tokens_estimated), (job.as_str(), price));
    let run = cli.run(&["jobs", "show", &job]).await;
    assert_eq!(run.code, 0, "{run:?}");
    assert!(run.stdout.starts_with(&format!("{job}  upscale  ")), "{run:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn develop_warns_first_about_a_photo_without_a_subject() {
    let app = app().await;
    let (cli, dir, _) = develop_setup(&app, "cli-develop-no-subject").await;
    let brick = dir.path().join("brick.jpg");
    let set = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/data/segmentation/images");
    std::fs::copy(set.join("brick.jpg"), &brick).expect("copy the photo");
    let run = cli.run(&["develop", "packshot", "--image", utf8(&brick), "--quality", "1k"]).await;
    assert_eq!(run.code, 0, "{run:?}");
    let (warning, queued) = run.stderr.split_once("\njob ").expect("a warning, then the queued job");
    assert!(warning.starts_with(&format!("warning: {}: No clear subject: ", brick.display())), "{run:?}");
    assert!(warning.contains("SUBJECT_NOT_FOUND"), "{run:?}");
    assert!(queued.contains("queued"), "{run:?}");

    // A photo with a subject, and a tool that cuts nothing, submit without a word.
    let coffee = dir.path().join("coffee.jpg");
    std::fs::copy(set.join("coffee.jpg"), &coffee).expect("copy the photo");
    let run = cli.run(&["develop", "packshot", "--image", utf8(&coffee), "--quality", "1k"]).await;
    assert!(run.code == 0 && run.stderr.starts_with("job "), "{run:?}");
    let run = cli.run(&["develop", "upscale", "--image", utf8(&brick), "--quality", "1k"]).await;
    assert!(run.code == 0 && run.stderr.starts_with("job "), "{run:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn develop_refusals() {
    let app = app().await;
    let (cli, _dir, input) = develop_setup(&app, "cli-develop-refused").await;

    let run = cli.run(&["develop", "no-such-tool", "--image", utf8(&input), "--quality", "1k"]).await;
    assert_eq!(run.code, 1, "{run:?}");
    assert!(run.stderr.contains("error: UNKNOWN_TOOL: "), "{run:?}");
    assert!(run.stderr.contains("studio prices"), "{run:?}");
    assert_eq!(run.stdout, "");

    let run = cli.run(&["develop", "upscale", "--quality", "1k"]).await;
    assert_eq!(run.code, 1, "{run:?}");
    assert!(run.stderr.contains("error: NO_IMAGE: ") && run.stderr.contains("--image"), "{run:?}");

    let run = cli.run(&["develop", "upscale", "--image", "ast_nope", "--quality", "1k"]).await;
    assert_eq!(run.code, 1, "{run:?}");
    assert!(run.stderr.contains("error: NOT_FOUND: "), "{run:?}");

    let missing = input.with_file_name("gone.png");
    let run = cli.run(&["develop", "upscale", "--image", utf8(&missing), "--quality", "1k"]).await;
    assert_eq!(run.code, 1, "{run:?}");
    assert!(run.stderr.contains("gone.png: no such file"), "{run:?}");

    // Caught before anything is sent: exit 2.
    for args in [
        vec!["develop", "upscale", "--image", utf8(&input)],
        vec!["develop", "upscale", "--image", utf8(&input), "--quality", "8k"],
        vec!["develop", "upscale", "--input", "hat=x.png", "--quality", "1k"],
        vec!["develop", "upscale", "--image", utf8(&input), "--quality", "1k", "--param", "quality=4k"],
        vec!["develop", "upscale", "--image", utf8(&input), "--quality", "1k", "--param", "noequals"],
    ] {
        let run = cli.run(&args).await;
        assert_eq!(run.code, 2, "{args:?}: {run:?}");
    }
    assert_eq!(balance_of(&cli).await.balance, 100, "nothing held by a refusal");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn jobs_cancel_a_queued_job_and_list_it() {
    let app = app_without_runner().await;
    let (cli, _dir, input) = develop_setup(&app, "cli-cancel").await;
    let submitted = submit(&cli, "upscale", &input, "2k").await;
    assert!(submitted.tokens_held > 0 && !submitted.replayed, "{submitted:?}");
    let balance = balance_of(&cli).await;
    assert_eq!((balance.balance, balance.held), (100 - submitted.tokens_held, submitted.tokens_held));
    assert_eq!(listed_job(&cli, &submitted.job_id).await.status, JobStatus::Queued);

    let cancelled: CancelResponse = parsed(&cli.run(&["jobs", "cancel", &submitted.job_id, "--json"]).await);
    assert_eq!(
        cancelled,
        CancelResponse {
            id: submitted.job_id.clone(),
            cancelled: true,
            state: JobStatus::Cancelled,
            tokens_released: submitted.tokens_held,
            reason: None,
        }
    );
    let balance = balance_of(&cli).await;
    assert_eq!((balance.balance, balance.held), (100, 0));
    let job = listed_job(&cli, &submitted.job_id).await;
    assert_eq!((job.status, job.tool.as_str()), (JobStatus::Cancelled, "upscale"));

    // Again: not an error; the reason is said.
    let again: CancelResponse = parsed(&cli.run(&["jobs", "cancel", &submitted.job_id, "--json"]).await);
    assert_eq!((again.cancelled, again.reason, again.tokens_released), (false, Some(CancelReason::AlreadySettled), 0));
    let run = cli.run(&["jobs", "cancel", &submitted.job_id]).await;
    assert_eq!(run.code, 0, "{run:?}");
    assert!(run.stdout.contains("Not cancelled") && run.stdout.contains("ALREADY_SETTLED"), "{run:?}");

    // The table, and the cursor: nothing changed after the job's own seq.
    let run = cli.run(&["jobs", "ls"]).await;
    assert_eq!(run.code, 0, "{run:?}");
    assert!(run.stdout.starts_with("SEQ  ID"), "{run:?}");
    assert!(run.stdout.lines().any(|l| l.contains(&submitted.job_id) && l.contains("cancelled")), "{run:?}");
    let since = job.event_seq.to_string();
    let after: JobList = parsed(&cli.run(&["jobs", "ls", "--since", &since, "--json"]).await);
    assert!(after.jobs.is_empty(), "{after:?}");

    let run = cli.run(&["jobs", "cancel", "job_nope"]).await;
    assert_eq!(run.code, 1, "{run:?}");
    assert!(run.stderr.contains("error: NOT_FOUND: "), "{run:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn takes_runs_and_duplicates() {
    let app = app_without_runner().await;
    let (cli, _dir, input) = develop_setup(&app, "cli-takes").await;
    let price = price_of(&cli, "upscale", "1k").await;
    let first = submit(&cli, "upscale", &input, "1k").await;

    // Not developed yet: 409, exit 1, nothing held.
    let run = cli.run(&["takes", &first.job_id]).await;
    assert_eq!(run.code, 1, "{run:?}");
    assert!(run.stderr.contains("error: NOT_DEVELOPED: "), "{run:?}");
    assert!(run.stderr.contains("hint: only landed (done) frames"), "{run:?}");
    assert_eq!(balance_of(&cli).await.held, price);

    assert!(app.studio.develops().run_next_job().await.expect("run the job"), "one job was queued");
    let done: DevelopStatus = parsed(&cli.run(&["jobs", "show", &first.job_id, "--json"]).await);
    assert_eq!(done.status, JobStatus::Done, "{done:?}");

    let args = ["takes", &first.job_id, "--direction", "softer light", "--idempotency-key", "k1", "--json"];
    let takes: TakesResponse = parsed(&cli.run(&args).await);
    assert_eq!(takes.jobs.len(), 1, "{takes:?}");
    assert_eq!((takes.jobs[0].source_job_id.as_str(), takes.jobs[0].tokens), (first.job_id.as_str(), price));
    assert!(!takes.replayed);
    let replay: TakesResponse = parsed(&cli.run(&args).await);
    assert!(replay.replayed, "{replay:?}");
    assert_eq!(replay.jobs[0].job_id, takes.jobs[0].job_id);
    let runs: RunList = parsed(&cli.run(&["runs", "ls", "--json"]).await);
    assert!(runs.runs.iter().any(|r| r.job_ids.contains(&first.job_id)), "{runs:?}");
    let active: RunList = parsed(&cli.run(&["runs", "ls", "--active", "--limit", "5", "--json"]).await);
    let run_id = active
        .runs
        .iter()
        .find(|r| r.job_ids.contains(&takes.jobs[0].job_id))
        .expect("the take's run is active")
        .id
        .clone();
    let run = cli.run(&["runs", "ls"]).await;
    assert_eq!(run.code, 0, "{run:?}");
    assert!(run.stdout.starts_with("ID") && run.stdout.contains(&run_id), "{run:?}");
    for bad in ["0", "101", "x"] {
        assert_eq!(cli.run(&["runs", "ls", "--limit", bad]).await.code, 2, "--limit {bad}");
    }

    let duplicate: DuplicateResponse = parsed(&cli.run(&["jobs", "duplicate", &first.job_id, "--json"]).await);
    assert_eq!((duplicate.status, duplicate.cost), (JobStatus::Queued, price));

    let cancelled: RunCancelResponse = parsed(&cli.run(&["runs", "cancel", &run_id, "--json"]).await);
    assert!(cancelled.cancelled && cancelled.cancelled_job_ids.contains(&takes.jobs[0].job_id), "{cancelled:?}");
    assert!(cancelled.tokens_released >= price, "{cancelled:?}");
    let run = cli.run(&["runs", "cancel", "run.nope"]).await;
    assert_eq!(run.code, 1, "{run:?}");
    assert!(run.stderr.contains("error: NOT_FOUND: "), "{run:?}");
}

#[cfg(unix)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ctrl_c_while_waiting_leaves_the_job_queued() {
    let app = app_without_runner().await;
    let (cli, _dir, input) = develop_setup(&app, "cli-ctrl-c").await;
    let mut child = start(&cli, &["develop", "upscale", "--image", utf8(&input), "--quality", "1k", "--wait"]);
    let stderr = BufReader::new(child.stderr.take().expect("stderr"));
    let (lines, stderr) = read_until(stderr, |l| l.starts_with("job ")).await;
    let job = lines.last().and_then(|l| l.split(' ').nth(1)).expect("the job id").to_string();
    // The line comes just before the wait (and its Ctrl-C handler) starts.
    tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    let (code, rest) = interrupt(child, stderr).await;
    assert_eq!(code, 130, "{rest}");
    assert!(rest.contains(&format!("job {job} goes on")), "{rest}");
    assert!(rest.contains("studio jobs watch") && rest.contains(&format!("studio jobs cancel {job}")), "{rest}");
    let status: DevelopStatus = parsed(&cli.run(&["jobs", "show", &job, "--json"]).await);
    assert_eq!(status.status, JobStatus::Queued);
}

#[cfg(unix)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn jobs_watch_follows_a_job_until_ctrl_c() {
    let app = app_without_runner().await;
    let (cli, _dir, input) = develop_setup(&app, "cli-watch").await;
    let mut child = start(&cli, &["jobs", "watch", "--json"]);
    let stdout = BufReader::new(child.stdout.take().expect("stdout"));
    let submitted = submit(&cli, "upscale", &input, "1k").await;
    let id = submitted.job_id.clone();
    let is = move |status: JobStatus| {
        let id = id.clone();
        move |line: &str| serde_json::from_str::<Job>(line).is_ok_and(|j| j.id == id && j.status == status)
    };
    let (_, stdout) = read_until(stdout, is(JobStatus::Queued)).await;
    assert!(app.studio.develops().run_next_job().await.expect("run the job"));
    let (lines, _) = read_until(stdout, is(JobStatus::Done)).await;
    let done: Job = serde_json::from_str(lines.last().expect("a line")).expect("job JSON");
    assert!(done.result_asset_id.is_some(), "{done:?}");
    let stderr = child.stderr.take().expect("stderr");
    let (code, rest) = interrupt(child, stderr).await;
    assert_eq!(code, 0, "{rest}");
}

// `studio mcp`: MCP's stdio transport bridged to the agent endpoint.

use serde_json::{Value, json};

/// The body the agent endpoint answers `message` with when POSTed to it directly.
async fn posted(app: &TestApp, key: Option<&str>, message: &str) -> String {
    let mut req = reqwest::Client::new()
        .post(format!("{}/api/mcp", app.base))
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(message.to_string());
    if let Some(key) = key {
        req = req.bearer_auth(key);
    }
    req.send().await.expect("post").text().await.expect("body")
}

/// Every stdout line of `run` as JSON (each must parse: nothing but JSON-RPC on stdout).
fn json_lines(run: &Run) -> Vec<(String, Value)> {
    assert!(run.stdout.is_empty() || run.stdout.ends_with('\n'), "{run:?}");
    let lines = run.stdout.lines().map(|l| (l.to_string(), serde_json::from_str(l).expect("a JSON-RPC line")));
    lines.collect()
}

/// The line answering `id` (responses may come back in any order).
fn answer(lines: &[(String, Value)], id: Value) -> (String, Value) {
    let found = lines.iter().find(|(_, v)| v["id"] == id);
    found.cloned().unwrap_or_else(|| panic!("no answer for id {id}: {lines:?}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_bridges_stdio_to_the_agent_endpoint() {
    let app = app().await;
    let (_, key) = minted_key(&app, "cli-mcp").await;
    let cli = Cli::new();
    let initialize = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"cli-test","version":"0"}}}"#;
    let initialized = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
    let list = r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#;
    let balance =
        r#"{"jsonrpc":"2.0","id":"three","method":"tools/call","params":{"name":"check_balance","arguments":{}}}"#;
    let stdin = format!("{initialize}\n{initialized}\n\n{list}\r\n{balance}\n{{\"jsonrpc\": \"2.0\", \"id\": 4,\n");
    let env = [("STUDIO_URL", app.base.as_str()), ("STUDIO_API_KEY", key.as_str())];
    let run = cli.run_with(&["mcp"], &env, Some(&stdin)).await;
    assert_eq!(run.code, 0, "{run:?}");

    // One line per request; none for the notification or the blank line.
    let lines = json_lines(&run);
    assert_eq!(lines.len(), 4, "{run:?}");
    // Each answer is exactly what the endpoint says over HTTP, on one line.
    for (id, message) in [(json!(1), initialize), (json!(2), list), (json!("three"), balance)] {
        assert_eq!(answer(&lines, id).0, posted(&app, Some(&key), message).await);
    }
    let (_, init) = answer(&lines, json!(1));
    assert_eq!(init["result"]["protocolVersion"], "2025-06-18");
    assert_eq!(init["result"]["serverInfo"]["version"], "1.0.0");
    let (_, listed) = answer(&lines, json!(2));
    let names: Vec<&str> =
        listed["result"]["tools"].as_array().expect("tools").iter().filter_map(|t| t["name"].as_str()).collect();
    assert!(names.contains(&"check_balance") && names.contains(&"start_develop"), "{names:?}");
    let (_, called) = answer(&lines, json!("three"));
    assert_eq!(called["result"]["isError"], false);
    assert_eq!(called["result"]["structuredContent"]["balance"], 100);
    // The malformed line is answered here, never forwarded.
    let (_, unparseable) = answer(&lines, Value::Null);
    assert_eq!(unparseable["jsonrpc"], "2.0");
    assert_eq!(unparseable["error"]["code"], -32700);
    assert!(unparseable["error"]["message"].as_str().is_some_and(|m| m.starts_with("Parse error")), "{unparseable}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_without_a_key_passes_on_the_401_and_says_why_on_stderr() {
    let app = app().await;
    let cli = Cli::new();
    let list = r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#;
    let ping = r#"{"jsonrpc":"2.0","id":3,"method":"ping"}"#;
    let run = cli.run_with(&["mcp"], &[("STUDIO_URL", app.base.as_str())], Some(&format!("{list}\n{ping}\n"))).await;
    assert_eq!(run.code, 0, "{run:?}");
    let lines = json_lines(&run);
    assert_eq!(lines.len(), 2, "{run:?}");
    let (line, refused) = answer(&lines, json!(2));
    assert_eq!(line, posted(&app, None, list).await, "the 401's JSON-RPC body, as the endpoint sent it");
    assert_eq!(refused["error"]["code"], -32001);
    assert!(refused["error"]["message"].as_str().is_some_and(|m| m.starts_with("Unauthorized")), "{refused}");
    assert_eq!(answer(&lines, json!(3)).1["result"], json!({}), "ping needs no key");
    assert!(run.stderr.contains("no API key configured"), "{run:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_answers_requests_it_cannot_deliver() {
    let cli = Cli::new();
    // Nothing listens on port 9 here.
    let url = "http://127.0.0.1:9";
    let stdin = concat!(
        r#"{"jsonrpc":"2.0","id":"a","method":"tools/list"}"#,
        "\n",
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        "\n"
    );
    let run = cli.run_with(&["mcp"], &[("STUDIO_URL", url), ("STUDIO_API_KEY", "studio_sk_x")], Some(stdin)).await;
    assert_eq!(run.code, 0, "{run:?}");
    let lines = json_lines(&run);
    assert_eq!(lines.len(), 1, "the notification gets no answer: {run:?}");
    let (_, failed) = answer(&lines, json!("a"));
    assert_eq!(failed["error"]["code"], -32603);
    let message = failed["error"]["message"].as_str().expect("message");
    assert!(message.starts_with(&format!("studio mcp: cannot reach {url}: ")), "{message}");
    assert!(run.stderr.contains("cannot reach"), "the notification's failure is logged: {run:?}");
}

// `studio keys`, `completions`, the `--help` text, the 402 message and `--json` on the account
// commands.

use studio_core::api::{ApiKey, KeyList, KeyRole, RevokedKey};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn keys_mint_ls_revoke_round_trip() {
    let app = app().await;
    let cli = Cli::new();
    let email = unique_email("cli-keys");
    let stored = cli.signup(&app, &email).await;

    // Mint signs in as the config file's email (the CLI stores only a key); the secret comes
    // back once, with a warning on stderr.
    let run = cli.run(&["keys", "mint", "ci box", "--role", "viewer", "--password", PASSWORD, "--json"]).await;
    let minted: ApiKey = parsed(&run);
    let secret = minted.key.clone().expect("the secret in the mint answer");
    assert!(secret.starts_with("studio_sk_") && secret.starts_with(&minted.prefix), "{minted:?}");
    assert_eq!((minted.name.as_str(), minted.role, minted.revoked_at), ("ci box", KeyRole::Viewer, None));
    assert!(run.stderr.contains(&format!("signing in as {email}")), "{run:?}");
    assert!(run.stderr.contains("shown this once"), "{run:?}");

    // Human form: the secret alone on stdout, so `KEY=$(studio keys mint ...)` works.
    let run = cli.run_with(&["keys", "mint", "laptop"], &[("STUDIO_PASSWORD", PASSWORD)], None).await;
    assert_eq!(run.code, 0, "{run:?}");
    let laptop = run.stdout.trim().to_string();
    assert!(laptop.starts_with("studio_sk_") && run.stdout.lines().count() == 1, "{run:?}");
    assert!(run.stderr.contains("warning: the secret above is shown this once"), "{run:?}");
    let whoami: SessionInfo =
        parsed(&cli.run_with(&["whoami", "--json"], &[("STUDIO_API_KEY", laptop.as_str())], None).await);
    assert_eq!((whoami.user.email.as_str(), whoami.role), (email.as_str(), SeatRole::Member));

    // Listing works with the stored key; it never shows a secret.
    let run = cli.run(&["keys", "ls", "--json"]).await;
    let list: KeyList = parsed(&run);
    assert!(!run.stdout.contains(&secret) && !run.stdout.contains(&laptop) && !run.stdout.contains(&stored));
    let names: Vec<&str> = list.keys.iter().map(|k| k.name.as_str()).collect();
    assert!(names.contains(&"ci box") && names.contains(&"laptop"), "{names:?}");
    assert!(list.keys.iter().all(|k| k.key.is_none() && k.revoked_at.is_none()), "{list:?}");
    let run = cli.run(&["keys", "ls"]).await;
    assert_eq!(run.code, 0, "{run:?}");
    assert!(run.stdout.starts_with("ID "), "{run:?}");
    let row = run.stdout.lines().find(|l| l.contains(&minted.id)).expect("a row for the minted key");
    assert!(row.contains("ci box") && row.contains("viewer") && row.ends_with("active"), "{row}");
    assert_eq!(run.stdout.matches("active (this CLI)").count(), 1, "{run:?}");
    // STUDIO_PASSWORD in the environment does not turn listing into a sign-in.
    let with_env: KeyList =
        parsed(&cli.run_with(&["keys", "ls", "--json"], &[("STUDIO_PASSWORD", PASSWORD)], None).await);
    assert_eq!(with_env.keys.len(), list.keys.len());
    // The same with a session instead of the key.
    let by_session: KeyList =
        parsed(&cli.run(&["keys", "ls", "--email", &email, "--password", PASSWORD, "--json"]).await);
    assert_eq!(by_session.keys.len(), list.keys.len());

    // The minted viewer key works until it is revoked; then it fails with exit 3.
    let env = [("STUDIO_API_KEY", secret.as_str())];
    assert_eq!(cli.run_with(&["balance", "--json"], &env, None).await.code, 0);
    let revoked: RevokedKey = parsed(&cli.run(&["keys", "revoke", &minted.id, "--password", PASSWORD, "--json"]).await);
    assert_eq!(revoked, RevokedKey { revoked: true, id: minted.id.clone() });
    let run = cli.run_with(&["balance", "--json"], &env, None).await;
    assert_eq!(run.code, 3, "{run:?}");
    assert!(run.stderr.contains("error: UNAUTHORIZED: ") && run.stderr.contains("hint: run `studio login`"), "{run:?}");
    assert_eq!(run.stdout, "");
    let list: KeyList = parsed(&cli.run(&["keys", "ls", "--json"]).await);
    let gone = list.keys.iter().find(|k| k.id == minted.id).expect("revoked keys are listed");
    assert!(gone.revoked_at.is_some(), "{gone:?}");
    // Revoking again is harmless; an unknown id is the server's 404.
    let run = cli.run(&["keys", "revoke", &minted.id, "--password", PASSWORD]).await;
    assert_eq!(run.code, 0, "{run:?}");
    assert!(run.stdout.starts_with(&format!("Revoked key {}", minted.id)), "{run:?}");
    let run = cli.run(&["keys", "revoke", "key_nope", "--password", PASSWORD]).await;
    assert_eq!(run.code, 1, "{run:?}");
    assert!(run.stderr.contains("error: NOT_FOUND: ") && run.stderr.contains("hint: "), "{run:?}");

    // A wrong password: 401 BAD_CREDENTIALS, exit 3, nothing minted.
    let run = cli.run(&["keys", "mint", "nope", "--password", "not the password"]).await;
    assert_eq!(run.code, 3, "{run:?}");
    assert!(run.stderr.contains("error: BAD_CREDENTIALS: "), "{run:?}");
    assert_eq!(run.stdout, "");

    // Revoking the key this CLI stores forgets it in the config file too.
    let own = cli.value("key_id").expect("key_id stored");
    let run = cli.run(&["keys", "revoke", &own, "--password", PASSWORD]).await;
    assert_eq!(run.code, 0, "{run:?}");
    assert!(run.stderr.contains("it is forgotten there"), "{run:?}");
    assert_eq!(cli.value("api_key"), None);
    let err = app.client.with_api_key(&stored).balance().await.expect_err("revoked");
    assert_eq!(err.status(), Some(401));

    // With a key but no email anywhere: a usage error that says why a session is needed.
    let other = Cli::new();
    let run = other
        .run_with(
            &["keys", "mint", "x"],
            &[("STUDIO_API_KEY", laptop.as_str()), ("STUDIO_URL", app.base.as_str())],
            None,
        )
        .await;
    assert_eq!(run.code, 2, "{run:?}");
    assert!(run.stderr.contains("signed-in session") && run.stderr.contains("--email"), "{run:?}");
    // Without any key, listing is not signed in: exit 3.
    let run = other.run_with(&["keys", "ls"], &[("STUDIO_URL", app.base.as_str())], None).await;
    assert_eq!(run.code, 3, "{run:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn completions_for_bash_zsh_and_fish() {
    let cli = Cli::new();
    for shell in ["bash", "zsh", "fish"] {
        // No config, no server: completions need neither.
        let run = cli.run(&["completions", shell]).await;
        assert_eq!(run.code, 0, "{shell}: {run:?}");
        assert!(run.stdout.len() > 500 && run.stdout.contains("studio"), "{shell}: {run:?}");
        for word in ["keys", "develop", "completions", "--json"] {
            assert!(run.stdout.contains(word), "{shell} script lacks {word}");
        }
        assert_eq!(run.stderr, "", "{shell}");
    }
    assert!(cli.run(&["completions", "bash"]).await.stdout.contains("complete -F"), "a bash completion");
    assert!(cli.run(&["completions", "zsh"]).await.stdout.starts_with("#compdef studio"), "a zsh completion");
    assert!(cli.run(&["completions", "fish"]).await.stdout.contains("complete -c studio"), "a fish completion");
    let run = cli.run(&["completions", "tcsh"]).await;
    assert_eq!(run.code, 2, "{run:?}");
    assert!(!cli.config.exists(), "nothing written");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn help_documents_the_exit_codes() {
    let cli = Cli::new();
    let run = cli.run(&["--help"]).await;
    assert_eq!(run.code, 0, "{run:?}");
    for line in [
        "Exit codes:",
        "0    success",
        "1    failure",
        "2    usage error",
        "3    authentication",
        "4    insufficient tokens",
        "130  interrupted",
        "--json",
        "config.toml",
        "STUDIO_URL",
        "STUDIO_API_KEY",
    ] {
        assert!(run.stdout.contains(line), "{line}: {run:?}");
    }
    for command in ["signup", "login", "logout", "keys", "balance", "prices", "upload", "assets", "folders"] {
        assert!(run.stdout.contains(&format!("  {command} ")), "{command}: {run:?}");
    }
    for command in ["develop", "jobs", "runs", "takes", "pack", "mcp", "completions"] {
        assert!(run.stdout.contains(&format!("  {command} ")), "{command}: {run:?}");
    }
    let run = cli.run(&["keys", "--help"]).await;
    assert_eq!(run.code, 0, "{run:?}");
    assert!(run.stdout.contains("mint") && run.stdout.contains("ls") && run.stdout.contains("revoke"), "{run:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_402_says_need_and_spendable_and_exits_4() {
    let app = spawn(Backend::Sqlite, |c| {
        c.signup_grant_tokens = 5;
        c.runner_concurrency = 0;
    })
    .await
    .expect("sqlite app");
    let (cli, _dir, input) = develop_setup(&app, "cli-402").await;
    let price = price_of(&cli, "upscale", "1k").await;
    assert!(price > 5, "upscale 1k costs more than the 5 tokens granted: {price}");

    for json in [false, true] {
        let mut args = vec!["develop", "upscale", "--image", utf8(&input), "--quality", "1k"];
        if json {
            args.push("--json");
        }
        let run = cli.run(&args).await;
        assert_eq!(run.code, 4, "{run:?}");
        assert!(run.stderr.contains("error: INSUFFICIENT_TOKENS: "), "{run:?}");
        let said = format!("hint: this needs {price} tokens and the house has 5 spendable ({} short)", price - 5);
        assert!(run.stderr.contains(&said), "{run:?}");
        assert!(run.stderr.contains("nothing was held or charged"), "{run:?}");
        assert_eq!(run.stdout, "", "{run:?}");
    }
    let balance = balance_of(&cli).await;
    assert_eq!((balance.balance, balance.held), (5, 0), "a 402 holds nothing");
}

/// What `signup --json` and `login --json` print.
#[derive(Debug, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct Stored {
    url: String,
    config_path: String,
    user: studio_core::api::User,
    key: Option<ApiKey>,
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn account_commands_print_json() {
    let app = app().await;
    let cli = Cli::new();
    let email = unique_email("cli-json");
    let run = cli.run(&["signup", "--url", &app.base, "--email", &email, "--password", PASSWORD, "--json"]).await;
    let signed: Stored = parsed(&run);
    let secret = cli.value("api_key").expect("a key stored");
    assert!(!run.stdout.contains(&secret), "the secret is never printed by signup");
    assert_eq!((signed.url.as_str(), signed.user.email.as_str()), (app.base.as_str(), email.as_str()));
    assert_eq!(signed.config_path, utf8(&cli.config));
    let key = signed.key.expect("the key's record");
    assert!(key.key.is_none() && secret.starts_with(&key.prefix), "{key:?}");
    assert_eq!(cli.value("key_id"), Some(key.id.clone()));

    let logout: serde_json::Value = parsed(&cli.run(&["logout", "--json"]).await);
    assert_eq!(logout, serde_json::json!({"forgot": true, "revoked": null, "configPath": utf8(&cli.config)}));

    let run = cli.run(&["login", "--email", &email, "--password", PASSWORD, "--key-name", "json box", "--json"]).await;
    let logged: Stored = parsed(&run);
    assert_eq!(logged.key.expect("the key's record").name, "json box");
    let logout: serde_json::Value =
        parsed(&cli.run(&["logout", "--revoke", "--email", &email, "--password", PASSWORD, "--json"]).await);
    assert_eq!(logout["forgot"], true);
    assert!(logout["revoked"].as_str().is_some_and(|id| id.starts_with("key_")), "{logout}");
    let logout: serde_json::Value = parsed(&cli.run(&["logout", "--json"]).await);
    assert_eq!(logout["forgot"], false);
}

// ---- billing ----

use studio_core::api::{AutochargeRun, AutochargeSaved, AutochargeView, BillingCatalog, CustomCheckoutResponse};

/// Pay a test-mode checkout the way the owner's browser would: POST to its URL.
async fn pay(url: &str) {
    let res = reqwest::Client::new().post(url).send().await.expect("confirm the test checkout");
    assert!(res.status().is_success(), "{}: {:?}", res.status(), res.text().await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn billing_catalog_checkouts_and_autocharge_in_test_mode() {
    let app = spawn(Backend::Sqlite, |c| c.billing = "test".into()).await.expect("sqlite app");
    let cli = Cli::new();
    let email = unique_email("cli-billing");
    cli.signup(&app, &email).await;

    // The catalog is public: no key, no sign-in.
    let catalog: BillingCatalog = parsed(&cli.run(&["billing", "catalog", "--json", "--api-key", "studio_sk_x"]).await);
    assert_eq!(catalog.provider.as_deref(), Some("test"));
    let slugs: Vec<&str> = catalog.packs.iter().map(|p| p.slug.as_str()).collect();
    assert_eq!(slugs, ["pack_250", "pack_1000", "pack_3000"]);
    let tiers: Vec<&str> = catalog.tiers.iter().map(|t| t.slug.as_str()).collect();
    assert_eq!(tiers, ["studio", "editorial", "couture"]);
    let run = cli.run(&["billing", "catalog"]).await;
    assert_eq!(run.code, 0, "{run:?}");
    assert!(run.stdout.starts_with("Payments: test\n") && run.stdout.contains("pack_250"), "{run:?}");

    // A top-up signs in as the config file's email (keys never spend money) and prints the URL.
    let run = cli.run(&["billing", "topup", "pack_250", "--password", PASSWORD]).await;
    assert_eq!(run.code, 0, "{run:?}");
    let url = run.stdout.trim().to_string();
    assert!(url.contains("/api/toolkit/ai/billing/test-checkout/") && run.stdout.lines().count() == 1, "{run:?}");
    assert!(run.stderr.contains(&format!("signing in as {email}")) && run.stderr.contains("never a key"), "{run:?}");
    assert!(run.stderr.contains("not when the browser comes back"), "{run:?}");
    // Nothing is credited until the payment is confirmed; confirming twice grants once.
    assert_eq!(balance_of(&cli).await.topup, 0);
    pay(&url).await;
    pay(&url).await;
    let balance = balance_of(&cli).await;
    assert_eq!((balance.topup, balance.balance), (250, 350), "{balance:?}");

    // --json everywhere; subscribe and custom print their URLs too.
    let run = cli.run_with(&["billing", "subscribe", "studio", "--json"], &[("STUDIO_PASSWORD", PASSWORD)], None).await;
    let sub: Value = parsed(&run);
    assert!(sub["url"].as_str().is_some_and(|u| u.contains("/test-checkout/")), "{sub}");
    let custom: CustomCheckoutResponse =
        parsed(&cli.run(&["billing", "custom", "$25", "--password", PASSWORD, "--json"]).await);
    assert!(custom.tokens > 0 && custom.amount_cents <= 2500, "{custom:?}");
    let run = cli.run(&["billing", "custom", "25", "--password", PASSWORD]).await;
    assert_eq!(run.code, 0, "{run:?}");
    assert!(run.stderr.contains(&format!("This checkout buys {} tokens", custom.tokens)), "{run:?}");

    // Refusals carry the server's code; a bad amount is a usage error.
    let run = cli.run(&["billing", "topup", "pack_7", "--password", PASSWORD]).await;
    assert_eq!(run.code, 1, "{run:?}");
    assert!(run.stderr.contains("error: BAD_PACK"), "{run:?}");
    let run = cli.run(&["billing", "custom", "10000", "--password", PASSWORD]).await;
    assert_eq!(run.code, 1, "{run:?}");
    assert!(run.stderr.contains("error: AMOUNT_OUT_OF_RANGE"), "{run:?}");
    assert_eq!(cli.run(&["billing", "custom", "ten", "--password", PASSWORD]).await.code, 2);
    let run = cli.run(&["billing", "topup", "pack_250", "--password", "wrong password"]).await;
    assert_eq!(run.code, 3, "{run:?}");

    // Auto top-up: shown and run with the key; set signs in.
    let view: AutochargeView = parsed(&cli.run(&["billing", "autocharge", "--json"]).await);
    assert!(view.available && !view.settings.enabled, "{view:?}");
    let saved: AutochargeSaved = parsed(
        &cli.run(&[
            "billing",
            "autocharge",
            "set",
            "--enabled",
            "true",
            "--threshold",
            "1000",
            "--pack",
            "pack_250",
            "--cap-usd",
            "100",
            "--password",
            PASSWORD,
            "--json",
        ])
        .await,
    );
    assert!(saved.ok && saved.settings.enabled && saved.settings.threshold_tokens == 1000, "{saved:?}");
    let run = cli.run(&["billing", "autocharge", "show"]).await;
    assert_eq!(run.code, 0, "{run:?}");
    assert!(run.stdout.starts_with("Auto top-up: on, below 1000 tokens buy pack_250 ($10.00)"), "{run:?}");
    let first: AutochargeRun = parsed(&cli.run(&["billing", "autocharge", "run", "--json"]).await);
    assert!(first.charged && first.tokens == Some(250), "{first:?}");
    let second = cli.run(&["billing", "autocharge", "run"]).await;
    assert_eq!(second.code, 0, "{second:?}");
    assert!(second.stdout.starts_with("Not charged: "), "{second:?}");
    assert_eq!(balance_of(&cli).await.topup, 500, "one auto top-up of 250 on top of the pack");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn billing_money_commands_need_an_email_to_sign_in() {
    let app = app().await;
    let cli = Cli::new();
    let (_email, key) = minted_key(&app, "cli-billing-key").await;
    // A key alone (no email in the config): buying refuses on this side, exit 2, saying why.
    let env = [("STUDIO_URL", app.base.as_str()), ("STUDIO_API_KEY", key.as_str())];
    let run = cli.run_with(&["billing", "topup", "pack_250"], &env, None).await;
    assert_eq!(run.code, 2, "{run:?}");
    assert!(run.stderr.contains("a key never spends money") && run.stderr.contains("--email"), "{run:?}");
    let run = cli.run_with(&["billing", "autocharge", "--json"], &env, None).await;
    let view: AutochargeView = parsed(&run);
    assert!(!view.settings.enabled, "{view:?}");
}

/// `studio account`, `seats ls|invite|role|rm`, `memory ls|add|retire` and `house ls|switch`
/// against a real server: reads with the stored key, seat changes and switching sign in.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn people_commands_manage_seats_memories_and_houses() {
    let app = app().await;
    let owner = Cli::new();
    let owner_email = unique_email("cli-people");
    owner.signup(&app, &owner_email).await;

    let run = owner.run(&["account", "--json", "--days", "7"]).await;
    assert_eq!(run.code, 0, "{run:?}");
    let page: serde_json::Value = serde_json::from_str(run.stdout.trim()).expect("account JSON");
    assert_eq!(
        (page["profile"]["email"].as_str(), page["tokens"]["days"].as_i64()),
        (Some(owner_email.as_str()), Some(7))
    );
    let run = owner.run(&["account"]).await;
    assert!(run.code == 0 && run.stdout.contains("Tokens:   100 spendable"), "{run:?}");

    // Invite a second person (signs in for the call), who accepts through the API.
    let guest_email = unique_email("cli-guest");
    let guest = app.client.sign_up(&guest_email, PASSWORD, None).await.expect("guest");
    app.studio.storage().set_email_verified(&guest.account.user.id.as_str().into(), chrono::Utc::now()).await.unwrap();
    let run = owner.run(&["seats", "invite", &guest_email, "--role", "viewer", "--password", PASSWORD, "--json"]).await;
    assert_eq!(run.code, 0, "{run:?}");
    let invitation: serde_json::Value = serde_json::from_str(run.stdout.trim()).expect("invitation JSON");
    let guest_session = app.client.with_session(&guest.session);
    guest_session.accept_seat(invitation["id"].as_str().unwrap()).await.expect("accept");
    let run = owner.run(&["seats", "ls"]).await;
    assert!(run.code == 0 && run.stdout.contains(&guest_email) && run.stdout.contains("viewer"), "{run:?}");
    let run = owner.run(&["seats", "role", &guest.account.user.id, "member", "--password", PASSWORD]).await;
    assert!(run.code == 0 && run.stdout.contains("is now member"), "{run:?}");
    let run = owner.run(&["seats", "role", &guest.account.user.id, "owner", "--password", PASSWORD]).await;
    assert_eq!(run.code, 2, "owner is not a role to set here: {run:?}");

    // Memories with the key.
    let run = owner.run(&["memory", "add", "Shoot on white", "--class", "preference"]).await;
    assert_eq!(run.code, 0, "{run:?}");
    let first = run.stdout.trim().to_string();
    let run = owner.run(&["memory", "add", "Shoot on ivory", "--class", "preference", "--replaces", &first]).await;
    assert!(run.code == 0 && run.stdout.contains(&format!("corrects {first}")), "{run:?}");
    let run = owner.run(&["memory", "ls", "--json"]).await;
    let list: serde_json::Value = serde_json::from_str(run.stdout.trim()).expect("memory JSON");
    let statuses: Vec<&str> =
        list["memories"].as_array().unwrap().iter().map(|m| m["status"].as_str().unwrap()).collect();
    assert_eq!(statuses, vec!["active", "corrected"]);
    let second = list["memories"][0]["id"].as_str().unwrap().to_string();
    let run = owner.run(&["memory", "retire", &second]).await;
    assert!(run.code == 0 && run.stdout.contains("Retired"), "{run:?}");
    let run = owner.run(&["memory", "ls", "--active"]).await;
    assert!(run.code == 0 && run.stdout.contains("No memories."), "{run:?}");

    // The guest becomes admin of the owner's house and switches their CLI to it.
    let run = owner.run(&["seats", "role", &guest.account.user.id, "admin", "--password", PASSWORD]).await;
    assert_eq!(run.code, 0, "{run:?}");
    let guest_cli = Cli::new();
    let run = guest_cli.run(&["login", "--url", &app.base, "--email", &guest_email, "--password", PASSWORD]).await;
    assert_eq!(run.code, 0, "{run:?}");
    let run = guest_cli.run(&["house", "ls", "--password", PASSWORD, "--json"]).await;
    assert_eq!(run.code, 0, "{run:?}");
    let me: serde_json::Value = serde_json::from_str(run.stdout.trim()).expect("me JSON");
    assert_eq!(me["houses"].as_array().unwrap().len(), 2);
    let house_id = invitation["organizationId"].as_str().unwrap();
    let run = guest_cli.run(&["house", "switch", house_id, "--password", PASSWORD]).await;
    assert!(run.code == 0 && run.stdout.contains("Now acting for"), "{run:?}");
    let run = guest_cli.run(&["whoami", "--json"]).await;
    let who: SessionInfo = serde_json::from_str(run.stdout.trim()).expect("whoami JSON");
    assert_eq!((who.organization.id.as_str(), who.role), (house_id, SeatRole::Member), "the new key is a member key");

    let run = owner.run(&["seats", "rm", &guest.account.user.id, "--password", PASSWORD]).await;
    assert!(run.code == 0 && run.stdout.contains("their work stays with the house"), "{run:?}");
    let run = owner.run(&["seats", "ls", "--json"]).await;
    assert!(!run.stdout.contains(&guest_email), "{run:?}");
}

/// `studio looks new|develop --wait|show|lock|variations --wait|unlock|ls` against a real server
/// with the runner on: the composed frames land, the look locks on its own frame, and refusals
/// exit 1 with the server's code.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn looks_develop_lock_and_vary_from_the_terminal() {
    let app = app().await;
    let cli = Cli::new();
    cli.signup(&app, &unique_email("cli-looks")).await;
    let ids = upload_shots(&cli, &["model", "top", "shoes"]).await;
    let top = format!("top={}", ids[1]);
    let shoes = format!("shoes={}", ids[2]);
    let args = ["looks", "new", "--name", "Resort 1", "--model", &ids[0], "--item", &top, "--item", &shoes];
    let run = cli.run(&[&args[..], &["--background", "bone", "--aesthetic", "noir"]].concat()).await;
    assert_eq!(run.code, 0, "{run:?}");
    let look = run.stdout.trim().to_string();
    assert!(look.starts_with("look_"), "{run:?}");

    // Variations before a lock: the server's refusal, exit 1.
    let run = cli.run(&["looks", "variations", &look, "back"]).await;
    assert!(run.code == 1 && run.stderr.contains("LOCK_REQUIRED"), "{run:?}");
    // Too low a tier for a web tile: the hint names the lowest that works (2k), nothing is held.
    let run = cli.run(&["looks", "develop", &look, "--quality", "1k", "--destination", "web-tile"]).await;
    assert!(run.code == 1 && run.stderr.contains("QUALITY_TOO_LOW_FOR_OUTPUT"), "{run:?}");
    assert!(run.stderr.contains("develop at --quality 2k or higher for this destination"), "{run:?}");
    // A 2k story frame, followed to its end and downloaded (-o implies the wait).
    let out = tempfile::tempdir().expect("temp dir");
    let run = cli
        .run(&[
            "looks",
            "develop",
            &look,
            "--quality",
            "2k",
            "--destination",
            "story",
            "-o",
            utf8(out.path()),
            "--json",
        ])
        .await;
    let statuses: Vec<studio_core::api::DevelopStatus> = parsed(&run);
    assert!(run.stderr.contains("story 1080 × 1920 px: composed 9:16 at 1152 × 2048 px"), "{run:?}");
    let frame = statuses[0].result_asset_id.clone().expect("the frame");
    let saved = std::fs::read_dir(out.path()).unwrap().map(|e| e.unwrap().path()).collect::<Vec<_>>();
    assert_eq!(saved.len(), 1, "{saved:?}");
    assert!(saved[0].file_name().unwrap().to_string_lossy().starts_with(&statuses[0].job_id), "{saved:?}");
    let img = image::load_from_memory(&std::fs::read(&saved[0]).unwrap()).expect("the frame decodes");
    assert_eq!((img.width(), img.height()), (1152, 2048));
    assert!(run.stderr.contains("Saved the frame to"), "{run:?}");
    // The frame downloads by id too, like any asset, and says which develop made it.
    let run = cli.run(&["assets", "get", &frame, "-o", utf8(&out.path().join("again.jpg"))]).await;
    assert_eq!(run.code, 0, "{run:?}");
    let run = cli.run(&["assets", "show", &frame]).await;
    assert!(run.stdout.contains(&format!("Origin:  develop {} (lookbook at 2k, done)", statuses[0].job_id)), "{run:?}");
    let detail: studio_core::api::LookDetail = parsed(&cli.run(&["looks", "show", &look, "--json"]).await);
    assert_eq!(detail.lock_develop.map(|l| l.status), Some("done".to_string()));

    let run = cli.run(&["looks", "lock", &look, &ids[1]]).await;
    assert!(run.code == 1 && run.stderr.contains("NOT_A_LOOK_FRAME"), "an upload is not a look frame: {run:?}");
    let run = cli.run(&["looks", "lock", &look, &frame]).await;
    assert!(run.code == 0 && run.stdout.contains("(locked, base"), "{run:?}");

    let run = cli.run(&["looks", "variations", &look, "back", "detail", "--quality", "1k", "--wait"]).await;
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(run.stdout.lines().filter(|l| l.contains(" done: result ")).count(), 2, "{run:?}");
    let run = cli.run(&["looks", "show", &look]).await;
    assert!(run.code == 0 && run.stdout.contains("back") && run.stdout.contains("detail"), "{run:?}");
    let run = cli.run(&["looks", "unlock", &look]).await;
    assert!(run.code == 0 && run.stdout.contains("(draft, base"), "the base stays: {run:?}");
    let run = cli.run(&["looks", "ls"]).await;
    assert!(run.code == 0 && run.stdout.contains("Resort 1") && run.stdout.contains("draft"), "{run:?}");
    let run = cli.run(&["looks", "new", "--name", "x", "--model", &ids[0], "--item", "hat"]).await;
    assert_eq!(run.code, 2, "a malformed --item is a usage error: {run:?}");
}

use studio_core::api::{FactoryPlan, FactoryRunResponse, Quality};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn factory_plan_then_run_drafts_the_looks() {
    let app = app().await;
    let cli = Cli::new();
    let key = cli.signup(&app, &unique_email("cli-factory")).await;
    let client = app.client.with_api_key(&key);
    let upload = |name: &'static str, kind: AssetKind, sku: Option<&'static str>| {
        let client = client.clone();
        async move {
            let options = studio_client::UploadOptions {
                name: Some(name.into()),
                kind: Some(kind),
                sku: sku.map(str::to_string),
                ..Default::default()
            };
            let bytes = studio_tests::images::png(32, 40);
            client.upload_bytes(&format!("{name}.png"), bytes, &options).await.expect("upload").asset.id
        }
    };
    let coat = upload("Trench coat", AssetKind::Clothes, Some("SS25-07")).await;
    let skirt = upload("Midi skirt", AssetKind::Clothes, Some("SS25-07")).await;
    let boots = upload("Boots", AssetKind::Accessory, None).await;
    let model = upload("Model", AssetKind::Model, None).await;

    // The table, the frames, the cost and what the preset lacks; nothing is written.
    let run = cli.run(&["factory", "plan", &coat, &skirt, &boots]).await;
    assert_eq!(run.code, 0, "{run:?}");
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert!(lines[0].starts_with("#  NAME") && lines[0].ends_with("PIECES"), "{run:?}");
    assert!(
        lines[1].contains("SS25-07") && lines[1].contains(&format!("{coat} (outerwear), {skirt} (bottom)")),
        "{run:?}"
    );
    assert!(lines[2].contains("Boots") && lines[2].contains(&format!("{boots} (shoes)")), "{run:?}");
    assert!(
        run.stdout.contains("Each look: 1 develop-lock + 3 variations (full-front, back, detail), minimal on white.")
    );
    let planned: FactoryPlan = parsed(&cli.run(&["factory", "plan", &coat, &skirt, &boots, "--json"]).await);
    let c = &planned.cost;
    let cost = format!(
        "Cost: 2 looks × 4 frames = 8 frames × {} tokens (2k) = {} tokens; 100 spendable now",
        c.per_frame, c.total
    );
    assert!(run.stdout.contains(&cost), "{cost}: {run:?}");
    assert!(run.stdout.contains("Model: the standing preset names none"), "{run:?}");
    assert!(client.looks().await.unwrap().looks.is_empty(), "a plan writes nothing");

    // A plan at 4k, piped into run: without a model it is a usage error; with one, one batch.
    let at_4k = cli.run(&["factory", "plan", &coat, &skirt, &boots, "--quality", "4k", "--json"]).await;
    let planned: FactoryPlan = parsed(&at_4k);
    assert_eq!(planned.cost.quality, Quality::K4);
    let run = cli.run_with(&["factory", "run"], &[], Some(&at_4k.stdout)).await;
    assert_eq!(run.code, 2, "{run:?}");
    assert!(run.stderr.contains("--model"), "{run:?}");
    let dir = tempfile::tempdir().expect("temp dir");
    let plan_file = dir.path().join("plan.json");
    std::fs::write(&plan_file, &at_4k.stdout).expect("write the plan");
    let drafted: FactoryRunResponse =
        parsed(&cli.run(&["factory", "run", utf8(&plan_file), "--model", &model, "--json"]).await);
    assert_eq!(drafted.quality, Quality::K4, "the quality the plan priced");
    assert_eq!(drafted.looks.iter().map(|l| l.name.as_str()).collect::<Vec<_>>(), vec!["SS25-07", "Boots"]);
    let looks = client.looks().await.unwrap().looks;
    assert_eq!(looks.len(), 2);
    assert!(looks.iter().all(|l| l.batch_id.as_deref() == Some(drafted.batch_id.as_str())
        && l.preset.aesthetic == "minimal"
        && l.model_asset_id == model));
    let untouched = Balance { balance: 100, grant: 100, topup: 0, held: 0, holds: vec![] };
    assert_eq!(balance_of(&cli).await, untouched, "nothing was held or charged");

    // Bare looks on stdin, human output; a bad look is named by its place in the input.
    let one = serde_json::json!([{
        "name": "Boots alone", "itemAssetIds": [{ "assetId": boots, "role": "shoes" }],
        "background": { "kind": "preset", "value": "bone" }, "variationKeys": ["detail"]
    }]);
    let run = cli
        .run_with(&["factory", "run", "-", "--model", &model, "--aesthetic", "noir"], &[], Some(&one.to_string()))
        .await;
    assert_eq!(run.code, 0, "{run:?}");
    assert!(run.stdout.starts_with("Drafted 1 look in batch batch_") && run.stdout.contains("2k planned"), "{run:?}");
    assert!(run.stdout.contains("Boots alone  detail"), "{run:?}");
    let bad = serde_json::json!([one[0], { "name": "No pieces", "variationKeys": ["back"] }]);
    let run =
        cli.run_with(&["factory", "run", "--model", &model, "--aesthetic", "noir"], &[], Some(&bad.to_string())).await;
    assert_eq!(run.code, 1, "{run:?}");
    assert!(run.stderr.contains("error: ITEMS_REQUIRED: "), "{run:?}");
    assert!(run.stderr.contains("hint: look 2 of the input (lookIndex 1): "), "{run:?}");
    assert_eq!(client.looks().await.unwrap().looks.len(), 3, "the refused run drafted nothing");
}

use studio_core::api::{PipelinePreview, PipelineRunDetail, PipelineRunList};

/// Two nodes: a packshot of each item's `image` at 2k, then its frame upscaled at 1k.
const PIPELINE_TOML: &str = r#"name = "Packshot, then 1k"

[[nodes]]
id = "cut"
tool = "packshot"
inputs.image.item = "image"

[[nodes]]
id = "big"
tool = "upscale"
quality = "1k"
inputs.image.node = "cut"
"#;

/// `studio pipeline preview|run --wait|ls|show` against a real server with the runner on: a
/// two-node TOML plan is priced from the price book, run to `done` at the previewed price (each
/// upscale taking its item's packshot), listed and shown; a plan with a cycle is refused with
/// BAD_PLAN and holds nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pipeline_preview_run_and_show_from_the_terminal() {
    let app = app().await;
    let (cli, dir, input) = develop_setup(&app, "cli-pipeline").await;
    write_shot(&input, 96, 128); // packshot cuts a subject: give it one
    let run = cli.run(&["upload", "--json", utf8(&input)]).await;
    let uploaded: serde_json::Value = parsed(&run);
    let image = uploaded["uploaded"][0]["id"].as_str().expect("an asset id").to_string();
    let plan = dir.path().join("plan.toml");
    write_text(&plan, PIPELINE_TOML);
    let item = format!("image={image}");
    let tokens = price_of(&cli, "packshot", "2k").await + price_of(&cli, "upscale", "1k").await;

    // The price of the line; nothing is held.
    let args = ["pipeline", "preview", "--plan", utf8(&plan), "--item", &item];
    let preview: PipelinePreview = parsed(&cli.run(&[&args[..], &["--json"]].concat()).await);
    assert_eq!((preview.compiled.frames, preview.compiled.tokens, preview.affordable), (2, tokens, true));
    let run = cli.run(&args).await;
    assert_eq!(run.code, 0, "{run:?}");
    assert!(run.stdout.contains(&format!("Total: 2 frames = {tokens} tokens; 100 spendable now.")), "{run:?}");
    let words = |line: &str| line.split_whitespace().map(str::to_string).collect::<Vec<_>>();
    let big = ["big", "upscale", "1k", "1"].map(String::from);
    assert!(run.stdout.lines().any(|l| words(l).starts_with(&big)), "{run:?}");
    assert_eq!(balance_of(&cli).await.held, 0, "a preview holds nothing");

    // Run the same line from an items file, followed to its end.
    let items = dir.path().join("items.json");
    write_text(&items, &serde_json::json!([{ "image": image }]).to_string());
    let run = cli.run(&["pipeline", "run", "--plan", utf8(&plan), "--items", utf8(&items), "--wait", "--json"]).await;
    assert!(run.stderr.contains(&format!("started: 2 frames held ({tokens} tokens), 1 queued now")), "{run:?}");
    let done: PipelineRunDetail = parsed(&run);
    assert_eq!(done.run.status, "done", "{done:?}");
    assert_eq!((done.run.tokens_spent, done.run.tokens_held), (tokens, 0));
    assert_eq!(
        done.steps.iter().map(|s| (s.node.as_str(), s.status.as_str())).collect::<Vec<_>>(),
        [("cut", "done"), ("big", "done")]
    );
    assert_eq!(done.steps[1].inputs["image"].step, Some(0), "the upscale takes the packshot's frame");
    let balance = balance_of(&cli).await;
    assert_eq!((balance.balance, balance.held), (100 - tokens, 0));

    let list: PipelineRunList = parsed(&cli.run(&["pipeline", "ls", "--json"]).await);
    assert_eq!(list.runs.iter().map(|r| r.id.as_str()).collect::<Vec<_>>(), [done.run.id.as_str()]);
    let run = cli.run(&["pipeline", "ls"]).await;
    let row = run.stdout.lines().find(|l| l.starts_with(&done.run.id)).unwrap_or_else(|| panic!("{run:?}"));
    assert!(row.contains("Packshot, then 1k"), "{run:?}");
    let cells = words(row);
    let (status, done_of, spent_of) = (&cells[cells.len() - 5], &cells[cells.len() - 4], &cells[cells.len() - 3]);
    assert_eq!((status.as_str(), done_of.as_str(), spent_of.clone()), ("done", "2/2", format!("{tokens}/{tokens}")));
    let run = cli.run(&["pipeline", "show", &done.run.id]).await;
    assert_eq!(run.code, 0, "{run:?}");
    assert!(run.stdout.starts_with(&format!("{} \"Packshot, then 1k\" done: 2/2 done", done.run.id)), "{run:?}");
    for step in &done.steps {
        let frame = step.result_asset_id.as_deref().expect("a landed frame");
        let line = run.stdout.lines().find(|l| l.contains(frame)).unwrap_or_else(|| panic!("{frame}: {run:?}"));
        assert!(line.contains(&step.node) && line.contains(&step.tool) && line.contains(" done "), "{line}");
    }

    // Refusals: a cycle is the server's BAD_PLAN (exit 1, nothing held); no items is usage.
    let cycle = dir.path().join("cycle.json");
    let looped = serde_json::json!({ "name": "Loop", "nodes": [
        { "id": "a", "tool": "upscale", "inputs": { "image": { "node": "b" } } },
        { "id": "b", "tool": "upscale", "inputs": { "image": { "node": "a" } } },
    ] });
    write_text(&cycle, &looped.to_string());
    let run = cli.run(&["pipeline", "run", "--plan", utf8(&cycle), "--item", &item, "--wait"]).await;
    assert_eq!(run.code, 1, "{run:?}");
    assert!(run.stderr.contains("error: BAD_PLAN: ") && run.stderr.contains("cycle"), "{run:?}");
    assert!(run.stderr.contains("hint: fix the plan file"), "{run:?}");
    assert_eq!(balance_of(&cli).await.balance, 100 - tokens, "the refused run held nothing");
    let run = cli.run(&["pipeline", "preview", "--plan", utf8(&plan)]).await;
    assert_eq!(run.code, 2, "{run:?}");
    let run = cli.run(&["pipeline", "run", "--item", &item]).await;
    assert_eq!(run.code, 2, "a plan or a preset is needed: {run:?}");

    // The plan kept as a preset: listed, priced and run by id, then removed.
    let run = cli.run(&["pipeline", "presets", "save", "--plan", utf8(&plan)]).await;
    assert_eq!(run.code, 0, "{run:?}");
    let preset = run.stdout.trim().to_string();
    assert!(preset.starts_with("ppr_") && run.stderr.contains("--preset"), "{run:?}");
    let run = cli.run(&["pipeline", "presets", "ls"]).await;
    assert!(run.stdout.lines().any(|l| l.starts_with(&preset) && l.contains("cut:packshot")), "{run:?}");
    let args = ["pipeline", "preview", "--preset", &preset, "--item", &item, "--json"];
    let preview: PipelinePreview = parsed(&cli.run(&args).await);
    assert_eq!((preview.compiled.frames, preview.compiled.tokens), (2, tokens));
    assert_eq!(preview.compiled.plan_id.as_deref(), Some(preset.as_str()));
    let args = ["pipeline", "run", "--preset", &preset, "--item", &item, "--wait", "--json"];
    let done: PipelineRunDetail = parsed(&cli.run(&args).await);
    assert_eq!((done.run.status.as_str(), done.run.plan_id.as_deref()), ("done", Some(preset.as_str())));
    assert_eq!(balance_of(&cli).await.balance, 100 - 2 * tokens);
    let run = cli.run(&["pipeline", "presets", "rm", &preset]).await;
    assert_eq!((run.code, run.stdout.trim()), (0, format!("Deleted preset {preset}.").as_str()), "{run:?}");
    let run = cli.run(&["pipeline", "preview", "--preset", &preset, "--item", &item]).await;
    assert!(run.code == 1 && run.stderr.contains("error: PRESET_NOT_FOUND"), "{run:?}");
}

/// With no runner, a run's steps stay queued or waiting: `pipeline cancel` releases the whole
/// line, and a `run --wait` following it ends with exit 1 and PIPELINE_CANCELLED.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pipeline_cancel_releases_the_line_and_the_waiting_run_exits_1() {
    let app = app_without_runner().await;
    let (cli, dir, input) = develop_setup(&app, "cli-pipeline-cancel").await;
    let uploaded: serde_json::Value = parsed(&cli.run(&["upload", "--json", utf8(&input)]).await);
    let item = format!("image={}", uploaded["uploaded"][0]["id"].as_str().expect("an asset id"));
    let plan = dir.path().join("plan.toml");
    write_text(&plan, PIPELINE_TOML);

    let child = start(&cli, &["pipeline", "run", "--plan", utf8(&plan), "--item", &item, "--wait"]);
    let started = std::time::Instant::now();
    let run = loop {
        let list: PipelineRunList = parsed(&cli.run(&["pipeline", "ls", "--json"]).await);
        if let Some(run) = list.runs.into_iter().next() {
            break run;
        }
        assert!(started.elapsed() < std::time::Duration::from_secs(30), "the run never started");
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    };
    assert_eq!((run.status.as_str(), run.tokens_held), ("developing", run.tokens_planned));
    assert_eq!(balance_of(&cli).await.held, run.tokens_planned, "the whole line is held");

    let run_cancel = cli.run(&["pipeline", "cancel", &run.id]).await;
    assert_eq!(run_cancel.code, 0, "{run_cancel:?}");
    let released = format!(
        "Cancelled 1 queued frame and 1 waiting step of run {}; {} tokens released",
        run.id, run.tokens_planned
    );
    assert!(run_cancel.stdout.starts_with(&released), "{run_cancel:?}");
    assert_eq!(balance_of(&cli).await.held, 0);

    let out =
        tokio::task::spawn_blocking(move || child.wait_with_output().expect("wait for studio")).await.expect("join");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains(&format!("error: PIPELINE_CANCELLED: run {} ended cancelled", run.id)), "{stderr}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("cancelled") && stdout.contains(" cut "), "the steps are shown: {stdout}");
    let again = cli.run(&["pipeline", "cancel", &run.id]).await;
    assert!(again.code == 0 && again.stdout.starts_with("Nothing to cancel"), "{again:?}");
}

// ---- models ----

use studio_core::api::{
    AdminOfferingList, Entitlements, ModelCheckout, ModelList, ModelResponse, OfferingCreate, OfferingList,
    TakeResponse, TraitValue,
};

/// `studio models own` then `ls`, `show` and `set` (text and `--json`), `preview`, `owned` on a
/// house that holds nothing, and `buy` of the house's own model refused by the server.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn models_own_show_set_and_buy_refused() {
    let app = app().await;
    let cli = Cli::new();
    cli.signup(&app, &unique_email("cli-models")).await;
    let ids = upload_pngs(&cli, &["front", "side", "collage", "sheet"], None).await;
    let (front, side, collage, sheet) = (&ids[0], &ids[1], &ids[2], &ids[3]);

    // An empty board and an empty house.
    let run = cli.run(&["models", "ls"]).await;
    assert!(run.code == 0 && run.stdout.starts_with("No models"), "{run:?}");
    let run = cli.run(&["models", "owned"]).await;
    assert_eq!((run.code, run.stdout.as_str()), (0, "Holdings: none\nOpen checkouts: none\n"), "{run:?}");
    let held: Entitlements = parsed(&cli.run(&["models", "owned", "--json"]).await);
    assert!(held.holdings.is_empty() && held.open.is_empty(), "{held:?}");

    // Keep one: positional and --asset frames, a collage, traits; stdout is the id.
    let args = [
        "models",
        "own",
        "--name",
        "Mara",
        front,
        "--asset",
        side,
        "--collage",
        collage,
        "--trait",
        "height=178 cm",
        "--trait",
        "marks=freckles",
        "--trait",
        "marks=scar",
    ];
    let run = cli.run(&args).await;
    assert_eq!(run.code, 0, "{run:?}");
    let id = run.stdout.trim().to_string();
    assert!(id.starts_with("mdl_") && run.stderr.contains("Kept \"Mara\" (3 identity frames)"), "{run:?}");

    let board: ModelList = parsed(&cli.run(&["models", "ls", "--json"]).await);
    assert_eq!(board.models.len(), 1, "{board:?}");
    let m = &board.models[0];
    assert_eq!((m.id.as_str(), m.tier.as_str(), m.mine, m.usable), (id.as_str(), "yours", true, true));
    assert_eq!(m.identity_asset_ids, [collage, front, side].map(String::clone));
    assert_eq!(m.traits["marks"], TraitValue::List(vec!["freckles".into(), "scar".into()]));
    let run = cli.run(&["models", "ls"]).await;
    let words: Vec<&str> = run.stdout.lines().nth(1).unwrap_or_default().split_whitespace().collect();
    assert_eq!(words, [id.as_str(), "Mara", "yours", "-", "yours", "3"], "{run:?}");

    let shown: ModelResponse = parsed(&cli.run(&["models", "show", &id, "--json"]).await);
    assert_eq!(&shown.model, m);
    let run = cli.run(&["models", "show", &id]).await;
    assert_eq!(run.code, 0, "{run:?}");
    assert!(run.stdout.starts_with(&format!("{id} \"Mara\" (yours)\n")), "{run:?}");
    assert!(run.stdout.contains("develops may cast it"), "{run:?}");
    assert!(run.stdout.contains(&format!("3 frames: collage {collage}; originals {front} {side}")), "{run:?}");
    assert!(run.stdout.contains("    height: 178 cm\n") && run.stdout.contains("    marks: freckles; scar\n"));

    // set: a sheet goes after the collage; traits merge (a blank is a real correction).
    let args =
        ["models", "set", &id, "--sheet", sheet, "--trait", "hands=long fingers", "--trait", "height=", "--json"];
    let patched: ModelResponse = parsed(&cli.run(&args).await);
    assert_eq!(patched.model.identity_asset_ids, [collage, sheet, front, side].map(String::clone));
    let traits = &patched.model.traits;
    assert_eq!(traits["height"], TraitValue::Text(String::new()));
    assert_eq!(traits["hands"], TraitValue::Text("long fingers".into()));
    assert_eq!(traits["marks"], TraitValue::List(vec!["freckles".into(), "scar".into()]), "kept, not replaced");
    let run = cli.run(&["models", "set", &id, "--trait", "posture=upright"]).await;
    assert!(run.code == 0 && run.stdout.contains("    posture: upright\n"), "{run:?}");
    assert!(run.stdout.contains(&format!("sheets {sheet}")), "{run:?}");
    assert_eq!(cli.run(&["models", "set", &id]).await.code, 2, "nothing to change is a usage error");
    assert_eq!(cli.run(&["models", "own", "--name", "Nobody"]).await.code, 2, "no frames is a usage error");

    // preview: frame 1 is the sheet, saved as a file or into a directory.
    let dir = tempfile::tempdir().expect("temp dir");
    let out = dir.path().join("frame.png");
    let run = cli.run(&["models", "preview", &id, "1", "-o", utf8(&out)]).await;
    assert_eq!(run.code, 0, "{run:?}");
    let saved = image::open(&out).expect("a decodable frame");
    assert_eq!((saved.width(), saved.height()), (7, 3), "the sheet, the fourth upload (4 + 3 px wide)");
    let run = cli.run(&["models", "preview", &id, "-o", utf8(dir.path()), "--json"]).await;
    let report: Value = parsed(&run);
    assert_eq!(report["path"].as_str(), Some(utf8(&dir.path().join(format!("{id}-0.png")))), "{report}");
    let run = cli.run(&["models", "preview", &id, "9", "-o", utf8(&out)]).await;
    assert!(run.code == 1 && run.stderr.contains("error: NOT_FOUND"), "{run:?}");

    // buy: the owner signs in, and the server refuses: the house already has it.
    let run = cli.run(&["models", "buy", &id, "--password", PASSWORD]).await;
    assert_eq!(run.code, 1, "{run:?}");
    assert!(run.stderr.contains("error: ALREADY_YOURS: "), "{run:?}");
    assert!(run.stderr.contains("hint: the house already has this model"), "{run:?}");
    assert!(run.stdout.is_empty(), "{run:?}");
    let run = cli.run(&["models", "show", "mdl_nope"]).await;
    assert!(run.code == 1 && run.stderr.contains("error: NOT_FOUND"), "{run:?}");
}

/// The catalog from the terminal, billing in test mode: a free offering is taken with the key;
/// a priced one prints the checkout URL (the same URL, pending, on a second buy), is an open
/// checkout until paid, and a holding once the payment is confirmed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn models_explore_take_and_buy_through_the_checkout() {
    let app = spawn(Backend::Sqlite, |c| c.billing = "test".into()).await.expect("sqlite app");
    // A platform admin publishes two models from frames of their own house.
    let admin_email = unique_email("cli-models-admin");
    let signed = app.client.sign_up(&admin_email, PASSWORD, None).await.expect("sign up");
    app.studio.admin().operator().add_admin(&admin_email).await.expect("admin add");
    let caller = app
        .studio
        .accounts()
        .authenticate_session(&studio_core::SessionToken(signed.session.clone()))
        .await
        .expect("caller");
    let admin = caller.as_admin().expect("admin proof");
    let session = app.client.with_session(&signed.session);
    let png = studio_tests::images::png(8, 6);
    let options = studio_client::UploadOptions::default();
    let frame = session.upload_bytes("face.png", png, &options).await.expect("upload").asset.id;
    let publish = |name: &str, price_cents: i64| OfferingCreate {
        kind: "model".into(),
        name: name.into(),
        price_cents,
        asset_ids: vec![frame.clone()],
        ..OfferingCreate::default()
    };
    let free = app.studio.admin().create_offering(&admin, publish("Iris", 0)).await.expect("free");
    let sale = app.studio.admin().create_offering(&admin, publish("Noor", 1500)).await.expect("sale");
    let (free, sale) = (free.offering.id, sale.offering.id);

    let cli = Cli::new();
    cli.signup(&app, &unique_email("cli-models-buyer")).await;
    let offered: OfferingList = parsed(&cli.run(&["models", "explore", "--json"]).await);
    let names: Vec<&str> = offered.offerings.iter().map(|o| o.name.as_str()).collect();
    assert_eq!(names, ["Iris", "Noor"]);
    let run = cli.run(&["models", "explore"]).await;
    assert!(run.stdout.lines().any(|l| l.contains(&sale) && l.contains("$15.00")), "{run:?}");

    // The free one, with the key alone: no sign-in.
    let run = cli.run(&["models", "take", "model", &free]).await;
    assert_eq!(run.code, 0, "{run:?}");
    assert!(run.stdout.is_empty() && run.stderr.contains("\"Iris\""), "{run:?}");
    assert!(!run.stderr.contains("signing in"), "{run:?}");
    let board: ModelList = parsed(&cli.run(&["models", "ls", "--json"]).await);
    let iris = board.models.iter().find(|m| m.id == free).expect("Iris on the board");
    assert!(iris.owned && iris.usable, "{iris:?}");

    // The priced one: a checkout URL, nothing granted.
    let run = cli.run(&["models", "buy", &sale, "--password", PASSWORD]).await;
    assert_eq!(run.code, 0, "{run:?}");
    let url = run.stdout.trim().to_string();
    assert!(url.starts_with("http") && url.contains("/test-checkout/"), "{run:?}");
    assert!(run.stderr.contains("Opened a checkout for \"Noor\"") && run.stderr.contains("($15.00)"), "{run:?}");
    assert!(run.stderr.contains("only when the payment provider confirms"), "{run:?}");
    let again: ModelCheckout = parsed(&cli.run(&["models", "buy", &sale, "--password", PASSWORD, "--json"]).await);
    assert!(again.pending && !again.already && again.url == url, "{again:?}");
    let run = cli.run(&["models", "buy", &sale, "--password", PASSWORD]).await;
    assert!(run.stderr.contains("checkout for \"Noor\"") && run.stderr.contains("is already open"), "{run:?}");
    // A priced take signs in and answers the same open checkout.
    let taken: TakeResponse = parsed(&cli.run(&["models", "take", &sale, "--password", PASSWORD, "--json"]).await);
    assert!(taken.pending && taken.url == url, "{taken:?}");

    let held: Entitlements = parsed(&cli.run(&["models", "owned", "--json"]).await);
    assert_eq!(held.holdings.iter().map(|h| h.offering_id.as_str()).collect::<Vec<_>>(), [free.as_str()]);
    assert_eq!(held.open.iter().map(|o| o.offering_id.as_str()).collect::<Vec<_>>(), [sale.as_str()]);
    let run = cli.run(&["models", "owned"]).await;
    assert!(run.stdout.contains("Open checkouts (1), granted only when paid:"), "{run:?}");

    pay(&url).await;
    let held: Entitlements = parsed(&cli.run(&["models", "owned", "--json"]).await);
    let sources: Vec<(&str, &str)> =
        held.holdings.iter().map(|h| (h.offering_id.as_str(), h.source.as_str())).collect();
    assert!(sources.contains(&(sale.as_str(), "purchase")) && held.open.is_empty(), "{held:?}");
    let run = cli.run(&["models", "buy", &sale, "--password", PASSWORD]).await;
    assert!(run.code == 1 && run.stderr.contains("error: ALREADY_YOURS"), "{run:?}");

    // The admin's catalog: one flat object per offering, with what the platform knows of it.
    let as_admin = ["--email", admin_email.as_str(), "--password", PASSWORD];
    let listed: AdminOfferingList =
        parsed(&cli.run(&[&["admin", "offerings", "--json"][..], &as_admin].concat()).await);
    let counts: Vec<(&str, &str, i64)> =
        listed.offerings.iter().map(|o| (o.id.as_str(), o.tier.as_str(), o.holders)).collect();
    assert_eq!(counts, [(sale.as_str(), "sale", 1), (free.as_str(), "free", 1)]);
    let run = cli.run(&[&["admin", "offerings"][..], &as_admin].concat()).await;
    assert_eq!(run.code, 0, "{run:?}");
    assert!(
        run.stdout.lines().any(|l| l.contains(&sale) && l.contains("$15.00") && l.contains("1 holders")),
        "{run:?}"
    );
    let run = cli.run(&["admin", "offerings", "--password", PASSWORD]).await;
    assert!(run.code != 0 && run.stderr.contains("FORBIDDEN"), "the buyer is no admin: {run:?}");
}

/// `studio brand show|set|dna|marks` against a real server without an AI reader: the profile's
/// defaults, a set clamped by the server and the clause it derives, injection off, the colour and
/// metadata policies set and shown, a DNA read refused with 503 and nothing charged, and marks
/// registered, listed, changed and removed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn brand_profile_and_marks_from_the_terminal() {
    let app = app_without_runner().await;
    let (cli, _dir, input) = develop_setup(&app, "cli-brand").await;
    let shown: serde_json::Value = parsed(&cli.run(&["brand", "show", "--json"]).await);
    assert_eq!((shown["profile"]["dnaRuns"].as_i64(), shown["profile"]["clause"].as_str()), (Some(0), Some("")));

    let args = ["brand", "set", "--vision", "Quiet tailoring", "--vibe", "calm,Calm,sharp", "--palette", "#ABC"];
    let set: serde_json::Value =
        parsed(&cli.run(&[&args[..], &["--keyword", "cut=raw hems", "--json"]].concat()).await);
    assert_eq!(set["profile"]["vibe"], serde_json::json!(["calm", "sharp"]));
    assert_eq!(
        set["profile"]["clause"],
        "Brand vision: Quiet tailoring. Vibe: calm, sharp. Palette: #aabbcc. Signature details: cut: raw hems."
    );
    let run = cli.run(&["brand", "show"]).await;
    assert!(run.stdout.contains("clause:   Brand vision: Quiet tailoring."), "{run:?}");
    let run = cli.run(&["brand", "set", "--inject", "off"]).await;
    assert!(run.stdout.contains("inject:   off") && run.stdout.contains("clause:   -"), "{run:?}");
    assert_eq!(cli.run(&["brand", "set"]).await.code, 2, "nothing to change is a usage error");
    // The colour policy: sRGB by default, keep set and shown, a bad value a usage error.
    assert!(run.stdout.contains("colour:   srgb"), "{run:?}");
    let run = cli.run(&["brand", "set", "--colour-output", "keep"]).await;
    assert!(run.code == 0 && run.stdout.contains("colour:   keep"), "{run:?}");
    let shown: serde_json::Value = parsed(&cli.run(&["brand", "show", "--json"]).await);
    assert_eq!(shown["profile"]["colour"], serde_json::json!({"output": "keep"}));
    let run = cli.run(&["brand", "set", "--colour-output", "cmyk"]).await;
    assert!(run.code == 2 && run.stderr.contains("keep or srgb"), "{run:?}");
    // The metadata policy likewise: rights by default, none set and shown, a bad value refused.
    let run = cli.run(&["brand", "show"]).await;
    assert!(run.stdout.contains("metadata: rights"), "{run:?}");
    let run = cli.run(&["brand", "set", "--metadata-output", "none"]).await;
    assert!(run.code == 0 && run.stdout.contains("metadata: none"), "{run:?}");
    let shown: serde_json::Value = parsed(&cli.run(&["brand", "show", "--json"]).await);
    assert_eq!(shown["profile"]["metadata"], serde_json::json!({"output": "none"}));
    let run = cli.run(&["brand", "set", "--metadata-output", "gps"]).await;
    assert!(run.code == 2 && run.stderr.contains("rights, all or none"), "{run:?}");

    let run = cli.run(&["brand", "dna", utf8(&input), "--vibe", "calm"]).await;
    assert_eq!(run.code, 1, "{run:?}");
    assert!(run.stderr.contains("error: AI_NOT_CONFIGURED: "), "{run:?}");
    assert_eq!(balance_of(&cli).await.balance, 100, "nothing charged");

    let uploaded: serde_json::Value = parsed(&cli.run(&["upload", "--json", utf8(&input)]).await);
    let asset = uploaded["uploaded"][0]["id"].as_str().expect("an asset id").to_string();
    let run = cli.run(&["brand", "marks", "add", &asset, "--material", "woven label", "--placement", "chest"]).await;
    assert_eq!(run.code, 0, "{run:?}");
    let mark = run.stdout.trim().to_string();
    assert!(mark.starts_with("mark_"), "{run:?}");
    let run = cli.run(&["brand", "marks", "add", &asset, "--material", "foil"]).await;
    assert_eq!(run.code, 1, "{run:?}");
    assert!(run.stderr.contains("ALREADY_REGISTERED") && run.stderr.contains("hint: "), "{run:?}");
    let run = cli.run(&["brand", "marks", "set", &mark, "--clear-placement", "--sort", "-3", "--json"]).await;
    let changed: serde_json::Value = parsed(&run);
    assert_eq!((changed["mark"]["placement"].is_null(), changed["mark"]["sortOrder"].as_i64()), (true, Some(-3)));
    let list: serde_json::Value = parsed(&cli.run(&["brand", "marks", "ls", "--json"]).await);
    assert_eq!((list["house"][0]["id"].as_str(), list["riding"].as_str()), (Some(mark.as_str()), Some("house")));
    let run = cli.run(&["brand", "marks", "ls"]).await;
    assert!(run.stdout.contains(&mark) && run.stdout.contains("Riding: house"), "{run:?}");
    let run = cli.run(&["brand", "marks", "rm", &mark]).await;
    assert_eq!(run.code, 0, "{run:?}");
    let list: serde_json::Value = parsed(&cli.run(&["brand", "marks", "ls", "--json"]).await);
    assert_eq!(list["house"], serde_json::json!([]));
}

// ---------------------------------------------------------------------------------------------
// `studio ai`: the AI utility lanes and text tools.

use studio_core::api::{DescribeItemResponse, RemoveBackgroundResponse, SegmentResponse};
use wiremock::matchers::{method as http_method, path as http_path};
use wiremock::{Mock, MockServer};

/// A 96x64 PNG of a red rectangle (x 24..72, y 16..48) on a light grey ground.
fn write_garment_png(path: &Path) {
    let img = image::RgbImage::from_fn(96, 64, |x, y| {
        if (24..72).contains(&x) && (16..48).contains(&y) {
            image::Rgb([200, 30, 40])
        } else {
            image::Rgb([235, 235, 232])
        }
    });
    img.save_with_format(path, image::ImageFormat::Png).expect("write png");
}

/// The PNG at `path`, decoded as RGBA.
fn rgba(path: &Path) -> image::RgbaImage {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert!(bytes.starts_with(b"\x89PNG"), "{} is not a PNG", path.display());
    image::load_from_memory(&bytes).expect("decode png").to_rgba8()
}

/// A signed-in CLI and the garment PNG, in a temporary directory kept with it.
async fn ai_setup(app: &TestApp, tag: &str) -> (Cli, tempfile::TempDir, PathBuf) {
    let cli = Cli::new();
    cli.signup(app, &unique_email(tag)).await;
    let dir = tempfile::tempdir().expect("temp dir");
    let input = dir.path().join("coat.png");
    write_garment_png(&input);
    (cli, dir, input)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ai_remove_bg_saves_a_cutout_with_transparent_corners() {
    let app = app().await;
    let (cli, dir, input) = ai_setup(&app, "cli-ai-rmbg").await;
    let out = dir.path().join("cutout.png");
    let run = cli.run(&["ai", "remove-bg", utf8(&input), "-o", utf8(&out)]).await;
    assert_eq!(run.code, 0, "{run:?}");
    let id = run
        .stdout
        .split_whitespace()
        .find(|w| w.starts_with("ast_"))
        .expect("an asset id")
        .trim_end_matches(['.', ',']);
    assert!(run.stdout.contains("1 token"), "{run:?}");
    let cut = rgba(&out);
    assert_eq!(cut.dimensions(), (96, 64));
    for (x, y) in [(0, 0), (95, 0), (0, 63), (95, 63)] {
        assert_eq!(cut.get_pixel(x, y)[3], 0, "corner {x},{y} is transparent");
    }
    assert!(cut.get_pixel(48, 32)[3] > 0, "the piece stays");
    // The cutout is a new asset of the library.
    let shown: serde_json::Value = parsed(&cli.run(&["assets", "show", id, "--json"]).await);
    assert_eq!(shown["asset"]["id"], id, "{shown}");
    assert_eq!(shown["asset"]["mime"], "image/png", "{shown}");

    // --json prints the server's answer, and the file is still written.
    let out2 = dir.path().join("cutout2.png");
    let answer: RemoveBackgroundResponse =
        parsed(&cli.run(&["ai", "remove-bg", utf8(&input), "-o", utf8(&out2), "--json"]).await);
    assert!(answer.asset_id.starts_with("ast_") && answer.spent == 1, "{answer:?}");
    assert_eq!(rgba(&out2).get_pixel(0, 0)[3], 0);
    // From an asset id, the cutout is named after that asset, not after its id.
    let run = cli.run(&["upload", "--kind", "clothes", utf8(&input)]).await;
    assert_eq!(run.code, 0, "{run:?}");
    let coat = listed(&cli, None).await.assets.into_iter().find(|a| a.name == "coat").expect("uploaded").id;
    let by_id: RemoveBackgroundResponse =
        parsed(&cli.run(&["ai", "remove-bg", &coat, "-o", utf8(&dir.path().join("c3.png")), "--json"]).await);
    let shown: serde_json::Value = parsed(&cli.run(&["assets", "show", &by_id.asset_id, "--json"]).await);
    assert_eq!(shown["asset"]["name"], "coat · cutout", "{shown}");

    // -o is required.
    let run = cli.run(&["ai", "remove-bg", utf8(&input)]).await;
    assert_eq!(run.code, 2, "{run:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ai_segment_by_box_uploads_the_file_and_writes_the_cutout() {
    let app = app().await;
    let (cli, dir, input) = ai_setup(&app, "cli-ai-seg").await;
    let out = dir.path().join("seg.png");
    let run = cli.run(&["ai", "segment", utf8(&input), "--box", "20,12,76,52", "-o", utf8(&out)]).await;
    assert_eq!(run.code, 0, "{run:?}");
    assert!(run.stderr.contains("uploads are free"), "{run:?}");
    assert!(run.stdout.starts_with("Saved the cutout to"), "{run:?}");
    let cut = rgba(&out);
    assert_eq!(cut.dimensions(), (96, 64));
    assert_eq!(cut.get_pixel(0, 0)[3], 0, "outside the box is transparent");

    // An asset id is sent as is (nothing uploaded), and --json prints the answer.
    let uploaded = listed(&cli, None).await.assets[0].id.clone();
    let answer: SegmentResponse =
        parsed(&cli.run(&["ai", "segment", &uploaded, "--point", "48,32", "-o", utf8(&out), "--json"]).await);
    assert_eq!(answer.spent, 1, "{answer:?}");
    assert_eq!(listed(&cli, None).await.assets.len(), 1, "no second upload");

    // A target is required, and a box is four numbers.
    let run = cli.run(&["ai", "segment", utf8(&input), "-o", utf8(&out)]).await;
    assert_eq!(run.code, 2, "{run:?}");
    let run = cli.run(&["ai", "segment", utf8(&input), "--box", "1,2,3", "-o", utf8(&out)]).await;
    assert_eq!(run.code, 2, "{run:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ai_describe_reads_through_the_reader_and_refusals_carry_hints() {
    let server = MockServer::start().await;
    Mock::given(http_method("POST"))
        .and(http_path("/v1/chat/completions"))
        .respond_with(studio_tests::reader::completion(r#"{"nameEn": "Red wool coat", "kind": "clothes"}"#))
        .mount(&server)
        .await;
    let app = studio_tests::reader::app_with_reader(Backend::Sqlite, &server, |_| {}).await.expect("app");
    let (cli, _dir, input) = ai_setup(&app, "cli-ai-describe").await;
    let run = cli.run(&["ai", "describe", utf8(&input)]).await;
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(run.stdout, "Red wool coat (clothes)\n");
    let answer: DescribeItemResponse = parsed(&cli.run(&["ai", "describe", utf8(&input), "--json"]).await);
    assert_eq!((answer.name_en.as_str(), answer.spent), ("Red wool coat", 1));

    // A text tool: `prompt shots` prints one numbered line per shot.
    server.reset().await;
    let shots =
        r#"{"shots": [{"label": "Front", "prompt": "coat, front, dawn"}, {"label": "Back", "prompt": "coat, back"}]}"#;
    Mock::given(http_method("POST"))
        .and(http_path("/v1/chat/completions"))
        .respond_with(studio_tests::reader::completion(shots))
        .mount(&server)
        .await;
    let run = cli.run(&["ai", "prompt", "shots", "a red wool coat", "--count", "2"]).await;
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(run.stdout, "1. Front: coat, front, dawn\n2. Back: coat, back\n");
    let run = cli.run(&["ai", "prompt", "shots", "a red wool coat", "--count", "13"]).await;
    assert_eq!(run.code, 2, "--count is 1 to 12: {run:?}");

    // No fal on this server: depth is refused with its code and what to do, exit 1.
    let run = cli.run(&["ai", "depth", utf8(&input), "-o", "/dev/null"]).await;
    assert_eq!(run.code, 1, "{run:?}");
    assert!(run.stderr.contains("error: FAL_NOT_CONFIGURED"), "{run:?}");
    assert!(run.stderr.contains("hint: this deployment runs no fal models"), "{run:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ai_without_a_reader_says_so() {
    let app = app().await;
    let (cli, _dir, input) = ai_setup(&app, "cli-ai-noreader").await;
    let run = cli.run(&["ai", "describe", utf8(&input)]).await;
    assert_eq!(run.code, 1, "{run:?}");
    assert!(run.stderr.contains("error: AI_NOT_CONFIGURED"), "{run:?}");
    assert!(run.stderr.contains("hint: this deployment has no AI reader"), "{run:?}");
    let run = cli.run(&["ai", "prompt", "build", "a camel coat"]).await;
    assert!(run.stderr.contains("error: AI_NOT_CONFIGURED"), "{run:?}");
}

/// `studio support new|ls|show` against a real server with the stored key: a ticket with a
/// screenshot file, too little said (exit 1 with the hint), a reply on the thread, a noted
/// report, the list and the thread oldest first; another house's thread is not one's own.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn support_commands_raise_list_and_read_threads() {
    let app = app().await;
    let cli = Cli::new();
    cli.signup(&app, &unique_email("cli-support")).await;
    let dir = tempfile::tempdir().expect("temp dir");
    let shot = dir.path().join("grid.png");
    write_png(&shot, 24, 16);

    let run = cli.run(&["support", "new", "too short"]).await;
    assert!(run.code == 1 && run.stderr.contains("at least 10 characters"), "{run:?}");
    let shot_arg = shot.to_str().expect("utf-8 path");
    let run = cli.run(&["support", "new", "The grid stops loading after the upload.", "--topic", "develop"]).await;
    assert_eq!(run.code, 0, "{run:?}");
    let opened = run.stdout.trim().strip_prefix("Opened support ticket ").expect("a sentence naming the ticket");
    let first = opened.split(' ').next().unwrap_or_default();
    assert!(first.starts_with("tkt_"), "{run:?}");
    assert!(run.stdout.contains(&format!("replies show in `studio support show {first}`")), "{run:?}");
    let run = cli
        .run(&[
            "support",
            "new",
            "The pack button does nothing on Safari.",
            "--subject",
            "Pack button",
            "--screenshot",
            shot_arg,
            "--json",
        ])
        .await;
    assert_eq!(run.code, 0, "{run:?}");
    let created: serde_json::Value = serde_json::from_str(run.stdout.trim()).expect("ticket JSON");
    let id = created["id"].as_str().expect("a ticket id").to_string();
    assert_eq!(created["messageCount"], 1);
    let run = cli.run(&["support", "new", "Also on Firefox.", "--ticket", &id]).await;
    assert_eq!(run.code, 0, "{run:?}");
    assert!(run.stdout.starts_with(&format!("Added your message to support ticket {id} (")), "{run:?}");
    assert!(run.stdout.contains("2 messages"), "{run:?}");
    let run = cli.run(&["support", "new", "Love the new grid view.", "--no-reply"]).await;
    assert!(run.code == 0 && run.stdout.contains("no reply will come"), "{run:?}");

    let run = cli.run(&["support", "ls", "--json"]).await;
    assert_eq!(run.code, 0, "{run:?}");
    let list: serde_json::Value = serde_json::from_str(run.stdout.trim()).expect("list JSON");
    let tickets = list["tickets"].as_array().expect("tickets");
    assert_eq!(tickets.len(), 2, "the noted report is not a thread: {list}");
    assert_eq!(tickets[0]["id"].as_str(), Some(id.as_str()), "the replied thread is newest");
    let run = cli.run(&["support", "ls"]).await;
    assert!(run.code == 0 && run.stdout.contains("Pack button"), "{run:?}");

    let run = cli.run(&["support", "show", &id, "--json"]).await;
    assert_eq!(run.code, 0, "{run:?}");
    let thread: serde_json::Value = serde_json::from_str(run.stdout.trim()).expect("thread JSON");
    let words: Vec<&str> =
        thread["messages"].as_array().unwrap().iter().map(|m| m["content"].as_str().unwrap()).collect();
    assert_eq!(words, vec!["The pack button does nothing on Safari.", "Also on Firefox."]);

    let other = Cli::new();
    other.signup(&app, &unique_email("cli-support-other")).await;
    let run = other.run(&["support", "show", &id]).await;
    assert!(run.code == 1 && run.stderr.contains("not one of yours"), "{run:?}");
}

/// `studio chat` on a stand-in reader: the interactive chat prints the answer and the proposed
/// develop with its price, applies it only after a `y` (a `n` leaves the second proposal alone),
/// and says how to continue; `say`, `apply` (twice: once run) and `show` serve scripts.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chat_asks_before_applying_and_scripts_apply_once() {
    let server = MockServer::start().await;
    let app = studio_tests::reader::app_with_reader(Backend::Sqlite, &server, |_| {}).await.expect("app");
    let (cli, _dir, input) = ai_setup(&app, "cli-chat").await;
    let run = cli.run(&["upload", utf8(&input), "--json"]).await;
    assert_eq!(run.code, 0, "{run:?}");
    let asset = run.stdout.split('"').find(|s| s.starts_with("ast_")).expect("asset id").to_string();
    let develop = serde_json::json!({"tool": "upscale", "quality": "1k", "inputs": {"image": asset}});
    let answer = serde_json::json!({"reply": "Two ways to go.", "actions": [
        {"kind": "develop", "summary": "Upscale the coat", "request": develop},
        {"kind": "develop", "summary": "Upscale it again", "request": develop}]});
    Mock::given(http_method("POST"))
        .and(http_path("/v1/chat/completions"))
        .respond_with(studio_tests::reader::completion(&answer.to_string()))
        .mount(&server)
        .await;

    let run = cli.run_with(&["chat"], &[], Some("Upscale my coat\ny\nn\n/quit\n")).await;
    assert_eq!(run.code, 0, "{run:?}");
    assert!(run.stdout.contains("assistant: Two ways to go."), "{run:?}");
    assert!(run.stdout.contains("[1] develop: Upscale the coat, 9 tokens"), "{run:?}");
    assert!(run.stderr.contains("Apply [1] develop: Upscale the coat, 9 tokens? [y/N]"), "{run:?}");
    assert!(run.stdout.contains("applied: develop job_"), "{run:?}");
    let session = run.stdout.rsplit("--session ").next().and_then(|s| s.split('`').next()).expect("session id");
    let balance = cli.run(&["balance", "--json"]).await;
    let held: serde_json::Value = serde_json::from_str(&balance.stdout).expect("balance json");
    assert_eq!(held["held"], 9, "only the answered yes was applied: {balance:?}");

    let shown = cli.run(&["chat", "show", session, "--json"]).await;
    let list: studio_core::api::ChatTurnList = parsed(&shown);
    let second = list.turns[1].actions[1].id.clone();
    assert_eq!(list.turns[1].actions[1].status, "proposed");
    for n in 0..2 {
        let run = cli.run(&["chat", "apply", session, &second, "--json"]).await;
        let applied: studio_core::api::ChatApplied = parsed(&run);
        assert_eq!(applied.replayed, n == 1, "the second apply only reads the first");
    }
    let balance = cli.run(&["balance", "--json"]).await;
    let held: serde_json::Value = serde_json::from_str(&balance.stdout).expect("balance json");
    assert_eq!(held["held"], 18, "{balance:?}");

    let run = cli.run(&["chat", "apply", session, "act_nope"]).await;
    assert_eq!(run.code, 1, "{run:?}");
    assert!(run.stderr.contains("error: ACTION_NOT_FOUND"), "{run:?}");
    assert!(run.stderr.contains("hint: that session proposed no such action"), "{run:?}");
}

/// `studio search` against a real server: uploads found by a name prefix and by their sku, the
/// match shown in brackets, `--kinds` narrowing, `--json` the server's answer, and a query with
/// nothing to search for refused with its hint (exit 1).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn search_finds_uploads_by_prefix_and_sku() {
    let app = app().await;
    let cli = Cli::new();
    cli.signup(&app, &unique_email("cli-search")).await;
    let dir = tempfile::tempdir().expect("temp dir");
    let gown = dir.path().join("ivory-silk-gown.png");
    write_png(&gown, 24, 24);
    let run = cli.run(&["upload", utf8(&gown), "--sku", "SS27-0042"]).await;
    assert_eq!(run.code, 0, "{run:?}");

    let run = cli.run(&["search", "ivo", "sil"]).await;
    assert_eq!(run.code, 0, "{run:?}");
    assert!(run.stdout.contains("asset"), "{run:?}");
    assert!(run.stdout.contains("[ivo]ry-[sil]k-gown"), "each matched prefix in brackets: {run:?}");
    let found: studio_core::api::SearchResults = parsed(&cli.run(&["search", "ss27", "0042", "--json"]).await);
    assert_eq!(found.results.len(), 1, "{found:?}");
    assert_eq!(found.results[0].sku.as_deref(), Some("SS27-0042"));
    let none: studio_core::api::SearchResults =
        parsed(&cli.run(&["search", "ivory", "--kinds", "look,preset", "--json"]).await);
    assert!(none.results.is_empty(), "--kinds narrows: {none:?}");

    let run = cli.run(&["search", "--", "!!"]).await;
    assert_eq!(run.code, 1, "{run:?}");
    assert!(run.stderr.contains("error: QUERY_REQUIRED"), "{run:?}");
    assert!(run.stderr.contains("hint: say what to look for"), "{run:?}");
}

/// What a photographer gets wrong first: a text file given as the image (refused here, saying
/// it is not an image, with nothing sent or held) and a server URL with a path (the hint points
/// at --url, not at an id).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_wrong_file_or_url_is_named_as_such() {
    let app = app().await;
    let cli = Cli::new();
    cli.signup(&app, &unique_email("cli-wrong")).await;
    let dir = tempfile::tempdir().expect("temp dir");
    let notes = dir.path().join("notes.jpg");
    std::fs::write(&notes, "the shoot is on Tuesday").expect("write");
    let run = cli.run(&["develop", "upscale", "--image", utf8(&notes), "--quality", "1k"]).await;
    assert_eq!(run.code, 2, "a usage error, refused before anything is sent: {run:?}");
    assert!(run.stderr.contains("notes.jpg is not an image"), "{run:?}");
    assert!(!run.stderr.contains("older"), "no talk of an older CLI: {run:?}");
    let balance: Balance = parsed(&cli.run(&["balance", "--json"]).await);
    assert_eq!((balance.balance, balance.held), (100, 0), "nothing held");

    let wrong = format!("{}/studio", app.base);
    let run = cli.run(&["--url", &wrong, "balance"]).await;
    assert_eq!(run.code, 1, "{run:?}");
    assert!(run.stderr.contains("error: NOT_FOUND: No such route."), "{run:?}");
    assert!(run.stderr.contains("hint: check --url / STUDIO_URL") && run.stderr.contains(&wrong), "{run:?}");
}

/// A take the house cannot afford: exit 4, the shortfall, and a way out that fits a take (a take
/// develops at its source's quality, so no `--quality` is offered); nothing held.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_take_the_house_cannot_afford_offers_no_quality() {
    let app = spawn(Backend::Sqlite, |c| {
        c.runner_concurrency = 0;
        c.signup_grant_tokens = 12;
    })
    .await
    .expect("sqlite app");
    let (cli, _dir, input) = develop_setup(&app, "cli-take-402").await;
    let first = submit(&cli, "upscale", &input, "1k").await;
    assert!(app.studio.develops().run_next_job().await.expect("run the job"));
    let before = balance_of(&cli).await;
    let run = cli.run(&["takes", &first.job_id]).await;
    assert_eq!(run.code, 4, "{run:?}");
    assert!(run.stderr.contains("error: INSUFFICIENT_TOKENS"), "{run:?}");
    let hint = run.stderr.lines().find(|l| l.starts_with("hint: ")).expect("a hint");
    assert!(hint.contains("A take develops at its source's quality"), "{run:?}");
    assert!(!hint.contains("--quality"), "no --quality for a take: {run:?}");
    let after = balance_of(&cli).await;
    assert_eq!((after.balance, after.held), (before.balance, before.held), "nothing held");
    // The same refusal from develop still offers a lower quality.
    let run = cli.run(&["develop", "upscale", "--image", utf8(&input), "--quality", "4k"]).await;
    assert!(run.code == 4 && run.stderr.contains("develop at a lower --quality"), "{run:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn develop_files_its_frame_into_a_folder() {
    let app = app().await;
    let (cli, _dir, input) = develop_setup(&app, "cli-develop-folder").await;
    let pack: FolderResponse = parsed(&cli.run(&["folders", "new", "SS27 pack", "--json"]).await);
    let pack = pack.folder;
    let args =
        ["develop", "upscale", "--image", utf8(&input), "--quality", "1k", "--folder", &pack.id, "--wait", "--json"];
    let status: DevelopStatus = parsed(&cli.run(&args).await);
    assert_eq!(status.status, JobStatus::Done, "{status:?}");
    let frame = status.result_asset_id.expect("a result");
    let filed = listed(&cli, Some(&pack.id)).await.assets;
    assert_eq!(filed.iter().map(|a| a.id.as_str()).collect::<Vec<_>>(), [frame.as_str()]);

    // An unknown folder is refused before anything is held.
    let before = balance_of(&cli).await;
    let run =
        cli.run(&["develop", "upscale", "--image", utf8(&input), "--quality", "1k", "--folder", "fld_nope"]).await;
    assert_eq!(run.code, 1, "{run:?}");
    assert!(run.stderr.contains("error: NOT_FOUND: No such collection in this house."), "{run:?}");
    assert!(run.stderr.contains("folders ls"), "the hint lists the folders: {run:?}");
    let after = balance_of(&cli).await;
    assert_eq!((after.balance, after.held), (before.balance, before.held));
    // `folderId` has its own flag.
    let run =
        cli.run(&["develop", "upscale", "--image", utf8(&input), "--quality", "1k", "--param", "folderId=x"]).await;
    assert_eq!(run.code, 2, "{run:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn develop_refuses_an_option_the_tool_cannot_read_before_holding() {
    let app = app().await;
    let (cli, _dir, input) = develop_setup(&app, "cli-develop-params").await;
    let run =
        cli.run(&["develop", "packshot", "--image", utf8(&input), "--quality", "1k", "--param", "ground=bone"]).await;
    assert_eq!(run.code, 1, "{run:?}");
    assert!(
        run.stderr.contains("error: BAD_PARAMS: packshot: params.ground must be #rrggbb, #rgb or one of"),
        "{run:?}"
    );
    assert!(run.stderr.contains("not \"bone\""), "{run:?}");
    assert!(run.stderr.contains("names the option and the forms it accepts"), "the hint: {run:?}");
    assert_eq!(run.stdout, "");
    let balance = balance_of(&cli).await;
    assert_eq!((balance.balance, balance.held), (100, 0), "nothing held");
    let run = cli.run(&["jobs", "ls", "--json"]).await;
    let list: JobList = parsed(&run);
    assert!(list.jobs.is_empty(), "nothing queued: {list:?}");
}

// `studio webhooks listen`: the house's events forwarded, signed, to a local receiver.

/// `studio webhooks listen` follows the socket and posts each job change, as the socket sends
/// it, to the receiver with Standard Webhooks headers the client's verifier (the server's own
/// code) accepts under the run's secret and no other; `--count` ends it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn webhooks_listen_forwards_signed_events_in_order() {
    use studio_core::api::SocketMessage;
    use wiremock::matchers::{method, path};
    use wiremock::{Mock, MockServer, ResponseTemplate};

    let app = app_without_runner().await;
    let (cli, _dir, input) = develop_setup(&app, "cli-listen").await;
    let receiver = MockServer::start().await;
    Mock::given(method("POST")).and(path("/hook")).respond_with(ResponseTemplate::new(200)).mount(&receiver).await;
    let secret = "whsec_bGlzdGVuIHNlY3JldCBvZiB0aGUgdGVzdCBydW4=";
    let hook = format!("{}/hook", receiver.uri());
    let mut child =
        start(&cli, &["webhooks", "listen", "--forward-to", &hook, "--secret", secret, "--count", "3", "--json"]);
    let stdout = BufReader::new(child.stdout.take().expect("stdout"));
    // The socket opens before the develop is submitted: wait for the first forward's line.
    let submitted = submit(&cli, "upscale", &input, "1k").await;
    let (first, mut stdout) = read_until(stdout, |line| line.contains("\"status\":")).await;
    assert!(app.studio.develops().run_next_job().await.expect("run the job"));
    let status = tokio::task::spawn_blocking(move || child.wait().expect("wait")).await.expect("join");
    assert!(status.success(), "listen ends by itself after --count 3: {status:?}");
    let mut rest = String::new();
    stdout.read_to_string(&mut rest).expect("the rest of stdout");
    let lines: Vec<Value> =
        first.iter().map(String::as_str).chain(rest.lines()).map(|l| serde_json::from_str(l).expect("JSON")).collect();
    assert_eq!(lines.len(), 3, "{lines:?}");
    assert!(lines.iter().all(|l| l["status"] == 200 && l["event"] == "job" && l["error"].is_null()), "{lines:?}");

    let received = receiver.received_requests().await.expect("recorded");
    assert_eq!(received.len(), 3, "three forwards, each once");
    let mut seqs = Vec::new();
    for request in &received {
        let id = studio_client::verify_webhook(secret, &request.headers, &request.body)
            .unwrap_or_else(|e| panic!("the forward verifies: {e}"));
        let other = "whsec_b3RoZXIgc2VjcmV0IGVudGlyZWx5";
        assert!(studio_client::verify_webhook(other, &request.headers, &request.body).is_err());
        let mut altered = request.body.clone();
        altered.push(b' ');
        assert!(studio_client::verify_webhook(secret, &request.headers, &altered).is_err());
        let SocketMessage::Job { job } = serde_json::from_slice(&request.body).expect("the socket's message") else {
            panic!("a job change")
        };
        assert_eq!(job.id, submitted.job_id);
        assert_eq!(id, format!("msg_{}_{}", job.id, job.event_seq));
        seqs.push((job.event_seq, job.status));
    }
    let numbers: Vec<i64> = seqs.iter().map(|s| s.0).collect();
    assert!(numbers.windows(2).all(|w| w[0] < w[1]), "in eventSeq order: {seqs:?}");
    assert_eq!(seqs.first().map(|s| s.1), Some(JobStatus::Queued), "{seqs:?}");
    assert_eq!(seqs.last().map(|s| s.1), Some(JobStatus::Done), "{seqs:?}");
}

/// A receiver that answers 500 or redirects is reported, not retried and not followed; a
/// `--forward-to` that is not a URL is a usage error (exit 2).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn webhooks_listen_reports_refusals_and_follows_no_redirect() {
    use wiremock::matchers::{method, path};
    use wiremock::{Mock, MockServer, ResponseTemplate};

    let app = app_without_runner().await;
    let (cli, _dir, input) = develop_setup(&app, "cli-listen-refused").await;
    let run = cli.run(&["webhooks", "listen", "--forward-to", "not a url"]).await;
    assert_eq!(run.code, 2, "{run:?}");
    let receiver = MockServer::start().await;
    let elsewhere = format!("{}/elsewhere", receiver.uri());
    Mock::given(method("POST"))
        .and(path("/hook"))
        .respond_with(ResponseTemplate::new(301).insert_header("location", elsewhere.as_str()))
        .mount(&receiver)
        .await;
    let hook = format!("{}/hook", receiver.uri());
    let mut child = start(&cli, &["webhooks", "listen", "--forward-to", &hook, "--count", "1"]);
    let stdout = BufReader::new(child.stdout.take().expect("stdout"));
    submit(&cli, "upscale", &input, "1k").await;
    let (lines, _) = read_until(stdout, |line| line.contains("FAILED")).await;
    let status = tokio::task::spawn_blocking(move || child.wait().expect("wait")).await.expect("join");
    assert!(status.success(), "{status:?}");
    assert!(lines.last().expect("a line").contains("answered 301: redirects are not followed"), "{lines:?}");
    let received = receiver.received_requests().await.expect("recorded");
    assert_eq!(received.len(), 1, "sent once, the redirect not followed: {received:?}");
}

/// `studio webhooks add|ls|rotate|test|deliveries|rm`: the owner signs in for each change, the
/// secret is printed once on stdout, a key lists, and a member key cannot add one (exit 3 with
/// the role's hint).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn webhooks_add_ls_rotate_test_rm_round_trip() {
    use studio_core::api::{
        WebhookCreated, WebhookDeleted, WebhookDelivery, WebhookDeliveryPage, WebhookList, WebhookSecret,
    };
    use wiremock::matchers::{method, path};
    use wiremock::{Mock, MockServer, ResponseTemplate};

    let app = spawn(Backend::Sqlite, |c| c.webhooks.allow_http_loopback = true).await.expect("sqlite app");
    let cli = Cli::new();
    let email = unique_email("cli-webhooks");
    cli.signup(&app, &email).await;
    let receiver = MockServer::start().await;
    Mock::given(method("POST")).and(path("/hook")).respond_with(ResponseTemplate::new(204)).mount(&receiver).await;
    let hook = format!("{}/hook", receiver.uri());

    // A key (member) lists but cannot add: only an owner's or admin's session does.
    let run = cli.run(&["webhooks", "ls", "--json"]).await;
    assert_eq!(parsed::<WebhookList>(&run).webhooks.len(), 0);
    let run = cli.run(&["webhooks", "add", &hook, "--events", "job", "--password", PASSWORD, "--json"]).await;
    let created: WebhookCreated = parsed(&run);
    assert!(created.secret.starts_with("whsec_"), "{created:?}");
    assert_eq!(
        (created.webhook.url.as_str(), created.webhook.events.clone()),
        (hook.as_str(), vec!["job".to_string()])
    );
    assert!(run.stderr.contains("shown this once"), "{run:?}");
    let run =
        cli.run_with(&["webhooks", "add", &hook, "--events", "nope"], &[("STUDIO_PASSWORD", PASSWORD)], None).await;
    assert_eq!(run.code, 1, "{run:?}");
    assert!(run.stderr.contains("error: UNKNOWN_EVENT: ") && run.stderr.contains("hint: --events"), "{run:?}");

    let run = cli.run(&["webhooks", "ls"]).await;
    assert_eq!(run.code, 0, "{run:?}");
    let row = run.stdout.lines().find(|l| l.contains(&created.webhook.id)).expect("a row for the endpoint");
    assert!(row.contains(&hook) && row.ends_with("enabled"), "{row}");
    assert!(!run.stdout.contains(&created.secret), "a listing never shows the secret");

    // Rotate: a new secret, once, the old one signing beside it for a day.
    let rotated: WebhookSecret =
        parsed(&cli.run(&["webhooks", "rotate", &created.webhook.id, "--password", PASSWORD, "--json"]).await);
    assert!(rotated.secret.starts_with("whsec_") && rotated.secret != created.secret, "{rotated:?}");
    let left = rotated.previous_secret_expires_at - chrono::Utc::now();
    assert!(left > chrono::Duration::hours(23) && left <= chrono::Duration::hours(24), "{left:?}");

    // Test: a ping now; the receiver's 204 comes back and the delivery log shows it.
    let ping: WebhookDelivery =
        parsed(&cli.run(&["webhooks", "test", &created.webhook.id, "--password", PASSWORD, "--json"]).await);
    assert!(ping.ok && ping.status == Some(204) && ping.event == "ping", "{ping:?}");
    let received = receiver.received_requests().await.expect("recorded");
    let ping_request = received.last().expect("the ping arrived");
    for secret in [&rotated.secret, &created.secret] {
        assert!(studio_client::verify_webhook(secret, &ping_request.headers, &ping_request.body).is_ok());
    }
    let log: WebhookDeliveryPage = parsed(&cli.run(&["webhooks", "deliveries", &created.webhook.id, "--json"]).await);
    assert!(log.deliveries.iter().any(|d| d.delivery_id == ping.delivery_id), "{log:?}");
    let run = cli.run(&["webhooks", "deliveries", &created.webhook.id]).await;
    assert!(run.stdout.lines().any(|l| l.contains(&ping.delivery_id) && l.contains(" ping ")), "{run:?}");

    let deleted: WebhookDeleted =
        parsed(&cli.run(&["webhooks", "rm", &created.webhook.id, "--password", PASSWORD, "--json"]).await);
    assert_eq!(deleted, WebhookDeleted { id: created.webhook.id.clone(), deleted: true });
    assert_eq!(parsed::<WebhookList>(&cli.run(&["webhooks", "ls", "--json"]).await).webhooks.len(), 0);
    let run = cli.run(&["webhooks", "rm", &created.webhook.id, "--password", PASSWORD]).await;
    assert_eq!(run.code, 1, "{run:?}");
    assert!(run.stderr.contains("error: NOT_FOUND: "), "{run:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn verify_judges_a_files_credentials_offline_and_assets_show_prints_them() {
    let app = app().await;
    let (cli, dir, input) = develop_setup(&app, "cli-verify").await;
    let out = dir.path().join("signed.jpg");
    let args = ["develop", "upscale", "--image", utf8(&input), "--quality", "1k", "--wait", "-o", utf8(&out), "--json"];
    let status: DevelopStatus = parsed(&cli.run(&args).await);
    let result = status.result_asset_id.expect("a result asset");

    // Intact: exit 0 and a sentence; offline, so no key or server is needed (an unreachable URL).
    let offline = [("STUDIO_URL", "http://127.0.0.1:9")];
    let run = cli.run_with(&["verify", utf8(&out)], &offline, None).await;
    assert_eq!(run.code, 0, "{run:?}");
    assert!(run.stdout.contains("content credentials intact, signed by Studio"), "{run:?}");
    assert!(run.stdout.contains("action c2pa.edited (algorithmicallyEnhanced) by Studio local provider"), "{run:?}");
    assert!(run.stdout.contains("parentOf image (uploaded with the develop)"), "{run:?}");
    let run = cli.run(&["verify", "--json", utf8(&out)]).await;
    assert_eq!(run.code, 0, "{run:?}");
    let report: serde_json::Value = serde_json::from_str(run.stdout.trim()).expect("JSON");
    assert_eq!((report["validation"].as_str(), report["hasCredentials"].as_bool()), (Some("valid"), Some(true)));

    // Altered after signing: exit 1, saying so.
    let mut bytes = std::fs::read(&out).expect("saved");
    let at = bytes.len() - 64;
    bytes[at] ^= 0x5A;
    let altered = dir.path().join("altered.jpg");
    std::fs::write(&altered, &bytes).expect("write");
    let run = cli.run(&["verify", utf8(&altered)]).await;
    assert_eq!(run.code, 1, "{run:?}");
    assert!(run.stdout.contains("do NOT verify") && run.stdout.contains("Hashes do not match"), "{run:?}");

    // None: exit 2; a file that cannot be read: exit 1.
    let run = cli.run(&["verify", utf8(&input)]).await;
    assert_eq!(run.code, 2, "{run:?}");
    assert!(run.stdout.contains("carries no content credentials"), "{run:?}");
    let run = cli.run(&["verify", utf8(&dir.path().join("missing.jpg"))]).await;
    assert_eq!(run.code, 1, "{run:?}");
    assert!(run.stderr.contains("cannot read"), "{run:?}");

    // assets show prints the verdict under the origin; --json adds the report.
    let run = cli.run(&["assets", "show", &result]).await;
    assert_eq!(run.code, 0, "{run:?}");
    assert!(run.stdout.contains("Credentials: trusted (signed by Studio)\n"), "{run:?}");
    assert!(run.stdout.contains("  action c2pa.opened\n"), "{run:?}");
    let run = cli.run(&["assets", "show", &result, "--json"]).await;
    let shown: serde_json::Value = serde_json::from_str(run.stdout.trim()).expect("JSON");
    assert_eq!(shown["provenance"]["validation"], "trusted", "{shown}");
    assert_eq!(shown["asset"]["provenance"]["digitalSourceType"], "algorithmicallyEnhanced", "{shown}");
}
