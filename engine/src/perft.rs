//! Perft: counts the leaf nodes of the legal move tree, the proof of move generation.

use crate::movegen::{StagedMoves, count_legal};
use crate::position::Position;
use crate::types::Move;

/// Leaf count at `depth` (bulk-counted at the last ply).
pub fn perft(pos: &mut Position, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    if depth == 1 {
        return count_legal(pos) as u64;
    }
    let moves = pos.legal_moves();
    let mut nodes = 0;
    for &m in moves.iter() {
        pos.play_unchecked(m);
        nodes += perft(pos, depth - 1);
        pos.undo();
    }
    nodes
}

/// Per root move counts (the `go perft` / "divide" output), in generation order.
pub fn divide(pos: &mut Position, depth: u32) -> Vec<(Move, u64)> {
    let moves = pos.legal_moves();
    moves
        .iter()
        .map(|&m| {
            pos.play_unchecked(m);
            let n = if depth <= 1 { 1 } else { perft(pos, depth - 1) };
            pos.undo();
            (m, n)
        })
        .collect()
}

/// Perft through the staged generator (captures, then quiets; evasions in check), with
/// every node's incremental key checked against a key computed from scratch.
/// Returns `Err` naming the first move after which the keys differ.
pub fn perft_staged_checked(pos: &mut Position, depth: u32) -> Result<u64, String> {
    if pos.key() != pos.compute_key() {
        return Err(format!("key mismatch at {}", pos.fen()));
    }
    if depth == 0 {
        return Ok(1);
    }
    let mut staged = StagedMoves::new(pos);
    let mut nodes = 0;
    while let Some((m, _stage)) = staged.next(pos) {
        pos.play_unchecked(m);
        let r = perft_staged_checked(pos, depth - 1);
        pos.undo();
        nodes += r.map_err(|e| format!("{m} {e}"))?;
    }
    Ok(nodes)
}
