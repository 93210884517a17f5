//! Where the events of SSE streams are kept so that a client can resume a
//! stream with `Last-Event-ID`: the [`EventStore`] trait and its bounded
//! in-memory default.

use std::collections::VecDeque;
use std::fmt;
use std::sync::{Arc, Mutex, MutexGuard};

use async_trait::async_trait;

use crate::fast_map::FastMap;
use crate::schema::RequestId;
use crate::store::StoreResult;

/// Names one SSE stream: the MCP session and the stream within it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct StreamKey {
    /// The `Mcp-Session-Id` (shared: a key is made for every event).
    pub session: Arc<str>,
    /// The stream within the session (0 is the GET stream).
    pub stream: u64,
}

/// Keeps the events of streams for resumption. Called while the session's
/// routing lock is held: keep every call quick (an external store writes
/// behind, and answers [`replay`](Self::replay) of this replica's own
/// streams from memory; other replicas read it through
/// [`shared`](Self::shared)).
pub trait EventStore: fmt::Debug + Send + Sync + 'static {
    /// Records event `seq` (increasing per stream) of `stream`.
    fn append(&self, stream: &StreamKey, seq: u64, message: Arc<str>);
    /// The kept events of `stream` after `after`, oldest first.
    fn replay(&self, stream: &StreamKey, after: u64) -> Vec<(u64, Arc<str>)>;
    /// Forgets `stream` (it can no longer be resumed).
    fn forget(&self, stream: &StreamKey);
    /// Stream `stream` was opened for `request` (a shared store keeps it,
    /// so that another replica can answer for that request if this one
    /// dies).
    fn opened(&self, _stream: &StreamKey, _request: &RequestId) {}
    /// The events every replica writes and reads, if this store is shared
    /// between replicas; `None` (the default) keeps resumption to the
    /// replica that holds the stream.
    fn shared(&self) -> Option<&dyn SharedEvents> {
        None
    }
}

/// A store's events as every replica sees them: what a replica reads to
/// resume a stream another replica wrote (whose [`StreamKey::stream`] names
/// that replica in its upper 32 bits).
#[async_trait]
pub trait SharedEvents: Send + Sync {
    /// The events of `stream` after `after`, oldest first.
    async fn read(&self, stream: &StreamKey, after: u64) -> StoreResult<Vec<(u64, Arc<str>)>>;
    /// The request that `stream` answers, if it is a request's stream.
    async fn request(&self, stream: &StreamKey) -> StoreResult<Option<RequestId>>;
    /// Whether replica `replica` still runs.
    async fn replica_alive(&self, replica: u32) -> StoreResult<bool>;
}

/// Kept events of one stream, oldest first. Most streams are a request's
/// answer alone: one event, kept without a queue to allocate and free.
#[derive(Debug)]
enum Events {
    One(u64, Arc<str>),
    Many(VecDeque<(u64, Arc<str>)>),
}

impl Events {
    /// Adds an event, keeping the last `limit` (at least one).
    fn push(&mut self, seq: u64, message: Arc<str>, limit: usize) {
        match self {
            Self::One(..) if limit == 1 => *self = Self::One(seq, message),
            Self::One(first_seq, first) => {
                let first = (*first_seq, first.clone());
                *self = Self::Many(VecDeque::from([first, (seq, message)]));
            }
            Self::Many(events) => {
                events.push_back((seq, message));
                while events.len() > limit {
                    events.pop_front();
                }
            }
        }
    }

    fn after(&self, after: u64) -> Vec<(u64, Arc<str>)> {
        let kept = match self {
            Self::One(seq, message) if *seq > after => return Vec::from([(*seq, message.clone())]),
            Self::One(..) => return Vec::new(),
            Self::Many(events) => events,
        };
        kept.iter()
            .filter(|(seq, _)| *seq > after)
            .cloned()
            .collect()
    }
}

/// The default store: in memory, the last `per_stream` events of each
/// stream. Memory is bounded by the session limit, the number of streams a
/// session keeps, and this bound.
#[derive(Debug)]
pub struct InMemoryEventStore {
    per_stream: usize,
    streams: Mutex<FastMap<StreamKey, Events>>,
}

impl InMemoryEventStore {
    /// A store keeping the last `per_stream` events of every stream.
    pub fn new(per_stream: usize) -> Self {
        Self {
            per_stream: per_stream.max(1),
            streams: Mutex::new(FastMap::default()),
        }
    }

    fn lock(&self) -> MutexGuard<'_, FastMap<StreamKey, Events>> {
        self.streams
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

impl Default for InMemoryEventStore {
    fn default() -> Self {
        Self::new(256)
    }
}

impl EventStore for InMemoryEventStore {
    fn append(&self, stream: &StreamKey, seq: u64, message: Arc<str>) {
        let mut streams = self.lock();
        match streams.get_mut(stream) {
            Some(events) => events.push(seq, message, self.per_stream),
            None => {
                streams.insert(stream.clone(), Events::One(seq, message));
            }
        }
    }

    fn replay(&self, stream: &StreamKey, after: u64) -> Vec<(u64, Arc<str>)> {
        self.lock()
            .get(stream)
            .map(|events| events.after(after))
            .unwrap_or_default()
    }

    fn forget(&self, stream: &StreamKey) {
        self.lock().remove(stream);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_last_events_per_stream() {
        let store = InMemoryEventStore::new(2);
        let key = StreamKey {
            session: "s".into(),
            stream: 1,
        };
        for seq in 1..=3 {
            store.append(&key, seq, Arc::from(format!("m{seq}")));
        }
        let replay = store.replay(&key, 0);
        assert_eq!(replay.iter().map(|(s, _)| *s).collect::<Vec<_>>(), [2, 3]);
        assert_eq!(store.replay(&key, 2).len(), 1);
        store.forget(&key);
        assert!(store.replay(&key, 0).is_empty());
    }

    #[test]
    fn one_event_and_a_bound_of_one() {
        let key = |stream| StreamKey {
            session: "s".into(),
            stream,
        };
        let store = InMemoryEventStore::new(1);
        store.append(&key(1), 1, Arc::from("a"));
        assert_eq!(store.replay(&key(1), 0).len(), 1);
        assert!(store.replay(&key(1), 1).is_empty());
        store.append(&key(1), 2, Arc::from("b"));
        let replay = store.replay(&key(1), 0);
        assert_eq!(replay.iter().map(|(s, _)| *s).collect::<Vec<_>>(), [2]);
        let store = InMemoryEventStore::new(8);
        for seq in 1..=3 {
            store.append(&key(2), seq, Arc::from(format!("m{seq}")));
        }
        let replay = store.replay(&key(2), 1);
        assert_eq!(replay.iter().map(|(s, _)| *s).collect::<Vec<_>>(), [2, 3]);
        assert!(store.replay(&key(3), 0).is_empty());
    }
}
