//! Texel tuning from a data directory: the farm's sampled positions (filtered and
//! deduplicated by [`crate::data::tuning_positions`]) become compact traces, split into
//! training and validation sets by game; K is fitted on the base parameters, then Adam
//! minimises the loss ([`crate::tune`]).

use std::path::Path;

use engine::eval::Params;

use crate::data::{self, PositionCounts, PositionFilter, TuningPosition};
use crate::error::{Error, Result};
use crate::tune::{self, AdamConfig, EpochReport, TuneOutcome, TuningSet, TuningSetBuilder, fit_k, weights_of};

/// What to tune on and how.
#[derive(Clone, Debug)]
pub struct TexelConfig {
    pub filter: PositionFilter,
    /// Weight of the search score in the label (0: the game result alone).
    pub lambda: f64,
    /// Share of games held out for validation.
    pub validation_fraction: f64,
    /// Weights whose coefficient is non-zero in fewer training positions than this stay at
    /// their base value: too rare to be estimated, they would move on noise alone.
    pub min_positions: u32,
    /// Adam's settings; its `k` is replaced by the fitted K.
    pub adam: AdamConfig,
}

impl Default for TexelConfig {
    fn default() -> Self {
        TexelConfig {
            filter: PositionFilter::default(),
            lambda: 0.0,
            validation_fraction: tune::DEFAULT_VALIDATION_FRACTION,
            min_positions: 0,
            adam: AdamConfig::default(),
        }
    }
}

/// What a tuning session did.
#[derive(Clone, Debug)]
pub struct TexelRun {
    pub counts: PositionCounts,
    pub games: usize,
    pub train_positions: usize,
    pub validation_positions: usize,
    pub bytes_per_position: f64,
    /// Weights the selection left trainable but `min_positions` froze.
    pub rare_frozen: usize,
    pub k: f64,
    /// Losses at the base parameters.
    pub start: EpochReport,
    pub outcome: TuneOutcome,
    /// Seconds spent reading Parquet and building traces, and tuning.
    pub load_seconds: f64,
    pub tune_seconds: f64,
}

impl TexelRun {
    /// The losses at the kept weights.
    pub fn end(&self) -> EpochReport {
        self.outcome.best().copied().unwrap_or(self.start)
    }
}

/// Whether a game key ([`data::game_key`]) is an imported run's game.
fn imported_game(game: u64) -> bool {
    proto::domain::RunId::new(game >> 40).is_imported()
}

fn build_sets(positions: &[TuningPosition], lambda: f64, score_k: f64) -> Result<TuningSet> {
    let mut builder = TuningSetBuilder::new().lambda(lambda)?.score_k(score_k)?;
    builder.reserve(positions.len(), 64);
    for p in positions {
        // A position without a score keeps its result-only label.
        builder.push_fen(&p.fen, p.result_red, p.search_score_red, p.game)?;
    }
    Ok(builder.build())
}

/// Loads the positions of `data`, fits K on `base` and tunes from `base`.
pub fn texel(
    data_dir: &Path,
    base: &Params,
    config: &TexelConfig,
    on_epoch: impl FnMut(&EpochReport),
) -> Result<TexelRun> {
    let started = std::time::Instant::now();
    let (mut positions, counts) = data::tuning_positions(data_dir, &config.filter)?;
    if config.lambda > 0.0 {
        // A blend of result and search score: imported games' positions carry no engine score
        // (never a filled-in one), so they are left out rather than labelled by the result alone.
        positions.retain(|p| p.search_score_red.is_some() || !imported_game(p.game));
    }
    if positions.is_empty() {
        return Err(Error::Data {
            path: data_dir.display().to_string(),
            reason: format!(
                "no tuning positions ({} sampled, {} quiet at ply >= {})",
                counts.sampled, counts.quiet, config.filter.min_ply
            ),
        });
    }
    let games = {
        let mut g: Vec<u64> = positions.iter().map(|p| p.game).collect();
        g.sort_unstable();
        g.dedup();
        g.len()
    };
    let start_weights = weights_of(base);
    let mut set = build_sets(&positions, 0.0, 1.0)?;
    let k = fit_k(&set, &start_weights)?.k;
    if config.lambda > 0.0 {
        // Blended labels read the search score with the K the results gave.
        set = build_sets(&positions, config.lambda, k)?;
    }
    drop(positions);
    let (train, validation) = set.split_by_game(config.validation_fraction)?;
    drop(set);
    let load_seconds = started.elapsed().as_secs_f64();

    let coefficient_counts = train.coefficient_counts();
    let rare: Vec<usize> = (0..coefficient_counts.len())
        .filter(|&i| config.adam.selection.is_trainable(i) && coefficient_counts[i] < config.min_positions)
        .collect();
    let selection = config.adam.selection.clone().freeze_params(rare.iter().copied());
    let adam = AdamConfig { k, selection, ..config.adam.clone() };
    let start = EpochReport {
        epoch: 0,
        train_loss: tune::mse(&train, &start_weights, k)?,
        validation_loss: if validation.is_empty() { f64::NAN } else { tune::mse(&validation, &start_weights, k)? },
    };
    let started = std::time::Instant::now();
    let outcome = tune::tune(&train, &validation, base, &adam, on_epoch)?;
    Ok(TexelRun {
        counts,
        games,
        train_positions: train.len(),
        validation_positions: validation.len(),
        bytes_per_position: train.bytes_per_position(),
        rare_frozen: rare.len(),
        k,
        start,
        outcome,
        load_seconds,
        tune_seconds: started.elapsed().as_secs_f64(),
    })
}

/// A weight the tuner moved.
#[derive(Clone, Debug, PartialEq)]
pub struct Change {
    pub name: String,
    pub before: i32,
    pub after: i32,
}

/// The `n` weights that changed most (by absolute difference), largest first.
pub fn biggest_changes(before: &Params, after: &Params, n: usize) -> Vec<Change> {
    let mut changes: Vec<Change> = (0..before.len().min(after.len()))
        .filter(|&i| before.get(i) != after.get(i))
        .map(|i| Change {
            name: Params::name(i).unwrap_or_else(|| format!("#{i}")),
            before: before.get(i),
            after: after.get(i),
        })
        .collect();
    changes.sort_by_key(|c| std::cmp::Reverse((i64::from(c.after) - i64::from(c.before)).abs()));
    changes.truncate(n);
    changes
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn biggest_changes_orders_by_size_and_skips_unchanged() -> Result<()> {
        let before = Params::default();
        let mut after = before.clone();
        after.set_clamped(3, i64::from(before.get(3)) + 5);
        after.set_clamped(7, i64::from(before.get(7)) - 40);
        let changes = biggest_changes(&before, &after, 10);
        assert_eq!(changes.len(), 2);
        assert_eq!(changes[0].name, Params::name(7).unwrap_or_default());
        assert_eq!(changes[0].after - changes[0].before, -40);
        assert_eq!(changes[1].after - changes[1].before, 5);
        Ok(())
    }
}
