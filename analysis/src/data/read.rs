//! One Parquet file through the parquet crate's Arrow reader: only the named columns, batch by
//! batch, and typed access to a batch's columns. The access accepts every integer width and
//! signedness, both float widths and the three string layouts (the queries used to cast them
//! alike), and every error names the file and the column.

use std::fs::File;
use std::path::{Path, PathBuf};

use arrow_array::cast::AsArray;
use arrow_array::types::{
    Float32Type, Float64Type, Int8Type, Int16Type, Int32Type, Int64Type, UInt8Type, UInt16Type, UInt32Type, UInt64Type,
};
use arrow_array::{Array, ArrayRef, GenericListArray, OffsetSizeTrait, RecordBatch};
use arrow_schema::DataType;
use parquet::arrow::ProjectionMask;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;

use super::data_error;
use crate::error::{Error, Result};

/// Rows per batch: enough to amortise the per-batch work, small enough that a batch of games
/// with their move lists stays a few megabytes.
const BATCH_ROWS: usize = 8192;

/// An open Parquet file whose footer has been read.
pub(crate) struct ParquetFile {
    path: PathBuf,
    builder: ParquetRecordBatchReaderBuilder<File>,
}

impl ParquetFile {
    pub(crate) fn open(path: &Path) -> Result<ParquetFile> {
        let file = File::open(path).map_err(|e| data_error(path, e))?;
        let builder = ParquetRecordBatchReaderBuilder::try_new(file).map_err(|e| data_error(path, e))?;
        Ok(ParquetFile { path: path.to_path_buf(), builder })
    }

    /// The file's row count, from its footer (no column is read).
    pub(crate) fn rows(&self) -> u64 {
        u64::try_from(self.builder.metadata().file_metadata().num_rows()).unwrap_or(0)
    }

    pub(crate) fn has_column(&self, name: &str) -> bool {
        self.builder.schema().fields().iter().any(|f| f.name() == name)
    }

    /// Reads `columns` (each must exist) and hands every batch to `f`.
    pub(crate) fn for_each_batch(self, columns: &[&str], mut f: impl FnMut(&Batch<'_>) -> Result<()>) -> Result<()> {
        let ParquetFile { path, builder } = self;
        let schema = builder.parquet_schema();
        let fields = schema.root_schema().get_fields();
        let mut roots = Vec::with_capacity(columns.len());
        for name in columns {
            let root = fields
                .iter()
                .position(|field| field.name() == *name)
                .ok_or_else(|| data_error(&path, format!("no column `{name}`")))?;
            roots.push(root);
        }
        let mask = ProjectionMask::roots(schema, roots);
        let reader =
            builder.with_projection(mask).with_batch_size(BATCH_ROWS).build().map_err(|e| data_error(&path, e))?;
        for batch in reader {
            let batch = batch.map_err(|e| data_error(&path, e))?;
            f(&Batch { batch: &batch, path: &path })?;
        }
        Ok(())
    }
}

/// Typed columns of one batch of a file.
pub(crate) struct Batch<'a> {
    batch: &'a RecordBatch,
    path: &'a Path,
}

impl<'a> Batch<'a> {
    pub(crate) fn len(&self) -> usize {
        self.batch.num_rows()
    }

    fn error(&self, reason: impl std::fmt::Display) -> Error {
        data_error(self.path, reason)
    }

    fn wrong_type(&self, name: &str, found: &DataType, expected: &str) -> Error {
        self.error(format!("column `{name}` is {found}, expected {expected}"))
    }

    /// The column `name`, without nulls (the coordinator writes none outside
    /// `positions.search_score`; a null elsewhere is damage).
    fn column(&self, name: &str) -> Result<&'a ArrayRef> {
        let array = self.nullable_column(name)?;
        if array.null_count() > 0 {
            return Err(self.error(format!("null in column `{name}`")));
        }
        Ok(array)
    }

    fn nullable_column(&self, name: &str) -> Result<&'a ArrayRef> {
        self.batch.column_by_name(name).ok_or_else(|| self.error(format!("no column `{name}`")))
    }

    /// A signed integer column that may hold nulls (`positions.search_score`: no score).
    pub(crate) fn optional_i64s(&self, name: &str) -> Result<Vec<Option<i64>>> {
        let array = self.nullable_column(name)?;
        macro_rules! widen {
            ($t:ty) => {
                array.as_primitive::<$t>().iter().map(|v| v.map(i64::from)).collect()
            };
        }
        Ok(match array.data_type() {
            DataType::Int8 => widen!(Int8Type),
            DataType::Int16 => widen!(Int16Type),
            DataType::Int32 => widen!(Int32Type),
            DataType::Int64 => array.as_primitive::<Int64Type>().iter().collect(),
            other => return Err(self.wrong_type(name, other, "a signed integer")),
        })
    }

    /// A float column that may hold nulls (`positions.result`: an imported game's unknown
    /// result); a column of another number type reads as `f64s` does.
    pub(crate) fn optional_f64s(&self, name: &str) -> Result<Vec<Option<f64>>> {
        let array = self.nullable_column(name)?;
        Ok(match array.data_type() {
            DataType::Float32 => array.as_primitive::<Float32Type>().iter().map(|v| v.map(f64::from)).collect(),
            DataType::Float64 => array.as_primitive::<Float64Type>().iter().collect(),
            _ if array.null_count() == 0 => self.f64s(name)?.into_iter().map(Some).collect(),
            other => return Err(self.wrong_type(name, other, "a float")),
        })
    }

    pub(crate) fn u64s(&self, name: &str) -> Result<Vec<u64>> {
        let array = self.column(name)?;
        let negative = |v: i64| self.error(format!("negative value {v} in column `{name}`"));
        macro_rules! unsigned {
            ($t:ty) => {
                array.as_primitive::<$t>().values().iter().map(|&v| u64::from(v)).collect()
            };
        }
        macro_rules! signed {
            ($t:ty) => {
                array
                    .as_primitive::<$t>()
                    .values()
                    .iter()
                    .map(|&v| u64::try_from(v).map_err(|_| negative(i64::from(v))))
                    .collect::<Result<_>>()?
            };
        }
        Ok(match array.data_type() {
            DataType::UInt8 => unsigned!(UInt8Type),
            DataType::UInt16 => unsigned!(UInt16Type),
            DataType::UInt32 => unsigned!(UInt32Type),
            DataType::UInt64 => array.as_primitive::<UInt64Type>().values().to_vec(),
            DataType::Int8 => signed!(Int8Type),
            DataType::Int16 => signed!(Int16Type),
            DataType::Int32 => signed!(Int32Type),
            DataType::Int64 => signed!(Int64Type),
            other => return Err(self.wrong_type(name, other, "an integer")),
        })
    }

    pub(crate) fn f64s(&self, name: &str) -> Result<Vec<f64>> {
        let array = self.column(name)?;
        macro_rules! exact {
            ($t:ty) => {
                array.as_primitive::<$t>().values().iter().map(|&v| f64::from(v)).collect()
            };
        }
        macro_rules! rounded {
            ($t:ty) => {
                array.as_primitive::<$t>().values().iter().map(|&v| v as f64).collect()
            };
        }
        Ok(match array.data_type() {
            DataType::Float64 => array.as_primitive::<Float64Type>().values().to_vec(),
            DataType::Float32 => exact!(Float32Type),
            DataType::Int8 => exact!(Int8Type),
            DataType::Int16 => exact!(Int16Type),
            DataType::Int32 => exact!(Int32Type),
            DataType::Int64 => rounded!(Int64Type),
            DataType::UInt8 => exact!(UInt8Type),
            DataType::UInt16 => exact!(UInt16Type),
            DataType::UInt32 => exact!(UInt32Type),
            DataType::UInt64 => rounded!(UInt64Type),
            other => return Err(self.wrong_type(name, other, "a number")),
        })
    }

    pub(crate) fn bools(&self, name: &str) -> Result<Vec<bool>> {
        let array = self.column(name)?;
        let values = array.as_boolean_opt().ok_or_else(|| self.wrong_type(name, array.data_type(), "Boolean"))?;
        Ok(values.values().iter().collect())
    }

    pub(crate) fn strs(&self, name: &str) -> Result<Vec<&'a str>> {
        let array = self.column(name)?;
        let values =
            string_values(array.as_ref()).ok_or_else(|| self.wrong_type(name, array.data_type(), "a string"))?;
        // `column` refused nulls.
        Ok(values.into_iter().map(Option::unwrap_or_default).collect())
    }

    /// A list-of-strings column, each row's first `limit` items (null items as `None`).
    pub(crate) fn str_lists(&self, name: &str, limit: usize) -> Result<Vec<Vec<Option<&'a str>>>> {
        let array = self.column(name)?;
        let wrong = || self.wrong_type(name, array.data_type(), "a list of strings");
        let (offsets, values) = if let Some(list) = array.as_list_opt::<i32>() {
            list_parts(list)
        } else if let Some(list) = array.as_list_opt::<i64>() {
            list_parts(list)
        } else {
            return Err(wrong());
        };
        let items = string_values(values).ok_or_else(wrong)?;
        offsets
            .windows(2)
            .map(|w| {
                let row =
                    items.get(w[0]..w[1]).ok_or_else(|| self.error(format!("column `{name}`: bad list offsets")))?;
                Ok(row.iter().take(limit).copied().collect())
            })
            .collect()
    }
}

fn list_parts<O: OffsetSizeTrait>(list: &GenericListArray<O>) -> (Vec<usize>, &dyn Array) {
    (list.value_offsets().iter().map(|o| o.as_usize()).collect(), list.values().as_ref())
}

/// The values of a string column in any of Arrow's layouts; `None` when it is no string column.
fn string_values(array: &dyn Array) -> Option<Vec<Option<&str>>> {
    if let Some(a) = array.as_string_opt::<i32>() {
        Some(a.iter().collect())
    } else if let Some(a) = array.as_string_opt::<i64>() {
        Some(a.iter().collect())
    } else {
        array.as_string_view_opt().map(|a| a.iter().collect())
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use arrow_array::builder::{LargeListBuilder, StringBuilder};
    use arrow_array::{
        BooleanArray, Float32Array, Int8Array, Int64Array, LargeStringArray, StringViewArray, UInt32Array,
    };
    use parquet::arrow::ArrowWriter;

    use super::*;

    type TestResult = std::result::Result<(), Box<dyn std::error::Error>>;

    fn file_with(
        dir: &Path,
        columns: Vec<(&str, ArrayRef)>,
    ) -> std::result::Result<PathBuf, Box<dyn std::error::Error>> {
        let batch = RecordBatch::try_from_iter(columns)?;
        let path = dir.join("part.parquet");
        let mut writer = ArrowWriter::try_new(File::create(&path)?, batch.schema(), None)?;
        writer.write(&batch)?;
        writer.close()?;
        Ok(path)
    }

    #[test]
    fn numbers_and_strings_of_any_layout_read_alike() -> TestResult {
        let dir = tempfile::tempdir()?;
        let mut lists = LargeListBuilder::new(StringBuilder::new());
        lists.values().append_value("h2e2");
        lists.values().append_null();
        lists.values().append_value("h9g7");
        lists.append(true);
        lists.append(true);
        let path = file_with(
            dir.path(),
            vec![
                ("small", Arc::new(Int8Array::from(vec![3, 4])) as ArrayRef),
                ("plies", Arc::new(UInt32Array::from(vec![40, 41]))),
                ("big", Arc::new(Int64Array::from(vec![-5, 7]))),
                ("result", Arc::new(Float32Array::from(vec![0.5, 1.0]))),
                ("flag", Arc::new(BooleanArray::from(vec![true, false]))),
                ("large", Arc::new(LargeStringArray::from(vec!["a", "b"]))),
                ("view", Arc::new(StringViewArray::from(vec!["c", "d"]))),
                ("moves", Arc::new(lists.finish())),
            ],
        )?;
        let file = ParquetFile::open(&path)?;
        assert_eq!(file.rows(), 2);
        assert!(file.has_column("plies") && !file.has_column("run"));
        let mut seen = 0;
        file.for_each_batch(&["small", "plies", "big", "result", "flag", "large", "view", "moves"], |b| {
            assert_eq!(b.len(), 2);
            assert_eq!(b.u64s("small")?, [3, 4]);
            assert_eq!(b.u64s("plies")?, [40, 41]);
            assert_eq!(b.f64s("plies")?, [40.0, 41.0]);
            assert_eq!(b.optional_i64s("big")?, [Some(-5), Some(7)]);
            assert_eq!(b.f64s("result")?, [0.5, 1.0]);
            assert_eq!(b.bools("flag")?, [true, false]);
            assert_eq!(b.strs("large")?, ["a", "b"]);
            assert_eq!(b.strs("view")?, ["c", "d"]);
            assert_eq!(b.str_lists("moves", 2)?, [vec![Some("h2e2"), None], vec![]]);
            let err = b.u64s("big").expect_err("-5 is no u64").to_string();
            assert!(err.contains("part.parquet") && err.contains("negative value -5 in column `big`"), "{err}");
            let err = b.strs("plies").expect_err("plies are no strings").to_string();
            assert!(err.contains("column `plies` is UInt32, expected a string"), "{err}");
            seen += 1;
            Ok(())
        })?;
        assert_eq!(seen, 1);
        let err = ParquetFile::open(&path)?.for_each_batch(&["nodes"], |_| Ok(())).expect_err("no such column");
        assert!(err.to_string().contains("no column `nodes`"), "{err}");
        Ok(())
    }

    #[test]
    fn a_file_that_is_no_parquet_is_an_error_naming_it() -> TestResult {
        let dir = tempfile::tempdir()?;
        let path = dir.path().join("part-1.parquet");
        std::fs::write(&path, b"not parquet")?;
        let err = ParquetFile::open(&path).err().ok_or("read garbage")?.to_string();
        assert!(err.contains("part-1.parquet"), "{err}");
        Ok(())
    }
}
