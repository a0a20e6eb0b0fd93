//! A connection with caches of the rows that never change once written: variants (named by
//! the hash of their content), run specs and suite sizes. A lease or a submission then reads
//! only what changes (pairs, leases, statistics) instead of decoding and re-hashing a variant's
//! parameter file and a run's columns on every call.
//!
//! Entries are filled only from rows read back from the database, never from values about to
//! be written, and the writer drops every entry whenever it rolls anything back: a cache never
//! holds a row that was not committed.

use std::cell::RefCell;
use std::collections::HashMap;
use std::ops::Deref;
use std::sync::Arc;

use proto::domain::{RunId, RunSpec, SuiteId, Variant, VariantId};
use rusqlite::Connection;

/// Entries kept per map at most; beyond this a map starts again empty (a farm has far fewer
/// variants and runs in use at once).
const CACHE_ENTRIES: usize = 4096;

#[derive(Debug, Default)]
struct Cache {
    variants: HashMap<VariantId, Variant>,
    run_specs: HashMap<RunId, Arc<RunSpec>>,
    suite_sizes: HashMap<SuiteId, usize>,
}

/// A connection and its caches. Each connection has its own: the writer's and each reader's.
#[derive(Debug)]
pub(super) struct Db {
    conn: Connection,
    cache: RefCell<Cache>,
}

impl Deref for Db {
    type Target = Connection;

    fn deref(&self) -> &Connection {
        &self.conn
    }
}

fn remember<K: std::hash::Hash + Eq, V>(map: &mut HashMap<K, V>, key: K, value: V) {
    if map.len() >= CACHE_ENTRIES {
        map.clear();
    }
    map.insert(key, value);
}

impl Db {
    pub(super) fn new(conn: Connection) -> Db {
        Db { conn, cache: RefCell::new(Cache::default()) }
    }

    pub(super) fn connection_mut(&mut self) -> &mut Connection {
        &mut self.conn
    }

    /// Drops every cached row: after a rollback, an entry read inside it may not exist.
    pub(super) fn forget_all(&self) {
        *self.cache.borrow_mut() = Cache::default();
    }

    pub(super) fn cached_variant(&self, id: &str) -> Option<Variant> {
        self.cache.borrow().variants.get(id).cloned()
    }

    pub(super) fn remember_variant(&self, variant: &Variant) {
        remember(&mut self.cache.borrow_mut().variants, variant.id.clone(), variant.clone());
    }

    pub(super) fn cached_run_spec(&self, run: RunId) -> Option<Arc<RunSpec>> {
        self.cache.borrow().run_specs.get(&run).cloned()
    }

    pub(super) fn remember_run_spec(&self, run: RunId, spec: &Arc<RunSpec>) {
        remember(&mut self.cache.borrow_mut().run_specs, run, Arc::clone(spec));
    }

    pub(super) fn cached_suite_size(&self, suite: SuiteId) -> Option<usize> {
        self.cache.borrow().suite_sizes.get(&suite).copied()
    }

    pub(super) fn remember_suite_size(&self, suite: SuiteId, size: usize) {
        remember(&mut self.cache.borrow_mut().suite_sizes, suite, size);
    }
}
