//! Engines by name: what each worker advertised at `Register` (`worker_engines`), and what each
//! run needs with the binary it pinned (`run_engines`). Feeds the scheduler's engine filter
//! (`scheduler::can_play`) and `run show`'s "waiting for an engine".

use std::collections::HashMap;

use proto::domain::{EngineInfo, RunId, WorkerId};
use rusqlite::{Connection, params};

use super::Ctx;
use crate::error::Result;
use crate::scheduler::{EngineNeed, RunLoad};
use crate::spec;
use crate::storage::codec::{int, key, to_u64};

/// Replaces what `worker` advertised with `engines`. A name another worker advertised with a
/// different binary is allowed (a run pins one binary per name and leases only to workers with
/// it), and logged.
pub(super) fn store_worker_engines(conn: &Connection, worker: WorkerId, engines: &[EngineInfo]) -> Result<()> {
    conn.prepare_cached("DELETE FROM worker_engines WHERE worker_id = ?1")
        .and_then(|mut s| s.execute([key(worker)]))
        .ctx("forgetting a worker's engines")?;
    for engine in engines {
        conn.prepare_cached("INSERT INTO worker_engines (worker_id, name, id_name, sha256) VALUES (?1, ?2, ?3, ?4)")
            .and_then(|mut s| s.execute(params![key(worker), engine.name, engine.id_name, engine.sha256]))
            .ctx("storing a worker's engine")?;
        let other: Vec<(i64, String)> = conn
            .prepare_cached(
                "SELECT worker_id, sha256 FROM worker_engines WHERE name = ?1 AND sha256 != ?2 AND worker_id != ?3
                 LIMIT 1",
            )
            .and_then(|mut s| {
                s.query_map(params![engine.name, engine.sha256, key(worker)], |r| Ok((r.get(0)?, r.get(1)?)))?.collect()
            })
            .ctx("comparing engine binaries")?;
        if let Some((other_worker, other_sha)) = other.first() {
            tracing::warn!(
                worker = %worker,
                engine = %engine.name,
                sha256 = %engine.sha256,
                other_worker,
                other_sha256 = %other_sha,
                "an engine name with another binary than another worker's: runs that pinned the other get no lease here"
            );
        }
    }
    Ok(())
}

/// What `worker` advertised.
pub(super) fn worker_engines(conn: &Connection, worker: WorkerId) -> Result<Vec<EngineInfo>> {
    conn.prepare_cached("SELECT name, id_name, sha256 FROM worker_engines WHERE worker_id = ?1 ORDER BY name")
        .and_then(|mut s| {
            s.query_map([key(worker)], |r| Ok(EngineInfo { name: r.get(0)?, id_name: r.get(1)?, sha256: r.get(2)? }))?
                .collect()
        })
        .ctx("reading a worker's engines")
}

/// Notes the engines a new run's variants name (none pinned yet).
pub(super) fn store_run_engines(conn: &Connection, run: i64, needs: &[EngineNeed]) -> Result<()> {
    for need in needs {
        conn.prepare_cached("INSERT INTO run_engines (run_id, name, sha256) VALUES (?1, ?2, ?3)")
            .and_then(|mut s| s.execute(params![run, need.name, need.pinned_sha256]))
            .ctx("noting a run's engines")?;
    }
    Ok(())
}

/// The engines one run needs.
pub(super) fn run_engines(conn: &Connection, run: RunId) -> Result<Vec<EngineNeed>> {
    conn.prepare_cached("SELECT name, sha256 FROM run_engines WHERE run_id = ?1 ORDER BY name")
        .and_then(|mut s| {
            s.query_map([key(run)], |r| Ok(EngineNeed { name: r.get(0)?, pinned_sha256: r.get(1)? }))?.collect()
        })
        .ctx("reading a run's engines")
}

/// Fills each load's engines from `run_engines`, in one query over the active runs.
pub(super) fn attach_needs(conn: &Connection, loads: &mut [RunLoad]) -> Result<()> {
    let rows: Vec<(i64, String, Option<String>)> = conn
        .prepare_cached(
            "SELECT e.run_id, e.name, e.sha256 FROM run_engines e JOIN runs r ON r.id = e.run_id
             WHERE r.state = 'active'",
        )
        .and_then(|mut s| s.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?.collect())
        .ctx("reading the active runs' engines")?;
    if rows.is_empty() {
        return Ok(());
    }
    let mut by_run: HashMap<RunId, Vec<EngineNeed>> = HashMap::new();
    for (run, name, pinned_sha256) in rows {
        by_run.entry(RunId::new(to_u64(run, "run id")?)).or_default().push(EngineNeed { name, pinned_sha256 });
    }
    for load in loads {
        load.engines = by_run.remove(&load.run).unwrap_or_default();
    }
    Ok(())
}

/// Pins the run's engine `engine.name` to `engine`'s binary, unless it pinned one already.
pub(super) fn pin(conn: &Connection, run: RunId, engine: &EngineInfo) -> Result<()> {
    conn.prepare_cached(
        "UPDATE run_engines SET sha256 = ?3, id_name = ?4 WHERE run_id = ?1 AND name = ?2 AND sha256 IS NULL",
    )
    .and_then(|mut s| s.execute(params![key(run), engine.name, engine.sha256, engine.id_name]))
    .ctx("pinning a run's engine")?;
    Ok(())
}

/// The engines of every worker seen at or after `since_ms`, one list per worker.
pub(super) fn connected_engines(conn: &Connection, since_ms: u64) -> Result<Vec<Vec<EngineInfo>>> {
    let rows: Vec<(i64, EngineInfo)> = conn
        .prepare_cached(
            "SELECT w.id, e.name, e.id_name, e.sha256 FROM workers w JOIN worker_engines e ON e.worker_id = w.id
             WHERE w.last_seen_ms >= ?1 ORDER BY w.id, e.name",
        )
        .and_then(|mut s| {
            s.query_map([int(since_ms)], |r| {
                Ok((r.get(0)?, EngineInfo { name: r.get(1)?, id_name: r.get(2)?, sha256: r.get(3)? }))
            })?
            .collect()
        })
        .ctx("reading connected workers' engines")?;
    let mut workers: Vec<(i64, Vec<EngineInfo>)> = Vec::new();
    for (worker, engine) in rows {
        match workers.last_mut() {
            Some((id, engines)) if *id == worker => engines.push(engine),
            _ => workers.push((worker, vec![engine])),
        }
    }
    Ok(workers.into_iter().map(|(_, engines)| engines).collect())
}

/// Schema 3's migration step: the engines every existing run needs, from its stored variants
/// (a command-line variant names the engine of its command's file stem, see
/// `spec::decode_variant`).
pub(super) fn fill_run_engines(conn: &Connection) -> Result<()> {
    let rows: Vec<(i64, String)> = conn
        .prepare(
            "SELECT rv.run_id, v.spec FROM run_variants rv JOIN variants v ON v.id = rv.variant_id
             ORDER BY rv.run_id, rv.idx",
        )
        .and_then(|mut s| s.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?.collect())
        .ctx("reading the runs' variants")?;
    let mut by_run: Vec<(i64, Vec<proto::domain::VariantSpec>)> = Vec::new();
    for (run, text) in rows {
        let variant = spec::decode_variant(&text)?;
        match by_run.last_mut() {
            Some((id, variants)) if *id == run => variants.push(variant),
            _ => by_run.push((run, vec![variant])),
        }
    }
    for (run, variants) in by_run {
        store_run_engines(conn, run, &crate::scheduler::engine_needs(&variants))?;
    }
    Ok(())
}
