//! Offline maintenance of a database file: giving the pages that deletions freed back to the
//! file system.
//!
//! SQLite reuses freed pages for new rows, so a file whose rows are deleted stops growing, but it
//! only shrinks when rebuilt (`VACUUM`). The coordinator's files use no auto-vacuum (a
//! database's auto-vacuum mode is fixed when its first table is created, and switching an
//! existing file costs the same rebuild), so `PRAGMA incremental_vacuum` frees nothing there.

use std::path::Path;
use std::time::Duration;

use rusqlite::{Connection, ErrorCode, OpenFlags};

use crate::error::{Error, Result};

/// Rebuilds the database file at `path` without its free pages (SQLite's `VACUUM`) and empties
/// its WAL, so that the file is as small as its rows. The rebuild holds the write lock for as
/// long as it takes (seconds for a few hundred MB), so it runs only on a file no other process
/// holds open: its connection takes the file in exclusive locking mode without waiting, and any
/// other connection (every coordinator keeps one open while it runs, even idle) makes that
/// fail at once with [`Error::DatabaseInUse`], before anything is rewritten.
pub fn vacuum(path: &Path) -> Result<()> {
    let shown = path.display().to_string();
    let in_use = |e: rusqlite::Error, step: &str| match e.sqlite_error_code() {
        Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked) => {
            Error::DatabaseInUse { path: shown.clone(), operation: "VACUUM" }
        }
        _ => Error::storage(format!("{step} {shown}"), e),
    };
    let conn = Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX)
        .map_err(|e| in_use(e, "opening"))?;
    conn.busy_timeout(Duration::ZERO).map_err(|e| in_use(e, "configuring"))?;
    conn.pragma_update_and_check(None, "locking_mode", "EXCLUSIVE", |r| r.get::<_, String>(0))
        .map_err(|e| in_use(e, "locking"))?;
    // The exclusive lock is taken here and kept until the connection closes: no coordinator
    // can start on the file while it is rebuilt.
    conn.execute_batch("BEGIN EXCLUSIVE; COMMIT;").map_err(|e| in_use(e, "locking"))?;
    conn.execute_batch("VACUUM").map_err(|e| in_use(e, "vacuuming"))?;
    conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(())).map_err(|e| in_use(e, "checkpointing"))?;
    Ok(())
}

/// The bytes a database file takes on disk: the file and its WAL.
pub fn file_bytes(path: &Path) -> Result<u64> {
    let size = |p: &Path| match std::fs::metadata(p) {
        Ok(m) => Ok(m.len()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(0),
        Err(e) => Err(Error::storage(format!("reading the size of {}", p.display()), e)),
    };
    let mut wal = path.as_os_str().to_owned();
    wal.push("-wal");
    Ok(size(path)? + size(Path::new(&wal))?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::SqliteStorage;

    #[test]
    fn vacuum_refuses_a_file_another_connection_holds_and_shrinks_one_it_holds_alone() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("farm.db");
        let storage = SqliteStorage::open(&path).expect("open");
        let err = vacuum(&path).expect_err("the storage holds the file");
        assert!(matches!(&err, Error::DatabaseInUse { .. }), "{err}");
        drop(storage);

        let conn = Connection::open(&path).expect("open");
        conn.execute_batch("CREATE TABLE filler (b BLOB); INSERT INTO filler VALUES (zeroblob(4000000));")
            .expect("fill");
        conn.execute_batch("DELETE FROM filler;").expect("empty");
        drop(conn);
        let before = file_bytes(&path).expect("size");
        vacuum(&path).expect("alone");
        let after = file_bytes(&path).expect("size");
        assert!(after + 3_000_000 < before, "{before} -> {after}");
        SqliteStorage::open(&path).expect("still a coordinator's database");
    }
}
