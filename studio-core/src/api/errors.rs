//! The one error envelope every non-agent route answers with.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// `{"error": "CODE", "message": "...", ...extra fields the spec names}`.
///
/// Extra fields are the ones the spec attaches to a code: `need` and `spendable` on
/// `INSUFFICIENT_TOKENS`, `maxMb` on `IMAGE_TOO_LARGE`, `max` on `BAD_TOKENS`, and so on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ErrorBody {
    /// The machine-readable code; clients switch on it.
    pub error: String,
    /// A sentence for people.
    pub message: String,
    /// Extra fields named by the spec for this code.
    #[serde(flatten)]
    pub extra: serde_json::Map<String, serde_json::Value>,
}
