//! Submissions and games: storing them and reading games back.

use proto::domain::{GameReport, LeaseId, PositionSample, RunId, Termination, WorkerId};

use super::catalog::run_exists;
use super::{Conn, Ctx, FromRow, Param, Row, SqlError, params};
use crate::error::{Error, Result};
use crate::storage::codec::{self, bits, corrupt, int, key, to_bool, to_i32, to_u32, to_u64};
use crate::storage::tx::{GameEnds, NewGame, PairResult, PairTally};
use crate::storage::{GameSummary, StoredGame};

/// Sampled positions go in by statements of these many rows, largest first: a game's positions
/// take a few statements, not one each, and a connection prepares at most these five texts.
const POSITION_BATCHES: [usize; 5] = [256, 64, 16, 4, 1];

/// The game's id is the database's ([`super::Dialect::insert_game`]). The triggers count the
/// game in the run's tallies. Nothing waits for an answer: the game and its positions are
/// writes ([`Conn::write`]).
pub(super) fn insert_game(c: &mut dyn Conn, new: NewGame<'_>) -> Result<()> {
    let game = new.report;
    let moves = game.moves.join(" ");
    let dialect = c.dialect();
    c.write(
        dialect.insert_game(),
        params![
            key(new.run),
            int(new.pair_index),
            i64::from(new.game_in_pair),
            i64::from(new.opening_index),
            key(new.worker),
            game.red.as_str(),
            game.black.as_str(),
            &game.start_fen,
            codec::outcome_text(game.outcome),
            game.reason.as_str(),
            &moves,
            int(game.duration_ms),
            int(game.nodes),
            int(game.moves.len() as u64),
            i64::from(new.pairing),
        ],
        "storing a game",
        None,
    )?;
    let inserts = match dialect {
        super::Dialect::Sqlite => &POSITION_INSERTS.0,
        super::Dialect::Postgres => &POSITION_INSERTS.1,
    };
    let mut first = 0;
    for (size, sql) in POSITION_BATCHES.into_iter().zip(inserts.iter()) {
        while game.positions.len() - first >= size {
            insert_positions(c, sql, first, &game.positions[first..first + size])?;
            first += size;
        }
    }
    Ok(())
}

/// The statements of [`POSITION_BATCHES`] for SQLite, then for PostgreSQL, built once.
static POSITION_INSERTS: std::sync::LazyLock<([String; 5], [String; 5])> = std::sync::LazyLock::new(|| {
    (
        POSITION_BATCHES.map(|rows| positions_insert(super::Dialect::Sqlite, rows)),
        POSITION_BATCHES.map(|rows| positions_insert(super::Dialect::Postgres, rows)),
    )
});

/// The statement that inserts `rows` sampled positions of the game stored last
/// ([`super::Dialect::last_game_id`]): each row's nine columns take the next nine placeholders.
fn positions_insert(dialect: super::Dialect, rows: usize) -> String {
    let game_id = dialect.last_game_id();
    let values: Vec<String> = (0..rows)
        .map(|i| {
            let first = 1 + i * 9;
            let columns: Vec<String> = (first..first + 9).map(|k| format!("?{k}")).collect();
            format!("({game_id}, {})", columns.join(", "))
        })
        .collect();
    format!(
        "INSERT INTO positions (game_id, seq, ply, fen, red_to_move, static_eval, search_score, best_move, in_check,
                                quiet)
         VALUES {}",
        values.join(", ")
    )
}

/// Stores `positions` with `sql` (its [`positions_insert`]), the first as sample `first_seq` of
/// the game.
fn insert_positions(c: &mut dyn Conn, sql: &str, first_seq: usize, positions: &[PositionSample]) -> Result<()> {
    let mut values: Vec<Param<'_>> = Vec::with_capacity(positions.len() * 9);
    for (i, p) in positions.iter().enumerate() {
        values.extend::<[Param<'_>; 9]>([
            int((first_seq + i) as u64).into(),
            i64::from(p.ply).into(),
            p.fen.as_str().into(),
            i64::from(p.red_to_move).into(),
            i64::from(p.static_eval).into(),
            p.search_score.map(i64::from).into(),
            p.best_move.as_str().into(),
            i64::from(p.in_check).into(),
            i64::from(p.quiet).into(),
        ]);
    }
    c.write(sql, &values, "storing sampled positions", None)
}

pub(super) fn submission_seen(c: &mut dyn Conn, lease: LeaseId, seq: u64) -> Result<bool> {
    c.exists("SELECT 1 FROM submissions WHERE lease_id = ?1 AND seq = ?2", params![key(lease), bits(seq)])
        .ctx("looking up a submission")
}

pub(super) fn insert_submission(
    c: &mut dyn Conn,
    lease: LeaseId,
    seq: u64,
    accepted: usize,
    now_ms: u64,
) -> Result<()> {
    c.write(
        "INSERT INTO submissions (lease_id, seq, accepted, received_ms) VALUES (?1, ?2, ?3, ?4)",
        params![key(lease), bits(seq), int(accepted as u64), int(now_ms)],
        "recording a submission",
        None,
    )
}

/// The columns [`position`] decodes, of `positions`: the game id, then the sample (a macro, so
/// that constant queries can `concat!` it).
macro_rules! position_columns {
    () => {
        "game_id, ply, fen, red_to_move, static_eval, search_score, best_move, in_check, quiet"
    };
}
/// [`position_columns!`] for queries built at run time.
const POSITION_COLUMNS: &str = position_columns!();

/// A row of [`POSITION_COLUMNS`]: its game's id and the sample.
fn position(r: &Row) -> Result<(i64, PositionSample)> {
    type Raw = (i64, i64, String, i64, i64, Option<i64>, String, i64, i64);
    let (game, ply, fen, red, static_eval, score, best_move, in_check, quiet) =
        Raw::from_row(r).ctx("reading sampled positions")?;
    Ok((
        game,
        PositionSample {
            ply: to_u32(ply, "ply")?,
            fen,
            red_to_move: to_bool(red, "side to move")?,
            static_eval: to_i32(static_eval, "static eval")?,
            search_score: score.map(|s| to_i32(s, "search score")).transpose()?,
            best_move,
            in_check: to_bool(in_check, "in-check flag")?,
            quiet: to_bool(quiet, "quiet flag")?,
        },
    ))
}

/// The columns [`RawGame`] decodes, of `games g JOIN workers w`.
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

impl FromRow for RawGame {
    fn from_row(r: &Row) -> std::result::Result<RawGame, SqlError> {
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

/// A game, given its sampled positions.
fn stored_game(raw: RawGame, positions: Vec<PositionSample>) -> Result<StoredGame> {
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
            positions,
        },
    })
}

/// The sampled positions of run `?1`'s games with ids in `(?2, ?3]`, in game and ply order.
/// The run's games are listed over the same id range: listed over the whole run, SQLite looked
/// up every game of the run in `positions` for each page (0.6 s a page at 100,000 games, the
/// exporter's whole cost), where the range lists only the page's.
pub(in crate::storage) const PAGE_POSITIONS: &str = concat!(
    "SELECT ",
    position_columns!(),
    " FROM positions
     WHERE game_id > ?2 AND game_id <= ?3 AND game_id IN (SELECT id FROM games WHERE run_id = ?1 AND id > ?2 AND id <= ?3)
     ORDER BY game_id, seq"
);

/// The page's positions are read by one query over the page's id range (the run's games in it
/// are exactly the page's), not one query per game.
pub(super) fn games_since(c: &mut dyn Conn, run: RunId, after: u64, limit: usize) -> Result<Vec<StoredGame>> {
    run_exists(c, run)?;
    let rows: Vec<RawGame> = c
        .query(
            &format!(
                "SELECT {GAME_COLUMNS} FROM games g JOIN workers w ON w.id = g.worker_id
                 WHERE g.run_id = ?1 AND g.id > ?2 ORDER BY g.id LIMIT ?3"
            ),
            params![key(run), int(after), int(limit as u64)],
        )
        .ctx("reading games")?;
    let Some(last) = rows.last().map(|g| g.id) else { return Ok(Vec::new()) };
    let positions = c.rows(PAGE_POSITIONS, params![key(run), int(after), last]).ctx("reading sampled positions")?;
    let mut positions = positions.iter().map(position).peekable();
    rows.into_iter()
        .map(|raw| {
            let mut own = Vec::new();
            while let Some(p) = positions.next_if(|p| p.as_ref().map_or(true, |(game, _)| *game == raw.id)) {
                own.push(p?.1);
            }
            stored_game(raw, own)
        })
        .collect()
}

pub(super) fn game(c: &mut dyn Conn, game_id: u64) -> Result<StoredGame> {
    let raw: RawGame = c
        .query_opt(
            &format!("SELECT {GAME_COLUMNS} FROM games g JOIN workers w ON w.id = g.worker_id WHERE g.id = ?1"),
            params![key(game_id)],
        )
        .ctx("reading a game")?
        .ok_or(Error::GameNotFound(game_id))?;
    let positions = c
        .rows(&format!("SELECT {POSITION_COLUMNS} FROM positions WHERE game_id = ?1 ORDER BY seq"), params![raw.id])
        .ctx("reading sampled positions")?
        .iter()
        .map(|r| position(r).map(|(_, p)| p))
        .collect::<Result<_>>()?;
    stored_game(raw, positions)
}

/// One statement over the primary key's range of game ids, restricted to the run's games by
/// `games_by_run`.
pub(super) fn delete_positions(c: &mut dyn Conn, run: RunId, after: u64, up_to: u64) -> Result<u64> {
    run_exists(c, run)?;
    if up_to <= after {
        return Ok(0);
    }
    c.execute(
        "DELETE FROM positions
         WHERE game_id > ?2 AND game_id <= ?3 AND game_id IN (SELECT id FROM games WHERE run_id = ?1 AND id > ?2 AND id <= ?3)",
        params![key(run), int(after), int(up_to)],
    )
    .ctx("deleting sampled positions")
}

/// A page of a run's games: `?1` run, `?2` offset, `?3` limit.
pub(in crate::storage) const GAME_PAGE: &str =
    "SELECT g.id, g.pair_index, g.game_in_pair, g.red, g.black, g.outcome, g.reason, g.plies, w.name
     FROM games g JOIN workers w ON w.id = g.worker_id
     WHERE g.id IN (SELECT id FROM games WHERE run_id = ?1 ORDER BY id LIMIT ?3 OFFSET ?2)
     ORDER BY g.id";

/// Run `?1`'s pairs in recording order (kept by the trigger `games_recorded`).
pub(in crate::storage) const PAIR_RESULTS: &str =
    "SELECT first_game_id, pairing, worker_id, points FROM run_pair_results
     WHERE run_id = ?1 ORDER BY first_game_id";

/// Run `?1`'s game counts by termination and length (kept by the trigger `games_recorded`).
pub(in crate::storage) const GAME_ENDS: &str = "SELECT reason, plies, games FROM run_game_ends WHERE run_id = ?1";

/// Run `?1`'s pair counts by worker, pairing and points (kept by the trigger `pair_results_tally`).
pub(in crate::storage) const PAIR_TALLIES: &str =
    "SELECT worker_id, pairing, points, pairs FROM run_pair_tallies WHERE run_id = ?1";

/// The page's game ids come from `games_by_run` alone; only the page's rows are read.
pub(super) fn game_summaries(c: &mut dyn Conn, run: RunId, offset: u64, limit: usize) -> Result<Vec<GameSummary>> {
    run_exists(c, run)?;
    type Raw = (i64, i64, i64, String, String, String, String, i64, String);
    let rows: Vec<Raw> =
        c.query(GAME_PAGE, params![key(run), int(offset), int(limit as u64)]).ctx("reading a page of games")?;
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

fn half_points(points: i64) -> Result<u8> {
    u8::try_from(points).ok().filter(|p| *p <= 4).ok_or_else(|| corrupt(format!("a pair scores {points} half points")))
}

pub(super) fn pair_results(c: &mut dyn Conn, run: RunId) -> Result<Vec<PairResult>> {
    run_exists(c, run)?;
    let rows: Vec<(i64, i64, i64, i64)> =
        c.query(PAIR_RESULTS, params![key(run)]).ctx("reading a run's pair results")?;
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

pub(super) fn pair_tallies(c: &mut dyn Conn, run: RunId) -> Result<Vec<PairTally>> {
    run_exists(c, run)?;
    let rows: Vec<(i64, i64, i64, i64)> =
        c.query(PAIR_TALLIES, params![key(run)]).ctx("reading a run's pair tallies")?;
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

pub(super) fn game_ends(c: &mut dyn Conn, run: RunId) -> Result<Vec<GameEnds>> {
    run_exists(c, run)?;
    let rows: Vec<(String, i64, i64)> = c.query(GAME_ENDS, params![key(run)]).ctx("counting a run's game ends")?;
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
