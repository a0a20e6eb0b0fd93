//! Writing segments: one `games` and one `positions` part file per contiguous range of game
//! ids, each written to a temp file, synced and renamed into place.

use proto::domain::RunId;
use std::fs::File;
use std::path::{Path, PathBuf};

use ::parquet::arrow::ArrowWriter;
use ::parquet::basic::Compression;
use ::parquet::file::properties::WriterProperties;

use super::error::{AtPath, Error, Result};
use super::layout::{PartRange, part_files, part_path, partition_dir, sync_dir, temp_path};
use super::rows::{GameRow, PositionRow};
use super::schema::{Table, games_batch, positions_batch};

pub(crate) fn writer_properties() -> WriterProperties {
    WriterProperties::builder().set_compression(Compression::SNAPPY).build()
}

/// Writes one part file all or nothing: the batches go to a temp file, which is synced and then
/// renamed over the part's name. The caller syncs the partition directory once it has renamed
/// everything it means to make durable together.
pub(crate) fn write_atomically(
    data_dir: &Path,
    table: Table,
    run: RunId,
    range: PartRange,
    fill: impl FnOnce(&mut ArrowWriter<File>, &Path) -> Result<()>,
) -> Result<()> {
    let final_path = part_path(data_dir, table, run, range);
    let temp = temp_path(data_dir, table, run, range);
    if let Some(dir) = temp.parent() {
        std::fs::create_dir_all(dir).at(dir)?;
    }
    let result = (|| {
        let file = File::create_new(&temp).at(&temp)?;
        let mut writer = ArrowWriter::try_new(file, table.schema(), Some(writer_properties())).at(&temp)?;
        fill(&mut writer, &final_path)?;
        let file = writer.into_inner().at(&temp)?;
        file.sync_all().at(&temp)?;
        std::fs::rename(&temp, &final_path).at(&final_path)
    })();
    if result.is_err() {
        // Best effort: `recover` deletes whatever a failed or killed write leaves behind.
        let _ = std::fs::remove_file(&temp);
    }
    result
}

/// Creates a partition directory and makes its entry durable in the table directory.
fn ensure_partition(data_dir: &Path, table: Table, run: RunId) -> Result<PathBuf> {
    let dir = partition_dir(data_dir, table, run);
    if !dir.is_dir() {
        std::fs::create_dir_all(&dir).at(&dir)?;
        for ancestor in [dir.parent(), dir.parent().and_then(Path::parent)].into_iter().flatten() {
            sync_dir(ancestor)?;
        }
    }
    Ok(dir)
}

/// Checks that `games` can form one segment of `run` and returns its range.
fn segment_range(run: RunId, games: &[(GameRow, Vec<PositionRow>)]) -> Result<PartRange> {
    let bad = |problem: String| Error::BadSegment { run, problem };
    let (Some((first, _)), Some((last, _))) = (games.first(), games.last()) else {
        return Err(bad("no games".into()));
    };
    let mut previous: Option<u64> = None;
    for (game, positions) in games {
        if game.run != run {
            return Err(bad(format!("game {} belongs to run {}", game.game_id, game.run)));
        }
        if previous.is_some_and(|p| p >= game.game_id) {
            return Err(bad(format!("game ids not strictly increasing at game {}", game.game_id)));
        }
        previous = Some(game.game_id);
        if let Some(p) = positions.iter().find(|p| p.run != run || p.game_id != game.game_id) {
            return Err(bad(format!("a position of game {} says run {} game {}", game.game_id, p.run, p.game_id)));
        }
    }
    Ok(PartRange { first: first.game_id, last: last.game_id })
}

/// Writes the games (ids strictly increasing) and their positions as one segment of `run`:
/// exactly one `games` and one `positions` part file named by the segment's id range.
///
/// Retrying the same segment rewrites the same two files, so a retry after a failure or a
/// crash never duplicates a game. A range that overlaps a part file of a different range is
/// refused ([`Error::Overlap`]): after a restart, call [`recover`](super::recover) first.
///
/// Positions are written before games: a crash in between leaves a positions file without
/// its games file, which `recover` treats as never written.
pub fn export_segment(data_dir: &Path, run: RunId, games: &[(GameRow, Vec<PositionRow>)]) -> Result<PartRange> {
    let range = segment_range(run, games)?;
    for table in Table::ALL {
        for (existing, path) in part_files(data_dir, table, run)? {
            if existing != range && existing.overlaps(range) {
                return Err(Error::Overlap { run, first: range.first, last: range.last, existing: path });
            }
        }
    }
    let mut dirs = Vec::with_capacity(2);
    for table in [Table::Positions, Table::Games] {
        dirs.push(ensure_partition(data_dir, table, run)?);
        let written = write_atomically(data_dir, table, run, range, |writer, path| {
            let batch = match table {
                Table::Games => games_batch(games.iter().map(|(g, _)| g), path)?,
                Table::Positions => positions_batch(games.iter().flat_map(|(_, p)| p), path)?,
            };
            writer.write(&batch).at(path)
        });
        if let Err(e) = written {
            // Left alone, the positions file would make a retry with other bounds overlap.
            if table == Table::Games {
                let _ = std::fs::remove_file(part_path(data_dir, Table::Positions, run, range));
            }
            return Err(e);
        }
    }
    for dir in &dirs {
        sync_dir(dir)?;
    }
    tracing::debug!(run = %run, first = range.first, last = range.last, games = games.len(), "exported segment");
    Ok(range)
}
