use std::time::Duration;

/// Limits and timeouts of one session. The defaults suit interactive use.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct SessionConfig {
    /// How long an outgoing request waits for its answer (default 60 s).
    pub request_timeout: Duration,
    /// Whether a progress notification restarts the timeout (default true),
    /// bounded by [`max_request_time`](Self::max_request_time).
    pub reset_timeout_on_progress: bool,
    /// Hard limit for a request whose timeout progress keeps resetting
    /// (default 10 min).
    pub max_request_time: Duration,
    /// Most inbound requests handled at once; more are refused with a
    /// JSON-RPC error (default 1024).
    pub max_concurrent_requests: usize,
}

impl Default for SessionConfig {
    fn default() -> Self {
        Self {
            request_timeout: Duration::from_secs(60),
            reset_timeout_on_progress: true,
            max_request_time: Duration::from_secs(600),
            max_concurrent_requests: 1024,
        }
    }
}

impl SessionConfig {
    /// Sets [`request_timeout`](Self::request_timeout).
    #[must_use]
    pub fn request_timeout(mut self, timeout: Duration) -> Self {
        self.request_timeout = timeout;
        self
    }

    /// Sets [`max_concurrent_requests`](Self::max_concurrent_requests).
    #[must_use]
    pub fn max_concurrent_requests(mut self, limit: usize) -> Self {
        self.max_concurrent_requests = limit;
        self
    }

    /// Sets [`reset_timeout_on_progress`](Self::reset_timeout_on_progress)
    /// and [`max_request_time`](Self::max_request_time).
    #[must_use]
    pub fn reset_timeout_on_progress(mut self, reset: bool, max_request_time: Duration) -> Self {
        self.reset_timeout_on_progress = reset;
        self.max_request_time = max_request_time;
        self
    }
}
