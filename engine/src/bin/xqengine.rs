//! `xqengine`: with no arguments a UCI loop on stdin/stdout; with arguments, subcommands.

use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use clap::{Parser, Subcommand};
use engine::ParamSet;
use engine::notation::{Notation, parse_move, write_move};
use engine::rules::judge;
use engine::uci::{UciSession, play_moves, write_divide};
use engine::{Position, START_FEN};

#[derive(Parser, Debug)]
#[command(name = "xqengine", version, about = "Xiangqi engine: UCI loop without arguments, tools with them")]
struct Cli {
    /// Engine parameters (TOML, as `params --dump` writes: evaluation tables and a `[search]`
    /// table) for the UCI loop and bench.
    #[arg(long, global = true)]
    params: Option<PathBuf>,
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Search the fixed bench positions; the last line is `N nodes M nps`.
    Bench {
        /// Search depth.
        #[arg(default_value_t = engine::bench::DEFAULT_DEPTH)]
        depth: u32,
    },
    /// Engine parameters.
    Params {
        /// Print the parameters (defaults, or `--params FILE`) as TOML.
        #[arg(long)]
        dump: bool,
        /// Print the search parameters as SPSA input, `name,value,min,max,c_end,r_end` a line
        /// (as Stockfish's TUNE does), for `xqfarm spsa --params`.
        #[arg(long, conflicts_with = "dump")]
        spsa: bool,
    },
    /// Count leaf nodes of the legal move tree, per root move.
    Perft {
        /// Position to count from (`startpos` or a FEN).
        #[arg(long, default_value = "startpos")]
        fen: String,
        /// Depth in plies.
        #[arg(long)]
        depth: u32,
    },
    /// Judge the position reached after the moves; prints one JSON line.
    Judge {
        /// Starting position (`startpos` or a FEN).
        #[arg(long, default_value = "startpos")]
        fen: String,
        /// Moves in UCI notation, in order.
        #[arg(long, num_args = 0..)]
        moves: Vec<String>,
    },
    /// Translate a move between notations (UCI, ICCS, WXF, Chinese).
    Notation {
        /// Position the move is played in (`startpos` or a FEN).
        #[arg(long, default_value = "startpos")]
        fen: String,
        /// The move, in any of the four notations.
        #[arg(long = "move")]
        mv: String,
        /// Notation to write: uci, iccs, wxf or chinese.
        #[arg(long)]
        to: Notation,
    },
}

fn parse_position(fen: &str) -> Result<Position> {
    let fen = if fen == "startpos" { START_FEN } else { fen };
    Position::from_fen(fen).with_context(|| format!("invalid FEN `{fen}`"))
}

fn main() -> ExitCode {
    match run() {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<ExitCode> {
    let cli = Cli::parse();
    let params = match &cli.params {
        Some(path) => {
            ParamSet::from_toml_file(path).with_context(|| format!("loading parameters from {}", path.display()))?
        }
        None => ParamSet::default(),
    };
    if cli.command.is_none() {
        let mut session = UciSession::stdout();
        if let Some(path) = &cli.params {
            session.handle(&format!("setoption name ParamsFile value {}", path.display()));
        }
        session.run(io::stdin().lock())?;
        return Ok(ExitCode::SUCCESS);
    }
    let stdout = io::stdout();
    let mut out = stdout.lock();
    match cli.command {
        None => {}
        Some(Command::Bench { depth }) => {
            let result = engine::bench::run(depth, &params, |i, fen, nodes| {
                eprintln!("position {:>2}: {nodes:>10} nodes  {fen}", i + 1);
            });
            writeln!(out, "{} nodes {} nps", result.nodes, result.nps())?;
        }
        Some(Command::Params { dump, spsa }) => {
            if dump {
                write!(out, "{}", params.to_toml())?;
            } else if spsa {
                write!(out, "{}", params.search.spsa_lines())?;
            } else {
                bail!("nothing to do: pass --dump or --spsa");
            }
        }
        Some(Command::Perft { fen, depth }) => {
            let mut pos = parse_position(&fen)?;
            let start = std::time::Instant::now();
            let nodes = write_divide(&mut pos, depth, &mut out)?;
            let secs = start.elapsed().as_secs_f64();
            eprintln!("time {:.3} s, {:.0} leaves/s", secs, nodes as f64 / secs.max(1e-9));
        }
        Some(Command::Judge { fen, moves }) => {
            let mut pos = parse_position(&fen)?;
            let moves: Vec<&str> = moves.iter().map(String::as_str).collect();
            if let Err(why) = play_moves(&mut pos, &moves) {
                eprintln!("error: illegal move list: {why}");
                return Ok(ExitCode::from(2));
            }
            let outcome = judge(&pos);
            let line = serde_json::json!({
                "result": outcome.result.as_str(),
                "reason": outcome.reason.as_str(),
                "fen": pos.fen(),
            });
            writeln!(out, "{line}")?;
        }
        Some(Command::Notation { fen, mv, to }) => {
            let pos = parse_position(&fen)?;
            let m = parse_move(&pos, &mv)?;
            writeln!(out, "{}", write_move(&pos, m, to))?;
        }
    }
    Ok(ExitCode::SUCCESS)
}
