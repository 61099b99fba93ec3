//! Providers: who turns a develop's inputs into a frame. The [`Provider`] trait is the seam;
//! [`local::LocalProvider`] does real pixel work in-process (the embedded default) and
//! [`fal::FalProvider`] drives a hosted model queue for the tools the local one cannot do.
//! [`Providers`] routes each tool to the first provider that advertises it — except that a
//! provider that only stands in for a tool ([`Provider::stands_in`]: the local lookbook
//! compositor) gives way to one that performs it for real — and the price book lists exactly
//! those tools.

use std::collections::BTreeMap;
use std::sync::Arc;

use bytes::Bytes;

use crate::api::Quality;

pub(crate) mod ai;
pub(crate) mod fal;
pub(crate) mod local;

/// Every develop tool the API names (spec §4.3), in the order the spec lists them.
pub(crate) const DEVELOP_TOOLS: [&str; 12] = [
    "upscale",
    "reframe",
    "generate-character",
    "packshot",
    "camera-lens",
    "harmonize",
    "tryon",
    "iron",
    "cleanup",
    "color-change",
    "fit-adjust",
    "lookbook-video",
];

/// One input image of a develop, by role (`image`, `garment`, `model`, `mask`, `background`).
#[derive(Debug, Clone)]
pub struct DevelopInput {
    /// The role the image plays.
    pub role: String,
    /// The encoded bytes as stored.
    pub bytes: Bytes,
    /// Their sniffed MIME type.
    pub mime: String,
}

/// Everything a provider needs to develop one frame.
#[derive(Debug, Clone)]
pub struct DevelopRequest {
    /// The job (for logs and for providers that key their own requests).
    pub job_id: String,
    /// The tool slug.
    pub tool: String,
    /// Output tier: 1,024 / 2,048 / 4,096 px on the long edge.
    pub quality: Quality,
    /// Input images by role; `garment` may repeat.
    pub inputs: Vec<DevelopInput>,
    /// String options, verbatim from the submit.
    pub params: BTreeMap<String, String>,
}

impl DevelopRequest {
    /// The first input with `role`.
    pub fn input(&self, role: &str) -> Option<&DevelopInput> {
        self.inputs.iter().find(|i| i.role == role)
    }
}

/// A developed frame.
#[derive(Debug, Clone)]
pub struct DevelopOutput {
    /// Encoded image bytes.
    pub bytes: Vec<u8>,
    /// Their MIME type (`image/jpeg` or `image/png`).
    pub mime: String,
    /// Pixel width.
    pub width: u32,
    /// Pixel height.
    pub height: u32,
}

/// Why a develop did not produce a frame.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProviderError {
    /// The inputs cannot be developed by this tool (bad image, missing role, bad option):
    /// trying again will not help. The job fails and its hold is released.
    #[error("{0}")]
    Rejected(String),
    /// The provider could not answer now (network, upstream 5xx, timeout). The runner may try
    /// again; after the last attempt the job fails and its hold is released.
    #[error("{0}")]
    Unavailable(String),
}

/// A source of developed frames.
#[async_trait::async_trait]
pub trait Provider: Send + Sync + std::fmt::Debug + 'static {
    /// A short name for logs (`local`, `fal`).
    fn name(&self) -> &'static str;
    /// The tool slugs this provider can truly perform.
    fn tools(&self) -> Vec<String>;
    /// The input roles `tool` requires (each at least once). Submit refuses a develop missing one.
    fn required_roles(&self, tool: &str) -> &'static [&'static str];
    /// Whether this provider performs `tool` only as a stand-in (a deterministic compositor
    /// where a generative model is meant): any other provider advertising `tool` takes it,
    /// whatever the order. False unless a provider says so.
    fn stands_in(&self, _tool: &str) -> bool {
        false
    }
    /// Check `tool`'s options for a develop at `quality` whose inputs have the roles `roles`,
    /// before anything is held: a refusal names the option and the forms it accepts, so a
    /// submit answers 400 instead of queueing a develop that would fail. A provider checks with
    /// the same reading it develops with. Default: nothing to check (options pass through).
    fn check_params(
        &self,
        _tool: &str,
        _params: &BTreeMap<String, String>,
        _quality: Quality,
        _roles: &[&str],
    ) -> Result<(), ProviderError> {
        Ok(())
    }
    /// Develop one frame.
    async fn develop(&self, request: DevelopRequest) -> Result<DevelopOutput, ProviderError>;
}

/// Tool routing: each tool goes to the first provider that advertises it, preferring one that
/// does not merely stand in for it ([`Provider::stands_in`]).
#[derive(Debug, Clone, Default)]
pub struct Providers {
    by_tool: BTreeMap<String, Arc<dyn Provider>>,
    tools: Vec<String>,
}

impl Providers {
    /// Route over `providers`, earlier ones first; a stand-in gives way to a later provider
    /// that advertises the same tool and is not one. Tools are listed in the spec's order.
    pub fn new(providers: Vec<Arc<dyn Provider>>) -> Self {
        let mut by_tool: BTreeMap<String, Arc<dyn Provider>> = BTreeMap::new();
        for provider in providers {
            for tool in provider.tools() {
                match by_tool.get(&tool) {
                    // Held by a provider that performs it, or by one stand-in while another offers.
                    Some(held) if !held.stands_in(&tool) || provider.stands_in(&tool) => {}
                    _ => {
                        by_tool.insert(tool, provider.clone());
                    }
                }
            }
        }
        let mut tools: Vec<String> = crate::providers::DEVELOP_TOOLS
            .iter()
            .filter(|t| by_tool.contains_key(**t))
            .map(|t| t.to_string())
            .collect();
        tools.extend(by_tool.keys().filter(|t| !crate::providers::DEVELOP_TOOLS.contains(&t.as_str())).cloned());
        Providers { by_tool, tools }
    }

    /// The local provider alone: the embedded default.
    pub fn local() -> Self {
        Self::new(vec![Arc::new(local::LocalProvider)])
    }

    /// Every runnable tool.
    pub fn tools(&self) -> &[String] {
        &self.tools
    }

    /// The provider that runs `tool`, if any.
    pub fn get(&self, tool: &str) -> Option<&Arc<dyn Provider>> {
        self.by_tool.get(tool)
    }
}
