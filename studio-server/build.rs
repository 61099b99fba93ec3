//! Embeds the console (`console/`, ES modules and styles served as files) into the binary: one
//! `include_bytes!` per file with its content hash, written to `$OUT_DIR/console_files.rs`, so
//! neither building nor running the server needs Node, and no generated bundle is committed.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    let mut entries: Vec<_> = entries.flatten().map(|e| e.path()).collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            files(&path, out);
        } else if path.is_file() {
            out.push(path);
        }
    }
}

/// FNV-1a over the bytes: the file's ETag (a cache validator, not a security measure).
fn fnv(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3))
}

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("console");
    println!("cargo:rerun-if-changed={}", root.display());
    let mut list = Vec::new();
    files(&root, &mut list);
    let mut code = String::from("&[\n");
    for path in &list {
        println!("cargo:rerun-if-changed={}", path.display());
        let rel = path.strip_prefix(&root).expect("under console/").to_string_lossy().replace('\\', "/");
        let bytes = std::fs::read(path).expect("a console file");
        let _ = writeln!(
            code,
            "    ({rel:?}, include_bytes!({:?}), \"{:016x}\"),",
            path.display().to_string(),
            fnv(&bytes)
        );
    }
    code.push_str("]\n");
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("OUT_DIR")).join("console_files.rs");
    std::fs::write(out, code).expect("write console_files.rs");
}
