//! The endgame tables each run pins (`run_tablebases`): set and file checksum, written when the
//! run is created and never changed.

use super::db::Db;
use proto::domain::{RunId, TablePin};

use super::Ctx;
use crate::error::Result;
use crate::storage::codec::{bits, from_bits, key};

pub(super) fn insert(c: &mut Db<'_, '_>, run: RunId, pins: &[TablePin]) -> Result<()> {
    for pin in pins {
        c.execute(
            "INSERT INTO run_tablebases (run_id, set_name, checksum) VALUES ($1, $2, $3)",
            &[&key(run), &pin.set, &bits(pin.checksum)],
        )
        .ctx("pinning a run's tables")?;
    }
    Ok(())
}

/// The run's pins in set order, byte by byte as SQLite orders them (none for a run without
/// tables).
pub(super) fn of_run(c: &mut Db<'_, '_>, run: RunId) -> Result<Vec<TablePin>> {
    c.query(
        r#"SELECT set_name, checksum FROM run_tablebases WHERE run_id = $1 ORDER BY set_name COLLATE "C""#,
        &[&key(run)],
    )
    .and_then(|rows| {
        rows.iter().map(|r| Ok(TablePin { set: r.try_get(0)?, checksum: from_bits(r.try_get(1)?) })).collect()
    })
    .ctx("reading a run's tables")
}
