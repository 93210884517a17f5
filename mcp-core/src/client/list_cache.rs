//! The opt-in cache of list results ([`ClientBuilder::cache_lists`](super::ClientBuilder::cache_lists)),
//! honouring the server's hints of 2026-07-28: a page is kept for its
//! `ttlMs` (none or 0: not kept). A client's cache is its own, one
//! authorization context, where `cacheScope` `private` and `public` may both
//! be reused; one is never shared between clients. A list-changed
//! notification drops that list's pages.

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

use serde::Deserialize;
use serde_json::value::RawValue;
use tokio::time::Instant;

use crate::schema::{ClientRequestMethod, ServerNotification};

/// Pages kept at most (the oldest are dropped first).
const MAX_PAGES: usize = 256;

type Key = (ClientRequestMethod, Option<String>);

#[derive(Default)]
pub(crate) struct ListCache(Mutex<HashMap<Key, (Instant, Box<RawValue>)>>);

/// The caching hints of a result.
#[derive(Deserialize)]
struct Hints<'a> {
    #[serde(rename = "ttlMs")]
    ttl_ms: Option<u64>,
    #[serde(rename = "cacheScope", borrow)]
    cache_scope: Option<std::borrow::Cow<'a, str>>,
}

impl ListCache {
    fn lock(&self) -> MutexGuard<'_, HashMap<Key, (Instant, Box<RawValue>)>> {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// A fresh page of `method` at `cursor`, if one is kept.
    pub(crate) fn get(
        &self,
        method: ClientRequestMethod,
        cursor: Option<&str>,
    ) -> Option<Box<RawValue>> {
        let mut pages = self.lock();
        let key = (method, cursor.map(str::to_string));
        match pages.get(&key) {
            Some((expires, page)) if Instant::now() < *expires => Some(page.clone()),
            Some(_) => {
                pages.remove(&key);
                None
            }
            None => None,
        }
    }

    /// Keeps `page` for as long as its `ttlMs` says.
    pub(crate) fn put(&self, method: ClientRequestMethod, cursor: Option<&str>, page: &RawValue) {
        let Ok(hints) = serde_json::from_str::<Hints<'_>>(page.get()) else {
            return;
        };
        let ttl = match hints.ttl_ms {
            Some(ms) if ms > 0 => Duration::from_millis(ms),
            _ => return,
        };
        // Either scope may be reused within this client's one authorization
        // context; a scope this client does not know is not cached.
        if !matches!(
            hints.cache_scope.as_deref(),
            None | Some("private" | "public")
        ) {
            return;
        }
        let Some(expires) = Instant::now().checked_add(ttl) else {
            return;
        };
        let mut pages = self.lock();
        if pages.len() >= MAX_PAGES {
            let now = Instant::now();
            pages.retain(|_, (expires, _)| *expires > now);
            if pages.len() >= MAX_PAGES {
                let oldest = pages
                    .iter()
                    .min_by_key(|(_, (expires, _))| *expires)
                    .map(|(key, _)| key.clone());
                if let Some(oldest) = oldest {
                    pages.remove(&oldest);
                }
            }
        }
        pages.insert(
            (method, cursor.map(str::to_string)),
            (expires, page.to_owned()),
        );
    }

    /// Drops the pages a list-changed notification makes stale.
    pub(crate) fn invalidate(&self, notification: &ServerNotification) {
        use ClientRequestMethod as M;
        let stale: &[ClientRequestMethod] = match notification {
            ServerNotification::ToolListChanged(_) => &[M::ListTools],
            ServerNotification::PromptListChanged(_) => &[M::ListPrompts],
            ServerNotification::ResourceListChanged(_) => {
                &[M::ListResources, M::ListResourceTemplates]
            }
            _ => return,
        };
        self.lock().retain(|(method, _), _| !stale.contains(method));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(text: &str) -> Box<RawValue> {
        RawValue::from_string(text.to_string()).unwrap()
    }

    #[tokio::test(start_paused = true)]
    async fn keeps_pages_for_their_ttl_only() {
        let cache = ListCache::default();
        let m = ClientRequestMethod::ListTools;
        cache.put(m, None, &raw(r#"{"tools":[],"ttlMs":1000}"#));
        cache.put(m, Some("c"), &raw(r#"{"tools":[],"ttlMs":0}"#));
        cache.put(
            ClientRequestMethod::ListPrompts,
            None,
            &raw(r#"{"prompts":[]}"#),
        );
        cache.put(
            ClientRequestMethod::ListResources,
            None,
            &raw(r#"{"resources":[],"ttlMs":5000,"cacheScope":"shared-somehow"}"#),
        );
        assert!(cache.get(m, None).is_some());
        assert!(cache.get(m, Some("c")).is_none(), "ttlMs 0 is never kept");
        assert!(cache.get(ClientRequestMethod::ListPrompts, None).is_none());
        assert!(
            cache
                .get(ClientRequestMethod::ListResources, None)
                .is_none()
        );
        tokio::time::advance(Duration::from_millis(1001)).await;
        assert!(cache.get(m, None).is_none(), "expired");
    }

    #[test]
    fn a_list_change_drops_that_list() {
        let cache = ListCache::default();
        let page = raw(r#"{"ttlMs":60000}"#);
        for m in [
            ClientRequestMethod::ListTools,
            ClientRequestMethod::ListPrompts,
            ClientRequestMethod::ListResources,
            ClientRequestMethod::ListResourceTemplates,
        ] {
            cache.put(m, None, &page);
        }
        let changed = ServerNotification::ResourceListChanged(
            crate::schema::ResourceListChangedNotification::new(),
        );
        cache.invalidate(&changed);
        assert!(
            cache
                .get(ClientRequestMethod::ListResources, None)
                .is_none()
        );
        assert!(
            cache
                .get(ClientRequestMethod::ListResourceTemplates, None)
                .is_none()
        );
        assert!(cache.get(ClientRequestMethod::ListTools, None).is_some());
        assert!(cache.get(ClientRequestMethod::ListPrompts, None).is_some());
    }
}
