//! The [`Tx`](super::tx::Tx) of a SQL backend, written once: each primitive is the function of
//! the same name in the backend's module of its rows (`catalog`, `engines`, `leasing`,
//! `results`, `spsa`, `tablebases`, `tournament`), called with the transaction's connection
//! first. SQLite and PostgreSQL differ in their SQL, not in this mapping.
//!
//! A backend's `tx.rs` brings those modules and the primitives' types into scope, gives its
//! transaction type a `conn(&mut self)` method that returns what its row functions take, and
//! invokes `sql_tx!(ItsTx<'_>)`.

macro_rules! sql_tx {
    ($ty:ty) => {
        impl Tx for $ty {
            fn insert_variant(&mut self, variant: &Variant) -> Result<()> {
                catalog::insert_variant(self.conn(), variant)
            }

            fn variant(&mut self, id: &VariantId) -> Result<Variant> {
                catalog::load_variant(self.conn(), id)
            }

            fn variant_exists(&mut self, id: &VariantId) -> Result<bool> {
                catalog::variant_exists(self.conn(), id)
            }

            fn insert_suite(&mut self, name: &str, lines: &[String]) -> Result<SuiteId> {
                catalog::insert_suite(self.conn(), name, lines)
            }

            fn suite(&mut self, id: SuiteId) -> Result<OpeningSuite> {
                catalog::load_suite(self.conn(), id)
            }

            fn suite_size(&mut self, id: SuiteId) -> Result<usize> {
                catalog::suite_size(self.conn(), id)
            }

            fn opening(&mut self, suite: SuiteId, index: u32) -> Result<String> {
                catalog::opening_line(self.conn(), suite, index)
            }

            fn variants(&mut self) -> Result<Vec<Variant>> {
                catalog::variants(self.conn())
            }

            fn suite_summaries(&mut self) -> Result<Vec<OpeningSuiteSummary>> {
                catalog::suite_summaries(self.conn())
            }

            fn insert_run(&mut self, spec: &RunSpec, pairings: usize, now_ms: u64) -> Result<RunId> {
                catalog::insert_run(self.conn(), spec, pairings, now_ms)
            }

            fn run(&mut self, id: RunId) -> Result<Run> {
                catalog::load_run(self.conn(), id)
            }

            fn run_ids(&mut self) -> Result<Vec<RunId>> {
                catalog::run_ids(self.conn())
            }

            fn run_spec(&mut self, id: RunId) -> Result<Arc<RunSpec>> {
                catalog::run_spec(self.conn(), id)
            }

            fn run_state(&mut self, id: RunId) -> Result<RunState> {
                catalog::run_state(self.conn(), id)
            }

            fn set_run_state(&mut self, id: RunId, state: &RunState) -> Result<()> {
                catalog::set_run_state(self.conn(), id, state)
            }

            fn run_stats(&mut self, id: RunId) -> Result<Vec<PairingStats>> {
                catalog::run_stats(self.conn(), id)
            }

            fn add_stats(&mut self, run: RunId, pairing: u32, delta: &PairingStats) -> Result<()> {
                catalog::add_stats(self.conn(), run, pairing, delta)
            }

            fn active_run_loads(&mut self, bench_signature: Option<u64>) -> Result<Vec<RunLoad>> {
                let mut loads = leasing::run_loads(self.conn(), bench_signature)?;
                engines::attach_needs(self.conn(), &mut loads)?;
                Ok(loads)
            }

            fn allocation(&mut self, run: RunId) -> Result<Allocation> {
                catalog::allocation(self.conn(), run)
            }

            fn exported_up_to(&mut self, run: RunId) -> Result<u64> {
                catalog::exported_up_to(self.conn(), run)
            }

            fn set_spsa_theta(&mut self, run: RunId, theta: &[f64]) -> Result<()> {
                spsa::set_theta(self.conn(), run, theta)
            }

            fn spsa_theta(&mut self, run: RunId) -> Result<Vec<f64>> {
                spsa::theta(self.conn(), run)
            }

            fn insert_spsa_history(&mut self, run: RunId, point: &HistoryPoint) -> Result<()> {
                spsa::insert_history(self.conn(), run, point)
            }

            fn spsa_history(&mut self, run: RunId) -> Result<Vec<HistoryPoint>> {
                spsa::history(self.conn(), run)
            }

            fn insert_spsa_lease(
                &mut self,
                lease: LeaseId,
                iteration: u64,
                perturbations: &[Perturbation],
            ) -> Result<()> {
                spsa::insert_lease(self.conn(), lease, iteration, perturbations)
            }

            fn spsa_lease(&mut self, lease: LeaseId) -> Result<Option<(u64, Vec<Perturbation>)>> {
                spsa::lease(self.conn(), lease)
            }

            fn insert_match(&mut self, run: RunId, m: &Match) -> Result<u32> {
                tournament::insert_match(self.conn(), run, m)
            }

            fn matches(&mut self, run: RunId) -> Result<Vec<MatchRow>> {
                tournament::matches(self.conn(), run)
            }

            fn insert_bye(&mut self, run: RunId, bye: &ByeSlot) -> Result<()> {
                tournament::insert_bye(self.conn(), run, bye)
            }

            fn byes(&mut self, run: RunId) -> Result<Vec<ByeSlot>> {
                tournament::byes(self.conn(), run)
            }

            fn set_armageddon_result(&mut self, run: RunId, pairing: u32, red_points: u32) -> Result<()> {
                tournament::set_armageddon(self.conn(), run, pairing, red_points)
            }

            fn set_exported_up_to(&mut self, run: RunId, game_id: u64) -> Result<()> {
                catalog::set_exported_up_to(self.conn(), run, game_id)
            }

            fn insert_run_engines(&mut self, run: RunId, needs: &[EngineNeed]) -> Result<()> {
                engines::store_run_engines(self.conn(), key(run), needs)
            }

            fn insert_run_tablebases(&mut self, run: RunId, pins: &[TablePin]) -> Result<()> {
                tablebases::insert(self.conn(), run, pins)
            }

            fn run_tablebases(&mut self, run: RunId) -> Result<Vec<TablePin>> {
                tablebases::of_run(self.conn(), run)
            }

            fn run_engine_needs(&mut self, run: RunId) -> Result<Vec<EngineNeed>> {
                engines::run_engines(self.conn(), run)
            }

            fn pin_engine(&mut self, run: RunId, engine: &EngineInfo) -> Result<()> {
                engines::pin(self.conn(), run, engine)
            }

            fn store_worker_engines(&mut self, worker: WorkerId, engines: &[EngineInfo]) -> Result<()> {
                engines::store_worker_engines(self.conn(), worker, engines)
            }

            fn worker_engines(&mut self, worker: WorkerId) -> Result<Vec<EngineInfo>> {
                engines::worker_engines(self.conn(), worker)
            }

            fn connected_engines(&mut self, since_ms: u64) -> Result<Vec<Vec<EngineInfo>>> {
                engines::connected_engines(self.conn(), since_ms)
            }

            fn pooled_pairs(&mut self, run: RunId, limit: usize) -> Result<Vec<u64>> {
                leasing::pooled_pairs(self.conn(), run, limit)
            }

            fn pair(&mut self, run: RunId, index: u64) -> Result<Option<PairRow>> {
                leasing::pair(self.conn(), run, index)
            }

            fn insert_pair(&mut self, run: RunId, pair: NewPair, opening_index: u32) -> Result<()> {
                leasing::insert_pair(self.conn(), run, pair, opening_index)
            }

            fn set_pair_status(&mut self, run: RunId, index: u64, status: PairStatus) -> Result<()> {
                leasing::set_pair_status(self.conn(), run, index, status)
            }

            fn pair_holder(&mut self, run: RunId, index: u64) -> Result<Option<LeaseId>> {
                leasing::pair_holder(self.conn(), run, index)
            }

            fn insert_lease(&mut self, lease: &NewLease) -> Result<LeaseId> {
                leasing::insert_lease(self.conn(), lease)
            }

            fn lease(&mut self, id: LeaseId) -> Result<LeaseRow> {
                leasing::lease(self.conn(), id)
            }

            fn set_lease_state(&mut self, id: LeaseId, state: LeaseState) -> Result<()> {
                leasing::set_lease_state(self.conn(), id, state)
            }

            fn set_lease_deadline(&mut self, id: LeaseId, deadline_ms: u64) -> Result<()> {
                leasing::set_lease_deadline(self.conn(), id, deadline_ms)
            }

            fn overdue_leases(&mut self, now_ms: u64) -> Result<Vec<LeaseId>> {
                leasing::overdue_leases(self.conn(), now_ms)
            }

            fn insert_lease_pair(&mut self, lease: LeaseId, run: RunId, index: u64) -> Result<()> {
                leasing::insert_lease_pair(self.conn(), lease, run, index)
            }

            fn lease_pair(&mut self, lease: LeaseId, index: u64) -> Result<Option<PairRow>> {
                leasing::lease_pair(self.conn(), lease, index)
            }

            fn lease_pairs(&mut self, lease: LeaseId) -> Result<Vec<LeasePair>> {
                leasing::lease_pairs(self.conn(), lease)
            }

            fn pending_pairs(&mut self, lease: LeaseId) -> Result<Vec<u64>> {
                leasing::pending_pairs(self.conn(), lease)
            }

            fn set_lease_pair_status(&mut self, lease: LeaseId, index: u64, status: LeasePairStatus) -> Result<()> {
                leasing::set_lease_pair_status(self.conn(), lease, index, status)
            }

            fn submission_seen(&mut self, lease: LeaseId, seq: u64) -> Result<bool> {
                results::submission_seen(self.conn(), lease, seq)
            }

            fn insert_submission(&mut self, lease: LeaseId, seq: u64, accepted: usize, now_ms: u64) -> Result<()> {
                results::insert_submission(self.conn(), lease, seq, accepted, now_ms)
            }

            fn insert_game(&mut self, game: NewGame<'_>) -> Result<u64> {
                results::insert_game(self.conn(), game)
            }

            fn games_since(&mut self, run: RunId, after_game_id: u64, limit: usize) -> Result<Vec<StoredGame>> {
                results::games_since(self.conn(), run, after_game_id, limit)
            }

            fn game(&mut self, game_id: u64) -> Result<StoredGame> {
                results::game(self.conn(), game_id)
            }

            fn game_summaries(&mut self, run: RunId, offset: u64, limit: usize) -> Result<Vec<GameSummary>> {
                results::game_summaries(self.conn(), run, offset, limit)
            }

            fn pair_results(&mut self, run: RunId) -> Result<Vec<PairResult>> {
                results::pair_results(self.conn(), run)
            }

            fn game_ends(&mut self, run: RunId) -> Result<Vec<GameEnds>> {
                results::game_ends(self.conn(), run)
            }

            fn pair_tallies(&mut self, run: RunId) -> Result<Vec<PairTally>> {
                results::pair_tallies(self.conn(), run)
            }

            fn upsert_worker(&mut self, info: &WorkerInfo, key_digest: Option<&str>, now_ms: u64) -> Result<WorkerId> {
                leasing::insert_worker(self.conn(), info, key_digest, now_ms)
            }

            fn touch_worker(&mut self, id: WorkerId, now_ms: u64) -> Result<WorkerBench> {
                leasing::touch_worker(self.conn(), id, now_ms)
            }

            fn workers(&mut self) -> Result<Vec<WorkerSummary>> {
                leasing::workers(self.conn())
            }

            fn active_leases_by_worker(&mut self) -> Result<Vec<(WorkerId, u32)>> {
                leasing::active_leases_by_worker(self.conn())
            }

            fn accepted_pairs_since(&mut self, since_ms: u64) -> Result<Vec<(WorkerId, u64)>> {
                leasing::accepted_pairs_since(self.conn(), since_ms)
            }
        }
    };
}
