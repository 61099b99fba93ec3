//! `studio folders`: the house's collections (spec §2.3, §4.4): the tree, new ones, renames.

use std::collections::{HashMap, HashSet};

use anyhow::Result;
use studio_client::api::{Folder, FolderResponse};

use super::Context;

/// List, create and rename the house's collections (folders).
#[derive(clap::Args)]
pub(crate) struct Args {
    /// What to do.
    #[command(subcommand)]
    command: Command,
}

/// The `folders` subcommands.
#[derive(clap::Subcommand)]
enum Command {
    /// The collections as a tree (--json: the server's flat list, oldest first).
    #[command(alias = "list")]
    Ls(Ls),
    /// Create a collection, at the root or under --parent.
    New(New),
    /// Rename a collection.
    Rename(Rename),
}

/// `studio folders ls`.
#[derive(clap::Args)]
struct Ls {
    /// Print the server's flat {"folders": [...]} as JSON.
    #[arg(long)]
    json: bool,
}

/// `studio folders new`.
#[derive(clap::Args)]
struct New {
    /// The collection's name (1 to 200 characters).
    name: String,
    /// Create it inside this collection [default: at the root].
    #[arg(long, value_name = "ID")]
    parent: Option<String>,
    /// Print the server's {"folder": {...}} as JSON.
    #[arg(long)]
    json: bool,
}

/// `studio folders rename`.
#[derive(clap::Args)]
struct Rename {
    /// The collection's id.
    id: String,
    /// Its new name.
    name: String,
    /// Print the server's {"folder": {...}} as JSON.
    #[arg(long)]
    json: bool,
}

/// Run one `folders` subcommand.
pub(crate) async fn run(ctx: &Context, args: Args) -> Result<()> {
    let client = ctx.keyed_client()?;
    match args.command {
        Command::Ls(a) => {
            let list = client.list_folders().await?;
            if a.json {
                println!("{}", serde_json::to_string(&list)?);
            } else if list.folders.is_empty() {
                println!("No collections.");
            } else {
                print!("{}", tree(&list.folders));
            }
        }
        Command::New(a) => {
            let made = client.create_folder(&a.name, a.parent.as_deref()).await?;
            print_folder(&made, a.json, "Created")?;
        }
        Command::Rename(a) => {
            let renamed = client.rename_folder(&a.id, &a.name).await?;
            print_folder(&renamed, a.json, "Renamed")?;
        }
    }
    Ok(())
}

/// One created or renamed collection.
fn print_folder(answer: &FolderResponse, json: bool, verb: &str) -> Result<()> {
    if json {
        println!("{}", serde_json::to_string(answer)?);
        return Ok(());
    }
    let f = &answer.folder;
    let place = match &f.parent_id {
        Some(parent) => format!("in {parent}"),
        None => "at the root".into(),
    };
    println!("{verb} collection \"{}\" ({}) {place}", f.name, f.id);
    Ok(())
}

/// The collections indented under their parents, siblings oldest first as listed. A collection
/// whose parent is not in the list is shown at the root.
fn tree(folders: &[Folder]) -> String {
    let ids: HashSet<&str> = folders.iter().map(|f| f.id.as_str()).collect();
    let mut children: HashMap<Option<&str>, Vec<&Folder>> = HashMap::new();
    for f in folders {
        let parent = f.parent_id.as_deref().filter(|p| ids.contains(p) && *p != f.id);
        children.entry(parent).or_default().push(f);
    }
    let mut out = String::new();
    let mut shown = HashSet::new();
    for root in children.get(&None).into_iter().flatten() {
        branch(root, 0, &children, &mut shown, &mut out);
    }
    // Only a cycle in the parents leaves collections unshown: show them at the root.
    for f in folders {
        if !shown.contains(f.id.as_str()) {
            branch(f, 0, &children, &mut shown, &mut out);
        }
    }
    out
}

/// `folder` and everything under it, each once.
fn branch<'a>(
    folder: &'a Folder,
    depth: usize,
    children: &HashMap<Option<&str>, Vec<&'a Folder>>,
    shown: &mut HashSet<&'a str>,
    out: &mut String,
) {
    if !shown.insert(folder.id.as_str()) {
        return;
    }
    *out += &format!("{}{}  ({})\n", "  ".repeat(depth), folder.name, folder.id);
    for child in children.get(&Some(folder.id.as_str())).into_iter().flatten() {
        branch(child, depth + 1, children, shown, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn folder(id: &str, name: &str, parent: Option<&str>) -> Folder {
        Folder {
            id: id.into(),
            name: name.into(),
            parent_id: parent.map(Into::into),
            created_at: "2025-01-02T03:04:05Z".parse().unwrap(),
        }
    }

    #[test]
    fn indents_children_under_parents() {
        let folders = [
            folder("f1", "SS25", None),
            folder("f2", "AW25", None),
            folder("f3", "Dresses", Some("f1")),
            folder("f4", "Silk", Some("f3")),
            folder("f5", "Orphan", Some("gone")),
            folder("f6", "Loop A", Some("f7")),
            folder("f7", "Loop B", Some("f6")),
        ];
        assert_eq!(
            tree(&folders),
            "SS25  (f1)\n  Dresses  (f3)\n    Silk  (f4)\nAW25  (f2)\nOrphan  (f5)\nLoop A  (f6)\n  Loop B  (f7)\n"
        );
    }
}
