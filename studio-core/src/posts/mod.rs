//! Posts (`02-route-groups.md` §4.14): a house's notes board. Every member may read the house's
//! posts; every role but viewer may write one; only its author (and not as a viewer) may change
//! or delete it (403 `FORBIDDEN` for anyone else in the house, 404 `NOT_FOUND` outside it). Designed in
//! docs/posts.md.

use crate::api::{
    DEFAULT_POSTS_PAGE, MAX_POST_BODY, MAX_POST_TITLE, MAX_POSTS_PAGE, NewPost, Post, PostPatch, PostsQuery,
};
use crate::caller::Caller;
use crate::error::{Error, Result};
use crate::ids::PostId;
use crate::storage::PostRow;

fn view(row: PostRow) -> Post {
    Post {
        id: row.id.into(),
        title: row.title,
        body: row.body,
        author_id: row.author_id.into(),
        created_at: row.created_at,
        updated_at: row.updated_at,
    }
}

/// A text field: trimmed, 400 `code` when blank, 400 `TOO_LONG` (with `max`) past `max`.
fn text(value: &str, code: &'static str, name: &str, max: usize) -> Result<String> {
    let value = value.trim();
    if value.is_empty() {
        return Err(Error::invalid(code, format!("A post needs a {name}.")));
    }
    if value.chars().count() > max {
        return Err(
            Error::invalid("TOO_LONG", format!("A post's {name} is at most {max} characters.")).with("max", max)
        );
    }
    Ok(value.to_string())
}

/// A viewer reads the board but writes, changes and deletes nothing on it.
fn refuse_viewer(caller: &Caller) -> Result<()> {
    if caller.role == crate::api::SeatRole::Viewer {
        return Err(Error::forbidden("FORBIDDEN", "A viewer may read the house's posts but not write them."));
    }
    Ok(())
}

fn not_found() -> Error {
    Error::not_found("NOT_FOUND", "No such post in this house.")
}

fn not_author() -> Error {
    Error::forbidden("FORBIDDEN", "Only a post's author may change or delete it.")
}

crate::studio::view! {
    /// The posts domain (the house notes beside the library): `studio.posts()`.
    Posts over PostStore
}

impl Posts<'_> {
    /// `GET /posts`: a page of the house's posts, newest first. 400 `BAD_LIMIT`, `BAD_CURSOR`.
    pub async fn list_posts(&self, caller: &Caller, query: PostsQuery) -> Result<Vec<Post>> {
        let limit = query.limit.unwrap_or(DEFAULT_POSTS_PAGE);
        if !(1..=MAX_POSTS_PAGE).contains(&limit) {
            return Err(Error::invalid("BAD_LIMIT", format!("limit is 1 to {MAX_POSTS_PAGE}.")));
        }
        let before = match query.before.as_deref().map(str::trim).filter(|b| !b.is_empty()) {
            Some(id) => {
                let row = self.store.post(&caller.org_id, &PostId::from(id)).await?;
                let row = row.ok_or_else(|| Error::invalid("BAD_CURSOR", "before names no post of this house."))?;
                Some((row.created_at, row.id))
            }
            None => None,
        };
        let rows = self
            .store
            .posts(&caller.org_id, i64::from(limit), before.as_ref().map(|(at, id)| (*at, id.as_str())))
            .await?;
        Ok(rows.into_iter().map(view).collect())
    }

    /// `POST /posts`: write a post. 400 `TITLE_REQUIRED`, `BODY_REQUIRED`, `TOO_LONG`; 403
    /// `FORBIDDEN` (a viewer).
    pub async fn create_post(&self, caller: &Caller, new: NewPost) -> Result<Post> {
        refuse_viewer(caller)?;
        let title = text(&new.title, "TITLE_REQUIRED", "title", MAX_POST_TITLE)?;
        let body = text(&new.body, "BODY_REQUIRED", "body", MAX_POST_BODY)?;
        let now = crate::ids::now();
        let row = PostRow {
            id: PostId::generate(),
            org_id: caller.org_id.clone(),
            author_id: caller.user_id.clone(),
            title,
            body,
            created_at: now,
            updated_at: now,
        };
        self.store.insert_post(&row).await?;
        Ok(view(row))
    }

    /// `GET /posts/{id}`: one post of the house. 404 `NOT_FOUND`.
    pub async fn post(&self, caller: &Caller, id: &PostId) -> Result<Post> {
        self.store.post(&caller.org_id, id).await?.map(view).ok_or_else(not_found)
    }

    /// `PATCH /posts/{id}`: the author changes a post. 400 as on create; 403 `FORBIDDEN` (not
    /// the author); 404 `NOT_FOUND`.
    pub async fn patch_post(&self, caller: &Caller, id: &PostId, patch: PostPatch) -> Result<Post> {
        refuse_viewer(caller)?;
        let title = patch.title.as_deref().map(|t| text(t, "TITLE_REQUIRED", "title", MAX_POST_TITLE)).transpose()?;
        let body = patch.body.as_deref().map(|b| text(b, "BODY_REQUIRED", "body", MAX_POST_BODY)).transpose()?;
        let row = self.store.post(&caller.org_id, id).await?.ok_or_else(not_found)?;
        if row.author_id != caller.user_id {
            return Err(not_author());
        }
        let now = crate::ids::now();
        let changed =
            self.store.update_post(&caller.org_id, id, &caller.user_id, title.as_deref(), body.as_deref(), now).await?;
        changed.map(view).ok_or_else(not_found)
    }

    /// `DELETE /posts/{id}`: the author deletes a post. 403 `FORBIDDEN` (not the author); 404
    /// `NOT_FOUND`.
    pub async fn delete_post(&self, caller: &Caller, id: &PostId) -> Result<()> {
        refuse_viewer(caller)?;
        let row = self.store.post(&caller.org_id, id).await?.ok_or_else(not_found)?;
        if row.author_id != caller.user_id {
            return Err(not_author());
        }
        if !self.store.delete_post(&caller.org_id, id, &caller.user_id).await? {
            return Err(not_found());
        }
        Ok(())
    }
}
