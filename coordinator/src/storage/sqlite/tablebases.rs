//! The endgame tables each run pins (`run_tablebases`, schema version 7): set and file
//! checksum, written when the run is created and never changed.

use proto::domain::{RunId, TablePin};
use rusqlite::{Connection, params};

use super::Ctx;
use crate::error::Result;
use crate::storage::codec::{bits, from_bits, key};

pub(super) fn insert(conn: &Connection, run: RunId, pins: &[TablePin]) -> Result<()> {
    let mut insert = conn
        .prepare_cached("INSERT INTO run_tablebases (run_id, set_name, checksum) VALUES (?1, ?2, ?3)")
        .ctx("pinning a run's tables")?;
    for pin in pins {
        insert.execute(params![key(run), pin.set, bits(pin.checksum)]).ctx("pinning a run's tables")?;
    }
    Ok(())
}

/// The run's pins in set order (none for a run created before version 7 or without tables).
pub(super) fn of_run(conn: &Connection, run: RunId) -> Result<Vec<TablePin>> {
    conn.prepare_cached("SELECT set_name, checksum FROM run_tablebases WHERE run_id = ?1 ORDER BY set_name")
        .and_then(|mut s| {
            s.query_map([key(run)], |r| Ok(TablePin { set: r.get(0)?, checksum: from_bits(r.get(1)?) }))?.collect()
        })
        .ctx("reading a run's tables")
}
