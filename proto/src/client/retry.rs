//! When a failed call is tried again, and after how long: pure functions of the status code
//! and the attempt number, with the random jitter passed in so they are tested exactly.

use std::time::Duration;

use tonic::Code;

/// Whether a call that failed with `code` may succeed if sent again unchanged: the
/// coordinator was unreachable, restarting, overloaded or slow. Every other code is an
/// answer about the request (bad argument, wrong token, unknown run) that a resend repeats.
///
/// `Unknown`, `Internal` and `Cancelled` are included because a connection torn down
/// mid-call (a coordinator killed or restarted) surfaces as one of them; sending again is
/// safe because every call of the farm is idempotent (see [`crate::client`]).
pub fn is_transient(code: Code) -> bool {
    matches!(
        code,
        Code::Unavailable
            | Code::DeadlineExceeded
            | Code::ResourceExhausted
            | Code::Aborted
            | Code::Unknown
            | Code::Internal
            | Code::Cancelled
    )
}

/// Capped exponential backoff with jitter: the `n`th retry waits a random time between half
/// and all of `min(first_delay * 2^(n-1), max_delay)` ("equal jitter": never zero, so a
/// restarting coordinator is not hammered, and spread out, so many workers that lost it at
/// the same moment do not come back in lockstep).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RetryPolicy {
    /// The first retry's (un-jittered) wait.
    pub first_delay: Duration,
    /// No wait exceeds this.
    pub max_delay: Duration,
    /// Attempts in all, the first included (`None`: retry for as long as it takes; `Some(1)`:
    /// never retry).
    pub max_attempts: Option<u32>,
}

impl RetryPolicy {
    /// User commands: a few tries over about 5 s, then the error.
    pub const COMMAND: RetryPolicy = RetryPolicy {
        first_delay: Duration::from_millis(200),
        max_delay: Duration::from_secs(2),
        max_attempts: Some(5),
    };

    /// A long-running process (the worker, the campaign): retry transient failures forever,
    /// at most 10 s apart.
    pub const FOREVER: RetryPolicy =
        RetryPolicy { first_delay: Duration::from_millis(200), max_delay: Duration::from_secs(10), max_attempts: None };

    /// One attempt only: for callers that keep their own loop (the worker's delivery and
    /// lease loops, which must also watch for a stop).
    pub const ONCE: RetryPolicy = RetryPolicy {
        first_delay: Duration::from_millis(200),
        max_delay: Duration::from_secs(10),
        max_attempts: Some(1),
    };

    /// The wait before retry number `retry` (1 = the first retry), with `jitter` in `[0, 1)`
    /// placing it between half and all of the capped exponential delay.
    pub fn backoff(&self, retry: u32, jitter: f64) -> Duration {
        let doublings = retry.saturating_sub(1).min(31);
        let full = self.first_delay.saturating_mul(1u32 << doublings).min(self.max_delay);
        let jitter = if jitter.is_finite() { jitter.clamp(0.0, 1.0) } else { 0.0 };
        full.mul_f64(0.5 + 0.5 * jitter)
    }

    /// Whether a call that failed with `code` on attempt `attempt` (1 = the first) is sent
    /// again, and after how long. `None`: give up and return the error.
    pub fn next_delay(&self, attempt: u32, code: Code, jitter: f64) -> Option<Duration> {
        if !is_transient(code) || self.max_attempts.is_some_and(|most| attempt >= most) {
            return None;
        }
        Some(self.backoff(attempt, jitter))
    }
}

/// A jitter sample in `[0, 1)` from the OS random source (0.5 if it fails: the policy still
/// works, only without spreading).
pub fn jitter() -> f64 {
    getrandom::u32().map_or(0.5, |bits| f64::from(bits) / (f64::from(u32::MAX) + 1.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    const P: RetryPolicy = RetryPolicy {
        first_delay: Duration::from_millis(100),
        max_delay: Duration::from_secs(1),
        max_attempts: Some(6),
    };

    #[test]
    fn delays_double_up_to_the_cap() {
        let full: Vec<u128> = (1..=6).map(|n| P.backoff(n, 1.0).as_millis()).collect();
        assert_eq!(full, [100, 200, 400, 800, 1000, 1000]);
        // Huge retry numbers neither overflow nor pass the cap.
        assert_eq!(P.backoff(u32::MAX, 1.0), Duration::from_secs(1));
    }

    #[test]
    fn jitter_spreads_between_half_and_all_of_the_delay() {
        assert_eq!(P.backoff(3, 0.0), Duration::from_millis(200));
        assert_eq!(P.backoff(3, 0.5), Duration::from_millis(300));
        assert!(P.backoff(3, 0.999_999) <= Duration::from_millis(400));
        // A bad sample cannot make the wait zero or larger than the cap.
        assert_eq!(P.backoff(3, f64::NAN), Duration::from_millis(200));
        assert_eq!(P.backoff(3, 7.0), Duration::from_millis(400));
        assert_eq!(P.backoff(3, -1.0), Duration::from_millis(200));
        for _ in 0..100 {
            let j = jitter();
            assert!((0.0..1.0).contains(&j), "{j}");
        }
    }

    #[test]
    fn only_transient_codes_are_retried() {
        for code in [Code::Unavailable, Code::DeadlineExceeded, Code::ResourceExhausted, Code::Aborted, Code::Internal]
        {
            assert_eq!(P.next_delay(1, code, 0.0), Some(Duration::from_millis(50)), "{code:?}");
        }
        for code in [
            Code::Ok,
            Code::InvalidArgument,
            Code::NotFound,
            Code::AlreadyExists,
            Code::PermissionDenied,
            Code::Unauthenticated,
            Code::FailedPrecondition,
            Code::OutOfRange,
            Code::Unimplemented,
            Code::DataLoss,
        ] {
            assert_eq!(P.next_delay(1, code, 0.0), None, "{code:?} is an answer, not a failure to reach");
        }
    }

    #[test]
    fn attempts_stop_at_the_limit() {
        assert!(P.next_delay(5, Code::Unavailable, 0.0).is_some());
        assert_eq!(P.next_delay(6, Code::Unavailable, 0.0), None);
        assert_eq!(RetryPolicy::ONCE.next_delay(1, Code::Unavailable, 0.0), None);
        assert_eq!(RetryPolicy::FOREVER.next_delay(1_000_000, Code::Unavailable, 1.0), Some(Duration::from_secs(10)));
        // COMMAND gives up after about 5 s of waiting at most.
        let waited: Duration = (1..5).map(|n| RetryPolicy::COMMAND.backoff(n, 1.0)).sum();
        assert!(waited <= Duration::from_secs(5), "{waited:?}");
        assert_eq!(RetryPolicy::COMMAND.next_delay(5, Code::Unavailable, 0.0), None);
    }
}
