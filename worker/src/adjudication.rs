//! Resign and draw adjudication, as cutechess-cli does it for Fishtest: both engines must
//! agree for a number of consecutive moves.

pub use proto::domain::Adjudication;

/// No adjudication at all.
pub const NO_ADJUDICATION: Adjudication =
    Adjudication { resign_score: 0, resign_moves: 0, draw_score: 0, draw_moves: 0, draw_after_move: 0 };

/// A verdict of the adjudicator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Adjudicated {
    /// The side that is losing by both engines' scores (0 = Red, 1 = Black).
    Resign {
        loser: usize,
    },
    Draw,
}

/// Follows the scores of a game, ply by ply.
#[derive(Clone, Debug, Default)]
pub struct Adjudicator {
    /// Scores of consecutive plies converted to Red's view.
    red_view: Vec<Option<i32>>,
}

impl Adjudicator {
    /// Records the mover's score (its own view) after ply `ply` (0-based) and returns a
    /// verdict if the game should end.
    pub fn record(
        &mut self,
        cfg: &Adjudication,
        mover_is_red: bool,
        score: Option<i32>,
        fullmove: u32,
    ) -> Option<Adjudicated> {
        self.red_view.push(score.map(|s| if mover_is_red { s } else { -s }));
        let n = self.red_view.len();
        if cfg.resign_moves > 0 {
            let k = 2 * cfg.resign_moves as usize;
            if n >= k {
                let tail = &self.red_view[n - k..];
                if tail.iter().all(|s| s.is_some_and(|v| v >= cfg.resign_score)) {
                    return Some(Adjudicated::Resign { loser: 1 });
                }
                if tail.iter().all(|s| s.is_some_and(|v| v <= -cfg.resign_score)) {
                    return Some(Adjudicated::Resign { loser: 0 });
                }
            }
        }
        if cfg.draw_moves > 0 && fullmove >= cfg.draw_after_move {
            let k = 2 * cfg.draw_moves as usize;
            if n >= k && self.red_view[n - k..].iter().all(|s| s.is_some_and(|v| v.abs() <= cfg.draw_score)) {
                return Some(Adjudicated::Draw);
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resigns_only_when_both_agree_long_enough() {
        let cfg = Adjudication::default();
        let mut a = Adjudicator::default();
        // Red's engine says +700, Black's engine says -700 (its own view): Black loses.
        let mut verdict = None;
        for ply in 0..6 {
            let red = ply % 2 == 0;
            verdict = a.record(&cfg, red, Some(if red { 700 } else { -700 }), 10);
        }
        assert_eq!(verdict, Some(Adjudicated::Resign { loser: 1 }));
        let mut b = Adjudicator::default();
        for ply in 0..6 {
            let red = ply % 2 == 0;
            // Black's engine disagrees on the last ply.
            let s = if red {
                700
            } else if ply == 5 {
                100
            } else {
                -700
            };
            verdict = b.record(&cfg, red, Some(s), 10);
        }
        assert_eq!(verdict, None);
    }

    #[test]
    fn draws_after_the_move_number() {
        let cfg = Adjudication::default();
        let mut a = Adjudicator::default();
        let mut v = None;
        for _ in 0..16 {
            v = a.record(&cfg, true, Some(5), 20);
        }
        assert_eq!(v, None, "before move 34");
        for _ in 0..16 {
            v = a.record(&cfg, true, Some(5), 40);
        }
        assert_eq!(v, Some(Adjudicated::Draw));
    }
}
