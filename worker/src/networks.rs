//! The worker's networks: the files variants name by SHA-256 (`eval = "nnue:<sha256>"`),
//! fetched once from the coordinator and kept by hash in a cache directory, so a restarted
//! worker does not fetch them again.
//!
//! A network is only ever used after its bytes' SHA-256 matched the name it was asked for and
//! the engine's reader accepted it; a cached file that no longer matches (a torn write, a disk
//! error, someone's edit) is deleted and fetched again. So every worker of a run plays the same
//! bytes.
//!
//! ```
//! use std::sync::Arc;
//! use engine::nnue::Network;
//! use engine::nnue::NetworkId;
//! use worker::networks::NetworkCache;
//!
//! let dir = tempfile::tempdir()?;
//! let bytes = Network::random(1, 32).to_bytes();
//! let id = NetworkId::of_file(&bytes);
//! let cache = NetworkCache::open(dir.path())?;
//! assert!(cache.get(id)?.is_none());
//! cache.insert(id, &bytes)?;
//! assert_eq!(cache.get(id)?.expect("cached").to_bytes(), bytes);
//! # Ok::<(), worker::Error>(())
//! ```

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use engine::nnue::{Network, NetworkId};
use proto::domain::{Variant, VariantKind};

use crate::error::{Error, Result};

/// The networks in-process variants name (`eval = "nnue:<sha256>"`), each once, in order.
/// Parameters that do not read name none here; playing them reports the error.
pub fn named_by(variants: &[Variant]) -> Vec<NetworkId> {
    let mut ids = Vec::new();
    for variant in variants {
        if let VariantKind::Params { toml } = &variant.spec.kind
            && let Ok(set) = engine::ParamSet::from_toml_str(toml)
            && let Some(id) = set.eval_spec.network()
            && !ids.contains(&id)
        {
            ids.push(id);
        }
    }
    ids
}

/// Networks by id: in memory once loaded, on disk as `<dir>/<sha256>.xqnn`.
#[derive(Debug)]
pub struct NetworkCache {
    dir: PathBuf,
    loaded: Mutex<HashMap<NetworkId, Arc<Network>>>,
}

impl NetworkCache {
    /// The cache in `dir` (created if missing).
    pub fn open(dir: &Path) -> Result<NetworkCache> {
        std::fs::create_dir_all(dir).map_err(|e| cache_error(dir, format!("cannot create it: {e}")))?;
        Ok(NetworkCache { dir: dir.to_path_buf(), loaded: Mutex::new(HashMap::new()) })
    }

    /// Where the files are.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn path(&self, id: NetworkId) -> PathBuf {
        self.dir.join(format!("{id}.xqnn"))
    }

    fn remember(&self, id: NetworkId, net: Arc<Network>) -> Arc<Network> {
        let mut loaded = self.loaded.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        Arc::clone(loaded.entry(id).or_insert(net))
    }

    /// The network, from memory or the directory; `None` when it must be fetched (never
    /// cached, or its cached file was corrupt and has been deleted).
    pub fn get(&self, id: NetworkId) -> Result<Option<Arc<Network>>> {
        if let Some(net) = self.loaded.lock().unwrap_or_else(std::sync::PoisonError::into_inner).get(&id) {
            return Ok(Some(Arc::clone(net)));
        }
        let path = self.path(id);
        let bytes = match std::fs::read(&path) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(cache_error(&path, format!("cannot read it: {e}"))),
        };
        match checked(id, &bytes) {
            Ok(net) => Ok(Some(self.remember(id, Arc::new(net)))),
            Err(reason) => {
                tracing::warn!(path = %path.display(), %reason, "cached network is corrupt; deleting it to fetch it again");
                std::fs::remove_file(&path).map_err(|e| cache_error(&path, format!("cannot delete it: {e}")))?;
                Ok(None)
            }
        }
    }

    /// Checks fetched bytes against `id` and the engine's reader, writes them to the directory
    /// (a temporary file renamed into place, so a crash leaves no torn file under the name) and
    /// returns the network. Bytes that do not match are refused and nothing is written.
    pub fn insert(&self, id: NetworkId, bytes: &[u8]) -> Result<Arc<Network>> {
        let net = checked(id, bytes).map_err(|reason| Error::Network { id: id.to_string(), reason })?;
        let path = self.path(id);
        let tmp = self.dir.join(format!(".{id}.{}.tmp", std::process::id()));
        std::fs::write(&tmp, bytes).map_err(|e| cache_error(&tmp, format!("cannot write it: {e}")))?;
        std::fs::rename(&tmp, &path).map_err(|e| cache_error(&path, format!("cannot rename into it: {e}")))?;
        Ok(self.remember(id, Arc::new(net)))
    }
}

/// The network in `bytes` if they are `id`'s and the engine reads them; otherwise why not.
fn checked(id: NetworkId, bytes: &[u8]) -> std::result::Result<Network, String> {
    let found = NetworkId::of_file(bytes);
    if found != id {
        return Err(format!("the bytes' SHA-256 is {found}"));
    }
    Network::from_bytes(bytes).map_err(|e| e.to_string())
}

fn cache_error(path: &Path, reason: String) -> Error {
    Error::NetworkCache { path: path.display().to_string(), reason }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> (NetworkId, Vec<u8>) {
        let bytes = Network::random(7, 16).to_bytes();
        (NetworkId::of_file(&bytes), bytes)
    }

    #[test]
    fn a_network_is_kept_by_its_hash_across_caches() {
        let dir = tempfile::tempdir().expect("tempdir");
        let (id, bytes) = sample();
        NetworkCache::open(dir.path()).expect("cache").insert(id, &bytes).expect("inserted");
        assert!(dir.path().join(format!("{id}.xqnn")).is_file());
        // A restarted worker finds it on disk.
        let again = NetworkCache::open(dir.path()).expect("cache");
        assert_eq!(again.get(id).expect("read").expect("cached").to_bytes(), bytes);
    }

    #[test]
    fn bytes_of_another_network_or_no_network_are_refused() {
        let dir = tempfile::tempdir().expect("tempdir");
        let cache = NetworkCache::open(dir.path()).expect("cache");
        let (id, _) = sample();
        let other = Network::random(8, 16).to_bytes();
        let err = cache.insert(id, &other).expect_err("another network's bytes").to_string();
        assert!(err.contains(&id.to_string()) && err.contains("SHA-256 is"), "{err}");
        let junk = b"not a network".to_vec();
        let err = cache.insert(NetworkId::of_file(&junk), &junk).expect_err("not a network").to_string();
        assert!(err.contains("header"), "{err}");
        assert_eq!(std::fs::read_dir(dir.path()).expect("dir").count(), 0, "nothing written");
    }

    #[test]
    fn a_variant_naming_a_network_plays_it_only_once_fetched() {
        use proto::domain::{VariantId, VariantSpec};

        let dir = tempfile::tempdir().expect("tempdir");
        let cache = NetworkCache::open(dir.path()).expect("cache");
        let (id, bytes) = sample();
        let set = engine::ParamSet { eval_spec: engine::EvalSpec::Nnue(id), ..engine::ParamSet::default() };
        let variant = Variant {
            id: VariantId::new("0".repeat(64)),
            spec: VariantSpec { name: "net".into(), kind: VariantKind::Params { toml: set.to_toml() } },
        };
        for networks in [None, Some(&cache)] {
            let err = crate::runner::params_player(&variant, networks).err().expect("not fetched").to_string();
            assert!(err.contains(&format!("plays network {id}, which this worker has not fetched")), "{err}");
        }
        assert_eq!(named_by(&[variant.clone(), variant.clone()]), [id], "each network once");
        cache.insert(id, &bytes).expect("fetched");
        let mut player = crate::runner::params_player(&variant, Some(&cache)).expect("plays");
        let limits = engine::Limits { depth: Some(2), ..engine::Limits::default() };
        let reply = player.play(&engine::Position::startpos(), &limits).expect("a move");
        assert!(reply.score.is_some());
    }

    #[test]
    fn a_corrupt_cached_file_is_deleted_to_be_fetched_again() {
        let dir = tempfile::tempdir().expect("tempdir");
        let (id, mut bytes) = sample();
        NetworkCache::open(dir.path()).expect("cache").insert(id, &bytes).expect("inserted");
        let path = dir.path().join(format!("{id}.xqnn"));
        bytes[100] ^= 1;
        std::fs::write(&path, &bytes).expect("corrupt it");
        let fresh = NetworkCache::open(dir.path()).expect("cache");
        assert!(fresh.get(id).expect("no error").is_none(), "refetch");
        assert!(!path.exists(), "the corrupt file is gone");
    }
}
