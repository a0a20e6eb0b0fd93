//! `xqfarm match`: two sides, game pairs over an opening suite, local threads. A side is a
//! parameter set of our engine, or an external engine (`engine:NAME`, given as `--engine
//! NAME=PATH`) played as the farm plays an external variant:
//!
//! ```text
//! xqfarm match --a default --b engine:fsf --engine fsf=/usr/games/fairy-stockfish \
//!     --option Hash=16 --option Threads=1 --tc nodes=20000 --pairs 40 --concurrency 1
//! ```

use std::path::PathBuf;
use std::sync::Arc;

use analysis::stats::{Pentanomial, Wdl, elo_estimate, los};
use anyhow::{Context, Result, bail};
use clap::Args;
use proto::domain::{EngineProtocol, PairingStats};
use worker::engines::{EngineDef, EngineSet};
use worker::external::ExternalConfig;
use worker::game::{GameSettings, TimeControl};
use worker::matchrun::{SideStats, run_pairs};

use crate::args::load_openings;
use crate::match_side::SideSpec;
use crate::progress::Progress;

#[derive(Args, Debug)]
pub struct MatchArgs {
    /// Candidate: a parameter file, `default`, `material-only`, `nnue:FILE` (a network, default search parameters) or `engine:NAME` (an --engine).
    #[arg(long)]
    a: String,
    /// Baseline: a parameter file, `default`, `material-only`, `nnue:FILE` (a network, default search parameters) or `engine:NAME` (an --engine).
    #[arg(long)]
    b: String,
    /// Number of game pairs (each opening with colours swapped).
    #[arg(long, default_value_t = 100)]
    pairs: usize,
    /// Time control: nodes=N, depth=N, movetime=MS or BASE+INC seconds.
    #[arg(long, default_value = "nodes=20000")]
    tc: String,
    /// Openings: a suite file, an EPD/FEN file (`.epd`, `.fen`) or a PGN file (`.pgn`, its
    /// games' first 8 plies); the shipped default suite when absent.
    #[arg(long)]
    openings: Option<PathBuf>,
    /// Games played at once (default: all cores).
    #[arg(long)]
    concurrency: Option<usize>,
    /// An external engine a side may name as `engine:NAME`: NAME=PATH (repeatable); it must
    /// complete its handshake.
    #[arg(long = "engine", value_name = "NAME=PATH")]
    engines: Vec<String>,
    /// The protocol external engines are played over. Fairy-Stockfish speaks both; UCI
    /// (with `UCI_Variant` set to xiangqi, ranks 1-10) is the one with a move time.
    #[arg(long, value_enum, default_value_t = EngineProtocol::Uci)]
    protocol: EngineProtocol,
    /// An option for the external engines, NAME=VALUE (repeatable); one the engine did not
    /// advertise, or a value outside its range, is refused.
    #[arg(long = "option", value_name = "NAME=VALUE", value_parser = proto::domain::parse_engine_option)]
    options: Vec<(String, String)>,
    /// Hash of our in-process engine, in MB.
    #[arg(long, default_value_t = 16)]
    hash: usize,
}

/// The note for a match whose external engines get no true move time: UCCI has no
/// `movetime`, so it is sent as a one-move clock, which a Stockfish-like time manager spends
/// only in part (Fairy-Stockfish 11.1: about 27 of 100 ms, after its Move Overhead).
fn ucci_movetime_note(tc: TimeControl, protocol: EngineProtocol, external: bool) -> Option<String> {
    match tc {
        TimeControl::MoveTimeMs(ms) if external && protocol == EngineProtocol::Ucci => Some(format!(
            "note: UCCI has no movetime; the external engines get `go time {ms} movestogo 1`, a one-move clock \
             that Fairy-Stockfish spends only in part. For equal time use --protocol uci."
        )),
        _ => None,
    }
}

pub fn run(args: &MatchArgs) -> Result<()> {
    let options = args.options.clone();
    let a = SideSpec::parse(&args.a, args.protocol, &options).context("--a")?;
    let b = SideSpec::parse(&args.b, args.protocol, &options).context("--b")?;
    let external = a.is_external() || b.is_external();
    if !options.is_empty() && !external {
        bail!("--option is for external engines, and neither side is one (name one as engine:NAME)");
    }
    let defs = args
        .engines
        .iter()
        .map(|flag| flag.parse::<EngineDef>().map(|def| EngineDef { protocol: args.protocol, ..def }))
        .collect::<worker::Result<Vec<_>>>()?;
    let engines = EngineSet::check(defs, ExternalConfig::default())?;
    a.check("a", &engines, args.hash)?;
    b.check("b", &engines, args.hash)?;
    let tc: TimeControl = args.tc.parse().map_err(anyhow::Error::msg)?;
    let openings = load_openings(args.openings.as_deref())?;
    let concurrency = args.concurrency.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let settings = GameSettings::new(tc);
    let started = std::time::Instant::now();
    let progress = Progress::stderr();
    let mut tally = PairingStats::default();
    let mut reasons = std::collections::BTreeMap::<&'static str, u64>::new();
    let stats = [Arc::new(SideStats::default()), Arc::new(SideStats::default())];
    eprintln!(
        "match {} vs {}: {} pairs at {tc}, {} openings, {concurrency} threads",
        args.a,
        args.b,
        args.pairs,
        openings.len()
    );
    for info in engines.infos() {
        let options: Vec<String> = options.iter().map(|(k, v)| format!("{k}={v}")).collect();
        eprintln!("engine {}: {} over {}, options [{}]", info.name, info.id_name, args.protocol, options.join(", "));
    }
    if let Some(note) = ucci_movetime_note(tc, args.protocol, external) {
        eprintln!("{note}");
    }
    run_pairs(
        args.pairs,
        &openings,
        &settings,
        concurrency,
        || (a.seat(&engines, args.hash, &stats[0]), b.seat(&engines, args.hash, &stats[1])),
        |pair| {
            tally.add_pair(pair.outcomes());
            for g in &pair.games {
                *reasons.entry(g.termination.as_str()).or_default() += 1;
            }
            let (penta, wdl) = outcomes(&tally);
            let e = elo_estimate(&penta);
            progress.update(&format!(
                "{:>5} games  W {} D {} L {}  Elo {:+.1} +- {:.1}",
                wdl.games(),
                wdl.wins,
                wdl.draws,
                wdl.losses,
                e.elo,
                e.error()
            ));
        },
    );
    progress.end();
    let (penta, wdl) = outcomes(&tally);
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
    for (side, stats) in [("a", &stats[0]), ("b", &stats[1])] {
        let (moves, ms, nodes) = stats.summary();
        println!("{side}: {moves} moves, {ms:.1} ms and {nodes:.0} nodes per move");
    }
    println!("{:.1} minutes, {:.1} games per minute", minutes, wdl.games() as f64 / minutes.max(1e-9));
    Ok(())
}

/// A's pairs and games, as the statistics count them.
fn outcomes(tally: &PairingStats) -> (Pentanomial, Wdl) {
    (Pentanomial { counts: tally.pentanomial }, Wdl { wins: tally.wins, draws: tally.draws, losses: tally.losses })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_are_name_equals_value() {
        #[derive(clap::Parser)]
        struct Cli {
            #[command(flatten)]
            args: MatchArgs,
        }
        let parse = |options: &[&str]| {
            let mut argv = vec!["match", "--a", "default", "--b", "default"];
            for o in options {
                argv.extend(["--option", o]);
            }
            <Cli as clap::Parser>::try_parse_from(argv).map(|cli| cli.args.options)
        };
        assert_eq!(
            parse(&["Hash=16", "Clear Hash=", "UCI_Variant = xiangqi"]).expect("valid"),
            vec![
                ("Hash".to_owned(), "16".to_owned()),
                ("Clear Hash".to_owned(), String::new()),
                ("UCI_Variant".to_owned(), "xiangqi".to_owned())
            ]
        );
        for bad in ["Hash", "=16"] {
            let error = parse(&[bad]).expect_err(bad).to_string();
            assert!(error.contains("--option") && error.contains(&format!("`{bad}`: expected NAME=VALUE")), "{error}");
        }
    }

    #[test]
    fn a_ucci_move_time_is_noted_only_for_external_engines() {
        let movetime = TimeControl::MoveTimeMs(100);
        let note = ucci_movetime_note(movetime, EngineProtocol::Ucci, true).expect("noted");
        assert!(note.contains("go time 100 movestogo 1") && note.contains("--protocol uci"), "{note}");
        assert_eq!(ucci_movetime_note(movetime, EngineProtocol::Uci, true), None);
        assert_eq!(ucci_movetime_note(movetime, EngineProtocol::Ucci, false), None);
        assert_eq!(ucci_movetime_note(TimeControl::Nodes(1000), EngineProtocol::Ucci, true), None);
    }
}
