//! The xqfarm worker: plays games between engine variants with the engine crate as the
//! arbiter, and local matches of game pairs over an opening suite.
//!
//! ```
//! use engine::eval::Params;
//! use worker::game::{play_game, GameSettings, TimeControl};
//! use worker::player::InProcess;
//!
//! let mut red = InProcess::new("default", Params::default());
//! let mut black = InProcess::new("material", Params::material_only());
//! let start = engine::Position::from_fen("3k5/9/9/9/9/9/9/9/4R4/4K4 w - - 0 1").unwrap();
//! let game = play_game([&mut red, &mut black], &start, &GameSettings::new(TimeControl::Depth(3)));
//! assert_eq!(game.result.as_str(), "1-0");
//! ```

pub mod adjudication;
pub mod client;
mod delivery;
pub mod engine_bench;
pub mod engines;
pub mod error;
pub mod external;
pub mod game;
pub mod identity;
pub mod loadgen;
pub mod matchrun;
pub mod networks;
pub mod opening_files;
pub mod openings;
pub mod player;
pub mod runner;
pub mod speed;
pub mod spool;
pub mod spsa;

pub use error::{Error, Result};
