//! Endgame tablebases by retrograde analysis: for a material set (the two kings and a few
//! pieces), every position's WDL and DTC (distance to the next capture or to mate).
//!
//! - [`material`]: the sets and their names (`KRNKAB`);
//! - [`index`]: positions to indices (mirror symmetry, identical pieces unordered, each piece
//!   on the squares it can reach);
//! - [`generate`]: the retrograde analysis, on all cores, with the Asian rules' perpetual
//!   check and chase judged where both sides can attack (`perpetual`);
//! - [`file`]: the `.xqtb` file format;
//! - [`Tablebases`]: a directory of tables, loaded when first probed, and the generator's
//!   driver that makes a set and the smaller sets its captures lead to.
//!
//! What the tables assume about the rules is in `engine/RULES.md` (section "Tablebases").

pub mod file;
pub mod generate;
pub mod index;
pub mod material;
mod perpetual;
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
use crate::rules::{self, MOVE_LIMIT_PLIES, MoveClass};
use crate::types::{Color, Move};

/// The sets a run is adjudicated by, each with its file's checksum.
pub type Pins = std::collections::BTreeMap<Material, u64>;

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

/// A set's table with its file's checksum, or `None` for a set with no file.
type Loaded = Option<(Arc<Table>, u64)>;

/// A directory of `.xqtb` files.
#[derive(Debug)]
pub struct Tablebases {
    dir: PathBuf,
    /// `None` records a set with no file, so a miss is not read again; each table with its
    /// file's checksum.
    loaded: RwLock<HashMap<Material, Loaded>>,
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
        Ok(self.loaded_table(material)?.map(|(t, _)| t))
    }

    /// The table of a set with its file's checksum.
    fn loaded_table(&self, material: Material) -> Result<Loaded> {
        let material = material.canonical();
        if let Some(t) = self.loaded.read().map_err(|_| poisoned())?.get(&material) {
            return Ok(t.clone());
        }
        let table = file::read(&self.dir, material)?.map(|(t, sum)| (Arc::new(t), sum));
        self.loaded.write().map_err(|_| poisoned())?.insert(material, table.clone());
        Ok(table)
    }

    /// The checksum of a set's file as it was loaded (verified), `None` without a file.
    pub fn checksum(&self, material: Material) -> Result<Option<u64>> {
        Ok(self.loaded_table(material)?.map(|(_, sum)| sum))
    }

    /// Every set this directory has a file of, with the checksum the file ends with (from
    /// the files' last bytes: a damaged file is found when it is loaded). What a run pins.
    pub fn manifest(&self) -> Result<Vec<(Material, u64)>> {
        file::manifest(&self.dir)
    }

    /// [`Tablebases::adjudicate`] by the sets `pins` names only, each only while its file here
    /// has the pinned checksum: a worker and the referee with different files for a set
    /// never both adjudicate by it.
    pub fn adjudicate_pinned(&self, pos: &Position, pins: &Pins) -> Result<Option<Wdl>> {
        let material = Material::of(pos).canonical();
        let Some(&pinned) = pins.get(&material) else { return Ok(None) };
        if self.checksum(material)? != Some(pinned) {
            return Ok(None);
        }
        self.adjudicate(pos)
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
        if v.by_rule {
            // Decided by a perpetual the arbiter will judge, at no DTC the move limit respects.
            return Ok(None);
        }
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
        Ok(v?.map(|v| if capture { v.converted() } else { v }))
    }

    /// The best move by the tables: a win by the shortest DTC, a draw by any drawing move,
    /// a loss by the longest DTC. `None` when the position or a successor has no table, or
    /// there is no legal move.
    pub fn best_move(&self, pos: &Position) -> Result<Option<TbMove>> {
        let Some(value) = self.probe(pos)? else { return Ok(None) };
        let mut pos = pos.clone();
        let mut best: Option<(Move, (i32, i32, i32))> = None;
        for &m in pos.legal_moves().iter() {
            let Some(v) = self.successor(&mut pos, m)? else { return Ok(None) };
            // Higher is better for the mover. A win the repetition rules decide is kept by
            // idle moves (the forced side must then check or chase on every move), so an idle
            // move goes first among equal DTCs.
            let key = match v.wdl.flipped() {
                Wdl::Win => {
                    (2, -i32::from(v.dtc), i32::from(v.by_rule && rules::classify(&pos, m) == Some(MoveClass::Idle)))
                }
                Wdl::Draw => (1, 0, 0),
                Wdl::Loss => (0, i32::from(v.dtc), 0),
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
        let (path, bytes, checksum) = file::write_with_checksum(&self.dir, &table)?;
        let census = [table.census(Color::Red), table.census(Color::Black)];
        // The last pass is the first that resolves nothing.
        let passes = census[0].max_dtc.max(census[1].max_dtc) + 1;
        done.push(Generated { material, path, bytes, elapsed: start.elapsed(), census, passes });
        let table = Arc::new(table);
        self.loaded.write().map_err(|_| poisoned())?.insert(material, Some((table.clone(), checksum)));
        Ok(table)
    }
}

fn poisoned() -> Error {
    Error::Tablebase { what: "the table cache".into(), reason: "a thread panicked while holding it".into() }
}
