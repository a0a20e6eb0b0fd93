//! The campaign: self-play → Texel tuning → SPRT (and the anchor SPRT against the start) →
//! promotion, repeated, written once over two traits — a [`Farm`] (variants, networks, runs,
//! waiting for a run to end and for its games to reach Parquet) and a [`Tuner`] — so it runs
//! against a coordinator ([`RemoteFarm`] over `proto::client::FarmClient`) with either tuner:
//! [`TexelTuner`] (the HCE's weights, from self-play samples) or [`NnueTuner`] (a network,
//! from datagen runs, at a movetime or clock), and, in tests, against fakes with no network.
//!
//! ```no_run
//! use campaign::{CampaignConfig, RemoteFarm, TexelTuner};
//! use proto::client::{ClientConfig, FarmClient, RetryPolicy};
//! use proto::domain::{SprtSettings, TimeControl};
//!
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! let config = ClientConfig::default().with_retry(RetryPolicy::FOREVER);
//! let client = FarmClient::connect("http://127.0.0.1:7878", None, "token", config).await?;
//! let farm = RemoteFarm::new(client);
//! let tuner = TexelTuner { data: "xqfarm-data".into(), config: Default::default(), on_epoch: None };
//! let config = CampaignConfig {
//!     dir: "xqfarm-loop".into(),
//!     iterations: 1,
//!     pairs: 2500,
//!     tc: TimeControl::Nodes(3000),
//!     positions: campaign::Positions::SelfPlay { sample_every: 2 },
//!     sprt: SprtSettings { elo0: 0.0, elo1: 10.0, ..SprtSettings::default() },
//!     max_games: 6000,
//!     anchor: campaign::DEFAULT_ANCHOR,
//!     anchor_max_games: campaign::DEFAULT_ANCHOR_MAX_GAMES,
//! };
//! let openings = vec!["startpos".to_owned()];
//! let outcome = campaign::run(&farm, &tuner, &config, Default::default(), openings, &mut |line| eprintln!("{line}")).await?;
//! println!("best: {}", outcome.best_name);
//! # Ok(()) }
//! ```

mod campaign;
mod error;
pub mod failures;
pub mod farm;
pub mod nnue_tuner;
mod resume;
pub mod sprt_result;
pub mod spsa;
pub mod summary;
pub mod text;
pub mod tuner;

pub use campaign::{
    Anchor, CampaignConfig, DEFAULT_ANCHOR, DEFAULT_ANCHOR_MAX_GAMES, Iteration, Outcome, Positions, Verdict, run,
    sprt_spec, twin,
};
pub use error::{Error, Result};
pub use farm::{Farm, RemoteFarm};
pub use nnue_tuner::NnueTuner;
pub use tuner::{TexelTuner, Tuner, Tuning};
