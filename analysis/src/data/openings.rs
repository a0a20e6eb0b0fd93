//! Games by ECCO opening: each game's opening line and first moves classified with
//! [`engine::ecco`], counted per run, per family (the code's letter) and per code, with
//! Red's results.
//!
//! The query keeps only what the classifier reads: the first [`CLASSIFIED_PLIES`] plies of the
//! whole game (the suite's line, then the players' moves), grouped as the files are read so
//! that games with the same beginning and result are classified once. [`tally_openings`] does the
//! classification and the counting and knows nothing of files.

use std::collections::HashMap;
use std::path::Path;

use engine::Position;
use engine::ecco::{self, Opening};
use engine::notation::parse_uci;
use proto::columns::games as column;
use proto::domain::GameOutcome;

use super::read::ParquetFile;
use super::{Table, data_error, read_parts};
use crate::error::Result;
use crate::stats::Wdl;

/// ECCO reads a game's first ten rounds ([`ecco::classify`]); later plies change nothing.
pub const CLASSIFIED_PLIES: usize = 20;

/// An ECCO family: the first letter of the code.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum EccoFamily {
    A,
    B,
    C,
    D,
    E,
}

impl EccoFamily {
    pub const ALL: [EccoFamily; 5] = [EccoFamily::A, EccoFamily::B, EccoFamily::C, EccoFamily::D, EccoFamily::E];

    /// The family of an ECCO code (`C45` is [`EccoFamily::C`]).
    pub fn of(code: &str) -> Option<EccoFamily> {
        match code.as_bytes().first()? {
            b'A' => Some(EccoFamily::A),
            b'B' => Some(EccoFamily::B),
            b'C' => Some(EccoFamily::C),
            b'D' => Some(EccoFamily::D),
            b'E' => Some(EccoFamily::E),
            _ => None,
        }
    }

    pub fn letter(self) -> char {
        match self {
            EccoFamily::A => 'A',
            EccoFamily::B => 'B',
            EccoFamily::C => 'C',
            EccoFamily::D => 'D',
            EccoFamily::E => 'E',
        }
    }

    /// The family's usual Chinese name.
    pub fn name(self) -> &'static str {
        match self {
            EccoFamily::A => "其他开局",
            EccoFamily::B => "中炮对非屏风马",
            EccoFamily::C => "中炮对屏风马",
            EccoFamily::D => "顺炮与列炮",
            EccoFamily::E => "仙人指路",
        }
    }

    /// What the family holds, in the words of [`engine::ecco`]'s documentation.
    pub fn description(self) -> &'static str {
        match self {
            EccoFamily::A => "openings other than the central cannon and the pawn",
            EccoFamily::B => "central cannon against defences other than the screen horses",
            EccoFamily::C => "central cannon against the screen horses",
            EccoFamily::D => "same- and opposite-direction cannons",
            EccoFamily::E => "the pawn opening",
        }
    }

    fn index(self) -> usize {
        self as usize
    }
}

/// Games of one run that begin alike: the same opening FEN, the same first plies and the
/// same result.
#[derive(Clone, Debug, PartialEq)]
pub struct OpeningGames {
    pub run: u64,
    /// The FEN the whole game starts from (the suite line's; `startpos` is read too).
    pub opening_fen: String,
    /// The whole game's first plies in UCI (the suite's line, then the players' moves); more
    /// than [`CLASSIFIED_PLIES`] may be given and are ignored.
    pub plies: Vec<String>,
    pub result: GameOutcome,
    pub games: u64,
}

/// One ECCO code's games in one run.
#[derive(Clone, Debug, PartialEq)]
pub struct CodeCounts {
    pub opening: Opening,
    /// From Red's side.
    pub red: Wdl,
}

/// One run's games by ECCO family and code, results from Red's side.
#[derive(Clone, Debug, PartialEq)]
pub struct RunOpenings {
    pub run: u64,
    /// Per family, in the order of [`EccoFamily::ALL`].
    pub families: [Wdl; 5],
    /// Games that do not start from the initial position, which ECCO does not classify.
    pub unclassified: Wdl,
    /// Every code played, most games first (equal counts by code).
    pub codes: Vec<CodeCounts>,
}

impl RunOpenings {
    fn new(run: u64) -> RunOpenings {
        RunOpenings { run, families: [Wdl::default(); 5], unclassified: Wdl::default(), codes: Vec::new() }
    }

    pub fn family(&self, family: EccoFamily) -> &Wdl {
        &self.families[family.index()]
    }

    /// All the run's games.
    pub fn games(&self) -> u64 {
        self.families.iter().map(Wdl::games).sum::<u64>() + self.unclassified.games()
    }
}

/// Red's score (wins plus half the draws, over the games); `None` without games.
pub fn red_score(red: &Wdl) -> Option<f64> {
    let games = red.games();
    (games > 0).then(|| (red.wins as f64 + 0.5 * red.draws as f64) / games as f64)
}

fn add(wdl: &mut Wdl, result: GameOutcome, games: u64) {
    match result {
        GameOutcome::RedWins => wdl.wins += games,
        GameOutcome::Draw => wdl.draws += games,
        GameOutcome::BlackWins => wdl.losses += games,
    }
}

/// The position a game starts from: a FEN, or `startpos` as UCI and the older files write it.
fn start_position(fen: &str) -> std::result::Result<Position, String> {
    let fen = fen.trim();
    if fen == "startpos" {
        return Ok(Position::startpos());
    }
    Position::from_fen(fen).map_err(|e| format!("opening FEN `{fen}`: {e}"))
}

/// Classifies every group of `rows` and counts them per run (ascending). Fails on a FEN or a
/// move text that cannot be read, naming the run and the text; a move that is illegal where it
/// is played only ends what the classifier reads (as [`ecco::classify`] does).
pub fn tally_openings(rows: &[OpeningGames]) -> std::result::Result<Vec<RunOpenings>, String> {
    let mut starts: HashMap<&str, Position> = HashMap::new();
    let mut classified: HashMap<(&str, &[String]), Option<Opening>> = HashMap::new();
    let mut runs: Vec<RunOpenings> = Vec::new();
    let mut codes: HashMap<(u64, &'static str), Wdl> = HashMap::new();
    for row in rows {
        let plies = &row.plies[..row.plies.len().min(CLASSIFIED_PLIES)];
        let opening = match classified.get(&(row.opening_fen.as_str(), plies)) {
            Some(&o) => o,
            None => {
                if !starts.contains_key(row.opening_fen.as_str()) {
                    let p = start_position(&row.opening_fen).map_err(|e| format!("run {}: {e}", row.run))?;
                    starts.insert(&row.opening_fen, p);
                }
                let start = &starts[row.opening_fen.as_str()];
                let moves = plies
                    .iter()
                    .enumerate()
                    .map(|(i, m)| parse_uci(m).map_err(|e| format!("run {}: ply {} `{m}`: {e}", row.run, i + 1)))
                    .collect::<std::result::Result<Vec<_>, _>>()?;
                let o = ecco::classify(start, &moves);
                classified.insert((&row.opening_fen, plies), o);
                o
            }
        };
        let at = match runs.iter().position(|r| r.run == row.run) {
            Some(at) => at,
            None => {
                runs.push(RunOpenings::new(row.run));
                runs.len() - 1
            }
        };
        let run = &mut runs[at];
        match opening.and_then(|o| Some((o, EccoFamily::of(o.code)?))) {
            Some((o, family)) => {
                add(&mut run.families[family.index()], row.result, row.games);
                add(codes.entry((row.run, o.code)).or_default(), row.result, row.games);
            }
            None => add(&mut run.unclassified, row.result, row.games),
        }
    }
    for ((run, code), red) in codes {
        // Every code the classifier gives is in its table (an engine test holds it to that).
        let Some(opening) = ecco::opening(code) else { continue };
        if let Some(r) = runs.iter_mut().find(|r| r.run == run) {
            r.codes.push(CodeCounts { opening, red });
        }
    }
    for r in &mut runs {
        r.codes.sort_by(|x, y| y.red.games().cmp(&x.red.games()).then(x.opening.code.cmp(y.opening.code)));
    }
    runs.sort_by_key(|r| r.run);
    Ok(runs)
}

/// Games per run by ECCO family and code, read from the `games` table under `data`.
///
/// Files written before the opening line was stored (schema version 1, no `opening_fen`) are
/// read as games from their `start_fen` without a line: those that start from the initial
/// position are classified, the others are unclassified.
pub fn openings(data: &Path, run: Option<u64>) -> Result<Vec<RunOpenings>> {
    let groups = read_parts(
        data,
        Table::Games,
        |r| run.is_none_or(|wanted| wanted == r),
        |parts| {
            let mut groups: HashMap<(u64, String, String, GameOutcome), u64> = HashMap::new();
            for part in parts {
                let file = ParquetFile::open(&part.path)?;
                let with_line = file.has_column(column::OPENING_FEN) && file.has_column(column::OPENING_MOVES);
                let columns: &[&str] = if with_line {
                    &[column::OPENING_FEN, column::OPENING_MOVES, column::MOVES, column::RESULT]
                } else {
                    &[column::START_FEN, column::MOVES, column::RESULT]
                };
                file.for_each_batch(columns, |batch| {
                    let fens = batch.strs(if with_line { column::OPENING_FEN } else { column::START_FEN })?;
                    let line =
                        if with_line { Some(batch.str_lists(column::OPENING_MOVES, CLASSIFIED_PLIES)?) } else { None };
                    let moves = batch.str_lists(column::MOVES, CLASSIFIED_PLIES)?;
                    let results = batch.strs(column::RESULT)?;
                    for i in 0..batch.len() {
                        let result: GameOutcome = results[i]
                            .parse()
                            .map_err(|e: proto::Error| data_error(&part.path, format!("run {}: {e}", part.run)))?;
                        let suite = line.as_ref().map_or(&[][..], |l| &l[i]);
                        let plies = first_plies(suite, &moves[i]);
                        *groups.entry((part.run, fens[i].to_owned(), plies, result)).or_default() += 1;
                    }
                    Ok(())
                })?;
            }
            Ok(groups)
        },
    )?;
    let rows: Vec<OpeningGames> = groups
        .unwrap_or_default()
        .into_iter()
        .map(|((run, opening_fen, plies, result), games)| OpeningGames {
            run,
            opening_fen,
            plies: plies.split_whitespace().map(str::to_owned).collect(),
            result,
            games,
        })
        .collect();
    tally_openings(&rows).map_err(|e| data_error(data, e))
}

/// The whole game's first [`CLASSIFIED_PLIES`] plies, the suite's line then the players' moves,
/// as one text: what games are grouped by before they are classified. Null items are skipped.
fn first_plies(line: &[Option<&str>], moves: &[Option<&str>]) -> String {
    let plies = line.iter().take(CLASSIFIED_PLIES).chain(moves.iter().take(CLASSIFIED_PLIES));
    let plies: Vec<&str> = plies.take(CLASSIFIED_PLIES).flatten().copied().collect();
    plies.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::START_FEN;

    /// A FEN that is not the initial position: Red's left rook is missing.
    const ROOKLESS: &str = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/1NBAKABNR w - - 0 1";

    fn row(run: u64, fen: &str, plies: &str, result: GameOutcome, games: u64) -> OpeningGames {
        OpeningGames {
            run,
            opening_fen: fen.to_owned(),
            plies: plies.split_whitespace().map(str::to_owned).collect(),
            result,
            games,
        }
    }

    fn wdl(wins: u64, draws: u64, losses: u64) -> Wdl {
        Wdl { wins, draws, losses }
    }

    // One line per family (WXF in the comments).
    const HORSE: &str = "h0g2"; // H2+3: 起马局, A
    const CANNON_VS_LEFT_HORSE: &str = "h2e2 b9c7"; // C2.5 H2+3: 中炮对进左马, B
    const SCREEN_HORSES: &str = "h2e2 h9g7 h0g2 b9c7"; // C2.5 H8+7 H2+3 H2+3: 中炮对屏风马, C
    const SAME_CANNONS: &str = "h2e2 h7e7"; // C2.5 C8.5: 顺炮, D
    const PAWN: &str = "c3c4"; // P7+1: 仙人指路, E

    #[test]
    fn the_lines_of_the_tests_are_the_families_they_claim() {
        for (line, family) in [
            (HORSE, EccoFamily::A),
            (CANNON_VS_LEFT_HORSE, EccoFamily::B),
            (SCREEN_HORSES, EccoFamily::C),
            (SAME_CANNONS, EccoFamily::D),
            (PAWN, EccoFamily::E),
        ] {
            let moves: Vec<_> = line.split_whitespace().map(|m| parse_uci(m).unwrap()).collect();
            let opening = ecco::classify(&Position::startpos(), &moves).unwrap();
            assert_eq!(EccoFamily::of(opening.code), Some(family), "{line}: {opening:?}");
        }
    }

    #[test]
    fn games_are_counted_per_run_family_and_code_from_reds_side() {
        use GameOutcome::{BlackWins as L, Draw as D, RedWins as W};
        let rows = [
            // Run 1: A 2 wins 1 draw; B 1 loss; C 3 wins 1 draw 2 losses (two groups of the
            // same line, one reaching it through 20+ plies); D 1 draw; E 2 losses; 1 game from
            // another position (a win) and one written `startpos` (the pawn, a draw).
            row(1, START_FEN, HORSE, W, 2),
            row(1, START_FEN, HORSE, D, 1),
            row(1, START_FEN, CANNON_VS_LEFT_HORSE, L, 1),
            row(1, START_FEN, SCREEN_HORSES, W, 3),
            row(1, START_FEN, SCREEN_HORSES, D, 1),
            row(1, START_FEN, SCREEN_HORSES, L, 2),
            row(1, START_FEN, SAME_CANNONS, D, 1),
            row(1, START_FEN, PAWN, L, 2),
            row(1, ROOKLESS, SCREEN_HORSES, W, 1),
            row(1, "startpos", PAWN, D, 1),
            // Run 2, listed first: one screen-horses loss.
            row(2, START_FEN, SCREEN_HORSES, L, 1),
        ];
        let mut rows = rows.to_vec();
        rows.rotate_right(1);
        let runs = tally_openings(&rows).unwrap();
        assert_eq!(runs.iter().map(|r| r.run).collect::<Vec<_>>(), [1, 2]);
        let one = &runs[0];
        assert_eq!(one.families, [wdl(2, 1, 0), wdl(0, 0, 1), wdl(3, 1, 2), wdl(0, 1, 0), wdl(0, 1, 2)]);
        assert_eq!(one.unclassified, wdl(1, 0, 0));
        assert_eq!(one.games(), 3 + 1 + 6 + 1 + 3 + 1);
        // Red scores by hand: A (2 + 0.5) / 3, C (3 + 0.5) / 6, E 0.5 / 3.
        assert_eq!(red_score(one.family(EccoFamily::A)), Some(2.5 / 3.0));
        assert_eq!(red_score(one.family(EccoFamily::B)), Some(0.0));
        assert_eq!(red_score(one.family(EccoFamily::C)), Some(3.5 / 6.0));
        assert_eq!(red_score(one.family(EccoFamily::D)), Some(0.5));
        assert_eq!(red_score(one.family(EccoFamily::E)), Some(0.5 / 3.0));
        assert_eq!(red_score(&one.unclassified), Some(1.0));
        assert_eq!(red_score(&Wdl::default()), None);
        // Codes, most games first: C (6), then A and E (3 each, by code), then B and D (1).
        let counts: Vec<(char, u64)> =
            one.codes.iter().map(|c| (c.opening.code.chars().next().unwrap_or('?'), c.red.games())).collect();
        assert_eq!(counts, [('C', 6), ('A', 3), ('E', 3), ('B', 1), ('D', 1)]);
        let screen = &one.codes[0];
        assert_eq!((screen.opening.code, screen.opening.name), ("C00", "中炮对屏风马"));
        assert_eq!(screen.red, wdl(3, 1, 2));
        let two = &runs[1];
        assert_eq!(two.families[EccoFamily::C.index()], wdl(0, 0, 1));
        assert_eq!(two.games(), 1);
        assert_eq!(two.codes.len(), 1);
    }

    #[test]
    fn only_the_first_twenty_plies_count() {
        // The screen horses, then shuffling rooks: 4 + 5 * 4 = 24 plies, all legal, then a text
        // that is no move at all: beyond the 20th ply, it is never read.
        let mut long_line = SCREEN_HORSES.to_owned();
        for _ in 0..5 {
            long_line.push_str(" a0a1 a9a8 a1a0 a8a9");
        }
        long_line.push_str(" not-a-move");
        let short = tally_openings(&[row(1, START_FEN, SCREEN_HORSES, GameOutcome::RedWins, 1)]).unwrap();
        let long = tally_openings(&[row(1, START_FEN, &long_line, GameOutcome::RedWins, 1)]).unwrap();
        assert_eq!(long[0].families, short[0].families);
        // ...whereas a bad text within them names the run and the ply.
        let err = tally_openings(&[row(7, START_FEN, "h2e2 xx", GameOutcome::Draw, 1)]).unwrap_err();
        assert!(err.contains("run 7") && err.contains("ply 2 `xx`"), "{err}");
        let err = tally_openings(&[row(3, "rnbakabnr/9 w", "", GameOutcome::Draw, 1)]).unwrap_err();
        assert!(err.contains("run 3") && err.contains("`rnbakabnr/9 w`"), "{err}");
    }

    #[test]
    fn every_code_has_a_family() {
        assert!(ecco::codes().all(|c| EccoFamily::of(c).is_some()));
        assert_eq!(EccoFamily::ALL.map(EccoFamily::letter), ['A', 'B', 'C', 'D', 'E']);
        assert!(EccoFamily::ALL.iter().enumerate().all(|(i, f)| f.index() == i));
    }
}
