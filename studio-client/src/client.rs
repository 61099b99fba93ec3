//! The client, its builder and one typed method per route.

use std::time::Duration;

use reqwest::header::{AUTHORIZATION, COOKIE, HeaderMap, HeaderValue, SET_COOKIE};
use reqwest::{Method, RequestBuilder, StatusCode};
use serde::Serialize;
use serde::de::DeserializeOwned;
use studio_core::api::{
    ApiKey, Balance, CheckEmailRequest, CreateFolderRequest, FolderList, FolderResponse, RenameFolderRequest, CheckEmailResponse, ErrorBody, GrantTokensRequest, GrantTokensResponse,
    KeyList, KeyRole, MintKeyRequest, RevokedKey, SessionInfo, SignInRequest, SignUpRequest, SignUpResponse, SignedOut,
};

use crate::error::Error;

/// The session cookie's name.
const SESSION_COOKIE: &str = "studio_session";

/// How a client authenticates.
#[derive(Clone, PartialEq, Eq)]
pub enum Credential {
    /// No credential: public routes only.
    None,
    /// An organization key, sent as a bearer token.
    ApiKey(String),
    /// A browser session cookie value (needed to mint keys).
    Session(String),
}

impl std::fmt::Debug for Credential {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Credential::None => f.write_str("None"),
            Credential::ApiKey(_) => f.write_str("ApiKey(..)"),
            Credential::Session(_) => f.write_str("Session(..)"),
        }
    }
}

/// Builds a [`Client`].
#[derive(Debug)]
pub struct ClientBuilder {
    base_url: String,
    credential: Credential,
    user_agent: String,
    timeout: Duration,
}

impl ClientBuilder {
    /// Authenticate with an organization key.
    pub fn api_key(mut self, key: impl Into<String>) -> Self {
        self.credential = Credential::ApiKey(key.into());
        self
    }

    /// Authenticate with a session cookie value.
    pub fn session(mut self, token: impl Into<String>) -> Self {
        self.credential = Credential::Session(token.into());
        self
    }

    /// The User-Agent header (default `studio-client/<version>`).
    pub fn user_agent(mut self, ua: impl Into<String>) -> Self {
        self.user_agent = ua.into();
        self
    }

    /// Whole-request timeout (default 60 s).
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// Build the client.
    pub fn build(self) -> Result<Client, Error> {
        let base = self.base_url.trim_end_matches('/').to_string();
        if !(base.starts_with("http://") || base.starts_with("https://")) {
            return Err(Error::Config(format!("base URL must start with http:// or https://: {base:?}")));
        }
        let http = reqwest::Client::builder()
            .user_agent(self.user_agent)
            .timeout(self.timeout)
            .connect_timeout(Duration::from_secs(10))
            .build()?;
        Ok(Client { http, base, credential: self.credential })
    }
}

/// A typed client for one Studio deployment. Cheap to clone.
#[derive(Debug, Clone)]
pub struct Client {
    http: reqwest::Client,
    base: String,
    credential: Credential,
}

/// The answer of sign-up or sign-in, with the session it opened.
#[derive(Debug, Clone)]
pub struct SignedIn {
    /// The person and their house.
    pub account: SignUpResponse,
    /// The session cookie value; pass it to [`Client::with_session`].
    pub session: String,
}

impl Client {
    /// Start building a client for the deployment at `base_url`.
    pub fn builder(base_url: impl Into<String>) -> ClientBuilder {
        ClientBuilder {
            base_url: base_url.into(),
            credential: Credential::None,
            user_agent: format!("studio-client/{}", env!("CARGO_PKG_VERSION")),
            timeout: Duration::from_secs(60),
        }
    }

    /// The base URL calls go to.
    pub fn base_url(&self) -> &str {
        &self.base
    }

    /// The same client acting with an organization key.
    pub fn with_api_key(&self, key: impl Into<String>) -> Client {
        Client { credential: Credential::ApiKey(key.into()), ..self.clone() }
    }

    /// The same client acting with a session.
    pub fn with_session(&self, token: impl Into<String>) -> Client {
        Client { credential: Credential::Session(token.into()), ..self.clone() }
    }

    fn request(&self, method: Method, path: &str) -> Result<RequestBuilder, Error> {
        let mut headers = HeaderMap::new();
        match &self.credential {
            Credential::None => {}
            Credential::ApiKey(key) => {
                let v = HeaderValue::from_str(&format!("Bearer {key}")).map_err(|e| Error::Config(e.to_string()))?;
                headers.insert(AUTHORIZATION, v);
            }
            Credential::Session(token) => {
                let v = HeaderValue::from_str(&format!("{SESSION_COOKIE}={token}"))
                    .map_err(|e| Error::Config(e.to_string()))?;
                headers.insert(COOKIE, v);
            }
        }
        Ok(self.http.request(method, format!("{}{path}", self.base)).headers(headers))
    }

    async fn send<T: DeserializeOwned>(&self, req: RequestBuilder) -> Result<(T, HeaderMap), Error> {
        let res = req.send().await?;
        let status = res.status();
        let headers = res.headers().clone();
        let bytes = res.bytes().await?;
        if status.is_success() {
            let value = serde_json::from_slice(&bytes)
                .map_err(|e| Error::Decode { status: status.as_u16(), detail: e.to_string() })?;
            return Ok((value, headers));
        }
        Err(refusal(status, &bytes))
    }

    async fn get<T: DeserializeOwned>(&self, path: &str) -> Result<T, Error> {
        Ok(self.send(self.request(Method::GET, path)?).await?.0)
    }

    async fn patch<B: Serialize, T: DeserializeOwned>(&self, path: &str, body: &B) -> Result<T, Error> {
        Ok(self.send(self.request(Method::PATCH, path)?.json(body)).await?.0)
    }

    async fn post<B: Serialize, T: DeserializeOwned>(&self, path: &str, body: &B) -> Result<T, Error> {
        Ok(self.send(self.request(Method::POST, path)?.json(body)).await?.0)
    }

    async fn signed_in(&self, path: &str, body: &impl Serialize) -> Result<SignedIn, Error> {
        let (account, headers) = self.send::<SignUpResponse>(self.request(Method::POST, path)?.json(body)).await?;
        let session = session_from(&headers)
            .ok_or(Error::Decode { status: 200, detail: "no session cookie in the answer".into() })?;
        Ok(SignedIn { account, session })
    }

    /// `GET /health`.
    pub async fn health(&self) -> Result<serde_json::Value, Error> {
        self.get("/health").await
    }

    /// `GET /openapi.json`.
    pub async fn openapi(&self) -> Result<serde_json::Value, Error> {
        self.get("/openapi.json").await
    }

    /// `POST /api/auth/sign-up`: a new person and house; returns the session it opened.
    pub async fn sign_up(&self, email: &str, password: &str, name: Option<&str>) -> Result<SignedIn, Error> {
        let body = SignUpRequest { email: email.into(), password: password.into(), name: name.map(Into::into) };
        self.signed_in("/api/auth/sign-up", &body).await
    }

    /// `POST /api/auth/sign-in`.
    pub async fn sign_in(&self, email: &str, password: &str) -> Result<SignedIn, Error> {
        self.signed_in("/api/auth/sign-in", &SignInRequest { email: email.into(), password: password.into() }).await
    }

    /// `POST /api/auth/sign-out`: ends this client's session.
    pub async fn sign_out(&self) -> Result<SignedOut, Error> {
        self.post("/api/auth/sign-out", &serde_json::json!({})).await
    }

    /// `GET /api/auth/session`: who this client is.
    pub async fn session(&self) -> Result<SessionInfo, Error> {
        self.get("/api/auth/session").await
    }

    /// `POST /api/toolkit/check-email` (public).
    pub async fn check_email(&self, email: &str) -> Result<CheckEmailResponse, Error> {
        self.post("/api/toolkit/check-email", &CheckEmailRequest { email: Some(email.into()) }).await
    }

    /// `POST /api/keys` (session only): the answer carries the secret, once.
    pub async fn mint_key(&self, name: &str, role: Option<KeyRole>) -> Result<ApiKey, Error> {
        self.post("/api/keys", &MintKeyRequest { name: name.into(), role }).await
    }

    /// `GET /api/keys`.
    pub async fn list_keys(&self) -> Result<KeyList, Error> {
        self.get("/api/keys").await
    }

    /// `DELETE /api/keys/{id}`.
    pub async fn revoke_key(&self, id: &str) -> Result<RevokedKey, Error> {
        Ok(self.send(self.request(Method::DELETE, &format!("/api/keys/{}", encode(id)))?).await?.0)
    }

    /// `GET /api/toolkit/ai/billing/balance`.
    pub async fn balance(&self) -> Result<Balance, Error> {
        self.get("/api/toolkit/ai/billing/balance").await
    }

    /// `GET /api/toolkit/folders`: every collection, oldest first.
    pub async fn list_folders(&self) -> Result<FolderList, Error> {
        self.get("/api/toolkit/folders").await
    }

    /// `POST /api/toolkit/folders`: a collection at the root (`parent_id` None) or under another.
    pub async fn create_folder(&self, name: &str, parent_id: Option<&str>) -> Result<FolderResponse, Error> {
        let body = CreateFolderRequest { name: Some(name.into()), parent_id: parent_id.map(Into::into) };
        self.post("/api/toolkit/folders", &body).await
    }

    /// `PATCH /api/toolkit/folders/{id}`: rename; an empty or unchanged name changes nothing.
    pub async fn rename_folder(&self, id: &str, name: &str) -> Result<FolderResponse, Error> {
        let body = RenameFolderRequest { name: Some(name.into()) };
        self.patch(&format!("/api/toolkit/folders/{}", encode(id)), &body).await
    }

    /// `POST /api/toolkit/admin/grant-tokens` (allowlisted admin session).
    pub async fn admin_grant_tokens(&self, req: &GrantTokensRequest) -> Result<GrantTokensResponse, Error> {
        self.post("/api/toolkit/admin/grant-tokens", req).await
    }
}

fn refusal(status: StatusCode, bytes: &[u8]) -> Error {
    match serde_json::from_slice::<ErrorBody>(bytes) {
        Ok(body) => Error::Api { status: status.as_u16(), code: body.error, message: body.message, extra: body.extra },
        Err(_) => Error::Api {
            status: status.as_u16(),
            code: format!("HTTP_{}", status.as_u16()),
            message: String::from_utf8_lossy(bytes).chars().take(300).collect(),
            extra: Default::default(),
        },
    }
}

fn session_from(headers: &HeaderMap) -> Option<String> {
    headers
        .get_all(SET_COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .filter_map(|v| v.split(';').next())
        .filter_map(|pair| pair.split_once('='))
        .find(|(name, value)| *name == SESSION_COOKIE && !value.is_empty())
        .map(|(_, value)| value.to_string())
}

/// Percent-encode a path segment (ids are opaque strings).
fn encode(segment: &str) -> String {
    segment
        .bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}
