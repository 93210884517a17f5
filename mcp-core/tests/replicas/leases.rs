//! Session leases: a replica serves a session it read from the store
//! without reading it again, and still answers 404 or the new record right
//! after another replica deleted or changed it — also when its bus went
//! silent or lost messages.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use async_trait::async_trait;
use mcp_core::http::HttpServerConfig;
use mcp_core::store::{
    Bus, Heard, InMemoryBus, InMemorySessionStore, SessionStore, StoreError, StoreResult,
};
use serde_json::json;
use tokio::sync::{broadcast, mpsc};

use crate::{call, logs, open, replica};

/// The in-memory store, counting reads of records.
#[derive(Debug, Default)]
struct Counting {
    store: InMemorySessionStore,
    loads: AtomicUsize,
}

impl Counting {
    fn loads(&self) -> usize {
        self.loads.load(Ordering::SeqCst)
    }
}

#[async_trait]
impl SessionStore for Counting {
    async fn create(&self, session: &str, record: &str, ttl: Duration) -> StoreResult<bool> {
        self.store.create(session, record, ttl).await
    }
    async fn update(&self, session: &str, record: &str, ttl: Duration) -> StoreResult<bool> {
        self.store.update(session, record, ttl).await
    }
    async fn load(&self, session: &str, ttl: Duration) -> StoreResult<Option<String>> {
        self.loads.fetch_add(1, Ordering::SeqCst);
        self.store.load(session, ttl).await
    }
    async fn delete(&self, session: &str) -> StoreResult<bool> {
        self.store.delete(session).await
    }
    async fn shared_secret(&self, name: &str) -> StoreResult<[u8; 32]> {
        self.store.shared_secret(name).await
    }
}

/// One replica's link to the shared bus, which a test can silence (nothing
/// goes out or comes in, with no word of it) or make lose messages (a gap).
#[derive(Debug)]
struct Link {
    bus: Arc<InMemoryBus>,
    silent: Arc<AtomicBool>,
    gaps: broadcast::Sender<()>,
}

impl Link {
    fn new(bus: &Arc<InMemoryBus>) -> Arc<Self> {
        Arc::new(Self {
            bus: bus.clone(),
            silent: Arc::default(),
            gaps: broadcast::channel(4).0,
        })
    }
}

#[async_trait]
impl Bus for Link {
    async fn publish(&self, topic: &str, payload: String) -> StoreResult<()> {
        if self.silent.load(Ordering::SeqCst) {
            return Err(StoreError {
                store: "link".into(),
                message: "silent".into(),
            });
        }
        self.bus.publish(topic, payload).await
    }

    fn subscribe(&self, topic: &str) -> mpsc::Receiver<Heard> {
        let mut source = self.bus.subscribe(topic);
        let mut gaps = self.gaps.subscribe();
        let silent = self.silent.clone();
        let (tx, rx) = mpsc::channel(256);
        tokio::spawn(async move {
            loop {
                let heard = tokio::select! {
                    heard = source.recv() => match heard {
                        Some(heard) => heard,
                        None => return,
                    },
                    Ok(()) = gaps.recv() => Heard::Gap,
                };
                if !silent.load(Ordering::SeqCst) && tx.send(heard).await.is_err() {
                    return;
                }
            }
        });
        rx
    }
}

fn config(store: &Arc<Counting>, link: &Arc<Link>) -> HttpServerConfig {
    HttpServerConfig::default()
        .session_store(store.clone())
        .bus(link.clone())
}

async fn delete(url: &str, session: &str) -> u16 {
    reqwest::Client::new()
        .delete(url)
        .header("Mcp-Session-Id", session)
        .header("MCP-Protocol-Version", "2025-11-25")
        .send()
        .await
        .unwrap()
        .status()
        .as_u16()
}

/// Two replicas and a session opened on the first, which the second holds
/// a lease on (it read the record once, and its beats come back).
async fn leased() -> (Arc<Counting>, [Arc<Link>; 2], [String; 2], String) {
    let bus = Arc::new(InMemoryBus::new());
    let store = Arc::new(Counting::default());
    let links = [Link::new(&bus), Link::new(&bus)];
    let (a, _) = replica(config(&store, &links[0])).await;
    let (b, _) = replica(config(&store, &links[1])).await;
    let session = open(&a).await;
    let before = store.loads();
    for id in 1..=20 {
        let reply = call(&b, &session, id, "tools/call", json!({"name": "log"})).await;
        assert_eq!(reply.status, 200);
        assert_eq!(logs(&reply), 1);
    }
    // One read takes the lease; a second may come before the replica heard
    // its first beat back, or to push the expiry back.
    let reads = store.loads() - before;
    assert!((1..=3).contains(&reads), "{reads} reads for 20 requests");
    (store, links, [a, b], session)
}

#[tokio::test]
async fn a_replica_serves_a_session_it_holds_without_reading_the_store() {
    let (store, _links, [_, b], session) = leased().await;
    let before = store.loads();
    for id in 100..110 {
        assert_eq!(
            call(&b, &session, id, "tools/list", json!({})).await.status,
            200
        );
    }
    assert!(store.loads() - before <= 1);
}

#[tokio::test]
async fn a_change_on_one_replica_holds_at_once_on_one_that_held_a_lease() {
    let (_store, _links, [a, b], session) = leased().await;
    let reply = call(
        &a,
        &session,
        50,
        "logging/setLevel",
        json!({"level": "error"}),
    )
    .await;
    assert_eq!(reply.status, 200);
    let reply = call(&b, &session, 51, "tools/call", json!({"name": "log"})).await;
    assert_eq!(logs(&reply), 0, "{:?}", reply.messages);
}

#[tokio::test]
async fn a_deleted_session_is_404_at_once_on_a_replica_that_held_a_lease() {
    let (_store, _links, [a, b], session) = leased().await;
    let started = Instant::now();
    assert_eq!(delete(&a, &session).await, 200);
    assert!(
        started.elapsed() < Duration::from_secs(1),
        "the other replica acknowledged: no waiting out its trust"
    );
    let reply = call(&b, &session, 60, "tools/list", json!({})).await;
    assert_eq!(reply.status, 404);
}

#[tokio::test]
async fn a_replica_whose_bus_went_silent_stops_trusting_its_leases() {
    let (_store, links, [a, b], session) = leased().await;
    links[1].silent.store(true, Ordering::SeqCst);
    // B cannot acknowledge: A waits until B has stopped trusting its lease.
    let started = Instant::now();
    assert_eq!(delete(&a, &session).await, 200);
    let waited = started.elapsed();
    assert!(
        (Duration::from_secs(1)..Duration::from_secs(5)).contains(&waited),
        "{waited:?}"
    );
    let reply = call(&b, &session, 70, "tools/list", json!({})).await;
    assert_eq!(reply.status, 404);
}

#[tokio::test]
async fn a_gap_on_the_bus_voids_the_leases() {
    let (store, links, [_, b], session) = leased().await;
    // Gone from the store behind the bus's back: only a replica that reads
    // the record again learns of it.
    store.store.delete(&session).await.unwrap();
    links[1].gaps.send(()).unwrap();
    // The gap travels through the link's task.
    tokio::time::sleep(Duration::from_millis(100)).await;
    // Read in the request itself, not by a background renewal (which would
    // still answer this request from the lease).
    let reply = call(&b, &session, 80, "tools/list", json!({})).await;
    assert_eq!(reply.status, 404);
}
