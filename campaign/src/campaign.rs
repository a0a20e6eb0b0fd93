//! The loop: self-play with the current best, tune on every self-play position so far, SPRT
//! of the tuned set against the best, promote on H1; repeat.

use std::path::PathBuf;
use std::time::Instant;

use engine::eval::Params;
use proto::domain::{
    Adjudication, LiveStats, RunId, RunKind, RunSpec, RunState, RunStatus, SprtSettings, SuiteId, TimeControl,
    VariantId,
};

use crate::error::{Error, Result};
use crate::farm::{Farm, games};
use crate::tuner::{Tuner, Tuning};
use crate::{summary, text};

/// What a campaign does.
#[derive(Clone, Debug, PartialEq)]
pub struct CampaignConfig {
    /// Where each iteration's files (`iteration-N/`) and the summary go.
    pub dir: PathBuf,
    /// Tune-and-verify iterations (at least one).
    pub iterations: usize,
    /// Self-play game pairs per iteration.
    pub pairs: u64,
    /// Self-play's and the SPRT's time control.
    pub tc: TimeControl,
    /// Sample one position in this many plies of the self-play games.
    pub sample_every: u32,
    /// The SPRT of tuned against best.
    pub sprt: SprtSettings,
    /// Stop an SPRT without a verdict after this many games (no promotion).
    pub max_games: u64,
}

impl CampaignConfig {
    /// Every setting checked, named when wrong.
    pub fn validate(&self) -> Result<()> {
        let bad = |name, reason: &str| Err(Error::Setting { name, reason: reason.to_owned() });
        if self.iterations == 0 {
            return bad("iterations", "0: nothing to do");
        }
        if self.pairs == 0 {
            return bad("pairs", "self-play needs at least one pair");
        }
        if self.max_games == 0 {
            return bad("max_games", "an SPRT needs at least one game");
        }
        self.sprt.validate().map_err(|e| Error::Setting { name: "sprt", reason: e.to_string() })
    }
}

/// How an iteration's SPRT ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The tuned set is better: promoted.
    H1,
    H0,
    /// Stopped at `max_games` (or otherwise) without a verdict.
    Cap,
}

impl Verdict {
    pub fn of(state: &RunState) -> Verdict {
        match state {
            RunState::SprtDone { h1: true } => Verdict::H1,
            RunState::SprtDone { h1: false } => Verdict::H0,
            _ => Verdict::Cap,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::H1 => "H1",
            Verdict::H0 => "H0",
            Verdict::Cap => "no verdict (cap)",
        }
    }
}

/// One iteration's outcome.
#[derive(Clone, Debug, PartialEq)]
pub struct Iteration {
    pub index: usize,
    pub selfplay_run: RunId,
    pub selfplay_games: u64,
    pub tuning: Tuning,
    pub sprt_run: RunId,
    /// The SPRT's statistics (tuned against best).
    pub sprt: LiveStats,
    pub verdict: Verdict,
    /// The best's name after the iteration.
    pub best_name: String,
    pub minutes: f64,
}

impl Iteration {
    pub fn promoted(&self) -> bool {
        self.verdict == Verdict::H1
    }
}

/// A finished campaign.
#[derive(Clone, Debug, PartialEq)]
pub struct Outcome {
    pub iterations: Vec<Iteration>,
    pub best: Params,
    /// `start`, or the last promoted `tuned-N`.
    pub best_name: String,
}

/// `params` with the tempo weight one centipawn higher. At fixed nodes two identical engines
/// play the colour-swapped game of a pair as the mirror image of the first; the twin's tempo
/// differs by 1 cp so it does not.
pub fn twin(params: &Params) -> Result<Params> {
    let mut twin = params.clone();
    let i = Params::index_of("tempo.mg")
        .ok_or_else(|| Error::Setting { name: "params", reason: "no tempo.mg parameter".into() })?;
    twin.set_clamped(i, i64::from(params.get(i)) + 1);
    Ok(twin)
}

/// An SPRT of `candidate` against `base` on the suite `openings`, positions sampled every 8
/// plies.
pub fn sprt_spec(
    name: String,
    sprt: SprtSettings,
    candidate: VariantId,
    base: VariantId,
    tc: TimeControl,
    openings: SuiteId,
) -> RunSpec {
    RunSpec {
        name,
        kind: RunKind::Sprt(sprt),
        variants: vec![candidate, base],
        tc,
        openings,
        adjudication: Adjudication::default(),
        bench_signature: None,
        sample_every: 8,
    }
}

/// Runs the campaign from `start` over `openings`, writing `iteration-N/sprt.txt` and the
/// summary ([`summary::write`]) after every iteration. `note` hears one line per step.
pub async fn run(
    farm: &impl Farm,
    tuner: &impl Tuner,
    config: &CampaignConfig,
    start: Params,
    openings: Vec<String>,
    note: &mut dyn FnMut(&str),
) -> Result<Outcome> {
    config.validate()?;
    std::fs::create_dir_all(&config.dir).map_err(|e| Error::file(&config.dir, e))?;
    let tc = config.tc;
    let suite = farm.add_suite("loop-openings", openings).await?;
    let mut best = start;
    // The current best is a variant of its own name (`start`, then the promoted `tuned-N`),
    // so every SPRT links to the last and the rating list spans the campaign.
    let mut best_name = "start".to_owned();
    let mut selfplay_runs = Vec::new();
    let mut done: Vec<Iteration> = Vec::new();
    for index in 1..=config.iterations {
        let started = Instant::now();
        // 1. Self-play with the current best parameters.
        let a = farm.add_params_variant(&best_name, &best.clone().into()).await?;
        let b = farm.add_params_variant(&format!("{best_name}-twin"), &twin(&best)?.into()).await?;
        let spec = RunSpec {
            name: format!("self-play {index}"),
            kind: RunKind::Games { pairs: config.pairs },
            variants: vec![a.clone(), b],
            tc,
            openings: suite,
            adjudication: Adjudication::default(),
            bench_signature: None,
            sample_every: config.sample_every,
        };
        let selfplay = farm.create_run(spec).await?;
        note(&format!("iteration {index}: self-play run {selfplay}, {} pairs at {tc}", config.pairs));
        let status = farm.wait_finished(selfplay, None).await?;
        let selfplay_games = games(&status);
        // The tuner reads Parquet: wait for the exporter to say every game is there.
        farm.wait_exported(selfplay, selfplay_games).await?;
        selfplay_runs.push(selfplay);

        // 2. Tune on every self-play position so far.
        let iter_dir = config.dir.join(format!("iteration-{index}"));
        std::fs::create_dir_all(&iter_dir).map_err(|e| Error::file(&iter_dir, e))?;
        let tuning = tuner.tune(&best, &selfplay_runs, &iter_dir.join("tuned.toml")).await?;
        note(&tuning.summary);

        // 3. SPRT of the tuned set against the current best.
        let tuned_name = format!("tuned-{index}");
        let tuned = farm.add_params_variant(&tuned_name, &tuning.params.clone().into()).await?;
        let name = format!("{tuned_name} vs {best_name}");
        let sprt_run = farm.create_run(sprt_spec(name, config.sprt, tuned, a, tc, suite)).await?;
        note(&format!(
            "iteration {index}: SPRT[{}, {}] run {sprt_run} of {tuned_name} against {best_name}",
            config.sprt.elo0, config.sprt.elo1
        ));
        let status = farm.wait_finished(sprt_run, Some(config.max_games)).await?;
        let verdict = Verdict::of(&status.run.state);
        let live = sprt_stats(&status)?;
        if verdict == Verdict::H1 {
            best = tuning.params.clone();
            best_name = tuned_name;
        }
        let path = iter_dir.join("sprt.txt");
        std::fs::write(&path, text::summary(&status)).map_err(|e| Error::file(&path, e))?;
        let iteration = Iteration {
            index,
            selfplay_run: selfplay,
            selfplay_games,
            tuning,
            sprt_run,
            sprt: live,
            verdict,
            best_name: best_name.clone(),
            minutes: started.elapsed().as_secs_f64() / 60.0,
        };
        note(&format!(
            "iteration {index}: {}, tuned vs best {:+.1} ± {:.1} Elo over {} games{}",
            verdict.as_str(),
            live.elo,
            (live.elo_upper - live.elo_lower) / 2.0,
            live.counts.games(),
            if iteration.promoted() { " — promoted" } else { "" }
        ));
        done.push(iteration);
        summary::write(&config.dir, &done, &best)?;
    }
    Ok(Outcome { iterations: done, best, best_name })
}

fn sprt_stats(status: &RunStatus) -> Result<LiveStats> {
    status
        .live
        .first()
        .copied()
        .ok_or_else(|| Error::Run { run: status.run.id, reason: "the SPRT has no statistics".into() })
}
