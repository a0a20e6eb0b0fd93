//! Workers, pairs and leases: the rows the lease workflow reads and changes.

use engine::nnue::SimdLevel;
use proto::domain::{LeaseId, RunId, WorkerId, WorkerInfo};

use super::{Conn, Ctx, params};
use crate::error::{Error, Result};
use crate::scheduler::{NewPair, PairPlan, RunLoad};
use crate::storage::codec::{bits, corrupt, from_bits, int, key, simd_from, to_u32, to_u64};
use crate::storage::tx::{
    LeasePair, LeasePairStatus, LeaseRow, LeaseState, NewLease, PairRow, PairStatus, SubmissionContext, WorkerBench,
    WorkerSummary,
};
use crate::tc_scale::TcScale;

/// Updates the worker with this key's description; its id, if it is known.
pub(super) fn update_worker_by_key(
    c: &mut dyn Conn,
    info: &WorkerInfo,
    digest: &str,
    now_ms: u64,
) -> Result<Option<WorkerId>> {
    let id: Option<i64> = c
        .query_opt(
            "UPDATE workers SET name = ?2, host = ?3, cores = ?4, engine_version = ?5, bench_signature = ?6,
                 rules_version = ?7, last_seen_ms = ?8, bench_nps = ?9, simd = ?10, nnue_bench_nps = ?11
             WHERE key_digest = ?1 RETURNING id",
            params![
                digest,
                &info.name,
                &info.host,
                i64::from(info.cores),
                &info.engine_version,
                bits(info.bench_signature),
                i64::from(info.rules_version),
                int(now_ms),
                int(info.bench_nps),
                info.simd.map(SimdLevel::as_str),
                int(info.nnue_bench_nps)
            ],
        )
        .ctx("registering a known worker")?;
    id.map(|id| to_u64(id, "worker id").map(WorkerId::new)).transpose()
}

/// Adds a worker.
pub(super) fn insert_worker(
    c: &mut dyn Conn,
    info: &WorkerInfo,
    digest: Option<&str>,
    now_ms: u64,
) -> Result<WorkerId> {
    let id: i64 = c
        .query_one(
            "INSERT INTO workers (name, host, cores, engine_version, bench_signature, key_digest, rules_version,
                                  registered_ms, last_seen_ms, bench_nps, simd, nnue_bench_nps)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?8, ?9, ?10, ?11) RETURNING id",
            params![
                &info.name,
                &info.host,
                i64::from(info.cores),
                &info.engine_version,
                bits(info.bench_signature),
                digest,
                i64::from(info.rules_version),
                int(now_ms),
                int(info.bench_nps),
                info.simd.map(SimdLevel::as_str),
                int(info.nnue_bench_nps)
            ],
        )
        .ctx("registering a worker")?;
    to_u64(id, "worker id").map(WorkerId::new)
}

/// The raw counts of every active run a worker with this bench signature may play (`None`:
/// every active run), which the scheduler derives what is left to hand out from, and whether
/// any of them names external engines (their needs are not filled in here:
/// [`super::engines::attach_needs`]).
pub(super) fn run_loads(c: &mut dyn Conn, signature: Option<u64>) -> Result<(Vec<RunLoad>, bool)> {
    type Raw = (i64, Option<i64>, i64, i64, i64, Option<String>, Option<i64>, i64);
    let rows: Vec<Raw> = c
        .query(
            // Each pairing's allocated pairs as one list in pairing order (both SQLite, since
            // 3.44, and PostgreSQL have string_agg with ORDER BY), so that one row per run holds
            // what a lease plans its batch from.
            "SELECT r.id, r.pairs_per_pairing,
                (SELECT COUNT(*) FROM pairs p WHERE p.run_id = r.id AND p.status = 'pooled'),
                (SELECT COUNT(*) FROM pairs p WHERE p.run_id = r.id AND p.status = 'leased'),
                r.next_pair_index,
                (SELECT string_agg(CAST(q.allocated AS TEXT), ',' ORDER BY q.pairing) FROM run_pairings q
                 WHERE q.run_id = r.id),
                CASE WHEN r.kind = 'tournament'
                     THEN (SELECT CAST(COALESCE(SUM(m.pairs), 0) AS BIGINT) FROM tournament_matches m
                           WHERE m.run_id = r.id)
                END,
                (SELECT COUNT(*) FROM run_engines e WHERE e.run_id = r.id)
             FROM runs r
             WHERE r.state = 'active'
               AND (CAST(?1 AS BIGINT) IS NULL OR r.bench_signature IS NULL OR r.bench_signature = ?1)
             ORDER BY r.id",
            params![signature.map(bits)],
        )
        .ctx("finding runs with work")?;
    let any_engines = rows.iter().any(|row| row.7 > 0);
    let loads = rows
        .into_iter()
        .map(|(run, per_pairing, pooled, leased, next_pair_index, allocated, tournament_pairs, _engines)| {
            let plan = match (tournament_pairs, per_pairing) {
                (Some(total), _) => PairPlan::Total(to_u64(total, "tournament pairs")?),
                (None, Some(pairs)) => PairPlan::PerPairing(to_u64(pairs, "pairs per pairing")?),
                (None, None) => PairPlan::Unbounded,
            };
            Ok(RunLoad {
                run: RunId::new(to_u64(run, "run id")?),
                requeued: to_u64(pooled, "pooled pairs")?,
                in_flight: to_u64(leased, "leased pairs")?,
                allocated: allocated_list(run, allocated.as_deref())?,
                next_pair_index: to_u64(next_pair_index, "next pair index")?,
                plan,
                engines: Vec::new(),
            })
        })
        .collect::<Result<Vec<_>>>()?;
    Ok((loads, any_engines))
}

/// A run's pairings' allocated pairs, from [`run_loads`]' comma-separated list (`None`: no
/// pairings).
fn allocated_list(run: i64, list: Option<&str>) -> Result<Vec<u64>> {
    list.map_or(Ok(Vec::new()), |list| {
        list.split(',')
            .map(|n| n.parse().map_err(|_| corrupt(format!("run {run}: allocated pairs {list:?}"))))
            .collect()
    })
}

/// Notes the worker's activity and reads its bench signature and speeds, in one statement.
pub(super) fn touch_worker(c: &mut dyn Conn, worker: WorkerId, now_ms: u64) -> Result<WorkerBench> {
    let (signature, nps, nnue_nps): (i64, i64, i64) = c
        .query_opt(
            "UPDATE workers SET last_seen_ms = ?2 WHERE id = ?1 RETURNING bench_signature, bench_nps, nnue_bench_nps",
            params![key(worker), int(now_ms)],
        )
        .ctx("noting a worker's activity")?
        .ok_or(Error::WorkerNotFound(worker))?;
    worker_bench(signature, nps, nnue_nps)
}

/// [`touch_worker`], and whether a lease is overdue ([`overdue_leases`]' condition), in one
/// statement.
pub(super) fn touch_worker_overdue(c: &mut dyn Conn, worker: WorkerId, now_ms: u64) -> Result<(WorkerBench, bool)> {
    let (signature, nps, nnue_nps, overdue): (i64, i64, i64, i64) = c
        .query_opt(
            "UPDATE workers SET last_seen_ms = ?2 WHERE id = ?1
             RETURNING bench_signature, bench_nps, nnue_bench_nps,
                 CAST(CASE WHEN EXISTS (SELECT 1 FROM leases WHERE state = 'active' AND deadline_ms < ?2)
                      THEN 1 ELSE 0 END AS BIGINT)",
            params![key(worker), int(now_ms)],
        )
        .ctx("noting a worker's activity")?
        .ok_or(Error::WorkerNotFound(worker))?;
    Ok((worker_bench(signature, nps, nnue_nps)?, overdue != 0))
}

fn worker_bench(signature: i64, nps: i64, nnue_nps: i64) -> Result<WorkerBench> {
    Ok(WorkerBench {
        signature: from_bits(signature),
        nps: to_u64(nps, "bench nps")?,
        nnue_nps: to_u64(nnue_nps, "network bench nps")?,
    })
}

/// Notes the worker's activity when its bench is not needed: a write nobody waits for.
pub(super) fn note_worker_seen(c: &mut dyn Conn, worker: WorkerId, now_ms: u64) -> Result<()> {
    c.write(
        "UPDATE workers SET last_seen_ms = ?2 WHERE id = ?1",
        params![key(worker), int(now_ms)],
        "noting a worker's activity",
        Some(Error::WorkerNotFound(worker)),
    )
}

fn pair_row(pairing: i64, opening: i64, status: &str) -> Result<PairRow> {
    Ok(PairRow {
        pairing: to_u32(pairing, "pairing")?,
        opening_index: to_u32(opening, "opening index")?,
        status: PairStatus::parse(status).ok_or_else(|| corrupt(format!("pair status {status:?}")))?,
    })
}

/// Pooled pairs to lease, in index order ([`super::Dialect::pooled_pairs`]).
pub(super) fn pooled_pairs(c: &mut dyn Conn, run: RunId, limit: usize) -> Result<Vec<u64>> {
    let sql = c.dialect().pooled_pairs();
    let pooled: Vec<i64> = c.query(sql, params![key(run), int(limit as u64)]).ctx("reading pooled pairs")?;
    pooled.into_iter().map(|p| to_u64(p, "pair index")).collect()
}

pub(super) fn pair(c: &mut dyn Conn, run: RunId, index: u64) -> Result<Option<PairRow>> {
    let row: Option<(i64, i64, String)> = c
        .query_opt(
            "SELECT pairing, opening_index, status FROM pairs WHERE run_id = ?1 AND pair_index = ?2",
            params![key(run), int(index)],
        )
        .ctx("reading a pair")?;
    row.map(|(pairing, opening, status)| pair_row(pairing, opening, &status)).transpose()
}

/// Stores a new pair as leased.
pub(super) fn insert_pair(c: &mut dyn Conn, run: RunId, pair: NewPair, opening_index: u32) -> Result<()> {
    c.write(
        "INSERT INTO pairs (run_id, pair_index, pairing, opening_index, status) VALUES (?1, ?2, ?3, ?4, 'leased')",
        params![key(run), int(pair.pair_index), i64::from(pair.pairing), i64::from(opening_index)],
        "creating a pair",
        None,
    )
}

/// Counts new pairs in their pairing's allocation.
pub(super) fn add_allocated(c: &mut dyn Conn, run: RunId, pairing: u32, pairs: u64) -> Result<()> {
    c.write(
        "UPDATE run_pairings SET allocated = allocated + ?3 WHERE run_id = ?1 AND pairing = ?2",
        params![key(run), i64::from(pairing), int(pairs)],
        "counting a new pair",
        Some(corrupt(format!("run {run} has no pairing {pairing}"))),
    )
}

pub(super) fn set_next_pair_index(c: &mut dyn Conn, run: RunId, next: u64) -> Result<()> {
    c.write(
        "UPDATE runs SET next_pair_index = ?2 WHERE id = ?1",
        params![key(run), int(next)],
        "advancing a run's pair index",
        Some(Error::RunNotFound(run)),
    )
}

pub(super) fn set_pair_status(c: &mut dyn Conn, run: RunId, index: u64, status: PairStatus) -> Result<()> {
    c.write(
        "UPDATE pairs SET status = ?3 WHERE run_id = ?1 AND pair_index = ?2",
        params![key(run), int(index), status.as_str()],
        "changing a pair's status",
        Some(corrupt(format!("run {run} has no pair {index}"))),
    )
}

pub(super) fn pair_holder(c: &mut dyn Conn, run: RunId, index: u64) -> Result<Option<LeaseId>> {
    let lease: Option<i64> = c
        .query_opt(
            "SELECT lease_id FROM lease_pairs WHERE run_id = ?1 AND pair_index = ?2 AND status = 'pending'",
            params![key(run), int(index)],
        )
        .ctx("finding a pair's lease")?;
    lease.map(|l| to_u64(l, "lease id").map(LeaseId::new)).transpose()
}

pub(super) fn insert_lease(c: &mut dyn Conn, lease: &NewLease) -> Result<LeaseId> {
    let id: i64 = c
        .query_one(
            "INSERT INTO leases (run_id, worker_id, state, created_ms, deadline_ms, duration_ms, tc_scale_permille)
             VALUES (?1, ?2, 'active', ?3, ?4, ?5, ?6) RETURNING id",
            params![
                key(lease.run),
                key(lease.worker),
                int(lease.created_ms),
                int(lease.deadline_ms),
                int(lease.duration_ms),
                i64::from(lease.tc_scale.permille())
            ],
        )
        .ctx("creating a lease")?;
    to_u64(id, "lease id").map(LeaseId::new)
}

pub(super) fn lease(c: &mut dyn Conn, lease: LeaseId) -> Result<LeaseRow> {
    let row: Option<RawLease> = c
        .query_opt(
            "SELECT run_id, worker_id, state, deadline_ms, duration_ms, tc_scale_permille FROM leases WHERE id = ?1",
            params![key(lease)],
        )
        .ctx("reading a lease")?;
    lease_row(lease, row.ok_or(Error::LeaseNotFound(lease))?)
}

/// [`crate::storage::tx::Tx::submission_context`] in one statement.
/// The lease, whether submission `seq` was recorded, and the lease's pairs: one row per pair (one
/// with no pair for a lease given none).
pub(super) fn submission_context(c: &mut dyn Conn, lease: LeaseId, seq: u64) -> Result<SubmissionContext> {
    // The lease's columns, whether `seq` was recorded, the fewest pairs recorded, then the pair's.
    type Raw = (
        i64,
        i64,
        String,
        i64,
        i64,
        i64,
        i64,
        Option<i64>,
        Option<i64>,
        Option<String>,
        Option<i64>,
        Option<i64>,
        Option<String>,
    );
    let rows: Vec<Raw> = c
        .query(
            "SELECT l.run_id, l.worker_id, l.state, l.deadline_ms, l.duration_ms, l.tc_scale_permille,
                (SELECT COUNT(*) FROM submissions s WHERE s.lease_id = l.id AND s.seq = ?2),
                (SELECT MIN(q.ptnml0 + q.ptnml1 + q.ptnml2 + q.ptnml3 + q.ptnml4) FROM run_pairings q
                 WHERE q.run_id = l.run_id),
                lp.pair_index, lp.status, p.pairing, p.opening_index, p.status
             FROM leases l
             LEFT JOIN lease_pairs lp ON lp.lease_id = l.id
             LEFT JOIN pairs p ON p.run_id = lp.run_id AND p.pair_index = lp.pair_index
             WHERE l.id = ?1 ORDER BY lp.pair_index",
            params![key(lease), bits(seq)],
        )
        .ctx("reading a lease, its submission and its pairs")?;
    let Some((run, worker, state, deadline, duration, scale, seen, fewest, ..)) = rows.first().cloned() else {
        return Err(Error::LeaseNotFound(lease));
    };
    let pairs = rows
        .into_iter()
        .filter_map(|(.., index, in_lease, pairing, opening, status)| {
            let index = index?;
            Some(match (in_lease, pairing, opening, status) {
                (Some(in_lease), Some(pairing), Some(opening), Some(status)) => {
                    lease_pair(lease, (index, in_lease, pairing, opening, status))
                }
                _ => Err(corrupt(format!("lease {lease} pair {index} has no pair row"))),
            })
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(SubmissionContext {
        lease: lease_row(lease, (run, worker, state, deadline, duration, scale))?,
        seen: seen > 0,
        pairs,
        fewest_recorded: fewest.map(|f| to_u64(f, "pairs recorded")).transpose()?,
    })
}

/// A lease's columns as read: run, worker, state, deadline, duration, time control scale.
type RawLease = (i64, i64, String, i64, i64, i64);

fn lease_row(lease: LeaseId, (run, worker, state, deadline, duration, scale): RawLease) -> Result<LeaseRow> {
    let tc_scale = TcScale::from_permille(to_u32(scale, "lease time control scale")?)
        .ok_or_else(|| corrupt(format!("lease {lease} time control scale is 0")))?;
    Ok(LeaseRow {
        run: RunId::new(to_u64(run, "lease run")?),
        worker: WorkerId::new(to_u64(worker, "lease worker")?),
        state: LeaseState::parse(&state).ok_or_else(|| corrupt(format!("lease {lease} state {state:?}")))?,
        deadline_ms: to_u64(deadline, "lease deadline")?,
        duration_ms: to_u64(duration, "lease duration")?,
        tc_scale,
    })
}

pub(super) fn set_lease_state(c: &mut dyn Conn, lease: LeaseId, state: LeaseState) -> Result<()> {
    c.write(
        "UPDATE leases SET state = ?2 WHERE id = ?1",
        params![key(lease), state.as_str()],
        "ending a lease",
        Some(Error::LeaseNotFound(lease)),
    )
}

pub(super) fn set_lease_deadline(c: &mut dyn Conn, lease: LeaseId, deadline_ms: u64) -> Result<()> {
    c.write(
        "UPDATE leases SET deadline_ms = ?2 WHERE id = ?1",
        params![key(lease), int(deadline_ms)],
        "extending a lease",
        Some(Error::LeaseNotFound(lease)),
    )
}

/// In id order (the trait promises none): two coordinators expiring the same leases then
/// change them in the same order, and one waits for the other instead of deadlocking. The
/// few active leases are sorted after `leases_by_state` finds them.
pub(super) fn overdue_leases(c: &mut dyn Conn, now_ms: u64) -> Result<Vec<LeaseId>> {
    let overdue: Vec<i64> = c
        .query("SELECT id FROM leases WHERE state = 'active' AND deadline_ms < ?1 ORDER BY id", params![int(now_ms)])
        .ctx("finding overdue leases")?;
    overdue.into_iter().map(|l| to_u64(l, "lease id").map(LeaseId::new)).collect()
}

pub(super) fn insert_lease_pair(c: &mut dyn Conn, lease: LeaseId, run: RunId, index: u64) -> Result<()> {
    c.write(
        "INSERT INTO lease_pairs (lease_id, run_id, pair_index, status) VALUES (?1, ?2, ?3, 'pending')",
        params![key(lease), key(run), int(index)],
        "recording a leased pair",
        None,
    )
}

pub(super) fn lease_pairs(c: &mut dyn Conn, lease: LeaseId) -> Result<Vec<LeasePair>> {
    let rows: Vec<(i64, String, i64, i64, String)> = c
        .query(
            "SELECT lp.pair_index, lp.status, p.pairing, p.opening_index, p.status FROM lease_pairs lp
             JOIN pairs p ON p.run_id = lp.run_id AND p.pair_index = lp.pair_index
             WHERE lp.lease_id = ?1 ORDER BY lp.pair_index",
            params![key(lease)],
        )
        .ctx("reading a lease's pairs")?;
    rows.into_iter().map(|row| lease_pair(lease, row)).collect()
}

/// A lease's pair as read: its index, its status in the lease, then the pair's columns.
fn lease_pair(
    lease: LeaseId,
    (index, in_lease, pairing, opening, status): (i64, String, i64, i64, String),
) -> Result<LeasePair> {
    Ok(LeasePair {
        index: to_u64(index, "pair index")?,
        status: LeasePairStatus::parse(&in_lease)
            .ok_or_else(|| corrupt(format!("lease {lease} pair status {in_lease:?}")))?,
        pair: pair_row(pairing, opening, &status)?,
    })
}

pub(super) fn set_lease_pair_status(
    c: &mut dyn Conn,
    lease: LeaseId,
    index: u64,
    status: LeasePairStatus,
) -> Result<()> {
    c.write(
        "UPDATE lease_pairs SET status = ?3 WHERE lease_id = ?1 AND pair_index = ?2",
        params![key(lease), int(index), status.as_str()],
        "changing a leased pair's status",
        Some(corrupt(format!("lease {lease} has no pair {index}"))),
    )
}

/// [`crate::storage::tx::Tx::finish_leased_pair`] in one statement: the pair's pending entry
/// (under whichever lease holds it) and `lease`'s entry become finished.
pub(super) fn finish_leased_pair(c: &mut dyn Conn, run: RunId, index: u64, lease: LeaseId) -> Result<()> {
    c.write(
        "UPDATE lease_pairs SET status = 'finished'
         WHERE run_id = ?1 AND pair_index = ?2 AND (status = 'pending' OR lease_id = ?3)",
        params![key(run), int(index), key(lease)],
        "finishing a leased pair",
        Some(corrupt(format!("lease {lease} has no pair {index}"))),
    )
}

pub(super) fn workers(c: &mut dyn Conn) -> Result<Vec<WorkerSummary>> {
    type Raw = (i64, String, String, i64, i64, i64, Option<String>, i64);
    let rows: Vec<Raw> = c
        .query(
            "SELECT id, name, host, cores, last_seen_ms, bench_nps, simd, nnue_bench_nps FROM workers ORDER BY id",
            params![],
        )
        .ctx("listing workers")?;
    rows.into_iter()
        .map(|(id, name, host, cores, seen, nps, simd, nnue_nps)| {
            Ok(WorkerSummary {
                id: WorkerId::new(to_u64(id, "worker id")?),
                name,
                host,
                cores: to_u32(cores, "cores")?,
                last_seen_ms: to_u64(seen, "last seen time")?,
                bench_nps: to_u64(nps, "bench nps")?,
                simd: simd_from(simd)?,
                nnue_bench_nps: to_u64(nnue_nps, "network bench nps")?,
            })
        })
        .collect()
}

/// Active leases are found by `leases_by_state`; they are few.
pub(super) fn active_leases_by_worker(c: &mut dyn Conn) -> Result<Vec<(WorkerId, u32)>> {
    let rows: Vec<(i64, i64)> = c
        .query(
            "SELECT worker_id, COUNT(*) FROM leases WHERE state = 'active' GROUP BY worker_id ORDER BY worker_id",
            params![],
        )
        .ctx("counting active leases")?;
    rows.into_iter()
        .map(|(worker, n)| Ok((WorkerId::new(to_u64(worker, "worker id")?), to_u32(n, "lease count")?)))
        .collect()
}

/// The pairs counted by each worker's submissions received at or after `?1`.
pub(in crate::storage) const RECENT_SUBMISSIONS: &str = "SELECT l.worker_id, CAST(SUM(s.accepted) AS BIGINT)
     FROM submissions s JOIN leases l ON l.id = s.lease_id
     WHERE s.received_ms >= ?1 GROUP BY l.worker_id HAVING SUM(s.accepted) > 0 ORDER BY l.worker_id";

/// Recent submissions are found by `submissions_by_time`, their leases by id.
pub(super) fn accepted_pairs_since(c: &mut dyn Conn, since_ms: u64) -> Result<Vec<(WorkerId, u64)>> {
    let rows: Vec<(i64, i64)> =
        c.query(RECENT_SUBMISSIONS, params![int(since_ms)]).ctx("counting recent submissions")?;
    rows.into_iter()
        .map(|(worker, n)| Ok((WorkerId::new(to_u64(worker, "worker id")?), to_u64(n, "accepted pairs")?)))
        .collect()
}
