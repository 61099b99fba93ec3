//! The platform gate through the client (`02-route-groups.md` §4.10) and its admin routes
//! (§4.12 `invite`, `invite-codes`, `invite-requests`).
//!
//! The public calls (lookup, redeem, request, preview) need no credential; accepting and
//! `invites/mine` need the person's own session ([`Client::with_session`]); the admin calls a
//! platform admin's session. Only the lookup, the lists and `invites/mine` are `GET`s, so only
//! they are retried.

use studio_core::api::{
    AcceptInvitationRequest, AcceptInvitationResponse, AdminInviteRequest, AdminInviteResponse, IntakeAnswers,
    InvitationLookup, InviteCode, InviteCodeList, InviteRequestBody, InviteRequestList, InviteRequestReceived,
    InvitesMine, MintInviteCodeRequest, PreviewRequest, PreviewResponse, RedeemRequest, RedeemResponse,
    RevokeInviteCodeRequest,
};

use crate::client::{Client, encode};
use crate::error::Error;

impl Client {
    /// `GET /api/toolkit/invite/accept?token=` (public): whom an invitation is for. Refusals:
    /// 400 `TOKEN_REQUIRED`, `BAD_TOKEN`; 404 `INVITATION_NOT_FOUND`; 410 `INVITATION_ACCEPTED`.
    pub async fn invitation(&self, token: &str) -> Result<InvitationLookup, Error> {
        self.get(&format!("/api/toolkit/invite/accept?token={}", encode(token))).await
    }

    /// `POST /api/toolkit/invite/accept` (the invited person's session): accept, once; a replay
    /// answers `alreadyAccepted: true`. Refusals: 400 `TOKEN_REQUIRED`, `BAD_TOKEN`; 403
    /// `EMAIL_MISMATCH`, `SESSION_REQUIRED`; 404 `INVITATION_NOT_FOUND`.
    pub async fn accept_invitation(&self, token: &str) -> Result<AcceptInvitationResponse, Error> {
        let body = AcceptInvitationRequest { token: Some(token.to_string()) };
        self.post("/api/toolkit/invite/accept", &body).await
    }

    /// `POST /api/toolkit/invite/preview` (public): one card per link, in order; a link that
    /// cannot be read safely has `ok: false`. Refusals: 400 `LINKS_REQUIRED`,
    /// `TOO_MANY_LINKS`, `BAD_LINKS`; 429.
    pub async fn preview_links(&self, links: &[&str]) -> Result<PreviewResponse, Error> {
        let body = PreviewRequest { links: Some(serde_json::json!(links)) };
        self.post("/api/toolkit/invite/preview", &body).await
    }

    /// `POST /api/toolkit/invite/redeem` (public): write an invitation for `email` with `code`.
    /// Refusals: 400 `CODE_REQUIRED`, `BAD_CODE`, `EMAIL_REQUIRED`, `BAD_EMAIL`,
    /// `THROWAWAY_EMAIL`, `CODE_REVOKED`, `CODE_EXPIRED`, `CODE_SPENT`; 404 `CODE_NOT_FOUND`; 429.
    pub async fn redeem_invite_code(&self, code: &str, email: &str) -> Result<RedeemResponse, Error> {
        let body = RedeemRequest { code: Some(code.to_string()), email: Some(email.to_string()) };
        self.post("/api/toolkit/invite/redeem", &body).await
    }

    /// `POST /api/toolkit/invite/request` (public): ask to be let in; `status` is `received` or
    /// `already_requested`. Refusals: 400 `EMAIL_REQUIRED`, `BAD_EMAIL`, `THROWAWAY_EMAIL` and
    /// the field codes; 429.
    pub async fn request_invitation(&self, request: &InviteRequestBody) -> Result<InviteRequestReceived, Error> {
        self.post("/api/toolkit/invite/request", request).await
    }

    /// [`Client::request_invitation`] with only an address, a name and intake answers.
    pub async fn request_invitation_for(
        &self,
        email: &str,
        name: Option<&str>,
        intake: IntakeAnswers,
    ) -> Result<InviteRequestReceived, Error> {
        let body = InviteRequestBody {
            email: Some(email.to_string()),
            name: name.map(str::to_string),
            intake: Some(intake),
            ..InviteRequestBody::default()
        };
        self.request_invitation(&body).await
    }

    /// `GET /api/toolkit/invites/mine` (session): the person's own code, minted on first read,
    /// and their invitees.
    pub async fn my_invites(&self) -> Result<InvitesMine, Error> {
        self.get("/api/toolkit/invites/mine").await
    }

    /// `POST /api/toolkit/admin/invite` (admin session): invite an address; the token is in
    /// the answer, once. Refusals: 400 `EMAIL_REQUIRED`, `BAD_EMAIL`; 403.
    pub async fn admin_invite(&self, email: &str) -> Result<AdminInviteResponse, Error> {
        self.post("/api/toolkit/admin/invite", &AdminInviteRequest { email: Some(email.to_string()) }).await
    }

    /// `GET /api/toolkit/admin/invite-codes` (admin session): every campaign code.
    pub async fn admin_invite_codes(&self) -> Result<InviteCodeList, Error> {
        self.get("/api/toolkit/admin/invite-codes").await
    }

    /// `POST /api/toolkit/admin/invite-codes` (admin session): mint a code. Refusals: 400
    /// `MAX_USES_REQUIRED`, `BAD_MAX_USES`, `BAD_LABEL`, `BAD_GRANT`, `BAD_EXPIRY`; 403; 409
    /// `CODE_COLLISION`.
    pub async fn admin_mint_invite_code(&self, req: &MintInviteCodeRequest) -> Result<InviteCode, Error> {
        self.post("/api/toolkit/admin/invite-codes", req).await
    }

    /// `POST /api/toolkit/admin/invite-codes/revoke` (admin session): revoke a code for good.
    /// Refusals: 400 `ID_REQUIRED`; 403; 404 `CODE_NOT_FOUND`.
    pub async fn admin_revoke_invite_code(&self, id: &str) -> Result<InviteCode, Error> {
        let body = RevokeInviteCodeRequest { id: Some(id.to_string()) };
        self.post("/api/toolkit/admin/invite-codes/revoke", &body).await
    }

    /// `GET /api/toolkit/admin/invite-requests` (admin session): every request, newest first.
    pub async fn admin_invite_requests(&self) -> Result<InviteRequestList, Error> {
        self.get("/api/toolkit/admin/invite-requests").await
    }
}
