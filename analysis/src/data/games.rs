//! Aggregates of the `games` table: per pairing W/D/L and pentanomial counts, per-worker
//! pentanomials, termination reasons, game lengths, and one SPRT run's pair sequence.
//!
//! A pairing is oriented by variant id (`a` is the smaller id) so that a pair's two games,
//! played with colours swapped, land in one group whatever their order; callers flip to the
//! run's own orientation (candidate first) with [`PairingCounts::flipped`].

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::Path;

use proto::columns::games as column;
use proto::domain::{GameOutcome, RunId, Termination};

use super::read::ParquetFile;
use super::{Part, Table, data_error, read_parts};
use crate::error::Result;

/// W/D/L and pentanomial counts of variant `a` against `b` in one run.
#[derive(Clone, Debug, PartialEq)]
pub struct PairingCounts {
    pub run: u64,
    pub a: String,
    pub b: String,
    /// Complete pairs by `a`'s points in the pair: 0, 0.5, 1, 1.5, 2.
    pub pentanomial: [u64; 5],
    /// Games (complete pairs or not), from `a`'s side.
    pub wins: u64,
    pub draws: u64,
    pub losses: u64,
}

impl PairingCounts {
    /// The same counts from `b`'s side.
    pub fn flipped(&self) -> PairingCounts {
        let mut pentanomial = self.pentanomial;
        pentanomial.reverse();
        PairingCounts {
            run: self.run,
            a: self.b.clone(),
            b: self.a.clone(),
            pentanomial,
            wins: self.losses,
            draws: self.draws,
            losses: self.wins,
        }
    }

    pub fn games(&self) -> u64 {
        self.wins + self.draws + self.losses
    }
}

/// Pentanomial counts of one worker in one pairing (pairs credited to the worker that played
/// the pair's first game).
#[derive(Clone, Debug, PartialEq)]
pub struct WorkerCounts {
    pub run: u64,
    pub a: String,
    pub b: String,
    pub worker: String,
    pub pentanomial: [u64; 5],
}

#[derive(Clone, Debug, PartialEq)]
pub struct ReasonCount {
    pub run: u64,
    pub reason: Termination,
    pub games: u64,
}

/// Game length and cost per run.
#[derive(Clone, Debug, PartialEq)]
pub struct LengthStats {
    pub run: u64,
    pub games: u64,
    pub mean_plies: f64,
    pub median_plies: f64,
    pub min_plies: u64,
    pub max_plies: u64,
    pub mean_duration_ms: f64,
    pub nodes: u64,
}

/// One complete pair of an SPRT run, in the order its first game was recorded.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PairRow {
    pub first_game: u64,
    /// `a`'s points in the pair times two (0..=4): the pentanomial index.
    pub index: usize,
}

/// Total games in the data (optionally one run).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct GameTotals {
    pub games: u64,
    pub runs: u64,
}

/// A game seen from its pairing: the two variants ordered by id (`a` the smaller, bytewise)
/// and `a`'s points. A result other than a win for either side counts as a draw.
fn oriented<'s>(red: &'s str, black: &'s str, result: &str) -> (&'s str, &'s str, f64) {
    let score_red = if result == GameOutcome::RedWins.as_str() {
        1.0
    } else if result == GameOutcome::BlackWins.as_str() {
        0.0
    } else {
        0.5
    };
    if red <= black { (red, black, score_red) } else { (black, red, 1.0 - score_red) }
}

/// Small ids for the variant and worker names, so that the per-pair state holds no text.
#[derive(Debug, Default)]
struct Names {
    ids: HashMap<String, u32>,
    names: Vec<String>,
}

impl Names {
    fn id(&mut self, name: &str) -> u32 {
        if let Some(&id) = self.ids.get(name) {
            return id;
        }
        let id = self.names.len() as u32;
        self.ids.insert(name.to_owned(), id);
        self.names.push(name.to_owned());
        id
    }

    fn name(&self, id: u32) -> &str {
        &self.names[id as usize]
    }
}

/// A pair as its games arrive: the group of games of one run with one pair id and pairing.
#[derive(Clone, Copy, Debug)]
struct PairState {
    points: f64,
    games: u64,
    first_game: u64,
    /// The smallest worker name of the pair's games.
    worker: u32,
}

/// One complete pair (exactly two games), its names as [`Names`] ids.
#[derive(Clone, Copy, Debug, PartialEq)]
struct CompletePair {
    run: u64,
    a: u32,
    b: u32,
    first_game: u64,
    worker: u32,
    /// `a`'s points in the pair times two: the pentanomial index.
    index: usize,
}

/// One game as [`GameTally::add`] reads it.
#[derive(Clone, Copy, Debug)]
struct Game<'s> {
    pair_id: u64,
    game_id: u64,
    red: &'s str,
    black: &'s str,
    result: &'s str,
    worker: &'s str,
}

/// A pairing of one run: (run, a, b), the names as [`Names`] ids.
type PairingKey = (u64, u32, u32);

/// The games of a table folded into what the queries need: W/D/L per run and pairing, and
/// every pair's points, game count, first game and first worker. Knows nothing of files.
#[derive(Debug, Default)]
struct GameTally {
    names: Names,
    /// `[wins, draws, losses]` of `a` per pairing.
    wdl: HashMap<PairingKey, [u64; 3]>,
    /// Per (run, pair id, a, b): a pair is the group of games with one pair id in one pairing.
    pairs: HashMap<(u64, u64, u32, u32), PairState>,
}

impl GameTally {
    fn add(&mut self, run: u64, game: &Game<'_>) {
        let Game { pair_id, game_id, red, black, result, worker } = *game;
        let (a, b, score_a) = oriented(red, black, result);
        let (a, b) = (self.names.id(a), self.names.id(b));
        let worker = self.names.id(worker);
        let wdl = self.wdl.entry((run, a, b)).or_default();
        match score_a {
            s if s > 0.75 => wdl[0] += 1,
            s if s < 0.25 => wdl[2] += 1,
            _ => wdl[1] += 1,
        }
        let names = &self.names;
        self.pairs
            .entry((run, pair_id, a, b))
            .and_modify(|p| {
                p.points += score_a;
                p.games += 1;
                p.first_game = p.first_game.min(game_id);
                if names.name(worker) < names.name(p.worker) {
                    p.worker = worker;
                }
            })
            .or_insert(PairState { points: score_a, games: 1, first_game: game_id, worker });
    }

    /// The pairs of exactly two games (a pair still being played, or one whose other game was
    /// lost, is not one), in no particular order.
    fn complete_pairs(&self) -> impl Iterator<Item = CompletePair> + '_ {
        self.pairs.iter().filter(|(_, p)| p.games == 2).map(|(&(run, _, a, b), p)| CompletePair {
            run,
            a,
            b,
            first_game: p.first_game,
            worker: p.worker,
            // Two games' points are a whole number of halves from 0 to 2.
            index: ((p.points * 2.0) as usize).min(4),
        })
    }

    /// Per pairing: W/D/L over all games, pentanomial over complete pairs; by run, `a`, `b`.
    fn pairing_counts(&self) -> Vec<PairingCounts> {
        let mut by_pairing: HashMap<PairingKey, ([u64; 3], [u64; 5])> = HashMap::new();
        for (&key, &wdl) in &self.wdl {
            by_pairing.entry(key).or_default().0 = wdl;
        }
        for pair in self.complete_pairs() {
            by_pairing.entry((pair.run, pair.a, pair.b)).or_default().1[pair.index] += 1;
        }
        let mut out: Vec<PairingCounts> = by_pairing
            .into_iter()
            .map(|((run, a, b), ([wins, draws, losses], pentanomial))| PairingCounts {
                run,
                a: self.names.name(a).to_owned(),
                b: self.names.name(b).to_owned(),
                pentanomial,
                wins,
                draws,
                losses,
            })
            .collect();
        out.sort_by(|x, y| (x.run, &x.a, &x.b).cmp(&(y.run, &y.a, &y.b)));
        out
    }

    /// Per pairing and first worker: the pentanomial of the complete pairs.
    fn worker_counts(&self) -> Vec<WorkerCounts> {
        let mut by_worker: HashMap<(u64, u32, u32, u32), [u64; 5]> = HashMap::new();
        for pair in self.complete_pairs() {
            by_worker.entry((pair.run, pair.a, pair.b, pair.worker)).or_default()[pair.index] += 1;
        }
        let mut out: Vec<WorkerCounts> = by_worker
            .into_iter()
            .map(|((run, a, b, worker), pentanomial)| WorkerCounts {
                run,
                a: self.names.name(a).to_owned(),
                b: self.names.name(b).to_owned(),
                worker: self.names.name(worker).to_owned(),
                pentanomial,
            })
            .collect();
        out.sort_by(|x, y| (x.run, &x.a, &x.b, &x.worker).cmp(&(y.run, &y.a, &y.b, &y.worker)));
        out
    }

    /// The complete pairs of pairing `a`/`b`, by first game.
    fn pair_rows(&self, a: &str, b: &str) -> Vec<PairRow> {
        let (Some(&a), Some(&b)) = (self.names.ids.get(a), self.names.ids.get(b)) else {
            return Vec::new();
        };
        let mut out: Vec<PairRow> = self
            .complete_pairs()
            .filter(|p| p.a == a && p.b == b)
            .map(|p| PairRow { first_game: p.first_game, index: p.index })
            .collect();
        out.sort_by_key(|p| p.first_game);
        out
    }
}

/// The columns [`GameTally::add`] reads.
const PAIR_COLUMNS: [&str; 6] =
    [column::PAIR_ID, column::GAME_ID, column::RED_VARIANT, column::BLACK_VARIANT, column::RESULT, column::WORKER];

/// The games of `parts` folded into a [`GameTally`]; with `only`, only that pairing's games
/// (ids ordered as in [`PairingCounts`]).
fn tally_games(parts: &[Part], only: Option<(&str, &str)>) -> Result<GameTally> {
    let mut tally = GameTally::default();
    for part in parts {
        ParquetFile::open(&part.path)?.for_each_batch(&PAIR_COLUMNS, |batch| {
            let pair_id = batch.u64s(column::PAIR_ID)?;
            let game_id = batch.u64s(column::GAME_ID)?;
            let red = batch.strs(column::RED_VARIANT)?;
            let black = batch.strs(column::BLACK_VARIANT)?;
            let result = batch.strs(column::RESULT)?;
            let worker = batch.strs(column::WORKER)?;
            for i in 0..batch.len() {
                if let Some(pairing) = only {
                    let (a, b, _) = oriented(red[i], black[i], result[i]);
                    if (a, b) != pairing {
                        continue;
                    }
                }
                let game = Game {
                    pair_id: pair_id[i],
                    game_id: game_id[i],
                    red: red[i],
                    black: black[i],
                    result: result[i],
                    worker: worker[i],
                };
                tally.add(part.run, &game);
            }
            Ok(())
        })?;
    }
    Ok(tally)
}

/// Which runs' games a reader takes.
#[derive(Clone, Copy, Debug)]
enum Runs {
    /// Every run's.
    All,
    /// Runs a farm played: no imported run (`xqfarm import pgn`), whose games are no pairs
    /// and count toward no pentanomial, SPRT or worker check.
    Played,
    /// Imported runs only.
    Imported,
}

/// `read` over the parts of the `games` table (all runs or one, of the `kind` asked for) as
/// one consistent set, read again when a compaction replaced a part meanwhile
/// ([`read_parts`]); `None` when the table has no file. `read` starts from nothing on each
/// attempt, so a retried read counts nothing twice.
fn read_games<T>(
    data: &Path,
    run: Option<u64>,
    kind: Runs,
    read: impl FnMut(&[Part]) -> Result<T>,
) -> Result<Option<T>> {
    let keep = |r: u64| {
        let imported = RunId::new(r).is_imported();
        run.is_none_or(|wanted| wanted == r)
            && match kind {
                Runs::All => true,
                Runs::Played => !imported,
                Runs::Imported => imported,
            }
    };
    read_parts(data, Table::Games, keep, read)
}

/// One imported run (`xqfarm import pgn`): its name and files from `imports.parquet`, and its
/// games by result.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ImportedRun {
    pub run: u64,
    pub name: String,
    pub files: Vec<String>,
    pub games: u64,
    pub red_wins: u64,
    pub draws: u64,
    pub black_wins: u64,
    /// Games recorded without a result (`*`).
    pub unknown: u64,
    /// Games the players went on with after our rules would have ended them.
    pub past_rules_end: u64,
}

/// The imported runs of the data directory (optionally one run), by id.
pub fn imported_runs(data: &Path, run: Option<u64>) -> Result<Vec<ImportedRun>> {
    let mut runs: BTreeMap<u64, ImportedRun> = BTreeMap::new();
    let manifest = data.join("imports.parquet");
    if manifest.exists() {
        ParquetFile::open(&manifest)?.for_each_batch(&["run", "name", "file"], |batch| {
            let (ids, names, files) = (batch.u64s("run")?, batch.strs("name")?, batch.strs("file")?);
            for i in 0..batch.len() {
                let r = runs.entry(ids[i]).or_insert_with(|| ImportedRun { run: ids[i], ..ImportedRun::default() });
                r.name = names[i].to_owned();
                r.files.push(files[i].to_owned());
            }
            Ok(())
        })?;
    }
    let tallies = read_games(data, run, Runs::Imported, |parts| {
        let mut tallies: BTreeMap<u64, ImportedRun> = BTreeMap::new();
        for part in parts {
            let r = tallies.entry(part.run).or_default();
            ParquetFile::open(&part.path)?.for_each_batch(&[column::RESULT, column::REASON], |batch| {
                for (result, reason) in batch.strs(column::RESULT)?.into_iter().zip(batch.strs(column::REASON)?) {
                    r.games += 1;
                    match result {
                        "1-0" => r.red_wins += 1,
                        "0-1" => r.black_wins += 1,
                        "1/2-1/2" => r.draws += 1,
                        _ => r.unknown += 1,
                    }
                    r.past_rules_end += u64::from(reason.starts_with("recorded_past_"));
                }
                Ok(())
            })?;
        }
        Ok(tallies)
    })?;
    for (id, tally) in tallies.unwrap_or_default() {
        let r = runs.entry(id).or_insert_with(|| ImportedRun { run: id, ..ImportedRun::default() });
        r.games = tally.games;
        r.red_wins = tally.red_wins;
        r.black_wins = tally.black_wins;
        r.draws = tally.draws;
        r.unknown = tally.unknown;
        r.past_rules_end = tally.past_rules_end;
    }
    Ok(runs.into_values().filter(|r| run.is_none_or(|wanted| wanted == r.run)).collect())
}

/// Total games in the data (optionally one run), from the files' footers alone.
pub fn game_totals(data: &Path, run: Option<u64>) -> Result<GameTotals> {
    let totals = read_games(data, run, Runs::All, |parts| {
        let mut games = 0;
        let mut runs = BTreeSet::new();
        for part in parts {
            let rows = ParquetFile::open(&part.path)?.rows();
            games += rows;
            if rows > 0 {
                runs.insert(part.run);
            }
        }
        Ok(GameTotals { games, runs: runs.len() as u64 })
    })?;
    Ok(totals.unwrap_or_default())
}

/// Per pairing of every run: pentanomial (complete pairs) and W/D/L (all games) of `a`.
pub fn pairing_counts(data: &Path, run: Option<u64>) -> Result<Vec<PairingCounts>> {
    let tally = read_games(data, run, Runs::Played, |parts| tally_games(parts, None))?;
    Ok(tally.map(|t| t.pairing_counts()).unwrap_or_default())
}

/// Per pairing and worker: the pentanomial counts of the pairs the worker played.
pub fn worker_counts(data: &Path, run: Option<u64>) -> Result<Vec<WorkerCounts>> {
    let tally = read_games(data, run, Runs::Played, |parts| tally_games(parts, None))?;
    Ok(tally.map(|t| t.worker_counts()).unwrap_or_default())
}

/// Games per termination reason and run, most frequent first; imported runs, whose games
/// ended as their records say ([`imported_runs`]), are not among them.
pub fn reasons(data: &Path, run: Option<u64>) -> Result<Vec<ReasonCount>> {
    let counts = read_games(data, run, Runs::Played, |parts| {
        let mut counts: HashMap<(u64, Termination), u64> = HashMap::new();
        for part in parts {
            ParquetFile::open(&part.path)?.for_each_batch(&[column::REASON], |batch| {
                for text in batch.strs(column::REASON)? {
                    let reason: Termination = text
                        .parse()
                        .map_err(|e: proto::Error| data_error(&part.path, format!("run {}: {e}", part.run)))?;
                    *counts.entry((part.run, reason)).or_default() += 1;
                }
                Ok(())
            })?;
        }
        Ok(counts)
    })?;
    let mut out: Vec<ReasonCount> = counts
        .unwrap_or_default()
        .into_iter()
        .map(|((run, reason), games)| ReasonCount { run, reason, games })
        .collect();
    out.sort_by(|x, y| x.run.cmp(&y.run).then(y.games.cmp(&x.games)).then(x.reason.as_str().cmp(y.reason.as_str())));
    Ok(out)
}

/// One run's game lengths, durations and nodes as the games arrive.
#[derive(Clone, Debug, Default, PartialEq)]
struct LengthTally {
    games: u64,
    /// Games per length: the median without keeping every game.
    plies: BTreeMap<u64, u64>,
    plies_sum: u128,
    duration_sum: u128,
    nodes: u64,
}

impl LengthTally {
    fn add(&mut self, plies: u64, duration_ms: u64, nodes: u64) {
        self.games += 1;
        *self.plies.entry(plies).or_default() += 1;
        self.plies_sum += u128::from(plies);
        self.duration_sum += u128::from(duration_ms);
        self.nodes = self.nodes.saturating_add(nodes);
    }

    /// The `rank`-th smallest length (from 0); `rank` must be below the game count.
    fn nth_plies(&self, rank: u64) -> u64 {
        let mut below = 0;
        for (&plies, &games) in &self.plies {
            below += games;
            if rank < below {
                return plies;
            }
        }
        0
    }

    /// The statistics of `run`; `None` without games.
    fn stats(&self, run: u64) -> Option<LengthStats> {
        if self.games == 0 {
            return None;
        }
        let n = self.games;
        // The middle value, or the mean of the two middle values of an even count.
        let median = (self.nth_plies((n - 1) / 2) as f64 + self.nth_plies(n / 2) as f64) / 2.0;
        Some(LengthStats {
            run,
            games: n,
            mean_plies: self.plies_sum as f64 / n as f64,
            median_plies: median,
            min_plies: self.plies.keys().next().copied().unwrap_or(0),
            max_plies: self.plies.keys().next_back().copied().unwrap_or(0),
            mean_duration_ms: self.duration_sum as f64 / n as f64,
            nodes: self.nodes,
        })
    }
}

/// Game length (plies), time and nodes per run.
pub fn lengths(data: &Path, run: Option<u64>) -> Result<Vec<LengthStats>> {
    let runs = read_games(data, run, Runs::All, |parts| {
        let mut runs: BTreeMap<u64, LengthTally> = BTreeMap::new();
        for part in parts {
            let tally = runs.entry(part.run).or_default();
            ParquetFile::open(&part.path)?.for_each_batch(
                &[column::PLIES, column::DURATION_MS, column::NODES],
                |batch| {
                    let plies = batch.u64s(column::PLIES)?;
                    let duration = batch.u64s(column::DURATION_MS)?;
                    let nodes = batch.u64s(column::NODES)?;
                    for i in 0..batch.len() {
                        tally.add(plies[i], duration[i], nodes[i]);
                    }
                    Ok(())
                },
            )?;
        }
        Ok(runs)
    })?;
    Ok(runs.unwrap_or_default().iter().filter_map(|(&run, tally)| tally.stats(run)).collect())
}

/// The complete pairs of one run's pairing `a` vs `b` (ids ordered as in [`PairingCounts`]),
/// in the order their first games were recorded: what the LLR-against-games chart replays.
pub fn pairs(data: &Path, run: u64, a: &str, b: &str) -> Result<Vec<PairRow>> {
    let tally = read_games(data, Some(run), Runs::All, |parts| tally_games(parts, Some((a, b))))?;
    Ok(tally.map(|t| t.pair_rows(a, b)).unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Games as (run, pair, game, red, black, result, worker).
    type Row = (u64, u64, u64, &'static str, &'static str, &'static str, &'static str);

    fn tally(games: &[Row]) -> GameTally {
        let mut t = GameTally::default();
        for &(run, pair, game, red, black, result, worker) in games {
            t.add(run, &Game { pair_id: pair, game_id: game, red, black, result, worker });
        }
        t
    }

    #[test]
    fn a_game_is_oriented_by_variant_id() {
        assert_eq!(oriented("x", "y", "1-0"), ("x", "y", 1.0));
        assert_eq!(oriented("y", "x", "1-0"), ("x", "y", 0.0));
        assert_eq!(oriented("y", "x", "0-1"), ("x", "y", 1.0));
        assert_eq!(oriented("y", "x", "1/2-1/2"), ("x", "y", 0.5));
        // Anything else is a draw, as it always was.
        assert_eq!(oriented("x", "y", "*"), ("x", "y", 0.5));
        assert_eq!(oriented("x", "x", "0-1"), ("x", "x", 0.0));
    }

    #[test]
    fn pairs_of_two_games_make_the_pentanomial_and_every_game_the_wdl() {
        let t = tally(&[
            // Pair 0: x wins as Red and draws as Black (1.5 points), first game 2, workers w2/w1.
            (1, 0, 3, "y", "x", "1/2-1/2", "w1"),
            (1, 0, 2, "x", "y", "1-0", "w2"),
            // Pair 1: x loses both (0 points).
            (1, 1, 4, "x", "y", "0-1", "w3"),
            (1, 1, 5, "y", "x", "1-0", "w3"),
            // Pair 2: one game only; it counts in the W/D/L, not in the pentanomial.
            (1, 2, 6, "x", "y", "1-0", "w1"),
            // Pair 0 of another run and of another pairing are other pairs.
            (2, 0, 1, "x", "y", "1/2-1/2", "w1"),
            (1, 0, 7, "x", "z", "1-0", "w1"),
        ]);
        let counts = t.pairing_counts();
        let summary: Vec<_> = counts
            .iter()
            .map(|c| (c.run, c.a.as_str(), c.b.as_str(), c.pentanomial, c.wins, c.draws, c.losses))
            .collect();
        assert_eq!(
            summary,
            [(1, "x", "y", [1, 0, 0, 1, 0], 2, 1, 2), (1, "x", "z", [0; 5], 1, 0, 0), (2, "x", "y", [0; 5], 0, 1, 0),]
        );
        // The first worker of a pair is the smallest name, whichever game it played.
        let workers: Vec<_> = t.worker_counts().into_iter().map(|w| (w.worker, w.pentanomial)).collect();
        assert_eq!(workers, [("w1".to_owned(), [0, 0, 0, 1, 0]), ("w3".to_owned(), [1, 0, 0, 0, 0])]);
        assert_eq!(
            t.pair_rows("x", "y"),
            [PairRow { first_game: 2, index: 3 }, PairRow { first_game: 4, index: 0 }],
            "by first game, the other run's game not being a pair"
        );
        assert!(t.pair_rows("y", "x").is_empty(), "ids are ordered");
    }

    #[test]
    fn a_pair_id_with_three_games_is_no_complete_pair() {
        let t =
            tally(&[(1, 0, 1, "x", "y", "1-0", "w"), (1, 0, 2, "y", "x", "0-1", "w"), (1, 0, 3, "x", "y", "1-0", "w")]);
        assert_eq!(t.pairing_counts()[0].pentanomial, [0; 5]);
        assert_eq!(t.pairing_counts()[0].wins, 3);
    }

    #[test]
    fn lengths_have_the_median_of_the_middle_values() {
        let mut odd = LengthTally::default();
        for (plies, duration, nodes) in [(50, 100, 7), (10, 300, 8), (30, 200, 9)] {
            odd.add(plies, duration, nodes);
        }
        let stats = odd.stats(4).expect("three games");
        assert_eq!((stats.run, stats.games, stats.min_plies, stats.max_plies, stats.nodes), (4, 3, 10, 50, 24));
        assert_eq!((stats.mean_plies, stats.median_plies, stats.mean_duration_ms), (30.0, 30.0, 200.0));
        let mut even = LengthTally::default();
        for plies in [40, 10, 40, 11] {
            even.add(plies, 0, 0);
        }
        assert_eq!(even.stats(1).map(|s| s.median_plies), Some(25.5));
        let mut one = LengthTally::default();
        one.add(7, 0, 0);
        assert_eq!(one.stats(1).map(|s| s.median_plies), Some(7.0));
        assert_eq!(LengthTally::default().stats(1), None);
    }
}
