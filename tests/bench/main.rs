//! studio-bench: starts a release `studio-server` on the embedded default, loads it, measures
//! each of the benchmark rows beside a baseline measured in the same run, and prints one table
//! (docs/performance.md). A report, never a test: a missed target prints MISS and the exit code
//! stays 0; a row that cannot run at all prints ERROR and makes the exit code 1, so the smoke
//! mode in CI catches a harness that rotted.
//!
//! ```text
//! cargo build --release -p studio-server -p studio-tests --bin studio-bench
//! target/release/studio-bench [--smoke] [--rows assets,submit,...] [--server PATH]
//! ```

mod assets;
mod common;
mod growth;
mod idle;
mod load;
mod local;
mod lookbook;
mod mcp;
mod packs;
mod pipelines;
mod search;
mod segmentation;
mod sockets;
mod submit;
mod thumbs;
mod uploads;
mod webhooks;

use std::path::PathBuf;

use common::{Options, Row, print_table};

/// Every row group, in the order of the table.
const GROUPS: &[&str] = &[
    "assets",
    "submit",
    "packs",
    "uploads",
    "local",
    "mcp",
    "sockets",
    "idle",
    "growth",
    "lookbook",
    "pipelines",
    "search",
    "thumbs",
    "segmentation",
    "webhooks",
];

/// Row groups that call studio-core in this process and start no server.
const IN_PROCESS: &[&str] = &["local", "lookbook", "pipelines", "segmentation"];

async fn run_group(name: &str, opts: &Options) -> anyhow::Result<Vec<Row>> {
    match name {
        "assets" => assets::run(opts).await,
        "submit" => submit::run(opts).await,
        "packs" => packs::run(opts).await,
        "uploads" => uploads::run(opts).await,
        "local" => local::run(opts).await,
        "mcp" => mcp::run(opts).await,
        "sockets" => sockets::run(opts).await,
        "idle" => idle::run(opts).await,
        "growth" => growth::run(opts).await,
        "thumbs" => thumbs::run(opts).await,
        "lookbook" => lookbook::run(opts).await,
        "pipelines" => pipelines::run(opts).await,
        "search" => search::run(opts).await,
        "segmentation" => segmentation::run(opts).await,
        "webhooks" => webhooks::run(opts).await,
        other => anyhow::bail!("unknown row group {other}"),
    }
}

fn usage() -> ! {
    eprintln!("usage: studio-bench [--smoke] [--rows {}] [--server PATH]", GROUPS.join(","));
    std::process::exit(2);
}

#[tokio::main]
async fn main() {
    let mut smoke = false;
    let mut rows: Vec<String> = GROUPS.iter().map(|s| s.to_string()).collect();
    let mut server_bin =
        std::env::current_exe().ok().and_then(|p| Some(p.parent()?.join("studio-server"))).unwrap_or_default();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--smoke" => smoke = true,
            "--rows" => {
                rows = args.next().unwrap_or_else(|| usage()).split(',').map(|s| s.trim().to_string()).collect()
            }
            "--server" => server_bin = PathBuf::from(args.next().unwrap_or_else(|| usage())),
            "--help" | "-h" => usage(),
            _ => usage(),
        }
    }
    if rows.iter().any(|r| !IN_PROCESS.contains(&r.as_str())) && !server_bin.is_file() {
        eprintln!(
            "no studio-server at {}: build it first (cargo build --release -p studio-server) or pass --server",
            server_bin.display()
        );
        std::process::exit(2);
    }
    let work = tempfile::tempdir().expect("scratch directory");
    let postgres = ["STUDIO_BENCH_POSTGRES_URL", "STUDIO_TEST_POSTGRES_URL"]
        .iter()
        .find_map(|k| std::env::var(k).ok().filter(|v| !v.trim().is_empty()))
        .map(|v| v.trim_end_matches('/').to_string());
    let opts = Options { smoke, server_bin, work: work.path().to_path_buf(), postgres };
    eprintln!("studio-bench: {} mode, server {}", if smoke { "smoke" } else { "full" }, opts.server_bin.display());
    let mut table = Vec::new();
    let mut failed = false;
    for name in &rows {
        eprintln!("== {name}");
        match run_group(name, &opts).await {
            Ok(r) => {
                print_table(&r);
                table.extend(r);
            }
            Err(e) => {
                failed = true;
                eprintln!("row group {name} failed: {e:#}");
                table.push(Row::info(name.clone(), format!("ERROR: {e:#}"), "", ""));
            }
        }
    }
    println!();
    println!(
        "studio-bench {} — {}",
        if smoke { "smoke" } else { "full" },
        chrono::Utc::now().format("%Y-%m-%d %H:%M UTC")
    );
    println!();
    print_table(&table);
    if failed {
        std::process::exit(1);
    }
}
