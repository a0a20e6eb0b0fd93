//! The tuning step: what the campaign needs of a tuner, and the real one (Texel tuning over
//! the farm's Parquet positions, with its files beside the tuned parameters).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use analysis::charts::{self, LossPoint};
use analysis::data::PositionFilter;
use analysis::texel::{self, Change, TexelConfig, TexelRun};
use analysis::tune::EpochReport;
use engine::ParamSet;
use engine::eval::Params;
use engine::nnue::NetworkId;
use proto::domain::RunId;

use crate::error::{Error, Result};

/// What a tuning produced, as the campaign's summary shows it.
#[derive(Clone, Debug, PartialEq)]
pub struct Tuning {
    /// The tuned evaluation with the base's search parameters.
    pub params: ParamSet,
    pub train_positions: usize,
    pub validation_positions: usize,
    /// The fitted scaling constant.
    pub k: f64,
    /// (train, validation) loss at the base parameters and at the kept ones.
    pub start_loss: (f64, f64),
    pub end_loss: (f64, f64),
    /// A human summary of the tuning (several lines).
    pub summary: String,
}

/// Tunes the evaluation of `base` on the positions of `runs` and writes the tuned set (the
/// tuned evaluation, `base`'s search parameters: [`ParamSet::to_toml`]) to `out`, and whatever
/// files go with it beside it.
#[allow(async_fn_in_trait)]
pub trait Tuner {
    async fn tune(&self, base: &ParamSet, runs: &[RunId], out: &Path) -> Result<Tuning>;

    /// The bytes of network `id`, which a parameter set this tuner made (or started from)
    /// names; the campaign gives them to the farm before the variant. A tuner of the HCE
    /// makes none.
    fn network(&self, id: &NetworkId) -> Result<Vec<u8>> {
        Err(Error::Setting { name: "network", reason: format!("this tuner keeps no networks (asked for {id})") })
    }

    /// Whether what it makes must be tested at a movetime or a clock, never at fixed nodes or
    /// depth (a network costs another time per node than the HCE, here less: equal nodes would
    /// not be equal work).
    fn needs_timed_sprts(&self) -> bool {
        false
    }

    /// Every setting a tuning depends on besides its base and its runs, as text: a campaign
    /// resumed with other settings tunes again rather than read back a tuning made under the
    /// old ones.
    fn settings(&self) -> String;
}

/// Called after every epoch (a progress bar, say).
pub type EpochObserver = Arc<dyn Fn(&EpochReport) + Send + Sync>;

/// The Texel tuner over a coordinator's data directory, run on the blocking pool.
#[derive(Clone)]
pub struct TexelTuner {
    pub data: PathBuf,
    /// Every setting but the runs (set per call) of the position filter.
    pub config: TexelConfig,
    pub on_epoch: Option<EpochObserver>,
}

impl std::fmt::Debug for TexelTuner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TexelTuner").field("data", &self.data).finish_non_exhaustive()
    }
}

impl Tuner for TexelTuner {
    async fn tune(&self, base: &ParamSet, runs: &[RunId], out: &Path) -> Result<Tuning> {
        let config = TexelConfig {
            filter: PositionFilter { runs: runs.iter().map(|r| r.get()).collect(), ..self.config.filter.clone() },
            ..self.config.clone()
        };
        let (data, base, out, on_epoch) = (self.data.clone(), base.clone(), out.to_owned(), self.on_epoch.clone());
        let tuning = tokio::task::spawn_blocking(move || {
            let run = tune_set_to_files(&data, &base, &out, &config, |r| {
                if let Some(f) = &on_epoch {
                    f(r)
                }
            })?;
            Ok::<_, Error>(tuning_of(&run, &base))
        })
        .await
        .map_err(|e| Error::Task { what: "the tuning task", reason: e.to_string() })??;
        Ok(tuning)
    }

    fn settings(&self) -> String {
        format!("texel {:?}", self.config)
    }
}

/// The campaign's view of a Texel run from `base`: the tuned evaluation with `base`'s search
/// parameters.
pub fn tuning_of(run: &TexelRun, base: &ParamSet) -> Tuning {
    let end = run.end();
    Tuning {
        params: ParamSet::new(run.outcome.params.clone(), base.search.clone()),
        train_positions: run.train_positions,
        validation_positions: run.validation_positions,
        k: run.k,
        start_loss: (run.start.train_loss, run.start.validation_loss),
        end_loss: (end.train_loss, end.validation_loss),
        summary: summary(run),
    }
}

/// Tunes and writes the parameter file `out`, a loss curve and the table of the weights that
/// changed most beside it (see [`side_files`]).
pub fn tune_to_files(
    data: &Path,
    base: &Params,
    out: &Path,
    config: &TexelConfig,
    on_epoch: impl FnMut(&EpochReport),
) -> Result<TexelRun> {
    tune_and_write(data, base, out, config, on_epoch, Params::to_toml)
}

/// [`tune_to_files`] of `base`'s evaluation, the parameter file holding the tuned evaluation
/// and `base`'s search parameters (its `[search]` table).
pub fn tune_set_to_files(
    data: &Path,
    base: &ParamSet,
    out: &Path,
    config: &TexelConfig,
    on_epoch: impl FnMut(&EpochReport),
) -> Result<TexelRun> {
    tune_and_write(data, &base.eval, out, config, on_epoch, |tuned| tuned_file(tuned, base))
}

/// The parameter file of the evaluation `tuned` from `base`: with `base`'s `[search]` table.
pub fn tuned_file(tuned: &Params, base: &ParamSet) -> String {
    ParamSet::new(tuned.clone(), base.search.clone()).to_toml()
}

/// Tunes from `base` and writes `file_text` of the tuned evaluation to `out`, the side files
/// beside it.
fn tune_and_write(
    data: &Path,
    base: &Params,
    out: &Path,
    config: &TexelConfig,
    on_epoch: impl FnMut(&EpochReport),
    file_text: impl FnOnce(&Params) -> String,
) -> Result<TexelRun> {
    let run = texel::texel(data, base, config, on_epoch)?;
    if let Some(dir) = out.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| Error::file(dir, e))?;
    }
    std::fs::write(out, file_text(&run.outcome.params)).map_err(|e| Error::file(out, e))?;
    let (loss_png, changes_md) = side_files(out);
    let points: Vec<LossPoint> = run
        .outcome
        .history
        .iter()
        .map(|r| LossPoint { epoch: r.epoch, train: r.train_loss, validation: r.validation_loss })
        .collect();
    charts::loss_curve(&loss_png, "Texel tuning: mean squared error", &points)?;
    let changes = texel::biggest_changes(base, &run.outcome.params, 30);
    std::fs::write(&changes_md, changes_table(&changes)).map_err(|e| Error::file(&changes_md, e))?;
    Ok(run)
}

/// The files a tuning writes beside `out`: `<stem>-loss.png` and `<stem>-changes.md`.
pub fn side_files(out: &Path) -> (PathBuf, PathBuf) {
    let stem = out.file_stem().map_or_else(|| "tuned".into(), |s| s.to_string_lossy().into_owned());
    let dir = out.parent().unwrap_or(Path::new("."));
    (dir.join(format!("{stem}-loss.png")), dir.join(format!("{stem}-changes.md")))
}

pub fn changes_table(changes: &[Change]) -> String {
    let mut s = String::from("| weight | before | after | change |\n|---|---:|---:|---:|\n");
    for c in changes {
        s.push_str(&format!("| {} | {} | {} | {:+} |\n", c.name, c.before, c.after, c.after - c.before));
    }
    s
}

fn loss(value: f64, positions: usize) -> String {
    if positions == 0 { "n/a (no validation games)".into() } else { format!("{value:.6}") }
}

/// A Texel run in a few lines.
pub fn summary(run: &TexelRun) -> String {
    let end = run.end();
    format!(
        "positions: {} sampled, {} quiet at the minimum ply, {} distinct from {} games: {} train / {} validation ({:.1} bytes each)\n\
         weights kept at the base for being too rare: {}\n\
         K = {:.6}\n\
         loss: train {:.6} -> {:.6}, validation {} -> {} (best epoch {} of {}{})\n\
         time: {:.1} s loading, {:.1} s tuning\n",
        run.counts.sampled,
        run.counts.quiet,
        run.counts.unique,
        run.games,
        run.train_positions,
        run.validation_positions,
        run.bytes_per_position,
        run.rare_frozen,
        run.k,
        run.start.train_loss,
        end.train_loss,
        loss(run.start.validation_loss, run.validation_positions),
        loss(end.validation_loss, run.validation_positions),
        run.outcome.best_epoch,
        run.outcome.history.len().saturating_sub(1),
        if run.outcome.stopped_early { ", stopped early" } else { "" },
        run.load_seconds,
        run.tune_seconds,
    )
}

#[cfg(test)]
mod tests {
    use analysis::data::PositionCounts;
    use analysis::tune::TuneOutcome;

    use super::*;

    /// A start whose search parameters are not the defaults.
    fn base() -> ParamSet {
        let mut base = ParamSet::default();
        base.set("search.lmr_div", 300).expect("a search parameter");
        base
    }

    fn tuned() -> Params {
        let mut tuned = Params::default();
        tuned.set_by_name("material.rook.mg", 1000).expect("a rook weight");
        tuned
    }

    #[test]
    fn the_tuned_file_keeps_the_base_search_table() {
        let text = tuned_file(&tuned(), &base());
        let read = ParamSet::from_toml_str(&text).expect("the file reads back");
        assert_eq!(read.get("search.lmr_div"), Some(300));
        assert_eq!(read, ParamSet::new(tuned(), base().search));
    }

    #[test]
    fn a_tuning_is_the_tuned_evaluation_with_the_base_search() {
        let report = EpochReport { epoch: 0, train_loss: 0.2, validation_loss: 0.21 };
        let run = TexelRun {
            counts: PositionCounts::default(),
            games: 2,
            train_positions: 10,
            validation_positions: 2,
            bytes_per_position: 1.0,
            rare_frozen: 0,
            k: 1.0,
            start: report,
            outcome: TuneOutcome {
                weights: vec![],
                params: tuned(),
                best_epoch: 0,
                history: vec![report],
                stopped_early: false,
            },
            load_seconds: 0.0,
            tune_seconds: 0.0,
        };
        let tuning = tuning_of(&run, &base());
        assert_eq!(tuning.params, ParamSet::new(tuned(), base().search));
        assert_ne!(tuning.params.search, engine::search::SearchParams::default());
    }
}
