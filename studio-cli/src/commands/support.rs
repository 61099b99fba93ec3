//! `studio support`: raise a ticket (with screenshots from files), reply on a thread, note a
//! report that needs no answer, list your threads and read one (§4.11, docs/support.md).

use anyhow::Result;
use clap::builder::NonEmptyStringValueParser;
use studio_client::api::{NewTicket, TicketCreated, TicketsQuery};

use super::{Context, Usage, columns, print};

/// Raise, list and read support threads.
#[derive(clap::Args)]
pub(crate) struct Args {
    /// What to do.
    #[command(subcommand)]
    command: Command,
}

/// The `support` subcommands.
#[derive(clap::Subcommand)]
enum Command {
    /// Tell support what happened: a new ticket, a reply (--ticket), or a note (--no-reply).
    New(New),
    /// Your threads, newest message first.
    #[command(alias = "list")]
    Ls(Ls),
    /// One of your threads, oldest message first.
    Show(Show),
}

/// `studio support new`.
#[derive(clap::Args)]
struct New {
    /// What happened (at least 10 characters for a new ticket).
    #[arg(value_name = "MESSAGE", value_parser = NonEmptyStringValueParser::new())]
    body: String,
    /// A subject line.
    #[arg(long)]
    subject: Option<String>,
    /// develop, billing, identity, quality, access, api or other.
    #[arg(long, value_parser = ["develop", "billing", "identity", "quality", "access", "api", "other"])]
    topic: Option<String>,
    /// Reply on this thread of yours (`tkt_...`) instead of raising a new one.
    #[arg(long = "ticket", value_name = "TICKET_ID")]
    ticket_id: Option<String>,
    /// Attach an image file (sent first, then linked); up to 6.
    #[arg(long = "screenshot", value_name = "FILE")]
    screenshots: Vec<std::path::PathBuf>,
    /// Where to answer besides the thread.
    #[arg(long = "contact", value_name = "EMAIL")]
    contact_email: Option<String>,
    /// Nothing to answer: keep it as a noted report.
    #[arg(long = "no-reply")]
    no_reply: bool,
    /// Print the server's answer as JSON.
    #[arg(long)]
    json: bool,
}

/// `studio support ls`.
#[derive(clap::Args)]
struct Ls {
    /// How many (1-100, default 50).
    #[arg(long)]
    limit: Option<u32>,
    /// The `nextCursor` of the previous page.
    #[arg(long)]
    cursor: Option<String>,
    /// Print the server's {"tickets": [...], "nextCursor"} as JSON.
    #[arg(long)]
    json: bool,
}

/// `studio support show`.
#[derive(clap::Args)]
struct Show {
    /// The thread's id (`tkt_...`).
    #[arg(value_name = "TICKET_ID", value_parser = NonEmptyStringValueParser::new())]
    id: String,
    /// Print the server's {"status", "messages": [...]} as JSON.
    #[arg(long)]
    json: bool,
}

/// Run one `support` subcommand.
pub(crate) async fn run(ctx: &Context, args: Args) -> Result<()> {
    let client = ctx.keyed_client()?;
    match args.command {
        Command::New(a) => {
            if a.screenshots.len() > 6 {
                return Err(Usage("at most 6 --screenshot files".into()).into());
            }
            let mut links = Vec::new();
            for path in &a.screenshots {
                let bytes = std::fs::read(path).map_err(|e| Usage(format!("{}: {e}", path.display())))?;
                let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
                links.push(client.upload_screenshot(bytes, &name).await?.url);
            }
            let ticket = NewTicket {
                subject: a.subject,
                body: a.body,
                topic: a.topic,
                contact_email: a.contact_email,
                screenshots: (!links.is_empty()).then_some(links),
                ticket_id: a.ticket_id,
                needs_reply: a.no_reply.then_some(false),
                ..NewTicket::default()
            };
            let created = client.raise_ticket(&ticket).await?;
            print(a.json, &created, |c| match c {
                TicketCreated::Ticket(t) if t.message_count <= 1 => format!(
                    "Opened support ticket {} ({}); replies show in `studio support show {}`.\n",
                    t.id, t.status, t.id
                ),
                TicketCreated::Ticket(t) => format!(
                    "Added your message to support ticket {} ({}, {} messages); see `studio support show {}`.\n",
                    t.id, t.status, t.message_count, t.id
                ),
                TicketCreated::Noted(n) => format!("Noted ({}); no reply will come.\n", n.report_id),
            })
        }
        Command::Ls(a) => {
            let list = client.support_tickets(&TicketsQuery { limit: a.limit, cursor: a.cursor }).await?;
            print(a.json, &list, |l| {
                if l.tickets.is_empty() {
                    return "No support threads.\n".into();
                }
                let rows: Vec<Vec<String>> = l
                    .tickets
                    .iter()
                    .map(|t| {
                        vec![
                            t.id.clone(),
                            t.status.clone(),
                            t.unread_count.to_string(),
                            t.last_message_at.format("%Y-%m-%d %H:%M").to_string(),
                            t.summary.chars().take(60).collect(),
                        ]
                    })
                    .collect();
                let mut out = columns(&["ID", "STATUS", "UNREAD", "LAST", "SUMMARY"], &rows);
                if let Some(next) = &l.next_cursor {
                    out.push_str(&format!("more: --cursor {next}\n"));
                }
                out
            })
        }
        Command::Show(a) => {
            let thread = client.support_thread(&a.id).await?;
            print(a.json, &thread, |t| {
                let mut out = format!("status: {}\n", t.status);
                for m in &t.messages {
                    out.push_str(&format!(
                        "\n{} · {} ({})\n{}\n",
                        m.created_at.format("%Y-%m-%d %H:%M"),
                        m.author_name,
                        m.author,
                        m.content
                    ));
                }
                out
            })
        }
    }
}
