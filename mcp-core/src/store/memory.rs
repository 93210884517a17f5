//! In-memory stores: several servers of one process sharing sessions and
//! changes (and the tests of what a shared store must do). Without any store
//! the HTTP server keeps sessions in its own map, as before.

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use async_trait::async_trait;
use tokio::sync::{broadcast, mpsc};

use super::{Bus, Heard, SessionStore, StoreResult, random_secret};

const NAME: &str = "memory";

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Sessions in a map, each with its expiry.
#[derive(Debug, Default)]
pub struct InMemorySessionStore {
    sessions: Mutex<HashMap<String, (String, Instant)>>,
    secrets: Mutex<HashMap<String, [u8; 32]>>,
}

impl InMemorySessionStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    fn live(
        sessions: &mut HashMap<String, (String, Instant)>,
        session: &str,
    ) -> Option<(String, Instant)> {
        match sessions.get(session) {
            Some((_, expiry)) if *expiry <= Instant::now() => {
                sessions.remove(session);
                None
            }
            found => found.cloned(),
        }
    }
}

#[async_trait]
impl SessionStore for InMemorySessionStore {
    async fn create(&self, session: &str, record: &str, ttl: Duration) -> StoreResult<bool> {
        let mut sessions = lock(&self.sessions);
        if Self::live(&mut sessions, session).is_some() {
            return Ok(false);
        }
        sessions.insert(
            session.to_string(),
            (record.to_string(), Instant::now() + ttl),
        );
        Ok(true)
    }

    async fn update(&self, session: &str, record: &str, ttl: Duration) -> StoreResult<bool> {
        let mut sessions = lock(&self.sessions);
        if Self::live(&mut sessions, session).is_none() {
            return Ok(false);
        }
        sessions.insert(
            session.to_string(),
            (record.to_string(), Instant::now() + ttl),
        );
        Ok(true)
    }

    async fn load(&self, session: &str, ttl: Duration) -> StoreResult<Option<String>> {
        let mut sessions = lock(&self.sessions);
        let found = Self::live(&mut sessions, session);
        if let Some(entry) = sessions.get_mut(session) {
            entry.1 = Instant::now() + ttl;
        }
        Ok(found.map(|(record, _)| record))
    }

    async fn delete(&self, session: &str) -> StoreResult<bool> {
        let mut sessions = lock(&self.sessions);
        let existed = Self::live(&mut sessions, session).is_some();
        sessions.remove(session);
        Ok(existed)
    }

    async fn shared_secret(&self, name: &str) -> StoreResult<[u8; 32]> {
        let mut secrets = lock(&self.secrets);
        if let Some(secret) = secrets.get(name) {
            return Ok(*secret);
        }
        let secret = random_secret(NAME)?;
        secrets.insert(name.to_string(), secret);
        Ok(secret)
    }
}

/// Topics as broadcast channels.
#[derive(Debug, Default)]
pub struct InMemoryBus {
    topics: Mutex<HashMap<String, broadcast::Sender<String>>>,
}

impl InMemoryBus {
    /// A bus with no subscribers.
    pub fn new() -> Self {
        Self::default()
    }

    fn topic(&self, topic: &str) -> broadcast::Sender<String> {
        lock(&self.topics)
            .entry(topic.to_string())
            .or_insert_with(|| broadcast::channel(256).0)
            .clone()
    }
}

#[async_trait]
impl Bus for InMemoryBus {
    async fn publish(&self, topic: &str, payload: String) -> StoreResult<()> {
        let _ = self.topic(topic).send(payload);
        Ok(())
    }

    fn subscribe(&self, topic: &str) -> mpsc::Receiver<Heard> {
        let mut source = self.topic(topic).subscribe();
        let (tx, rx) = mpsc::channel(256);
        tokio::spawn(async move {
            loop {
                let heard = match source.recv().await {
                    Ok(message) => Heard::Message(message),
                    Err(broadcast::error::RecvError::Lagged(_)) => Heard::Gap,
                    Err(broadcast::error::RecvError::Closed) => return,
                };
                if tx.send(heard).await.is_err() {
                    return;
                }
            }
        });
        rx
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn sessions_are_created_once_updated_while_alive_and_deleted() {
        let store = InMemorySessionStore::new();
        let ttl = Duration::from_secs(60);
        assert!(store.create("s", "one", ttl).await.unwrap());
        assert!(!store.create("s", "two", ttl).await.unwrap());
        assert!(store.update("s", "three", ttl).await.unwrap());
        assert_eq!(
            store.load("s", ttl).await.unwrap().as_deref(),
            Some("three")
        );
        assert!(store.delete("s").await.unwrap());
        assert!(!store.delete("s").await.unwrap());
        assert_eq!(store.load("s", ttl).await.unwrap(), None);
        // A late write does not bring it back.
        assert!(!store.update("s", "four", ttl).await.unwrap());
        assert_eq!(store.load("s", ttl).await.unwrap(), None);
    }

    #[tokio::test]
    async fn sessions_expire() {
        let store = InMemorySessionStore::new();
        assert!(store.create("s", "r", Duration::ZERO).await.unwrap());
        assert_eq!(store.load("s", Duration::ZERO).await.unwrap(), None);
    }

    #[tokio::test]
    async fn a_secret_is_the_same_for_everyone() {
        let store = InMemorySessionStore::new();
        let a = store.shared_secret("k").await.unwrap();
        assert_eq!(a, store.shared_secret("k").await.unwrap());
        assert_ne!(a, store.shared_secret("other").await.unwrap());
    }

    #[tokio::test]
    async fn the_bus_reaches_every_subscriber() {
        let bus = InMemoryBus::new();
        let mut a = bus.subscribe("t");
        let mut b = bus.subscribe("t");
        bus.publish("t", "hello".into()).await.unwrap();
        for receiver in [&mut a, &mut b] {
            let heard = receiver.recv().await.and_then(Heard::message);
            assert_eq!(heard.as_deref(), Some("hello"));
        }
    }
}
