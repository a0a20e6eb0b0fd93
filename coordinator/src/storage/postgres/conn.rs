//! PostgreSQL as the SQL row layer's [`Conn`]: one transaction with its connection's prepared
//! statements. Each SQL text is prepared once per connection (its `?N` placeholders read as
//! `$N`) and reused by every later transaction on it: a statement then costs one round trip to
//! the server (bind and execute) instead of two (parse, then bind and execute).

use std::collections::HashMap;

use postgres::types::{ToSql, Type};
use postgres::{Client, Statement};

use crate::storage::sql::{Conn, Dialect, Param, Row, RowCache, SqlError, Value, numbered_placeholders};

/// A connection's prepared statements by SQL text; they live as long as the connection (a
/// prepared statement outlives a rolled-back transaction on the server).
#[derive(Default)]
pub(super) struct Statements(HashMap<String, Statement>);

/// A connection inside a transaction its caller began (and ends).
pub(super) struct PgConn<'a> {
    tx: &'a mut Client,
    statements: &'a mut Statements,
    cache: &'a RowCache,
}

impl<'a> PgConn<'a> {
    pub(super) fn new(tx: &'a mut Client, statements: &'a mut Statements, cache: &'a RowCache) -> Self {
        PgConn { tx, statements, cache }
    }

    fn statement(&mut self, sql: &str) -> Result<Statement, postgres::Error> {
        if let Some(statement) = self.statements.0.get(sql) {
            return Ok(statement.clone());
        }
        let statement = self.tx.prepare(&numbered_placeholders(sql))?;
        self.statements.0.insert(sql.to_owned(), statement.clone());
        Ok(statement)
    }
}

/// The parameters as the driver binds them: each typed, also when null.
fn bound<'p>(params: &'p [Param<'_>]) -> Vec<&'p (dyn ToSql + Sync)> {
    params
        .iter()
        .map(|p| -> &(dyn ToSql + Sync) {
            match p {
                Param::Int(v) => v,
                Param::Real(v) => v,
                Param::Text(v) => v,
            }
        })
        .collect()
}

/// Column `i` of a row, by its type.
fn value(row: &postgres::Row, i: usize) -> Result<Value, postgres::Error> {
    let ty = row.columns()[i].type_();
    let int = |v: Option<i64>| v.map_or(Value::Null, Value::Int);
    Ok(if *ty == Type::INT8 {
        int(row.try_get(i)?)
    } else if *ty == Type::INT4 {
        int(row.try_get::<_, Option<i32>>(i)?.map(i64::from))
    } else if *ty == Type::INT2 {
        int(row.try_get::<_, Option<i16>>(i)?.map(i64::from))
    } else if *ty == Type::BOOL {
        int(row.try_get::<_, Option<bool>>(i)?.map(i64::from))
    } else if *ty == Type::FLOAT8 {
        row.try_get::<_, Option<f64>>(i)?.map_or(Value::Null, Value::Real)
    } else if *ty == Type::BYTEA {
        row.try_get::<_, Option<Vec<u8>>>(i)?.map_or(Value::Null, Value::Blob)
    } else {
        // Text, or an error naming the column's type.
        row.try_get::<_, Option<String>>(i)?.map_or(Value::Null, Value::Text)
    })
}

impl Conn for PgConn<'_> {
    fn dialect(&self) -> Dialect {
        Dialect::Postgres
    }

    fn execute(&mut self, sql: &str, params: &[Param<'_>]) -> Result<u64, SqlError> {
        let statement = self.statement(sql)?;
        Ok(self.tx.execute(&statement, &bound(params))?)
    }

    fn rows(&mut self, sql: &str, params: &[Param<'_>]) -> Result<Vec<Row>, SqlError> {
        let statement = self.statement(sql)?;
        let rows = self.tx.query(&statement, &bound(params))?;
        Ok(rows
            .iter()
            .map(|r| (0..r.len()).map(|i| value(r, i)).collect::<Result<_, _>>().map(Row))
            .collect::<Result<_, _>>()?)
    }

    fn cache(&self) -> &RowCache {
        self.cache
    }
}
