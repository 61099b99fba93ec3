//! `studio chat`: talk to the studio assistant (§4.15, docs/assistant.md). Without a
//! subcommand it is an interactive chat: each line is one turn, the answer is printed with the
//! actions it proposes and their price in tokens, and each action is applied only after a `y`
//! to its question. `/person` hands the session to support; `/quit` (or end of input) ends it.
//! The subcommands serve scripts: `new`, `ls`, `show`, `say` and `apply`, each with `--json`.

use std::io::{BufRead, Write};

use anyhow::{Context as _, Result};
use clap::builder::NonEmptyStringValueParser;
use studio_client::Client;
use studio_client::api::{ChatAction, ChatSessionsQuery, ChatTurn, ChatTurnRequest, ChatTurnsQuery};

use super::{Context, columns, print};

/// Chat with the studio assistant.
#[derive(clap::Args)]
pub(crate) struct Args {
    /// What to do; none: an interactive chat.
    #[command(subcommand)]
    command: Option<Command>,
    /// The interactive chat continues this session (`chat_...`) rather than starting one.
    #[arg(long = "session", value_name = "SESSION_ID")]
    session: Option<String>,
}

/// The `chat` subcommands.
#[derive(clap::Subcommand)]
enum Command {
    /// Start a session and print its id.
    New(New),
    /// Your sessions, latest first.
    #[command(alias = "list")]
    Ls(Ls),
    /// A session's turns, oldest first, with the actions proposed and their status.
    Show(Show),
    /// Say one thing and print the answer (nothing is applied).
    Say(Say),
    /// Apply an action the assistant proposed (it runs at most once, however often asked).
    Apply(Apply),
}

/// `studio chat new`.
#[derive(clap::Args)]
struct New {
    /// A title (at most 120 characters); otherwise the first message names it.
    #[arg(long)]
    title: Option<String>,
    /// Print the server's session as JSON.
    #[arg(long)]
    json: bool,
}

/// `studio chat ls`.
#[derive(clap::Args)]
struct Ls {
    /// How many (1-100, default 20).
    #[arg(long)]
    limit: Option<u32>,
    /// The `nextCursor` of the previous page.
    #[arg(long)]
    cursor: Option<String>,
    /// Print the server's {"sessions": [...], "nextCursor"} as JSON.
    #[arg(long)]
    json: bool,
}

/// `studio chat show`.
#[derive(clap::Args)]
struct Show {
    /// The session (`chat_...`).
    #[arg(value_name = "SESSION_ID", value_parser = NonEmptyStringValueParser::new())]
    id: String,
    /// Only turns after this seq.
    #[arg(long)]
    after: Option<i64>,
    /// How many turns (1-100, default 20).
    #[arg(long)]
    limit: Option<u32>,
    /// Print the server's {"session", "turns": [...], "nextAfter"} as JSON.
    #[arg(long)]
    json: bool,
}

/// `studio chat say`.
#[derive(clap::Args)]
struct Say {
    /// The session (`chat_...`).
    #[arg(value_name = "SESSION_ID", value_parser = NonEmptyStringValueParser::new())]
    session: String,
    /// What to say.
    #[arg(value_name = "MESSAGE", value_parser = NonEmptyStringValueParser::new())]
    message: String,
    /// Hand the session to a person from support instead of asking the assistant.
    #[arg(long = "to-person")]
    to_person: bool,
    /// Print the server's {"session", "turns": [...]} as JSON.
    #[arg(long)]
    json: bool,
}

/// `studio chat apply`.
#[derive(clap::Args)]
struct Apply {
    /// The session (`chat_...`).
    #[arg(value_name = "SESSION_ID", value_parser = NonEmptyStringValueParser::new())]
    session: String,
    /// The proposed action (`act_...`), as `show` or `say` prints it.
    #[arg(value_name = "ACTION_ID", value_parser = NonEmptyStringValueParser::new())]
    action: String,
    /// Print the server's {"action", "turn", "replayed"} as JSON.
    #[arg(long)]
    json: bool,
}

/// Run `studio chat`.
pub(crate) async fn run(ctx: &Context, args: Args) -> Result<()> {
    let client = ctx.keyed_client()?;
    let Some(command) = args.command else { return interactive(&client, args.session).await };
    match command {
        Command::New(a) => {
            let session = client.chat_start(a.title.as_deref()).await?;
            print(a.json, &session, |s| format!("{}\t{}\n", s.id, s.title))
        }
        Command::Ls(a) => {
            let list = client.chat_sessions(&ChatSessionsQuery { limit: a.limit, cursor: a.cursor }).await?;
            print(a.json, &list, |l| {
                if l.sessions.is_empty() {
                    return "No chat sessions.\n".into();
                }
                let rows: Vec<Vec<String>> = l
                    .sessions
                    .iter()
                    .map(|s| {
                        vec![
                            s.id.clone(),
                            s.status.clone(),
                            format!("{}/{}", s.turns, s.turn_limit),
                            s.updated_at.format("%Y-%m-%d %H:%M").to_string(),
                            s.title.chars().take(60).collect(),
                        ]
                    })
                    .collect();
                let mut out = columns(&["ID", "STATUS", "TURNS", "LAST", "TITLE"], &rows);
                if let Some(next) = &l.next_cursor {
                    out.push_str(&format!("more: --cursor {next}\n"));
                }
                out
            })
        }
        Command::Show(a) => {
            let page = ChatTurnsQuery { after: a.after, limit: a.limit };
            let list = client.chat_turns(&a.id, &page).await?;
            print(a.json, &list, |l| {
                let mut out = format!("{} ({}, {} turns)\n", l.session.title, l.session.status, l.session.turns);
                for t in &l.turns {
                    out.push_str(&turn_text(t, true));
                }
                if let Some(next) = l.next_after {
                    out.push_str(&format!("more: --after {next}\n"));
                }
                out
            })
        }
        Command::Say(a) => {
            let turn = ChatTurnRequest { message: a.message, to_person: a.to_person };
            let said = client.chat_turn(&a.session, &turn).await?;
            print(a.json, &said, |s| s.turns.iter().map(|t| turn_text(t, false)).collect())
        }
        Command::Apply(a) => {
            let applied = client.chat_apply(&a.session, &a.action).await?;
            print(a.json, &applied, |r| {
                let again = if r.replayed { " (applied earlier)" } else { "" };
                format!("{}{again}: {}\n", r.action.id, outcome(&r.action))
            })
        }
    }
}

/// A turn as text: who spoke, what was said, the actions proposed and any escalation.
/// `person` says whether the person's own turns are printed (not when echoing a live chat).
fn turn_text(t: &ChatTurn, person: bool) -> String {
    let mut out = match t.role.as_str() {
        "person" if !person => String::new(),
        "person" => format!("you: {}\n", t.text),
        "assistant" => format!("assistant: {}\n", t.text),
        "action" => format!("applied: {}\n", t.text.trim_start_matches("Applied: ")),
        _ => format!("studio: {}\n", t.text),
    };
    for (i, a) in t.actions.iter().enumerate() {
        out.push_str(&format!("  [{}] {} ({}, {})\n", i + 1, action_line(a), a.id, a.status));
    }
    out
}

/// What an action does and costs.
fn action_line(a: &ChatAction) -> String {
    let price = if a.price == 0 { "free".to_string() } else { format!("{} tokens", a.price) };
    format!("{}: {}, {price}", a.kind, a.summary)
}

/// What an applied action made.
fn outcome(a: &ChatAction) -> String {
    let result = a.result.clone().unwrap_or_default();
    let field = |k: &str| result.get(k).and_then(|v| v.as_str()).map(str::to_string);
    match a.kind.as_str() {
        "develop" => format!("develop {} queued", field("jobId").unwrap_or_default()),
        "pack" => format!("pack {} ({})", field("packId").unwrap_or_default(), field("status").unwrap_or_default()),
        _ => format!("look {} created", field("id").unwrap_or_default()),
    }
}

/// One line from stdin, or None at its end.
fn read_line(prompt: &str) -> Result<Option<String>> {
    let mut err = std::io::stderr();
    write!(err, "{prompt}").and_then(|()| err.flush()).ok();
    let mut line = String::new();
    let read = std::io::stdin().lock().read_line(&mut line).context("cannot read stdin")?;
    Ok((read > 0).then(|| line.trim().to_string()))
}

/// The interactive chat.
async fn interactive(client: &Client, session: Option<String>) -> Result<()> {
    let id = match session {
        Some(id) => id,
        None => client.chat_start(None).await?.id,
    };
    eprintln!("Session {id}. Each line is a turn; /person hands it to support, /quit ends it.");
    while let Some(line) = read_line("> ")? {
        let to_person = line == "/person";
        let message = match line.as_str() {
            "" => continue,
            "/quit" | "/exit" => break,
            "/person" => "I would like to talk to a person.".to_string(),
            _ => line,
        };
        let said = client.chat_turn(&id, &ChatTurnRequest { message, to_person }).await?;
        for turn in &said.turns {
            print!("{}", turn_text(turn, false));
        }
        if let Some(escalation) = said.turns.iter().find_map(|t| t.escalation.as_ref()) {
            println!(
                "Support will answer on ticket {}: `studio support show {}`.",
                escalation.ticket_id, escalation.ticket_id
            );
            break;
        }
        let proposed: Vec<&ChatAction> = said.turns.iter().flat_map(|t| &t.actions).collect();
        for (i, action) in proposed.iter().enumerate() {
            let question = format!("Apply [{}] {}? [y/N] ", i + 1, action_line(action));
            let Some(yes) = read_line(&question)? else { return Ok(()) };
            if !matches!(yes.to_ascii_lowercase().as_str(), "y" | "yes") {
                continue;
            }
            match client.chat_apply(&id, &action.id).await {
                Ok(applied) => println!("applied: {}", outcome(&applied.action)),
                Err(e) => {
                    eprintln!("not applied: {e}");
                    eprintln!("hint: {}", crate::hints::hint(&e));
                }
            }
        }
    }
    println!("Session {id}: `studio chat --session {id}` continues it.");
    Ok(())
}
