//! Submissions and games: storing them and reading games back.

use proto::domain::{GameReport, LeaseId, PositionSample, RunId};
use rusqlite::{Connection, params};

use super::Ctx;
use super::catalog::run_exists;
use super::codec::{self, bits, corrupt, int, key, to_bool, to_i32, to_u32, to_u64};
use crate::error::Result;
use crate::storage::StoredGame;
use crate::storage::tx::NewGame;

pub(super) fn insert_game(conn: &Connection, new: NewGame<'_>) -> Result<u64> {
    let game = new.report;
    conn.prepare_cached(
        "INSERT INTO games (run_id, pair_index, game_in_pair, opening_index, worker_id, red, black, start_fen,
                            outcome, reason, moves, duration_ms, nodes)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
    )
    .and_then(|mut s| {
        s.execute(params![
            key(new.run),
            int(new.pair_index),
            new.game_in_pair,
            new.opening_index,
            key(new.worker),
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
    to_u64(game_id, "game id")
}

pub(super) fn submission_seen(conn: &Connection, lease: LeaseId, seq: u64) -> Result<bool> {
    conn.prepare_cached("SELECT 1 FROM submissions WHERE lease_id = ?1 AND seq = ?2")
        .and_then(|mut s| s.exists(params![key(lease), bits(seq)]))
        .ctx("looking up a submission")
}

pub(super) fn insert_submission(
    conn: &Connection,
    lease: LeaseId,
    seq: u64,
    accepted: usize,
    now_ms: u64,
) -> Result<()> {
    conn.prepare_cached("INSERT INTO submissions (lease_id, seq, accepted, received_ms) VALUES (?1, ?2, ?3, ?4)")
        .and_then(|mut s| s.execute(params![key(lease), bits(seq), int(accepted as u64), int(now_ms)]))
        .ctx("recording a submission")?;
    Ok(())
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
