//! The client, its builder and one typed method per route.

use std::time::Duration;

use reqwest::header::{AUTHORIZATION, COOKIE, HeaderMap, HeaderValue, SET_COOKIE};
use reqwest::{Method, RequestBuilder, StatusCode};
use serde::Serialize;
use serde::de::DeserializeOwned;
use studio_core::api::{
    ApiKey, AssetBatchPatch, AssetIds, AssetKind, AssetList, AssetPatch, AssetResponse, Backgrounds, Balance,
    CheckEmailRequest, CheckEmailResponse, CreateFolderRequest, Deleted, ErrorBody, FolderList, FolderResponse,
    GrantTokensRequest, GrantTokensResponse, GroupRequest, GroupResponse, KeyList, KeyRole, MintKeyRequest, Pack,
    PackRequest, Quote, QuoteRequest, RenameFolderRequest, RevokedKey, SessionInfo, SignInRequest, SignUpRequest,
    SignUpResponse, SignedOut, Updated, UploadResponse,
};

use crate::error::Error;

/// Optional fields of an upload.
#[derive(Debug, Clone, Default)]
pub struct UploadOptions {
    /// The collection to file it in.
    pub folder_id: Option<String>,
    /// Display name (default: the file name without its extension).
    pub name: Option<String>,
    /// Wardrobe bucket (default clothes).
    pub kind: Option<AssetKind>,
    /// The brand's own code.
    pub sku: Option<String>,
    /// Ask for the 1-token classification read.
    pub classify: bool,
}

/// The timeout of calls that move whole archives or build them (the builder's timeout covers
/// everything else).
const LONG_TRANSFER: Duration = Duration::from_secs(6 * 60 * 60);

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

    /// The credential this client sends.
    pub fn credential(&self) -> &Credential {
        &self.credential
    }

    /// The base URL calls go to.
    pub fn base_url(&self) -> &str {
        &self.base
    }

    /// The organization key this client sends, if it was built with one.
    pub fn api_key(&self) -> Option<&str> {
        match &self.credential {
            Credential::ApiKey(key) => Some(key),
            _ => None,
        }
    }

    /// The same client acting with an organization key.
    pub fn with_api_key(&self, key: impl Into<String>) -> Client {
        Client { credential: Credential::ApiKey(key.into()), ..self.clone() }
    }

    /// The same client acting with a session.
    pub fn with_session(&self, token: impl Into<String>) -> Client {
        Client { credential: Credential::Session(token.into()), ..self.clone() }
    }

    pub(crate) fn request(&self, method: Method, path: &str) -> Result<RequestBuilder, Error> {
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

    pub(crate) async fn send<T: DeserializeOwned>(&self, req: RequestBuilder) -> Result<(T, HeaderMap), Error> {
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

    pub(crate) async fn get<T: DeserializeOwned>(&self, path: &str) -> Result<T, Error> {
        Ok(self.send(self.request(Method::GET, path)?).await?.0)
    }

    pub(crate) async fn patch<B: Serialize, T: DeserializeOwned>(&self, path: &str, body: &B) -> Result<T, Error> {
        Ok(self.send(self.request(Method::PATCH, path)?.json(body)).await?.0)
    }

    pub(crate) async fn post<B: Serialize, T: DeserializeOwned>(&self, path: &str, body: &B) -> Result<T, Error> {
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

    /// `GET /api/toolkit/assets`: newest first, optionally one collection's.
    pub async fn list_assets(&self, folder_id: Option<&str>) -> Result<AssetList, Error> {
        match folder_id {
            Some(folder) => self.get(&format!("/api/toolkit/assets?folderId={}", encode(folder))).await,
            None => self.get("/api/toolkit/assets").await,
        }
    }

    /// `POST /api/toolkit/assets/upload` from a file on disk, streamed (never read whole).
    pub async fn upload_file(&self, path: &std::path::Path, options: &UploadOptions) -> Result<UploadResponse, Error> {
        let file = tokio::fs::File::open(path).await.map_err(|e| Error::Config(format!("{}: {e}", path.display())))?;
        let len = file.metadata().await.map_err(|e| Error::Config(format!("{}: {e}", path.display())))?.len();
        let file_name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "upload".into());
        let part = reqwest::multipart::Part::stream_with_length(reqwest::Body::from(file), len).file_name(file_name);
        self.upload_part(part, options).await
    }

    /// `POST /api/toolkit/assets/upload` from bytes in memory.
    pub async fn upload_bytes(
        &self,
        file_name: &str,
        bytes: impl Into<Vec<u8>>,
        options: &UploadOptions,
    ) -> Result<UploadResponse, Error> {
        let part = reqwest::multipart::Part::bytes(bytes.into()).file_name(file_name.to_string());
        self.upload_part(part, options).await
    }

    async fn upload_part(
        &self,
        part: reqwest::multipart::Part,
        options: &UploadOptions,
    ) -> Result<UploadResponse, Error> {
        let mut form = reqwest::multipart::Form::new();
        if let Some(v) = &options.folder_id {
            form = form.text("folderId", v.clone());
        }
        if let Some(v) = &options.name {
            form = form.text("name", v.clone());
        }
        if let Some(v) = options.kind {
            form = form.text("kind", v.as_str());
        }
        if let Some(v) = &options.sku {
            form = form.text("sku", v.clone());
        }
        if options.classify {
            form = form.text("classify", "1");
        }
        let form = form.part("file", part);
        let request = self.request(Method::POST, "/api/toolkit/assets/upload")?.multipart(form).timeout(LONG_TRANSFER);
        Ok(self.send(request).await?.0)
    }

    /// `GET /api/toolkit/assets/{id}/file`: the bytes, read whole.
    pub async fn asset_bytes(&self, id: &str) -> Result<bytes::Bytes, Error> {
        let res = self.request(Method::GET, &format!("/api/toolkit/assets/{}/file", encode(id)))?.send().await?;
        let status = res.status();
        let body = res.bytes().await?;
        if status.is_success() { Ok(body) } else { Err(refusal(status, &body)) }
    }

    /// `GET /api/toolkit/assets/{id}/file` streamed into a file; returns the bytes written.
    pub async fn download_asset(&self, id: &str, to: &std::path::Path) -> Result<u64, Error> {
        self.download(&format!("/api/toolkit/assets/{}/file", encode(id)), to, |_, _| {}).await
    }

    /// GET `path` and stream the body into the file `to`; `progress` gets (written, total).
    async fn download(
        &self,
        path: &str,
        to: &std::path::Path,
        mut progress: impl FnMut(u64, Option<u64>),
    ) -> Result<u64, Error> {
        use tokio::io::AsyncWriteExt;
        let mut res = self.request(Method::GET, path)?.timeout(LONG_TRANSFER).send().await?;
        let status = res.status();
        if !status.is_success() {
            let body = res.bytes().await?;
            return Err(refusal(status, &body));
        }
        let total = res.content_length();
        let io = |e: std::io::Error| Error::Config(format!("{}: {e}", to.display()));
        let mut file = tokio::fs::File::create(to).await.map_err(io)?;
        let mut written = 0u64;
        while let Some(chunk) = res.chunk().await? {
            file.write_all(&chunk).await.map_err(io)?;
            written += chunk.len() as u64;
            progress(written, total);
        }
        file.flush().await.map_err(io)?;
        Ok(written)
    }

    /// `POST /api/toolkit/assets/batch/delete`: soft-delete; answers how many this call took out.
    pub async fn delete_assets(&self, ids: &[String]) -> Result<Deleted, Error> {
        self.post("/api/toolkit/assets/batch/delete", &AssetIds { asset_ids: ids.to_vec() }).await
    }

    /// `PATCH /api/toolkit/assets/{id}`: absent fields stay; see [`AssetPatch`] for null semantics.
    pub async fn patch_asset(&self, id: &str, patch: &AssetPatch) -> Result<AssetResponse, Error> {
        self.patch(&format!("/api/toolkit/assets/{}", encode(id)), patch).await
    }

    /// `PATCH /api/toolkit/assets/batch`: move (folderId), re-file (kind) or approve many assets.
    pub async fn patch_assets_batch(&self, req: &AssetBatchPatch) -> Result<Updated, Error> {
        self.patch("/api/toolkit/assets/batch", req).await
    }

    /// `POST /api/toolkit/assets/batch/quote`: a price; spends nothing.
    pub async fn quote_assets(&self, req: &QuoteRequest) -> Result<Quote, Error> {
        self.post("/api/toolkit/assets/batch/quote", req).await
    }

    /// `POST /api/toolkit/assets/group`: one new shared group stamp for these assets.
    pub async fn group_assets(&self, ids: &[String]) -> Result<GroupResponse, Error> {
        self.post("/api/toolkit/assets/group", &GroupRequest { asset_ids: ids.to_vec(), name: None }).await
    }

    /// `GET /api/toolkit/backgrounds`.
    pub async fn backgrounds(&self) -> Result<Backgrounds, Error> {
        self.get("/api/toolkit/backgrounds").await
    }

    /// `POST /api/toolkit/assets/pack`: ready at once for small packs, queued for large ones.
    pub async fn create_pack(&self, req: &PackRequest) -> Result<Pack, Error> {
        // An instant pack is built inside the request: allow it the time a large one takes.
        let request = self.request(Method::POST, "/api/toolkit/assets/pack")?.json(req).timeout(LONG_TRANSFER);
        Ok(self.send(request).await?.0)
    }

    /// `GET /api/toolkit/packs/{id}`.
    pub async fn get_pack(&self, id: &str) -> Result<Pack, Error> {
        self.get(&format!("/api/toolkit/packs/{}", encode(id))).await
    }

    /// Poll a pack every `every` until it is no longer queued or building (at most `timeout`).
    pub async fn wait_for_pack(&self, id: &str, every: Duration, timeout: Duration) -> Result<Pack, Error> {
        let deadline = tokio::time::Instant::now() + timeout;
        loop {
            let pack = self.get_pack(id).await?;
            if !matches!(pack.status.as_str(), "queued" | "building") || tokio::time::Instant::now() >= deadline {
                return Ok(pack);
            }
            tokio::time::sleep(every).await;
        }
    }

    /// `GET /api/toolkit/packs/{id}/file` streamed into a file; `progress` gets (written, total).
    pub async fn download_pack(
        &self,
        id: &str,
        to: &std::path::Path,
        progress: impl FnMut(u64, Option<u64>),
    ) -> Result<u64, Error> {
        self.download(&format!("/api/toolkit/packs/{}/file", encode(id)), to, progress).await
    }

    /// `POST /api/toolkit/admin/grant-tokens` (allowlisted admin session).
    pub async fn admin_grant_tokens(&self, req: &GrantTokensRequest) -> Result<GrantTokensResponse, Error> {
        self.post("/api/toolkit/admin/grant-tokens", req).await
    }
}

pub(crate) fn refusal(status: StatusCode, bytes: &[u8]) -> Error {
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
pub(crate) fn encode(segment: &str) -> String {
    segment
        .bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}
