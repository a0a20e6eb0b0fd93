//! Tournaments (issue 13), the pure parts: schedules and standings, tested without a network.
//!
//! - [`berger`]: round-robin rounds by the published Berger tables;
//! - [`standings`]: points by the Chinese rules (2, 1, 0 per game) and the tiebreaks;
//! - [`swiss`]: Swiss pairing by score, no rematch, one bye at most per player;
//! - [`knockout`]: seeded brackets and the tie rule (extra pairs, then Armageddon);
//! - [`random`]: the seeded, reproducible random draw;
//! - [`director`]: what comes next (wait, the next round's draw, a knockout tie's extra
//!   games, the end), from the stored matches.

pub mod berger;
pub mod director;
pub mod knockout;
pub mod random;
pub mod standings;
pub mod swiss;
