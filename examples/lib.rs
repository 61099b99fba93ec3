//! Runnable examples for Studio users; see the `[[example]]` targets in this folder's Cargo.toml.
//! Run one against a local server: `cargo run -p studio-examples --example first_key`.
