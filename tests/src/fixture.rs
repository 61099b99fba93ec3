//! A signed-up house for a test: one fixture instead of a `house()` helper per test file.
//!
//! [`House::new`] signs a new person up (a fresh email from the tag), which makes them the owner
//! of a new house, and mints a member key named after the tag. The fields hand back every form
//! the tests use: the owner's session client, the key's client and its secret, and the ids.

use anyhow::Context;
use studio_client::Client;
use studio_client::api::SeatRole;

use crate::{TestApp, unique_email};

/// The password every test house signs up with.
pub const PASSWORD: &str = "a long enough password";

/// A signed-up house: its owner's session and a member key.
#[derive(Debug, Clone)]
pub struct House {
    /// The owner's email, as signed up.
    pub email: String,
    /// A client carrying the owner's session.
    pub session: Client,
    /// A client carrying the member key.
    pub key: Client,
    /// The member key's secret (`studio_sk_…`).
    pub secret: String,
    /// The owner's user id.
    pub user_id: String,
    /// The house's organization id.
    pub org_id: studio_core::OrgId,
}

impl House {
    /// Sign up a house on `app` with a fresh email from `tag` and mint a member key named `tag`.
    /// Panics when the server refuses.
    pub async fn new(app: &TestApp, tag: &str) -> House {
        House::create(app, tag, None).await
    }

    /// [`House::new`] with the owner's display `name` (shown, for example, as who approved).
    pub async fn named(app: &TestApp, tag: &str, name: &str) -> House {
        House::create(app, tag, Some(name)).await
    }

    async fn create(app: &TestApp, tag: &str, name: Option<&str>) -> House {
        House::sign_up(&app.client, &unique_email(tag), PASSWORD, name, tag)
            .await
            .unwrap_or_else(|e| panic!("house {tag}: {e:#}"))
    }

    /// Sign up `email` through `anon` (a client with no credential) and mint a member key named
    /// `key_name`; the fallible core of [`House::new`], for callers with their own server, email
    /// or password (studio-bench).
    pub async fn sign_up(
        anon: &Client,
        email: &str,
        password: &str,
        name: Option<&str>,
        key_name: &str,
    ) -> anyhow::Result<House> {
        let signed = anon.sign_up(email, password, name).await.context("sign up")?;
        let session = anon.with_session(&signed.session);
        let secret = session.mint_key(key_name, None).await.context("mint")?.key.context("the minted key's secret")?;
        Ok(House {
            email: email.to_string(),
            key: anon.with_api_key(secret.clone()),
            session,
            secret,
            user_id: signed.account.user.id,
            org_id: signed.account.organization.id.into(),
        })
    }

    /// Seat a new person in this house with `role`: they sign up (a fresh email from `tag`),
    /// their address is marked proven, the owner invites them and they accept, so their
    /// session acts for this house. Panics when the server refuses.
    pub async fn seat(&self, app: &TestApp, tag: &str, role: SeatRole) -> Person {
        let person = Person::sign_up(app, tag).await;
        let invitation = self.session.invite_seat(&person.email, role).await.expect("invite");
        person.session.accept_seat(&invitation.id).await.expect("accept");
        person
    }

    /// The core's caller for the member key, for what the tests ask of `app.studio` directly.
    pub async fn caller(&self, app: &TestApp) -> studio_core::Caller {
        app.studio.accounts().authenticate_key(&self.secret).await.expect("a caller for the key")
    }
}

/// A signed-up person with a proven address (their own personal house is their home house
/// until they accept a seat elsewhere).
#[derive(Debug, Clone)]
pub struct Person {
    /// Their email.
    pub email: String,
    /// A client carrying their session.
    pub session: Client,
    /// Their user id.
    pub user_id: String,
    /// Their personal house.
    pub home_org_id: String,
}

impl Person {
    /// Sign up a fresh person from `tag` and mark their address proven (as the verification
    /// letter's link would). Panics when the server refuses.
    pub async fn sign_up(app: &TestApp, tag: &str) -> Person {
        let email = unique_email(tag);
        let signed = app.client.sign_up(&email, PASSWORD, None).await.unwrap_or_else(|e| panic!("{tag}: {e:#}"));
        app.studio
            .storage()
            .set_email_verified(&signed.account.user.id.as_str().into(), chrono::Utc::now())
            .await
            .expect("verify the address");
        Person {
            email,
            session: app.client.with_session(&signed.session),
            user_id: signed.account.user.id,
            home_org_id: signed.account.organization.id,
        }
    }
}
