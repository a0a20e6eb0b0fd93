//! What is on disk for one run: part files grouped into segments by range, each file checked.

use proto::domain::RunId;
use std::fs::File;
use std::path::{Path, PathBuf};

use ::parquet::arrow::ProjectionMask;
use ::parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;

use super::error::{AtPath, Result};
use super::layout::{PartRange, list_temps, part_files};
use super::schema::{Table, check_schema, game_ids};

/// How closely to look at a part file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Check {
    /// The footer parses and the columns are the table's.
    Footer,
    /// Also read the `game_id` column and check it against the name.
    Full,
}

#[derive(Debug)]
pub(crate) enum FileState {
    Valid {
        rows: u64,
        /// The distinct game ids in file order (only with [`Check::Full`]).
        game_ids: Vec<u64>,
    },
    /// Unreadable, or not what its name claims.
    Invalid { why: String },
}

#[derive(Debug)]
pub(crate) struct PartFile {
    pub path: PathBuf,
    pub state: FileState,
}

impl PartFile {
    pub fn is_valid(&self) -> bool {
        matches!(self.state, FileState::Valid { .. })
    }
}

/// The `games` and `positions` files that share a range.
#[derive(Debug)]
pub(crate) struct Segment {
    pub range: PartRange,
    pub games: Option<PartFile>,
    pub positions: Option<PartFile>,
}

impl Segment {
    /// Both files present and valid: the only state in which a segment counts.
    pub fn is_complete(&self) -> bool {
        self.games.as_ref().is_some_and(PartFile::is_valid) && self.positions.as_ref().is_some_and(PartFile::is_valid)
    }

    pub fn files(&self) -> impl Iterator<Item = &PartFile> {
        self.games.iter().chain(self.positions.iter())
    }

    pub fn game_rows(&self) -> u64 {
        match self.games.as_ref().map(|g| &g.state) {
            Some(FileState::Valid { rows, .. }) => *rows,
            _ => 0,
        }
    }

    /// Game ids readable from a valid file of an incomplete segment (games preferred).
    pub fn readable_game_ids(&self) -> &[u64] {
        for file in [&self.games, &self.positions].into_iter().flatten() {
            if let FileState::Valid { game_ids, .. } = &file.state {
                return game_ids;
            }
        }
        &[]
    }

    pub fn describe(&self) -> String {
        let side = |f: &Option<PartFile>| match f {
            None => "missing".to_owned(),
            Some(PartFile { state: FileState::Valid { .. }, .. }) => "valid".to_owned(),
            Some(PartFile { state: FileState::Invalid { why }, .. }) => format!("invalid ({why})"),
        };
        format!("{} (games file {}, positions file {})", self.range, side(&self.games), side(&self.positions))
    }
}

#[derive(Debug, Default)]
pub(crate) struct Scan {
    /// Sorted by range.
    pub segments: Vec<Segment>,
    pub temps: Vec<PathBuf>,
}

pub(crate) fn scan(data_dir: &Path, run: RunId, check: Check) -> Result<Scan> {
    let mut scan = Scan { segments: Vec::new(), temps: list_temps(data_dir, run)? };
    for table in Table::ALL {
        for (range, path) in part_files(data_dir, table, run)? {
            let state = inspect(table, range, &path, check)?;
            let file = Some(PartFile { path, state });
            let at = match scan.segments.binary_search_by_key(&range, |s| s.range) {
                Ok(at) => at,
                Err(at) => {
                    scan.segments.insert(at, Segment { range, games: None, positions: None });
                    at
                }
            };
            match table {
                Table::Games => scan.segments[at].games = file,
                Table::Positions => scan.segments[at].positions = file,
            }
        }
    }
    Ok(scan)
}

/// Checks one part file. Only a failure to open it at all is an error; anything wrong with
/// its contents makes it [`FileState::Invalid`].
fn inspect(table: Table, range: PartRange, path: &Path, check: Check) -> Result<FileState> {
    let file = File::open(path).at(path)?;
    let invalid = |why: String| Ok(FileState::Invalid { why });
    let builder = match ParquetRecordBatchReaderBuilder::try_new(file) {
        Ok(builder) => builder,
        Err(e) => return invalid(format!("unreadable footer: {e}")),
    };
    if let Err(e) = check_schema(table, builder.schema(), path) {
        return invalid(e.to_string());
    }
    let rows = u64::try_from(builder.metadata().file_metadata().num_rows()).unwrap_or(0);
    if table == Table::Games && (rows == 0 || rows > range.last - range.first + 1) {
        return invalid(format!("{rows} games cannot be {range}"));
    }
    if check == Check::Footer {
        return Ok(FileState::Valid { rows, game_ids: Vec::new() });
    }
    let mask = ProjectionMask::roots(builder.parquet_schema(), [0]);
    let reader = match builder.with_projection(mask).build() {
        Ok(reader) => reader,
        Err(e) => return invalid(e.to_string()),
    };
    let mut ids: Vec<u64> = Vec::new();
    let mut read = 0u64;
    let mut ordered = true;
    for batch in reader {
        let batch = match batch {
            Ok(batch) => batch,
            Err(e) => return invalid(format!("unreadable data: {e}")),
        };
        read += batch.num_rows() as u64;
        for id in game_ids(&batch, path)? {
            match ids.last() {
                Some(&p) if p == id && table == Table::Positions => {}
                Some(&p) if p >= id => ordered = false,
                _ => ids.push(id),
            }
        }
    }
    if read != rows {
        return invalid(format!("{read} rows readable, the footer says {rows}"));
    }
    if !ordered {
        return invalid("game ids out of order".into());
    }
    if let Some(id) = ids.iter().find(|&&id| !range.contains_id(id)) {
        return invalid(format!("game {id} outside its name's {range}"));
    }
    if table == Table::Games && (ids.first() != Some(&range.first) || ids.last() != Some(&range.last)) {
        return invalid(format!("games {:?}..={:?} do not span its name's {range}", ids.first(), ids.last()));
    }
    Ok(FileState::Valid { rows, game_ids: ids })
}
