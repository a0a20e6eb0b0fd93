//! SPSA rows: a run's parameters (`run_spsa_params`, part of its spec), its current values
//! (`spsa_theta`), their history (`spsa_history`) and the perturbation of each lease
//! (`spsa_leases`). Values are one text field each ([`spsa::encode_values`]).

use proto::domain::{LeaseId, RunId, SpsaParam};

use super::{Conn, Ctx, params};
use crate::error::{Error, Result};
use crate::spsa::{self, HistoryPoint, Perturbation};
use crate::storage::codec::{corrupt, int, key, to_bool, to_u64};

pub(super) fn insert_params(c: &mut dyn Conn, run: i64, ps: &[SpsaParam]) -> Result<()> {
    for (idx, p) in ps.iter().enumerate() {
        c.execute(
            r#"INSERT INTO run_spsa_params (run_id, idx, name, start, min, max, c_end, r_end, "integer")
               VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)"#,
            params![run, int(idx as u64), &p.name, p.start, p.min, p.max, p.c_end, p.r_end, i64::from(p.integer)],
        )
        .ctx("storing an SPSA run's parameters")?;
    }
    Ok(())
}

pub(super) fn params(c: &mut dyn Conn, run: RunId) -> Result<Vec<SpsaParam>> {
    type Raw = (i64, String, f64, f64, f64, f64, f64, i64);
    let rows: Vec<Raw> = c
        .query(
            r#"SELECT idx, name, start, min, max, c_end, r_end, "integer" FROM run_spsa_params
               WHERE run_id = ?1 ORDER BY idx"#,
            params![key(run)],
        )
        .ctx("reading an SPSA run's parameters")?;
    if rows.is_empty() || !rows.iter().enumerate().all(|(i, row)| row.0 == i as i64) {
        return Err(corrupt(format!("SPSA run {run} has no parameters or gaps in them")));
    }
    rows.into_iter()
        .map(|(_, name, start, min, max, c_end, r_end, integer)| {
            Ok(SpsaParam { name, start, min, max, c_end, r_end, integer: to_bool(integer, "SPSA integer flag")? })
        })
        .collect()
}

pub(super) fn set_theta(c: &mut dyn Conn, run: RunId, theta: &[f64]) -> Result<()> {
    let text = spsa::encode_values(theta);
    c.execute(
        "INSERT INTO spsa_theta (run_id, theta) VALUES (?1, ?2)
         ON CONFLICT (run_id) DO UPDATE SET theta = excluded.theta",
        params![key(run), &text],
    )
    .ctx("storing an SPSA run's values")?;
    Ok(())
}

pub(super) fn theta(c: &mut dyn Conn, run: RunId) -> Result<Vec<f64>> {
    let text: String = c
        .query_opt("SELECT theta FROM spsa_theta WHERE run_id = ?1", params![key(run)])
        .ctx("reading an SPSA run's values")?
        .ok_or_else(|| corrupt(format!("SPSA run {run} has no values")))?;
    spsa::decode_values(&text).ok_or_else(|| corrupt(format!("SPSA run {run}: values {text:?}")))
}

pub(super) fn insert_history(c: &mut dyn Conn, run: RunId, point: &HistoryPoint) -> Result<()> {
    let text = spsa::encode_values(&point.theta);
    c.execute(
        "INSERT INTO spsa_history (run_id, iteration, received_ms, theta) VALUES (?1, ?2, ?3, ?4)",
        params![key(run), int(point.iteration), int(point.received_ms), &text],
    )
    .ctx("recording an SPSA run's history")?;
    Ok(())
}

pub(super) fn history(c: &mut dyn Conn, run: RunId) -> Result<Vec<HistoryPoint>> {
    let rows: Vec<(i64, i64, String)> = c
        .query(
            "SELECT iteration, received_ms, theta FROM spsa_history WHERE run_id = ?1 ORDER BY iteration",
            params![key(run)],
        )
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

pub(super) fn insert_lease(c: &mut dyn Conn, lease: LeaseId, iteration: u64, ps: &[Perturbation]) -> Result<()> {
    let text = spsa::encode_perturbations(ps);
    c.execute(
        "INSERT INTO spsa_leases (lease_id, iteration, perturbation) VALUES (?1, ?2, ?3)",
        params![key(lease), int(iteration), &text],
    )
    .ctx("storing a lease's SPSA perturbation")?;
    Ok(())
}

pub(super) fn lease(c: &mut dyn Conn, lease: LeaseId) -> Result<Option<(u64, Vec<Perturbation>)>> {
    let row: Option<(i64, String)> = c
        .query_opt("SELECT iteration, perturbation FROM spsa_leases WHERE lease_id = ?1", params![key(lease)])
        .ctx("reading a lease's SPSA perturbation")?;
    row.map(|(iteration, text)| {
        let ps = spsa::decode_perturbations(&text)
            .ok_or_else(|| Error::Corrupt(format!("lease {lease}: SPSA perturbation {text:?}")))?;
        Ok((to_u64(iteration, "SPSA iteration")?, ps))
    })
    .transpose()
}
