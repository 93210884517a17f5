//! Where each outgoing message of one HTTP session goes: the stream of the
//! request it belongs to, or the standalone GET stream. Every stream keeps
//! its recent events, so a client can resume with `Last-Event-ID`.

use std::collections::VecDeque;
use std::sync::Arc;

use tokio::sync::mpsc;

use crate::store::{EventStore, StreamKey};

use crate::fast_map::FastMap;
use crate::schema::RequestId;

/// The stream of messages not tied to a request (served by GET), without a
/// shared store; with one, stream ids start at this replica's id shifted
/// into the upper 32 bits, so that event ids are unique across replicas and
/// name the replica that wrote them.
pub(crate) const STANDALONE: u64 = 0;

/// Stored events to send again: `(sequence number, message)`.
pub(crate) type Replay = Vec<(u64, Arc<str>)>;

/// What the HTTP response attached to a stream receives.
#[derive(Debug)]
pub(crate) enum LiveItem {
    /// One message, with its event sequence number; `last` is set on a
    /// request's response, after which the stream ends.
    Event {
        seq: u64,
        text: Arc<str>,
        last: bool,
    },
    /// The server ends the HTTP response now; the stream can be resumed.
    Close,
}

#[derive(Debug)]
struct Stream {
    next_seq: u64,
    /// Events up to this one reached a live HTTP response.
    delivered: u64,
    live: Option<mpsc::Sender<LiveItem>>,
    /// The request's response has been sent: nothing more will come.
    done: bool,
    /// The POST accepts a JSON answer: a response that is the stream's only
    /// event is answered as a JSON body.
    json_answer: bool,
    /// The request of a request stream.
    request: Option<RequestId>,
    /// The server ended the POST's response before the POST attached to
    /// it (SEP-1699 close while the request started).
    cut: bool,
}

impl Stream {
    fn new() -> Self {
        Self {
            next_seq: 1,
            delivered: 0,
            live: None,
            done: false,
            json_answer: false,
            request: None,
            cut: false,
        }
    }
}

/// All streams of one session. Used under a mutex that is never held
/// across an await.
#[derive(Debug)]
pub(crate) struct Streams {
    streams: FastMap<u64, Stream>,
    by_request: FastMap<RequestId, u64>,
    next_id: u64,
    /// The standalone stream's id (the first of this replica's ids).
    standalone: u64,
    /// The session, for the event store's keys.
    session: Arc<str>,
    /// Where events are kept for resumption.
    store: Arc<dyn EventStore>,
    /// Most finished request streams kept for late resumption.
    finished_limit: usize,
    finished: VecDeque<u64>,
    /// Responses are JSON bodies: other messages go to the GET stream.
    json_mode: bool,
}

/// Why a stream could not be attached.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum AttachError {
    /// No such stream (or it was forgotten).
    Unknown,
    /// Another HTTP response is already attached.
    Busy,
}

impl Streams {
    pub(crate) fn new(session: Arc<str>, store: Arc<dyn EventStore>, json_mode: bool) -> Self {
        // The standalone stream is created when first used: most sessions
        // never use it, and an idle session should cost little memory.
        let standalone = if store.shared().is_some() {
            u64::from(crate::store::replica_id()) << 32
        } else {
            STANDALONE
        };
        Self {
            streams: FastMap::default(),
            by_request: FastMap::default(),
            next_id: standalone + 1,
            standalone,
            session,
            store,
            finished_limit: 64,
            finished: VecDeque::new(),
            json_mode,
        }
    }

    /// Opens the stream of a new request, for the POST response that
    /// carries it (`json_answer`: it accepts a JSON answer); `live` is that
    /// response, or `None` until it attaches ([`attach_post`](Self::attach_post)).
    /// `None` if that request id is already in progress.
    pub(crate) fn open_request(
        &mut self,
        id: RequestId,
        live: Option<mpsc::Sender<LiveItem>>,
        json_answer: bool,
    ) -> Option<u64> {
        if let Some(existing) = self.by_request.get(&id) {
            if self.streams.get(existing).is_some_and(|s| !s.done) {
                return None;
            }
        }
        let stream_id = self.next_id;
        self.next_id += 1;
        let mut stream = Stream::new();
        stream.live = live;
        stream.json_answer = json_answer;
        stream.request = Some(id.clone());
        self.streams.insert(stream_id, stream);
        self.by_request.insert(id, stream_id);
        Some(stream_id)
    }

    /// The stream a message for `related` goes to: its request's while
    /// that is open, else the standalone one.
    fn target(&self, related: Option<&RequestId>, is_response: bool) -> u64 {
        related
            .filter(|_| is_response || !self.json_mode)
            .and_then(|id| self.by_request.get(id).copied())
            .filter(|id| self.streams.get(id).is_some_and(|s| !s.done))
            .unwrap_or(self.standalone)
    }

    /// Whether a message for `related` goes to the standalone stream while
    /// no GET response is attached to it here (another replica may hold
    /// the session's GET stream).
    pub(crate) fn goes_to_idle_standalone(
        &self,
        related: Option<&RequestId>,
        is_response: bool,
    ) -> bool {
        self.target(related, is_response) == self.standalone && !self.standalone_is_live()
    }

    /// Whether a GET response is attached to the standalone stream here.
    pub(crate) fn standalone_is_live(&self) -> bool {
        self.streams
            .get(&self.standalone)
            .and_then(|s| s.live.as_ref())
            .is_some_and(|l| !l.is_closed())
    }

    /// Records a message for `related` (or the standalone stream) and
    /// returns where to deliver it now, if an HTTP response is attached.
    pub(crate) fn push(
        &mut self,
        related: Option<&RequestId>,
        text: Arc<str>,
        is_response: bool,
    ) -> Option<(mpsc::Sender<LiveItem>, LiveItem)> {
        let stream_id = self.target(related, is_response);
        let last = is_response && stream_id != self.standalone;
        let stream = stream_mut(&mut self.streams, stream_id, self.standalone)?;
        let seq = stream.next_seq;
        stream.next_seq += 1;
        // A response that is its stream's only event, to the POST that sent
        // the request (still attached) and accepts JSON, is answered as a
        // JSON body: with no event id sent, it cannot be resumed, so it is
        // neither stored nor its stream kept.
        let json_body = last && seq == 1 && stream.json_answer && stream.live.is_some();
        if last {
            stream.done = true;
        }
        let delivery = if last {
            stream.live.take()
        } else {
            stream.live.clone()
        }
        .map(|live| {
            (
                live,
                LiveItem::Event {
                    seq,
                    text: text.clone(),
                    last,
                },
            )
        });
        if json_body {
            self.streams.remove(&stream_id);
            if let Some(id) = related {
                self.by_request.remove(id);
            }
            return delivery;
        }
        let key = self.key(stream_id);
        if seq == 1 && stream_id != self.standalone {
            // The stream is kept: which request it answers is kept too.
            if let Some(id) = related {
                self.store.opened(&key, id);
            }
        }
        self.store.append(&key, seq, text);
        if last {
            self.finish(stream_id);
        }
        delivery
    }

    /// The answer to `id` was ready while its POST was starting it: `true`
    /// when it can be the POST's whole JSON body (nothing was sent on the
    /// stream before, and the POST accepts JSON); the stream is then
    /// forgotten, as there is nothing to resume.
    pub(crate) fn answer_as_json(&mut self, id: &RequestId, stream_id: u64) -> bool {
        let Some(stream) = self.streams.get(&stream_id) else {
            return false;
        };
        if stream.next_seq != 1 || !stream.json_answer || stream.done || stream.cut {
            return false;
        }
        self.streams.remove(&stream_id);
        if self.by_request.get(id) == Some(&stream_id) {
            self.by_request.remove(id);
        }
        true
    }

    /// Whether the answer just pushed to `stream_id` is its only event (so
    /// the POST answered at once has nothing else to replay).
    pub(crate) fn only_the_answer(&self, stream_id: u64) -> bool {
        self.streams
            .get(&stream_id)
            .is_some_and(|s| s.done && s.next_seq == 2)
    }

    /// Attaches the POST that started the request to its stream: returns
    /// what was sent meanwhile (stored) and whether the stream is complete
    /// (answered, ended, or cut by the server). `None` if it was forgotten
    /// (the session ended).
    pub(crate) fn attach_post(
        &mut self,
        stream_id: u64,
        live: Option<mpsc::Sender<LiveItem>>,
    ) -> Option<(Replay, bool)> {
        let stream = self.streams.get_mut(&stream_id)?;
        let replay = if stream.next_seq > 1 {
            self.store.replay(
                &StreamKey {
                    session: self.session.clone(),
                    stream: stream_id,
                },
                0,
            )
        } else {
            Vec::new()
        };
        let complete = stream.done || stream.cut;
        if !complete {
            stream.live = live;
        }
        Some((replay, complete))
    }

    /// Detaches the HTTP response of the request's stream (SEP-1699 close).
    pub(crate) fn close_request_stream(
        &mut self,
        related: &RequestId,
    ) -> Option<mpsc::Sender<LiveItem>> {
        let stream_id = *self.by_request.get(related)?;
        let stream = self.streams.get_mut(&stream_id)?;
        // The POST now ends as an event stream; what follows is resumed.
        stream.json_answer = false;
        stream.cut = true;
        stream.live.take()
    }

    /// Ends the request's stream for good: no response will come (the
    /// request was cancelled). Returns the attached HTTP response to end.
    /// What it sent stays resumable for a while, like a finished stream's.
    pub(crate) fn end_request_stream(
        &mut self,
        related: &RequestId,
    ) -> Option<mpsc::Sender<LiveItem>> {
        let stream_id = *self.by_request.get(related)?;
        let stream = self.streams.get_mut(&stream_id)?;
        if stream.done {
            return None;
        }
        stream.done = true;
        let live = stream.live.take();
        self.finish(stream_id);
        live
    }

    /// Ends the HTTP response using `live` (its reader fell behind).
    pub(crate) fn detach(&mut self, live: &mpsc::Sender<LiveItem>) {
        for stream in self.streams.values_mut() {
            if stream.live.as_ref().is_some_and(|l| l.same_channel(live)) {
                stream.live = None;
                stream.json_answer = false;
            }
        }
    }

    /// Notes that `seq` reached the client of `stream_id`.
    pub(crate) fn delivered(&mut self, stream_id: u64, seq: u64) {
        if let Some(stream) = self.streams.get_mut(&stream_id) {
            stream.delivered = stream.delivered.max(seq);
        }
    }

    /// Attaches a GET response: to the standalone stream (`after` = `None`:
    /// everything not yet delivered) or, resuming, to the stream and point
    /// named by a `Last-Event-ID`. Returns the events to replay and whether
    /// the stream is already complete.
    pub(crate) fn attach(
        &mut self,
        stream_id: u64,
        after: Option<u64>,
        live: mpsc::Sender<LiveItem>,
    ) -> Result<(Replay, bool), AttachError> {
        let stream = stream_mut(&mut self.streams, stream_id, self.standalone)
            .ok_or(AttachError::Unknown)?;
        if stream.live.as_ref().is_some_and(|l| !l.is_closed()) {
            return Err(AttachError::Busy);
        }
        // Events now go to this GET's event stream, which may be resumed.
        stream.json_answer = false;
        let from = after.unwrap_or(stream.delivered);
        let replay = self.store.replay(
            &StreamKey {
                session: self.session.clone(),
                stream: stream_id,
            },
            from,
        );
        if !stream.done {
            stream.live = Some(live);
        }
        Ok((replay, stream.done))
    }

    /// The standalone (GET) stream's id.
    pub(crate) fn standalone(&self) -> u64 {
        self.standalone
    }

    /// The session's key for `stream` in the event store.
    pub(crate) fn store_key(&self, stream: u64) -> StreamKey {
        self.key(stream)
    }

    /// Whether `stream` was opened by another replica (its upper 32 bits
    /// name another replica) and the store is shared: it is resumed from
    /// the shared store.
    pub(crate) fn is_foreign(&self, stream: u64) -> bool {
        self.store.shared().is_some() && stream >> 32 != self.standalone >> 32
    }

    /// The store.
    pub(crate) fn store(&self) -> &Arc<dyn EventStore> {
        &self.store
    }

    /// Whether any HTTP response is attached (the session is in use).
    pub(crate) fn has_live(&self) -> bool {
        self.streams
            .values()
            .any(|s| s.live.as_ref().is_some_and(|l| !l.is_closed()))
    }

    fn key(&self, stream: u64) -> StreamKey {
        StreamKey {
            session: self.session.clone(),
            stream,
        }
    }

    /// Forgets every stream's events (the session ended).
    pub(crate) fn forget_all(&mut self) {
        for stream in self.streams.keys() {
            self.store.forget(&StreamKey {
                session: self.session.clone(),
                stream: *stream,
            });
        }
        self.streams.clear();
        self.by_request.clear();
    }

    fn finish(&mut self, stream_id: u64) {
        self.finished.push_back(stream_id);
        while self.finished.len() > self.finished_limit {
            if let Some(old) = self.finished.pop_front() {
                let request = self.streams.remove(&old).and_then(|s| s.request);
                // The id may name a newer stream by now.
                if let Some(id) = request {
                    if self.by_request.get(&id) == Some(&old) {
                        self.by_request.remove(&id);
                    }
                }
                self.store.forget(&self.key(old));
            }
        }
    }
}

/// The stream `stream_id`, the standalone one created if need be.
fn stream_mut(
    streams: &mut FastMap<u64, Stream>,
    stream_id: u64,
    standalone: u64,
) -> Option<&mut Stream> {
    if stream_id == standalone {
        return Some(streams.entry(standalone).or_insert_with(Stream::new));
    }
    streams.get_mut(&stream_id)
}

/// An event id, `<stream>/<seq>` (`<stream>/0` is a stream's priming
/// event), written on the stack: one is written for every event.
pub(crate) struct EventId {
    text: [u8; 41],
    len: usize,
}

impl EventId {
    pub(crate) fn new(stream_id: u64, seq: u64) -> Self {
        let mut id = Self {
            text: [0; 41],
            len: 0,
        };
        id.push(itoa::Buffer::new().format(stream_id).as_bytes());
        id.push(b"/");
        id.push(itoa::Buffer::new().format(seq).as_bytes());
        id
    }

    fn push(&mut self, bytes: &[u8]) {
        // Two u64s (20 digits each) and the slash always fit.
        if let Some(to) = self.text.get_mut(self.len..self.len + bytes.len()) {
            to.copy_from_slice(bytes);
            self.len += bytes.len();
        }
    }

    pub(crate) fn as_str(&self) -> &str {
        std::str::from_utf8(&self.text[..self.len]).unwrap_or_default()
    }
}

/// Parses a `Last-Event-ID`.
pub(crate) fn parse_event_id(id: &str) -> Option<(u64, u64)> {
    let (stream, seq) = id.split_once('/')?;
    Some((stream.parse().ok()?, seq.parse().ok()?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::InMemoryEventStore;

    #[test]
    fn routes_by_request_and_replays_after_a_close() {
        let mut streams = Streams::new("s".into(), Arc::new(InMemoryEventStore::new(16)), false);
        let (tx, mut rx) = mpsc::channel(8);
        let id = RequestId::Integer(1);
        let s = streams.open_request(id.clone(), Some(tx), false).unwrap();
        assert!(
            streams
                .open_request(id.clone(), Some(mpsc::channel(1).0), false)
                .is_none(),
            "id in use"
        );

        let (live, item) = streams.push(Some(&id), "progress".into(), false).unwrap();
        live.try_send(item).unwrap();
        assert!(matches!(
            rx.try_recv(),
            Ok(LiveItem::Event {
                seq: 1,
                last: false,
                ..
            })
        ));
        streams.delivered(s, 1);

        // The server closes the POST stream; the result arrives meanwhile.
        assert!(streams.close_request_stream(&id).is_some());
        assert!(streams.push(Some(&id), "result".into(), true).is_none());

        // The client resumes after event 1 and gets the result.
        let (tx2, _rx2) = mpsc::channel(8);
        let (replay, done) = streams.attach(s, Some(1), tx2).unwrap();
        assert_eq!(replay.len(), 1);
        assert_eq!(&*replay[0].1, "result");
        assert!(done);
    }

    #[test]
    fn a_lone_response_answered_as_json_is_not_kept() {
        let mut streams = Streams::new("s".into(), Arc::new(InMemoryEventStore::new(16)), false);
        let (tx, _rx) = mpsc::channel(8);
        let id = RequestId::Integer(1);
        let s = streams.open_request(id.clone(), Some(tx), true).unwrap();
        let (_, item) = streams.push(Some(&id), "result".into(), true).unwrap();
        assert!(matches!(
            item,
            LiveItem::Event {
                seq: 1,
                last: true,
                ..
            }
        ));
        // Nothing to resume: the stream is gone, and its id is free again.
        let (tx2, _rx2) = mpsc::channel(8);
        assert_eq!(
            streams.attach(s, Some(0), tx2).unwrap_err(),
            AttachError::Unknown
        );
        assert!(
            streams
                .open_request(id, Some(mpsc::channel(1).0), true)
                .is_some()
        );
    }

    #[test]
    fn a_response_after_the_post_stream_closed_is_kept_for_resumption() {
        let mut streams = Streams::new("s".into(), Arc::new(InMemoryEventStore::new(16)), false);
        let (tx, _rx) = mpsc::channel(8);
        let id = RequestId::Integer(1);
        let s = streams.open_request(id.clone(), Some(tx), true).unwrap();
        // The server closes the POST stream before anything was sent.
        assert!(streams.close_request_stream(&id).is_some());
        assert!(streams.push(Some(&id), "result".into(), true).is_none());
        let (tx2, _rx2) = mpsc::channel(8);
        let (replay, done) = streams.attach(s, Some(0), tx2).unwrap();
        assert_eq!(replay.len(), 1);
        assert!(done);
    }

    #[test]
    fn unrelated_messages_wait_for_a_get_stream() {
        let mut streams = Streams::new("s".into(), Arc::new(InMemoryEventStore::new(16)), false);
        assert!(streams.push(None, "note".into(), false).is_none());
        let (tx, _rx) = mpsc::channel(8);
        let (replay, done) = streams.attach(STANDALONE, None, tx).unwrap();
        assert_eq!((replay.len(), done), (1, false));
        let (tx2, _rx2) = mpsc::channel(8);
        assert_eq!(
            streams.attach(STANDALONE, None, tx2).unwrap_err(),
            AttachError::Busy
        );
        assert_eq!(
            streams.attach(99, None, mpsc::channel(1).0).unwrap_err(),
            AttachError::Unknown
        );
    }

    #[test]
    fn event_ids_round_trip() {
        assert_eq!(parse_event_id(EventId::new(3, 14).as_str()), Some((3, 14)));
        let max = EventId::new(u64::MAX, u64::MAX);
        assert_eq!(parse_event_id(max.as_str()), Some((u64::MAX, u64::MAX)));
        assert_eq!(parse_event_id("junk"), None);
    }
}
