//! `xqfarm`: the one command line of the farm. It only wires the library crates together;
//! each subcommand's logic lives in the crate that owns it.

mod args;
mod bench_cmds;
mod book_cmd;
mod db_cmd;
mod export;
mod farm_cmds;
mod farm_target;
mod import_cmd;
mod local;
mod local_match;
mod logging;
mod loop_cmd;
mod match_side;
mod nnue_cmd;
mod progress;
mod remote;
mod report_cmd;
mod sprt;
mod spsa_cmd;
mod stats_cmd;
mod tb_cmd;
mod tournament_cmd;
mod tune_cmd;

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use anyhow::{Context, Result};
use clap::{Parser, Subcommand};
use engine::perft::divide;
use engine::{Position, START_FEN};

#[derive(Parser, Debug)]
#[command(name = "xqfarm", version, about = "Make Xiangqi engines stronger: self-play, SPRT, tuning")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// The whole loop on this machine: an SPRT of the default parameters against a weakened
    /// variant, coordinator and workers in this process, data in ./xqfarm-data/.
    Local(local::LocalArgs),
    /// SPRT of a candidate against a base: two engine binaries (`--engine new=PATH --engine
    /// base=PATH`), parameter sets or networks (exit 0: H1, 1: H0, 2: error, 3: no verdict
    /// within --max-games or --max-minutes).
    Sprt(sprt::SprtArgs),
    /// Tune parameters with SPSA (Fishtest's), locally or on a coordinator; the tuned values
    /// become a new variant (`--verify`: an SPRT of it against the base).
    Spsa(spsa_cmd::SpsaArgs),
    /// Tournaments in rounds: round robin, Swiss, knockout or random draw, with standings by
    /// points (2 a win, 1 a draw), tiebreaks and ratings.
    #[command(subcommand)]
    Tournament(tournament_cmd::TournamentCommand),
    /// Serve a coordinator.
    Serve(farm_cmds::ServeArgs),
    /// Play games for a coordinator.
    Worker(farm_cmds::WorkerArgs),
    /// Tokens of a coordinator's token file.
    #[command(subcommand)]
    Token(farm_cmds::TokenCommand),
    /// Runs on a coordinator.
    #[command(subcommand)]
    Run(farm_cmds::RunCommand),
    /// Variants on a coordinator.
    #[command(subcommand)]
    Variant(VariantCommand),
    /// Networks on a coordinator (what parameter files name as `eval = "nnue:<sha256>"`).
    #[command(subcommand)]
    Network(NetworkCommand),
    /// Opening suites: generate one, or add one to a coordinator.
    #[command(subcommand)]
    Openings(OpeningsCommand),
    /// Export a run's games.
    #[command(subcommand)]
    Export(ExportCommand),
    /// Game archives into a data directory (PGN in WXF, Chinese or ICCS), as an imported run.
    #[command(subcommand)]
    Import(import_cmd::ImportCommand),
    /// Maintenance of a coordinator's database (`--db` of `serve`).
    #[command(subcommand)]
    Db(db_cmd::DbCommand),
    /// SPRT calculator: Elo, nElo, LOS and LLR of pentanomial counts.
    Stats(stats_cmd::StatsArgs),
    /// Report over a data directory: per-run Elo/LOS/SPRT, rating list, terminations, game
    /// lengths, worker consistency; writes report.md and PNG charts.
    Report(report_cmd::ReportArgs),
    /// Texel-tune the evaluation weights on the sampled positions of a data directory.
    Tune(tune_cmd::TuneArgs),
    /// The engine's neural network: train one on the sampled positions of a data directory.
    #[command(subcommand)]
    Nnue(nnue_cmd::NnueCommand),
    /// Self-play, tune, SPRT the tuned set against the best, promote on H1; repeat.
    Loop(loop_cmd::LoopArgs),
    /// Play a local match of game pairs between two parameter sets (no coordinator).
    Match(local_match::MatchArgs),
    /// The farm's speed figures (RPC throughput, worker overhead).
    #[command(subcommand)]
    Bench(bench_cmds::BenchCommand),
    /// The opening book: build it from the farm's games, show its moves.
    #[command(subcommand)]
    Book(book_cmd::BookCommand),
    /// Endgame tablebases: generate them by retrograde analysis.
    #[command(subcommand)]
    Tb(tb_cmd::TbCommand),
    /// Perft of the engine's move generator, with leaves per second.
    Perft {
        /// Position (`startpos` or a FEN).
        #[arg(long, default_value = "startpos")]
        fen: String,
        /// Depth in plies.
        #[arg(long, default_value_t = 6)]
        depth: u32,
    },
}

#[derive(Subcommand, Debug)]
enum ExportCommand {
    /// xqbase-style PGN.
    Pgn(export::PgnArgs),
}

#[derive(Subcommand, Debug)]
enum VariantCommand {
    /// Add a parameter file or an external engine as a variant.
    Add(farm_cmds::VariantAddArgs),
}

#[derive(Subcommand, Debug)]
enum NetworkCommand {
    /// Store a network file on a coordinator; prints its SHA-256.
    Add(farm_cmds::NetworkAddArgs),
}

#[derive(Subcommand, Debug)]
enum OpeningsCommand {
    /// Generate a balanced opening suite.
    Generate {
        /// How many openings.
        #[arg(long, default_value_t = 2000)]
        count: usize,
        /// Search depth of the balance check.
        #[arg(long, default_value_t = 6)]
        depth: u32,
        /// Random plies after each system's moves: 0 up to this many.
        #[arg(long, default_value_t = 4)]
        extra_plies: usize,
        /// Seed of the random plies.
        #[arg(long, default_value_t = 0x5eed)]
        seed: u64,
        /// Keep openings scored within this many centipawns.
        #[arg(long, default_value_t = 80)]
        margin: i32,
        /// Follow this opening book's (`book build`) most played lines instead of the common
        /// systems plus random plies (`--extra-plies` and `--seed` are then unused).
        #[arg(long, value_name = "BOOK")]
        from_book: Option<PathBuf>,
        /// With `--from-book`: each line follows the book for at most this many plies.
        #[arg(long, default_value_t = 8)]
        book_plies: usize,
        /// Output file (stdout when absent).
        #[arg(long)]
        out: Option<PathBuf>,
    },
    /// Add a suite file to a coordinator.
    Add(farm_cmds::OpeningsAddArgs),
}

fn main() -> ExitCode {
    if let Err(e) = logging::init() {
        eprintln!("error: {e:#}");
        return ExitCode::from(2);
    }
    match run() {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(2)
        }
    }
}

fn runtime() -> Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread().enable_all().build().context("starting the async runtime")
}

fn run() -> Result<ExitCode> {
    match Cli::parse().command {
        Command::Local(args) => runtime()?.block_on(local::run(&args))?,
        Command::Sprt(args) => {
            let outcome = runtime()?.block_on(sprt::run(&args))?;
            return Ok(sprt::report(&outcome));
        }
        Command::Spsa(args) => runtime()?.block_on(spsa_cmd::run(&args))?,
        Command::Tournament(cmd) => runtime()?.block_on(tournament_cmd::run(cmd))?,
        Command::Serve(args) => runtime()?.block_on(farm_cmds::serve(args))?,
        Command::Worker(args) => runtime()?.block_on(farm_cmds::worker(args))?,
        Command::Token(cmd) => farm_cmds::token_command(cmd)?,
        Command::Run(cmd) => runtime()?.block_on(farm_cmds::run_command(cmd))?,
        Command::Variant(VariantCommand::Add(args)) => runtime()?.block_on(farm_cmds::variant_add(args))?,
        Command::Network(NetworkCommand::Add(args)) => runtime()?.block_on(farm_cmds::network_add(args))?,
        Command::Openings(OpeningsCommand::Add(args)) => runtime()?.block_on(farm_cmds::openings_add(args))?,
        Command::Openings(OpeningsCommand::Generate {
            count,
            depth,
            extra_plies,
            seed,
            margin,
            from_book,
            book_plies,
            out,
        }) => {
            let (lines, source) = match &from_book {
                Some(path) => {
                    if book_plies == 0 {
                        anyhow::bail!("--book-plies 0 leaves no book move to follow");
                    }
                    let book = engine::book::Book::open(path)?;
                    if book.moves(&engine::Position::startpos()).is_empty() {
                        anyhow::bail!(
                            "{}: the book has no move in the initial position (its games began after their \
                             suite's lines, which the book does not count): build it from games played from \
                             the initial position",
                            path.display()
                        );
                    }
                    let settings =
                        worker::openings::BookSuiteSettings { count, plies: book_plies, margin_cp: margin, depth };
                    let lines = worker::openings::from_book(&book, &settings);
                    if lines.is_empty() {
                        anyhow::bail!(
                            "{}: no book line of up to {book_plies} plies is within {margin} cp at depth {depth}",
                            path.display()
                        );
                    }
                    (lines, format!("the most played lines of {} (up to {book_plies} plies)", path.display()))
                }
                None => {
                    let settings =
                        worker::openings::GenerateSettings { count, depth, margin_cp: margin, extra_plies, seed };
                    (worker::openings::generate(&settings), "common systems plus random plies".to_owned())
                }
            };
            let mut text = format!(
                "# xqfarm opening suite: {} openings, {source}, each within {margin} cp at depth {depth}\n",
                lines.len()
            );
            for l in &lines {
                text.push_str(l);
                text.push('\n');
            }
            match out {
                Some(path) => std::fs::write(&path, text).with_context(|| format!("writing {}", path.display()))?,
                None => print!("{text}"),
            }
        }
        Command::Stats(args) => stats_cmd::run(&args)?,
        Command::Tb(cmd) => tb_cmd::run(&cmd)?,
        Command::Book(cmd) => book_cmd::run(&cmd)?,
        Command::Export(ExportCommand::Pgn(args)) => export::pgn(&args)?,
        Command::Import(cmd) => import_cmd::run(&cmd)?,
        Command::Db(cmd) => db_cmd::run(&cmd)?,
        Command::Bench(cmd) => runtime()?.block_on(bench_cmds::run(cmd))?,
        Command::Match(args) => local_match::run(&args)?,
        Command::Report(args) => report_cmd::run(&args)?,
        Command::Tune(args) => runtime()?.block_on(tune_cmd::run(&args))?,
        Command::Nnue(cmd) => nnue_cmd::run(&cmd)?,
        Command::Loop(args) => runtime()?.block_on(loop_cmd::run(&args))?,
        Command::Perft { fen, depth } => {
            let fen = if fen == "startpos" { START_FEN.to_owned() } else { fen };
            let mut pos = Position::from_fen(&fen).with_context(|| format!("invalid FEN `{fen}`"))?;
            let start = Instant::now();
            let per_move = divide(&mut pos, depth);
            let secs = start.elapsed().as_secs_f64();
            let total: u64 = per_move.iter().map(|(_, n)| n).sum();
            println!("perft({depth}) of {fen}");
            println!(
                "{} root moves, {total} leaves in {secs:.3} s: {:.1} M leaves/s",
                per_move.len(),
                total as f64 / secs.max(1e-9) / 1e6
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}
