//! The referee of record: before anything of a submission is stored, every reported game is
//! replayed with the engine's rules against the lease it answers. Pure: no storage, no clock.
//!
//! Checked for each game (`proto/README.md`, "The referee", says the same to workers):
//! - the players are the task's, in its colours, and the texts are bounded ([`report`]);
//! - it starts from the leased opening's position (after the opening's moves);
//! - every move is legal, and no move follows a position where the rules, the adjudication
//!   rules or the clock had already ended the game;
//! - the reason is one the final position allows, and the outcome is the one that reason
//!   gives: the rules' verdict; an adjudication exactly where the shared
//!   [`proto::domain::Adjudicator`] triggers over the reported scores; `time_forfeit` only
//!   when the shared [`proto::domain::GameClock`], replayed from the reported times, runs out
//!   on the attempt; `illegal_move` only with the offending move, which must be illegal there;
//! - every sampled position is the game's position at its ply, at exactly the run's plies;
//! - `tablebase` only where this coordinator's endgame tables (`serve --tablebases`) decide
//!   the final position, with their outcome (`engine::tablebase::Tablebases::adjudicate`). A
//!   game may go on through positions the tables decide: a worker without tables plays on.
//!
//! Not checkable, and taken on trust: the scores themselves (what the engines said), the
//! times themselves, a crash (`engine_error`, `no_move`), nodes, durations, and the sampled
//! positions' evaluations.
//!
//! A datagen run also needs scores to be there at all: [`unscored_game`] finds a game whose
//! moves carry none, which the farm refuses and stops the run for (`Error::Unscored`).

mod ending;
mod replay;
pub mod report;

#[cfg(test)]
mod tests;

use std::collections::HashMap;
use std::collections::hash_map::Entry;

use engine::OpeningLine;
use engine::tablebase::Tablebases;
use proto::domain::{PairReport, PairTask};

use crate::error::{Error, Result};
use crate::storage::LeaseTerms;

pub use replay::Lie;

/// Referees every pair of a submission; the first lie found is the error (INVALID_ARGUMENT
/// naming the lease, pair, game and ply), and then nothing of the submission may be stored.
/// `tables` are the endgame tables `tablebase` endings are checked against.
pub fn check_batch(terms: &LeaseTerms, pairs: &[PairReport], tables: Option<&Tablebases>) -> Result<()> {
    let tasks: HashMap<u64, &PairTask> = terms.tasks.iter().map(|t| (t.pair_index, t)).collect();
    // By the leased line: a datagen run's games share a suite opening but not its random plies.
    let mut openings: HashMap<&str, OpeningLine> = HashMap::new();
    for pair in pairs {
        let task = tasks
            .get(&pair.pair_index)
            .ok_or_else(|| Error::invalid_report(terms.lease, pair.pair_index, "the pair is not part of this lease"))?;
        for game in 0..2 {
            let line = task.opening_of(game);
            if let Entry::Vacant(slot) = openings.entry(line) {
                // The suite was checked when it was added: a line that no longer parses is the
                // coordinator's fault, not the worker's.
                slot.insert(
                    OpeningLine::parse(line)
                        .map_err(|e| Error::Corrupt(format!("opening {} of the run: {e}", task.opening_index)))?,
                );
            }
        }
        let lines = [&openings[task.opening_of(0)], &openings[task.opening_of(1)]];
        check_pair(terms, task, lines, pair, tables)?;
    }
    Ok(())
}

/// The first game of `pairs` (pair index, game within the pair, its Red player) that has moves
/// and not one score among them: an engine that reports no scores, which a datagen run cannot
/// use. A game without moves (an engine that failed at once) says nothing either way.
pub fn unscored_game(pairs: &[PairReport]) -> Option<(u64, u8, &proto::domain::VariantId)> {
    pairs.iter().find_map(|pair| {
        (0u8..).zip(&pair.games).find_map(|(which, game)| {
            let unscored = !game.moves.is_empty() && game.move_stats.iter().all(|s| s.score.is_none());
            unscored.then_some((pair.pair_index, which, &game.red))
        })
    })
}

/// Referees one pair against its task: players and bounds first, then each game's replay.
pub fn check_pair(
    terms: &LeaseTerms,
    task: &PairTask,
    openings: [&OpeningLine; 2],
    pair: &PairReport,
    tables: Option<&Tablebases>,
) -> Result<()> {
    report::check_pair(terms.lease, pair, task)?;
    for (which, game) in (0u8..).zip(&pair.games) {
        let (line, text) = (openings[usize::from(which)], task.opening_of(usize::from(which)));
        replay::check_game(terms, line, text, game, tables).map_err(|lie| Error::InvalidReport {
            lease: terms.lease,
            pair: pair.pair_index,
            game: Some(which),
            ply: lie.ply,
            reason: lie.what,
        })?;
    }
    Ok(())
}
