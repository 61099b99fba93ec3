//! Mail through the client: email verification and password reset (the links of the letters
//! Studio sends), the admin's letter archive, and the drip trigger.
//!
//! The token of a verification or reset link is the authority of its call: no credential is
//! needed. Every call here is sent once (never retried): a token is single-use and a letter is
//! not to be posted twice.

use studio_core::api::{
    AdminEmailsQuery, DripRun, EmailList, EmailOne, EmailVerified, PasswordResetConfirm, PasswordResetDone,
    PasswordResetRequest, PasswordResetRequested, VerificationResent, VerifyEmailRequest,
};

use crate::client::{Client, encode};
use crate::error::Error;

impl Client {
    /// `POST /api/auth/verify-email` (public): mark the address verified with the `token` of the
    /// verification letter's link. 400 `INVALID_TOKEN`; 410 `TOKEN_USED`, `TOKEN_REPLACED`,
    /// `TOKEN_EXPIRED`, `TOKEN_STALE`.
    pub async fn verify_email(&self, token: &str) -> Result<EmailVerified, Error> {
        self.post("/api/auth/verify-email", &VerifyEmailRequest { token: token.to_string() }).await
    }

    /// `POST /api/auth/verify-email/resend` (session): a new verification letter; earlier links
    /// stop working. 429 `RATE_LIMITED` past the hourly allowance.
    pub async fn resend_verification(&self) -> Result<VerificationResent, Error> {
        self.post("/api/auth/verify-email/resend", &serde_json::json!({})).await
    }

    /// `POST /api/auth/password-reset` (public): ask for a reset letter. Always `{ok: true}`,
    /// whether or not the address has an account.
    pub async fn request_password_reset(&self, email: &str) -> Result<PasswordResetRequested, Error> {
        self.post("/api/auth/password-reset", &PasswordResetRequest { email: Some(email.to_string()) }).await
    }

    /// `POST /api/auth/password-reset/confirm` (public): set `password` with the reset link's
    /// `token`; every session of the person ends. 400 `WEAK_PASSWORD`, `INVALID_TOKEN`; 410 as
    /// [`Client::verify_email`].
    pub async fn confirm_password_reset(&self, token: &str, password: &str) -> Result<PasswordResetDone, Error> {
        let body = PasswordResetConfirm { token: token.to_string(), password: password.to_string() };
        self.post("/api/auth/password-reset/confirm", &body).await
    }

    /// `GET /api/toolkit/admin/emails` (platform admin session): a page of letters, newest first,
    /// without bodies, filtered by `to`, `kind`, `status`; `limit` and `cursor` page it (`id` is
    /// ignored here: see [`Client::admin_email`]).
    pub async fn admin_emails(&self, query: &AdminEmailsQuery) -> Result<EmailList, Error> {
        let mut params = Vec::new();
        for (name, value) in
            [("to", &query.to), ("kind", &query.kind), ("status", &query.status), ("cursor", &query.cursor)]
        {
            if let Some(v) = value {
                params.push(format!("{name}={}", encode(v)));
            }
        }
        if let Some(limit) = query.limit {
            params.push(format!("limit={limit}"));
        }
        let path = if params.is_empty() {
            "/api/toolkit/admin/emails".to_string()
        } else {
            format!("/api/toolkit/admin/emails?{}", params.join("&"))
        };
        self.get(&path).await
    }

    /// `GET /api/toolkit/admin/emails?id=` (platform admin session): one letter with its archived
    /// html and text. 404 `NOT_FOUND`.
    pub async fn admin_email(&self, id: &str) -> Result<EmailOne, Error> {
        self.get(&format!("/api/toolkit/admin/emails?id={}", encode(id))).await
    }

    /// `POST /api/email/drip` (platform admin session): queue the onboarding letters that are due;
    /// `{queued, checked}`.
    pub async fn trigger_drip(&self) -> Result<DripRun, Error> {
        self.post("/api/email/drip", &serde_json::json!({})).await
    }
}
