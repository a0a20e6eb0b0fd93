//! The rows of the two tables, flat and free of protobuf or Arrow types.

use engine::OpeningLine;
use proto::domain::{GameReport, RunId};

/// The opening line a game was played from: the suite's line, which the players did not choose.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameOpening {
    /// The FEN the line starts from.
    pub fen: String,
    /// The line's moves in UCI coordinates, played before the game's own.
    pub moves: Vec<String>,
}

impl GameOpening {
    pub fn of_line(line: &OpeningLine) -> GameOpening {
        GameOpening { fen: line.setup.fen(), moves: line.moves.iter().map(ToString::to_string).collect() }
    }
}

/// One row of the `games` table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameRow {
    /// Stored as the Hive partition `run=<id>`, not as a column of the files.
    pub run: RunId,
    pub game_id: u64,
    pub pair_id: u64,
    pub opening_id: u32,
    /// The opening line's start position; the whole game is `opening_fen`, then
    /// `opening_moves`, then `moves`.
    pub opening_fen: String,
    /// The opening line's moves (UCI), which led from `opening_fen` to `start_fen`.
    pub opening_moves: Vec<String>,
    /// Where the players started: the position after the opening line.
    pub start_fen: String,
    pub red_variant: String,
    pub black_variant: String,
    /// `1-0`, `0-1` or `1/2-1/2`, from Red's side.
    pub result: String,
    pub reason: String,
    pub plies: u32,
    /// The players' moves from `start_fen`, in UCI coordinates (`h2e2`).
    pub moves: Vec<String>,
    pub duration_ms: u64,
    pub nodes: u64,
    pub worker: String,
}

/// One row of the `positions` table: a position sampled for tuning.
#[derive(Clone, Debug, PartialEq)]
pub struct PositionRow {
    /// Stored as the Hive partition `run=<id>`, not as a column of the files.
    pub run: RunId,
    pub game_id: u64,
    pub ply: u32,
    pub fen: String,
    /// `w` (Red) or `b` (Black), as in the FEN.
    pub side_to_move: String,
    /// The default parameters' static evaluation, side to move's view.
    pub static_eval: i32,
    /// The engine's search score, side to move's view; `None` where it reported none.
    pub search_score: Option<i32>,
    pub best_move: String,
    pub in_check: bool,
    pub quiet: bool,
    /// The game's final result from Red's side: 1, 0.5 or 0; `None` where it is unknown (an
    /// imported game recorded without a result).
    pub result: Option<f32>,
}

/// Flattens one finished game, played from line `opening_id` of its suite (`opening`), into
/// its `games` row and its sampled `positions` rows.
pub fn rows_from_report(
    run: RunId,
    game_id: u64,
    pair_id: u64,
    (opening_id, opening): (u32, &GameOpening),
    worker: &str,
    report: &GameReport,
) -> (GameRow, Vec<PositionRow>) {
    let game = GameRow {
        run,
        game_id,
        pair_id,
        opening_id,
        opening_fen: opening.fen.clone(),
        opening_moves: opening.moves.clone(),
        start_fen: report.start_fen.clone(),
        red_variant: report.red.to_string(),
        black_variant: report.black.to_string(),
        result: report.outcome.as_str().to_owned(),
        reason: report.reason.as_str().to_owned(),
        plies: u32::try_from(report.moves.len()).unwrap_or(u32::MAX),
        moves: report.moves.clone(),
        duration_ms: report.duration_ms,
        nodes: report.nodes,
        worker: worker.to_owned(),
    };
    let result = Some(report.outcome.red_score() as f32);
    let positions = report
        .positions
        .iter()
        .map(|sample| PositionRow {
            run,
            game_id,
            ply: sample.ply,
            fen: sample.fen.clone(),
            side_to_move: if sample.red_to_move { "w" } else { "b" }.to_owned(),
            static_eval: sample.static_eval,
            search_score: sample.search_score,
            best_move: sample.best_move.clone(),
            in_check: sample.in_check,
            quiet: sample.quiet,
            result,
        })
        .collect();
    (game, positions)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proto::domain::{GameOutcome, PositionSample};

    #[test]
    fn a_report_becomes_one_game_row_and_its_samples() {
        let report = GameReport {
            red: "aaa".into(),
            black: "bbb".into(),
            start_fen: "startpos".into(),
            outcome: GameOutcome::BlackWins,
            reason: proto::domain::Termination::Rules(engine::rules::Reason::Checkmate),
            moves: vec!["h2e2".into(), "h9g7".into(), "h0g2".into()],
            move_stats: Vec::new(),
            forfeit: None,
            duration_ms: 1234,
            nodes: 99,
            positions: vec![PositionSample {
                ply: 1,
                fen: "fen1".into(),
                red_to_move: false,
                static_eval: -12,
                search_score: Some(30),
                best_move: "h9g7".into(),
                in_check: false,
                quiet: true,
            }],
        };
        let line = OpeningLine::parse("startpos moves h2e2 h9g7").expect("a legal line");
        let opening = GameOpening::of_line(&line);
        let (game, positions) = rows_from_report(RunId::new(7), 42, 21, (3, &opening), "w1", &report);
        assert_eq!(game.opening_fen, engine::Position::startpos().fen());
        assert_eq!(game.opening_moves, ["h2e2", "h9g7"]);
        assert_eq!(game.result, "0-1");
        assert_eq!(game.plies, 3);
        assert_eq!((game.run.get(), game.game_id, game.pair_id, game.opening_id), (7, 42, 21, 3));
        assert_eq!(game.worker, "w1");
        assert_eq!(positions.len(), 1);
        assert_eq!(positions[0].side_to_move, "b");
        assert_eq!(positions[0].result, Some(0.0));
        assert_eq!((positions[0].run.get(), positions[0].game_id), (7, 42));
    }
}
