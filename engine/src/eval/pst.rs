//! Compact piece-square indexing: one table entry per pair of squares mirrored across the
//! central file, over only the squares a kind can ever reach, seen from its owner's side.
//!
//! Entries are numbered rank by rank from the owner's back rank, files a to e (file e, the
//! central file, is its own mirror). Sizes: king 6, advisor 3, bishop 4, knight/rook/cannon
//! 50, pawn 31 (files a, c, e on its ranks 3-4, then every file across the river).
//! A Black piece on `sq` uses the entry of `sq.flip()`; since tables are mirror-symmetric,
//! flipping (a 180-degree turn) and mirroring ranks only are the same thing here.

use crate::types::{Color, PieceKind, Square};

/// Marks a square the kind can never reach.
pub const UNREACHABLE: u8 = u8::MAX;

/// Whether a Red piece of `kind` can stand on (`file`, `rank`): the rule of
/// `position::validate::square_reachable`, restated as a `const fn` so the index tables are
/// built at compile time (a test checks the two agree on every square).
const fn red_reachable(kind: PieceKind, file: i32, rank: i32) -> bool {
    let in_palace = file >= 3 && file <= 5 && rank <= 2;
    match kind {
        PieceKind::King => in_palace,
        PieceKind::Advisor => in_palace && (file + rank) % 2 == 1,
        PieceKind::Bishop => matches!((file, rank), (2 | 6, 0) | (0 | 4 | 8, 2) | (2 | 6, 4)),
        PieceKind::Pawn => rank >= 5 || (rank >= 3 && file % 2 == 0),
        PieceKind::Knight | PieceKind::Rook | PieceKind::Cannon => true,
    }
}

/// Red's table index of every square for one kind.
const fn build_layout(kind: PieceKind) -> [u8; 90] {
    let mut table = [UNREACHABLE; 90];
    let mut next = 0u8;
    let mut rank = 0;
    while rank < 10 {
        let mut file = 0;
        while file < 5 {
            if red_reachable(kind, file, rank) {
                table[(rank * 9 + file) as usize] = next;
                table[(rank * 9 + 8 - file) as usize] = next;
                next += 1;
            }
            file += 1;
        }
        rank += 1;
    }
    table
}

const fn count_entries(layout: &[u8; 90]) -> usize {
    let mut max = 0;
    let mut sq = 0;
    while sq < 90 {
        if layout[sq] != UNREACHABLE && layout[sq] as usize + 1 > max {
            max = layout[sq] as usize + 1;
        }
        sq += 1;
    }
    max
}

const fn build_all() -> [[[u8; 90]; 7]; 2] {
    let mut t = [[[UNREACHABLE; 90]; 7]; 2];
    let mut k = 0;
    while k < 7 {
        let layout = match PieceKind::from_index(k) {
            Some(kind) => build_layout(kind),
            None => [UNREACHABLE; 90],
        };
        let mut sq = 0;
        while sq < 90 {
            t[0][k][sq] = layout[sq];
            t[1][k][sq] = layout[89 - sq];
            sq += 1;
        }
        k += 1;
    }
    t
}

/// `INDEX[color][kind][square]`: the table entry of a piece, or `UNREACHABLE`.
pub static INDEX: [[[u8; 90]; 7]; 2] = build_all();

/// How many entries the table of `kind` has.
pub const fn table_len(kind: PieceKind) -> usize {
    count_entries(&build_layout(kind))
}

/// The table entry of a `color` piece of `kind` on `sq`.
#[inline]
pub fn entry(color: Color, kind: PieceKind, sq: Square) -> usize {
    INDEX[color.index()][kind.index()][sq.index()] as usize
}

/// The entries of `kind` rank by rank (Red's ranks 0-9), each with its squares' names on
/// the a-e half: for comments in the parameter file.
pub fn rows(kind: PieceKind) -> Vec<(i32, Vec<Square>)> {
    let layout = build_layout(kind);
    (0..10)
        .filter_map(|rank| {
            let squares: Vec<Square> = (0..5)
                .filter_map(|file| Square::new(file, rank))
                .filter(|sq| layout[sq.index()] != UNREACHABLE)
                .collect();
            (!squares.is_empty()).then_some((rank, squares))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::position::validate::square_reachable;
    use crate::types::Piece;

    #[test]
    fn table_sizes() {
        let sizes: Vec<usize> = PieceKind::ALL.iter().map(|&k| table_len(k)).collect();
        assert_eq!(sizes, [6, 3, 4, 50, 50, 50, 31]);
    }

    #[test]
    fn layout_agrees_with_the_rules_and_is_mirror_symmetric() {
        for color in Color::ALL {
            for kind in PieceKind::ALL {
                for sq in Square::all() {
                    let e = INDEX[color.index()][kind.index()][sq.index()];
                    assert_eq!(e != UNREACHABLE, square_reachable(Piece::new(color, kind), sq), "{color} {kind} {sq}");
                    assert_eq!(e, INDEX[color.index()][kind.index()][sq.mirror().index()]);
                    assert_eq!(e, INDEX[1 - color.index()][kind.index()][sq.flip().index()]);
                }
            }
        }
    }

    #[test]
    fn rows_cover_every_entry_in_order() {
        for kind in PieceKind::ALL {
            let flat: Vec<usize> =
                rows(kind).iter().flat_map(|(_, sqs)| sqs.iter().map(|&sq| entry(Color::Red, kind, sq))).collect();
            assert_eq!(flat, (0..table_len(kind)).collect::<Vec<_>>());
        }
        assert_eq!(entry(Color::Red, PieceKind::Pawn, Square::A3), 0);
        assert_eq!(entry(Color::Black, PieceKind::Pawn, Square::I6), 0);
    }
}
