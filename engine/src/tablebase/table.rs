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
///
/// A win or a loss `by_rule` is one the repetition rules decide (`engine/RULES.md`,
/// "Tablebases"): the loser can keep the game from a capture or mate only by a perpetual
/// check or chase. Its DTC still orders the moves (every such value is above every DTC that
/// ends in a capture or mate), but counts plies to a forced perpetual, not to a conversion.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Value {
    pub wdl: Wdl,
    pub dtc: u16,
    pub by_rule: bool,
}

impl Value {
    /// The value a capture converts into: DTC 0 in the smaller set.
    pub(crate) fn converted(self) -> Value {
        Value { dtc: 0, by_rule: false, ..self }
    }
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
        DRAW => Some(Value { wdl: Wdl::Draw, dtc: 0, by_rule: false }),
        c => Some(Value { wdl: if c & 1 == 1 { Wdl::Win } else { Wdl::Loss }, dtc: c >> 1, by_rule: false }),
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
    /// Wins and losses the repetition rules decide (counted in `wins` and `losses` too).
    pub by_rule: u64,
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
    /// The first DTC that the repetition rules decide ([`NO_RULE`] when none does).
    pub(crate) rule_from: u16,
}

/// `Table::rule_from` of a table where no value comes from the repetition rules.
pub(crate) const NO_RULE: u16 = u16::MAX;

impl PartialEq for Table {
    /// Same set, same values.
    fn eq(&self, other: &Table) -> bool {
        self.material() == other.material() && self.cells == other.cells && self.rule_from == other.rule_from
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
        let v = self.cells[side.index()].get(idx).copied().and_then(decode_cell)?;
        Some(Value { by_rule: v.wdl != Wdl::Draw && v.dtc >= self.rule_from, ..v })
    }

    /// The first DTC the repetition rules decide, if any value of this table is theirs.
    pub fn rule_from(&self) -> Option<u16> {
        (self.rule_from != NO_RULE).then_some(self.rule_from)
    }

    /// The value of `pos`, or `None` when its material is not this table's.
    pub fn probe(&self, pos: &Position) -> Option<Value> {
        let (side, idx) = self.indexer.encode(pos)?;
        self.value(side, idx)
    }

    /// Counts per side to move.
    pub fn census(&self, side: Color) -> Census {
        let mut c = Census::default();
        for idx in 0..self.cells[side.index()].len() {
            match self.value(side, idx) {
                None => c.broken += 1,
                Some(v) => {
                    c.by_rule += u64::from(v.by_rule);
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
