//! The search's tunable constants, declared once: each has a name, a default, a range and an
//! SPSA step (`c_end`). From this one table come the fields the search reads, the UCI options
//! (`search.<name>`), the `[search]` table of a parameter file (see `crate::param_set`) and
//! the SPSA input lines `xqengine params --spsa` prints (`name,value,min,max,c_end,r_end`, as
//! Stockfish's `TUNE` does).
//!
//! The defaults of the parameters that existed before this table are the constants the search
//! had inline, so that the bench signature did not move when they became parameters; later
//! ones (static exchange pruning) came with their feature.

use crate::error::{Error, Result};

/// What one search parameter is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SearchParamSpec {
    /// The key in the `[search]` table; the UCI option and the SPSA name are `search.<key>`.
    pub key: &'static str,
    pub doc: &'static str,
    pub default: i32,
    pub min: i32,
    pub max: i32,
    /// The SPSA perturbation at the end of a tune (`c_end`).
    pub step: i32,
}

impl SearchParamSpec {
    /// `search.<key>`: the UCI option name and the SPSA name.
    pub fn name(&self) -> String {
        format!("{PREFIX}{}", self.key)
    }

    /// The line Stockfish's `TUNE` prints for a parameter: `name,value,min,max,c_end,r_end`.
    pub fn spsa_line(&self, value: i32) -> String {
        format!("{},{value},{},{},{},{DEFAULT_R_END}", self.name(), self.min, self.max, self.step)
    }
}

/// The prefix of search parameter names among all of an engine's parameters.
pub const PREFIX: &str = "search.";

/// SPSA's default `r_end` (Stockfish's `TUNE` prints the same).
pub const DEFAULT_R_END: f64 = 0.002;

macro_rules! search_params {
    ($( $(#[doc = $doc:literal])+ $key:ident = $default:literal, $min:literal ..= $max:literal, step $step:literal; )+) => {
        /// Every search parameter, by field. Cheap to share by reference; the search reads it
        /// directly.
        #[derive(Clone, Debug, PartialEq, Eq, Hash)]
        pub struct SearchParams {
            $( $(#[doc = $doc])+ pub $key: i32, )+
        }

        impl Default for SearchParams {
            fn default() -> SearchParams {
                SearchParams { $( $key: $default, )+ }
            }
        }

        /// The declaration of every search parameter, in field order.
        pub const SEARCH_PARAMS: &[SearchParamSpec] = &[
            $( SearchParamSpec {
                key: stringify!($key),
                doc: concat!($($doc),+),
                default: $default,
                min: $min,
                max: $max,
                step: $step,
            }, )+
        ];

        impl SearchParams {
            /// The values in the order of [`SEARCH_PARAMS`].
            pub fn values(&self) -> Vec<i32> {
                vec![$( self.$key, )+]
            }

            fn slot_mut(&mut self, i: usize) -> Option<&mut i32> {
                let slots = [$( &mut self.$key, )+];
                slots.into_iter().nth(i)
            }
        }
    };
}

search_params! {
    /// Reverse futility pruning: the deepest remaining depth it applies at.
    rfp_depth = 6, 1..=12, step 1;
    /// Reverse futility pruning: centipawns of margin per ply of depth.
    rfp_margin = 90, 20..=300, step 10;
    /// Reverse futility pruning: margin taken off when the static evaluation improves.
    rfp_improving = 40, 0..=200, step 8;
    /// Null move: the smallest depth it is tried at.
    nmp_min_depth = 3, 1..=8, step 1;
    /// Null move: the base reduction.
    nmp_base = 3, 1..=6, step 1;
    /// Null move: one more ply of reduction per this many plies of depth.
    nmp_depth_div = 4, 1..=12, step 1;
    /// Null move: from this depth on a cutoff is verified by a search without null move.
    nmp_verify_depth = 10, 4..=40, step 2;
    /// Late-move pruning: the deepest remaining depth it applies at.
    lmp_depth = 4, 1..=10, step 1;
    /// Late-move pruning: quiet moves always searched.
    lmp_base = 4, 0..=20, step 1;
    /// Late-move pruning: more quiet moves searched per depth squared.
    lmp_scale = 2, 1..=8, step 1;
    /// Late-move reductions: the table's constant term, in hundredths of a ply.
    lmr_base = 75, 0..=200, step 10;
    /// Late-move reductions: ln(depth)·ln(moves) is divided by this, in hundredths.
    lmr_div = 225, 100..=500, step 20;
    /// Late-move reductions: the smallest depth they apply at.
    lmr_min_depth = 3, 2..=6, step 1;
    /// Late-move reductions: one ply less per this much history score.
    lmr_history_div = 6000, 1000..=30000, step 500;
    /// Static exchange pruning: the deepest remaining depth it applies at.
    see_prune_depth = 6, 1..=12, step 1;
    /// Static exchange pruning: a capture is pruned when it loses more than this many
    /// centipawns per ply of depth.
    see_capture_margin = 100, 0..=400, step 10;
    /// Static exchange pruning: a quiet move is pruned when it loses more than this many
    /// centipawns per depth squared.
    see_quiet_margin = 15, 0..=100, step 3;
    /// Futility pruning: the deepest remaining depth at which quiet moves are skipped when
    /// the static evaluation plus a margin cannot reach alpha.
    fp_depth = 6, 1..=12, step 1;
    /// Futility pruning: the margin's constant term, in centipawns.
    fp_base = 100, 0..=400, step 10;
    /// Futility pruning: the margin's centipawns per ply of depth.
    fp_margin = 80, 20..=300, step 10;
    /// Aspiration windows: the first half-width, in centipawns.
    asp_delta = 30, 5..=200, step 4;
    /// Aspiration windows: the smallest iteration depth they are used from.
    asp_min_depth = 5, 2..=12, step 1;
    /// Aspiration windows: the window grows by this percentage after each failure.
    asp_widen = 50, 10..=200, step 8;
    /// History: the bonus per depth squared of a cutoff.
    hist_bonus_mul = 16, 1..=64, step 2;
    /// History: the largest bonus of one cutoff.
    hist_bonus_max = 1600, 100..=8000, step 100;
    /// History: the gravity limit values stay below.
    hist_max = 16384, 2048..=65536, step 1024;
    /// Time: moves to go assumed when the clock does not say.
    tm_moves_to_go = 30, 10..=80, step 3;
    /// Time: percentage of the increment added to the optimum time.
    tm_inc_pct = 75, 0..=100, step 5;
    /// Time: the maximum time as a multiple of the optimum.
    tm_max_mul = 4, 1..=10, step 1;
    /// Time: no new iteration starts after this percentage of the optimum time.
    tm_iter_pct = 60, 20..=100, step 5;
}

/// The number of search parameters.
pub const NUM_SEARCH_PARAMS: usize = SEARCH_PARAMS.len();

fn param_error(key: impl Into<String>, reason: impl Into<String>) -> Error {
    Error::SearchParam { key: key.into(), reason: reason.into() }
}

impl SearchParams {
    /// The declaration of a parameter by its key (`rfp_margin`) or name (`search.rfp_margin`).
    pub fn spec(name: &str) -> Option<(usize, &'static SearchParamSpec)> {
        let key = name.strip_prefix(PREFIX).unwrap_or(name);
        SEARCH_PARAMS.iter().enumerate().find(|(_, s)| s.key == key)
    }

    /// The value of a parameter by key or name.
    pub fn get(&self, name: &str) -> Option<i32> {
        let (i, _) = Self::spec(name)?;
        self.values().get(i).copied()
    }

    /// Sets a parameter by key or name; a value outside its declared range, or an unknown
    /// name, is an error naming it.
    pub fn set(&mut self, name: &str, value: i64) -> Result<()> {
        let (i, spec) = Self::spec(name).ok_or_else(|| {
            param_error(
                name,
                format!(
                    "unknown search parameter; expected one of: {}",
                    SEARCH_PARAMS.iter().map(|s| s.key).collect::<Vec<_>>().join(", ")
                ),
            )
        })?;
        if !(i64::from(spec.min)..=i64::from(spec.max)).contains(&value) {
            return Err(param_error(spec.name(), format!("{value} is outside its range {}..={}", spec.min, spec.max)));
        }
        if let Some(slot) = self.slot_mut(i) {
            *slot = value as i32;
        }
        Ok(())
    }

    /// Every parameter as SPSA input lines (`name,value,min,max,c_end,r_end`), one a line.
    pub fn spsa_lines(&self) -> String {
        SEARCH_PARAMS.iter().zip(self.values()).map(|(s, v)| s.spsa_line(v) + "\n").collect()
    }
}

/// Late-move reductions by depth and move number, from `lmr_base` and `lmr_div`: built when
/// the parameters change, read by the search.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LmrTable(Box<[[i32; 64]; 64]>);

impl LmrTable {
    pub fn new(params: &SearchParams) -> LmrTable {
        let base = f64::from(params.lmr_base) / 100.0;
        let div = f64::from(params.lmr_div) / 100.0;
        let mut t = Box::new([[0; 64]; 64]);
        for (d, row) in t.iter_mut().enumerate().skip(1) {
            for (m, r) in row.iter_mut().enumerate().skip(1) {
                *r = (base + (d as f64).ln() * (m as f64).ln() / div) as i32;
            }
        }
        LmrTable(t)
    }

    #[inline]
    pub fn get(&self, depth: i32, moves: usize) -> i32 {
        self.0[depth.clamp(0, 63) as usize][moves.min(63)]
    }
}

impl Default for LmrTable {
    fn default() -> LmrTable {
        LmrTable::new(&SearchParams::default())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn declarations_are_consistent() {
        let defaults = SearchParams::default();
        const { assert!(NUM_SEARCH_PARAMS >= 10) };
        for (spec, value) in SEARCH_PARAMS.iter().zip(defaults.values()) {
            assert_eq!(spec.default, value, "{}", spec.key);
            assert!(spec.min <= spec.default && spec.default <= spec.max, "{}", spec.key);
            assert!(spec.step > 0 && spec.step <= spec.max - spec.min, "{}", spec.key);
            assert!(!spec.doc.trim().is_empty(), "{}", spec.key);
        }
        let mut keys: Vec<_> = SEARCH_PARAMS.iter().map(|s| s.key).collect();
        keys.sort_unstable();
        keys.dedup();
        assert_eq!(keys.len(), NUM_SEARCH_PARAMS);
    }

    #[test]
    fn set_checks_names_and_ranges() {
        let mut p = SearchParams::default();
        p.set("search.rfp_margin", 120).expect("in range");
        assert_eq!(p.rfp_margin, 120);
        p.set("lmr_div", 300).expect("keys work too");
        assert_eq!(p.get("search.lmr_div"), Some(300));
        let err = p.set("search.rfp_margin", 1000).expect_err("out of range");
        assert_eq!(err.to_string(), "search parameter `search.rfp_margin`: 1000 is outside its range 20..=300");
        assert!(p.set("search.nope", 1).expect_err("unknown").to_string().contains("unknown search parameter"));
        assert_eq!(p.rfp_margin, 120, "a refused value changes nothing");
    }

    #[test]
    fn spsa_lines_are_stockfish_tune_lines() {
        let lines = SearchParams::default().spsa_lines();
        assert_eq!(lines.lines().count(), NUM_SEARCH_PARAMS);
        assert!(lines.lines().any(|l| l == "search.rfp_margin,90,20,300,10,0.002"), "{lines}");
    }

    #[test]
    fn the_default_lmr_table_is_the_former_constant_table() {
        let t = LmrTable::default();
        for d in 1..64 {
            for m in 1..64 {
                let old = (0.75 + (d as f64).ln() * (m as f64).ln() / 2.25) as i32;
                assert_eq!(t.get(d, m as usize), old);
            }
        }
    }
}
