//! SPSA rows: a run's parameters (`run_spsa_params`, part of its spec), its current values
//! (`spsa_theta`), their history (`spsa_history`) and the perturbation of each lease
//! (`spsa_leases`). Values are one text field each ([`spsa::encode_values`]).

use super::db::Db;
use proto::domain::{LeaseId, RunId, SpsaParam};

use super::Ctx;
use crate::error::{Error, Result};
use crate::spsa::{self, HistoryPoint, Perturbation};
use crate::storage::codec::{corrupt, int, key, to_bool, to_u64};

pub(super) fn insert_params(c: &mut Db<'_, '_>, run: i64, ps: &[SpsaParam]) -> Result<()> {
    for (idx, p) in ps.iter().enumerate() {
        c.execute(
            r#"INSERT INTO run_spsa_params (run_id, idx, name, start, min, max, c_end, r_end, "integer")
               VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)"#,
            &[&run, &int(idx as u64), &p.name, &p.start, &p.min, &p.max, &p.c_end, &p.r_end, &i64::from(p.integer)],
        )
        .ctx("storing an SPSA run's parameters")?;
    }
    Ok(())
}

pub(super) fn params(c: &mut Db<'_, '_>, run: RunId) -> Result<Vec<SpsaParam>> {
    let rows = c
        .query(
            r#"SELECT idx, name, start, min, max, c_end, r_end, "integer" FROM run_spsa_params
               WHERE run_id = $1 ORDER BY idx"#,
            &[&key(run)],
        )
        .ctx("reading an SPSA run's parameters")?;
    let rows = rows
        .iter()
        .map(|r| {
            let read = || -> std::result::Result<(i64, SpsaParam, i64), postgres::Error> {
                let p = SpsaParam {
                    name: r.try_get(1)?,
                    start: r.try_get(2)?,
                    min: r.try_get(3)?,
                    max: r.try_get(4)?,
                    c_end: r.try_get(5)?,
                    r_end: r.try_get(6)?,
                    integer: false,
                };
                Ok((r.try_get(0)?, p, r.try_get(7)?))
            };
            let (idx, p, integer) = read().ctx("reading an SPSA run's parameters")?;
            Ok((idx, SpsaParam { integer: to_bool(integer, "SPSA integer flag")?, ..p }))
        })
        .collect::<Result<Vec<_>>>()?;
    if rows.is_empty() || !rows.iter().enumerate().all(|(i, (idx, _))| *idx == i as i64) {
        return Err(corrupt(format!("SPSA run {run} has no parameters or gaps in them")));
    }
    Ok(rows.into_iter().map(|(_, p)| p).collect())
}

pub(super) fn set_theta(c: &mut Db<'_, '_>, run: RunId, theta: &[f64]) -> Result<()> {
    c.execute(
        "INSERT INTO spsa_theta (run_id, theta) VALUES ($1, $2)
         ON CONFLICT (run_id) DO UPDATE SET theta = EXCLUDED.theta",
        &[&key(run), &spsa::encode_values(theta)],
    )
    .ctx("storing an SPSA run's values")?;
    Ok(())
}

pub(super) fn theta(c: &mut Db<'_, '_>, run: RunId) -> Result<Vec<f64>> {
    let text: String = c
        .query_opt("SELECT theta FROM spsa_theta WHERE run_id = $1", &[&key(run)])
        .ctx("reading an SPSA run's values")?
        .ok_or_else(|| corrupt(format!("SPSA run {run} has no values")))?
        .try_get(0)
        .ctx("reading an SPSA run's values")?;
    spsa::decode_values(&text).ok_or_else(|| corrupt(format!("SPSA run {run}: values {text:?}")))
}

pub(super) fn insert_history(c: &mut Db<'_, '_>, run: RunId, point: &HistoryPoint) -> Result<()> {
    c.execute(
        "INSERT INTO spsa_history (run_id, iteration, received_ms, theta) VALUES ($1, $2, $3, $4)",
        &[&key(run), &int(point.iteration), &int(point.received_ms), &spsa::encode_values(&point.theta)],
    )
    .ctx("recording an SPSA run's history")?;
    Ok(())
}

pub(super) fn history(c: &mut Db<'_, '_>, run: RunId) -> Result<Vec<HistoryPoint>> {
    c.query("SELECT iteration, received_ms, theta FROM spsa_history WHERE run_id = $1 ORDER BY iteration", &[&key(run)])
        .ctx("reading an SPSA run's history")?
        .iter()
        .map(|r| {
            let iteration: i64 = r.try_get(0).ctx("reading an SPSA run's history")?;
            let received_ms: i64 = r.try_get(1).ctx("reading an SPSA run's history")?;
            let text: String = r.try_get(2).ctx("reading an SPSA run's history")?;
            Ok(HistoryPoint {
                iteration: to_u64(iteration, "SPSA iteration")?,
                received_ms: to_u64(received_ms, "SPSA history time")?,
                theta: spsa::decode_values(&text)
                    .ok_or_else(|| corrupt(format!("SPSA run {run}: history values {text:?}")))?,
            })
        })
        .collect()
}

pub(super) fn insert_lease(c: &mut Db<'_, '_>, lease: LeaseId, iteration: u64, ps: &[Perturbation]) -> Result<()> {
    c.execute(
        "INSERT INTO spsa_leases (lease_id, iteration, perturbation) VALUES ($1, $2, $3)",
        &[&key(lease), &int(iteration), &spsa::encode_perturbations(ps)],
    )
    .ctx("storing a lease's SPSA perturbation")?;
    Ok(())
}

pub(super) fn lease(c: &mut Db<'_, '_>, lease: LeaseId) -> Result<Option<(u64, Vec<Perturbation>)>> {
    let row = c
        .query_opt("SELECT iteration, perturbation FROM spsa_leases WHERE lease_id = $1", &[&key(lease)])
        .ctx("reading a lease's SPSA perturbation")?;
    row.map(|r| {
        let iteration: i64 = r.try_get(0).ctx("reading a lease's SPSA perturbation")?;
        let text: String = r.try_get(1).ctx("reading a lease's SPSA perturbation")?;
        let ps = spsa::decode_perturbations(&text)
            .ok_or_else(|| Error::Corrupt(format!("lease {lease}: SPSA perturbation {text:?}")))?;
        Ok((to_u64(iteration, "SPSA iteration")?, ps))
    })
    .transpose()
}
