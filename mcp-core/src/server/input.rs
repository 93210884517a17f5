//! Input-required rounds (2026-07-28, "MRTR"): a handler that asks the
//! client for input (elicitation, sampling, roots) is written once, as under
//! 2025-11-25; in a request that stands alone its questions become an
//! `InputRequiredResult`, and the client's retry runs the handler again from
//! the start with the answers.
//!
//! **How progress is kept between rounds.** Nothing is kept on the server:
//! the handler is re-run, and each question it asks is answered from the
//! answers gathered so far — the retry's `inputResponses` plus every earlier
//! round's, carried in the sealed `requestState` ([`super::request_state`]).
//! A question without an answer never completes; once the handler is
//! waiting on nothing else, the round ends with every unanswered question
//! asked at once. Cost: a handler runs once per round (its work before the
//! first question is repeated), and the state grows with the answers; in
//! exchange any replica can serve any round and nothing expires on the
//! server. Handlers must ask the same questions, under the same keys, given
//! the same answers.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::task::{Context as TaskContext, Poll, Waker};

use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{Map, Value, json};

use super::request_state::{self, RequestStateKey, RoundState};
use crate::jsonrpc::{ErrorCode, RpcError};
use crate::session::RequestFuture;

/// One round of one request: the answers it has, and the questions and
/// missing capabilities its handler ran into.
#[derive(Debug)]
pub(crate) struct InputRound {
    answers: Map<String, Value>,
    /// What the client sent in this retry (`inputResponses`), as sent.
    responses: Option<Map<String, Value>>,
    /// What the handler carried over from its previous round.
    carried: Option<Value>,
    /// What a sealed `requestState` is bound to: the method and its params
    /// (computed when first needed — most rounds never seal a state).
    binding: std::sync::OnceLock<String>,
    method: &'static str,
    params: Option<Box<str>>,
    key: RequestStateKey,
    next_auto: AtomicUsize,
    asked: Mutex<Asked>,
    /// Set when the request became a task of the tasks extension: the
    /// handler's later questions wait in that task's `inputRequests`.
    task: std::sync::OnceLock<super::context::TaskLink>,
}

#[derive(Debug, Default)]
struct Asked {
    questions: Vec<(String, Value)>,
    missing: Option<Map<String, Value>>,
    carry: Option<Value>,
    waker: Option<Waker>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The binding of a request's `requestState` to its method and params.
fn bind(method: &str, params: Option<&str>) -> String {
    let value = params
        .and_then(|text| serde_json::from_str(text).ok())
        .unwrap_or_else(|| Value::Object(Map::new()));
    request_state::binding(method, &value)
}

/// The round fields of a request's params.
#[derive(Deserialize, Default)]
struct RoundParams {
    #[serde(rename = "inputResponses", default)]
    responses: Option<Value>,
    #[serde(rename = "requestState")]
    state: Option<String>,
}

impl InputRound {
    /// The round a request is in: its `requestState` opened (refused with
    /// -32602 if it is not one this server sealed for this request) and its
    /// `inputResponses` added to the answers. `present`: whether the params
    /// hold either field, if the caller already knows.
    pub(crate) fn start(
        method: &'static str,
        params: Option<&str>,
        present: Option<bool>,
        key: RequestStateKey,
    ) -> Result<Self, RpcError> {
        // The round fields alone are read here; the params as a whole only
        // when a state is opened or sealed (the binding).
        let round: RoundParams = match params {
            // Most requests are a first round: when the params hold neither
            // field (or their text names neither, and has no escape that
            // could spell one), skip the parse.
            Some(text) if present.unwrap_or_else(|| names_round_fields(text)) => {
                serde_json::from_str(text).map_err(RpcError::invalid_params)?
            }
            _ => RoundParams::default(),
        };
        let binding = std::sync::OnceLock::new();
        let previous = match &round.state {
            Some(text) => {
                let bound = binding.get_or_init(|| bind(method, params));
                request_state::open(&key, text, bound)?
            }
            None => RoundState::default(),
        };
        let responses = match round.responses {
            None | Some(Value::Null) => None,
            Some(Value::Object(map)) => Some(map),
            Some(_) => {
                return Err(RpcError::invalid_params(
                    "`inputResponses` must be an object keyed by input request",
                ));
            }
        };
        let mut answers = previous.answers;
        if let Some(new) = &responses {
            for (k, v) in new {
                // Only an object can answer a question; anything else leaves
                // it unanswered, so it is asked again.
                if v.is_object() {
                    answers.insert(k.clone(), v.clone());
                }
            }
        }
        Ok(Self {
            answers,
            responses,
            carried: previous.handler,
            binding,
            method,
            params: params.map(Box::from),
            key,
            next_auto: AtomicUsize::new(0),
            asked: Mutex::new(Asked::default()),
            task: std::sync::OnceLock::new(),
        })
    }

    /// Whether the handler asked something this round cannot answer (or
    /// needs a capability the client lacks): the round ends with that.
    pub(crate) fn is_waiting_on_the_client(&self) -> bool {
        let asked = lock(&self.asked);
        !asked.questions.is_empty() || asked.missing.is_some()
    }

    /// Hands the handler's later questions to `task` (the request became it).
    pub(crate) fn became(&self, task: super::context::TaskLink) {
        let _ = self.task.set(task);
    }

    /// The task the request became, if it did.
    pub(crate) fn task(&self) -> Option<&super::context::TaskLink> {
        self.task.get()
    }

    /// The key of a question asked without one: the n-th of its kind.
    pub(crate) fn auto_key(&self, kind: &str) -> String {
        format!("{kind}-{}", self.next_auto.fetch_add(1, Ordering::Relaxed))
    }

    /// The answer to the question `key`, if the client gave one.
    pub(crate) fn answer(&self, key: &str) -> Option<&Value> {
        self.answers.get(key)
    }

    /// What the client sent with this retry, as sent.
    pub(crate) fn responses(&self) -> Option<&Map<String, Value>> {
        self.responses.as_ref()
    }

    /// What the handler carried over from its previous round.
    pub(crate) fn carried(&self) -> Option<&Value> {
        self.carried.as_ref()
    }

    /// Carries `value` to the handler's next round.
    pub(crate) fn carry(&self, value: Value) {
        lock(&self.asked).carry = Some(value);
    }

    /// Records an unanswered question (`request` is `{method, params}`).
    pub(crate) fn ask(&self, key: String, request: Value) {
        let mut asked = lock(&self.asked);
        if !asked.questions.iter().any(|(k, _)| *k == key) {
            asked.questions.push((key, request));
        }
        if let Some(waker) = asked.waker.take() {
            waker.wake();
        }
    }

    /// Records that a question needs a capability the client did not
    /// declare (`capability` as in `requiredCapabilities`, e.g. `sampling`).
    pub(crate) fn require(&self, capability: &str) {
        let mut asked = lock(&self.asked);
        asked
            .missing
            .get_or_insert_with(Map::new)
            .insert(capability.to_string(), json!({}));
        if let Some(waker) = asked.waker.take() {
            waker.wake();
        }
    }

    /// How the round ends now, if it does: -32021 for a missing capability,
    /// or the questions asked.
    fn ending(&self, waker: &Waker) -> Option<Result<Box<RawValue>, RpcError>> {
        let mut asked = lock(&self.asked);
        if let Some(missing) = asked.missing.take() {
            return Some(Err(missing_error(missing)));
        }
        if asked.questions.is_empty() {
            asked.waker = Some(waker.clone());
            return None;
        }
        let questions = std::mem::take(&mut asked.questions);
        let carry = asked.carry.take();
        drop(asked);
        Some(self.input_required(questions, carry))
    }

    /// -32021 if the handler needed a capability the client lacks.
    fn missing_capability(&self) -> Option<RpcError> {
        lock(&self.asked).missing.take().map(missing_error)
    }

    fn input_required(
        &self,
        questions: Vec<(String, Value)>,
        carry: Option<Value>,
    ) -> Result<Box<RawValue>, RpcError> {
        let state = RoundState {
            binding: self
                .binding
                .get_or_init(|| bind(self.method, self.params.as_deref()))
                .clone(),
            expires: request_state::expiry(),
            answers: self.answers.clone(),
            handler: carry.or_else(|| self.carried.clone()),
        };
        let requests: Map<String, Value> = questions.into_iter().collect();
        let result = json!({
            "resultType": "input_required",
            "inputRequests": requests,
            "requestState": request_state::seal(&self.key, &state)?,
        });
        serde_json::value::to_raw_value(&result)
            .map_err(|e| RpcError::internal(format!("could not encode the result: {e}")))
    }
}

/// Polls a handler's future for one round: it completes with the handler's
/// answer, or as soon as the handler waits only on unanswered questions
/// (with an `InputRequiredResult`), or on a missing capability (-32021).
/// A poll function, not a future of its own: the caller's future drives it
/// (one box per request, not two).
pub(crate) fn poll(
    handler: &mut RequestFuture,
    round: &InputRound,
    cx: &mut TaskContext<'_>,
) -> Poll<Result<Box<RawValue>, RpcError>> {
    if let Poll::Ready(answer) = handler.as_mut().poll(cx) {
        // A missing capability wins over what the handler made of it.
        return Poll::Ready(match round.missing_capability() {
            Some(e) => Err(e),
            None => answer,
        });
    }
    match round.ending(cx.waker()) {
        Some(end) => Poll::Ready(end),
        None => Poll::Pending,
    }
}

/// -32021, naming the capabilities that were missing.
fn missing_error(missing: Map<String, Value>) -> RpcError {
    RpcError::new(
        ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY,
        "the request needs client capabilities it did not declare",
    )
    .with_data(json!({ "requiredCapabilities": missing }))
}

/// Whether params text may hold `inputResponses` or `requestState`.
fn names_round_fields(text: &str) -> bool {
    text.contains("inputResponses") || text.contains("requestState") || text.contains('\\')
}
