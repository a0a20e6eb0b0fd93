//! Every game and every sampled position, in Parquet, for polars, pandas and pyarrow.
//!
//! ```
//! use farmdata::{GameRow, export_segment, read_games, recover};
//! use proto::domain::RunId;
//!
//! let data = tempfile::tempdir()?;
//! let game = |game_id| GameRow {
//!     run: RunId::new(7), game_id, pair_id: game_id / 2, opening_id: 0,
//!     opening_fen: engine::START_FEN.into(), opening_moves: vec![],
//!     start_fen: "startpos".into(), red_variant: "base".into(), black_variant: "cand".into(),
//!     result: "1/2-1/2".into(), reason: "move_limit".into(), plies: 2,
//!     moves: vec!["h2e2".into(), "h9g7".into()], duration_ms: 10, nodes: 5000, worker: "w1".into(),
//! };
//! // Games 0 and 1 as one segment: games/run=7/part-000000000000-000000000001.parquet and the
//! // same name under positions/.
//! export_segment(data.path(), RunId::new(7), &[(game(0), vec![]), (game(1), vec![])])?;
//! // After a restart, recover before exporting again; the mark moves past adopted segments, and
//! // the games are counted from the files.
//! let recovered = recover(data.path(), RunId::new(7), 0)?;
//! assert_eq!((recovered.exported_up_to, recovered.games), (1, 2));
//! assert_eq!(read_games(data.path(), RunId::new(7))?.len(), 2);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Two tables, `games` and `positions`, each a directory of Hive partitions `run=<id>`; `run` is
//! the partition, not a column of the files, so `pl.scan_parquet("<data>/games/")`,
//! `pyarrow.dataset.dataset(.., partitioning="hive")` and `pandas.read_parquet` all see it (as
//! Int64, Int32 and a category: readers infer a partition's type from the path). A
//! *segment* is the pair of part files, one per table, for one range of game ids; segments are
//! written atomically by [`export_segment`], merged by [`compact`], and repaired after a crash by
//! [`recover`], whose documentation states the invariant: every game id is in exactly one
//! segment.

mod compact;
mod error;
mod import;
mod import_bench;
mod imports;
mod layout;
mod migrate;
mod reader;
mod recover;
mod rows;
mod runs;
mod schema;
mod segments;
mod spsa;
mod writer;

pub use compact::{CompactionPolicy, compact};
pub use error::{Error, Result};
pub use import::{
    FileImport, ImportOptions, ImportSummary, SkipReason, SkippedGame, UNKNOWN_RESULT, game_rows, import_pgn,
    pgn_files, reason_text, result_of,
};
pub use import_bench::{ImportSpeed, bench_archive, bench_import};
pub use imports::{IMPORTS_FILE, ImportRow, imports_path, read_imports, write_imports};
pub use layout::{PartRange, part_files, part_path, partition_dir, temp_dir};
pub use migrate::{migrate_games, migrate_positions};
pub use reader::{read_game_positions, read_games, read_positions};
pub use recover::{Recovered, recover};
pub use rows::{GameOpening, GameRow, PositionRow, rows_from_report};
pub use runs::{RunRow, runs_path, write_runs};
pub use schema::{SCHEMA_VERSION, Table};
pub use spsa::{spsa_path, write_spsa};
pub use writer::export_segment;
