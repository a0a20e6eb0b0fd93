//! The table of open play sessions, in memory and capped: at most `max_sessions` sessions and
//! `total_hash_mib` of engine hash tables together; one more gets 503. A session left alone
//! for [`IDLE_TTL`] is forgotten (its engines stop with it). Ids are 128 random bits from the
//! OS, as hex.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use super::error::{PlayError, PlayResult};
use super::game::Game;
use super::limit::Limit;
use super::player::EnginePlayer;

/// How long a session may go without a request before it is forgotten.
pub const IDLE_TTL: Duration = Duration::from_secs(30 * 60);

/// Who plays one colour.
#[derive(Debug)]
pub enum Seat {
    Human,
    Engine {
        id: String,
        name: String,
        limit: Limit,
        /// `None` while the engine searches on the pool (it comes back when it is done).
        player: Option<EnginePlayer>,
    },
}

impl Seat {
    pub fn is_engine(&self) -> bool {
        matches!(self, Seat::Engine { .. })
    }
}

/// One play session: the game and its two seats, Red's first.
#[derive(Debug)]
pub struct Session {
    pub id: String,
    pub game: Game,
    pub seats: [Seat; 2],
}

impl Session {
    pub fn seat(&self, color: engine::Color) -> &Seat {
        &self.seats[color.index()]
    }

    pub fn seat_mut(&mut self, color: engine::Color) -> &mut Seat {
        &mut self.seats[color.index()]
    }
}

/// A shared session; lock it briefly, never across an `.await`.
pub type SharedSession = Arc<Mutex<Session>>;

/// Locks a session (a panic while it was held leaves it usable: its state is plain data).
pub fn lock(session: &SharedSession) -> MutexGuard<'_, Session> {
    session.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

#[derive(Debug)]
struct Entry {
    session: SharedSession,
    hash_mib: usize,
    last_used: Instant,
}

/// The caps of the table.
#[derive(Clone, Copy, Debug)]
pub struct Caps {
    pub max_sessions: usize,
    pub total_hash_mib: usize,
    pub idle_ttl: Duration,
}

#[derive(Debug)]
pub struct SessionTable {
    caps: Caps,
    entries: Mutex<HashMap<String, Entry>>,
}

/// A fresh session id: 16 bytes from the OS, as hex.
fn random_id() -> PlayResult<String> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).map_err(|e| PlayError::Internal(format!("no randomness: {e}")))?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

impl SessionTable {
    pub fn new(caps: Caps) -> SessionTable {
        SessionTable { caps, entries: Mutex::new(HashMap::new()) }
    }

    fn entries(&self) -> MutexGuard<'_, HashMap<String, Entry>> {
        let mut entries = self.entries.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let ttl = self.caps.idle_ttl;
        entries.retain(|_, e| e.last_used.elapsed() < ttl);
        entries
    }

    /// Refuses (503) when a session needing `hash_mib` would exceed a cap now.
    pub fn check_room(&self, hash_mib: usize) -> PlayResult<()> {
        let entries = self.entries();
        self.room(&entries, hash_mib)
    }

    fn room(&self, entries: &HashMap<String, Entry>, hash_mib: usize) -> PlayResult<()> {
        let Caps { max_sessions, total_hash_mib, .. } = self.caps;
        if entries.len() >= max_sessions {
            return Err(PlayError::Unavailable(format!(
                "the server plays at most {max_sessions} games at once and all are taken; close one or try later"
            )));
        }
        let used: usize = entries.values().map(|e| e.hash_mib).sum();
        if used + hash_mib > total_hash_mib {
            return Err(PlayError::Unavailable(format!(
                "the engines' hash tables would need {} MiB, over the server's {total_hash_mib} MiB for play; \
                 close a game or try later",
                used + hash_mib
            )));
        }
        Ok(())
    }

    /// Adds a session (its id is set here) whose engines use `hash_mib`; returns its id.
    pub fn insert(&self, mut session: Session, hash_mib: usize) -> PlayResult<(String, SharedSession)> {
        let id = random_id()?;
        session.id.clone_from(&id);
        let mut entries = self.entries();
        self.room(&entries, hash_mib)?;
        let shared = Arc::new(Mutex::new(session));
        entries.insert(id.clone(), Entry { session: Arc::clone(&shared), hash_mib, last_used: Instant::now() });
        Ok((id, shared))
    }

    /// The session `id`, marked as used now.
    pub fn get(&self, id: &str) -> PlayResult<SharedSession> {
        let mut entries = self.entries();
        let entry = entries.get_mut(id).ok_or_else(|| PlayError::NoSession(id.to_owned()))?;
        entry.last_used = Instant::now();
        Ok(Arc::clone(&entry.session))
    }

    /// Forgets session `id`.
    pub fn remove(&self, id: &str) -> PlayResult<()> {
        self.entries().remove(id).map(|_| ()).ok_or_else(|| PlayError::NoSession(id.to_owned()))
    }

    pub fn len(&self) -> usize {
        self.entries().len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // in tests a panic is the failure report
mod tests {
    use super::*;

    fn session() -> Session {
        Session { id: String::new(), game: Game::startpos(), seats: [Seat::Human, Seat::Human] }
    }

    fn table(max_sessions: usize, total_hash_mib: usize, idle_ttl: Duration) -> SessionTable {
        SessionTable::new(Caps { max_sessions, total_hash_mib, idle_ttl })
    }

    #[test]
    fn capped_by_count_and_by_hash() {
        let t = table(2, 32, IDLE_TTL);
        let (a, _) = t.insert(session(), 16).unwrap();
        assert_eq!(a.len(), 32);
        assert_eq!(lock(&t.get(&a).unwrap()).id, a);
        let err = t.insert(session(), 17).unwrap_err();
        assert!(matches!(&err, PlayError::Unavailable(m) if m.contains("33 MiB")), "{err}");
        let (b, _) = t.insert(session(), 16).unwrap();
        assert_ne!(a, b);
        assert!(matches!(t.insert(session(), 0), Err(PlayError::Unavailable(m)) if m.contains("at most 2")));
        t.remove(&a).unwrap();
        assert!(matches!(t.get(&a), Err(PlayError::NoSession(_))));
        t.insert(session(), 0).unwrap();
        assert_eq!(t.len(), 2);
    }

    #[test]
    fn idle_sessions_expire() {
        let t = table(1, 32, Duration::from_millis(30));
        let (a, _) = t.insert(session(), 0).unwrap();
        std::thread::sleep(Duration::from_millis(60));
        assert!(t.get(&a).is_err());
        assert!(t.is_empty());
        t.insert(session(), 0).unwrap();
    }
}
