//! The network loop's tuner: trains the engine's network (`analysis::nnue`) on the farm's
//! Parquet positions, warm-started from the best's network, and makes the parameter set that
//! names the new one (`eval = "nnue:<sha256>"`, the base's search parameters).
//!
//! Every network it makes or starts from is kept by id, `<networks>/<sha256>.xqnn`, so the
//! next iteration warm-starts from the best's file and the campaign can give the farm any
//! network a variant names. An iteration's files go beside its `tuned.toml`: `network.xqnn`,
//! its manifest `network.json`, and a checkpoint after every epoch, from which an
//! interrupted training resumes.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use analysis::nnue::checkpoint::checkpoint_path;
use analysis::nnue::data::DataFilter;
use analysis::nnue::run::{DEFAULT_CHECK_POSITIONS, Event, RunConfig, RunOutcome, train_network};
use analysis::nnue::{CONTRACT_CP, TrainConfig};
use engine::nnue::{Network, NetworkId};
use engine::{EvalSpec, ParamSet};
use proto::domain::RunId;

use crate::error::{Error, Result};
use crate::tuner::{Tuner, Tuning};

/// Hears the trainer's events (a progress bar, say).
pub type TrainObserver = Arc<dyn for<'a> Fn(&Event<'a>) + Send + Sync>;

/// Trains networks over a coordinator's data directory, on the blocking pool.
#[derive(Clone)]
pub struct NnueTuner {
    /// The coordinator's data directory (its `positions/` table).
    pub data: PathBuf,
    /// Where networks are kept by id.
    pub networks: PathBuf,
    /// The filters; its `runs` are added to the campaign's data runs of each call (positions
    /// the farm had before the campaign, say).
    pub filter: DataFilter,
    /// The training settings; the hidden size is the warm start's when there is one.
    pub train: TrainConfig,
    /// AdamW's base learning rate when training warm-starts from the best's network (the
    /// fresh rate, `train.learning_rate`, undoes what the network knew: measured in
    /// `engine/EVAL.md`, experiment 2).
    pub warm_learning_rate: f64,
    /// For the manifest.
    pub command_line: String,
    pub on_event: Option<TrainObserver>,
}

impl std::fmt::Debug for NnueTuner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NnueTuner").field("data", &self.data).field("networks", &self.networks).finish_non_exhaustive()
    }
}

impl NnueTuner {
    /// Where network `id` is kept.
    pub fn file_of(&self, id: &NetworkId) -> PathBuf {
        self.networks.join(format!("{id}.xqnn"))
    }

    /// Keeps a network file's bytes (a start network, say) once the engine's reader accepts
    /// them: its id.
    pub fn keep(&self, bytes: &[u8]) -> Result<NetworkId> {
        let id = NetworkId::of_file(bytes);
        let path = self.file_of(&id);
        Network::from_bytes(bytes).map_err(|e| Error::file(&path, format!("not a network: {e}")))?;
        std::fs::create_dir_all(&self.networks).map_err(|e| Error::file(&self.networks, e))?;
        if !path.is_file() {
            let tmp = path.with_extension("xqnn.tmp");
            std::fs::write(&tmp, bytes).map_err(|e| Error::file(&tmp, e))?;
            std::fs::rename(&tmp, &path).map_err(|e| Error::file(&path, e))?;
        }
        Ok(id)
    }

    /// The run's settings for `base` on `runs`, writing into `dir`.
    fn run_config(&self, base: &ParamSet, runs: &[RunId], dir: &Path) -> Result<RunConfig> {
        let warm_start = match base.eval_spec {
            EvalSpec::Nnue(id) => {
                let path = self.file_of(&id);
                if !path.is_file() {
                    return Err(Error::file(&path, "the best's network is not kept here: nothing to warm-start from"));
                }
                Some(path)
            }
            EvalSpec::Hce => None,
        };
        let (hidden, learning_rate) = match &warm_start {
            Some(path) => (Network::load(path).map_err(|e| Error::file(path, e))?.hidden(), self.warm_learning_rate),
            None => (self.train.hidden, self.train.learning_rate),
        };
        let mut filter = self.filter.clone();
        filter.runs.extend(runs.iter().map(|r| r.get()));
        filter.runs.sort_unstable();
        filter.runs.dedup();
        // A checkpoint belongs to the training of one base on one set of runs under one set of
        // settings: another gets a directory of its own rather than a refusal to resume.
        let checkpoint = dir.join(format!("checkpoint-{:016x}", fingerprint(base, &filter.runs, &self.settings())));
        let resume = checkpoint_path(&checkpoint).is_file();
        Ok(RunConfig {
            data: self.data.clone(),
            filter,
            train: TrainConfig { hidden, learning_rate, ..self.train.clone() },
            out: dir.join("network.xqnn"),
            checkpoint: Some(checkpoint),
            resume,
            warm_start,
            stop_after: None,
            check_positions: DEFAULT_CHECK_POSITIONS,
            command_line: self.command_line.clone(),
            threads: rayon_threads(),
        })
    }
}

fn rayon_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// FNV-1a of the base's parameter file, the runs and the settings.
fn fingerprint(base: &ParamSet, runs: &[u64], settings: &str) -> u64 {
    let mut text = format!("{settings}\n{}", base.to_toml());
    for run in runs {
        text.push_str(&format!(",{run}"));
    }
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3))
}

impl Tuner for NnueTuner {
    async fn tune(&self, base: &ParamSet, runs: &[RunId], out: &Path) -> Result<Tuning> {
        let dir = out.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new(".")).to_owned();
        std::fs::create_dir_all(&dir).map_err(|e| Error::file(&dir, e))?;
        let config = self.run_config(base, runs, &dir)?;
        let on_event = self.on_event.clone();
        let outcome = tokio::task::spawn_blocking(move || {
            train_network(&config, |event| {
                if let Some(f) = &on_event {
                    f(&event)
                }
            })
        })
        .await
        .map_err(|e| Error::Task { what: "the training task", reason: e.to_string() })??;
        if !outcome.check.within_contract() {
            return Err(Error::file(
                &outcome.network,
                format!(
                    "quantisation check: the engine's evaluation differs from the float model's by up to {:.2} cp \
                     (contract: {CONTRACT_CP} cp)",
                    outcome.check.max_abs_cp
                ),
            ));
        }
        let bytes = std::fs::read(&outcome.network).map_err(|e| Error::file(&outcome.network, e))?;
        let id = self.keep(&bytes)?;
        let params = ParamSet { eval_spec: EvalSpec::Nnue(id), ..base.clone() };
        std::fs::write(out, params.to_toml()).map_err(|e| Error::file(out, e))?;
        Ok(tuning_of(&outcome, params))
    }

    fn network(&self, id: &NetworkId) -> Result<Vec<u8>> {
        let path = self.file_of(id);
        std::fs::read(&path).map_err(|e| Error::file(&path, e))
    }

    fn needs_timed_sprts(&self) -> bool {
        true
    }

    fn settings(&self) -> String {
        format!("nnue {:?} {:?} warm learning rate {}", self.filter, self.train, self.warm_learning_rate)
    }
}

/// The campaign's view of a training: `K` is the fitted score scale; the losses are those of
/// the starting weights and of the network as written.
pub fn tuning_of(o: &RunOutcome, params: ParamSet) -> Tuning {
    let end_train = o.history.last().map_or(f64::NAN, |r| r.train_loss);
    Tuning {
        params,
        train_positions: o.train_positions,
        validation_positions: o.validation_positions,
        k: o.k,
        start_loss: o.start_loss,
        end_loss: (end_train, o.network_validation_loss),
        summary: format!(
            "network: {}\n\
             positions: {} read, {} kept: {} train / {} validation\n\
             K = {:.4}; {} epochs{}: validation loss {:.6} -> {:.6} (network as written)\n\
             quantisation check on {} held-out positions: max {:.2} cp (contract {CONTRACT_CP} cp)\n\
             time: {:.1} s loading, {:.1} s training\n",
            o.sha256,
            o.counts.rows,
            o.counts.kept,
            o.train_positions,
            o.validation_positions,
            o.k,
            o.history.len(),
            o.resumed_from.map(|e| format!(" (resumed after {e})")).unwrap_or_default(),
            o.start_loss.1,
            o.network_validation_loss,
            o.check.positions,
            o.check.max_abs_cp,
            o.load_seconds,
            o.train_seconds,
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tuner(dir: &Path) -> NnueTuner {
        NnueTuner {
            data: dir.join("data"),
            networks: dir.join("networks"),
            filter: DataFilter { runs: vec![7], ..DataFilter::default() },
            train: TrainConfig { hidden: 32, ..TrainConfig::default() },
            warm_learning_rate: 1e-4,
            command_line: "test".into(),
            on_event: None,
        }
    }

    #[test]
    fn networks_are_kept_by_id_and_junk_is_refused() {
        let dir = tempfile::tempdir().expect("a directory");
        let tuner = tuner(dir.path());
        let bytes = Network::random(3, 16).to_bytes();
        let id = tuner.keep(&bytes).expect("a network");
        assert_eq!(id, NetworkId::of_file(&bytes));
        assert_eq!(tuner.network(&id).expect("kept"), bytes);
        let error = tuner.keep(b"not a network").expect_err("junk").to_string();
        assert!(error.contains("not a network"), "{error}");
        let other = NetworkId::of_file(b"x");
        assert!(tuner.network(&other).expect_err("never kept").to_string().contains(&other.to_string()));
    }

    #[test]
    fn a_network_base_warm_starts_from_its_file_and_adds_the_campaigns_runs() {
        let dir = tempfile::tempdir().expect("a directory");
        let tuner = tuner(dir.path());
        let hce = tuner.run_config(&ParamSet::default(), &[RunId::new(2)], dir.path()).expect("fresh");
        assert_eq!((hce.warm_start.clone(), hce.train.hidden, hce.resume), (None, 32, false));
        assert_eq!(hce.train.learning_rate, TrainConfig::default().learning_rate, "the fresh rate from scratch");
        assert_eq!(hce.filter.runs, [2, 7]);
        let id = tuner.keep(&Network::random(3, 16).to_bytes()).expect("kept");
        let base = ParamSet { eval_spec: EvalSpec::Nnue(id), ..ParamSet::default() };
        let warm = tuner.run_config(&base, &[RunId::new(2), RunId::new(7)], dir.path()).expect("warm");
        assert_eq!(warm.warm_start, Some(tuner.file_of(&id)));
        assert_eq!(warm.train.hidden, 16, "the warm start's hidden size");
        assert_eq!(warm.train.learning_rate, 1e-4, "the warm rate");
        assert_eq!(warm.filter.runs, [2, 7]);
        assert_ne!(warm.checkpoint, hce.checkpoint, "another base trains in a checkpoint of its own");
        let slower = NnueTuner { warm_learning_rate: 3e-5, ..tuner.clone() };
        let other = slower.run_config(&base, &[RunId::new(2), RunId::new(7)], dir.path()).expect("warm");
        assert_ne!(other.checkpoint, warm.checkpoint, "other settings train in a checkpoint of their own");
        let missing = ParamSet { eval_spec: EvalSpec::Nnue(NetworkId::of_file(b"gone")), ..ParamSet::default() };
        let error = tuner.run_config(&missing, &[], dir.path()).expect_err("no file").to_string();
        assert!(error.contains("nothing to warm-start from"), "{error}");
    }
}
