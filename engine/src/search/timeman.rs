//! Time management: from the clock to an optimum time (when not to start another
//! iteration) and a maximum time (when to abort the current one).

use std::time::{Duration, Instant};

use super::limits::Limits;
use super::params::SearchParams;
use crate::types::Color;

/// Default `Move Overhead`: time lost per move to communication and process scheduling.
pub const DEFAULT_MOVE_OVERHEAD: Duration = Duration::from_millis(30);

#[derive(Clone, Copy, Debug)]
pub struct TimeManager {
    pub start: Instant,
    pub optimum: Option<Duration>,
    pub maximum: Option<Duration>,
    /// `tm_iter_pct`: no new iteration after this percentage of the optimum.
    iter_pct: u32,
}

impl TimeManager {
    pub fn new(limits: &Limits, side: Color, overhead: Duration, start: Instant, sp: &SearchParams) -> TimeManager {
        let floor = Duration::from_millis(1);
        let iter_pct = sp.tm_iter_pct.clamp(1, 100) as u32;
        if let Some(mt) = limits.movetime {
            // A fixed move time is all the engine's: keep a margin of the Move Overhead but at
            // most 5% of it, and search until it is spent (no early stop between iterations).
            let t = mt.saturating_sub(overhead.min(mt / 20)).max(floor);
            return TimeManager { start, optimum: Some(t), maximum: Some(t), iter_pct: 100 };
        }
        let Some(left) = limits.time[side.index()] else {
            return TimeManager { start, optimum: None, maximum: None, iter_pct };
        };
        let inc = limits.inc[side.index()];
        let mtg = limits.movestogo.unwrap_or(sp.tm_moves_to_go.max(1) as u32).clamp(1, 50);
        // Never plan to use more than what is left after the overhead of the moves to go.
        let usable = left.saturating_sub(overhead * 2).max(floor);
        let optimum = (usable / mtg + inc * sp.tm_inc_pct.clamp(0, 100) as u32 / 100).min(usable / 2).max(floor);
        let cap = if mtg == 1 { usable * 9 / 10 } else { usable / 3 };
        let maximum = (optimum * sp.tm_max_mul.max(1) as u32).min(cap).max(optimum);
        TimeManager { start, optimum: Some(optimum), maximum: Some(maximum), iter_pct }
    }

    #[inline]
    pub fn elapsed(&self) -> Duration {
        self.start.elapsed()
    }

    /// Whether the search must stop now.
    #[inline]
    pub fn out_of_time(&self) -> bool {
        self.maximum.is_some_and(|m| self.elapsed() >= m)
    }

    /// Whether starting another iteration is worth it (it would likely not finish).
    pub fn should_stop_iterating(&self) -> bool {
        self.optimum.is_some_and(|o| self.elapsed() >= o * self.iter_pct / 100)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn budgets_fit_the_clock() {
        let now = Instant::now();
        for (left_ms, inc_ms, mtg) in
            [(60_000, 0, None), (1_000, 100, None), (50, 0, Some(1)), (10, 0, None), (300_000, 2_000, Some(40))]
        {
            let limits = Limits {
                time: [Some(Duration::from_millis(left_ms)), None],
                inc: [Duration::from_millis(inc_ms), Duration::ZERO],
                movestogo: mtg,
                ..Limits::default()
            };
            let tm = TimeManager::new(&limits, Color::Red, DEFAULT_MOVE_OVERHEAD, now, &SearchParams::default());
            let (opt, max) = (tm.optimum.expect("set"), tm.maximum.expect("set"));
            assert!(opt <= max);
            assert!(
                max <= Duration::from_millis(left_ms)
                    .saturating_sub(DEFAULT_MOVE_OVERHEAD)
                    .max(Duration::from_millis(1)),
                "{left_ms} ms left: max {max:?}"
            );
        }
        let tm = TimeManager::new(&Limits::depth(5), Color::Red, DEFAULT_MOVE_OVERHEAD, now, &SearchParams::default());
        assert!(tm.maximum.is_none() && !tm.out_of_time());
    }
}
