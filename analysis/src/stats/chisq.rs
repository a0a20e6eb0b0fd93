//! Whether every worker's results look alike, as Fishtest checks a run for bad workers (a
//! broken build, an overloaded machine losing on time): chi-square tests on the table of
//! workers × pentanomial outcomes (Fishtest's `util.get_chi2`), and the chi-square survival
//! function they need.
//!
//! - The run's homogeneity test: all workers draw from one distribution, tested with Pearson's
//!   statistic on the whole table, df = (workers - 1)(outcomes - 1).
//! - Each worker against the pooled rest: the chi-square of the 2 × outcomes table "this worker
//!   / all the others", df = outcomes - 1 (Fishtest's `adj_row_chi2`, the worker's row of the
//!   full statistic divided by 1 - its share of the pairs). This compares the worker with the
//!   others' distribution while counting the others' sampling noise too, and it is finite
//!   without any prior: every expected count is a positive row total times a positive column
//!   total. A goodness-of-fit test against the others' proportions would treat them as exact
//!   and overstate the evidence when the others have few pairs.
//!
//! Workers without pairs and outcomes nobody reached are left out of the tables. The
//! chi-square law is only an approximation, poor when expected counts fall below about 5:
//! Fishtest merges the rare WW and LL pairs into WD and LD for that reason. Callers can do the
//! same by adding a rare outcome's count into its neighbour and leaving the rare one at zero.

use std::f64::consts::PI;

/// Relative accuracy at which the series and the continued fraction stop.
const EPSILON: f64 = f64::EPSILON;
/// More terms than either needs for any degrees of freedom below a million.
const MAX_TERMS: usize = 100_000;

/// P(X > x) for X chi-square distributed with `df` degrees of freedom: the regularized upper
/// incomplete gamma function Q(df/2, x/2), to about 1e-13 relative accuracy (also deep in the
/// tail, until it underflows to 0). 1 for x ≤ 0; NaN for a NaN argument or `df` not positive
/// and finite.
pub fn chi_square_sf(x: f64, df: f64) -> f64 {
    if x.is_nan() || df.is_nan() || df <= 0.0 || df.is_infinite() {
        return f64::NAN;
    }
    if x <= 0.0 {
        return 1.0;
    }
    if x.is_infinite() {
        return 0.0;
    }
    let (a, x) = (df / 2.0, x / 2.0);
    // Numerical Recipes' split: below a + 1 the series for P converges fast and Q = 1 - P
    // cannot be small; above it the continued fraction for Q converges fast.
    if x < a + 1.0 { 1.0 - lower_gamma_series(a, x) } else { upper_gamma_fraction(a, x) }
}

/// x^a e^-x / Γ(a), the factor in front of both expansions.
fn gamma_prefactor(a: f64, x: f64) -> f64 {
    (a * x.ln() - x - ln_gamma(a)).exp()
}

/// The regularized lower incomplete gamma function P(a, x) as the series
/// x^a e^-x / Γ(a) Σ x^n / (a (a+1) ... (a+n)).
fn lower_gamma_series(a: f64, x: f64) -> f64 {
    let (mut denominator, mut term) = (a, 1.0 / a);
    let mut sum = term;
    for _ in 0..MAX_TERMS {
        denominator += 1.0;
        term *= x / denominator;
        sum += term;
        if term.abs() < sum.abs() * EPSILON {
            break;
        }
    }
    sum * gamma_prefactor(a, x)
}

/// Q(a, x) from Legendre's continued fraction, evaluated by the modified Lentz method.
fn upper_gamma_fraction(a: f64, x: f64) -> f64 {
    let tiny = f64::MIN_POSITIVE / EPSILON;
    let mut b = x + 1.0 - a;
    let (mut c, mut d) = (1.0 / tiny, 1.0 / b);
    let mut fraction = d;
    for i in 1..MAX_TERMS {
        let an = -(i as f64) * (i as f64 - a);
        b += 2.0;
        d = an * d + b;
        if d.abs() < tiny {
            d = tiny;
        }
        c = b + an / c;
        if c.abs() < tiny {
            c = tiny;
        }
        d = 1.0 / d;
        let delta = d * c;
        fraction *= delta;
        if (delta - 1.0).abs() < EPSILON {
            break;
        }
    }
    fraction * gamma_prefactor(a, x)
}

/// ln Γ(a) for a > 0: Lanczos' approximation (g = 7, 9 terms, relative error near 1e-15),
/// with the reflection formula below 1/2.
fn ln_gamma(a: f64) -> f64 {
    const G: f64 = 7.0;
    const COEFFICIENTS: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    if a < 0.5 {
        return (PI / (PI * a).sin()).ln() - ln_gamma(1.0 - a);
    }
    let x = a - 1.0;
    let series = COEFFICIENTS[1..].iter().enumerate().fold(COEFFICIENTS[0], |s, (i, c)| s + c / (x + i as f64 + 1.0));
    let t = x + G + 0.5;
    0.5 * (2.0 * PI).ln() + (x + 0.5) * t.ln() - t + series.ln()
}

/// One worker's test against all the others.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WorkerCheck {
    /// Index of the worker in the counts.
    pub worker: usize,
    /// Chi-square of the 2 × outcomes table "this worker / the others"; 0 when there is nothing
    /// to compare (no pairs from this worker or from the others).
    pub statistic: f64,
    /// Outcomes anyone reached, minus 1; 0 when there is nothing to compare.
    pub df: u32,
    /// P(chi-square ≥ statistic) if the worker plays like the others; 1 when df is 0.
    pub p_value: f64,
    /// `p_value` below the flagging threshold.
    pub flagged: bool,
}

/// The consistency of a run's workers.
#[derive(Clone, Debug, PartialEq)]
pub struct Consistency {
    /// Pearson's chi-square of the workers × outcomes table (homogeneity).
    pub statistic: f64,
    /// (workers with pairs - 1) × (outcomes anyone reached - 1).
    pub df: u32,
    /// P(chi-square ≥ statistic) if all workers play alike; 1 when df is 0 (no or one worker).
    pub p_value: f64,
    /// Every worker of the input, in input order.
    pub workers: Vec<WorkerCheck>,
}

/// Tests whether the workers' pentanomial counts (`counts[w]` for worker `w`) come from one
/// distribution, overall and worker by worker; a worker is flagged when its p-value is below
/// `flag_p` (Fishtest uses 0.001).
pub fn worker_consistency(counts: &[[u64; 5]], flag_p: f64) -> Consistency {
    let rows: Vec<f64> = counts.iter().map(|c| c.iter().map(|&n| n as f64).sum()).collect();
    let mut columns = [0.0; 5];
    for row in counts {
        columns.iter_mut().zip(row).for_each(|(column, &n)| *column += n as f64);
    }
    let total: f64 = columns.iter().sum();
    let outcomes = columns.iter().filter(|&&c| c > 0.0).count();
    let active = rows.iter().filter(|&&r| r > 0.0).count();
    // Each worker's share of Pearson's statistic: Σ over reached outcomes (O - E)² / E.
    let row_statistics: Vec<f64> = counts
        .iter()
        .zip(&rows)
        .map(|(row, &n)| {
            let cells = row.iter().zip(&columns).filter(|&(_, &column)| n > 0.0 && column > 0.0);
            cells
                .map(|(&observed, &column)| (observed as f64 - n * column / total).powi(2) / (n * column / total))
                .sum()
        })
        .collect();
    let statistic: f64 = row_statistics.iter().sum();
    let df = degrees(active.saturating_sub(1) * outcomes.saturating_sub(1));
    let workers = row_statistics
        .iter()
        .zip(&rows)
        .enumerate()
        .map(|(worker, (&row_statistic, &n))| {
            let comparable = n > 0.0 && n < total && outcomes > 1;
            let (statistic, df) =
                if comparable { (row_statistic / (1.0 - n / total), degrees(outcomes - 1)) } else { (0.0, 0) };
            let p_value = p_value(statistic, df);
            WorkerCheck { worker, statistic, df, p_value, flagged: p_value < flag_p }
        })
        .collect();
    Consistency { statistic, df, p_value: p_value(statistic, df), workers }
}

fn degrees(df: usize) -> u32 {
    u32::try_from(df).unwrap_or(u32::MAX)
}

fn p_value(statistic: f64, df: u32) -> f64 {
    if df == 0 { 1.0 } else { chi_square_sf(statistic, f64::from(df)) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::erfc;

    fn assert_relative(actual: f64, expected: f64, tolerance: f64) {
        assert!((actual - expected).abs() <= tolerance * expected.abs(), "{actual} vs {expected}");
    }

    #[test]
    fn survival_function_reference_values() {
        // Quantiles and values from mpmath's regularized incomplete gamma at 30 digits.
        let cases = [
            (3.841_458_820_694_126, 1.0, 0.05),
            (5.991_464_547_107_982, 2.0, 0.05),
            (11.070_497_693_516_354, 5.0, 0.05),
            (124.342_113_404_004_08, 100.0, 0.05),
            (1_074.679_448_803_441, 1000.0, 0.05),
            (0.5, 0.5, 0.256_322_055_268_538_96),
            (50.0, 7.0, 1.444_485_277_921_540_5e-8),
            (1000.0, 400.0, 3.727_281_642_311_179e-53),
        ];
        for (x, df, expected) in cases {
            assert_relative(chi_square_sf(x, df), expected, 1e-12);
        }
        assert!((chi_square_sf(3.841459, 1.0) - 0.05).abs() < 1e-6);
        assert!((chi_square_sf(11.0705, 5.0) - 0.05).abs() < 1e-6);
    }

    #[test]
    fn survival_function_closed_forms() {
        for x in [1e-3, 0.3, 1.0, 2.9, 3.1, 8.0, 40.0, 300.0, 1200.0] {
            let (root, decay) = ((x / 2.0f64).sqrt(), (-x / 2.0f64).exp());
            assert_relative(chi_square_sf(x, 1.0), erfc(root), 1e-12);
            assert_relative(chi_square_sf(x, 2.0), decay, 1e-12);
            assert_relative(chi_square_sf(x, 3.0), erfc(root) + (2.0 * x / PI).sqrt() * decay, 1e-12);
            assert_relative(chi_square_sf(x, 4.0), decay * (1.0 + x / 2.0), 1e-12);
        }
    }

    #[test]
    fn survival_function_edges() {
        for df in [0.5, 1.0, 4.0, 250.0] {
            assert_eq!(chi_square_sf(0.0, df), 1.0);
            assert_eq!(chi_square_sf(-3.0, df), 1.0);
            assert_eq!(chi_square_sf(f64::INFINITY, df), 0.0);
            assert!(chi_square_sf(1e5, df) < 1e-300);
        }
        assert!(chi_square_sf(1.0, 0.0).is_nan() && chi_square_sf(f64::NAN, 2.0).is_nan());
    }

    #[test]
    fn identical_workers_are_consistent() {
        let c = worker_consistency(&[[5, 20, 50, 20, 5]; 4], 0.001);
        assert_eq!((c.statistic, c.df, c.p_value), (0.0, 12, 1.0));
        assert_eq!(c.workers.len(), 4);
        assert!(c.workers.iter().all(|w| w.df == 4 && w.p_value > 0.999 && !w.flagged));
    }

    #[test]
    fn similar_workers_are_not_flagged() {
        let counts = [[6, 19, 52, 18, 5], [4, 22, 47, 21, 6], [5, 20, 50, 20, 5], [5, 18, 51, 22, 4]];
        let c = worker_consistency(&counts, 0.001);
        assert!(c.p_value > 0.5, "{c:?}");
        assert!(c.workers.iter().all(|w| w.p_value > 0.3 && !w.flagged), "{c:?}");
    }

    #[test]
    fn a_deviant_worker_is_flagged_alone() {
        let mut counts = vec![[10, 40, 100, 40, 10]; 5];
        counts[3] = [45, 70, 70, 12, 3]; // losing far more: a broken build or a slow machine
        let c = worker_consistency(&counts, 0.001);
        assert!(c.p_value < 1e-10);
        let flagged: Vec<usize> = c.workers.iter().filter(|w| w.flagged).map(|w| w.worker).collect();
        assert_eq!(flagged, [3]);
        assert!(c.workers[3].p_value < 1e-10);
    }

    #[test]
    fn worker_against_the_rest_is_a_two_row_table() {
        // With two workers the 2 × 5 table is the whole table.
        let c = worker_consistency(&[[3, 10, 30, 12, 5], [8, 15, 25, 9, 3]], 0.001);
        assert_eq!(c.df, 4);
        for w in &c.workers {
            assert_relative(w.statistic, c.statistic, 1e-12);
            assert_relative(w.p_value, c.p_value, 1e-12);
        }
    }

    #[test]
    fn empty_workers_and_outcomes_are_left_out() {
        assert_eq!(
            worker_consistency(&[], 0.001),
            Consistency { statistic: 0.0, df: 0, p_value: 1.0, workers: Vec::new() }
        );
        let c = worker_consistency(&[[0, 10, 30, 10, 0], [0; 5], [0, 12, 28, 10, 0]], 0.001);
        assert_eq!(c.df, 2); // 2 workers with pairs, 3 outcomes reached
        assert_eq!((c.workers[1].statistic, c.workers[1].df, c.workers[1].p_value), (0.0, 0, 1.0));
        assert_eq!(c.workers[0].df, 2);
        // A lone worker has nobody to be compared with.
        let lone = worker_consistency(&[[1, 2, 3, 4, 5]], 0.5);
        assert_eq!((lone.df, lone.p_value, lone.workers[0].p_value, lone.workers[0].flagged), (0, 1.0, 1.0, false));
    }
}
