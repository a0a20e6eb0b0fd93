//! `/api/games/{id}`: one stored game for the viewer (moves in UCI, WXF and Chinese with the
//! position after each, the sampled positions' scores), and its PGN.

use axum::Json;
use axum::extract::rejection::QueryRejection;
use axum::extract::{Path, Query, State};
use axum::http::header;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use engine::Position;
use engine::notation::{Notation, parse_uci, write_move};
use engine::pgn::{PgnGame, write_game};
use proto::domain::{PositionSample, Termination, VariantId};
use serde_json::{Value, json};

use coordinator::run_openings::RunOpenings;

use super::{NotationQuery, blocking, parse_id};
use crate::auth::Reader;
use crate::error::{ApiError, ApiResult};
use crate::state::AppState;

pub fn routes() -> axum::Router<AppState> {
    axum::Router::new().route("/api/games/{id}", get(show)).route("/api/games/{id}/pgn", get(pgn))
}

/// A move of a game as the viewer lists it: its texts and the position after it.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct MoveRow {
    pub uci: String,
    pub wxf: String,
    pub chinese: String,
    pub fen: String,
}

/// Replays `moves` from `start_fen`, naming the first move that does not replay.
pub fn move_rows(start_fen: &str, moves: &[String]) -> Result<Vec<MoveRow>, String> {
    let mut pos = Position::from_fen(start_fen).map_err(|e| format!("start FEN `{start_fen}`: {e}"))?;
    let mut rows = Vec::with_capacity(moves.len());
    for (i, m) in moves.iter().enumerate() {
        let mv = parse_uci(m).map_err(|e| format!("move {} `{m}`: {e}", i + 1))?;
        if !pos.is_legal_move(mv) {
            return Err(format!("move {} `{m}` is illegal in {}", i + 1, pos.fen()));
        }
        let wxf = write_move(&pos, mv, Notation::Wxf);
        let chinese = write_move(&pos, mv, Notation::Chinese);
        pos.play_unchecked(mv);
        rows.push(MoveRow { uci: m.clone(), wxf, chinese, fen: pos.fen() });
    }
    Ok(rows)
}

/// The endgame tables' verdict on a position, for the viewer: `None` when there are no
/// tables or the position is in none. `side` is the side to move, `wdl` its result.
pub fn tablebase_verdict(tables: &engine::tablebase::Tablebases, fen: &str) -> Option<Value> {
    let pos = Position::from_fen(fen).ok()?;
    let value = tables.probe(&pos).ok()??;
    let best = tables.best_move(&pos).ok().flatten();
    let side = pos.side_to_move();
    let (winner, text) = match value.wdl {
        engine::tablebase::Wdl::Win => (Some(side), String::new()),
        engine::tablebase::Wdl::Loss => (Some(!side), String::new()),
        engine::tablebase::Wdl::Draw => (None, "Draw by the endgame tables".to_owned()),
    };
    let text = match winner {
        Some(w) if value.by_rule => format!(
            "{} wins by the endgame tables: the other side can hold only by a perpetual check or chase",
            if w == engine::Color::Red { "Red" } else { "Black" },
        ),
        Some(w) => format!(
            "{} wins by the endgame tables: {} plies to conversion",
            if w == engine::Color::Red { "Red" } else { "Black" },
            value.dtc
        ),
        None => text,
    };
    let set = engine::tablebase::Material::of(&pos).canonical().to_string();
    Some(json!({
        "set": set,
        "wdl": value.wdl.name(),
        "dtc": value.dtc,
        "by_rule": value.by_rule,
        "best": best.map(|b| b.mv.to_string()),
        "best_wxf": best.map(|b| write_move(&pos, b.mv, Notation::Wxf)),
        "text": text,
    }))
}

/// A sampled position's search score from Red's side (samples hold the mover's view); `None`
/// where the engine reported no score.
pub fn red_score(p: &PositionSample) -> Option<i32> {
    p.search_score.map(|s| if p.red_to_move { s } else { s.saturating_neg() })
}

/// How a game ended, in words: "Red loses by perpetual check", "Draw by adjudication".
pub fn verdict_text(result: &str, reason: Termination) -> String {
    use engine::rules::Reason;
    let why = match reason {
        Termination::Rules(Reason::Checkmate) => "checkmate",
        Termination::Rules(Reason::Stalemate) => "having no legal move",
        Termination::Rules(Reason::PerpetualCheck) => "perpetual check",
        Termination::Rules(Reason::PerpetualChase) => "perpetual chase",
        Termination::Rules(Reason::Repetition) => "repetition",
        Termination::Rules(Reason::MoveLimit) => "the move limit",
        Termination::Rules(Reason::Ongoing) => "no reason",
        Termination::AdjudicatedResign | Termination::AdjudicatedDraw => "adjudication",
        Termination::IllegalMove => "an illegal move",
        Termination::NoMove => "giving no move",
        Termination::TimeForfeit => "time forfeit",
        Termination::EngineError => "engine failure",
        Termination::EngineHung => "an engine that hung",
        Termination::Tablebase => "the endgame tables",
    };
    match result {
        "1-0" => format!("Black loses by {why}"),
        "0-1" => format!("Red loses by {why}"),
        _ => format!("Draw by {why}"),
    }
}

fn name(state: &AppState, id: &VariantId) -> String {
    let storage = state.farm.storage();
    let mut names = state.names.lock().unwrap_or_else(|p| p.into_inner());
    names.name(id, |id| storage.get_variant(id).ok())
}

async fn show(_: Reader, State(state): State<AppState>, Path(id): Path<String>) -> ApiResult<Json<Value>> {
    let id: u64 = parse_id("game", &id)?;
    blocking(move || {
        let storage = state.farm.storage();
        // Positions pruned from the database after export are read back from Parquet.
        let data_dir = state.farm.exporter().data_dir().map(|d| d.as_path());
        let (g, positions_from) = coordinator::storage::prune::game_with_positions(storage.as_ref(), data_dir, id)?;
        let r = &g.report;
        let moves = move_rows(&r.start_fen, &r.moves).map_err(|e| ApiError::internal(format!("game {id}: {e}")))?;
        let mut openings = RunOpenings::of_run(storage.as_ref(), &storage.get_run(g.run)?)?;
        let opening = openings
            .of_pair(g.opening_index, g.pair_index, g.game_in_pair)
            .map_err(|e| ApiError::internal(format!("game {id}: {e}")))?;
        let book =
            move_rows(&opening.fen, &opening.moves).map_err(|e| ApiError::internal(format!("game {id}: {e}")))?;
        let ecco = Position::from_fen(&opening.fen)
            .ok()
            .and_then(|start| engine::pgn::ecco_of(&start, opening.moves.iter().chain(&r.moves)))
            .map(|o| json!({ "code": o.code, "name": o.name, "variation": o.variation }));
        // Positions without a score are left out of the chart.
        let scores: Vec<Value> = r
            .positions
            .iter()
            .filter_map(|p| red_score(p).map(|score| json!({ "ply": p.ply, "score": score })))
            .collect();
        // Per ply (0 = the start), the tables' verdict where the position is in one.
        let tablebase: Vec<Value> = match state.farm.tablebases() {
            Some(tables) => std::iter::once(r.start_fen.as_str())
                .chain(moves.iter().map(|m| m.fen.as_str()))
                .map(|fen| tablebase_verdict(tables, fen).unwrap_or(Value::Null))
                .collect(),
            None => Vec::new(),
        };
        Ok(Json(json!({
            "id": g.game_id,
            "run": g.run.get(),
            "red": { "id": r.red.to_string(), "name": name(&state, &r.red) },
            "black": { "id": r.black.to_string(), "name": name(&state, &r.black) },
            "start_fen": r.start_fen,
            // The suite's line that led to `start_fen`, which the players did not choose.
            // Its ECCO code over the whole game (null unless it began at the initial position).
            "opening": { "index": g.opening_index, "fen": opening.fen, "moves": book, "ecco": ecco },
            "result": r.outcome.as_str(),
            "reason": r.reason.as_str(),
            "verdict_text": verdict_text(r.outcome.as_str(), r.reason),
            "worker": g.worker,
            "moves": moves,
            "scores": scores,
            // Where `scores` came from: "database", "parquet" (pruned from the database after
            // export), or "pruned" (and no Parquet to read them from: `scores` is empty).
            "positions_from": positions_from.as_str(),
            "tablebase": tablebase,
        })))
    })
    .await
}

/// Appends a stored game's PGN to `out`, from the start of its opening line (`openings`: its
/// run's; `headers`: its run's `[Event]` and `[Round]`, given the run's games in id order).
pub fn write_stored(
    state: &AppState,
    out: &mut String,
    g: &coordinator::StoredGame,
    openings: &mut RunOpenings,
    headers: &mut crate::pgn::EventRound,
    notation: Notation,
) -> ApiResult<()> {
    let r = &g.report;
    let opening = openings
        .of_pair(g.opening_index, g.pair_index, g.game_in_pair)
        .map_err(|e| ApiError::internal(format!("game {}: {e}", g.game_id)))?;
    let (red, black) = (name(state, &r.red), name(state, &r.black));
    let (red_id, black_id) = (r.red.to_string(), r.black.to_string());
    let (event, round) = headers.next(g.pairing, g.pair_index, g.game_in_pair);
    let game = PgnGame {
        event,
        round,
        red_name: &red,
        red_id: &red_id,
        black_name: &black,
        black_id: &black_id,
        result: r.outcome.as_str(),
        termination: r.reason.as_str(),
        start_fen: &opening.fen,
        book_moves: &opening.moves,
        moves: &r.moves,
    };
    write_game(out, &game, notation).map_err(|e| ApiError::internal(format!("game {}: {e}", g.game_id)))
}

async fn pgn(
    _: Reader,
    State(state): State<AppState>,
    Path(id): Path<String>,
    q: Result<Query<NotationQuery>, QueryRejection>,
) -> ApiResult<Response> {
    let id: u64 = parse_id("game", &id)?;
    let Query(q) = q?;
    let notation = q.checked()?;
    let text = blocking(move || {
        let storage = state.farm.storage();
        let g = storage.get_game(id)?;
        let run = storage.get_run(g.run)?;
        let mut openings = RunOpenings::of_run(storage.as_ref(), &run)?;
        let draw = storage.tournament_draw(g.run)?;
        let mut headers = crate::pgn::EventRound::new(g.run.get(), &run.spec.name, draw.as_ref());
        if draw.is_some() {
            // A tournament game's number within its match counts the match's earlier games.
            let mut after = 0;
            'earlier: loop {
                let chunk = storage.games_since(g.run, after, 1_000)?;
                let Some(last) = chunk.last() else { break };
                after = last.game_id;
                for earlier in chunk.iter().take_while(|e| e.game_id < g.game_id) {
                    headers.next(earlier.pairing, earlier.pair_index, earlier.game_in_pair);
                }
                if after >= g.game_id {
                    break 'earlier;
                }
            }
        }
        let mut out = String::new();
        write_stored(&state, &mut out, &g, &mut openings, &mut headers, notation)?;
        Ok(out)
    })
    .await?;
    Ok(([(header::CONTENT_TYPE, "application/x-chess-pgn; charset=utf-8")], text).into_response())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tables_verdict_for_the_viewer() {
        let dir = tempfile::tempdir().expect("temp dir");
        let tables = engine::tablebase::Tablebases::open(dir.path()).expect("a directory");
        tables.generate("KRK".parse().expect("a set"), &|_| {}).expect("generates");
        let v = tablebase_verdict(&tables, "3k5/9/9/9/9/9/9/9/9/4K3R b - - 0 1").expect("in the table");
        assert_eq!(v["set"], "KRK");
        assert_eq!(v["wdl"], "loss");
        let text = v["text"].as_str().expect("text");
        assert!(text.starts_with("Red wins by the endgame tables: "), "{text}");
        assert!(v["best"].as_str().is_some_and(|m| m.starts_with("d9")), "{v}");
        assert_eq!(tablebase_verdict(&tables, engine::START_FEN), None);
        assert_eq!(tablebase_verdict(&tables, "not a fen"), None);
    }

    #[test]
    fn moves_replay_with_their_texts_and_positions() {
        let rows = move_rows(engine::START_FEN, &["h2e2".into(), "h9g7".into()]).expect("legal");
        assert_eq!(rows[0].wxf, "C2.5");
        assert_eq!(rows[1].chinese, "马８进７");
        assert_eq!(rows[1].fen, "rnbakab1r/9/1c4nc1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR w - - 2 2");
        assert!(move_rows(engine::START_FEN, &["h2h9".into(), "a9a0".into()]).expect_err("illegal").contains("move 2"));
    }

    #[test]
    fn verdicts_read_as_sentences() {
        use engine::rules::Reason;
        assert_eq!(verdict_text("0-1", Termination::Rules(Reason::PerpetualCheck)), "Red loses by perpetual check");
        assert_eq!(verdict_text("1/2-1/2", Termination::Rules(Reason::MoveLimit)), "Draw by the move limit");
        assert_eq!(verdict_text("1-0", Termination::TimeForfeit), "Black loses by time forfeit");
    }
}
