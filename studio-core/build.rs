//! Rebuild studio-core when a migration file is added or changed: `sqlx::migrate!` embeds the
//! migrations at compile time, and without this cargo would keep a binary whose migrations lag
//! the directory (a database migrated by a newer build then refuses the older one at start-up).

fn main() {
    println!("cargo:rerun-if-changed=migrations");
}
