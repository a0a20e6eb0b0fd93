//! Move-ordering memory: killer moves per ply and the history heuristic per
//! (side, from, to), updated with the usual gravity formula so values stay below `hist_max`.

use super::params::SearchParams;
use super::score::MAX_PLY;
use crate::types::{Color, Move};

#[derive(Clone, Debug)]
pub struct History {
    killers: Vec<[Move; 2]>,
    table: Vec<i32>,
}

impl Default for History {
    fn default() -> History {
        History { killers: vec![[Move::NULL; 2]; MAX_PLY + 2], table: vec![0; 2 * 90 * 90] }
    }
}

impl History {
    pub fn clear(&mut self) {
        *self = History::default();
    }

    /// Killers of the previous search are stale: keep history, drop killers.
    pub fn new_search(&mut self) {
        self.killers.fill([Move::NULL; 2]);
    }

    #[inline]
    fn slot(side: Color, m: Move) -> usize {
        (side.index() * 90 + m.from().index()) * 90 + m.to().index()
    }

    #[inline]
    pub fn score(&self, side: Color, m: Move) -> i32 {
        self.table[Self::slot(side, m)]
    }

    #[inline]
    pub fn killers(&self, ply: usize) -> [Move; 2] {
        self.killers[ply.min(MAX_PLY)]
    }

    /// A quiet move caused a cutoff at `depth`; the quiets tried before it did not.
    pub fn reward(&mut self, side: Color, ply: usize, best: Move, tried: &[Move], depth: i32, sp: &SearchParams) {
        let bonus = (depth * depth * sp.hist_bonus_mul).min(sp.hist_bonus_max);
        self.update(side, best, bonus, sp.hist_max);
        for &m in tried {
            if m != best {
                self.update(side, m, -bonus, sp.hist_max);
            }
        }
        let k = &mut self.killers[ply.min(MAX_PLY)];
        if k[0] != best {
            k[1] = k[0];
            k[0] = best;
        }
    }

    #[inline]
    fn update(&mut self, side: Color, m: Move, bonus: i32, max: i32) {
        let h = &mut self.table[Self::slot(side, m)];
        *h += bonus - *h * bonus.abs() / max;
    }
}
