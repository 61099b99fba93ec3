//! People and houses: the account page, avatar, billing contact, plan, memories, seats,
//! switching houses, `/api/me`, onboarding, intake, tool access and the admin people pages.

use std::future::ready;

use reqwest::Method;
use studio_core::api::{
    AccessChanged, AccessRequest, AccountPatch, AccountView, ActiveHouse, AvatarView, BillingEmailRequest,
    BillingEmailView, Erased, IntakeAnswers, IntakeRecorded, MeView, Memory, MemoryList, MemoryRequest, MyAccess,
    OnboardingFunnel, OnboardingView, PlanCanceled, SeatAcceptRequest, SeatInvitation, SeatInviteRequest, SeatList,
    SeatRemoved, SeatRole, SeatRoleChanged, SeatRoleRequest, SwitchHouseRequest, ToolItem, ToolItemDeleted,
    ToolItemRequest, ToolItems, TransferRequest, Transferred, UserPage,
};

use crate::Error;
use crate::client::{Client, encode};

impl Client {
    /// `PATCH /api/account`: the signed-in person's own display name (a session only).
    pub async fn rename_me(&self, name: &str) -> Result<AccountView, Error> {
        self.patch("/api/account", &AccountPatch { name: Some(name.into()) }).await
    }

    /// `GET /api/account?days=`: profile, plan, tokens over the window (7, 30 or 90 days;
    /// anything else is 30), invoices and the billing contact.
    pub async fn account(&self, days: Option<u32>) -> Result<AccountView, Error> {
        match days {
            Some(d) => self.get(&format!("/api/account?days={d}")).await,
            None => self.get("/api/account").await,
        }
    }

    /// `POST /api/account/avatar`: a square WebP, PNG or JPEG of at most 512 KB.
    pub async fn upload_avatar(&self, bytes: Vec<u8>, file_name: &str) -> Result<AvatarView, Error> {
        let name = file_name.to_string();
        let build = move |request: reqwest::RequestBuilder| {
            let part = reqwest::multipart::Part::bytes(bytes.clone()).file_name(name.clone());
            ready(Ok(request.multipart(reqwest::multipart::Form::new().part("file", part))))
        };
        Ok(self.call(Method::POST, "/api/account/avatar", false, build).await?.0)
    }

    /// `DELETE /api/account/avatar`: the picture and its bytes go.
    pub async fn delete_avatar(&self) -> Result<AvatarView, Error> {
        Ok(self.call(Method::DELETE, "/api/account/avatar", false, |r| ready(Ok(r))).await?.0)
    }

    /// `GET /api/account/avatar/{userId}`: the picture of someone who shares a house with you.
    pub async fn avatar_bytes(&self, user_id: &str) -> Result<bytes::Bytes, Error> {
        self.get_bytes(&format!("/api/account/avatar/{}", encode(user_id))).await
    }

    /// `PATCH /api/account/billing-email` (the owner's session).
    pub async fn set_billing_email(&self, email: &str) -> Result<BillingEmailView, Error> {
        self.patch("/api/account/billing-email", &BillingEmailRequest { email: email.into() }).await
    }

    /// `POST /api/account/plan/cancel` (the owner's session): the plan stops renewing.
    pub async fn cancel_plan(&self) -> Result<PlanCanceled, Error> {
        self.post("/api/account/plan/cancel", &serde_json::json!({})).await
    }

    /// `GET /api/account/memory`: the house's memories and your own personal ones.
    pub async fn memories(&self) -> Result<MemoryList, Error> {
        self.get("/api/account/memory").await
    }

    /// `POST /api/account/memory`: remember a statement, or correct one (`replacesMemoryId`).
    pub async fn remember(&self, req: &MemoryRequest) -> Result<Memory, Error> {
        self.post("/api/account/memory", req).await
    }

    /// `DELETE /api/account/memory/{id}`: retire a memory (history kept).
    pub async fn retire_memory(&self, id: &str) -> Result<Memory, Error> {
        let path = format!("/api/account/memory/{}", encode(id));
        Ok(self.call(Method::DELETE, &path, false, |r| ready(Ok(r))).await?.0)
    }

    /// `GET /api/toolkit/org/seats`: seats and pending invitations.
    pub async fn seats(&self) -> Result<SeatList, Error> {
        self.get("/api/toolkit/org/seats").await
    }

    /// `POST /api/toolkit/org/seats/invite`.
    pub async fn invite_seat(&self, email: &str, role: SeatRole) -> Result<SeatInvitation, Error> {
        self.post("/api/toolkit/org/seats/invite", &SeatInviteRequest { email: email.into(), role }).await
    }

    /// `POST /api/toolkit/org/seats/accept`: the session then acts for that house.
    pub async fn accept_seat(&self, invitation_id: &str) -> Result<ActiveHouse, Error> {
        self.post("/api/toolkit/org/seats/accept", &SeatAcceptRequest { invitation_id: invitation_id.into() }).await
    }

    /// `POST /api/toolkit/org/seats/role`.
    pub async fn set_seat_role(&self, user_id: &str, role: SeatRole) -> Result<SeatRoleChanged, Error> {
        self.post("/api/toolkit/org/seats/role", &SeatRoleRequest { user_id: user_id.into(), role }).await
    }

    /// `DELETE /api/toolkit/org/seats/{userId}`.
    pub async fn remove_seat(&self, user_id: &str) -> Result<SeatRemoved, Error> {
        let path = format!("/api/toolkit/org/seats/{}", encode(user_id));
        Ok(self.call(Method::DELETE, &path, false, |r| ready(Ok(r))).await?.0)
    }

    /// `POST /api/toolkit/org/transfer` (the owner's session).
    pub async fn transfer_house(&self, user_id: &str) -> Result<Transferred, Error> {
        self.post("/api/toolkit/org/transfer", &TransferRequest { user_id: user_id.into() }).await
    }

    /// `POST /api/auth/switch-house`: the session acts for another house you sit in.
    pub async fn switch_house(&self, organization_id: &str) -> Result<ActiveHouse, Error> {
        self.post("/api/auth/switch-house", &SwitchHouseRequest { organization_id: organization_id.into() }).await
    }

    /// `GET /api/me`: you, your houses and roles.
    pub async fn me(&self) -> Result<MeView, Error> {
        self.get("/api/me").await
    }

    /// `GET /api/me/export`: everything stored about you, as JSON.
    pub async fn export_me(&self) -> Result<serde_json::Value, Error> {
        self.get("/api/me/export").await
    }

    /// `DELETE /api/me`: erase yourself (refused while you are a house's only owner with others in it).
    pub async fn erase_me(&self) -> Result<Erased, Error> {
        Ok(self.call(Method::DELETE, "/api/me", false, |r| ready(Ok(r))).await?.0)
    }

    /// `GET /api/onboarding`.
    pub async fn onboarding(&self) -> Result<OnboardingView, Error> {
        self.get("/api/onboarding").await
    }

    /// `POST /api/onboarding/steps/{step}/complete`.
    pub async fn complete_onboarding_step(&self, step: &str) -> Result<OnboardingView, Error> {
        self.post(&format!("/api/onboarding/steps/{}/complete", encode(step)), &serde_json::json!({})).await
    }

    /// `POST /api/intake`.
    pub async fn record_intake(&self, answers: &IntakeAnswers) -> Result<IntakeRecorded, Error> {
        self.post("/api/intake", answers).await
    }

    /// `GET /api/toolkit/my-access`.
    pub async fn my_access(&self) -> Result<MyAccess, Error> {
        self.get("/api/toolkit/my-access").await
    }

    /// `GET /api/toolkit/tools/{slug}/items`.
    pub async fn tool_items(&self, slug: &str) -> Result<ToolItems, Error> {
        self.get(&format!("/api/toolkit/tools/{}/items", encode(slug))).await
    }

    /// `POST /api/toolkit/admin/access` (platform admin).
    pub async fn admin_access(&self, req: &AccessRequest) -> Result<AccessChanged, Error> {
        self.post("/api/toolkit/admin/access", req).await
    }

    /// `GET /api/toolkit/admin/users` (platform admin).
    pub async fn admin_users(
        &self,
        q: Option<&str>,
        limit: Option<u32>,
        cursor: Option<&str>,
    ) -> Result<UserPage, Error> {
        let mut query = Vec::new();
        if let Some(q) = q {
            query.push(format!("q={}", encode(q)));
        }
        if let Some(l) = limit {
            query.push(format!("limit={l}"));
        }
        if let Some(c) = cursor {
            query.push(format!("cursor={}", encode(c)));
        }
        let suffix = if query.is_empty() { String::new() } else { format!("?{}", query.join("&")) };
        self.get(&format!("/api/toolkit/admin/users{suffix}")).await
    }

    /// `GET /api/toolkit/admin/onboarding` (platform admin).
    pub async fn admin_onboarding(&self) -> Result<OnboardingFunnel, Error> {
        self.get("/api/toolkit/admin/onboarding").await
    }

    /// `GET /api/toolkit/admin/tool-items?toolId=` (platform admin).
    pub async fn admin_tool_items(&self, tool_id: &str) -> Result<ToolItems, Error> {
        self.get(&format!("/api/toolkit/admin/tool-items?toolId={}", encode(tool_id))).await
    }

    /// `POST /api/toolkit/admin/tool-items` (platform admin).
    pub async fn admin_add_tool_item(&self, req: &ToolItemRequest) -> Result<ToolItem, Error> {
        self.post("/api/toolkit/admin/tool-items", req).await
    }

    /// `DELETE /api/toolkit/admin/tool-items/{id}` (platform admin).
    pub async fn admin_delete_tool_item(&self, id: &str) -> Result<ToolItemDeleted, Error> {
        let path = format!("/api/toolkit/admin/tool-items/{}", encode(id));
        Ok(self.call(Method::DELETE, &path, false, |r| ready(Ok(r))).await?.0)
    }
}
