//! Game archives into the farm's data: `xqfarm import pgn`. Every game of the PGN files (in
//! any notation the engine reads) is replayed as it was played (`engine::pgn::replay`) and
//! written as the `games` and `positions` rows of one new *imported* run, numbered from
//! [`RunId::FIRST_IMPORTED`] so that no coordinator ever gives its id to a run of its own.
//!
//! What an imported run holds, and how it differs from a played one:
//! - `games.result` is the `[Result]` tag (`1-0`, `0-1`, `1/2-1/2`), or `*` where the tag is
//!   missing or says `*`: the result is unknown, and the positions' `result` is null.
//! - `games.reason` ([`reason_text`]): `recorded` (the game ends where the players stopped:
//!   resignation, agreement, time), the rules' reason where our rules end it on its last move
//!   (`checkmate`, `repetition`, ...), or `recorded_past_<reason>_at_<ply>` where the players
//!   went on after our rules would have ended it at that ply.
//! - every position from ply 1 is recorded, as in a datagen run, with the default parameters'
//!   `static_eval` and `quiet`, and **no engine score**: `search_score` is null, never filled in.
//! - `red_variant`/`black_variant` are the `[Red]`/`[Black]` tags (the players), `worker` is
//!   `<file name>#<game number>` (where the game came from), `pair_id` is the game id, and
//!   `duration_ms`/`nodes` are 0.
//!
//! A game that cannot be split from its file (a malformed tag), has a bad `[FEN]` tag, an
//! unknown notation or an illegal move is skipped and named by file, game number and move
//! ([`SkippedGame`]); the rest are imported. A file whose SHA-256 is already in the imports
//! table ([`read_imports`]) is not read again.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use engine::Position;
use engine::eval::{Params, evaluate};
use engine::pgn::{PgnText, Replay, read_games, replay};
use engine::search::Quiescence;
use proto::domain::RunId;
use sha2::{Digest, Sha256};

use super::error::{AtPath, Error, Result};
use super::imports::{ImportRow, read_imports, write_imports};
use super::rows::{GameRow, PositionRow};
use super::schema::Table;
use super::writer::export_segment;

/// Games written per segment (one `games` and one `positions` part file each).
const SEGMENT_GAMES: usize = 4096;

/// What to import into.
#[derive(Clone, Debug, Default)]
pub struct ImportOptions {
    /// The run's name; the first new file's name without its extension when absent.
    pub name: Option<String>,
    /// Stored in the imports table.
    pub created_unix_ms: u64,
}

/// Why a game was skipped.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum SkipReason {
    /// A tag pair that does not read, so the game's text cannot be trusted.
    BadTag,
    /// A `[FEN]` tag that is no legal position.
    BadFen,
    /// A move no notation reads.
    UnknownNotation,
    /// A move that reads but is illegal where it stands.
    IllegalMove,
}

impl SkipReason {
    pub const fn as_str(self) -> &'static str {
        match self {
            SkipReason::BadTag => "bad tag",
            SkipReason::BadFen => "bad FEN tag",
            SkipReason::UnknownNotation => "unknown notation",
            SkipReason::IllegalMove => "illegal move",
        }
    }
}

impl std::fmt::Display for SkipReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A game that was not imported, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SkippedGame {
    pub file: String,
    /// Its number in the file, from 1.
    pub game: usize,
    pub reason: SkipReason,
    /// The engine's words: the move number, text and why (`move 12. `R1+3` (Red): ...`).
    pub message: String,
}

impl std::fmt::Display for SkippedGame {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: game {}: {}", self.file, self.game, self.message)
    }
}

/// One file of an import.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileImport {
    pub file: String,
    pub sha256: String,
    pub games: u64,
    pub skipped: u64,
    /// The imported run that already holds this file (it was not read again).
    pub already_in: Option<RunId>,
}

/// What an import did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ImportSummary {
    /// The new run; `None` when no file brought a game (each was imported before, or empty).
    pub run: Option<RunId>,
    pub name: String,
    pub files: Vec<FileImport>,
    pub games: u64,
    pub positions: u64,
    /// Imported games without a known result.
    pub unknown_results: u64,
    /// Imported games that went on after our rules would have ended them.
    pub past_rules_end: u64,
    pub skipped: Vec<SkippedGame>,
}

impl ImportSummary {
    /// How many games were skipped for each reason.
    pub fn skipped_by_reason(&self) -> BTreeMap<SkipReason, u64> {
        let mut counts = BTreeMap::new();
        for s in &self.skipped {
            *counts.entry(s.reason).or_default() += 1;
        }
        counts
    }
}

/// The PGN files the arguments name: a file as it is, a directory's `*.pgn` files (any case,
/// not its subdirectories) in name order.
pub fn pgn_files(args: &[PathBuf]) -> Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    for arg in args {
        if arg.is_dir() {
            let mut found = Vec::new();
            for entry in std::fs::read_dir(arg).at(arg)? {
                let path = entry.at(arg)?.path();
                if path.is_file() && path.extension().is_some_and(|e| e.eq_ignore_ascii_case("pgn")) {
                    found.push(path);
                }
            }
            found.sort();
            files.extend(found);
        } else {
            files.push(arg.clone());
        }
    }
    Ok(files)
}

/// Imports the games of `files` (see [`pgn_files`] for directories) into a new imported run
/// under `data_dir`; files imported before (by content) are left out. Fails before writing
/// anything when a file cannot be read or is not UTF-8.
pub fn import_pgn(data_dir: &Path, files: &[PathBuf], options: &ImportOptions) -> Result<ImportSummary> {
    let mut manifest = read_imports(data_dir)?;
    let mut summary = ImportSummary::default();
    let mut texts: Vec<(String, String, String)> = Vec::new();
    for path in files {
        let bytes = std::fs::read(path).at(path)?;
        let sha256 = hex_sha256(&bytes);
        let file = path.display().to_string();
        let already = manifest.iter().find(|r| r.sha256 == sha256).map(|r| r.run);
        let repeated = texts.iter().any(|(_, sha, _)| *sha == sha256);
        if already.is_some() || repeated {
            tracing::info!(file = %file, run = ?already, "already imported: left out");
            summary.files.push(FileImport { file, sha256, games: 0, skipped: 0, already_in: already });
            continue;
        }
        let text = String::from_utf8(bytes).map_err(|e| Error::Import {
            path: path.clone(),
            problem: format!(
                "not UTF-8 (byte {}): convert it first, e.g. `iconv -f GBK -t UTF-8`",
                e.utf8_error().valid_up_to()
            ),
        })?;
        texts.push((file, sha256, text));
    }
    if texts.is_empty() {
        return Ok(summary);
    }
    let run = next_imported_run(data_dir, &manifest)?;
    let name = options.name.clone().unwrap_or_else(|| {
        files
            .iter()
            .find(|p| p.display().to_string() == texts[0].0)
            .and_then(|p| p.file_stem())
            .map_or_else(|| texts[0].0.clone(), |s| s.to_string_lossy().into_owned())
    });
    let params = Params::default();
    let mut segment: Vec<(GameRow, Vec<PositionRow>)> = Vec::with_capacity(SEGMENT_GAMES);
    let mut game_id = 0u64;
    for (file, sha256, text) in &texts {
        let short = Path::new(file).file_name().map_or_else(|| file.clone(), |n| n.to_string_lossy().into_owned());
        let (mut games, mut skipped) = (0, 0);
        for (index, read) in read_games(text).enumerate() {
            let number = index + 1;
            let played = read.map_err(|e| (SkipReason::BadTag, e)).and_then(|t| {
                let r = replay(&t).map_err(|e| (skip_reason(&e), e))?;
                Ok((t, r))
            });
            let (pgn, played) = match played {
                Ok(ok) => ok,
                Err((reason, e)) => {
                    let message = match e {
                        engine::Error::Pgn(why) => why,
                        other => other.to_string(),
                    };
                    let skip = SkippedGame { file: file.clone(), game: number, reason, message };
                    tracing::warn!("skipped {skip}");
                    summary.skipped.push(skip);
                    skipped += 1;
                    continue;
                }
            };
            game_id += 1;
            let (game, positions) = game_rows(run, game_id, &pgn, &played, format!("{short}#{number}"), &params);
            summary.unknown_results += u64::from(game.result == UNKNOWN_RESULT);
            summary.past_rules_end += u64::from(played.went_past_rules_end());
            summary.positions += positions.len() as u64;
            segment.push((game, positions));
            games += 1;
            if segment.len() == SEGMENT_GAMES {
                export_segment(data_dir, run, &segment)?;
                segment.clear();
            }
        }
        summary.games += games;
        summary.files.push(FileImport { file: file.clone(), sha256: sha256.clone(), games, skipped, already_in: None });
    }
    if !segment.is_empty() {
        export_segment(data_dir, run, &segment)?;
    }
    if summary.games == 0 {
        // Every game refused: no run, and the files may be imported again once mended.
        summary.name = name;
        return Ok(summary);
    }
    for f in summary.files.iter().filter(|f| f.already_in.is_none()) {
        manifest.push(ImportRow {
            run,
            name: name.clone(),
            file: f.file.clone(),
            sha256: f.sha256.clone(),
            games: f.games,
            skipped: f.skipped,
            created_unix_ms: options.created_unix_ms,
        });
    }
    // Written last: a crash before this leaves part files under an id no later import reuses
    // (see `next_imported_run`) and the files not yet marked imported.
    write_imports(data_dir, &manifest)?;
    summary.run = Some(run);
    summary.name = name;
    tracing::info!(run = %run, games = summary.games, skipped = summary.skipped.len(), "imported");
    Ok(summary)
}

/// `games.result` of a game whose result is unknown.
pub const UNKNOWN_RESULT: &str = "*";

/// The result a `[Result]` tag gives, in the farm's words; `*` when missing or unknown.
pub fn result_of(pgn: &PgnText) -> &'static str {
    match pgn.tag("Result").map(str::trim) {
        Some("1-0") => "1-0",
        Some("0-1") => "0-1",
        Some("1/2-1/2" | "½-½") => "1/2-1/2",
        _ => UNKNOWN_RESULT,
    }
}

/// `games.reason` of an imported game (see the module's documentation).
pub fn reason_text(played: &Replay) -> String {
    match played.rules_end {
        None => "recorded".to_owned(),
        Some(end) if end.ply == played.moves.len() => end.outcome.reason.as_str().to_owned(),
        Some(end) => format!("recorded_past_{}_at_{}", end.outcome.reason.as_str(), end.ply),
    }
}

/// The `games` row of game `game_id` and a `positions` row for every ply from 1.
pub fn game_rows(
    run: RunId,
    game_id: u64,
    pgn: &PgnText,
    played: &Replay,
    worker: String,
    params: &Params,
) -> (GameRow, Vec<PositionRow>) {
    let result = result_of(pgn);
    let red_score = match result {
        "1-0" => Some(1.0),
        "0-1" => Some(0.0),
        "1/2-1/2" => Some(0.5),
        _ => None,
    };
    let start_fen = played.start.fen();
    let mut pos: Position = played.start.clone();
    let mut positions = Vec::with_capacity(played.moves.len().saturating_sub(1));
    let mut moves = Vec::with_capacity(played.moves.len());
    let mut quiet = Quiescence::new();
    for (ply, &m) in played.moves.iter().enumerate() {
        let uci = m.to_string();
        if ply > 0 {
            let static_eval = evaluate(&pos, params);
            positions.push(PositionRow {
                run,
                game_id,
                ply: ply as u32,
                fen: pos.fen(),
                side_to_move: if pos.side_to_move() == engine::Color::Red { "w" } else { "b" }.to_owned(),
                static_eval,
                search_score: None,
                best_move: uci.clone(),
                in_check: pos.in_check(),
                quiet: quiet.score(&pos, params) == static_eval,
                result: red_score,
            });
        }
        pos.play_unchecked(m);
        moves.push(uci);
    }
    let tag = |key: &str| pgn.tag(key).unwrap_or_default().to_owned();
    let game = GameRow {
        run,
        game_id,
        pair_id: game_id,
        opening_id: 0,
        opening_fen: start_fen.clone(),
        opening_moves: Vec::new(),
        start_fen,
        red_variant: tag("Red"),
        black_variant: tag("Black"),
        result: result.to_owned(),
        reason: reason_text(played),
        plies: u32::try_from(moves.len()).unwrap_or(u32::MAX),
        moves,
        duration_ms: 0,
        nodes: 0,
        worker,
    };
    (game, positions)
}

fn skip_reason(e: &engine::Error) -> SkipReason {
    match e {
        engine::Error::PgnFen { .. } => SkipReason::BadFen,
        engine::Error::PgnMove { fault: engine::MoveFault::Unreadable, .. } => SkipReason::UnknownNotation,
        engine::Error::PgnMove { fault: engine::MoveFault::Illegal, .. } => SkipReason::IllegalMove,
        _ => SkipReason::BadTag,
    }
}

/// The id of the next imported run: past every imported run the imports table names and every
/// imported run's partition on disk (one a crashed import left behind is never reused).
fn next_imported_run(data_dir: &Path, manifest: &[ImportRow]) -> Result<RunId> {
    let mut last = manifest.iter().map(|r| r.run.get()).max();
    for table in Table::ALL {
        let dir = data_dir.join(table.dir_name());
        let entries = match std::fs::read_dir(&dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => return Err(Error::Io { path: dir, source: e }),
        };
        for entry in entries {
            let name = entry.at(&dir)?.file_name();
            let id = name.to_str().and_then(|n| n.strip_prefix("run=")).and_then(|n| n.parse::<u64>().ok());
            if let Some(id) = id.filter(|&id| RunId::new(id).is_imported()) {
                last = last.max(Some(id));
            }
        }
    }
    Ok(RunId::new(last.map_or(RunId::FIRST_IMPORTED.get(), |id| id + 1)))
}

fn hex_sha256(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    let mut out = String::with_capacity(64);
    for b in digest.iter() {
        let _ = write!(out, "{b:02x}");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{read_games as read_game_rows, read_positions};

    /// Three games: a win in WXF, an unknown result in Chinese with full-width WXF mixed in, and
    /// an illegal move; then a game continued after a repetition.
    const ARCHIVE: &str = "[Red \"Hu\"]\n[Black \"Xu\"]\n[Result \"1-0\"]\n\n1. C2=5 H8+7 2. H2+3 R9.8 1-0\n\n\
        [Red \"Lu\"]\n[Black \"Li\"]\n\n1. 炮二平五 Ｈ８＋７ 2. 马二进三 *\n\n\
        [Result \"0-1\"]\n1. C2.5 H8+7 2. R1+3 0-1\n\n\
        [Result \"1/2-1/2\"]\n1. R1+1 R9+1 2. R1-1 R9-1 3. R1+1 R9+1 4. R1-1 R9-1 5. C2.5 1/2-1/2\n";

    fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
        let path = dir.join(name);
        std::fs::write(&path, text).expect("write the archive");
        path
    }

    #[test]
    fn an_archive_becomes_an_imported_run_and_a_second_import_is_a_no_op() -> Result<()> {
        let dir = tempfile::tempdir().expect("temp dir");
        let data = dir.path().join("data");
        let file = write(dir.path(), "masters.pgn", ARCHIVE);
        let options = ImportOptions { name: None, created_unix_ms: 7 };
        let summary = import_pgn(&data, std::slice::from_ref(&file), &options)?;
        assert_eq!(summary.run, Some(RunId::FIRST_IMPORTED));
        assert_eq!(summary.name, "masters");
        assert_eq!((summary.games, summary.unknown_results, summary.past_rules_end), (3, 1, 1));
        assert_eq!(summary.skipped.len(), 1);
        let skip = &summary.skipped[0];
        assert_eq!((skip.game, skip.reason), (3, SkipReason::IllegalMove));
        assert!(
            skip.to_string().ends_with(
                "masters.pgn: game 3: move 2. `R1+3` (Red): i0i3 is illegal: a Red rook cannot move from i0 to i3"
            ),
            "{skip}"
        );

        let run = RunId::FIRST_IMPORTED;
        let games = read_game_rows(&data, run)?;
        let ids: Vec<u64> = games.iter().map(|g| g.game_id).collect();
        assert_eq!(ids, [1, 2, 3]);
        assert_eq!(games[0].moves, ["h2e2", "h9g7", "h0g2", "i9h9"]);
        assert_eq!((games[0].result.as_str(), games[0].reason.as_str()), ("1-0", "recorded"));
        assert_eq!((games[0].red_variant.as_str(), games[0].black_variant.as_str()), ("Hu", "Xu"));
        assert_eq!(games[0].worker, "masters.pgn#1");
        assert_eq!(games[1].result, "*");
        assert_eq!(games[1].moves, ["h2e2", "h9g7", "h0g2"]);
        assert_eq!(games[2].worker, "masters.pgn#4");
        assert_eq!(games[2].reason, "recorded_past_repetition_at_8");
        assert_eq!(games[2].plies, 9);

        let positions = read_positions(&data, run)?;
        // Plies 1.. of each game: 3 + 2 + 8.
        assert_eq!(positions.len(), 13);
        assert!(positions.iter().all(|p| p.search_score.is_none()), "no engine score, never a filled-in one");
        let results = |game| positions.iter().filter(|p| p.game_id == game).map(|p| p.result).collect::<Vec<_>>();
        assert_eq!(results(1), [Some(1.0); 3]);
        assert_eq!(results(2), [None; 2]);
        assert_eq!(results(3), [Some(0.5); 8]);
        assert_eq!(positions[0].best_move, "h9g7");
        assert_eq!(positions[0].side_to_move, "b");

        let rows = read_imports(&data)?;
        assert_eq!(rows.len(), 1);
        assert_eq!((rows[0].run, rows[0].games, rows[0].skipped, rows[0].created_unix_ms), (run, 3, 1, 7));

        // The same bytes again, under another name too: nothing new.
        let copy = write(dir.path(), "copy.pgn", ARCHIVE);
        let again = import_pgn(&data, &[file, copy], &options)?;
        assert_eq!((again.run, again.games), (None, 0));
        assert!(again.files.iter().all(|f| f.already_in == Some(run)), "{:?}", again.files);
        assert_eq!(read_game_rows(&data, run)?.len(), 3);

        // Another file is the next imported run.
        let other = write(dir.path(), "other.pgn", "[Result \"0-1\"]\n1. P7+1 0-1\n");
        let next = import_pgn(&data, &[other], &ImportOptions { name: Some("club".into()), created_unix_ms: 8 })?;
        assert_eq!((next.run, next.name.as_str(), next.games), (Some(RunId::new(run.get() + 1)), "club", 1));
        assert_eq!(read_imports(&data)?.len(), 2);
        Ok(())
    }

    #[test]
    fn a_directory_gives_its_pgn_files_and_a_file_not_in_utf8_is_refused() -> Result<()> {
        let dir = tempfile::tempdir().expect("temp dir");
        let archives = dir.path().join("archives");
        std::fs::create_dir_all(archives.join("sub")).expect("mkdir");
        for name in ["b.PGN", "a.pgn", "notes.txt", "sub/c.pgn"] {
            write(&archives, name, "1. C2.5 *\n");
        }
        let files = pgn_files(std::slice::from_ref(&archives))?;
        let names: Vec<String> =
            files.iter().map(|p| p.file_name().unwrap_or_default().to_string_lossy().into_owned()).collect();
        assert_eq!(names, ["a.pgn", "b.PGN"]);

        let gbk = dir.path().join("gbk.pgn");
        std::fs::write(&gbk, [b'1', b'.', b' ', 0xc5, 0xda, b' ', b'*']).expect("write");
        let err = import_pgn(&dir.path().join("data"), &[gbk], &ImportOptions::default()).expect_err("not UTF-8");
        assert!(err.to_string().contains("gbk.pgn") && err.to_string().contains("not UTF-8"), "{err}");
        assert!(!dir.path().join("data").join("games").exists(), "nothing written");
        Ok(())
    }

    #[test]
    fn bad_games_are_named_by_file_game_and_move() -> Result<()> {
        let dir = tempfile::tempdir().expect("temp dir");
        let text = "[Event \"ok\"]\n1. C2.5 *\n\n\
                    [Event \"bad tag\n1. C2.5 *\n\n\
                    [FEN \"rnbakabnr/9/9 w\"]\n1. C2.5 *\n\n\
                    [Event \"notation\"]\n1. C2.5 H8+7 2. Q2+3 *\n\n\
                    [Event \"illegal\"]\n1. 炮二平五 马８进７ 2. 车一进三 *\n";
        let file = write(dir.path(), "bad.pgn", text);
        let summary = import_pgn(&dir.path().join("data"), &[file], &ImportOptions::default())?;
        assert_eq!(summary.games, 1);
        let named: Vec<(usize, SkipReason)> = summary.skipped.iter().map(|s| (s.game, s.reason)).collect();
        assert_eq!(
            named,
            [
                (2, SkipReason::BadTag),
                (3, SkipReason::BadFen),
                (4, SkipReason::UnknownNotation),
                (5, SkipReason::IllegalMove)
            ]
        );
        let texts: Vec<String> = summary.skipped.iter().map(ToString::to_string).collect();
        assert!(texts[0].contains("bad.pgn: game 2: game 2, line 4: `[Event \"bad tag`"), "{}", texts[0]);
        assert!(texts[1].contains("bad.pgn: game 3: the FEN tag `rnbakabnr/9/9 w`"), "{}", texts[1]);
        assert!(
            texts[2].contains("bad.pgn: game 4: move 2. `Q2+3` (Red): `Q` is not a WXF piece letter"),
            "{}",
            texts[2]
        );
        assert!(texts[3].contains("bad.pgn: game 5: move 2. `车一进三` (Red): "), "{}", texts[3]);
        let by_reason = summary.skipped_by_reason();
        assert_eq!(by_reason.values().sum::<u64>(), 4);
        assert_eq!(by_reason.get(&SkipReason::IllegalMove), Some(&1));
        Ok(())
    }

    #[test]
    fn games_written_by_the_pgn_writer_in_each_notation_import_to_the_same_moves_and_results() -> Result<()> {
        use engine::notation::Notation;
        use engine::pgn::{PgnGame, write_game};
        // A game from a FEN with book moves, one from the start, one without a result.
        let after_book = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b - - 1 1";
        let games: [(&str, Vec<&str>, Vec<&str>, &str); 3] = [
            (engine::START_FEN, vec![], vec!["h2e2", "h9g7", "h0g2", "i9h9", "i0h0", "b9c7"], "1-0"),
            (after_book, vec!["h9g7", "h0g2"], vec!["i9h9", "i0h0", "h7h3"], "0-1"),
            (engine::START_FEN, vec![], vec!["c3c4", "c6c5", "b0c2"], "*"),
        ];
        let dir = tempfile::tempdir().expect("temp dir");
        for (i, notation) in [Notation::Wxf, Notation::Chinese, Notation::Iccs].into_iter().enumerate() {
            let mut text = String::new();
            for (fen, book, moves, result) in &games {
                let owned = |v: &[&str]| v.iter().map(|m| (*m).to_owned()).collect::<Vec<String>>();
                let (book, moves) = (owned(book), owned(moves));
                let g = PgnGame {
                    event: "round trip".into(),
                    round: String::new(),
                    red_name: "r",
                    red_id: "",
                    black_name: "b",
                    black_id: "",
                    result,
                    termination: "",
                    start_fen: fen,
                    book_moves: &book,
                    moves: &moves,
                };
                write_game(&mut text, &g, notation).map_err(|problem| Error::Import { path: "x".into(), problem })?;
            }
            let file = write(dir.path(), &format!("{notation}.pgn"), &text);
            let data = dir.path().join("data");
            let summary = import_pgn(&data, &[file], &ImportOptions::default())?;
            let run = RunId::new(RunId::FIRST_IMPORTED.get() + i as u64);
            assert_eq!((summary.run, summary.games, summary.skipped.len()), (Some(run), 3, 0), "{notation}");
            let rows = read_game_rows(&data, run)?;
            for ((fen, book, moves, result), row) in games.iter().zip(&rows) {
                // The book's moves are the game's too: the import starts at the FEN tag.
                let all: Vec<&str> = book.iter().chain(moves).copied().collect();
                assert_eq!(row.moves, all, "{notation}");
                assert_eq!(row.result, *result, "{notation}");
                assert_eq!(row.start_fen, Position::from_fen(fen).map(|p| p.fen()).unwrap_or_default());
            }
        }
        Ok(())
    }
}
