//! Reading the farm's Parquet data with the parquet crate's Arrow reader, streaming: every
//! query here walks the part files of a Hive-partitioned table
//! (`<data>/<table>/run=<id>/part-*.parquet`, the run taken from the directory name), reads
//! only the columns it needs, batch by batch, and folds each batch into aggregates, so a report
//! over millions of games keeps only aggregates in memory.
//!
//! The layout is the coordinator's: `games` and `positions` tables partitioned by run, and a
//! small `runs.parquet` naming each run's variants, kind and SPRT bounds.

mod games;
mod openings;
mod positions;
pub(crate) mod read;
mod runs;

use std::path::{Path, PathBuf};

use farmdata::PartRange;
use proto::columns;

use crate::error::{Error, Result};

pub use games::{
    GameTotals, ImportedRun, LengthStats, PairRow, PairingCounts, ReasonCount, WorkerCounts, game_totals,
    imported_runs, lengths, pairing_counts, pairs, reasons, worker_counts,
};
pub use openings::{
    CLASSIFIED_PLIES, CodeCounts, EccoFamily, OpeningGames, RunOpenings, openings, red_score, tally_openings,
};
pub use positions::{PositionCounts, PositionFilter, TuningPosition, game_key, tuning_positions};
pub use runs::{RunInfo, read_runs};

/// The two partitioned tables.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Table {
    Games,
    Positions,
}

impl Table {
    fn dir_name(self) -> &'static str {
        match self {
            Table::Games => columns::games::TABLE,
            Table::Positions => columns::positions::TABLE,
        }
    }
}

/// The directory of `table` under the data directory.
pub fn table_dir(data: &Path, table: Table) -> PathBuf {
    data.join(table.dir_name())
}

/// One Parquet file of a partitioned table and the run its partition names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Part {
    pub run: u64,
    pub path: PathBuf,
}

/// The Parquet files of `table` whose run `keep` accepts, in path order; `None` when the table
/// has no Parquet file at all (in any partition), so that callers can tell a table not yet
/// written from a filter that selects nothing. A part whose games a larger part of the same
/// run covers is left out: a compaction renamed its output in and has not yet deleted its
/// inputs, and reading both would read those games twice.
pub fn parts(data: &Path, table: Table, keep: impl Fn(u64) -> bool) -> Result<Option<Vec<Part>>> {
    let dir = table_dir(data, table);
    let mut found = Vec::new();
    collect_parts(&dir, None, &mut found)?;
    if found.is_empty() {
        return Ok(None);
    }
    found.retain(|p| keep(p.run));
    let ranges: Vec<Option<PartRange>> = found.iter().map(|p| range_of(&p.path)).collect();
    let covered = |i: usize| {
        ranges[i].is_some_and(|r| {
            found.iter().zip(&ranges).enumerate().any(|(j, (other, o))| {
                j != i && other.run == found[i].run && o.is_some_and(|o| o != r && o.contains(r))
            })
        })
    };
    let kept: Vec<bool> = (0..found.len()).map(|i| !covered(i)).collect();
    let mut found: Vec<Part> = found.into_iter().zip(kept).filter_map(|(p, keep)| keep.then_some(p)).collect();
    found.sort_by(|x, y| x.path.cmp(&y.path));
    Ok(Some(found))
}

fn range_of(path: &Path) -> Option<PartRange> {
    path.file_name().and_then(|n| n.to_str()).and_then(PartRange::from_file_name)
}

/// Attempts of [`read_parts`] before a failure stands.
const READ_ATTEMPTS: usize = 5;

/// `read` over the parts of `table` that `keep` accepts ([`parts`]; `None`: the table has no
/// file yet), as one consistent set: when `read` fails and one of the parts it was given is
/// gone (the coordinator's compaction replaced it by a merged part meanwhile), the parts are
/// listed again and read again, up to [`READ_ATTEMPTS`] times. A failure with every part still
/// there is the data's, and stands.
pub fn read_parts<T>(
    data: &Path,
    table: Table,
    keep: impl Fn(u64) -> bool,
    mut read: impl FnMut(&[Part]) -> Result<T>,
) -> Result<Option<T>> {
    let mut attempt = 1;
    loop {
        let Some(parts) = parts(data, table, &keep)? else { return Ok(None) };
        match read(&parts) {
            Ok(value) => return Ok(Some(value)),
            Err(error) if attempt < READ_ATTEMPTS && parts.iter().any(|p| !p.path.exists()) => {
                tracing::info!(%error, attempt, "a part was replaced while it was read (a compaction); reading again");
                attempt += 1;
            }
            Err(error) => return Err(error),
        }
    }
}

/// How a partition directory's name starts: the Hive form of the `run` column, `run=<id>`.
const PARTITION_PREFIX: &str = "run=";

/// Every `*.parquet` file under `dir`, with the run of the nearest `run=<id>` directory above
/// it; a Parquet file outside any such directory is an error naming it.
fn collect_parts(dir: &Path, run: Option<u64>, out: &mut Vec<Part>) -> Result<()> {
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(data_error(dir, e)),
    };
    for entry in entries {
        let path = entry.map_err(|e| data_error(dir, e))?.path();
        if path.is_dir() {
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default();
            let run = match name.strip_prefix(PARTITION_PREFIX) {
                Some(value) => Some(
                    value
                        .parse::<u64>()
                        .map_err(|e| data_error(&path, format!("partition `{name}` is not a run id: {e}")))?,
                ),
                None => run,
            };
            collect_parts(&path, run, out)?;
        } else if path.extension().is_some_and(|e| e == "parquet") {
            let run = run.ok_or_else(|| data_error(&path, "not in a `run=<id>` partition"))?;
            out.push(Part { run, path });
        }
    }
    Ok(())
}

pub(crate) fn data_error(path: &Path, e: impl std::fmt::Display) -> Error {
    Error::Data { path: path.display().to_string(), reason: e.to_string() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_partition_prefix_is_the_run_column() {
        assert_eq!(PARTITION_PREFIX, format!("{}=", columns::RUN));
    }

    /// Empty files named as the exporter names parts, under `run=<run>` of the positions table.
    fn touch(data: &Path, run: u64, names: &[&str]) -> Result<(), Box<dyn std::error::Error>> {
        let partition = table_dir(data, Table::Positions).join(format!("run={run}"));
        std::fs::create_dir_all(&partition)?;
        for name in names {
            std::fs::write(partition.join(name), b"")?;
        }
        Ok(())
    }

    fn names(parts: &[Part]) -> Vec<(u64, String)> {
        parts.iter().map(|p| (p.run, p.path.file_name().unwrap_or_default().to_string_lossy().into_owned())).collect()
    }

    #[test]
    fn a_part_that_a_compaction_covered_is_left_out() -> Result<(), Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        let data = dir.path();
        let (whole, a, b, next) = (
            "part-000000000001-000000000010.parquet",
            "part-000000000001-000000000005.parquet",
            "part-000000000006-000000000010.parquet",
            "part-000000000011-000000000012.parquet",
        );
        touch(data, 2, &[whole, a, b, next])?;
        touch(data, 3, &[a])?;
        let found = parts(data, Table::Positions, |_| true)?.ok_or("no parts")?;
        let expected = [(2, whole), (2, next), (3, a)].map(|(r, n)| (r, n.to_owned()));
        assert_eq!(names(&found), expected);
        Ok(())
    }

    #[test]
    fn a_read_that_lost_a_part_to_a_compaction_reads_again_and_other_failures_stand()
    -> Result<(), Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        let data = dir.path();
        let (a, b) = ("part-000000000001-000000000005.parquet", "part-000000000006-000000000010.parquet");
        touch(data, 2, &[a, b])?;
        // The first read finds its inputs replaced by the compacted part halfway through.
        let mut calls = 0;
        let read = read_parts(
            data,
            Table::Positions,
            |_| true,
            |parts| {
                calls += 1;
                if calls == 1 {
                    touch(data, 2, &["part-000000000001-000000000010.parquet"]).map_err(|e| data_error(data, e))?;
                    for p in parts {
                        std::fs::remove_file(&p.path).map_err(|e| data_error(&p.path, e))?;
                    }
                    return Err(data_error(&parts[0].path, "No such file or directory"));
                }
                Ok(names(parts))
            },
        )?;
        assert_eq!(calls, 2);
        assert_eq!(read, Some(vec![(2, "part-000000000001-000000000010.parquet".to_owned())]));
        // With every part still there the failure is the data's: no second read.
        let mut calls = 0;
        let error = read_parts(
            data,
            Table::Positions,
            |_| true,
            |parts| {
                calls += 1;
                Err::<(), _>(data_error(&parts[0].path, "corrupt footer"))
            },
        )
        .expect_err("a damaged part");
        assert_eq!(calls, 1);
        assert!(error.to_string().contains("corrupt footer"), "{error}");
        assert_eq!(read_parts(&data.join("nothing"), Table::Games, |_| true, |_| Ok(()))?, None);
        Ok(())
    }

    #[test]
    fn parts_take_their_run_from_the_directory_and_filter_by_it() -> Result<(), Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        let data = dir.path();
        assert_eq!(parts(data, Table::Games, |_| true)?, None);
        for (run, file) in [(2, "part-b.parquet"), (10, "part-a.parquet"), (2, "part-a.parquet")] {
            let partition = table_dir(data, Table::Games).join(format!("run={run}"));
            std::fs::create_dir_all(&partition)?;
            std::fs::write(partition.join(file), b"")?;
        }
        std::fs::write(table_dir(data, Table::Games).join("run=2/notes.txt"), b"")?;
        let all = parts(data, Table::Games, |_| true)?.ok_or("no parts")?;
        let found: Vec<(u64, String)> = all
            .iter()
            .map(|p| (p.run, p.path.file_name().unwrap_or_default().to_string_lossy().into_owned()))
            .collect();
        assert_eq!(
            found,
            [(10, "part-a.parquet".to_owned()), (2, "part-a.parquet".to_owned()), (2, "part-b.parquet".to_owned())]
        );
        // A filter that selects nothing is an empty list, not a missing table.
        assert_eq!(parts(data, Table::Games, |r| r == 3)?, Some(Vec::new()));
        assert_eq!(parts(data, Table::Games, |r| r == 10)?.map(|p| p.len()), Some(1));
        assert_eq!(parts(data, Table::Positions, |_| true)?, None);

        std::fs::write(table_dir(data, Table::Games).join("stray.parquet"), b"")?;
        let err = parts(data, Table::Games, |_| true).expect_err("a file outside a partition").to_string();
        assert!(err.contains("stray.parquet") && err.contains("run=<id>"), "{err}");
        Ok(())
    }
}
