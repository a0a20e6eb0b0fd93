//! An engine seated at the board: the in-process engine with a variant's parameters (its own
//! hash table), or an external engine of the `serve --engine` allow-list in a child process.
//! Searching blocks: it is only ever called on the pool's blocking threads.

use std::time::Duration;

use engine::notation::{Notation, write_move};
use engine::search::Score;
use engine::{Engine, Limits, Move, Position};
use worker::external::ExternalEngine;
use worker::player::Player as _;

/// What a search found, for a reply or an analysis.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Analysis {
    /// Centipawns from the side to move's view (mates as +-(30000 - plies)).
    pub score: i32,
    /// Mate in this many moves (negative: the side to move is mated); `None` without a mate.
    pub mate: Option<i32>,
    pub depth: u32,
    pub nodes: u64,
    /// The principal variation as UCI moves, best move first.
    pub pv: Vec<String>,
    /// The same line in WXF, each move written in the position it is played in.
    pub pv_wxf: Vec<String>,
    #[serde(skip)]
    pub best: Option<Move>,
}

/// An engine player of a session.
#[derive(Debug)]
pub enum EnginePlayer {
    InProcess(Box<Engine>),
    External(Box<ExternalEngine>),
}

/// Time the in-process engine keeps back from a move time for returning its move.
const MOVE_OVERHEAD: Duration = Duration::from_millis(5);

impl EnginePlayer {
    /// The in-process engine with `params` and a hash table of `hash_mib`.
    pub fn in_process(params: impl Into<engine::ParamSet>, hash_mib: usize) -> EnginePlayer {
        let mut engine = Engine::with_param_set(params.into());
        engine.set_hash(hash_mib);
        engine.set_move_overhead(MOVE_OVERHEAD);
        EnginePlayer::InProcess(Box::new(engine))
    }

    /// [`EnginePlayer::in_process`] evaluating with `network` when there is one.
    pub fn in_process_with(
        params: impl Into<engine::ParamSet>,
        network: Option<std::sync::Arc<engine::nnue::Network>>,
        hash_mib: usize,
    ) -> EnginePlayer {
        let mut player = EnginePlayer::in_process(params, hash_mib);
        if let (EnginePlayer::InProcess(engine), Some(net)) = (&mut player, network) {
            engine.set_eval(engine::EvalKind::Nnue(net));
        }
        player
    }

    /// Searches `pos` (with the game's history, for repetitions) under `limits`.
    pub fn search(&mut self, pos: &Position, limits: &Limits) -> Result<Analysis, String> {
        match self {
            EnginePlayer::InProcess(engine) => {
                engine.set_position(pos.clone());
                let r = engine.go(limits, |_| {});
                let mate = match r.score {
                    Score::Mate(n) => Some(n),
                    Score::Cp(_) => None,
                };
                let mut pv = r.pv.clone();
                if pv.first() != r.best_move.as_ref() {
                    pv = r.best_move.into_iter().collect();
                }
                Ok(analysis(pos, worker::player::score_cp(r.score), mate, r.depth, r.nodes, &pv))
            }
            EnginePlayer::External(engine) => {
                let reply = engine.play(pos, limits).map_err(|e| e.to_string())?;
                let pv: Vec<Move> = reply.mv.into_iter().collect();
                Ok(analysis(pos, reply.score.unwrap_or(0), None, 0, reply.nodes, &pv))
            }
        }
    }
}

/// The analysis of `pos` from a search's figures, with the legal prefix of `pv` written out.
fn analysis(pos: &Position, score: i32, mate: Option<i32>, depth: u32, nodes: u64, pv: &[Move]) -> Analysis {
    let mut board = pos.clone();
    let (mut uci, mut wxf) = (Vec::new(), Vec::new());
    for &m in pv {
        if !board.is_legal_move(m) {
            break;
        }
        uci.push(m.to_string());
        wxf.push(write_move(&board, m, Notation::Wxf));
        board.play_unchecked(m);
    }
    Analysis { score, mate, depth, nodes, pv: uci, pv_wxf: wxf, best: pv.first().copied() }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // in tests a panic is the failure report
mod tests {
    use super::*;

    #[test]
    fn finds_the_mate_in_one_and_writes_its_line() {
        // Red mates with the rook: b0b9.
        let pos = Position::from_fen("4k4/R8/9/9/9/9/9/9/9/1R1K5 w - - 0 1").unwrap();
        let mut player = EnginePlayer::in_process(engine::eval::Params::default(), 1);
        let a = player.search(&pos, &Limits::depth(4)).unwrap();
        assert_eq!(a.best.map(|m| m.to_string()).as_deref(), Some("b0b9"));
        assert_eq!(a.mate, Some(1));
        assert!(a.score > 20_000);
        assert_eq!(a.pv.first().map(String::as_str), Some("b0b9"));
        assert_eq!(a.pv_wxf.first().map(String::as_str), Some("R8+9"));
    }
}
