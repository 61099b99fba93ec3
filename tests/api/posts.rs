//! Posts (§4.14) through studio-client on both backends: write (201), read, list newest first
//! and paged, the author's change and delete (204), another member's 403, another house's 404,
//! a viewer's 403 on write, the required fields' codes, and no session 401.

use studio_client::api::{NewPost, PostPatch, PostsQuery, SeatRole};
use studio_tests::{Backend, House, backend_tests, spawn};

backend_tests!(posts_belong_to_their_author_and_house);

fn refused(e: studio_client::Error) -> (Option<u16>, String) {
    (e.status(), e.code().unwrap_or("").to_string())
}

fn new(title: &str, body: &str) -> NewPost {
    NewPost { title: title.into(), body: body.into() }
}

async fn posts_belong_to_their_author_and_house(backend: Backend) {
    let Some(app) = spawn(backend, |c| c.runner_concurrency = 0).await else { return };
    let house = House::new(&app, "posts").await;
    let other = House::new(&app, "posts-other").await;
    let member = house.seat(&app, "posts-member", SeatRole::Member).await;
    let viewer = house.seat(&app, "posts-viewer", SeatRole::Viewer).await;
    let owner = &house.session;

    let first = owner.create_post(&new("  Spring drop  ", " Shoot on Monday. ")).await.expect("201");
    assert_eq!((first.title.as_str(), first.body.as_str()), ("Spring drop", "Shoot on Monday."));
    assert_eq!(first.author_id, house.user_id);
    assert_eq!(first.created_at, first.updated_at);
    let mut ids = vec![first.id.clone()];
    for i in 0..4 {
        ids.push(member.session.create_post(&new(&format!("note {i}"), "body")).await.expect("member writes").id);
    }

    // Newest first, paged by `before`; a member reads the whole house's board.
    let all = member.session.posts(&PostsQuery::default()).await.expect("list");
    let listed: Vec<&str> = all.iter().map(|p| p.id.as_str()).collect();
    let newest_first: Vec<&str> = ids.iter().rev().map(String::as_str).collect();
    assert_eq!(listed, newest_first);
    let page = owner.posts(&PostsQuery { limit: Some(2), before: None }).await.expect("page 1");
    let next = owner.posts(&PostsQuery { limit: Some(2), before: Some(page[1].id.clone()) }).await.expect("page 2");
    assert_eq!(next.iter().map(|p| p.id.as_str()).collect::<Vec<_>>(), newest_first[2..4].to_vec());
    let e = owner.posts(&PostsQuery { limit: Some(0), before: None }).await.unwrap_err();
    assert_eq!(refused(e), (Some(400), "BAD_LIMIT".into()));
    let e = owner.posts(&PostsQuery { limit: None, before: Some("post_nope".into()) }).await.unwrap_err();
    assert_eq!(refused(e), (Some(400), "BAD_CURSOR".into()));

    // Only the author changes or deletes; another house does not see it at all.
    let e = member.session.patch_post(&first.id, &PostPatch { title: Some("mine now".into()), body: None }).await;
    assert_eq!(refused(e.unwrap_err()), (Some(403), "FORBIDDEN".into()));
    assert_eq!(refused(member.session.delete_post(&first.id).await.unwrap_err()), (Some(403), "FORBIDDEN".into()));
    assert_eq!(refused(other.key.read_post(&first.id).await.unwrap_err()), (Some(404), "NOT_FOUND".into()));
    let e = other.session.patch_post(&first.id, &PostPatch { title: Some("x".into()), body: None }).await;
    assert_eq!(refused(e.unwrap_err()), (Some(404), "NOT_FOUND".into()));
    assert_eq!(refused(other.session.delete_post(&first.id).await.unwrap_err()), (Some(404), "NOT_FOUND".into()));
    assert!(other.key.posts(&PostsQuery::default()).await.expect("own board").is_empty());

    let moved = PostPatch { title: None, body: Some("Moved to Tuesday.".into()) };
    let changed = owner.patch_post(&first.id, &moved).await.expect("author patches");
    assert_eq!((changed.title.as_str(), changed.body.as_str()), ("Spring drop", "Moved to Tuesday."));
    assert!(changed.updated_at > first.updated_at);
    assert_eq!(owner.read_post(&first.id).await.expect("read").body, "Moved to Tuesday.");
    let e = owner.patch_post(&first.id, &PostPatch { title: Some("  ".into()), body: None }).await.unwrap_err();
    assert_eq!(refused(e), (Some(400), "TITLE_REQUIRED".into()));

    // The required fields, the limits, a viewer, no credential.
    assert_eq!(refused(owner.create_post(&new("", "b")).await.unwrap_err()), (Some(400), "TITLE_REQUIRED".into()));
    assert_eq!(refused(owner.create_post(&new("t", " ")).await.unwrap_err()), (Some(400), "BODY_REQUIRED".into()));
    let e = owner.create_post(&new(&"t".repeat(201), "b")).await.unwrap_err();
    assert_eq!(refused(e), (Some(400), "TOO_LONG".into()));
    let e = viewer.session.create_post(&new("t", "b")).await.unwrap_err();
    assert_eq!(refused(e), (Some(403), "FORBIDDEN".into()));
    assert_eq!(viewer.session.posts(&PostsQuery::default()).await.expect("a viewer reads").len(), 5);
    assert_eq!(refused(app.client.posts(&PostsQuery::default()).await.unwrap_err()).0, Some(401));

    owner.delete_post(&first.id).await.expect("204");
    assert_eq!(refused(owner.read_post(&first.id).await.unwrap_err()), (Some(404), "NOT_FOUND".into()));
    assert_eq!(refused(owner.delete_post(&first.id).await.unwrap_err()), (Some(404), "NOT_FOUND".into()));
    assert_eq!(owner.posts(&PostsQuery::default()).await.expect("list").len(), 4);
}
