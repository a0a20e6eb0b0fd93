//! The Arrow schemas of the two tables and the conversions between rows and record batches.
//!
//! Types are the ones polars, pandas and pyarrow all map without surprise: UInt64/UInt32,
//! Int32, Utf8, List<Utf8>, Boolean and Float32; two columns are nullable,
//! `positions.search_score` (the engine reported no score) and `positions.result` (the game's
//! result is unknown: an imported game). `run` is not a column:
//! it is the Hive partition (`run=<id>` directories), which is how pyarrow and pandas want it
//! (a partition key that is also a file column of another type makes them refuse the dataset).

use proto::domain::RunId;
use std::path::Path;
use std::sync::{Arc, LazyLock};

use arrow_array::builder::{
    BooleanBuilder, Float32Builder, Int32Builder, ListBuilder, StringBuilder, UInt32Builder, UInt64Builder,
};
use arrow_array::cast::AsArray;
use arrow_array::types::{Float32Type, Int32Type, UInt32Type, UInt64Type};
use arrow_array::{Array, ArrayRef, BooleanArray, PrimitiveArray, RecordBatch, StringArray};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use proto::columns::{games, positions};

use super::error::{AtPath, Error, Result};
use super::rows::{GameRow, PositionRow};

/// Bumped when a column changes meaning, type or nullability; stored in every file's metadata.
/// Version 2 added `games.opening_fen` and `games.opening_moves` (the suite's line), which
/// [`migrate_games`](super::migrate_games) fills in for files version 1 wrote. Version 3 made
/// `positions.search_score` nullable (null: the engine reported no score, where older workers
/// wrote the static evaluation); [`migrate_positions`](super::migrate_positions) rewrites older
/// positions files with the nullable field and their values unchanged. `games` files did not
/// change in version 3. Version 4 made `positions.result` nullable (null: the game's result is
/// unknown, an imported game recorded without one); the same migration rewrites older files.
/// `games` files did not change in version 4 (an unknown result is `*` there).
pub const SCHEMA_VERSION: &str = "4";

/// The columns of a version-1 `games` file: today's without the opening line.
pub(crate) const GAMES_V1: [&str; 13] = [
    games::GAME_ID,
    games::PAIR_ID,
    games::OPENING_ID,
    games::START_FEN,
    games::RED_VARIANT,
    games::BLACK_VARIANT,
    games::RESULT,
    games::REASON,
    games::PLIES,
    games::MOVES,
    games::DURATION_MS,
    games::NODES,
    games::WORKER,
];

/// The two tables, each a directory under the data directory.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Table {
    Games,
    Positions,
}

impl Table {
    pub const ALL: [Table; 2] = [Table::Games, Table::Positions];

    pub fn dir_name(self) -> &'static str {
        match self {
            Table::Games => games::TABLE,
            Table::Positions => positions::TABLE,
        }
    }

    pub fn schema(self) -> SchemaRef {
        match self {
            Table::Games => GAMES.clone(),
            Table::Positions => POSITIONS.clone(),
        }
    }
}

fn moves_item() -> Field {
    Field::new_list_field(DataType::Utf8, false)
}

/// A List<Utf8> column of move lists, as `games.moves` and `games.opening_moves` are typed.
pub(crate) fn move_lists<'a>(lists: impl ExactSizeIterator<Item = &'a [String]>) -> ArrayRef {
    let mut builder = ListBuilder::with_capacity(StringBuilder::new(), lists.len()).with_field(moves_item());
    for list in lists {
        for m in list {
            builder.values().append_value(m);
        }
        builder.append(true);
    }
    Arc::new(builder.finish())
}

fn with_metadata(table: Table, fields: Vec<Field>) -> SchemaRef {
    let metadata = [("xqfarm.table", table.dir_name()), ("xqfarm.schema_version", SCHEMA_VERSION)];
    Arc::new(Schema::new(fields).with_metadata(metadata))
}

static GAMES: LazyLock<SchemaRef> = LazyLock::new(|| {
    with_metadata(
        Table::Games,
        vec![
            Field::new(games::GAME_ID, DataType::UInt64, false),
            Field::new(games::PAIR_ID, DataType::UInt64, false),
            Field::new(games::OPENING_ID, DataType::UInt32, false),
            Field::new(games::OPENING_FEN, DataType::Utf8, false),
            Field::new(games::OPENING_MOVES, DataType::List(Arc::new(moves_item())), false),
            Field::new(games::START_FEN, DataType::Utf8, false),
            Field::new(games::RED_VARIANT, DataType::Utf8, false),
            Field::new(games::BLACK_VARIANT, DataType::Utf8, false),
            Field::new(games::RESULT, DataType::Utf8, false),
            Field::new(games::REASON, DataType::Utf8, false),
            Field::new(games::PLIES, DataType::UInt32, false),
            Field::new(games::MOVES, DataType::List(Arc::new(moves_item())), false),
            Field::new(games::DURATION_MS, DataType::UInt64, false),
            Field::new(games::NODES, DataType::UInt64, false),
            Field::new(games::WORKER, DataType::Utf8, false),
        ],
    )
});

static POSITIONS: LazyLock<SchemaRef> = LazyLock::new(|| {
    with_metadata(
        Table::Positions,
        vec![
            Field::new(positions::GAME_ID, DataType::UInt64, false),
            Field::new(positions::PLY, DataType::UInt32, false),
            Field::new(positions::FEN, DataType::Utf8, false),
            Field::new(positions::SIDE_TO_MOVE, DataType::Utf8, false),
            Field::new(positions::STATIC_EVAL, DataType::Int32, false),
            Field::new(positions::SEARCH_SCORE, DataType::Int32, true),
            Field::new(positions::BEST_MOVE, DataType::Utf8, false),
            Field::new(positions::IN_CHECK, DataType::Boolean, false),
            Field::new(positions::QUIET, DataType::Boolean, false),
            Field::new(positions::RESULT, DataType::Float32, true),
        ],
    )
});

/// Checks that a file's columns are this table's, by name and type (metadata aside).
pub(crate) fn check_schema(table: Table, found: &Schema, path: &Path) -> Result<()> {
    let expected = table.schema();
    let names = |s: &Schema| s.fields().iter().map(|f| f.name().clone()).collect::<Vec<_>>();
    if names(found) != names(&expected) {
        return Err(Error::Schema {
            path: path.to_path_buf(),
            problem: format!(
                "columns {:?}, expected the {} table's {:?}",
                names(found),
                table.dir_name(),
                names(&expected)
            ),
        });
    }
    for (f, e) in found.fields().iter().zip(expected.fields()) {
        if !f.data_type().equals_datatype(e.data_type()) {
            return Err(Error::Schema {
                path: path.to_path_buf(),
                problem: format!("column `{}` is {}, expected {}", f.name(), f.data_type(), e.data_type()),
            });
        }
    }
    Ok(())
}

pub(crate) fn games_batch<'a>(
    rows: impl ExactSizeIterator<Item = &'a GameRow> + Clone,
    path: &Path,
) -> Result<RecordBatch> {
    let n = rows.len();
    let opening_moves = move_lists(rows.clone().map(|r| r.opening_moves.as_slice()));
    let moves = move_lists(rows.clone().map(|r| r.moves.as_slice()));
    let mut game_id = UInt64Builder::with_capacity(n);
    let mut pair_id = UInt64Builder::with_capacity(n);
    let mut opening_id = UInt32Builder::with_capacity(n);
    let mut opening_fen = StringBuilder::new();
    let mut start_fen = StringBuilder::new();
    let mut red_variant = StringBuilder::new();
    let mut black_variant = StringBuilder::new();
    let mut result = StringBuilder::new();
    let mut reason = StringBuilder::new();
    let mut plies = UInt32Builder::with_capacity(n);
    let mut duration_ms = UInt64Builder::with_capacity(n);
    let mut nodes = UInt64Builder::with_capacity(n);
    let mut worker = StringBuilder::new();
    for row in rows {
        game_id.append_value(row.game_id);
        pair_id.append_value(row.pair_id);
        opening_id.append_value(row.opening_id);
        opening_fen.append_value(&row.opening_fen);
        start_fen.append_value(&row.start_fen);
        red_variant.append_value(&row.red_variant);
        black_variant.append_value(&row.black_variant);
        result.append_value(&row.result);
        reason.append_value(&row.reason);
        plies.append_value(row.plies);
        duration_ms.append_value(row.duration_ms);
        nodes.append_value(row.nodes);
        worker.append_value(&row.worker);
    }
    let columns: Vec<ArrayRef> = vec![
        Arc::new(game_id.finish()),
        Arc::new(pair_id.finish()),
        Arc::new(opening_id.finish()),
        Arc::new(opening_fen.finish()),
        opening_moves,
        Arc::new(start_fen.finish()),
        Arc::new(red_variant.finish()),
        Arc::new(black_variant.finish()),
        Arc::new(result.finish()),
        Arc::new(reason.finish()),
        Arc::new(plies.finish()),
        moves,
        Arc::new(duration_ms.finish()),
        Arc::new(nodes.finish()),
        Arc::new(worker.finish()),
    ];
    RecordBatch::try_new(Table::Games.schema(), columns).at(path)
}

pub(crate) fn positions_batch<'a>(rows: impl Iterator<Item = &'a PositionRow>, path: &Path) -> Result<RecordBatch> {
    let mut game_id = UInt64Builder::new();
    let mut ply = UInt32Builder::new();
    let mut fen = StringBuilder::new();
    let mut side_to_move = StringBuilder::new();
    let mut static_eval = Int32Builder::new();
    let mut search_score = Int32Builder::new();
    let mut best_move = StringBuilder::new();
    let mut in_check = BooleanBuilder::new();
    let mut quiet = BooleanBuilder::new();
    let mut result = Float32Builder::new();
    for row in rows {
        game_id.append_value(row.game_id);
        ply.append_value(row.ply);
        fen.append_value(&row.fen);
        side_to_move.append_value(&row.side_to_move);
        static_eval.append_value(row.static_eval);
        search_score.append_option(row.search_score);
        best_move.append_value(&row.best_move);
        in_check.append_value(row.in_check);
        quiet.append_value(row.quiet);
        result.append_option(row.result);
    }
    let columns: Vec<ArrayRef> = vec![
        Arc::new(game_id.finish()),
        Arc::new(ply.finish()),
        Arc::new(fen.finish()),
        Arc::new(side_to_move.finish()),
        Arc::new(static_eval.finish()),
        Arc::new(search_score.finish()),
        Arc::new(best_move.finish()),
        Arc::new(in_check.finish()),
        Arc::new(quiet.finish()),
        Arc::new(result.finish()),
    ];
    RecordBatch::try_new(Table::Positions.schema(), columns).at(path)
}

/// Typed access to a batch's columns, naming the file and column when one is not as expected.
struct Columns<'a> {
    batch: &'a RecordBatch,
    path: &'a Path,
}

impl<'a> Columns<'a> {
    fn column(&self, name: &str) -> Result<&'a ArrayRef> {
        self.batch
            .column_by_name(name)
            .ok_or_else(|| Error::Schema { path: self.path.to_path_buf(), problem: format!("no column `{name}`") })
    }

    fn wrong_type(&self, name: &str, expected: &str) -> Error {
        Error::Schema { path: self.path.to_path_buf(), problem: format!("column `{name}` is not {expected}") }
    }

    fn primitive<T: arrow_array::ArrowPrimitiveType>(&self, name: &str) -> Result<&'a PrimitiveArray<T>> {
        let array = self.nullable_primitive(name)?;
        self.no_nulls(name, array)?;
        Ok(array)
    }

    /// A number column that may hold nulls (`positions.search_score`, `positions.result`).
    fn nullable_primitive<T: arrow_array::ArrowPrimitiveType>(&self, name: &str) -> Result<&'a PrimitiveArray<T>> {
        self.column(name)?.as_primitive_opt::<T>().ok_or_else(|| self.wrong_type(name, "of the expected number type"))
    }

    fn string(&self, name: &str) -> Result<&'a StringArray> {
        let array = self.column(name)?.as_string_opt::<i32>().ok_or_else(|| self.wrong_type(name, "Utf8"))?;
        self.no_nulls(name, array)?;
        Ok(array)
    }

    fn boolean(&self, name: &str) -> Result<&'a BooleanArray> {
        let array = self.column(name)?.as_boolean_opt().ok_or_else(|| self.wrong_type(name, "Boolean"))?;
        self.no_nulls(name, array)?;
        Ok(array)
    }

    /// A List<Utf8> column as one `Vec<String>` per row.
    fn string_lists(&self, name: &str) -> Result<Vec<Vec<String>>> {
        let list = self.column(name)?.as_list_opt::<i32>().ok_or_else(|| self.wrong_type(name, "List<Utf8>"))?;
        self.no_nulls(name, list)?;
        let values = list.values().as_string_opt::<i32>().ok_or_else(|| self.wrong_type(name, "List<Utf8>"))?;
        self.no_nulls(name, values)?;
        Ok(list
            .value_offsets()
            .windows(2)
            .map(|w| (w[0] as usize..w[1] as usize).map(|i| values.value(i).to_owned()).collect())
            .collect())
    }

    fn no_nulls(&self, name: &str, array: &dyn Array) -> Result<()> {
        if array.null_count() > 0 {
            return Err(Error::Schema {
                path: self.path.to_path_buf(),
                problem: format!("column `{name}` has {} nulls", array.null_count()),
            });
        }
        Ok(())
    }
}

pub(crate) fn games_from_batch(run: RunId, batch: &RecordBatch, path: &Path) -> Result<Vec<GameRow>> {
    let c = Columns { batch, path };
    let game_id = c.primitive::<UInt64Type>(games::GAME_ID)?;
    let pair_id = c.primitive::<UInt64Type>(games::PAIR_ID)?;
    let opening_id = c.primitive::<UInt32Type>(games::OPENING_ID)?;
    let opening_fen = c.string(games::OPENING_FEN)?;
    let opening_moves = c.string_lists(games::OPENING_MOVES)?;
    let start_fen = c.string(games::START_FEN)?;
    let red_variant = c.string(games::RED_VARIANT)?;
    let black_variant = c.string(games::BLACK_VARIANT)?;
    let result = c.string(games::RESULT)?;
    let reason = c.string(games::REASON)?;
    let plies = c.primitive::<UInt32Type>(games::PLIES)?;
    let moves = c.string_lists(games::MOVES)?;
    let duration_ms = c.primitive::<UInt64Type>(games::DURATION_MS)?;
    let nodes = c.primitive::<UInt64Type>(games::NODES)?;
    let worker = c.string(games::WORKER)?;
    Ok(moves
        .into_iter()
        .zip(opening_moves)
        .enumerate()
        .map(|(i, (moves, opening_moves))| GameRow {
            run,
            game_id: game_id.value(i),
            pair_id: pair_id.value(i),
            opening_id: opening_id.value(i),
            opening_fen: opening_fen.value(i).to_owned(),
            opening_moves,
            start_fen: start_fen.value(i).to_owned(),
            red_variant: red_variant.value(i).to_owned(),
            black_variant: black_variant.value(i).to_owned(),
            result: result.value(i).to_owned(),
            reason: reason.value(i).to_owned(),
            plies: plies.value(i),
            moves,
            duration_ms: duration_ms.value(i),
            nodes: nodes.value(i),
            worker: worker.value(i).to_owned(),
        })
        .collect())
}

pub(crate) fn positions_from_batch(run: RunId, batch: &RecordBatch, path: &Path) -> Result<Vec<PositionRow>> {
    let c = Columns { batch, path };
    let game_id = c.primitive::<UInt64Type>(positions::GAME_ID)?;
    let ply = c.primitive::<UInt32Type>(positions::PLY)?;
    let fen = c.string(positions::FEN)?;
    let side_to_move = c.string(positions::SIDE_TO_MOVE)?;
    let static_eval = c.primitive::<Int32Type>(positions::STATIC_EVAL)?;
    let search_score = c.nullable_primitive::<Int32Type>(positions::SEARCH_SCORE)?;
    let best_move = c.string(positions::BEST_MOVE)?;
    let in_check = c.boolean(positions::IN_CHECK)?;
    let quiet = c.boolean(positions::QUIET)?;
    let result = c.nullable_primitive::<Float32Type>(positions::RESULT)?;
    Ok((0..batch.num_rows())
        .map(|i| PositionRow {
            run,
            game_id: game_id.value(i),
            ply: ply.value(i),
            fen: fen.value(i).to_owned(),
            side_to_move: side_to_move.value(i).to_owned(),
            static_eval: static_eval.value(i),
            search_score: search_score.is_valid(i).then(|| search_score.value(i)),
            best_move: best_move.value(i).to_owned(),
            in_check: in_check.value(i),
            quiet: quiet.value(i),
            result: result.is_valid(i).then(|| result.value(i)),
        })
        .collect())
}

/// The `game_id` column of a batch of either table.
pub(crate) fn game_ids(batch: &RecordBatch, path: &Path) -> Result<Vec<u64>> {
    let c = Columns { batch, path };
    // Both tables call it the same.
    Ok(c.primitive::<UInt64Type>(games::GAME_ID)?.values().to_vec())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(schema: &Schema) -> Vec<&str> {
        schema.fields().iter().map(|f| f.name().as_str()).collect()
    }

    #[test]
    fn the_written_columns_are_the_shared_names() {
        // Analysis reads with `proto::columns`: a column renamed here alone would fail this.
        assert_eq!(names(&Table::Games.schema()), games::ALL);
        assert_eq!(names(&Table::Positions.schema()), positions::ALL);
        assert_eq!(Table::Games.dir_name(), games::TABLE);
        assert_eq!(Table::Positions.dir_name(), positions::TABLE);
        // `game_ids` reads either table by one name.
        assert_eq!(games::GAME_ID, positions::GAME_ID);
    }
}
