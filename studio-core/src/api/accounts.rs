//! People, houses and browser sessions on the wire.

use chrono::{DateTime, Utc};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::SeatRole;

/// `POST /api/auth/sign-up`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct SignUpRequest {
    /// The person's email; also their sign-in name.
    pub email: String,
    /// At least 10 characters.
    pub password: String,
    /// Display name; the house is named after it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

/// `POST /api/auth/sign-in`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct SignInRequest {
    /// The email given at sign-up.
    pub email: String,
    /// The password given at sign-up.
    pub password: String,
}

/// A person. Attribution only: the house owns everything.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct User {
    /// Opaque id.
    pub id: String,
    /// Lowercased email.
    pub email: String,
    /// Display name, if given.
    pub name: Option<String>,
    /// When the person signed up.
    pub created_at: DateTime<Utc>,
}

/// A house: owns the library, the tokens and the money.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Organization {
    /// Opaque id.
    pub id: String,
    /// The house's name.
    pub name: String,
    /// When the house was created.
    pub created_at: DateTime<Utc>,
}

/// `201` answer of sign-up and `200` answer of sign-in.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SignUpResponse {
    /// The person.
    pub user: User,
    /// Their house.
    pub organization: Organization,
}

/// `GET /api/auth/session`: who the caller is.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SessionInfo {
    /// The person (for a key: the person who minted it).
    pub user: User,
    /// The house the request acts for.
    pub organization: Organization,
    /// The effective role: the seat's role, or the key's.
    pub role: SeatRole,
}

/// `POST /api/auth/sign-out`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SignedOut {
    /// Always true: signing out twice is harmless.
    pub signed_out: bool,
}

/// `POST /api/toolkit/check-email`. A missing email is allowed and answers false, false.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
pub struct CheckEmailRequest {
    /// The address to look up.
    #[serde(default)]
    pub email: Option<String>,
}

/// Answer of check-email; never a 4xx.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CheckEmailResponse {
    /// A person with this email exists.
    pub exists: bool,
    /// That person can sign in with a password.
    pub has_password: bool,
}
