//! A datagen run's openings: each game plays from its suite opening followed by a few uniformly
//! random legal moves (`DatagenSettings::random_plies`), drawn here, by the coordinator, from a
//! seed of (run, pair index, game). The two games of a pair get different random moves: a
//! variant playing itself from one position at fixed nodes plays the same game twice, so a
//! shared opening would only record every position twice. The result is the leased opening, a FEN: the worker plays from it
//! and the referee replays from it, so the random moves are never part of a game and never a
//! sampled position's best move. Pure and deterministic: a pair's opening is the same whenever
//! it is leased (again, after an expiry) or refereed.
//!
//! ```
//! use coordinator::datagen::random_opening;
//! use proto::domain::RunId;
//!
//! let fen = random_opening("startpos", RunId::new(1), 0, 0, 8)?;
//! assert_eq!(fen, random_opening("startpos", RunId::new(1), 0, 0, 8)?, "the same game, the same opening");
//! assert_ne!(fen, random_opening("startpos", RunId::new(1), 0, 1, 8)?, "the pair's other game, another opening");
//! assert_ne!(fen, random_opening("startpos", RunId::new(1), 1, 0, 8)?, "another pair, another opening");
//! assert_eq!(random_opening("startpos", RunId::new(1), 0, 0, 0)?, "startpos", "no random plies: the line itself");
//! # Ok::<(), engine::Error>(())
//! ```

use engine::rules::judge;
use engine::{Move, OpeningLine};
use proto::domain::RunId;

use crate::scheduler::splitmix64;

/// Draws tried before a pair falls back to its suite opening unchanged: a draw is thrown away
/// when its random moves reach a position without a legal move or one the rules end (mate,
/// stalemate, a judged repetition, the move limit).
pub const REDRAWS: u64 = 64;

/// The leased opening of game `game` (0 or 1) of datagen pair `pair_index` of `run`: the suite's `line` followed by
/// `plies` uniformly random legal moves ([`random_moves`]), as the FEN of the position they
/// reach (`line` itself for 0 plies, or when no draw avoided a finished game). An error only for
/// a line that does not parse (suites are checked when added).
pub fn random_opening(line: &str, run: RunId, pair_index: u64, game: u8, plies: u32) -> Result<String, engine::Error> {
    if plies == 0 {
        return Ok(line.to_owned());
    }
    let opening = OpeningLine::parse(line)?;
    let moves = random_moves(&opening, run, pair_index, game, plies);
    if moves.is_empty() {
        return Ok(line.to_owned());
    }
    let mut pos = opening.position;
    for m in moves {
        pos.play_unchecked(m);
    }
    Ok(pos.fen())
}

/// The random moves of game `game` of datagen pair `pair_index` of `run` after `opening`: `plies` moves, each
/// uniform among the legal moves sorted by their text (so the draw does not depend on the move
/// generator's order). A draw that reaches a position without a legal move, or one the rules
/// end, is thrown away and drawn again; after [`REDRAWS`] such draws, none (the suite's line
/// as it is).
pub fn random_moves(opening: &OpeningLine, run: RunId, pair_index: u64, game: u8, plies: u32) -> Vec<Move> {
    if plies == 0 {
        return Vec::new();
    }
    // Game 0 draws from attempts 0.., game 1 from REDRAWS..: streams of their own.
    let first = REDRAWS * u64::from(game);
    'draw: for attempt in first..first + REDRAWS {
        let mut rng = Rng::new(run, pair_index, attempt);
        let mut pos = opening.position.clone();
        let mut played = Vec::with_capacity(plies as usize);
        for _ in 0..plies {
            let mut moves: Vec<Move> = pos.legal_moves().to_vec();
            if moves.is_empty() {
                continue 'draw;
            }
            moves.sort_by_cached_key(|m| m.to_string());
            let m = moves[rng.below(moves.len())];
            pos.play_unchecked(m);
            played.push(m);
            if judge(&pos).is_over() {
                continue 'draw;
            }
        }
        return played;
    }
    tracing::warn!(run = %run, pair = pair_index, game, "no random opening without a finished game: the suite's line as it is");
    Vec::new()
}

/// SplitMix64 from a seed of (run, pair, attempt).
struct Rng(u64);

impl Rng {
    fn new(run: RunId, pair_index: u64, attempt: u64) -> Rng {
        Rng(splitmix64(splitmix64(run.get() ^ 0x6461_7461_6765_6e00) ^ pair_index) ^ attempt.rotate_left(40))
    }

    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        splitmix64(self.0)
    }

    /// Uniform in `0..n` (n > 0), by the high half of a 128-bit product (a bias below 2^-56 for
    /// the few hundred moves a position has).
    fn below(&mut self, n: usize) -> usize {
        ((u128::from(self.next()) * n as u128) >> 64) as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::Position;

    /// Golden values: a change here changes the openings of every datagen run, and of pairs
    /// leased again after an expiry. Update only on purpose.
    #[test]
    fn openings_are_the_golden_ones() {
        assert_eq!(random_opening("startpos", RunId::new(1), 0, 0, 8).expect("opening"), GOLDEN_1_0);
        assert_eq!(random_opening("startpos moves h2e2 h9g7", RunId::new(7), 41, 0, 8).expect("opening"), GOLDEN_7_41);
        assert_eq!(random_opening("startpos", RunId::new(1), 0, 1, 8).expect("opening"), GOLDEN_1_0_SECOND);
    }

    const GOLDEN_1_0: &str = "rnbakabCr/9/3c3c1/p1p1p1p2/8p/P8/1CP1P1P1P/4B4/9/RN1AKABNR w - - 1 5";
    const GOLDEN_1_0_SECOND: &str = "1nbakabnr/9/r1c4C1/p1p1p1p1p/3c5/P5P2/2P1P3P/1C7/8R/RNBAKABN1 w - - 8 5";
    const GOLDEN_7_41: &str = "rnbakab1r/9/1c4n2/p1p1C1p2/7cp/9/P1P1P1P1P/6C2/9/RNBAKABNR w - - 5 6";

    #[test]
    fn openings_are_legal_and_differ_by_pair_and_run() {
        let mut seen = std::collections::HashSet::new();
        for run in 1..4 {
            for pair in 0..50 {
                for game in 0..2 {
                    let fen = random_opening("startpos", RunId::new(run), pair, game, 8).expect("opening");
                    let pos = Position::from_fen(&fen).expect("a FEN");
                    assert!(pos.has_legal_move() && !judge(&pos).is_over(), "{fen}");
                    // Eight plies from the start: Red to move again, at move 5.
                    assert_eq!(pos.fullmove(), 5, "{fen}");
                    // The leased line parses as the referee and the worker read it.
                    assert_eq!(OpeningLine::parse(&fen).expect("a line").position.fen(), fen);
                    seen.insert(fen);
                }
            }
        }
        assert!(seen.len() > 280, "300 games, {} distinct openings", seen.len());
    }

    #[test]
    fn a_line_that_ends_the_game_soon_is_redrawn_or_kept() {
        // A bare endgame, where 40 random plies may well repeat a position or run into a mate:
        // such draws are thrown away, and whatever comes back is playable.
        let line = "4k4/9/9/9/9/9/9/9/R8/3K5 w - - 0 1";
        for pair in 0..20 {
            let fen = random_opening(line, RunId::new(3), pair, (pair % 2) as u8, 40).expect("opening");
            let pos = OpeningLine::parse(&fen).expect("a line").position;
            assert!(pos.has_legal_move() && !judge(&pos).is_over(), "{fen}");
        }
        assert!(random_opening("not a fen", RunId::new(1), 0, 0, 8).is_err(), "a line that does not parse is named");
    }
}
