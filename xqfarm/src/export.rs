//! `xqfarm export pgn`: a run's games from the Parquet data as xqbase-style PGN.

use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::Args;
use engine::notation::Notation;
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
    /// The coordinator's database (`--db` of `serve`): names the variants in `[Red]`/`[Black]`
    /// (their ids are in `[RedId]`/`[BlackId]` either way; without it the names are short ids).
    /// A SQLite file or a PostgreSQL URL, as `serve --db` takes.
    #[arg(long)]
    db: Option<String>,
}

pub fn pgn(args: &PgnArgs) -> Result<()> {
    let notation: Notation = args.notation.parse().map_err(anyhow::Error::msg)?;
    anyhow::ensure!(notation != Notation::Uci, "--notation: use wxf, chinese or iccs (PGN readers do not know UCI)");
    let games = farmdata::read_games(&args.data, args.run)
        .with_context(|| format!("reading run {} under {}", args.run, args.data.display()))?;
    let storage = match &args.db {
        Some(db) => Some(
            coordinator::storage::open(db)
                .with_context(|| format!("opening the database {}", coordinator::storage::describe(db)))?,
        ),
        None => None,
    };
    let names = |id: &str| -> String {
        let id = proto::domain::VariantId::from(id);
        storage
            .as_ref()
            .and_then(|s| s.get_variant(&id).ok())
            .map_or_else(|| web::api::rows::short_id(&id), |v| v.spec.name)
    };
    // A tournament's games are headed by its name and `round.game` (with --db, which holds
    // its draw and each game's match).
    let tournament = match &storage {
        Some(s) => {
            let run = s.get_run(args.run).with_context(|| format!("run {} in the database", args.run))?;
            s.tournament_draw(args.run)?
                .map(|draw| web::pgn::EventRound::new(args.run.get(), &run.spec.name, Some(&draw)))
        }
        None => None,
    };
    let mut headers = tournament;
    let mut games = games;
    games.sort_by_key(|g| g.game_id);
    let mut out = String::new();
    for g in &games {
        let event_round = match (&mut headers, &storage) {
            (Some(h), Some(s)) => {
                let stored = s.get_game(g.game_id).with_context(|| format!("game {} in the database", g.game_id))?;
                Some(h.next(stored.pairing, stored.pair_index, stored.game_in_pair))
            }
            _ => None,
        };
        write_game(&mut out, args.run, g, &names, event_round, notation)
            .with_context(|| format!("game {}", g.game_id))?;
    }
    match &args.out {
        Some(p) => std::fs::write(p, out).with_context(|| format!("writing {}", p.display()))?,
        None => print!("{out}"),
    }
    eprintln!("{} games", games.len());
    Ok(())
}

fn write_game(
    out: &mut String,
    run: RunId,
    g: &farmdata::GameRow,
    names: &dyn Fn(&str) -> String,
    event_round: Option<(String, String)>,
    notation: Notation,
) -> Result<()> {
    let (red, black) = (names(&g.red_variant), names(&g.black_variant));
    let (event, round) =
        event_round.unwrap_or_else(|| (format!("xqfarm run {run}"), format!("{}.{}", g.pair_id, g.game_id)));
    let game = engine::pgn::PgnGame {
        event,
        round,
        red_name: &red,
        red_id: &g.red_variant,
        black_name: &black,
        black_id: &g.black_variant,
        result: &g.result,
        termination: &g.reason,
        start_fen: &g.opening_fen,
        book_moves: &g.opening_moves,
        moves: &g.moves,
    };
    engine::pgn::write_game(out, &game, notation).map_err(anyhow::Error::msg)
}
