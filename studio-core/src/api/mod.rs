//! Wire types: the JSON shapes of the HTTP API, shared by the server, the agent endpoint and studio-client.
//!
//! Nothing in here touches storage or the network; studio-client compiles this module alone
//! (studio-core with `default-features = false`).

mod accounts;
mod analyst;
mod billing;
mod brand;
mod chat;
mod console;
mod develops;
mod errors;
mod factory;
mod internal;
mod invitations;
mod keys;
mod lanes;
mod library;
mod lookbook;
mod mail;
mod models;
mod people;
mod pipelines;
mod posts;
mod provenance;
mod quality;
mod roles;
mod search;
mod support;
pub mod vocabulary;
mod webhooks;

pub use accounts::{
    CheckEmailRequest, CheckEmailResponse, Organization, SessionInfo, SignInRequest, SignUpRequest, SignUpResponse,
    SignedOut, User,
};
pub use analyst::*;
pub use billing::{
    AutochargeCharge, AutochargeLimits, AutochargeMonth, AutochargePack, AutochargeRun, AutochargeSaved,
    AutochargeSettingsView, AutochargeUpdate, AutochargeView, Balance, BillingCatalog, CheckoutResponse,
    CustomCheckoutRequest, CustomCheckoutResponse, GrantTokensRequest, GrantTokensResponse, HoldView, PortalResponse,
    Price, PriceBook, SubscriptionCheckoutRequest, Tier, TokenPack, ToolPrice, TopupCheckoutRequest, WebhookAck,
};
pub use brand::*;
pub use chat::*;
pub use console::*;
pub use develops::{
    CancelReason, CancelResponse, DevelopRun, DevelopStatus, DuplicateRequest, DuplicateResponse, Job, JobList,
    JobStatus, JobsQuery, OfferEvidence, RetakeOffer, RunCancelResponse, RunCounts, RunList, RunsQuery, SocketMessage,
    StandingInstruction, StartDevelop, StartedDevelop, SubmitResponse, TakeJob, TakesRequest, TakesResponse,
};
pub use errors::ErrorBody;
pub use factory::*;
pub use internal::*;
pub use invitations::{
    AcceptInvitationRequest, AcceptInvitationResponse, AdminInviteRequest, AdminInviteResponse, IntakeAnswer,
    IntakeAnswers, InvitationLookup, InviteCode, InviteCodeList, InviteRequestBody, InviteRequestList,
    InviteRequestReceived, InviteRequestView, InviteTokenQuery, Invitee, InvitesMine, MintInviteCodeRequest,
    PreviewCard, PreviewRequest, PreviewResponse, RedeemRequest, RedeemResponse, RevokeInviteCodeRequest,
};
pub use keys::{ApiKey, KeyList, MintKeyRequest, RevokedKey};
pub use lanes::*;
pub use library::{
    Asset, AssetBatchPatch, AssetDetail, AssetIds, AssetKind, AssetList, AssetOrigin, AssetPatch, AssetQuery,
    AssetResponse, Backgrounds, BackgroundsQuery, ClassifyResult, CreateFolderRequest, Deleted, Folder, FolderDeleted,
    FolderList, FolderResponse, Ground, GroupRequest, GroupResponse, MAX_ASSET_PAGE, OriginInput, Pack, PackRequest,
    PackSize, Quote, QuoteRequest, RenameFolderRequest, Scene, Updated, UploadResponse,
};
pub use lookbook::*;
pub use mail::*;
pub use models::*;
pub use people::*;
pub use pipelines::*;
pub use posts::*;
pub use provenance::*;
pub use quality::*;
pub use roles::{KeyRole, ParseRoleError, Quality, SeatRole};
pub use search::*;
pub use support::*;
pub use webhooks::*;
