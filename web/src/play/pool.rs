//! The bounded pool the play page's searches run on: a semaphore of `search_threads` permits,
//! each search on Tokio's blocking threads, so the async threads that serve gRPC and the
//! workers' leases never wait for an engine. A search that cannot get a permit within its
//! budget is refused (503) rather than queued past its time. Deadlines are on Tokio's clock, so
//! tests run the waits on paused time.

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio::time::Instant;

use super::error::{PlayError, PlayResult};

/// The shortest search worth starting: a permit obtained later than this before the deadline
/// is given back and the reply refused.
pub const MIN_SEARCH: Duration = Duration::from_millis(10);

#[derive(Debug)]
pub struct SearchPool {
    permits: Arc<Semaphore>,
    size: usize,
}

/// A place on the pool, held for one search, and the time left for it.
#[derive(Debug)]
pub struct Slot {
    permit: OwnedSemaphorePermit,
    deadline: Instant,
}

impl Slot {
    /// The time left until the reply's deadline.
    pub fn remaining(&self) -> Duration {
        self.deadline.saturating_duration_since(Instant::now())
    }
}

impl SearchPool {
    pub fn new(size: usize) -> SearchPool {
        let size = size.max(1);
        SearchPool { permits: Arc::new(Semaphore::new(size)), size }
    }

    pub fn size(&self) -> usize {
        self.size
    }

    /// Searches running now.
    pub fn busy(&self) -> usize {
        self.size - self.permits.available_permits()
    }

    /// Waits for a place until `deadline` less [`MIN_SEARCH`]; refuses with 503 after that.
    pub async fn acquire(&self, deadline: Instant) -> PlayResult<Slot> {
        let start_by = deadline.checked_sub(MIN_SEARCH).unwrap_or(deadline);
        let wait = start_by.saturating_duration_since(Instant::now());
        let busy = || {
            PlayError::Unavailable(format!(
                "all {} engine search slots are busy and none came free within the move's budget; try again",
                self.size
            ))
        };
        let permit = tokio::time::timeout(wait, Arc::clone(&self.permits).acquire_owned())
            .await
            .map_err(|_| busy())?
            .map_err(|_| PlayError::Internal("the search pool is closed".into()))?;
        if Instant::now() >= start_by {
            return Err(busy());
        }
        Ok(Slot { permit, deadline })
    }

    /// Runs `search` on a blocking thread, holding `slot` until it returns.
    pub async fn run<T: Send + 'static>(
        &self,
        slot: Slot,
        search: impl FnOnce() -> T + Send + 'static,
    ) -> PlayResult<T> {
        tokio::task::spawn_blocking(move || {
            let _permit = slot.permit;
            search()
        })
        .await
        .map_err(|e| PlayError::Internal(format!("the engine search failed: {e}")))
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // in tests a panic is the failure report
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn a_full_pool_refuses_within_the_budget() {
        let pool = SearchPool::new(1);
        let held = pool.acquire(Instant::now() + Duration::from_secs(5)).await.unwrap();
        assert_eq!(pool.busy(), 1);
        let started = Instant::now();
        let refused = pool.acquire(Instant::now() + Duration::from_millis(60)).await;
        assert!(matches!(refused, Err(PlayError::Unavailable(_))), "{refused:?}");
        // It waited for a place until the budget less the shortest search worth starting.
        assert_eq!(started.elapsed(), Duration::from_millis(60) - MIN_SEARCH);
        // A place that comes free in time is taken at once.
        let freed = tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(20)).await;
            drop(held);
        });
        let started = Instant::now();
        let slot = pool.acquire(Instant::now() + Duration::from_millis(60)).await.unwrap();
        assert_eq!(started.elapsed(), Duration::from_millis(20));
        assert_eq!(slot.remaining(), Duration::from_millis(40));
        freed.await.unwrap();
        drop(slot);
        let slot = pool.acquire(Instant::now() + Duration::from_millis(60)).await.unwrap();
        assert!(slot.remaining() > Duration::ZERO);
        assert_eq!(pool.run(slot, || 6 * 7).await, Ok(42));
        assert_eq!(pool.busy(), 0);
    }
}
