//! The lease workflow, written once over the [`Tx`] primitives: handing out batches, recording
//! results idempotently, heartbeats, expiry and run state changes. Every backend gets the
//! [`Storage`] trait from here; each call is one transaction of its backend.
//!
//! The life of a pair: created when first leased (its index, pairing and opening fixed from
//! then on), `leased` to exactly one lease at a time, back to the pool when that lease expires
//! or is closed unfinished, and `done` once its result is recorded — exactly once, whichever
//! lease reports it first.

use std::collections::BTreeMap;

use engine::nnue::NetworkId;
use proto::domain::{
    EngineInfo, Lease, LeaseId, OpeningSuite, OpeningSuiteSummary, PairReport, PairTask, PairingStats, Run, RunId,
    RunKind, RunSpec, RunState, SpsaBatch, SpsaValue, SuiteId, TablePin, TournamentDraw, Variant, VariantId,
    VariantSpec, WorkerId, WorkerInfo,
};

use super::tx::{
    Backend, LeasePair, LeasePairStatus, LeaseRow, LeaseState, NewGame, NewLease, PairRow, PairStatus,
    SubmissionContext, Tx,
};
use super::{
    GameSummary, LeaseTerms, RecordOutcome, RunAggregates, Storage, StoredGame, WorkerRow, check_state_change,
    make_task, reads, task_variant_ids,
};
use crate::datagen;
use crate::error::{Error, Result};
use crate::scheduler::{self, EngineNeed, NewPair, Pairing};
use crate::spec;
use crate::spsa::{self, HistoryPoint};
use crate::tc_scale::{self, ReferenceNps, ScaledBy};
use crate::tournament::director::{self, Advance, Played, Stage, Tournament};

/// Expires overdue leases, then hands the worker a batch from the run [`scheduler::choose_run`]
/// picks among those it may play (bench signature, engines): pooled pairs first, then new ones.
/// The first lease of a run to a worker pins each engine the run needs to that worker's binary
/// ([`scheduler::new_pins`]). The lease's time control is the run's scaled to the worker's
/// bench speed against `references` ([`tc_scale::lease_scale`]: the speeds with a network for a
/// run that plays one), its batch sized by that time control, and the scale stored with the
/// lease for [`lease_terms`].
pub fn lease_batch(
    tx: &mut dyn Tx,
    worker: WorkerId,
    free_slots: u32,
    references: ReferenceNps,
    now_ms: u64,
) -> Result<Option<Lease>> {
    let (bench, overdue) = tx.touch_worker_overdue(worker, now_ms)?;
    if overdue {
        expire_leases(tx, now_ms)?;
    }
    if free_slots == 0 {
        return Ok(None);
    }
    let loads = tx.active_run_loads(Some(bench.signature))?;
    // Only runs that name external engines ask which engines the worker has.
    let worker_engines =
        if loads.iter().any(|l| !l.engines.is_empty()) { tx.worker_engines(worker)? } else { Vec::new() };
    let Some(run) = scheduler::choose_run(&loads, &worker_engines) else {
        return Ok(None);
    };
    let spec = tx.run_spec(run)?;
    let (pairings, targets) = run_pairings(tx, run, &spec)?;
    let suite_len = tx.suite_size(spec.openings)?;
    let by = scaled_by(tx, &spec)?;
    let scale = tc_scale::lease_scale(references, bench.nps, bench.nnue_nps, by).scale;
    let tc = scale.apply(spec.tc);
    // About a minute of play on this worker: a slow one, given more time, gets fewer pairs.
    let batch = scheduler::batch_pairs(tc, free_slots);
    // The loads were read in this transaction: they hold the run's allocation, and a run with no
    // pooled pairs has none to read.
    let load = loads.iter().find(|l| l.run == run).ok_or_else(|| Error::Corrupt(format!("run {run} has no load")))?;
    let pooled = if load.requeued > 0 { tx.pooled_pairs(run, batch)? } else { Vec::new() };
    let plan = scheduler::plan_batch(&pooled, &load.allocated, &targets, load.next_pair_index, batch);
    if plan.is_empty() {
        return Ok(None);
    }
    let needs = &load.engines[..];
    for engine in scheduler::new_pins(needs, &worker_engines) {
        tx.pin_engine(run, engine)?;
        tracing::info!(run = %run, engine = %engine.name, sha256 = %engine.sha256, id_name = %engine.id_name, "engine pinned");
    }

    let duration_ms = scheduler::LEASE_TIMEOUT_MS;
    let deadline_ms = now_ms.saturating_add(duration_ms);
    let new = NewLease { run, worker, created_ms: now_ms, deadline_ms, duration_ms, tc_scale: scale };
    let lease = tx.insert_lease(&new)?;
    let mut tasks: Vec<PairTask> = Vec::with_capacity(plan.len());
    for &index in &plan.requeued {
        let pair = tx.pair(run, index)?.ok_or_else(|| Error::Corrupt(format!("pooled pair {index} unknown")))?;
        tx.set_pair_status(run, index, PairStatus::Leased)?;
        tasks.push(task(tx, run, &spec, &pairings, index, pair.pairing, pair.opening_index)?);
    }
    let openings = insert_pairs(tx, run, &plan.fresh, load.next_pair_index, suite_len)?;
    for (&new, opening_index) in plan.fresh.iter().zip(openings) {
        tasks.push(task(tx, run, &spec, &pairings, new.pair_index, new.pairing, opening_index)?);
    }
    for task in &tasks {
        tx.insert_lease_pair(lease, run, task.pair_index)?;
    }
    let variants = task_variant_ids(&tasks).iter().map(|id| tx.variant(id)).collect::<Result<Vec<_>>>()?;
    let spsa = match &spec.kind {
        RunKind::Spsa(_) => Some(draw_spsa(tx, &spec, run, lease)?),
        _ => None,
    };
    tracing::debug!(lease = %lease, run = %run, worker = %worker, pairs = tasks.len(), %tc, %scale, "lease granted");
    Ok(Some(Lease {
        id: lease,
        run,
        tasks,
        deadline_unix_ms: deadline_ms,
        tc,
        adjudication: spec.adjudication,
        sample_every: spec.sample_every,
        variants,
        spsa,
        tablebases: tx.run_tablebases(run)?,
    }))
}

/// Which of a worker's speeds scale the run: a network's when one of its in-process variants
/// evaluates with a network.
fn scaled_by(tx: &mut dyn Tx, spec: &RunSpec) -> Result<ScaledBy> {
    for id in &spec.variants {
        if tx.variant_network(id)?.is_some() {
            return Ok(ScaledBy::Network);
        }
    }
    Ok(ScaledBy::Hce)
}

/// Draws an SPSA lease's perturbation at the run's next iteration and stores it, so that
/// its results are applied with what it played.
fn draw_spsa(tx: &mut dyn Tx, spec: &RunSpec, run: RunId, lease: LeaseId) -> Result<SpsaBatch> {
    let RunKind::Spsa(settings) = &spec.kind else {
        return Err(Error::Corrupt(format!("run {run} is not an SPSA run")));
    };
    let recorded: u64 = tx.run_stats(run)?.iter().map(scheduler::pairs_recorded).sum();
    let iteration = recorded + 1;
    let theta = tx.spsa_theta(run)?;
    let flips = spsa::flips(run, lease, settings.params.len());
    let (perturbations, batch) = spsa::perturb(settings, &theta, iteration, &flips);
    tx.insert_spsa_lease(lease, iteration, &perturbations)?;
    Ok(batch)
}

/// Applies the pairs a submission counted to an SPSA run's values, with the perturbation of
/// the lease that played them, and notes the new values in the run's history.
fn apply_spsa(
    tx: &mut dyn Tx,
    spec: &RunSpec,
    run: RunId,
    lease: LeaseId,
    half_points: &[usize],
    now_ms: u64,
) -> Result<()> {
    let RunKind::Spsa(settings) = &spec.kind else {
        return Ok(());
    };
    if half_points.is_empty() {
        return Ok(());
    }
    let (_, perturbations) =
        tx.spsa_lease(lease)?.ok_or_else(|| Error::Corrupt(format!("SPSA lease {lease} has no perturbation")))?;
    let result: i64 = half_points.iter().map(|&h| spsa::wins_minus_losses(h)).sum();
    let mut theta = tx.spsa_theta(run)?;
    spsa::update(settings, &mut theta, &perturbations, result);
    tx.set_spsa_theta(run, &theta)?;
    let iteration: u64 = tx.run_stats(run)?.iter().map(scheduler::pairs_recorded).sum();
    tx.insert_spsa_history(run, &HistoryPoint { iteration, received_ms: now_ms, theta })
}

/// A run's pairings and the pairs each plays: the kind's ([`scheduler::pairings`]), or a
/// tournament's matches drawn so far.
fn run_pairings(tx: &mut dyn Tx, run: RunId, spec: &RunSpec) -> Result<(Vec<Pairing>, Vec<Option<u64>>)> {
    if let RunKind::Tournament(_) = spec.kind {
        let rows = tx.matches(run)?;
        let pairings = rows.iter().map(|r| Pairing { a: r.m.a, b: r.m.b }).collect();
        let pairs: Vec<u64> = rows.iter().map(|r| r.m.pairs).collect();
        return Ok((pairings, scheduler::pairing_targets(&spec.kind, rows.len(), Some(&pairs))));
    }
    let pairings = scheduler::pairings(spec);
    let targets = scheduler::pairing_targets(&spec.kind, pairings.len(), None);
    Ok((pairings, targets))
}

/// A tournament's stored draw with what each match recorded.
pub fn tournament_state(tx: &mut dyn Tx, run: RunId, spec: &RunSpec) -> Result<Option<Tournament>> {
    let RunKind::Tournament(settings) = &spec.kind else {
        return Ok(None);
    };
    let stats = tx.run_stats(run)?;
    let rows = tx.matches(run)?;
    if stats.len() != rows.len() {
        return Err(Error::Corrupt(format!(
            "tournament {run} has {} matches and {} pairings",
            rows.len(),
            stats.len()
        )));
    }
    let played = rows.iter().zip(stats).map(|(r, stats)| Played {
        m: r.m,
        stats,
        armageddon_red_points: r.armageddon_red_points,
    });
    Ok(Some(Tournament {
        settings: settings.clone(),
        players: spec.variants.len(),
        played: played.collect(),
        byes: tx.byes(run)?,
    }))
}

/// Lets a tournament's director ([`director::advance`]) act on its stored state: store the next
/// round's draw (or a knockout tie's extra games), end it after its last round, or stop it
/// when its next round cannot be paired. Runs in the transaction that recorded the round's
/// last result (or created the run), so the draw is stored with it or not at all.
fn direct_tournament(tx: &mut dyn Tx, run: RunId, spec: &RunSpec) -> Result<()> {
    let Some(t) = tournament_state(tx, run, spec)? else {
        return Ok(());
    };
    match director::advance(&t.settings, t.players, &t.played, &t.byes) {
        Advance::Wait => {}
        Advance::Play { matches, byes } => {
            for m in &matches {
                tx.insert_match(run, m)?;
            }
            for bye in &byes {
                tx.insert_bye(run, bye)?;
            }
            let round = matches.first().map(|m| m.round).or(byes.first().map(|b| b.round)).unwrap_or(0);
            tracing::info!(run = %run, round, matches = matches.len(), byes = byes.len(), "tournament round drawn");
        }
        Advance::Finished => {
            tx.set_run_state(run, &RunState::Completed)?;
            tracing::info!(run = %run, "tournament completed");
        }
        Advance::Stuck(why) => {
            tx.set_run_state(run, &RunState::Stopped)?;
            tracing::warn!(run = %run, %why, "tournament stopped");
        }
    }
    Ok(())
}

/// Notes the deciding game of an Armageddon match when its pair is recorded.
fn note_armageddon(tx: &mut dyn Tx, run: RunId, pairing: u32, report: &PairReport) -> Result<()> {
    let rows = tx.matches(run)?;
    let is_armageddon = rows.iter().any(|r| r.pairing == pairing && r.m.stage == Stage::Armageddon);
    if let (true, Some(first)) = (is_armageddon, report.games.first()) {
        tx.set_armageddon_result(run, pairing, u32::from(first.outcome.half_points(true)))?;
    }
    Ok(())
}

/// The task of pair `index`: its players and its opening line, the suite's (for a datagen run,
/// followed by each game's random plies: [`datagen::random_opening`], the same whenever the
/// pair is leased or refereed).
fn task(
    tx: &mut dyn Tx,
    run: RunId,
    spec: &RunSpec,
    pairings: &[Pairing],
    index: u64,
    pairing: u32,
    opening_index: u32,
) -> Result<PairTask> {
    let line = tx.opening(spec.openings, opening_index)?;
    let openings = match &spec.kind {
        RunKind::Datagen(settings) => {
            let game = |game| {
                datagen::random_opening(&line, run, index, game, settings.random_plies)
                    .map_err(|e| Error::Corrupt(format!("opening {opening_index} of run {run}: {e}")))
            };
            let (first, second) = (game(0)?, game(1)?);
            let second = (second != first).then_some(second);
            (first, second)
        }
        _ => (line, None),
    };
    make_task(spec, pairings, index, pairing, opening_index, openings)
}

/// The lease's run rules and every pair it was given, whatever the lease's state; its time
/// control is the run's scaled by the scale stored with the lease, as [`lease_batch`] gave it.
pub fn lease_terms(tx: &mut dyn Tx, lease: LeaseId) -> Result<LeaseTerms> {
    let row = tx.lease(lease)?;
    let run = row.run;
    let spec = tx.run_spec(run)?;
    let (pairings, _) = run_pairings(tx, run, &spec)?;
    let tasks = tx
        .lease_pairs(lease)?
        .into_iter()
        .map(|p| task(tx, run, &spec, &pairings, p.index, p.pair.pairing, p.pair.opening_index))
        .collect::<Result<Vec<_>>>()?;
    Ok(LeaseTerms {
        lease,
        run,
        tc: row.tc_scale.apply(spec.tc),
        adjudication: spec.adjudication,
        sample_every: spec.sample_every,
        tasks,
        tablebases: tx.run_tablebases(run)?,
    })
}

/// The lease, if the worker holds it.
fn owned_lease(tx: &mut dyn Tx, worker: WorkerId, lease: LeaseId) -> Result<LeaseRow> {
    owned(tx.lease(lease)?, worker, lease)
}

/// `row` (lease `lease`'s), if the worker holds it.
fn owned(row: LeaseRow, worker: WorkerId, lease: LeaseId) -> Result<LeaseRow> {
    if row.worker != worker {
        return Err(Error::LeaseNotOwned { lease, worker });
    }
    Ok(row)
}

/// Records a submission: see [`Storage::record_results`]. Everything is checked before
/// anything changes.
pub fn record_results(
    tx: &mut dyn Tx,
    worker: WorkerId,
    lease: LeaseId,
    seq: u64,
    pairs: &[PairReport],
    final_batch: bool,
    now_ms: u64,
) -> Result<RecordOutcome> {
    // The lease's pairs are read with it: each report is checked against them, and those still
    // pending once the reports are recorded are the lease's unfinished ones.
    let SubmissionContext { lease: row, seen, pairs: given, fewest_recorded } = tx.submission_context(lease, seq)?;
    let row = owned(row, worker, lease)?;
    let run = row.run;
    if seen {
        return Ok(RecordOutcome { run, accepted: 0, duplicate: true });
    }
    let mut checked = Vec::with_capacity(pairs.len());
    for report in pairs {
        let pair = given
            .binary_search_by_key(&report.pair_index, |p| p.index)
            .map(|i| given[i].pair)
            .map_err(|_| Error::invalid_report(lease, report.pair_index, "the pair is not part of this lease"))?;
        checked.push((report, pair));
    }
    tx.note_worker_seen(worker, now_ms)?;

    let spec = tx.run_spec(run)?;
    let tournament = matches!(spec.kind, RunKind::Tournament(_));
    let mut accepted = 0;
    let mut half_points = Vec::new();
    let mut recorded = std::collections::HashSet::new();
    for (report, mut pair) in checked {
        // The pairs were read above and nothing since changed them, but a pair reported twice in
        // one submission, which its first report made done.
        if recorded.contains(&report.pair_index) {
            pair.status = PairStatus::Done;
        }
        if record_pair(tx, run, lease, worker, report, &pair)? {
            recorded.insert(report.pair_index);
            accepted += 1;
            half_points.push(report.first_half_points());
            if tournament {
                note_armageddon(tx, run, pair.pairing, report)?;
            }
        }
    }
    apply_spsa(tx, &spec, run, lease, &half_points, now_ms)?;
    if tournament && accepted > 0 && tx.run_state(run)? == RunState::Active {
        direct_tournament(tx, run, &spec)?;
    }
    // Only bounded runs complete by themselves; an SPRT waits for its verdict. The statistics
    // are read only once the counts read with the lease say the run may be complete, and the
    // state once they say it is (all reads: the order changes nothing else).
    if accepted > 0
        && scheduler::may_complete(&spec.kind, fewest_recorded, accepted as u64)
        && scheduler::is_complete(&spec.kind, &tx.run_stats(run)?)
        && tx.run_state(run)? == RunState::Active
    {
        tx.set_run_state(run, &RunState::Completed)?;
        tracing::info!(run = %run, "run completed");
    }
    if row.state == LeaseState::Active {
        // Recording a pair finished this lease's entry for it (Tx::finish_leased_pair); nothing
        // else in this call changes the lease's entries.
        let pending: Vec<LeasePair> = given
            .into_iter()
            .filter(|p| p.status == LeasePairStatus::Pending && !recorded.contains(&p.index))
            .collect();
        if final_batch || pending.is_empty() {
            end_lease_with(tx, lease, run, LeaseState::Closed, &pending)?;
        } else {
            tx.set_lease_deadline(lease, row.deadline_ms.max(now_ms.saturating_add(row.duration_ms)))?;
        }
    }
    tx.insert_submission(lease, seq, accepted, now_ms)?;
    tracing::debug!(lease = %lease, seq, accepted, "results recorded");
    Ok(RecordOutcome { run, accepted, duplicate: false })
}

/// Records one checked pair, whose row `pair` is as it stands now, unless it was recorded before
/// (under any lease, or earlier in the same submission); returns whether it counted.
fn record_pair(
    tx: &mut dyn Tx,
    run: RunId,
    lease: LeaseId,
    worker: WorkerId,
    report: &PairReport,
    pair: &PairRow,
) -> Result<bool> {
    let index = report.pair_index;
    let PairRow { pairing, opening_index, status } = *pair;
    if status == PairStatus::Done {
        return Ok(false);
    }
    // Whichever lease holds the pair now (this one, or another after an expiry) is done with it.
    tx.set_pair_status(run, index, PairStatus::Done)?;
    tx.finish_leased_pair(run, index, lease)?;
    let mut delta = PairingStats::default();
    delta.add_pair(report.outcomes());
    tx.add_stats(run, pairing, &delta)?;
    for (game_in_pair, game) in (0u8..).zip(report.games.iter()) {
        tx.insert_game(NewGame { run, pair_index: index, game_in_pair, opening_index, pairing, worker, report: game })?;
    }
    Ok(true)
}

/// Ends an active lease: its pending pairs go back to the pool. Returns how many did.
fn end_lease(tx: &mut dyn Tx, lease: LeaseId, run: RunId, state: LeaseState) -> Result<usize> {
    let mut pairs = tx.lease_pairs(lease)?;
    pairs.retain(|p| p.status == LeasePairStatus::Pending);
    end_lease_with(tx, lease, run, state, &pairs)
}

/// [`end_lease`] with the lease's pending pairs as read in this transaction (`pending`, each
/// with its pair's status): a pair still leased goes back to the pool, and each entry is
/// marked returned.
fn end_lease_with(
    tx: &mut dyn Tx,
    lease: LeaseId,
    run: RunId,
    state: LeaseState,
    pending: &[LeasePair],
) -> Result<usize> {
    let mut returned = 0;
    for p in pending {
        if p.pair.status == PairStatus::Leased {
            tx.set_pair_status(run, p.index, PairStatus::Pooled)?;
            returned += 1;
        }
        tx.set_lease_pair_status(lease, p.index, LeasePairStatus::Returned)?;
    }
    tx.set_lease_state(lease, state)?;
    Ok(returned)
}

/// Expires every active lease past its deadline; returns how many.
pub fn expire_leases(tx: &mut dyn Tx, now_ms: u64) -> Result<usize> {
    let overdue = tx.overdue_leases(now_ms)?;
    for &lease in &overdue {
        let run = tx.lease(lease)?.run;
        let returned = end_lease(tx, lease, run, LeaseState::Expired)?;
        tracing::info!(lease = %lease, returned, "lease expired");
    }
    Ok(overdue.len())
}

/// Extends an active lease; returns its new deadline.
pub fn heartbeat(tx: &mut dyn Tx, worker: WorkerId, lease: LeaseId, now_ms: u64) -> Result<u64> {
    let row = owned_lease(tx, worker, lease)?;
    if row.state != LeaseState::Active {
        return Err(Error::LeaseClosed(lease));
    }
    let deadline = row.deadline_ms.max(now_ms.saturating_add(row.duration_ms));
    tx.set_lease_deadline(lease, deadline)?;
    tx.touch_worker(worker, now_ms)?;
    Ok(deadline)
}

/// Stops, resumes or records a verdict, if [`check_state_change`] allows it.
pub fn set_run_state(tx: &mut dyn Tx, id: RunId, state: RunState) -> Result<Run> {
    let mut run = checked_run(tx, id)?;
    check_state_change(&run, &state)?;
    tx.set_run_state(id, &state)?;
    run.state = state;
    Ok(run)
}

/// Creates a run whose spec was checked, after checking that its variants and suite exist,
/// noting the engines its variants name ([`scheduler::engine_needs`]) and pinning the endgame
/// tables it is adjudicated by.
pub fn create_run(tx: &mut dyn Tx, spec: &RunSpec, tablebases: &[TablePin], now_ms: u64) -> Result<Run> {
    let mut variants = Vec::with_capacity(spec.variants.len());
    for id in &spec.variants {
        variants.push(tx.variant(id)?.spec);
    }
    tx.suite_size(spec.openings)?;
    let id = tx.insert_run(spec, scheduler::pairings(spec).len(), now_ms)?;
    if id.is_imported() {
        // The ids from here on are imported runs' (`xqfarm import pgn`): never one of ours.
        return Err(Error::InvalidSpec {
            field: "run id".into(),
            reason: format!("the store reached run {id}, the first id kept for imported runs"),
        });
    }
    tx.insert_run_engines(id, &scheduler::engine_needs(&variants))?;
    tx.insert_run_tablebases(id, tablebases)?;
    if let RunKind::Spsa(settings) = &spec.kind {
        let theta = spsa::start(settings);
        tx.set_spsa_theta(id, &theta)?;
        tx.insert_spsa_history(id, &HistoryPoint { iteration: 0, received_ms: now_ms, theta })?;
    }
    // A tournament's first round is drawn with it.
    direct_tournament(tx, id, spec)?;
    checked_run(tx, id)
}

/// A run, checked: one statistics row per pairing its spec makes (a tournament adds its matches'
/// pairings as it goes).
fn checked_run(tx: &mut dyn Tx, id: RunId) -> Result<Run> {
    let run = tx.run(id)?;
    if !matches!(run.spec.kind, RunKind::Tournament(_)) && run.stats.len() != scheduler::pairings(&run.spec).len() {
        return Err(Error::Corrupt(format!("run {id} has {} pairings stored", run.stats.len())));
    }
    Ok(run)
}

/// Creates a lease's new pairs and counts them in the run's allocation: one more for each
/// pair's pairing, and the next index beyond the last. `next_pair_index` is the allocation's
/// before them. Returns each pair's opening.
fn insert_pairs(
    tx: &mut dyn Tx,
    run: RunId,
    fresh: &[NewPair],
    next_pair_index: u64,
    suite_len: usize,
) -> Result<Vec<u32>> {
    let mut per_pairing: BTreeMap<u32, u64> = BTreeMap::new();
    let mut next = next_pair_index;
    let mut openings = Vec::with_capacity(fresh.len());
    for &new in fresh {
        let opening_index = scheduler::opening_for_pair(run, new.pair_index, suite_len);
        tx.insert_pair(run, new, opening_index)?;
        openings.push(opening_index);
        *per_pairing.entry(new.pairing).or_default() += 1;
        next = next.max(new.pair_index.saturating_add(1));
    }
    for (pairing, pairs) in per_pairing {
        tx.add_allocated(run, pairing, pairs)?;
    }
    if next != next_pair_index {
        tx.set_next_pair_index(run, next)?;
    }
    Ok(openings)
}

/// Registers a worker whose description was checked, with the engines it advertised: a worker
/// whose key digest is known gets its id back with its description replaced (its engines are
/// then replaced too); any other gets a new id.
pub fn register_worker(tx: &mut dyn Tx, info: &WorkerInfo, key_digest: Option<&str>, now_ms: u64) -> Result<WorkerId> {
    let known = match key_digest {
        Some(digest) => tx.update_worker_by_key(info, digest, now_ms)?,
        None => None,
    };
    let id = match known {
        Some(id) => id,
        None => tx.insert_worker(info, key_digest, now_ms)?,
    };
    tx.store_worker_engines(id, &info.engines)?;
    Ok(id)
}

impl<B: Backend> Storage for B {
    fn add_variant(&self, variant: &VariantSpec) -> Result<Variant> {
        spec::validate_variant_spec(variant)?;
        let network = spec::network_of(variant)?;
        let variant = Variant { id: spec::variant_id(variant), spec: variant.clone() };
        let stored = variant.clone();
        self.write("adding a variant", move |tx| {
            if let Some(id) = network
                && !tx.network_exists(id)?
            {
                return Err(Error::NetworkNotFound(id));
            }
            tx.insert_variant(&stored)
        })?;
        Ok(variant)
    }

    fn add_network(&self, id: NetworkId, bytes: &[u8], now_ms: u64) -> Result<()> {
        let owned = bytes.to_vec();
        self.write("adding a network", move |tx| tx.insert_network(id, &owned, now_ms))
    }

    fn get_network(&self, id: NetworkId) -> Result<Vec<u8>> {
        self.read("reading a network", move |tx| tx.network(id)?.ok_or(Error::NetworkNotFound(id)))
    }

    fn get_variant(&self, id: &VariantId) -> Result<Variant> {
        let id = id.clone();
        self.read("reading a variant", move |tx| tx.variant(&id))
    }

    fn add_openings(&self, name: &str, lines: &[String]) -> Result<OpeningSuite> {
        spec::validate_suite(name, lines)?;
        let (owned_name, owned_lines) = (name.to_owned(), lines.to_vec());
        let id = self.write("adding openings", move |tx| {
            // The same name and openings are the same suite, as a variant's content is its id:
            // adding it again (a resumed campaign does) finds it, and its runs with it.
            for summary in tx.suite_summaries()? {
                if summary.name == owned_name
                    && summary.openings as usize == owned_lines.len()
                    && tx.suite(summary.id)?.openings == owned_lines
                {
                    return Ok(summary.id);
                }
            }
            tx.insert_suite(&owned_name, &owned_lines)
        })?;
        Ok(OpeningSuite { id, name: name.into(), openings: lines.to_vec() })
    }

    fn get_suite(&self, id: SuiteId) -> Result<OpeningSuite> {
        self.read("reading a suite", move |tx| tx.suite(id))
    }

    fn create_run_pinned(&self, run_spec: &RunSpec, tablebases: &[TablePin], now_ms: u64) -> Result<Run> {
        spec::validate_run_spec(run_spec)?;
        let owned = run_spec.clone();
        let pins = tablebases.to_vec();
        let run = self.write("creating a run", move |tx| create_run(tx, &owned, &pins, now_ms))?;
        tracing::info!(run = %run.id, name = %run.spec.name, "run created");
        Ok(run)
    }

    fn get_run(&self, id: RunId) -> Result<Run> {
        self.read("reading a run", move |tx| checked_run(tx, id))
    }

    fn list_runs(&self) -> Result<Vec<Run>> {
        self.read("listing runs", |tx| tx.run_ids()?.into_iter().map(|id| checked_run(tx, id)).collect())
    }

    fn set_run_state(&self, id: RunId, state: RunState) -> Result<Run> {
        let run = self.write("setting a run's state", move |tx| set_run_state(tx, id, state.clone()))?;
        tracing::info!(run = %id, state = ?run.state, "run state set");
        Ok(run)
    }

    fn register_worker(&self, info: &WorkerInfo, now_ms: u64) -> Result<WorkerId> {
        spec::validate_worker_info(info)?;
        let digest = spec::worker_key_digest(&info.worker_key);
        let owned = info.clone();
        let id =
            self.write("registering a worker", move |tx| register_worker(tx, &owned, digest.as_deref(), now_ms))?;
        tracing::info!(worker = %id, name = %info.name, "worker registered");
        Ok(id)
    }

    fn lease_batch_scaled(
        &self,
        worker: WorkerId,
        free_slots: u32,
        references: ReferenceNps,
        now_ms: u64,
    ) -> Result<Option<Lease>> {
        self.write("leasing a batch", move |tx| lease_batch(tx, worker, free_slots, references, now_ms))
    }

    fn lease_terms(&self, lease: LeaseId) -> Result<LeaseTerms> {
        self.read("reading a lease's terms", move |tx| lease_terms(tx, lease))
    }

    fn record_results(
        &self,
        worker: WorkerId,
        lease: LeaseId,
        seq: u64,
        pairs: &[PairReport],
        final_batch: bool,
        now_ms: u64,
    ) -> Result<RecordOutcome> {
        let pairs = pairs.to_vec();
        self.write("recording results", move |tx| record_results(tx, worker, lease, seq, &pairs, final_batch, now_ms))
    }

    fn heartbeat(&self, worker: WorkerId, lease: LeaseId, now_ms: u64) -> Result<u64> {
        self.write("extending a lease", move |tx| heartbeat(tx, worker, lease, now_ms))
    }

    fn expire_leases(&self, now_ms: u64) -> Result<usize> {
        self.write("expiring leases", move |tx| expire_leases(tx, now_ms))
    }

    fn games_since(&self, run: RunId, after_game_id: u64, limit: usize) -> Result<Vec<StoredGame>> {
        self.read("reading games", move |tx| tx.games_since(run, after_game_id, limit))
    }

    fn mark_exported(&self, run: RunId, up_to_game_id: u64) -> Result<()> {
        self.write("marking games exported", move |tx| {
            if up_to_game_id > tx.exported_up_to(run)? {
                tx.set_exported_up_to(run, up_to_game_id)?;
            }
            Ok(())
        })
    }

    fn exported_up_to(&self, run: RunId) -> Result<u64> {
        self.read("reading the export mark", move |tx| tx.exported_up_to(run))
    }

    fn prune_exported_positions(&self, run: RunId, after_game_id: u64, up_to_game_id: u64) -> Result<u64> {
        self.write("pruning exported positions", move |tx| {
            let exported = tx.exported_up_to(run)?;
            tx.delete_positions(run, after_game_id, up_to_game_id.min(exported))
        })
    }

    fn run_engines(&self, run: RunId) -> Result<Vec<EngineNeed>> {
        self.read("reading a run's engines", move |tx| {
            tx.run_state(run)?;
            tx.run_engine_needs(run)
        })
    }

    fn connected_engines(&self, since_ms: u64) -> Result<Vec<Vec<EngineInfo>>> {
        self.read("reading the connected workers' engines", move |tx| tx.connected_engines(since_ms))
    }

    fn list_variants(&self) -> Result<Vec<Variant>> {
        self.read("listing variants", |tx| tx.variants())
    }

    fn list_suites(&self) -> Result<Vec<OpeningSuiteSummary>> {
        self.read("listing opening suites", |tx| tx.suite_summaries())
    }

    fn get_game(&self, game_id: u64) -> Result<StoredGame> {
        self.read("reading a game", move |tx| tx.game(game_id))
    }

    fn run_games_page(&self, run: RunId, offset: u64, limit: usize) -> Result<Vec<GameSummary>> {
        self.read("reading a page of games", move |tx| tx.game_summaries(run, offset, limit))
    }

    fn run_aggregates(&self, run: RunId) -> Result<RunAggregates> {
        self.read("reading a run's aggregates", move |tx| reads::run_aggregates(tx, run))
    }

    fn run_pair_sequence(&self, run: RunId) -> Result<Vec<(u32, u8)>> {
        self.read("reading a run's pair sequence", move |tx| reads::run_pair_sequence(tx, run))
    }

    fn list_workers(&self, now_ms: u64) -> Result<Vec<WorkerRow>> {
        self.read("listing workers", move |tx| reads::list_workers(tx, now_ms))
    }

    fn spsa_values(&self, run: RunId) -> Result<Vec<SpsaValue>> {
        self.read("reading an SPSA run's values", move |tx| {
            let spec = tx.run_spec(run)?;
            match &spec.kind {
                RunKind::Spsa(settings) => Ok(spsa::values(settings, &tx.spsa_theta(run)?)),
                _ => Ok(Vec::new()),
            }
        })
    }

    fn tournament_draw(&self, run: RunId) -> Result<Option<TournamentDraw>> {
        self.read("reading a tournament's draw", move |tx| {
            let spec = tx.run_spec(run)?;
            if !matches!(spec.kind, RunKind::Tournament(_)) {
                return Ok(None);
            }
            let names = spec.variants.iter().map(|id| Ok(tx.variant(id)?.spec.name)).collect::<Result<_>>()?;
            Ok(Some(TournamentDraw { matches: tx.matches(run)?, byes: tx.byes(run)?, names }))
        })
    }

    fn spsa_history(&self, run: RunId) -> Result<Vec<HistoryPoint>> {
        self.read("reading an SPSA run's history", move |tx| {
            tx.run_state(run)?;
            tx.spsa_history(run)
        })
    }

    fn farm_load(&self) -> Result<reads::FarmLoad> {
        self.read("reading the farm's load", reads::farm_load)
    }

    fn transaction_times(&self) -> Vec<(String, crate::metrics::Histogram)> {
        self.timings().map(|t| t.snapshot().into_iter().collect()).unwrap_or_default()
    }

    fn announce(&self, change: super::feed::Change) {
        Backend::announce(self, change);
    }

    fn listen(&self, sink: super::feed::ChangeSink) -> Result<bool> {
        Backend::listen(self, sink)
    }

    fn exporter(&self) -> Result<bool> {
        Backend::exporter(self)
    }
}

#[cfg(test)]
mod tests;
