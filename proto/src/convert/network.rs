//! Network files on the wire: cut into [`pb::NetworkChunk`]s of at most
//! [`NETWORK_CHUNK_BYTES`], and put together again with every chunk checked (the version, the
//! same total size, no more bytes than it, at most [`MAX_NETWORK_BYTES`]), by the coordinator
//! receiving `AddNetwork` and the worker receiving `FetchNetwork`.

use super::same_version;
use crate::domain::{MAX_NETWORK_BYTES, NETWORK_CHUNK_BYTES};
use crate::error::{Error, Result};
use crate::{PROTOCOL_VERSION, pb};

/// The chunks of a file, in order (one empty chunk for an empty file, so the receiver learns
/// its size).
pub fn network_chunks(bytes: &[u8]) -> Vec<pb::NetworkChunk> {
    let chunk = |data: &[u8]| pb::NetworkChunk {
        protocol_version: PROTOCOL_VERSION,
        total_bytes: bytes.len() as u64,
        data: data.to_vec(),
    };
    if bytes.is_empty() {
        return vec![chunk(&[])];
    }
    bytes.chunks(NETWORK_CHUNK_BYTES).map(chunk).collect()
}

/// A file being received chunk by chunk.
#[derive(Debug, Default)]
pub struct NetworkAssembly {
    total: Option<u64>,
    bytes: Vec<u8>,
}

impl NetworkAssembly {
    /// Takes the next chunk; an error names what is wrong with it, and the file is lost.
    pub fn push(&mut self, chunk: pb::NetworkChunk) -> Result<()> {
        same_version(chunk.protocol_version)?;
        let total = *self.total.get_or_insert(chunk.total_bytes);
        if chunk.total_bytes != total {
            return Err(Error::invalid(
                "total_bytes",
                format!("{} after {total} in an earlier chunk", chunk.total_bytes),
            ));
        }
        if total > MAX_NETWORK_BYTES as u64 {
            return Err(Error::invalid("total_bytes", format!("{total}; at most {MAX_NETWORK_BYTES} are accepted")));
        }
        if chunk.data.len() > NETWORK_CHUNK_BYTES {
            return Err(Error::invalid(
                "data",
                format!("{} bytes in one chunk; at most {NETWORK_CHUNK_BYTES}", chunk.data.len()),
            ));
        }
        if self.bytes.len() as u64 + chunk.data.len() as u64 > total {
            return Err(Error::invalid("data", format!("more than the {total} bytes announced")));
        }
        if self.bytes.is_empty() {
            self.bytes.reserve_exact(total as usize);
        }
        self.bytes.extend_from_slice(&chunk.data);
        Ok(())
    }

    /// The whole file, once every announced byte arrived.
    pub fn finish(self) -> Result<Vec<u8>> {
        let Some(total) = self.total else {
            return Err(Error::missing("chunks"));
        };
        if self.bytes.len() as u64 != total {
            return Err(Error::invalid("data", format!("{} of the {total} bytes announced arrived", self.bytes.len())));
        }
        Ok(self.bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn assemble(chunks: Vec<pb::NetworkChunk>) -> Result<Vec<u8>> {
        let mut assembly = NetworkAssembly::default();
        for chunk in chunks {
            assembly.push(chunk)?;
        }
        assembly.finish()
    }

    #[test]
    fn files_cross_in_chunks_of_at_most_one_mebibyte() {
        let bytes: Vec<u8> = (0..(2 * NETWORK_CHUNK_BYTES + 5)).map(|i| (i * 7 % 251) as u8).collect();
        let chunks = network_chunks(&bytes);
        assert_eq!(
            chunks.iter().map(|c| c.data.len()).collect::<Vec<_>>(),
            [NETWORK_CHUNK_BYTES, NETWORK_CHUNK_BYTES, 5]
        );
        assert_eq!(assemble(chunks).expect("assembles"), bytes);
        assert_eq!(assemble(network_chunks(&[])).expect("an empty file"), Vec::<u8>::new());
    }

    #[test]
    fn bad_chunks_are_named() {
        let bytes = vec![1u8; 10];
        let err = |chunks: Vec<pb::NetworkChunk>| assemble(chunks).expect_err("refused").to_string();
        let mut short = network_chunks(&bytes);
        short[0].data.truncate(4);
        assert!(err(short).contains("4 of the 10 bytes announced arrived"));
        let mut long = network_chunks(&bytes);
        long[0].data.push(0);
        assert!(err(long).contains("more than the 10 bytes announced"));
        let mut changed = network_chunks(&bytes);
        changed.push(pb::NetworkChunk { total_bytes: 11, ..changed[0].clone() });
        assert!(err(changed).contains("11 after 10"));
        let huge = vec![pb::NetworkChunk { protocol_version: PROTOCOL_VERSION, total_bytes: 1 << 40, data: vec![] }];
        assert!(err(huge).contains("at most"));
        let mut old = network_chunks(&bytes);
        old[0].protocol_version = 1;
        assert!(err(old).contains("version"));
        assert!(err(Vec::new()).contains("chunks"));
    }
}
