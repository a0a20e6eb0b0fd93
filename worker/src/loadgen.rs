//! Simulated workers for the farm's speed figures (`xqfarm bench rpc`, `xqfarm bench web`):
//! each leases one pair at a time over gRPC and submits the same two legal games, really played
//! by random movers, so that the coordinator's referee replays every move as it would a real
//! worker's.

use std::time::Instant;

use engine::Position;
use proto::client::FarmClient;
use proto::domain::{
    BatchResult, GameReport, Lease, LeaseGrant, LeaseReply, LeaseRequest, PairReport, PairTask, SubmitRequest,
    TimeControl, VariantId, WorkerId, WorkerInfo,
};

use crate::game::GameSettings;
use crate::player::RandomMover;

/// A simulated worker's description (`sim{i}`, one core, no bench signature).
pub fn sim_worker(i: usize) -> WorkerInfo {
    WorkerInfo {
        name: format!("sim{i}"),
        host: "bench".into(),
        cores: 1,
        engine_version: "bench".into(),
        bench_signature: 0,
        worker_key: String::new(),
        rules_version: engine::RULES_VERSION,
        engines: Vec::new(),
        bench_nps: 0,
        simd: None,
        nnue_bench_nps: 0,
    }
}

/// The bench runs' time control: long enough that the scheduler leases one pair per free
/// slot, as a real farm's workers see it, so every RPC carries one pair.
pub fn bench_tc() -> TimeControl {
    TimeControl::Clock { base_ms: 60_000, inc_ms: 600 }
}

/// One pair really played from `start` by random quiet movers (120 plies to the move limit
/// from the start position), as the worker reports it; players named later by [`pair_for`].
pub fn legal_pair(tc: TimeControl, start: &Position) -> [GameReport; 2] {
    let settings = GameSettings::new(tc);
    let play = |seed: u64| {
        let mut red = RandomMover::new("red", seed).with_score(Some(150));
        let mut black = RandomMover::new("black", seed + 1).with_score(Some(150));
        let record = crate::game::play_game([&mut red, &mut black], start, &settings);
        crate::runner::to_report(&record, &VariantId::default(), &VariantId::default(), 0)
    };
    [play(1), play(3)]
}

/// The payload's games as the report of `task`'s pair: the first game with the task's first
/// variant as Red, the second with it as Black.
pub fn pair_for(payload: &[GameReport; 2], task: &PairTask) -> PairReport {
    let [x, y] = &task.variants;
    let game = |g: &GameReport, red: &VariantId, black: &VariantId| GameReport {
        red: red.clone(),
        black: black.clone(),
        ..g.clone()
    };
    PairReport { pair_index: task.pair_index, games: [game(&payload[0], x, y), game(&payload[1], y, x)] }
}

/// The submission of `payload` for every pair of `lease`, and its number of pairs.
fn batch_for(payload: &[GameReport; 2], lease: &Lease) -> (BatchResult, u64) {
    let pairs: Vec<PairReport> = lease.tasks.iter().map(|t| pair_for(payload, t)).collect();
    let n = pairs.len() as u64;
    (BatchResult { lease: lease.id, seq: 1, pairs, is_final: true }, n)
}

/// Asks for one pair and submits the payload's games for what was leased; the games recorded
/// (0 when the coordinator had no work).
pub async fn record_one(c: &FarmClient, worker: WorkerId, payload: &[GameReport; 2]) -> proto::Result<u64> {
    let reply = c.lease(LeaseRequest { worker, free_slots: 1, held: Vec::new(), finished: Vec::new() }).await?;
    let LeaseGrant::Lease(lease) = reply.grant else { return Ok(0) };
    let (batch, pairs) = batch_for(payload, &lease);
    c.submit(SubmitRequest { worker, batch }).await?;
    Ok(2 * pairs)
}

/// What one simulated worker did in [`lease_and_submit_until`].
#[derive(Clone, Debug, Default)]
pub struct SimTally {
    /// Lease and submit RPCs answered.
    pub rpcs: u64,
    /// Pairs submitted and recorded.
    pub pairs: u64,
    /// The first lease it was granted (its terms time the referee alone).
    pub first_lease: Option<Lease>,
}

/// Leases one pair and submits it, over and over, until `until`.
pub async fn lease_and_submit_until(
    c: &FarmClient,
    worker: WorkerId,
    payload: &[GameReport; 2],
    until: Instant,
) -> proto::Result<SimTally> {
    let mut tally = SimTally::default();
    while Instant::now() < until {
        let req = LeaseRequest { worker, free_slots: 1, held: Vec::new(), finished: Vec::new() };
        let LeaseReply { grant, .. } = c.lease(req).await?;
        tally.rpcs += 1;
        let LeaseGrant::Lease(lease) = grant else {
            continue;
        };
        let (batch, pairs) = batch_for(payload, &lease);
        if tally.first_lease.is_none() {
            tally.first_lease = Some(lease);
        }
        c.submit(SubmitRequest { worker, batch }).await?;
        tally.rpcs += 1;
        tally.pairs += pairs;
    }
    Ok(tally)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proto::domain::GameOutcome;

    #[test]
    fn the_payload_is_two_different_120_ply_draws_from_the_start() {
        let [a, b] = legal_pair(bench_tc(), &Position::startpos());
        for g in [&a, &b] {
            assert_eq!(g.moves.len(), 120, "{:?}", g.reason);
            assert_eq!(g.outcome, GameOutcome::Draw);
            assert_eq!(g.move_stats.len(), g.moves.len());
        }
        assert_ne!(a.moves, b.moves, "two different seeds play two different games");
    }

    #[test]
    fn a_pair_report_swaps_colours_between_its_games() {
        let payload = legal_pair(bench_tc(), &Position::startpos());
        let task = PairTask {
            pair_index: 7,
            pairing: 0,
            opening_index: 0,
            opening: "startpos".into(),
            second_opening: None,
            variants: [VariantId::new("x"), VariantId::new("y")],
        };
        let pair = pair_for(&payload, &task);
        assert_eq!(pair.pair_index, 7);
        let colours: Vec<(&str, &str)> = pair.games.iter().map(|g| (g.red.as_str(), g.black.as_str())).collect();
        assert_eq!(colours, [("x", "y"), ("y", "x")]);
        assert_eq!(pair.games[0].moves, payload[0].moves);
        assert_eq!(pair.games[1].moves, payload[1].moves);
    }
}
