//! A player of games: the in-process engine here; external UCI/UCCI engines join it in the
//! farm issue behind the same trait.

use engine::ParamSet;
use engine::search::Score;
use engine::{Engine, Limits, Move, Position};

use crate::error::{Error, Result};

pub mod random;

pub use random::RandomMover;

/// What a player answers to a position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Reply {
    pub mv: Option<Move>,
    /// The player's score from its own side, in centipawns (mates as +-(30000 - plies)).
    pub score: Option<i32>,
    pub nodes: u64,
}

pub trait Player {
    fn name(&self) -> &str;
    /// Forget everything about the previous game.
    fn new_game(&mut self) -> Result<()>;
    /// Choose a move in `pos` (which carries the game's move history).
    fn play(&mut self, pos: &Position, limits: &Limits) -> Result<Reply>;
}

impl<P: Player + ?Sized> Player for Box<P> {
    fn name(&self) -> &str {
        (**self).name()
    }

    fn new_game(&mut self) -> Result<()> {
        (**self).new_game()
    }

    fn play(&mut self, pos: &Position, limits: &Limits) -> Result<Reply> {
        (**self).play(pos, limits)
    }
}

/// A player that could not be started: every game call fails with why, so its games are
/// lost as engine errors instead of stopping the others.
#[derive(Debug)]
pub struct Unstarted {
    engine: String,
    reason: String,
}

impl Unstarted {
    /// `engine` names the player in the error; `reason` is why it did not start.
    pub fn new(engine: impl Into<String>, reason: impl std::fmt::Display) -> Unstarted {
        Unstarted { engine: engine.into(), reason: reason.to_string() }
    }

    fn error(&self) -> Error {
        Error::Engine { engine: self.engine.clone(), reason: self.reason.clone() }
    }
}

impl Player for Unstarted {
    fn name(&self) -> &str {
        "unstarted"
    }

    fn new_game(&mut self) -> Result<()> {
        Err(self.error())
    }

    fn play(&mut self, _pos: &Position, _limits: &Limits) -> Result<Reply> {
        Err(self.error())
    }
}

/// The engine library with a parameter set, in this process.
#[derive(Debug)]
pub struct InProcess {
    name: String,
    engine: Engine,
}

impl InProcess {
    pub fn new(name: impl Into<String>, params: impl Into<ParamSet>) -> InProcess {
        InProcess::with_hash(name, params, 8)
    }

    /// With a transposition table of `hash_mb` MB (a match against an external engine gives
    /// both the same).
    pub fn with_hash(name: impl Into<String>, params: impl Into<ParamSet>, hash_mb: usize) -> InProcess {
        let mut engine = Engine::with_param_set(params.into());
        engine.set_hash(hash_mb);
        InProcess { name: name.into(), engine }
    }

    /// Evaluating with `eval` (a network the variant names) instead of its weights.
    pub fn with_eval(name: impl Into<String>, params: impl Into<ParamSet>, eval: engine::EvalKind) -> InProcess {
        let mut player = InProcess::new(name, params);
        player.set_eval(eval);
        player
    }

    /// The evaluation it plays with from now on.
    pub fn set_eval(&mut self, eval: engine::EvalKind) {
        self.engine.set_eval(eval);
    }
}

/// Converts a search score to centipawns with mates as large values.
pub fn score_cp(score: Score) -> i32 {
    match score {
        Score::Cp(cp) => cp,
        Score::Mate(n) if n > 0 => 30_000 - (2 * n - 1),
        Score::Mate(n) => -30_000 - 2 * n,
    }
}

impl Player for InProcess {
    fn name(&self) -> &str {
        &self.name
    }

    fn new_game(&mut self) -> Result<()> {
        self.engine.new_game();
        Ok(())
    }

    fn play(&mut self, pos: &Position, limits: &Limits) -> Result<Reply> {
        self.engine.set_position(pos.clone());
        let r = self.engine.go(limits, |_| {});
        Ok(Reply { mv: r.best_move, score: Some(score_cp(r.score)), nodes: r.nodes })
    }
}
