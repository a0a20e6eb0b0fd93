//! A local match: game pairs over an opening suite (colours swapped within a pair), played
//! on several threads, each thread with its own players.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use engine::{Limits, Position};
use proto::domain::{GameOutcome, pair_half_points};

use crate::game::{GameRecord, GameSettings, play_game};
use crate::openings::Opening;
use crate::player::{Player, Reply};

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

/// One side's totals over a match, shared by its threads: the moves its players answered,
/// the time they spent answering and the nodes they searched.
#[derive(Debug, Default)]
pub struct SideStats {
    moves: AtomicU64,
    nanos: AtomicU64,
    nodes: AtomicU64,
}

impl SideStats {
    /// Moves answered.
    pub fn moves(&self) -> u64 {
        self.moves.load(Ordering::Relaxed)
    }

    /// Time spent answering them, over all threads.
    pub fn busy(&self) -> Duration {
        Duration::from_nanos(self.nanos.load(Ordering::Relaxed))
    }

    /// Moves answered, mean milliseconds and mean nodes per move.
    pub fn summary(&self) -> (u64, f64, f64) {
        let moves = self.moves();
        let per = |total: u64| total as f64 / moves.max(1) as f64;
        (moves, per(self.nanos.load(Ordering::Relaxed)) / 1e6, per(self.nodes.load(Ordering::Relaxed)))
    }
}

/// A player that adds each answered move, the time it took and its nodes to its side's
/// [`SideStats`] (a move that fails is not counted).
pub struct Timed<P> {
    player: P,
    stats: Arc<SideStats>,
}

impl<P> std::fmt::Debug for Timed<P> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Timed").field("stats", &self.stats).finish_non_exhaustive()
    }
}

impl<P: Player> Timed<P> {
    pub fn new(player: P, stats: &Arc<SideStats>) -> Timed<P> {
        Timed { player, stats: Arc::clone(stats) }
    }
}

impl<P: Player> Player for Timed<P> {
    fn name(&self) -> &str {
        self.player.name()
    }

    fn new_game(&mut self) -> crate::Result<()> {
        self.player.new_game()
    }

    fn play(&mut self, pos: &Position, limits: &Limits) -> crate::Result<Reply> {
        let started = Instant::now();
        let reply = self.player.play(pos, limits)?;
        self.stats.moves.fetch_add(1, Ordering::Relaxed);
        self.stats.nanos.fetch_add(started.elapsed().as_nanos() as u64, Ordering::Relaxed);
        self.stats.nodes.fetch_add(reply.nodes, Ordering::Relaxed);
        Ok(reply)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::TimeControl;
    use crate::player::RandomMover;

    #[test]
    fn timed_players_count_their_sides_moves_and_nodes() {
        let openings = crate::openings::parse_suite("startpos").expect("one opening");
        let stats = [Arc::new(SideStats::default()), Arc::new(SideStats::default())];
        let mut settings = GameSettings::new(TimeControl::Nodes(1));
        settings.max_plies = 20;
        let pairs = run_pairs(
            2,
            &openings,
            &settings,
            2,
            || {
                let side =
                    |name: &str, seed: u64, stats: &Arc<SideStats>| Timed::new(RandomMover::new(name, seed), stats);
                (side("a", 1, &stats[0]), side("b", 2, &stats[1]))
            },
            |_| {},
        );
        let plies: u64 = pairs.iter().flat_map(|p| &p.games).map(|g| g.moves.len() as u64).sum();
        assert_eq!(stats[0].moves() + stats[1].moves(), plies, "every move counted once, by its side");
        assert!(stats[0].moves() > 0 && stats[1].moves() > 0, "{stats:?}");
        assert_eq!(stats[0].summary().0, stats[0].moves());
    }
}
