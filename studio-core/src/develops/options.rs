//! A develop's tool options checked before anything is held: the provider that will run the
//! tool reads them as it would when developing (`Provider::check_params`; for the local tools
//! `providers/local/options.rs`), and a refusal is a 400 `BAD_PARAMS` naming the option and the
//! forms it accepts, through the multipart submit and the agent endpoint's start_develop alike.

use std::collections::BTreeMap;

use crate::api::Quality;
use crate::error::{Error, Result};
use crate::providers::{Provider, ProviderError};

/// The code of an option a tool cannot read.
pub(crate) const BAD_PARAMS: &str = "BAD_PARAMS";

/// Check `tool`'s options for a develop at `quality` with inputs of `roles`, as `provider`
/// reads them.
pub(crate) fn check_tool_options(
    provider: &dyn Provider,
    tool: &str,
    params: &BTreeMap<String, String>,
    quality: Quality,
    roles: &[&str],
) -> Result<()> {
    provider.check_params(tool, params, quality, roles).map_err(|e: ProviderError| {
        Error::invalid(BAD_PARAMS, format!("{tool}: {e}. Nothing was held.")).with("tool", tool)
    })
}
