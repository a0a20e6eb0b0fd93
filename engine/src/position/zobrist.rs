//! Zobrist keys: 64-bit keys per (piece, square) and for Black to move, generated at compile
//! time by splitmix64 from a fixed seed (so keys, and therefore hashes written to files, are
//! the same on every build and machine).

use crate::types::{Color, Piece, Square};

const fn splitmix64(state: u64) -> (u64, u64) {
    let state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    (state, z ^ (z >> 31))
}

const fn build() -> ([[u64; 90]; 14], u64) {
    let mut keys = [[0u64; 90]; 14];
    let mut state = 0x5851_F42D_4C95_7F2D_u64; // arbitrary fixed seed
    let mut p = 0;
    while p < 14 {
        let mut sq = 0;
        while sq < 90 {
            let (s, k) = splitmix64(state);
            state = s;
            keys[p][sq] = k;
            sq += 1;
        }
        p += 1;
    }
    let (_, side) = splitmix64(state);
    (keys, side)
}

const TABLES: ([[u64; 90]; 14], u64) = build();
static PIECE_SQUARE: [[u64; 90]; 14] = TABLES.0;
/// XORed into the key when Black is to move.
pub const SIDE: u64 = TABLES.1;

#[inline]
pub fn piece_square(piece: Piece, sq: Square) -> u64 {
    PIECE_SQUARE[piece.index()][sq.index()]
}

#[inline]
pub fn side(color: Color) -> u64 {
    match color {
        Color::Red => 0,
        Color::Black => SIDE,
    }
}
