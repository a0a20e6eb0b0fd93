//! One material set's table in memory: per side to move, a cell per index holding the
//! position's value (win or loss with its distance to conversion in plies, draw), or no
//! value for a broken index.

use super::index::Indexer;
use super::material::Material;
use crate::position::Position;
use crate::types::Color;

/// Win, draw or loss, from the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Wdl {
    Loss,
    Draw,
    Win,
}

impl Wdl {
    /// The value for the other side.
    pub fn flipped(self) -> Wdl {
        match self {
            Wdl::Loss => Wdl::Win,
            Wdl::Draw => Wdl::Draw,
            Wdl::Win => Wdl::Loss,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Wdl::Loss => "loss",
            Wdl::Draw => "draw",
            Wdl::Win => "win",
        }
    }
}

impl std::fmt::Display for Wdl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// A table's verdict on a position: WDL from the side to move, and for a win or a loss the
/// distance to conversion (DTC): plies to the next capture or to mate (or stalemate), with
/// the winner shortening it and the loser lengthening it. A draw's DTC is 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Value {
    pub wdl: Wdl,
    pub dtc: u16,
}

/// Cell encodings.
pub(crate) const INVALID: u16 = u16::MAX;
/// A draw, and during generation a position not yet resolved.
pub(crate) const DRAW: u16 = u16::MAX - 1;
/// The largest DTC a cell can hold.
pub const MAX_DTC: u16 = (u16::MAX - 2) >> 1;

#[inline]
pub(crate) const fn win(dtc: u16) -> u16 {
    dtc << 1 | 1
}

#[inline]
pub(crate) const fn loss(dtc: u16) -> u16 {
    dtc << 1
}

#[inline]
pub(crate) fn decode_cell(cell: u16) -> Option<Value> {
    match cell {
        INVALID => None,
        DRAW => Some(Value { wdl: Wdl::Draw, dtc: 0 }),
        c => Some(Value { wdl: if c & 1 == 1 { Wdl::Win } else { Wdl::Loss }, dtc: c >> 1 }),
    }
}

/// Counts of one table's positions by verdict.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Census {
    pub wins: u64,
    pub draws: u64,
    pub losses: u64,
    /// Indices that hold no legal position.
    pub broken: u64,
    pub max_dtc: u16,
}

impl Census {
    pub fn positions(&self) -> u64 {
        self.wins + self.draws + self.losses
    }
}

#[derive(Clone, Debug)]
pub struct Table {
    pub(crate) indexer: Indexer,
    /// By side to move (`Color::index`).
    pub(crate) cells: [Vec<u16>; 2],
}

impl PartialEq for Table {
    /// Same set, same values.
    fn eq(&self, other: &Table) -> bool {
        self.material() == other.material() && self.cells == other.cells
    }
}

impl Table {
    pub fn material(&self) -> Material {
        self.indexer.material()
    }

    pub fn indexer(&self) -> &Indexer {
        &self.indexer
    }

    /// The value at an index, `None` for a broken one.
    pub fn value(&self, side: Color, idx: usize) -> Option<Value> {
        self.cells[side.index()].get(idx).copied().and_then(decode_cell)
    }

    /// The value of `pos`, or `None` when its material is not this table's.
    pub fn probe(&self, pos: &Position) -> Option<Value> {
        let (side, idx) = self.indexer.encode(pos)?;
        self.value(side, idx)
    }

    /// Counts per side to move.
    pub fn census(&self, side: Color) -> Census {
        let mut c = Census::default();
        for &cell in &self.cells[side.index()] {
            match decode_cell(cell) {
                None => c.broken += 1,
                Some(v) => {
                    match v.wdl {
                        Wdl::Win => c.wins += 1,
                        Wdl::Draw => c.draws += 1,
                        Wdl::Loss => c.losses += 1,
                    }
                    c.max_dtc = c.max_dtc.max(v.dtc);
                }
            }
        }
        c
    }
}
