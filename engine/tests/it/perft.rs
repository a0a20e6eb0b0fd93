//! Perft from the shared reference file (`../shared/xiangqi/perft.txt`, each count agreed
//! by Pikafish and Fairy-Stockfish), read by one generic driver.
//!
//! The default test runs every entry up to the depths whose counts stay under a node
//! budget; `cargo test --release -p engine --test it -- --ignored perft::` runs every count
//! (about 9 billion leaves).

use std::path::PathBuf;

use engine::Position;
use engine::perft::{perft, perft_staged_checked};

struct Entry {
    fen: String,
    counts: Vec<(u32, u64)>,
}

fn shared_dir() -> PathBuf {
    std::env::var_os("XQFARM_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared"))
}

fn load() -> Vec<Entry> {
    let path = shared_dir().join("xiangqi/perft.txt");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {} (set XQFARM_SHARED): {e}", path.display()));
    let mut entries = Vec::new();
    for line in text.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#')) {
        let mut fields = line.split(';');
        let fen = fields.next().expect("a FEN field").trim().to_owned();
        let counts = fields
            .map(|f| {
                let (d, n) = f.trim().split_once(' ').expect("`Dn count`");
                (d.trim_start_matches('D').parse().expect("depth"), n.parse().expect("count"))
            })
            .collect();
        entries.push(Entry { fen, counts });
    }
    assert!(entries.len() >= 30, "perft file {} looks truncated", path.display());
    entries
}

fn run(max_nodes: u64) -> usize {
    let mut checked = 0;
    for e in load() {
        let mut pos = Position::from_fen(&e.fen).unwrap_or_else(|err| panic!("{}: {err}", e.fen));
        for &(depth, expected) in &e.counts {
            if expected > max_nodes {
                continue;
            }
            assert_eq!(perft(&mut pos, depth), expected, "perft({depth}) of {}", e.fen);
            checked += 1;
        }
        assert_eq!(pos.fen(), Position::from_fen(&e.fen).expect("valid").fen(), "perft left the position changed");
    }
    checked
}

#[test]
fn perft_reference_counts() {
    let checked = run(if cfg!(debug_assertions) { 1_500_000 } else { 20_000_000 });
    assert!(checked > 100, "only {checked} counts checked");
}

#[test]
fn start_position_to_depth_4() {
    let mut pos = Position::startpos();
    let counts: Vec<u64> = (1..=4).map(|d| perft(&mut pos, d)).collect();
    assert_eq!(counts, [44, 1920, 79666, 3290240]);
}

/// The staged generator (captures, quiets, evasions) yields exactly the legal moves, and
/// the incremental Zobrist key equals the recomputed key at every node.
#[test]
fn perft_staged_with_hash_check() {
    for e in load() {
        let mut pos = Position::from_fen(&e.fen).expect("valid FEN");
        for &(depth, expected) in e.counts.iter().filter(|(_, n)| *n <= 120_000) {
            let got = perft_staged_checked(&mut pos, depth).unwrap_or_else(|err| panic!("{}: {err}", e.fen));
            assert_eq!(got, expected, "staged perft({depth}) of {}", e.fen);
        }
    }
}

#[test]
#[ignore = "deep: about 9 billion leaves; run with --release --ignored before finishing"]
fn perft_reference_counts_deep() {
    run(u64::MAX);
}
