//! Compaction: many small segments of a run become a few large ones.
//!
//! Consecutive small segments are merged into one segment named by the merged range. Each
//! merged file is written as a temp file and renamed (positions first, then games, as an
//! export does); only then are the inputs deleted. A crash before the games rename leaves an
//! incomplete merged segment, a crash after it leaves inputs covered by the merged segment:
//! `recover` deletes either, so every game stays in exactly one segment.

use proto::domain::RunId;
use std::cmp::Reverse;
use std::fs::File;
use std::path::Path;

use ::parquet::arrow::ArrowWriter;
use ::parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use arrow_array::RecordBatch;

use super::error::{AtPath, Result};
use super::layout::{PartRange, part_path, partition_dir, sync_dir};
use super::schema::{Table, check_schema};
use super::segments::{Check, Segment, scan};
use super::writer::write_atomically;

/// When and how far to compact.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CompactionPolicy {
    /// A segment with fewer games than this is small.
    pub small_part_games: u64,
    /// A run is compacted once it has more small segments than this.
    pub max_small_parts: usize,
    /// A merged segment stops growing before it would exceed this many games.
    pub max_merged_games: u64,
}

impl Default for CompactionPolicy {
    fn default() -> CompactionPolicy {
        CompactionPolicy { small_part_games: 10_000, max_small_parts: 16, max_merged_games: 200_000 }
    }
}

/// Merges runs of consecutive small segments of `run` at or below `exported_up_to` when there
/// are more than `policy.max_small_parts` of them, and returns the merged ranges.
///
/// Segments beyond `exported_up_to` are never touched, so this may run while later segments
/// are being exported; it must not run alongside another compaction or `recover` of the same
/// run. A segment covered by a larger complete one (left by a compaction whose deletions failed)
/// is deleted on the way; anything stranger is left for `recover`.
pub fn compact(data_dir: &Path, run: RunId, exported_up_to: u64, policy: &CompactionPolicy) -> Result<Vec<PartRange>> {
    let scan = scan(data_dir, run, Check::Footer)?;
    let (mut committed, incomplete): (Vec<&Segment>, Vec<&Segment>) =
        scan.segments.iter().filter(|s| s.range.last <= exported_up_to).partition(|s| s.is_complete());
    committed.sort_by_key(|s| (s.range.first, Reverse(s.range.last)));
    let mut segments: Vec<&Segment> = Vec::with_capacity(committed.len());
    let mut covered: Vec<&Segment> = Vec::new();
    for s in committed {
        match segments.last() {
            Some(k) if s.range.last <= k.range.last => covered.push(s),
            Some(k) if s.range.first <= k.range.last => {
                tracing::warn!(run = %run, a = %k.range, b = %s.range, "overlapping segments; compaction waits for recover");
                return Ok(Vec::new());
            }
            _ => segments.push(s),
        }
    }
    for s in incomplete {
        if !segments.iter().any(|k| k.range.contains(s.range)) {
            tracing::warn!(run = %run, segment = %s.describe(), "incomplete segment; compaction waits for recover");
            return Ok(Vec::new());
        }
        covered.push(s);
    }
    if !covered.is_empty() {
        delete_segments(data_dir, run, &covered)?;
    }

    let is_small = |s: &Segment| s.game_rows() < policy.small_part_games;
    if segments.iter().filter(|s| is_small(s)).count() <= policy.max_small_parts {
        return Ok(Vec::new());
    }
    let mut groups: Vec<Vec<&Segment>> = Vec::new();
    let mut group: Vec<&Segment> = Vec::new();
    let mut group_games = 0;
    for s in segments {
        let fits = group_games + s.game_rows() <= policy.max_merged_games;
        if !is_small(s) || !fits {
            groups.push(std::mem::take(&mut group));
            group_games = 0;
        }
        if is_small(s) {
            group_games += s.game_rows();
            group.push(s);
        }
    }
    groups.push(group);

    let mut merged = Vec::new();
    for group in groups.into_iter().filter(|g| g.len() >= 2) {
        merged.push(merge(data_dir, run, &group)?);
    }
    Ok(merged)
}

/// Writes the segments' rows as one segment, then deletes the inputs.
fn merge(data_dir: &Path, run: RunId, inputs: &[&Segment]) -> Result<PartRange> {
    let (Some(first), Some(last)) = (inputs.first(), inputs.last()) else {
        return Err(super::Error::BadSegment { run, problem: "nothing to merge".into() });
    };
    let range = PartRange { first: first.range.first, last: last.range.last };
    for table in [Table::Positions, Table::Games] {
        let written = write_atomically(data_dir, table, run, range, |writer, _| {
            for input in inputs {
                let file = match table {
                    Table::Games => &input.games,
                    Table::Positions => &input.positions,
                };
                if let Some(file) = file {
                    copy_rows(table, &file.path, writer)?;
                }
            }
            Ok(())
        });
        if let Err(e) = written {
            // Without its games file the merged positions file would only stall the next
            // compaction until `recover`; the inputs are intact.
            let _ = std::fs::remove_file(part_path(data_dir, Table::Positions, run, range));
            return Err(e);
        }
    }
    for table in Table::ALL {
        sync_dir(&partition_dir(data_dir, table, run))?;
    }
    delete_segments(data_dir, run, inputs)?;
    tracing::debug!(run = %run, merged = %range, inputs = inputs.len(), "compacted segments");
    Ok(range)
}

fn copy_rows(table: Table, input: &Path, writer: &mut ArrowWriter<File>) -> Result<()> {
    let builder = ParquetRecordBatchReaderBuilder::try_new(File::open(input).at(input)?).at(input)?;
    check_schema(table, builder.schema(), input)?;
    for batch in builder.with_batch_size(64 * 1024).build().at(input)? {
        let batch = batch.at(input)?;
        // Re-labelled with the table's schema so the output's metadata is the current one.
        let batch = RecordBatch::try_new(table.schema(), batch.columns().to_vec()).at(input)?;
        writer.write(&batch).at(input)?;
    }
    Ok(())
}

fn delete_segments(data_dir: &Path, run: RunId, segments: &[&Segment]) -> Result<()> {
    for file in segments.iter().flat_map(|s| s.files()) {
        match std::fs::remove_file(&file.path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e).at(&file.path),
            _ => {}
        }
    }
    for table in Table::ALL {
        sync_dir(&partition_dir(data_dir, table, run))?;
    }
    Ok(())
}
