//! studio-client: typed async access to a Studio deployment.
//!
//! ```no_run
//! # async fn demo() -> Result<(), studio_client::Error> {
//! let client = studio_client::Client::builder("http://127.0.0.1:8787")
//!     .api_key("studio_sk_...")
//!     .build()?;
//! let balance = client.balance().await?;
//! println!("{} tokens spendable", balance.balance);
//! # Ok(()) }
//! ```
//!
//! Wire types come from `studio_core::api` (re-exported as [`api`]); this crate compiles no
//! database, image or blob-store code.

mod client;
mod develops;
mod error;
mod events;

pub use crate::client::{Client, ClientBuilder, Credential, SignedIn, UploadOptions};
pub use crate::develops::{DevelopSubmit, InputSource};
pub use crate::error::Error;
pub use crate::events::EventStream;
pub use studio_core::api;
