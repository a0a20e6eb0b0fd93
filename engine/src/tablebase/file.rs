//! The table file, `<SET>.xqtb` (documented in `engine/TABLEBASES.md`), little-endian:
//!
//! | bytes | field |
//! |---|---|
//! | 4 | magic `XQTB` |
//! | 4 | format version (2; version 1, without the next-but-one field, is read too) |
//! | 1 + n | the set's name, its length first (`KRNKAB`) |
//! | 8 | indices per side to move |
//! | 1 | bytes per DTC (1 or 2) |
//! | 2 | the first DTC the repetition rules decide (65535: none; absent in version 1) |
//! | per side (Red to move, then Black) | WDL, 2 bits per index, four to a byte from the low bits: 0 broken, 1 loss, 2 draw, 3 win |
//! | per side | DTC in plies per index, 1 or 2 bytes each (0 for draws and broken indices) |
//! | 8 | FNV-1a 64 of every byte before it |
//!
//! Files are written to `<SET>.xqtb.tmp`, synced and renamed, so a file that exists is
//! complete.

use std::fs;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use super::index::Indexer;
use super::material::Material;
use super::table::{DRAW, INVALID, NO_RULE, Table, Wdl, decode_cell, loss, win};
use crate::error::{Error, Result};

const MAGIC: &[u8; 4] = b"XQTB";
const VERSION: u32 = 2;
/// Version 1: the tables of a build that judged every repetition a draw. Its wins and
/// losses are exact under any repetition rule; it simply has no value `by_rule`.
const VERSION_EVERY_CYCLE_DRAWS: u32 = 1;

/// The file name of a set's table.
pub fn file_name(material: Material) -> String {
    format!("{}.xqtb", material.canonical())
}

/// The files' checksum (also the opening book's).
pub(crate) fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
}

/// The checksum a file ends with (what [`decode`] verifies).
fn trailer(bytes: &[u8]) -> u64 {
    let mut sum = [0u8; 8];
    if let Some(tail) = bytes.len().checked_sub(8).and_then(|at| bytes.get(at..)) {
        sum.copy_from_slice(tail);
    }
    u64::from_le_bytes(sum)
}

/// Every table file in `dir` with the checksum it ends with, by set: read from the files'
/// last 8 bytes, not verified (loading a table verifies it). Files whose name is no set are
/// left out.
pub fn manifest(dir: &Path) -> Result<Vec<(Material, u64)>> {
    use std::io::{Read as _, Seek as _, SeekFrom};
    let io =
        |path: &Path, e: std::io::Error| Error::Tablebase { what: path.display().to_string(), reason: e.to_string() };
    let mut sets = Vec::new();
    for entry in fs::read_dir(dir).map_err(|e| io(dir, e))? {
        let path = entry.map_err(|e| io(dir, e))?.path();
        let Some(material) = path
            .file_name()
            .and_then(|n| n.to_str())
            .and_then(|n| n.strip_suffix(".xqtb"))
            .and_then(|n| n.parse::<Material>().ok())
        else {
            continue;
        };
        if file_name(material) != path.file_name().and_then(|n| n.to_str()).unwrap_or_default() {
            continue;
        }
        let mut file = fs::File::open(&path).map_err(|e| io(&path, e))?;
        let mut sum = [0u8; 8];
        file.seek(SeekFrom::End(-8)).and_then(|_| file.read_exact(&mut sum)).map_err(|e| io(&path, e))?;
        sets.push((material, u64::from_le_bytes(sum)));
    }
    sets.sort_unstable();
    Ok(sets)
}

/// The bytes of a table's file.
pub fn encode(table: &Table) -> Vec<u8> {
    let size = table.indexer.size();
    let max_dtc = table.cells.iter().flatten().filter_map(|&c| decode_cell(c)).map(|v| v.dtc).max().unwrap_or(0);
    let dtc_bytes: u8 = if max_dtc > 255 { 2 } else { 1 };
    let name = table.material().to_string();
    let mut out = Vec::with_capacity(32 + size / 2 + 2 * size * usize::from(dtc_bytes));
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&VERSION.to_le_bytes());
    out.push(name.len() as u8);
    out.extend_from_slice(name.as_bytes());
    out.extend_from_slice(&(size as u64).to_le_bytes());
    out.push(dtc_bytes);
    out.extend_from_slice(&table.rule_from.to_le_bytes());
    for cells in &table.cells {
        let mut packed = vec![0u8; size.div_ceil(4)];
        for (i, &c) in cells.iter().enumerate() {
            let code = match decode_cell(c).map(|v| v.wdl) {
                None => 0u8,
                Some(Wdl::Loss) => 1,
                Some(Wdl::Draw) => 2,
                Some(Wdl::Win) => 3,
            };
            packed[i / 4] |= code << (2 * (i % 4));
        }
        out.extend_from_slice(&packed);
    }
    for cells in &table.cells {
        for &c in cells {
            let dtc = decode_cell(c).map_or(0, |v| v.dtc);
            if dtc_bytes == 1 {
                out.push(dtc as u8);
            } else {
                out.extend_from_slice(&dtc.to_le_bytes());
            }
        }
    }
    let sum = fnv1a(&out);
    out.extend_from_slice(&sum.to_le_bytes());
    out
}

/// Reads a table file's bytes; `what` names the file in errors.
pub fn decode(bytes: &[u8], what: &str) -> Result<Table> {
    let bad = |reason: String| Error::Tablebase { what: what.to_string(), reason };
    let body_len = bytes.len().checked_sub(8).ok_or_else(|| bad("shorter than a header".into()))?;
    let (body, sum) = bytes.split_at(body_len);
    if !body.starts_with(MAGIC) {
        return Err(bad("not a table file (no XQTB magic)".into()));
    }
    if fnv1a(body).to_le_bytes() != sum {
        return Err(bad("checksum mismatch: the file is damaged".into()));
    }
    let mut at = 4;
    let mut take = |n: usize| -> Result<&[u8]> {
        let s = body.get(at..at + n).ok_or_else(|| bad("truncated".into()))?;
        at += n;
        Ok(s)
    };
    let version = u32::from_le_bytes(take(4)?.try_into().map_err(|_| bad("truncated".into()))?);
    if version != VERSION && version != VERSION_EVERY_CYCLE_DRAWS {
        let reason = format!("format version {version}, this build reads {VERSION_EVERY_CYCLE_DRAWS} and {VERSION}");
        return Err(bad(reason));
    }
    let name_len = usize::from(take(1)?[0]);
    let name = std::str::from_utf8(take(name_len)?).map_err(|_| bad("the set name is not text".into()))?;
    let material: Material = name.parse()?;
    if !material.has_index() {
        return Err(bad(format!("set {name} is beyond the index (more than 5 pieces or 3 identical)")));
    }
    let indexer = Indexer::new(material);
    if indexer.material() != material {
        return Err(bad(format!("set {name} is not in its stored orientation")));
    }
    let size = u64::from_le_bytes(take(8)?.try_into().map_err(|_| bad("truncated".into()))?);
    if size != indexer.size() as u64 {
        return Err(bad(format!("{size} indices per side, set {name} has {}", indexer.size())));
    }
    let size = indexer.size();
    let dtc_bytes = usize::from(take(1)?[0]);
    if dtc_bytes != 1 && dtc_bytes != 2 {
        return Err(bad(format!("{dtc_bytes} bytes per DTC")));
    }
    let rule_from = if version == VERSION_EVERY_CYCLE_DRAWS {
        NO_RULE
    } else {
        u16::from_le_bytes(take(2)?.try_into().map_err(|_| bad("truncated".into()))?)
    };
    let packed = [take(size.div_ceil(4))?, take(size.div_ceil(4))?];
    let dtcs = [take(size * dtc_bytes)?, take(size * dtc_bytes)?];
    if at != body.len() {
        return Err(bad(format!("{} bytes after the tables", body.len() - at)));
    }
    let mut cells = [Vec::with_capacity(size), Vec::with_capacity(size)];
    for side in 0..2 {
        for i in 0..size {
            let code = (packed[side][i / 4] >> (2 * (i % 4))) & 3;
            let dtc = if dtc_bytes == 1 {
                u16::from(dtcs[side][i])
            } else {
                u16::from_le_bytes([dtcs[side][2 * i], dtcs[side][2 * i + 1]])
            };
            cells[side].push(match code {
                0 => INVALID,
                1 => loss(dtc),
                2 => DRAW,
                _ => win(dtc),
            });
        }
    }
    Ok(Table { indexer, cells, rule_from })
}

/// Writes a table into `dir` atomically; returns the file's path and size in bytes.
pub fn write(dir: &Path, table: &Table) -> Result<(PathBuf, u64)> {
    write_with_checksum(dir, table).map(|(path, len, _)| (path, len))
}

/// [`write`], also returning the checksum the file ends with.
pub fn write_with_checksum(dir: &Path, table: &Table) -> Result<(PathBuf, u64, u64)> {
    let path = dir.join(file_name(table.material()));
    let tmp = path.with_extension("xqtb.tmp");
    let io = |e: std::io::Error, p: &Path| Error::Tablebase { what: p.display().to_string(), reason: e.to_string() };
    let bytes = encode(table);
    let mut f = fs::File::create(&tmp).map_err(|e| io(e, &tmp))?;
    f.write_all(&bytes).map_err(|e| io(e, &tmp))?;
    f.sync_all().map_err(|e| io(e, &tmp))?;
    drop(f);
    fs::rename(&tmp, &path).map_err(|e| io(e, &path))?;
    Ok((path, bytes.len() as u64, trailer(&bytes)))
}

/// Reads the table of `material` from `dir`, `Ok(None)` when there is no file.
pub fn read(dir: &Path, material: Material) -> Result<Option<(Table, u64)>> {
    let path = dir.join(file_name(material));
    match fs::read(&path) {
        Ok(bytes) => {
            let table = decode(&bytes, &path.display().to_string())?;
            if table.material() != material.canonical() {
                let reason = format!("holds set {}", table.material());
                return Err(Error::Tablebase { what: path.display().to_string(), reason });
            }
            Ok(Some((table, trailer(&bytes))))
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(Error::Tablebase { what: path.display().to_string(), reason: e.to_string() }),
    }
}
