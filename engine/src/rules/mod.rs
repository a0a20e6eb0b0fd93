//! Game end: checkmate, stalemate (a loss), the natural-move limit and the Asian-rules
//! repetition judgement, as `engine/RULES.md` states them.
//!
//! ```
//! use engine::rules::{judge, GameResult, Reason};
//! use engine::{Move, Position, Square};
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! // Black is mated by the two rooks.
//! let mut pos = Position::from_fen("4k4/R8/9/9/9/9/9/9/9/1R1K5 w - - 0 1")?;
//! assert_eq!(judge(&pos).result, GameResult::Ongoing);
//! pos.try_play(Move::new(Square::B0, Square::B9))?;
//! let outcome = judge(&pos);
//! assert_eq!((outcome.result, outcome.reason), (GameResult::RedWins, Reason::Checkmate));
//! # Ok(())
//! # }
//! ```
//!
//! - `outcome`: `GameResult`, `Reason`, `Outcome`.
//! - `judge`: the arbiter (`judge`) and the repetition judgement for the search
//!   (`repetition_verdict`).
//! - `chase`: one move of a cycle as check, chase or idle; piece identities.
//! - `verdict`: the lookup table from the two sides' classes to the verdict.

pub mod chase;
pub mod judge;
pub mod outcome;
pub mod verdict;

pub use chase::{MoveClass, classify};
pub use judge::{MOVE_LIMIT_PLIES, RepetitionVerdict, judge, repetition_outcome, repetition_verdict};
pub use outcome::{GameResult, Outcome, Reason};
pub use verdict::{CycleVerdict, SideClass, Violation, cycle_verdict};
