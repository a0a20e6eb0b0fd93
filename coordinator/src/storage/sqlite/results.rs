//! Recording reported pairs, idempotently, and reading recorded games back.

use proto::domain::{GameReport, LeaseId, PairReport, PairingStats, PositionSample, RunId, RunState, WorkerId};
use rusqlite::{Connection, OptionalExtension, params};

use super::Ctx;
use super::catalog::{opening_line, run_exists, run_spec, run_state, run_stats};
use super::codec::{self, bits, corrupt, int, key, to_bool, to_i32, to_u32, to_u64};
use super::db::Db;
use super::leasing::{end_lease, extend_lease, owned_lease, touch_worker};
use crate::error::{Error, Result};
use crate::storage::{LeaseTerms, RecordOutcome, StoredGame, make_task};
use crate::{report, scheduler};

fn leased_pair(conn: &Connection, lease: LeaseId, pair_index: u64) -> Result<Option<(u32, u32)>> {
    let row: Option<(i64, i64)> = conn
        .prepare_cached(
            "SELECT p.pairing, p.opening_index FROM lease_pairs lp
             JOIN pairs p ON p.run_id = lp.run_id AND p.pair_index = lp.pair_index
             WHERE lp.lease_id = ?1 AND lp.pair_index = ?2",
        )
        .and_then(|mut s| s.query_row(params![key(lease), int(pair_index)], |r| Ok((r.get(0)?, r.get(1)?))).optional())
        .ctx("reading a leased pair")?;
    row.map(|(pairing, opening)| Ok((to_u32(pairing, "pairing")?, to_u32(opening, "opening index")?))).transpose()
}

fn insert_game(
    conn: &Connection,
    run: RunId,
    report: &PairReport,
    game_in_pair: u8,
    opening_index: u32,
    worker: WorkerId,
    game: &GameReport,
) -> Result<()> {
    conn.prepare_cached(
        "INSERT INTO games (run_id, pair_index, game_in_pair, opening_index, worker_id, red, black, start_fen,
                            outcome, reason, moves, duration_ms, nodes)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
    )
    .and_then(|mut s| {
        s.execute(params![
            key(run),
            int(report.pair_index),
            game_in_pair,
            opening_index,
            key(worker),
            game.red.as_str(),
            game.black.as_str(),
            game.start_fen,
            codec::outcome_text(game.outcome),
            game.reason.as_str(),
            game.moves.join(" "),
            int(game.duration_ms),
            int(game.nodes),
        ])
    })
    .ctx("storing a game")?;
    let game_id = conn.last_insert_rowid();
    for (seq, p) in game.positions.iter().enumerate() {
        conn.prepare_cached(
            "INSERT INTO positions (game_id, seq, ply, fen, red_to_move, static_eval, search_score, best_move,
                                    in_check, quiet)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
        )
        .and_then(|mut s| {
            s.execute(params![
                game_id,
                int(seq as u64),
                p.ply,
                p.fen,
                p.red_to_move,
                p.static_eval,
                p.search_score,
                p.best_move,
                p.in_check,
                p.quiet
            ])
        })
        .ctx("storing a sampled position")?;
    }
    Ok(())
}

/// Records one checked pair unless it was recorded before; returns whether it counted.
fn record_pair(
    conn: &Connection,
    run: RunId,
    lease: LeaseId,
    worker: WorkerId,
    report: &PairReport,
    pairing: u32,
    opening_index: u32,
) -> Result<bool> {
    let status: String = conn
        .prepare_cached("SELECT status FROM pairs WHERE run_id = ?1 AND pair_index = ?2")
        .and_then(|mut s| s.query_row(params![key(run), int(report.pair_index)], |r| r.get(0)))
        .ctx("reading a pair")?;
    if status == "done" {
        return Ok(false);
    }
    conn.prepare_cached("UPDATE pairs SET status = 'done' WHERE run_id = ?1 AND pair_index = ?2")
        .and_then(|mut s| s.execute(params![key(run), int(report.pair_index)]))
        .ctx("finishing a pair")?;
    // Whichever lease holds the pair now (this one, or another after an expiry) is done with it.
    conn.prepare_cached(
        "UPDATE lease_pairs SET status = 'finished'
         WHERE run_id = ?1 AND pair_index = ?2 AND (status = 'pending' OR lease_id = ?3)",
    )
    .and_then(|mut s| s.execute(params![key(run), int(report.pair_index), key(lease)]))
    .ctx("finishing a leased pair")?;
    let mut delta = PairingStats::default();
    report::tally(&mut delta, report);
    let [p0, p1, p2, p3, p4] = delta.pentanomial.map(int);
    conn.prepare_cached(
        "UPDATE run_pairings SET ptnml0 = ptnml0 + ?3, ptnml1 = ptnml1 + ?4, ptnml2 = ptnml2 + ?5,
             ptnml3 = ptnml3 + ?6, ptnml4 = ptnml4 + ?7, wins = wins + ?8, draws = draws + ?9, losses = losses + ?10
         WHERE run_id = ?1 AND pairing = ?2",
    )
    .and_then(|mut s| {
        s.execute(params![key(run), pairing, p0, p1, p2, p3, p4, int(delta.wins), int(delta.draws), int(delta.losses)])
    })
    .ctx("updating statistics")?;
    for (game_in_pair, game) in (0u8..).zip(report.games.iter()) {
        insert_game(conn, run, report, game_in_pair, opening_index, worker, game)?;
    }
    Ok(true)
}

/// A lease's run rules and every pair it was given, with the pair's opening line.
pub(super) fn lease_terms(conn: &Db, lease: LeaseId) -> Result<LeaseTerms> {
    let run: i64 = conn
        .prepare_cached("SELECT run_id FROM leases WHERE id = ?1")
        .and_then(|mut s| s.query_row([key(lease)], |r| r.get(0)).optional())
        .ctx("reading a lease")?
        .ok_or(Error::LeaseNotFound(lease))?;
    let run = RunId::new(to_u64(run, "lease run")?);
    let spec = run_spec(conn, run)?;
    let pairings = scheduler::pairings(&spec);
    let rows: Vec<(i64, i64, i64)> = conn
        .prepare_cached(
            "SELECT lp.pair_index, p.pairing, p.opening_index FROM lease_pairs lp
             JOIN pairs p ON p.run_id = lp.run_id AND p.pair_index = lp.pair_index
             WHERE lp.lease_id = ?1 ORDER BY lp.pair_index",
        )
        .and_then(|mut s| s.query_map([key(lease)], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?.collect())
        .ctx("reading a lease's pairs")?;
    let mut tasks = Vec::with_capacity(rows.len());
    for (index, pairing, opening) in rows {
        let (index, opening) = (to_u64(index, "pair index")?, to_u32(opening, "opening index")?);
        let line = opening_line(conn, spec.openings, opening)?;
        tasks.push(make_task(&spec, &pairings, index, to_u32(pairing, "pairing")?, opening, line)?);
    }
    Ok(LeaseTerms { lease, run, tc: spec.tc, adjudication: spec.adjudication, sample_every: spec.sample_every, tasks })
}

pub(super) fn record_results(
    tx: &Db,
    worker: WorkerId,
    lease: LeaseId,
    seq: u64,
    pairs: &[PairReport],
    final_batch: bool,
    now_ms: u64,
) -> Result<RecordOutcome> {
    let (run_id, lease_state, _, duration_ms) = owned_lease(tx, worker, lease)?;
    let seen = tx
        .prepare_cached("SELECT 1 FROM submissions WHERE lease_id = ?1 AND seq = ?2")
        .and_then(|mut s| s.exists(params![key(lease), bits(seq)]))
        .ctx("looking up a submission")?;
    if seen {
        return Ok(RecordOutcome { run: run_id, accepted: 0, duplicate: true });
    }
    // Check everything before changing anything: a bad pair rejects the whole submission.
    let spec = run_spec(tx, run_id)?;
    let mut checked = Vec::with_capacity(pairs.len());
    for report in pairs {
        let (pairing, opening_index) = leased_pair(tx, lease, report.pair_index)?
            .ok_or_else(|| Error::invalid_report(lease, report.pair_index, "the pair is not part of this lease"))?;
        checked.push((report, pairing, opening_index));
    }
    touch_worker(tx, worker, now_ms)?;
    let mut accepted = 0;
    for (report, pairing, opening_index) in checked {
        if record_pair(tx, run_id, lease, worker, report, pairing, opening_index)? {
            accepted += 1;
        }
    }
    // Only bounded runs complete by themselves; an SPRT waits for its verdict.
    let bounded = scheduler::pairs_per_pairing(&spec.kind).is_some();
    if accepted > 0
        && bounded
        && run_state(tx, run_id)? == RunState::Active
        && scheduler::is_complete(&spec.kind, &run_stats(tx, run_id)?)
    {
        tx.prepare_cached("UPDATE runs SET state = 'completed' WHERE id = ?1")
            .and_then(|mut s| s.execute([key(run_id)]))
            .ctx("completing a run")?;
        tracing::info!(run = %run_id, "run completed");
    }
    if lease_state == "active" {
        let pending = tx
            .prepare_cached("SELECT 1 FROM lease_pairs WHERE lease_id = ?1 AND status = 'pending'")
            .and_then(|mut s| s.exists([key(lease)]))
            .ctx("looking for pending pairs")?;
        if final_batch || !pending {
            end_lease(tx, key(lease), "closed")?;
        } else {
            extend_lease(tx, lease, now_ms.saturating_add(duration_ms))?;
        }
    }
    tx.prepare_cached("INSERT INTO submissions (lease_id, seq, accepted, received_ms) VALUES (?1, ?2, ?3, ?4)")
        .and_then(|mut s| s.execute(params![key(lease), bits(seq), int(accepted as u64), int(now_ms)]))
        .ctx("recording a submission")?;
    tracing::debug!(lease = %lease, seq, accepted, "results recorded");
    Ok(RecordOutcome { run: run_id, accepted, duplicate: false })
}

fn positions_of(conn: &Connection, game_id: i64) -> Result<Vec<PositionSample>> {
    type Raw = (i64, String, i64, i64, i64, String, i64, i64);
    let rows: Vec<Raw> = conn
        .prepare_cached(
            "SELECT ply, fen, red_to_move, static_eval, search_score, best_move, in_check, quiet
             FROM positions WHERE game_id = ?1 ORDER BY seq",
        )
        .and_then(|mut s| {
            s.query_map([game_id], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?, r.get(5)?, r.get(6)?, r.get(7)?))
            })?
            .collect()
        })
        .ctx("reading sampled positions")?;
    rows.into_iter()
        .map(|(ply, fen, red, static_eval, score, best_move, in_check, quiet)| {
            Ok(PositionSample {
                ply: to_u32(ply, "ply")?,
                fen,
                red_to_move: to_bool(red, "side to move")?,
                static_eval: to_i32(static_eval, "static eval")?,
                search_score: to_i32(score, "search score")?,
                best_move,
                in_check: to_bool(in_check, "in-check flag")?,
                quiet: to_bool(quiet, "quiet flag")?,
            })
        })
        .collect()
}

pub(super) fn games_since(conn: &Connection, run: RunId, after: u64, limit: usize) -> Result<Vec<StoredGame>> {
    run_exists(conn, run)?;
    type Raw = (i64, i64, i64, i64, String, String, String, String, String, String, String, i64, i64);
    let rows: Vec<Raw> = conn
        .prepare_cached(
            "SELECT g.id, g.pair_index, g.game_in_pair, g.opening_index, w.name, g.red, g.black, g.start_fen,
                    g.outcome, g.reason, g.moves, g.duration_ms, g.nodes
             FROM games g JOIN workers w ON w.id = g.worker_id
             WHERE g.run_id = ?1 AND g.id > ?2 ORDER BY g.id LIMIT ?3",
        )
        .and_then(|mut s| {
            s.query_map(params![key(run), int(after), int(limit as u64)], |r| {
                Ok((
                    r.get(0)?,
                    r.get(1)?,
                    r.get(2)?,
                    r.get(3)?,
                    r.get(4)?,
                    r.get(5)?,
                    r.get(6)?,
                    r.get(7)?,
                    r.get(8)?,
                    r.get(9)?,
                    r.get(10)?,
                    r.get(11)?,
                    r.get(12)?,
                ))
            })?
            .collect()
        })
        .ctx("reading games")?;
    rows.into_iter()
        .map(
            |(
                id,
                pair,
                game_in_pair,
                opening,
                worker,
                red,
                black,
                start_fen,
                outcome,
                reason,
                moves,
                duration,
                nodes,
            )| {
                let moves: Vec<String> = moves.split_ascii_whitespace().map(str::to_owned).collect();
                Ok(StoredGame {
                    game_id: to_u64(id, "game id")?,
                    run,
                    pair_index: to_u64(pair, "pair index")?,
                    game_in_pair: u8::try_from(game_in_pair)
                        .ok()
                        .filter(|g| *g < 2)
                        .ok_or_else(|| corrupt(format!("game {id} is game {game_in_pair} of its pair")))?,
                    opening_index: to_u32(opening, "opening index")?,
                    worker,
                    report: GameReport {
                        red: red.into(),
                        black: black.into(),
                        start_fen,
                        outcome: codec::outcome_from(&outcome)?,
                        reason: reason.parse().map_err(|e: proto::Error| corrupt(format!("game {id}: {e}")))?,
                        moves,
                        move_stats: Vec::new(),
                        forfeit: None,
                        duration_ms: to_u64(duration, "game duration")?,
                        nodes: to_u64(nodes, "game nodes")?,
                        positions: positions_of(conn, id)?,
                    },
                })
            },
        )
        .collect()
}
