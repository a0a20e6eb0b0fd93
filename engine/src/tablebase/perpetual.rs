//! The Asian rules in the retrograde: the regions where one side can keep the draw only by a
//! perpetual check or a perpetual chase, which the rules forbid (`engine/RULES.md`,
//! "Repetition"), so that side loses there.
//!
//! After the levels settle, every open position is a draw if every repetition were one. Take
//! a side X and a kind of forcing move (a check, or a chase of the one opponent piece of some
//! kind). The *forced region* is the largest set of open positions such that
//!
//! - with X to move, every move that keeps the game open (a quiet move into an open position,
//!   or a capture into a drawn position of the smaller set) is a forcing move into the region;
//!   X's other moves lose (they lead to positions already won for the opponent Y);
//! - with Y to move, Y has an idle move (no check, no chase) into the region.
//!
//! From the region Y plays idle moves into it for ever; X either steps out into a lost
//! position or stays, forcing on every move. The game then repeats a position with X's moves
//! all checks (or all chases of that one piece, the same piece throughout since it is the
//! only one of its kind) and Y's all idle: rows 2-3 or 7-8 of the verdict table, X loses.
//! The region is found as a greatest fixed point, by removing positions that break either
//! condition until none does.
//!
//! The region is sound, not complete: it never calls a true draw a win, but a draw that the
//! full rules would decide in other ways (Y answering with chases, a chased piece that has a
//! twin, mixed cycles in which the rules blame one side) stays a draw. So the tables'
//! remaining draws in sets where both sides attack are still not used to end games.

use std::sync::atomic::{AtomicU16, Ordering};

use rayon::prelude::*;

use super::generate::{Node, capture_value};
use super::index::{Indexer, Placement};
use super::material::Material;
use super::table::{DRAW, Table, Wdl};
use crate::error::Result;
use crate::position::Position;
use crate::rules::chase::{MoveClass, classify_played, threatened};
use crate::types::{Color, PieceKind};

const CHUNK: usize = 4096;

/// The moves X must make on every turn to be blamed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Forcing {
    Check,
    /// A chase of the opponent's only piece of this kind.
    Chase(PieceKind),
}

/// Every (X, forcing) pair worth a region in `material`: checks by either side, and chases of
/// a kind the opponent has exactly one piece of.
pub(super) fn forcings(material: Material) -> Vec<(Color, Forcing)> {
    let mut out = Vec::new();
    for x in Color::ALL {
        out.push((x, Forcing::Check));
        for kind in [
            PieceKind::Rook,
            PieceKind::Knight,
            PieceKind::Cannon,
            PieceKind::Pawn,
            PieceKind::Advisor,
            PieceKind::Bishop,
        ] {
            if material.count(!x, kind) == 1 {
                out.push((x, Forcing::Chase(kind)));
            }
        }
    }
    out
}

/// Whether X's move that led to `after` is `forcing`, given what X really threatened before.
fn is_forcing(after: &Position, x: Color, threatened_before: crate::types::Bitboard, forcing: Forcing) -> bool {
    match (classify_played(after, x, threatened_before), forcing) {
        (MoveClass::Check, Forcing::Check) => true,
        (MoveClass::Chase(chased), Forcing::Chase(kind)) => (chased & after.pieces(!x, kind)).any(),
        _ => false,
    }
}

/// An open position and the open positions its relevant moves reach.
struct Node1 {
    idx: u32,
    succ: Vec<u32>,
}

/// The open positions of side X that qualify as they stand (every open move forcing), with
/// the open Y positions those moves reach.
fn x_candidates(
    indexer: &Indexer,
    cells: &[Vec<AtomicU16>; 2],
    subs: &[&Table],
    x: Color,
    forcing: Forcing,
) -> Result<Vec<Node1>> {
    let size = indexer.size();
    let y = !x;
    let found: Vec<Result<Vec<Node1>>> = (0..size.div_ceil(CHUNK))
        .into_par_iter()
        .map(|chunk| {
            let mut pos = Position::startpos();
            let mut placement = Placement::new();
            let mut out = Vec::new();
            'index: for idx in chunk * CHUNK..((chunk + 1) * CHUNK).min(size) {
                if cells[x.index()][idx].load(Ordering::Relaxed) != DRAW || !indexer.decode(idx, &mut placement) {
                    continue;
                }
                pos.set_unchecked(&placement, x);
                let before = threatened(&pos, x);
                let mut succ = Vec::new();
                for &m in pos.legal_moves().iter() {
                    let capture = pos.is_capture(m);
                    pos.play_unchecked(m);
                    let keep = if capture {
                        // A capture into a draw escapes; into Y's win it loses.
                        capture_value(&pos, subs).map(|v| v != Wdl::Draw)
                    } else {
                        match indexer.encode(&pos) {
                            Some((_, q)) if cells[y.index()][q].load(Ordering::Relaxed) == DRAW => {
                                let ok = is_forcing(&pos, x, before, forcing);
                                succ.push(q as u32);
                                Ok(ok)
                            }
                            // Settled: a win for Y (a loss for Y would have made this a win).
                            _ => Ok(true),
                        }
                    };
                    pos.undo();
                    if !keep? {
                        continue 'index;
                    }
                }
                succ.sort_unstable();
                succ.dedup();
                out.push(Node1 { idx: idx as u32, succ });
            }
            Ok(out)
        })
        .collect();
    let mut out = Vec::new();
    for chunk in found {
        out.extend(chunk?);
    }
    Ok(out)
}

/// The open positions of side Y with an idle quiet move into `in_x` (a bitset over X's
/// indices), with those moves' targets.
fn y_candidates(indexer: &Indexer, cells: &[Vec<AtomicU16>; 2], y: Color, in_x: &[u64]) -> Vec<Node1> {
    let size = indexer.size();
    (0..size.div_ceil(CHUNK))
        .into_par_iter()
        .flat_map_iter(|chunk| {
            let mut pos = Position::startpos();
            let mut placement = Placement::new();
            let mut out = Vec::new();
            let range = chunk * CHUNK..((chunk + 1) * CHUNK).min(size);
            for (idx, cell) in range.clone().zip(&cells[y.index()][range]) {
                if cell.load(Ordering::Relaxed) != DRAW || !indexer.decode(idx, &mut placement) {
                    continue;
                }
                pos.set_unchecked(&placement, y);
                let before = threatened(&pos, y);
                let mut succ = Vec::new();
                for &m in pos.legal_moves().iter() {
                    if pos.is_capture(m) {
                        continue;
                    }
                    pos.play_unchecked(m);
                    if let Some((_, p)) = indexer.encode(&pos)
                        && bit(in_x, p)
                        && classify_played(&pos, y, before) == MoveClass::Idle
                    {
                        succ.push(p as u32);
                    }
                    pos.undo();
                }
                if !succ.is_empty() {
                    succ.sort_unstable();
                    succ.dedup();
                    out.push(Node1 { idx: idx as u32, succ });
                }
            }
            out.into_iter()
        })
        .collect()
}

fn bit(set: &[u64], i: usize) -> bool {
    set[i / 64] >> (i % 64) & 1 == 1
}

fn set_bit(set: &mut [u64], i: usize, on: bool) {
    if on {
        set[i / 64] |= 1 << (i % 64);
    } else {
        set[i / 64] &= !(1 << (i % 64));
    }
}

/// The forced region of X for `forcing` among the open positions (see the module's docs):
/// its X-to-move positions are lost, its Y-to-move positions won.
pub(super) fn forced_region(
    indexer: &Indexer,
    cells: &[Vec<AtomicU16>; 2],
    subs: &[&Table],
    x: Color,
    forcing: Forcing,
) -> Result<Vec<Node>> {
    let size = indexer.size();
    let words = size.div_ceil(64);
    let xs = x_candidates(indexer, cells, subs, x, forcing)?;
    if xs.is_empty() {
        return Ok(Vec::new());
    }
    let mut in_x = vec![0u64; words];
    for n in &xs {
        set_bit(&mut in_x, n.idx as usize, true);
    }
    let ys = y_candidates(indexer, cells, !x, &in_x);
    let mut in_y = vec![0u64; words];
    for n in &ys {
        set_bit(&mut in_y, n.idx as usize, true);
    }
    let (mut alive_x, mut alive_y) = (vec![true; xs.len()], vec![true; ys.len()]);
    loop {
        let mut changed = false;
        for (n, alive) in xs.iter().zip(alive_x.iter_mut()) {
            if *alive && !n.succ.iter().all(|&q| bit(&in_y, q as usize)) {
                *alive = false;
                set_bit(&mut in_x, n.idx as usize, false);
                changed = true;
            }
        }
        for (n, alive) in ys.iter().zip(alive_y.iter_mut()) {
            if *alive && !n.succ.iter().any(|&p| bit(&in_x, p as usize)) {
                *alive = false;
                set_bit(&mut in_y, n.idx as usize, false);
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    let region_x = xs.iter().zip(&alive_x).filter(|(_, a)| **a).map(|(n, _)| (x, n.idx));
    let region_y = ys.iter().zip(&alive_y).filter(|(_, a)| **a).map(|(n, _)| (!x, n.idx));
    Ok(region_x.chain(region_y).collect())
}
