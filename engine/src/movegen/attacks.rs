//! Attack tables, computed at compile time by `const fn`s (no start-up `init()`), and the
//! sliding-piece attack functions over them.
//!
//! Rooks and cannons use the classical ray method: for each of the four directions a
//! precomputed ray, the first blocker found with one bit scan (lowest bit on rays that run
//! towards higher indices, highest bit on the others). On a `u128` a bit scan is two
//! instructions, so this beats a rank/file occupancy lookup that must first gather the
//! file's bits out of the board (there is no cheap pext over 90 bits).

use crate::types::{Bitboard, Color, Square};

/// Ray directions: the first two run towards higher square indices.
pub const NORTH: usize = 0;
pub const EAST: usize = 1;
pub const SOUTH: usize = 2;
pub const WEST: usize = 3;
const DIR_STEPS: [(i32, i32); 4] = [(0, 1), (1, 0), (0, -1), (-1, 0)];
const DIAGONALS: [(i32, i32); 4] = [(1, 1), (-1, 1), (1, -1), (-1, -1)];

const fn bit(file: i32, rank: i32) -> u128 {
    match Square::new(file, rank) {
        Some(sq) => 1u128 << sq.index(),
        None => 0,
    }
}

const fn palace_of(file: i32, rank: i32) -> Option<Color> {
    if file < 3 || file > 5 {
        None
    } else if rank <= 2 {
        Some(Color::Red)
    } else if rank >= 7 {
        Some(Color::Black)
    } else {
        None
    }
}

const fn same_palace(file: i32, rank: i32, f2: i32, r2: i32) -> bool {
    match (palace_of(file, rank), palace_of(f2, r2)) {
        (Some(a), Some(b)) => a as u8 == b as u8,
        _ => false,
    }
}

const fn build_rays() -> [[Bitboard; 4]; 90] {
    let mut t = [[Bitboard::EMPTY; 4]; 90];
    let mut sq = 0;
    while sq < 90 {
        let (f, r) = ((sq % 9) as i32, (sq / 9) as i32);
        let mut d = 0;
        while d < 4 {
            let (df, dr) = DIR_STEPS[d];
            let (mut x, mut y) = (f + df, r + dr);
            let mut bb = 0u128;
            while x >= 0 && x < 9 && y >= 0 && y < 10 {
                bb |= bit(x, y);
                x += df;
                y += dr;
            }
            t[sq][d] = Bitboard(bb);
            d += 1;
        }
        sq += 1;
    }
    t
}

const fn build_king() -> [Bitboard; 90] {
    let mut t = [Bitboard::EMPTY; 90];
    let mut sq = 0;
    while sq < 90 {
        let (f, r) = ((sq % 9) as i32, (sq / 9) as i32);
        let mut bb = 0;
        let mut d = 0;
        while d < 4 {
            let (df, dr) = DIR_STEPS[d];
            if same_palace(f, r, f + df, r + dr) {
                bb |= bit(f + df, r + dr);
            }
            d += 1;
        }
        t[sq] = Bitboard(bb);
        sq += 1;
    }
    t
}

const fn build_advisor() -> [Bitboard; 90] {
    let mut t = [Bitboard::EMPTY; 90];
    let mut sq = 0;
    while sq < 90 {
        let (f, r) = ((sq % 9) as i32, (sq / 9) as i32);
        let mut bb = 0;
        let mut d = 0;
        while d < 4 {
            let (df, dr) = DIAGONALS[d];
            if same_palace(f, r, f + df, r + dr) {
                bb |= bit(f + df, r + dr);
            }
            d += 1;
        }
        t[sq] = Bitboard(bb);
        sq += 1;
    }
    t
}

/// A bishop step: its target and the eye that must be empty. `NONE` where off the board or
/// across the river.
#[derive(Clone, Copy, Debug)]
pub struct BishopStep {
    pub target: u8,
    pub eye: u8,
}

impl BishopStep {
    pub const NONE: u8 = 255;
}

const fn build_bishop() -> [[BishopStep; 4]; 90] {
    let mut t = [[BishopStep { target: BishopStep::NONE, eye: BishopStep::NONE }; 4]; 90];
    let mut sq = 0;
    while sq < 90 {
        let (f, r) = ((sq % 9) as i32, (sq / 9) as i32);
        let mut d = 0;
        while d < 4 {
            let (df, dr) = DIAGONALS[d];
            let (x, y) = (f + 2 * df, r + 2 * dr);
            let same_side = (r <= 4) == (y <= 4);
            if x >= 0 && x < 9 && y >= 0 && y < 10 && same_side {
                t[sq][d] = BishopStep { target: (y * 9 + x) as u8, eye: ((r + dr) * 9 + f + df) as u8 };
            }
            d += 1;
        }
        sq += 1;
    }
    t
}

/// For a knight on a square: per orthogonal direction, the leg square (or 255) and the two
/// targets reached through it.
const fn build_knight() -> ([[u8; 4]; 90], [[Bitboard; 4]; 90]) {
    let mut legs = [[255u8; 4]; 90];
    let mut targets = [[Bitboard::EMPTY; 4]; 90];
    let mut sq = 0;
    while sq < 90 {
        let (f, r) = ((sq % 9) as i32, (sq / 9) as i32);
        let mut d = 0;
        while d < 4 {
            let (df, dr) = DIR_STEPS[d];
            let (lx, ly) = (f + df, r + dr);
            if lx >= 0 && lx < 9 && ly >= 0 && ly < 10 {
                legs[sq][d] = (ly * 9 + lx) as u8;
                // Outward diagonal: one more step in the leg's direction plus one sideways.
                let (sx, sy) = (dr, df); // perpendicular
                targets[sq][d] = Bitboard(bit(lx + df + sx, ly + dr + sy) | bit(lx + df - sx, ly + dr - sy));
            }
            d += 1;
        }
        sq += 1;
    }
    (legs, targets)
}

/// For a target square: per diagonal neighbour (the leg of any knight that attacks through
/// it; 255 off the board), the two knight squares that attack the target through that leg.
const fn build_knight_attackers() -> ([[u8; 4]; 90], [[Bitboard; 4]; 90]) {
    let mut legs = [[255u8; 4]; 90];
    let mut from = [[Bitboard::EMPTY; 4]; 90];
    let mut sq = 0;
    while sq < 90 {
        let (f, r) = ((sq % 9) as i32, (sq / 9) as i32);
        let mut d = 0;
        while d < 4 {
            let (dx, dy) = DIAGONALS[d];
            let (lx, ly) = (f + dx, r + dy);
            if lx >= 0 && lx < 9 && ly >= 0 && ly < 10 {
                legs[sq][d] = (ly * 9 + lx) as u8;
                from[sq][d] = Bitboard(bit(f + 2 * dx, r + dy) | bit(f + dx, r + 2 * dy));
            }
            d += 1;
        }
        sq += 1;
    }
    (legs, from)
}

const fn build_pawn() -> [[Bitboard; 90]; 2] {
    let mut t = [[Bitboard::EMPTY; 90]; 2];
    let mut c = 0;
    while c < 2 {
        let fwd = if c == 0 { 1 } else { -1 };
        let mut sq = 0;
        while sq < 90 {
            let (f, r) = ((sq % 9) as i32, (sq / 9) as i32);
            let crossed = if c == 0 { r >= 5 } else { r <= 4 };
            let mut bb = bit(f, r + fwd);
            if crossed {
                bb |= bit(f - 1, r) | bit(f + 1, r);
            }
            t[c][sq] = Bitboard(bb);
            sq += 1;
        }
        c += 1;
    }
    t
}

const fn invert(t: &[Bitboard; 90]) -> [Bitboard; 90] {
    let mut inv = [Bitboard::EMPTY; 90];
    let mut from = 0;
    while from < 90 {
        let mut to = 0;
        while to < 90 {
            if t[from].0 >> to & 1 != 0 {
                inv[to].0 |= 1u128 << from;
            }
            to += 1;
        }
        from += 1;
    }
    inv
}

pub static RAYS: [[Bitboard; 4]; 90] = build_rays();
pub static KING_STEPS: [Bitboard; 90] = build_king();
pub static ADVISOR_STEPS: [Bitboard; 90] = build_advisor();
pub static BISHOP_STEPS: [[BishopStep; 4]; 90] = build_bishop();
const KNIGHT: ([[u8; 4]; 90], [[Bitboard; 4]; 90]) = build_knight();
pub static KNIGHT_LEGS: [[u8; 4]; 90] = KNIGHT.0;
pub static KNIGHT_TARGETS: [[Bitboard; 4]; 90] = KNIGHT.1;
const KNIGHT_ATT: ([[u8; 4]; 90], [[Bitboard; 4]; 90]) = build_knight_attackers();
pub static KNIGHT_ATTACKER_LEGS: [[u8; 4]; 90] = KNIGHT_ATT.0;
pub static KNIGHT_ATTACKERS: [[Bitboard; 4]; 90] = KNIGHT_ATT.1;
const PAWN: [[Bitboard; 90]; 2] = build_pawn();
pub static PAWN_STEPS: [[Bitboard; 90]; 2] = PAWN;
/// `PAWN_ATTACKERS[c][sq]`: where a pawn of colour `c` must stand to attack `sq`.
pub static PAWN_ATTACKERS: [[Bitboard; 90]; 2] = [invert(&PAWN[0]), invert(&PAWN[1])];

#[inline]
fn ray_attack(sq: Square, occ: Bitboard, dir: usize) -> (Bitboard, Option<Square>) {
    let ray = RAYS[sq.index()][dir];
    let blockers = ray & occ;
    let first = if dir < 2 { blockers.first() } else { blockers.last() };
    match first {
        Some(b) => (ray ^ RAYS[b.index()][dir], Some(b)),
        None => (ray, None),
    }
}

/// Squares a rook on `sq` attacks (up to and including the first blocker in each direction).
#[inline]
pub fn rook_attacks(sq: Square, occ: Bitboard) -> Bitboard {
    let mut att = Bitboard::EMPTY;
    for dir in 0..4 {
        att |= ray_attack(sq, occ, dir).0;
    }
    att
}

/// Squares a rook on `sq` attacks along its file only (the flying-general line).
#[inline]
pub fn file_attacks(sq: Square, occ: Bitboard) -> Bitboard {
    ray_attack(sq, occ, NORTH).0 | ray_attack(sq, occ, SOUTH).0
}

/// Squares a cannon on `sq` attacks: in each direction the first piece beyond the screen.
#[inline]
pub fn cannon_attacks(sq: Square, occ: Bitboard) -> Bitboard {
    let mut att = Bitboard::EMPTY;
    // `dir` is a direction number (its order says which end of a ray is nearest), not only
    // an index.
    #[allow(clippy::needless_range_loop)]
    for dir in 0..4 {
        if let (_, Some(screen)) = ray_attack(sq, occ, dir) {
            let beyond = RAYS[screen.index()][dir] & occ;
            let target = if dir < 2 { beyond.first() } else { beyond.last() };
            if let Some(t) = target {
                att = att.with(t);
            }
        }
    }
    att
}

/// Squares a knight on `sq` reaches, legs respected.
#[inline]
pub fn knight_attacks(sq: Square, occ: Bitboard) -> Bitboard {
    let mut att = Bitboard::EMPTY;
    let legs = &KNIGHT_LEGS[sq.index()];
    for d in 0..4 {
        let leg = legs[d];
        if leg != 255 && occ.0 >> leg & 1 == 0 {
            att |= KNIGHT_TARGETS[sq.index()][d];
        }
    }
    att
}

/// Squares from which a knight attacks `sq`, legs respected.
#[inline]
pub fn knight_attackers_mask(sq: Square, occ: Bitboard) -> Bitboard {
    let mut from = Bitboard::EMPTY;
    let legs = &KNIGHT_ATTACKER_LEGS[sq.index()];
    for d in 0..4 {
        let leg = legs[d];
        if leg != 255 && occ.0 >> leg & 1 == 0 {
            from |= KNIGHT_ATTACKERS[sq.index()][d];
        }
    }
    from
}

/// Squares a bishop on `sq` reaches, eyes and the river respected.
#[inline]
pub fn bishop_attacks(sq: Square, occ: Bitboard) -> Bitboard {
    let mut att = Bitboard::EMPTY;
    for step in &BISHOP_STEPS[sq.index()] {
        if step.target != BishopStep::NONE && occ.0 >> step.eye & 1 == 0 {
            att.0 |= 1u128 << step.target;
        }
    }
    att
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn step_tables_have_expected_sizes() {
        assert_eq!(KING_STEPS[Square::E1.index()].count(), 4);
        assert_eq!(KING_STEPS[Square::D0.index()].count(), 2);
        assert_eq!(KING_STEPS[Square::C0.index()].count(), 0);
        assert_eq!(ADVISOR_STEPS[Square::E1.index()].count(), 4);
        assert_eq!(ADVISOR_STEPS[Square::D9.index()].count(), 1);
        assert_eq!(knight_attacks(Square::E4, Bitboard::EMPTY).count(), 8);
        assert_eq!(knight_attacks(Square::A0, Bitboard::EMPTY).count(), 2);
        assert_eq!(bishop_attacks(Square::E2, Bitboard::EMPTY).count(), 4);
        assert_eq!(bishop_attacks(Square::C4, Bitboard::EMPTY).count(), 2);
        assert_eq!(PAWN_STEPS[0][Square::E3.index()].count(), 1);
        assert_eq!(PAWN_STEPS[0][Square::E5.index()].count(), 3);
        assert_eq!(PAWN_STEPS[1][Square::A4.index()].count(), 2);
    }

    #[test]
    fn knight_attackers_invert_knight_attacks() {
        for occ_seed in [0u128, 0x5555_5555_5555_5555_5555, 0x1234_5678_9abc_def0_1234] {
            let occ = Bitboard(occ_seed & Bitboard::FULL.0);
            for to in Square::all() {
                let mask = knight_attackers_mask(to, occ);
                for from in Square::all() {
                    assert_eq!(mask.contains(from), knight_attacks(from, occ).contains(to), "{from}->{to}");
                }
            }
        }
    }

    #[test]
    fn cannon_jumps_one_screen() {
        let occ = Bitboard::from_square(Square::E4).with(Square::E7).with(Square::E9);
        let att = cannon_attacks(Square::E2, occ);
        assert_eq!(att, Bitboard::from_square(Square::E7));
        let rook = rook_attacks(Square::E2, occ);
        assert!(rook.contains(Square::E4) && !rook.contains(Square::E5) && rook.contains(Square::E0));
    }
}
