//! Tournament rows: a run's design (`run_tournaments`, part of its spec), its matches
//! (`tournament_matches`, one per pairing of `run_pairings`, in pairing order) and its byes
//! (`tournament_byes`).

use proto::domain::{
    ByeSlot, Match, MatchRow, MatchStage, RunId, TournamentFormat, TournamentSettings, parse_tiebreaks,
};

use super::{Conn, Ctx, params};
use crate::error::Result;
use crate::storage::codec::{bits, corrupt, from_bits, int, key, to_u32, to_u64};

pub(super) fn insert_settings(c: &mut dyn Conn, run: i64, t: &TournamentSettings) -> Result<()> {
    let tiebreaks: Vec<&str> = t.tiebreaks.iter().map(|b| b.as_str()).collect();
    let tiebreaks = tiebreaks.join(",");
    c.execute(
        "INSERT INTO run_tournaments (run_id, format, rounds, extra_pairs, seed, tiebreaks)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        params![run, t.format.as_str(), i64::from(t.rounds), i64::from(t.extra_pairs), bits(t.seed), &tiebreaks],
    )
    .ctx("storing a tournament's design")?;
    Ok(())
}

/// A tournament's design; its pairs per match are the run's `pairs_per_pairing`.
pub(super) fn settings(c: &mut dyn Conn, run: RunId, pairs_per_match: u64) -> Result<TournamentSettings> {
    let (format, rounds, extra_pairs, seed, tiebreaks): (String, i64, i64, i64, String) = c
        .query_opt(
            "SELECT format, rounds, extra_pairs, seed, tiebreaks FROM run_tournaments WHERE run_id = ?1",
            params![key(run)],
        )
        .ctx("reading a tournament's design")?
        .ok_or_else(|| corrupt(format!("tournament {run} has no design")))?;
    Ok(TournamentSettings {
        format: format.parse::<TournamentFormat>().map_err(|e| corrupt(format!("tournament {run}: {e}")))?,
        rounds: to_u32(rounds, "tournament rounds")?,
        pairs_per_match,
        tiebreaks: parse_tiebreaks(&tiebreaks).map_err(|e| corrupt(format!("tournament {run}: {e}")))?,
        extra_pairs: to_u32(extra_pairs, "extra pairs")?,
        seed: from_bits(seed),
    })
}

/// Adds a match as the run's next pairing, whose index it returns.
pub(super) fn insert_match(c: &mut dyn Conn, run: RunId, m: &Match) -> Result<u32> {
    let pairing: i64 = c
        .query_one("SELECT COUNT(*) FROM run_pairings WHERE run_id = ?1", params![key(run)])
        .ctx("counting a tournament's matches")?;
    c.execute("INSERT INTO run_pairings (run_id, pairing) VALUES (?1, ?2)", params![key(run), pairing])
        .ctx("creating a match's pairing")?;
    c.execute(
        "INSERT INTO tournament_matches (run_id, pairing, round, slot, a, b, stage, pairs)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
        params![
            key(run),
            pairing,
            i64::from(m.round),
            i64::from(m.slot),
            int(m.a as u64),
            int(m.b as u64),
            m.stage.as_str(),
            int(m.pairs)
        ],
    )
    .ctx("storing a tournament's match")?;
    to_u32(pairing, "pairing")
}

pub(super) fn matches(c: &mut dyn Conn, run: RunId) -> Result<Vec<MatchRow>> {
    type Raw = (i64, i64, i64, i64, i64, String, i64, Option<i64>);
    let rows: Vec<Raw> = c
        .query(
            "SELECT pairing, round, slot, a, b, stage, pairs, armageddon_red_points FROM tournament_matches
             WHERE run_id = ?1 ORDER BY pairing",
            params![key(run)],
        )
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

pub(super) fn insert_bye(c: &mut dyn Conn, run: RunId, bye: &ByeSlot) -> Result<()> {
    c.execute(
        "INSERT INTO tournament_byes (run_id, round, slot, player) VALUES (?1, ?2, ?3, ?4)",
        params![key(run), i64::from(bye.round), i64::from(bye.slot), int(bye.player as u64)],
    )
    .ctx("storing a bye")?;
    Ok(())
}

pub(super) fn byes(c: &mut dyn Conn, run: RunId) -> Result<Vec<ByeSlot>> {
    let rows: Vec<(i64, i64, i64)> = c
        .query(
            "SELECT round, slot, player FROM tournament_byes WHERE run_id = ?1 ORDER BY round, slot",
            params![key(run)],
        )
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

pub(super) fn set_armageddon(c: &mut dyn Conn, run: RunId, pairing: u32, red_points: u32) -> Result<()> {
    let changed = c
        .execute(
            "UPDATE tournament_matches SET armageddon_red_points = ?3 WHERE run_id = ?1 AND pairing = ?2",
            params![key(run), i64::from(pairing), i64::from(red_points)],
        )
        .ctx("noting an Armageddon game")?;
    if changed == 0 { Err(corrupt(format!("tournament {run} has no match {pairing}"))) } else { Ok(()) }
}
