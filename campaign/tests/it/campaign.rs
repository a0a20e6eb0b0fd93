//! The campaign against a scripted farm and tuner, no network: promotion on H1 only (and,
//! once the best is not the start, on the anchor's H1 against the start too), the chain of
//! best names, the order of waits (the tuner never runs before the self-play games are
//! exported), the search parameters a start carries, and the files it leaves.

use std::cell::RefCell;
use std::collections::HashMap;
use std::path::Path;

use campaign::{CampaignConfig, Farm, Iteration, Positions, Tuner, Tuning, Verdict};
use engine::eval::Params;
use engine::nnue::NetworkId;
use engine::{EvalSpec, ParamSet};
use proto::domain::{
    LiveStats, PairingStats, Run, RunId, RunKind, RunSpec, RunState, RunStatus, SprtProgress, SprtSettings, SuiteId,
    TimeControl, VariantId,
};

/// What the fake farm saw, in order.
#[derive(Clone, Debug, PartialEq)]
enum Seen {
    Variant(String),
    Run { id: RunId, name: String, variants: Vec<String> },
    Finished(RunId, Option<u64>),
    Exported(RunId, u64),
    Tuned { runs: Vec<RunId>, base: String },
    Network(NetworkId),
}

struct FakeFarm {
    /// The SPRTs' endings, in order.
    verdicts: RefCell<Vec<RunState>>,
    /// Variant id → name.
    names: RefCell<HashMap<VariantId, String>>,
    /// Variant name → its parameter file, as the farm received it.
    tomls: RefCell<HashMap<String, String>>,
    specs: RefCell<Vec<RunSpec>>,
    seen: RefCell<Vec<Seen>>,
    /// Games each self-play run plays.
    selfplay_games: u64,
    /// The networks stored.
    networks: RefCell<Vec<NetworkId>>,
    /// Each run's final status once a wait saw it end.
    finished: RefCell<HashMap<RunId, RunStatus>>,
}

impl FakeFarm {
    fn new(verdicts: Vec<RunState>) -> FakeFarm {
        FakeFarm {
            verdicts: RefCell::new(verdicts.into_iter().rev().collect()),
            names: RefCell::default(),
            tomls: RefCell::default(),
            specs: RefCell::default(),
            seen: RefCell::default(),
            selfplay_games: 32,
            networks: RefCell::default(),
            finished: RefCell::default(),
        }
    }

    fn name_of(&self, id: &VariantId) -> String {
        self.names.borrow().get(id).cloned().unwrap_or_else(|| format!("unknown {id}"))
    }

    fn status(&self, run: RunId, state: RunState, games: u64) -> RunStatus {
        let spec = self.specs.borrow()[run.get() as usize - 1].clone();
        let half = games / 2;
        let counts = PairingStats { pentanomial: [0, 0, half, 0, 0], wins: 0, draws: games, losses: 0 };
        let live = LiveStats {
            counts,
            elo: if matches!(state, RunState::SprtDone { h1: true }) { 12.0 } else { -3.0 },
            elo_lower: -20.0,
            elo_upper: 20.0,
            nelo: 0.0,
            nelo_lower: -1.0,
            nelo_upper: 1.0,
            los: 0.5,
            sprt: Some(SprtProgress { llr: 1.5, lower_bound: -2.94, upper_bound: 2.94 }),
        };
        let run = Run { id: run, spec, state, stats: vec![counts], created_unix_ms: 0, tablebases: vec![] };
        RunStatus { run, live: vec![live], missing_engines: vec![], exported_games: 0, spsa: vec![], tournament: None }
    }
}

impl Farm for FakeFarm {
    async fn add_params_variant(&self, name: &str, params: &engine::ParamSet) -> campaign::Result<VariantId> {
        // Content-addressed, as the coordinator does: the same parameters are the same id.
        if let EvalSpec::Nnue(network) = params.eval_spec {
            assert!(
                self.networks.borrow().contains(&network),
                "variant {name} names network {network} before it is stored"
            );
        }
        let id = VariantId::new(format!("{}-{name}", hash(params)));
        self.names.borrow_mut().insert(id.clone(), name.to_owned());
        self.tomls.borrow_mut().insert(name.to_owned(), params.to_toml());
        self.seen.borrow_mut().push(Seen::Variant(name.to_owned()));
        Ok(id)
    }

    async fn add_suite(&self, _name: &str, openings: Vec<String>) -> campaign::Result<SuiteId> {
        assert!(!openings.is_empty());
        Ok(SuiteId::new(1))
    }

    async fn add_network(&self, bytes: Vec<u8>) -> campaign::Result<NetworkId> {
        let id = NetworkId::of_file(&bytes);
        self.networks.borrow_mut().push(id);
        self.seen.borrow_mut().push(Seen::Network(id));
        Ok(id)
    }

    async fn find_run(&self, spec: &RunSpec) -> campaign::Result<Option<RunId>> {
        let specs = self.specs.borrow();
        Ok(specs.iter().rposition(|s| s == spec).map(|i| RunId::new(i as u64 + 1)))
    }

    async fn create_run(&self, spec: RunSpec) -> campaign::Result<RunId> {
        let mut specs = self.specs.borrow_mut();
        specs.push(spec.clone());
        let id = RunId::new(specs.len() as u64);
        let variants = spec.variants.iter().map(|v| self.name_of(v)).collect();
        self.seen.borrow_mut().push(Seen::Run { id, name: spec.name, variants });
        Ok(id)
    }

    async fn wait_finished(&self, run: RunId, max_games: Option<u64>) -> campaign::Result<RunStatus> {
        self.seen.borrow_mut().push(Seen::Finished(run, max_games));
        if let Some(status) = self.finished.borrow().get(&run) {
            return Ok(status.clone());
        }
        let kind = self.specs.borrow()[run.get() as usize - 1].kind.clone();
        let status = match kind {
            RunKind::Games { .. } | RunKind::Datagen(_) => self.status(run, RunState::Completed, self.selfplay_games),
            RunKind::Sprt(_) => {
                let state = self.verdicts.borrow_mut().pop().expect("a scripted verdict for every SPRT");
                let games = if state == RunState::Stopped { max_games.expect("SPRTs are capped") } else { 40 };
                self.status(run, state, games)
            }
            other => panic!("the campaign runs no {other:?}"),
        };
        self.finished.borrow_mut().insert(run, status.clone());
        Ok(status)
    }

    async fn wait_exported(&self, run: RunId, games: u64) -> campaign::Result<()> {
        self.seen.borrow_mut().push(Seen::Exported(run, games));
        Ok(())
    }
}

/// A tuner that moves one weight by the iteration number, so every tuned set differs.
struct FakeTuner<'a> {
    farm: &'a FakeFarm,
    calls: RefCell<usize>,
    settings: String,
}

impl<'a> FakeTuner<'a> {
    fn new(farm: &'a FakeFarm, settings: &str) -> FakeTuner<'a> {
        FakeTuner { farm, calls: RefCell::new(0), settings: settings.into() }
    }
}

impl Tuner for FakeTuner<'_> {
    async fn tune(&self, base: &ParamSet, runs: &[RunId], out: &Path) -> campaign::Result<Tuning> {
        let mut calls = self.calls.borrow_mut();
        *calls += 1;
        // Which variant the base is: the farm knows it by its parameters' content.
        let base_name = self
            .farm
            .names
            .borrow()
            .iter()
            .filter(|(id, name)| !name.ends_with("-twin") && id.as_str().starts_with(&hash(base)))
            .map(|(_, name)| name.clone())
            .min()
            .unwrap_or_default();
        self.farm.seen.borrow_mut().push(Seen::Tuned { runs: runs.to_vec(), base: base_name });
        // Tunes the evaluation; the search parameters stay the base's, as the trait says.
        let mut params = base.clone();
        let i = Params::index_of("material.rook.mg").expect("a rook weight");
        params.eval.set_clamped(i, i64::from(base.eval.get(i)) + *calls as i64);
        std::fs::write(out, params.to_toml()).expect("tuned.toml");
        Ok(scripted_tuning(params, "tuned"))
    }

    fn settings(&self) -> String {
        self.settings.clone()
    }
}

/// The figures every scripted tuning reports, with its parameters.
fn scripted_tuning(params: ParamSet, summary: &str) -> Tuning {
    Tuning {
        params,
        train_positions: 100,
        validation_positions: 5,
        k: 1.1,
        start_loss: (0.2, 0.21),
        end_loss: (0.19, 0.2),
        summary: summary.into(),
    }
}

fn hash(params: &ParamSet) -> String {
    format!("{:016x}", params.to_toml().bytes().fold(0u64, |h, b| h.wrapping_mul(31) ^ u64::from(b)))
}

fn config(dir: &Path, iterations: usize) -> CampaignConfig {
    CampaignConfig {
        dir: dir.to_owned(),
        iterations,
        pairs: 16,
        tc: TimeControl::Nodes(400),
        positions: Positions::SelfPlay { sample_every: 2 },
        sprt: SprtSettings { elo0: 0.0, elo1: 10.0, ..SprtSettings::default() },
        max_games: 24,
        // Bounds and a cap of their own, unlike the defaults and the SPRT's, to be seen.
        anchor: SprtSettings { elo0: -4.0, elo1: 2.0, ..SprtSettings::default() },
        anchor_max_games: 10,
    }
}

/// What a campaign left: its outcome, what the farm saw, the notes and the farm itself.
struct Ran {
    outcome: campaign::Outcome,
    seen: Vec<Seen>,
    notes: Vec<String>,
    farm: FakeFarm,
}

/// A campaign of `iterations` from `start`, its SPRTs (anchors included) ending as
/// `verdicts` in order.
fn run_from(dir: &Path, iterations: usize, start: ParamSet, verdicts: Vec<RunState>) -> Ran {
    let farm = FakeFarm::new(verdicts);
    let tuner = FakeTuner::new(&farm, "texel");
    let (outcome, notes) = run_with(&farm, &tuner, &config(dir, iterations), start).expect("the campaign runs");
    assert!(farm.verdicts.borrow().is_empty(), "every scripted SPRT ran");
    let seen = farm.seen.borrow().clone();
    Ran { outcome, seen, notes, farm }
}

/// The campaign `config` on `farm` with `tuner`: its outcome and notes.
fn run_with(
    farm: &FakeFarm,
    tuner: &impl Tuner,
    config: &CampaignConfig,
    start: ParamSet,
) -> campaign::Result<(campaign::Outcome, Vec<String>)> {
    let mut notes = Vec::new();
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
    let outcome =
        runtime.block_on(campaign::run(farm, tuner, config, start, vec!["startpos".into()], &mut |line| {
            notes.push(line.to_owned())
        }))?;
    Ok((outcome, notes))
}

fn run_campaign(dir: &Path, verdicts: Vec<RunState>) -> (campaign::Outcome, Vec<Seen>, Vec<String>) {
    let ran = run_from(dir, verdicts.len(), ParamSet::default(), verdicts);
    (ran.outcome, ran.seen, ran.notes)
}

/// The runs the farm was asked for: (name, variant names).
fn runs_of(seen: &[Seen]) -> Vec<(String, Vec<String>)> {
    seen.iter()
        .filter_map(|s| match s {
            Seen::Run { name, variants, .. } => Some((name.clone(), variants.clone())),
            _ => None,
        })
        .collect()
}

fn expected_runs(runs: &[(&str, [&str; 2])]) -> Vec<(String, Vec<String>)> {
    runs.iter().map(|(n, v)| (n.to_string(), v.iter().map(|s| s.to_string()).collect())).collect()
}

/// The summary's iteration rows.
fn rows(dir: &Path) -> Vec<String> {
    let md = std::fs::read_to_string(dir.join("loop.md")).expect("loop.md");
    md.lines().filter(|l| l.starts_with("| ") && !l.starts_with("| iteration")).map(str::to_owned).collect()
}

const H1: RunState = RunState::SprtDone { h1: true };
const H0: RunState = RunState::SprtDone { h1: false };

#[test]
fn h1_promotes_h0_and_the_cap_do_not() {
    let dir = tempfile::tempdir().expect("temp dir");
    let verdicts = vec![RunState::SprtDone { h1: true }, RunState::SprtDone { h1: false }, RunState::Stopped];
    let (outcome, seen, notes) = run_campaign(dir.path(), verdicts);

    let got: Vec<Verdict> = outcome.iterations.iter().map(|i| i.verdict).collect();
    assert_eq!(got, [Verdict::H1, Verdict::H0, Verdict::Cap]);
    let promoted: Vec<bool> = outcome.iterations.iter().map(|i| i.promoted()).collect();
    assert_eq!(promoted, [true, false, false]);
    // The best after each iteration: tuned-1 from the first H1 on.
    let chain: Vec<&str> = outcome.iterations.iter().map(|i| i.best_name.as_str()).collect();
    assert_eq!(chain, ["tuned-1", "tuned-1", "tuned-1"]);
    assert_eq!(outcome.best_name, "tuned-1");
    assert_eq!(outcome.best, outcome.iterations[0].tuning.params, "the best is the promoted tuned set");
    assert_ne!(outcome.best, ParamSet::default());
    assert!(outcome.iterations.iter().all(|i| i.anchor.is_none()), "no SPRT after the first accepted H1");

    // Runs in order: self-play of the best and its twin, then the SPRT of the tuned set
    // against the best; after the promotion both name tuned-1. No anchor: iteration 1's SPRT
    // is against the start, and the later ones did not accept H1.
    let expected = expected_runs(&[
        ("self-play 1", ["start", "start-twin"]),
        ("tuned-1 vs start", ["tuned-1", "start"]),
        ("self-play 2", ["tuned-1", "tuned-1-twin"]),
        ("tuned-2 vs tuned-1", ["tuned-2", "tuned-1"]),
        ("self-play 3", ["tuned-1", "tuned-1-twin"]),
        ("tuned-3 vs tuned-1", ["tuned-3", "tuned-1"]),
    ]);
    assert_eq!(runs_of(&seen), expected);

    // Each self-play run is waited for to the end, then until its 32 games are in Parquet,
    // and only then tuned on, with every self-play run so far; each SPRT is capped.
    let waits: Vec<&Seen> = seen.iter().filter(|s| !matches!(s, Seen::Variant(_) | Seen::Run { .. })).collect();
    let expected = [
        Seen::Finished(RunId::new(1), None),
        Seen::Exported(RunId::new(1), 32),
        Seen::Tuned { runs: vec![RunId::new(1)], base: "start".into() },
        Seen::Finished(RunId::new(2), Some(24)),
        Seen::Finished(RunId::new(3), None),
        Seen::Exported(RunId::new(3), 32),
        Seen::Tuned { runs: vec![RunId::new(1), RunId::new(3)], base: "tuned-1".into() },
        Seen::Finished(RunId::new(4), Some(24)),
        Seen::Finished(RunId::new(5), None),
        Seen::Exported(RunId::new(5), 32),
        Seen::Tuned { runs: vec![RunId::new(1), RunId::new(3), RunId::new(5)], base: "tuned-1".into() },
        Seen::Finished(RunId::new(6), Some(24)),
    ];
    assert_eq!(waits, expected.iter().collect::<Vec<_>>());
    assert!(
        notes
            .iter()
            .any(|n| n.starts_with("iteration 1: tuned-1 vs start +12.0") && n.ends_with("games: H1 — promoted")),
        "{notes:?}"
    );
    assert!(
        notes
            .iter()
            .any(|n| n.starts_with("iteration 2: tuned-2 vs tuned-1") && n.ends_with("games: H0 — not promoted"))
    );
    assert!(!notes.iter().any(|n| n.contains("anchor")), "{notes:?}");

    // The files: one summary row per iteration, best.toml = the promoted set, the chart,
    // each iteration's SPRT summary and tuned parameters.
    let md = std::fs::read_to_string(dir.path().join("loop.md")).expect("loop.md");
    let rows: Vec<&str> = md.lines().filter(|l| l.starts_with("| ") && !l.starts_with("| iteration")).collect();
    assert_eq!(rows.len(), 3, "{md}");
    let no_anchor = "| — | — | — | — |";
    assert!(
        rows[0].starts_with("| 1 | 32 | 100 / 5 |") && rows[0].contains(&format!("| H1 {no_anchor} yes |")),
        "{md}"
    );
    assert!(rows[1].starts_with("| 2 | 32 |") && rows[1].contains(&format!("| H0 {no_anchor} no |")), "{md}");
    assert!(rows[2].contains("| 24 |") && rows[2].contains(&format!("| no verdict (cap) {no_anchor} no |")), "{md}");
    // The best over the start: only the promoting SPRT's estimate counts.
    assert!(
        md.contains("The best (`tuned-1`) over the start: +12.0 Elo as measured against the start by iteration 1's SPRT; +12.0 as the sum"),
        "{md}"
    );
    let best = std::fs::read_to_string(dir.path().join("best.toml")).expect("best.toml");
    assert_eq!(ParamSet::from_toml_str(&best).expect("parameters"), outcome.best);
    assert!(dir.path().join("elo-progress.png").is_file());
    for i in 1..=3 {
        let sprt = std::fs::read_to_string(dir.path().join(format!("iteration-{i}/sprt.txt"))).expect("sprt.txt");
        assert!(sprt.contains(&format!("run {}: tuned-{i} vs", 2 * i)), "{sprt}");
        assert!(dir.path().join(format!("iteration-{i}/tuned.toml")).is_file());
        assert!(!dir.path().join(format!("iteration-{i}/anchor.txt")).exists());
    }
}

#[test]
fn without_h1_the_start_stays_best() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (outcome, seen, _) = run_campaign(dir.path(), vec![RunState::SprtDone { h1: false }, RunState::Stopped]);
    assert_eq!(outcome.best_name, "start");
    assert_eq!(outcome.best, ParamSet::default());
    assert!(outcome.iterations.iter().all(|i| !i.promoted()));
    // The second SPRT still measures against the start.
    assert!(seen.iter().any(|s| matches!(s, Seen::Run { name, .. } if name == "tuned-2 vs start")), "{seen:?}");
    let best = std::fs::read_to_string(dir.path().join("best.toml")).expect("best.toml");
    assert_eq!(ParamSet::from_toml_str(&best).expect("parameters"), ParamSet::default());
    assert!(std::fs::read_to_string(dir.path().join("loop.md")).expect("loop.md").contains("the start is the best"));
}

#[test]
fn bad_settings_are_named_before_anything_runs() {
    let dir = tempfile::tempdir().expect("temp dir");
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
    type Change = fn(&mut CampaignConfig);
    let cases: [(Change, &str); 9] = [
        (|c| c.iterations = 0, "iterations"),
        (|c| c.pairs = 0, "pairs"),
        (|c| c.max_games = 0, "setting max_games"),
        (|c| c.sprt.alpha = 1.5, "setting alpha"),
        (|c| c.sprt.elo1 = c.sprt.elo0, "setting elo1"),
        (|c| c.anchor_max_games = 0, "setting anchor_max_games"),
        (|c| c.anchor.elo0 = 2.0, "setting anchor_elo1"),
        (|c| c.anchor.elo0 = f64::NAN, "setting anchor_elo0"),
        (|c| c.anchor.beta = 0.0, "setting anchor_beta"),
    ];
    for (change, names) in cases {
        let farm = FakeFarm::new(vec![]);
        let tuner = FakeTuner::new(&farm, "texel");
        let mut config = config(&dir.path().join("unused"), 1);
        change(&mut config);
        let error = runtime
            .block_on(campaign::run(&farm, &tuner, &config, ParamSet::default(), vec!["startpos".into()], &mut |_| {}))
            .expect_err(names)
            .to_string();
        assert!(error.contains(names), "`{error}` names {names}");
        assert!(farm.seen.borrow().is_empty(), "nothing was asked of the farm");
        assert!(!dir.path().join("unused").exists(), "no directory was made");
    }
}

/// The run the farm created under `name`, and its id.
fn spec_named(farm: &FakeFarm, name: &str) -> (RunId, RunSpec) {
    let specs = farm.specs.borrow();
    let i = specs.iter().position(|s| s.name == name).unwrap_or_else(|| panic!("no run `{name}`"));
    (RunId::new(i as u64 + 1), specs[i].clone())
}

#[test]
fn a_tuned_set_that_beats_the_best_and_holds_against_the_start_is_promoted() {
    let dir = tempfile::tempdir().expect("temp dir");
    // Iteration 1: H1 against the start (no anchor). Iteration 2: H1 against tuned-1, then
    // the anchor against the start accepts H1 too.
    let ran = run_from(dir.path(), 2, ParamSet::default(), vec![H1, H1, H1]);
    let its = &ran.outcome.iterations;
    assert_eq!(its[0].anchor, None, "iteration 1's SPRT already is against the start");
    let anchor = its[1].anchor.as_ref().expect("iteration 2 ran the anchor");
    assert_eq!(anchor.verdict, Verdict::H1);
    assert_eq!(its.iter().map(|i| i.promoted()).collect::<Vec<_>>(), [true, true]);
    assert_eq!(ran.outcome.best_name, "tuned-2");
    assert_eq!(ran.outcome.best, its[1].tuning.params);

    let expected = expected_runs(&[
        ("self-play 1", ["start", "start-twin"]),
        ("tuned-1 vs start", ["tuned-1", "start"]),
        ("self-play 2", ["tuned-1", "tuned-1-twin"]),
        ("tuned-2 vs tuned-1", ["tuned-2", "tuned-1"]),
        ("tuned-2 vs start (anchor)", ["tuned-2", "start"]),
    ]);
    assert_eq!(runs_of(&ran.seen), expected);
    // The anchor waits after the SPRT, capped at its own cap.
    let (anchor_run, _) = spec_named(&ran.farm, "tuned-2 vs start (anchor)");
    assert_eq!(anchor.run, anchor_run);
    let finished: Vec<&Seen> = ran.seen.iter().filter(|s| matches!(s, Seen::Finished(..))).collect();
    assert_eq!(finished.last(), Some(&&Seen::Finished(anchor_run, Some(10))));

    let line = ran.notes.iter().find(|n| n.starts_with("iteration 2: tuned-2")).expect("iteration 2's verdict line");
    assert_eq!(
        line,
        "iteration 2: tuned-2 vs tuned-1 +12.0 ± 20.0 Elo over 40 games: H1; \
         anchor vs start +12.0 ± 20.0 Elo over 40 games: H1 — promoted"
    );
    assert!(ran.notes.iter().any(|n| n.starts_with("iteration 2: anchor SPRT[-4, 2] run 5 of tuned-2 against start")));

    let anchor_txt = std::fs::read_to_string(dir.path().join("iteration-2/anchor.txt")).expect("anchor.txt");
    assert!(anchor_txt.starts_with("run 5: tuned-2 vs start (anchor)\nstate: sprt_h1"), "{anchor_txt}");
    assert!(!dir.path().join("iteration-1/anchor.txt").exists());
    let rows = rows(dir.path());
    assert!(rows[1].contains("| H1 | 40 | +12.0 ± 20.0 | 1.50 | H1 | yes |"), "{rows:?}");
    let md = std::fs::read_to_string(dir.path().join("loop.md")).expect("loop.md");
    // Measured against the start directly, not chained (12 + 12).
    assert!(md.contains("The best (`tuned-2`) over the start: +12.0 Elo as measured against the start by iteration 2's anchor; +24.0 as the sum"), "{md}");
}

#[test]
fn a_tuned_set_that_beats_the_best_but_loses_to_the_start_is_not_promoted() {
    let dir = tempfile::tempdir().expect("temp dir");
    // Iteration 2: H1 against tuned-1, H0 against the start; iteration 3: H1 against
    // tuned-1, the anchor capped without a verdict.
    let ran = run_from(dir.path(), 3, ParamSet::default(), vec![H1, H1, H0, H1, RunState::Stopped]);
    let its = &ran.outcome.iterations;
    assert_eq!(its.iter().map(|i| i.verdict).collect::<Vec<_>>(), [Verdict::H1; 3]);
    let anchors: Vec<Option<Verdict>> = its.iter().map(|i| i.anchor.as_ref().map(|a| a.verdict)).collect();
    assert_eq!(anchors, [None, Some(Verdict::H0), Some(Verdict::Cap)]);
    assert_eq!(its.iter().map(|i| i.promoted()).collect::<Vec<_>>(), [true, false, false]);
    assert_eq!(its.iter().map(|i| i.best_name.as_str()).collect::<Vec<_>>(), ["tuned-1"; 3]);
    assert_eq!(ran.outcome.best_name, "tuned-1");
    assert_eq!(ran.outcome.best, its[0].tuning.params, "the best is unchanged");

    // The next self-play still plays tuned-1, the next SPRT is still against it.
    let expected = expected_runs(&[
        ("self-play 1", ["start", "start-twin"]),
        ("tuned-1 vs start", ["tuned-1", "start"]),
        ("self-play 2", ["tuned-1", "tuned-1-twin"]),
        ("tuned-2 vs tuned-1", ["tuned-2", "tuned-1"]),
        ("tuned-2 vs start (anchor)", ["tuned-2", "start"]),
        ("self-play 3", ["tuned-1", "tuned-1-twin"]),
        ("tuned-3 vs tuned-1", ["tuned-3", "tuned-1"]),
        ("tuned-3 vs start (anchor)", ["tuned-3", "start"]),
    ]);
    assert_eq!(runs_of(&ran.seen), expected);
    // The capped anchor stopped at its cap, not the SPRT's.
    assert_eq!(its[2].anchor.as_ref().map(|a| a.stats.counts.games()), Some(10));

    assert!(ran.notes.iter().any(|n| n.starts_with("iteration 2: tuned-2 vs tuned-1")
        && n.ends_with("games: H1; anchor vs start -3.0 ± 20.0 Elo over 40 games: H0 — not promoted")));
    assert!(ran.notes.iter().any(|n| n.starts_with("iteration 3: tuned-3 vs tuned-1")
        && n.ends_with("anchor vs start -3.0 ± 20.0 Elo over 10 games: no verdict (cap) — not promoted")));
    let rows = rows(dir.path());
    assert!(rows[1].contains("| H1 | 40 | -3.0 ± 20.0 | 1.50 | H0 | no |"), "{rows:?}");
    assert!(rows[2].contains("| H1 | 10 | -3.0 ± 20.0 | 1.50 | no verdict (cap) | no |"), "{rows:?}");
    let best = std::fs::read_to_string(dir.path().join("best.toml")).expect("best.toml");
    assert_eq!(ParamSet::from_toml_str(&best).expect("parameters"), its[0].tuning.params);
}

#[test]
fn no_anchor_while_the_best_is_the_start() {
    let dir = tempfile::tempdir().expect("temp dir");
    // Iteration 1 H0: the start stays best, so iteration 2's H1 is against the start already.
    let ran = run_from(dir.path(), 2, ParamSet::default(), vec![H0, H1]);
    assert!(ran.outcome.iterations.iter().all(|i| i.anchor.is_none()));
    assert_eq!(ran.outcome.best_name, "tuned-2");
    let expected = expected_runs(&[
        ("self-play 1", ["start", "start-twin"]),
        ("tuned-1 vs start", ["tuned-1", "start"]),
        ("self-play 2", ["start", "start-twin"]),
        ("tuned-2 vs start", ["tuned-2", "start"]),
    ]);
    assert_eq!(runs_of(&ran.seen), expected);
    assert!(!ran.notes.iter().any(|n| n.contains("anchor")), "{:?}", ran.notes);
}

#[test]
fn the_anchor_plays_the_start_variant_with_its_own_bounds() {
    let dir = tempfile::tempdir().expect("temp dir");
    let ran = run_from(dir.path(), 2, ParamSet::default(), vec![H1, H1, H1]);
    let config = config(dir.path(), 2);
    let (_, selfplay) = spec_named(&ran.farm, "self-play 1");
    let (_, sprt) = spec_named(&ran.farm, "tuned-2 vs tuned-1");
    let (_, anchor) = spec_named(&ran.farm, "tuned-2 vs start (anchor)");
    // The same candidate as the SPRT's; the base is the very variant the start self-played as.
    assert_eq!(anchor.variants[0], sprt.variants[0]);
    assert_eq!(anchor.variants[1], selfplay.variants[0]);
    assert_eq!(ran.farm.name_of(&anchor.variants[1]), "start");
    assert_ne!(anchor.variants[1], sprt.variants[1], "not the current best");
    assert_eq!(anchor.kind, RunKind::Sprt(config.anchor));
    assert_eq!(sprt.kind, RunKind::Sprt(config.sprt));
    assert_eq!((anchor.tc, anchor.openings), (sprt.tc, sprt.openings));
}

#[test]
fn a_start_search_table_stays_in_every_tuned_set() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut start = ParamSet::default();
    start.set("search.lmr_div", 300).expect("a search parameter");
    start.set("search.asp_delta", 41).expect("a search parameter");
    let ran = run_from(dir.path(), 2, start.clone(), vec![H1, H1, H1]);
    let tomls = ran.farm.tomls.borrow();
    for name in ["start", "start-twin", "tuned-1", "tuned-1-twin", "tuned-2"] {
        let set = ParamSet::from_toml_str(&tomls[name]).expect("a parameter file");
        assert_eq!(set.search, start.search, "{name} keeps the start's [search] table");
        assert!(tomls[name].contains("lmr_div = 300"), "{name}");
    }
    // Each tuned variant is the tuned evaluation with the start's search parameters.
    for it in &ran.outcome.iterations {
        let name = format!("tuned-{}", it.index);
        assert_eq!(ParamSet::from_toml_str(&tomls[&name]).expect("a parameter file"), it.tuning.params);
        assert_ne!(it.tuning.params.eval, start.eval, "{name} is tuned");
    }
    // The tuner was handed the whole best set, and best.toml holds it.
    let best = std::fs::read_to_string(dir.path().join("best.toml")).expect("best.toml");
    let best = ParamSet::from_toml_str(&best).expect("best.toml");
    assert_eq!(best, ran.outcome.best);
    assert_eq!(best.search, start.search);
}

#[test]
fn a_campaign_run_again_on_its_directory_and_farm_resumes_instead_of_repeating() {
    let dir = tempfile::tempdir().expect("temp dir");
    let farm = FakeFarm::new(vec![H1]);
    let first = FakeTuner::new(&farm, "texel");
    let (once, _) = run_with(&farm, &first, &config(dir.path(), 1), ParamSet::default()).expect("iteration 1");
    assert_eq!(*first.calls.borrow(), 1);
    let runs_after_one = farm.specs.borrow().len();

    // Run again with two iterations (as after an interruption, or to go on): iteration 1's
    // runs are found again and its tuning is read back; only iteration 2 plays and tunes.
    farm.verdicts.borrow_mut().extend([H1, H1].into_iter().rev());
    let second = FakeTuner::new(&farm, "texel");
    let (twice, notes) = run_with(&farm, &second, &config(dir.path(), 2), ParamSet::default()).expect("resumed");
    assert_eq!(*second.calls.borrow(), 1, "iteration 1's tuning was not repeated");
    assert!(farm.verdicts.borrow().is_empty(), "iteration 2's SPRT and anchor ran");
    let names: Vec<String> = farm.specs.borrow()[runs_after_one..].iter().map(|s| s.name.clone()).collect();
    assert_eq!(names, ["self-play 2", "tuned-2 vs tuned-1", "tuned-2 vs start (anchor)"]);
    assert_eq!(twice.iterations[0], Iteration { minutes: twice.iterations[0].minutes, ..once.iterations[0].clone() });
    assert_eq!(twice.best_name, "tuned-2");
    assert!(notes.iter().any(|n| n.contains("run 1 (self-play 1) is this step's: resumed")), "{notes:?}");
    assert!(notes.iter().any(|n| n.contains("iteration 1: the tuning in")), "{notes:?}");
    assert_eq!(rows(dir.path()).len(), 2);

    // Other tuner settings: iteration 1's kept tuning is not theirs, so it is tuned again.
    farm.verdicts.borrow_mut().extend([H1, H1].into_iter().rev());
    let third = FakeTuner::new(&farm, "another learning rate");
    run_with(&farm, &third, &config(dir.path(), 1), ParamSet::default()).expect("resumed");
    assert_eq!(*third.calls.borrow(), 1, "iteration 1 tuned again under the new settings");
}

/// A network trainer's stand-in: each tuning names a network of its own bytes.
struct FakeNetworks {
    calls: RefCell<u8>,
}

impl FakeNetworks {
    fn bytes(n: u8) -> Vec<u8> {
        vec![n; 40]
    }
}

impl Tuner for FakeNetworks {
    async fn tune(&self, base: &ParamSet, _runs: &[RunId], out: &Path) -> campaign::Result<Tuning> {
        let mut calls = self.calls.borrow_mut();
        *calls += 1;
        let params = ParamSet { eval_spec: EvalSpec::Nnue(NetworkId::of_file(&Self::bytes(*calls))), ..base.clone() };
        std::fs::write(out, params.to_toml()).expect("tuned.toml");
        Ok(scripted_tuning(params, "trained"))
    }

    fn network(&self, id: &NetworkId) -> campaign::Result<Vec<u8>> {
        (1..=*self.calls.borrow())
            .map(Self::bytes)
            .find(|b| NetworkId::of_file(b) == *id)
            .ok_or_else(|| campaign::Error::Setting { name: "network", reason: format!("{id} unknown") })
    }

    fn needs_timed_sprts(&self) -> bool {
        true
    }

    fn settings(&self) -> String {
        "networks".into()
    }
}

#[test]
fn the_network_loop_generates_data_stores_each_network_first_and_tests_at_a_movetime() {
    let dir = tempfile::tempdir().expect("temp dir");
    let farm = FakeFarm::new(vec![H1, H1, H1]);
    let tuner = FakeNetworks { calls: RefCell::new(0) };
    let data_tc = TimeControl::Nodes(5000);
    let config = CampaignConfig {
        tc: TimeControl::MoveTimeMs(100),
        positions: Positions::Datagen { tc: data_tc, random_plies: 8 },
        ..config(dir.path(), 2)
    };
    let (outcome, _) = run_with(&farm, &tuner, &config, ParamSet::default()).expect("the campaign runs");
    assert_eq!(outcome.best_name, "tuned-2");
    assert_eq!(outcome.best.eval_spec, EvalSpec::Nnue(NetworkId::of_file(&FakeNetworks::bytes(2))));
    let (_, datagen) = spec_named(&farm, "datagen 1");
    assert_eq!(datagen.kind, RunKind::Datagen(proto::domain::DatagenSettings { pairs: 16, random_plies: 8 }));
    assert_eq!((datagen.tc, datagen.sample_every, datagen.variants.len()), (data_tc, 1, 1));
    // Iteration 2's data comes from the promoted network, played alone.
    let (_, datagen) = spec_named(&farm, "datagen 2");
    assert_eq!(farm.name_of(&datagen.variants[0]), "tuned-1");
    for name in ["tuned-1 vs start", "tuned-2 vs tuned-1", "tuned-2 vs start (anchor)"] {
        assert_eq!(spec_named(&farm, name).1.tc, TimeControl::MoveTimeMs(100), "{name}");
    }
    // Each network was stored before the variant naming it (the fake farm asserts the order).
    let stored: Vec<NetworkId> = farm.networks.borrow().clone();
    assert_eq!(stored, [1, 2].map(|n| NetworkId::of_file(&FakeNetworks::bytes(n))));
    // loop.md names each iteration's data run and network.
    let rows = rows(dir.path());
    for (row, (run, n)) in rows.iter().zip([(1, 1), (3, 2)]) {
        let short = NetworkId::of_file(&FakeNetworks::bytes(n)).short();
        assert!(row.ends_with(&format!("| {run} | nnue:{short} |")), "{row}");
    }

    // At fixed nodes a network looks stronger than it is: refused before anything runs.
    for tc in [TimeControl::Nodes(5000), TimeControl::Depth(8)] {
        let farm = FakeFarm::new(vec![]);
        let config = CampaignConfig { tc, ..config.clone() };
        let error = run_with(&farm, &tuner, &config, ParamSet::default()).expect_err("fixed nodes").to_string();
        assert!(error.contains("setting tc") && error.contains("movetime or a clock"), "{error}");
        assert!(farm.seen.borrow().is_empty());
    }
    // Too many random plies are named too.
    let config = CampaignConfig { positions: Positions::Datagen { tc: data_tc, random_plies: 99 }, ..config };
    let error = run_with(&FakeFarm::new(vec![]), &tuner, &config, ParamSet::default()).expect_err("99 plies");
    assert!(error.to_string().contains("random_plies"), "{error}");
}
