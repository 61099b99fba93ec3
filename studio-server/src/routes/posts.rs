//! `/posts`: the house's notes board (§4.14): list newest first, write, read, and the author's
//! change and delete.

use aide::axum::ApiRouter;
use aide::axum::routing::get_with;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use schemars::JsonSchema;
use serde::Deserialize;
use studio_core::api::{NewPost, Post, PostPatch, PostsQuery};

use crate::auth::Auth;
use crate::error::AppError;
use crate::extract::{ApiJson, ApiPath, ApiQuery};
use crate::state::AppState;

/// Path of one post.
#[derive(Debug, Deserialize, JsonSchema)]
struct PostId {
    /// The post's id (`post_…`).
    id: String,
}

async fn list(
    State(state): State<AppState>,
    Auth(caller): Auth,
    ApiQuery(query): ApiQuery<PostsQuery>,
) -> Result<ApiJson<Vec<Post>>, AppError> {
    Ok(ApiJson(state.studio.posts().list_posts(&caller, query).await?))
}

async fn create(
    State(state): State<AppState>,
    Auth(caller): Auth,
    ApiJson(body): ApiJson<NewPost>,
) -> Result<(StatusCode, ApiJson<Post>), AppError> {
    Ok((StatusCode::CREATED, ApiJson(state.studio.posts().create_post(&caller, body).await?)))
}

async fn read(
    State(state): State<AppState>,
    Auth(caller): Auth,
    ApiPath(PostId { id }): ApiPath<PostId>,
) -> Result<ApiJson<Post>, AppError> {
    Ok(ApiJson(state.studio.posts().post(&caller, &studio_core::PostId::from(&id)).await?))
}

async fn patch(
    State(state): State<AppState>,
    Auth(caller): Auth,
    ApiPath(PostId { id }): ApiPath<PostId>,
    ApiJson(body): ApiJson<PostPatch>,
) -> Result<ApiJson<Post>, AppError> {
    Ok(ApiJson(state.studio.posts().patch_post(&caller, &studio_core::PostId::from(&id), body).await?))
}

async fn delete(
    State(state): State<AppState>,
    Auth(caller): Auth,
    ApiPath(PostId { id }): ApiPath<PostId>,
) -> Result<Response, AppError> {
    state.studio.posts().delete_post(&caller, &studio_core::PostId::from(&id)).await?;
    Ok(StatusCode::NO_CONTENT.into_response())
}

pub(super) fn router() -> ApiRouter<AppState> {
    ApiRouter::new()
        .api_route(
            "/posts",
            get_with(list, |op| {
                op.summary("The house's posts, newest first")
                    .description(
                        "An array of posts {id, title, body, authorId, createdAt, updatedAt}. `limit` 1-100 \
                         (default 50); `before` a post id: the page after it. Codes: 400 BAD_LIMIT, BAD_CURSOR, \
                         BAD_QUERY; 401.",
                    )
                    .tag("posts")
            })
            .post_with(create, |op| {
                op.summary("Write a post")
                    .description(
                        "JSON {title (at most 200 characters), body (at most 20,000)}, both required. Any role \
                         but viewer. 201 with the post. Codes: 400 BAD_BODY, TITLE_REQUIRED, BODY_REQUIRED, \
                         TOO_LONG (max); 401; 403 FORBIDDEN (viewer).",
                    )
                    .response::<201, axum::Json<Post>>()
                    .tag("posts")
            }),
        )
        .api_route(
            "/posts/{id}",
            get_with(read, |op| {
                op.summary("One post").description("Codes: 401; 404 NOT_FOUND (not a post of this house).").tag("posts")
            })
            .patch_with(patch, |op| {
                op.summary("Change a post (its author only)")
                    .description(
                        "JSON {title, body}, both optional; each given replaces the stored one. Codes: 400 \
                         BAD_BODY, TITLE_REQUIRED, BODY_REQUIRED, TOO_LONG; 401; 403 FORBIDDEN (not the author); \
                         404 NOT_FOUND.",
                    )
                    .tag("posts")
            })
            .delete_with(delete, |op| {
                op.summary("Delete a post (its author only)")
                    .description("204, no body. Codes: 401; 403 FORBIDDEN (not the author); 404 NOT_FOUND.")
                    .response_with::<204, (), _>(|r| r.description("Deleted"))
                    .tag("posts")
            }),
        )
}
