//! The hash maps a request goes through (sessions, streams, stored events,
//! requests in progress by id) hash with foldhash instead of SipHash: a
//! request hashed its session id and request id several times, and SipHash
//! over a 32-character id costs hundreds of instructions each time. The
//! seed is random per map; the keys are ids this side made (sessions,
//! streams) or a client's request ids, of which a session holds few (its
//! requests in progress and its recently finished streams).

/// A `HashMap` with foldhash's randomly seeded fast hasher.
pub(crate) type FastMap<K, V> = std::collections::HashMap<K, V, foldhash::fast::RandomState>;
