//! Retrograde analysis of one material set, given the tables its captures lead to.
//!
//! Pass 0 marks broken indices and the positions with no legal move (lost: checkmate and
//! stalemate both lose in Xiangqi). Pass `k` then resolves, for each side to move in turn,
//! every position still open whose successors decide it: a move to a position lost for the
//! opponent with DTC at most `k - 1` makes it a win with DTC `k`; all moves leading to
//! positions won for the opponent with DTC at most `k - 1` make it a loss with DTC `k`. A
//! capture leads into a smaller set's table and counts as DTC 0 (it converts). Cells written
//! in pass `k` have DTC `k`, so reading a table while it is written sees only settled
//! values. When a whole pass resolves nothing, every open position is a draw: a repetition,
//! by any side, is a draw in these tables (see `engine/RULES.md`). The natural move limit
//! is not counted.
//!
//! The passes run on all cores (rayon) over chunks of the table being written.

use rayon::prelude::*;

use super::index::{Indexer, Placement};
use super::material::Material;
use super::table::{DRAW, INVALID, MAX_DTC, Table, Wdl, decode_cell, loss, win};
use crate::error::{Error, Result};
use crate::position::Position;
use crate::types::Color;

/// Where a generation is, reported after each pass.
#[derive(Clone, Copy, Debug)]
pub struct Progress {
    pub material: Material,
    pub pass: u16,
    /// Positions resolved as won or lost so far (both sides to move).
    pub resolved: u64,
    /// Legal positions (both sides to move).
    pub positions: u64,
}

const CHUNK: usize = 4096;

/// The value of a successor reached by a capture, from the side to move there.
fn capture_value(pos: &Position, subs: &[&Table]) -> Result<Wdl> {
    let material = Material::of(pos).canonical();
    let table = subs
        .iter()
        .find(|t| t.material() == material)
        .ok_or_else(|| Error::Tablebase { what: format!("set {material}"), reason: "not generated yet".into() })?;
    let v = table.probe(pos).ok_or_else(|| Error::Tablebase {
        what: format!("set {material}"),
        reason: format!("no value for the legal position {}", pos.fen()),
    })?;
    Ok(v.wdl)
}

/// Generates the table of `material` (any orientation). `subs` holds the tables of every
/// set one capture leads to (`Material::captures`, in canonical form).
pub fn generate(material: Material, subs: &[&Table], progress: &(dyn Fn(Progress) + Sync)) -> Result<Table> {
    let indexer = Indexer::new(material);
    let material = indexer.material();
    for sub in material.captures() {
        let sub = sub.canonical();
        if !subs.iter().any(|t| t.material() == sub) {
            return Err(Error::Tablebase {
                what: format!("set {material}"),
                reason: format!("needs the table {sub} first"),
            });
        }
    }
    let size = indexer.size();
    let mut cells = [vec![DRAW; size], vec![DRAW; size]];

    // Pass 0.
    for side in Color::ALL {
        cells[side.index()].par_chunks_mut(CHUNK).enumerate().for_each(|(chunk, out)| {
            let mut pos = Position::startpos();
            let mut placement = Placement::new();
            for (i, cell) in out.iter_mut().enumerate() {
                let idx = chunk * CHUNK + i;
                *cell = if !indexer.decode(idx, &mut placement) {
                    INVALID
                } else {
                    pos.set_unchecked(&placement, side);
                    if pos.kings_facing() || pos.is_king_attacked(!side) {
                        INVALID
                    } else if !pos.has_legal_move() {
                        loss(0)
                    } else {
                        DRAW
                    }
                };
            }
        });
    }
    let positions = cells.iter().flatten().filter(|&&c| c != INVALID).count() as u64;
    let mut resolved = cells.iter().flatten().filter(|&&c| c != INVALID && c != DRAW).count() as u64;
    progress(Progress { material, pass: 0, resolved, positions });

    let mut pass: u16 = 0;
    loop {
        pass = pass.checked_add(1).filter(|&p| p <= MAX_DTC).ok_or_else(|| Error::Tablebase {
            what: format!("set {material}"),
            reason: "DTC beyond the format".into(),
        })?;
        let mut changed = 0u64;
        for side in Color::ALL {
            let (red, black) = cells.split_at_mut(1);
            let (out, theirs) = match side {
                Color::Red => (&mut red[0], &black[0]),
                Color::Black => (&mut black[0], &red[0]),
            };
            let theirs: &[u16] = theirs;
            let results: Vec<Result<u64>> = out
                .par_chunks_mut(CHUNK)
                .enumerate()
                .map(|(chunk, out)| {
                    let mut pos = Position::startpos();
                    let mut placement = Placement::new();
                    let mut n = 0;
                    for (i, cell) in out.iter_mut().enumerate() {
                        if *cell != DRAW {
                            continue;
                        }
                        let idx = chunk * CHUNK + i;
                        indexer.decode(idx, &mut placement);
                        pos.set_unchecked(&placement, side);
                        if let Some(v) = step(&mut pos, &indexer, theirs, subs, pass)? {
                            *cell = v;
                            n += 1;
                        }
                    }
                    Ok(n)
                })
                .collect();
            for r in results {
                changed += r?;
            }
        }
        resolved += changed;
        progress(Progress { material, pass, resolved, positions });
        if changed == 0 {
            break;
        }
    }
    Ok(Table { indexer, cells })
}

/// Pass `k` on one open position: its new cell, if its successors decide it now.
fn step(pos: &mut Position, indexer: &Indexer, theirs: &[u16], subs: &[&Table], k: u16) -> Result<Option<u16>> {
    let moves = pos.legal_moves();
    let mut all_won = true;
    for &m in moves.iter() {
        let capture = pos.is_capture(m);
        pos.play_unchecked(m);
        let (wdl, dtc) = if capture {
            (capture_value(pos, subs), 0)
        } else {
            match indexer.encode(pos).map(|(_, idx)| decode_cell(theirs[idx])) {
                Some(Some(v)) if v.wdl != Wdl::Draw => (Ok(v.wdl), v.dtc),
                _ => (Ok(Wdl::Draw), 0),
            }
        };
        pos.undo();
        let wdl = wdl?;
        // A successor settled before this pass (DTC at most k - 1); draws are still open.
        let settled = wdl != Wdl::Draw && dtc < k;
        if settled && wdl == Wdl::Loss {
            return Ok(Some(win(k)));
        }
        if !(settled && wdl == Wdl::Win) {
            all_won = false;
        }
    }
    Ok(if all_won { Some(loss(k)) } else { None })
}
