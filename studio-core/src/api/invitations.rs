//! Wire types of the platform gate (`02-route-groups.md` §4.10) and of the admin routes
//! `invite`, `invite-codes` and `invite-requests` (§4.12).

use chrono::{DateTime, Utc};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Query of `GET /api/toolkit/invite/accept`.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
pub struct InviteTokenQuery {
    /// The invitation token from the letter's link (required: 400 `TOKEN_REQUIRED`). An
    /// `Option` so that a missing one reaches the handler's own refusal; the document still
    /// marks it required.
    #[schemars(required)]
    pub token: Option<String>,
}

/// Answer of `GET /api/toolkit/invite/accept`: whom the invitation is for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct InvitationLookup {
    /// The invited address.
    pub email: String,
}

/// Body of `POST /api/toolkit/invite/accept`.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
pub struct AcceptInvitationRequest {
    /// The invitation token.
    #[serde(default)]
    pub token: Option<String>,
}

/// Answer of `POST /api/toolkit/invite/accept`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AcceptInvitationResponse {
    /// Always true.
    pub ok: bool,
    /// True when the invitation had been accepted before: nothing changed.
    pub already_accepted: bool,
}

/// Body of `POST /api/toolkit/invite/preview`.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
pub struct PreviewRequest {
    /// One to six http(s) links.
    #[serde(default)]
    #[schemars(with = "Option<Vec<String>>")]
    pub links: Option<serde_json::Value>,
}

/// One link's card.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PreviewCard {
    /// The link as sent.
    pub link: String,
    /// False when the page could not be read or was refused; the other fields are then empty.
    pub ok: bool,
    /// The host the link names (lowercased), when it parses.
    pub host: Option<String>,
    /// The page's `og:title` or `<title>`.
    pub title: Option<String>,
    /// The page's `og:description` or `description`.
    pub description: Option<String>,
    /// The page's `og:image` (absolute).
    pub image_url: Option<String>,
    /// The page's icon (absolute; `/favicon.ico` when the page names none).
    pub icon_url: Option<String>,
}

/// Answer of `POST /api/toolkit/invite/preview`: one card per link, in request order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PreviewResponse {
    /// The cards.
    pub cards: Vec<PreviewCard>,
}

/// Body of `POST /api/toolkit/invite/redeem`.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
pub struct RedeemRequest {
    /// `LABEL-XXXXXX`.
    #[serde(default)]
    pub code: Option<String>,
    /// The address the invitation is written for.
    #[serde(default)]
    pub email: Option<String>,
}

/// Answer of `POST /api/toolkit/invite/redeem`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RedeemResponse {
    /// Always `opened`.
    pub status: String,
    /// The code's label.
    pub label: String,
    /// Tokens credited to the guest's house when the invitation is accepted.
    pub grant_tokens: i64,
    /// How many 1k frames those tokens develop.
    pub frames: i64,
    /// How many looks (four 1k frames each) those tokens develop.
    pub looks: i64,
    /// Days the invitation's tokens stay once credited.
    pub days: i64,
}

/// The intake answers of a request (§4.10).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct IntakeAnswers {
    /// Who the house sells to.
    #[serde(default)]
    pub audience: Vec<String>,
    /// How many frames a season needs.
    #[serde(default)]
    pub volume: Vec<String>,
    /// What draws them to Studio.
    #[serde(default)]
    pub draws: Vec<String>,
    /// How they use AI today.
    #[serde(default)]
    pub ai_today: Vec<String>,
    /// What hurts today.
    #[serde(default)]
    pub pain: Vec<String>,
    /// What imagery costs them today.
    #[serde(default)]
    pub cost: Vec<String>,
    /// The pain in their words.
    #[serde(default)]
    pub pain_text: Option<String>,
}

/// Body of `POST /api/toolkit/invite/request`.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct InviteRequestBody {
    /// The person's name.
    #[serde(default)]
    pub name: Option<String>,
    /// Their address (required).
    #[serde(default)]
    pub email: Option<String>,
    /// The house's name.
    #[serde(default)]
    pub house: Option<String>,
    /// The collection they want to shoot.
    #[serde(default)]
    pub collection: Option<String>,
    /// Intake answers.
    #[serde(default)]
    pub intake: Option<IntakeAnswers>,
    /// One link (kept with `links`).
    #[serde(default)]
    pub link: Option<String>,
    /// Links to the house's work.
    #[serde(default)]
    pub links: Option<Vec<String>>,
    /// The house's logo (an http(s) URI).
    #[serde(default)]
    pub logo_url: Option<String>,
    /// The house's website.
    #[serde(default)]
    pub website: Option<String>,
}

/// Answer of `POST /api/toolkit/invite/request`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct InviteRequestReceived {
    /// `received`, or `already_requested` for an address that asked before.
    pub status: String,
}

/// One person invited with a code.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Invitee {
    /// The invited address.
    pub email: String,
    /// When the invitation was written.
    pub invited_at: DateTime<Utc>,
    /// The address has an account (or accepted the invitation).
    pub signed_up: bool,
    /// The invitee's own house has paid for a subscription.
    pub subscribed: bool,
    /// The first paid subscription.
    pub subscribed_at: Option<DateTime<Utc>>,
}

/// Answer of `GET /api/toolkit/invites/mine`: the person's own code and what it gives.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct InvitesMine {
    /// The person's own `LABEL-XXXXXX` code.
    pub code: String,
    /// A link that carries the code.
    pub url: String,
    /// How many addresses the code may invite now.
    pub max_uses: i64,
    /// The starting allowance, before bonuses for subscribed invitees.
    pub base_max_uses: i64,
    /// Addresses invited so far.
    pub used_count: i64,
    /// `maxUses - usedCount`.
    pub invites_left: i64,
    /// Looks a guest's starting tokens develop.
    pub guest_looks: i64,
    /// Tokens a guest's house starts with (sign-up grant plus the code's bonus).
    pub guest_tokens: i64,
    /// Tokens the host's house earns per invitee who subscribes, after the hold.
    pub host_tokens: i64,
    /// `guestTokens` in US dollars at the smallest pack's rate.
    pub guest_value_usd: f64,
    /// `guestBonusTokens` in US dollars: what the invitation adds on arrival.
    pub guest_arrival_usd: f64,
    /// Tokens the code adds on acceptance, on top of the sign-up grant.
    pub guest_bonus_tokens: i64,
    /// `hostTokens` in US dollars.
    pub host_value_usd: f64,
    /// Days an invitee's subscription must last before the host earns `hostTokens`.
    pub hold_days: i64,
    /// Everyone invited with the code, oldest first.
    pub invitees: Vec<Invitee>,
}

/// Body of `POST /api/toolkit/admin/invite`.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
pub struct AdminInviteRequest {
    /// The address to invite.
    #[serde(default)]
    pub email: Option<String>,
}

/// Answer of `POST /api/toolkit/admin/invite`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AdminInviteResponse {
    /// The invited address (lowercased).
    pub email: String,
    /// The invitation token (shown here once; only its SHA-256 is kept). Null when the address
    /// accepted an invitation before.
    pub token: Option<String>,
    /// The link carrying the token; null with it.
    pub url: Option<String>,
    /// `invited` (new), `reissued` (a pending invitation got this new token; the old link no
    /// longer works) or `accepted` (nothing to do).
    pub status: String,
    /// The toolkits acceptance opens.
    pub toolkits_opened: Vec<String>,
}

/// An invite code as the admin list shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct InviteCode {
    /// Id.
    pub id: String,
    /// `LABEL-XXXXXX`.
    pub code: String,
    /// The label.
    pub label: String,
    /// Tokens each invitation credits on acceptance.
    pub grant_tokens: i64,
    /// How many addresses it may invite.
    pub max_uses: i64,
    /// Addresses it invited.
    pub used_count: i64,
    /// Invitations from it that were accepted.
    pub joined_count: i64,
    /// After this it is refused.
    pub expires_at: Option<DateTime<Utc>>,
    /// Set once, by revoke; final.
    pub revoked_at: Option<DateTime<Utc>>,
    /// Mint time.
    pub created_at: DateTime<Utc>,
}

/// Answer of `GET /api/toolkit/admin/invite-codes`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct InviteCodeList {
    /// Every code minted by admins, newest first.
    pub codes: Vec<InviteCode>,
}

/// Body of `POST /api/toolkit/admin/invite-codes`.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct MintInviteCodeRequest {
    /// 2 to 16 letters or digits (uppercased); default `INVITE`.
    #[serde(default)]
    pub label: Option<String>,
    /// Required: 1 to 10 000.
    #[serde(default)]
    pub max_uses: Option<i64>,
    /// Tokens each invitation credits on acceptance (0 to 10 000; default 0).
    #[serde(default)]
    pub grant_tokens: Option<i64>,
    /// Days until the code is refused (1 to 365); absent for never.
    #[serde(default)]
    pub expires_in_days: Option<i64>,
}

/// Body of `POST /api/toolkit/admin/invite-codes/revoke`.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
pub struct RevokeInviteCodeRequest {
    /// The code's id.
    #[serde(default)]
    pub id: Option<String>,
}

/// One intake answer as the admin list shows it: the question's key and what was answered.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct IntakeAnswer {
    /// `audience`, `volume`, `draws`, `aiToday`, `pain`, `cost` or `painText`.
    pub question: String,
    /// The answers (one string for `painText`).
    pub answers: Vec<String>,
}

/// A request to be let in, as the admin list shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct InviteRequestView {
    /// Id.
    pub id: String,
    /// The person's name.
    pub name: Option<String>,
    /// The house.
    pub house: Option<String>,
    /// The address.
    pub email: String,
    /// The collection.
    pub collection: Option<String>,
    /// `pending`, or `invited` once an invitation exists for the address.
    pub status: String,
    /// When it was asked.
    pub created_at: DateTime<Utc>,
    /// The intake answers that were given, in the intake's order.
    pub answers: Vec<IntakeAnswer>,
    /// Links to the house's work.
    pub links: Vec<String>,
    /// The logo.
    pub logo_url: Option<String>,
    /// The website.
    pub website: Option<String>,
}

/// Answer of `GET /api/toolkit/admin/invite-requests`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct InviteRequestList {
    /// Newest first.
    pub requests: Vec<InviteRequestView>,
}
