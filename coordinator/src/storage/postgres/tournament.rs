//! Tournament rows: a run's design (`run_tournaments`, part of its spec), its matches
//! (`tournament_matches`, one per pairing of `run_pairings`, in pairing order) and its byes
//! (`tournament_byes`).

use super::db::Db;
use proto::domain::{
    ByeSlot, Match, MatchRow, MatchStage, RunId, TournamentFormat, TournamentSettings, parse_tiebreaks,
};

use super::Ctx;
use crate::error::Result;
use crate::storage::codec::{bits, corrupt, from_bits, int, key, to_u32, to_u64};

pub(super) fn insert_settings(c: &mut Db<'_, '_>, run: i64, t: &TournamentSettings) -> Result<()> {
    let tiebreaks: Vec<&str> = t.tiebreaks.iter().map(|b| b.as_str()).collect();
    c.execute(
        "INSERT INTO run_tournaments (run_id, format, rounds, extra_pairs, seed, tiebreaks)
         VALUES ($1, $2, $3, $4, $5, $6)",
        &[
            &run,
            &t.format.as_str(),
            &i64::from(t.rounds),
            &i64::from(t.extra_pairs),
            &bits(t.seed),
            &tiebreaks.join(","),
        ],
    )
    .ctx("storing a tournament's design")?;
    Ok(())
}

/// A tournament's design; its pairs per match are the run's `pairs_per_pairing`.
pub(super) fn settings(c: &mut Db<'_, '_>, run: RunId, pairs_per_match: u64) -> Result<TournamentSettings> {
    let row = c
        .query_opt(
            "SELECT format, rounds, extra_pairs, seed, tiebreaks FROM run_tournaments WHERE run_id = $1",
            &[&key(run)],
        )
        .ctx("reading a tournament's design")?
        .ok_or_else(|| corrupt(format!("tournament {run} has no design")))?;
    let read = || -> std::result::Result<(String, i64, i64, i64, String), postgres::Error> {
        Ok((row.try_get(0)?, row.try_get(1)?, row.try_get(2)?, row.try_get(3)?, row.try_get(4)?))
    };
    let (format, rounds, extra_pairs, seed, tiebreaks) = read().ctx("reading a tournament's design")?;
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
pub(super) fn insert_match(c: &mut Db<'_, '_>, run: RunId, m: &Match) -> Result<u32> {
    let pairing: i64 = c
        .query_one("SELECT COUNT(*) FROM run_pairings WHERE run_id = $1", &[&key(run)])
        .and_then(|r| r.try_get(0))
        .ctx("counting a tournament's matches")?;
    c.execute("INSERT INTO run_pairings (run_id, pairing) VALUES ($1, $2)", &[&key(run), &pairing])
        .ctx("creating a match's pairing")?;
    c.execute(
        "INSERT INTO tournament_matches (run_id, pairing, round, slot, a, b, stage, pairs)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
        &[
            &key(run),
            &pairing,
            &i64::from(m.round),
            &i64::from(m.slot),
            &int(m.a as u64),
            &int(m.b as u64),
            &m.stage.as_str(),
            &int(m.pairs),
        ],
    )
    .ctx("storing a tournament's match")?;
    to_u32(pairing, "pairing")
}

pub(super) fn matches(c: &mut Db<'_, '_>, run: RunId) -> Result<Vec<MatchRow>> {
    type Raw = (i64, i64, i64, i64, i64, String, i64, Option<i64>);
    let rows = c
        .query(
            "SELECT pairing, round, slot, a, b, stage, pairs, armageddon_red_points FROM tournament_matches
             WHERE run_id = $1 ORDER BY pairing",
            &[&key(run)],
        )
        .and_then(|rows| {
            rows.iter()
                .map(|r| -> std::result::Result<Raw, postgres::Error> {
                    Ok((
                        r.try_get(0)?,
                        r.try_get(1)?,
                        r.try_get(2)?,
                        r.try_get(3)?,
                        r.try_get(4)?,
                        r.try_get(5)?,
                        r.try_get(6)?,
                        r.try_get(7)?,
                    ))
                })
                .collect::<std::result::Result<Vec<Raw>, _>>()
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

pub(super) fn insert_bye(c: &mut Db<'_, '_>, run: RunId, bye: &ByeSlot) -> Result<()> {
    c.execute(
        "INSERT INTO tournament_byes (run_id, round, slot, player) VALUES ($1, $2, $3, $4)",
        &[&key(run), &i64::from(bye.round), &i64::from(bye.slot), &int(bye.player as u64)],
    )
    .ctx("storing a bye")?;
    Ok(())
}

pub(super) fn byes(c: &mut Db<'_, '_>, run: RunId) -> Result<Vec<ByeSlot>> {
    c.query("SELECT round, slot, player FROM tournament_byes WHERE run_id = $1 ORDER BY round, slot", &[&key(run)])
        .ctx("reading a tournament's byes")?
        .iter()
        .map(|r| {
            let read = || -> std::result::Result<(i64, i64, i64), postgres::Error> {
                Ok((r.try_get(0)?, r.try_get(1)?, r.try_get(2)?))
            };
            let (round, slot, player) = read().ctx("reading a tournament's byes")?;
            Ok(ByeSlot {
                round: to_u32(round, "round")?,
                slot: to_u32(slot, "slot")?,
                player: to_u64(player, "player")? as usize,
            })
        })
        .collect()
}

pub(super) fn set_armageddon(c: &mut Db<'_, '_>, run: RunId, pairing: u32, red_points: u32) -> Result<()> {
    let changed = c
        .execute(
            "UPDATE tournament_matches SET armageddon_red_points = $3 WHERE run_id = $1 AND pairing = $2",
            &[&key(run), &i64::from(pairing), &i64::from(red_points)],
        )
        .ctx("noting an Armageddon game")?;
    if changed == 0 { Err(corrupt(format!("tournament {run} has no match {pairing}"))) } else { Ok(()) }
}
