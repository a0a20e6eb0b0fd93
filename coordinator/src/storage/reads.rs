//! The web pages' reads, written once over the [`Tx`] read primitives like the lease workflow
//! ([`super::workflow`]): a run's aggregates and pair sequence, and the workers page. The
//! backends only read rows (from an index of a run's games: never their moves); the folding
//! is here, in pure functions tested on their own.

use std::collections::BTreeMap;

use proto::domain::{RunId, Termination, WorkerId};

use super::tx::{GameEnds, PairTally, Tx, WorkerSummary};
use super::{RunAggregates, WorkerRow, WorkerRunStats};
use crate::error::{Error, Result};

/// The window of [`WorkerRow::games_last_10_min`].
pub const RECENT_MS: u64 = 10 * 60 * 1000;

/// A run's terminations, lengths and per-worker tallies, in one read transaction.
pub fn run_aggregates(tx: &mut dyn Tx, run: RunId) -> Result<RunAggregates> {
    let ends = tx.game_ends(run)?;
    let tallies = tx.pair_tallies(run)?;
    let workers = tx.workers()?;
    aggregate(&ends, &tallies, &workers)
}

/// A run's pairs in recording order: (pairing, pentanomial index).
pub fn run_pair_sequence(tx: &mut dyn Tx, run: RunId) -> Result<Vec<(u32, u8)>> {
    Ok(tx.pair_results(run)?.into_iter().map(|p| (p.pairing, p.first_half_points)).collect())
}

/// Every worker with its engines, active leases and the games it recorded since
/// `now_ms - RECENT_MS`.
pub fn list_workers(tx: &mut dyn Tx, now_ms: u64) -> Result<Vec<WorkerRow>> {
    let leases: BTreeMap<WorkerId, u32> = tx.active_leases_by_worker()?.into_iter().collect();
    let recent: BTreeMap<WorkerId, u64> =
        tx.accepted_pairs_since(now_ms.saturating_sub(RECENT_MS))?.into_iter().collect();
    tx.workers()?
        .into_iter()
        .map(|w| {
            Ok(WorkerRow {
                engines: tx.worker_engines(w.id)?,
                leases_held: leases.get(&w.id).copied().unwrap_or(0),
                games_last_10_min: recent.get(&w.id).copied().unwrap_or(0).saturating_mul(2),
                id: w.id,
                name: w.name,
                host: w.host,
                cores: w.cores,
                bench_nps: w.bench_nps,
                simd: w.simd,
                nnue_bench_nps: w.nnue_bench_nps,
                last_seen_ms: w.last_seen_ms,
            })
        })
        .collect()
}

/// What the metrics read from the farm ([`farm_load`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FarmLoad {
    /// Leases being played.
    pub active_leases: u64,
    /// Per active run: pairs in the pool plus pairs not yet created (runs of a fixed size).
    pub pending_pairs: Vec<(RunId, u64)>,
    /// Active runs with no fixed size (SPRTs).
    pub open_ended_runs: u64,
    /// Games recorded, per run (every run, whatever its state).
    pub games_by_run: Vec<(RunId, u64)>,
}

/// The farm's load for the metrics, in one read transaction.
pub fn farm_load(tx: &mut dyn Tx) -> Result<FarmLoad> {
    let active_leases = tx.active_leases_by_worker()?.iter().map(|&(_, n)| u64::from(n)).sum();
    let loads = tx.active_run_loads(None)?;
    let pending_pairs = loads.iter().map(|l| (l.run, l.requeued + l.unallocated().unwrap_or(0))).collect();
    let open_ended_runs = loads.iter().filter(|l| l.unallocated().is_none()).count() as u64;
    let games_by_run = tx
        .run_ids()?
        .into_iter()
        .map(|run| Ok((run, tx.run_stats(run)?.iter().map(|s| s.games()).sum())))
        .collect::<Result<_>>()?;
    Ok(FarmLoad { active_leases, pending_pairs, open_ended_runs, games_by_run })
}

/// Folds a run's game counts and pair tallies into its aggregates; `workers` names the
/// workers the tallies name.
pub fn aggregate(ends: &[GameEnds], tallies: &[PairTally], workers: &[WorkerSummary]) -> Result<RunAggregates> {
    let mut by_reason: BTreeMap<usize, u64> = BTreeMap::new();
    let mut by_length: BTreeMap<u32, u64> = BTreeMap::new();
    for e in ends {
        *by_reason.entry(vocabulary_index(e.reason)).or_default() += e.games;
        *by_length.entry(e.plies).or_default() += e.games;
    }
    let mut terminations: Vec<(Termination, u64)> =
        by_reason.into_iter().filter(|&(_, n)| n > 0).map(|(i, n)| (Termination::ALL[i], n)).collect();
    // Stable: ties keep the vocabulary's order.
    terminations.sort_by_key(|&(_, n)| std::cmp::Reverse(n));

    let mut per_worker: BTreeMap<WorkerId, (u64, [u64; 5])> = BTreeMap::new();
    for t in tallies {
        let (count, pentanomial) = per_worker.entry(t.worker).or_default();
        *count += t.pairs;
        if t.pairing == 0 {
            let slot = pentanomial.get_mut(usize::from(t.first_half_points)).ok_or_else(|| {
                Error::Corrupt(format!("pairs of worker {} score {} half points", t.worker, t.first_half_points))
            })?;
            *slot += t.pairs;
        }
    }
    let workers = per_worker
        .into_iter()
        .map(|(id, (pairs, pentanomial))| {
            let w = workers.iter().find(|w| w.id == id).ok_or(Error::WorkerNotFound(id))?;
            Ok(WorkerRunStats { worker: id, name: w.name.clone(), pairs, pentanomial, last_seen_ms: w.last_seen_ms })
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(RunAggregates {
        games: by_length.values().sum(),
        terminations,
        lengths: by_length.into_iter().filter(|&(_, n)| n > 0).collect(),
        workers,
    })
}

fn vocabulary_index(t: Termination) -> usize {
    Termination::ALL.iter().position(|&x| x == t).unwrap_or(Termination::ALL.len())
}

#[cfg(test)]
mod tests {
    use engine::rules::Reason;

    use super::*;

    fn ends(reason: Termination, plies: u32, games: u64) -> GameEnds {
        GameEnds { reason, plies, games }
    }

    fn tally(worker: u64, pairing: u32, points: u8, pairs: u64) -> PairTally {
        PairTally { worker: WorkerId::new(worker), pairing, first_half_points: points, pairs }
    }

    fn worker(id: u64, name: &str, seen: u64) -> WorkerSummary {
        WorkerSummary {
            id: WorkerId::new(id),
            name: name.into(),
            host: "h".into(),
            cores: 1,
            last_seen_ms: seen,
            bench_nps: 0,
            simd: None,
            nnue_bench_nps: 0,
        }
    }

    #[test]
    fn terminations_by_count_then_vocabulary_and_lengths_by_plies() {
        let mate = Termination::Rules(Reason::Checkmate);
        let rep = Termination::Rules(Reason::Repetition);
        let table = [
            ends(Termination::AdjudicatedDraw, 80, 2),
            ends(mate, 40, 1),
            ends(rep, 40, 3),
            ends(mate, 12, 2),
            ends(Termination::EngineError, 0, 0),
        ];
        let a = aggregate(&table, &[], &[]).expect("aggregate");
        assert_eq!(a.games, 8);
        // Checkmate and repetition tie at 3: checkmate comes first in the vocabulary.
        assert_eq!(a.terminations, [(mate, 3), (rep, 3), (Termination::AdjudicatedDraw, 2)]);
        assert_eq!(a.lengths, [(12, 2), (40, 4), (80, 2)]);
        assert!(a.workers.is_empty());
        // Plies 1..n-1 of each game: every one (datagen), every 8th, or none.
        assert_eq!(a.sampled_positions(1), 2 * 11 + 4 * 39 + 2 * 79);
        assert_eq!(a.sampled_positions(8), 2 + 4 * 4 + 2 * 9, "1, 4 and 9 samples per game");
        assert_eq!(a.sampled_positions(0), 0);
    }

    #[test]
    fn workers_count_every_pair_and_tally_pairing_0_only() {
        let pairs = [tally(2, 0, 4, 1), tally(1, 0, 2, 1), tally(2, 1, 0, 3), tally(2, 0, 2, 2), tally(2, 0, 0, 1)];
        let workers = [worker(1, "one", 10), worker(2, "two", 20), worker(3, "idle", 30)];
        let a = aggregate(&[], &pairs, &workers).expect("aggregate");
        assert_eq!(
            a.workers,
            [
                WorkerRunStats {
                    worker: WorkerId::new(1),
                    name: "one".into(),
                    pairs: 1,
                    pentanomial: [0, 0, 1, 0, 0],
                    last_seen_ms: 10
                },
                WorkerRunStats {
                    worker: WorkerId::new(2),
                    name: "two".into(),
                    pairs: 7,
                    pentanomial: [1, 0, 2, 0, 1],
                    last_seen_ms: 20
                },
            ]
        );
    }

    #[test]
    fn impossible_points_and_unknown_workers_are_corrupt() {
        let named = [worker(1, "one", 0)];
        assert!(matches!(aggregate(&[], &[tally(1, 0, 5, 1)], &named), Err(Error::Corrupt(m)) if m.contains("5 half")));
        assert!(matches!(aggregate(&[], &[tally(9, 0, 1, 1)], &named), Err(Error::WorkerNotFound(w)) if w.get() == 9));
    }
}
