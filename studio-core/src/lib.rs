//! studio-core: the whole Studio domain behind one facade.
//!
//! A house (organization) keeps an image library and a token balance; people sign in with a
//! session or act through organization keys. Every operation is a method on [`Studio`] that
//! takes a [`Caller`], so authorization lives here and every frontend (HTTP, agent endpoint,
//! an embedding server) gets the same answer.
//!
//! With `default-features = false` only [`api`] (the wire types) is compiled: that is what
//! studio-client depends on. The `signing` feature adds Standard Webhooks signing and
//! verification alone ([`sign_webhook`], [`verify_webhook`]), for receivers and the CLI.

pub mod api;

/// Standard Webhooks (`payments/webhooks.rs`): compiled with `signing` alone, so a receiver's
/// check in studio-client runs the very code the server signs and verifies with.
#[cfg(feature = "signing")]
#[path = "payments/webhooks.rs"]
mod standard_webhooks;

#[cfg(feature = "signing")]
pub use crate::standard_webhooks::{
    TIMESTAMP_TOLERANCE_SECS, WebhookError, WebhookHeaders, sign as sign_webhook, verify as verify_webhook,
};

/// Content credentials (C2PA): reading with `provenance` alone (the CLI's `studio verify`),
/// signing develop outputs with the engine.
#[cfg(feature = "provenance")]
pub mod provenance;

#[cfg(feature = "engine")]
mod accounts;
#[cfg(feature = "engine")]
mod admin;
#[cfg(feature = "engine")]
mod ai;
#[cfg(feature = "engine")]
mod billing;
#[cfg(feature = "engine")]
mod blobs;
#[cfg(feature = "engine")]
mod brand;
#[cfg(feature = "engine")]
mod caller;
#[cfg(feature = "engine")]
mod chat;
#[cfg(feature = "engine")]
mod config;
#[cfg(feature = "engine")]
mod develops;
#[cfg(feature = "engine")]
mod error;
#[cfg(feature = "engine")]
mod events;
#[cfg(feature = "engine")]
mod ids;
#[cfg(feature = "engine")]
mod images;
#[cfg(feature = "engine")]
mod internal;
#[cfg(feature = "engine")]
mod invitations;
#[cfg(feature = "engine")]
mod library;
#[cfg(feature = "engine")]
mod links;
#[cfg(feature = "engine")]
mod lookbook;
#[cfg(feature = "engine")]
mod mail;
#[cfg(feature = "engine")]
mod markup;
#[cfg(feature = "engine")]
mod models;
#[cfg(feature = "engine")]
mod outbound;
#[cfg(feature = "engine")]
mod payments;
#[cfg(feature = "engine")]
mod pipelines;
#[cfg(feature = "engine")]
mod posts;
#[cfg(feature = "engine")]
mod providers;
#[cfg(feature = "engine")]
mod search;
#[cfg(feature = "engine")]
mod storage;
#[cfg(feature = "engine")]
mod studio;
#[cfg(feature = "engine")]
mod support;
#[cfg(feature = "engine")]
mod webhooks;

#[cfg(feature = "engine")]
pub use crate::{
    accounts::{
        Accounts, Email, SessionToken,
        memory::MAX_STATEMENT_CHARS,
        profile::{MAX_AVATAR_BYTES, ONBOARDING_STEPS, account_days},
    },
    admin::{Admin, Operator},
    ai::{Ai, lanes::LaneImage},
    api::MAX_ASSET_PAGE,
    billing::plan::PLAN_PERIOD_DAYS,
    billing::{
        AUTOCHARGE_DEBOUNCE_MINUTES, Billing, MAX_CAP_CENTS, MAX_CUSTOM_CENTS, MAX_THRESHOLD_TOKENS, TestCheckoutView,
        ledger::{HoldOutcome, Reservation},
    },
    blobs::{BlobConfig, BlobError, BlobReader, Blobs, S3Config, StoredBlob},
    brand::{Brand, DNA_PRICE, DnaForm, MAX_DNA_IMAGES, MAX_DNA_SET_MB},
    caller::{Caller, Machine, MachineKind, MachineSecrets, PlatformAdmin, Via},
    chat::Chat,
    config::{
        BillingConfig, ChatConfig, CoreConfig, DEFAULT_RETRY_SCHEDULE, HostResolver, MIN_SIGNING_KEY_BYTES, MailConfig,
        PackConfig, PackLimits, PeopleConfig, PreviewPolicy, PriceBookConfig, QualityPrices, RunnerConfig, SigningKey,
        SystemResolver, TierConfig, WebhooksConfig,
    },
    develops::{
        BACKFILL_PAGE, Develops, INPUT_ROLES, MAX_DEVELOPS, MAX_INPUTS, MAX_TAKES, StagedInput, SubmitForm,
        check_input_role,
        runs::{RUN_GAP_MINUTES, RUN_WINDOW_DAYS},
    },
    error::{Error, ErrorKind, Result},
    events::{EventBus, HouseEvent, RESYNC},
    ids::{
        AssetId, CaseId, ChatActionId, ChatSessionId, CodeId, DeliveryId, EntitlementId, EntryId, EvidenceId,
        ExperimentId, FindingId, FolderId, GroupId, HoldId, IntakeId, InvitationId, InviteRequestId, JobId, KeyId,
        LaneResultId, LetterId, LookId, MarkId, MemoryId, ModelId, OrgId, PackId, PostId, PresetId, ProviderRef,
        RenderId, RunId, ScreenshotId, TemplateId, TicketId, ToolId, ToolItemId, UserId, WebhookId,
    },
    images::{MAX_IMAGE_MB, OutputSpace, image_too_large, metadata::carry as carry_metadata},
    internal::{
        Internal,
        replay::{MAX_RENDER_BYTES, PREVIEW_EDGE, RENDER_FORMATS, render_too_large},
        settings::{AUTONOMY_LEVELS, EXPERIMENT_STATUSES, LONGHORIZON_HOURS},
    },
    invitations::{
        BASE_MAX_USES, BONUS_USES_PER_SUBSCRIBER, FRAMES_PER_LOOK, GRANT_DAYS, GUEST_BONUS_TOKENS, HOLD_DAYS,
        HOST_TOKENS, Invitations, Letter, MAX_CODE_DAYS, MAX_CODE_GRANT, MAX_CODE_USES, MAX_OWN_CODE_USES,
        TOOLKITS_OPENED, WithLetter,
    },
    library::{
        Library,
        assets::{AssetFile, PendingUpload, UploadForm},
        packs::PackFile,
        renditions::RENDITION_WIDTHS,
    },
    lookbook::{LOOKS_LISTED, Lookbook, MAX_FACTORY_LOOKS, MAX_PLAN_ASSETS, vocabulary as lookbook_vocabulary},
    mail::{
        LETTER_STATUSES, Mail, MailError, Mailer, OutgoingLetter, SmtpMailer, drip::WINDOW_DAYS as DRIP_WINDOW_DAYS,
    },
    models::Models,
    payments::{
        ChargeRequest, Checkout, CheckoutRequest, PAYMENT_SUCCEEDED, PaymentEvent, PaymentsError, PaymentsProvider,
        Purchase,
        polar::{PolarConfig, PolarProvider},
        test_mode::{TEST_CHECKOUT_PATH, TEST_MODE, TEST_PORTAL_PATH, TestModeProvider, signed_payment},
    },
    pipelines::{MAX_ITEMS, MAX_LINE, MAX_NODES, PRESETS_LISTED, Pipelines, RUNS_LISTED, SWEEP_EVERY},
    posts::Posts,
    providers::{
        DevelopInput, DevelopOutput, DevelopRequest, Provider, ProviderError, Providers,
        ai::AiConfig,
        fal::{FalConfig, FalLanes, FalProvider},
        local::{
            Cutout, CutoutError, LearnedSegmenter, LocalProvider, SegmentTarget, SegmentationScore, Segmenter, U2NET,
            Weights, evaluate_segmentation, mean_iou, segmenter,
        },
    },
    search::Search,
    storage::{
        AcceptOutcome, AcceptSeat, AccountStore, AdvanceOutcome, AiCallRow, AssetChanges, AssetRow, AutochargeOutcome,
        AutochargeSettings, AutonomyRow, BalanceRow, BillingAccountRow, BillingStore, BoardModelRow, BrandFields,
        BrandFieldsPatch, BrandMarkRow, BrandProfileRow, BrandStore, Bucket, CancelOutcome, CatalogRow, CheckoutRow,
        ClaimOutcome, ClaimRow, ConsoleStore, CostRecordRow, CountRow, CreateJobsOutcome, DripCandidate, EmailTokenRow,
        EntitlementCaseRow, EntitlementRow, EraseOutcome, EvidenceRow, ExperimentRow, FlagRow, FlowRow, FolderRow,
        FrameFilter, FunnelRow, GrantOutcome, GrantedTool, HoldRow, HoldStatus, HouseStamp, InternalStore,
        InvitationRow, InvitationStore, InviteCodeRow, InviteRequestRow, InviteeRow, IssueOutcome, JobEnd, JobFilter,
        JobRow, JobStore, KeptRow, KeyRow, LaneResultRow, LaneStore, LedgerAudit, LedgerStore, LetterFilter,
        LetterOutcome, LetterRow, LibraryStore, LockChange, LockOutcome, LookGuard, LookJobsOutcome, LookRow,
        LookbookStore, MailEventOutcome, MailStore, MembershipRow, MemoryRow, MemoryWrite, MessageEffect, ModelRow,
        ModelStore, NamedCount, NewAccount, NewAutocharge, NewClaim, NewCredit, NewHold, NewPayment, OrgRow, PackRow,
        PaymentOutcome, PipelinePresetRow, PipelineRunRow, PipelineStepRow, PipelineStore, PlanRow, PlatformCounts,
        PlatformTotals, PostRow, PostStore, PresetRow, ProfileRow, ProfileStore, RedeemOutcome, RefillPack, RenderRow,
        ResearchRow, ReserveOutcome, ResolveOutcome, RunCancelled, RunCreateOutcome, ScreenshotRow, SeatInvitationRow,
        SeatRow, SeatStore, SessionRow, SessionSeat, SettledHoldRow, StampRow, StepAdvance, StepEnd, StepState,
        Storage, StorageError, SubmitChecks, SupportReportRow, SupportStore, TakeRecord, TemplateRow, TemplateShotRow,
        ThreadMessageRow, TicketFilter, TicketLineRow, TicketMessageRow, TicketRow, TokenUse, ToolGrantRow,
        ToolItemRow, UserListRow, UserRow, VerdictFilter, VerdictRow, WorkflowUsageRow, open_storage,
    },
    storage::{AnalystSettingsRow, AnalystStore, DigestRow, FindingRow, ObservationRow, PeriodCounts, ReviewRow},
    storage::{
        CaseStatus, ChatActionStatus, ChatSessionStatus, CheckoutStatus, ClaimStatus, DeliveryStatus, ExperimentStatus,
        InviteRequestStatus, LetterStatus, RenderStatus, SeatInvitationStatus, TicketStatus,
    },
    storage::{ChatActionRow, ChatSessionRow, ChatStore, ChatTurnRow, SessionChange},
    storage::{DeliveryFate, WebhookAttemptRow, WebhookChanges, WebhookDeliveryRow, WebhookRow, WebhookStore},
    storage::{PackStatus, RunStatus, SearchHitRow, SearchScope, SearchStore, StepStatus},
    studio::{OpenError, Studio},
    support::{Escalator, Support},
    webhooks::Webhooks,
};

#[cfg(feature = "sqlite")]
pub use crate::storage::SqliteStorage;

#[cfg(feature = "postgres")]
pub use crate::storage::PgStorage;
