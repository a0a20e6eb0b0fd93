//! The tuner's throughput: position-epochs per second (one epoch = loss and gradient over every
//! position) and bytes per position, on a synthetic set of a million positions or more.
//!
//! The set is built from a few thousand real traces of random playouts, each copied many times
//! with a random label and game, so building does not dominate and the entries per position are
//! those of real positions. `cargo bench -p analysis --bench tuner` runs it under criterion;
//! [`bench()`] is the same measure as a function (for `xqfarm tune --bench`).

use std::time::Instant;

use engine::Position;
use engine::eval::Params;

use super::dataset::TuningSet;
use super::loss::{mse_and_gradient, weights_of};
use super::playout::{XorShift64, random_playout_traces};
use crate::error::{Error, Result};

/// Start positions of the playouts: the opening and three middlegames of the perft suite.
const STARTS: [&str; 4] = [
    engine::START_FEN,
    "2bakab2/6r2/2n1c1nc1/p1p2rp1p/4p4/2PN2PC1/P3P3P/6N2/3CA4/1RBAK1B1R w - - 0 1",
    "r2akabr1/4n1c2/4b1c2/pC2C3p/2P1P4/9/P3N1p1P/9/9/RNBAKAB2 w - - 0 1",
    "3akab2/3r5/8n/8p/2P1C1b2/8P/cR2N2r1/2n1B1N2/4A4/2B1KR3 w - - 0 1",
];

/// Distinct real traces behind a synthetic set.
const DISTINCT: usize = 4096;
/// Positions per synthetic game (for the game ids).
const POSITIONS_PER_GAME: u64 = 16;

/// What [`bench()`] measured.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BenchReport {
    pub positions: usize,
    /// Stored (feature, count) entries per position.
    pub entries_per_position: f64,
    pub bytes_per_position: f64,
    pub build_seconds: f64,
    pub epochs: usize,
    pub epoch_seconds: f64,
    pub position_epochs_per_second: f64,
    pub threads: usize,
}

impl std::fmt::Display for BenchReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} positions ({:.1} entries, {:.1} bytes each; built in {:.2} s), {} epochs of {:.3} s on {} threads: \
             {:.1}M position-epochs/s",
            self.positions,
            self.entries_per_position,
            self.bytes_per_position,
            self.build_seconds,
            self.epochs,
            self.epoch_seconds,
            self.threads,
            self.position_epochs_per_second / 1e6,
        )
    }
}

/// `positions` positions: copies of real playout traces with random labels (0, 0.5, 1).
pub fn synthetic_set(positions: usize, seed: u64) -> Result<TuningSet> {
    let starts = STARTS
        .iter()
        .map(|fen| Position::from_fen(fen).map_err(|reason| Error::Fen { fen: (*fen).to_owned(), reason }))
        .collect::<Result<Vec<_>>>()?;
    let mut distinct = super::dataset::TuningSetBuilder::new();
    for (trace, game) in random_playout_traces(&starts, DISTINCT.min(positions.max(1)), seed) {
        distinct.push_trace(&trace, 0.5, None, game)?;
    }
    let distinct = distinct.build();
    let mut rng = XorShift64::new(seed ^ 0x5EED);
    let mut set = TuningSet::new();
    for i in 0..positions {
        let label = [0.0, 0.5, 1.0][rng.below(3)];
        set.push_copy(&distinct, rng.below(distinct.len()), label, i as u64 / POSITIONS_PER_GAME)?;
    }
    set.shrink_to_fit();
    Ok(set)
}

/// Builds a synthetic set of `positions` and times full loss-and-gradient epochs over it for
/// about two seconds (at least three epochs, after one warm-up).
pub fn bench(positions: usize) -> Result<BenchReport> {
    let started = Instant::now();
    let set = synthetic_set(positions, 0x7E7A)?;
    let build_seconds = started.elapsed().as_secs_f64();
    let weights = weights_of(&Params::default());
    std::hint::black_box(mse_and_gradient(&set, &weights, 1.0)?);
    let started = Instant::now();
    let mut epochs = 0;
    while epochs < 3 || started.elapsed().as_secs_f64() < 2.0 {
        std::hint::black_box(mse_and_gradient(&set, std::hint::black_box(&weights), 1.0)?);
        epochs += 1;
    }
    let seconds = started.elapsed().as_secs_f64();
    Ok(BenchReport {
        positions: set.len(),
        entries_per_position: set.entries() as f64 / set.len().max(1) as f64,
        bytes_per_position: set.bytes_per_position(),
        build_seconds,
        epochs,
        epoch_seconds: seconds / epochs as f64,
        position_epochs_per_second: (set.len() * epochs) as f64 / seconds,
        threads: rayon::current_num_threads(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn synthetic_sets_copy_real_traces() -> Result<()> {
        let set = synthetic_set(10_000, 5)?;
        assert_eq!(set.len(), 10_000);
        assert_eq!(set.game_ids().last(), Some(&(9_999 / POSITIONS_PER_GAME)));
        assert!(set.labels().iter().all(|l| [0.0, 0.5, 1.0].contains(l)));
        let entries = set.entries() as f64 / set.len() as f64;
        assert!((10.0..100.0).contains(&entries), "{entries} entries per position");
        Ok(())
    }
}
