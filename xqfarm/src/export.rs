//! `xqfarm export pgn`: a run's games from the Parquet data as xqbase-style PGN.

use std::fmt::Write as _;
use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::Args;
use engine::Position;
use engine::notation::{Notation, parse_uci, write_move};
use proto::domain::RunId;

#[derive(Args, Debug)]
pub struct PgnArgs {
    /// The coordinator's data directory (`--data` of `serve`, `data/` of `local`).
    #[arg(long)]
    data: PathBuf,
    /// Run id.
    #[arg(long)]
    run: RunId,
    /// Move notation: wxf, chinese or iccs.
    #[arg(long, default_value = "wxf")]
    notation: String,
    /// Output file (stdout when absent).
    #[arg(long)]
    out: Option<PathBuf>,
}

pub fn pgn(args: &PgnArgs) -> Result<()> {
    let notation: Notation = args.notation.parse().map_err(anyhow::Error::msg)?;
    anyhow::ensure!(notation != Notation::Uci, "--notation: use wxf, chinese or iccs (PGN readers do not know UCI)");
    let games = coordinator::parquet::read_games(&args.data, args.run)
        .with_context(|| format!("reading run {} under {}", args.run, args.data.display()))?;
    let mut out = String::new();
    for g in &games {
        write_game(&mut out, args.run, g, notation).with_context(|| format!("game {}", g.game_id))?;
    }
    match &args.out {
        Some(p) => std::fs::write(p, out).with_context(|| format!("writing {}", p.display()))?,
        None => print!("{out}"),
    }
    eprintln!("{} games", games.len());
    Ok(())
}

fn write_game(out: &mut String, run: RunId, g: &coordinator::parquet::GameRow, notation: Notation) -> Result<()> {
    let format = match notation {
        Notation::Wxf => "WXF",
        Notation::Chinese => "Chinese",
        _ => "ICCS",
    };
    let mut pos = Position::from_fen(&g.start_fen).with_context(|| format!("start FEN `{}`", g.start_fen))?;
    let _ = writeln!(out, "[Game \"Chinese Chess\"]");
    let _ = writeln!(out, "[Event \"xqfarm run {run}\"]");
    let _ = writeln!(out, "[Round \"{}.{}\"]", g.pair_id, g.game_id);
    let _ = writeln!(out, "[Red \"{}\"]", g.red_variant);
    let _ = writeln!(out, "[Black \"{}\"]", g.black_variant);
    let _ = writeln!(out, "[Result \"{}\"]", g.result);
    let _ = writeln!(out, "[FEN \"{}\"]", g.start_fen);
    let _ = writeln!(out, "[Format \"{format}\"]");
    let _ = writeln!(out, "[Termination \"{}\"]", g.reason);
    let mut text = String::new();
    for (i, m) in g.moves.iter().enumerate() {
        let mv = parse_uci(m).map_err(anyhow::Error::msg).with_context(|| format!("move {i} `{m}`"))?;
        anyhow::ensure!(pos.is_legal_move(mv), "move {i} `{m}` is illegal in {}", pos.fen());
        if pos.side_to_move() == engine::Color::Red || i == 0 {
            let number = pos.fullmove();
            let _ = write!(text, "{number}.{} ", if pos.side_to_move() == engine::Color::Black { " ..." } else { "" });
        }
        let _ = write!(text, "{} ", write_move(&pos, mv, notation));
        pos.play_unchecked(mv);
    }
    let _ = writeln!(out, "{}{}\n", text, g.result);
    Ok(())
}
