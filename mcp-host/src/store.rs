//! The store an HTTP server keeps what its replicas share in, named by a
//! URL: `memory` (or nothing) for this process only, `redis://…` for Redis.

use mcp_core::Error;
use mcp_core::store::Stores;
use mcp_core::store::redis::RedisStore;

/// Where an HTTP server keeps sessions, stream events, tasks, changes and
/// the `requestState` key.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Store {
    /// In this process only (the default).
    #[default]
    Memory,
    /// Shared with the other replicas through Redis at this URL
    /// (`redis://HOST:PORT/DB`, `rediss://…`, with `user:password@` if
    /// needed).
    Redis(String),
}

impl Store {
    /// Parses a store URL: `""` or `memory` is [`Store::Memory`],
    /// `redis://…` and `rediss://…` are [`Store::Redis`]; anything else is
    /// [`Error::InvalidArgument`] naming the forms that are accepted.
    pub fn parse(url: &str) -> Result<Self, Error> {
        match url {
            "" | "memory" => Ok(Self::Memory),
            redis if redis.starts_with("redis://") || redis.starts_with("rediss://") => {
                Ok(Self::Redis(redis.to_string()))
            }
            other => Err(Error::InvalidArgument(format!(
                "store `{other}` is not a store URL: use redis://HOST:PORT/DB (or rediss://…), or memory"
            ))),
        }
    }

    /// Connects to the store: what the server shares with the other
    /// replicas, or `None` for [`Store::Memory`]. A store that does not
    /// answer is [`Error::Store`], naming it.
    pub async fn connect(&self) -> Result<Option<Stores>, Error> {
        let Self::Redis(url) = self else {
            return Ok(None);
        };
        let store = RedisStore::connect(url).await?;
        Ok(Some(store.replica_stores().await?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memory_redis_or_a_clear_error() {
        assert_eq!(Store::parse("").ok(), Some(Store::Memory));
        assert_eq!(Store::parse("memory").ok(), Some(Store::Memory));
        assert_eq!(
            Store::parse("rediss://u:p@h:1/0").ok(),
            Some(Store::Redis("rediss://u:p@h:1/0".into()))
        );
        let error = Store::parse("postgres://h/db").err().map(|e| e.to_string());
        assert_eq!(
            error.as_deref(),
            Some(
                "invalid argument: store `postgres://h/db` is not a store URL: use redis://HOST:PORT/DB (or rediss://…), or memory"
            )
        );
    }
}
