//! Integration tests: the real server on 127.0.0.1:0 driven through studio-client, on SQLite
//! and (when configured) PostgreSQL.

mod account;
mod analyst;
mod assets;
mod auth;
mod bad_images;
mod billing;
mod brand;
mod client;
mod console;
mod develops;
mod docs;
mod factory;
mod folders;
mod internal;
mod invitations;
mod isolation;
mod keys;
mod lanes;
mod library;
mod lookbook;
mod looks_develop;
mod mail;
mod market;
mod mcp;
mod models;
mod packs;
mod pipelines;
mod posts;
mod preflight;
mod ratelimit;
mod seats;
mod sockets;
mod support;
mod tokens;
