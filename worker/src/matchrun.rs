//! A local match: game pairs over an opening suite (colours swapped within a pair), played
//! on several threads, each thread with its own players.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;

use proto::domain::{GameOutcome, pair_half_points};

use crate::game::{GameRecord, GameSettings, play_game};
use crate::openings::Opening;
use crate::player::Player;

/// A finished pair: `games[0]` has player A as Red, `games[1]` has A as Black.
#[derive(Clone, Debug)]
pub struct PairResult {
    pub index: usize,
    pub opening: usize,
    pub games: [GameRecord; 2],
}

impl PairResult {
    /// The two games' outcomes, in order (A is Red in the first).
    pub fn outcomes(&self) -> [GameOutcome; 2] {
        [self.games[0].result.into(), self.games[1].result.into()]
    }

    /// Points of player A over the two games (0, 0.5, ..., 2) in half points (0..=4).
    pub fn a_half_points(&self) -> usize {
        usize::from(pair_half_points(self.outcomes()))
    }
}

/// Plays `pairs` game pairs; opening `i % openings.len()` for pair `i`. `make_players`
/// builds (A, B) on each thread; `on_pair` sees every finished pair, in finishing order.
pub fn run_pairs<P, F>(
    pairs: usize,
    openings: &[Opening],
    settings: &GameSettings,
    concurrency: usize,
    make_players: F,
    mut on_pair: impl FnMut(&PairResult),
) -> Vec<PairResult>
where
    P: Player,
    F: Fn() -> (P, P) + Sync,
{
    if openings.is_empty() || pairs == 0 {
        return Vec::new();
    }
    let next = AtomicUsize::new(0);
    let (tx, rx) = mpsc::channel();
    let mut results = Vec::with_capacity(pairs);
    std::thread::scope(|scope| {
        for _ in 0..concurrency.max(1) {
            let tx = tx.clone();
            let next = &next;
            let make_players = &make_players;
            scope.spawn(move || {
                let (mut a, mut b) = make_players();
                loop {
                    let index = next.fetch_add(1, Ordering::Relaxed);
                    if index >= pairs {
                        break;
                    }
                    let opening = index % openings.len();
                    let start = &openings[opening].position;
                    let g0 = play_game([&mut a, &mut b], start, settings);
                    let g1 = play_game([&mut b, &mut a], start, settings);
                    if tx.send(PairResult { index, opening, games: [g0, g1] }).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);
        for pair in rx {
            on_pair(&pair);
            results.push(pair);
        }
    });
    results.sort_by_key(|p| p.index);
    results
}
