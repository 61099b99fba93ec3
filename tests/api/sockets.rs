//! An open job socket follows its credential: a revoked key, a signed-out session and a removed
//! seat each lose their socket (close code 4001) within 5 s, while a socket whose credential is
//! still good keeps receiving the house's events.

use std::time::Duration;

use futures_util::StreamExt;
use studio_client::api::SeatRole;
use studio_client::{DevelopSubmit, InputSource};
use studio_tests::{Backend, House, PASSWORD, TestApp, backend_tests, images, spawn, unique_email};
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;

backend_tests!(revoked_key_loses_its_socket, ended_session_and_removed_seat_lose_their_sockets);

type Socket = tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// The most a revoked credential's socket may stay open.
const WITHIN: Duration = Duration::from_secs(5);

/// Open the job socket with one header (`authorization` or `cookie`).
async fn open(app: &TestApp, header: &'static str, value: &str) -> Socket {
    let mut request = format!("ws://{}/api/toolkit/jobs/ws", app.addr).into_client_request().expect("request");
    request.headers_mut().insert(header, value.parse().expect("header value"));
    tokio_tungstenite::connect_async(request).await.expect("socket opens").0
}

/// The close code the server sends within `WITHIN`; panics when the socket stays open.
async fn closed_with(socket: &mut Socket) -> u16 {
    let until = tokio::time::Instant::now() + WITHIN;
    loop {
        match tokio::time::timeout_at(until, socket.next()).await {
            Err(_) => panic!("the socket was still open {WITHIN:?} after its credential ended"),
            Ok(Some(Ok(Message::Close(frame)))) => return frame.map(|f| u16::from(f.code)).unwrap_or(0),
            Ok(Some(Ok(_))) => continue,
            Ok(other) => panic!("the socket ended without a close frame: {other:?}"),
        }
    }
}

/// The next job message on a socket, within 30 s.
async fn next_job_message(socket: &mut Socket) -> serde_json::Value {
    let until = tokio::time::Instant::now() + Duration::from_secs(30);
    loop {
        match tokio::time::timeout_at(until, socket.next()).await.expect("an event arrives") {
            Some(Ok(Message::Text(text))) => {
                let message: serde_json::Value = serde_json::from_str(&text).expect("json");
                if message["type"] == "job" {
                    return message;
                }
            }
            Some(Ok(Message::Close(frame))) => panic!("a good credential's socket was closed: {frame:?}"),
            Some(Ok(_)) => {}
            other => panic!("the socket failed: {other:?}"),
        }
    }
}

async fn revoked_key_loses_its_socket(backend: Backend) {
    let app = spawn(backend, |c| c.runner_concurrency = 0).await.expect("app");
    let house = House::new(&app, "socket-revoke").await;
    let other = house.session.mint_key("stays", None).await.expect("mint").key.expect("secret");
    let mut revoked = open(&app, "authorization", &format!("Bearer {}", house.secret)).await;
    let mut kept = open(&app, "authorization", &format!("Bearer {other}")).await;

    let keys = house.session.list_keys().await.expect("keys");
    let id = &keys.keys.iter().find(|k| k.name == "socket-revoke").expect("the fixture's key").id;
    house.session.revoke_key(id).await.expect("revoke");
    assert_eq!(closed_with(&mut revoked).await, 4001, "the revoked key's socket closes with 4001");

    let kept_client = app.client.with_api_key(&other);
    let develop = DevelopSubmit::new("upscale")
        .input("image", InputSource::Bytes { file_name: "a.png".into(), bytes: images::png(64, 48) });
    let submitted = kept_client.submit_develop(&develop).await.expect("submit");
    let message = next_job_message(&mut kept).await;
    assert_eq!(message["job"]["id"], submitted.job_id.as_str(), "the other key's socket still hears the house");
}

async fn ended_session_and_removed_seat_lose_their_sockets(backend: Backend) {
    let app = spawn(backend, |_| {}).await.expect("app");
    let signed = app.client.sign_up(&unique_email("socket-session"), PASSWORD, None).await.expect("sign up");
    let mut socket = open(&app, "cookie", &format!("studio_session={}", signed.session)).await;
    app.client.with_session(&signed.session).sign_out().await.expect("sign out");
    assert_eq!(closed_with(&mut socket).await, 4001, "a signed-out session's socket closes");

    // A seat removed through the seats route while its session lives.
    let house = House::new(&app, "socket-house").await;
    let member = house.seat(&app, "socket-seat", SeatRole::Member).await;
    let token = match member.session.credential() {
        studio_client::Credential::Session(t) => t.clone(),
        other => panic!("a session: {other:?}"),
    };
    let mut socket = open(&app, "cookie", &format!("studio_session={token}")).await;
    house.session.remove_seat(&member.user_id).await.expect("remove the seat");
    assert_eq!(closed_with(&mut socket).await, 4001, "a removed seat's socket closes");

    // A seat removed behind the server's back (another replica's write) is noticed too.
    let signed = app.client.sign_up(&unique_email("socket-row"), PASSWORD, None).await.expect("sign up");
    let mut socket = open(&app, "cookie", &format!("studio_session={}", signed.session)).await;
    remove_seat(&app, &signed.account.organization.id, &signed.account.user.id).await;
    assert_eq!(closed_with(&mut socket).await, 4001, "a removed seat's socket closes");
}

/// Delete a membership row behind the server's back.
async fn remove_seat(app: &TestApp, org_id: &str, user_id: &str) {
    use sqlx::Connection;
    let statement = "DELETE FROM memberships WHERE org_id = $1 AND user_id = $2";
    let removed = match app.backend {
        Backend::Sqlite => {
            let mut db = sqlx::SqliteConnection::connect(&app.database_url).await.expect("sqlite");
            sqlx::query(statement).bind(org_id).bind(user_id).execute(&mut db).await.expect("delete").rows_affected()
        }
        Backend::Postgres => {
            let mut db = sqlx::PgConnection::connect(&app.database_url).await.expect("postgres");
            sqlx::query(statement).bind(org_id).bind(user_id).execute(&mut db).await.expect("delete").rows_affected()
        }
    };
    assert_eq!(removed, 1, "the seat existed");
}
