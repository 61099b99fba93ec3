//! `/api/toolkit/presets`: the house's standing preset (§2.3, §4.5).

use aide::axum::ApiRouter;
use aide::axum::routing::get_with;
use axum::extract::State;
use studio_core::api::{PresetRequest, PresetResponse};

use crate::auth::Auth;
use crate::error::AppError;
use crate::extract::ApiJson;
use crate::state::AppState;

async fn read(State(state): State<AppState>, Auth(caller): Auth) -> Result<ApiJson<PresetResponse>, AppError> {
    Ok(ApiJson(state.studio.lookbook().preset(&caller).await?))
}

async fn save(
    State(state): State<AppState>,
    Auth(caller): Auth,
    ApiJson(req): ApiJson<PresetRequest>,
) -> Result<ApiJson<PresetResponse>, AppError> {
    Ok(ApiJson(state.studio.lookbook().save_preset(&caller, req).await?))
}

pub(super) fn router() -> ApiRouter<AppState> {
    ApiRouter::new().api_route(
        "/api/toolkit/presets",
        get_with(read, |op| {
            op.summary("The house's standing preset")
                .description("Never 404: the defaults until one is saved.")
                .tag("lookbook")
        })
        .post_with(save, |op| {
            op.summary("Save the standing preset")
                .description(
                    "Checked against the composer's vocabulary. Any role but viewer. `sizes` absent leaves the \
                     stored list alone; an empty array clears it. 400 BAD_BODY, BAD_AESTHETIC, BAD_BACKGROUND, \
                     KEYS_REQUIRED, UNKNOWN_VARIATION, TOO_MANY_FRAMES, BAD_SIZES, BAD_DIMENSIONS; 404 \
                     ASSET_NOT_FOUND.",
                )
                .tag("lookbook")
        }),
    )
}
