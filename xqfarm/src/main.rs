//! `xqfarm`: the one command line of the farm. It only wires the library crates together;
//! each subcommand's logic lives in the crate that owns it.

mod local_match;

use std::path::PathBuf;
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
    /// Perft of the engine's move generator, with leaves per second.
    Perft {
        /// Position (`startpos` or a FEN).
        #[arg(long, default_value = "startpos")]
        fen: String,
        /// Depth in plies.
        #[arg(long, default_value_t = 6)]
        depth: u32,
    },
    /// Play a local match of game pairs between two parameter sets and report Elo.
    Match(local_match::MatchArgs),
    /// Generate a balanced opening suite.
    Openings {
        /// How many openings.
        #[arg(long, default_value_t = 240)]
        count: usize,
        /// Search depth of the balance check.
        #[arg(long, default_value_t = 6)]
        depth: u32,
        /// Keep openings scored within this many centipawns.
        #[arg(long, default_value_t = 60)]
        margin: i32,
        /// Output file (stdout when absent).
        #[arg(long)]
        out: Option<PathBuf>,
    },
}

fn main() -> Result<()> {
    match Cli::parse().command {
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
        Command::Match(args) => local_match::run(&args)?,
        Command::Openings { count, depth, margin, out } => {
            let settings = worker::openings::GenerateSettings { count, depth, margin_cp: margin, ..Default::default() };
            let lines = worker::openings::generate(&settings);
            let mut text = format!(
                "# xqfarm opening suite: {} openings, common systems plus random plies, each within {margin} cp at depth {depth}\n",
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
    }
    Ok(())
}
