//! `/api/internal/analyst/...`: the analyst's aggregate reads (analyst token), each answering
//! figures from what the service stores (docs/internal.md); actions, recordings, asset
//! previews and the support read (docs/support.md) in their own files.

mod actions;
mod assets;
mod recordings;
mod support;

use aide::axum::ApiRouter;
use aide::axum::routing::get_with;
use aide::transform::TransformOperation;
use axum::extract::State;
use studio_core::api::{
    AnalystFailures, AnalystFunnel, AnalystInvitations, AnalystInvitationsQuery, AnalystQuery, AnalystSnapshot,
    ChatQuality, Deliverability, ExperimentList, ExperimentsQuery, FlagList, FlagsQuery, Learnings, LongHorizon,
    LongHorizonQuery, ProductUsage, Rejections,
};

use crate::auth::{Analyst, MachineAuth};
use crate::error::AppError;
use crate::extract::{ApiJson, ApiQuery};
use crate::state::AppState;

type Read<T> = Result<ApiJson<T>, AppError>;

async fn snapshot(
    State(s): State<AppState>,
    MachineAuth(m, _): MachineAuth<Analyst>,
    ApiQuery(q): ApiQuery<AnalystQuery>,
) -> Read<AnalystSnapshot> {
    Ok(ApiJson(s.studio.internal().snapshot(&m, q).await?))
}

async fn funnel(
    State(s): State<AppState>,
    MachineAuth(m, _): MachineAuth<Analyst>,
    ApiQuery(q): ApiQuery<AnalystQuery>,
) -> Read<AnalystFunnel> {
    Ok(ApiJson(s.studio.internal().funnel(&m, q).await?))
}

async fn product_usage(
    State(s): State<AppState>,
    MachineAuth(m, _): MachineAuth<Analyst>,
    ApiQuery(q): ApiQuery<AnalystQuery>,
) -> Read<ProductUsage> {
    Ok(ApiJson(s.studio.internal().product_usage(&m, q).await?))
}

async fn failures(
    State(s): State<AppState>,
    MachineAuth(m, _): MachineAuth<Analyst>,
    ApiQuery(q): ApiQuery<AnalystQuery>,
) -> Read<AnalystFailures> {
    Ok(ApiJson(s.studio.internal().failures(&m, q).await?))
}

async fn deliverability(
    State(s): State<AppState>,
    MachineAuth(m, _): MachineAuth<Analyst>,
    ApiQuery(q): ApiQuery<AnalystQuery>,
) -> Read<Deliverability> {
    Ok(ApiJson(s.studio.internal().deliverability(&m, q).await?))
}

async fn chat_quality(
    State(s): State<AppState>,
    MachineAuth(m, _): MachineAuth<Analyst>,
    ApiQuery(q): ApiQuery<AnalystQuery>,
) -> Read<ChatQuality> {
    Ok(ApiJson(s.studio.internal().chat_quality(&m, q).await?))
}

async fn learnings(
    State(s): State<AppState>,
    MachineAuth(m, _): MachineAuth<Analyst>,
    ApiQuery(q): ApiQuery<AnalystQuery>,
) -> Read<Learnings> {
    Ok(ApiJson(s.studio.internal().learnings(&m, q).await?))
}

async fn rejections(
    State(s): State<AppState>,
    MachineAuth(m, _): MachineAuth<Analyst>,
    ApiQuery(q): ApiQuery<AnalystQuery>,
) -> Read<Rejections> {
    Ok(ApiJson(s.studio.internal().rejections(&m, q).await?))
}

async fn longhorizon(
    State(s): State<AppState>,
    MachineAuth(m, _): MachineAuth<Analyst>,
    ApiQuery(q): ApiQuery<LongHorizonQuery>,
) -> Read<LongHorizon> {
    Ok(ApiJson(s.studio.internal().longhorizon(&m, q).await?))
}

async fn invitations(
    State(s): State<AppState>,
    MachineAuth(m, _): MachineAuth<Analyst>,
    ApiQuery(q): ApiQuery<AnalystInvitationsQuery>,
) -> Read<AnalystInvitations> {
    Ok(ApiJson(s.studio.internal().invitations(&m, q).await?))
}

async fn experiments(
    State(s): State<AppState>,
    MachineAuth(m, _): MachineAuth<Analyst>,
    ApiQuery(q): ApiQuery<ExperimentsQuery>,
) -> Read<ExperimentList> {
    Ok(ApiJson(s.studio.internal().analyst_experiments(&m, q).await?))
}

async fn feature_flags(
    State(s): State<AppState>,
    MachineAuth(m, _): MachineAuth<Analyst>,
    ApiQuery(q): ApiQuery<FlagsQuery>,
) -> Read<FlagList> {
    Ok(ApiJson(s.studio.internal().analyst_flags(&m, q).await?))
}

fn doc<'t>(op: TransformOperation<'t>, summary: &'static str, description: &'static str) -> TransformOperation<'t> {
    op.summary(summary).description(description).tag("internal")
}

const WINDOW: &str = "Analyst token only (401 otherwise, and when STUDIO_ANALYST_TOKEN is unset). `hours`: the \
    window back from now, default 168, clamped to 1-2160; `limit` where rows are listed, default 50, clamped to \
    1-200.";

pub(super) fn router() -> ApiRouter<AppState> {
    ApiRouter::new()
        .merge(actions::router())
        .merge(assets::router())
        .merge(recordings::router())
        .merge(support::router())
        .api_route(
            "/api/internal/analyst/snapshot",
            get_with(snapshot, |op| doc(op, "The platform now: houses, people, keys, assets, jobs, tokens", WINDOW)),
        )
        .api_route(
            "/api/internal/analyst/funnel",
            get_with(funnel, |op| {
                doc(op, "Sign-ups in the window and how many reached key, upload, develop, purchase", WINDOW)
            }),
        )
        .api_route(
            "/api/internal/analyst/product-usage",
            get_with(product_usage, |op| doc(op, "Develops by tool, uploads, packs and lanes, per day", WINDOW)),
        )
        .api_route(
            "/api/internal/analyst/failures",
            get_with(failures, |op| doc(op, "Failed develops by tool and stored reason", WINDOW)),
        )
        .api_route(
            "/api/internal/analyst/deliverability",
            get_with(deliverability, |op| doc(op, "The mail archive by outcome, kind and day", WINDOW)),
        )
        .api_route(
            "/api/internal/analyst/chat-quality",
            get_with(chat_quality, |op| doc(op, "The AI reader's recorded outcomes, by purpose", WINDOW)),
        )
        .api_route(
            "/api/internal/analyst/learnings",
            get_with(learnings, |op| doc(op, "Memories created, corrected and retired, by class", WINDOW)),
        )
        .api_route(
            "/api/internal/analyst/rejections",
            get_with(rejections, |op| doc(op, "Frames taken again (takes and redraws), by tool and day", WINDOW)),
        )
        .api_route(
            "/api/internal/analyst/longhorizon",
            get_with(longhorizon, |op| {
                doc(
                    op,
                    "One house's weekly spend, develops and uploads, with its autonomy",
                    "Analyst token only. `organizationId` required (400 ORGANIZATION_REQUIRED; 404 \
                     ORGANIZATION_NOT_FOUND); `hours` default 2016 (twelve weeks), clamped to 1-2160.",
                )
            }),
        )
        .api_route(
            "/api/internal/analyst/invitations",
            get_with(invitations, |op| {
                doc(
                    op,
                    "Requests to be let in, with counts by status",
                    "Analyst token only. `hours`, `limit` as the other reads; `status` pending, invited, declined \
                     or all (default; 400 BAD_STATUS otherwise).",
                )
            }),
        )
        .api_route(
            "/api/internal/analyst/experiments",
            get_with(experiments, |op| {
                doc(
                    op,
                    "The experiments, newest first",
                    "Analyst token only. `limit`; `status` all, complete, draft, exposure_frozen, paused, running, \
                     stopped (400 BAD_STATUS); `experimentId` only that one; `before` the page after an id.",
                )
            }),
        )
        .api_route(
            "/api/internal/analyst/feature-flags",
            get_with(feature_flags, |op| {
                doc(
                    op,
                    "The feature flags, by key",
                    "Analyst token only. `limit`; `active` true, false or all (400 BAD_ACTIVE); `after` a key.",
                )
            }),
        )
}
