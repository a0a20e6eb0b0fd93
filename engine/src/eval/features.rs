//! The evaluation, written once over an `Accumulator`: every feature is reported as
//! `(feature, count)` with Red's pieces counting +1 and Black's -1. The scorer multiplies
//! by the weights, the tracer records the counts, so the trace is exact by construction.
//!
//! This file walks the pieces (material, piece-square tables, mobility and the per-piece
//! relations) and collects each side's attack maps; `relations.rs` scores what the maps show.

use super::pst;
use super::relations::{self, SideAttacks};
use super::terms::*;
use crate::movegen::attacks::{
    self, ADVISOR_STEPS, KING_STEPS, KNIGHT_LEGS, PAWN_STEPS, RAYS, bishop_attacks, knight_attacks, rook_attacks,
};
use crate::position::Position;
use crate::types::{Bitboard, Color, PieceKind, Square};

/// Receives the features of a position.
pub(crate) trait Accumulator {
    /// Adds `count` occurrences of `feature` (negative counts are Black's).
    fn add(&mut self, feature: usize, count: i32);
}

/// +1 for Red, -1 for Black.
#[inline]
pub(crate) const fn sign(c: Color) -> i32 {
    match c {
        Color::Red => 1,
        Color::Black => -1,
    }
}

/// Reports every feature of `pos` to `acc`.
pub(crate) fn accumulate<A: Accumulator>(pos: &Position, acc: &mut A) {
    // Mobility counts only moves to squares the cheap enemy pieces (pawns, advisors,
    // elephants) do not attack, so those attacks are needed before the piece walk.
    let low = [low_attacks(pos, Color::Red), low_attacks(pos, Color::Black)];
    let red = walk_pieces(pos, Color::Red, low[1], acc);
    let black = walk_pieces(pos, Color::Black, low[0], acc);
    relations::score(pos, Color::Red, &red, &black, acc);
    relations::score(pos, Color::Black, &black, &red, acc);
    acc.add(TEMPO.at(0), sign(pos.side_to_move()));
}

/// Squares attacked by `c`'s pawns, advisors and elephants.
#[inline]
fn low_attacks(pos: &Position, c: Color) -> Bitboard {
    let occ = pos.occupied();
    let mut att = Bitboard::EMPTY;
    for sq in pos.pieces(c, PieceKind::Pawn) {
        att |= PAWN_STEPS[c.index()][sq.index()];
    }
    for sq in pos.pieces(c, PieceKind::Advisor) {
        att |= ADVISOR_STEPS[sq.index()];
    }
    for sq in pos.pieces(c, PieceKind::Bishop) {
        att |= bishop_attacks(sq, occ);
    }
    att
}

/// The squares a cannon on `sq` moves to without capturing, and the squares it controls
/// beyond its screen (up to and including the next piece: its capture target).
#[inline]
pub(crate) fn cannon_reach(sq: Square, occ: Bitboard) -> (Bitboard, Bitboard) {
    let mut quiet = Bitboard::EMPTY;
    let mut control = Bitboard::EMPTY;
    for (dir, &ray) in RAYS[sq.index()].iter().enumerate() {
        let Some(screen) = first_on_ray(ray & occ, dir) else {
            quiet |= ray;
            continue;
        };
        let beyond = RAYS[screen.index()][dir];
        quiet |= ray ^ beyond.with(screen);
        control |= match first_on_ray(beyond & occ, dir) {
            Some(target) => beyond ^ RAYS[target.index()][dir],
            None => beyond,
        };
    }
    (quiet, control)
}

/// The nearest square of `blockers` along a ray in direction `dir` (see `attacks::NORTH`).
#[inline]
fn first_on_ray(blockers: Bitboard, dir: usize) -> Option<Square> {
    if dir == attacks::NORTH || dir == attacks::EAST { blockers.first() } else { blockers.last() }
}

/// How many of the knight's legs are on the board and occupied.
#[inline]
fn blocked_legs(sq: Square, occ: Bitboard) -> usize {
    KNIGHT_LEGS[sq.index()].iter().filter(|&&leg| leg != 255 && occ.0 >> leg & 1 != 0).count()
}

/// Material, piece-square, mobility and per-piece relation features of `us`; returns the
/// side's attack maps. `unsafe_squares` are those the enemy's pawns, advisors and elephants attack.
fn walk_pieces<A: Accumulator>(pos: &Position, us: Color, unsafe_squares: Bitboard, acc: &mut A) -> SideAttacks {
    let s = sign(us);
    let occ = pos.occupied();
    let own = pos.by_color(us);
    let theirs = pos.by_color(!us);
    let safe = !(own | unsafe_squares);
    let their_palace = relations::PALACE[(!us).index()];
    let their_king = pos.king(!us);
    let pst = &pst::INDEX[us.index()];
    let mut map = SideAttacks::default();

    let king = pos.king(us);
    acc.add(PST_KING.at(pst[PieceKind::King.index()][king.index()] as usize), s);
    map.add_king(KING_STEPS[king.index()]);

    for sq in pos.pieces(us, PieceKind::Advisor) {
        acc.add(MATERIAL_ADVISOR.at(0), s);
        let att = ADVISOR_STEPS[sq.index()];
        map.add(att);
        map.by_minor |= att;
        acc.add(PST_ADVISOR.at(pst[PieceKind::Advisor.index()][sq.index()] as usize), s);
        acc.add(MOBILITY_ADVISOR.capped((att & safe).count()), s);
    }

    for sq in pos.pieces(us, PieceKind::Bishop) {
        acc.add(MATERIAL_BISHOP.at(0), s);
        let att = bishop_attacks(sq, occ);
        map.add(att);
        map.by_minor |= att;
        acc.add(PST_BISHOP.at(pst[PieceKind::Bishop.index()][sq.index()] as usize), s);
        acc.add(MOBILITY_BISHOP.capped((att & safe).count()), s);
    }

    for sq in pos.pieces(us, PieceKind::Knight) {
        acc.add(MATERIAL_KNIGHT.at(0), s);
        let att = knight_attacks(sq, occ);
        map.add(att);
        map.by_knight_cannon |= att;
        map.palace_attackers += u32::from((att & their_palace).any());
        acc.add(PST_KNIGHT.at(pst[PieceKind::Knight.index()][sq.index()] as usize), s);
        acc.add(MOBILITY_KNIGHT.capped((att & safe).count()), s);
        acc.add(KNIGHT_BLOCKED_LEGS.at(blocked_legs(sq, occ)), s);
    }

    let pawns = pos.by_kind(PieceKind::Pawn);
    let own_pawns = pawns & own;
    for sq in pos.pieces(us, PieceKind::Rook) {
        acc.add(MATERIAL_ROOK.at(0), s);
        let att = rook_attacks(sq, occ);
        map.add(att);
        map.palace_attackers += u32::from((att & their_palace).any());
        acc.add(PST_ROOK.at(pst[PieceKind::Rook.index()][sq.index()] as usize), s);
        acc.add(MOBILITY_ROOK.capped((att & safe).count()), s);
        let file = relations::FILES[sq.file() as usize];
        if (file & pawns).is_empty() {
            acc.add(ROOK_OPEN_FILE.at(0), s);
        } else if (file & own_pawns).is_empty() {
            acc.add(ROOK_SEMI_OPEN_FILE.at(0), s);
        }
    }

    for sq in pos.pieces(us, PieceKind::Cannon) {
        acc.add(MATERIAL_CANNON.at(0), s);
        let (quiet, control) = cannon_reach(sq, occ);
        map.add(control);
        map.by_knight_cannon |= control;
        map.palace_attackers += u32::from((control & their_palace).any());
        acc.add(PST_CANNON.at(pst[PieceKind::Cannon.index()][sq.index()] as usize), s);
        let moves = quiet | (control & theirs);
        acc.add(MOBILITY_CANNON.capped((moves & safe).count()), s);
        if let Some(feature) = relations::cannon_facing_king(sq, their_king, occ) {
            acc.add(feature, s);
        }
    }

    for sq in pos.pieces(us, PieceKind::Pawn) {
        acc.add(MATERIAL_PAWN.at(0), s);
        let att = PAWN_STEPS[us.index()][sq.index()];
        map.add(att);
        map.by_pawn |= att;
        map.palace_attackers += u32::from((att & their_palace).any());
        acc.add(PST_PAWN.at(pst[PieceKind::Pawn.index()][sq.index()] as usize), s);
    }
    map
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cannon_reach_matches_the_move_generator() {
        for fen in [
            crate::START_FEN,
            "2bakab2/6r2/2n1c1nc1/p1p2rp1p/4p4/2PN2PC1/P3P3P/6N2/3CA4/1RBAK1B1R w - - 0 1",
            "1rbaka2R/5r3/6n2/2p1p1p2/4P1bP1/PpC3Bc1/1nPR2P2/2N2AN2/1c2K1p2/2BAC4 w - - 0 1",
        ] {
            let pos = Position::from_fen(fen).expect("valid FEN");
            for sq in pos.by_kind(PieceKind::Cannon) {
                let color = pos.piece_at(sq).map(|p| p.color).expect("a cannon");
                let (quiet, control) = cannon_reach(sq, pos.occupied());
                let moves = quiet | (control & pos.by_color(!color));
                assert_eq!(moves, crate::movegen::piece_targets(&pos, sq), "{fen} {sq}");
                assert_eq!(control & pos.occupied(), attacks::cannon_attacks(sq, pos.occupied()));
                assert!((quiet & control).is_empty());
            }
        }
    }

    #[test]
    fn blocked_legs_counts_on_board_legs() {
        let pos = Position::startpos();
        // b1 is free, a0 and c0 are occupied, the fourth leg is off the board.
        assert_eq!(blocked_legs(Square::B0, pos.occupied()), 2);
        assert_eq!(blocked_legs(Square::E4, Bitboard::EMPTY), 0);
    }
}
