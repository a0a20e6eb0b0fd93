//! The worker's own speed (`xqfarm bench worker`): games per minute per core at a node limit,
//! and the share of the worker's CPU spent outside engine search (the arbiter, the game loop,
//! converting games to reports with sampled positions).

use std::sync::Arc;
use std::time::Instant;

use engine::eval::Params;

use crate::game::{GameSettings, TimeControl};
use crate::matchrun::{SideStats, Timed, run_pairs};
use crate::openings::Opening;
use crate::player::InProcess;

/// Every how many plies a report samples a position, as a farm's runs commonly do.
const SAMPLE_EVERY: u32 = 8;

/// What [`measure`] plays.
#[derive(Clone, Debug)]
pub struct SpeedSettings {
    /// Nodes per move.
    pub nodes: u64,
    /// Game pairs to play.
    pub pairs: usize,
    /// Games at once.
    pub threads: usize,
}

/// The worker's speed figures.
#[derive(Clone, Debug, PartialEq)]
pub struct WorkerSpeed {
    pub games: usize,
    /// Reports made from the games, with sampled positions.
    pub reports: usize,
    /// Wall seconds, from the first move to the last report.
    pub wall_s: f64,
    /// Wall seconds times threads.
    pub thread_s: f64,
    /// Seconds inside engine search, over all threads.
    pub search_s: f64,
}

impl WorkerSpeed {
    /// Games per minute per thread (one thread a core).
    pub fn games_per_min_per_core(&self, threads: usize) -> f64 {
        self.games as f64 / (self.wall_s / 60.0) / threads as f64
    }

    /// Percent of the thread time spent outside engine search.
    pub fn outside_search_pct(&self) -> f64 {
        100.0 * (1.0 - self.search_s / self.thread_s)
    }
}

/// Plays `settings.pairs` pairs of the default parameters against themselves over `openings`
/// and turns every game into its report, as a worker does.
pub fn measure(openings: &[Opening], settings: &SpeedSettings) -> WorkerSpeed {
    let busy = Arc::new(SideStats::default());
    let game_settings = GameSettings::new(TimeControl::Nodes(settings.nodes));
    let started = Instant::now();
    let results = run_pairs(
        settings.pairs,
        openings,
        &game_settings,
        settings.threads,
        || {
            let t = |n: &str, p: Params| Timed::new(InProcess::new(n, p), &busy);
            (t("a", Params::default()), t("b", Params::default()))
        },
        |_| {},
    );
    // What a worker does besides searching: convert every game to its report with
    // sampled positions (static eval + quiescence every few plies).
    let mut reports = 0;
    for pair in &results {
        for g in &pair.games {
            let _ = crate::runner::to_report(g, &"a".into(), &"b".into(), SAMPLE_EVERY);
            reports += 1;
        }
    }
    let wall_s = started.elapsed().as_secs_f64();
    WorkerSpeed {
        games: 2 * results.len(),
        reports,
        wall_s,
        thread_s: wall_s * settings.threads as f64,
        search_s: busy.busy().as_secs_f64(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_game_is_played_and_reported_and_searched_within_its_thread_time() {
        let openings = crate::openings::parse_suite("startpos").expect("one opening");
        let speed = measure(&openings, &SpeedSettings { nodes: 50, pairs: 1, threads: 1 });
        assert_eq!((speed.games, speed.reports), (2, 2));
        assert!(speed.search_s > 0.0 && speed.search_s <= speed.thread_s, "{speed:?}");
        let outside = speed.outside_search_pct();
        assert!((0.0..100.0).contains(&outside), "{outside}");
        assert!(speed.games_per_min_per_core(1) > 0.0);
    }
}
