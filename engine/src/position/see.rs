//! Static exchange evaluation: whether the exchange a move starts on its target square wins
//! at least a threshold, both sides recapturing with their least valuable piece and each
//! free to stop. Stockfish's swap algorithm (`see_ge`), with Xiangqi's attacks:
//!
//! - the attackers of the square are recomputed from the occupancy each time a piece that
//!   could matter leaves (one on the square's file or rank, or diagonally next to it): a
//!   rook behind the one that left now sees the square, a cannon that had two screens now
//!   has one and attacks, a cannon whose only screen left stops attacking, a knight whose
//!   leg was blocked and a bishop whose eye was blocked now reach it;
//! - pawns attack by side (sideways only after crossing the river), advisors and kings only
//!   inside their palace, bishops only on their own side of the river;
//! - a king captures only when no enemy piece attacks the square after it moves and it does
//!   not then face the other king on an open file (the flying general).
//!
//! Pins are not looked at (as in Stockfish's plain swap): a piece that may not legally leave
//! its square still takes part in the exchange.
//!
//! ```
//! use engine::{Move, Position, Square};
//!
//! // A rook takes a pawn that a knight defends: it loses the exchange.
//! let pos = Position::from_fen("4k4/9/9/9/4p4/2n6/9/9/4R4/3K5 w - - 0 1").unwrap();
//! let m = Move::new(Square::E1, Square::E5);
//! assert!(!pos.see_ge(m, 0));
//! assert!(pos.see_ge(m, 100 - 1000));
//! ```

use super::Position;
use crate::movegen::attacks::{
    ADVISOR_STEPS, KING_STEPS, PAWN_ATTACKERS, bishop_attacks, cannon_attacks, file_attacks, knight_attackers_mask,
    rook_attacks,
};
use crate::types::{Bitboard, Color, Move, Piece, PieceKind, Square};

/// The piece values of static exchange, by `PieceKind::index` (the king's 0: a legal king
/// capture can never be answered). A pawn is worth [`SEE_PAWN_CROSSED`] across the river.
pub const SEE_VALUES: [i32; 7] = [0, 200, 200, 400, 1000, 450, 100];
/// A pawn's exchange value once it has crossed the river (it then also moves sideways).
pub const SEE_PAWN_CROSSED: i32 = 200;

/// The least valuable attacker first (the king, which ends an exchange, is apart).
const CAPTURE_ORDER: [PieceKind; 6] =
    [PieceKind::Pawn, PieceKind::Advisor, PieceKind::Bishop, PieceKind::Knight, PieceKind::Cannon, PieceKind::Rook];

/// The exchange value of `piece` standing on `sq`.
#[inline]
pub fn see_value(piece: Piece, sq: Square) -> i32 {
    if piece.kind == PieceKind::Pawn {
        let crossed = match piece.color {
            Color::Red => sq.rank() >= 5,
            Color::Black => sq.rank() <= 4,
        };
        if crossed {
            return SEE_PAWN_CROSSED;
        }
    }
    SEE_VALUES[piece.kind.index()]
}

/// Whether a piece leaving `sq` can change who attacks `to`: a rook's or cannon's line
/// through `sq`, or a knight's leg or bishop's eye on `sq`.
#[inline]
fn may_uncover(sq: Square, to: Square) -> bool {
    let (df, dr) = (sq.file() - to.file(), sq.rank() - to.rank());
    df == 0 || dr == 0 || (df.abs() == 1 && dr.abs() == 1)
}

impl Position {
    /// Pieces of both colours among `occ` that attack `sq` under occupancy `occ`.
    #[inline]
    fn exchange_attackers(&self, sq: Square, occ: Bitboard) -> Bitboard {
        let k = |kind: PieceKind| self.by_kind(kind) & occ;
        let pawns = |c: Color| PAWN_ATTACKERS[c.index()][sq.index()] & self.pieces(c, PieceKind::Pawn);
        (rook_attacks(sq, occ) & k(PieceKind::Rook))
            | (cannon_attacks(sq, occ) & k(PieceKind::Cannon))
            | (knight_attackers_mask(sq, occ) & k(PieceKind::Knight))
            | (bishop_attacks(sq, occ) & k(PieceKind::Bishop))
            | (ADVISOR_STEPS[sq.index()] & k(PieceKind::Advisor))
            | (KING_STEPS[sq.index()] & k(PieceKind::King))
            | ((pawns(Color::Red) | pawns(Color::Black)) & occ)
    }

    /// Whether the static exchange that `m` starts gains at least `threshold` for the side
    /// making it (captured value minus what it loses on the square; a quiet move gains 0 at
    /// best). `m` must be a pseudo-legal move of this position.
    pub fn see_ge(&self, m: Move, threshold: i32) -> bool {
        let (from, to) = (m.from(), m.to());
        let Some(mover) = self.piece_at(from) else {
            debug_assert!(false, "see_ge({m}): no piece on {from}");
            return threshold <= 0;
        };
        // `swap` is what the side that just moved is ahead of the threshold if the piece it
        // put on `to` is taken (negated each turn); `res` whether the side that moved last
        // reaches the threshold when the other side stops.
        let mut swap = self.piece_at(to).map_or(0, |p| see_value(p, to)) - threshold;
        if swap < 0 {
            return false;
        }
        swap = see_value(mover, to) - swap;
        if swap <= 0 {
            return true;
        }
        let mut occ = self.occupied().without(from).with(to);
        let mut attackers = self.exchange_attackers(to, occ);
        let mut stm = mover.color;
        let mut res = true;
        loop {
            stm = !stm;
            attackers &= occ;
            let ours = attackers & self.by_color(stm);
            if ours.is_empty() {
                break;
            }
            res = !res;
            let Some((sq, kind)) =
                CAPTURE_ORDER.iter().find_map(|&kind| (ours & self.by_kind(kind)).first().map(|sq| (sq, kind)))
            else {
                // Only the king is left: it may take if it is then safe on `to`.
                let king = self.king(stm);
                occ = occ.without(king);
                let enemies = self.exchange_attackers(to, occ) & self.by_color(!stm);
                let their_king = self.king(!stm);
                let facing = file_attacks(to, occ).contains(their_king);
                return if enemies.any() || facing { !res } else { res };
            };
            swap = see_value(Piece::new(stm, kind), to) - swap;
            if swap < i32::from(res) {
                break;
            }
            occ = occ.without(sq);
            if may_uncover(sq, to) {
                attackers = self.exchange_attackers(to, occ);
            }
        }
        res
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::movegen::{GenType, MoveList, generate_pseudo, piece_targets};

    fn pos(fen: &str) -> Position {
        Position::from_fen(fen).unwrap_or_else(|e| panic!("{fen}: {e}"))
    }

    fn mv(s: &str) -> Move {
        let sq = |t: &str| t.parse::<Square>().unwrap_or_else(|e| panic!("{t}: {e:?}"));
        Move::new(sq(&s[..2]), sq(&s[2..]))
    }

    /// The exchange value of `m`: the largest threshold `see_ge` accepts.
    fn see(p: &Position, m: &str) -> i32 {
        let m = mv(m);
        assert!(p.is_pseudo_legal(m), "{m} in {}", p.fen());
        let v = (-2000..=2000).rev().find(|&t| p.see_ge(m, t)).expect("some threshold holds");
        assert!(!p.see_ge(m, v + 1));
        v
    }

    #[test]
    fn defended_and_undefended_victims() {
        // A rook takes a pawn that the knight c4 defends through its leg d4.
        let p = pos("4k4/9/9/9/4p4/2n6/9/9/4R4/3K5 w - - 0 1");
        assert_eq!(see(&p, "e1e5"), 100 - 1000);
        assert!(!p.see_ge(mv("e1e5"), 0));
        // The same pawn without its defender.
        let p = pos("4k4/9/9/9/4p4/9/9/9/4R4/3K5 w - - 0 1");
        assert_eq!(see(&p, "e1e5"), 100);
        // A pawn takes an undefended rook, and a rook that a cannon on e9 defends over the
        // screen e7: the cannon takes back a pawn worth more once across the river.
        let p = pos("3k5/9/9/9/4r4/4P4/9/9/9/4K4 w - - 0 1");
        assert_eq!(see(&p, "e4e5"), 1000);
        let p = pos("3kc4/9/4b4/9/4r4/4P4/9/9/9/4K4 w - - 0 1");
        assert_eq!(see(&p, "e4e5"), 1000 - SEE_PAWN_CROSSED);
        assert!(p.see_ge(mv("e4e5"), 0));
    }

    #[test]
    fn quiet_moves_lose_what_is_taken() {
        // Knight c3-e4 where the black pawn e5 takes it and the red pawn e3 takes back a
        // pawn that has crossed the river.
        let p = pos("4k4/9/9/9/4p4/9/2N1P4/9/9/3K5 w - - 0 1");
        assert_eq!(see(&p, "c3e4"), -400 + 200);
        // A quiet move to a square nobody attacks.
        assert_eq!(see(&p, "c3b5"), 0);
    }

    #[test]
    fn a_blocked_knight_leg_does_not_defend() {
        let open = pos("4k4/9/9/9/4p4/2n6/9/9/4R4/3K5 w - - 0 1");
        assert_eq!(see(&open, "e1e5"), 100 - 1000);
        // A red knight on d4, the leg of c4's jump to e5.
        let blocked = pos("4k4/9/9/9/4p4/2nN5/9/9/4R4/3K5 w - - 0 1");
        assert_eq!(see(&blocked, "e1e5"), 100);
    }

    #[test]
    fn bishops_need_their_eye_and_stay_on_their_side() {
        // The black bishop e7 defends g5 through its eye f6.
        let p = pos("4k4/9/4b4/9/6n2/9/9/9/6R2/3K5 w - - 0 1");
        assert_eq!(see(&p, "g1g5"), 400 - 1000);
        let blocked = pos("4k4/9/4b4/5n3/6n2/9/9/9/6R2/3K5 w - - 0 1");
        assert_eq!(see(&blocked, "g1g5"), 400);
        // The red bishop c4 would reach e6 through d5, but not across the river.
        let p = pos("3k5/4r4/9/4N4/9/2B6/9/9/9/4K4 b - - 0 1");
        assert_eq!(see(&p, "e8e6"), 400);
    }

    #[test]
    fn pawns_attack_sideways_only_across_the_river() {
        // The red pawn c4 has not crossed: it does not guard d4 beside it.
        let p = pos("4k4/9/9/9/3r5/2PN5/9/9/9/3K5 b - - 0 1");
        assert_eq!(see(&p, "d5d4"), 400);
        // The red pawn c5 has: it guards d5.
        let p = pos("4k4/9/9/3r5/2PN5/9/9/9/9/3K5 b - - 0 1");
        assert_eq!(see(&p, "d6d5"), 400 - 1000);
    }

    #[test]
    fn a_capture_uncovers_a_cannon_behind() {
        // The red cannon e0 has two screens, the advisor e1 and the rook e2. When the rook
        // takes the knight e5 and the black rook takes it back, the cannon has one screen
        // left and takes the black rook.
        let p = pos("3k5/4r4/9/9/4n4/9/9/4R4/4A4/4CK3 w - - 0 1");
        assert_eq!(see(&p, "e2e5"), 400 - 1000 + 1000);
        let no_cannon = pos("3k5/4r4/9/9/4n4/9/9/4R4/4A4/5K3 w - - 0 1");
        assert_eq!(see(&no_cannon, "e2e5"), 400 - 1000);
    }

    #[test]
    fn a_cannon_whose_screen_leaves_stops_defending() {
        // The black cannon e9 defends e5 over the red rook e7. When that rook is the one
        // to capture, the cannon has no screen left.
        let p = pos("3kc4/9/4R4/9/R3p4/9/9/9/9/5K3 w - - 0 1");
        assert_eq!(see(&p, "e7e5"), 100);
        // The rook a5 takes instead: the cannon takes it over e7, the rook e7 takes back.
        assert_eq!(see(&p, "a5e5"), 100 - 1000 + 450);
        // Mid-exchange: red a5 takes, the knight c6 takes back, red e7 takes the knight;
        // the cannon then has no screen, so it cannot take again. (Attackers kept from the
        // start, as the chess swap does, would let it, and red would stop at -900.)
        let p = pos("3kc4/9/4R4/2n6/R3p4/9/9/9/9/5K3 w - - 0 1");
        assert_eq!(see(&p, "a5e5"), 100 - 1000 + 400);
    }

    #[test]
    fn kings_take_back_only_when_safe_and_not_facing() {
        // Black rook d5 takes the advisor d2; the king d1 takes back.
        let p = pos("4k4/9/9/9/3r5/9/9/3A5/3K5/9 b - - 0 1");
        assert_eq!(see(&p, "d5d2"), 200 - 1000);
        // The black rook a2 also attacks d2: the king may not take back.
        let p = pos("4k4/9/9/9/3r5/9/9/r2A5/3K5/9 b - - 0 1");
        assert_eq!(see(&p, "d5d2"), 200);
        // The black king d9 on the file the rook opens: taking back would face it.
        let p = pos("3k5/9/9/9/3r5/9/9/3A5/3K5/9 b - - 0 1");
        assert_eq!(see(&p, "d5d2"), 200);
    }

    /// The exchange played out on the board with pseudo-legal captures onto `to` (the least
    /// valuable capturer first, lowest square among equals, as `see_ge` takes them; a king
    /// only by a legal move), each side free to stop: the reference for `see_ge`.
    fn played_out(p: &mut Position, to: Square) -> i32 {
        let us = p.side_to_move();
        let capturer = CAPTURE_ORDER.iter().chain([PieceKind::King].iter()).find_map(|&kind| {
            p.pieces(us, kind).into_iter().find(|&from| {
                let m = Move::new(from, to);
                piece_targets(p, from).contains(to) && (kind != PieceKind::King || p.is_legal(m))
            })
        });
        let Some(from) = capturer else {
            return 0;
        };
        let victim = p.piece_at(to).map_or(0, |v| see_value(v, to));
        p.play_unchecked(Move::new(from, to));
        let gain = victim - played_out(p, to);
        p.undo();
        gain.max(0)
    }

    #[test]
    fn see_agrees_with_the_exchange_played_out() {
        let mut fens: Vec<String> = crate::bench::BENCH_FENS.iter().map(|f| f.to_string()).collect();
        // Random games from the start for many more exchanges (a fixed xorshift seed).
        let mut seed = 0x9E37_79B9_7F4A_7C15u64;
        let mut rand = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for _ in 0..60 {
            let mut p = Position::startpos();
            for _ in 0..(20 + rand() % 80) {
                let moves = p.legal_moves();
                if moves.is_empty() {
                    break;
                }
                // Prefer captures half of the time, so that the middlegames thin out.
                let caps: Vec<Move> = moves.iter().copied().filter(|&m| p.is_capture(m)).collect();
                let m = if !caps.is_empty() && rand() % 2 == 0 {
                    caps[(rand() % caps.len() as u64) as usize]
                } else {
                    moves[(rand() % moves.len() as u64) as usize]
                };
                p.play_unchecked(m);
                fens.push(p.fen());
            }
        }
        let mut checked = 0;
        for fen in &fens {
            let mut p = pos(fen);
            let mut list = MoveList::new();
            generate_pseudo(&p, GenType::All, &mut list);
            for &m in list.iter() {
                // Only moves that do not capture a king (pseudo-legal moves may).
                if p.piece_at(m.to()).is_some_and(|v| v.kind == PieceKind::King) {
                    continue;
                }
                let mover = p.piece_at(m.from()).expect("a mover");
                if mover.kind == PieceKind::King && !p.is_legal(m) {
                    continue;
                }
                let victim = p.piece_at(m.to()).map_or(0, |v| see_value(v, m.to()));
                p.play_unchecked(m);
                let expected = victim - played_out(&mut p, m.to());
                p.undo();
                assert!(p.see_ge(m, expected), "{fen} {m}: see < {expected}");
                assert!(!p.see_ge(m, expected + 1), "{fen} {m}: see > {expected}");
                checked += 1;
            }
        }
        assert!(checked > 20_000, "only {checked} moves checked");
    }
}
