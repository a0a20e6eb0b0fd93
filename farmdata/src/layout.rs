//! Where the files live and what their names mean.
//!
//! ```text
//! <data>/games/run=<run>/part-<first_game:012>-<last_game:012>.parquet
//! <data>/positions/run=<run>/part-<first_game:012>-<last_game:012>.parquet
//! <data>/.tmp/<table>-run=<run>-<pid>-<seq>-part-....parquet   (being written)
//! ```
//!
//! A part file is named by the inclusive range of game ids it holds, so the name alone says
//! which games it claims and a retried write lands on the same name.

use proto::domain::RunId;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use super::error::{AtPath, Result};
use super::schema::Table;

/// Part files are written here and renamed into their partition: outside the tables, because
/// polars reads every file under a table directory, hidden or not, and fails on a half-written
/// one. Same file system as the tables, so the rename stays atomic.
pub fn temp_dir(data_dir: &Path) -> PathBuf {
    data_dir.join(".tmp")
}

/// Temp files of one table and run start with this, so `recover` of one run leaves the
/// writes of other runs alone.
fn temp_prefix(table: Table, run: RunId) -> String {
    format!("{}-run={run}-", table.dir_name())
}

pub(crate) fn temp_path(data_dir: &Path, table: Table, run: RunId, range: PartRange) -> PathBuf {
    static SEQUENCE: AtomicU64 = AtomicU64::new(0);
    let sequence = SEQUENCE.fetch_add(1, Ordering::Relaxed);
    temp_dir(data_dir).join(format!(
        "{}{}-{sequence}-{}",
        temp_prefix(table, run),
        std::process::id(),
        range.file_name()
    ))
}

/// Temp files of `run` left by writes that never reached their rename.
pub(crate) fn list_temps(data_dir: &Path, run: RunId) -> Result<Vec<PathBuf>> {
    let dir = temp_dir(data_dir);
    let entries = match std::fs::read_dir(&dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e).at(&dir),
    };
    let prefixes = Table::ALL.map(|t| temp_prefix(t, run));
    let mut temps = Vec::new();
    for entry in entries {
        let entry = entry.at(&dir)?;
        if entry.file_name().to_str().is_some_and(|n| prefixes.iter().any(|p| n.starts_with(p.as_str()))) {
            temps.push(entry.path());
        }
    }
    Ok(temps)
}

/// An inclusive range of game ids, the name of a part file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct PartRange {
    pub first: u64,
    pub last: u64,
}

impl PartRange {
    pub fn contains(self, other: PartRange) -> bool {
        self.first <= other.first && other.last <= self.last
    }

    pub fn contains_id(self, id: u64) -> bool {
        (self.first..=self.last).contains(&id)
    }

    pub fn overlaps(self, other: PartRange) -> bool {
        self.first <= other.last && other.first <= self.last
    }

    pub fn file_name(self) -> String {
        format!("part-{:012}-{:012}.parquet", self.first, self.last)
    }

    /// The range a part file's name claims; `None` for any other name.
    pub fn from_file_name(name: &str) -> Option<PartRange> {
        let stem = name.strip_prefix("part-")?.strip_suffix(".parquet")?;
        let (first, last) = stem.split_once('-')?;
        let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
        if !digits(first) || !digits(last) {
            return None;
        }
        let range = PartRange { first: first.parse().ok()?, last: last.parse().ok()? };
        (range.first <= range.last).then_some(range)
    }
}

impl fmt::Display for PartRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "games {}..={}", self.first, self.last)
    }
}

/// `<data>/<table>/run=<run>`: a Hive partition, so readers get `run` as a column.
pub fn partition_dir(data_dir: &Path, table: Table, run: RunId) -> PathBuf {
    data_dir.join(table.dir_name()).join(format!("{}={run}", proto::columns::RUN))
}

pub fn part_path(data_dir: &Path, table: Table, run: RunId, range: PartRange) -> PathBuf {
    partition_dir(data_dir, table, run).join(range.file_name())
}

/// The part files of one table of one run, sorted by range; a missing directory is an empty
/// partition. Files with other names are left alone and not reported.
pub fn part_files(data_dir: &Path, table: Table, run: RunId) -> Result<Vec<(PartRange, PathBuf)>> {
    let dir = partition_dir(data_dir, table, run);
    let entries = match std::fs::read_dir(&dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e).at(&dir),
    };
    let mut parts = Vec::new();
    for entry in entries {
        let entry = entry.at(&dir)?;
        if let Some(range) = entry.file_name().to_str().and_then(PartRange::from_file_name) {
            parts.push((range, entry.path()));
        }
    }
    parts.sort();
    Ok(parts)
}

/// Makes renames and deletions in `dir` durable.
pub(crate) fn sync_dir(dir: &Path) -> Result<()> {
    std::fs::File::open(dir).and_then(|d| d.sync_all()).at(dir)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn part_names_round_trip_and_reject_strangers() {
        let range = PartRange { first: 1, last: 250 };
        assert_eq!(range.file_name(), "part-000000000001-000000000250.parquet");
        assert_eq!(PartRange::from_file_name(&range.file_name()), Some(range));
        let wide = PartRange { first: 10_000_000_000_000, last: 10_000_000_000_001 };
        assert_eq!(PartRange::from_file_name(&wide.file_name()), Some(wide));
        for bad in [
            "part-2-1.parquet",
            "part--1.parquet",
            "part-1-2.parquet.tmp",
            "games-run=1-77-0-part-000000000001-000000000002.parquet",
            "part-1-+2.parquet",
            "part-1.parquet",
            "x.parquet",
        ] {
            assert_eq!(PartRange::from_file_name(bad), None, "{bad}");
        }
    }

    #[test]
    fn ranges_overlap_and_contain() {
        let r = |first, last| PartRange { first, last };
        assert!(r(1, 30).contains(r(11, 20)));
        assert!(!r(11, 20).contains(r(1, 30)));
        assert!(r(1, 10).overlaps(r(10, 20)));
        assert!(!r(1, 10).overlaps(r(11, 20)));
    }
}
