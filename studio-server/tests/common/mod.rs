//! What the process suites (processes, chaos, crash) share: starting the real `studio-server`
//! binary on a free port over a data directory and a database (SIGKILLed when dropped), fresh
//! PostgreSQL databases, houses with a member key, test images, and the seeded suites' PRNG, seed
//! and assertions that name the seed.

// Each suite is its own crate and uses only part of this module.
#![allow(dead_code, unused_macros)]

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;
use std::time::Duration;

use studio_client::Client;

/// The longest wait for any one thing to happen (a job to end, a pack to build).
pub(crate) const WAIT: Duration = Duration::from_secs(180);

/// A `studio-server` process. Dropping it sends SIGKILL and reaps it.
pub(crate) struct Server {
    child: Child,
    /// `http://127.0.0.1:PORT`.
    pub(crate) base: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Server {
    /// Start a process over `data_dir` (SQLite there when `database_url` is None) running
    /// `runners` develops at once, with `env` added; waits until it answers `/health`.
    pub(crate) async fn start(
        data_dir: &Path,
        database_url: Option<&str>,
        runners: usize,
        env: &[(&str, String)],
    ) -> Server {
        let port = free_port();
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_studio-server"));
        cmd.env("STUDIO_LISTEN", format!("127.0.0.1:{port}"))
            .env("STUDIO_DATA_DIR", data_dir)
            .env("STUDIO_RUNNER_CONCURRENCY", runners.to_string())
            .env("STUDIO_RUNNER_LEASE_SECS", "3")
            // The suites sign up several houses at once from one address.
            .env("STUDIO_RATE_LIMIT_PER_MIN", "0")
            .env("RUST_LOG", "error")
            .stdout(Stdio::inherit())
            .stderr(Stdio::inherit());
        match database_url {
            Some(url) => cmd.env("STUDIO_DATABASE_URL", url),
            None => cmd.env_remove("STUDIO_DATABASE_URL"),
        };
        for (name, value) in env {
            cmd.env(name, value);
        }
        let base = format!("http://127.0.0.1:{port}");
        // Dropping the Server kills and reaps the process on every path, the panic below included.
        let server = Server { child: cmd.spawn().expect("start studio-server"), base };
        let client = server.client();
        for _ in 0..300 {
            if client.health().await.is_ok() {
                return server;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        panic!("studio-server did not become healthy on {}", server.base);
    }

    /// A client with no credential.
    pub(crate) fn client(&self) -> Client {
        Client::builder(&self.base).build().expect("client")
    }

    /// A client on this process with `key`.
    pub(crate) fn with_key(&self, key: &str) -> Client {
        Client::builder(&self.base).api_key(key).build().expect("client")
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").expect("bind").local_addr().expect("addr").port()
}

/// A string no other run or process uses.
pub(crate) fn unique() -> String {
    format!(
        "{:x}{:x}",
        std::process::id(),
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos()
    )
}

/// A fresh database on the server `STUDIO_TEST_POSTGRES_URL` names, dropped with the value;
/// None (the skip recorded) when unset.
pub(crate) async fn fresh_postgres() -> Option<studio_testdb::TestDatabase> {
    studio_testdb::TestDatabase::create("proc").await
}

/// The database a process over `data_dir` and `database_url` uses, opened by the test.
pub(crate) async fn storage(data_dir: &Path, database_url: Option<&str>) -> std::sync::Arc<dyn studio_core::Storage> {
    let url = match database_url {
        Some(url) => url.to_string(),
        None => format!("sqlite://{}", data_dir.join("studio.db").display()),
    };
    studio_core::open_storage(&url).await.expect("storage")
}

/// A house signed up on `server`.
pub(crate) struct House {
    /// A member key's client.
    pub(crate) key: Client,
    /// The owner's session token.
    pub(crate) session: String,
    /// The house.
    pub(crate) org_id: studio_core::OrgId,
}

/// Sign up on `server` and mint a member key.
pub(crate) async fn house(server: &Server) -> House {
    let anon = server.client();
    let email = format!("proc-{}@example.com", unique());
    let signed = anon.sign_up(&email, "a long enough password", None).await.expect("sign up");
    let key = anon.with_session(&signed.session).mint_key("proc", None).await.expect("mint").key.expect("secret");
    House { key: anon.with_api_key(key), session: signed.session, org_id: signed.account.organization.id.into() }
}

/// A `w` × `h` PNG whose pixels depend on `seed`.
pub(crate) fn png(w: u32, h: u32, seed: u8) -> Vec<u8> {
    let mut out = Vec::new();
    image::RgbImage::from_fn(w, h, |x, y| image::Rgb([(x as u8).wrapping_add(seed), (y % 251) as u8, seed]))
        .write_to(&mut std::io::Cursor::new(&mut out), image::ImageFormat::Png)
        .expect("encode");
    out
}

/// SplitMix64: a small PRNG whose whole state is the seed, so a run is replayed from it.
#[derive(Debug, Clone)]
pub(crate) struct Rng(u64);

impl Rng {
    /// A generator for `seed`; `stream` separates independent sequences of one seed.
    pub(crate) fn new(seed: u64, stream: u64) -> Rng {
        let mut rng = Rng(seed ^ stream.wrapping_mul(0xA076_1D64_78BD_642F));
        rng.next_u64();
        rng
    }

    /// The next 64 bits.
    pub(crate) fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n` > 0).
    pub(crate) fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    /// True with probability `percent` / 100.
    pub(crate) fn chance(&mut self, percent: u64) -> bool {
        self.next_u64() % 100 < percent
    }

    /// One element of a non-empty slice.
    pub(crate) fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// The run's seed: `STUDIO_CHAOS_SEED` when set, else taken from the clock; one per test
/// process. The first call prints it and makes every later panic print it too, so a failure of
/// a seeded suite always names the seed that replays it.
pub(crate) fn seed() -> u64 {
    static SEED: OnceLock<u64> = OnceLock::new();
    *SEED.get_or_init(|| {
        let seed = match std::env::var("STUDIO_CHAOS_SEED") {
            Ok(v) if !v.trim().is_empty() => v.trim().parse().expect("STUDIO_CHAOS_SEED is a whole number"),
            _ => std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos() as u64,
        };
        eprintln!("STUDIO_CHAOS_SEED={seed}");
        let report = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            report(info);
            eprintln!("reproduce with STUDIO_CHAOS_SEED={seed}");
        }));
        seed
    })
}

/// `assert!` whose message names the seed that replays the run.
macro_rules! ensure {
    ($cond:expr, $($msg:tt)+) => {
        assert!($cond, "{}; reproduce with STUDIO_CHAOS_SEED={}", format!($($msg)+), crate::common::seed())
    };
}

/// `assert_eq!` whose message names the seed that replays the run.
macro_rules! ensure_eq {
    ($left:expr, $right:expr, $($msg:tt)+) => {
        assert_eq!($left, $right, "{}; reproduce with STUDIO_CHAOS_SEED={}", format!($($msg)+), crate::common::seed())
    };
}

/// `panic!` whose message names the seed that replays the run.
macro_rules! fail {
    ($($msg:tt)+) => {
        panic!("{}; reproduce with STUDIO_CHAOS_SEED={}", format!($($msg)+), crate::common::seed())
    };
}
