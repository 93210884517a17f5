//! Tasks in Redis: `task:<id>` holds the record's text (its expiry the
//! task's, so Redis deletes it on time), `tasks:<owner>` a sorted set of the
//! owner's task ids by creation time (for `tasks/list`; ids whose record
//! expired are dropped from it when listed). Every write is acknowledged by
//! Redis before the caller goes on, so a result the store took is kept
//! whichever replica dies. A change is a compare-and-set (a Lua script),
//! retried on a fresher copy when another replica wrote in between.

use std::time::{SystemTime, UNIX_EPOCH};

use async_trait::async_trait;
use redis::AsyncCommands;

use super::{RedisStore, ttl_ms};
use crate::schema::Task;
use crate::store::{StoreError, StoreResult, TaskChange, TaskRecord, TaskStore};

/// Stores a new record (only if absent) and indexes it under its owner;
/// the index lives as long as its longest-lived task.
/// KEYS: record, index. ARGV: text, ttl ms (0: none), score, id.
const INSERT: &str = r"
if not redis.call('SET', KEYS[1], ARGV[1], 'NX') then return 0 end
local ttl = tonumber(ARGV[2])
if ttl > 0 then redis.call('PEXPIRE', KEYS[1], ttl) end
local fresh = redis.call('EXISTS', KEYS[2]) == 0
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[4])
if ttl == 0 then
  redis.call('PERSIST', KEYS[2])
else
  local left = redis.call('PTTL', KEYS[2])
  if fresh or (left >= 0 and left < ttl) then redis.call('PEXPIRE', KEYS[2], ttl) end
end
return 1";

/// Replaces the record only if it is still what was read (its expiry kept).
/// KEYS: record. ARGV: text read, new text.
const SWAP: &str = r"
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2], 'KEEPTTL')
return 1";

/// How many times a change is tried on a fresher copy before giving up.
const SWAP_ATTEMPTS: usize = 32;

fn millis_since_epoch(at: SystemTime) -> u64 {
    at.duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

impl RedisStore {
    fn task_key(&self, task_id: &str) -> String {
        self.key("task", task_id)
    }

    fn unreadable(&self, message: String) -> StoreError {
        StoreError {
            store: self.inner.name.clone(),
            message,
        }
    }

    /// The record of `task_id` as text and decoded, if it is `owner`'s and
    /// alive.
    async fn read_task(
        &self,
        owner: &str,
        task_id: &str,
    ) -> StoreResult<Option<(String, TaskRecord)>> {
        let text: Option<String> = self
            .connection()
            .get(self.task_key(task_id))
            .await
            .map_err(|e| self.error(&e))?;
        let Some(text) = text else { return Ok(None) };
        let record = TaskRecord::decode(&text).map_err(|m| self.unreadable(m))?;
        Ok((record.owner == owner && record.is_live(SystemTime::now())).then_some((text, record)))
    }
}

#[async_trait]
impl TaskStore for RedisStore {
    async fn insert(&self, record: TaskRecord) -> StoreResult<()> {
        let now = SystemTime::now();
        // 0: no expiry; a record already expired still lives a millisecond.
        let ttl = record.remaining(now).map_or(0, ttl_ms);
        let id = record.task.task_id.clone();
        let inserted: i64 = redis::cmd("EVAL")
            .arg(INSERT)
            .arg(2)
            .arg(self.task_key(&id))
            .arg(self.key("tasks", &record.owner))
            .arg(record.encode())
            .arg(ttl)
            .arg(millis_since_epoch(now))
            .arg(&id)
            .query_async(&mut self.connection())
            .await
            .map_err(|e| self.error(&e))?;
        if inserted == 1 {
            Ok(())
        } else {
            Err(self.unreadable(format!("task {id} exists already")))
        }
    }

    async fn get(&self, owner: &str, task_id: &str) -> StoreResult<Option<TaskRecord>> {
        Ok(self
            .read_task(owner, task_id)
            .await?
            .map(|(_, record)| record))
    }

    async fn update(
        &self,
        owner: &str,
        task_id: &str,
        change: TaskChange<'_>,
    ) -> StoreResult<Option<(TaskRecord, bool)>> {
        for _ in 0..SWAP_ATTEMPTS {
            let Some((text, mut record)) = self.read_task(owner, task_id).await? else {
                return Ok(None);
            };
            if !change(&mut record) {
                return Ok(Some((record, false)));
            }
            let swapped: i64 = redis::cmd("EVAL")
                .arg(SWAP)
                .arg(1)
                .arg(self.task_key(task_id))
                .arg(&text)
                .arg(record.encode())
                .query_async(&mut self.connection())
                .await
                .map_err(|e| self.error(&e))?;
            if swapped == 1 {
                return Ok(Some((record, true)));
            }
        }
        Err(self.unreadable(format!(
            "task {task_id} kept changing under {SWAP_ATTEMPTS} attempts to change it"
        )))
    }

    async fn list(&self, owner: &str) -> StoreResult<Vec<Task>> {
        let index = self.key("tasks", owner);
        let mut connection = self.connection();
        let ids: Vec<String> = connection
            .zrange(&index, 0, -1)
            .await
            .map_err(|e| self.error(&e))?;
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let keys: Vec<String> = ids.iter().map(|id| self.task_key(id)).collect();
        let texts: Vec<Option<String>> = redis::cmd("MGET")
            .arg(&keys)
            .query_async(&mut connection)
            .await
            .map_err(|e| self.error(&e))?;
        let now = SystemTime::now();
        let mut tasks = Vec::with_capacity(ids.len());
        let mut gone = Vec::new();
        for (id, text) in ids.iter().zip(texts) {
            match text.map(|t| TaskRecord::decode(&t)) {
                Some(Ok(record)) if record.owner == owner && record.is_live(now) => {
                    tasks.push(record.task);
                }
                Some(Ok(_)) => {}
                None | Some(Err(_)) => gone.push(id.clone()),
            }
        }
        if !gone.is_empty() {
            // Tidying only: a failure leaves them for the next listing.
            let _: redis::RedisResult<i64> = connection.zrem(&index, gone).await;
        }
        Ok(tasks)
    }

    async fn remove_expired(&self, _now: SystemTime) -> StoreResult<usize> {
        // Redis deletes expired records by itself.
        Ok(0)
    }
}
