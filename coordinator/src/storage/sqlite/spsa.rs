//! SPSA rows: a run's parameters (`run_spsa_params`, part of its spec), its current values
//! (`spsa_theta`), their history (`spsa_history`) and the perturbation of each lease
//! (`spsa_leases`). Values are one text field each ([`spsa::encode_values`]).

use proto::domain::{LeaseId, RunId, SpsaParam};
use rusqlite::{Connection, OptionalExtension, params};

use super::Ctx;
use crate::error::{Error, Result};
use crate::spsa::{self, HistoryPoint, Perturbation};
use crate::storage::codec::{corrupt, int, key, to_u64};

pub(super) fn insert_params(conn: &Connection, run: i64, ps: &[SpsaParam]) -> Result<()> {
    for (idx, p) in ps.iter().enumerate() {
        conn.prepare_cached(
            "INSERT INTO run_spsa_params (run_id, idx, name, start, min, max, c_end, r_end, integer)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
        )
        .and_then(|mut s| {
            s.execute(params![run, int(idx as u64), p.name, p.start, p.min, p.max, p.c_end, p.r_end, p.integer])
        })
        .ctx("storing an SPSA run's parameters")?;
    }
    Ok(())
}

pub(super) fn params(conn: &Connection, run: RunId) -> Result<Vec<SpsaParam>> {
    let rows: Vec<(i64, SpsaParam)> = conn
        .prepare_cached(
            "SELECT idx, name, start, min, max, c_end, r_end, integer FROM run_spsa_params
             WHERE run_id = ?1 ORDER BY idx",
        )
        .and_then(|mut s| {
            s.query_map([key(run)], |r| {
                Ok((
                    r.get(0)?,
                    SpsaParam {
                        name: r.get(1)?,
                        start: r.get(2)?,
                        min: r.get(3)?,
                        max: r.get(4)?,
                        c_end: r.get(5)?,
                        r_end: r.get(6)?,
                        integer: r.get(7)?,
                    },
                ))
            })?
            .collect()
        })
        .ctx("reading an SPSA run's parameters")?;
    if rows.is_empty() || !rows.iter().enumerate().all(|(i, (idx, _))| *idx == i as i64) {
        return Err(corrupt(format!("SPSA run {run} has no parameters or gaps in them")));
    }
    Ok(rows.into_iter().map(|(_, p)| p).collect())
}

pub(super) fn set_theta(conn: &Connection, run: RunId, theta: &[f64]) -> Result<()> {
    conn.prepare_cached(
        "INSERT INTO spsa_theta (run_id, theta) VALUES (?1, ?2)
         ON CONFLICT (run_id) DO UPDATE SET theta = excluded.theta",
    )
    .and_then(|mut s| s.execute(params![key(run), spsa::encode_values(theta)]))
    .ctx("storing an SPSA run's values")?;
    Ok(())
}

pub(super) fn theta(conn: &Connection, run: RunId) -> Result<Vec<f64>> {
    let text: String = conn
        .prepare_cached("SELECT theta FROM spsa_theta WHERE run_id = ?1")
        .and_then(|mut s| s.query_row([key(run)], |r| r.get(0)).optional())
        .ctx("reading an SPSA run's values")?
        .ok_or_else(|| corrupt(format!("SPSA run {run} has no values")))?;
    spsa::decode_values(&text).ok_or_else(|| corrupt(format!("SPSA run {run}: values {text:?}")))
}

pub(super) fn insert_history(conn: &Connection, run: RunId, point: &HistoryPoint) -> Result<()> {
    conn.prepare_cached("INSERT INTO spsa_history (run_id, iteration, received_ms, theta) VALUES (?1, ?2, ?3, ?4)")
        .and_then(|mut s| {
            s.execute(params![
                key(run),
                int(point.iteration),
                int(point.received_ms),
                spsa::encode_values(&point.theta)
            ])
        })
        .ctx("recording an SPSA run's history")?;
    Ok(())
}

pub(super) fn history(conn: &Connection, run: RunId) -> Result<Vec<HistoryPoint>> {
    let rows: Vec<(i64, i64, String)> = conn
        .prepare_cached("SELECT iteration, received_ms, theta FROM spsa_history WHERE run_id = ?1 ORDER BY iteration")
        .and_then(|mut s| s.query_map([key(run)], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?.collect())
        .ctx("reading an SPSA run's history")?;
    rows.into_iter()
        .map(|(iteration, received_ms, text)| {
            Ok(HistoryPoint {
                iteration: to_u64(iteration, "SPSA iteration")?,
                received_ms: to_u64(received_ms, "SPSA history time")?,
                theta: spsa::decode_values(&text)
                    .ok_or_else(|| corrupt(format!("SPSA run {run}: history values {text:?}")))?,
            })
        })
        .collect()
}

pub(super) fn insert_lease(conn: &Connection, lease: LeaseId, iteration: u64, ps: &[Perturbation]) -> Result<()> {
    conn.prepare_cached("INSERT INTO spsa_leases (lease_id, iteration, perturbation) VALUES (?1, ?2, ?3)")
        .and_then(|mut s| s.execute(params![key(lease), int(iteration), spsa::encode_perturbations(ps)]))
        .ctx("storing a lease's SPSA perturbation")?;
    Ok(())
}

pub(super) fn lease(conn: &Connection, lease: LeaseId) -> Result<Option<(u64, Vec<Perturbation>)>> {
    let row: Option<(i64, String)> = conn
        .prepare_cached("SELECT iteration, perturbation FROM spsa_leases WHERE lease_id = ?1")
        .and_then(|mut s| s.query_row([key(lease)], |r| Ok((r.get(0)?, r.get(1)?))).optional())
        .ctx("reading a lease's SPSA perturbation")?;
    row.map(|(iteration, text)| {
        let ps = spsa::decode_perturbations(&text)
            .ok_or_else(|| Error::Corrupt(format!("lease {lease}: SPSA perturbation {text:?}")))?;
        Ok((to_u64(iteration, "SPSA iteration")?, ps))
    })
    .transpose()
}
