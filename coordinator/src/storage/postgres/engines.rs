//! Engines by name: what each worker advertised at `Register` (`worker_engines`), and what each
//! run needs with the binary it pinned (`run_engines`). Feeds the scheduler's engine filter
//! (`scheduler::can_play`) and `run show`'s "waiting for an engine". Names are ordered
//! `COLLATE "C"` (byte order), as SQLite orders them.

use std::collections::HashMap;

use super::db::Db;
use proto::domain::{EngineInfo, RunId, WorkerId};

use super::Ctx;
use crate::error::Result;
use crate::scheduler::{EngineNeed, RunLoad};
use crate::storage::codec::{int, key, to_u64};

/// Replaces what `worker` advertised with `engines`. A name another worker advertised with a
/// different binary is allowed (a run pins one binary per name and leases only to workers with
/// it), and logged.
pub(super) fn store_worker_engines(c: &mut Db<'_, '_>, worker: WorkerId, engines: &[EngineInfo]) -> Result<()> {
    c.execute("DELETE FROM worker_engines WHERE worker_id = $1", &[&key(worker)])
        .ctx("forgetting a worker's engines")?;
    for engine in engines {
        c.execute(
            "INSERT INTO worker_engines (worker_id, name, id_name, sha256) VALUES ($1, $2, $3, $4)",
            &[&key(worker), &engine.name, &engine.id_name, &engine.sha256],
        )
        .ctx("storing a worker's engine")?;
        let other = c
            .query_opt(
                "SELECT worker_id, sha256 FROM worker_engines WHERE name = $1 AND sha256 <> $2 AND worker_id <> $3
                 LIMIT 1",
                &[&engine.name, &engine.sha256, &key(worker)],
            )
            .ctx("comparing engine binaries")?;
        if let Some(row) = other {
            let other_worker: i64 = row.try_get(0).ctx("comparing engine binaries")?;
            let other_sha: String = row.try_get(1).ctx("comparing engine binaries")?;
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
pub(super) fn worker_engines(c: &mut Db<'_, '_>, worker: WorkerId) -> Result<Vec<EngineInfo>> {
    c.query(
        r#"SELECT name, id_name, sha256 FROM worker_engines WHERE worker_id = $1 ORDER BY name COLLATE "C""#,
        &[&key(worker)],
    )
    .and_then(|rows| {
        rows.iter()
            .map(|r| Ok(EngineInfo { name: r.try_get(0)?, id_name: r.try_get(1)?, sha256: r.try_get(2)? }))
            .collect()
    })
    .ctx("reading a worker's engines")
}

/// Notes the engines a new run's variants name (none pinned yet).
pub(super) fn store_run_engines(c: &mut Db<'_, '_>, run: i64, needs: &[EngineNeed]) -> Result<()> {
    for need in needs {
        c.execute(
            "INSERT INTO run_engines (run_id, name, sha256) VALUES ($1, $2, $3)",
            &[&run, &need.name, &need.pinned_sha256],
        )
        .ctx("noting a run's engines")?;
    }
    Ok(())
}

/// The engines one run needs.
pub(super) fn run_engines(c: &mut Db<'_, '_>, run: RunId) -> Result<Vec<EngineNeed>> {
    c.query(r#"SELECT name, sha256 FROM run_engines WHERE run_id = $1 ORDER BY name COLLATE "C""#, &[&key(run)])
        .and_then(|rows| {
            rows.iter().map(|r| Ok(EngineNeed { name: r.try_get(0)?, pinned_sha256: r.try_get(1)? })).collect()
        })
        .ctx("reading a run's engines")
}

/// Fills each load's engines from `run_engines`, in one query over the active runs.
pub(super) fn attach_needs(c: &mut Db<'_, '_>, loads: &mut [RunLoad]) -> Result<()> {
    // SQLite's query has no order and returns each run's engines in key order, by name.
    let rows = c
        .query(
            r#"SELECT e.run_id, e.name, e.sha256 FROM run_engines e JOIN runs r ON r.id = e.run_id
               WHERE r.state = 'active' ORDER BY e.run_id, e.name COLLATE "C""#,
            &[],
        )
        .ctx("reading the active runs' engines")?;
    if rows.is_empty() {
        return Ok(());
    }
    let mut by_run: HashMap<RunId, Vec<EngineNeed>> = HashMap::new();
    for row in &rows {
        let run: i64 = row.try_get(0).ctx("reading the active runs' engines")?;
        let need = EngineNeed {
            name: row.try_get(1).ctx("reading the active runs' engines")?,
            pinned_sha256: row.try_get(2).ctx("reading the active runs' engines")?,
        };
        by_run.entry(RunId::new(to_u64(run, "run id")?)).or_default().push(need);
    }
    for load in loads {
        load.engines = by_run.remove(&load.run).unwrap_or_default();
    }
    Ok(())
}

/// Pins the run's engine `engine.name` to `engine`'s binary, unless it pinned one already.
pub(super) fn pin(c: &mut Db<'_, '_>, run: RunId, engine: &EngineInfo) -> Result<()> {
    c.execute(
        "UPDATE run_engines SET sha256 = $3, id_name = $4 WHERE run_id = $1 AND name = $2 AND sha256 IS NULL",
        &[&key(run), &engine.name, &engine.sha256, &engine.id_name],
    )
    .ctx("pinning a run's engine")?;
    Ok(())
}

/// The engines of every worker seen at or after `since_ms`, one list per worker.
pub(super) fn connected_engines(c: &mut Db<'_, '_>, since_ms: u64) -> Result<Vec<Vec<EngineInfo>>> {
    let rows = c
        .query(
            r#"SELECT w.id, e.name, e.id_name, e.sha256 FROM workers w JOIN worker_engines e ON e.worker_id = w.id
               WHERE w.last_seen_ms >= $1 ORDER BY w.id, e.name COLLATE "C""#,
            &[&int(since_ms)],
        )
        .ctx("reading connected workers' engines")?;
    let mut workers: Vec<(i64, Vec<EngineInfo>)> = Vec::new();
    for row in &rows {
        let read = || -> std::result::Result<(i64, EngineInfo), postgres::Error> {
            Ok((
                row.try_get(0)?,
                EngineInfo { name: row.try_get(1)?, id_name: row.try_get(2)?, sha256: row.try_get(3)? },
            ))
        };
        let (worker, engine) = read().ctx("reading connected workers' engines")?;
        match workers.last_mut() {
            Some((id, engines)) if *id == worker => engines.push(engine),
            _ => workers.push((worker, vec![engine])),
        }
    }
    Ok(workers.into_iter().map(|(_, engines)| engines).collect())
}
