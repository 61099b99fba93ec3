//! First key: sign up on a local Studio, mint an organization key with the session, and use the
//! key to read the house's balance.
//!
//! Start a server (`cargo run -p studio-server`), then:
//! `cargo run -p studio-examples --example first_key -- you@example.com "a long password"`
//! (`STUDIO_URL` overrides the default `http://127.0.0.1:8787`).

use studio_client::Client;

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let mut args = std::env::args().skip(1);
    let email = args.next().unwrap_or_else(|| format!("demo-{}@example.com", std::process::id()));
    let password = args.next().unwrap_or_else(|| "a demo password".to_string());
    let url = std::env::var("STUDIO_URL").unwrap_or_else(|_| "http://127.0.0.1:8787".to_string());

    let client = Client::builder(&url).build()?;
    let signed = client.sign_up(&email, &password, None).await?;
    println!("signed up {} in {}", signed.account.user.email, signed.account.organization.name);

    let key = client.with_session(&signed.session).mint_key("first_key example", None).await?;
    let secret = key.key.unwrap_or_default();
    println!("minted key {} ({}): {secret}", key.id, key.prefix);
    println!("keep it: it is shown only once. export STUDIO_API_KEY={secret}");

    let balance = client.with_api_key(&secret).balance().await?;
    println!(
        "balance: {} tokens spendable ({} grant, {} top-up, {} held)",
        balance.balance, balance.grant, balance.topup, balance.held
    );
    Ok(())
}
