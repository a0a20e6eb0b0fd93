//! One game replayed ply by ply: legality, the start position, sampled positions, and the
//! rules, the adjudication rules and the clock at every ply before the last.

use engine::notation::parse_uci;
use engine::rules::judge::{ARBITER_OCCURRENCES, repetition_span};
use engine::rules::{MOVE_LIMIT_PLIES, judge};
use engine::{Color, OpeningLine, Position};
use proto::domain::{Adjudicated, Adjudicator, GameClock, GameReport, PositionSample};

use super::ending::{self, Final};
use crate::storage::LeaseTerms;

/// What is wrong with a game, and where (`ply`: the number of moves played before it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lie {
    pub ply: Option<usize>,
    pub what: String,
}

impl Lie {
    pub(super) fn at(ply: usize, what: impl Into<String>) -> Lie {
        Lie { ply: Some(ply), what: what.into() }
    }

    fn whole(what: impl Into<String>) -> Lie {
        Lie { ply: None, what: what.into() }
    }
}

/// Replays `game` from `opening` (the leased line `opening_text`) under the lease's rules.
pub(super) fn check_game(
    terms: &LeaseTerms,
    opening: &OpeningLine,
    opening_text: &str,
    game: &GameReport,
    tables: Option<&engine::tablebase::Tablebases>,
) -> Result<(), Lie> {
    let mut pos = opening.position.clone();
    let start = pos.fen();
    if game.start_fen != start {
        return Err(Lie::whole(format!(
            "starts from `{}`, but the leased opening `{opening_text}` leads to `{start}`",
            game.start_fen
        )));
    }
    let n = game.moves.len();
    if game.move_stats.len() != n {
        return Err(Lie::whole(format!("{n} moves but {} move stats (one per move)", game.move_stats.len())));
    }
    let mut adjudicator = Adjudicator::new(terms.adjudication);
    let mut clock = GameClock::new(terms.tc);
    let mut samples = Samples { every: terms.sample_every as usize, rest: &game.positions };
    let mut verdict = None;
    if n > 0 {
        rules_still_going(&pos, 0)?;
    }
    for (ply, (text, stat)) in game.moves.iter().zip(&game.move_stats).enumerate() {
        samples.check(ply, &pos, text)?;
        let mv = parse_uci(text).map_err(|e| Lie::at(ply, format!("`{text}` is not a move: {e}")))?;
        if let Some(why) = pos.illegal_reason(mv) {
            // A move after mate or stalemate is illegal too: say which it was.
            let outcome = judge(&pos);
            if outcome.is_over() {
                return Err(Lie::at(ply, format!("the rules ended the game here ({outcome}), yet `{text}` follows")));
            }
            return Err(Lie::at(ply, format!("illegal move `{text}`: {why}")));
        }
        let mover = pos.side_to_move();
        if let Some(clock) = clock.as_mut()
            && let Err(over) = clock.spend(mover, stat.time_ms)
        {
            return Err(Lie::at(
                ply,
                format!(
                    "`{text}` took {} ms with {} ms left: the game was lost on time here",
                    over.used_ms, over.left_ms
                ),
            ));
        }
        pos.play_unchecked(mv);
        verdict = adjudicator.record(mover, stat.score, pos.fullmove());
        if ply + 1 < n {
            rules_still_going(&pos, ply + 1)?;
            if let Some(v) = verdict {
                return Err(Lie::at(
                    ply + 1,
                    format!("the adjudication rules end the game here ({}), yet it goes on", name(v)),
                ));
            }
        }
    }
    samples.finish(n)?;
    ending::check(&Final { pos: &pos, plies: n, verdict, clock: clock.as_ref(), tables, pins: &terms.tablebases }, game)
}

/// The rules' cheap checks at a position inside the game (a mate or stalemate shows as the
/// next move being illegal): a third repetition or the move limit would have ended it.
fn rules_still_going(pos: &Position, ply: usize) -> Result<(), Lie> {
    let repeated = repetition_span(pos, ARBITER_OCCURRENCES).is_some();
    if repeated || pos.rule60() >= MOVE_LIMIT_PLIES {
        let outcome = judge(pos);
        if outcome.is_over() {
            return Err(Lie::at(ply, format!("the rules end the game here ({outcome}), yet it goes on")));
        }
    }
    Ok(())
}

pub(super) fn name(v: Adjudicated) -> &'static str {
    match v {
        Adjudicated::Resign { loser: Color::Red } => "Red resigns",
        Adjudicated::Resign { loser: Color::Black } => "Black resigns",
        Adjudicated::Draw => "a draw",
    }
}

/// The sampled positions still to meet, in order.
struct Samples<'a> {
    every: usize,
    rest: &'a [PositionSample],
}

impl Samples<'_> {
    /// At ply `ply` (before the move `played`): the run samples here exactly when `ply` is a
    /// positive multiple of `every`; a sample must then be this position.
    fn check(&mut self, ply: usize, pos: &Position, played: &str) -> Result<(), Lie> {
        let due = self.every > 0 && ply > 0 && ply.is_multiple_of(self.every);
        let next = self.rest.first();
        match (due, next) {
            (false, Some(s)) if s.ply as usize <= ply => Err(Lie::at(
                s.ply as usize,
                format!("a sampled position at ply {}, which the run does not sample (every {})", s.ply, self.every),
            )),
            (false, _) => Ok(()),
            (true, None) => Err(Lie::at(ply, "the sampled position of this ply is missing")),
            (true, Some(s)) if s.ply as usize != ply => {
                Err(Lie::at(ply, format!("the sampled position of this ply is missing (next sample: ply {})", s.ply)))
            }
            (true, Some(s)) => {
                self.rest = &self.rest[1..];
                let fen = pos.fen();
                if s.fen != fen {
                    return Err(Lie::at(ply, format!("sampled position `{}`, but the game stands at `{fen}`", s.fen)));
                }
                if s.red_to_move != (pos.side_to_move() == Color::Red) || s.in_check != pos.in_check() {
                    return Err(Lie::at(ply, "the sampled side to move or check flag contradicts the position"));
                }
                if s.best_move != played {
                    return Err(Lie::at(
                        ply,
                        format!("sampled best move `{}`, but `{played}` was played", s.best_move),
                    ));
                }
                Ok(())
            }
        }
    }

    /// After the last ply: nothing may be left over.
    fn finish(&self, plies: usize) -> Result<(), Lie> {
        match self.rest.first() {
            Some(s) => Err(Lie::at(
                s.ply as usize,
                format!(
                    "a sampled position at ply {} of a {plies}-ply game (samples are before a move, in order)",
                    s.ply
                ),
            )),
            None => Ok(()),
        }
    }
}
