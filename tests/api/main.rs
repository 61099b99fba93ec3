//! Integration tests: the real server on 127.0.0.1:0 driven through studio-client, on SQLite
//! and (when configured) PostgreSQL.

mod assets;
mod auth;
mod develops;
mod docs;
mod folders;
mod keys;
mod library;
mod packs;
mod tokens;
