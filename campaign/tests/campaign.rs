//! The campaign against a scripted farm and tuner, no network: promotion on H1 only, the
//! chain of best names, the order of waits (the tuner never runs before the self-play games
//! are exported), and the files it leaves.

use std::cell::RefCell;
use std::collections::HashMap;
use std::path::Path;

use campaign::{CampaignConfig, Farm, Tuner, Tuning, Verdict};
use engine::eval::Params;
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
}

struct FakeFarm {
    /// The SPRTs' endings, in order.
    verdicts: RefCell<Vec<RunState>>,
    /// Variant id → name.
    names: RefCell<HashMap<VariantId, String>>,
    specs: RefCell<Vec<RunSpec>>,
    seen: RefCell<Vec<Seen>>,
    /// Games each self-play run plays.
    selfplay_games: u64,
}

impl FakeFarm {
    fn new(verdicts: Vec<RunState>) -> FakeFarm {
        FakeFarm {
            verdicts: RefCell::new(verdicts.into_iter().rev().collect()),
            names: RefCell::default(),
            specs: RefCell::default(),
            seen: RefCell::default(),
            selfplay_games: 32,
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
        let run = Run { id: run, spec, state, stats: vec![counts], created_unix_ms: 0 };
        RunStatus { run, live: vec![live], missing_engines: vec![], exported_games: 0, spsa: vec![] }
    }
}

impl Farm for FakeFarm {
    async fn add_params_variant(&self, name: &str, params: &engine::ParamSet) -> campaign::Result<VariantId> {
        // Content-addressed, as the coordinator does: the same parameters are the same id.
        let id = format!("{:016x}", params.to_toml().bytes().fold(0u64, |h, b| h.wrapping_mul(31) ^ u64::from(b)));
        let id = VariantId::new(format!("{id}-{name}"));
        self.names.borrow_mut().insert(id.clone(), name.to_owned());
        self.seen.borrow_mut().push(Seen::Variant(name.to_owned()));
        Ok(id)
    }

    async fn add_suite(&self, _name: &str, openings: Vec<String>) -> campaign::Result<SuiteId> {
        assert!(!openings.is_empty());
        Ok(SuiteId::new(1))
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
        let kind = self.specs.borrow()[run.get() as usize - 1].kind.clone();
        Ok(match kind {
            RunKind::Games { .. } => self.status(run, RunState::Completed, self.selfplay_games),
            RunKind::Sprt(_) => {
                let state = self.verdicts.borrow_mut().pop().expect("a scripted verdict for every SPRT");
                let games = if state == RunState::Stopped { max_games.expect("SPRTs are capped") } else { 40 };
                self.status(run, state, games)
            }
            other => panic!("the campaign runs no {other:?}"),
        })
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
}

impl Tuner for FakeTuner<'_> {
    async fn tune(&self, base: &Params, runs: &[RunId], out: &Path) -> campaign::Result<Tuning> {
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
        let mut params = base.clone();
        let i = Params::index_of("material.rook.mg").expect("a rook weight");
        params.set_clamped(i, i64::from(base.get(i)) + *calls as i64);
        std::fs::write(out, params.to_toml()).expect("tuned.toml");
        Ok(Tuning {
            params,
            train_positions: 100,
            validation_positions: 5,
            k: 1.1,
            start_loss: (0.2, 0.21),
            end_loss: (0.19, 0.2),
            summary: "tuned".into(),
        })
    }
}

fn hash(params: &Params) -> String {
    format!("{:016x}", params.to_toml().bytes().fold(0u64, |h, b| h.wrapping_mul(31) ^ u64::from(b)))
}

fn config(dir: &Path, iterations: usize) -> CampaignConfig {
    CampaignConfig {
        dir: dir.to_owned(),
        iterations,
        pairs: 16,
        tc: TimeControl::Nodes(400),
        sample_every: 2,
        sprt: SprtSettings { elo0: 0.0, elo1: 10.0, ..SprtSettings::default() },
        max_games: 24,
    }
}

fn run_campaign(dir: &Path, verdicts: Vec<RunState>) -> (campaign::Outcome, Vec<Seen>, Vec<String>) {
    let farm = FakeFarm::new(verdicts.clone());
    let tuner = FakeTuner { farm: &farm, calls: RefCell::new(0) };
    let mut notes = Vec::new();
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
    let outcome = runtime
        .block_on(campaign::run(
            &farm,
            &tuner,
            &config(dir, verdicts.len()),
            Params::default(),
            vec!["startpos".into()],
            &mut |line| notes.push(line.to_owned()),
        ))
        .expect("the campaign runs");
    (outcome, farm.seen.into_inner(), notes)
}

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
    assert_ne!(outcome.best, Params::default());

    // Runs in order: self-play of the best and its twin, then the SPRT of the tuned set
    // against the best; after the promotion both name tuned-1.
    let runs: Vec<(String, Vec<String>)> = seen
        .iter()
        .filter_map(|s| match s {
            Seen::Run { name, variants, .. } => Some((name.clone(), variants.clone())),
            _ => None,
        })
        .collect();
    let expected = [
        ("self-play 1", ["start", "start-twin"]),
        ("tuned-1 vs start", ["tuned-1", "start"]),
        ("self-play 2", ["tuned-1", "tuned-1-twin"]),
        ("tuned-2 vs tuned-1", ["tuned-2", "tuned-1"]),
        ("self-play 3", ["tuned-1", "tuned-1-twin"]),
        ("tuned-3 vs tuned-1", ["tuned-3", "tuned-1"]),
    ];
    let expected: Vec<(String, Vec<String>)> =
        expected.iter().map(|(n, v)| (n.to_string(), v.iter().map(|s| s.to_string()).collect())).collect();
    assert_eq!(runs, expected);

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
    assert!(notes.iter().any(|n| n.contains("iteration 1: H1") && n.contains("promoted")), "{notes:?}");

    // The files: one summary row per iteration, best.toml = the promoted set, the chart,
    // each iteration's SPRT summary and tuned parameters.
    let md = std::fs::read_to_string(dir.path().join("loop.md")).expect("loop.md");
    let rows: Vec<&str> = md.lines().filter(|l| l.starts_with("| ") && !l.starts_with("| iteration")).collect();
    assert_eq!(rows.len(), 3, "{md}");
    assert!(rows[0].starts_with("| 1 | 32 | 100 / 5 |") && rows[0].contains("| H1 | yes |"), "{md}");
    assert!(rows[1].starts_with("| 2 | 32 |") && rows[1].contains("| H0 | no |"), "{md}");
    assert!(rows[2].contains("| 24 |") && rows[2].contains("| no verdict (cap) | no |"), "{md}");
    // Cumulative Elo: only the promoting SPRT's estimate counts.
    assert!(md.contains("over the start (sum of the promoting SPRTs' estimates): +12.0"), "{md}");
    let best = std::fs::read_to_string(dir.path().join("best.toml")).expect("best.toml");
    assert_eq!(Params::from_toml_str(&best).expect("parameters"), outcome.best);
    assert!(dir.path().join("elo-progress.png").is_file());
    for i in 1..=3 {
        let sprt = std::fs::read_to_string(dir.path().join(format!("iteration-{i}/sprt.txt"))).expect("sprt.txt");
        assert!(sprt.contains(&format!("run {}: tuned-{i} vs", 2 * i)), "{sprt}");
        assert!(dir.path().join(format!("iteration-{i}/tuned.toml")).is_file());
    }
}

#[test]
fn without_h1_the_start_stays_best() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (outcome, seen, _) = run_campaign(dir.path(), vec![RunState::SprtDone { h1: false }, RunState::Stopped]);
    assert_eq!(outcome.best_name, "start");
    assert_eq!(outcome.best, Params::default());
    assert!(outcome.iterations.iter().all(|i| !i.promoted()));
    // The second SPRT still measures against the start.
    assert!(seen.iter().any(|s| matches!(s, Seen::Run { name, .. } if name == "tuned-2 vs start")), "{seen:?}");
    let best = std::fs::read_to_string(dir.path().join("best.toml")).expect("best.toml");
    assert_eq!(Params::from_toml_str(&best).expect("parameters"), Params::default());
}

#[test]
fn bad_settings_are_named_before_anything_runs() {
    let dir = tempfile::tempdir().expect("temp dir");
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
    type Change = fn(&mut CampaignConfig);
    let cases: [(Change, &str); 4] = [
        (|c| c.iterations = 0, "iterations"),
        (|c| c.pairs = 0, "pairs"),
        (|c| c.max_games = 0, "max_games"),
        (|c| c.sprt.alpha = 1.5, "alpha"),
    ];
    for (change, names) in cases {
        let farm = FakeFarm::new(vec![]);
        let tuner = FakeTuner { farm: &farm, calls: RefCell::new(0) };
        let mut config = config(&dir.path().join("unused"), 1);
        change(&mut config);
        let error = runtime
            .block_on(campaign::run(&farm, &tuner, &config, Params::default(), vec!["startpos".into()], &mut |_| {}))
            .expect_err(names)
            .to_string();
        assert!(error.contains(names), "`{error}` names {names}");
        assert!(farm.seen.borrow().is_empty(), "nothing was asked of the farm");
        assert!(!dir.path().join("unused").exists(), "no directory was made");
    }
}
