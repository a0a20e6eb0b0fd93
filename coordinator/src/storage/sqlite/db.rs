//! A connection with its cache of the rows that never change once written
//! ([`RowCache`]). Each connection has its own: the writer's and each reader's.

use std::ops::Deref;

use rusqlite::Connection;

use super::conn::SqliteConn;
use crate::storage::sql::RowCache;

#[derive(Debug)]
pub(super) struct Db {
    conn: Connection,
    cache: RowCache,
}

impl Deref for Db {
    type Target = Connection;

    fn deref(&self) -> &Connection {
        &self.conn
    }
}

impl Db {
    pub(super) fn new(conn: Connection) -> Db {
        Db { conn, cache: RowCache::default() }
    }

    pub(super) fn connection_mut(&mut self) -> &mut Connection {
        &mut self.conn
    }

    /// Drops every cached row: after a rollback, an entry read inside it may not exist.
    pub(super) fn forget_all(&self) {
        self.cache.forget_all();
    }

    /// The connection as the SQL row layer uses it.
    pub(super) fn sql(&self) -> SqliteConn<'_> {
        SqliteConn::new(&self.conn, &self.cache)
    }
}
