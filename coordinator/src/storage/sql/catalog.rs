//! Variants, opening suites and runs: writing them and reading them back checked. Variants,
//! run specs and suite sizes never change once written, so each connection caches them
//! ([`super::RowCache`]).

use std::sync::Arc;

use proto::domain::{
    OpeningSuite, OpeningSuiteSummary, PairingStats, Run, RunId, RunKind, RunSpec, RunState, SuiteId, Variant,
    VariantId,
};

use super::{Conn, Ctx, SqlError, params};
use crate::error::{Error, Result};
use crate::spec;
use crate::storage::codec::{self, RUN_COLUMNS, RunRow, STATS_COLUMNS, bits, corrupt, int, key, to_u64};
use crate::storage::tx::Allocation;
use engine::nnue::NetworkId;

pub(super) fn insert_variant(c: &mut dyn Conn, variant: &Variant) -> Result<()> {
    let text = spec::encode_variant(&variant.spec);
    c.execute(
        "INSERT INTO variants (id, spec) VALUES (?1, ?2) ON CONFLICT DO NOTHING",
        params![variant.id.as_str(), &text],
    )
    .ctx("adding a variant")?;
    Ok(())
}

pub(super) fn variant_exists(c: &mut dyn Conn, id: &VariantId) -> Result<bool> {
    c.exists("SELECT 1 FROM variants WHERE id = ?1", params![id.as_str()]).ctx("looking up a variant")
}

/// A variant's stored text, checked against its id.
fn checked_variant(id: VariantId, text: &str) -> Result<Variant> {
    let spec = spec::decode_variant(text)?;
    // The stored text, not the decoded spec: a command-line variant of schema 2 decodes to an
    // engine name and keeps its id.
    if spec::encoding_id(text) != id {
        return Err(corrupt(format!("variant {id} does not hash to its id")));
    }
    Ok(Variant { id, spec })
}

/// A variant, checked against its id the first time this connection reads it.
pub(super) fn load_variant(c: &mut dyn Conn, id: &VariantId) -> Result<Variant> {
    if let Some(variant) = c.cache().variant(id) {
        return Ok(variant);
    }
    let text: String = c
        .query_opt("SELECT spec FROM variants WHERE id = ?1", params![id.as_str()])
        .ctx("reading a variant")?
        .ok_or_else(|| Error::VariantNotFound(id.clone()))?;
    let variant = checked_variant(id.clone(), &text)?;
    c.cache().remember_variant(&variant);
    Ok(variant)
}

/// The network a variant names ([`spec::network_of`]), kept with the connection's cache:
/// reading it parses the variant's parameter file.
pub(super) fn variant_network(c: &mut dyn Conn, id: &VariantId) -> Result<Option<NetworkId>> {
    if let Some(network) = c.cache().variant_network(id) {
        return Ok(network);
    }
    let network = spec::network_of(&load_variant(c, id)?.spec)?;
    c.cache().remember_variant_network(id, network);
    Ok(network)
}

pub(super) fn insert_suite(c: &mut dyn Conn, name: &str, lines: &[String]) -> Result<SuiteId> {
    let id: i64 = c
        .query_one(
            "INSERT INTO suites (name, opening_count) VALUES (?1, ?2) RETURNING id",
            params![name, int(lines.len() as u64)],
        )
        .ctx("adding a suite")?;
    for (idx, line) in lines.iter().enumerate() {
        c.execute(
            "INSERT INTO suite_openings (suite_id, idx, line) VALUES (?1, ?2, ?3)",
            params![id, int(idx as u64), line],
        )
        .ctx("adding an opening")?;
    }
    to_u64(id, "suite id").map(SuiteId::new)
}

pub(super) fn load_suite(c: &mut dyn Conn, id: SuiteId) -> Result<OpeningSuite> {
    let (name, count): (String, i64) = c
        .query_opt("SELECT name, opening_count FROM suites WHERE id = ?1", params![key(id)])
        .ctx("reading a suite")?
        .ok_or(Error::SuiteNotFound(id))?;
    let rows: Vec<(i64, String)> = c
        .query("SELECT idx, line FROM suite_openings WHERE suite_id = ?1 ORDER BY idx", params![key(id)])
        .ctx("reading openings")?;
    if !rows.iter().enumerate().all(|(i, (idx, _))| *idx == i as i64) || rows.len() as i64 != count {
        return Err(corrupt(format!("suite {id} has gaps in its openings")));
    }
    Ok(OpeningSuite { id, name, openings: rows.into_iter().map(|(_, line)| line).collect() })
}

/// How many openings a suite holds.
pub(super) fn suite_size(c: &mut dyn Conn, suite: SuiteId) -> Result<usize> {
    if let Some(size) = c.cache().suite_size(suite) {
        return Ok(size);
    }
    let size: i64 = c
        .query_opt("SELECT opening_count FROM suites WHERE id = ?1", params![key(suite)])
        .ctx("reading a suite's size")?
        .ok_or(Error::SuiteNotFound(suite))?;
    let size = usize::try_from(size).ok().filter(|n| *n > 0).ok_or_else(|| corrupt(format!("suite size {size}")))?;
    c.cache().remember_suite_size(suite, size);
    Ok(size)
}

/// An opening of a suite, read once per connection.
pub(super) fn opening_line(c: &mut dyn Conn, suite: SuiteId, index: u32) -> Result<String> {
    if let Some(line) = c.cache().opening(suite, index) {
        return Ok(line);
    }
    let line: String = c
        .query_opt(
            "SELECT line FROM suite_openings WHERE suite_id = ?1 AND idx = ?2",
            params![key(suite), i64::from(index)],
        )
        .ctx("reading an opening")?
        .ok_or_else(|| corrupt(format!("suite {suite} has no opening {index}")))?;
    c.cache().remember_opening(suite, index, &line);
    Ok(line)
}

/// Inserts a run whose spec was checked, with `pairings` pairings; its variants and suite
/// must exist.
pub(super) fn insert_run(c: &mut dyn Conn, run_spec: &RunSpec, pairings: usize, now_ms: u64) -> Result<RunId> {
    let codec::KindColumns { kind, pairs_per_pairing: pairs, sprt, random_plies } = codec::kind_columns(&run_spec.kind);
    let (tc_kind, tc_value, tc_inc) = codec::tc_columns(run_spec.tc);
    let a = run_spec.adjudication;
    let model = sprt.map(|s| codec::model_text(s.model));
    let id: i64 = c
        .query_one(
            "INSERT INTO runs (name, kind, pairs_per_pairing, sprt_elo0, sprt_elo1, sprt_alpha, sprt_beta,
                 sprt_model, tc_kind, tc_value, tc_inc_ms, suite_id, resign_score, resign_moves, draw_score,
                 draw_moves, draw_after_move, bench_signature, sample_every, state, created_ms, random_plies)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19,
                 'active', ?20, ?21)
             RETURNING id",
            params![
                &run_spec.name,
                kind,
                pairs,
                sprt.map(|s| s.elo0),
                sprt.map(|s| s.elo1),
                sprt.map(|s| s.alpha),
                sprt.map(|s| s.beta),
                model,
                tc_kind,
                tc_value,
                tc_inc,
                key(run_spec.openings),
                i64::from(a.resign_score),
                i64::from(a.resign_moves),
                i64::from(a.draw_score),
                i64::from(a.draw_moves),
                i64::from(a.draw_after_move),
                run_spec.bench_signature.map(bits),
                i64::from(run_spec.sample_every),
                int(now_ms),
                random_plies,
            ],
        )
        .ctx("creating a run")?;
    for (idx, variant) in run_spec.variants.iter().enumerate() {
        c.execute(
            "INSERT INTO run_variants (run_id, idx, variant_id) VALUES (?1, ?2, ?3)",
            params![id, int(idx as u64), variant.as_str()],
        )
        .ctx("naming a run's variants")?;
    }
    if let RunKind::Spsa(settings) = &run_spec.kind {
        super::spsa::insert_params(c, id, &settings.params)?;
    }
    if let RunKind::Tournament(settings) = &run_spec.kind {
        super::tournament::insert_settings(c, id, settings)?;
    }
    for pairing in 0..pairings {
        c.execute("INSERT INTO run_pairings (run_id, pairing) VALUES (?1, ?2)", params![id, int(pairing as u64)])
            .ctx("creating a run's pairings")?;
    }
    to_u64(id, "run id").map(RunId::new)
}

/// A run's spec, which never changes once the run exists: read once per connection.
pub(super) fn run_spec(c: &mut dyn Conn, id: RunId) -> Result<Arc<RunSpec>> {
    if let Some(spec) = c.cache().run_spec(id) {
        return Ok(spec);
    }
    let rows =
        c.rows(&format!("SELECT {RUN_COLUMNS} FROM runs WHERE id = ?1"), params![key(id)]).ctx("reading a run")?;
    let row = RunRow::read(rows.first().ok_or(Error::RunNotFound(id))?).ctx("reading a run")?;
    let variants: Vec<(i64, String)> = c
        .query("SELECT idx, variant_id FROM run_variants WHERE run_id = ?1 ORDER BY idx", params![key(id)])
        .ctx("reading a run's variants")?;
    if !variants.iter().enumerate().all(|(i, (idx, _))| *idx == i as i64) {
        return Err(corrupt(format!("run {id} has gaps in its variants")));
    }
    let spsa_params = if row.is_spsa() { super::spsa::params(c, id)? } else { Vec::new() };
    let tournament = match row.tournament_pairs()? {
        Some(pairs_per_match) => Some(super::tournament::settings(c, id, pairs_per_match)?),
        None => None,
    };
    let variants = variants.into_iter().map(|(_, v)| VariantId::new(v)).collect();
    let spec = Arc::new(row.into_spec(variants, spsa_params, tournament)?);
    c.cache().remember_run_spec(id, &spec);
    Ok(spec)
}

/// A run's state.
pub(super) fn run_state(c: &mut dyn Conn, id: RunId) -> Result<RunState> {
    let state: String = c
        .query_opt("SELECT state FROM runs WHERE id = ?1", params![key(id)])
        .ctx("reading a run's state")?
        .ok_or(Error::RunNotFound(id))?;
    codec::state_from(&state)
}

/// A run's statistics, one entry per pairing.
pub(super) fn run_stats(c: &mut dyn Conn, id: RunId) -> Result<Vec<PairingStats>> {
    let rows = c
        .rows(
            &format!("SELECT pairing, {STATS_COLUMNS} FROM run_pairings WHERE run_id = ?1 ORDER BY pairing"),
            params![key(id)],
        )
        .ctx("reading a run's statistics")?;
    let raw = rows
        .iter()
        .map(|r| {
            let mut v = [0i64; 8];
            for (i, x) in v.iter_mut().enumerate() {
                *x = r.get(i + 1)?;
            }
            Ok((r.get::<i64>(0)?, v))
        })
        .collect::<std::result::Result<Vec<_>, SqlError>>()
        .ctx("reading a run's statistics")?;
    if !raw.iter().enumerate().all(|(i, (pairing, _))| *pairing == i as i64) {
        return Err(corrupt(format!("run {id} has gaps in its pairings")));
    }
    raw.into_iter().map(|(_, v)| codec::stats_from(v)).collect()
}

pub(super) fn load_run(c: &mut dyn Conn, id: RunId) -> Result<Run> {
    let spec = run_spec(c, id)?;
    let (state, created_ms): (String, i64) = c
        .query_opt("SELECT state, created_ms FROM runs WHERE id = ?1", params![key(id)])
        .ctx("reading a run")?
        .ok_or(Error::RunNotFound(id))?;
    let stats = run_stats(c, id)?;
    Ok(Run {
        id,
        spec: RunSpec::clone(&spec),
        state: codec::state_from(&state)?,
        stats,
        created_unix_ms: to_u64(created_ms, "run creation time")?,
        tablebases: super::tablebases::of_run(c, id)?,
    })
}

pub(super) fn run_ids(c: &mut dyn Conn) -> Result<Vec<RunId>> {
    let ids: Vec<i64> = c.query("SELECT id FROM runs ORDER BY id", params![]).ctx("listing runs")?;
    ids.into_iter().map(|id| to_u64(id, "run id").map(RunId::new)).collect()
}

pub(super) fn set_run_state(c: &mut dyn Conn, id: RunId, state: &RunState) -> Result<()> {
    let changed = c
        .execute("UPDATE runs SET state = ?2 WHERE id = ?1", params![key(id), codec::state_text(state)])
        .ctx("setting a run's state")?;
    if changed == 0 { Err(Error::RunNotFound(id)) } else { Ok(()) }
}

/// Adds to a pairing's statistics.
pub(super) fn add_stats(c: &mut dyn Conn, run: RunId, pairing: u32, delta: &PairingStats) -> Result<()> {
    let [p0, p1, p2, p3, p4] = delta.pentanomial.map(int);
    c.write(
        "UPDATE run_pairings SET ptnml0 = ptnml0 + ?3, ptnml1 = ptnml1 + ?4, ptnml2 = ptnml2 + ?5,
             ptnml3 = ptnml3 + ?6, ptnml4 = ptnml4 + ?7, wins = wins + ?8, draws = draws + ?9,
             losses = losses + ?10
         WHERE run_id = ?1 AND pairing = ?2",
        params![key(run), i64::from(pairing), p0, p1, p2, p3, p4, int(delta.wins), int(delta.draws), int(delta.losses)],
        "updating statistics",
        Some(corrupt(format!("run {run} has no pairing {pairing}"))),
    )
}

/// A run's next pair index and pairs ever created per pairing, in one query.
pub(super) fn allocation(c: &mut dyn Conn, run: RunId) -> Result<Allocation> {
    let rows: Vec<(i64, Option<i64>)> = c
        .query(
            "SELECT r.next_pair_index, q.allocated FROM runs r LEFT JOIN run_pairings q ON q.run_id = r.id
             WHERE r.id = ?1 ORDER BY q.pairing",
            params![key(run)],
        )
        .ctx("reading a run's allocation")?;
    let next = rows.first().ok_or(Error::RunNotFound(run))?.0;
    Ok(Allocation {
        next_pair_index: to_u64(next, "next pair index")?,
        allocated: rows.iter().filter_map(|r| r.1).map(|a| to_u64(a, "allocated pairs")).collect::<Result<_>>()?,
    })
}

pub(super) fn run_exists(c: &mut dyn Conn, run: RunId) -> Result<()> {
    let found = c.exists("SELECT 1 FROM runs WHERE id = ?1", params![key(run)]).ctx("looking up a run")?;
    if found { Ok(()) } else { Err(Error::RunNotFound(run)) }
}

pub(super) fn set_exported_up_to(c: &mut dyn Conn, run: RunId, up_to_game_id: u64) -> Result<()> {
    let changed = c
        .execute("UPDATE runs SET exported_up_to = ?2 WHERE id = ?1", params![key(run), int(up_to_game_id)])
        .ctx("marking games exported")?;
    if changed == 0 { Err(Error::RunNotFound(run)) } else { Ok(()) }
}

pub(super) fn exported_up_to(c: &mut dyn Conn, run: RunId) -> Result<u64> {
    let v: i64 = c
        .query_opt("SELECT exported_up_to FROM runs WHERE id = ?1", params![key(run)])
        .ctx("reading the export mark")?
        .ok_or(Error::RunNotFound(run))?;
    to_u64(v, "export mark")
}

/// Every variant, by id, each checked as [`load_variant`] checks it.
pub(super) fn variants(c: &mut dyn Conn) -> Result<Vec<Variant>> {
    let sql = format!("SELECT id, spec FROM variants ORDER BY id{}", c.dialect().byte_order());
    let rows: Vec<(String, String)> = c.query(&sql, params![]).ctx("listing variants")?;
    rows.into_iter().map(|(id, text)| checked_variant(VariantId::from(id), &text)).collect()
}

pub(super) fn suite_summaries(c: &mut dyn Conn) -> Result<Vec<OpeningSuiteSummary>> {
    let rows: Vec<(i64, String, i64)> =
        c.query("SELECT id, name, opening_count FROM suites ORDER BY id", params![]).ctx("listing suites")?;
    rows.into_iter()
        .map(|(id, name, count)| {
            Ok(OpeningSuiteSummary {
                id: SuiteId::new(to_u64(id, "suite id")?),
                name,
                openings: u32::try_from(count).map_err(|_| corrupt(format!("suite {id} holds {count} openings")))?,
            })
        })
        .collect()
}
