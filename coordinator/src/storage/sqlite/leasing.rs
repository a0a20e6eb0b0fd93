//! Workers and leases: registering, handing out batches, heartbeats and expiry.

use proto::domain::{Lease, LeaseId, PairTask, RunId, WorkerId, WorkerInfo};
use rusqlite::{Connection, OptionalExtension, params};

use super::Ctx;
use super::catalog::{load_variant, opening_line, run_spec, suite_size};
use super::codec::{bits, from_bits, int, key, to_u32, to_u64};
use super::db::Db;
use super::engines;
use crate::error::{Error, Result};
use crate::scheduler::{self, RunLoad};
use crate::storage::{make_task, task_variant_ids};

/// Registers a worker; a worker whose key is known gets its id back, with its description
/// brought up to date.
pub(super) fn insert_worker(conn: &Connection, info: &WorkerInfo, now_ms: u64) -> Result<WorkerId> {
    let digest = crate::spec::worker_key_digest(&info.worker_key);
    if let Some(digest) = &digest {
        let known: Option<i64> = conn
            .prepare_cached(
                "UPDATE workers SET name = ?2, host = ?3, cores = ?4, engine_version = ?5, bench_signature = ?6,
                     rules_version = ?7, last_seen_ms = ?8
                 WHERE key_digest = ?1 RETURNING id",
            )
            .and_then(|mut s| {
                s.query_row(
                    params![
                        digest,
                        info.name,
                        info.host,
                        info.cores,
                        info.engine_version,
                        bits(info.bench_signature),
                        info.rules_version,
                        int(now_ms)
                    ],
                    |r| r.get(0),
                )
                .optional()
            })
            .ctx("registering a known worker")?;
        if let Some(id) = known {
            return to_u64(id, "worker id").map(WorkerId::new);
        }
    }
    conn.prepare_cached(
        "INSERT INTO workers (name, host, cores, engine_version, bench_signature, key_digest, rules_version,
                              registered_ms, last_seen_ms)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?8)",
    )
    .and_then(|mut s| {
        s.execute(params![
            info.name,
            info.host,
            info.cores,
            info.engine_version,
            bits(info.bench_signature),
            digest,
            info.rules_version,
            int(now_ms)
        ])
    })
    .ctx("registering a worker")?;
    to_u64(conn.last_insert_rowid(), "worker id").map(WorkerId::new)
}

pub(super) fn end_lease(conn: &Connection, lease: i64, state: &str) -> Result<usize> {
    // The pending pairs first, then each back to the pool by its key: an `IN (SELECT ...)`
    // filter would build temporary tables on every call, and usually nothing is pending.
    let pending: Vec<(i64, i64)> = conn
        .prepare_cached("SELECT run_id, pair_index FROM lease_pairs WHERE lease_id = ?1 AND status = 'pending'")
        .and_then(|mut s| s.query_map([lease], |r| Ok((r.get(0)?, r.get(1)?)))?.collect())
        .ctx("finding unfinished pairs")?;
    let mut returned = 0;
    for (run, pair) in &pending {
        returned += conn
            .prepare_cached(
                "UPDATE pairs SET status = 'pooled' WHERE run_id = ?1 AND pair_index = ?2 AND status = 'leased'",
            )
            .and_then(|mut s| s.execute([run, pair]))
            .ctx("returning pairs to the pool")?;
    }
    if !pending.is_empty() {
        conn.prepare_cached("UPDATE lease_pairs SET status = 'returned' WHERE lease_id = ?1 AND status = 'pending'")
            .and_then(|mut s| s.execute([lease]))
            .ctx("returning pairs to the pool")?;
    }
    conn.prepare_cached("UPDATE leases SET state = ?2 WHERE id = ?1")
        .and_then(|mut s| s.execute(params![lease, state]))
        .ctx("ending a lease")?;
    Ok(returned)
}

pub(super) fn expire(conn: &Connection, now_ms: u64) -> Result<usize> {
    // No ORDER BY: with one, SQLite may sort or walk leases by id instead of using the index.
    let overdue: Vec<i64> = conn
        .prepare_cached("SELECT id FROM leases WHERE state = 'active' AND deadline_ms < ?1")
        .and_then(|mut s| s.query_map([int(now_ms)], |r| r.get(0))?.collect())
        .ctx("finding overdue leases")?;
    for &lease in &overdue {
        let returned = end_lease(conn, lease, "expired")?;
        tracing::info!(lease = %lease, returned, "lease expired");
    }
    Ok(overdue.len())
}

/// A lease's owner check: `(run, state, deadline, duration)`.
pub(super) fn owned_lease(conn: &Connection, worker: WorkerId, lease: LeaseId) -> Result<(RunId, String, u64, u64)> {
    let row: Option<(i64, i64, String, i64, i64)> = conn
        .prepare_cached("SELECT worker_id, run_id, state, deadline_ms, duration_ms FROM leases WHERE id = ?1")
        .and_then(|mut s| {
            s.query_row([key(lease)], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))).optional()
        })
        .ctx("reading a lease")?;
    let (owner, run, state, deadline, duration) = row.ok_or(Error::LeaseNotFound(lease))?;
    if owner != key(worker) {
        return Err(Error::LeaseNotOwned { lease, worker });
    }
    Ok((
        RunId::new(to_u64(run, "lease run")?),
        state,
        to_u64(deadline, "lease deadline")?,
        to_u64(duration, "lease duration")?,
    ))
}

pub(super) fn extend_lease(conn: &Connection, lease: LeaseId, deadline_ms: u64) -> Result<()> {
    conn.prepare_cached("UPDATE leases SET deadline_ms = MAX(deadline_ms, ?2) WHERE id = ?1")
        .and_then(|mut s| s.execute(params![key(lease), int(deadline_ms)]))
        .ctx("extending a lease")?;
    Ok(())
}

pub(super) fn touch_worker(conn: &Connection, worker: WorkerId, now_ms: u64) -> Result<()> {
    conn.prepare_cached("UPDATE workers SET last_seen_ms = ?2 WHERE id = ?1")
        .and_then(|mut s| s.execute(params![key(worker), int(now_ms)]))
        .ctx("noting a worker's activity")?;
    Ok(())
}

/// The load of every active run a worker with this bench signature may play.
fn run_loads(conn: &Connection, signature: u64) -> Result<Vec<RunLoad>> {
    let rows: Vec<(i64, Option<i64>, i64, i64, i64, i64)> = conn
        .prepare_cached(
            "SELECT r.id, r.pairs_per_pairing,
                (SELECT COUNT(*) FROM pairs p WHERE p.run_id = r.id AND p.status = 'pooled'),
                (SELECT COUNT(*) FROM pairs p WHERE p.run_id = r.id AND p.status = 'leased'),
                (SELECT COUNT(*) FROM run_pairings q WHERE q.run_id = r.id),
                (SELECT COALESCE(SUM(q.allocated), 0) FROM run_pairings q WHERE q.run_id = r.id)
             FROM runs r
             WHERE r.state = 'active' AND (r.bench_signature IS NULL OR r.bench_signature = ?1)
             ORDER BY r.id",
        )
        .and_then(|mut s| {
            s.query_map([bits(signature)], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?, r.get(5)?)))?
                .collect()
        })
        .ctx("finding runs with work")?;
    rows.into_iter()
        .map(|(run, target, pooled, leased, pairings, allocated)| {
            let unallocated = match target {
                Some(t) => Some(
                    to_u64(t, "pairs per pairing")?
                        .saturating_mul(to_u64(pairings, "pairings")?)
                        .saturating_sub(to_u64(allocated, "allocated pairs")?),
                ),
                None => None,
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

pub(super) fn lease_batch(tx: &Db, worker: WorkerId, free_slots: u32, now_ms: u64) -> Result<Option<Lease>> {
    expire(tx, now_ms)?;
    // Notes the worker's activity and reads its signature in one statement.
    let signature: i64 = tx
        .prepare_cached("UPDATE workers SET last_seen_ms = ?2 WHERE id = ?1 RETURNING bench_signature")
        .and_then(|mut s| s.query_row(params![key(worker), int(now_ms)], |r| r.get(0)).optional())
        .ctx("reading a worker")?
        .ok_or(Error::WorkerNotFound(worker))?;
    if free_slots == 0 {
        return Ok(None);
    }
    let mut loads = run_loads(tx, from_bits(signature))?;
    engines::attach_needs(tx, &mut loads)?;
    let worker_engines = engines::worker_engines(tx, worker)?;
    let Some(run_id) = scheduler::choose_run(&loads, &worker_engines) else {
        return Ok(None);
    };
    let spec = run_spec(tx, run_id)?;
    let pairings = scheduler::pairings(&spec);
    let suite_len = suite_size(tx, spec.openings)?;
    let (next_pair_index, allocated) = {
        let next: i64 = tx
            .prepare_cached("SELECT next_pair_index FROM runs WHERE id = ?1")
            .and_then(|mut s| s.query_row([key(run_id)], |r| r.get(0)))
            .ctx("reading a run's next pair")?;
        let allocated: Vec<i64> = tx
            .prepare_cached("SELECT allocated FROM run_pairings WHERE run_id = ?1 ORDER BY pairing")
            .and_then(|mut s| s.query_map([key(run_id)], |r| r.get(0))?.collect())
            .ctx("reading a run's allocation")?;
        let allocated = allocated.into_iter().map(|a| to_u64(a, "allocated pairs")).collect::<Result<Vec<u64>>>()?;
        (to_u64(next, "next pair index")?, allocated)
    };
    let batch = scheduler::batch_pairs(spec.tc, free_slots);
    let pooled: Vec<u64> = tx
        .prepare_cached(
            "SELECT pair_index FROM pairs WHERE run_id = ?1 AND status = 'pooled' ORDER BY pair_index LIMIT ?2",
        )
        .and_then(|mut s| {
            s.query_map(params![key(run_id), int(batch as u64)], |r| r.get::<_, i64>(0))?
                .collect::<rusqlite::Result<Vec<i64>>>()
        })
        .ctx("reading pooled pairs")?
        .into_iter()
        .map(|p| to_u64(p, "pair index"))
        .collect::<Result<_>>()?;
    let target = scheduler::pairs_per_pairing(&spec.kind);
    let plan = scheduler::plan_batch(&pooled, &allocated, target, next_pair_index, batch);
    if plan.is_empty() {
        return Ok(None);
    }
    if let Some(load) = loads.iter().find(|l| l.run == run_id) {
        engines::pin(tx, run_id, &scheduler::new_pins(&load.engines, &worker_engines))?;
    }

    let duration_ms = scheduler::LEASE_TIMEOUT_MS;
    let deadline_ms = now_ms.saturating_add(duration_ms);
    tx.prepare_cached(
        "INSERT INTO leases (run_id, worker_id, state, created_ms, deadline_ms, duration_ms)
         VALUES (?1, ?2, 'active', ?3, ?4, ?5)",
    )
    .and_then(|mut s| s.execute(params![key(run_id), key(worker), int(now_ms), int(deadline_ms), int(duration_ms)]))
    .ctx("creating a lease")?;
    let lease_id = LeaseId::new(to_u64(tx.last_insert_rowid(), "lease id")?);

    let mut tasks: Vec<PairTask> = Vec::with_capacity(plan.len());
    for &index in &plan.requeued {
        let (pairing, opening): (i64, i64) = tx
            .prepare_cached("SELECT pairing, opening_index FROM pairs WHERE run_id = ?1 AND pair_index = ?2")
            .and_then(|mut s| s.query_row(params![key(run_id), int(index)], |r| Ok((r.get(0)?, r.get(1)?))))
            .ctx("reading a pooled pair")?;
        let (pairing, opening_index) = (to_u32(pairing, "pairing")?, to_u32(opening, "opening index")?);
        tx.prepare_cached("UPDATE pairs SET status = 'leased' WHERE run_id = ?1 AND pair_index = ?2")
            .and_then(|mut s| s.execute(params![key(run_id), int(index)]))
            .ctx("leasing a pooled pair")?;
        let line = opening_line(tx, spec.openings, opening_index)?;
        tasks.push(make_task(&spec, &pairings, index, pairing, opening_index, line)?);
    }
    for new in &plan.fresh {
        let opening_index = scheduler::opening_for_pair(run_id, new.pair_index, suite_len);
        tx.prepare_cached(
            "INSERT INTO pairs (run_id, pair_index, pairing, opening_index, status) VALUES (?1, ?2, ?3, ?4, 'leased')",
        )
        .and_then(|mut s| s.execute(params![key(run_id), int(new.pair_index), new.pairing, opening_index]))
        .ctx("creating a pair")?;
        tx.prepare_cached("UPDATE run_pairings SET allocated = allocated + 1 WHERE run_id = ?1 AND pairing = ?2")
            .and_then(|mut s| s.execute(params![key(run_id), new.pairing]))
            .ctx("counting a new pair")?;
        let line = opening_line(tx, spec.openings, opening_index)?;
        tasks.push(make_task(&spec, &pairings, new.pair_index, new.pairing, opening_index, line)?);
    }
    if let Some(last) = plan.fresh.last() {
        tx.prepare_cached("UPDATE runs SET next_pair_index = ?2 WHERE id = ?1")
            .and_then(|mut s| s.execute(params![key(run_id), int(last.pair_index + 1)]))
            .ctx("advancing a run's pair index")?;
    }
    for task in &tasks {
        tx.prepare_cached(
            "INSERT INTO lease_pairs (lease_id, run_id, pair_index, status) VALUES (?1, ?2, ?3, 'pending')",
        )
        .and_then(|mut s| s.execute(params![key(lease_id), key(run_id), int(task.pair_index)]))
        .ctx("recording a leased pair")?;
    }
    let variants = task_variant_ids(&tasks).iter().map(|id| load_variant(tx, id)).collect::<Result<Vec<_>>>()?;
    tracing::debug!(lease = %lease_id, run = %run_id, worker = %worker, pairs = tasks.len(), "lease granted");
    Ok(Some(Lease {
        id: lease_id,
        run: run_id,
        tasks,
        deadline_unix_ms: deadline_ms,
        tc: spec.tc,
        adjudication: spec.adjudication,
        sample_every: spec.sample_every,
        variants,
    }))
}

pub(super) fn heartbeat(conn: &Connection, worker: WorkerId, lease: LeaseId, now_ms: u64) -> Result<u64> {
    let (_, state, deadline, duration) = owned_lease(conn, worker, lease)?;
    if state != "active" {
        return Err(Error::LeaseClosed(lease));
    }
    let deadline = deadline.max(now_ms.saturating_add(duration));
    extend_lease(conn, lease, deadline)?;
    touch_worker(conn, worker, now_ms)?;
    Ok(deadline)
}
