//! House events between replicas (PostgreSQL NOTIFY): many events announced at once by two
//! storages of one database reach a listener whole, each once, and each sender's in the order it
//! announced them; an event too long for NOTIFY is refused, and only it.

use std::collections::HashMap;
use std::time::Duration;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_events_announced_together_arrive_whole_once_and_in_order() {
    let Some((s, replica)) = crate::two_replicas().await else { return };
    let mut heard = s.storage.listen().await.expect("listen").expect("PostgreSQL has a shared channel");

    // 16 tasks on each replica, 25 events each, announced one after another per task.
    let mut tasks = Vec::new();
    for (r, storage) in [s.storage.clone(), replica.clone()].into_iter().enumerate() {
        for t in 0..16 {
            let storage = storage.clone();
            tasks.push(tokio::spawn(async move {
                for n in 0..25 {
                    let sent = storage.announce(&format!("org-{r}-{t}").into(), &format!("{{\"n\":{n}}}")).await;
                    assert!(matches!(sent, Ok(true)), "announced: {sent:?}");
                }
            }));
        }
    }
    // One event over NOTIFY's 8,000 bytes, among the others: refused, and only it.
    let long = format!("{{\"pad\":\"{}\"}}", "x".repeat(9_000));
    assert!(s.storage.announce(&"org-long".into(), &long).await.is_err(), "an event over the limit is refused");
    for task in tasks {
        task.await.expect("announcing task");
    }

    let mut per_sender: HashMap<String, Vec<u32>> = HashMap::new();
    for _ in 0..(2 * 16 * 25) {
        let (org, text) = tokio::time::timeout(Duration::from_secs(10), heard.recv())
            .await
            .expect("every event arrives")
            .expect("open");
        let n: serde_json::Value = serde_json::from_str(&text).expect("the message arrives whole");
        per_sender.entry(org).or_default().push(n["n"].as_u64().expect("n") as u32);
    }
    assert_eq!(per_sender.len(), 32, "every sender was heard, and nothing of the long event");
    for (org, ns) in &per_sender {
        assert_eq!(ns, &(0..25).collect::<Vec<u32>>(), "{org}'s events arrive once each, in the order announced");
    }
    let extra = tokio::time::timeout(Duration::from_millis(300), heard.recv()).await;
    assert!(extra.is_err(), "nothing more arrives: {extra:?}");
}
