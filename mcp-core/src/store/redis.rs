//! The Redis store (feature `redis`): sessions, stream events, the bus and
//! shared secrets in one Redis database, through one multiplexed connection
//! that reconnects by itself (`ConnectionManager`) plus one pub/sub
//! connection that a task keeps open.
//!
//! Keys (under a prefix, `mcp:` by default): `session:<id>` (the record,
//! with the idle timeout as its expiry), `events:<session>:<stream>` (a list
//! of `<seq>\n<message>`, the last 256, expiring), `stream:<session>:<stream>`
//! (the request a stream answers), `replica:<id>` (a heartbeat: present
//! while that replica runs), `secret:<name>`, and tasks (`task:<id>`,
//! `tasks:<owner>`; see `tasks.rs`). Nothing here needs Redis's
//! persistence; whether sessions survive a Redis restart is a matter of its
//! own settings (`save`, `appendonly`).

mod tasks;

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use futures::StreamExt;
use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use redis::io::tcp::TcpSettings;
use redis::{AsyncCommands, IntoConnectionInfo};
use tokio::sync::mpsc;

use super::{Bus, Heard, SessionStore, StoreError, StoreResult, Stores, random_secret, replica_id};
use crate::schema::RequestId;
use crate::store::{EventStore, InMemoryEventStore, SharedEvents, StreamKey};

/// How long one command may take before the store counts as unreachable.
const RESPONSE_TIMEOUT: Duration = Duration::from_secs(2);
/// How long connecting may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(2);
/// Events kept per stream.
const EVENTS_PER_STREAM: isize = 256;
/// How long the events of a stream are kept after its last one.
const EVENTS_TTL: Duration = Duration::from_secs(15 * 60);
/// A replica's heartbeat: written every second, gone 3 s after it stops.
const HEARTBEAT: Duration = Duration::from_secs(1);
const HEARTBEAT_TTL: Duration = Duration::from_secs(3);
/// Events waiting to be written before more are dropped (a store that
/// cannot keep up must not grow memory without bound).
const WRITE_BACKLOG: usize = 16 * 1024;

/// A Redis database as the store of every replica.
#[derive(Clone)]
pub struct RedisStore {
    inner: Arc<Inner>,
}

struct Inner {
    /// `redis://host:port/db`, without credentials.
    name: String,
    prefix: String,
    client: redis::Client,
    connection: ConnectionManager,
    /// Event writes, in order, to the writer task.
    writes: mpsc::Sender<Write>,
    /// What this replica appended, for resumption on this replica without
    /// a round trip.
    local: InMemoryEventStore,
    /// The shared secrets this replica uses, written again with each
    /// heartbeat so that a Redis restarted empty gets them back before a new
    /// replica could draw different ones.
    secrets: std::sync::Mutex<Vec<(String, [u8; 32])>>,
}

impl std::fmt::Debug for RedisStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisStore")
            .field("store", &self.inner.name)
            .finish_non_exhaustive()
    }
}

enum Write {
    Append(StreamKey, u64, Arc<str>),
    Opened(StreamKey, String),
    Forget(StreamKey),
}

/// `url` without its user and password, to name the store in messages.
fn display_name(url: &str) -> String {
    match (url.split_once("://"), url.rfind('@')) {
        (Some((scheme, _)), Some(at)) => format!("{scheme}://{}", &url[at + 1..]),
        _ => url.to_string(),
    }
}

impl RedisStore {
    /// Connects to `url` (`redis://HOST:PORT/DB`, `rediss://…`, with
    /// `user:password@` if needed) and checks that it answers; fails within
    /// a few seconds, naming the store, if it does not.
    pub async fn connect(url: &str) -> StoreResult<Self> {
        Self::connect_with_prefix(url, "mcp:").await
    }

    /// Like [`connect`](Self::connect), with every key under `prefix`
    /// (several deployments in one database).
    pub async fn connect_with_prefix(url: &str, prefix: &str) -> StoreResult<Self> {
        let name = display_name(url);
        let fail = |message: String| StoreError {
            store: name.clone(),
            message,
        };
        // TCP_NODELAY: the crate leaves Nagle on by default, which holds a
        // command written while an earlier one is unanswered (concurrent
        // requests on the one multiplexed connection) until that answer's
        // ACK comes back.
        let info = url
            .into_connection_info()
            .map_err(|e| fail(format!("bad address: {e}")))?
            .set_tcp_settings(TcpSettings::default().set_nodelay(true));
        let client = redis::Client::open(info).map_err(|e| fail(format!("bad address: {e}")))?;
        let config = ConnectionManagerConfig::new()
            .set_connection_timeout(Some(CONNECT_TIMEOUT))
            .set_response_timeout(Some(RESPONSE_TIMEOUT))
            .set_number_of_retries(1)
            .set_max_delay(Duration::from_millis(500));
        let connect = ConnectionManager::new_with_config(client.clone(), config);
        let mut connection = tokio::time::timeout(CONNECT_TIMEOUT * 3, connect)
            .await
            .map_err(|_| fail("unreachable: no answer in time".into()))?
            .map_err(|e| fail(format!("unreachable: {e}")))?;
        let _: String = redis::cmd("PING")
            .query_async(&mut connection)
            .await
            .map_err(|e| fail(format!("does not answer PING: {e}")))?;
        let (writes, queue) = mpsc::channel(WRITE_BACKLOG);
        let store = Self {
            inner: Arc::new(Inner {
                name,
                prefix: prefix.to_string(),
                client,
                connection,
                writes,
                local: InMemoryEventStore::new(EVENTS_PER_STREAM.unsigned_abs()),
                secrets: std::sync::Mutex::default(),
            }),
        };
        tokio::spawn(write_events(Arc::downgrade(&store.inner), queue));
        tokio::spawn(heartbeat(Arc::downgrade(&store.inner)));
        Ok(store)
    }

    /// The sessions, events and bus of this store, for
    /// [`HttpServerConfig::stores`](crate::http::HttpServerConfig::stores).
    pub fn stores(&self) -> Stores {
        Stores {
            sessions: Arc::new(self.clone()),
            events: Arc::new(self.clone()),
            bus: Arc::new(self.clone()),
            tasks: Some(Arc::new(self.clone())),
            request_state_key: None,
        }
    }

    /// Everything [`stores`](Self::stores) gives plus the `requestState`
    /// key shared by every replica using this store: what a replica needs
    /// (the faces' `store` option is this).
    pub async fn replica_stores(&self) -> StoreResult<Stores> {
        let key = self.shared_secret(super::REQUEST_STATE_SECRET).await?;
        Ok(Stores {
            request_state_key: Some(crate::store::RequestStateKey::from_bytes(key)),
            ..self.stores()
        })
    }

    fn error(&self, e: &redis::RedisError) -> StoreError {
        StoreError {
            store: self.inner.name.clone(),
            message: e.to_string(),
        }
    }

    fn connection(&self) -> ConnectionManager {
        self.inner.connection.clone()
    }

    fn key(&self, kind: &str, rest: &str) -> String {
        format!("{}{kind}:{rest}", self.inner.prefix)
    }
}

fn ttl_ms(ttl: Duration) -> u64 {
    u64::try_from(ttl.as_millis()).unwrap_or(u64::MAX).max(1)
}

impl RedisStore {
    /// `SET` of a session record with its expiry, only if the key is absent
    /// (`NX`: create) or present (`XX`: update); whether it was written.
    async fn set_session(
        &self,
        session: &str,
        record: &str,
        ttl: Duration,
        condition: &str,
    ) -> StoreResult<bool> {
        let set: Option<String> = redis::cmd("SET")
            .arg(self.key("session", session))
            .arg(record)
            .arg(condition)
            .arg("PX")
            .arg(ttl_ms(ttl))
            .query_async(&mut self.connection())
            .await
            .map_err(|e| self.error(&e))?;
        Ok(set.is_some())
    }
}

#[async_trait]
impl SessionStore for RedisStore {
    async fn create(&self, session: &str, record: &str, ttl: Duration) -> StoreResult<bool> {
        self.set_session(session, record, ttl, "NX").await
    }

    async fn update(&self, session: &str, record: &str, ttl: Duration) -> StoreResult<bool> {
        self.set_session(session, record, ttl, "XX").await
    }

    async fn load(&self, session: &str, ttl: Duration) -> StoreResult<Option<String>> {
        redis::cmd("GETEX")
            .arg(self.key("session", session))
            .arg("PX")
            .arg(ttl_ms(ttl))
            .query_async(&mut self.connection())
            .await
            .map_err(|e| self.error(&e))
    }

    async fn delete(&self, session: &str) -> StoreResult<bool> {
        let removed: u64 = self
            .connection()
            .del(self.key("session", session))
            .await
            .map_err(|e| self.error(&e))?;
        Ok(removed > 0)
    }

    async fn shared_secret(&self, name: &str) -> StoreResult<[u8; 32]> {
        let key = self.key("secret", name);
        let fresh = random_secret(&self.inner.name)?;
        let mut connection = self.connection();
        let _: Option<String> = redis::cmd("SET")
            .arg(&key)
            .arg(&fresh[..])
            .arg("NX")
            .query_async(&mut connection)
            .await
            .map_err(|e| self.error(&e))?;
        let kept: Vec<u8> = connection.get(&key).await.map_err(|e| self.error(&e))?;
        let secret = <[u8; 32]>::try_from(kept.as_slice()).map_err(|_| StoreError {
            store: self.inner.name.clone(),
            message: format!("{key} does not hold 32 bytes"),
        })?;
        self.inner
            .secrets
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .push((key, secret));
        Ok(secret)
    }
}

#[async_trait]
impl Bus for RedisStore {
    async fn publish(&self, topic: &str, payload: String) -> StoreResult<()> {
        let _: u64 = self
            .connection()
            .publish(self.key("bus", topic), payload)
            .await
            .map_err(|e| self.error(&e))?;
        Ok(())
    }

    fn subscribe(&self, topic: &str) -> mpsc::Receiver<Heard> {
        let (tx, rx) = mpsc::channel(256);
        let channel = self.key("bus", topic);
        let client = self.inner.client.clone();
        let name = self.inner.name.clone();
        tokio::spawn(async move {
            // Reconnects until nobody listens any more; what was published
            // in between is lost, which a gap says.
            let mut first = true;
            while !tx.is_closed() {
                match subscribed(&client, &channel).await {
                    Ok(pubsub) => {
                        if !first && tx.send(Heard::Gap).await.is_err() {
                            return;
                        }
                        let mut messages = pubsub.into_on_message();
                        loop {
                            tokio::select! {
                                message = messages.next() => match message {
                                    Some(message) => {
                                        let heard = match message.get_payload::<String>() {
                                            Ok(payload) => Heard::Message(payload),
                                            Err(_) => Heard::Gap,
                                        };
                                        if tx.send(heard).await.is_err() {
                                            return;
                                        }
                                    }
                                    None => break,
                                },
                                () = tx.closed() => return,
                            }
                        }
                        tracing::warn!(
                            "lost the subscription to {channel} on {name}; reconnecting"
                        );
                    }
                    Err(e) => tracing::debug!("cannot subscribe to {channel} on {name}: {e}"),
                }
                first = false;
                tokio::time::sleep(Duration::from_millis(500)).await;
            }
        });
        rx
    }
}

async fn subscribed(
    client: &redis::Client,
    channel: &str,
) -> redis::RedisResult<redis::aio::PubSub> {
    let connect = client.get_async_pubsub();
    let mut pubsub = tokio::time::timeout(CONNECT_TIMEOUT, connect)
        .await
        .map_err(|_| redis::RedisError::from((redis::ErrorKind::Io, "connect timed out")))??;
    pubsub.subscribe(channel).await?;
    Ok(pubsub)
}

impl EventStore for RedisStore {
    fn append(&self, stream: &StreamKey, seq: u64, message: Arc<str>) {
        self.inner.local.append(stream, seq, message.clone());
        if self
            .inner
            .writes
            .try_send(Write::Append(stream.clone(), seq, message))
            .is_err()
        {
            tracing::warn!("{}: event writes fall behind; one dropped", self.inner.name);
        }
    }

    fn opened(&self, stream: &StreamKey, request: &RequestId) {
        let request = serde_json::to_string(request).unwrap_or_default();
        let _ = self
            .inner
            .writes
            .try_send(Write::Opened(stream.clone(), request));
    }

    fn replay(&self, stream: &StreamKey, after: u64) -> Vec<(u64, Arc<str>)> {
        self.inner.local.replay(stream, after)
    }

    fn forget(&self, stream: &StreamKey) {
        self.inner.local.forget(stream);
        let _ = self.inner.writes.try_send(Write::Forget(stream.clone()));
    }

    fn shared(&self) -> Option<&dyn SharedEvents> {
        Some(self)
    }
}

#[async_trait]
impl SharedEvents for RedisStore {
    async fn read(&self, stream: &StreamKey, after: u64) -> StoreResult<Vec<(u64, Arc<str>)>> {
        let key = events_key(&self.inner.prefix, stream);
        let entries: Vec<String> = self
            .connection()
            .lrange(key, 0, -1)
            .await
            .map_err(|e| self.error(&e))?;
        Ok(entries
            .iter()
            .filter_map(|entry| {
                let (seq, text) = entry.split_once('\n')?;
                let seq: u64 = seq.parse().ok()?;
                (seq > after).then(|| (seq, Arc::from(text)))
            })
            .collect())
    }

    async fn request(&self, stream: &StreamKey) -> StoreResult<Option<RequestId>> {
        let key = stream_key(&self.inner.prefix, stream);
        let text: Option<String> = self
            .connection()
            .get(key)
            .await
            .map_err(|e| self.error(&e))?;
        Ok(text.and_then(|t| serde_json::from_str(&t).ok()))
    }

    async fn replica_alive(&self, replica: u32) -> StoreResult<bool> {
        let alive: bool = self
            .connection()
            .exists(format!("{}replica:{replica}", self.inner.prefix))
            .await
            .map_err(|e| self.error(&e))?;
        Ok(alive)
    }
}

fn events_key(prefix: &str, stream: &StreamKey) -> String {
    format!("{prefix}events:{}:{}", stream.session, stream.stream)
}

fn stream_key(prefix: &str, stream: &StreamKey) -> String {
    format!("{prefix}stream:{}:{}", stream.session, stream.stream)
}

/// Writes events behind the sessions' locks, in order, a batch per round
/// trip. A batch that fails (Redis away) is dropped: what the client got
/// live is not lost, only its resumption elsewhere.
async fn write_events(store: std::sync::Weak<Inner>, mut queue: mpsc::Receiver<Write>) {
    let mut batch = Vec::new();
    while queue.recv_many(&mut batch, 256).await > 0 {
        let Some(inner) = store.upgrade() else { return };
        let mut pipe = redis::pipe();
        let ttl = ttl_ms(EVENTS_TTL);
        for write in batch.drain(..) {
            match write {
                Write::Append(stream, seq, text) => {
                    let key = events_key(&inner.prefix, &stream);
                    pipe.rpush(&key, format!("{seq}\n{text}"))
                        .ignore()
                        .ltrim(&key, -EVENTS_PER_STREAM, -1)
                        .ignore()
                        .pexpire(&key, i64::try_from(ttl).unwrap_or(i64::MAX))
                        .ignore();
                }
                Write::Opened(stream, request) => {
                    pipe.set_ex(
                        stream_key(&inner.prefix, &stream),
                        request,
                        EVENTS_TTL.as_secs(),
                    )
                    .ignore();
                }
                Write::Forget(stream) => {
                    pipe.del(events_key(&inner.prefix, &stream))
                        .ignore()
                        .del(stream_key(&inner.prefix, &stream))
                        .ignore();
                }
            }
        }
        let mut connection = inner.connection.clone();
        drop(inner);
        if let Err(e) = pipe.query_async::<()>(&mut connection).await {
            tracing::warn!("could not write stream events to the store: {e}");
        }
    }
}

/// Keeps `replica:<id>` present while this process runs.
async fn heartbeat(store: std::sync::Weak<Inner>) {
    loop {
        let Some(inner) = store.upgrade() else { return };
        let key = format!("{}replica:{}", inner.prefix, replica_id());
        let mut pipe = redis::pipe();
        pipe.pset_ex(key, 1, ttl_ms(HEARTBEAT_TTL)).ignore();
        for (name, secret) in inner
            .secrets
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .iter()
        {
            pipe.cmd("SET")
                .arg(name)
                .arg(&secret[..])
                .arg("NX")
                .ignore();
        }
        let mut connection = inner.connection.clone();
        drop(inner);
        let written: redis::RedisResult<()> = pipe.query_async(&mut connection).await;
        if let Err(e) = written {
            tracing::debug!("heartbeat not written: {e}");
        }
        tokio::time::sleep(HEARTBEAT).await;
    }
}

#[cfg(test)]
mod tests {
    use super::display_name;

    #[test]
    fn credentials_are_not_named() {
        assert_eq!(
            display_name("redis://user:secret@127.0.0.1:6379/0"),
            "redis://127.0.0.1:6379/0"
        );
        assert_eq!(
            display_name("redis://127.0.0.1:1/2"),
            "redis://127.0.0.1:1/2"
        );
    }
}
