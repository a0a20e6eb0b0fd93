//! SPSA as Fishtest runs it, in pure functions: the schedule, the perturbation a lease plays
//! and the update its results make. No IO: the workflow stores what these compute.
//!
//! With N iterations (game pairs), `A = 0.1 N`, alpha = 0.602 and gamma = 0.101, each parameter
//! has `c = c_end N^gamma` and `a = r_end c_end² (A + N)^alpha`. At iteration k (1-based) its
//! perturbation is `c_k = c / k^gamma` (at least 0.5 for an integer) and its step
//! `R_k = a / (A + k)^alpha / c_k²`. A lease plays theta + c_k flip against theta - c_k flip
//! (both clipped to the range), flip = ±1 per parameter; a recorded pair with W wins and L
//! losses of the plus side moves theta by `R_k c_k (W - L) flip`, clipped.

use proto::domain::{
    LeaseId, RunId, SPSA_A_RATIO, SPSA_ALPHA, SPSA_GAMMA, SpsaBatch, SpsaParam, SpsaPoint, SpsaSettings, SpsaValue,
};

/// An SPSA run's values after some pairs (kept in `proto`, where the Parquet files read it too).
pub use proto::domain::HistoryPoint;

/// One parameter's perturbation in a lease: what its results are applied with.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Perturbation {
    /// +1 or -1.
    pub flip: i8,
    /// c_k.
    pub c: f64,
    /// R_k = a_k / c_k².
    pub r: f64,
}

/// c_k and R_k of a parameter at iteration `k` (1-based) of `n`.
pub fn gains(param: &SpsaParam, n: u64, k: u64) -> (f64, f64) {
    let n = n.max(1) as f64;
    let k = k.max(1) as f64;
    let big_a = SPSA_A_RATIO * n;
    let c0 = param.c_end * n.powf(SPSA_GAMMA);
    let a0 = param.r_end * param.c_end * param.c_end * (big_a + n).powf(SPSA_ALPHA);
    let mut c = c0 / k.powf(SPSA_GAMMA);
    if param.integer {
        c = c.max(0.5);
    }
    let a = a0 / (big_a + k).powf(SPSA_ALPHA);
    (c, a / (c * c))
}

/// SplitMix64: a well-mixed 64-bit hash of a counter.
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The ±1 flips of a lease: drawn from the run, the lease and the parameter's index, so that
/// they are independent between leases and the same on a replay of the store.
pub fn flips(run: RunId, lease: LeaseId, count: usize) -> Vec<i8> {
    let seed = mix(run.get() ^ mix(lease.get()));
    (0..count as u64).map(|i| if mix(seed ^ mix(i)) & 1 == 0 { 1 } else { -1 }).collect()
}

fn clip(param: &SpsaParam, v: f64) -> f64 {
    v.clamp(param.min, param.max)
}

/// The perturbation of every parameter at iteration `k`, and the batch the lease carries.
pub fn perturb(settings: &SpsaSettings, theta: &[f64], k: u64, flips: &[i8]) -> (Vec<Perturbation>, SpsaBatch) {
    let mut perturbations = Vec::with_capacity(settings.params.len());
    let mut points = Vec::with_capacity(settings.params.len());
    for ((param, &t), &flip) in settings.params.iter().zip(theta).zip(flips) {
        let (c, r) = gains(param, settings.pairs, k);
        let shift = c * f64::from(flip);
        perturbations.push(Perturbation { flip, c, r });
        points.push(SpsaPoint {
            name: param.name.clone(),
            plus: clip(param, t + shift),
            minus: clip(param, t - shift),
            integer: param.integer,
        });
    }
    (perturbations, SpsaBatch { iteration: k, points })
}

/// Applies results to theta: `wins_minus_losses` of the plus side over the pairs recorded,
/// with the perturbations of the lease that played them.
pub fn update(settings: &SpsaSettings, theta: &mut [f64], perturbations: &[Perturbation], wins_minus_losses: i64) {
    let result = wins_minus_losses as f64;
    for ((param, t), p) in settings.params.iter().zip(theta.iter_mut()).zip(perturbations) {
        *t = clip(param, *t + p.r * p.c * result * f64::from(p.flip));
    }
}

/// The start values of a run's parameters.
pub fn start(settings: &SpsaSettings) -> Vec<f64> {
    settings.params.iter().map(|p| p.start).collect()
}

/// Each parameter's current value, for `run show` and the web.
pub fn values(settings: &SpsaSettings, theta: &[f64]) -> Vec<SpsaValue> {
    settings
        .params
        .iter()
        .zip(theta)
        .map(|(p, &value)| SpsaValue {
            name: p.name.clone(),
            start: p.start,
            value,
            min: p.min,
            max: p.max,
            integer: p.integer,
        })
        .collect()
}

/// W - L of the pair's first player from its half points (0..=4) over the two games.
pub fn wins_minus_losses(first_half_points: usize) -> i64 {
    first_half_points as i64 - 2
}

/// Values as stored in one text field: `{:?}` of each f64 (which reads back exactly), comma
/// separated.
pub fn encode_values(values: &[f64]) -> String {
    values.iter().map(|v| format!("{v:?}")).collect::<Vec<_>>().join(",")
}

/// Reads [`encode_values`]; `None` for anything else.
pub fn decode_values(text: &str) -> Option<Vec<f64>> {
    if text.is_empty() {
        return Some(Vec::new());
    }
    text.split(',').map(|t| t.parse::<f64>().ok()).collect()
}

/// Perturbations as stored: `flip:c:r` each, comma separated.
pub fn encode_perturbations(ps: &[Perturbation]) -> String {
    ps.iter().map(|p| format!("{}:{:?}:{:?}", p.flip, p.c, p.r)).collect::<Vec<_>>().join(",")
}

/// Reads [`encode_perturbations`]; `None` for anything else.
pub fn decode_perturbations(text: &str) -> Option<Vec<Perturbation>> {
    if text.is_empty() {
        return Some(Vec::new());
    }
    text.split(',')
        .map(|item| {
            let mut it = item.split(':');
            let flip: i8 = it.next()?.parse().ok().filter(|f: &i8| f.abs() == 1)?;
            let c = it.next()?.parse().ok()?;
            let r = it.next()?.parse().ok()?;
            it.next().is_none().then_some(Perturbation { flip, c, r })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn param(integer: bool) -> SpsaParam {
        SpsaParam { name: "x".into(), start: 100.0, min: 0.0, max: 200.0, c_end: 10.0, r_end: 0.002, integer }
    }

    #[test]
    fn the_schedule_ends_at_c_end_and_r_end() {
        let p = param(false);
        let (c, r) = gains(&p, 1000, 1000);
        assert!((c - 10.0).abs() < 1e-9, "{c}");
        assert!((r - 0.002).abs() < 1e-12, "{r}");
        // Fishtest's constants: c = c_end N^gamma, a = r_end c_end^2 (A + N)^alpha.
        let (c1, r1) = gains(&p, 1000, 1);
        assert!((c1 - 10.0 * 1000f64.powf(0.101)).abs() < 1e-9, "{c1}");
        let a1 = 0.002 * 100.0 * 1100f64.powf(0.602) / 101f64.powf(0.602);
        assert!((r1 - a1 / (c1 * c1)).abs() < 1e-12);
        // Larger early, decreasing.
        assert!(c1 > c && gains(&p, 1000, 500).0 > c);
    }

    #[test]
    fn integer_perturbations_are_floored_at_a_half() {
        let mut p = param(true);
        p.c_end = 0.1;
        let (c, r) = gains(&p, 1000, 1000);
        assert_eq!(c, 0.5);
        let a = 0.002 * 0.01 * 1100f64.powf(0.602) / 1100f64.powf(0.602);
        assert!((r - a / 0.25).abs() < 1e-12);
        assert!(gains(&param(false), 1000, 1000).0 > 0.5);
    }

    #[test]
    fn perturbations_are_symmetric_and_clipped() {
        let settings =
            SpsaSettings { pairs: 100, params: vec![param(false), SpsaParam { start: 199.0, ..param(false) }] };
        let theta = start(&settings);
        let (ps, batch) = perturb(&settings, &theta, 100, &[1, -1]);
        assert_eq!(batch.iteration, 100);
        assert_eq!((batch.points[0].plus, batch.points[0].minus), (110.0, 90.0));
        // The second is flipped and clipped at max.
        assert_eq!((batch.points[1].plus, batch.points[1].minus), (189.0, 200.0));
        assert_eq!(ps[1].flip, -1);
    }

    #[test]
    fn updates_follow_the_winner_and_stay_in_range() {
        let settings = SpsaSettings { pairs: 100, params: vec![param(false)] };
        let mut theta = start(&settings);
        let ps = [Perturbation { flip: 1, c: 10.0, r: 0.002 }];
        update(&settings, &mut theta, &ps, 2);
        assert!((theta[0] - (100.0 + 0.002 * 10.0 * 2.0)).abs() < 1e-12);
        update(&settings, &mut theta, &[Perturbation { flip: -1, ..ps[0] }], 2);
        assert!((theta[0] - 100.0).abs() < 1e-12, "a win of the plus side with flip -1 moves down");
        update(&settings, &mut theta, &[Perturbation { flip: 1, c: 10.0, r: 100.0 }], -2);
        assert_eq!(theta[0], 0.0, "clipped to min");
        assert_eq!(update_zero(&settings), 0.0);
    }

    fn update_zero(settings: &SpsaSettings) -> f64 {
        let mut theta = vec![0.0];
        update(settings, &mut theta, &[Perturbation { flip: 1, c: 10.0, r: 0.002 }], 0);
        theta[0]
    }

    #[test]
    fn flips_are_balanced_reproducible_and_differ_by_lease() {
        let a = flips(RunId::new(3), LeaseId::new(7), 4000);
        assert_eq!(a, flips(RunId::new(3), LeaseId::new(7), 4000));
        assert_ne!(a, flips(RunId::new(3), LeaseId::new(8), 4000));
        let plus = a.iter().filter(|&&f| f == 1).count();
        assert!((1800..=2200).contains(&plus), "{plus} of 4000");
        assert!(a.iter().all(|f| f.abs() == 1));
    }

    #[test]
    fn stored_texts_round_trip() {
        let values = [0.1, -3.0, 1e-300, 123456.789];
        assert_eq!(decode_values(&encode_values(&values)).expect("decodes"), values);
        let ps = [Perturbation { flip: -1, c: 0.5, r: 0.001_234 }, Perturbation { flip: 1, c: 12.25, r: 3.0 }];
        assert_eq!(decode_perturbations(&encode_perturbations(&ps)).expect("decodes"), ps);
        assert_eq!(decode_perturbations("2:1:1"), None);
        assert_eq!(decode_values("1,x"), None);
    }

    #[test]
    fn half_points_give_wins_minus_losses() {
        assert_eq!((0..=4).map(wins_minus_losses).collect::<Vec<_>>(), [-2, -1, 0, 1, 2]);
    }
}
