//! SPSA leases: the coordinator sends the base variant and, per parameter, the values the two
//! sides play ([`SpsaBatch`]). The worker makes the two variants they describe, rounding each
//! integer parameter stochastically (`floor(v + u)`, u uniform in [0, 1), so the rounded value
//! is v on average), plays the lease with them, and reports the games under the base variant's
//! id, as the coordinator leased them.
//!
//! For the built-in engine a parameter is a name of its parameter file (`search.<key>` or an
//! evaluation name), checked against its declared range; for an external engine it is an
//! option, set after the variant's own options.

use engine::ParamSet;
use proto::domain::{Lease, PairReport, SpsaBatch, Variant, VariantId, VariantKind, VariantSpec};

use crate::error::{Error, Result};

/// A lease made playable: `lease` names the plus and minus variants instead of the base.
#[derive(Clone, Debug)]
pub struct Realized {
    pub lease: Lease,
    base: VariantId,
    sides: [VariantId; 2],
}

impl Realized {
    /// Names the base variant again where the games name a side.
    pub fn restore(&self, pair: &mut PairReport) {
        for game in &mut pair.games {
            for id in [&mut game.red, &mut game.black] {
                if self.sides.contains(id) {
                    *id = self.base.clone();
                }
            }
        }
    }
}

/// SplitMix64.
pub(crate) fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A uniform number in [0, 1) from a seed.
fn uniform(seed: u64) -> f64 {
    (mix(seed) >> 11) as f64 / (1u64 << 53) as f64
}

/// `v` rounded down or up, up with probability `v - floor(v)`, for uniform `u` in [0, 1).
pub fn stochastic_round(v: f64, u: f64) -> i64 {
    (v + u).floor() as i64
}

/// The variants an SPSA lease plays, or `None` for a lease of another kind. A parameter the
/// base variant cannot take (an unknown name, a value outside the engine's range) refuses the
/// lease, naming it.
pub fn realize(lease: &Lease, seed: u64) -> Result<Option<Realized>> {
    let Some(batch) = &lease.spsa else {
        return Ok(None);
    };
    let base_id = lease
        .tasks
        .first()
        .map(|t| t.variants[0].clone())
        .ok_or_else(|| Error::Engine { engine: "spsa".into(), reason: format!("lease {} has no task", lease.id) })?;
    let base = lease.variants.iter().find(|v| v.id == base_id).ok_or_else(|| Error::Engine {
        engine: base_id.to_string(),
        reason: "the lease does not describe it".into(),
    })?;
    let sides = [0usize, 1].map(|side| VariantId::new(format!("{base_id}~spsa{}{}", lease.id, ["+", "-"][side])));
    let mut variants = lease.variants.clone();
    for (side, id) in sides.iter().enumerate() {
        let spec = side_spec(base, batch, side, seed ^ mix(lease.id.get()) ^ mix(side as u64 + 1))?;
        variants.push(Variant { id: id.clone(), spec });
    }
    let mut realized = lease.clone();
    for task in &mut realized.tasks {
        task.variants = sides.clone();
    }
    realized.variants = variants;
    Ok(Some(Realized { lease: realized, base: base_id, sides }))
}

impl Realized {
    /// Each parameter's `(name, low, high)` over the two sides of `batch`: what the engine must
    /// admit for the lease to be playable.
    pub fn side_ranges(batch: &SpsaBatch) -> Vec<(String, f64, f64)> {
        batch.points.iter().map(|p| (p.name.clone(), p.plus.min(p.minus), p.plus.max(p.minus))).collect()
    }

    /// The base variant the lease tunes.
    pub fn base<'a>(&self, lease: &'a Lease) -> Option<&'a Variant> {
        lease.variants.iter().find(|v| v.id == self.base)
    }
}

/// The base variant with one side's values.
fn side_spec(base: &Variant, batch: &SpsaBatch, side: usize, seed: u64) -> Result<VariantSpec> {
    let values: Vec<(String, String, f64)> = batch
        .points
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let v = if side == 0 { p.plus } else { p.minus };
            let text = if p.integer || matches!(base.spec.kind, VariantKind::Params { .. }) {
                stochastic_round(v, uniform(seed ^ mix(i as u64))).to_string()
            } else {
                format!("{v}")
            };
            (p.name.clone(), text, v)
        })
        .collect();
    let refuse = |reason: String| Error::Engine { engine: base.spec.name.clone(), reason };
    let kind = match &base.spec.kind {
        VariantKind::Params { toml } => {
            let mut set =
                ParamSet::from_toml_str(toml).map_err(|e| refuse(format!("parameters of variant {}: {e}", base.id)))?;
            for (name, text, _) in &values {
                let n: i64 = text.parse().map_err(|_| refuse(format!("SPSA value `{text}` of `{name}`")))?;
                set.set(name, n).map_err(|e| refuse(format!("SPSA parameter: {e}")))?;
            }
            VariantKind::Params { toml: set.to_toml() }
        }
        VariantKind::External { engine, protocol, options } => {
            let mut options = options.clone();
            for (name, text, _) in values {
                options.retain(|(k, _)| !k.eq_ignore_ascii_case(&name));
                options.push((name, text));
            }
            VariantKind::External { engine: engine.clone(), protocol: *protocol, options }
        }
    };
    let sign = if side == 0 { "+" } else { "-" };
    Ok(VariantSpec { name: format!("{}{sign}", base.spec.name), kind })
}

#[cfg(test)]
mod tests {
    use proto::domain::{
        Adjudication, EngineProtocol, GameOutcome, GameReport, LeaseId, PairTask, RunId, SpsaPoint, Termination,
        TimeControl,
    };

    use super::*;

    fn lease(kind: VariantKind, points: Vec<SpsaPoint>) -> Lease {
        let base = Variant { id: VariantId::new("base"), spec: VariantSpec { name: "b".into(), kind } };
        let task = |i| PairTask {
            pair_index: i,
            pairing: 0,
            opening_index: 0,
            opening: "startpos".into(),
            second_opening: None,
            variants: [base.id.clone(), base.id.clone()],
        };
        Lease {
            id: LeaseId::new(5),
            run: RunId::new(1),
            tasks: vec![task(0), task(1)],
            deadline_unix_ms: 0,
            tc: TimeControl::Nodes(100),
            adjudication: Adjudication::default(),
            sample_every: 0,
            variants: vec![base],
            spsa: Some(SpsaBatch { iteration: 1, points }),
            tablebases: Vec::new(),
        }
    }

    fn point(name: &str, plus: f64, minus: f64) -> SpsaPoint {
        SpsaPoint { name: name.into(), plus, minus, integer: true }
    }

    #[test]
    fn in_process_sides_carry_their_values() {
        let l = lease(
            VariantKind::Params { toml: String::new() },
            vec![point("search.rfp_margin", 100.0, 80.0), point("material.rook.mg", 950.0, 900.0)],
        );
        let r = realize(&l, 7).expect("playable").expect("an SPSA lease");
        assert!(r.lease.tasks.iter().all(|t| t.variants == r.sides));
        let set = |id: &VariantId| match &r.lease.variants.iter().find(|v| &v.id == id).expect("described").spec.kind {
            VariantKind::Params { toml } => ParamSet::from_toml_str(toml).expect("loads"),
            other => panic!("{other:?}"),
        };
        let (plus, minus) = (set(&r.sides[0]), set(&r.sides[1]));
        assert_eq!(plus.get("search.rfp_margin"), Some(100));
        assert_eq!(minus.get("search.rfp_margin"), Some(80));
        assert_eq!(plus.get("material.rook.mg"), Some(950));
        assert_eq!(minus.get("material.rook.mg"), Some(900));
    }

    #[test]
    fn a_parameter_the_engine_lacks_refuses_the_lease() {
        for (name, v) in [("search.nope", 1.0), ("search.rfp_margin", 5000.0)] {
            let l = lease(VariantKind::Params { toml: String::new() }, vec![point(name, v, v)]);
            let e = realize(&l, 1).expect_err(name).to_string();
            assert!(e.contains(name), "{e}");
        }
    }

    #[test]
    fn external_sides_set_options_after_their_own() {
        let kind = VariantKind::External {
            engine: "fsf".into(),
            protocol: EngineProtocol::Uci,
            options: vec![("Hash".into(), "16".into()), ("Tempo".into(), "5".into())],
        };
        let mut p = point("Tempo", 12.0, 8.0);
        p.integer = true;
        let mut f = point("Scale", 0.75, 0.25);
        f.integer = false;
        let r = realize(&lease(kind, vec![p, f]), 3).expect("playable").expect("SPSA");
        let options =
            |id: &VariantId| match &r.lease.variants.iter().find(|v| &v.id == id).expect("described").spec.kind {
                VariantKind::External { options, .. } => options.clone(),
                other => panic!("{other:?}"),
            };
        assert_eq!(
            options(&r.sides[0]),
            vec![("Hash".into(), "16".into()), ("Tempo".into(), "12".into()), ("Scale".into(), "0.75".into())]
        );
        assert_eq!(options(&r.sides[1])[1], ("Tempo".to_owned(), "8".to_owned()));
    }

    #[test]
    fn rounding_is_unbiased() {
        let n = 20_000;
        let total: i64 = (0..n).map(|i| stochastic_round(10.3, uniform(i))).sum();
        let mean = total as f64 / n as f64;
        assert!((mean - 10.3).abs() < 0.02, "{mean}");
        assert!((0..1000).all(|i| (10..=11).contains(&stochastic_round(10.3, uniform(i)))));
        assert_eq!(stochastic_round(7.0, 0.999), 7);
        assert_eq!(stochastic_round(-0.5, 0.6), 0);
    }

    #[test]
    fn games_are_reported_under_the_base() {
        let l = lease(VariantKind::Params { toml: String::new() }, vec![point("search.rfp_margin", 100.0, 80.0)]);
        let r = realize(&l, 7).expect("playable").expect("SPSA");
        let game = |red: &VariantId, black: &VariantId| GameReport {
            red: red.clone(),
            black: black.clone(),
            start_fen: String::new(),
            outcome: GameOutcome::Draw,
            reason: Termination::AdjudicatedDraw,
            moves: vec![],
            move_stats: vec![],
            forfeit: None,
            duration_ms: 0,
            nodes: 0,
            positions: vec![],
        };
        let mut pair =
            PairReport { pair_index: 0, games: [game(&r.sides[0], &r.sides[1]), game(&r.sides[1], &r.sides[0])] };
        r.restore(&mut pair);
        assert!(pair.games.iter().all(|g| g.red.as_str() == "base" && g.black.as_str() == "base"));
        assert!(realize(&Lease { spsa: None, ..l }, 1).expect("fine").is_none());
    }
}
