//! The endgame tables each run pins (`run_tablebases`): set and file checksum, written when the
//! run is created and never changed.

use proto::domain::{RunId, TablePin};

use super::{Conn, Ctx, params};
use crate::error::Result;
use crate::storage::codec::{bits, from_bits, key};

pub(super) fn insert(c: &mut dyn Conn, run: RunId, pins: &[TablePin]) -> Result<()> {
    for pin in pins {
        c.execute(
            "INSERT INTO run_tablebases (run_id, set_name, checksum) VALUES (?1, ?2, ?3)",
            params![key(run), &pin.set, bits(pin.checksum)],
        )
        .ctx("pinning a run's tables")?;
    }
    Ok(())
}

/// The run's pins in set order, byte by byte (none for a run without tables). Cached once the
/// run's spec is (so the run exists, and its pins were written with it).
pub(super) fn of_run(c: &mut dyn Conn, run: RunId) -> Result<Vec<TablePin>> {
    let known_run = c.cache().run_spec(run).is_some();
    if known_run && let Some(pins) = c.cache().run_tablebases(run) {
        return Ok(pins);
    }
    let sql = format!(
        "SELECT set_name, checksum FROM run_tablebases WHERE run_id = ?1 ORDER BY set_name{}",
        c.dialect().byte_order()
    );
    let rows: Vec<(String, i64)> = c.query(&sql, params![key(run)]).ctx("reading a run's tables")?;
    let pins: Vec<TablePin> =
        rows.into_iter().map(|(set, checksum)| TablePin { set, checksum: from_bits(checksum) }).collect();
    if known_run {
        c.cache().remember_run_tablebases(run, &pins);
    }
    Ok(pins)
}
