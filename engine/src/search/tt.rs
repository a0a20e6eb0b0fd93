//! The transposition table: buckets of four 16-byte entries (one cache line), replaced by
//! depth and age. One table per engine; the farm runs one single-threaded engine per game,
//! so no atomics are needed.

use crate::types::Move;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    None = 0,
    Upper = 1,
    Lower = 2,
    Exact = 3,
}

#[derive(Clone, Copy, Debug, Default)]
#[repr(C)]
struct Entry {
    key: u64,
    mv: u16,
    value: i16,
    eval: i16,
    depth: u8,
    /// bound (2 bits) | generation << 2
    flags: u8,
}

const BUCKET: usize = 4;

#[derive(Clone, Copy, Debug, Default)]
#[repr(C, align(64))]
struct Bucket([Entry; BUCKET]);

/// What a probe found.
#[derive(Clone, Copy, Debug)]
pub struct TtHit {
    pub mv: Move,
    pub value: i32,
    pub eval: i32,
    pub depth: i32,
    pub bound: Bound,
}

#[derive(Debug)]
pub struct TranspositionTable {
    buckets: Vec<Bucket>,
    generation: u8,
    /// Buckets written since the last `clear_written`, kept only by a table made with
    /// `logging_writes` (one table reused for many small searches, cleared in their size).
    written: Option<Vec<u32>>,
}

/// Stored depths are offset so that quiescence entries (depth <= 0) fit in a `u8`.
const DEPTH_OFFSET: i32 = 8;

impl TranspositionTable {
    /// A table of about `mib` MiB (at least one bucket).
    pub fn new(mib: usize) -> TranspositionTable {
        let count = (mib * 1024 * 1024 / std::mem::size_of::<Bucket>()).max(1);
        TranspositionTable { buckets: vec![Bucket::default(); count], generation: 0, written: None }
    }

    /// A table of about `mib` MiB that remembers which buckets were written, so that
    /// `clear_written` empties it in time proportional to the writes, not to its size.
    pub fn logging_writes(mib: usize) -> TranspositionTable {
        TranspositionTable { written: Some(Vec::new()), ..TranspositionTable::new(mib) }
    }

    /// Empties the buckets written since the last call (a table made by `logging_writes`;
    /// any other table is cleared whole): the table is then as new.
    pub fn clear_written(&mut self) {
        match &mut self.written {
            Some(written) => {
                for idx in written.drain(..) {
                    self.buckets[idx as usize] = Bucket::default();
                }
                self.generation = 0;
            }
            None => self.clear(),
        }
    }

    pub fn resize(&mut self, mib: usize) {
        let logging = self.written.is_some();
        *self = if logging { TranspositionTable::logging_writes(mib) } else { TranspositionTable::new(mib) };
    }

    pub fn clear(&mut self) {
        self.buckets.fill(Bucket::default());
        self.generation = 0;
        if let Some(written) = &mut self.written {
            written.clear();
        }
    }

    /// Called once per search: older entries become preferred victims.
    pub fn new_search(&mut self) {
        self.generation = (self.generation + 1) & 0x3f;
    }

    #[inline]
    fn index(&self, key: u64) -> usize {
        ((u128::from(key) * self.buckets.len() as u128) >> 64) as usize
    }

    #[inline]
    pub fn probe(&self, key: u64) -> Option<TtHit> {
        let bucket = &self.buckets[self.index(key)];
        bucket.0.iter().find(|e| e.key == key && e.flags & 3 != 0).map(|e| TtHit {
            mv: Move::from_raw(e.mv).unwrap_or(Move::NULL),
            value: i32::from(e.value),
            eval: i32::from(e.eval),
            depth: i32::from(e.depth) - DEPTH_OFFSET,
            bound: match e.flags & 3 {
                1 => Bound::Upper,
                2 => Bound::Lower,
                _ => Bound::Exact,
            },
        })
    }

    #[inline]
    #[allow(clippy::too_many_arguments)]
    pub fn store(&mut self, key: u64, mv: Move, value: i32, eval: i32, depth: i32, bound: Bound) {
        let generation = self.generation;
        let idx = self.index(key);
        if let Some(written) = &mut self.written {
            written.push(idx as u32);
        }
        let bucket = &mut self.buckets[idx];
        let age = |e: &Entry| i32::from(generation.wrapping_sub(e.flags >> 2) & 0x3f);
        let slot = match bucket.0.iter().position(|e| e.key == key) {
            Some(i) => i,
            None => {
                let mut best = 0;
                let mut worst = i32::MAX;
                for (i, e) in bucket.0.iter().enumerate() {
                    let worth = i32::from(e.depth) - 8 * age(e);
                    if worth < worst {
                        worst = worth;
                        best = i;
                    }
                }
                best
            }
        };
        let e = &mut bucket.0[slot];
        // Keep an older, deeper result for the same position unless this one is exact.
        if e.key == key && bound != Bound::Exact && i32::from(e.depth) > depth + DEPTH_OFFSET + 2 && age(e) == 0 {
            return;
        }
        let keep_move = e.key == key && mv.is_null();
        *e = Entry {
            key,
            mv: if keep_move { e.mv } else { mv.raw() },
            value: value.clamp(i16::MIN as i32, i16::MAX as i32) as i16,
            eval: eval.clamp(i16::MIN as i32, i16::MAX as i32) as i16,
            depth: (depth + DEPTH_OFFSET).clamp(0, 255) as u8,
            flags: bound as u8 | generation << 2,
        };
    }

    /// Permille of sampled entries written by the current search.
    pub fn hashfull(&self) -> u32 {
        let sample = self.buckets.len().min(250);
        let mut used = 0;
        for b in &self.buckets[..sample] {
            used += b.0.iter().filter(|e| e.flags & 3 != 0 && e.flags >> 2 == self.generation).count();
        }
        (used * 1000 / (sample * BUCKET).max(1)) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::Square;

    #[test]
    fn clear_written_empties_what_was_written() {
        let mut tt = TranspositionTable::logging_writes(1);
        let m = Move::new(Square::H2, Square::E2);
        let keys: Vec<u64> = (1..=500u64).map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15)).collect();
        tt.new_search();
        for &k in &keys {
            tt.store(k, m, 10, 20, 3, Bound::Exact);
        }
        assert!(keys.iter().all(|&k| tt.probe(k).is_some()));
        tt.clear_written();
        assert!(keys.iter().all(|&k| tt.probe(k).is_none()));
        assert!(tt.buckets.iter().all(|b| b.0.iter().all(|e| e.key == 0 && e.flags == 0)));
        assert_eq!(tt.generation, 0);
        // The log starts again: what is written next is cleared next.
        tt.store(keys[0], m, 10, 20, 3, Bound::Exact);
        tt.clear_written();
        assert!(tt.probe(keys[0]).is_none());
    }

    #[test]
    fn stores_and_finds() {
        let mut tt = TranspositionTable::new(1);
        let m = Move::new(Square::H2, Square::E2);
        tt.store(0xdead_beef, m, -123, 40, 7, Bound::Lower);
        let hit = tt.probe(0xdead_beef).expect("stored");
        assert_eq!((hit.mv, hit.value, hit.eval, hit.depth, hit.bound), (m, -123, 40, 7, Bound::Lower));
        assert!(tt.probe(0xdead_bee0).is_none());
        tt.store(0xdead_beef, m, 5, 40, -2, Bound::Exact);
        assert_eq!(tt.probe(0xdead_beef).expect("stored").depth, -2);
        tt.clear();
        assert!(tt.probe(0xdead_beef).is_none());
    }
}
