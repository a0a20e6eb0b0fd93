//! Engines by name: what each worker advertised at `Register` (`worker_engines`), and what each
//! run needs with the binary it pinned (`run_engines`). Feeds the scheduler's engine filter
//! (`scheduler::can_play`) and `run show`'s "waiting for an engine". Names are ordered byte by
//! byte (`COLLATE "C"`).

use std::collections::HashMap;

use proto::domain::{EngineInfo, RunId, WorkerId};

use super::{Conn, Ctx, params};
use crate::error::Result;
use crate::scheduler::{EngineNeed, RunLoad};
use crate::storage::codec::{int, key, to_u64};

/// Replaces what `worker` advertised with `engines`. A name another worker advertised with a
/// different binary is allowed (a run pins one binary per name and leases only to workers with
/// it), and logged.
pub(super) fn store_worker_engines(c: &mut dyn Conn, worker: WorkerId, engines: &[EngineInfo]) -> Result<()> {
    c.execute("DELETE FROM worker_engines WHERE worker_id = ?1", params![key(worker)])
        .ctx("forgetting a worker's engines")?;
    for engine in engines {
        c.execute(
            "INSERT INTO worker_engines (worker_id, name, id_name, sha256) VALUES (?1, ?2, ?3, ?4)",
            params![key(worker), &engine.name, &engine.id_name, &engine.sha256],
        )
        .ctx("storing a worker's engine")?;
        let other: Option<(i64, String)> = c
            .query_opt(
                "SELECT worker_id, sha256 FROM worker_engines WHERE name = ?1 AND sha256 <> ?2 AND worker_id <> ?3
                 LIMIT 1",
                params![&engine.name, &engine.sha256, key(worker)],
            )
            .ctx("comparing engine binaries")?;
        if let Some((other_worker, other_sha)) = other {
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
pub(super) fn worker_engines(c: &mut dyn Conn, worker: WorkerId) -> Result<Vec<EngineInfo>> {
    let sql = format!(
        "SELECT name, id_name, sha256 FROM worker_engines WHERE worker_id = ?1 ORDER BY name{}",
        c.dialect().byte_order()
    );
    let rows: Vec<(String, String, String)> = c.query(&sql, params![key(worker)]).ctx("reading a worker's engines")?;
    Ok(rows.into_iter().map(|(name, id_name, sha256)| EngineInfo { name, id_name, sha256 }).collect())
}

/// Notes the engines a new run's variants name (none pinned yet).
pub(in crate::storage) fn store_run_engines(c: &mut dyn Conn, run: i64, needs: &[EngineNeed]) -> Result<()> {
    for need in needs {
        c.execute(
            "INSERT INTO run_engines (run_id, name, sha256) VALUES (?1, ?2, ?3)",
            params![run, &need.name, need.pinned_sha256.as_deref()],
        )
        .ctx("noting a run's engines")?;
    }
    Ok(())
}

/// What a run needs, by name.
pub(super) fn run_engines(c: &mut dyn Conn, run: RunId) -> Result<Vec<EngineNeed>> {
    let sql =
        format!("SELECT name, sha256 FROM run_engines WHERE run_id = ?1 ORDER BY name{}", c.dialect().byte_order());
    let rows: Vec<(String, Option<String>)> = c.query(&sql, params![key(run)]).ctx("reading a run's engines")?;
    Ok(rows.into_iter().map(|(name, pinned_sha256)| EngineNeed { name, pinned_sha256 }).collect())
}

/// Fills in each active run's engine needs, in one query for all of them.
pub(super) fn attach_needs(c: &mut dyn Conn, loads: &mut [RunLoad]) -> Result<()> {
    let sql = format!(
        "SELECT e.run_id, e.name, e.sha256 FROM run_engines e JOIN runs r ON r.id = e.run_id
         WHERE r.state = 'active' ORDER BY e.run_id, e.name{}",
        c.dialect().byte_order()
    );
    let rows: Vec<(i64, String, Option<String>)> = c.query(&sql, params![]).ctx("reading the active runs' engines")?;
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
pub(super) fn pin(c: &mut dyn Conn, run: RunId, engine: &EngineInfo) -> Result<()> {
    c.execute(
        "UPDATE run_engines SET sha256 = ?3, id_name = ?4 WHERE run_id = ?1 AND name = ?2 AND sha256 IS NULL",
        params![key(run), &engine.name, &engine.sha256, &engine.id_name],
    )
    .ctx("pinning a run's engine")?;
    Ok(())
}

/// The engines of every worker seen at or after `since_ms`, one list per worker.
pub(super) fn connected_engines(c: &mut dyn Conn, since_ms: u64) -> Result<Vec<Vec<EngineInfo>>> {
    let sql = format!(
        "SELECT w.id, e.name, e.id_name, e.sha256 FROM workers w JOIN worker_engines e ON e.worker_id = w.id
         WHERE w.last_seen_ms >= ?1 ORDER BY w.id, e.name{}",
        c.dialect().byte_order()
    );
    let rows: Vec<(i64, String, String, String)> =
        c.query(&sql, params![int(since_ms)]).ctx("reading connected workers' engines")?;
    let mut workers: Vec<(i64, Vec<EngineInfo>)> = Vec::new();
    for (worker, name, id_name, sha256) in rows {
        let engine = EngineInfo { name, id_name, sha256 };
        match workers.last_mut() {
            Some((id, engines)) if *id == worker => engines.push(engine),
            _ => workers.push((worker, vec![engine])),
        }
    }
    Ok(workers.into_iter().map(|(_, engines)| engines).collect())
}
