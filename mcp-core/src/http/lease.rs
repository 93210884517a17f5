//! Session leases between replicas: a replica that read a session's record
//! from the session store serves the session's next requests without
//! asking the store again, for as long as it is sure no replica changed or
//! deleted the session meanwhile. Without them every request costs a store
//! round trip; with them only the first on each replica does (and one in
//! the background per second, which pushes the record's expiry back).
//!
//! How a replica is sure, on the bus topic `sessions`:
//! - Every replica sends a beat every 250 ms, stamped with its own clock.
//!   It trusts its leases only until 1 s after sending the last beat it
//!   heard back, so a replica whose bus is silent stops trusting them.
//! - A replica that changes a session's record (log level, subscriptions,
//!   the handshake's end) or deletes it says so on the bus, then waits, before
//!   answering the request that did it, until every replica heard within
//!   the last 2 s acknowledged — or 1.5 s have passed since the bus took the
//!   note, by which time one that did not hear it has stopped trusting.
//!   A replica that hears the note voids its lease first, then acknowledges.
//! - The bus delivers one topic in order and says where messages may have
//!   been lost ([`Heard::Gap`]): a gap voids every lease of the replica.
//! - A lease is granted only if no note was heard while its record was being
//!   read, and lasts half the idle timeout from when the read was sent (the
//!   store keeps the record a whole idle timeout from when it got the read).
//!
//! So the request after a DELETE or a change gets 404 or the new record on
//! every replica, as it did when every request read the store.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, Weak};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use tokio::sync::oneshot;

use super::State;
use super::session::{HttpSession, lock};
use crate::store::{Bus, Heard, SessionStore};

/// The bus topic of beats, changes of sessions and acknowledgements.
const TOPIC: &str = "sessions";
/// How often a replica sends a beat.
const BEAT: Duration = Duration::from_millis(250);
/// How long after sending a beat it heard back a replica trusts its leases.
const TRUST: Duration = Duration::from_secs(1);
/// Replicas whose beat was heard this recently are waited for.
const LIVE: Duration = Duration::from_secs(2);
/// How long a change waits for acknowledgements once the bus took it: longer
/// than [`TRUST`], so that a replica that did not hear it stopped trusting.
const ACK_WAIT: Duration = Duration::from_millis(1500);
/// How often, at most, a session served on a lease reads its record again
/// (which pushes its expiry back in the store).
const RENEW: Duration = Duration::from_secs(1);

/// Bits of a lease's expiry (milliseconds); the generation is above them.
const UNTIL_BITS: u32 = 48;
const UNTIL_MASK: u64 = (1 << UNTIL_BITS) - 1;

/// Milliseconds since this process first asked (the clock of leases and
/// beats).
pub(super) fn now_ms() -> u64 {
    static BASE: OnceLock<Instant> = OnceLock::new();
    let elapsed = BASE.get_or_init(Instant::now).elapsed().as_millis();
    u64::try_from(elapsed).unwrap_or(u64::MAX) & UNTIL_MASK
}

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// One session's lease on one replica.
#[derive(Debug, Default)]
pub(crate) struct Lease {
    /// `generation << 48 | until` (milliseconds of [`now_ms`]); 0: none.
    held: AtomicU64,
    /// When the record was last asked for ([`now_ms`]).
    asked: AtomicU64,
    /// A background read is under way.
    renewing: AtomicBool,
}

/// What replicas say to each other about sessions.
#[derive(Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(tag = "kind", rename_all = "camelCase")]
enum Note {
    /// `from` is there; `sent` is its own clock ([`now_ms`]).
    Beat { from: u64, sent: u64 },
    /// `from` changed `session`'s record and waits for acknowledgements
    /// (none if `ask` is 0).
    Changed {
        from: u64,
        ask: u64,
        session: String,
    },
    /// `from` deleted `session` and waits for acknowledgements.
    Deleted {
        from: u64,
        ask: u64,
        session: String,
    },
    /// `from` voided its lease for `to`'s change `ask`.
    Ack { from: u64, to: u64, ask: u64 },
}

/// This replica's leases (one per HTTP server with a session store and a
/// bus).
#[derive(Debug)]
pub(crate) struct Leases {
    /// Names this HTTP server on the bus.
    origin: u64,
    bus: Arc<dyn Bus>,
    /// How long a lease lasts after its read was sent, in milliseconds.
    length: u64,
    /// How often a leased session reads its record again, in milliseconds.
    renew_every: u64,
    /// Until when ([`now_ms`]) leases may be trusted; 0 after a gap.
    trusted_until: AtomicU64,
    /// Bumped by a gap: every lease of an older generation is void.
    generation: AtomicU64,
    /// Bumped by every change heard: a read that saw one grants no lease.
    epoch: AtomicU64,
    /// Numbers this replica's changes.
    asks: AtomicU64,
    book: Mutex<Book>,
}

#[derive(Debug, Default)]
struct Book {
    /// The other replicas heard, and when.
    heard: HashMap<u64, Instant>,
    /// This replica's changes waiting for acknowledgements.
    pending: HashMap<u64, Pending>,
}

#[derive(Debug, Default)]
struct Pending {
    /// Who must acknowledge (known once the change came back on the bus:
    /// every replica heard before it).
    awaiting: Option<HashSet<u64>>,
    acked: HashSet<u64>,
    done: Option<oneshot::Sender<()>>,
}

impl Pending {
    fn finish_if_complete(&mut self) {
        if self
            .awaiting
            .as_ref()
            .is_some_and(|awaiting| awaiting.is_subset(&self.acked))
        {
            if let Some(done) = self.done.take() {
                let _ = done.send(());
            }
        }
    }
}

impl Leases {
    /// Leases for sessions kept `idle_timeout` in the store.
    pub(super) fn new(origin: u64, bus: Arc<dyn Bus>, idle_timeout: Duration) -> Self {
        Self {
            origin,
            bus,
            length: millis(idle_timeout / 2),
            renew_every: millis(RENEW.min(idle_timeout / 4)),
            trusted_until: AtomicU64::new(0),
            generation: AtomicU64::new(0),
            epoch: AtomicU64::new(0),
            asks: AtomicU64::new(0),
            book: Mutex::default(),
        }
    }

    fn generation_bits(&self) -> u64 {
        (self.generation.load(Ordering::SeqCst) & 0xffff) << UNTIL_BITS
    }

    /// Whether `lease` may be trusted now.
    pub(super) fn valid(&self, lease: &Lease) -> bool {
        let now = now_ms();
        let held = lease.held.load(Ordering::SeqCst);
        now < self.trusted_until.load(Ordering::SeqCst)
            && held & !UNTIL_MASK == self.generation_bits()
            && now < held & UNTIL_MASK
    }

    /// What a read of the store must find unchanged to grant a lease.
    pub(super) fn epoch(&self) -> u64 {
        self.epoch.load(Ordering::SeqCst)
    }

    /// Grants `lease` for a record read at `asked` ([`now_ms`]), unless a
    /// change was heard since `epoch`.
    pub(super) fn grant(&self, lease: &Lease, epoch: u64, asked: u64) {
        // Under the book's lock: a change heard voids the lease after
        // bumping the epoch, so the two cannot interleave.
        let _book = lock(&self.book);
        if self.epoch.load(Ordering::SeqCst) == epoch {
            let until = (asked + self.length).min(UNTIL_MASK);
            lease
                .held
                .store(self.generation_bits() | until, Ordering::SeqCst);
            lease.asked.store(asked, Ordering::SeqCst);
        }
    }

    /// Voids `lease` (its session changed or went), or only bumps the epoch.
    fn heard_change(&self, lease: Option<&Lease>) {
        let _book = lock(&self.book);
        self.epoch.fetch_add(1, Ordering::SeqCst);
        if let Some(lease) = lease {
            lease.held.store(0, Ordering::SeqCst);
        }
    }

    /// Messages may have been lost: no lease held now may be trusted.
    fn gap(&self) {
        let _book = lock(&self.book);
        self.generation.fetch_add(1, Ordering::SeqCst);
        self.epoch.fetch_add(1, Ordering::SeqCst);
        self.trusted_until.store(0, Ordering::SeqCst);
    }

    fn beat_heard(&self, from: u64, sent: u64) {
        if from == self.origin {
            self.trusted_until
                .fetch_max(sent.saturating_add(millis(TRUST)), Ordering::SeqCst);
        } else {
            let mut book = lock(&self.book);
            if book.heard.insert(from, Instant::now()).is_none() {
                // A replica not heard before: forget those long gone.
                book.heard.retain(|_, at| at.elapsed() < LIVE);
            }
        }
    }

    /// One of this replica's changes came back: every replica heard before
    /// it must acknowledge.
    fn echoed(&self, ask: u64) {
        let mut book = lock(&self.book);
        book.heard.retain(|_, at| at.elapsed() < LIVE);
        let live: HashSet<u64> = book.heard.keys().copied().collect();
        if let Some(pending) = book.pending.get_mut(&ask) {
            pending.awaiting = Some(live);
            pending.finish_if_complete();
        }
    }

    fn acked(&self, from: u64, ask: u64) {
        if let Some(pending) = lock(&self.book).pending.get_mut(&ask) {
            pending.acked.insert(from);
            pending.finish_if_complete();
        }
    }

    /// Tells every replica that `session` changed without waiting for
    /// them: for a change no request depends on (the handshake's end).
    pub(super) async fn hint(&self, session: &str) {
        let note = Note::Changed {
            from: self.origin,
            ask: 0,
            session: session.to_string(),
        };
        if let Ok(text) = serde_json::to_string(&note) {
            if let Err(e) = self.bus.publish(TOPIC, text).await {
                tracing::debug!("other replicas did not hear of a session's change: {e}");
            }
        }
    }

    /// Tells every replica that `session` changed (or was `deleted`), and
    /// returns once none of them can serve it on a lease taken before.
    pub(super) async fn announce(&self, session: &str, deleted: bool) {
        let ask = self.asks.fetch_add(1, Ordering::Relaxed) + 1;
        let (done, acknowledged) = oneshot::channel();
        lock(&self.book).pending.insert(
            ask,
            Pending {
                done: Some(done),
                ..Pending::default()
            },
        );
        let (from, session) = (self.origin, session.to_string());
        let note = if deleted {
            Note::Deleted { from, ask, session }
        } else {
            Note::Changed { from, ask, session }
        };
        let published = match serde_json::to_string(&note) {
            Ok(text) => self.bus.publish(TOPIC, text).await,
            Err(_) => Ok(()),
        };
        match published {
            Ok(()) => {
                let _ = tokio::time::timeout(ACK_WAIT, acknowledged).await;
            }
            Err(e) => {
                // The bus is away, so no replica hears its own beats either:
                // each stops trusting its leases within TRUST.
                tracing::warn!("other replicas did not hear of a session's change: {e}");
                tokio::time::sleep(ACK_WAIT).await;
            }
        }
        lock(&self.book).pending.remove(&ask);
    }

    /// Reads `session`'s record again in the background if its lease is due
    /// for it: that pushes its expiry back in the store and extends the
    /// lease, or ends the session if the store no longer has it.
    pub(super) fn renew_if_due(
        self: &Arc<Self>,
        store: &Arc<dyn SessionStore>,
        ttl: Duration,
        session: &Arc<HttpSession>,
    ) {
        let lease = &session.lease;
        if now_ms().saturating_sub(lease.asked.load(Ordering::SeqCst)) < self.renew_every
            || lease.renewing.swap(true, Ordering::AcqRel)
        {
            return;
        }
        let (leases, store, session) = (self.clone(), store.clone(), session.clone());
        tokio::spawn(async move {
            leases.reread(&*store, ttl, &session).await;
            session.lease.renewing.store(false, Ordering::Release);
        });
    }

    /// Reads `session`'s record, makes the session what it says (or ends
    /// it), and grants a lease if nothing changed meanwhile.
    async fn reread(&self, store: &dyn SessionStore, ttl: Duration, session: &HttpSession) {
        let epoch = self.epoch();
        let asked = now_ms();
        match store.load(&session.id, ttl).await {
            Ok(Some(record)) => match session.refresh(record) {
                Ok(()) => self.grant(&session.lease, epoch, asked),
                Err(e) => tracing::warn!("session {}: {e}", session.id),
            },
            Ok(None) => session.terminate(),
            Err(e) => tracing::debug!("session {} not read again: {e}", session.id),
        }
    }

    /// Sends a note, in the background (the follower must not wait on it).
    fn send(self: &Arc<Self>, note: &Note) {
        let Ok(text) = serde_json::to_string(note) else {
            return;
        };
        let bus = self.bus.clone();
        tokio::spawn(async move {
            if let Err(e) = bus.publish(TOPIC, text).await {
                tracing::debug!("a session note was not sent: {e}");
            }
        });
    }
}

/// Sends this replica's beats and acts on what the others say, until the
/// server is gone.
pub(super) fn follow(state: &Arc<State>, leases: Arc<Leases>) {
    let mut notes = leases.bus.subscribe(TOPIC);
    let beats = Arc::downgrade(&leases);
    tokio::spawn(async move {
        while let Some(leases) = beats.upgrade() {
            let note = Note::Beat {
                from: leases.origin,
                sent: now_ms(),
            };
            if let Ok(text) = serde_json::to_string(&note) {
                if let Err(e) = leases.bus.publish(TOPIC, text).await {
                    tracing::debug!("beat not sent: {e}");
                }
            }
            drop(leases);
            tokio::time::sleep(BEAT).await;
        }
    });
    let state = Arc::downgrade(state);
    tokio::spawn(async move {
        while let Some(heard) = notes.recv().await {
            let Some(state) = state.upgrade() else { return };
            let Some(leases) = &state.leases else { return };
            let note = match heard {
                Heard::Gap => {
                    leases.gap();
                    continue;
                }
                Heard::Message(text) => match serde_json::from_str::<Note>(&text) {
                    Ok(note) => note,
                    Err(_) => {
                        tracing::debug!("ignoring a session note this version cannot read");
                        continue;
                    }
                },
            };
            heard_note(&state, leases, note);
        }
    });
}

fn heard_note(state: &Arc<State>, leases: &Arc<Leases>, note: Note) {
    match note {
        Note::Beat { from, sent } => leases.beat_heard(from, sent),
        Note::Ack { from, to, ask } if to == leases.origin => leases.acked(from, ask),
        Note::Ack { .. } => {}
        Note::Changed { from, ask, .. } | Note::Deleted { from, ask, .. }
            if from == leases.origin =>
        {
            leases.echoed(ask);
        }
        Note::Changed { from, ask, session } => {
            let held = lock(&state.sessions).get(&session).cloned();
            leases.heard_change(held.as_ref().map(|s| &s.lease));
            if ask != 0 {
                leases.send(&Note::Ack {
                    from: leases.origin,
                    to: from,
                    ask,
                });
            }
            // A session held here (its GET stream, say) takes the new
            // record at once: its subscriptions and level.
            if let (Some(session), Some(store)) = (held, state.config.session_store.clone()) {
                let (leases, ttl) = (leases.clone(), state.config.idle_timeout);
                let state = Arc::downgrade(state);
                tokio::spawn(async move {
                    leases.reread(&*store, ttl, &session).await;
                    if session.closed().is_cancelled() {
                        forget(&state, &session);
                    }
                });
            }
        }
        Note::Deleted { from, ask, session } => {
            let held = lock(&state.sessions).remove(&session);
            leases.heard_change(held.as_ref().map(|s| &s.lease));
            if let Some(session) = held {
                session.terminate();
            }
            leases.send(&Note::Ack {
                from: leases.origin,
                to: from,
                ask,
            });
        }
    }
}

/// Drops `session` from this replica's map if it is still the one there.
fn forget(state: &Weak<State>, session: &Arc<HttpSession>) {
    if let Some(state) = state.upgrade() {
        let mut sessions = lock(&state.sessions);
        if sessions
            .get(&session.id)
            .is_some_and(|s| Arc::ptr_eq(s, session))
        {
            sessions.remove(&session.id);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::InMemoryBus;

    fn leases() -> Leases {
        Leases::new(1, Arc::new(InMemoryBus::new()), Duration::from_secs(60))
    }

    #[test]
    fn notes_read_back() {
        let note = Note::Changed {
            from: 1,
            ask: 2,
            session: "s".into(),
        };
        let text = serde_json::to_string(&note).unwrap();
        assert_eq!(serde_json::from_str::<Note>(&text).unwrap(), note);
    }

    #[test]
    fn a_lease_needs_a_beat_heard_back_and_no_gap_or_change() {
        let leases = leases();
        let lease = Lease::default();
        leases.grant(&lease, leases.epoch(), now_ms());
        assert!(!leases.valid(&lease), "no beat heard back yet");
        leases.beat_heard(1, now_ms());
        assert!(leases.valid(&lease));
        // Another replica's beat does not make this one trusted.
        leases.gap();
        leases.beat_heard(2, now_ms());
        assert!(!leases.valid(&lease));
        // A gap voids the leases held before it, not the later ones.
        leases.beat_heard(1, now_ms());
        assert!(!leases.valid(&lease));
        leases.grant(&lease, leases.epoch(), now_ms());
        assert!(leases.valid(&lease));
        leases.heard_change(Some(&lease));
        assert!(!leases.valid(&lease));
        // A read that overlapped a change grants nothing.
        let epoch = leases.epoch();
        leases.heard_change(None);
        leases.grant(&lease, epoch, now_ms());
        assert!(!leases.valid(&lease));
    }

    #[test]
    fn a_beat_heard_late_trusts_only_from_when_it_was_sent() {
        let leases = leases();
        let lease = Lease::default();
        let trust = millis(TRUST) + 10;
        // This clock starts with the process: let it pass the trust window.
        std::thread::sleep(Duration::from_millis(trust.saturating_sub(now_ms())));
        leases.grant(&lease, leases.epoch(), now_ms());
        leases.beat_heard(1, now_ms() - trust);
        assert!(!leases.valid(&lease));
        leases.beat_heard(1, now_ms());
        assert!(leases.valid(&lease));
    }

    #[test]
    fn a_lease_ends_with_its_length() {
        let leases = Leases::new(1, Arc::new(InMemoryBus::new()), Duration::ZERO);
        let lease = Lease::default();
        leases.beat_heard(1, now_ms());
        leases.grant(&lease, leases.epoch(), now_ms());
        assert!(!leases.valid(&lease));
    }

    #[test]
    fn a_change_completes_once_every_replica_heard_before_it_acknowledged() {
        let leases = leases();
        leases.beat_heard(2, now_ms());
        leases.beat_heard(3, now_ms());
        let (done, mut acknowledged) = oneshot::channel();
        lock(&leases.book).pending.insert(
            7,
            Pending {
                done: Some(done),
                ..Pending::default()
            },
        );
        // An acknowledgement may come before the echo.
        leases.acked(2, 7);
        leases.echoed(7);
        assert!(acknowledged.try_recv().is_err());
        leases.acked(3, 6);
        assert!(acknowledged.try_recv().is_err());
        leases.acked(3, 7);
        assert!(acknowledged.try_recv().is_ok());
    }
}
