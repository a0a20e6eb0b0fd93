//! Tournament rows: a run's design (`run_tournaments`, part of its spec), its matches
//! (`tournament_matches`, one per pairing of `run_pairings`, in pairing order) and its byes
//! (`tournament_byes`).

use proto::domain::{RunId, TournamentFormat, TournamentSettings, parse_tiebreaks};
use rusqlite::{Connection, OptionalExtension, params};

use super::Ctx;
use crate::error::Result;
use crate::storage::codec::{bits, corrupt, from_bits, int, key, to_u32, to_u64};
use proto::domain::{ByeSlot, Match, MatchRow, MatchStage};

pub(super) fn insert_settings(conn: &Connection, run: i64, t: &TournamentSettings) -> Result<()> {
    let tiebreaks: Vec<&str> = t.tiebreaks.iter().map(|b| b.as_str()).collect();
    conn.prepare_cached(
        "INSERT INTO run_tournaments (run_id, format, rounds, extra_pairs, seed, tiebreaks)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    )
    .and_then(|mut s| {
        s.execute(params![run, t.format.as_str(), t.rounds, t.extra_pairs, bits(t.seed), tiebreaks.join(",")])
    })
    .ctx("storing a tournament's design")?;
    Ok(())
}

/// A tournament's design; its pairs per match are the run's `pairs_per_pairing`.
pub(super) fn settings(conn: &Connection, run: RunId, pairs_per_match: u64) -> Result<TournamentSettings> {
    let row: Option<(String, i64, i64, i64, String)> = conn
        .prepare_cached("SELECT format, rounds, extra_pairs, seed, tiebreaks FROM run_tournaments WHERE run_id = ?1")
        .and_then(|mut s| {
            s.query_row([key(run)], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))).optional()
        })
        .ctx("reading a tournament's design")?;
    let (format, rounds, extra_pairs, seed, tiebreaks) =
        row.ok_or_else(|| corrupt(format!("tournament {run} has no design")))?;
    Ok(TournamentSettings {
        format: format.parse::<TournamentFormat>().map_err(|e| corrupt(format!("tournament {run}: {e}")))?,
        rounds: to_u32(rounds, "tournament rounds")?,
        pairs_per_match,
        tiebreaks: parse_tiebreaks(&tiebreaks).map_err(|e| corrupt(format!("tournament {run}: {e}")))?,
        extra_pairs: to_u32(extra_pairs, "extra pairs")?,
        seed: from_bits(seed),
    })
}

pub(super) fn insert_match(conn: &Connection, run: RunId, m: &Match) -> Result<u32> {
    let pairing: i64 = conn
        .prepare_cached("SELECT COUNT(*) FROM run_pairings WHERE run_id = ?1")
        .and_then(|mut s| s.query_row([key(run)], |r| r.get(0)))
        .ctx("counting a tournament's matches")?;
    conn.prepare_cached("INSERT INTO run_pairings (run_id, pairing) VALUES (?1, ?2)")
        .and_then(|mut s| s.execute(params![key(run), pairing]))
        .ctx("creating a match's pairing")?;
    conn.prepare_cached(
        "INSERT INTO tournament_matches (run_id, pairing, round, slot, a, b, stage, pairs)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
    )
    .and_then(|mut s| {
        s.execute(params![
            key(run),
            pairing,
            m.round,
            m.slot,
            int(m.a as u64),
            int(m.b as u64),
            m.stage.as_str(),
            int(m.pairs)
        ])
    })
    .ctx("storing a tournament's match")?;
    to_u32(pairing, "pairing")
}

pub(super) fn matches(conn: &Connection, run: RunId) -> Result<Vec<MatchRow>> {
    type Raw = (i64, i64, i64, i64, i64, String, i64, Option<i64>);
    let rows: Vec<Raw> = conn
        .prepare_cached(
            "SELECT pairing, round, slot, a, b, stage, pairs, armageddon_red_points FROM tournament_matches
             WHERE run_id = ?1 ORDER BY pairing",
        )
        .and_then(|mut s| {
            s.query_map([key(run)], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?, r.get(5)?, r.get(6)?, r.get(7)?))
            })?
            .collect()
        })
        .ctx("reading a tournament's matches")?;
    rows.into_iter()
        .map(|(pairing, round, slot, a, b, stage, pairs, arm)| {
            Ok(MatchRow {
                pairing: to_u32(pairing, "pairing")?,
                m: Match {
                    round: to_u32(round, "round")?,
                    slot: to_u32(slot, "slot")?,
                    a: to_u64(a, "player")? as usize,
                    b: to_u64(b, "player")? as usize,
                    stage: stage.parse::<MatchStage>().map_err(|e| corrupt(format!("tournament {run}: {e}")))?,
                    pairs: to_u64(pairs, "match pairs")?,
                },
                armageddon_red_points: arm.map(|p| to_u32(p, "Armageddon points")).transpose()?,
            })
        })
        .collect()
}

pub(super) fn insert_bye(conn: &Connection, run: RunId, bye: &ByeSlot) -> Result<()> {
    conn.prepare_cached("INSERT INTO tournament_byes (run_id, round, slot, player) VALUES (?1, ?2, ?3, ?4)")
        .and_then(|mut s| s.execute(params![key(run), bye.round, bye.slot, int(bye.player as u64)]))
        .ctx("storing a bye")?;
    Ok(())
}

pub(super) fn byes(conn: &Connection, run: RunId) -> Result<Vec<ByeSlot>> {
    let rows: Vec<(i64, i64, i64)> = conn
        .prepare_cached("SELECT round, slot, player FROM tournament_byes WHERE run_id = ?1 ORDER BY round, slot")
        .and_then(|mut s| s.query_map([key(run)], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?.collect())
        .ctx("reading a tournament's byes")?;
    rows.into_iter()
        .map(|(round, slot, player)| {
            Ok(ByeSlot {
                round: to_u32(round, "round")?,
                slot: to_u32(slot, "slot")?,
                player: to_u64(player, "player")? as usize,
            })
        })
        .collect()
}

pub(super) fn set_armageddon(conn: &Connection, run: RunId, pairing: u32, red_points: u32) -> Result<()> {
    let changed = conn
        .prepare_cached("UPDATE tournament_matches SET armageddon_red_points = ?3 WHERE run_id = ?1 AND pairing = ?2")
        .and_then(|mut s| s.execute(params![key(run), pairing, red_points]))
        .ctx("noting an Armageddon game")?;
    if changed == 0 { Err(corrupt(format!("tournament {run} has no match {pairing}"))) } else { Ok(()) }
}
