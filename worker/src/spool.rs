//! What the worker must not lose, on disk: every finished pair until the coordinator has
//! acknowledged it, the leases being played, the worker's identity. One directory per worker:
//!
//! - `LOCK`: held (`flock`) by the worker using the spool, and holding its pid; a second worker
//!   on the same spool is refused at start.
//! - `worker.key`: a random key made on first start; the coordinator gives the same worker id
//!   back for it, so results spooled before a `kill -9` still belong to their leases.
//! - `submit-LEASE-SEQ.pb`: one encoded `SubmitRequest` each (a finished pair, or a lease's
//!   final batch), written to a temp file, synced and renamed into place, deleted once
//!   acknowledged. Resending is safe: the coordinator acknowledges a known (lease, seq)
//!   without counting it again.
//! - `lease-LEASE.open`: a lease being played. One left behind by a killed worker is closed by
//!   the next start (a final batch), so its unfinished pairs go back to the pool at once.
//! - `refused/`: submissions the coordinator refused for good, with the reason, for a human.
//!   They are never deleted by the worker.

use std::fs::{File, OpenOptions, TryLockError};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use prost::Message;
use proto::pb;

use crate::error::{Error, Result};

const LOCK_FILE: &str = "LOCK";
const KEY_FILE: &str = "worker.key";
const REFUSED_DIR: &str = "refused";
/// Random bytes in a worker key (hex encoded: twice as many characters).
const KEY_BYTES: usize = 32;

/// A worker's spool directory, locked for as long as this value lives.
#[derive(Debug)]
pub struct Spool {
    dir: PathBuf,
    /// Holds the `flock` on `LOCK`; the lock goes with the file (and with the process).
    _lock: File,
}

impl Spool {
    /// Opens (creating it if needed) and locks the spool. Another live worker on the same
    /// directory is [`Error::SpoolLocked`], naming its pid.
    pub fn open(dir: &Path) -> Result<Spool> {
        std::fs::create_dir_all(dir).map_err(|e| err(dir, e))?;
        let lock_path = dir.join(LOCK_FILE);
        // Not truncated before the lock is ours: the file holds the holder's pid.
        let mut lock = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&lock_path)
            .map_err(|e| err(&lock_path, e))?;
        match lock.try_lock() {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) => {
                let mut holder = String::new();
                let _ = lock.read_to_string(&mut holder);
                let holder = holder.trim();
                return Err(Error::SpoolLocked {
                    path: dir.display().to_string(),
                    holder: if holder.is_empty() { "unknown".to_owned() } else { holder.to_owned() },
                });
            }
            Err(TryLockError::Error(e)) => return Err(err(&lock_path, e)),
        }
        lock.set_len(0)
            .and_then(|()| lock.write_all(format!("{}\n", std::process::id()).as_bytes()))
            .map_err(|e| err(&lock_path, e))?;
        let spool = Spool { dir: dir.to_owned(), _lock: lock };
        // Temp files of a write cut short by a crash; their rename never happened.
        for path in spool.files(|name| name.ends_with(".tmp"))? {
            let _ = std::fs::remove_file(&path);
        }
        Ok(spool)
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The worker's key, made on the first start and kept in `worker.key`.
    pub fn worker_key(&self) -> Result<String> {
        let path = self.dir.join(KEY_FILE);
        match std::fs::read_to_string(&path) {
            Ok(text) => {
                let key = text.trim();
                if key.is_empty() || key.len() > 128 || !key.bytes().all(|b| b.is_ascii_graphic()) {
                    return Err(err(
                        &path,
                        "not a worker key (1 to 128 printable ASCII characters); delete it to get a new identity",
                    ));
                }
                return Ok(key.to_owned());
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(err(&path, e)),
        }
        let key = random_key()?;
        self.write_atomically(&path, format!("{key}\n").as_bytes())?;
        tracing::info!(file = %path.display(), "new worker key");
        Ok(key)
    }

    fn path(&self, lease: u64, seq: u32) -> PathBuf {
        self.dir.join(format!("submit-{lease:016}-{seq:08}.pb"))
    }

    fn lease_path(&self, lease: u64) -> PathBuf {
        self.dir.join(format!("lease-{lease:016}.open"))
    }

    /// Writes `bytes` to `path` so that a crash leaves either the old file or the new one:
    /// temp file, fsync, rename, fsync of the directory.
    fn write_atomically(&self, path: &Path, bytes: &[u8]) -> Result<()> {
        let mut name = path.file_name().map(|n| n.to_os_string()).unwrap_or_default();
        name.push(".tmp");
        let tmp = path.with_file_name(name);
        let mut file = File::create(&tmp).map_err(|e| err(&tmp, e))?;
        file.write_all(bytes).and_then(|()| file.sync_all()).map_err(|e| err(&tmp, e))?;
        drop(file);
        std::fs::rename(&tmp, path).map_err(|e| err(path, e))?;
        self.sync_dir()
    }

    fn sync_dir(&self) -> Result<()> {
        // A directory opens read-only for fsync on Unix; elsewhere this may fail, and the
        // rename is then as durable as the platform makes it.
        if let Ok(dir) = File::open(&self.dir) {
            let _ = dir.sync_all();
        }
        Ok(())
    }

    /// Stores a submission durably; it is on disk when this returns.
    pub fn put(&self, req: &pb::SubmitRequest) -> Result<()> {
        let (lease, seq) = key_of(req);
        self.write_atomically(&self.path(lease, seq), &req.encode_to_vec())
    }

    /// Forgets an acknowledged submission.
    pub fn remove(&self, lease: u64, seq: u32) -> Result<()> {
        remove_if_present(&self.path(lease, seq))
    }

    /// Moves a submission the coordinator refused for good to `refused/`, with the reason
    /// beside it, out of the way of delivery.
    pub fn set_aside(&self, lease: u64, seq: u32, reason: &str) -> Result<()> {
        let from = self.path(lease, seq);
        self.set_aside_file(&from, reason)
    }

    fn set_aside_file(&self, from: &Path, reason: &str) -> Result<()> {
        let refused = self.dir.join(REFUSED_DIR);
        std::fs::create_dir_all(&refused).map_err(|e| err(&refused, e))?;
        let name = from.file_name().map(|n| n.to_os_string()).unwrap_or_default();
        let to = refused.join(&name);
        let mut why = name;
        why.push(".reason.txt");
        std::fs::write(refused.join(why), format!("{reason}\n")).map_err(|e| err(&refused, e))?;
        std::fs::rename(from, &to).map_err(|e| err(&to, e))?;
        self.sync_dir()
    }

    /// Files of the spool directory whose names pass `keep`, sorted by name.
    fn files(&self, keep: impl Fn(&str) -> bool) -> Result<Vec<PathBuf>> {
        let mut files: Vec<PathBuf> = std::fs::read_dir(&self.dir)
            .map_err(|e| err(&self.dir, e))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.is_file() && p.file_name().and_then(|n| n.to_str()).is_some_and(&keep))
            .collect();
        files.sort();
        Ok(files)
    }

    fn submission_files(&self) -> Result<Vec<PathBuf>> {
        self.files(|name| name.starts_with("submit-") && name.ends_with(".pb"))
    }

    /// Every stored submission, by lease and then sequence number (a lease's final batch,
    /// numbered last, after its pairs). A file that does not decode is set aside.
    pub fn pending(&self) -> Result<Vec<pb::SubmitRequest>> {
        let mut out = Vec::new();
        for f in self.submission_files()? {
            let bytes = match std::fs::read(&f) {
                Ok(bytes) => bytes,
                // Delivered and removed by another task meanwhile.
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
                Err(e) => return Err(err(&f, e)),
            };
            match pb::SubmitRequest::decode(bytes.as_slice()) {
                Ok(req) => out.push(req),
                Err(e) => {
                    tracing::error!(file = %f.display(), error = %e, "unreadable spooled submission set aside");
                    self.set_aside_file(&f, &format!("does not decode: {e}"))?;
                }
            }
        }
        out.sort_by_key(key_of);
        Ok(out)
    }

    /// Whether no submission waits for delivery (set-aside ones do not count).
    pub fn is_empty(&self) -> Result<bool> {
        Ok(self.submission_files()?.is_empty())
    }

    /// Notes that a lease is being played.
    pub fn open_lease(&self, lease: u64) -> Result<()> {
        self.write_atomically(&self.lease_path(lease), b"")
    }

    /// The lease's final batch is spooled: it needs no closing by the next start.
    pub fn close_lease(&self, lease: u64) -> Result<()> {
        remove_if_present(&self.lease_path(lease))
    }

    /// Leases noted as being played: after a crash, those the dead worker was playing.
    pub fn open_leases(&self) -> Result<Vec<u64>> {
        let files = self.files(|name| name.starts_with("lease-") && name.ends_with(".open"))?;
        Ok(files.iter().filter_map(|p| p.file_stem()?.to_str()?.strip_prefix("lease-")?.parse().ok()).collect())
    }
}

fn key_of(req: &pb::SubmitRequest) -> (u64, u32) {
    req.batch.as_ref().map_or((0, 0), |b| (b.lease_id, b.seq))
}

fn remove_if_present(path: &Path) -> Result<()> {
    match std::fs::remove_file(path) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(err(path, e)),
    }
}

/// A new worker key: random bytes from the operating system, hex encoded.
fn random_key() -> Result<String> {
    let source = Path::new("/dev/urandom");
    let mut bytes = [0u8; KEY_BYTES];
    File::open(source).and_then(|mut f| f.read_exact(&mut bytes)).map_err(|e| err(source, e))?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

fn err(path: &Path, e: impl std::fmt::Display) -> Error {
    Error::Spool { path: path.display().to_string(), reason: e.to_string() }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(lease: u64, seq: u32) -> pb::SubmitRequest {
        pb::SubmitRequest {
            protocol_version: proto::PROTOCOL_VERSION,
            worker_id: 7,
            batch: Some(pb::BatchResult { lease_id: lease, seq, pairs: Vec::new(), is_final: true }),
        }
    }

    fn keys(spool: &Spool) -> Vec<(u64, u32)> {
        spool.pending().expect("pending").iter().map(key_of).collect()
    }

    #[test]
    fn put_pending_remove() {
        let dir = tempfile::tempdir().expect("temp dir");
        let spool = Spool::open(dir.path()).expect("spool");
        assert!(spool.is_empty().expect("empty"));
        spool.put(&req(3, 2)).expect("put");
        spool.put(&req(3, 1)).expect("put");
        spool.put(&req(1, u32::MAX)).expect("put");
        spool.put(&req(1, 9)).expect("put");
        assert_eq!(keys(&spool), [(1, 9), (1, u32::MAX), (3, 1), (3, 2)], "by lease, then sequence number");
        spool.remove(3, 1).expect("remove");
        spool.remove(3, 1).expect("removing twice is fine");
        drop(spool);
        let spool = Spool::open(dir.path()).expect("reopen");
        assert_eq!(spool.pending().expect("pending").len(), 3);
        assert!(!spool.is_empty().expect("not empty"));
    }

    #[test]
    fn a_second_worker_on_the_spool_is_refused_with_the_holders_pid() {
        let dir = tempfile::tempdir().expect("temp dir");
        let first = Spool::open(dir.path()).expect("first");
        let second = Spool::open(dir.path()).expect_err("locked");
        let text = second.to_string();
        assert!(matches!(&second, Error::SpoolLocked { holder, .. } if *holder == std::process::id().to_string()));
        assert!(text.contains(&dir.path().display().to_string()), "{text}");
        drop(first);
        Spool::open(dir.path()).expect("free again once the holder is gone");
    }

    #[test]
    fn the_worker_key_is_made_once_and_kept() {
        let dir = tempfile::tempdir().expect("temp dir");
        let key = Spool::open(dir.path()).expect("spool").worker_key().expect("key");
        assert_eq!(key.len(), 2 * KEY_BYTES);
        assert!(key.bytes().all(|b| b.is_ascii_hexdigit()));
        assert_eq!(Spool::open(dir.path()).expect("spool").worker_key().expect("key"), key);
        let other = tempfile::tempdir().expect("temp dir");
        assert_ne!(Spool::open(other.path()).expect("spool").worker_key().expect("key"), key);
        std::fs::write(dir.path().join(KEY_FILE), "not a key\n").expect("damage");
        let error = Spool::open(dir.path()).expect("spool").worker_key().expect_err("damaged key");
        assert!(error.to_string().contains(KEY_FILE), "{error}");
    }

    #[test]
    fn open_leases_and_refusals() {
        let dir = tempfile::tempdir().expect("temp dir");
        let spool = Spool::open(dir.path()).expect("spool");
        spool.open_lease(12).expect("open");
        spool.open_lease(4).expect("open");
        spool.close_lease(12).expect("close");
        assert_eq!(spool.open_leases().expect("leases"), [4]);

        spool.put(&req(4, 0)).expect("put");
        spool.set_aside(4, 0, "PermissionDenied: not yours").expect("set aside");
        assert!(spool.is_empty().expect("empty"), "a refused submission waits for no delivery");
        let kept = dir.path().join(REFUSED_DIR);
        assert!(kept.join("submit-0000000000000004-00000000.pb").is_file());
        let why = std::fs::read_to_string(kept.join("submit-0000000000000004-00000000.pb.reason.txt")).expect("why");
        assert!(why.contains("not yours"));

        std::fs::write(dir.path().join("submit-0000000000000005-00000000.pb"), b"\xff\xff\xff").expect("junk");
        std::fs::write(dir.path().join("submit-0000000000000006-00000000.pb.tmp"), b"half").expect("torn");
        assert!(spool.pending().expect("pending").is_empty());
        assert!(kept.join("submit-0000000000000005-00000000.pb").is_file(), "undecodable: set aside");
        drop(spool);
        Spool::open(dir.path()).expect("reopen");
        assert!(!dir.path().join("submit-0000000000000006-00000000.pb.tmp").exists(), "torn writes are cleaned");
    }
}
