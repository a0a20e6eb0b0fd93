//! Training positions from the farm's `positions` table: filtered, deduplicated, packed and
//! split by game.
//!
//! Every row of the selected runs is counted, then the filters run in this order, each counting
//! what it drops: in check; no engine score (a null `search_score`); before `min_ply`; a score
//! beyond `max_score`; no usable best move (empty, or not legal in the position); a best move
//! that captures (the position is not quiet: its score rests on the capture; judged from the
//! FEN and the move by the engine, not from the `quiet` column); and a position already seen
//! (same Zobrist key: board and side to move), keeping the first in (run, game, ply) order so
//! that the result does not depend on the order of the files. The cheap filters come first so
//! that only their survivors have their FEN parsed.
//!
//! Scores are the mover's view already; results are Red's and are turned to the side to
//! move's. Games go to validation by [`is_validation_game`] of their key across runs
//! ([`game_key`]).

use std::collections::HashSet;
use std::path::Path;

use engine::Position;
use proto::columns::positions as column;

use super::packed::PackedPosition;
use crate::data::read::ParquetFile;
use crate::data::{Part, Table, game_key, read_parts};
use crate::error::{Error, Result};
use crate::tune::is_validation_game;

/// Which rows become training positions.
#[derive(Clone, Debug, PartialEq)]
pub struct DataFilter {
    /// Only these runs (all when empty).
    pub runs: Vec<u64>,
    /// Skip positions before this ply (the opening suite's, not the engines').
    pub min_ply: u32,
    /// Skip scores beyond this many centipawns (mates and won positions teach little).
    pub max_score: u32,
    /// Share of games held out for validation.
    pub validation_fraction: f64,
    /// Fewer positions than this after the filters is an error.
    pub min_positions: u64,
}

/// Default `--min-ply`: the farm's opening lines are about 8 plies.
pub const DEFAULT_MIN_PLY: u32 = 8;
/// Default `--max-score`.
pub const DEFAULT_MAX_SCORE: u32 = 3000;
/// Default `--min-positions`.
pub const DEFAULT_MIN_POSITIONS: u64 = 1000;

impl Default for DataFilter {
    fn default() -> Self {
        DataFilter {
            runs: Vec::new(),
            min_ply: DEFAULT_MIN_PLY,
            max_score: DEFAULT_MAX_SCORE,
            validation_fraction: crate::tune::DEFAULT_VALIDATION_FRACTION,
            min_positions: DEFAULT_MIN_POSITIONS,
        }
    }
}

/// The filters, in the order they run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Filter {
    InCheck,
    NoScore,
    BeforeMinPly,
    ScoreTooLarge,
    NoBestMove,
    CaptureBestMove,
    Duplicate,
}

impl Filter {
    pub const ALL: [Filter; 7] = [
        Filter::InCheck,
        Filter::NoScore,
        Filter::BeforeMinPly,
        Filter::ScoreTooLarge,
        Filter::NoBestMove,
        Filter::CaptureBestMove,
        Filter::Duplicate,
    ];

    /// The filter's name in reports and the manifest.
    pub fn as_str(self) -> &'static str {
        match self {
            Filter::InCheck => "in check",
            Filter::NoScore => "no engine score",
            Filter::BeforeMinPly => "before min ply",
            Filter::ScoreTooLarge => "score beyond max score",
            Filter::NoBestMove => "no legal best move",
            Filter::CaptureBestMove => "best move captures",
            Filter::Duplicate => "duplicate position",
        }
    }
}

/// How many rows there were and what each filter dropped.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FilterCounts {
    pub rows: u64,
    /// Per filter of [`Filter::ALL`], in that order.
    pub dropped: [u64; 7],
    pub kept: u64,
}

impl FilterCounts {
    pub fn dropped_by(&self, filter: Filter) -> u64 {
        self.dropped[filter as usize]
    }

    fn drop(&mut self, filter: Filter) {
        self.dropped[filter as usize] += 1;
    }

    /// `12000 rows: in check -300, ..., kept 9000`.
    pub fn summary(&self) -> String {
        let mut parts = vec![format!("{} rows", self.rows)];
        parts.extend(Filter::ALL.iter().map(|f| format!("{} -{}", f.as_str(), self.dropped_by(*f))));
        parts.push(format!("kept {}", self.kept));
        parts.join(", ")
    }

    /// The filter that dropped the most rows.
    pub fn biggest(&self) -> Filter {
        Filter::ALL
            .into_iter()
            .fold(Filter::InCheck, |best, f| if self.dropped_by(f) > self.dropped_by(best) { f } else { best })
    }
}

/// The positions of a data directory, ready to train on.
#[derive(Clone, Debug, PartialEq)]
pub struct Dataset {
    pub train: Vec<PackedPosition>,
    pub validation: Vec<PackedPosition>,
    pub counts: FilterCounts,
    pub train_games: usize,
    pub validation_games: usize,
}

impl Dataset {
    /// A hash of every position and label, in order (a checkpoint belongs to one dataset).
    pub fn fingerprint(&self) -> u64 {
        fingerprint(&self.train, &self.validation)
    }
}

/// A hash of the positions of both sides, in order.
pub fn fingerprint(train: &[PackedPosition], validation: &[PackedPosition]) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325u64 ^ train.len() as u64;
    for p in train.iter().chain(validation) {
        for word in p.to_bytes().chunks_exact(8) {
            let mut w = [0u8; 8];
            w.copy_from_slice(word);
            h = (h ^ u64::from_le_bytes(w)).wrapping_mul(0x0000_0100_0000_01b3).rotate_left(29);
        }
    }
    h ^ validation.len() as u64
}

/// A row that passed the filters before deduplication.
struct Candidate {
    run: u64,
    game: u64,
    ply: u64,
    key: u64,
    packed: PackedPosition,
}

/// Reads, filters, packs and splits the positions of `data` (see the module documentation).
pub fn load_dataset(data: &Path, filter: &DataFilter) -> Result<Dataset> {
    let path = data.display().to_string();
    let runs_text = if filter.runs.is_empty() { String::new() } else { format!(" of runs {:?}", filter.runs) };
    if !(0.0..=1.0).contains(&filter.validation_fraction) {
        return Err(Error::NnueSetting {
            name: "validation fraction",
            value: filter.validation_fraction.to_string(),
            reason: "must be within 0..=1".into(),
        });
    }
    let no_positions = || Error::NoPositions { path: path.clone(), runs: runs_text.clone() };
    let keep = |run| filter.runs.is_empty() || filter.runs.contains(&run);
    // Rows as the exporter writes them come in (run, game, ply) order within a run: they go
    // straight into the sets, and no candidate list is held (a third of the memory). Rows out of
    // that order anywhere are read again, sorted first.
    let streamed = read_parts(data, Table::Positions, keep, |parts| {
        let mut sets = Sets::new(filter.validation_fraction);
        let mut last = None;
        let counts = read_rows(parts, filter, |c| {
            let at = (c.run, c.game, c.ply);
            if last.is_some_and(|last| at < last) {
                return false;
            }
            last = Some(at);
            sets.add(c);
            true
        })?;
        Ok(counts.map(|counts| (counts, sets)))
    })?;
    let (mut counts, sets) = match streamed {
        None => return Err(no_positions()),
        Some(Some(read)) => read,
        Some(None) => {
            let read = read_parts(data, Table::Positions, keep, |parts| read_candidates(parts, filter))?;
            let Some((counts, mut candidates)) = read else {
                return Err(no_positions());
            };
            // Stable: rows at the same (run, game, ply) keep their arrival order.
            candidates.sort_by_key(|c| (c.run, c.game, c.ply));
            let mut sets = Sets::new(filter.validation_fraction);
            candidates.into_iter().for_each(|c| sets.add(c));
            (counts, sets)
        }
    };
    if counts.rows == 0 {
        return Err(no_positions());
    }
    counts.dropped[Filter::Duplicate as usize] = sets.duplicates;
    let Sets { mut train, mut validation, train_games, validation_games, .. } = sets;
    counts.kept = (train.len() + validation.len()) as u64;
    if counts.kept < filter.min_positions.max(1) || train.is_empty() || validation.is_empty() {
        let biggest = counts.biggest();
        let mut filters = format!("{}; {} removed the most", counts.summary(), biggest.as_str());
        if counts.kept >= filter.min_positions.max(1) {
            filters.push_str(&format!(
                "; {} training and {} validation positions: each side needs one (validation fraction {})",
                train.len(),
                validation.len(),
                filter.validation_fraction
            ));
        }
        return Err(Error::TooFewPositions { path, kept: counts.kept, needed: filter.min_positions.max(1), filters });
    }
    train.shrink_to_fit();
    validation.shrink_to_fit();
    Ok(Dataset { train, validation, counts, train_games: train_games.len(), validation_games: validation_games.len() })
}

/// The training and validation sets as candidates arrive in (run, game, ply) order: the first of
/// each position is kept, in its game's set.
struct Sets {
    validation_fraction: f64,
    seen: HashSet<u64>,
    train: Vec<PackedPosition>,
    validation: Vec<PackedPosition>,
    train_games: HashSet<u64>,
    validation_games: HashSet<u64>,
    duplicates: u64,
}

impl Sets {
    fn new(validation_fraction: f64) -> Sets {
        Sets {
            validation_fraction,
            seen: HashSet::new(),
            train: Vec::new(),
            validation: Vec::new(),
            train_games: HashSet::new(),
            validation_games: HashSet::new(),
            duplicates: 0,
        }
    }

    fn add(&mut self, c: Candidate) {
        if !self.seen.insert(c.key) {
            self.duplicates += 1;
            return;
        }
        let game = game_key(c.run, c.game);
        if is_validation_game(game, self.validation_fraction) {
            self.validation.push(c.packed);
            self.validation_games.insert(game);
        } else {
            self.train.push(c.packed);
            self.train_games.insert(game);
        }
    }
}

/// The filtered candidates of `parts` (before the duplicates and the split) and the counts.
fn read_candidates(parts: &[Part], filter: &DataFilter) -> Result<(FilterCounts, Vec<Candidate>)> {
    let mut candidates = Vec::new();
    let counts = read_rows(parts, filter, |c| {
        candidates.push(c);
        true
    })?;
    Ok((counts.unwrap_or_default(), candidates))
}

/// Reads every row of `parts`, counts what the filters before the duplicates drop, and hands
/// each row they keep to `take`, in the files' order, while it returns true; `None` when it
/// returned false (the counts then are partial).
fn read_rows(
    parts: &[Part],
    filter: &DataFilter,
    mut take: impl FnMut(Candidate) -> bool,
) -> Result<Option<FilterCounts>> {
    let columns = [
        column::GAME_ID,
        column::PLY,
        column::FEN,
        column::SEARCH_SCORE,
        column::BEST_MOVE,
        column::IN_CHECK,
        column::RESULT,
    ];
    let mut counts = FilterCounts::default();
    let mut stopped = false;
    for part in parts {
        if stopped {
            break;
        }
        let file = ParquetFile::open(&part.path)?;
        counts.rows += file.rows();
        let file_path = part.path.display().to_string();
        file.for_each_batch(&columns, |batch| {
            if stopped {
                return Ok(());
            }
            let games = batch.u64s(column::GAME_ID)?;
            let plies = batch.u64s(column::PLY)?;
            let fens = batch.strs(column::FEN)?;
            let scores = batch.optional_i64s(column::SEARCH_SCORE)?;
            let best_moves = batch.strs(column::BEST_MOVE)?;
            let checks = batch.bools(column::IN_CHECK)?;
            let results = batch.optional_f64s(column::RESULT)?;
            for i in 0..batch.len() {
                if checks[i] {
                    counts.drop(Filter::InCheck);
                    continue;
                }
                let Some(score) = scores[i] else {
                    counts.drop(Filter::NoScore);
                    continue;
                };
                if plies[i] < u64::from(filter.min_ply) {
                    counts.drop(Filter::BeforeMinPly);
                    continue;
                }
                if score.unsigned_abs() > u64::from(filter.max_score) {
                    counts.drop(Filter::ScoreTooLarge);
                    continue;
                }
                let pos = Position::from_fen(fens[i])
                    .map_err(|reason| Error::Fen { fen: format!("{} (in {file_path})", fens[i]), reason })?;
                let Ok(best) = engine::notation::parse_move(&pos, best_moves[i]) else {
                    counts.drop(Filter::NoBestMove);
                    continue;
                };
                if pos.is_capture(best) {
                    counts.drop(Filter::CaptureBestMove);
                    continue;
                }
                // Imported games carry no score (dropped above); a row with a score and no
                // result is no writer's, and is dropped the same way.
                let Some(result) = results[i] else {
                    counts.drop(Filter::NoScore);
                    continue;
                };
                let result_red = result as f32;
                let result_stm = if pos.side_to_move() == engine::Color::Red { result_red } else { 1.0 - result_red };
                let packed = PackedPosition::new(&pos, score as i32, result_stm).map_err(|_| Error::Data {
                    path: file_path.clone(),
                    reason: format!("game {} ply {}: result {result} is not 1, 0.5 or 0", games[i], plies[i]),
                })?;
                if !take(Candidate { run: part.run, game: games[i], ply: plies[i], key: pos.key(), packed }) {
                    stopped = true;
                    return Ok(());
                }
            }
            Ok(())
        })?;
    }
    Ok((!stopped).then_some(counts))
}
