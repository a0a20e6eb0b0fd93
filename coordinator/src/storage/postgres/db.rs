//! One transaction with its connection's prepared statements. Each SQL text is prepared once
//! per connection and reused by every later transaction on it: a statement then costs one round
//! trip to the server (bind and execute) instead of two (parse, then bind and execute). The row
//! modules call it as they would a `postgres::Transaction`.

use std::collections::HashMap;

use postgres::types::ToSql;
use postgres::{Row, Statement, Transaction};

/// A connection's prepared statements by SQL text; they live as long as the connection (a
/// prepared statement outlives a rolled-back transaction on the server).
#[derive(Default)]
pub(super) struct Statements(HashMap<String, Statement>);

pub(super) struct Db<'a, 'b> {
    tx: &'a mut Transaction<'b>,
    statements: &'a mut Statements,
}

impl<'a, 'b> Db<'a, 'b> {
    pub(super) fn new(tx: &'a mut Transaction<'b>, statements: &'a mut Statements) -> Db<'a, 'b> {
        Db { tx, statements }
    }

    fn statement(&mut self, sql: &str) -> Result<Statement, postgres::Error> {
        if let Some(statement) = self.statements.0.get(sql) {
            return Ok(statement.clone());
        }
        let statement = self.tx.prepare(sql)?;
        self.statements.0.insert(sql.to_owned(), statement.clone());
        Ok(statement)
    }

    pub(super) fn query(&mut self, sql: &str, params: &[&(dyn ToSql + Sync)]) -> Result<Vec<Row>, postgres::Error> {
        let statement = self.statement(sql)?;
        self.tx.query(&statement, params)
    }

    pub(super) fn query_one(&mut self, sql: &str, params: &[&(dyn ToSql + Sync)]) -> Result<Row, postgres::Error> {
        let statement = self.statement(sql)?;
        self.tx.query_one(&statement, params)
    }

    pub(super) fn query_opt(
        &mut self,
        sql: &str,
        params: &[&(dyn ToSql + Sync)],
    ) -> Result<Option<Row>, postgres::Error> {
        let statement = self.statement(sql)?;
        self.tx.query_opt(&statement, params)
    }

    pub(super) fn execute(&mut self, sql: &str, params: &[&(dyn ToSql + Sync)]) -> Result<u64, postgres::Error> {
        let statement = self.statement(sql)?;
        self.tx.execute(&statement, params)
    }
}
