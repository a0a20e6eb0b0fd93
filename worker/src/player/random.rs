//! A player of seeded random legal moves for farm tests and benches: it never captures and
//! never ends the game itself while it has another move, so a game from the start position
//! runs to the 120-ply move limit, and every move of it is legal.

use engine::rules::judge;
use engine::{Limits, Move, Position};

use super::{Player, Reply};
use crate::error::Result;

/// Random quiet moves with a fixed score (its own view).
#[derive(Clone, Debug)]
pub struct RandomMover {
    name: String,
    seed: u64,
    state: u64,
    score: Option<i32>,
}

impl RandomMover {
    pub fn new(name: impl Into<String>, seed: u64) -> RandomMover {
        let seed = seed | 1;
        RandomMover { name: name.into(), seed, state: seed, score: None }
    }

    /// The score it reports for every move (`None`: no score).
    pub fn with_score(mut self, score: Option<i32>) -> RandomMover {
        self.score = score;
        self
    }

    fn next(&mut self) -> u64 {
        self.state ^= self.state << 13;
        self.state ^= self.state >> 7;
        self.state ^= self.state << 17;
        self.state
    }

    fn pick(&mut self, moves: &[Move]) -> Option<Move> {
        if moves.is_empty() {
            return None;
        }
        let i = (self.next() % moves.len() as u64) as usize;
        Some(moves[i])
    }
}

impl Player for RandomMover {
    fn name(&self) -> &str {
        &self.name
    }

    fn new_game(&mut self) -> Result<()> {
        self.state = self.seed;
        Ok(())
    }

    fn play(&mut self, pos: &Position, _limits: &Limits) -> Result<Reply> {
        let legal: Vec<Move> = pos.legal_moves().iter().copied().collect();
        let quiet: Vec<Move> = legal.iter().copied().filter(|&m| !pos.is_capture(m)).collect();
        let going_on: Vec<Move> = quiet
            .iter()
            .copied()
            .filter(|&m| {
                let mut after = pos.clone();
                after.play_unchecked(m);
                !judge(&after).is_over()
            })
            .collect();
        let mv = self.pick(&going_on).or_else(|| self.pick(&quiet)).or_else(|| self.pick(&legal));
        Ok(Reply { mv, score: self.score, nodes: 1 })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::{GameSettings, Termination, TimeControl, play_game};
    use engine::rules::Reason;

    #[test]
    fn plays_to_the_move_limit_and_repeats_itself() {
        let mut a = RandomMover::new("a", 1).with_score(Some(150));
        let mut b = RandomMover::new("b", 2).with_score(Some(150));
        let g = play_game([&mut a, &mut b], &Position::startpos(), &GameSettings::new(TimeControl::Nodes(1)));
        assert_eq!(g.termination, Termination::Rules(Reason::MoveLimit));
        assert_eq!(g.moves.len(), 120);
        let again = play_game([&mut a, &mut b], &Position::startpos(), &GameSettings::new(TimeControl::Nodes(1)));
        assert_eq!(again.moves, g.moves, "seeded: the same game again");
    }
}
