//! The xqfarm worker: plays leased game pairs. Filled in by the farm issue.
