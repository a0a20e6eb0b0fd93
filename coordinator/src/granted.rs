//! The terms of the leases this coordinator granted, kept in memory so that the referee checks a
//! submission without reading its lease back from the store: a lease's terms (its run's rules,
//! its scaled time control, its pairs and their openings) never change once it is granted, so a
//! kept copy is never stale. A lease granted by another coordinator on the same database, or
//! before a restart, or forgotten (the oldest go first, past [`GRANTED_KEPT`]) is read from the
//! store as before. With PostgreSQL this saves a read transaction of four round trips per
//! submission.

use std::collections::BTreeMap;
use std::sync::Mutex;

use proto::domain::LeaseId;

use crate::storage::LeaseTerms;

/// Leases whose terms are kept at most; the oldest (lowest id) is forgotten first. A lease that
/// ends with a final batch is forgotten then; one that expires stays until pushed out.
pub const GRANTED_KEPT: usize = 16_384;

/// The terms of recently granted leases, by lease id.
#[derive(Debug, Default)]
pub struct Granted {
    terms: Mutex<BTreeMap<LeaseId, LeaseTerms>>,
}

impl Granted {
    /// Keeps the terms of a lease just granted.
    pub fn keep(&self, terms: LeaseTerms) {
        if let Ok(mut kept) = self.terms.lock() {
            kept.insert(terms.lease, terms);
            while kept.len() > GRANTED_KEPT {
                kept.pop_first();
            }
        }
    }

    /// The kept terms of `lease`, if any.
    pub fn get(&self, lease: LeaseId) -> Option<LeaseTerms> {
        self.terms.lock().ok()?.get(&lease).cloned()
    }

    /// Forgets a lease that ended.
    pub fn forget(&self, lease: LeaseId) {
        if let Ok(mut kept) = self.terms.lock() {
            kept.remove(&lease);
        }
    }

    /// Leases whose terms are kept.
    pub fn len(&self) -> usize {
        self.terms.lock().map_or(0, |kept| kept.len())
    }

    /// Whether no terms are kept.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use proto::domain::{Adjudication, RunId, TimeControl};

    use super::*;

    fn terms(lease: u64) -> LeaseTerms {
        LeaseTerms {
            lease: LeaseId::new(lease),
            run: RunId::new(7),
            tc: TimeControl::Nodes(1000),
            adjudication: Adjudication::default(),
            sample_every: 0,
            tasks: Vec::new(),
            tablebases: Vec::new(),
        }
    }

    #[test]
    fn kept_terms_are_found_until_forgotten() {
        let granted = Granted::default();
        granted.keep(terms(3));
        assert_eq!(granted.get(LeaseId::new(3)).map(|t| t.run), Some(RunId::new(7)));
        assert!(granted.get(LeaseId::new(4)).is_none());
        granted.forget(LeaseId::new(3));
        assert!(granted.get(LeaseId::new(3)).is_none());
        assert!(granted.is_empty());
    }

    #[test]
    fn the_oldest_lease_goes_first_past_the_cap() {
        let granted = Granted::default();
        for lease in 1..=(GRANTED_KEPT as u64 + 2) {
            granted.keep(terms(lease));
        }
        assert_eq!(granted.len(), GRANTED_KEPT);
        assert!(granted.get(LeaseId::new(1)).is_none());
        assert!(granted.get(LeaseId::new(2)).is_none());
        assert!(granted.get(LeaseId::new(3)).is_some());
        assert!(granted.get(LeaseId::new(GRANTED_KEPT as u64 + 2)).is_some());
    }
}
