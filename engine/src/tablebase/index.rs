//! The index of a material set: a position (in the set's stored orientation, one side to
//! move) maps to `0..size` and back.
//!
//! - **Kings:** each on its 9 palace squares, the pair reduced by left-right mirror
//!   symmetry: Red's king on file d, or on file e with Black's king on file d or e (45 of
//!   the 81 pairs). A position with Red's king on file f, or on file e with Black's king
//!   on file f, is mirrored before it is indexed. With both kings on file e a position and
//!   its mirror image both have an index (they get the same value).
//! - **Other pieces:** each confined to the squares it can ever stand on (advisor 5, bishop
//!   7, pawn 55: its own ranks 3-4 on the five start files and every square across the
//!   river; rook, knight and cannon 90), and identical pieces unordered: `n` of a kind on
//!   `s` squares take `C(s, n)` indices (the combinatorial number system).
//! - **Broken positions** (two pieces on a square, the kings facing on an open file, the
//!   side not to move in check) have an index but no value: the generator marks them and
//!   counts only the others as positions.

use super::material::Material;
use crate::position::{Position, validate::square_reachable};
use crate::types::{Color, Piece, PieceKind, Square};

/// The squares of the 45 king pairs, in index order.
fn king_pairs() -> Vec<(Square, Square)> {
    let palace = |c: Color| Square::all().filter(move |&s| s.in_palace(c)).collect::<Vec<_>>();
    let mut pairs = Vec::new();
    for rk in palace(Color::Red) {
        for bk in palace(Color::Black) {
            if rk.file() < 4 || (rk.file() == 4 && bk.file() <= 4) {
                pairs.push((rk, bk));
            }
        }
    }
    pairs
}

/// Whether a position with these kings is mirrored before indexing.
#[inline]
pub fn needs_mirror(red_king: Square, black_king: Square) -> bool {
    red_king.file() > 4 || (red_king.file() == 4 && black_king.file() > 4)
}

/// One kind of one colour, `count` of them.
#[derive(Clone, Debug)]
struct Group {
    piece: Piece,
    count: usize,
    /// The squares this piece can stand on, in order.
    squares: Vec<Square>,
    /// `slot[sq]`: the square's place in `squares`, or `u8::MAX`.
    slot: [u8; 90],
    /// Every combination of `count` slots, by rank (colex order).
    combos: Vec<[u8; 3]>,
}

fn binomial(n: usize, k: usize) -> usize {
    if k > n {
        return 0;
    }
    (0..k).fold(1, |acc, i| acc * (n - i) / (i + 1))
}

impl Group {
    fn new(piece: Piece, count: usize) -> Group {
        let squares: Vec<Square> = Square::all().filter(|&s| square_reachable(piece, s)).collect();
        let mut slot = [u8::MAX; 90];
        for (i, s) in squares.iter().enumerate() {
            slot[s.index()] = i as u8;
        }
        let n = squares.len() as u8;
        let mut combos = Vec::with_capacity(binomial(squares.len(), count));
        match count {
            1 => combos.extend((0..n).map(|a| [a, 0, 0])),
            2 => {
                for b in 1..n {
                    combos.extend((0..b).map(|a| [a, b, 0]));
                }
            }
            _ => {
                for c in 2..n {
                    for b in 1..c {
                        combos.extend((0..b).map(|a| [a, b, c]));
                    }
                }
            }
        }
        Group { piece, count, squares, slot, combos }
    }

    fn size(&self) -> usize {
        self.combos.len()
    }

    /// The rank of these slots, sorted ascending.
    fn rank(&self, slots: &[u8]) -> usize {
        slots.iter().enumerate().map(|(i, &s)| binomial(usize::from(s), i + 1)).sum()
    }
}

/// The index of one material set (either side to move: each side has its own `0..size`).
#[derive(Clone, Debug)]
pub struct Indexer {
    material: Material,
    pairs: Vec<(Square, Square)>,
    /// `pair_index[red king][black king]`, `u8::MAX` for a pair that is mirrored first.
    pair_index: Vec<[u8; 90]>,
    groups: Vec<Group>,
    size: usize,
}

/// A position decoded from an index: the pieces and their squares (kings first).
pub type Placement = Vec<(Piece, Square)>;

impl Indexer {
    /// The index of `material` in its stored orientation.
    pub fn new(material: Material) -> Indexer {
        let material = material.canonical();
        let pairs = king_pairs();
        let mut pair_index = vec![[u8::MAX; 90]; 90];
        for (i, (rk, bk)) in pairs.iter().enumerate() {
            pair_index[rk.index()][bk.index()] = i as u8;
        }
        let mut groups = Vec::new();
        for color in Color::ALL {
            for (kind, n) in material.groups(color) {
                groups.push(Group::new(Piece::new(color, kind), n as usize));
            }
        }
        let size = groups.iter().fold(pairs.len(), |acc, g| acc * g.size());
        Indexer { material, pairs, pair_index, groups, size }
    }

    pub fn material(&self) -> Material {
        self.material
    }

    /// Indices per side to move.
    pub fn size(&self) -> usize {
        self.size
    }

    /// The placement of index `idx`, or `None` where two pieces share a square. The kings
    /// come first (Red's, then Black's).
    pub fn decode(&self, mut idx: usize, out: &mut Placement) -> bool {
        out.clear();
        let mut ranks = [0usize; 12];
        for (i, g) in self.groups.iter().enumerate().rev() {
            ranks[i] = idx % g.size();
            idx /= g.size();
        }
        let (rk, bk) = self.pairs[idx];
        out.push((Piece::new(Color::Red, PieceKind::King), rk));
        out.push((Piece::new(Color::Black, PieceKind::King), bk));
        let mut occupied = crate::types::Bitboard::from_square(rk).with(bk);
        for (i, g) in self.groups.iter().enumerate() {
            let combo = g.combos[ranks[i]];
            for &slot in &combo[..g.count] {
                let sq = g.squares[usize::from(slot)];
                if occupied.contains(sq) {
                    return false;
                }
                occupied = occupied.with(sq);
                out.push((g.piece, sq));
            }
        }
        true
    }

    /// The index of `pos` and the side to move in the stored orientation, or `None` when
    /// the position's material is not this set's (in either orientation).
    pub fn encode(&self, pos: &Position) -> Option<(Color, usize)> {
        let here = Material::of(pos);
        let flip = if here == self.material {
            false
        } else if here.flipped() == self.material {
            true
        } else {
            return None;
        };
        let orient = |sq: Square| if flip { sq.flip() } else { sq };
        let color = |c: Color| if flip { !c } else { c };
        let mut rk = orient(pos.king(color(Color::Red)));
        let mut bk = orient(pos.king(color(Color::Black)));
        let mirror = needs_mirror(rk, bk);
        if mirror {
            rk = rk.mirror();
            bk = bk.mirror();
        }
        let place = |sq: Square| {
            let s = orient(sq);
            if mirror { s.mirror() } else { s }
        };
        let mut idx = usize::from(self.pair_index[rk.index()][bk.index()]);
        for g in &self.groups {
            let mut slots = [0u8; 3];
            let mut n = 0;
            for sq in pos.pieces(color(g.piece.color), g.piece.kind) {
                slots[n] = g.slot[place(sq).index()];
                n += 1;
            }
            slots[..n].sort_unstable();
            idx = idx * g.size() + g.rank(&slots[..n]);
        }
        Some((color(pos.side_to_move()), idx))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn position(placement: &Placement, stm: Color) -> Option<Position> {
        let mut board = [None; 90];
        for &(p, sq) in placement {
            board[sq.index()] = Some(p);
        }
        let setup = crate::position::Setup { board, side_to_move: stm, rule60: 0, fullmove: 1 };
        Position::from_setup(&setup).ok()
    }

    #[test]
    fn sizes() {
        assert_eq!(king_pairs().len(), 45);
        let size = |name: &str| Indexer::new(name.parse().expect("valid")).size();
        assert_eq!(size("KK"), 45);
        assert_eq!(size("KRK"), 45 * 90);
        assert_eq!(size("KPK"), 45 * 55);
        assert_eq!(size("KAAK"), 45 * 10);
        assert_eq!(size("KNKBB"), 45 * 90 * 21);
        assert_eq!(size("KRRRK".replace("RRR", "RR").as_str()), 45 * 4005);
        assert_eq!(size("KPPPK"), 45 * binomial(55, 3));
    }

    /// Every index of a legal position decodes to a position that encodes back to it, and
    /// its colour-flipped twin finds the same index with the other side to move.
    #[test]
    fn decode_then_encode_is_the_identity() {
        for name in ["KRK", "KNKA", "KPPK", "KCKBB", "KAKP", "KRKR"] {
            let ix = Indexer::new(name.parse().expect("valid"));
            let mut placement = Placement::new();
            let mut checked = 0;
            for idx in (0..ix.size()).step_by(7) {
                if !ix.decode(idx, &mut placement) {
                    continue;
                }
                for stm in Color::ALL {
                    let Some(pos) = position(&placement, stm) else { continue };
                    let (side, back) = ix.encode(&pos).expect("same material");
                    assert_eq!(side, stm);
                    assert_eq!(back, idx, "{name} {}", pos.fen());
                    // The colour-flipped position finds the same index with the other side.
                    let flipped: Placement =
                        placement.iter().map(|&(p, sq)| (Piece::new(!p.color, p.kind), sq.flip())).collect();
                    let fpos = position(&flipped, !stm).expect("a flipped legal position is legal");
                    let is_sym = ix.material() == ix.material().flipped();
                    if !is_sym {
                        assert_eq!(ix.encode(&fpos), Some((stm, idx)), "{name} flipped {}", fpos.fen());
                    }
                    checked += 1;
                }
            }
            assert!(checked > 100, "{name}: {checked}");
        }
    }

    #[test]
    fn mirrored_positions_share_an_index() {
        let ix = Indexer::new("KNKA".parse().expect("valid"));
        let a = Position::from_fen("4k4/4a4/9/9/9/9/9/9/9/3K1N3 w").expect("valid");
        let b = Position::from_fen("4k4/4a4/9/9/9/9/9/9/9/3N1K3 w").expect("valid");
        assert_eq!(ix.encode(&a), ix.encode(&b));
        let other = Indexer::new("KRK".parse().expect("valid"));
        assert_eq!(other.encode(&a), None);
    }
}
