//! People and houses on the wire: seats and their invitations, switching houses, memories, the
//! account page, the person's own record (`/api/me`), onboarding, intake and tool access.

use chrono::{DateTime, Utc};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::SeatRole;

/// `POST /api/toolkit/org/seats/invite`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct SeatInviteRequest {
    /// The address to invite.
    pub email: String,
    /// The seat offered (only an owner may offer `owner`; accepting it moves ownership).
    pub role: SeatRole,
}

/// An invitation to a seat.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SeatInvitation {
    /// Id: what the invitee accepts.
    pub id: String,
    /// The address invited.
    pub email: String,
    /// The seat offered.
    pub role: SeatRole,
    /// The house.
    pub organization_id: String,
    /// The house's name.
    pub organization_name: String,
    /// After this it cannot be accepted.
    pub expires_at: DateTime<Utc>,
    /// The link the invitee opens.
    pub url: String,
}

/// `POST /api/toolkit/org/seats/accept`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SeatAcceptRequest {
    /// The invitation's id.
    pub invitation_id: String,
}

/// The house a request now acts for (accepting a seat, switching houses).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ActiveHouse {
    /// The house.
    pub organization_id: String,
    /// Its name.
    pub organization_name: String,
    /// The caller's seat there.
    pub role: SeatRole,
}

/// `POST /api/toolkit/org/seats/role`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SeatRoleRequest {
    /// The person re-seated.
    pub user_id: String,
    /// The new role (never `owner`: ownership moves by transfer).
    pub role: SeatRole,
}

/// Answer of a role change.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SeatRoleChanged {
    /// The person.
    pub user_id: String,
    /// Their new role.
    pub role: SeatRole,
    /// Their address.
    pub email: String,
}

/// Answer of `DELETE /api/toolkit/org/seats/{userId}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SeatRemoved {
    /// The person.
    pub user_id: String,
    /// Their address.
    pub email: String,
    /// Always true: what they made belongs to the house and stays.
    pub work_stays_with_house: bool,
}

/// `POST /api/toolkit/org/transfer`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TransferRequest {
    /// The member who becomes owner.
    pub user_id: String,
}

/// Answer of an ownership transfer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Transferred {
    /// The house.
    pub organization_id: String,
    /// The new owner.
    pub user_id: String,
    /// The new owner's address.
    pub email: String,
    /// What the outgoing owner became (always `admin`).
    pub previous_owner_role: SeatRole,
}

/// One seat of a house.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Seat {
    /// The person.
    pub user_id: String,
    /// Their address.
    pub email: String,
    /// Their name.
    pub name: Option<String>,
    /// Their role.
    pub role: SeatRole,
    /// When they were seated.
    pub joined_at: DateTime<Utc>,
}

/// `GET /api/toolkit/org/seats`: the house's seats and pending invitations.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SeatList {
    /// The house.
    pub organization_id: String,
    /// Seats, owner first.
    pub seats: Vec<Seat>,
    /// Pending, unexpired invitations, newest first.
    pub invitations: Vec<SeatInvitation>,
}

/// `POST /api/auth/switch-house`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SwitchHouseRequest {
    /// A house the person has a seat in.
    pub organization_id: String,
}

/// A memory's scope.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum MemoryScope {
    /// Shared by everyone in the house.
    House,
    /// The writer's own.
    Person,
}

/// What kind of knowledge a memory holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum MemoryClass {
    /// Something true about the house.
    Fact,
    /// A taste.
    Preference,
    /// Learned from a result.
    Lesson,
    /// A way of working.
    Playbook,
    /// What tends to come out of what.
    OutcomePattern,
    /// What an image shows.
    ImageReading,
}

/// A memory's state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum MemoryStatus {
    /// Current: the only state ever given to the assistant.
    Active,
    /// Replaced by a successor (kept as history).
    Corrected,
    /// Withdrawn (kept as history).
    Retired,
}

impl MemoryStatus {
    /// Every status.
    pub const ALL: [MemoryStatus; 3] = [MemoryStatus::Active, MemoryStatus::Corrected, MemoryStatus::Retired];

    /// The wire name (what the column holds).
    pub fn as_str(self) -> &'static str {
        match self {
            MemoryStatus::Active => "active",
            MemoryStatus::Corrected => "corrected",
            MemoryStatus::Retired => "retired",
        }
    }

    /// Parse a wire name.
    pub fn parse(s: &str) -> Option<MemoryStatus> {
        MemoryStatus::ALL.into_iter().find(|st| st.as_str() == s)
    }
}

/// A memory (§2.8).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Memory {
    /// Id.
    pub id: String,
    /// house or person.
    pub scope: MemoryScope,
    /// The class.
    pub memory_class: MemoryClass,
    /// A free label.
    pub kind: String,
    /// What is remembered.
    pub statement: String,
    /// 0 to 1.
    pub confidence: f64,
    /// active, corrected or retired.
    pub status: MemoryStatus,
    /// Observations supporting it.
    pub evidence_count: i64,
    /// The memory this one corrects.
    pub supersedes_id: Option<String>,
    /// Given to the assistant's context (only active memories ever are).
    pub projected: bool,
    /// When written.
    pub created_at: DateTime<Utc>,
    /// Last status change.
    pub updated_at: DateTime<Utc>,
}

/// `GET /api/account/memory`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct MemoryList {
    /// House memories plus the caller's own personal ones, newest first, history included.
    pub memories: Vec<Memory>,
}

/// `POST /api/account/memory`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct MemoryRequest {
    /// What to remember (1 to 2,000 characters).
    pub statement: String,
    /// house or person.
    pub scope: MemoryScope,
    /// The class.
    pub memory_class: MemoryClass,
    /// Correct this active memory of the same scope: it is kept, marked corrected.
    #[serde(default)]
    pub replaces_memory_id: Option<String>,
    /// A free label (defaults to `statement`).
    #[serde(default)]
    pub kind: Option<String>,
    /// 0 to 1 (defaults to 1: a person said so).
    #[serde(default)]
    pub confidence: Option<f64>,
}

/// `GET /api/account`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct AccountView {
    /// The person.
    pub profile: Profile,
    /// The house's plan, if it has one.
    pub plan: Option<PlanView>,
    /// The house's tokens and where they went.
    pub tokens: TokenUsage,
    /// Paid purchases, newest first.
    pub invoices: Vec<Invoice>,
    /// The billing contact.
    pub billing: BillingContact,
}

/// The person on the account page.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Profile {
    /// Id.
    pub id: String,
    /// Name.
    pub name: Option<String>,
    /// Address.
    pub email: String,
    /// The address is proven.
    pub email_verified: bool,
    /// Avatar URL with a version stamp, or null.
    pub image: Option<String>,
    /// Sign-up time.
    pub joined_at: DateTime<Utc>,
}

/// The house's subscription plan.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PlanView {
    /// The tier's slug.
    pub tier: String,
    /// The tier's name.
    pub name: String,
    /// active or canceled (runs to `renewsAt`, then stops).
    pub status: String,
    /// Monthly price in dollars.
    pub price_usd: f64,
    /// Tokens granted each month.
    pub monthly_tokens: i64,
    /// The grant bucket's cap as a multiple of the monthly tokens.
    pub rollover_multiple: i64,
    /// The next renewal (or the end, once canceled).
    pub renews_at: DateTime<Utc>,
}

/// Tokens on the account page.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TokenUsage {
    /// Spendable now.
    pub balance: i64,
    /// The grant bucket.
    pub grant: i64,
    /// The top-up bucket.
    pub topup: i64,
    /// Held by work in flight.
    pub held: i64,
    /// The window in days (7, 30 or 90).
    pub days: i64,
    /// Tokens settled per workflow in the window, most first.
    pub by_workflow: Vec<WorkflowUsage>,
}

/// One workflow's spend in the window.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct WorkflowUsage {
    /// A develop tool, or `reads` for charged AI reads.
    pub workflow: String,
    /// Tokens settled.
    pub tokens: i64,
    /// Finished runs.
    pub runs: i64,
    /// The latest.
    pub last_at: Option<DateTime<Utc>>,
}

/// A paid purchase.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Invoice {
    /// The checkout reference.
    pub id: String,
    /// When paid.
    pub at: DateTime<Utc>,
    /// topup, subscription, custom or autocharge.
    pub kind: String,
    /// The pack or tier.
    pub item: String,
    /// Tokens bought.
    pub tokens: i64,
    /// Dollars paid.
    pub amount_usd: f64,
    /// The provider's payment id.
    pub reference: Option<String>,
}

/// The billing contact.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct BillingContact {
    /// The provider holds a card for the house.
    pub card_on_file: bool,
    /// Where receipts go (the owner's address unless set).
    pub email: Option<String>,
    /// The caller may manage money (the owner's session).
    pub can_manage: bool,
}

/// `GET /api/account?days=`.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
pub struct AccountQuery {
    /// 7, 30 or 90; anything else is 30.
    pub days: Option<String>,
}

/// Answer of avatar upload and delete.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct AvatarView {
    /// The avatar URL with a version stamp, or null after delete.
    pub image: Option<String>,
}

/// `PATCH /api/account`: the person's own display name.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AccountPatch {
    /// 1 to 200 characters after trimming.
    #[serde(default)]
    pub name: Option<String>,
}

/// `PATCH /api/account/billing-email`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct BillingEmailRequest {
    /// Where receipts go.
    pub email: String,
}

/// Answer of a billing-email change.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct BillingEmailView {
    /// The stored address.
    pub email: String,
}

/// Answer of `POST /api/account/plan/cancel`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PlanCanceled {
    /// Always `canceled`.
    pub status: String,
    /// The plan runs until then and does not renew.
    pub ends_at: DateTime<Utc>,
}

/// A seat as `/api/me` shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct MyHouse {
    /// The house.
    pub organization_id: String,
    /// Its name.
    pub name: String,
    /// The person's seat.
    pub role: SeatRole,
    /// The house the current request acts for.
    pub active: bool,
    /// The person founded it (their personal house).
    pub founder: bool,
}

/// `GET /api/me`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct MeView {
    /// The person.
    pub profile: Profile,
    /// Every house they sit in.
    pub houses: Vec<MyHouse>,
    /// Marked platform admin (by an operator, or a verified allowlisted address).
    pub admin: bool,
}

/// `DELETE /api/me`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Erased {
    /// Always true.
    pub erased: bool,
    /// The houses the person left; their work stays there.
    pub houses_left: Vec<String>,
}

/// One onboarding step.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct OnboardingStep {
    /// The step's key.
    pub key: String,
    /// What it asks.
    pub title: String,
    /// When completed, or null.
    pub completed_at: Option<DateTime<Utc>>,
}

/// `GET /api/onboarding`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct OnboardingView {
    /// The steps in order.
    pub steps: Vec<OnboardingStep>,
    /// Every step is completed.
    pub complete: bool,
}

/// Answer of `POST /api/intake`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct IntakeRecorded {
    /// The record's id.
    pub id: String,
    /// When.
    pub recorded_at: DateTime<Utc>,
}

/// A tool of the catalogue with the caller's access.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ToolAccess {
    /// Id (also the slug).
    pub id: String,
    /// URL slug.
    pub slug: String,
    /// Name.
    pub name: String,
    /// The toolkit it belongs to.
    pub toolkit_id: String,
    /// Order in the catalogue.
    pub sort_order: i64,
    /// The caller may use it now.
    pub accessible: bool,
    /// The settings it exposes.
    pub settings: Vec<String>,
}

/// A toolkit of the catalogue with the caller's access.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ToolkitAccess {
    /// Id.
    pub id: String,
    /// Name.
    pub name: String,
    /// What it is for.
    pub description: String,
    /// Granted as a whole (or open through the trial or a plan).
    pub accessible: bool,
}

/// `GET /api/toolkit/my-access`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct MyAccess {
    /// Every toolkit.
    pub toolkits: Vec<ToolkitAccess>,
    /// Every tool.
    pub tools: Vec<ToolAccess>,
    /// The trial window has passed.
    pub trial_expired: bool,
    /// The trial window is open.
    pub trial_active: bool,
    /// Whole days left in the trial.
    pub trial_days_left: i64,
}

/// A tool item (§2.10).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ToolItem {
    /// Id.
    pub id: String,
    /// The tool.
    pub tool_id: String,
    /// Grouping.
    pub category: String,
    /// Title (Hebrew).
    pub title_he: Option<String>,
    /// Label (Hebrew).
    pub label_he: Option<String>,
    /// Content (English).
    pub content_en: Option<String>,
    /// Image.
    pub image_url: Option<String>,
    /// Notes (Hebrew).
    pub notes_he: Option<String>,
    /// Order within the category.
    pub sort_order: i64,
    /// When added.
    pub created_at: DateTime<Utc>,
}

/// `GET /api/toolkit/tools/{slug}/items`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ToolItems {
    /// Ordered per category by sort order.
    pub items: Vec<ToolItem>,
}

/// The access actions of `POST /api/toolkit/admin/access`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum AccessAction {
    /// Open a toolkit.
    GrantToolkit,
    /// Close a toolkit.
    RevokeToolkit,
    /// Open a tool.
    GrantTool,
    /// Close a tool.
    RevokeTool,
}

/// `POST /api/toolkit/admin/access`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AccessRequest {
    /// What to do.
    pub action: AccessAction,
    /// The person, by id.
    #[serde(default)]
    pub user_id: Option<String>,
    /// Or an address (a person not signed up yet gets it on sign-up).
    #[serde(default)]
    pub email: Option<String>,
    /// For toolkit actions.
    #[serde(default)]
    pub toolkit_id: Option<String>,
    /// For tool actions.
    #[serde(default)]
    pub tool_id: Option<String>,
}

/// Answer of an access change.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct AccessChanged {
    /// Always true.
    pub ok: bool,
    /// Grants written or revoked.
    pub count: i64,
}

/// `GET /api/toolkit/admin/users`.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
pub struct UsersQuery {
    /// Part of an email or name.
    pub q: Option<String>,
    /// Page size (1 to 200, default 50).
    pub limit: Option<i64>,
    /// The `nextCursor` of the previous page.
    pub cursor: Option<String>,
}

/// A person in the admin list.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct UserSummary {
    /// Id.
    pub id: String,
    /// Address.
    pub email: String,
    /// Name.
    pub name: Option<String>,
    /// Sign-up time.
    pub joined_at: DateTime<Utc>,
    /// The address is proven.
    pub email_verified: bool,
    /// Marked platform admin.
    pub platform_admin: bool,
    /// Seats held.
    pub houses: i64,
}

/// A page of people.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct UserPage {
    /// Newest first.
    pub users: Vec<UserSummary>,
    /// Pass as `cursor` for the next page; null on the last.
    pub next_cursor: Option<String>,
}

/// `GET /api/toolkit/admin/onboarding`: how far people get.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct OnboardingFunnel {
    /// People signed up.
    pub people: i64,
    /// Per step, in order: how many completed it.
    pub steps: Vec<OnboardingStepCount>,
}

/// One step of the funnel.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct OnboardingStepCount {
    /// The step's key.
    pub key: String,
    /// How many completed it.
    pub completed: i64,
}

/// `POST /api/toolkit/admin/tool-items`: a new item of a tool's library.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct ToolItemRequest {
    /// The tool (a catalogue slug).
    pub tool_id: String,
    /// Grouping inside the tool.
    pub category: String,
    /// Title (Hebrew).
    #[serde(default)]
    pub title_he: Option<String>,
    /// Label (Hebrew).
    #[serde(default)]
    pub label_he: Option<String>,
    /// Content (English).
    #[serde(default)]
    pub content_en: Option<String>,
    /// Image.
    #[serde(default)]
    pub image_url: Option<String>,
    /// Notes (Hebrew).
    #[serde(default)]
    pub notes_he: Option<String>,
    /// Order within the category (default 0).
    #[serde(default)]
    pub sort_order: Option<i64>,
}

/// `GET /api/toolkit/admin/tool-items?toolId=`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ToolItemsQuery {
    /// The tool (required: 400 `TOOL_REQUIRED`). An `Option` so that a missing one reaches
    /// the handler's own refusal; the document still marks it required.
    #[schemars(required)]
    pub tool_id: Option<String>,
}

/// Answer of deleting a tool item.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ToolItemDeleted {
    /// The item.
    pub id: String,
    /// Always true.
    pub deleted: bool,
}
