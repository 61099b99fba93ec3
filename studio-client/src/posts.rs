//! Posts through the client (`02-route-groups.md` §4.14): the house's notes board. List newest
//! first (paged by `before`), write, read, and the author's change and delete.

use std::future::ready;

use reqwest::Method;
use studio_core::api::{NewPost, Post, PostPatch, PostsQuery};

use crate::client::{Client, encode, refusal};
use crate::error::Error;

impl Client {
    /// `GET /posts`: one page of the house's posts, newest first (`limit` 1-100, default 50;
    /// `before` the last id of the previous page). 400 `BAD_LIMIT`, `BAD_CURSOR`.
    pub async fn posts(&self, query: &PostsQuery) -> Result<Vec<Post>, Error> {
        let mut params = Vec::new();
        if let Some(limit) = query.limit {
            params.push(format!("limit={limit}"));
        }
        if let Some(before) = &query.before {
            params.push(format!("before={}", encode(before)));
        }
        let path = if params.is_empty() { "/posts".to_string() } else { format!("/posts?{}", params.join("&")) };
        self.get(&path).await
    }

    /// `POST /posts`: write a post (201). 400 `TITLE_REQUIRED`, `BODY_REQUIRED`, `TOO_LONG`; 403
    /// `FORBIDDEN` (a viewer).
    pub async fn create_post(&self, post: &NewPost) -> Result<Post, Error> {
        self.post("/posts", post).await
    }

    /// `GET /posts/{id}`. 404 `NOT_FOUND`.
    pub async fn read_post(&self, id: &str) -> Result<Post, Error> {
        self.get(&format!("/posts/{}", encode(id))).await
    }

    /// `PATCH /posts/{id}` (its author only). 403 `FORBIDDEN`; 404 `NOT_FOUND`.
    pub async fn patch_post(&self, id: &str, patch: &PostPatch) -> Result<Post, Error> {
        self.patch(&format!("/posts/{}", encode(id)), patch).await
    }

    /// `DELETE /posts/{id}` (its author only): 204. 403 `FORBIDDEN`; 404 `NOT_FOUND`.
    pub async fn delete_post(&self, id: &str) -> Result<(), Error> {
        let res = self.execute(Method::DELETE, &format!("/posts/{}", encode(id)), false, |r| ready(Ok(r))).await?;
        let status = res.status();
        if status.is_success() {
            return Ok(());
        }
        let bytes = res.bytes().await?;
        Err(refusal(status, &bytes))
    }
}
