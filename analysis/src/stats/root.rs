//! Brent's bracketing root finder, the algorithm of scipy's `brentq` (Charles Harris's
//! `brentq.c`), with scipy's default tolerances so the roots, and through them the
//! log-likelihood ratios, agree with Fishtest's to about 1e-12.

/// scipy's default absolute tolerance on the root.
const XTOL: f64 = 2e-12;
/// scipy's default relative tolerance, 4 machine epsilons.
const RTOL: f64 = 4.0 * f64::EPSILON;
const MAX_ITERATIONS: usize = 100;

/// A root of `f` in `[a, b]`, where `f(a)` and `f(b)` differ in sign. `None` when they do not,
/// when `f` returns NaN, or when 100 iterations do not converge.
pub(crate) fn brentq(f: impl Fn(f64) -> f64, a: f64, b: f64) -> Option<f64> {
    let (mut xpre, mut xcur) = (a, b);
    let (mut fpre, mut fcur) = (f(xpre), f(xcur));
    if fpre.is_nan() || fcur.is_nan() {
        return None;
    }
    if fpre == 0.0 {
        return Some(xpre);
    }
    if fcur == 0.0 {
        return Some(xcur);
    }
    if fpre.is_sign_negative() == fcur.is_sign_negative() {
        return None;
    }
    let (mut xblk, mut fblk) = (0.0, 0.0);
    let (mut spre, mut scur) = (0.0, 0.0);
    for _ in 0..MAX_ITERATIONS {
        if fpre != 0.0 && fcur != 0.0 && fpre.is_sign_negative() != fcur.is_sign_negative() {
            xblk = xpre;
            fblk = fpre;
            spre = xcur - xpre;
            scur = spre;
        }
        if fblk.abs() < fcur.abs() {
            // Keep the best estimate in xcur.
            xpre = xcur;
            xcur = xblk;
            xblk = xpre;
            fpre = fcur;
            fcur = fblk;
            fblk = fpre;
        }
        let delta = (XTOL + RTOL * xcur.abs()) / 2.0;
        let sbis = (xblk - xcur) / 2.0;
        if fcur == 0.0 || sbis.abs() < delta {
            return Some(xcur);
        }
        let mut bisect = true;
        if spre.abs() > delta && fcur.abs() < fpre.abs() {
            let stry = if xpre == xblk {
                // Secant step.
                -fcur * (xcur - xpre) / (fcur - fpre)
            } else {
                // Inverse quadratic interpolation.
                let dpre = (fpre - fcur) / (xpre - xcur);
                let dblk = (fblk - fcur) / (xblk - xcur);
                -fcur * (fblk * dblk - fpre * dpre) / (dblk * dpre * (fblk - fpre))
            };
            if 2.0 * stry.abs() < spre.abs().min(3.0 * sbis.abs() - delta) {
                spre = scur;
                scur = stry;
                bisect = false;
            }
        }
        if bisect {
            spre = sbis;
            scur = sbis;
        }
        xpre = xcur;
        fpre = fcur;
        xcur += if scur.abs() > delta {
            scur
        } else if sbis > 0.0 {
            delta
        } else {
            -delta
        };
        fcur = f(xcur);
        if fcur.is_nan() {
            return None;
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_bracketed_roots() {
        let r = brentq(|x| x * x - 2.0, 0.0, 2.0).unwrap();
        assert!((r - 2f64.sqrt()).abs() < 1e-11);
        let r = brentq(|x: f64| x.cos() - x, 0.0, 1.0).unwrap();
        assert!((r - 0.739_085_133_215_160_6).abs() < 1e-11);
        assert_eq!(brentq(|x| x - 1.0, 1.0, 3.0), Some(1.0));
    }

    #[test]
    fn refuses_unbracketed_or_nan() {
        assert_eq!(brentq(|x| x * x + 1.0, -1.0, 1.0), None);
        assert_eq!(brentq(|_| f64::NAN, -1.0, 1.0), None);
    }
}
