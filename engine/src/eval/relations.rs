//! Relations between pieces (棋子间的关系), from the attack maps `features.rs` collects:
//! hanging pieces, pieces attacked by cheaper ones, king safety, crossed and connected
//! pawns, and the cannon facing the enemy king. Every feature is a count, or a product of
//! counts, so the score stays linear in the weights.

use super::features::{Accumulator, sign};
use super::terms::*;
use crate::movegen::attacks::{NORTH, RAYS, SOUTH};
use crate::position::Position;
use crate::types::{Bitboard, Color, PieceKind, Square};

/// What one side's pieces attack. A cannon attacks the squares beyond its screen up to and
/// including the next piece; every other piece its move targets, own pieces included
/// (attacking an own piece defends it).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct SideAttacks {
    /// Attacked by any piece.
    pub all: Bitboard,
    /// Attacked by two pieces or more.
    pub twice: Bitboard,
    /// Attacked by a piece other than the king.
    pub without_king: Bitboard,
    pub by_pawn: Bitboard,
    /// By advisors and elephants.
    pub by_minor: Bitboard,
    pub by_knight_cannon: Bitboard,
    /// Rooks, horses, cannons and pawns attacking some square of the enemy palace.
    pub palace_attackers: u32,
}

impl SideAttacks {
    #[inline]
    pub fn add(&mut self, att: Bitboard) {
        self.twice |= self.all & att;
        self.all |= att;
        self.without_king |= att;
    }

    #[inline]
    pub fn add_king(&mut self, att: Bitboard) {
        self.twice |= self.all & att;
        self.all |= att;
    }
}

const fn palace(c: Color) -> Bitboard {
    let mut bb = 0u128;
    let mut sq = 0;
    while sq < 90 {
        if Square::from_index(sq).in_palace(c) {
            bb |= 1 << sq;
        }
        sq += 1;
    }
    Bitboard(bb)
}

const fn files() -> [Bitboard; 9] {
    let mut t = [Bitboard::EMPTY; 9];
    let mut sq = 0;
    while sq < 90 {
        t[sq % 9].0 |= 1 << sq;
        sq += 1;
    }
    t
}

/// Each side's palace.
pub(crate) const PALACE: [Bitboard; 2] = [palace(Color::Red), palace(Color::Black)];
/// The squares of each file a-i.
pub(crate) const FILES: [Bitboard; 9] = files();
/// Each side's far half: Black's ranks 5-9 for Red, Red's ranks 0-4 for Black.
const ACROSS_RIVER: [Bitboard; 2] = [Bitboard(Bitboard::FULL.0 & !((1 << 45) - 1)), Bitboard((1 << 45) - 1)];

/// The relation feature of a cannon on `sq` facing the enemy king on `king`, if any: nothing
/// between them on a file (the hollow cannon, 空头炮), or one or two pieces between them on
/// the central file (the central cannon with its screen).
#[inline]
pub(crate) fn cannon_facing_king(sq: Square, king: Square, occ: Bitboard) -> Option<usize> {
    if sq.file() != king.file() {
        return None;
    }
    let (low, high) = if sq.rank() < king.rank() { (sq, king) } else { (king, sq) };
    let between = RAYS[low.index()][NORTH] & RAYS[high.index()][SOUTH] & occ;
    match between.count() {
        0 => Some(HOLLOW_CANNON.at(0)),
        n @ 1..=2 if sq.file() == 4 => Some(CENTRAL_CANNON.at(n as usize - 1)),
        _ => None,
    }
}

/// The relation features read from the attack maps, for `us`.
pub(crate) fn score<A: Accumulator>(pos: &Position, us: Color, ours: &SideAttacks, theirs: &SideAttacks, acc: &mut A) {
    let s = sign(us);
    let own = pos.by_color(us);

    // Truly defended: by a piece other than the king, or by the king where only one enemy
    // piece attacks (the king cannot retake against a second attacker).
    let defended = ours.without_king | (ours.all & !theirs.twice);
    let hanging = own & theirs.all & !defended;
    let by_minor_or_less = theirs.by_pawn | theirs.by_minor;
    let by_lower = [
        Bitboard::EMPTY,                            // king: not scored
        theirs.by_pawn,                             // advisor
        theirs.by_pawn,                             // elephant
        by_minor_or_less,                           // horse
        by_minor_or_less | theirs.by_knight_cannon, // rook
        by_minor_or_less,                           // cannon
    ];
    for kind in [PieceKind::Advisor, PieceKind::Bishop, PieceKind::Knight, PieceKind::Rook, PieceKind::Cannon] {
        let pieces = pos.pieces(us, kind);
        let i = kind.index() - 1;
        let hit = pieces & hanging;
        if hit.any() {
            acc.add(HANGING.at(i), s * hit.count() as i32);
        }
        let hit = pieces & by_lower[kind.index()];
        if hit.any() {
            acc.add(ATTACKED_BY_LOWER.at(i), s * hit.count() as i32);
        }
    }
    let pawns = pos.pieces(us, PieceKind::Pawn);
    let hit = pawns & hanging;
    if hit.any() {
        acc.add(HANGING.at(PieceKind::Pawn.index() - 1), s * hit.count() as i32);
    }

    // King safety: enemy pieces bearing on the palace, and missing defenders weighed
    // against the enemy pieces that exploit them.
    acc.add(PALACE_ATTACKERS.capped(theirs.palace_attackers), s);
    let missing = |kind: PieceKind| (kind.max_count() - pos.count(us, kind)) as i32;
    let enemy = |kind: PieceKind| pos.count(!us, kind) as i32;
    let (rooks, knights, cannons) = (enemy(PieceKind::Rook), enemy(PieceKind::Knight), enemy(PieceKind::Cannon));
    for (missing, [vs_rook, vs_knight, vs_cannon]) in [
        (missing(PieceKind::Advisor), [MISSING_ADVISOR_VS_ROOK, MISSING_ADVISOR_VS_KNIGHT, MISSING_ADVISOR_VS_CANNON]),
        (missing(PieceKind::Bishop), [MISSING_BISHOP_VS_ROOK, MISSING_BISHOP_VS_KNIGHT, MISSING_BISHOP_VS_CANNON]),
    ] {
        if missing == 0 {
            continue;
        }
        for (feature, attackers) in [(vs_rook, rooks), (vs_knight, knights), (vs_cannon, cannons)] {
            if attackers != 0 {
                acc.add(feature.at(0), s * missing * attackers);
            }
        }
    }

    // Pawns across the river, and pairs of them side by side.
    let crossed = pawns & ACROSS_RIVER[us.index()];
    acc.add(CROSSED_PAWNS.capped(crossed.count()), s);
    let pairs = crossed.0 & crossed.0 >> 1 & !FILES[8].0;
    if pairs != 0 {
        acc.add(CONNECTED_PAWNS.at(0), s * pairs.count_ones() as i32);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masks() {
        assert_eq!(PALACE[0].count(), 9);
        assert!(PALACE[1].contains(Square::F9) && !PALACE[1].contains(Square::F2));
        assert!(FILES[4].contains(Square::E7) && FILES[4].count() == 10);
        assert!(ACROSS_RIVER[0].contains(Square::A5) && !ACROSS_RIVER[0].contains(Square::I4));
        assert_eq!(ACROSS_RIVER[0] | ACROSS_RIVER[1], Bitboard::FULL);
    }

    #[test]
    fn cannon_facing_king_kinds() {
        let occ = Bitboard::from_square(Square::E2).with(Square::E9).with(Square::E6);
        assert_eq!(cannon_facing_king(Square::E2, Square::E9, occ), Some(CENTRAL_CANNON.at(0)));
        let occ = occ.with(Square::E3);
        assert_eq!(cannon_facing_king(Square::E2, Square::E9, occ), Some(CENTRAL_CANNON.at(1)));
        let occ = occ.with(Square::E4);
        assert_eq!(cannon_facing_king(Square::E2, Square::E9, occ), None);
        let occ = Bitboard::from_square(Square::D3).with(Square::D8);
        assert_eq!(cannon_facing_king(Square::D3, Square::D8, occ), Some(HOLLOW_CANNON.at(0)));
        assert_eq!(cannon_facing_king(Square::D3, Square::E8, occ), None);
    }
}
