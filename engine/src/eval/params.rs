//! `Params`: one integer per parameter, in the layout of `terms::TERMS` (parameter
//! `2 * feature` is the middlegame weight of a feature, `2 * feature + 1` its endgame weight),
//! with names, ranges and checked updates. The TOML format is in `toml_io.rs`.

use super::terms::{self, Group, NUM_FEATURES, NUM_PARAMS, TERMS, Term};
use crate::error::{Error, Result};

/// The game phase a parameter weighs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Phase {
    Middlegame = 0,
    Endgame = 1,
}

impl Phase {
    pub const fn key(self) -> &'static str {
        match self {
            Phase::Middlegame => "mg",
            Phase::Endgame => "eg",
        }
    }
}

/// What one parameter is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParamSpec {
    /// `material.rook.mg`, `pst.knight.eg.17`: the UCI option name and the file key.
    pub name: String,
    pub group: Group,
    pub min: i32,
    pub max: i32,
    pub default: i32,
    /// Index of the term in `terms::TERMS`, the entry within it, and the phase.
    pub term: usize,
    pub entry: usize,
    pub phase: Phase,
}

/// Every evaluation weight. Cheap to share by reference; the evaluation reads it directly.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Params {
    values: [i32; NUM_PARAMS],
}

const fn build(material_only: bool) -> [i32; NUM_PARAMS] {
    let mut values = [0; NUM_PARAMS];
    let mut feature = 0;
    let mut t = 0;
    while t < TERMS.len() {
        let term = &TERMS[t];
        let keep = !material_only || matches!(term.group, Group::Material);
        let mut e = 0;
        while e < term.len() {
            if keep {
                values[2 * feature] = term.mg[e];
                values[2 * feature + 1] = term.eg[e];
            }
            feature += 1;
            e += 1;
        }
        t += 1;
    }
    values
}

const DEFAULT_VALUES: [i32; NUM_PARAMS] = build(false);
const MATERIAL_ONLY_VALUES: [i32; NUM_PARAMS] = build(true);

impl Default for Params {
    /// The hand-set weights of `terms.rs`.
    fn default() -> Params {
        Params { values: DEFAULT_VALUES }
    }
}

fn params_error(key: impl Into<String>, reason: impl Into<String>) -> Error {
    Error::Params { key: key.into(), reason: reason.into() }
}

impl Params {
    /// Material weights at their defaults, every other weight 0 (tempo included).
    pub fn material_only() -> Params {
        Params { values: MATERIAL_ONLY_VALUES }
    }

    /// Builds parameters from raw values, each checked against its range.
    pub fn from_values(values: &[i32]) -> Result<Params> {
        if values.len() != NUM_PARAMS {
            return Err(params_error("(all)", format!("expected {NUM_PARAMS} values, got {}", values.len())));
        }
        let mut params = Params::default();
        for (i, &v) in values.iter().enumerate() {
            params.set(i, v)?;
        }
        Ok(params)
    }

    /// How many parameters there are (`2 * ` the number of features).
    #[inline]
    pub const fn len(&self) -> usize {
        NUM_PARAMS
    }

    /// Never: there is always at least one parameter.
    pub const fn is_empty(&self) -> bool {
        false
    }

    /// Parameter `i`.
    ///
    /// # Panics
    /// When `i >= self.len()`.
    #[inline]
    pub fn get(&self, i: usize) -> i32 {
        self.values[i]
    }

    /// All parameters, in index order.
    #[inline]
    pub fn as_slice(&self) -> &[i32] {
        &self.values
    }

    /// The middlegame and endgame weights of a feature (the evaluation's read).
    #[inline]
    pub(crate) fn feature_weights(&self, feature: usize) -> (i32, i32) {
        (self.values[2 * feature], self.values[2 * feature + 1])
    }

    /// Sets parameter `i`, refusing an index or value outside the declared range.
    pub fn set(&mut self, i: usize, value: i32) -> Result<()> {
        let spec = Params::try_spec(i)
            .ok_or_else(|| params_error(format!("#{i}"), format!("no such parameter (there are {NUM_PARAMS})")))?;
        check_range(&spec.name, i64::from(value), spec.min, spec.max)?;
        self.values[i] = value;
        Ok(())
    }

    /// Sets parameter `i` to `value` moved into its range (for tuners); returns what was set.
    ///
    /// # Panics
    /// When `i >= self.len()`.
    pub fn set_clamped(&mut self, i: usize, value: i64) -> i32 {
        let (term, _, _) = locate(i).unwrap_or_else(|| panic!("no parameter #{i} (there are {NUM_PARAMS})"));
        let t = &TERMS[term];
        let v = value.clamp(i64::from(t.min), i64::from(t.max)) as i32;
        self.values[i] = v;
        v
    }

    /// Sets the parameter called `name` (a UCI option or file key, case-insensitive),
    /// refusing an unknown name or a value outside the declared range.
    pub fn set_by_name(&mut self, name: impl AsRef<str>, value: impl Into<i64>) -> Result<()> {
        let (name, value) = (name.as_ref(), value.into());
        let i = Params::index_of(name).ok_or_else(|| params_error(name, "unknown parameter"))?;
        let spec = Params::spec(i);
        check_range(&spec.name, value, spec.min, spec.max)?;
        self.values[i] = value as i32;
        Ok(())
    }

    /// Name, group, range and default of parameter `i`.
    ///
    /// # Panics
    /// When `i >= self.len()`; see `try_spec`.
    pub fn spec(i: usize) -> ParamSpec {
        Params::try_spec(i).unwrap_or_else(|| panic!("no parameter #{i} (there are {NUM_PARAMS})"))
    }

    /// Name, group, range and default of parameter `i`, if there is one.
    pub fn try_spec(i: usize) -> Option<ParamSpec> {
        let (term, entry, phase) = locate(i)?;
        let t = &TERMS[term];
        Some(ParamSpec {
            name: param_name(t, entry, phase),
            group: t.group,
            min: t.min,
            max: t.max,
            default: DEFAULT_VALUES[i],
            term,
            entry,
            phase,
        })
    }

    /// The name of parameter `i` (`pst.knight.eg.17`).
    pub fn name(i: usize) -> Option<String> {
        let (term, entry, phase) = locate(i)?;
        Some(param_name(&TERMS[term], entry, phase))
    }

    /// Every parameter name, in index order.
    pub fn names() -> impl Iterator<Item = String> {
        (0..NUM_PARAMS).filter_map(Params::name)
    }

    /// The group of parameter `i`.
    pub fn group_of(i: usize) -> Option<Group> {
        locate(i).map(|(term, _, _)| TERMS[term].group)
    }

    /// The index of the parameter called `name` (case-insensitive, as UCI option names are).
    pub fn index_of(name: &str) -> Option<usize> {
        let lower = name.to_ascii_lowercase();
        TERMS.iter().enumerate().find_map(|(t, term)| {
            let rest = lower.strip_prefix(term.name)?.strip_prefix('.')?;
            let (phase, entry) = match rest.split_once('.') {
                Some((phase, entry)) if term.is_table() => (phase, entry.parse::<usize>().ok()?),
                None if !term.is_table() => (rest, 0),
                _ => return None,
            };
            let phase = match phase {
                "mg" => Phase::Middlegame,
                "eg" => Phase::Endgame,
                _ => return None,
            };
            (entry < term.len()).then(|| 2 * (terms::first_feature(t) + entry) + phase as usize)
        })
    }
}

/// Term, entry and phase of parameter `i`.
pub(crate) fn locate(i: usize) -> Option<(usize, usize, Phase)> {
    if i >= NUM_PARAMS {
        return None;
    }
    let (term, entry) = terms::term_of_feature(i / 2)?;
    debug_assert!(i / 2 < NUM_FEATURES);
    Some((term, entry, if i.is_multiple_of(2) { Phase::Middlegame } else { Phase::Endgame }))
}

pub(crate) fn param_name(term: &Term, entry: usize, phase: Phase) -> String {
    if term.is_table() {
        format!("{}.{}.{entry}", term.name, phase.key())
    } else {
        format!("{}.{}", term.name, phase.key())
    }
}

pub(crate) fn check_range(key: &str, value: i64, min: i32, max: i32) -> Result<()> {
    if value < i64::from(min) || value > i64::from(max) {
        return Err(params_error(key, format!("{value} is outside the allowed range {min}..={max}")));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::terms::*;

    fn mg(f: Feature) -> i32 {
        Params::default().feature_weights(f.first).0
    }
    fn eg(f: Feature) -> i32 {
        Params::default().feature_weights(f.first).1
    }
    fn within(a: i32, b: i32, tolerance: f64) -> bool {
        (f64::from(a) - f64::from(b)).abs() <= tolerance * f64::from(a.max(b))
    }

    #[test]
    fn names_and_indices_agree() {
        for (i, name) in Params::names().enumerate() {
            assert_eq!(Params::index_of(&name), Some(i), "{name}");
            assert_eq!(Params::index_of(&name.to_uppercase()), Some(i));
        }
        assert_eq!(Params::names().count(), NUM_PARAMS);
        assert_eq!(Params::index_of("material.rook.mg"), Some(2 * MATERIAL_ROOK.first));
        assert_eq!(Params::index_of("pst.knight.eg.17"), Some(2 * PST_KNIGHT.at(17) + 1));
        for bad in
            ["material.rook", "material.rook.mg.0", "pst.knight.mg", "pst.knight.mg.50", "pst.knight.xg.1", "rook.mg"]
        {
            assert_eq!(Params::index_of(bad), None, "{bad}");
        }
        let spec = Params::spec(2 * PST_PAWN.at(30) + 1);
        assert_eq!(
            (spec.name.as_str(), spec.group, spec.min, spec.max),
            ("pst.pawn.eg.30", Group::Position, -1000, 1000)
        );
        assert_eq!(Params::group_of(2 * TEMPO.first), Some(Group::Misc));
        assert_eq!(Params::try_spec(NUM_PARAMS), None);
    }

    #[test]
    fn checked_updates_name_the_key_and_range() {
        let mut p = Params::default();
        p.set_by_name("Material.Rook.EG", 1100).expect("in range");
        assert_eq!(p.feature_weights(MATERIAL_ROOK.first).1, 1100);
        let err = p.set_by_name("material.rook.eg", 5000).expect_err("out of range").to_string();
        assert!(err.contains("material.rook.eg") && err.contains("5000") && err.contains("0..=3000"), "{err}");
        let err = p.set_by_name("material.queen.mg", 1).expect_err("unknown").to_string();
        assert!(err.contains("material.queen.mg") && err.contains("unknown"), "{err}");
        let err = p.set(2 * TEMPO.first, -300).expect_err("out of range").to_string();
        assert!(err.contains("tempo.mg") && err.contains("-200..=200"), "{err}");
        assert_eq!(p.set_clamped(2 * TEMPO.first, -300), -200);
        assert!(Params::from_values(p.as_slice()).is_ok());
    }

    #[test]
    fn material_only_keeps_material() {
        let m = Params::material_only();
        for i in 0..NUM_PARAMS {
            let expected = if Params::group_of(i) == Some(Group::Material) { Params::default().get(i) } else { 0 };
            assert_eq!(m.get(i), expected, "{:?}", Params::name(i));
        }
    }

    #[test]
    fn defaults_follow_xiangqi_knowledge() {
        for (rook, knight, cannon) in [
            (mg(MATERIAL_ROOK), mg(MATERIAL_KNIGHT), mg(MATERIAL_CANNON)),
            (eg(MATERIAL_ROOK), eg(MATERIAL_KNIGHT), eg(MATERIAL_CANNON)),
        ] {
            assert!(within(rook, 2 * knight, 0.25), "rook {rook} vs two horses {}", 2 * knight);
            assert!(within(knight, cannon, 0.15), "horse {knight} vs cannon {cannon}");
            assert!((900..=1000).contains(&rook) && (400..=460).contains(&knight) && (400..=460).contains(&cannon));
        }
        assert!(mg(MATERIAL_CANNON) > mg(MATERIAL_KNIGHT), "the cannon is worth more on a full board");
        assert!(eg(MATERIAL_KNIGHT) > eg(MATERIAL_CANNON), "the horse is worth more in the endgame");
        assert!(
            within(mg(MATERIAL_ADVISOR), mg(MATERIAL_BISHOP), 0.1)
                && within(eg(MATERIAL_ADVISOR), eg(MATERIAL_BISHOP), 0.1)
        );

        // A pawn across the river (ranks 5-7, any file) against one at home (rank 3).
        let p = Params::default();
        let pawn_on = |sq, phase: usize| {
            let f = PST_PAWN.at(crate::eval::pst::entry(crate::Color::Red, crate::PieceKind::Pawn, sq));
            let (m, e) = (p.feature_weights(MATERIAL_PAWN.first), p.feature_weights(f));
            [m.0 + e.0, m.1 + e.1][phase]
        };
        use crate::Square;
        for phase in [0, 1] {
            let home = pawn_on(Square::E3, phase);
            let crossed: Vec<i32> = [Square::A5, Square::C5, Square::E5, Square::C6, Square::E6, Square::G7]
                .map(|sq| pawn_on(sq, phase))
                .to_vec();
            let mean = crossed.iter().sum::<i32>() / crossed.len() as i32;
            assert!(within(mean, 2 * home, 0.2), "crossed {mean} vs twice home {home}");
        }
    }
}
