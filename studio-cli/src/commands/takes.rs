//! `studio takes`: develop landed frames again (spec §4.3 takes), optionally with a direction,
//! and show the standing instruction the server offers back.

use anyhow::Result;
use clap::builder::NonEmptyStringValueParser;
use studio_client::api::{TakesRequest, TakesResponse};

use super::{Context, count};

/// Take landed (done) frames again, each with a fresh hold; every frame is held before any is
/// queued, so a refusal holds nothing. With --direction, the server may offer to keep the
/// direction as a standing instruction.
#[derive(clap::Args)]
pub(crate) struct Args {
    /// The frames to take again (1 to 100 job ids of done jobs).
    #[arg(required = true, value_name = "JOB_ID", value_parser = NonEmptyStringValueParser::new())]
    job_ids: Vec<String>,
    /// What to change this time, e.g. "less contrast on the collar"; sent verbatim.
    #[arg(long, value_name = "TEXT", value_parser = NonEmptyStringValueParser::new())]
    direction: Option<String>,
    /// Taking the same frames again with the same key returns the same takes, holding nothing.
    #[arg(long, value_name = "KEY", value_parser = NonEmptyStringValueParser::new())]
    idempotency_key: Option<String>,
    /// Print the server's {"jobs": [{"jobId", "sourceJobId", "tokens"}], "offer"?, "replayed"?}
    /// as JSON.
    #[arg(long)]
    json: bool,
}

/// Ask for the takes and report them.
pub(crate) async fn run(ctx: &Context, args: Args) -> Result<()> {
    let request = TakesRequest {
        job_ids: Some(args.job_ids.clone()),
        direction: args.direction.clone(),
        idempotency_key: args.idempotency_key.clone(),
    };
    let answer = ctx.keyed_client()?.take_again(&request).await?;
    if args.json {
        println!("{}", serde_json::to_string(&answer)?);
    } else {
        print!("{}", render(&answer));
    }
    Ok(())
}

/// The human-readable form: one line per take, the total, then the offer.
fn render(a: &TakesResponse) -> String {
    let mut out = String::new();
    for take in &a.jobs {
        out +=
            &format!("job {} takes {} again, {} held\n", take.job_id, take.source_job_id, count(take.tokens, "token"));
    }
    let total: i64 = a.jobs.iter().map(|t| t.tokens).sum();
    if a.replayed {
        out += &format!("Replayed: the same {} as before; nothing new held\n", count(a.jobs.len(), "take"));
    } else {
        out += &format!("Queued {}, {} held\n", count(a.jobs.len(), "take"), count(total, "token"));
    }
    if let Some(offer) = &a.offer {
        out +=
            &format!("Offer: keep \"{}\" as a standing instruction for {}\n", offer.text, offer.scope_tools.join(", "));
        for standing in &offer.already_standing {
            out +=
                &format!("  already standing ({}): \"{}\" [{}]\n", standing.scope_phrase, standing.text, standing.id);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use studio_client::api::{RetakeOffer, TakeJob};

    #[test]
    fn renders_takes_and_the_offer() {
        let take = |n: u32| TakeJob { job_id: format!("job_new{n}"), source_job_id: format!("job_{n}"), tokens: 9 };
        let mut a = TakesResponse { jobs: vec![take(1), take(2)], offer: None, replayed: false };
        assert_eq!(
            render(&a),
            "job job_new1 takes job_1 again, 9 tokens held\njob job_new2 takes job_2 again, 9 tokens held\nQueued 2 takes, 18 tokens held\n"
        );
        a.offer = Some(RetakeOffer {
            text: "softer light".into(),
            scope_tools: vec!["upscale".into()],
            evidence: vec![],
            already_standing: vec![],
        });
        a.replayed = true;
        let text = render(&a);
        assert!(text.contains("Replayed: the same 2 takes as before"), "{text}");
        assert!(text.ends_with("Offer: keep \"softer light\" as a standing instruction for upscale\n"), "{text}");
    }
}
