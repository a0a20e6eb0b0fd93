//! Endgame tablebases by retrograde analysis: for a material set (the two kings and a few
//! pieces), every position's WDL and DTC (distance to the next capture or to mate).
//!
//! - [`material`]: the sets and their names (`KRNKAB`);
//! - [`index`]: positions to indices (mirror symmetry, identical pieces unordered, each piece
//!   on the squares it can reach);
//! - [`generate`]: the retrograde analysis, on all cores;
//! - [`file`]: the `.xqtb` file format;
//! - [`Tablebases`]: a directory of tables, loaded when first probed, and the generator's
//!   driver that makes a set and the smaller sets its captures lead to.
//!
//! What the tables assume about the rules is in `engine/RULES.md` (section "Tablebases").

pub mod file;
pub mod generate;
pub mod index;
pub mod material;
pub mod table;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};

pub use generate::Progress;
pub use material::Material;
pub use table::{Census, Table, Value, Wdl};

use crate::error::{Error, Result};
use crate::position::Position;
use crate::rules::MOVE_LIMIT_PLIES;
use crate::types::{Color, Move};

/// What generating one set did.
#[derive(Clone, Debug)]
pub struct Generated {
    pub material: Material,
    pub path: PathBuf,
    pub bytes: u64,
    pub elapsed: Duration,
    /// Red to move, Black to move.
    pub census: [Census; 2],
    pub passes: u16,
}

/// A directory of `.xqtb` files.
#[derive(Debug)]
pub struct Tablebases {
    dir: PathBuf,
    /// `None` records a set with no file, so a miss is not read again.
    loaded: RwLock<HashMap<Material, Option<Arc<Table>>>>,
}

/// A move the tables choose, with the value it keeps for the mover.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TbMove {
    pub mv: Move,
    /// The value of the position before the move (the mover's).
    pub value: Value,
}

impl Tablebases {
    /// The tables in `dir`, which must be a directory.
    pub fn open(dir: impl AsRef<Path>) -> Result<Tablebases> {
        let dir = dir.as_ref().to_path_buf();
        if !dir.is_dir() {
            return Err(Error::Tablebase { what: dir.display().to_string(), reason: "not a directory".into() });
        }
        Ok(Tablebases { dir, loaded: RwLock::new(HashMap::new()) })
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The table of a set, read from its file on first use; `Ok(None)` when there is none.
    pub fn table(&self, material: Material) -> Result<Option<Arc<Table>>> {
        let material = material.canonical();
        if let Some(t) = self.loaded.read().map_err(|_| poisoned())?.get(&material) {
            return Ok(t.clone());
        }
        let table = file::read(&self.dir, material)?.map(Arc::new);
        self.loaded.write().map_err(|_| poisoned())?.insert(material, table.clone());
        Ok(table)
    }

    /// The value of `pos`, or `None` when its set has no table here.
    pub fn probe(&self, pos: &Position) -> Result<Option<Value>> {
        let material = Material::of(pos);
        if !material.has_index() {
            return Ok(None);
        }
        let Some(table) = self.table(material)? else { return Ok(None) };
        Ok(table.probe(pos))
    }

    /// The verdict a game may be ended with here:
    /// - a win or a loss when the position is in a table and its DTC plus the plies since
    ///   the last capture fits within [`MOVE_LIMIT_PLIES`], so the capture or mate comes
    ///   before the rules would call the game a draw (a won line shortens DTC at every move,
    ///   so it never repeats and no repetition rule can touch it). The check covers the
    ///   phase the game is in; the phases after the next capture start a fresh count.
    /// - a draw only in a set where at most one side has a piece that can attack (elsewhere
    ///   an Asian-rules perpetual check or chase could decide what these tables call a draw).
    ///
    /// The worker's arbiter ends games with it and the referee of record checks them with it.
    pub fn adjudicate(&self, pos: &Position) -> Result<Option<Wdl>> {
        let Some(v) = self.probe(pos)? else { return Ok(None) };
        if v.wdl != Wdl::Draw {
            let fits = pos.rule60() + u32::from(v.dtc) <= MOVE_LIMIT_PLIES;
            return Ok(fits.then_some(v.wdl));
        }
        let m = Material::of(pos);
        let draw_exact = !(m.has_attackers(Color::Red) && m.has_attackers(Color::Black));
        Ok(draw_exact.then_some(v.wdl))
    }

    /// The value of the position after `m` (a legal move), from the side to move there: a
    /// capture converts, so its DTC counts as 0.
    fn successor(&self, pos: &mut Position, m: Move) -> Result<Option<Value>> {
        let capture = pos.is_capture(m);
        pos.play_unchecked(m);
        let v = self.probe(pos);
        pos.undo();
        Ok(v?.map(|v| if capture { Value { wdl: v.wdl, dtc: 0 } } else { v }))
    }

    /// The best move by the tables: a win by the shortest DTC, a draw by any drawing move,
    /// a loss by the longest DTC. `None` when the position or a successor has no table, or
    /// there is no legal move.
    pub fn best_move(&self, pos: &Position) -> Result<Option<TbMove>> {
        let Some(value) = self.probe(pos)? else { return Ok(None) };
        let mut pos = pos.clone();
        let mut best: Option<(Move, (i32, i32))> = None;
        for &m in pos.legal_moves().iter() {
            let Some(v) = self.successor(&mut pos, m)? else { return Ok(None) };
            // Higher is better for the mover.
            let key = match v.wdl.flipped() {
                Wdl::Win => (2, -i32::from(v.dtc)),
                Wdl::Draw => (1, 0),
                Wdl::Loss => (0, i32::from(v.dtc)),
            };
            if best.is_none_or(|(_, k)| key > k) {
                best = Some((m, key));
            }
        }
        Ok(best.map(|(mv, _)| TbMove { mv, value }))
    }

    /// Generates the table of `material` into this directory, with first any missing table
    /// of the sets its captures lead to (a set whose file exists is not made again, so an
    /// interrupted generation resumes set by set). Returns what was generated, smallest
    /// first.
    pub fn generate(&self, material: Material, progress: &(dyn Fn(Progress) + Sync)) -> Result<Vec<Generated>> {
        if !material.has_index() {
            let reason = "more than 5 pieces or 3 identical ones: beyond the index".into();
            return Err(Error::Tablebase { what: format!("set {material}"), reason });
        }
        let mut done = Vec::new();
        self.generate_into(material.canonical(), progress, &mut done)?;
        Ok(done)
    }

    fn generate_into(
        &self,
        material: Material,
        progress: &(dyn Fn(Progress) + Sync),
        done: &mut Vec<Generated>,
    ) -> Result<Arc<Table>> {
        if let Some(t) = self.table(material)? {
            return Ok(t);
        }
        let mut subs = Vec::new();
        for sub in material.captures() {
            let sub = sub.canonical();
            if !subs.iter().any(|t: &Arc<Table>| t.material() == sub) {
                subs.push(self.generate_into(sub, progress, done)?);
            }
        }
        let start = Instant::now();
        let refs: Vec<&Table> = subs.iter().map(Arc::as_ref).collect();
        let table = generate::generate(material, &refs, progress)?;
        let (path, bytes) = file::write(&self.dir, &table)?;
        let census = [table.census(Color::Red), table.census(Color::Black)];
        // The last pass is the first that resolves nothing.
        let passes = census[0].max_dtc.max(census[1].max_dtc) + 1;
        done.push(Generated { material, path, bytes, elapsed: start.elapsed(), census, passes });
        let table = Arc::new(table);
        self.loaded.write().map_err(|_| poisoned())?.insert(material, Some(table.clone()));
        Ok(table)
    }
}

fn poisoned() -> Error {
    Error::Tablebase { what: "the table cache".into(), reason: "a thread panicked while holding it".into() }
}
