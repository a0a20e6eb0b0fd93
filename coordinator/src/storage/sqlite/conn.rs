//! SQLite as the SQL row layer's [`Conn`]: statements from the connection's statement cache,
//! parameters bound as SQLite values, rows read into [`Value`]s.

use rusqlite::types::{ToSqlOutput, ValueRef};
use rusqlite::{Connection, params_from_iter};

use crate::storage::sql::{Conn, Dialect, Param, Row, RowCache, SqlError, Value};

/// A SQLite connection inside a transaction the caller opened.
pub(crate) struct SqliteConn<'a> {
    conn: &'a Connection,
    cache: &'a RowCache,
}

impl<'a> SqliteConn<'a> {
    pub(crate) fn new(conn: &'a Connection, cache: &'a RowCache) -> SqliteConn<'a> {
        SqliteConn { conn, cache }
    }
}

impl rusqlite::ToSql for Param<'_> {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(match *self {
            Param::Int(Some(v)) => ToSqlOutput::Borrowed(ValueRef::Integer(v)),
            Param::Real(Some(v)) => ToSqlOutput::Borrowed(ValueRef::Real(v)),
            Param::Text(Some(v)) => ToSqlOutput::Borrowed(ValueRef::Text(v.as_bytes())),
            Param::Blob(Some(v)) => ToSqlOutput::Borrowed(ValueRef::Blob(v)),
            Param::Int(None) | Param::Real(None) | Param::Text(None) | Param::Blob(None) => {
                ToSqlOutput::Borrowed(ValueRef::Null)
            }
        })
    }
}

fn value(v: ValueRef<'_>) -> Result<Value, SqlError> {
    Ok(match v {
        ValueRef::Null => Value::Null,
        ValueRef::Integer(i) => Value::Int(i),
        ValueRef::Real(r) => Value::Real(r),
        ValueRef::Text(t) => Value::Text(String::from_utf8(t.to_vec())?),
        ValueRef::Blob(b) => Value::Blob(b.to_vec()),
    })
}

impl Conn for SqliteConn<'_> {
    fn dialect(&self) -> Dialect {
        Dialect::Sqlite
    }

    fn execute(&mut self, sql: &str, params: &[Param<'_>]) -> Result<u64, SqlError> {
        let mut statement = self.conn.prepare_cached(sql)?;
        Ok(statement.execute(params_from_iter(params))? as u64)
    }

    fn rows(&mut self, sql: &str, params: &[Param<'_>]) -> Result<Vec<Row>, SqlError> {
        let mut statement = self.conn.prepare_cached(sql)?;
        let columns = statement.column_count();
        let mut rows = statement.query(params_from_iter(params))?;
        let mut out = Vec::new();
        while let Some(row) = rows.next()? {
            out.push(Row((0..columns).map(|i| value(row.get_ref(i)?)).collect::<Result<_, SqlError>>()?));
        }
        Ok(out)
    }

    fn cache(&self) -> &RowCache {
        self.cache
    }
}

#[cfg(test)]
mod tests {
    use rusqlite::Connection;

    use super::super::schema;
    use crate::storage::sql::{GAME_ENDS, GAME_PAGE, PAGE_POSITIONS, PAIR_RESULTS, PAIR_TALLIES, RECENT_SUBMISSIONS};

    /// The plan's detail lines, joined.
    fn plan(conn: &Connection, sql: &str) -> String {
        let rows: Vec<String> = conn
            .prepare(&format!("EXPLAIN QUERY PLAN {sql}"))
            .and_then(|mut s| {
                let values = vec![1i64; s.parameter_count()];
                s.query_map(rusqlite::params_from_iter(values), |r| r.get(3))?.collect()
            })
            .expect("plan");
        rows.join("; ")
    }

    /// A run's tallies are read from their own tables by key, in key order (no sort, never the
    /// games and their moves), and a page skips its offset in `games_by_run` alone.
    #[test]
    fn the_web_reads_scan_indexes_only() {
        let mut conn = Connection::open_in_memory().expect("open");
        schema::prepare(&mut conn).expect("schema");
        for (sql, table) in
            [(PAIR_RESULTS, "run_pair_results"), (GAME_ENDS, "run_game_ends"), (PAIR_TALLIES, "run_pair_tallies")]
        {
            let plan = plan(&conn, sql);
            assert_eq!(plan, format!("SEARCH {table} USING PRIMARY KEY (run_id=?)"), "{sql}");
        }
        let page = plan(&conn, GAME_PAGE);
        assert!(page.contains("USING COVERING INDEX games_by_run (run_id=?)"), "{page}");
        assert!(page.contains("SEARCH g USING INTEGER PRIMARY KEY (rowid=?)"), "{page}");
        // The exporter's page of positions lists only the page's games, not the whole run's.
        let positions = plan(&conn, PAGE_POSITIONS);
        assert!(positions.contains("USING COVERING INDEX games_by_run (run_id=? AND id>? AND id<?)"), "{positions}");
        let recent = plan(&conn, RECENT_SUBMISSIONS);
        assert!(recent.contains("USING COVERING INDEX submissions_by_time (received_ms>?)"), "{recent}");
    }
}
