//! Upload and develop: upload an image to the library, develop it with `upscale` at 2k, wait for
//! the develop, download the result, and report what it cost.
//!
//! Start a server in one terminal (`cargo run -p studio-server`), get a key (`studio signup`, or
//! the `first_key` example), then:
//!
//! ```text
//! STUDIO_URL=http://127.0.0.1:8787 STUDIO_API_KEY=studio_sk_... \
//!   cargo run -p studio-examples --example upload_and_develop -- garment.png garment-2k.jpg
//! ```
//!
//! `STUDIO_URL` defaults to `http://127.0.0.1:8787`. The output path defaults to
//! `<input stem>-2k.jpg` next to the input: the file holds the bytes the develop produced, in the
//! provider's format (JPEG for the built-in local provider), whatever extension you give it. The logic lives in
//! `studio_examples::upload_and_develop` so the integration test runs the same code.

use std::path::PathBuf;

use anyhow::Context;
use studio_client::Client;
use studio_examples::{upload_and_develop, url_and_key_from_env};

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let mut args = std::env::args_os().skip(1);
    let input = PathBuf::from(args.next().context("usage: upload_and_develop INPUT [OUTPUT]")?);
    let output = match args.next() {
        Some(path) => PathBuf::from(path),
        None => {
            let stem = input.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| "result".into());
            input.with_file_name(format!("{stem}-2k.jpg"))
        }
    };
    let (url, key) = url_and_key_from_env()?;
    let client = Client::builder(&url).api_key(key).build()?;

    let summary = upload_and_develop(&client, &input, &output).await?;
    println!("asset:    {}", summary.asset_id);
    println!("job:      {}", summary.job_id);
    println!("result:   {} -> {}", summary.result_asset_id, output.display());
    println!("tokens:   {} settled", summary.tokens_settled);
    println!("balance:  {} spendable", summary.balance_after);
    Ok(())
}
