//! Results not yet acknowledged by the coordinator, kept on disk so that a worker restart
//! resends them: one file per (lease, sequence number) holding the encoded `SubmitRequest`,
//! written to a temp file and renamed, deleted once acknowledged. Resending is safe: the
//! coordinator acknowledges a known (lease, seq) without counting it again.

use std::path::{Path, PathBuf};

use prost::Message;
use proto::pb;

use crate::error::{Error, Result};

#[derive(Clone, Debug)]
pub struct Spool {
    dir: PathBuf,
}

impl Spool {
    pub fn open(dir: &Path) -> Result<Spool> {
        std::fs::create_dir_all(dir).map_err(|e| err(dir, e))?;
        Ok(Spool { dir: dir.to_owned() })
    }

    fn path(&self, lease: u64, seq: u32) -> PathBuf {
        self.dir.join(format!("submit-{lease:016}-{seq:08}.pb"))
    }

    /// Stores a submission durably before it is sent.
    pub fn put(&self, req: &pb::SubmitRequest) -> Result<()> {
        let (lease, seq) = req.batch.as_ref().map_or((0, 0), |b| (b.lease_id, b.seq));
        let path = self.path(lease, seq);
        let tmp = path.with_extension("tmp");
        std::fs::write(&tmp, req.encode_to_vec()).map_err(|e| err(&tmp, e))?;
        if let Ok(f) = std::fs::File::open(&tmp) {
            let _ = f.sync_all();
        }
        std::fs::rename(&tmp, &path).map_err(|e| err(&path, e))
    }

    /// Forgets an acknowledged submission.
    pub fn remove(&self, lease: u64, seq: u32) -> Result<()> {
        let path = self.path(lease, seq);
        match std::fs::remove_file(&path) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
            Err(e) => Err(err(&path, e)),
        }
    }

    /// Every stored submission, oldest lease and sequence first. Unreadable files are
    /// reported and left in place for a human.
    pub fn pending(&self) -> Result<Vec<pb::SubmitRequest>> {
        let mut files: Vec<PathBuf> = std::fs::read_dir(&self.dir)
            .map_err(|e| err(&self.dir, e))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "pb"))
            .collect();
        files.sort();
        let mut out = Vec::new();
        for f in files {
            let bytes = std::fs::read(&f).map_err(|e| err(&f, e))?;
            match pb::SubmitRequest::decode(bytes.as_slice()) {
                Ok(req) => out.push(req),
                Err(e) => {
                    tracing::error!(file = %f.display(), error = %e, "unreadable spooled submission left in place")
                }
            }
        }
        Ok(out)
    }
}

fn err(path: &Path, e: impl std::fmt::Display) -> Error {
    Error::Spool { path: path.display().to_string(), reason: e.to_string() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn put_pending_remove() {
        let dir = tempfile::tempdir().expect("temp dir");
        let spool = Spool::open(dir.path()).expect("spool");
        let req = |lease, seq| pb::SubmitRequest {
            protocol_version: proto::PROTOCOL_VERSION,
            worker_id: 7,
            batch: Some(pb::BatchResult { lease_id: lease, seq, pairs: Vec::new(), is_final: true }),
        };
        spool.put(&req(3, 2)).expect("put");
        spool.put(&req(3, 1)).expect("put");
        spool.put(&req(1, 9)).expect("put");
        let pending = spool.pending().expect("pending");
        let keys: Vec<(u64, u32)> =
            pending.iter().filter_map(|r| r.batch.as_ref().map(|b| (b.lease_id, b.seq))).collect();
        assert_eq!(keys, [(1, 9), (3, 1), (3, 2)]);
        spool.remove(3, 1).expect("remove");
        spool.remove(3, 1).expect("removing twice is fine");
        assert_eq!(Spool::open(dir.path()).expect("reopen").pending().expect("pending").len(), 2);
    }
}
