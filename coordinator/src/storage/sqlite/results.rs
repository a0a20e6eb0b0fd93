//! Submissions and games: storing them and reading games back.

use proto::domain::{GameReport, LeaseId, PositionSample, RunId, Termination, WorkerId};
use rusqlite::{Connection, OptionalExtension, Row, params};

use super::Ctx;
use super::catalog::run_exists;
use crate::error::{Error, Result};
use crate::storage::codec::{self, bits, corrupt, int, key, to_bool, to_i32, to_u32, to_u64};
use crate::storage::tx::{GameEnds, NewGame, PairResult, PairTally};
use crate::storage::{GameSummary, StoredGame};

pub(super) fn insert_game(conn: &Connection, new: NewGame<'_>) -> Result<u64> {
    let game = new.report;
    conn.prepare_cached(
        "INSERT INTO games (run_id, pair_index, game_in_pair, opening_index, worker_id, red, black, start_fen,
                            outcome, reason, moves, duration_ms, nodes, plies, pairing)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)",
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
            int(game.moves.len() as u64),
            new.pairing,
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

/// The columns [`stored_game`] decodes, of `games g JOIN workers w`.
const GAME_COLUMNS: &str = "g.id, g.run_id, g.pair_index, g.game_in_pair, g.opening_index, w.name, g.red, g.black,
     g.start_fen, g.outcome, g.reason, g.moves, g.duration_ms, g.nodes, g.pairing";

/// A row of [`GAME_COLUMNS`], as read.
struct RawGame {
    id: i64,
    run: i64,
    pair: i64,
    game_in_pair: i64,
    opening: i64,
    worker: String,
    red: String,
    black: String,
    start_fen: String,
    outcome: String,
    reason: String,
    moves: String,
    duration: i64,
    nodes: i64,
    pairing: i64,
}

impl RawGame {
    fn read(r: &Row<'_>) -> rusqlite::Result<RawGame> {
        Ok(RawGame {
            id: r.get(0)?,
            run: r.get(1)?,
            pair: r.get(2)?,
            game_in_pair: r.get(3)?,
            opening: r.get(4)?,
            worker: r.get(5)?,
            red: r.get(6)?,
            black: r.get(7)?,
            start_fen: r.get(8)?,
            outcome: r.get(9)?,
            reason: r.get(10)?,
            moves: r.get(11)?,
            duration: r.get(12)?,
            nodes: r.get(13)?,
            pairing: r.get(14)?,
        })
    }
}

fn game_in_pair(id: i64, value: i64) -> Result<u8> {
    u8::try_from(value).ok().filter(|g| *g < 2).ok_or_else(|| corrupt(format!("game {id} is game {value} of its pair")))
}

fn reason(id: i64, text: &str) -> Result<Termination> {
    text.parse().map_err(|e: proto::Error| corrupt(format!("game {id}: {e}")))
}

/// A game with its sampled positions.
fn stored_game(conn: &Connection, raw: RawGame) -> Result<StoredGame> {
    let id = raw.id;
    Ok(StoredGame {
        game_id: to_u64(id, "game id")?,
        run: RunId::new(to_u64(raw.run, "run id")?),
        pair_index: to_u64(raw.pair, "pair index")?,
        pairing: to_u32(raw.pairing, "pairing")?,
        game_in_pair: game_in_pair(id, raw.game_in_pair)?,
        opening_index: to_u32(raw.opening, "opening index")?,
        worker: raw.worker,
        report: GameReport {
            red: raw.red.into(),
            black: raw.black.into(),
            start_fen: raw.start_fen,
            outcome: codec::outcome_from(&raw.outcome)?,
            reason: reason(id, &raw.reason)?,
            moves: raw.moves.split_ascii_whitespace().map(str::to_owned).collect(),
            move_stats: Vec::new(),
            forfeit: None,
            duration_ms: to_u64(raw.duration, "game duration")?,
            nodes: to_u64(raw.nodes, "game nodes")?,
            positions: positions_of(conn, id)?,
        },
    })
}

pub(super) fn games_since(conn: &Connection, run: RunId, after: u64, limit: usize) -> Result<Vec<StoredGame>> {
    run_exists(conn, run)?;
    let rows: Vec<RawGame> = conn
        .prepare_cached(&format!(
            "SELECT {GAME_COLUMNS} FROM games g JOIN workers w ON w.id = g.worker_id
             WHERE g.run_id = ?1 AND g.id > ?2 ORDER BY g.id LIMIT ?3"
        ))
        .and_then(|mut s| s.query_map(params![key(run), int(after), int(limit as u64)], RawGame::read)?.collect())
        .ctx("reading games")?;
    rows.into_iter().map(|raw| stored_game(conn, raw)).collect()
}

pub(super) fn game(conn: &Connection, game_id: u64) -> Result<StoredGame> {
    let raw = conn
        .prepare_cached(&format!(
            "SELECT {GAME_COLUMNS} FROM games g JOIN workers w ON w.id = g.worker_id WHERE g.id = ?1"
        ))
        .and_then(|mut s| s.query_row([key(game_id)], RawGame::read).optional())
        .ctx("reading a game")?
        .ok_or(Error::GameNotFound(game_id))?;
    stored_game(conn, raw)
}

/// A page of a run's games: `?1` run, `?2` offset, `?3` limit.
const GAME_PAGE: &str =
    "SELECT g.id, g.pair_index, g.game_in_pair, g.red, g.black, g.outcome, g.reason, g.plies, w.name
     FROM games g JOIN workers w ON w.id = g.worker_id
     WHERE g.id IN (SELECT id FROM games WHERE run_id = ?1 ORDER BY id LIMIT ?3 OFFSET ?2)
     ORDER BY g.id";

/// Run `?1`'s pairs in recording order (kept by the trigger `games_count_pairs`).
const PAIR_RESULTS: &str = "SELECT first_game_id, pairing, worker_id, points FROM run_pair_results
     WHERE run_id = ?1 ORDER BY first_game_id";

/// Run `?1`'s game counts by termination and length (kept by the trigger `games_count_ends`).
const GAME_ENDS: &str = "SELECT reason, plies, games FROM run_game_ends WHERE run_id = ?1";

/// Run `?1`'s pair counts by worker, pairing and points (kept by the trigger `pair_results_tally`).
const PAIR_TALLIES: &str = "SELECT worker_id, pairing, points, pairs FROM run_pair_tallies WHERE run_id = ?1";

/// The page's game ids come from `games_by_run` alone (skipping `offset` entries of an index,
/// not of the table); only the page's rows are read.
pub(super) fn game_summaries(conn: &Connection, run: RunId, offset: u64, limit: usize) -> Result<Vec<GameSummary>> {
    run_exists(conn, run)?;
    type Raw = (i64, i64, i64, String, String, String, String, i64, String);
    let rows: Vec<Raw> = conn
        .prepare_cached(GAME_PAGE)
        .and_then(|mut s| {
            s.query_map(params![key(run), int(offset), int(limit as u64)], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?, r.get(5)?, r.get(6)?, r.get(7)?, r.get(8)?))
            })?
            .collect()
        })
        .ctx("reading a page of games")?;
    rows.into_iter()
        .map(|(id, pair, in_pair, red, black, outcome, text, plies, worker)| {
            Ok(GameSummary {
                game_id: to_u64(id, "game id")?,
                run,
                pair_index: to_u64(pair, "pair index")?,
                game_in_pair: game_in_pair(id, in_pair)?,
                red: red.into(),
                black: black.into(),
                outcome: codec::outcome_from(&outcome)?,
                reason: reason(id, &text)?,
                plies: to_u32(plies, "plies")?,
                worker,
            })
        })
        .collect()
}

pub(super) fn pair_results(conn: &Connection, run: RunId) -> Result<Vec<PairResult>> {
    run_exists(conn, run)?;
    let rows: Vec<(i64, i64, i64, i64)> = conn
        .prepare_cached(PAIR_RESULTS)
        .and_then(|mut s| s.query_map([key(run)], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))?.collect())
        .ctx("reading a run's pair results")?;
    rows.into_iter()
        .map(|(id, pairing, worker, points)| {
            Ok(PairResult {
                first_game_id: to_u64(id, "game id")?,
                pairing: to_u32(pairing, "pairing")?,
                worker: WorkerId::new(to_u64(worker, "worker id")?),
                first_half_points: half_points(points)?,
            })
        })
        .collect()
}

fn half_points(points: i64) -> Result<u8> {
    u8::try_from(points).ok().filter(|p| *p <= 4).ok_or_else(|| corrupt(format!("a pair scores {points} half points")))
}

pub(super) fn pair_tallies(conn: &Connection, run: RunId) -> Result<Vec<PairTally>> {
    run_exists(conn, run)?;
    let rows: Vec<(i64, i64, i64, i64)> = conn
        .prepare_cached(PAIR_TALLIES)
        .and_then(|mut s| s.query_map([key(run)], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))?.collect())
        .ctx("reading a run's pair tallies")?;
    rows.into_iter()
        .map(|(worker, pairing, points, pairs)| {
            Ok(PairTally {
                worker: WorkerId::new(to_u64(worker, "worker id")?),
                pairing: to_u32(pairing, "pairing")?,
                first_half_points: half_points(points)?,
                pairs: to_u64(pairs, "pair count")?,
            })
        })
        .collect()
}

pub(super) fn game_ends(conn: &Connection, run: RunId) -> Result<Vec<GameEnds>> {
    run_exists(conn, run)?;
    let rows: Vec<(String, i64, i64)> = conn
        .prepare_cached(GAME_ENDS)
        .and_then(|mut s| s.query_map([key(run)], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?.collect())
        .ctx("counting a run's game ends")?;
    rows.into_iter()
        .map(|(text, plies, games)| {
            Ok(GameEnds {
                reason: text.parse().map_err(|e: proto::Error| corrupt(format!("run {run}: {e}")))?,
                plies: to_u32(plies, "plies")?,
                games: to_u64(games, "game count")?,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use rusqlite::Connection;

    use super::*;
    use crate::storage::sqlite::{leasing, schema};

    /// The plan's detail lines, joined.
    fn plan(conn: &Connection, sql: &str) -> String {
        let rows: Vec<String> = conn
            .prepare(&format!("EXPLAIN QUERY PLAN {sql}"))
            .and_then(|mut s| {
                let values = vec![1i64; s.parameter_count()];
                s.query_map(rusqlite::params_from_iter(values), |r| r.get(3))?.collect()
            })
            .expect("plan");
        rows.join("; ")
    }

    /// A run's tallies are read from their own tables by key, in key order (no sort, never the
    /// games and their moves), and a page skips its offset in `games_by_run` alone.
    #[test]
    fn the_web_reads_scan_indexes_only() {
        let mut conn = Connection::open_in_memory().expect("open");
        schema::prepare(&mut conn).expect("schema");
        for (sql, table) in
            [(PAIR_RESULTS, "run_pair_results"), (GAME_ENDS, "run_game_ends"), (PAIR_TALLIES, "run_pair_tallies")]
        {
            let plan = plan(&conn, sql);
            assert_eq!(plan, format!("SEARCH {table} USING PRIMARY KEY (run_id=?)"), "{sql}");
        }
        let page = plan(&conn, GAME_PAGE);
        assert!(page.contains("USING COVERING INDEX games_by_run (run_id=?)"), "{page}");
        assert!(page.contains("SEARCH g USING INTEGER PRIMARY KEY (rowid=?)"), "{page}");
        let recent = plan(&conn, leasing::RECENT_SUBMISSIONS);
        assert!(recent.contains("USING COVERING INDEX submissions_by_time (received_ms>?)"), "{recent}");
    }
}
