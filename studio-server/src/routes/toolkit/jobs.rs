//! `/api/toolkit/jobs/...`: submit a develop (streamed multipart), the `since` backfill, cancel,
//! duplicate, and the job socket that pushes every job change of the house.

use aide::axum::ApiRouter;
use aide::axum::routing::{get_with, post_with};
use axum::extract::ws::{Message, Utf8Bytes, WebSocket, WebSocketUpgrade, rejection::WebSocketUpgradeRejection};
use axum::extract::{DefaultBodyLimit, Multipart, Query, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use futures_util::{SinkExt, TryStreamExt};
use schemars::JsonSchema;
use serde::Deserialize;
use studio_core::api::{
    CancelResponse, DevelopStatus, DuplicateRequest, DuplicateResponse, ErrorBody, JobList, JobsQuery, SubmitResponse,
};
use studio_core::{Caller, Error, MAX_INPUTS, Studio, SubmitForm, check_input_role};
use tokio::sync::broadcast::error::{RecvError, TryRecvError};

use crate::auth::{Auth, Credential, SocketAuth};
use crate::error::AppError;
use crate::extract::{ApiJson, ApiPath, OptionalJson};
use crate::respond::Accepted;
use crate::state::AppState;

use super::{bad_form, read_rest, text_field};

/// Path of one job.
#[derive(Debug, Deserialize, JsonSchema)]
struct JobId {
    /// The job's id.
    id: String,
}

/// The most a submit request may send: the images at 12 MB each plus slack, so an oversized
/// image is read to its end and refused with 413 rather than cut off.
const SUBMIT_BODY_LIMIT: usize = (MAX_INPUTS + 2) * 12 * 1024 * 1024;
/// The largest text field of a submit form.
const MAX_FIELD_BYTES: usize = 8 * 1024;
/// How often an idle socket is pinged, so proxies keep it open and dead peers are noticed.
const SOCKET_PING_SECS: u64 = 25;
/// How often an open socket's credential is checked again: a revoked key, a signed-out session
/// or a removed seat loses its socket within this (plus one database read).
const SOCKET_RECHECK_MS: u64 = 2_500;
/// A socket's read buffer and its largest incoming message: clients send nothing but control
/// frames (pong, close; at most 125 bytes). The WebSocket library's default buffer, 128 KiB,
/// is allocated per socket and zeroed on every read attempt, which at a thousand sockets cost
/// 130 MiB of RSS and a third of the server's CPU (docs/performance.md, row 7).
const SOCKET_READ_BYTES: usize = 4 * 1024;

/// Stream each image part into the blob store as it arrives; collect the text fields.
async fn submit_job(
    State(state): State<AppState>,
    Auth(caller): Auth,
    multipart: Result<Multipart, axum::extract::multipart::MultipartRejection>,
) -> Result<Accepted<SubmitResponse>, AppError> {
    state.studio.develops().check_can_develop(&caller)?;
    let mut multipart = multipart.map_err(bad_form)?;
    let mut form = SubmitForm::default();
    if let Err(e) = read_submit(&state.studio, &caller, &mut multipart, &mut form).await {
        // The client sees the refusal; the images already stored are forgotten.
        read_rest(&mut multipart).await;
        state.studio.develops().abandon_inputs(std::mem::take(&mut form.files)).await;
        return Err(e);
    }
    Ok(Accepted(state.studio.develops().submit_develop(&caller, form).await?, false))
}

async fn read_submit(
    studio: &Studio,
    caller: &Caller,
    multipart: &mut Multipart,
    form: &mut SubmitForm,
) -> Result<(), AppError> {
    while let Some(field) = multipart.next_field().await.map_err(bad_form)? {
        let name = field.name().unwrap_or_default().to_string();
        if field.file_name().is_some() {
            // Checked before a byte is stored.
            check_input_role(form.files.iter().map(|f| f.role()), &name)?;
            let stream = field.map_err(|e| e.body_text());
            form.files.push(studio.develops().stage_input(caller, &name, Box::pin(stream)).await?);
            continue;
        }
        let value = text_field(field, &name, MAX_FIELD_BYTES).await?;
        match name.as_str() {
            "tool" => form.tool = Some(value),
            "idempotencyKey" => form.idempotency_key = Some(value),
            "brandId" => form.brand_id = Some(value),
            _ => form.fields.push((name, value)),
        }
    }
    Ok(())
}

async fn list_jobs(
    State(state): State<AppState>,
    Auth(caller): Auth,
    query: Result<Query<JobsQuery>, axum::extract::rejection::QueryRejection>,
) -> Result<ApiJson<JobList>, AppError> {
    let Query(query) =
        query.map_err(|_| Error::invalid("BAD_SINCE", "since is a non-negative whole number (an eventSeq)."))?;
    Ok(ApiJson(state.studio.develops().jobs_since(&caller, query.since.as_deref()).await?))
}

async fn get_job(
    State(state): State<AppState>,
    Auth(caller): Auth,
    ApiPath(path): ApiPath<JobId>,
) -> Result<ApiJson<DevelopStatus>, AppError> {
    Ok(ApiJson(state.studio.develops().get_develop(&caller, &studio_core::JobId::from(&path.id)).await?))
}

async fn cancel_job(
    State(state): State<AppState>,
    Auth(caller): Auth,
    ApiPath(path): ApiPath<JobId>,
) -> Result<ApiJson<CancelResponse>, AppError> {
    Ok(ApiJson(state.studio.develops().cancel_job(&caller, &studio_core::JobId::from(&path.id)).await?))
}

async fn duplicate_job(
    State(state): State<AppState>,
    Auth(caller): Auth,
    ApiPath(path): ApiPath<JobId>,
    OptionalJson(req): OptionalJson<DuplicateRequest>,
) -> Result<Accepted<DuplicateResponse>, AppError> {
    Ok(Accepted(state.studio.develops().duplicate_job(&caller, &studio_core::JobId::from(&path.id), req).await?, false))
}

/// 426 with the shared envelope when the request is not a WebSocket upgrade.
fn upgrade_required() -> Response {
    let body = ErrorBody {
        error: "UPGRADE_REQUIRED".to_string(),
        message: "This route is a WebSocket: send Connection: Upgrade and Upgrade: websocket.".to_string(),
        extra: Default::default(),
    };
    let mut response = (StatusCode::UPGRADE_REQUIRED, axum::Json(body)).into_response();
    response.headers_mut().insert(header::UPGRADE, HeaderValue::from_static("websocket"));
    response
}

async fn job_socket(
    State(state): State<AppState>,
    SocketAuth(caller, credential): SocketAuth,
    upgrade: Result<WebSocketUpgrade, WebSocketUpgradeRejection>,
) -> Response {
    let Ok(upgrade) = upgrade else { return upgrade_required() };
    upgrade
        .read_buffer_size(SOCKET_READ_BYTES)
        .max_message_size(SOCKET_READ_BYTES)
        .max_frame_size(SOCKET_READ_BYTES)
        .on_upgrade(move |socket| serve_socket(state, caller.org_id, credential, socket))
}

/// Push every event of the house until the peer leaves. The events already waiting are written
/// together and flushed once, so a socket that fell behind catches up in fewer writes. A socket
/// that falls too far behind is closed (code 4000) so its client reconnects and backfills with
/// `since`. The credential is checked again every few seconds; once it no longer authenticates
/// (key revoked, session ended, seat removed) the socket closes with 4001.
async fn serve_socket(state: AppState, org_id: studio_core::OrgId, credential: Credential, mut socket: WebSocket) {
    let studio = &state.studio;
    let mut events = studio.events().subscribe();
    let mut ping = tokio::time::interval(std::time::Duration::from_secs(SOCKET_PING_SECS));
    ping.tick().await;
    let mut recheck = tokio::time::interval(std::time::Duration::from_millis(SOCKET_RECHECK_MS));
    recheck.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    recheck.tick().await;
    loop {
        tokio::select! {
            first = events.recv() => {
                let mut event = first;
                loop {
                    match event {
                        Ok(event) if *event.org_id == *org_id => {
                            // Always UTF-8 (the event was built from a String).
                            let text = Utf8Bytes::try_from(event.text()).unwrap_or_default();
                            if socket.feed(Message::Text(text)).await.is_err() {
                                return;
                            }
                        }
                        Ok(event) if &*event.org_id == studio_core::RESYNC => {
                            return close_to_resync(socket, "events may have been missed: reconnect and backfill").await;
                        }
                        Ok(_) => {}
                        Err(RecvError::Lagged(_)) => return close_to_resync(socket, "lagged: reconnect and backfill").await,
                        Err(RecvError::Closed) => return,
                    }
                    event = match events.try_recv() {
                        Ok(next) => Ok(next),
                        Err(TryRecvError::Empty) => break,
                        Err(TryRecvError::Lagged(n)) => Err(RecvError::Lagged(n)),
                        Err(TryRecvError::Closed) => Err(RecvError::Closed),
                    };
                }
                if socket.flush().await.is_err() {
                    return;
                }
            },
            incoming = socket.recv() => match incoming {
                Some(Ok(Message::Close(_))) | Some(Err(_)) | None => return,
                Some(Ok(_)) => {}
            },
            _ = ping.tick() => {
                if socket.send(Message::Ping(Default::default())).await.is_err() {
                    return;
                }
            }
            _ = recheck.tick() => match credential.authenticate(&state).await {
                Ok(caller) if caller.org_id == org_id => {}
                Ok(_) => return close(socket, 4001, "the credential now acts for another house").await,
                Err(e) if e.kind == studio_core::ErrorKind::Unauthenticated => {
                    return close(socket, 4001, "the credential was revoked or the session ended").await;
                }
                // A database hiccup is not a revocation: check again on the next tick.
                Err(_) => {}
            },
        }
    }
}

/// Close a socket with code 4000: its client reconnects and backfills.
async fn close_to_resync(socket: WebSocket, reason: &'static str) {
    close(socket, 4000, reason).await;
}

/// Close a socket with `code` and `reason`.
async fn close(mut socket: WebSocket, code: u16, reason: &'static str) {
    let frame = axum::extract::ws::CloseFrame { code, reason: reason.into() };
    let _ = socket.send(Message::Close(Some(frame))).await;
}

pub(super) fn router() -> ApiRouter<AppState> {
    ApiRouter::new()
        .api_route(
            "/api/toolkit/jobs/submit",
            post_with(submit_job, |op| {
                op.summary("Submit a develop (multipart: tool, image or one file per role, options)")
                    .description(
                        "Fields: `tool` (required), `idempotencyKey`, `brandId`, image parts named by role \
                         (`image`, `garment` repeatable, `model`, `mask`, `background`) or a role field holding a \
                         library asset id, `quality` (1k, 2k, 4k; default 2k), `folderId` (a collection of the \
                         house to file the landed frame in) and any other text field as a tool option. `output` is \
                         refused. Options the tool reads are checked, and tokens held, before the job is queued. \
                         Codes: 400 UNKNOWN_TOOL, NO_IMAGE, EMPTY_IMAGE, BAD_FORM, BAD_PARAMS (an option the tool \
                         cannot read: the message names it and the forms it accepts; `tool`); 402 \
                         INSUFFICIENT_TOKENS (need, spendable); 403 viewer; 404 NOT_FOUND (no such collection or \
                         library asset in this house); 413 IMAGE_TOO_LARGE (maxMb); 500 ENQUEUE_FAILED or \
                         SUBMIT_FAILED (nothing charged).",
                    )
                    .tag("develops")
            })
            .layer(DefaultBodyLimit::max(SUBMIT_BODY_LIMIT)),
        )
        .api_route(
            "/api/toolkit/jobs",
            get_with(list_jobs, |op| {
                op.summary("Backfill: the house's job changes after an eventSeq, ascending")
                    .description("`since=0` returns everything (pages of 1000: ask again from the last eventSeq). 400 BAD_SINCE.")
                    .tag("develops")
            }),
        )
        .api_route(
            "/api/toolkit/jobs/{id}",
            get_with(get_job, |op| {
                op.summary("One develop's status: tokens held and settled, result, error")
                    .description("The shape get_develop answers on the agent endpoint (spec §2.5). 404 NOT_FOUND for unknown or foreign.")
                    .tag("develops")
            }),
        )
        .api_route(
            "/api/toolkit/jobs/{id}/cancel",
            post_with(cancel_job, |op| {
                op.summary("Cancel a queued job (released); rendering or ended jobs are unchanged")
                    .description("reason ALREADY_RENDERING (it finishes and costs) or ALREADY_SETTLED. 404 NOT_FOUND.")
                    .tag("develops")
            }),
        )
        .api_route(
            "/api/toolkit/jobs/{id}/duplicate",
            post_with(duplicate_job, |op| {
                op.summary("Develop the same job again with a fresh hold")
                    .description("Params copied verbatim; the source is never billed again. 402; 403; 404; 422 UNKNOWN_TOOL or NO_INPUTS (never charged).")
                    .tag("develops")
            }),
        )
        .api_route(
            "/api/toolkit/jobs/ws",
            get_with(job_socket, |op| {
                op.summary("WebSocket: every job change of the house as {type: job, job}, and pack.ready")
                    .description("Key on the Authorization header or the session cookie. 101; 401; 426 without an Upgrade header. On every (re)open, backfill with GET /api/toolkit/jobs?since=<max eventSeq seen>.")
                    .tag("develops")
            }),
        )
}
