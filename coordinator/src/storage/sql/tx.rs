//! The [`Tx`] of both SQL databases: each primitive is the function of the same name in the
//! module of its rows, called with the transaction's connection.

use std::sync::Arc;

use proto::domain::{
    ByeSlot, EngineInfo, LeaseId, Match, MatchRow, OpeningSuite, OpeningSuiteSummary, PairingStats, Run, RunId,
    RunSpec, RunState, SuiteId, TablePin, Variant, VariantId, WorkerId, WorkerInfo,
};

use engine::nnue::NetworkId;

use super::{Conn, catalog, engines, leasing, networks, results, spsa, tablebases, tournament};
use crate::error::Result;
use crate::scheduler::{EngineNeed, NewPair, RunLoad};
use crate::spsa::{HistoryPoint, Perturbation};
use crate::storage::codec::key;
use crate::storage::tx::{
    Allocation, GameEnds, LeasePair, LeasePairStatus, LeaseRow, LeaseState, NewGame, NewLease, PairResult, PairRow,
    PairStatus, PairTally, SubmissionContext, Tx, WorkerBench, WorkerSummary,
};
use crate::storage::{GameSummary, StoredGame};

/// A transaction on a SQL database: its connection.
pub(crate) struct SqlTx<'a>(pub(crate) &'a mut dyn Conn);

impl Tx for SqlTx<'_> {
    fn insert_variant(&mut self, variant: &Variant) -> Result<()> {
        catalog::insert_variant(&mut *self.0, variant)
    }

    fn variant(&mut self, id: &VariantId) -> Result<Variant> {
        catalog::load_variant(&mut *self.0, id)
    }

    fn variant_network(&mut self, id: &VariantId) -> Result<Option<NetworkId>> {
        catalog::variant_network(&mut *self.0, id)
    }

    fn variant_exists(&mut self, id: &VariantId) -> Result<bool> {
        catalog::variant_exists(&mut *self.0, id)
    }

    fn insert_network(&mut self, id: NetworkId, bytes: &[u8], now_ms: u64) -> Result<()> {
        networks::insert_network(&mut *self.0, id, bytes, now_ms)
    }

    fn network(&mut self, id: NetworkId) -> Result<Option<Vec<u8>>> {
        networks::network(&mut *self.0, id)
    }

    fn network_exists(&mut self, id: NetworkId) -> Result<bool> {
        networks::network_exists(&mut *self.0, id)
    }

    fn insert_suite(&mut self, name: &str, lines: &[String]) -> Result<SuiteId> {
        catalog::insert_suite(&mut *self.0, name, lines)
    }

    fn suite(&mut self, id: SuiteId) -> Result<OpeningSuite> {
        catalog::load_suite(&mut *self.0, id)
    }

    fn suite_size(&mut self, id: SuiteId) -> Result<usize> {
        catalog::suite_size(&mut *self.0, id)
    }

    fn opening(&mut self, suite: SuiteId, index: u32) -> Result<String> {
        catalog::opening_line(&mut *self.0, suite, index)
    }

    fn variants(&mut self) -> Result<Vec<Variant>> {
        catalog::variants(&mut *self.0)
    }

    fn suite_summaries(&mut self) -> Result<Vec<OpeningSuiteSummary>> {
        catalog::suite_summaries(&mut *self.0)
    }

    fn insert_run(&mut self, spec: &RunSpec, pairings: usize, now_ms: u64) -> Result<RunId> {
        catalog::insert_run(&mut *self.0, spec, pairings, now_ms)
    }

    fn run(&mut self, id: RunId) -> Result<Run> {
        catalog::load_run(&mut *self.0, id)
    }

    fn run_ids(&mut self) -> Result<Vec<RunId>> {
        catalog::run_ids(&mut *self.0)
    }

    fn run_spec(&mut self, id: RunId) -> Result<Arc<RunSpec>> {
        catalog::run_spec(&mut *self.0, id)
    }

    fn run_state(&mut self, id: RunId) -> Result<RunState> {
        catalog::run_state(&mut *self.0, id)
    }

    fn set_run_state(&mut self, id: RunId, state: &RunState) -> Result<()> {
        catalog::set_run_state(&mut *self.0, id, state)
    }

    fn run_stats(&mut self, id: RunId) -> Result<Vec<PairingStats>> {
        catalog::run_stats(&mut *self.0, id)
    }

    fn add_stats(&mut self, run: RunId, pairing: u32, delta: &PairingStats) -> Result<()> {
        catalog::add_stats(&mut *self.0, run, pairing, delta)
    }

    fn active_run_loads(&mut self, bench_signature: Option<u64>) -> Result<Vec<RunLoad>> {
        let (mut loads, any_engines) = leasing::run_loads(&mut *self.0, bench_signature)?;
        if any_engines {
            engines::attach_needs(&mut *self.0, &mut loads)?;
        }
        Ok(loads)
    }

    fn allocation(&mut self, run: RunId) -> Result<Allocation> {
        catalog::allocation(&mut *self.0, run)
    }

    fn exported_up_to(&mut self, run: RunId) -> Result<u64> {
        catalog::exported_up_to(&mut *self.0, run)
    }

    fn set_spsa_theta(&mut self, run: RunId, theta: &[f64]) -> Result<()> {
        spsa::set_theta(&mut *self.0, run, theta)
    }

    fn spsa_theta(&mut self, run: RunId) -> Result<Vec<f64>> {
        spsa::theta(&mut *self.0, run)
    }

    fn insert_spsa_history(&mut self, run: RunId, point: &HistoryPoint) -> Result<()> {
        spsa::insert_history(&mut *self.0, run, point)
    }

    fn spsa_history(&mut self, run: RunId) -> Result<Vec<HistoryPoint>> {
        spsa::history(&mut *self.0, run)
    }

    fn insert_spsa_lease(&mut self, lease: LeaseId, iteration: u64, perturbations: &[Perturbation]) -> Result<()> {
        spsa::insert_lease(&mut *self.0, lease, iteration, perturbations)
    }

    fn spsa_lease(&mut self, lease: LeaseId) -> Result<Option<(u64, Vec<Perturbation>)>> {
        spsa::lease(&mut *self.0, lease)
    }

    fn insert_match(&mut self, run: RunId, m: &Match) -> Result<u32> {
        tournament::insert_match(&mut *self.0, run, m)
    }

    fn matches(&mut self, run: RunId) -> Result<Vec<MatchRow>> {
        tournament::matches(&mut *self.0, run)
    }

    fn insert_bye(&mut self, run: RunId, bye: &ByeSlot) -> Result<()> {
        tournament::insert_bye(&mut *self.0, run, bye)
    }

    fn byes(&mut self, run: RunId) -> Result<Vec<ByeSlot>> {
        tournament::byes(&mut *self.0, run)
    }

    fn set_armageddon_result(&mut self, run: RunId, pairing: u32, red_points: u32) -> Result<()> {
        tournament::set_armageddon(&mut *self.0, run, pairing, red_points)
    }

    fn set_exported_up_to(&mut self, run: RunId, game_id: u64) -> Result<()> {
        catalog::set_exported_up_to(&mut *self.0, run, game_id)
    }

    fn insert_run_engines(&mut self, run: RunId, needs: &[EngineNeed]) -> Result<()> {
        engines::store_run_engines(&mut *self.0, key(run), needs)
    }

    fn insert_run_tablebases(&mut self, run: RunId, pins: &[TablePin]) -> Result<()> {
        tablebases::insert(&mut *self.0, run, pins)
    }

    fn run_tablebases(&mut self, run: RunId) -> Result<Vec<TablePin>> {
        tablebases::of_run(&mut *self.0, run)
    }

    fn run_engine_needs(&mut self, run: RunId) -> Result<Vec<EngineNeed>> {
        engines::run_engines(&mut *self.0, run)
    }

    fn pin_engine(&mut self, run: RunId, engine: &EngineInfo) -> Result<()> {
        engines::pin(&mut *self.0, run, engine)
    }

    fn store_worker_engines(&mut self, worker: WorkerId, engines: &[EngineInfo]) -> Result<()> {
        engines::store_worker_engines(&mut *self.0, worker, engines)
    }

    fn worker_engines(&mut self, worker: WorkerId) -> Result<Vec<EngineInfo>> {
        engines::worker_engines(&mut *self.0, worker)
    }

    fn connected_engines(&mut self, since_ms: u64) -> Result<Vec<Vec<EngineInfo>>> {
        engines::connected_engines(&mut *self.0, since_ms)
    }

    fn pooled_pairs(&mut self, run: RunId, limit: usize) -> Result<Vec<u64>> {
        leasing::pooled_pairs(&mut *self.0, run, limit)
    }

    fn pair(&mut self, run: RunId, index: u64) -> Result<Option<PairRow>> {
        leasing::pair(&mut *self.0, run, index)
    }

    fn insert_pair(&mut self, run: RunId, pair: NewPair, opening_index: u32) -> Result<()> {
        leasing::insert_pair(&mut *self.0, run, pair, opening_index)
    }

    fn add_allocated(&mut self, run: RunId, pairing: u32, pairs: u64) -> Result<()> {
        leasing::add_allocated(&mut *self.0, run, pairing, pairs)
    }

    fn set_next_pair_index(&mut self, run: RunId, next: u64) -> Result<()> {
        leasing::set_next_pair_index(&mut *self.0, run, next)
    }

    fn set_pair_status(&mut self, run: RunId, index: u64, status: PairStatus) -> Result<()> {
        leasing::set_pair_status(&mut *self.0, run, index, status)
    }

    fn pair_holder(&mut self, run: RunId, index: u64) -> Result<Option<LeaseId>> {
        leasing::pair_holder(&mut *self.0, run, index)
    }

    fn insert_lease(&mut self, lease: &NewLease) -> Result<LeaseId> {
        leasing::insert_lease(&mut *self.0, lease)
    }

    fn lease(&mut self, id: LeaseId) -> Result<LeaseRow> {
        leasing::lease(&mut *self.0, id)
    }

    fn set_lease_state(&mut self, id: LeaseId, state: LeaseState) -> Result<()> {
        leasing::set_lease_state(&mut *self.0, id, state)
    }

    fn set_lease_deadline(&mut self, id: LeaseId, deadline_ms: u64) -> Result<()> {
        leasing::set_lease_deadline(&mut *self.0, id, deadline_ms)
    }

    fn overdue_leases(&mut self, now_ms: u64) -> Result<Vec<LeaseId>> {
        leasing::overdue_leases(&mut *self.0, now_ms)
    }

    fn insert_lease_pair(&mut self, lease: LeaseId, run: RunId, index: u64) -> Result<()> {
        leasing::insert_lease_pair(&mut *self.0, lease, run, index)
    }

    fn lease_pairs(&mut self, lease: LeaseId) -> Result<Vec<LeasePair>> {
        leasing::lease_pairs(&mut *self.0, lease)
    }

    fn finish_leased_pair(&mut self, run: RunId, index: u64, lease: LeaseId) -> Result<()> {
        leasing::finish_leased_pair(&mut *self.0, run, index, lease)
    }

    fn set_lease_pair_status(&mut self, lease: LeaseId, index: u64, status: LeasePairStatus) -> Result<()> {
        leasing::set_lease_pair_status(&mut *self.0, lease, index, status)
    }

    fn submission_context(&mut self, lease: LeaseId, seq: u64) -> Result<SubmissionContext> {
        leasing::submission_context(&mut *self.0, lease, seq)
    }

    fn submission_seen(&mut self, lease: LeaseId, seq: u64) -> Result<bool> {
        results::submission_seen(&mut *self.0, lease, seq)
    }

    fn insert_submission(&mut self, lease: LeaseId, seq: u64, accepted: usize, now_ms: u64) -> Result<()> {
        results::insert_submission(&mut *self.0, lease, seq, accepted, now_ms)
    }

    fn insert_game(&mut self, game: NewGame<'_>) -> Result<()> {
        results::insert_game(&mut *self.0, game)
    }

    fn games_since(&mut self, run: RunId, after_game_id: u64, limit: usize) -> Result<Vec<StoredGame>> {
        results::games_since(&mut *self.0, run, after_game_id, limit)
    }

    fn game(&mut self, game_id: u64) -> Result<StoredGame> {
        results::game(&mut *self.0, game_id)
    }

    fn game_summaries(&mut self, run: RunId, offset: u64, limit: usize) -> Result<Vec<GameSummary>> {
        results::game_summaries(&mut *self.0, run, offset, limit)
    }

    fn pair_results(&mut self, run: RunId) -> Result<Vec<PairResult>> {
        results::pair_results(&mut *self.0, run)
    }

    fn game_ends(&mut self, run: RunId) -> Result<Vec<GameEnds>> {
        results::game_ends(&mut *self.0, run)
    }

    fn delete_positions(&mut self, run: RunId, after_game_id: u64, up_to_game_id: u64) -> Result<u64> {
        results::delete_positions(&mut *self.0, run, after_game_id, up_to_game_id)
    }

    fn pair_tallies(&mut self, run: RunId) -> Result<Vec<PairTally>> {
        results::pair_tallies(&mut *self.0, run)
    }

    fn update_worker_by_key(&mut self, info: &WorkerInfo, key_digest: &str, now_ms: u64) -> Result<Option<WorkerId>> {
        leasing::update_worker_by_key(&mut *self.0, info, key_digest, now_ms)
    }

    fn insert_worker(&mut self, info: &WorkerInfo, key_digest: Option<&str>, now_ms: u64) -> Result<WorkerId> {
        leasing::insert_worker(&mut *self.0, info, key_digest, now_ms)
    }

    fn touch_worker(&mut self, id: WorkerId, now_ms: u64) -> Result<WorkerBench> {
        leasing::touch_worker(&mut *self.0, id, now_ms)
    }

    fn note_worker_seen(&mut self, id: WorkerId, now_ms: u64) -> Result<()> {
        leasing::note_worker_seen(&mut *self.0, id, now_ms)
    }

    fn touch_worker_overdue(&mut self, id: WorkerId, now_ms: u64) -> Result<(WorkerBench, bool)> {
        leasing::touch_worker_overdue(&mut *self.0, id, now_ms)
    }

    fn workers(&mut self) -> Result<Vec<WorkerSummary>> {
        leasing::workers(&mut *self.0)
    }

    fn active_leases_by_worker(&mut self) -> Result<Vec<(WorkerId, u32)>> {
        leasing::active_leases_by_worker(&mut *self.0)
    }

    fn accepted_pairs_since(&mut self, since_ms: u64) -> Result<Vec<(WorkerId, u64)>> {
        leasing::accepted_pairs_since(&mut *self.0, since_ms)
    }
}
