//! The SQL row layer, written once for SQLite and PostgreSQL: every [`Tx`](super::tx::Tx)
//! primitive as SQL statements over [`Conn`], the small trait both drivers implement
//! (`sqlite/conn.rs`, `postgres/conn.rs`). The row modules (`catalog`, `engines`, `leasing`,
//! `results`, `spsa`, `tablebases`, `tournament`) hold the statements; [`SqlTx`] maps the
//! primitives onto them.
//!
//! Statements are written in SQL both databases run:
//! - placeholders are `?N` (the PostgreSQL driver reads them as `$N` when it prepares a
//!   statement);
//! - a sum is `CAST(SUM(x) AS BIGINT)` (PostgreSQL's `SUM` of a `BIGINT` is `NUMERIC`), and a
//!   parameter whose type PostgreSQL cannot infer is cast;
//! - text is ordered byte by byte ([`Dialect::byte_order`]);
//! - rows are inserted with `RETURNING id` and upserted with `ON CONFLICT`.
//!
//! What truly differs is in [`Dialect`], each with its reason.

mod cache;
mod catalog;
mod engines;
mod leasing;
mod networks;
mod results;
mod spsa;
mod tablebases;
mod tournament;
mod tx;
mod value;

pub(crate) use cache::RowCache;
pub(in crate::storage) use engines::store_run_engines;
#[cfg(test)]
pub(in crate::storage) use leasing::RECENT_SUBMISSIONS;
#[cfg(test)]
pub(in crate::storage) use results::{GAME_ENDS, GAME_PAGE, PAGE_POSITIONS, PAIR_RESULTS, PAIR_TALLIES};
pub(crate) use tx::SqlTx;
pub(crate) use value::{FromRow, Param, Row, Value};

use crate::error::{BoxedSource, Error, Result};

/// An error of a driver or of reading a row, before [`Ctx::ctx`] says what was being done.
pub(crate) type SqlError = BoxedSource;

/// An error that already says what was being done: a held-back [`Conn::write`]'s, returned by the
/// later call that sent it. [`Ctx::ctx`] passes it on as it is, so that it names the write, not
/// the statement it was sent with.
#[derive(Debug)]
pub(crate) struct Settled(pub(crate) Error);

impl std::fmt::Display for Settled {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl std::error::Error for Settled {}

/// Adds what was being done to a database error: the one way a storage error is made.
pub(crate) trait Ctx<T> {
    fn ctx(self, context: &str) -> Result<T>;
}

impl<T, E: Into<BoxedSource>> Ctx<T> for std::result::Result<T, E> {
    fn ctx(self, context: &str) -> Result<T> {
        self.map_err(|e| match e.into().downcast::<Settled>() {
            Ok(settled) => settled.0,
            Err(e) => Error::storage(context, e),
        })
    }
}

/// The database a connection speaks to, for the few statements that differ.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Dialect {
    Sqlite,
    Postgres,
}

impl Dialect {
    /// What follows a text column in `ORDER BY` to order it byte by byte. PostgreSQL orders
    /// text by the database's collation unless told `COLLATE "C"`; SQLite orders it byte by
    /// byte anyway, and an explicit collation there would cost the index's order (a sort).
    pub(crate) fn byte_order(self) -> &'static str {
        match self {
            Dialect::Sqlite => "",
            Dialect::Postgres => r#" COLLATE "C""#,
        }
    }

    /// Pooled pairs to lease. PostgreSQL claims them (`FOR UPDATE SKIP LOCKED`), so that two
    /// coordinators leasing at once take different pairs instead of waiting on each other;
    /// SQLite has one writer and no row locks (nor the clause).
    fn pooled_pairs(self) -> &'static str {
        match self {
            Dialect::Sqlite => {
                "SELECT pair_index FROM pairs WHERE run_id = ?1 AND status = 'pooled' ORDER BY pair_index LIMIT ?2"
            }
            Dialect::Postgres => {
                "SELECT pair_index FROM pairs WHERE run_id = ?1 AND status = 'pooled'
                 ORDER BY pair_index LIMIT ?2 FOR UPDATE SKIP LOCKED"
            }
        }
    }

    /// Stores a game (parameters: run, pair index, game in pair, opening index, worker, red,
    /// black, start FEN, outcome, reason, moves, duration, nodes, plies, pairing), returning
    /// nothing, so that it is a write nobody waits for ([`Conn::write`]); its id, for its
    /// positions, is [`Dialect::last_game_id`]. PostgreSQL takes the id from a counter row that
    /// stays locked until commit, so that games become visible in id order to a reader following
    /// "games above the last id" (the exporter) across coordinators, in the same statement;
    /// SQLite's single writer commits in rowid order anyway, and assigns the rowid.
    fn insert_game(self) -> &'static str {
        match self {
            Dialect::Sqlite => {
                "INSERT INTO games (run_id, pair_index, game_in_pair, opening_index, worker_id, red, black, start_fen,
                                    outcome, reason, moves, duration_ms, nodes, plies, pairing)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)"
            }
            Dialect::Postgres => {
                "WITH next AS (UPDATE game_counter SET last_id = last_id + 1 RETURNING last_id)
                 INSERT INTO games (id, run_id, pair_index, game_in_pair, opening_index, worker_id, red, black,
                                    start_fen, outcome, reason, moves, duration_ms, nodes, plies, pairing)
                 VALUES ((SELECT last_id FROM next), ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14,
                         ?15)"
            }
        }
    }

    /// The id of the game this transaction stored last, in a statement after its
    /// [`Dialect::insert_game`]: PostgreSQL's counter row, which this transaction changed and
    /// holds; in SQLite the largest id, which the single writer just gave it (a new rowid is the
    /// largest plus one).
    fn last_game_id(self) -> &'static str {
        match self {
            Dialect::Sqlite => "(SELECT MAX(id) FROM games)",
            Dialect::Postgres => "(SELECT last_id FROM game_counter)",
        }
    }
}

/// One connection inside one transaction, as the row modules use it.
pub(crate) trait Conn {
    fn dialect(&self) -> Dialect;

    /// Runs a statement that returns no rows; the number of rows it changed.
    fn execute(&mut self, sql: &str, params: &[Param<'_>]) -> std::result::Result<u64, SqlError>;

    /// Runs a statement that returns rows (a query, or a change `RETURNING` columns).
    fn rows(&mut self, sql: &str, params: &[Param<'_>]) -> std::result::Result<Vec<Row>, SqlError>;

    /// Runs a change whose only outcome the workflow needs is that it succeeded and, with
    /// `unchanged`, that it changed a row (if it changed none, `unchanged` is the error);
    /// `context` says what it does. A connection may hold it back and send it with its next
    /// statement or its commit (PostgreSQL pipelines them): its error then comes from that later
    /// call, as this write's own error, and the transaction does not commit. SQLite runs it here.
    fn write(
        &mut self,
        sql: &str,
        params: &[Param<'_>],
        context: &'static str,
        unchanged: Option<Error>,
    ) -> Result<()> {
        let changed = self.execute(sql, params).ctx(context)?;
        match unchanged {
            Some(error) if changed == 0 => Err(error),
            _ => Ok(()),
        }
    }

    /// The connection's cache of rows that never change once written.
    fn cache(&self) -> &RowCache;
}

impl dyn Conn + '_ {
    /// Every row, decoded.
    pub(crate) fn query<T: FromRow>(
        &mut self,
        sql: &str,
        params: &[Param<'_>],
    ) -> std::result::Result<Vec<T>, SqlError> {
        self.rows(sql, params)?.iter().map(T::from_row).collect()
    }

    /// The first row, decoded, if there is one.
    pub(crate) fn query_opt<T: FromRow>(
        &mut self,
        sql: &str,
        params: &[Param<'_>],
    ) -> std::result::Result<Option<T>, SqlError> {
        self.rows(sql, params)?.first().map(T::from_row).transpose()
    }

    /// The first row, decoded; none is an error.
    pub(crate) fn query_one<T: FromRow>(
        &mut self,
        sql: &str,
        params: &[Param<'_>],
    ) -> std::result::Result<T, SqlError> {
        self.query_opt(sql, params)?.ok_or_else(|| "the statement returned no row".into())
    }

    /// Whether the query returns a row.
    pub(crate) fn exists(&mut self, sql: &str, params: &[Param<'_>]) -> std::result::Result<bool, SqlError> {
        Ok(!self.rows(sql, params)?.is_empty())
    }
}

/// The parameters of a statement: `params![a, b]` is `&[Param::from(a), Param::from(b)]`.
macro_rules! params {
    ($($p:expr),* $(,)?) => {
        &[$($crate::storage::sql::Param::from($p)),*]
    };
}
pub(crate) use params;

/// `sql` with PostgreSQL's placeholders: `?N` becomes `$N` outside quoted text.
pub(crate) fn numbered_placeholders(sql: &str) -> String {
    let mut out = String::with_capacity(sql.len());
    let mut quote: Option<char> = None;
    let mut chars = sql.chars().peekable();
    while let Some(ch) = chars.next() {
        match (quote, ch) {
            (Some(q), _) if ch == q => quote = None,
            (None, '\'' | '"') => quote = Some(ch),
            (None, '?') if chars.peek().is_some_and(char::is_ascii_digit) => {
                out.push('$');
                continue;
            }
            _ => {}
        }
        out.push(ch);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_are_numbered_outside_quotes() {
        assert_eq!(
            numbered_placeholders(r#"SELECT '?1', "a?2" FROM t WHERE a = ?1 AND b = ?12"#),
            r#"SELECT '?1', "a?2" FROM t WHERE a = $1 AND b = $12"#
        );
        assert_eq!(numbered_placeholders("SELECT ? FROM t"), "SELECT ? FROM t");
    }
}
