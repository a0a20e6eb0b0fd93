//! Values crossing the [`Conn`](super::Conn) trait: parameters bound to a statement and the
//! columns of the rows it returns. Both databases store ids, counts and times as 64-bit
//! integers, reals as doubles and text as text (`crate::storage::codec` encodes the domain).

use super::SqlError;

/// A statement's parameter. Each carries its type, also when null: PostgreSQL binds typed.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Param<'a> {
    Int(Option<i64>),
    Real(Option<f64>),
    Text(Option<&'a str>),
    Blob(Option<&'a [u8]>),
}

impl<'a> From<&'a [u8]> for Param<'a> {
    fn from(v: &'a [u8]) -> Self {
        Param::Blob(Some(v))
    }
}

impl From<i64> for Param<'_> {
    fn from(v: i64) -> Self {
        Param::Int(Some(v))
    }
}

impl From<Option<i64>> for Param<'_> {
    fn from(v: Option<i64>) -> Self {
        Param::Int(v)
    }
}

impl From<f64> for Param<'_> {
    fn from(v: f64) -> Self {
        Param::Real(Some(v))
    }
}

impl From<Option<f64>> for Param<'_> {
    fn from(v: Option<f64>) -> Self {
        Param::Real(v)
    }
}

impl<'a> From<&'a str> for Param<'a> {
    fn from(v: &'a str) -> Self {
        Param::Text(Some(v))
    }
}

impl<'a> From<&'a String> for Param<'a> {
    fn from(v: &'a String) -> Self {
        Param::Text(Some(v))
    }
}

impl<'a> From<Option<&'a str>> for Param<'a> {
    fn from(v: Option<&'a str>) -> Self {
        Param::Text(v)
    }
}

/// A column of a returned row.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Value {
    Null,
    Int(i64),
    Real(f64),
    Text(String),
    Blob(Vec<u8>),
}

impl Value {
    fn kind(&self) -> &'static str {
        match self {
            Value::Null => "null",
            Value::Int(_) => "an integer",
            Value::Real(_) => "a real",
            Value::Text(_) => "text",
            Value::Blob(_) => "a blob",
        }
    }
}

/// A returned row: its columns in order.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Row(pub(crate) Vec<Value>);

impl Row {
    /// Column `i`, decoded.
    pub(crate) fn get<T: FromValue>(&self, i: usize) -> Result<T, SqlError> {
        let value = self.0.get(i).ok_or_else(|| format!("the row has no column {i}"))?;
        T::from_value(value).ok_or_else(|| format!("column {i} holds {}, not {}", value.kind(), T::EXPECTED).into())
    }
}

/// A Rust value a column decodes to.
pub(crate) trait FromValue: Sized {
    /// What the column should hold, for errors.
    const EXPECTED: &'static str;

    fn from_value(value: &Value) -> Option<Self>;
}

impl FromValue for i64 {
    const EXPECTED: &'static str = "an integer";

    fn from_value(value: &Value) -> Option<Self> {
        match value {
            Value::Int(v) => Some(*v),
            _ => None,
        }
    }
}

impl FromValue for f64 {
    const EXPECTED: &'static str = "a real";

    fn from_value(value: &Value) -> Option<Self> {
        match value {
            Value::Real(v) => Some(*v),
            // SQLite stores a whole real of a REAL column as an integer when it fits.
            Value::Int(v) => Some(*v as f64),
            _ => None,
        }
    }
}

impl FromValue for String {
    const EXPECTED: &'static str = "text";

    fn from_value(value: &Value) -> Option<Self> {
        match value {
            Value::Text(v) => Some(v.clone()),
            _ => None,
        }
    }
}

impl<T: FromValue> FromValue for Option<T> {
    const EXPECTED: &'static str = T::EXPECTED;

    fn from_value(value: &Value) -> Option<Self> {
        match value {
            Value::Null => Some(None),
            other => T::from_value(other).map(Some),
        }
    }
}

impl FromValue for Vec<u8> {
    const EXPECTED: &'static str = "a blob";

    fn from_value(value: &Value) -> Option<Self> {
        match value {
            Value::Blob(v) => Some(v.clone()),
            _ => None,
        }
    }
}

/// A Rust value a whole row decodes to: a column type for one column, a tuple for several.
pub(crate) trait FromRow: Sized {
    fn from_row(row: &Row) -> Result<Self, SqlError>;
}

macro_rules! one_column {
    ($($t:ty),*) => {$(
        impl FromRow for $t {
            fn from_row(row: &Row) -> Result<Self, SqlError> {
                row.get(0)
            }
        }
    )*};
}
one_column!(i64, f64, String, Vec<u8>, Option<i64>, Option<f64>, Option<String>);

macro_rules! tuple {
    ($($t:ident $i:tt),+) => {
        impl<$($t: FromValue),+> FromRow for ($($t,)+) {
            fn from_row(row: &Row) -> Result<Self, SqlError> {
                Ok(($(row.get::<$t>($i)?,)+))
            }
        }
    };
}
tuple!(A 0, B 1);
tuple!(A 0, B 1, C 2);
tuple!(A 0, B 1, C 2, D 3);
tuple!(A 0, B 1, C 2, D 3, E 4);
tuple!(A 0, B 1, C 2, D 3, E 4, F 5);
tuple!(A 0, B 1, C 2, D 3, E 4, F 5, G 6);
tuple!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7);
tuple!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8);
tuple!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10, L 11, M 12);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_decode_by_type_and_name_the_mismatch() {
        let row = Row(vec![Value::Int(7), Value::Null, Value::Text("x".into()), Value::Int(2)]);
        let (a, b, c, d): (i64, Option<i64>, String, f64) = FromRow::from_row(&row).expect("decodes");
        assert_eq!((a, b, c.as_str(), d), (7, None, "x", 2.0));
        let e = row.get::<i64>(2).expect_err("text is not an integer");
        assert_eq!(e.to_string(), "column 2 holds text, not an integer");
        assert_eq!(row.get::<i64>(9).expect_err("no such column").to_string(), "the row has no column 9");
        assert!(row.get::<String>(1).is_err(), "null is not text");
    }
}
