//! Material sets: which pieces besides the two kings each side has, named as Syzygy names
//! chess tables (`KRNKAB`: Red king, rook and knight against Black king, advisor and
//! bishop), and the canonical orientation a table is stored in.

use std::fmt;
use std::str::FromStr;

use crate::error::{Error, Result};
use crate::position::Position;
use crate::types::{Color, PieceKind};

/// The kinds a table can hold besides the kings, in the order names list them (strongest
/// first, as Syzygy names list Q R B N P).
pub const KINDS: [PieceKind; 6] =
    [PieceKind::Rook, PieceKind::Cannon, PieceKind::Knight, PieceKind::Pawn, PieceKind::Advisor, PieceKind::Bishop];

/// Piece counts per colour and kind (kings excluded: each side has exactly one).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Material {
    /// `counts[color][i]` counts `KINDS[i]`.
    counts: [[u8; 6]; 2],
}

/// The letter of a kind in a table name.
fn letter(kind: PieceKind) -> char {
    kind.char().to_ascii_uppercase()
}

/// A rough value to choose the orientation by: the stronger side is Red in a stored table.
fn strength(kind: PieceKind) -> u32 {
    match kind {
        PieceKind::Rook => 90,
        PieceKind::Cannon => 45,
        PieceKind::Knight => 40,
        PieceKind::Pawn => 10,
        PieceKind::Advisor | PieceKind::Bishop => 20,
        PieceKind::King => 0,
    }
}

impl Material {
    /// The two bare kings.
    pub const KINGS: Material = Material { counts: [[0; 6]; 2] };

    /// The material on the board of `pos`.
    pub fn of(pos: &Position) -> Material {
        let mut m = Material::KINGS;
        for color in Color::ALL {
            for (i, kind) in KINDS.iter().enumerate() {
                m.counts[color.index()][i] = pos.count(color, *kind) as u8;
            }
        }
        m
    }

    pub fn count(&self, color: Color, kind: PieceKind) -> u32 {
        KINDS.iter().position(|&k| k == kind).map_or(0, |i| u32::from(self.counts[color.index()][i]))
    }

    /// Pieces besides the kings, both sides.
    pub fn pieces(&self) -> u32 {
        self.counts.iter().flatten().map(|&c| u32::from(c)).sum()
    }

    /// The most pieces besides the kings a table can hold.
    pub const MAX_PIECES: u32 = 5;

    /// Whether a table of this set can exist: at most [`Material::MAX_PIECES`] pieces and at
    /// most 3 identical ones (the index's limit).
    pub fn has_index(&self) -> bool {
        self.pieces() <= Self::MAX_PIECES && self.counts.iter().flatten().all(|&n| n <= 3)
    }

    /// The same material with the colours exchanged.
    pub fn flipped(&self) -> Material {
        Material { counts: [self.counts[1], self.counts[0]] }
    }

    fn side_key(&self, color: Color) -> (u32, [u8; 6]) {
        let c = self.counts[color.index()];
        let value = KINDS.iter().zip(c).map(|(&k, n)| strength(k) * u32::from(n)).sum();
        (value, c)
    }

    /// Whether this is the orientation tables are stored in: Red's side is at least Black's
    /// (by value, then by the counts in `KINDS` order).
    pub fn is_canonical(&self) -> bool {
        self.side_key(Color::Red) >= self.side_key(Color::Black)
    }

    /// The stored orientation of this material.
    pub fn canonical(&self) -> Material {
        if self.is_canonical() { *self } else { self.flipped() }
    }

    /// Whether `color` has a piece that can give check (rook, knight, cannon or pawn).
    pub fn has_attackers(&self, color: Color) -> bool {
        [PieceKind::Rook, PieceKind::Knight, PieceKind::Cannon, PieceKind::Pawn]
            .iter()
            .any(|&k| self.count(color, k) > 0)
    }

    /// The materials one capture leads to: one piece of either side fewer.
    pub fn captures(&self) -> Vec<Material> {
        let mut out = Vec::new();
        for side in 0..2 {
            for i in 0..6 {
                if self.counts[side][i] > 0 {
                    let mut m = *self;
                    m.counts[side][i] -= 1;
                    out.push(m);
                }
            }
        }
        out
    }

    /// Every canonical material with at most `n` pieces besides the kings, within the
    /// counts a side can have, fewest pieces first (so that each set's capture targets come
    /// before it).
    pub fn all_up_to(n: u32) -> Vec<Material> {
        let mut out = vec![Material::KINGS];
        let mut frontier = vec![Material::KINGS];
        for _ in 0..n {
            let mut next = Vec::new();
            for m in &frontier {
                for side in 0..2 {
                    for (i, kind) in KINDS.iter().enumerate() {
                        if u32::from(m.counts[side][i]) < kind.max_count() {
                            let mut bigger = *m;
                            bigger.counts[side][i] += 1;
                            let bigger = bigger.canonical();
                            if !next.contains(&bigger) {
                                next.push(bigger);
                            }
                        }
                    }
                }
            }
            next.sort_by_key(|m| m.to_string());
            out.extend(next.iter().copied());
            frontier = next;
        }
        out
    }

    /// Pieces of one colour besides the king, as (kind, count), in `KINDS` order.
    pub fn groups(&self, color: Color) -> impl Iterator<Item = (PieceKind, u32)> + '_ {
        KINDS.iter().zip(self.counts[color.index()]).filter(|(_, n)| *n > 0).map(|(&k, n)| (k, u32::from(n)))
    }
}

impl fmt::Display for Material {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for color in Color::ALL {
            write!(f, "K")?;
            for (kind, n) in self.groups(color) {
                for _ in 0..n {
                    write!(f, "{}", letter(kind))?;
                }
            }
        }
        Ok(())
    }
}

impl FromStr for Material {
    type Err = Error;

    /// Reads a name such as `KRNKAB` (letters R C N H P A E B; `H` is the knight, `E` the
    /// bishop, as in FEN). Any orientation is accepted; the counts must be possible.
    fn from_str(text: &str) -> Result<Material> {
        let bad = |reason: String| Error::Tablebase { what: format!("material `{text}`"), reason };
        let upper = text.trim().to_ascii_uppercase();
        let rest = upper.strip_prefix('K').ok_or_else(|| bad("a name starts with K (the Red king)".into()))?;
        let (red, black) =
            rest.split_once('K').ok_or_else(|| bad("a name has two kings: K<Red pieces>K<Black pieces>".into()))?;
        let mut m = Material::KINGS;
        for (side, letters) in [(Color::Red, red), (Color::Black, black)] {
            for c in letters.chars() {
                let kind = PieceKind::from_char(c.to_ascii_lowercase())
                    .filter(|&k| k != PieceKind::King)
                    .ok_or_else(|| bad(format!("`{c}` is not a piece letter (R C N P A B)")))?;
                let i = KINDS.iter().position(|&k| k == kind).ok_or_else(|| bad(format!("`{c}`")))?;
                m.counts[side.index()][i] += 1;
                if u32::from(m.counts[side.index()][i]) > kind.max_count() {
                    return Err(bad(format!("{side} has more than {} {}s", kind.max_count(), kind.name())));
                }
            }
        }
        Ok(m)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_orient() {
        let m: Material = "KRNKAB".parse().expect("valid");
        assert_eq!(m.to_string(), "KRNKAB");
        assert!(m.is_canonical());
        let f: Material = "kabkrn".parse().expect("valid");
        assert_eq!(f, m.flipped());
        assert!(!f.is_canonical());
        assert_eq!(f.canonical(), m);
        // Knights are H or N, bishops B or E.
        assert_eq!("KHKE".parse::<Material>().expect("valid").to_string(), "KNKB");
        assert_eq!(m.pieces(), 4);
        assert!(m.has_attackers(Color::Red) && !m.has_attackers(Color::Black));
    }

    #[test]
    fn bad_names_are_refused_with_the_name() {
        for bad in ["RK", "KRR", "KXK", "KAAAK", "KKK"] {
            let e = bad.parse::<Material>().expect_err(bad).to_string();
            assert!(e.contains(bad), "{e}");
        }
        // Readable, but beyond the index: four identical pawns, or six pieces.
        assert!(!"KPPPPK".parse::<Material>().expect("valid").has_index());
        assert!(!"KRRNNKCC".parse::<Material>().expect("valid").has_index());
        assert!("KPPPKAB".parse::<Material>().expect("valid").has_index());
    }

    #[test]
    fn all_sets_up_to_three_pieces() {
        let all = Material::all_up_to(3);
        assert_eq!(all[0], Material::KINGS);
        assert!(all.iter().all(Material::is_canonical));
        let mut dedup = all.clone();
        dedup.sort();
        dedup.dedup();
        assert_eq!(dedup.len(), all.len(), "no set twice");
        // Each set's captures (in canonical form) come before it.
        for (i, m) in all.iter().enumerate() {
            for c in m.captures() {
                let at = all.iter().position(|x| *x == c.canonical()).expect("listed");
                assert!(at < i, "{c} before {m}");
            }
        }
        assert_eq!(all.iter().filter(|m| m.pieces() == 1).count(), 6);
        // Two pieces: 6 kinds on one side (6*7/2 = 21) plus one on each side (6*7/2 = 21
        // unordered pairs once oriented).
        assert_eq!(all.iter().filter(|m| m.pieces() == 2).count(), 42);
    }
}
