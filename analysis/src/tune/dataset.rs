//! [`TuningSet`]: labelled positions stored as compact sparse traces, built once.
//!
//! # Layout
//!
//! The engine's trace gives, for every parameter, the coefficient `count * phase` (middlegame
//! weight) or `count * (PHASE_MAX - phase)` (endgame weight), where `count` is the feature's
//! occurrences for Red minus Black's. Storing those coefficients as they are would cost two
//! entries per feature, each too wide for a byte (`5 * 32 = 160`). The set stores instead, per
//! position, its phase once and, per non-zero feature, `(feature: u16, count: i8)`: three bytes
//! that stand for both of the feature's parameters. The conversion is checked: a trace whose
//! coefficients are not of that form is refused ([`Error::Trace`]), so
//! `PHASE_MAX * eval = dot(trace, params)` holds exactly for every stored position.
//!
//! Structure of arrays, so the loss loop streams only what it reads:
//!
//! | array      | type       | per              |
//! |------------|------------|------------------|
//! | `offsets`  | `u32`      | position (+1)    |
//! | `features` | `u16`      | non-zero feature |
//! | `counts`   | `i8`       | non-zero feature |
//! | `phases`   | `u8`       | position         |
//! | `labels`   | `f32`      | position         |
//! | `game_ids` | `u64`      | position         |
//!
//! That is 17 bytes per position plus 3 bytes per non-zero feature, i.e. at most 3 bytes per
//! non-zero trace coefficient and 1.5 when both phases are non-zero (the target was 24 + 3).
//! A count beyond `i8` (never seen in real positions: counts are differences of piece counts)
//! is escaped by repeating the feature: the model is linear, so entries of one feature add.
//! [`TuningSet::heap_bytes`] measures the real figure, capacity included.
//!
//! # Labels
//!
//! `label = (1 - lambda) * result + lambda * sigmoid(score_k, score)`, with `result` the game
//! result from Red's side (1, 0.5, 0), `score` the search score from Red's side in centipawns
//! and [`sigmoid`] the tuner's own `1 / (1 + 10^(-K * score / 400))`. `lambda = 0` (the default)
//! is pure Texel tuning on results; a position without a score keeps its result whatever lambda
//! is. `score_k` is fixed when the set is built (default 1): the K fitted later scales the
//! evaluation, not the labels.
//!
//! # Split
//!
//! [`TuningSet::split_by_game`] sends every position of a game to the same side: a game is in
//! validation when a fixed hash of its id ([`is_validation_game`]) falls below the fraction.
//! Deterministic, independent of the order or the number of positions.

use engine::Position;
use engine::eval::{NUM_FEATURES, PHASE_MAX, Trace, trace};

use super::loss::sigmoid;
use crate::error::{Error, Result};

/// The share of games kept for validation when nothing else is said.
pub const DEFAULT_VALIDATION_FRACTION: f64 = 0.05;

/// Labelled positions as compact sparse traces. See the module documentation for the layout.
#[derive(Clone, Debug, PartialEq)]
pub struct TuningSet {
    /// Entry range of position `i`: `offsets[i]..offsets[i + 1]`; `offsets[0] = 0`.
    offsets: Vec<u32>,
    features: Vec<u16>,
    counts: Vec<i8>,
    phases: Vec<u8>,
    labels: Vec<f32>,
    game_ids: Vec<u64>,
}

/// The entries of one position, borrowed from the set.
#[derive(Clone, Copy, Debug)]
pub struct PositionView<'a> {
    /// The material phase, `0..=PHASE_MAX`.
    pub phase: u8,
    pub label: f32,
    pub game_id: u64,
    /// Feature indices (parameter `2 * f` is its middlegame weight, `2 * f + 1` its endgame).
    pub features: &'a [u16],
    /// Red's count minus Black's, parallel to `features`.
    pub counts: &'a [i8],
}

/// The arrays the loss loop streams (see the layout above); `offsets` has `len + 1` entries.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Columns<'a> {
    pub offsets: &'a [u32],
    pub features: &'a [u16],
    pub counts: &'a [i8],
    pub phases: &'a [u8],
    pub labels: &'a [f32],
}

impl Default for TuningSet {
    fn default() -> TuningSet {
        TuningSet::new()
    }
}

impl TuningSet {
    /// An empty set (build one with [`TuningSetBuilder`]).
    pub fn new() -> TuningSet {
        TuningSet {
            offsets: vec![0],
            features: Vec::new(),
            counts: Vec::new(),
            phases: Vec::new(),
            labels: Vec::new(),
            game_ids: Vec::new(),
        }
    }

    /// How many positions.
    #[inline]
    pub fn len(&self) -> usize {
        self.labels.len()
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.labels.is_empty()
    }

    /// How many stored (feature, count) entries over all positions.
    pub fn entries(&self) -> usize {
        self.features.len()
    }

    /// Position `i`.
    ///
    /// # Panics
    /// When `i >= self.len()`.
    #[inline]
    pub fn position(&self, i: usize) -> PositionView<'_> {
        let range = self.offsets[i] as usize..self.offsets[i + 1] as usize;
        PositionView {
            phase: self.phases[i],
            label: self.labels[i],
            game_id: self.game_ids[i],
            features: &self.features[range.clone()],
            counts: &self.counts[range],
        }
    }

    /// Every position, in insertion order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = PositionView<'_>> + '_ {
        (0..self.len()).map(|i| self.position(i))
    }

    /// The labels, in position order.
    pub fn labels(&self) -> &[f32] {
        &self.labels
    }

    /// The game of every position, in position order.
    pub fn game_ids(&self) -> &[u64] {
        &self.game_ids
    }

    /// The raw arrays, for the loss loop.
    #[inline]
    pub(crate) fn columns(&self) -> Columns<'_> {
        Columns {
            offsets: &self.offsets,
            features: &self.features,
            counts: &self.counts,
            phases: &self.phases,
            labels: &self.labels,
        }
    }

    /// The scaled score `PHASE_MAX * eval` of position `i` under integer parameters: equal to
    /// `engine::eval::trace(pos).dot(params)` for the position it was built from.
    pub fn dot(&self, i: usize, params: &engine::eval::Params) -> i64 {
        let p = self.position(i);
        let phase = i64::from(p.phase);
        p.features
            .iter()
            .zip(p.counts)
            .map(|(&f, &n)| {
                let f = usize::from(f);
                let (mg, eg) = (i64::from(params.get(2 * f)), i64::from(params.get(2 * f + 1)));
                i64::from(n) * (mg * phase + eg * (i64::from(PHASE_MAX) - phase))
            })
            .sum()
    }

    /// For every parameter, in how many positions its coefficient is non-zero: a feature's
    /// middlegame weight counts where the feature occurs and the phase is above 0, its endgame
    /// weight where it occurs and the phase is below `PHASE_MAX`. (An escaped count's repeated
    /// entries count once.) The tuner freezes weights seen too rarely to be estimated.
    pub fn coefficient_counts(&self) -> Vec<u32> {
        let mut counts = vec![0u32; 2 * NUM_FEATURES];
        for i in 0..self.len() {
            let p = self.position(i);
            let (mg, eg) = (p.phase > 0, i32::from(p.phase) < PHASE_MAX);
            for (j, &f) in p.features.iter().enumerate() {
                if j > 0 && p.features[j - 1] == f {
                    continue;
                }
                let f = usize::from(f);
                counts[2 * f] += u32::from(mg);
                counts[2 * f + 1] += u32::from(eg);
            }
        }
        counts
    }

    /// Heap memory held, capacity included.
    pub fn heap_bytes(&self) -> usize {
        use std::mem::size_of;
        self.offsets.capacity() * size_of::<u32>()
            + self.features.capacity() * size_of::<u16>()
            + self.counts.capacity() * size_of::<i8>()
            + self.phases.capacity() * size_of::<u8>()
            + self.labels.capacity() * size_of::<f32>()
            + self.game_ids.capacity() * size_of::<u64>()
    }

    /// `heap_bytes / len` (0 for an empty set).
    pub fn bytes_per_position(&self) -> f64 {
        if self.is_empty() { 0.0 } else { self.heap_bytes() as f64 / self.len() as f64 }
    }

    /// Releases spare capacity (after building), so `heap_bytes` is what the data needs.
    pub fn shrink_to_fit(&mut self) {
        self.offsets.shrink_to_fit();
        self.features.shrink_to_fit();
        self.counts.shrink_to_fit();
        self.phases.shrink_to_fit();
        self.labels.shrink_to_fit();
        self.game_ids.shrink_to_fit();
    }

    /// Copies position `i` of `other` to the end of this set, with another label and game.
    /// Cheap: for building large benchmark sets from a few real traces.
    ///
    /// # Panics
    /// When `i >= other.len()`.
    pub fn push_copy(&mut self, other: &TuningSet, i: usize, label: f32, game_id: u64) -> Result<()> {
        if !(0.0..=1.0).contains(&label) {
            return Err(Error::Label { index: self.len(), game_id, reason: format!("label {label} outside 0..=1") });
        }
        let p = other.position(i);
        self.features.extend_from_slice(p.features);
        self.counts.extend_from_slice(p.counts);
        self.finish_position(p.phase, label, game_id)
    }

    fn finish_position(&mut self, phase: u8, label: f32, game_id: u64) -> Result<()> {
        let end = u32::try_from(self.features.len()).map_err(|_| Error::Trace {
            reason: format!("more than {} entries in one set; split the data", u32::MAX),
        })?;
        self.offsets.push(end);
        self.phases.push(phase);
        self.labels.push(label);
        self.game_ids.push(game_id);
        Ok(())
    }

    /// Appends the entries of `trace` (checked), then the position's phase, label and game.
    fn push_trace(&mut self, trace: &Trace, label: f32, game_id: u64) -> Result<()> {
        let phase = u8::try_from(trace.phase)
            .ok()
            .filter(|&p| i32::from(p) <= PHASE_MAX)
            .ok_or_else(|| Error::Trace { reason: format!("phase {} outside 0..={PHASE_MAX}", trace.phase) })?;
        let start = self.features.len();
        let result = append_features(trace, i32::from(phase), &mut self.features, &mut self.counts);
        if let Err(e) = result {
            self.features.truncate(start);
            self.counts.truncate(start);
            return Err(e);
        }
        self.finish_position(phase, label, game_id)
    }

    /// Splits the set by game: `(train, validation)`, every game wholly on one side
    /// ([`is_validation_game`]).
    pub fn split_by_game(&self, validation_fraction: f64) -> Result<(TuningSet, TuningSet)> {
        check_fraction(validation_fraction)?;
        let (mut train, mut validation) = (TuningSet::new(), TuningSet::new());
        for i in 0..self.len() {
            let game_id = self.game_ids[i];
            let side = if is_validation_game(game_id, validation_fraction) { &mut validation } else { &mut train };
            side.push_copy(self, i, self.labels[i], game_id)?;
        }
        train.shrink_to_fit();
        validation.shrink_to_fit();
        Ok((train, validation))
    }
}

/// Whether game `game_id` belongs to the validation side of a split with this fraction: a fixed
/// hash (SplitMix64's finaliser) of the id, read as a number in `[0, 1)`, below the fraction.
/// Monotone in the fraction: a game in validation at 5% is also in validation at 10%.
pub fn is_validation_game(game_id: u64, validation_fraction: f64) -> bool {
    let mut z = game_id.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^= z >> 31;
    ((z >> 11) as f64 / (1u64 << 53) as f64) < validation_fraction
}

fn check_fraction(fraction: f64) -> Result<()> {
    if (0.0..=1.0).contains(&fraction) {
        Ok(())
    } else {
        Err(Error::TuneSetting {
            name: "validation fraction",
            value: fraction.to_string(),
            reason: "must be within 0..=1".into(),
        })
    }
}

/// Turns a trace's parameter coefficients into (feature, count) entries, checking that every
/// coefficient is the count times its phase factor.
fn append_features(trace: &Trace, phase: i32, features: &mut Vec<u16>, counts: &mut Vec<i8>) -> Result<()> {
    let bad = |reason: String| Error::Trace { reason };
    let coefficients = &trace.coefficients;
    let mut i = 0;
    while i < coefficients.len() {
        let (param, coefficient) = coefficients[i];
        let feature = param / 2;
        if usize::from(feature) >= NUM_FEATURES {
            return Err(bad(format!("parameter index {param} beyond the {} parameters", 2 * NUM_FEATURES)));
        }
        // The middlegame and endgame coefficients of this feature (absent means 0).
        let (mut mg, mut eg) = (0, 0);
        if param % 2 == 0 {
            mg = coefficient;
            if let Some(&(next, c)) = coefficients.get(i + 1)
                && next == param + 1
            {
                eg = c;
                i += 1;
            }
        } else {
            eg = coefficient;
        }
        i += 1;
        let count = if phase > 0 { mg / phase } else { eg / PHASE_MAX };
        if mg != count * phase || eg != count * (PHASE_MAX - phase) {
            return Err(bad(format!(
                "feature {feature}: coefficients mg {mg}, eg {eg} are not a count times the phase {phase}"
            )));
        }
        if count == 0 {
            continue;
        }
        // Escape: a count beyond i8 becomes several entries of the same feature.
        let mut rest = count;
        while rest != 0 {
            let part = rest.clamp(-127, 127);
            features.push(feature);
            counts.push(part as i8);
            rest -= part;
        }
    }
    Ok(())
}

/// Builds a [`TuningSet`] from positions, their game results and, optionally, search scores.
#[derive(Clone, Debug)]
pub struct TuningSetBuilder {
    lambda: f64,
    score_k: f64,
    set: TuningSet,
}

impl Default for TuningSetBuilder {
    fn default() -> TuningSetBuilder {
        TuningSetBuilder::new()
    }
}

impl TuningSetBuilder {
    /// Labels from results only (`lambda = 0`), scores read with K = 1.
    pub fn new() -> TuningSetBuilder {
        TuningSetBuilder { lambda: 0.0, score_k: 1.0, set: TuningSet::new() }
    }

    /// The blend of result and search score in the label (`--lambda`), within `0..=1`.
    pub fn lambda(mut self, lambda: f64) -> Result<TuningSetBuilder> {
        if !(0.0..=1.0).contains(&lambda) {
            return Err(Error::TuneSetting {
                name: "lambda",
                value: lambda.to_string(),
                reason: "must be within 0..=1".into(),
            });
        }
        self.lambda = lambda;
        Ok(self)
    }

    /// The K that turns a search score into an expected result for the label.
    pub fn score_k(mut self, k: f64) -> Result<TuningSetBuilder> {
        if !(k.is_finite() && k > 0.0) {
            return Err(Error::TuneSetting {
                name: "score K",
                value: k.to_string(),
                reason: "must be positive".into(),
            });
        }
        self.score_k = k;
        Ok(self)
    }

    /// Reserves room for `positions` more positions of about `features_each` features.
    pub fn reserve(&mut self, positions: usize, features_each: usize) {
        let s = &mut self.set;
        s.offsets.reserve(positions);
        s.phases.reserve(positions);
        s.labels.reserve(positions);
        s.game_ids.reserve(positions);
        s.features.reserve(positions * features_each);
        s.counts.reserve(positions * features_each);
    }

    /// How many positions so far.
    pub fn len(&self) -> usize {
        self.set.len()
    }

    pub fn is_empty(&self) -> bool {
        self.set.is_empty()
    }

    /// Adds the position of `fen`. `result_red`: the game's result from Red's side (1 win,
    /// 0.5 draw, 0 loss; any value in `0..=1` is taken, e.g. an expected result);
    /// `search_score_red`: the search score from Red's side in centipawns, if known.
    pub fn push_fen(&mut self, fen: &str, result_red: f32, search_score_red: Option<i32>, game_id: u64) -> Result<()> {
        let pos = Position::from_fen(fen).map_err(|reason| Error::Fen { fen: fen.to_owned(), reason })?;
        self.push_position(&pos, result_red, search_score_red, game_id)
    }

    /// Adds `pos` (see [`push_fen`](Self::push_fen)).
    pub fn push_position(
        &mut self,
        pos: &Position,
        result_red: f32,
        search_score_red: Option<i32>,
        game_id: u64,
    ) -> Result<()> {
        self.push_trace(&trace(pos), result_red, search_score_red, game_id)
    }

    /// Adds a position by its trace (see [`push_fen`](Self::push_fen)).
    pub fn push_trace(
        &mut self,
        trace: &Trace,
        result_red: f32,
        search_score_red: Option<i32>,
        game_id: u64,
    ) -> Result<()> {
        let label = self.label(result_red, search_score_red, game_id)?;
        self.set.push_trace(trace, label, game_id)
    }

    fn label(&self, result_red: f32, search_score_red: Option<i32>, game_id: u64) -> Result<f32> {
        if !(0.0..=1.0).contains(&result_red) {
            return Err(Error::Label {
                index: self.set.len(),
                game_id,
                reason: format!("result {result_red} outside 0..=1 (Red's result: 1, 0.5 or 0)"),
            });
        }
        let result = f64::from(result_red);
        Ok(match search_score_red {
            Some(score) if self.lambda > 0.0 => {
                ((1.0 - self.lambda) * result + self.lambda * sigmoid(self.score_k, f64::from(score))) as f32
            }
            _ => result_red,
        })
    }

    /// The finished set, spare capacity released.
    pub fn build(mut self) -> TuningSet {
        self.set.shrink_to_fit();
        self.set
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::eval::{Params, evaluate_scaled};

    const FENS: [&str; 4] = [
        "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1",
        "2bakab2/6r2/2n1c1nc1/p1p2rp1p/4p4/2PN2PC1/P3P3P/6N2/3CA4/1RBAK1B1R w - - 0 1",
        "3akab2/3r5/8n/8p/2P1C1b2/8P/cR2N2r1/2n1B1N2/4A4/2B1KR3 w - - 0 1",
        "4k4/9/9/9/9/9/5p3/4B4/3N5/4K4 w - - 0 1",
    ];

    #[test]
    fn stored_positions_keep_the_exact_score() -> Result<()> {
        let mut builder = TuningSetBuilder::new();
        for (g, fen) in FENS.iter().enumerate() {
            builder.push_fen(fen, 0.5, None, g as u64)?;
        }
        let set = builder.build();
        let params = Params::default();
        for (i, fen) in FENS.iter().enumerate() {
            let pos = Position::from_fen(fen).map_err(|reason| Error::Fen { fen: fen.to_string(), reason })?;
            assert_eq!(set.dot(i, &params), evaluate_scaled(&pos, &params), "{fen}");
            assert_eq!(set.dot(i, &Params::material_only()), evaluate_scaled(&pos, &Params::material_only()));
        }
        Ok(())
    }

    #[test]
    fn large_counts_are_escaped_into_repeated_entries() -> Result<()> {
        let t = Trace { phase: 10, coefficients: vec![(4, 300 * 10), (5, 300 * 22), (8, -1000 * 10), (9, -1000 * 22)] };
        let mut set = TuningSet::new();
        set.push_trace(&t, 1.0, 7)?;
        let p = set.position(0);
        assert_eq!(p.features, &[2, 2, 2, 4, 4, 4, 4, 4, 4, 4, 4]);
        let per_feature = |f: u16| -> i32 {
            p.features.iter().zip(p.counts).filter(|&(&g, _)| g == f).map(|(_, &n)| i32::from(n)).sum()
        };
        assert_eq!((per_feature(2), per_feature(4)), (300, -1000));
        Ok(())
    }

    #[test]
    fn coefficient_counts_follow_the_phase() -> Result<()> {
        let mut set = TuningSet::new();
        // Feature 2 in a middlegame position (both weights), in an escaped count (once), and
        // in a pure endgame (endgame weight only); feature 4 at full phase (middlegame only).
        let mid = Trace { phase: 10, coefficients: vec![(4, 10), (5, 22)] };
        let escaped = Trace { phase: 10, coefficients: vec![(4, 300 * 10), (5, 300 * 22)] };
        let end = Trace { phase: 0, coefficients: vec![(5, -2 * PHASE_MAX)] };
        let full = Trace { phase: PHASE_MAX, coefficients: vec![(8, PHASE_MAX)] };
        for t in [&mid, &escaped, &end, &full] {
            set.push_trace(t, 0.5, 1)?;
        }
        let counts = set.coefficient_counts();
        assert_eq!(counts.len(), 2 * NUM_FEATURES);
        assert_eq!((counts[4], counts[5]), (2, 3));
        assert_eq!((counts[8], counts[9]), (1, 0));
        assert_eq!(counts.iter().map(|&c| u64::from(c)).sum::<u64>(), 6);
        Ok(())
    }

    #[test]
    fn traces_that_are_not_counts_times_phase_are_refused() {
        let mut set = TuningSet::new();
        for (phase, coefficients) in [
            (10, vec![(4, 10), (5, 23)]), // eg is not count * (32 - phase)
            (10, vec![(4, 15)]),          // not a multiple of the phase
            (0, vec![(4, 5)]),            // mg coefficient at phase 0
            (40, vec![]),                 // phase beyond PHASE_MAX
            (10, vec![(u16::MAX, 10)]),   // no such parameter
        ] {
            let t = Trace { phase, coefficients };
            assert!(matches!(set.push_trace(&t, 0.0, 0), Err(Error::Trace { .. })), "{t:?}");
        }
        assert!(set.is_empty() && set.entries() == 0, "a refused trace leaves nothing behind");
    }

    #[test]
    fn labels_blend_result_and_score() -> Result<()> {
        let mut builder = TuningSetBuilder::new().lambda(0.25)?;
        builder.push_fen(FENS[0], 1.0, Some(0), 1)?;
        builder.push_fen(FENS[0], 0.0, Some(400), 1)?;
        builder.push_fen(FENS[0], 0.5, None, 1)?;
        let set = builder.build();
        // sigmoid(1, 0) = 0.5; sigmoid(1, 400) = 1 / (1 + 10^-1) = 10/11.
        let expected = [0.75 + 0.125, 0.25 * 10.0 / 11.0, 0.5];
        for (label, want) in set.labels().iter().zip(expected) {
            assert!((f64::from(*label) - want).abs() < 1e-6, "{label} vs {want}");
        }
        let mut builder = TuningSetBuilder::new();
        let err = builder.push_fen(FENS[0], 2.0, None, 9).expect_err("result of 2").to_string();
        assert!(err.contains("game 9") && err.contains("result 2"), "{err}");
        assert!(TuningSetBuilder::new().lambda(1.5).is_err());
        let err = builder.push_fen("rnbakabnr/9", 1.0, None, 0).expect_err("bad FEN").to_string();
        assert!(err.contains("rnbakabnr/9"), "{err}");
        Ok(())
    }

    #[test]
    fn split_hash_is_deterministic_and_near_the_fraction() {
        let in_validation = (0..100_000u64).filter(|&g| is_validation_game(g, 0.05)).count();
        assert!((4_500..5_500).contains(&in_validation), "{in_validation}");
        // A golden value: a tuning resumed over the same games must hold out the same ones.
        let first: Vec<u64> = (0..1000u64).filter(|&g| is_validation_game(g, 0.05)).take(8).collect();
        assert_eq!(first, [10, 21, 48, 68, 83, 120, 133, 173], "the validation games at 5% changed");
        for g in 0..1000 {
            assert!(!is_validation_game(g, 0.05) || is_validation_game(g, 0.1), "monotone in the fraction");
            assert!(!is_validation_game(g, 0.0) && is_validation_game(g, 1.0));
        }
    }
}
