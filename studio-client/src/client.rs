//! The client, its builder, the one place requests are sent (with retries), and the typed
//! methods of the account, key, library, pack and token routes.

use std::future::{Future, ready};
use std::time::Duration;

use reqwest::header::{AUTHORIZATION, COOKIE, HeaderMap, HeaderValue, SET_COOKIE};
use reqwest::{Method, RequestBuilder, Response, StatusCode};
use serde::Serialize;
use serde::de::DeserializeOwned;
use studio_core::api::{
    ApiKey, AssetBatchPatch, AssetDetail, AssetIds, AssetKind, AssetList, AssetPatch, AssetResponse, Backgrounds,
    Balance, CheckEmailRequest, CheckEmailResponse, CreateFolderRequest, Deleted, ErrorBody, FolderDeleted, FolderList,
    FolderResponse, GrantTokensRequest, GrantTokensResponse, GroupRequest, GroupResponse, KeyList, KeyRole,
    MintKeyRequest, Pack, PackRequest, ProvenanceReport, Quote, QuoteRequest, RenameFolderRequest, RevokedKey,
    SessionInfo, SignInRequest, SignUpRequest, SignUpResponse, SignedOut, Updated, UploadResponse,
};

use crate::error::Error;
use crate::retry::{RETRY_STATUSES, RetryPolicy};

/// Optional fields of an upload ([`Client::upload_file`], [`Client::upload_bytes`]).
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
pub(crate) const LONG_TRANSFER: Duration = Duration::from_secs(6 * 60 * 60);

/// The timeout of calls that send images for a develop or a pre-flight: they may be large.
pub(crate) const IMAGE_UPLOAD: Duration = Duration::from_secs(30 * 60);

/// The session cookie's name.
const SESSION_COOKIE: &str = "studio_session";
/// The page size the whole-list calls walk with: the largest the server answers.
const PAGE: u32 = studio_core::api::MAX_ASSET_PAGE as u32;

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

/// Builds a [`Client`]: base URL, credential (key or session), user agent, timeout and retries.
///
/// ```no_run
/// use std::time::Duration;
///
/// # fn demo() -> Result<(), studio_client::Error> {
/// let client = studio_client::Client::builder("https://studio.example.com")
///     .api_key(std::env::var("STUDIO_API_KEY").unwrap_or_default())
///     .user_agent("lookbook-sync/2.1")
///     .timeout(Duration::from_secs(30))
///     .retries(5)
///     .build()?;
/// assert_eq!(client.base_url(), "https://studio.example.com");
/// # Ok(()) }
/// ```
#[derive(Debug)]
pub struct ClientBuilder {
    base_url: String,
    credential: Credential,
    user_agent: String,
    timeout: Duration,
    connect_timeout: Duration,
    retry: RetryPolicy,
}

impl ClientBuilder {
    /// Authenticate with an organization key (sent as `Authorization: Bearer`).
    pub fn api_key(mut self, key: impl Into<String>) -> Self {
        self.credential = Credential::ApiKey(key.into());
        self
    }

    /// Authenticate with a session cookie value (see [`Client::sign_in`]).
    pub fn session(mut self, token: impl Into<String>) -> Self {
        self.credential = Credential::Session(token.into());
        self
    }

    /// The User-Agent header (default `studio-client/<version>`).
    pub fn user_agent(mut self, ua: impl Into<String>) -> Self {
        self.user_agent = ua.into();
        self
    }

    /// Whole-request timeout of one attempt (default 60 s). Uploads, submits, packs and
    /// downloads have their own longer timeouts.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// Timeout of opening a connection (default 10 s).
    pub fn connect_timeout(mut self, timeout: Duration) -> Self {
        self.connect_timeout = timeout;
        self
    }

    /// Retry safe calls up to `max` times after the first attempt (default 3; 0 turns retrying
    /// off), keeping the rest of the [`RetryPolicy`].
    pub fn retries(mut self, max: u32) -> Self {
        self.retry.max_retries = max;
        self
    }

    /// The whole retry policy (count, backoff, `Retry-After` cap).
    pub fn retry_policy(mut self, policy: RetryPolicy) -> Self {
        self.retry = policy;
        self
    }

    /// Build the client. Fails with [`Error::Config`] when the base URL is not `http(s)://`.
    pub fn build(self) -> Result<Client, Error> {
        let base = self.base_url.trim_end_matches('/').to_string();
        if !(base.starts_with("http://") || base.starts_with("https://")) {
            return Err(Error::Config(format!("base URL must start with http:// or https://: {base:?}")));
        }
        let http = reqwest::Client::builder()
            .user_agent(self.user_agent)
            .timeout(self.timeout)
            .connect_timeout(self.connect_timeout)
            .build()?;
        Ok(Client { http, base, credential: self.credential, retry: self.retry })
    }
}

/// A typed client for one Studio deployment. Cheap to clone (the connection pool is shared).
///
/// Every HTTP route has one method; see the [crate docs](crate) for a tour.
#[derive(Debug, Clone)]
pub struct Client {
    http: reqwest::Client,
    base: String,
    credential: Credential,
    retry: RetryPolicy,
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
            connect_timeout: Duration::from_secs(10),
            retry: RetryPolicy::default(),
        }
    }

    /// The credential this client sends.
    pub fn credential(&self) -> &Credential {
        &self.credential
    }

    /// The base URL calls go to (without a trailing slash).
    pub fn base_url(&self) -> &str {
        &self.base
    }

    /// The retry policy this client follows.
    pub fn retry_policy(&self) -> &RetryPolicy {
        &self.retry
    }

    /// The organization key this client sends, if it was built with one.
    pub fn api_key(&self) -> Option<&str> {
        match &self.credential {
            Credential::ApiKey(key) => Some(key),
            _ => None,
        }
    }

    /// The same client (pool, timeouts, retries) acting with an organization key.
    pub fn with_api_key(&self, key: impl Into<String>) -> Client {
        Client { credential: Credential::ApiKey(key.into()), ..self.clone() }
    }

    /// The same client (pool, timeouts, retries) acting with a session.
    pub fn with_session(&self, token: impl Into<String>) -> Client {
        Client { credential: Credential::Session(token.into()), ..self.clone() }
    }

    /// The same client with another retry policy.
    pub fn with_retry_policy(&self, policy: RetryPolicy) -> Client {
        Client { retry: policy, ..self.clone() }
    }

    /// A request to `path` (under the base URL) carrying this client's credential. A whole
    /// `http(s)://` URL (a lane's signed result URL) is sent as is and carries no credential:
    /// its signature is the permission, and a key never leaves for another host.
    pub(crate) fn request(&self, method: Method, path: &str) -> Result<RequestBuilder, Error> {
        if path.starts_with("http://") || path.starts_with("https://") {
            return Ok(self.http.request(method, path));
        }
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

    /// Send a call, retrying it per the policy when that is safe, and hand back the last answer
    /// whatever its status.
    ///
    /// `build` dresses a fresh request (body, headers, timeout) for every attempt, so a body
    /// streamed from a file is opened again rather than replayed. A call is retried only when
    /// it is a `GET`/`HEAD` or `keyed` (it carries an idempotency key), on 429/502/503 (after
    /// `Retry-After` or the backoff) and on errors that mean the connection failed.
    pub(crate) async fn execute<F, Fut>(
        &self,
        method: Method,
        path: &str,
        keyed: bool,
        mut build: F,
    ) -> Result<Response, Error>
    where
        F: FnMut(RequestBuilder) -> Fut,
        Fut: Future<Output = Result<RequestBuilder, Error>>,
    {
        let replayable = keyed || method == Method::GET || method == Method::HEAD;
        let max = if replayable { self.retry.max_retries } else { 0 };
        let mut retry = 0u32;
        loop {
            let request = build(self.request(method.clone(), path)?).await?;
            let wait = match request.send().await {
                Ok(res) if retry < max && RETRY_STATUSES.contains(&res.status().as_u16()) => {
                    let wait = self.retry.wait(retry, res.headers());
                    // Read the (small) refusal so the connection goes back to the pool.
                    let _ = res.bytes().await;
                    wait
                }
                Ok(res) => return Ok(res),
                Err(e) if retry < max && connection_failed(&e) => self.retry.backoff(retry),
                Err(e) => return Err(e.into()),
            };
            tokio::time::sleep(wait).await;
            retry += 1;
        }
    }

    /// [`Client::execute`], then the JSON answer (or the refusal) and the answer's headers.
    pub(crate) async fn call<T, F, Fut>(
        &self,
        method: Method,
        path: &str,
        keyed: bool,
        build: F,
    ) -> Result<(T, HeaderMap), Error>
    where
        T: DeserializeOwned,
        F: FnMut(RequestBuilder) -> Fut,
        Fut: Future<Output = Result<RequestBuilder, Error>>,
    {
        let res = self.execute(method, path, keyed, build).await?;
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

    /// GET a JSON answer (retried per the policy).
    pub(crate) async fn get<T: DeserializeOwned>(&self, path: &str) -> Result<T, Error> {
        Ok(self.call(Method::GET, path, false, |r| ready(Ok(r))).await?.0)
    }

    /// GET the raw bytes of an answer (retried per the policy).
    pub(crate) async fn get_bytes(&self, path: &str) -> Result<bytes::Bytes, Error> {
        let res = self.execute(Method::GET, path, false, |r| ready(Ok(r))).await?;
        let status = res.status();
        let body = res.bytes().await?;
        if status.is_success() { Ok(body) } else { Err(refusal(status, &body)) }
    }

    /// PATCH a JSON body (sent once).
    pub(crate) async fn patch<B: Serialize, T: DeserializeOwned>(&self, path: &str, body: &B) -> Result<T, Error> {
        Ok(self.call(Method::PATCH, path, false, |r| ready(Ok(r.json(body)))).await?.0)
    }

    /// POST a JSON body; retried only when `keyed` (the body carries an idempotency key).
    pub(crate) async fn post_json<B: Serialize, T: DeserializeOwned>(
        &self,
        path: &str,
        body: &B,
        keyed: bool,
    ) -> Result<T, Error> {
        Ok(self.call(Method::POST, path, keyed, |r| ready(Ok(r.json(body)))).await?.0)
    }

    /// POST a JSON body (sent once).
    pub(crate) async fn post<B: Serialize, T: DeserializeOwned>(&self, path: &str, body: &B) -> Result<T, Error> {
        self.post_json(path, body, false).await
    }

    async fn signed_in(&self, path: &str, body: &impl Serialize) -> Result<SignedIn, Error> {
        let (account, headers) =
            self.call::<SignUpResponse, _, _>(Method::POST, path, false, |r| ready(Ok(r.json(body)))).await?;
        let session = session_from(&headers)
            .ok_or(Error::Decode { status: 200, detail: "no session cookie in the answer".into() })?;
        Ok(SignedIn { account, session })
    }

    /// `GET /health`: the liveness check.
    pub async fn health(&self) -> Result<serde_json::Value, Error> {
        self.get("/health").await
    }

    /// `GET /openapi.json`: the whole surface as OpenAPI 3.1.
    pub async fn openapi(&self) -> Result<serde_json::Value, Error> {
        self.get("/openapi.json").await
    }

    /// `GET /docs`: the interactive viewer's HTML page.
    pub async fn docs_html(&self) -> Result<String, Error> {
        let bytes = self.get_bytes("/docs").await?;
        String::from_utf8(bytes.to_vec()).map_err(|e| Error::Decode { status: 200, detail: e.to_string() })
    }

    /// `POST /api/auth/sign-up`: a new person and house; returns the session it opened.
    ///
    /// ```no_run
    /// # async fn demo() -> Result<(), studio_client::Error> {
    /// use studio_client::Client;
    /// use studio_client::api::KeyRole;
    ///
    /// let public = Client::builder("http://127.0.0.1:8787").build()?;
    /// let signed = public.sign_up("ada@maison.example", "a long enough password", Some("Ada")).await?;
    /// // A session can mint keys; a key cannot.
    /// let session = public.with_session(&signed.session);
    /// let minted = session.mint_key("lookbook-sync", Some(KeyRole::Member)).await?;
    /// let secret = minted.key.expect("the secret is shown once, at mint");
    /// let client = public.with_api_key(secret);
    /// println!("{} keys", client.list_keys().await?.keys.len());
    /// session.revoke_key(&minted.id).await?;
    /// # Ok(()) }
    /// ```
    pub async fn sign_up(&self, email: &str, password: &str, name: Option<&str>) -> Result<SignedIn, Error> {
        let body = SignUpRequest { email: email.into(), password: password.into(), name: name.map(Into::into) };
        self.signed_in("/api/auth/sign-up", &body).await
    }

    /// `POST /api/auth/sign-in`: returns the session it opened.
    pub async fn sign_in(&self, email: &str, password: &str) -> Result<SignedIn, Error> {
        self.signed_in("/api/auth/sign-in", &SignInRequest { email: email.into(), password: password.into() }).await
    }

    /// `POST /api/auth/sign-out`: ends this client's session.
    pub async fn sign_out(&self) -> Result<SignedOut, Error> {
        self.post("/api/auth/sign-out", &serde_json::json!({})).await
    }

    /// `GET /api/auth/session`: who this client is (person, house, seat role).
    pub async fn session(&self) -> Result<SessionInfo, Error> {
        self.get("/api/auth/session").await
    }

    /// `POST /api/toolkit/check-email` (public): whether an address already has an account.
    pub async fn check_email(&self, email: &str) -> Result<CheckEmailResponse, Error> {
        self.post("/api/toolkit/check-email", &CheckEmailRequest { email: Some(email.into()) }).await
    }

    /// `POST /api/keys` (session only): the answer carries the secret in `key`, once.
    pub async fn mint_key(&self, name: &str, role: Option<KeyRole>) -> Result<ApiKey, Error> {
        self.post("/api/keys", &MintKeyRequest { name: name.into(), role }).await
    }

    /// `GET /api/keys`: every key the house minted, revoked included, never the secret.
    pub async fn list_keys(&self) -> Result<KeyList, Error> {
        self.get("/api/keys").await
    }

    /// `DELETE /api/keys/{id}`: idempotent; takes effect on the key's next request.
    pub async fn revoke_key(&self, id: &str) -> Result<RevokedKey, Error> {
        let path = format!("/api/keys/{}", encode(id));
        Ok(self.call(Method::DELETE, &path, false, |r| ready(Ok(r))).await?.0)
    }

    /// `GET /api/toolkit/ai/billing/balance`: spendable tokens, grants, top-ups and holds.
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

    /// `DELETE /api/toolkit/folders/{id}`: the collection goes; its images and sub-collections
    /// move up to its parent.
    pub async fn delete_folder(&self, id: &str) -> Result<FolderDeleted, Error> {
        let path = format!("/api/toolkit/folders/{}", encode(id));
        Ok(self.call(Method::DELETE, &path, false, |r| ready(Ok(r))).await?.0)
    }

    /// `GET /api/toolkit/assets/{id}/detail`: the asset as JSON and the develop that made it.
    pub async fn asset_detail(&self, id: &str) -> Result<AssetDetail, Error> {
        self.get(&format!("/api/toolkit/assets/{}/detail", encode(id))).await
    }

    /// `GET /api/toolkit/assets/{id}/provenance`: the asset's content credentials (C2PA), read
    /// from its file now: actions, ingredients, signer and what the check found.
    pub async fn asset_provenance(&self, id: &str) -> Result<ProvenanceReport, Error> {
        self.get(&format!("/api/toolkit/assets/{}/provenance", encode(id))).await
    }

    /// Every asset, newest first, optionally one collection's: `GET /api/toolkit/assets` page by
    /// page (the route answers at most 200 at a time) until the last.
    pub async fn list_assets(&self, folder_id: Option<&str>) -> Result<AssetList, Error> {
        let mut all = AssetList { assets: Vec::new(), next_cursor: None };
        let mut cursor: Option<String> = None;
        loop {
            let page = self.list_assets_page(folder_id, PAGE, cursor.as_deref()).await?;
            all.assets.extend(page.assets);
            match page.next_cursor {
                Some(next) => cursor = Some(next),
                None => return Ok(all),
            }
        }
    }

    /// `GET /api/toolkit/assets?limit&cursor`: one page of at most `limit` (1 to 200) assets,
    /// newest first, after `cursor` (the `next_cursor` of the page before; `None` for the
    /// first). The answer's `next_cursor` is `None` on the last page.
    pub async fn list_assets_page(
        &self,
        folder_id: Option<&str>,
        limit: u32,
        cursor: Option<&str>,
    ) -> Result<AssetList, Error> {
        let mut path = format!("/api/toolkit/assets?limit={limit}");
        if let Some(folder) = folder_id {
            path.push_str(&format!("&folderId={}", encode(folder)));
        }
        if let Some(cursor) = cursor {
            path.push_str(&format!("&cursor={}", encode(cursor)));
        }
        self.get(&path).await
    }

    /// `POST /api/toolkit/assets/upload` from a file on disk, streamed (never read whole).
    ///
    /// Uploads carry no idempotency key, so they are sent once (never retried).
    ///
    /// ```no_run
    /// # async fn demo(client: studio_client::Client) -> Result<(), studio_client::Error> {
    /// use studio_client::UploadOptions;
    /// use studio_client::api::AssetKind;
    ///
    /// let folder = client.create_folder("SS27", None).await?.folder;
    /// let options = UploadOptions {
    ///     folder_id: Some(folder.id),
    ///     kind: Some(AssetKind::Clothes),
    ///     sku: Some("SS27-014".into()),
    ///     ..UploadOptions::default()
    /// };
    /// let uploaded = client.upload_file("shots/ss27-014.jpg".as_ref(), &options).await?;
    /// println!("{} is {}", uploaded.asset.name, uploaded.asset.id);
    /// let bytes = client.asset_bytes(&uploaded.asset.id).await?;
    /// assert!(!bytes.is_empty());
    /// # Ok(()) }
    /// ```
    pub async fn upload_file(&self, path: &std::path::Path, options: &UploadOptions) -> Result<UploadResponse, Error> {
        let file_name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "upload".into());
        self.upload(options, PartSource::File(path, file_name)).await
    }

    /// `POST /api/toolkit/assets/upload` from bytes in memory.
    pub async fn upload_bytes(
        &self,
        file_name: &str,
        bytes: impl Into<Vec<u8>>,
        options: &UploadOptions,
    ) -> Result<UploadResponse, Error> {
        self.upload(options, PartSource::Memory(bytes::Bytes::from(bytes.into()), file_name.to_string())).await
    }

    async fn upload(&self, options: &UploadOptions, source: PartSource<'_>) -> Result<UploadResponse, Error> {
        let source = &source;
        let build = |request: RequestBuilder| async move {
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
            let form = form.part("file", source.part().await?);
            Ok(request.multipart(form).timeout(LONG_TRANSFER))
        };
        Ok(self.call(Method::POST, "/api/toolkit/assets/upload", false, build).await?.0)
    }

    /// `GET /api/toolkit/assets/{id}/file`: the bytes, read whole (a foreign id is 404).
    pub async fn asset_bytes(&self, id: &str) -> Result<bytes::Bytes, Error> {
        self.get_bytes(&format!("/api/toolkit/assets/{}/file", encode(id))).await
    }

    /// `GET /api/toolkit/assets/{id}/file?w=`: a thumbnail no wider than `w` (256, 512 or
    /// 1024; JPEG, or lossless WebP for an image with transparency), made once and cached.
    pub async fn asset_thumbnail(&self, id: &str, w: u32) -> Result<bytes::Bytes, Error> {
        self.get_bytes(&format!("/api/toolkit/assets/{}/file?w={w}", encode(id))).await
    }

    /// `GET /api/toolkit/assets/{id}`: the legacy bytes route, read whole. Unlike
    /// [`Client::asset_bytes`] it answers 403 (not 404) for another house's asset.
    pub async fn legacy_asset_bytes(&self, id: &str) -> Result<bytes::Bytes, Error> {
        self.get_bytes(&format!("/api/toolkit/assets/{}", encode(id))).await
    }

    /// `GET /api/toolkit/assets/{id}/file` streamed into a file; returns the bytes written.
    pub async fn download_asset(&self, id: &str, to: &std::path::Path) -> Result<u64, Error> {
        self.download(&format!("/api/toolkit/assets/{}/file", encode(id)), to, |_, _| {}).await
    }

    /// GET `path` and stream the body into the file `to`; `progress` gets (written, total).
    /// The request is retried per the policy until an answer starts; the body is not resumed.
    async fn download(
        &self,
        path: &str,
        to: &std::path::Path,
        mut progress: impl FnMut(u64, Option<u64>),
    ) -> Result<u64, Error> {
        use tokio::io::AsyncWriteExt;
        let mut res = self.execute(Method::GET, path, false, |r| ready(Ok(r.timeout(LONG_TRANSFER)))).await?;
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

    /// `POST /api/toolkit/assets/batch/quote`: a price; spends and reserves nothing.
    pub async fn quote_assets(&self, req: &QuoteRequest) -> Result<Quote, Error> {
        self.post("/api/toolkit/assets/batch/quote", req).await
    }

    /// `POST /api/toolkit/assets/group`: one new shared group stamp for these assets.
    pub async fn group_assets(&self, ids: &[String]) -> Result<GroupResponse, Error> {
        self.post("/api/toolkit/assets/group", &GroupRequest { asset_ids: ids.to_vec(), name: None }).await
    }

    /// The built-in plain grounds and every scene of the house: `GET /api/toolkit/backgrounds`
    /// page by page until the last.
    pub async fn backgrounds(&self) -> Result<Backgrounds, Error> {
        let mut all: Backgrounds = self.get(&format!("/api/toolkit/backgrounds?limit={PAGE}")).await?;
        while let Some(cursor) = all.next_cursor.take() {
            let page = self.backgrounds_page(PAGE, Some(&cursor)).await?;
            all.scenes.extend(page.scenes);
            all.next_cursor = page.next_cursor;
        }
        Ok(all)
    }

    /// `GET /api/toolkit/backgrounds?limit&cursor`: the grounds and one page of at most `limit`
    /// (1 to 200) scenes after `cursor`; `next_cursor` is `None` on the last page.
    pub async fn backgrounds_page(&self, limit: u32, cursor: Option<&str>) -> Result<Backgrounds, Error> {
        let mut path = format!("/api/toolkit/backgrounds?limit={limit}");
        if let Some(cursor) = cursor {
            path.push_str(&format!("&cursor={}", encode(cursor)));
        }
        self.get(&path).await
    }

    /// `GET /api/toolkit/backgrounds/{id}/preview`: a built-in ground's swatch (PNG bytes).
    /// Needs no credential.
    pub async fn ground_preview(&self, id: &str) -> Result<bytes::Bytes, Error> {
        self.get_bytes(&format!("/api/toolkit/backgrounds/{}/preview", encode(id))).await
    }

    /// `POST /api/toolkit/assets/pack`: ready at once for small packs, queued for large ones.
    ///
    /// ```no_run
    /// # async fn demo(client: studio_client::Client, ids: Vec<String>) -> Result<(), studio_client::Error> {
    /// use std::time::Duration;
    /// use studio_client::api::PackRequest;
    ///
    /// let req = PackRequest { asset_ids: ids, name: Some("SS27 lookbook".into()), ..PackRequest::default() };
    /// let mut pack = client.create_pack(&req).await?;
    /// if pack.status == "queued" {
    ///     // Large packs are built in the background (a pack.ready event follows on the socket).
    ///     pack = client.wait_for_pack(&pack.pack_id, Duration::from_secs(2), Duration::from_secs(600)).await?;
    /// }
    /// let written = client
    ///     .download_pack(&pack.pack_id, pack.filename.as_ref(), |done, total| {
    ///         eprintln!("{done} of {total:?} bytes");
    ///     })
    ///     .await?;
    /// println!("{written} bytes in {}", pack.filename);
    /// # Ok(()) }
    /// ```
    pub async fn create_pack(&self, req: &PackRequest) -> Result<Pack, Error> {
        // An instant pack is built inside the request: allow it the time a large one takes.
        let build = |r: RequestBuilder| ready(Ok(r.json(req).timeout(LONG_TRANSFER)));
        Ok(self.call(Method::POST, "/api/toolkit/assets/pack", false, build).await?.0)
    }

    /// `GET /api/toolkit/packs/{id}`: the pack's status.
    pub async fn get_pack(&self, id: &str) -> Result<Pack, Error> {
        self.get(&format!("/api/toolkit/packs/{}", encode(id))).await
    }

    /// Poll a pack every `every` until it is no longer queued or building (at most `timeout`;
    /// then the pack is returned as it stands).
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

/// True when a transport error means the request never got an answer because the connection
/// failed (refused, reset, closed early); a timeout is not retried, since it already spent the
/// call's time.
fn connection_failed(e: &reqwest::Error) -> bool {
    !e.is_timeout() && (e.is_connect() || e.is_request())
}

/// Where the bytes of one multipart file part come from. A part is made afresh for every
/// attempt: a file is opened again, memory is shared (not copied).
#[derive(Debug, Clone)]
pub(crate) enum PartSource<'a> {
    /// A file on disk, streamed, and the part's file name.
    File(&'a std::path::Path, String),
    /// Bytes in memory and the part's file name.
    Memory(bytes::Bytes, String),
}

impl PartSource<'_> {
    /// The part for one attempt.
    pub(crate) async fn part(&self) -> Result<reqwest::multipart::Part, Error> {
        match self {
            PartSource::File(path, file_name) => {
                let io = |e: std::io::Error| Error::Config(format!("{}: {e}", path.display()));
                let file = tokio::fs::File::open(path).await.map_err(io)?;
                let len = file.metadata().await.map_err(io)?.len();
                let body = reqwest::Body::from(file);
                Ok(reqwest::multipart::Part::stream_with_length(body, len).file_name(file_name.clone()))
            }
            PartSource::Memory(bytes, file_name) => {
                let len = bytes.len() as u64;
                let body = reqwest::Body::from(bytes.clone());
                Ok(reqwest::multipart::Part::stream_with_length(body, len).file_name(file_name.clone()))
            }
        }
    }
}

/// The error of a refused call: the shared envelope (`{error, message, ...extra}`) when the
/// body is one, else `HTTP_<status>` with the start of the body as the message.
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

/// A query string (`?k=v&…`, empty when none) from the pairs that have a value.
pub(crate) fn query(pairs: &[(&str, Option<String>)]) -> String {
    let parts: Vec<String> =
        pairs.iter().filter_map(|(k, v)| v.as_ref().map(|v| format!("{k}={}", encode(v)))).collect();
    if parts.is_empty() { String::new() } else { format!("?{}", parts.join("&")) }
}

/// Percent-encode a path segment or a query value (ids are opaque strings).
pub(crate) fn encode(segment: &str) -> String {
    segment
        .bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}
