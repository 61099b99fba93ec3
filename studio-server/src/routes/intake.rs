//! `POST /api/intake`: record a house's intake answers (§4.10's intake object, §4.15).

use aide::axum::ApiRouter;
use aide::axum::routing::post_with;
use axum::extract::State;
use studio_core::api::{IntakeAnswers, IntakeRecorded};

use crate::auth::Auth;
use crate::error::AppError;
use crate::extract::ApiJson;
use crate::respond::Created;
use crate::state::AppState;

async fn record(
    State(state): State<AppState>,
    Auth(caller): Auth,
    ApiJson(answers): ApiJson<IntakeAnswers>,
) -> Result<Created<IntakeRecorded>, AppError> {
    Ok(Created(state.studio.accounts().record_intake(&caller, answers).await?))
}

pub(super) fn router() -> ApiRouter<AppState> {
    ApiRouter::new().api_route(
        "/api/intake",
        post_with(record, |op| {
            op.summary("Record intake answers")
                .description(
                    "201. Lists of at most 20 answers of 200 characters; painText at most 4,000. Completes the \
                     `intake` onboarding step. 400 BAD_INTAKE, EMPTY_INTAKE.",
                )
                .tag("account")
        }),
    )
}
