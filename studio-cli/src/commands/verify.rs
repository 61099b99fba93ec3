//! `studio verify FILE`: check a file's content credentials (C2PA) offline, with the reader the
//! server summarises provenance with. Exit 0 when they are intact, 1 when tampered or invalid
//! (or the file cannot be read), 2 when the file carries none; each with a sentence.

use std::path::PathBuf;
use std::process::ExitCode;

use studio_client::api::{CredentialValidation, ProvenanceReport};
use studio_core::provenance::read_credentials;

/// `studio verify`.
#[derive(clap::Args)]
pub(crate) struct Args {
    /// The file to check (JPEG, PNG, WebP or any other format C2PA embeds in).
    file: PathBuf,
    /// Print the whole report as JSON: {hasCredentials, digitalSourceType, signer, validation,
    /// actions, ingredients, findings, ...}.
    #[arg(long)]
    json: bool,
}

/// Check the file; the exit code is the verdict.
pub(crate) fn run(args: &Args) -> ExitCode {
    let bytes = match std::fs::read(&args.file) {
        Ok(bytes) => bytes,
        Err(e) => {
            eprintln!("error: cannot read {}: {e}", args.file.display());
            return ExitCode::FAILURE;
        }
    };
    let report = read_credentials(&bytes, &format_of(&bytes, &args.file), None);
    if args.json {
        match serde_json::to_string(&report) {
            Ok(json) => println!("{json}"),
            Err(e) => eprintln!("error: {e}"),
        }
    } else {
        print!("{}", describe(&report, &args.file));
    }
    match report.summary.validation {
        None => ExitCode::from(2),
        Some(CredentialValidation::Invalid) => ExitCode::FAILURE,
        Some(CredentialValidation::Valid | CredentialValidation::Trusted) => ExitCode::SUCCESS,
    }
}

/// The media type from the file's first bytes, else its extension as C2PA reads formats.
fn format_of(bytes: &[u8], path: &std::path::Path) -> String {
    if bytes.starts_with(&[0xFF, 0xD8, 0xFF]) {
        "image/jpeg".into()
    } else if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        "image/png".into()
    } else if bytes.len() > 12 && &bytes[..4] == b"RIFF" && &bytes[8..12] == b"WEBP" {
        "image/webp".into()
    } else {
        path.extension().map(|e| e.to_string_lossy().to_lowercase()).unwrap_or_default()
    }
}

/// The verdict in a sentence, then what the manifest says.
fn describe(report: &ProvenanceReport, file: &std::path::Path) -> String {
    let name = file.display();
    let signer = report.summary.signer.as_deref().unwrap_or("an unnamed signer");
    let mut out = match report.summary.validation {
        None => format!("{name} carries no content credentials.\n"),
        Some(CredentialValidation::Invalid) => {
            let why = match &report.error {
                Some(error) => error.clone(),
                None => report
                    .findings
                    .iter()
                    .filter(|f| f.code != "signingCredential.untrusted")
                    .map(|f| f.explanation.clone().unwrap_or_else(|| f.code.clone()))
                    .collect::<Vec<_>>()
                    .join("; "),
            };
            format!(
                "{name}: its content credentials do NOT verify: it was altered after signing, or they are malformed ({why}).\n"
            )
        }
        Some(CredentialValidation::Trusted) => {
            format!("{name}: content credentials intact, signed by {signer} (trusted).\n")
        }
        Some(CredentialValidation::Valid) => {
            format!(
                "{name}: content credentials intact, signed by {signer} (a signer this machine has no trust list for).\n"
            )
        }
    };
    if report.summary.has_credentials {
        out.push_str(&super::assets::provenance_lines(report));
    }
    out
}
