//! The hash maps a request goes through (sessions, streams, stored events,
//! requests in progress by id, a server's tools, resources and prompts by
//! name) hash with foldhash instead of SipHash: a request hashed its
//! session id and request id several times, and SipHash over a
//! 32-character id costs hundreds of instructions each time. The seed is
//! random per map; the keys are ids this side made (sessions, streams),
//! names the server registered, or a client's request ids, of which a
//! session holds few (its requests in progress and its recently finished
//! streams).

/// A `HashMap` with foldhash's randomly seeded fast hasher.
pub(crate) type FastMap<K, V> = std::collections::HashMap<K, V, foldhash::fast::RandomState>;

/// An `IndexMap` (insertion order kept: lists are served in it) with the
/// same hasher.
#[cfg(feature = "server")]
pub(crate) type FastIndexMap<K, V> = indexmap::IndexMap<K, V, foldhash::fast::RandomState>;
