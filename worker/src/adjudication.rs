//! Resign and draw adjudication: the protocol's own rules ([`proto::domain::Adjudicator`]),
//! which the coordinator's referee replays, so the worker adjudicates exactly as it is checked.

pub use proto::domain::{Adjudicated, Adjudication, Adjudicator, GAME_PLY_CAP, NO_ADJUDICATION};
