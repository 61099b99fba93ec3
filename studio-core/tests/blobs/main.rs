//! The blob conformance suite: the same checks against a local directory and an S3-compatible
//! bucket, through [`Blobs`]. S3 runs when `STUDIO_TEST_S3_ENDPOINT` is set (a loopback server
//! such as moto; the bucket from `STUDIO_TEST_S3_BUCKET`, default `studio-test`, is created if
//! missing); `.ci/run` always sets it.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use bytes::Bytes;
use futures_util::{StreamExt, stream};
use sha2::{Digest, Sha256};
use studio_core::{BlobError, Blobs, S3Config};
use tokio::sync::OnceCell;

/// The environment variable naming the S3-compatible endpoint for tests.
const S3_ENV: &str = "STUDIO_TEST_S3_ENDPOINT";
/// The environment variable naming the bucket (default [`DEFAULT_BUCKET`]).
const S3_BUCKET_ENV: &str = "STUDIO_TEST_S3_BUCKET";
const DEFAULT_BUCKET: &str = "studio-test";
const MIB: usize = 1024 * 1024;
/// What `StoredBlob::head` keeps at most.
const HEAD_BYTES: usize = 512 * 1024;
/// The PNG signature: enough for the sniffer to say `image/png`.
const PNG_MAGIC: [u8; 8] = [0x89, b'P', b'N', b'G', 0x0D, 0x0A, 0x1A, 0x0A];
/// A cap far above anything these tests send unless they mean to pass it.
const NO_CAP: u64 = 64 * MIB as u64;

/// The store's answer about types: images only, as the asset upload asks.
fn images(mime: &str) -> bool {
    mime.starts_with("image/")
}

/// A blob store under test, with whatever keeps it alive.
struct Subject {
    blobs: Blobs,
    /// A per-run key prefix, so reruns against one bucket never collide.
    prefix: String,
    /// The local directory (local backend only).
    dir: Option<tempfile::TempDir>,
    /// `(endpoint, bucket)` (S3 backend only), for checks behind the store's back.
    s3: Option<(String, String)>,
}

impl Subject {
    fn key(&self, name: &str) -> String {
        format!("{}/{name}", self.prefix)
    }

    /// The key holds nothing: `get` and `get_bytes` answer NotFound, and no staged part or
    /// unfinished multipart upload is left behind for it.
    async fn assert_absent(&self, key: &str) {
        let err = self.blobs.get(key).await.expect_err("get of a key that must hold nothing");
        assert!(is_not_found(&err), "get {key}: expected NotFound, got {err:?}");
        let err = self.blobs.get_bytes(key).await.expect_err("get_bytes of a key that must hold nothing");
        assert!(is_not_found(&err), "get_bytes {key}: expected NotFound, got {err:?}");
        if let Some(dir) = &self.dir {
            let leftovers: Vec<_> = files_under(dir.path())
                .into_iter()
                .filter(|p| p.strip_prefix(dir.path()).is_ok_and(|rel| rel.to_string_lossy().starts_with(key)))
                .collect();
            assert!(leftovers.is_empty(), "files left behind for {key}: {leftovers:?}");
        }
        if let Some((endpoint, bucket)) = &self.s3 {
            let (status, body) = http(endpoint, "GET", &format!("/{bucket}?uploads"));
            assert_eq!(status, 200, "list multipart uploads: {body}");
            assert!(!body.contains(&format!("<Key>{key}</Key>")), "unfinished multipart upload left for {key}: {body}");
        }
    }
}

fn is_not_found(err: &BlobError) -> bool {
    matches!(err, BlobError::Store(object_store::Error::NotFound { .. }))
}

fn files_under(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).expect("read dir") {
        let path = entry.expect("dir entry").path();
        if path.is_dir() {
            out.extend(files_under(&path));
        } else {
            out.push(path);
        }
    }
    out
}

/// A minimal HTTP/1.0 request over a plain socket (the test server takes unsigned requests);
/// returns the status code and the body.
fn http(endpoint: &str, method: &str, path: &str) -> (u16, String) {
    let authority = endpoint
        .strip_prefix("http://")
        .unwrap_or_else(|| panic!("{S3_ENV} must be an http:// loopback endpoint, got {endpoint}"))
        .trim_end_matches('/');
    let mut socket =
        TcpStream::connect(authority).unwrap_or_else(|e| panic!("{S3_ENV} is set but {authority} is unreachable: {e}"));
    socket.set_read_timeout(Some(Duration::from_secs(30))).expect("read timeout");
    write!(socket, "{method} {path} HTTP/1.0\r\nHost: {authority}\r\nContent-Length: 0\r\n\r\n").expect("send request");
    let mut response = Vec::new();
    socket.read_to_end(&mut response).expect("read response");
    let response = String::from_utf8_lossy(&response).into_owned();
    let status = response.split_whitespace().nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
    let body = response.split_once("\r\n\r\n").map(|(_, b)| b.to_string()).unwrap_or_default();
    (status, body)
}

static S3_BUCKET: OnceCell<(String, String)> = OnceCell::const_new();

/// The configured endpoint and bucket, the bucket created once per run (None when not configured).
async fn s3_target() -> Option<(String, String)> {
    let endpoint = std::env::var(S3_ENV).ok().filter(|s| !s.trim().is_empty())?;
    let endpoint = endpoint.trim().trim_end_matches('/').to_string();
    let target = S3_BUCKET
        .get_or_init(|| async move {
            let bucket = std::env::var(S3_BUCKET_ENV)
                .ok()
                .filter(|s| !s.trim().is_empty())
                .unwrap_or_else(|| DEFAULT_BUCKET.to_string());
            let (e, b) = (endpoint.clone(), bucket.clone());
            let (status, body) =
                tokio::task::spawn_blocking(move || http(&e, "PUT", &format!("/{b}"))).await.expect("create bucket");
            // 409 is "already exists" (BucketAlreadyOwnedByYou) from servers that refuse a re-create.
            assert!(status == 200 || status == 409, "create bucket {bucket}: HTTP {status}: {body}");
            (endpoint, bucket)
        })
        .await;
    Some(target.clone())
}

/// A fresh local directory, or the per-run S3 bucket (None when not configured).
async fn subject(backend: &str) -> Option<Subject> {
    let prefix = format!("blob-tests/{}", uuid::Uuid::new_v4().simple());
    match backend {
        "local" => {
            let dir = tempfile::tempdir().expect("temp dir");
            let blobs = Blobs::local(dir.path()).expect("open local blobs");
            Some(Subject { blobs, prefix, dir: Some(dir), s3: None })
        }
        _ => {
            let (endpoint, bucket) = s3_target().await?;
            let blobs = Blobs::s3(&S3Config {
                bucket: bucket.clone(),
                endpoint: Some(endpoint.clone()),
                region: Some("us-east-1".into()),
                access_key_id: Some("testing".into()),
                secret_access_key: Some("testing".into()),
                allow_http: true,
            })
            .expect("open s3 blobs");
            Some(Subject { blobs, prefix, dir: None, s3: Some((endpoint, bucket)) })
        }
    }
}

/// Run each listed `async fn name(subject: &Subject)` once per backend.
macro_rules! conformance {
    ($($name:ident),* $(,)?) => {
        mod local {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $name() {
                    let s = crate::subject("local").await.expect("local is always available");
                    super::$name(&s).await
                }
            )*
        }
        mod s3 {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $name() {
                    let Some(s) = crate::subject("s3").await else {
                        eprintln!("skipped: {} not set", crate::S3_ENV);
                        return;
                    };
                    super::$name(&s).await
                }
            )*
        }
    };
}

conformance!(
    png_in_small_chunks_round_trips,
    multi_megabyte_stream_round_trips,
    over_the_cap_is_refused_and_nothing_kept,
    exactly_the_cap_is_kept,
    empty_stream_is_refused_and_nothing_kept,
    unaccepted_types_are_refused_and_nothing_kept,
    failing_stream_is_refused_and_nothing_kept,
    refused_upload_leaves_the_existing_blob_alone,
    delete_removes_and_is_idempotent,
    missing_key_is_not_found,
);

/// A real, decodable 64x48 PNG (a gradient, so it does not compress to nothing).
fn png() -> Vec<u8> {
    let img = image::RgbImage::from_fn(64, 48, |x, y| image::Rgb([(x * 4) as u8, (y * 5) as u8, ((x ^ y) * 3) as u8]));
    let mut out = std::io::Cursor::new(Vec::new());
    img.write_to(&mut out, image::ImageFormat::Png).expect("encode png");
    out.into_inner()
}

/// The PNG signature followed by patterned padding up to `len` bytes.
fn png_padded(len: usize) -> Vec<u8> {
    let mut data: Vec<u8> = PNG_MAGIC.to_vec();
    data.extend((PNG_MAGIC.len()..len).map(|i| (i % 251) as u8));
    data
}

fn sha256(data: &[u8]) -> String {
    hex::encode(Sha256::digest(data))
}

/// `data` as a stream of chunks of `size` bytes, which never fails.
fn chunked(data: &[u8], size: usize) -> impl futures_util::Stream<Item = Result<Bytes, std::io::Error>> + Unpin {
    let data = Bytes::copy_from_slice(data);
    let chunks: Vec<_> =
        (0..data.len()).step_by(size).map(|at| Ok(data.slice(at..(at + size).min(data.len())))).collect();
    stream::iter(chunks)
}

/// Read a blob back through the streaming reader; checks the announced size against the bytes.
async fn read_back(s: &Subject, key: &str) -> Vec<u8> {
    let mut reader = s.blobs.get(key).await.expect("get");
    let mut out = Vec::new();
    while let Some(chunk) = reader.stream.next().await {
        out.extend_from_slice(&chunk.expect("read chunk"));
    }
    assert_eq!(reader.size, out.len() as u64, "announced size vs bytes streamed");
    out
}

async fn png_in_small_chunks_round_trips(s: &Subject) {
    let data = png();
    assert!(data.len() > 200, "the fixture spans many chunks: {} bytes", data.len());
    let key = s.key("small.png");
    let stored = s.blobs.put_stream(&key, chunked(&data, 7), NO_CAP, images).await.expect("put png");
    assert_eq!(stored.key, key);
    assert_eq!(stored.bytes, data.len() as u64);
    assert_eq!(stored.sha256, sha256(&data));
    assert_eq!(stored.sha256.len(), 64);
    assert_eq!(stored.mime, "image/png");
    assert_eq!(stored.head.as_ref(), data.as_slice(), "a small blob's head is all of it");

    let back = read_back(s, &key).await;
    assert_eq!(back, data);
    assert_eq!(sha256(&back), stored.sha256);
    assert_eq!(s.blobs.get_bytes(&key).await.expect("get_bytes").as_ref(), data.as_slice());
    let decoded = image::load_from_memory(&back).expect("decode the stored png");
    assert_eq!((decoded.width(), decoded.height()), (64, 48));
}

async fn multi_megabyte_stream_round_trips(s: &Subject) {
    // 11 MiB crosses object_store's 5 MiB multipart part size twice on S3.
    let data = png_padded(11 * MIB + 123);
    let key = s.key("large.png");
    let stored = s.blobs.put_stream(&key, chunked(&data, 64 * 1024), NO_CAP, images).await.expect("put large");
    assert_eq!(stored.bytes, (11 * MIB + 123) as u64);
    assert_eq!(stored.sha256, sha256(&data));
    assert_eq!(stored.mime, "image/png");
    assert_eq!(stored.head.len(), HEAD_BYTES);
    assert_eq!(stored.head.as_ref(), &data[..HEAD_BYTES]);

    let back = read_back(s, &key).await;
    assert_eq!(back.len(), data.len());
    assert_eq!(sha256(&back), sha256(&data));
    assert!(back == data, "the large blob round-trips byte-exact");
    s.blobs.delete(&key).await.expect("delete large");
    s.assert_absent(&key).await;
}

async fn over_the_cap_is_refused_and_nothing_kept(s: &Subject) {
    // Past the cap after the upload has opened (and, on S3, after a part went out).
    let data = png_padded(6 * MIB);
    let key = s.key("too-large.png");
    let cap = (5 * MIB + 1) as u64;
    let err = s.blobs.put_stream(&key, chunked(&data, 64 * 1024), cap, images).await.expect_err("over the cap");
    assert!(matches!(err, BlobError::TooLarge { max } if max == cap), "got {err:?}");
    s.assert_absent(&key).await;

    // Past the cap in the very first chunk, before anything was sniffed or opened.
    let key = s.key("too-large-at-once.png");
    let err = s.blobs.put_stream(&key, chunked(&png(), 4096), 32, images).await.expect_err("over a tiny cap");
    assert!(matches!(err, BlobError::TooLarge { max: 32 }), "got {err:?}");
    s.assert_absent(&key).await;
}

async fn exactly_the_cap_is_kept(s: &Subject) {
    let data = png_padded(100_000);
    let key = s.key("at-cap.png");
    let stored =
        s.blobs.put_stream(&key, chunked(&data, 1000), data.len() as u64, images).await.expect("exactly the cap");
    assert_eq!(stored.bytes, 100_000);
    assert_eq!(read_back(s, &key).await, data);

    let key = s.key("one-over.png");
    let err = s
        .blobs
        .put_stream(&key, chunked(&data, 1000), data.len() as u64 - 1, images)
        .await
        .expect_err("one byte over the cap");
    assert!(matches!(err, BlobError::TooLarge { max: 99_999 }), "got {err:?}");
    s.assert_absent(&key).await;
}

async fn empty_stream_is_refused_and_nothing_kept(s: &Subject) {
    let key = s.key("empty");
    let nothing = stream::iter(Vec::<Result<Bytes, std::io::Error>>::new());
    let err = s.blobs.put_stream(&key, nothing, NO_CAP, images).await.expect_err("no chunks");
    assert!(matches!(err, BlobError::Empty), "got {err:?}");
    s.assert_absent(&key).await;

    let key = s.key("empty-chunks");
    let hollow = stream::iter(vec![Ok::<_, std::io::Error>(Bytes::new()), Ok(Bytes::new()), Ok(Bytes::new())]);
    let err = s.blobs.put_stream(&key, hollow, NO_CAP, images).await.expect_err("only empty chunks");
    assert!(matches!(err, BlobError::Empty), "got {err:?}");
    s.assert_absent(&key).await;
}

async fn unaccepted_types_are_refused_and_nothing_kept(s: &Subject) {
    // Plain text, longer than the sniff window and in several chunks.
    let text = "Collection notes: wool, silk, a little linen. ".repeat(40).into_bytes();
    let key = s.key("notes.txt");
    let err = s.blobs.put_stream(&key, chunked(&text, 100), NO_CAP, images).await.expect_err("text");
    assert!(
        matches!(&err, BlobError::Unsupported(m) if m == "text/plain" || m == "application/octet-stream"),
        "{err:?}"
    );
    s.assert_absent(&key).await;

    // Shorter than the sniff window: refused at the end of the stream.
    let key = s.key("short.txt");
    let err = s.blobs.put_stream(&key, chunked(b"hello", 2), NO_CAP, images).await.expect_err("short text");
    assert!(
        matches!(&err, BlobError::Unsupported(m) if m == "text/plain" || m == "application/octet-stream"),
        "{err:?}"
    );
    s.assert_absent(&key).await;

    // A real image of a type the caller does not admit.
    let key = s.key("not-a-jpeg.png");
    let err = s.blobs.put_stream(&key, chunked(&png(), 50), NO_CAP, |m| m == "image/jpeg").await.expect_err("png");
    assert!(matches!(&err, BlobError::Unsupported(m) if m == "image/png"), "got {err:?}");
    s.assert_absent(&key).await;
}

async fn failing_stream_is_refused_and_nothing_kept(s: &Subject) {
    // Fails half way, after the upload opened and (on S3) a part went out.
    let data = png_padded(6 * MIB);
    let mut items: Vec<Result<Bytes, String>> = data.chunks(64 * 1024).map(|c| Ok(Bytes::copy_from_slice(c))).collect();
    items.push(Err("connection reset by peer".into()));
    items.push(Ok(Bytes::from_static(b"never read")));
    let key = s.key("broken.png");
    let err = s.blobs.put_stream(&key, stream::iter(items), NO_CAP, images).await.expect_err("broken stream");
    assert!(matches!(&err, BlobError::Stream(m) if m == "connection reset by peer"), "got {err:?}");
    s.assert_absent(&key).await;

    // Fails before enough bytes arrived to sniff.
    let items: Vec<Result<Bytes, String>> =
        vec![Ok(Bytes::copy_from_slice(&PNG_MAGIC)), Err("client went away".into())];
    let key = s.key("broken-early.png");
    let err = s.blobs.put_stream(&key, stream::iter(items), NO_CAP, images).await.expect_err("broken early");
    assert!(matches!(&err, BlobError::Stream(m) if m == "client went away"), "got {err:?}");
    s.assert_absent(&key).await;
}

async fn refused_upload_leaves_the_existing_blob_alone(s: &Subject) {
    let original = png();
    let key = s.key("kept.png");
    s.blobs.put_stream(&key, chunked(&original, 1024), NO_CAP, images).await.expect("put original");

    let mut items: Vec<Result<Bytes, String>> =
        png_padded(MIB).chunks(64 * 1024).map(|c| Ok(Bytes::copy_from_slice(c))).collect();
    items.push(Err("aborted".into()));
    let err = s.blobs.put_stream(&key, stream::iter(items), NO_CAP, images).await.expect_err("broken overwrite");
    assert!(matches!(err, BlobError::Stream(_)), "got {err:?}");
    let err = s.blobs.put_stream(&key, chunked(&png_padded(4096), 512), 1000, images).await.expect_err("too large");
    assert!(matches!(err, BlobError::TooLarge { max: 1000 }), "got {err:?}");
    assert_eq!(read_back(s, &key).await, original, "refusals must not touch what is stored");

    // A successful overwrite replaces it.
    let replacement = png_padded(3000);
    let stored = s.blobs.put_stream(&key, chunked(&replacement, 256), NO_CAP, images).await.expect("overwrite");
    assert_eq!(stored.sha256, sha256(&replacement));
    assert_eq!(read_back(s, &key).await, replacement);
}

async fn delete_removes_and_is_idempotent(s: &Subject) {
    let data = png();
    let key = s.key("doomed.png");
    let other = s.key("neighbour.png");
    s.blobs.put_stream(&key, chunked(&data, 333), NO_CAP, images).await.expect("put");
    s.blobs.put_stream(&other, chunked(&data, 333), NO_CAP, images).await.expect("put neighbour");
    assert_eq!(s.blobs.get(&key).await.expect("present before delete").size, data.len() as u64);

    s.blobs.delete(&key).await.expect("first delete");
    s.assert_absent(&key).await;
    s.blobs.delete(&key).await.expect("second delete of the same key is fine");
    s.assert_absent(&key).await;
    assert_eq!(read_back(s, &other).await, data, "deleting one key leaves its neighbour");
}

async fn missing_key_is_not_found(s: &Subject) {
    let key = s.key("never-written.png");
    s.assert_absent(&key).await;
    s.blobs.delete(&key).await.expect("deleting what never existed is fine");
}
