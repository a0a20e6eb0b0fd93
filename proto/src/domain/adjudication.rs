//! Resign and draw adjudication, as cutechess-cli does it for Fishtest: both engines must agree
//! for a number of consecutive moves. Part of the protocol's contract: the worker adjudicates
//! with this code and the coordinator's referee replays the same code over the reported scores,
//! so a game is adjudicated at exactly the ply where these rules trigger, or not at all.

use engine::Color;

/// The run's adjudication settings.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Adjudication {
    pub resign_score: i32,
    pub resign_moves: u32,
    pub draw_score: i32,
    pub draw_moves: u32,
    pub draw_after_move: u32,
}

impl Default for Adjudication {
    fn default() -> Adjudication {
        Adjudication { resign_score: 600, resign_moves: 3, draw_score: 20, draw_moves: 8, draw_after_move: 34 }
    }
}

/// No adjudication at all (the ply cap still applies).
pub const NO_ADJUDICATION: Adjudication =
    Adjudication { resign_score: 0, resign_moves: 0, draw_score: 0, draw_moves: 0, draw_after_move: 0 };

/// A game still going after this many plies is drawn by adjudication: a cap for runaway games,
/// far beyond the 120-ply rule's reach.
pub const GAME_PLY_CAP: usize = 1000;

/// A verdict of the adjudicator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Adjudicated {
    /// The side that is losing by both engines' scores.
    Resign { loser: Color },
    /// Both scores near zero long enough, or the ply cap reached.
    Draw,
}

/// Follows the scores of one game, ply by ply.
#[derive(Clone, Debug)]
pub struct Adjudicator {
    cfg: Adjudication,
    ply_cap: usize,
    /// Scores of the plies so far, in Red's view.
    red_view: Vec<Option<i32>>,
}

impl Adjudicator {
    pub fn new(cfg: Adjudication) -> Adjudicator {
        Adjudicator { cfg, ply_cap: GAME_PLY_CAP, red_view: Vec::with_capacity(256) }
    }

    /// A smaller ply cap (local matches and tests); the farm always plays [`GAME_PLY_CAP`].
    pub fn with_ply_cap(mut self, ply_cap: usize) -> Adjudicator {
        self.ply_cap = ply_cap;
        self
    }

    /// Records the score the mover gave (its own view, `None` if it gave none) for the move
    /// just played; `fullmove` is the position's move number after the move. Returns a verdict
    /// when the game should end here — unless the rules end it first, which the caller judges.
    pub fn record(&mut self, mover: Color, score: Option<i32>, fullmove: u32) -> Option<Adjudicated> {
        let cfg = &self.cfg;
        self.red_view.push(score.map(|s| if mover == Color::Red { s } else { s.saturating_neg() }));
        let n = self.red_view.len();
        if cfg.resign_moves > 0 {
            let k = 2 * cfg.resign_moves as usize;
            if n >= k {
                let tail = &self.red_view[n - k..];
                if tail.iter().all(|s| s.is_some_and(|v| v >= cfg.resign_score)) {
                    return Some(Adjudicated::Resign { loser: Color::Black });
                }
                if tail.iter().all(|s| s.is_some_and(|v| v <= cfg.resign_score.saturating_neg())) {
                    return Some(Adjudicated::Resign { loser: Color::Red });
                }
            }
        }
        if cfg.draw_moves > 0 && fullmove >= cfg.draw_after_move {
            let k = 2 * cfg.draw_moves as usize;
            if n >= k && self.red_view[n - k..].iter().all(|s| s.is_some_and(|v| v.saturating_abs() <= cfg.draw_score))
            {
                return Some(Adjudicated::Draw);
            }
        }
        if n >= self.ply_cap {
            return Some(Adjudicated::Draw);
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mover(ply: usize) -> Color {
        if ply.is_multiple_of(2) { Color::Red } else { Color::Black }
    }

    #[test]
    fn resigns_only_when_both_agree_long_enough() {
        let mut a = Adjudicator::new(Adjudication::default());
        // Red's engine says +700, Black's engine says -700 (its own view): Black loses.
        let mut verdict = None;
        for ply in 0..6 {
            let red = mover(ply) == Color::Red;
            assert_eq!(verdict, None, "ply {ply}");
            verdict = a.record(mover(ply), Some(if red { 700 } else { -700 }), 10);
        }
        assert_eq!(verdict, Some(Adjudicated::Resign { loser: Color::Black }));
        let mut b = Adjudicator::new(Adjudication::default());
        for ply in 0..6 {
            // Black's engine disagrees on the last ply.
            let s = match (mover(ply), ply) {
                (Color::Red, _) => 700,
                (_, 5) => 100,
                _ => -700,
            };
            verdict = b.record(mover(ply), Some(s), 10);
        }
        assert_eq!(verdict, None);
        // A missing score breaks the streak.
        let mut c = Adjudicator::new(Adjudication::default());
        for ply in 0..6 {
            let s = if ply == 2 { None } else { Some(if mover(ply) == Color::Red { -900 } else { 900 }) };
            verdict = c.record(mover(ply), s, 10);
        }
        assert_eq!(verdict, None);
    }

    #[test]
    fn draws_after_the_move_number_and_at_the_cap() {
        let mut a = Adjudicator::new(Adjudication::default());
        let mut v = None;
        for ply in 0..16 {
            v = a.record(mover(ply), Some(5), 20);
        }
        assert_eq!(v, None, "before move 34");
        for ply in 0..16 {
            v = a.record(mover(ply), Some(5), 40);
        }
        assert_eq!(v, Some(Adjudicated::Draw));
        let mut capped = Adjudicator::new(NO_ADJUDICATION).with_ply_cap(4);
        let verdicts: Vec<_> = (0..4).map(|ply| capped.record(mover(ply), None, 1)).collect();
        assert_eq!(verdicts, [None, None, None, Some(Adjudicated::Draw)]);
    }
}
