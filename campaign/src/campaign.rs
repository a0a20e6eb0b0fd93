//! The loop: self-play (or data generation) with the current best, tune (or train a network)
//! on every position so far, SPRT of the tuned set against the best and, once the best is no
//! longer the start, a shorter non-regression SPRT of it against the start (the fixed anchor);
//! promote when both accept H1; repeat.
//!
//! It resumes: every run it asks for is found again by its spec when the farm already has one
//! (variants and suites are named by content, so the same spec is the same experiment), and a
//! tuning whose `tuning.json` says it was made from the same base, runs and tuner settings is
//! read back instead of repeated. Run again on the same directory and farm, an interrupted campaign goes on where
//! it stopped, and a finished one with more `iterations` goes on from its last iteration.

use std::path::PathBuf;
use std::time::Instant;

use engine::eval::Params;
use engine::{EvalSpec, ParamSet};
use proto::domain::{
    Adjudication, DatagenSettings, EloModel, LiveStats, RunId, RunKind, RunSpec, RunState, RunStatus, SprtSettings,
    SuiteId, TimeControl, VariantId,
};

use crate::error::{Error, Result};
use crate::farm::{Farm, games};
use crate::tuner::{Tuner, Tuning};
use crate::{resume, summary, text};

/// What a campaign does.
#[derive(Clone, Debug, PartialEq)]
pub struct CampaignConfig {
    /// Where each iteration's files (`iteration-N/`) and the summary go.
    pub dir: PathBuf,
    /// Tune-and-verify iterations (at least one).
    pub iterations: usize,
    /// Self-play (or data generation) game pairs per iteration.
    pub pairs: u64,
    /// The SPRTs' time control (and self-play's, with [`Positions::SelfPlay`]).
    pub tc: TimeControl,
    /// How an iteration makes the positions the tuner reads.
    pub positions: Positions,
    /// The SPRT of tuned against best.
    pub sprt: SprtSettings,
    /// Stop an SPRT without a verdict after this many games (no promotion).
    pub max_games: u64,
    /// The non-regression SPRT of a tuned set that beat the best against the start, run when
    /// the best is not the start itself ([`DEFAULT_ANCHOR`]).
    pub anchor: SprtSettings,
    /// Stop the anchor SPRT without a verdict after this many games (no promotion).
    pub anchor_max_games: u64,
}

/// The anchor's bounds: a non-regression test shaped as Fishtest shapes its own (it ran
/// simplifications at [-3, 1] for years, and runs them at nElo [-1.75, 0.25] today, beside
/// [0, 2] for gainers): elo1 just above zero, so H1 means "not measurably worse than the
/// start", elo0 a few Elo below it, so a tuned set that lost 3 nElo to the start is kept out
/// with 95% confidence. Its cost falls as the gain over the start grows: by the farm's own LLR
/// (`xqfarm stats`) on a pentanomial of 40% balanced pairs, it needs about 1,250 games at +53
/// Elo over the start and 610 at +129, against 540 and 250 for the [0, 10] SPRT; tuned sets
/// the loop promotes gain +100 or more over the start.
pub const DEFAULT_ANCHOR: SprtSettings =
    SprtSettings { elo0: -3.0, elo1: 1.0, alpha: 0.05, beta: 0.05, model: EloModel::Normalized };

/// The anchor's default game cap, half the loop's default SPRT cap (6000): about 1,830 games
/// are expected at +35 Elo over the start, so a cap there leaves little room for the SPRT's
/// spread; at 3000 a tuned set 50 Elo above the start is rarely stopped without a verdict.
pub const DEFAULT_ANCHOR_MAX_GAMES: u64 = 3000;

/// How an iteration makes its positions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Positions {
    /// The best against its twin ([`twin`]) at the SPRTs' time control, one position sampled
    /// in `sample_every` plies: the Texel loop's data.
    SelfPlay { sample_every: u32 },
    /// A datagen run of the best alone at `tc` (fixed nodes, so the data does not depend on a
    /// worker's speed), every position recorded, `random_plies` random moves after each
    /// opening: the network loop's data.
    Datagen { tc: TimeControl, random_plies: u32 },
}

/// The name the start parameters' variant has.
const START: &str = "start";

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
        if self.anchor_max_games == 0 {
            return bad("anchor_max_games", "the anchor SPRT needs at least one game");
        }
        if let Positions::Datagen { random_plies, .. } = self.positions {
            DatagenSettings { pairs: self.pairs, random_plies }
                .validate()
                .map_err(|e| Error::Setting { name: "random_plies", reason: e.to_string() })?;
        }
        self.sprt.validate().map_err(|e| sprt_setting(e, ["elo0", "elo1", "alpha", "beta", "sprt"]))?;
        self.anchor
            .validate()
            .map_err(|e| sprt_setting(e, ["anchor_elo0", "anchor_elo1", "anchor_alpha", "anchor_beta", "anchor"]))
    }
}

/// An SPRT design error as a setting named by its field: `names` are the settings of elo0,
/// elo1, alpha, beta and the design as a whole.
fn sprt_setting(error: proto::Error, names: [&'static str; 5]) -> Error {
    let name = match error.field() {
        Some("elo0") => names[0],
        Some("elo1") => names[1],
        Some("alpha") => names[2],
        Some("beta") => names[3],
        _ => names[4],
    };
    Error::Setting { name, reason: error.to_string() }
}

/// How an iteration's SPRT ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The tuned set is better: promoted.
    H1,
    H0,
    /// Stopped at its game cap (or otherwise) without a verdict.
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

/// The anchor SPRT of an iteration: its tuned set against the start.
#[derive(Clone, Debug, PartialEq)]
pub struct Anchor {
    pub run: RunId,
    /// Its statistics (tuned against the start).
    pub stats: LiveStats,
    pub verdict: Verdict,
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
    /// The best's name before the iteration: what the tuned set was tested against.
    pub base_name: String,
    /// The anchor SPRT against the start, run when the SPRT accepted H1 and the best was
    /// not the start.
    pub anchor: Option<Anchor>,
    /// The best's name after the iteration.
    pub best_name: String,
    pub minutes: f64,
}

impl Iteration {
    /// The SPRT accepted H1, and so did the anchor where one ran.
    pub fn promoted(&self) -> bool {
        promotes(self.verdict, self.anchor.as_ref())
    }

    /// The tuned set's Elo over the start, measured in one match against it: iteration 1's
    /// SPRT or the anchor (`None` without either).
    pub fn measured_over_start(&self) -> Option<&LiveStats> {
        match &self.anchor {
            Some(anchor) => Some(&anchor.stats),
            None if self.base_name == START => Some(&self.sprt),
            None => None,
        }
    }
}

fn promotes(verdict: Verdict, anchor: Option<&Anchor>) -> bool {
    verdict == Verdict::H1 && anchor.is_none_or(|a| a.verdict == Verdict::H1)
}

/// A finished campaign.
#[derive(Clone, Debug, PartialEq)]
pub struct Outcome {
    pub iterations: Vec<Iteration>,
    /// The tuned evaluation of the best with the start's search parameters.
    pub best: ParamSet,
    /// `start`, or the last promoted `tuned-N`.
    pub best_name: String,
}

/// `params` with the tempo weight one centipawn higher (the search parameters the same). At
/// fixed nodes two identical engines play the colour-swapped game of a pair as the mirror
/// image of the first; the twin's tempo differs by 1 cp so it does not.
pub fn twin(params: &ParamSet) -> Result<ParamSet> {
    let mut twin = params.clone();
    let i = Params::index_of("tempo.mg")
        .ok_or_else(|| Error::Setting { name: "params", reason: "no tempo.mg parameter".into() })?;
    twin.eval.set_clamped(i, i64::from(params.eval.get(i)) + 1);
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

/// Runs the campaign from `start` over `openings`, writing `iteration-N/sprt.txt` (and
/// `anchor.txt` where the anchor ran) and the summary ([`summary::write`]) after every
/// iteration. The tuner tunes the evaluation (or trains a network); every tuned set keeps the
/// start's search parameters. `note` hears one line per step.
pub async fn run(
    farm: &impl Farm,
    tuner: &impl Tuner,
    config: &CampaignConfig,
    start: ParamSet,
    openings: Vec<String>,
    note: &mut dyn FnMut(&str),
) -> Result<Outcome> {
    config.validate()?;
    if tuner.needs_timed_sprts() && matches!(config.tc, TimeControl::Nodes(_) | TimeControl::Depth(_)) {
        return Err(Error::Setting {
            name: "tc",
            reason: format!(
                "{}: a network costs another time per node than the HCE, so equal nodes are not equal work: \
                 its SPRTs play at a movetime or a clock",
                config.tc
            ),
        });
    }
    std::fs::create_dir_all(&config.dir).map_err(|e| Error::file(&config.dir, e))?;
    let tc = config.tc;
    let suite = farm.add_suite("loop-openings", openings).await?;
    // The anchor every later tuned set must not lose to.
    upload_network(farm, tuner, &start).await?;
    let start_variant = farm.add_params_variant(START, &start).await?;
    let mut best = start;
    // The current best is a variant of its own name (`start`, then the promoted `tuned-N`),
    // so every SPRT links to the last and the rating list spans the campaign.
    let mut best_name = START.to_owned();
    let mut data_runs = Vec::new();
    let mut done: Vec<Iteration> = Vec::new();
    for index in 1..=config.iterations {
        let started = Instant::now();
        // 1. Self-play (or data generation) with the current best parameters.
        let a = farm.add_params_variant(&best_name, &best).await?;
        let spec = match config.positions {
            Positions::SelfPlay { sample_every } => {
                let b = farm.add_params_variant(&format!("{best_name}-twin"), &twin(&best)?).await?;
                RunSpec {
                    name: format!("self-play {index}"),
                    kind: RunKind::Games { pairs: config.pairs },
                    variants: vec![a.clone(), b],
                    tc,
                    openings: suite,
                    adjudication: Adjudication::default(),
                    bench_signature: None,
                    sample_every,
                }
            }
            Positions::Datagen { tc: data_tc, random_plies } => RunSpec {
                name: format!("datagen {index}"),
                kind: RunKind::Datagen(DatagenSettings { pairs: config.pairs, random_plies }),
                variants: vec![a.clone()],
                tc: data_tc,
                openings: suite,
                adjudication: Adjudication::default(),
                bench_signature: None,
                sample_every: 1,
            },
        };
        let what = format!("{} pairs at {}", config.pairs, spec.tc);
        let kind = if matches!(spec.kind, RunKind::Datagen(_)) { "datagen" } else { "self-play" };
        let selfplay = start_run(farm, spec, note).await?;
        note(&format!("iteration {index}: {kind} run {selfplay}, {what}"));
        let status = farm.wait_finished(selfplay, None).await?;
        let selfplay_games = games(&status);
        // The tuner reads Parquet: wait for the exporter to say every game is there.
        farm.wait_exported(selfplay, selfplay_games).await?;
        data_runs.push(selfplay);

        // 2. Tune on every position so far (or read back the tuning this directory holds).
        let iter_dir = config.dir.join(format!("iteration-{index}"));
        std::fs::create_dir_all(&iter_dir).map_err(|e| Error::file(&iter_dir, e))?;
        let settings = tuner.settings();
        let tuning = match resume::read(&iter_dir, &best, &data_runs, &settings)? {
            Some(tuning) => {
                note(&format!("iteration {index}: the tuning in {} is read back", iter_dir.display()));
                tuning
            }
            None => {
                let tuning = tuner.tune(&best, &data_runs, &iter_dir.join("tuned.toml")).await?;
                resume::write(&iter_dir, &best, &data_runs, &settings, &tuning)?;
                tuning
            }
        };
        note(&tuning.summary);

        // 3. SPRT of the tuned set against the current best.
        let tuned_name = format!("tuned-{index}");
        upload_network(farm, tuner, &tuning.params).await?;
        let tuned = farm.add_params_variant(&tuned_name, &tuning.params).await?;
        let name = format!("{tuned_name} vs {best_name}");
        let sprt_run = start_run(farm, sprt_spec(name, config.sprt, tuned.clone(), a, tc, suite), note).await?;
        note(&format!(
            "iteration {index}: SPRT[{}, {}] run {sprt_run} of {tuned_name} against {best_name}",
            config.sprt.elo0, config.sprt.elo1
        ));
        let status = farm.wait_finished(sprt_run, Some(config.max_games)).await?;
        let verdict = Verdict::of(&status.run.state);
        let live = sprt_stats(&status)?;
        let path = iter_dir.join("sprt.txt");
        std::fs::write(&path, text::summary(&status)).map_err(|e| Error::file(&path, e))?;

        // 4. The anchor: a tuned set that beat a best other than the start must also not
        // lose to the start (iteration 1's SPRT already is against it).
        let anchor = if verdict == Verdict::H1 && best_name != START {
            let name = format!("{tuned_name} vs {START} (anchor)");
            let spec = sprt_spec(name, config.anchor, tuned, start_variant.clone(), tc, suite);
            let run = start_run(farm, spec, note).await?;
            note(&format!(
                "iteration {index}: anchor SPRT[{}, {}] run {run} of {tuned_name} against {START}",
                config.anchor.elo0, config.anchor.elo1
            ));
            let status = farm.wait_finished(run, Some(config.anchor_max_games)).await?;
            let path = iter_dir.join("anchor.txt");
            std::fs::write(&path, text::summary(&status)).map_err(|e| Error::file(&path, e))?;
            Some(Anchor { run, stats: sprt_stats(&status)?, verdict: Verdict::of(&status.run.state) })
        } else {
            None
        };

        let base_name = best_name.clone();
        if promotes(verdict, anchor.as_ref()) {
            best = tuning.params.clone();
            best_name = tuned_name.clone();
        }
        let iteration = Iteration {
            index,
            selfplay_run: selfplay,
            selfplay_games,
            tuning,
            sprt_run,
            sprt: live,
            verdict,
            base_name,
            anchor,
            best_name: best_name.clone(),
            minutes: started.elapsed().as_secs_f64() / 60.0,
        };
        note(&format!("iteration {index}: {}", verdict_line(&tuned_name, &iteration)));
        done.push(iteration);
        summary::write(&config.dir, &done, &best)?;
    }
    Ok(Outcome { iterations: done, best, best_name })
}

/// The run of `spec` the farm already has (an earlier, interrupted campaign's), or a new one.
async fn start_run(farm: &impl Farm, spec: RunSpec, note: &mut dyn FnMut(&str)) -> Result<RunId> {
    if let Some(run) = farm.find_run(&spec).await? {
        note(&format!("run {run} ({}) is this step's: resumed", spec.name));
        return Ok(run);
    }
    farm.create_run(spec).await
}

/// Gives the farm the network `params` names, if any (from the tuner that made it), before a
/// variant names it.
async fn upload_network(farm: &impl Farm, tuner: &impl Tuner, params: &ParamSet) -> Result<()> {
    let EvalSpec::Nnue(id) = params.eval_spec else { return Ok(()) };
    let stored = farm.add_network(tuner.network(&id)?).await?;
    if stored != id {
        return Err(Error::Setting {
            name: "network",
            reason: format!("the farm stored network {id} as {stored}: the file is not the one the parameters name"),
        });
    }
    Ok(())
}

/// `tuned-2 vs tuned-1 +30.0 ± 9.1 Elo over 2400 games: H1; anchor vs start +126.0 ± 30.2
/// Elo over 310 games: H1 — promoted`.
fn verdict_line(tuned_name: &str, it: &Iteration) -> String {
    let mut line = format!("{tuned_name} vs {} {}: {}", it.base_name, elo_text(&it.sprt), it.verdict.as_str());
    if let Some(anchor) = &it.anchor {
        line.push_str(&format!("; anchor vs {START} {}: {}", elo_text(&anchor.stats), anchor.verdict.as_str()));
    }
    line.push_str(if it.promoted() { " — promoted" } else { " — not promoted" });
    line
}

/// `+30.0 ± 9.1 Elo over 2400 games`.
fn elo_text(live: &LiveStats) -> String {
    format!("{:+.1} ± {:.1} Elo over {} games", live.elo, (live.elo_upper - live.elo_lower) / 2.0, live.counts.games())
}

fn sprt_stats(status: &RunStatus) -> Result<LiveStats> {
    status
        .live
        .first()
        .copied()
        .ok_or_else(|| Error::Run { run: status.run.id, reason: "the SPRT has no statistics".into() })
}
