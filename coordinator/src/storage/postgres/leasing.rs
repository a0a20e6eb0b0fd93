//! Workers, pairs and leases: the rows the lease workflow reads and changes.

use super::db::Db;
use proto::domain::{LeaseId, RunId, WorkerId, WorkerInfo};

use super::Ctx;
use crate::error::{Error, Result};
use crate::scheduler::{NewPair, RunLoad};
use crate::storage::codec::{bits, corrupt, from_bits, int, key, to_u32, to_u64};
use crate::storage::tx::{
    LeasePair, LeasePairStatus, LeaseRow, LeaseState, NewLease, PairRow, PairStatus, WorkerBench, WorkerSummary,
};
use crate::tc_scale::TcScale;

/// Registers a worker; a worker whose key is known gets its id back, with its description
/// brought up to date.
///
/// Not one `INSERT ... ON CONFLICT DO UPDATE`: that takes an id from the identity even when it
/// updates, and worker ids would have gaps that SQLite's do not.
pub(super) fn insert_worker(
    c: &mut Db<'_, '_>,
    info: &WorkerInfo,
    digest: Option<&str>,
    now_ms: u64,
) -> Result<WorkerId> {
    let cores = i64::from(info.cores);
    let signature = bits(info.bench_signature);
    let rules = i64::from(info.rules_version);
    let (now, nps) = (int(now_ms), int(info.bench_nps));
    if let Some(digest) = digest {
        let known = c
            .query_opt(
                "UPDATE workers SET name = $2, host = $3, cores = $4, engine_version = $5, bench_signature = $6,
                     rules_version = $7, last_seen_ms = $8, bench_nps = $9
                 WHERE key_digest = $1 RETURNING id",
                &[&digest, &info.name, &info.host, &cores, &info.engine_version, &signature, &rules, &now, &nps],
            )
            .and_then(|row| row.map(|r| r.try_get::<_, i64>(0)).transpose())
            .ctx("registering a known worker")?;
        if let Some(id) = known {
            return to_u64(id, "worker id").map(WorkerId::new);
        }
    }
    let id: i64 = c
        .query_one(
            "INSERT INTO workers (name, host, cores, engine_version, bench_signature, key_digest, rules_version,
                                  registered_ms, last_seen_ms, bench_nps)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8, $9) RETURNING id",
            &[&info.name, &info.host, &cores, &info.engine_version, &signature, &digest, &rules, &now, &nps],
        )
        .and_then(|r| r.try_get(0))
        .ctx("registering a worker")?;
    to_u64(id, "worker id").map(WorkerId::new)
}

/// The load of every active run a worker with this bench signature may play (`None`: every
/// active run).
pub(super) fn run_loads(c: &mut Db<'_, '_>, signature: Option<u64>) -> Result<Vec<RunLoad>> {
    type Raw = (i64, Option<i64>, i64, i64, i64, i64, Option<i64>);
    let rows: Vec<Raw> = c
        .query(
            "SELECT r.id, r.pairs_per_pairing,
                (SELECT COUNT(*) FROM pairs p WHERE p.run_id = r.id AND p.status = 'pooled'),
                (SELECT COUNT(*) FROM pairs p WHERE p.run_id = r.id AND p.status = 'leased'),
                (SELECT COUNT(*) FROM run_pairings q WHERE q.run_id = r.id),
                (SELECT COALESCE(SUM(q.allocated), 0)::BIGINT FROM run_pairings q WHERE q.run_id = r.id),
                CASE WHEN r.kind = 'tournament'
                     THEN (SELECT COALESCE(SUM(m.pairs), 0)::BIGINT FROM tournament_matches m WHERE m.run_id = r.id)
                END
             FROM runs r
             WHERE r.state = 'active'
               AND ($1::BIGINT IS NULL OR r.bench_signature IS NULL OR r.bench_signature = $1)
             ORDER BY r.id",
            &[&signature.map(bits)],
        )
        .and_then(|rows| {
            rows.iter()
                .map(|r| {
                    Ok((
                        r.try_get(0)?,
                        r.try_get(1)?,
                        r.try_get(2)?,
                        r.try_get(3)?,
                        r.try_get(4)?,
                        r.try_get(5)?,
                        r.try_get(6)?,
                    ))
                })
                .collect()
        })
        .ctx("finding runs with work")?;
    rows.into_iter()
        .map(|(run, target, pooled, leased, pairings, allocated, tournament_pairs)| {
            let unallocated = match (tournament_pairs, target) {
                // A tournament's matches carry their own counts.
                (Some(total), _) => {
                    Some(to_u64(total, "tournament pairs")?.saturating_sub(to_u64(allocated, "allocated pairs")?))
                }
                (None, Some(t)) => Some(
                    to_u64(t, "pairs per pairing")?
                        .saturating_mul(to_u64(pairings, "pairings")?)
                        .saturating_sub(to_u64(allocated, "allocated pairs")?),
                ),
                (None, None) => None,
            };
            Ok(RunLoad {
                run: RunId::new(to_u64(run, "run id")?),
                requeued: to_u64(pooled, "pooled pairs")?,
                in_flight: to_u64(leased, "leased pairs")?,
                unallocated,
                engines: Vec::new(),
            })
        })
        .collect()
}

/// Notes the worker's activity and reads its bench signature and speed, in one statement.
pub(super) fn touch_worker(c: &mut Db<'_, '_>, worker: WorkerId, now_ms: u64) -> Result<WorkerBench> {
    let (signature, nps): (i64, i64) = c
        .query_opt(
            "UPDATE workers SET last_seen_ms = $2 WHERE id = $1 RETURNING bench_signature, bench_nps",
            &[&key(worker), &int(now_ms)],
        )
        .and_then(|row| row.map(|r| Ok((r.try_get(0)?, r.try_get(1)?))).transpose())
        .ctx("noting a worker's activity")?
        .ok_or(Error::WorkerNotFound(worker))?;
    Ok(WorkerBench { signature: from_bits(signature), nps: to_u64(nps, "bench nps")? })
}

fn pair_status(text: &str) -> Result<PairStatus> {
    PairStatus::parse(text).ok_or_else(|| corrupt(format!("pair status {text:?}")))
}

fn pair_row(pairing: i64, opening: i64, status: &str) -> Result<PairRow> {
    Ok(PairRow {
        pairing: to_u32(pairing, "pairing")?,
        opening_index: to_u32(opening, "opening index")?,
        status: pair_status(status)?,
    })
}

/// Claims the pairs it returns until the transaction ends, passing over pooled pairs another
/// transaction claimed: two coordinators leasing at once take different pairs instead of
/// waiting on each other.
pub(super) fn pooled_pairs(c: &mut Db<'_, '_>, run: RunId, limit: usize) -> Result<Vec<u64>> {
    let pooled: Vec<i64> = c
        .query(
            "SELECT pair_index FROM pairs WHERE run_id = $1 AND status = 'pooled'
             ORDER BY pair_index LIMIT $2 FOR UPDATE SKIP LOCKED",
            &[&key(run), &int(limit as u64)],
        )
        .and_then(|rows| rows.iter().map(|r| r.try_get(0)).collect())
        .ctx("reading pooled pairs")?;
    pooled.into_iter().map(|p| to_u64(p, "pair index")).collect()
}

pub(super) fn pair(c: &mut Db<'_, '_>, run: RunId, index: u64) -> Result<Option<PairRow>> {
    let row: Option<(i64, i64, String)> = c
        .query_opt(
            "SELECT pairing, opening_index, status FROM pairs WHERE run_id = $1 AND pair_index = $2",
            &[&key(run), &int(index)],
        )
        .and_then(|row| row.map(|r| Ok((r.try_get(0)?, r.try_get(1)?, r.try_get(2)?))).transpose())
        .ctx("reading a pair")?;
    row.map(|(pairing, opening, status)| pair_row(pairing, opening, &status)).transpose()
}

pub(super) fn insert_pair(c: &mut Db<'_, '_>, run: RunId, pair: NewPair, opening_index: u32) -> Result<()> {
    let pairing = i64::from(pair.pairing);
    c.execute(
        "INSERT INTO pairs (run_id, pair_index, pairing, opening_index, status) VALUES ($1, $2, $3, $4, 'leased')",
        &[&key(run), &int(pair.pair_index), &pairing, &i64::from(opening_index)],
    )
    .ctx("creating a pair")?;
    let counted = c
        .execute(
            "UPDATE run_pairings SET allocated = allocated + 1 WHERE run_id = $1 AND pairing = $2",
            &[&key(run), &pairing],
        )
        .ctx("counting a new pair")?;
    if counted == 0 {
        return Err(corrupt(format!("run {run} has no pairing {}", pair.pairing)));
    }
    c.execute(
        "UPDATE runs SET next_pair_index = GREATEST(next_pair_index, $2) WHERE id = $1",
        &[&key(run), &int(pair.pair_index.saturating_add(1))],
    )
    .ctx("advancing a run's pair index")?;
    Ok(())
}

pub(super) fn set_pair_status(c: &mut Db<'_, '_>, run: RunId, index: u64, status: PairStatus) -> Result<()> {
    let changed = c
        .execute(
            "UPDATE pairs SET status = $3 WHERE run_id = $1 AND pair_index = $2",
            &[&key(run), &int(index), &status.as_str()],
        )
        .ctx("changing a pair's status")?;
    if changed == 0 { Err(corrupt(format!("run {run} has no pair {index}"))) } else { Ok(()) }
}

pub(super) fn pair_holder(c: &mut Db<'_, '_>, run: RunId, index: u64) -> Result<Option<LeaseId>> {
    let lease: Option<i64> = c
        .query_opt(
            "SELECT lease_id FROM lease_pairs WHERE run_id = $1 AND pair_index = $2 AND status = 'pending'",
            &[&key(run), &int(index)],
        )
        .and_then(|row| row.map(|r| r.try_get(0)).transpose())
        .ctx("finding a pair's lease")?;
    lease.map(|l| to_u64(l, "lease id").map(LeaseId::new)).transpose()
}

pub(super) fn insert_lease(c: &mut Db<'_, '_>, lease: &NewLease) -> Result<LeaseId> {
    let id: i64 = c
        .query_one(
            "INSERT INTO leases (run_id, worker_id, state, created_ms, deadline_ms, duration_ms, tc_scale_permille)
             VALUES ($1, $2, 'active', $3, $4, $5, $6) RETURNING id",
            &[
                &key(lease.run),
                &key(lease.worker),
                &int(lease.created_ms),
                &int(lease.deadline_ms),
                &int(lease.duration_ms),
                &i64::from(lease.tc_scale.permille()),
            ],
        )
        .and_then(|r| r.try_get(0))
        .ctx("creating a lease")?;
    to_u64(id, "lease id").map(LeaseId::new)
}

pub(super) fn lease(c: &mut Db<'_, '_>, lease: LeaseId) -> Result<LeaseRow> {
    type Raw = (i64, i64, String, i64, i64, i64);
    let row: Option<Raw> = c
        .query_opt(
            "SELECT run_id, worker_id, state, deadline_ms, duration_ms, tc_scale_permille FROM leases WHERE id = $1",
            &[&key(lease)],
        )
        .and_then(|row| {
            row.map(|r| Ok((r.try_get(0)?, r.try_get(1)?, r.try_get(2)?, r.try_get(3)?, r.try_get(4)?, r.try_get(5)?)))
                .transpose()
        })
        .ctx("reading a lease")?;
    let (run, worker, state, deadline, duration, scale) = row.ok_or(Error::LeaseNotFound(lease))?;
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

pub(super) fn set_lease_state(c: &mut Db<'_, '_>, lease: LeaseId, state: LeaseState) -> Result<()> {
    let changed = c
        .execute("UPDATE leases SET state = $2 WHERE id = $1", &[&key(lease), &state.as_str()])
        .ctx("ending a lease")?;
    if changed == 0 { Err(Error::LeaseNotFound(lease)) } else { Ok(()) }
}

pub(super) fn set_lease_deadline(c: &mut Db<'_, '_>, lease: LeaseId, deadline_ms: u64) -> Result<()> {
    let changed = c
        .execute("UPDATE leases SET deadline_ms = $2 WHERE id = $1", &[&key(lease), &int(deadline_ms)])
        .ctx("extending a lease")?;
    if changed == 0 { Err(Error::LeaseNotFound(lease)) } else { Ok(()) }
}

/// In id order (the trait promises none): two coordinators expiring the same leases then
/// change them in the same order, and one waits for the other instead of deadlocking. The
/// few active leases are sorted after `leases_by_state` finds them.
pub(super) fn overdue_leases(c: &mut Db<'_, '_>, now_ms: u64) -> Result<Vec<LeaseId>> {
    let overdue: Vec<i64> = c
        .query("SELECT id FROM leases WHERE state = 'active' AND deadline_ms < $1 ORDER BY id", &[&int(now_ms)])
        .and_then(|rows| rows.iter().map(|r| r.try_get(0)).collect())
        .ctx("finding overdue leases")?;
    overdue.into_iter().map(|l| to_u64(l, "lease id").map(LeaseId::new)).collect()
}

pub(super) fn insert_lease_pair(c: &mut Db<'_, '_>, lease: LeaseId, run: RunId, index: u64) -> Result<()> {
    c.execute(
        "INSERT INTO lease_pairs (lease_id, run_id, pair_index, status) VALUES ($1, $2, $3, 'pending')",
        &[&key(lease), &key(run), &int(index)],
    )
    .ctx("recording a leased pair")?;
    Ok(())
}

pub(super) fn lease_pair(c: &mut Db<'_, '_>, lease: LeaseId, index: u64) -> Result<Option<PairRow>> {
    let row: Option<(i64, i64, String)> = c
        .query_opt(
            "SELECT p.pairing, p.opening_index, p.status FROM lease_pairs lp
             JOIN pairs p ON p.run_id = lp.run_id AND p.pair_index = lp.pair_index
             WHERE lp.lease_id = $1 AND lp.pair_index = $2",
            &[&key(lease), &int(index)],
        )
        .and_then(|row| row.map(|r| Ok((r.try_get(0)?, r.try_get(1)?, r.try_get(2)?))).transpose())
        .ctx("reading a leased pair")?;
    row.map(|(pairing, opening, status)| pair_row(pairing, opening, &status)).transpose()
}

pub(super) fn lease_pairs(c: &mut Db<'_, '_>, lease: LeaseId) -> Result<Vec<LeasePair>> {
    let rows: Vec<(i64, String, i64, i64, String)> = c
        .query(
            "SELECT lp.pair_index, lp.status, p.pairing, p.opening_index, p.status FROM lease_pairs lp
             JOIN pairs p ON p.run_id = lp.run_id AND p.pair_index = lp.pair_index
             WHERE lp.lease_id = $1 ORDER BY lp.pair_index",
            &[&key(lease)],
        )
        .and_then(|rows| {
            rows.iter()
                .map(|r| Ok((r.try_get(0)?, r.try_get(1)?, r.try_get(2)?, r.try_get(3)?, r.try_get(4)?)))
                .collect()
        })
        .ctx("reading a lease's pairs")?;
    rows.into_iter()
        .map(|(index, in_lease, pairing, opening, status)| {
            Ok(LeasePair {
                index: to_u64(index, "pair index")?,
                status: LeasePairStatus::parse(&in_lease)
                    .ok_or_else(|| corrupt(format!("lease {lease} pair status {in_lease:?}")))?,
                pair: pair_row(pairing, opening, &status)?,
            })
        })
        .collect()
}

pub(super) fn pending_pairs(c: &mut Db<'_, '_>, lease: LeaseId) -> Result<Vec<u64>> {
    let pending: Vec<i64> = c
        .query(
            "SELECT pair_index FROM lease_pairs WHERE lease_id = $1 AND status = 'pending' ORDER BY pair_index",
            &[&key(lease)],
        )
        .and_then(|rows| rows.iter().map(|r| r.try_get(0)).collect())
        .ctx("finding unfinished pairs")?;
    pending.into_iter().map(|p| to_u64(p, "pair index")).collect()
}

pub(super) fn set_lease_pair_status(
    c: &mut Db<'_, '_>,
    lease: LeaseId,
    index: u64,
    status: LeasePairStatus,
) -> Result<()> {
    let changed = c
        .execute(
            "UPDATE lease_pairs SET status = $3 WHERE lease_id = $1 AND pair_index = $2",
            &[&key(lease), &int(index), &status.as_str()],
        )
        .ctx("changing a leased pair's status")?;
    if changed == 0 { Err(corrupt(format!("lease {lease} has no pair {index}"))) } else { Ok(()) }
}

pub(super) fn workers(c: &mut Db<'_, '_>) -> Result<Vec<WorkerSummary>> {
    type Raw = (i64, String, String, i64, i64, i64);
    let rows: Vec<Raw> = c
        .query("SELECT id, name, host, cores, last_seen_ms, bench_nps FROM workers ORDER BY id", &[])
        .and_then(|rows| {
            rows.iter()
                .map(|r| Ok((r.try_get(0)?, r.try_get(1)?, r.try_get(2)?, r.try_get(3)?, r.try_get(4)?, r.try_get(5)?)))
                .collect()
        })
        .ctx("listing workers")?;
    rows.into_iter()
        .map(|(id, name, host, cores, seen, nps)| {
            Ok(WorkerSummary {
                id: WorkerId::new(to_u64(id, "worker id")?),
                name,
                host,
                cores: to_u32(cores, "cores")?,
                last_seen_ms: to_u64(seen, "last seen time")?,
                bench_nps: to_u64(nps, "bench nps")?,
            })
        })
        .collect()
}

/// Active leases are found by `leases_by_state`; they are few.
pub(super) fn active_leases_by_worker(c: &mut Db<'_, '_>) -> Result<Vec<(WorkerId, u32)>> {
    let rows: Vec<(i64, i64)> = c
        .query(
            "SELECT worker_id, COUNT(*) FROM leases WHERE state = 'active' GROUP BY worker_id ORDER BY worker_id",
            &[],
        )
        .and_then(|rows| rows.iter().map(|r| Ok((r.try_get(0)?, r.try_get(1)?))).collect())
        .ctx("counting active leases")?;
    rows.into_iter()
        .map(|(worker, n)| Ok((WorkerId::new(to_u64(worker, "worker id")?), to_u32(n, "lease count")?)))
        .collect()
}

/// The pairs counted by each worker's submissions received at or after `$1`.
const RECENT_SUBMISSIONS: &str = "SELECT l.worker_id, SUM(s.accepted)::BIGINT
     FROM submissions s JOIN leases l ON l.id = s.lease_id
     WHERE s.received_ms >= $1 GROUP BY l.worker_id HAVING SUM(s.accepted) > 0 ORDER BY l.worker_id";

/// Recent submissions are found by `submissions_by_time`, their leases by id.
pub(super) fn accepted_pairs_since(c: &mut Db<'_, '_>, since_ms: u64) -> Result<Vec<(WorkerId, u64)>> {
    let rows: Vec<(i64, i64)> = c
        .query(RECENT_SUBMISSIONS, &[&int(since_ms)])
        .and_then(|rows| rows.iter().map(|r| Ok((r.try_get(0)?, r.try_get(1)?))).collect())
        .ctx("counting recent submissions")?;
    rows.into_iter()
        .map(|(worker, n)| Ok((WorkerId::new(to_u64(worker, "worker id")?), to_u64(n, "accepted pairs")?)))
        .collect()
}
