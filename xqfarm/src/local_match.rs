//! `xqfarm match`: two parameter sets, game pairs over an opening suite, local threads.

use std::path::PathBuf;

use analysis::stats::{Pentanomial, Wdl, elo_estimate, los};
use anyhow::{Context, Result, bail};
use clap::Args;
use engine::ParamSet;
use engine::eval::Params;
use engine::rules::GameResult;
use worker::game::{GameSettings, TimeControl};
use worker::matchrun::run_pairs;
use worker::openings::{Opening, parse_suite};
use worker::player::InProcess;

/// The default opening suite shipped with xqfarm.
pub const DEFAULT_OPENINGS: &str = include_str!("../../data/openings/default.txt");

#[derive(Args, Debug)]
pub struct MatchArgs {
    /// Candidate: a parameter file, or `default` / `material-only`.
    #[arg(long)]
    a: String,
    /// Baseline: a parameter file, or `default` / `material-only`.
    #[arg(long)]
    b: String,
    /// Number of game pairs (each opening with colours swapped).
    #[arg(long, default_value_t = 100)]
    pairs: usize,
    /// Time control: nodes=N, depth=N, movetime=MS or BASE+INC seconds.
    #[arg(long, default_value = "nodes=20000")]
    tc: String,
    /// Opening suite file (the shipped default suite when absent).
    #[arg(long)]
    openings: Option<PathBuf>,
    /// Games played at once (default: all cores).
    #[arg(long)]
    concurrency: Option<usize>,
}

pub fn load_params(spec: &str) -> Result<ParamSet> {
    match spec {
        "default" => Ok(ParamSet::default()),
        "material-only" => Ok(Params::material_only().into()),
        path => {
            ParamSet::from_toml_file(std::path::Path::new(path)).with_context(|| format!("loading parameters `{path}`"))
        }
    }
}

pub fn load_openings(path: Option<&PathBuf>) -> Result<Vec<Opening>> {
    let text = match path {
        Some(p) => std::fs::read_to_string(p).with_context(|| format!("reading openings {}", p.display()))?,
        None => DEFAULT_OPENINGS.to_owned(),
    };
    let suite = parse_suite(&text)?;
    if suite.is_empty() {
        bail!("the opening suite is empty");
    }
    Ok(suite)
}

pub fn run(args: &MatchArgs) -> Result<()> {
    let a = load_params(&args.a)?;
    let b = load_params(&args.b)?;
    let tc: TimeControl = args.tc.parse().map_err(anyhow::Error::msg)?;
    let openings = load_openings(args.openings.as_ref())?;
    let concurrency = args.concurrency.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let settings = GameSettings::new(tc);
    let started = std::time::Instant::now();
    let mut penta = Pentanomial::default();
    let mut wdl = Wdl::default();
    let mut reasons = std::collections::BTreeMap::<&'static str, u64>::new();
    eprintln!(
        "match {} vs {}: {} pairs at {tc}, {} openings, {concurrency} threads",
        args.a,
        args.b,
        args.pairs,
        openings.len()
    );
    run_pairs(
        args.pairs,
        &openings,
        &settings,
        concurrency,
        || (InProcess::new("a", a.clone()), InProcess::new("b", b.clone())),
        |pair| {
            penta.add(pair.a_half_points());
            for (g, a_red) in pair.games.iter().zip([true, false]) {
                match (g.result, a_red) {
                    (GameResult::RedWins, true) | (GameResult::BlackWins, false) => wdl.wins += 1,
                    (GameResult::Draw, _) => wdl.draws += 1,
                    _ => wdl.losses += 1,
                }
                *reasons.entry(g.termination.as_str()).or_default() += 1;
            }
            let e = elo_estimate(&penta);
            eprint!(
                "\r{:>5} games  W {} D {} L {}  Elo {:+.1} +- {:.1}   ",
                wdl.games(),
                wdl.wins,
                wdl.draws,
                wdl.losses,
                e.elo,
                e.error()
            );
        },
    );
    eprintln!();
    let e = elo_estimate(&penta);
    let minutes = started.elapsed().as_secs_f64() / 60.0;
    println!("games {}  W {}  D {}  L {}  (a's view)", wdl.games(), wdl.wins, wdl.draws, wdl.losses);
    println!("pentanomial [0, 0.5, 1, 1.5, 2]: {:?}", penta.counts);
    println!(
        "Elo {:+.1} +- {:.1} (95%: {:+.1} .. {:+.1}), LOS {:.1}%",
        e.elo,
        e.error(),
        e.lower,
        e.upper,
        100.0 * los(&wdl)
    );
    println!("terminations: {reasons:?}");
    println!("{:.1} minutes, {:.1} games per minute", minutes, wdl.games() as f64 / minutes.max(1e-9));
    Ok(())
}
