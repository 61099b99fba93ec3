//! `studio memory`: what the studio remembers about the house and about you (§2.8): list,
//! add (or correct with `--replaces`), retire. Corrected and retired memories stay listed.

use anyhow::Result;
use clap::builder::NonEmptyStringValueParser;
use studio_client::api::{MemoryClass, MemoryRequest, MemoryScope};

use super::{Context, Usage, columns};

/// List, add and retire memories.
#[derive(clap::Args)]
pub(crate) struct Args {
    /// What to do.
    #[command(subcommand)]
    command: Command,
}

/// The `memory` subcommands.
#[derive(clap::Subcommand)]
enum Command {
    /// List the house's memories and your own, newest first (history included).
    #[command(alias = "list")]
    Ls(Ls),
    /// Remember a statement, or correct an active one with --replaces.
    Add(Add),
    /// Retire a memory (it stays listed as retired).
    #[command(alias = "rm")]
    Retire(Retire),
}

/// `studio memory ls`.
#[derive(clap::Args)]
struct Ls {
    /// Only active memories.
    #[arg(long)]
    active: bool,
    /// Print the server's {"memories": [...]} as JSON.
    #[arg(long)]
    json: bool,
}

/// `studio memory add`.
#[derive(clap::Args)]
struct Add {
    /// What to remember.
    #[arg(value_name = "STATEMENT", value_parser = NonEmptyStringValueParser::new())]
    statement: String,
    /// house (everyone in the house) or person (only you).
    #[arg(long, value_name = "SCOPE", default_value = "house", value_parser = ["house", "person"])]
    scope: String,
    /// fact, preference, lesson, playbook, outcome_pattern or image_reading.
    #[arg(long = "class", value_name = "CLASS", default_value = "fact",
          value_parser = ["fact", "preference", "lesson", "playbook", "outcome_pattern", "image_reading"])]
    class: String,
    /// Correct this active memory (same scope); it is kept, marked corrected.
    #[arg(long, value_name = "MEMORY_ID")]
    replaces: Option<String>,
    /// Print the stored memory as JSON.
    #[arg(long)]
    json: bool,
}

/// `studio memory retire`.
#[derive(clap::Args)]
struct Retire {
    /// The memory's id (`mem_...`).
    #[arg(value_name = "MEMORY_ID", value_parser = NonEmptyStringValueParser::new())]
    id: String,
    /// Print the retired memory as JSON.
    #[arg(long)]
    json: bool,
}

fn parsed<T: serde::de::DeserializeOwned>(flag: &str, value: &str) -> Result<T> {
    serde_json::from_value(serde_json::Value::String(value.into()))
        .map_err(|_| Usage(format!("{flag} {value} is not one of the accepted values")).into())
}

/// Run one `memory` subcommand.
pub(crate) async fn run(ctx: &Context, args: Args) -> Result<()> {
    let client = ctx.keyed_client()?;
    match args.command {
        Command::Ls(a) => {
            let mut list = client.memories().await?;
            if a.active {
                list.memories.retain(|m| m.status == studio_client::api::MemoryStatus::Active);
            }
            if a.json {
                println!("{}", serde_json::to_string(&list)?);
            } else if list.memories.is_empty() {
                println!("No memories.");
            } else {
                let rows: Vec<Vec<String>> = list
                    .memories
                    .iter()
                    .map(|m| {
                        vec![
                            m.id.clone(),
                            wire(&m.scope),
                            wire(&m.memory_class),
                            wire(&m.status),
                            m.statement.chars().take(80).collect(),
                        ]
                    })
                    .collect();
                print!("{}", columns(&["ID", "SCOPE", "CLASS", "STATUS", "STATEMENT"], &rows));
            }
        }
        Command::Add(a) => {
            let scope: MemoryScope = parsed("--scope", &a.scope)?;
            let memory_class: MemoryClass = parsed("--class", &a.class)?;
            let req = MemoryRequest {
                statement: a.statement,
                scope,
                memory_class,
                replaces_memory_id: a.replaces.clone(),
                kind: None,
                confidence: None,
            };
            let m = client.remember(&req).await?;
            if a.json {
                println!("{}", serde_json::to_string(&m)?);
            } else if let Some(old) = a.replaces {
                println!("{}  (corrects {old}, which is kept as history)", m.id);
            } else {
                println!("{}", m.id);
            }
        }
        Command::Retire(a) => {
            let m = client.retire_memory(&a.id).await?;
            if a.json {
                println!("{}", serde_json::to_string(&m)?);
            } else {
                println!("Retired {}.", m.id);
            }
        }
    }
    Ok(())
}

fn wire<T: serde::Serialize>(v: &T) -> String {
    serde_json::to_value(v).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default()
}
