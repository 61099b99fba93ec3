//! Blob storage on `object_store`: the local filesystem under the data directory by default, an
//! S3-compatible bucket for scale. Uploads stream through [`Blobs::put_stream`], which sniffs the
//! content type from the first bytes, hashes every byte (SHA-256) and enforces a size cap without
//! ever holding the whole file in memory.

use std::path::Path;
use std::sync::Arc;

use bytes::Bytes;
use futures_util::{Stream, StreamExt};
use object_store::path::Path as ObjectPath;
use object_store::{ObjectStore, ObjectStoreExt, WriteMultipart};
use sha2::{Digest, Sha256};

/// How many leading bytes are kept for reading image headers.
const HEAD_BYTES: usize = 512 * 1024;
/// How many bytes are enough to recognise a type by its magic number.
const SNIFF_BYTES: usize = 64;
/// A streamed write's part on the local disk: the bytes an upload holds before handing them to
/// a blocking write. Small, so eight 12 MB uploads at once hold a few MiB, not their files.
const LOCAL_PART_BYTES: usize = 256 * 1024;
/// A streamed write's part in S3: its multipart minimum (every part but the last).
const S3_PART_BYTES: usize = 5 * 1024 * 1024;
/// Parts of one streamed write in flight at once, beyond the one filling.
const PARTS_IN_FLIGHT: usize = 2;

/// Where blobs live.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BlobConfig {
    /// A directory on the local disk (created if missing).
    Local(std::path::PathBuf),
    /// An S3-compatible bucket.
    S3(S3Config),
}

/// An S3-compatible bucket and how to reach it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct S3Config {
    /// Bucket name (`STUDIO_BLOB_URL=s3://bucket`).
    pub bucket: String,
    /// Endpoint for non-AWS servers (MinIO, moto, R2, ...); None for AWS.
    pub endpoint: Option<String>,
    /// Region (default `us-east-1`).
    pub region: Option<String>,
    /// Access key id; None to use the environment's credential chain.
    pub access_key_id: Option<String>,
    /// Secret access key.
    pub secret_access_key: Option<String>,
    /// Allow plain http endpoints (test servers on loopback).
    pub allow_http: bool,
}

/// A blob-store failure.
#[derive(Debug, thiserror::Error)]
pub enum BlobError {
    /// The object store answered with an error.
    #[error("object store: {0}")]
    Store(#[from] object_store::Error),
    /// The incoming stream failed (client went away, malformed multipart).
    #[error("upload stream: {0}")]
    Stream(String),
    /// The stream passed the size cap; nothing was kept.
    #[error("too large: more than {max} bytes")]
    TooLarge {
        /// The cap in bytes.
        max: u64,
    },
    /// The stream was empty; nothing was kept.
    #[error("empty")]
    Empty,
    /// The bytes are not one of the accepted types; nothing was kept.
    #[error("unsupported type {0}")]
    Unsupported(String),
    /// The store could not be configured.
    #[error("blob store configuration: {0}")]
    Config(String),
}

/// What a completed upload stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredBlob {
    /// The object key.
    pub key: String,
    /// Bytes stored.
    pub bytes: u64,
    /// SHA-256 of the bytes, lowercase hex.
    pub sha256: String,
    /// The sniffed content type.
    pub mime: String,
    /// The first bytes (up to 512 KiB), for reading headers without another read.
    pub head: Bytes,
}

/// A blob being read: its size and a stream of its bytes.
pub struct BlobReader {
    /// Total size in bytes.
    pub size: u64,
    /// The bytes, in order.
    pub stream: futures_util::stream::BoxStream<'static, Result<Bytes, BlobError>>,
}

impl std::fmt::Debug for BlobReader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BlobReader").field("size", &self.size).finish_non_exhaustive()
    }
}

/// The blob store the domain writes to.
#[derive(Clone)]
pub struct Blobs {
    store: Arc<dyn ObjectStore>,
    describe: String,
    /// A streamed write's part size (see [`LOCAL_PART_BYTES`], [`S3_PART_BYTES`]).
    part_bytes: usize,
}

impl std::fmt::Debug for Blobs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.describe)
    }
}

impl Blobs {
    /// Open the configured store.
    pub fn open(config: &BlobConfig) -> Result<Self, BlobError> {
        match config {
            BlobConfig::Local(dir) => Self::local(dir),
            BlobConfig::S3(s3) => Self::s3(s3),
        }
    }

    /// Blobs under a local directory (created if missing).
    pub fn local(dir: &Path) -> Result<Self, BlobError> {
        std::fs::create_dir_all(dir).map_err(|e| BlobError::Config(format!("{}: {e}", dir.display())))?;
        let store = object_store::local::LocalFileSystem::new_with_prefix(dir)?;
        Ok(Blobs { store: Arc::new(store), describe: format!("local:{}", dir.display()), part_bytes: LOCAL_PART_BYTES })
    }

    /// Blobs in an S3-compatible bucket.
    #[cfg(feature = "s3")]
    pub fn s3(config: &S3Config) -> Result<Self, BlobError> {
        let mut builder = object_store::aws::AmazonS3Builder::from_env()
            .with_bucket_name(&config.bucket)
            .with_region(config.region.clone().unwrap_or_else(|| "us-east-1".to_string()))
            .with_allow_http(config.allow_http);
        if let Some(endpoint) = &config.endpoint {
            builder = builder.with_endpoint(endpoint).with_virtual_hosted_style_request(false);
        }
        if let (Some(id), Some(secret)) = (&config.access_key_id, &config.secret_access_key) {
            builder = builder.with_access_key_id(id).with_secret_access_key(secret);
        }
        Ok(Blobs {
            store: Arc::new(builder.build()?),
            describe: format!("s3://{}", config.bucket),
            part_bytes: S3_PART_BYTES,
        })
    }

    /// Without the `s3` feature an S3 configuration is refused.
    #[cfg(not(feature = "s3"))]
    pub fn s3(config: &S3Config) -> Result<Self, BlobError> {
        Err(BlobError::Config(format!("s3://{} needs the `s3` feature of studio-core", config.bucket)))
    }

    /// [`Blobs::put_stream`] of bytes already in memory (a develop's frame, a cutout, an avatar).
    pub async fn put_bytes(
        &self,
        key: &str,
        bytes: impl Into<Bytes>,
        max_bytes: u64,
        accept: impl Fn(&str) -> bool,
    ) -> Result<StoredBlob, BlobError> {
        let body = futures_util::stream::iter([Ok::<Bytes, std::convert::Infallible>(bytes.into())]);
        self.put_stream(key, body, max_bytes, accept).await
    }

    /// Stream `body` into `key`, keeping nothing unless it is complete, non-empty, at most
    /// `max_bytes` long and of a type `accept` admits (given the sniffed MIME type).
    pub async fn put_stream<S, E>(
        &self,
        key: &str,
        mut body: S,
        max_bytes: u64,
        accept: impl Fn(&str) -> bool,
    ) -> Result<StoredBlob, BlobError>
    where
        S: Stream<Item = Result<Bytes, E>> + Unpin,
        E: std::fmt::Display,
    {
        let mut hasher = Sha256::new();
        let mut head: Vec<u8> = Vec::new();
        let mut pending: Vec<u8> = Vec::new();
        let mut total: u64 = 0;
        let mut writer: Option<WriteMultipart> = None;
        let mut mime = String::new();
        let result: Result<(), BlobError> = async {
            while let Some(chunk) = body.next().await {
                let chunk = chunk.map_err(|e| BlobError::Stream(e.to_string()))?;
                total += chunk.len() as u64;
                if total > max_bytes {
                    return Err(BlobError::TooLarge { max: max_bytes });
                }
                hasher.update(&chunk);
                if head.len() < HEAD_BYTES {
                    let take = (HEAD_BYTES - head.len()).min(chunk.len());
                    head.extend_from_slice(&chunk[..take]);
                }
                match writer.as_mut() {
                    Some(w) => {
                        w.wait_for_capacity(PARTS_IN_FLIGHT).await?;
                        w.write(&chunk);
                    }
                    None => {
                        // Hold bytes back until there are enough to sniff, then open the upload.
                        pending.extend_from_slice(&chunk);
                        if pending.len() >= SNIFF_BYTES {
                            mime = sniff(&pending, &accept)?;
                            let mut w = self.start_write(key).await?;
                            w.write(&pending);
                            pending = Vec::new();
                            writer = Some(w);
                        }
                    }
                }
            }
            if total == 0 {
                return Err(BlobError::Empty);
            }
            if writer.is_none() {
                mime = sniff(&pending, &accept)?;
                let mut w = self.start_write(key).await?;
                w.write(&pending);
                writer = Some(w);
            }
            Ok(())
        }
        .await;
        match (result, writer) {
            (Ok(()), Some(w)) => {
                w.finish().await?;
                Ok(StoredBlob {
                    key: key.to_string(),
                    bytes: total,
                    sha256: hex::encode(hasher.finalize()),
                    mime,
                    head: Bytes::from(head),
                })
            }
            (Ok(()), None) => Err(BlobError::Empty),
            (Err(e), w) => {
                if let Some(w) = w {
                    let _ = w.abort().await;
                }
                Err(e)
            }
        }
    }

    /// Open a streamed write of `key` in this store's part size.
    async fn start_write(&self, key: &str) -> Result<WriteMultipart, BlobError> {
        let upload = self.store.put_multipart(&ObjectPath::from(key)).await?;
        Ok(WriteMultipart::new_with_chunk_size(upload, self.part_bytes))
    }

    /// Read a blob as a stream.
    pub async fn get(&self, key: &str) -> Result<BlobReader, BlobError> {
        let result = self.store.get(&ObjectPath::from(key)).await?;
        let size = result.meta.size;
        let stream = result.into_stream().map(|r| r.map_err(BlobError::from)).boxed();
        Ok(BlobReader { size, stream })
    }

    /// Read the bytes `range` (end exclusive) of a blob as a stream.
    pub async fn get_range(&self, key: &str, range: std::ops::Range<u64>) -> Result<BlobReader, BlobError> {
        let options = object_store::GetOptions {
            range: Some(object_store::GetRange::Bounded(range.clone())),
            ..Default::default()
        };
        let result = self.store.get_opts(&ObjectPath::from(key), options).await?;
        let stream = result.into_stream().map(|r| r.map_err(BlobError::from)).boxed();
        Ok(BlobReader { size: range.end - range.start, stream })
    }

    /// Read the bytes `range` (end exclusive) of a blob in one call.
    pub async fn read_range(&self, key: &str, range: std::ops::Range<u64>) -> Result<Bytes, BlobError> {
        Ok(self.store.get_range(&ObjectPath::from(key), range).await?)
    }

    /// Read a whole (small) blob.
    pub async fn get_bytes(&self, key: &str) -> Result<Bytes, BlobError> {
        Ok(self.store.get(&ObjectPath::from(key)).await?.bytes().await?)
    }

    /// Remove a blob; absent is fine.
    pub async fn delete(&self, key: &str) -> Result<(), BlobError> {
        match self.store.delete(&ObjectPath::from(key)).await {
            Ok(()) | Err(object_store::Error::NotFound { .. }) => Ok(()),
            Err(e) => Err(e.into()),
        }
    }
}

/// The content type the bytes announce, if `accept` admits it.
fn sniff(head: &[u8], accept: &impl Fn(&str) -> bool) -> Result<String, BlobError> {
    let mime =
        infer::get(head).map(|t| t.mime_type().to_string()).unwrap_or_else(|| "application/octet-stream".to_string());
    if accept(&mime) { Ok(mime) } else { Err(BlobError::Unsupported(mime)) }
}
