//! Rows of `networks`: network files by the SHA-256 of their bytes, what variants name
//! (`eval = "nnue:<sha256>"`) and workers fetch. The service checks the bytes (hash and the
//! engine's reader) before they get here.

use engine::nnue::NetworkId;

use super::{Conn, Ctx, params};
use crate::error::Result;

pub(super) fn insert_network(c: &mut dyn Conn, id: NetworkId, bytes: &[u8], now_ms: u64) -> Result<()> {
    let id = id.to_string();
    c.execute(
        "INSERT INTO networks (sha256, bytes, added_unix_ms) VALUES (?1, ?2, ?3) ON CONFLICT DO NOTHING",
        params![id.as_str(), bytes, now_ms as i64],
    )
    .ctx("adding a network")?;
    Ok(())
}

pub(super) fn network(c: &mut dyn Conn, id: NetworkId) -> Result<Option<Vec<u8>>> {
    let id = id.to_string();
    c.query_opt("SELECT bytes FROM networks WHERE sha256 = ?1", params![id.as_str()]).ctx("reading a network")
}

pub(super) fn network_exists(c: &mut dyn Conn, id: NetworkId) -> Result<bool> {
    let id = id.to_string();
    c.exists("SELECT 1 FROM networks WHERE sha256 = ?1", params![id.as_str()]).ctx("looking up a network")
}
