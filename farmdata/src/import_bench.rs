//! The import's speed: games per second over a generated archive (`xqfarm bench import`).
//!
//! The archive is seeded random legal playouts from the initial position, 70 to 110 plies
//! (90 on average), written by the one PGN writer (`engine::pgn::write_game`) in the notation
//! measured; then [`import_pgn`] reads it into a fresh data directory, timed from reading the
//! file to the last part file written.

use std::path::Path;
use std::time::Instant;

use engine::notation::Notation;
use engine::pgn::{PgnGame, write_game};
use engine::{Move, Position};

use super::error::{AtPath, Error, Result};
use super::import::{ImportOptions, import_pgn};

/// A small deterministic generator (SplitMix64): the archive is the same for a seed.
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// `games` seeded random playouts as one PGN text in `notation`; returns the text and the
/// plies written.
pub fn bench_archive(games: usize, seed: u64, notation: Notation) -> Result<(String, u64)> {
    let mut rng = SplitMix(seed);
    let mut out = String::with_capacity(games * 1024);
    let mut plies = 0u64;
    let start = Position::startpos();
    let start_fen = start.fen();
    let results = ["1-0", "0-1", "1/2-1/2", "*"];
    for _ in 0..games {
        let length = 70 + rng.below(41);
        let mut pos = start.clone();
        let mut moves: Vec<String> = Vec::with_capacity(length);
        for _ in 0..length {
            let legal: Vec<Move> = pos.legal_moves().into_iter().copied().collect();
            if legal.is_empty() {
                break;
            }
            let m = legal[rng.below(legal.len())];
            moves.push(m.to_string());
            pos.play_unchecked(m);
            pos.truncate_history(256);
        }
        plies += moves.len() as u64;
        let game = PgnGame {
            event: "xqfarm bench import".into(),
            round: String::new(),
            red_name: "random",
            red_id: "",
            black_name: "random",
            black_id: "",
            result: results[rng.below(results.len())],
            termination: "",
            start_fen: &start_fen,
            book_moves: &[],
            moves: &moves,
        };
        write_game(&mut out, &game, notation)
            .map_err(|problem| Error::Import { path: "the generated archive".into(), problem })?;
    }
    Ok((out, plies))
}

/// One notation's figures.
#[derive(Clone, Debug, PartialEq)]
pub struct ImportSpeed {
    pub notation: Notation,
    pub games: u64,
    pub plies: u64,
    pub bytes: u64,
    pub seconds: f64,
}

impl ImportSpeed {
    pub fn games_per_second(&self) -> f64 {
        self.games as f64 / self.seconds.max(1e-9)
    }
}

/// Writes `games` playouts in `notation` under `work` and times their import into `work`'s
/// fresh data directory.
pub fn bench_import(work: &Path, games: usize, seed: u64, notation: Notation) -> Result<ImportSpeed> {
    let (text, plies) = bench_archive(games, seed, notation)?;
    let file = work.join(format!("bench-{notation}.pgn"));
    std::fs::write(&file, &text).at(&file)?;
    let data = work.join(format!("data-{notation}"));
    if data.exists() {
        std::fs::remove_dir_all(&data).at(&data)?;
    }
    let started = Instant::now();
    let summary = import_pgn(&data, std::slice::from_ref(&file), &ImportOptions::default())?;
    let seconds = started.elapsed().as_secs_f64();
    if summary.games != games as u64 {
        return Err(Error::Import {
            path: file,
            problem: format!("{} of {games} generated games imported: {:?}", summary.games, summary.skipped.first()),
        });
    }
    Ok(ImportSpeed { notation, games: summary.games, plies, bytes: text.len() as u64, seconds })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_archive_is_seeded_and_imports_whole_in_each_notation() -> Result<()> {
        let (a, plies) = bench_archive(3, 9, Notation::Wxf)?;
        assert_eq!(bench_archive(3, 9, Notation::Wxf)?.0, a, "the same seed, the same archive");
        assert!((210..=330).contains(&plies), "{plies}");
        let dir = tempfile::tempdir().map_err(|e| Error::Io { path: "tmp".into(), source: e })?;
        for notation in [Notation::Wxf, Notation::Chinese, Notation::Iccs] {
            let speed = bench_import(dir.path(), 3, 9, notation)?;
            assert_eq!((speed.games, speed.plies), (3, plies), "{notation}");
        }
        Ok(())
    }
}
