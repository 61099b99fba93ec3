//! The twelve tools: their definitions (title, description, input schema from the same Rust
//! types as the HTTP API, output schema where the shape is fixed, annotations), the dispatch to
//! the core, and the one mapping from a core refusal to a tool result with `isError: true`.

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use studio_core::JobId;
use studio_core::api::{
    Asset, AssetQuery, Balance, BuildReading, CastModelRequest, DevelopStatus, Model, ModelReading, PreflightRequest,
    PreflightResult, PriceBook, ReadBuildRequest, ReadModelRequest, RedrawRequest, StartDevelop, StartedDevelop,
    TakesResponse, Verdict, VerdictRequest,
};
use studio_core::{Caller, Studio};

/// Every tool, in the order tools/list gives them.
pub const TOOL_NAMES: [&str; 12] = [
    "list_capabilities",
    "check_balance",
    "list_assets",
    "preflight",
    "start_develop",
    "get_develop",
    "list_develops",
    "get_verdict",
    "redraw",
    "read_model",
    "read_build",
    "cast_model",
];

const DEFAULT_ASSETS: usize = 50;
const MAX_ASSETS: usize = studio_core::MAX_ASSET_PAGE as usize;

/// No input.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
pub(crate) struct NoInput {}

/// list_assets input.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ListAssetsInput {
    /// Narrow to one collection (folder) of the house.
    #[serde(default)]
    pub folder_id: Option<String>,
    /// How many, newest first: 1 to 200 (larger asks get 200); default 50.
    #[serde(default)]
    pub limit: Option<i64>,
}

/// list_develops input.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
pub struct ListDevelopsInput {
    /// How many, newest first: 1 to 100 (larger asks get 100); default 20.
    #[serde(default)]
    pub limit: Option<i64>,
    /// Only develops in this state: queued, running, done, failed or cancelled.
    #[serde(default)]
    pub status: Option<String>,
}

/// One develop, by its job id.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct JobIdInput {
    /// The job id start_develop returned.
    pub job_id: String,
}

/// list_assets output.
#[derive(Debug, Clone, Serialize, JsonSchema)]
struct AssetsOutput {
    /// Newest first.
    assets: Vec<Asset>,
    /// How many the house has in this view (the list may be cut to the limit).
    total: usize,
}

/// list_develops output.
#[derive(Debug, Clone, Serialize, JsonSchema)]
struct DevelopsOutput {
    /// Newest first.
    develops: Vec<DevelopStatus>,
}

fn schema<T: JsonSchema>() -> Value {
    let mut value = serde_json::to_value(schemars::schema_for!(T)).unwrap_or_else(|_| json!({"type": "object"}));
    if let Some(object) = value.as_object_mut() {
        object.remove("$schema");
        object.entry("type").or_insert(json!("object"));
        object.entry("properties").or_insert(json!({}));
    }
    value
}

/// One tool's definition.
struct Def {
    name: &'static str,
    title: &'static str,
    description: &'static str,
    input: fn() -> Value,
    output: Option<fn() -> Value>,
    /// Free and changes nothing.
    read_only: bool,
    /// Calling it again with the same input does no more.
    idempotent: bool,
}

fn defs() -> Vec<Def> {
    vec![
        Def {
            name: "list_capabilities",
            title: "List capabilities",
            description: "The develop tools this studio runs and their price in tokens per quality (1k, 2k, 4k).",
            input: schema::<NoInput>,
            output: Some(schema::<PriceBook>),
            read_only: true,
            idempotent: true,
        },
        Def {
            name: "check_balance",
            title: "Check balance",
            description: "The house's spendable tokens, its grant and top-up buckets, and tokens on hold.",
            input: schema::<NoInput>,
            output: Some(schema::<Balance>),
            read_only: true,
            idempotent: true,
        },
        Def {
            name: "list_assets",
            title: "List assets",
            description: "The house's library images, newest first (default 50, max 200); ids are develop inputs.",
            input: schema::<ListAssetsInput>,
            output: Some(schema::<AssetsOutput>),
            read_only: true,
            idempotent: true,
        },
        Def {
            name: "preflight",
            title: "Pre-flight check",
            description: "Free checks on up to six library images before paying: size, colour cast, exposure, light \
                          mismatch, cropped piece, busy ground, hard shadow. clear means no findings. lens narrows it.",
            input: schema::<PreflightRequest>,
            output: Some(schema::<PreflightResult>),
            read_only: true,
            idempotent: true,
        },
        Def {
            name: "start_develop",
            title: "Start a develop",
            description: "Hold the tool's price and queue a develop. inputs maps a role (image, model, garment, mask, \
                          background) to an asset id; folderId files the frame in a collection. Poll get_develop. Same idempotencyKey twice: same job, nothing held.",
            input: schema::<StartDevelop>,
            output: Some(schema::<StartedDevelop>),
            read_only: false,
            idempotent: false,
        },
        Def {
            name: "get_develop",
            title: "Get a develop",
            description: "One develop's status, tokens held and settled, and its result once done.",
            input: schema::<JobIdInput>,
            output: Some(schema::<DevelopStatus>),
            read_only: true,
            idempotent: true,
        },
        Def {
            name: "list_develops",
            title: "List develops",
            description: "The house's develops, newest first (default 20, max 100), optionally of one status.",
            input: schema::<ListDevelopsInput>,
            output: Some(schema::<DevelopsOutput>),
            read_only: true,
            idempotent: true,
        },
        Def {
            name: "get_verdict",
            title: "Get a verdict",
            description: "Score and marks for a develop's frame (sharpness, exposure, clipping, framing); retryFutile \
                          says a redraw cannot help.",
            input: schema::<VerdictRequest>,
            output: Some(schema::<Verdict>),
            read_only: true,
            idempotent: true,
        },
        Def {
            name: "redraw",
            title: "Redraw a frame",
            description: "Develop a flagged frame again at its price. Refused, charging nothing, when the verdict is \
                          retryFutile or unreadable.",
            input: schema::<RedrawRequest>,
            output: Some(schema::<TakesResponse>),
            read_only: false,
            idempotent: false,
        },
        Def {
            name: "read_model",
            title: "Read a model",
            description: "1 token: read a model's look (age, skin, eyes, hair, extras) from 1 to 6 reference frames.",
            input: schema::<ReadModelRequest>,
            output: Some(schema::<ModelReading>),
            read_only: false,
            idempotent: false,
        },
        Def {
            name: "read_build",
            title: "Read a build",
            description: "1 token: read height, build, presence, posture and hands from one full-length photograph.",
            input: schema::<ReadBuildRequest>,
            output: Some(schema::<BuildReading>),
            read_only: false,
            idempotent: false,
        },
        Def {
            name: "cast_model",
            title: "Cast a model",
            description: "Keep a model (name, reference frames, traits) so later develops cast it: pass its mdl_ id \
                          as an input.",
            input: schema::<CastModelRequest>,
            output: Some(schema::<Model>),
            read_only: false,
            idempotent: false,
        },
    ]
}

/// tools/list: every definition as MCP describes a tool.
pub(crate) fn definitions() -> Vec<Value> {
    defs()
        .into_iter()
        .map(|d| {
            let mut tool = json!({
                "name": d.name,
                "title": d.title,
                "description": d.description,
                "inputSchema": (d.input)(),
                "annotations": {
                    "title": d.title,
                    "readOnlyHint": d.read_only,
                    "destructiveHint": false,
                    "idempotentHint": d.idempotent,
                    "openWorldHint": false,
                },
            });
            if let Some(output) = d.output {
                tool["outputSchema"] = output();
            }
            tool
        })
        .collect()
}

/// A successful result: the JSON as text and as structured content.
fn success<T: Serialize>(value: &T) -> Value {
    let structured = serde_json::to_value(value).unwrap_or(Value::Null);
    let text = serde_json::to_string(&structured).unwrap_or_default();
    json!({"content": [{"type": "text", "text": text}], "structuredContent": structured, "isError": false})
}

/// The one mapping from a core refusal to a tool result: `isError: true` and
/// `structuredContent.error` = `CODE: message` (plus the extra fields the spec names).
pub(crate) fn refusal(e: studio_core::Error) -> Value {
    let error = format!("{}: {}", e.code, e.message);
    let mut structured = serde_json::Map::new();
    structured.insert("error".into(), Value::String(error.clone()));
    for (k, v) in e.extra {
        structured.insert(k, v);
    }
    json!({"content": [{"type": "text", "text": error}], "structuredContent": structured, "isError": true})
}

/// Arguments that do not fit the tool's input type: the refusal `BAD_ARGUMENTS` (spec §4.2.5:
/// a tools/call is always answered with a result).
pub(crate) fn bad_arguments(message: impl Into<String>) -> studio_core::Error {
    studio_core::Error::invalid("BAD_ARGUMENTS", message)
}

fn args<T: DeserializeOwned>(arguments: Value) -> studio_core::Result<T> {
    let arguments = if arguments.is_null() { json!({}) } else { arguments };
    serde_json::from_value(arguments)
        .map_err(|e| bad_arguments(format!("The arguments do not fit the tool's input schema: {e}.")))
}

/// Run a tool. Every outcome is a tool result (spec §4.2.5): a success, or a refusal with
/// `isError: true`, including a name that is no tool (`UNKNOWN_TOOL`) and arguments that do not
/// fit its input type (`BAD_ARGUMENTS`).
pub(crate) async fn call(studio: &Studio, caller: &Caller, name: &str, arguments: Value) -> Value {
    run(studio, caller, name, arguments).await.unwrap_or_else(refusal)
}

async fn run(studio: &Studio, caller: &Caller, name: &str, arguments: Value) -> studio_core::Result<Value> {
    match name {
        "list_capabilities" => {
            args::<NoInput>(arguments)?;
            Ok(success(&studio.billing().price_book(&studio.develops().runnable_tools())))
        }
        "check_balance" => {
            args::<NoInput>(arguments)?;
            studio.billing().balance(caller).await.map(|b| success(&b))
        }
        "list_assets" => {
            let input: ListAssetsInput = args(arguments)?;
            list_assets(studio, caller, input).await
        }
        "start_develop" => {
            let input: StartDevelop = args(arguments)?;
            studio.develops().start_develop(caller, input).await.map(|r| success(&r))
        }
        "get_develop" => {
            let input: JobIdInput = args(arguments)?;
            studio.develops().get_develop(caller, &JobId::from(input.job_id.trim())).await.map(|r| success(&r))
        }
        "list_develops" => {
            let input: ListDevelopsInput = args(arguments)?;
            let limit = input.limit.map(|l| l.min(studio_core::MAX_DEVELOPS));
            studio
                .develops()
                .list_develops(caller, input.status.as_deref(), limit)
                .await
                .map(|develops| success(&DevelopsOutput { develops }))
        }
        "preflight" => {
            let input: PreflightRequest = args(arguments)?;
            studio.develops().preflight(caller, input).await.map(|r| success(&r))
        }
        "get_verdict" => {
            let input: VerdictRequest = args(arguments)?;
            studio.develops().verdict(caller, input).await.map(|r| success(&r))
        }
        "redraw" => {
            let input: RedrawRequest = args(arguments)?;
            studio.develops().redraw(caller, input).await.map(|r| success(&r))
        }
        "read_model" => {
            let input: ReadModelRequest = args(arguments)?;
            studio.ai().read_model(caller, input).await.map(|r| success(&r))
        }
        "read_build" => {
            let input: ReadBuildRequest = args(arguments)?;
            studio.ai().read_build(caller, input).await.map(|r| success(&r))
        }
        "cast_model" => {
            let input: CastModelRequest = args(arguments)?;
            studio.models().cast_model(caller, input).await.map(|r| success(&r))
        }
        other => Err(studio_core::Error::invalid(
            "UNKNOWN_TOOL",
            format!("No tool named {other:?}; tools/list names the {} tools.", TOOL_NAMES.len()),
        )),
    }
}

async fn list_assets(studio: &Studio, caller: &Caller, input: ListAssetsInput) -> studio_core::Result<Value> {
    let limit = match input.limit {
        None => DEFAULT_ASSETS,
        Some(l) if l >= 1 => (l as usize).min(MAX_ASSETS),
        Some(_) => {
            return Err(studio_core::Error::invalid("BAD_LIMIT", format!("limit is 1 to {MAX_ASSETS}."))
                .with("max", MAX_ASSETS));
        }
    };
    let query = AssetQuery { folder_id: input.folder_id, limit: Some(limit.to_string()), cursor: None };
    let list = studio.library().list_assets(caller, query.clone()).await?;
    let total = studio.library().count_assets(caller, query.folder_id.as_deref()).await?;
    Ok(success(&AssetsOutput { assets: list.assets, total: total.max(0) as usize }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_tool_is_defined_once_in_order() {
        let defined: Vec<&str> = defs().iter().map(|d| d.name).collect();
        assert_eq!(defined, TOOL_NAMES.to_vec());
        for tool in definitions() {
            assert_eq!(tool["inputSchema"]["type"], "object", "{tool}");
            assert!(tool["description"].as_str().is_some_and(|d| d.len() <= 240), "short: {tool}");
        }
    }

    #[test]
    fn refusals_carry_the_code_and_extra_fields() {
        let result = refusal(studio_core::Error::insufficient(19, 4));
        assert_eq!(result["isError"], true);
        let error = result["structuredContent"]["error"].as_str().unwrap();
        assert!(error.starts_with("INSUFFICIENT_TOKENS: "), "{error}");
        assert_eq!(
            (result["structuredContent"]["need"].as_i64(), result["structuredContent"]["spendable"].as_i64()),
            (Some(19), Some(4))
        );
    }

    #[test]
    fn arguments_that_do_not_fit_are_a_bad_arguments_refusal() {
        for (arguments, field) in [
            (json!({"jobid": "x"}), "jobId"),
            (json!({"jobId": 5}), "string"),
            (json!("job_1"), "JobIdInput"),
            (json!([]), "JobIdInput"),
        ] {
            let e = args::<JobIdInput>(arguments.clone()).expect_err("does not fit");
            assert_eq!(e.code, "BAD_ARGUMENTS", "{arguments}");
            let result = refusal(e);
            assert_eq!(result["isError"], true);
            let error = result["structuredContent"]["error"].as_str().unwrap();
            assert!(error.starts_with("BAD_ARGUMENTS: ") && error.contains(field), "{arguments}: {error}");
            assert_eq!(result["content"][0]["text"], error);
        }
        // No arguments at all, or null, reads as {}; fields a type does not name are ignored.
        assert!(args::<NoInput>(Value::Null).is_ok());
        assert!(args::<NoInput>(json!({"extra": 1})).is_ok());
        assert_eq!(args::<JobIdInput>(json!({"jobId": "job_1", "x": 1})).unwrap().job_id, "job_1");
    }
}
