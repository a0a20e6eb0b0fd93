//! A connection's cache of the rows that never change once written: variants (named by the
//! hash of their content) and the network each names, run specs, the tables a run pins, suite
//! sizes and opening lines. A lease or a submission then reads only what changes (pairs, leases,
//! statistics) instead of decoding, parsing and re-hashing a variant's parameter file and a run's
//! columns on every call.
//!
//! Entries are filled only from rows read back from the database, never from values about to be
//! written, and the backend drops every entry whenever it rolls anything back: a cache never
//! holds a row that was not committed. On PostgreSQL, a row cached from a committed transaction
//! may be served to a later one whose snapshot is older: the row existed, and never changes.

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::Arc;

use engine::nnue::NetworkId;
use proto::domain::{RunId, RunSpec, SuiteId, TablePin, Variant, VariantId};

/// Entries kept per map at most; beyond this a map starts again empty (a farm has far fewer
/// variants and runs in use at once).
const CACHE_ENTRIES: usize = 4096;

#[derive(Debug, Default)]
struct Maps {
    variants: HashMap<VariantId, Variant>,
    variant_networks: HashMap<VariantId, Option<NetworkId>>,
    run_specs: HashMap<RunId, Arc<RunSpec>>,
    run_tablebases: HashMap<RunId, Vec<TablePin>>,
    suite_sizes: HashMap<SuiteId, usize>,
    openings: HashMap<(SuiteId, u32), String>,
}

/// One connection's cache: each connection has its own.
#[derive(Debug, Default)]
pub(crate) struct RowCache(RefCell<Maps>);

fn remember<K: std::hash::Hash + Eq, V>(map: &mut HashMap<K, V>, key: K, value: V) {
    if map.len() >= CACHE_ENTRIES {
        map.clear();
    }
    map.insert(key, value);
}

impl RowCache {
    /// Drops every entry: after a rollback, a row read inside it may not exist.
    pub(crate) fn forget_all(&self) {
        *self.0.borrow_mut() = Maps::default();
    }

    pub(crate) fn variant(&self, id: &VariantId) -> Option<Variant> {
        self.0.borrow().variants.get(id).cloned()
    }

    pub(crate) fn remember_variant(&self, variant: &Variant) {
        remember(&mut self.0.borrow_mut().variants, variant.id.clone(), variant.clone());
    }

    /// The network a variant names, if known: `Some(None)` for a variant that names none.
    pub(crate) fn variant_network(&self, id: &VariantId) -> Option<Option<NetworkId>> {
        self.0.borrow().variant_networks.get(id).copied()
    }

    pub(crate) fn remember_variant_network(&self, id: &VariantId, network: Option<NetworkId>) {
        remember(&mut self.0.borrow_mut().variant_networks, id.clone(), network);
    }

    pub(crate) fn run_spec(&self, run: RunId) -> Option<Arc<RunSpec>> {
        self.0.borrow().run_specs.get(&run).cloned()
    }

    pub(crate) fn remember_run_spec(&self, run: RunId, spec: &Arc<RunSpec>) {
        remember(&mut self.0.borrow_mut().run_specs, run, Arc::clone(spec));
    }

    pub(crate) fn run_tablebases(&self, run: RunId) -> Option<Vec<TablePin>> {
        self.0.borrow().run_tablebases.get(&run).cloned()
    }

    pub(crate) fn remember_run_tablebases(&self, run: RunId, pins: &[TablePin]) {
        remember(&mut self.0.borrow_mut().run_tablebases, run, pins.to_vec());
    }

    pub(crate) fn opening(&self, suite: SuiteId, index: u32) -> Option<String> {
        self.0.borrow().openings.get(&(suite, index)).cloned()
    }

    pub(crate) fn remember_opening(&self, suite: SuiteId, index: u32, line: &str) {
        remember(&mut self.0.borrow_mut().openings, (suite, index), line.to_owned());
    }

    pub(crate) fn suite_size(&self, suite: SuiteId) -> Option<usize> {
        self.0.borrow().suite_sizes.get(&suite).copied()
    }

    pub(crate) fn remember_suite_size(&self, suite: SuiteId, size: usize) {
        remember(&mut self.0.borrow_mut().suite_sizes, suite, size);
    }
}
