//! Packs checked by independent archive tools besides Python's zipfile: `unzip -t`, `7z t` and
//! `bsdtar -tf` (Debian's unzip, p7zip-full and libarchive-tools). CI installs all three and sets
//! `STUDIO_TEST_ARCHIVE_TOOLS=1`, which makes a missing tool a failure; elsewhere (the README's
//! test command on a machine with only the Rust toolchain) a tool that is not installed is
//! skipped with a note, and every tool that is installed must accept the archive.

use std::io::ErrorKind;
use std::path::Path;
use std::process::Command;

/// The tools and their test arguments, in the order they run.
const TOOLS: [(&str, &[&str]); 3] = [("unzip", &["-tq"]), ("7z", &["t"]), ("bsdtar", &["-tf"])];

/// Assert that every archive tool accepts the zip at `path`. Panics with the tool's own output
/// when one refuses it, and (under `STUDIO_TEST_ARCHIVE_TOOLS=1`) when one is missing.
pub fn assert_tools_accept(path: &Path) {
    let required = std::env::var("STUDIO_TEST_ARCHIVE_TOOLS").as_deref() == Ok("1");
    for (tool, args) in TOOLS {
        match Command::new(tool).args(args).arg(path).output() {
            Ok(out) => assert!(
                out.status.success(),
                "{tool} {} refused {}:\n{}{}",
                args.join(" "),
                path.display(),
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            ),
            Err(e) if e.kind() == ErrorKind::NotFound && !required => {
                eprintln!("note: {tool} is not installed; the archive was not checked with it");
            }
            Err(e) => panic!("{tool} could not run ({e}): install unzip, p7zip-full and libarchive-tools"),
        }
    }
}
