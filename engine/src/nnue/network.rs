//! The network's weights, its file format (reader and writer) and its output layer.
//!
//! # File format, version 1
//!
//! Little-endian throughout; `H` is the hidden size read from the header.
//!
//! | offset | size | field |
//! |---|---|---|
//! | 0 | 4 | magic `XQNN` |
//! | 4 | 4 | format version, u32 = 1 |
//! | 8 | 4 | architecture id, u32 = 1 (see [`ARCHITECTURE`]) |
//! | 12 | 4 | inputs, u32 = 1260 |
//! | 16 | 4 | hidden size `H`, u32: a multiple of 16 in 16..=1024 |
//! | 20 | 4 | QA, u32 = 255 |
//! | 24 | 4 | QB, u32 = 64 |
//! | 28 | 4 | SCALE, u32 = 400 |
//! | 32 | 2·1260·H | feature weights, i16, feature-major: the weight of input `f` to neuron `j` at `f·H + j` |
//! | … | 2·H | feature biases, i16 |
//! | … | 2·2H | output weights, i16, each in -127..=127: first the `H` for the side to move's accumulator, then the `H` for the other side's |
//! | … | 4 | output bias, i32 |
//! | … | 8 | FNV-1a 64 of every byte before it, u64 |
//!
//! A reader refuses, with an [`NnueError`] naming the field and its byte offset, a file that
//! is truncated or longer than its header says, with another magic, version or architecture,
//! with header values other than the above, with a checksum that does not match, or with an
//! output weight out of range (the SIMD dot product is exact only within it; see `simd.rs`).

use std::path::Path;

use super::features::INPUTS;
use super::simd::Backend;
use crate::error::{Error, NnueError};

/// The magic bytes a network file starts with.
pub const MAGIC: [u8; 4] = *b"XQNN";
/// The file format version this engine reads and writes.
pub const FORMAT_VERSION: u32 = 1;
/// Architecture 1: the 1,260 perspective features of `features.rs` (kind × own/enemy ×
/// square, Black's view mirrored vertically), one accumulator of `H` per perspective, the two
/// concatenated side to move first, SCReLU, and one output. A change to any of these is a
/// new id.
pub const ARCHITECTURE: u32 = 1;
/// Quantisation of the feature transformer (its weights, biases and the activation's top).
pub const QA: i32 = 255;
/// Quantisation of the output weights.
pub const QB: i32 = 64;
/// Centipawns per unit of the network's float output.
pub const SCALE: i32 = 400;
/// Largest allowed hidden size (the dot product's overflow bound in `simd.rs` uses it).
pub const MAX_HIDDEN: usize = 1024;
/// The hidden size must be a multiple of this (one AVX2 register of i16).
pub const HIDDEN_STEP: usize = 16;
/// The default hidden size of a new network.
pub const DEFAULT_HIDDEN: usize = 128;
/// Largest output weight magnitude: `QA · w` must fit an i16 (see `simd.rs`).
pub const MAX_OUTPUT_WEIGHT: i16 = 127;
/// Evaluations are clamped to this magnitude, well inside the search's tablebase and mate
/// bands.
pub const EVAL_LIMIT: i32 = 10_000;
/// Bytes before the weights.
pub const HEADER_LEN: usize = 32;
/// Bytes of the trailing checksum.
const CHECKSUM_LEN: usize = 8;

/// A quantised network, ready to evaluate.
#[derive(Clone, PartialEq, Eq)]
pub struct Network {
    hidden: usize,
    /// `INPUTS × hidden`, feature-major.
    ft_weights: Box<[i16]>,
    ft_biases: Box<[i16]>,
    /// `2 × hidden`: side to move's half, then the other side's.
    out_weights: Box<[i16]>,
    out_bias: i32,
}

impl std::fmt::Debug for Network {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Network")
            .field("hidden", &self.hidden)
            .field("checksum", &format_args!("{:#018x}", fnv1a64(&self.body_bytes())))
            .finish_non_exhaustive()
    }
}

/// Whether `hidden` is a size this engine runs.
pub const fn hidden_allowed(hidden: usize) -> bool {
    hidden >= HIDDEN_STEP && hidden <= MAX_HIDDEN && hidden.is_multiple_of(HIDDEN_STEP)
}

/// FNV-1a, 64 bits: the file's checksum (no hashing dependency for 10 lines).
pub fn fnv1a64(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// The byte ranges of a file with hidden size `hidden`, in order.
fn sections(hidden: usize) -> [(&'static str, usize); 5] {
    [
        ("feature weights", 2 * INPUTS * hidden),
        ("feature biases", 2 * hidden),
        ("output weights", 2 * 2 * hidden),
        ("output bias", 4),
        ("checksum", CHECKSUM_LEN),
    ]
}

/// Reads little-endian values from a byte slice whose length was checked beforehand.
struct Reader<'b> {
    bytes: &'b [u8],
    at: usize,
}

impl Reader<'_> {
    fn take<const N: usize>(&mut self) -> [u8; N] {
        let mut out = [0u8; N];
        out.copy_from_slice(&self.bytes[self.at..self.at + N]);
        self.at += N;
        out
    }

    fn u32(&mut self) -> u32 {
        u32::from_le_bytes(self.take())
    }

    fn i16s(&mut self, n: usize) -> Box<[i16]> {
        (0..n).map(|_| i16::from_le_bytes(self.take())).collect()
    }
}

impl Network {
    /// A network from quantised arrays (the trainer's constructor): `ft_weights` is
    /// `1260 × hidden` feature-major, `ft_biases` `hidden`, `out_weights` `2 × hidden` (side to
    /// move's half first), each output weight in `-127..=127`.
    pub fn from_parts(
        hidden: usize,
        ft_weights: Vec<i16>,
        ft_biases: Vec<i16>,
        out_weights: Vec<i16>,
        out_bias: i32,
    ) -> Result<Network, NnueError> {
        if !hidden_allowed(hidden) {
            return Err(NnueError::Hidden { found: hidden as u64 });
        }
        for (what, found, expected) in [
            ("feature weights", ft_weights.len(), INPUTS * hidden),
            ("feature biases", ft_biases.len(), hidden),
            ("output weights", out_weights.len(), 2 * hidden),
        ] {
            if found != expected {
                return Err(NnueError::Shape { what, found, expected, hidden });
            }
        }
        let weights_at = HEADER_LEN + 2 * INPUTS * hidden + 2 * hidden;
        if let Some((index, &value)) = out_weights.iter().enumerate().find(|(_, w)| w.abs() > MAX_OUTPUT_WEIGHT) {
            return Err(NnueError::OutputWeight { index, offset: weights_at + 2 * index, value });
        }
        Ok(Network {
            hidden,
            ft_weights: ft_weights.into(),
            ft_biases: ft_biases.into(),
            out_weights: out_weights.into(),
            out_bias,
        })
    }

    /// Reads a network file's bytes (the format in the module doc).
    pub fn from_bytes(bytes: &[u8]) -> Result<Network, NnueError> {
        let len = bytes.len();
        if len < HEADER_LEN {
            return Err(NnueError::Truncated { what: "header", start: 0, end: HEADER_LEN, len });
        }
        let mut r = Reader { bytes, at: 0 };
        let magic: [u8; 4] = r.take();
        if magic != MAGIC {
            return Err(NnueError::Magic { found: magic });
        }
        let version = r.u32();
        if version != FORMAT_VERSION {
            return Err(NnueError::Version { found: version, expected: FORMAT_VERSION });
        }
        let architecture = r.u32();
        if architecture != ARCHITECTURE {
            return Err(NnueError::Architecture { found: architecture, expected: ARCHITECTURE });
        }
        let inputs = r.u32();
        if inputs as usize != INPUTS {
            return Err(NnueError::Header { field: "inputs", offset: 12, found: inputs, expected: INPUTS as u32 });
        }
        let hidden = r.u32();
        if !hidden_allowed(hidden as usize) {
            return Err(NnueError::Hidden { found: u64::from(hidden) });
        }
        let hidden = hidden as usize;
        for (field, offset, expected) in [("QA", 20, QA), ("QB", 24, QB), ("SCALE", 28, SCALE)] {
            let found = r.u32();
            if found != expected as u32 {
                return Err(NnueError::Header { field, offset, found, expected: expected as u32 });
            }
        }
        let mut end = HEADER_LEN;
        for (what, size) in sections(hidden) {
            let start = end;
            end += size;
            if end > len {
                return Err(NnueError::Truncated { what, start, end, len });
            }
        }
        if len > end {
            return Err(NnueError::TrailingBytes { offset: end, extra: len - end });
        }
        let checksum_at = end - CHECKSUM_LEN;
        let computed = fnv1a64(&bytes[..checksum_at]);
        let stored = u64::from_le_bytes(Reader { bytes, at: checksum_at }.take());
        if stored != computed {
            return Err(NnueError::Checksum { offset: checksum_at, stored, computed });
        }
        let ft_weights = r.i16s(INPUTS * hidden);
        let ft_biases = r.i16s(hidden);
        let out_weights = r.i16s(2 * hidden);
        let out_bias = i32::from_le_bytes(r.take());
        Network::from_parts(hidden, ft_weights.into(), ft_biases.into(), out_weights.into(), out_bias)
    }

    /// Reads a network file; the error names the file.
    pub fn load(path: &Path) -> crate::Result<Network> {
        let named = |reason| Error::Network { path: path.display().to_string(), reason };
        let bytes = std::fs::read(path).map_err(|e| named(NnueError::Io(e.to_string())))?;
        Network::from_bytes(&bytes).map_err(named)
    }

    /// Everything but the checksum.
    fn body_bytes(&self) -> Vec<u8> {
        let total: usize = HEADER_LEN + sections(self.hidden).iter().map(|s| s.1).sum::<usize>();
        let mut out = Vec::with_capacity(total);
        out.extend_from_slice(&MAGIC);
        for v in [FORMAT_VERSION, ARCHITECTURE, INPUTS as u32, self.hidden as u32, QA as u32, QB as u32, SCALE as u32] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        for w in self.ft_weights.iter().chain(self.ft_biases.iter()).chain(self.out_weights.iter()) {
            out.extend_from_slice(&w.to_le_bytes());
        }
        out.extend_from_slice(&self.out_bias.to_le_bytes());
        out
    }

    /// The file's bytes (the trainer's writer): `from_bytes(&net.to_bytes()) == net`.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = self.body_bytes();
        let checksum = fnv1a64(&out);
        out.extend_from_slice(&checksum.to_le_bytes());
        out
    }

    /// Writes the network file.
    pub fn save(&self, path: &Path) -> crate::Result<()> {
        std::fs::write(path, self.to_bytes())
            .map_err(|e| Error::Network { path: path.display().to_string(), reason: NnueError::Io(e.to_string()) })
    }

    /// A network of made-up weights from `seed` (xorshift64), for tests and speed figures:
    /// feature weights in -24..=24, biases in 0..=64, output weights over their whole range
    /// -127..=127, output bias in -2000..=2000.
    ///
    /// # Panics
    /// When `hidden` is not an allowed size (a programming error in a test).
    pub fn random(seed: u64, hidden: usize) -> Network {
        assert!(hidden_allowed(hidden), "hidden size {hidden} is not a multiple of 16 in 16..=1024");
        // splitmix64 of the seed, so that small seeds do not start xorshift near zero.
        let mut state = seed.wrapping_add(0x9e37_79b9_7f4a_7c15);
        state = (state ^ (state >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        state = (state ^ (state >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        state = (state ^ (state >> 31)) | 1;
        let mut next = |lo: i32, hi: i32| -> i32 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            lo + (state % (hi - lo + 1) as u64) as i32
        };
        let ft_weights = (0..INPUTS * hidden).map(|_| next(-24, 24) as i16).collect();
        let ft_biases = (0..hidden).map(|_| next(0, 64) as i16).collect();
        let out_weights = (0..2 * hidden).map(|_| next(-127, 127) as i16).collect();
        let out_bias = next(-2000, 2000);
        match Network::from_parts(hidden, ft_weights, ft_biases, out_weights, out_bias) {
            Ok(net) => net,
            Err(e) => unreachable!("random weights are in range: {e}"),
        }
    }

    /// The hidden size `H`.
    #[inline]
    pub fn hidden(&self) -> usize {
        self.hidden
    }

    /// The feature transformer's biases (an accumulator's start).
    #[inline]
    pub fn ft_biases(&self) -> &[i16] {
        &self.ft_biases
    }

    /// The feature transformer's column of input `feature`.
    #[inline]
    pub fn ft_weights(&self, feature: usize) -> &[i16] {
        &self.ft_weights[feature * self.hidden..(feature + 1) * self.hidden]
    }

    /// The output layer's weights, `2 × hidden`: the side to move's half, then the other's
    /// (a trainer's warm start reads them back).
    #[inline]
    pub fn out_weights(&self) -> &[i16] {
        &self.out_weights
    }

    /// The output layer's bias (scaled by `QA · QB`).
    #[inline]
    pub fn out_bias(&self) -> i32 {
        self.out_bias
    }

    /// The evaluation in centipawns from the side to move's view, given the side to move's
    /// accumulator `us` and the other side's `them`:
    /// `(sum / QA + bias) · SCALE / (QA · QB)`, where `sum` is the SCReLU dot product over
    /// `[us, them]`; integer division rounds toward zero; clamped to `±EVAL_LIMIT`.
    #[inline]
    pub fn output(&self, backend: Backend, us: &[i16], them: &[i16]) -> i32 {
        let (w_us, w_them) = self.out_weights.split_at(self.hidden);
        let sum = backend.screlu_dot(us, w_us) + backend.screlu_dot(them, w_them);
        let scaled = (sum / i64::from(QA) + i64::from(self.out_bias)) * i64::from(SCALE) / i64::from(QA * QB);
        scaled.clamp(-i64::from(EVAL_LIMIT), i64::from(EVAL_LIMIT)) as i32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header_field(bytes: &mut [u8], offset: usize, value: u32) {
        bytes[offset..offset + 4].copy_from_slice(&value.to_le_bytes());
    }

    /// Rewrites the checksum after an edit, so that the edit itself is what gets refused.
    fn reseal(bytes: &mut Vec<u8>) {
        let body = bytes.len() - CHECKSUM_LEN;
        let sum = fnv1a64(&bytes[..body]);
        bytes.truncate(body);
        bytes.extend_from_slice(&sum.to_le_bytes());
    }

    #[test]
    fn round_trip_is_identity() {
        for hidden in [16, 128] {
            let net = Network::random(7, hidden);
            let bytes = net.to_bytes();
            assert_eq!(bytes.len(), HEADER_LEN + 2 * INPUTS * hidden + 2 * hidden + 4 * hidden + 4 + 8);
            assert_eq!(&bytes[..4], b"XQNN");
            assert_eq!(Network::from_bytes(&bytes), Ok(net));
        }
    }

    #[test]
    fn fnv1a64_reference_values() {
        assert_eq!(fnv1a64(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a64(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a64(b"foobar"), 0x8594_4171_f739_67e8);
    }

    #[test]
    fn a_truncated_file_is_refused_naming_the_section() {
        let bytes = Network::random(1, 16).to_bytes();
        assert_eq!(
            Network::from_bytes(&bytes[..10]),
            Err(NnueError::Truncated { what: "header", start: 0, end: 32, len: 10 })
        );
        let cut = bytes.len() - 3;
        assert_eq!(
            Network::from_bytes(&bytes[..cut]),
            Err(NnueError::Truncated { what: "checksum", start: bytes.len() - 8, end: bytes.len(), len: cut })
        );
        assert!(matches!(
            Network::from_bytes(&bytes[..1000]),
            Err(NnueError::Truncated { what: "feature weights", start: 32, .. })
        ));
        let mut long = bytes.clone();
        long.push(0);
        assert_eq!(Network::from_bytes(&long), Err(NnueError::TrailingBytes { offset: bytes.len(), extra: 1 }));
    }

    #[test]
    fn a_corrupt_file_fails_its_checksum() {
        let mut bytes = Network::random(1, 16).to_bytes();
        bytes[500] ^= 0x10;
        let err = Network::from_bytes(&bytes).expect_err("corrupt");
        assert!(matches!(err, NnueError::Checksum { offset, .. } if offset == bytes.len() - 8), "{err}");
    }

    #[test]
    fn other_magic_version_architecture_and_header_values_are_refused() {
        let good = Network::random(1, 16).to_bytes();
        let mut b = good.clone();
        b[0] = b'Y';
        assert_eq!(Network::from_bytes(&b), Err(NnueError::Magic { found: *b"YQNN" }));
        let mut b = good.clone();
        header_field(&mut b, 4, 2);
        assert_eq!(Network::from_bytes(&b), Err(NnueError::Version { found: 2, expected: 1 }));
        let mut b = good.clone();
        header_field(&mut b, 8, 7);
        assert_eq!(Network::from_bytes(&b), Err(NnueError::Architecture { found: 7, expected: 1 }));
        let mut b = good.clone();
        header_field(&mut b, 12, 1261);
        assert_eq!(
            Network::from_bytes(&b),
            Err(NnueError::Header { field: "inputs", offset: 12, found: 1261, expected: 1260 })
        );
        for (offset, field) in [(20, "QA"), (24, "QB"), (28, "SCALE")] {
            let mut b = good.clone();
            header_field(&mut b, offset, 1);
            assert!(
                matches!(Network::from_bytes(&b), Err(NnueError::Header { field: f, offset: o, found: 1, .. }) if f == field && o == offset)
            );
        }
    }

    #[test]
    fn a_hidden_size_not_allowed_is_refused() {
        for hidden in [0u32, 8, 24, 1040, 4096] {
            let mut b = Network::random(1, 16).to_bytes();
            header_field(&mut b, 16, hidden);
            assert_eq!(Network::from_bytes(&b), Err(NnueError::Hidden { found: u64::from(hidden) }), "{hidden}");
        }
        assert_eq!(
            Network::from_parts(48, vec![], vec![], vec![], 0),
            Err(NnueError::Shape { what: "feature weights", found: 0, expected: INPUTS * 48, hidden: 48 })
        );
    }

    #[test]
    fn out_of_range_output_weights_are_refused() {
        let net = Network::random(3, 16);
        let mut bytes = net.to_bytes();
        let at = HEADER_LEN + 2 * INPUTS * 16 + 2 * 16 + 2 * 5;
        bytes[at..at + 2].copy_from_slice(&(-128i16).to_le_bytes());
        reseal(&mut bytes);
        let err = Network::from_bytes(&bytes).expect_err("weight -128");
        assert_eq!(err, NnueError::OutputWeight { index: 5, offset: at, value: -128 });
        assert!(err.to_string().contains(&format!("byte {at}")), "{err}");
    }

    #[test]
    fn load_names_the_file() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("net.xqnn");
        let net = Network::random(5, 32);
        net.save(&path).expect("write");
        assert_eq!(Network::load(&path).expect("read"), net);
        let missing = dir.path().join("missing.xqnn");
        let err = Network::load(&missing).expect_err("missing");
        assert!(err.to_string().contains("missing.xqnn"), "{err}");
    }
}
