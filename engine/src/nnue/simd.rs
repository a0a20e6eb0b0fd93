//! The network's two hot loops, in a portable scalar form and an AVX2 form that computes
//! the very same integers: the accumulator update (i16 adds and subtracts, wrapping) and the
//! SCReLU dot product of the output layer.
//!
//! Why the two agree bit for bit: both are exact integer arithmetic. i16 adds and subtracts
//! wrap in both (`vpaddw`/`vpsubw` and `wrapping_add`/`wrapping_sub`), and wrapping addition
//! is associative, so the order does not matter. In the dot product, a clamped activation
//! `c` in `0..=QA` (255) times an output weight `w` in `-127..=127` (the loader refuses
//! others) fits an i16 (|c·w| <= 32,385), so `madd(c, mullo(c, w))` is exactly `c²·w`
//! summed in pairs; each i32 lane then gathers at most 1024 / 16 = 64 pairs of at most
//! 2 · 255² · 127, about 1.06e9 < 2³¹, so no lane overflows and the i64 total is the exact
//! sum the scalar loop computes.

use std::sync::OnceLock;

/// The instruction set a backend's loops use, as a machine advertises it (a worker tells its
/// coordinator, which stores and shows it): one vocabulary, `scalar` and `avx2`, on every
/// architecture, so that a coordinator built for another CPU still reads what a worker sent.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SimdLevel {
    /// The portable loops.
    Scalar,
    /// The AVX2 loops (x86-64).
    Avx2,
}

impl SimdLevel {
    /// Every level, slowest first.
    pub const ALL: [SimdLevel; 2] = [SimdLevel::Scalar, SimdLevel::Avx2];

    /// The level's text, as stored and printed.
    pub const fn as_str(self) -> &'static str {
        match self {
            SimdLevel::Scalar => "scalar",
            SimdLevel::Avx2 => "avx2",
        }
    }

    /// The level of the fastest backend this CPU runs ([`Backend::detect`]).
    pub fn detect() -> SimdLevel {
        Backend::detect().level()
    }
}

impl std::fmt::Display for SimdLevel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Why a SIMD level's text does not read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown SIMD level `{text}` (expected scalar or avx2)")]
pub struct BadSimdLevel {
    pub text: String,
}

impl std::str::FromStr for SimdLevel {
    type Err = BadSimdLevel;

    /// `scalar` or `avx2`, exactly as [`SimdLevel::as_str`] writes them.
    fn from_str(text: &str) -> Result<SimdLevel, BadSimdLevel> {
        SimdLevel::ALL.into_iter().find(|l| l.as_str() == text).ok_or_else(|| BadSimdLevel { text: text.to_owned() })
    }
}

/// Which implementation of the loops to run. Only [`Backend::detect`] and [`Backend::avx2`]
/// make an AVX2 backend, and only on a CPU that has AVX2: holding one is the proof the
/// `unsafe` calls below rely on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Backend(Kind);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Scalar,
    #[cfg(target_arch = "x86_64")]
    Avx2,
}

impl Backend {
    /// The portable loops (the reference the SIMD ones are tested against).
    pub const fn scalar() -> Backend {
        Backend(Kind::Scalar)
    }

    /// The AVX2 loops, if this CPU has AVX2.
    pub fn avx2() -> Option<Backend> {
        #[cfg(target_arch = "x86_64")]
        if std::is_x86_feature_detected!("avx2") {
            return Some(Backend(Kind::Avx2));
        }
        None
    }

    /// The fastest backend this CPU runs, detected once per process.
    pub fn detect() -> Backend {
        static BEST: OnceLock<Backend> = OnceLock::new();
        *BEST.get_or_init(|| Backend::avx2().unwrap_or(Backend::scalar()))
    }

    /// The instruction set these loops use.
    pub const fn level(self) -> SimdLevel {
        match self.0 {
            Kind::Scalar => SimdLevel::Scalar,
            #[cfg(target_arch = "x86_64")]
            Kind::Avx2 => SimdLevel::Avx2,
        }
    }

    pub const fn name(self) -> &'static str {
        self.level().as_str()
    }

    /// `dst = src + add - sub`, element by element, wrapping. All slices have the same
    /// length, a multiple of 16.
    #[inline]
    pub fn add_sub(self, dst: &mut [i16], src: &[i16], add: &[i16], sub: &[i16]) {
        assert!(src.len() == dst.len() && add.len() == dst.len() && sub.len() == dst.len());
        match self.0 {
            Kind::Scalar => scalar::add_sub(dst, src, add, sub),
            #[cfg(target_arch = "x86_64")]
            // SAFETY: a `Kind::Avx2` backend exists only where AVX2 was detected.
            Kind::Avx2 => unsafe { avx2::add_sub(dst, src, add, sub) },
        }
    }

    /// `dst = src + add - sub1 - sub2` (a capture), element by element, wrapping.
    #[inline]
    pub fn add_sub_sub(self, dst: &mut [i16], src: &[i16], add: &[i16], sub1: &[i16], sub2: &[i16]) {
        let n = dst.len();
        assert!(src.len() == n && add.len() == n && sub1.len() == n && sub2.len() == n);
        match self.0 {
            Kind::Scalar => scalar::add_sub_sub(dst, src, add, sub1, sub2),
            #[cfg(target_arch = "x86_64")]
            // SAFETY: a `Kind::Avx2` backend exists only where AVX2 was detected.
            Kind::Avx2 => unsafe { avx2::add_sub_sub(dst, src, add, sub1, sub2) },
        }
    }

    /// `sum over i of clamp(acc[i], 0, QA)² · w[i]`, exactly. `acc` and `w` have the same
    /// length, a multiple of 16 and at most 1024; every `w[i]` is in `-127..=127`.
    #[inline]
    pub fn screlu_dot(self, acc: &[i16], w: &[i16]) -> i64 {
        assert!(acc.len() == w.len() && acc.len() <= 1024);
        match self.0 {
            Kind::Scalar => scalar::screlu_dot(acc, w),
            #[cfg(target_arch = "x86_64")]
            // SAFETY: a `Kind::Avx2` backend exists only where AVX2 was detected.
            Kind::Avx2 => unsafe { avx2::screlu_dot(acc, w) },
        }
    }
}

/// Adds `w` to `dst` in place, wrapping (the from-scratch refresh: rare, left to the
/// compiler's own vectorisation).
#[inline]
pub fn add_assign(dst: &mut [i16], w: &[i16]) {
    for (d, &x) in dst.iter_mut().zip(w) {
        *d = d.wrapping_add(x);
    }
}

mod scalar {
    use super::super::network::QA;

    pub(super) fn add_sub(dst: &mut [i16], src: &[i16], add: &[i16], sub: &[i16]) {
        for i in 0..dst.len() {
            dst[i] = src[i].wrapping_add(add[i]).wrapping_sub(sub[i]);
        }
    }

    pub(super) fn add_sub_sub(dst: &mut [i16], src: &[i16], add: &[i16], sub1: &[i16], sub2: &[i16]) {
        for i in 0..dst.len() {
            dst[i] = src[i].wrapping_add(add[i]).wrapping_sub(sub1[i]).wrapping_sub(sub2[i]);
        }
    }

    pub(super) fn screlu_dot(acc: &[i16], w: &[i16]) -> i64 {
        acc.iter()
            .zip(w)
            .map(|(&a, &w)| {
                let c = i64::from(a.clamp(0, QA as i16));
                c * c * i64::from(w)
            })
            .sum()
    }
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    use std::arch::x86_64::*;

    use super::super::network::QA;

    /// Loads 16 i16 from a chunk of exactly 16.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn load(chunk: &[i16]) -> __m256i {
        debug_assert_eq!(chunk.len(), 16);
        // SAFETY: callers pass chunks from `chunks_exact(16)`: 32 readable bytes; `loadu`
        // has no alignment requirement.
        unsafe { _mm256_loadu_si256(chunk.as_ptr().cast()) }
    }

    #[inline]
    #[target_feature(enable = "avx2")]
    fn store(chunk: &mut [i16], v: __m256i) {
        debug_assert_eq!(chunk.len(), 16);
        // SAFETY: as in `load`, 32 writable bytes from `chunks_exact_mut(16)`.
        unsafe { _mm256_storeu_si256(chunk.as_mut_ptr().cast(), v) }
    }

    #[target_feature(enable = "avx2")]
    pub(super) fn add_sub(dst: &mut [i16], src: &[i16], add: &[i16], sub: &[i16]) {
        let chunks =
            dst.chunks_exact_mut(16).zip(src.chunks_exact(16)).zip(add.chunks_exact(16).zip(sub.chunks_exact(16)));
        for ((d, s), (a, b)) in chunks {
            let v = _mm256_sub_epi16(_mm256_add_epi16(load(s), load(a)), load(b));
            store(d, v);
        }
    }

    #[target_feature(enable = "avx2")]
    pub(super) fn add_sub_sub(dst: &mut [i16], src: &[i16], add: &[i16], sub1: &[i16], sub2: &[i16]) {
        let subs = sub1.chunks_exact(16).zip(sub2.chunks_exact(16));
        let chunks = dst.chunks_exact_mut(16).zip(src.chunks_exact(16)).zip(add.chunks_exact(16).zip(subs));
        for ((d, s), (a, (b, c))) in chunks {
            let v = _mm256_sub_epi16(_mm256_sub_epi16(_mm256_add_epi16(load(s), load(a)), load(b)), load(c));
            store(d, v);
        }
    }

    #[target_feature(enable = "avx2")]
    pub(super) fn screlu_dot(acc: &[i16], w: &[i16]) -> i64 {
        let zero = _mm256_setzero_si256();
        let qa = _mm256_set1_epi16(QA as i16);
        let mut sum = _mm256_setzero_si256();
        for (a, w) in acc.chunks_exact(16).zip(w.chunks_exact(16)) {
            let c = _mm256_min_epi16(_mm256_max_epi16(load(a), zero), qa);
            // c·w fits an i16 (see the module doc), so mullo loses nothing.
            let cw = _mm256_mullo_epi16(c, load(w));
            sum = _mm256_add_epi32(sum, _mm256_madd_epi16(c, cw));
        }
        let mut lanes = [0i32; 8];
        // SAFETY: `lanes` is 32 writable bytes; `storeu` has no alignment requirement.
        unsafe { _mm256_storeu_si256(lanes.as_mut_ptr().cast(), sum) };
        lanes.iter().map(|&x| i64::from(x)).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn xorshift(state: &mut u64) -> u64 {
        *state ^= *state << 13;
        *state ^= *state >> 7;
        *state ^= *state << 17;
        *state
    }

    #[test]
    fn simd_levels_read_back_what_they_print_and_name_the_backends() {
        for level in SimdLevel::ALL {
            assert_eq!(level.as_str().parse::<SimdLevel>(), Ok(level));
            assert_eq!(level.to_string(), level.as_str());
        }
        assert_eq!(Backend::scalar().level(), SimdLevel::Scalar);
        assert_eq!(Backend::scalar().name(), "scalar");
        assert_eq!(Backend::avx2().map(Backend::level), Backend::avx2().map(|_| SimdLevel::Avx2));
        assert_eq!(SimdLevel::detect(), Backend::detect().level());
        let err = "AVX2".parse::<SimdLevel>().expect_err("texts are lower case");
        assert_eq!(err.to_string(), "unknown SIMD level `AVX2` (expected scalar or avx2)");
        assert!("".parse::<SimdLevel>().is_err());
    }

    #[test]
    fn avx2_and_scalar_agree_on_extremes_and_random_data() {
        let Some(avx2) = Backend::avx2() else {
            eprintln!("no AVX2 on this CPU: nothing to compare");
            return;
        };
        let scalar = Backend::scalar();
        let mut s = 0x1234_5678_9abc_def1u64;
        for len in [16, 128, 512, 1024] {
            for round in 0..50 {
                // Accumulators over the whole i16 range (wrapping included); output weights
                // at the edges of their allowed range in the first rounds.
                let acc: Vec<i16> = (0..len).map(|_| xorshift(&mut s) as i16).collect();
                let w: Vec<i16> = (0..len)
                    .map(|_| match round {
                        0 => 127,
                        1 => -127,
                        _ => (xorshift(&mut s) % 255) as i16 - 127,
                    })
                    .collect();
                let big = vec![i16::MAX; len];
                assert_eq!(avx2.screlu_dot(&acc, &w), scalar.screlu_dot(&acc, &w), "len {len} round {round}");
                assert_eq!(avx2.screlu_dot(&big, &w), scalar.screlu_dot(&big, &w));
                let (a, b, c): (Vec<i16>, Vec<i16>, Vec<i16>) = (0..len)
                    .map(|_| (xorshift(&mut s) as i16, xorshift(&mut s) as i16, xorshift(&mut s) as i16))
                    .fold((Vec::new(), Vec::new(), Vec::new()), |(mut x, mut y, mut z), (p, q, r)| {
                        x.push(p);
                        y.push(q);
                        z.push(r);
                        (x, y, z)
                    });
                let (mut d1, mut d2) = (vec![0i16; len], vec![0i16; len]);
                avx2.add_sub(&mut d1, &acc, &a, &b);
                scalar.add_sub(&mut d2, &acc, &a, &b);
                assert_eq!(d1, d2);
                avx2.add_sub_sub(&mut d1, &acc, &a, &b, &c);
                scalar.add_sub_sub(&mut d2, &acc, &a, &b, &c);
                assert_eq!(d1, d2);
            }
        }
    }

    #[test]
    fn the_dot_product_at_its_largest_does_not_overflow() {
        let acc = vec![255i16; 1024];
        let w = vec![127i16; 1024];
        let exact = 1024 * 255 * 255 * 127;
        assert_eq!(Backend::scalar().screlu_dot(&acc, &w), exact);
        assert_eq!(Backend::detect().screlu_dot(&acc, &w), exact);
    }
}
