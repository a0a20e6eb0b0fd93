//! The xqfarm coordinator: runs, variants, openings, leases, SPRT. Filled in by the farm issue.
