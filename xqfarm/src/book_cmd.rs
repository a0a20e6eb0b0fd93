//! `xqfarm book build|show`: an opening book from the farm's Parquet games
//! (`engine::book` counts and stores it; this only reads the games and prints).

use std::path::PathBuf;

use anyhow::{Context, Result, bail};
use clap::{Args, Subcommand};
use engine::Position;
use engine::book::{Book, BookBuilder};
use engine::notation::{Notation, parse_uci, write_move};
use engine::rules::GameResult;
use farmdata::read_games;
use proto::domain::RunId;

#[derive(Subcommand, Debug)]
pub enum BookCommand {
    /// Build a book from the games of a data directory: for each position up to `--max-ply`
    /// the moves played, with the mover's wins, draws and losses, mirror images merged.
    Build(BuildArgs),
    /// The book's moves in a position, with their games and scores.
    Show(ShowArgs),
}

#[derive(Args, Debug)]
pub struct BuildArgs {
    /// The farm's data directory (its `games/run=<id>/` Parquet).
    #[arg(long, default_value = "xqfarm-data")]
    pub data: PathBuf,
    /// Only these runs (repeatable; default: every run).
    #[arg(long = "run", value_name = "ID")]
    pub runs: Vec<u64>,
    /// Drop moves played fewer times than this.
    #[arg(long, default_value_t = 5)]
    pub min_games: u32,
    /// Count each game's moves up to this ply, counted from the start of its opening line
    /// (the suite's moves are not counted, but use up plies).
    #[arg(long, default_value_t = 20)]
    pub max_ply: usize,
    /// The book file to write.
    #[arg(long)]
    pub out: PathBuf,
}

#[derive(Args, Debug)]
pub struct ShowArgs {
    /// The book file.
    #[arg(long)]
    pub book: PathBuf,
    /// The position (`startpos` or a FEN).
    #[arg(long, default_value = "startpos")]
    pub fen: String,
}

pub fn run(cmd: &BookCommand) -> Result<()> {
    match cmd {
        BookCommand::Build(args) => build(args),
        BookCommand::Show(args) => show(args),
    }
}

/// The run ids with games under `data`.
fn runs_in(data: &std::path::Path) -> Result<Vec<u64>> {
    let dir = data.join(proto::columns::games::TABLE);
    let entries = std::fs::read_dir(&dir).with_context(|| format!("reading {}", dir.display()))?;
    let mut runs = Vec::new();
    for e in entries {
        let name = e.with_context(|| format!("reading {}", dir.display()))?.file_name();
        if let Some(id) = name.to_str().and_then(|n| n.strip_prefix("run=")).and_then(|n| n.parse().ok()) {
            runs.push(id);
        }
    }
    runs.sort_unstable();
    Ok(runs)
}

fn build(args: &BuildArgs) -> Result<()> {
    if args.max_ply == 0 {
        bail!("--max-ply 0 leaves no move to count");
    }
    let runs = if args.runs.is_empty() { runs_in(&args.data)? } else { args.runs.clone() };
    let mut builder = BookBuilder::new(args.max_ply);
    let mut starts: std::collections::HashMap<String, u64> = std::collections::HashMap::new();
    for run in &runs {
        let games = read_games(&args.data, RunId::new(*run))
            .with_context(|| format!("run {run} in {}", args.data.display()))?;
        if games.is_empty() && !args.runs.is_empty() {
            bail!("run {run} has no games in {}", args.data.display());
        }
        for g in games {
            let what = || format!("run {run} game {}", g.game_id);
            let start = Position::from_fen(&g.start_fen).with_context(|| format!("{}: start FEN", what()))?;
            let result = match g.result.as_str() {
                "1-0" => GameResult::RedWins,
                "0-1" => GameResult::BlackWins,
                "1/2-1/2" => GameResult::Draw,
                // An imported game recorded without a result: its moves count, unscored.
                "*" => GameResult::Ongoing,
                other => bail!("{}: result `{other}`", what()),
            };
            let moves = g
                .moves
                .iter()
                .map(|m| parse_uci(m).map_err(|e| anyhow::anyhow!("{}: move `{m}`: {e}", what())))
                .collect::<Result<Vec<_>>>()?;
            // The suite's line was not the players' choice: its plies are skipped, and count
            // toward --max-ply.
            builder.add_game_from_ply(&start, g.opening_moves.len(), &moves, result).with_context(what)?;
            *starts.entry(g.start_fen).or_default() += 1;
        }
    }
    let games = builder.games();
    let book = builder.finish(args.min_games);
    book.save(&args.out)?;
    println!(
        "{} games of {} runs: {} positions, {} moves (played at least {} times, first {} plies) -> {}",
        games,
        runs.len(),
        book.positions(),
        book.len(),
        args.min_games,
        args.max_ply,
        args.out.display()
    );
    if let Some((fen, n)) = starts.iter().max_by(|a, b| a.1.cmp(b.1).then(b.0.cmp(a.0))) {
        println!("most common start position ({n} games): {fen}");
    }
    Ok(())
}

fn show(args: &ShowArgs) -> Result<()> {
    let book = Book::open(&args.book)?;
    let fen = if args.fen == "startpos" { engine::START_FEN } else { args.fen.as_str() };
    let pos = Position::from_fen(fen).with_context(|| format!("--fen `{fen}`"))?;
    let moves = book.moves(&pos);
    if moves.is_empty() {
        println!("no book move for {fen}");
        return Ok(());
    }
    println!(
        "{:<6} {:<8} {:>8} {:>7} {:>7} {:>7} {:>7} {:>7}",
        "move", "wxf", "games", "wins", "draws", "losses", "score", "weight"
    );
    for m in moves {
        println!(
            "{:<6} {:<8} {:>8} {:>7} {:>7} {:>7} {:>6.1}% {:>7}",
            m.mv.to_string(),
            write_move(&pos, m.mv, Notation::Wxf),
            m.games,
            m.wins,
            m.draws,
            m.losses,
            100.0 * m.score(),
            m.weight()
        );
    }
    Ok(())
}
