//! The one declaration of every evaluation term. From this table come the parameter names
//! (UCI options and file keys), their ranges and defaults, and the feature indices the
//! evaluation and its trace use. Nothing else in the engine writes a weight.
//!
//! A *term* is a named weight or table of weights (`pst.knight`, 50 entries); a *feature*
//! is one entry of a term; every feature has two *parameters*, its middlegame and endgame
//! weight, at indices `2 * feature` and `2 * feature + 1`.
//!
//! Defaults are in centipawns and follow Xiangqi practice: a rook is worth about two horses,
//! a horse about a cannon (the cannon more while the board is full, the horse more in the
//! endgame), an advisor about an elephant, a pawn across the river about two at home.

use super::pst;
use crate::types::PieceKind;

/// The four families of the seeds, and the rest.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Group {
    /// 子力价值: what each piece is worth.
    Material,
    /// 棋子位置: where it stands (piece-square tables).
    Position,
    /// 机动性: how many safe moves it has.
    Mobility,
    /// 棋子间的关系: threats, defence, king safety, cooperation.
    Relations,
    /// Side-to-move bonus.
    Misc,
}

impl Group {
    pub const fn name(self) -> &'static str {
        match self {
            Group::Material => "material",
            Group::Position => "position",
            Group::Mobility => "mobility",
            Group::Relations => "relations",
            Group::Misc => "misc",
        }
    }
}

/// One declared term.
#[derive(Debug)]
pub struct Term {
    /// Dotted name; a parameter is named `<name>.<mg|eg>` or, in a table, `<name>.<mg|eg>.<i>`.
    pub name: &'static str,
    pub group: Group,
    /// Inclusive range of every weight of the term.
    pub min: i32,
    pub max: i32,
    /// Default middlegame and endgame weights (as many as the term has entries).
    pub mg: &'static [i32],
    pub eg: &'static [i32],
    /// For a piece-square table, the kind whose compact square layout indexes it.
    pub squares_of: Option<PieceKind>,
    /// What an entry counts.
    pub doc: &'static str,
}

impl Term {
    #[inline]
    pub const fn len(&self) -> usize {
        self.mg.len()
    }

    /// Never: a term without entries fails to compile.
    pub const fn is_empty(&self) -> bool {
        self.mg.is_empty()
    }

    pub const fn is_table(&self) -> bool {
        self.mg.len() > 1
    }
}

/// Where a term's features start and how many it has: the handle the evaluation code uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Feature {
    pub first: usize,
    pub len: usize,
}

impl Feature {
    /// Entry `i` of the term.
    #[inline]
    pub fn at(self, i: usize) -> usize {
        debug_assert!(i < self.len, "feature index {i} beyond a term of {}", self.len);
        self.first + i
    }

    /// Entry `i`, or the last entry when `i` is beyond the table (mobility counts).
    #[inline]
    pub fn capped(self, i: u32) -> usize {
        self.first + (i as usize).min(self.len - 1)
    }
}

const fn first_features<const N: usize>(terms: &[Term]) -> [usize; N] {
    let mut firsts = [0; N];
    let mut next = 0;
    let mut i = 0;
    while i < N {
        let t = &terms[i];
        assert!(t.mg.len() == t.eg.len(), "a term's mg and eg defaults differ in length");
        assert!(!t.mg.is_empty(), "a term without entries");
        assert!(t.min <= 0 || matches!(t.group, Group::Material), "0 (material_only) must be in range");
        if let Some(kind) = t.squares_of {
            assert!(t.mg.len() == pst::table_len(kind), "a piece-square table of the wrong length");
        }
        let mut j = 0;
        while j < t.mg.len() {
            assert!(t.mg[j] >= t.min && t.mg[j] <= t.max && t.eg[j] >= t.min && t.eg[j] <= t.max);
            j += 1;
        }
        firsts[i] = next;
        next += t.mg.len();
        i += 1;
    }
    firsts
}

macro_rules! declare_terms {
    ($(
        $(#[doc = $doc:literal])+
        $id:ident = $name:literal, $group:ident, $min:literal..=$max:literal, $layout:expr,
            mg $mg:expr, eg $eg:expr;
    )*) => {
        #[allow(non_camel_case_types, clippy::upper_case_acronyms)]
        enum TermId { $($id,)* Count }

        /// Every term, in feature order.
        pub const TERMS: &[Term] = &[$(Term {
            name: $name,
            group: Group::$group,
            min: $min,
            max: $max,
            mg: &$mg,
            eg: &$eg,
            squares_of: $layout,
            doc: concat!($($doc),+),
        },)*];

        const FIRSTS: [usize; TermId::Count as usize] = first_features(TERMS);

        $(
            $(#[doc = $doc])+
            pub const $id: Feature =
                Feature { first: FIRSTS[TermId::$id as usize], len: TERMS[TermId::$id as usize].len() };
        )*
    };
}

use PieceKind::{Advisor, Bishop, Cannon, King, Knight, Pawn, Rook};

#[rustfmt::skip]
declare_terms! {
    /// Advisors on the board.
    MATERIAL_ADVISOR = "material.advisor", Material, 0..=3000, None, mg [190], eg [210];
    /// Elephants on the board.
    MATERIAL_BISHOP = "material.bishop", Material, 0..=3000, None, mg [200], eg [210];
    /// Horses on the board.
    MATERIAL_KNIGHT = "material.knight", Material, 0..=3000, None, mg [400], eg [460];
    /// Rooks on the board.
    MATERIAL_ROOK = "material.rook", Material, 0..=3000, None, mg [920], eg [1000];
    /// Cannons on the board.
    MATERIAL_CANNON = "material.cannon", Material, 0..=3000, None, mg [450], eg [410];
    /// Pawns on the board (the bonus across the river is in `pst.pawn`).
    MATERIAL_PAWN = "material.pawn", Material, 0..=3000, None, mg [100], eg [110];

    /// The king's square: d0, e0, d1, e1, d2, e2.
    PST_KING = "pst.king", Position, -1000..=1000, Some(King),
        mg [0, 10, -10, -5, -30, -25],
        eg [0, 5, 0, 10, -5, 0];
    /// The advisor's square: d0, e1, d2.
    PST_ADVISOR = "pst.advisor", Position, -1000..=1000, Some(Advisor),
        mg [0, 10, -5],
        eg [0, 8, -5];
    /// The elephant's square: c0, a2, e2, c4.
    PST_BISHOP = "pst.bishop", Position, -1000..=1000, Some(Bishop),
        mg [0, -8, 10, -5],
        eg [0, -5, 8, -3];
    /// The horse's square, ranks 0-9 by files a-e (mirrored onto f-i).
    PST_KNIGHT = "pst.knight", Position, -1000..=1000, Some(Knight),
        mg [-20, -10,  -5, -10, -15,
            -15,  -5,   0,  -5, -25,
            -10,   0,   5,   5,   0,
            -10,   5,  10,  10,   5,
             -5,  10,  15,  15,  10,
              0,  15,  20,  20,  15,
              0,  20,  25,  25,  20,
              0,  20,  30,  30,  20,
             -5,  10,  30,  25,  10,
            -15,  -5,   5,   0, -10],
        eg [-20, -12,  -8, -10, -12,
            -12,  -5,   0,   0,  -5,
             -8,   0,   5,   8,   5,
             -5,   5,  10,  12,  10,
              0,   8,  14,  16,  15,
              0,  10,  16,  20,  18,
              0,  10,  18,  22,  20,
              0,  10,  18,  22,  22,
             -5,   5,  15,  18,  18,
            -15,  -5,   0,   5,   5];
    /// The rook's square, ranks 0-9 by files a-e (mirrored onto f-i).
    PST_ROOK = "pst.rook", Position, -1000..=1000, Some(Rook),
        mg [-10,   0,  -5,   5,   0,
            -10,   0,   0,   5,   0,
             -5,   5,   5,  10,   5,
              0,  10,  10,  15,  10,
              5,  15,  15,  20,  15,
              5,  15,  15,  20,  15,
             10,  20,  20,  25,  20,
             10,  20,  25,  30,  25,
             10,  25,  25,  30,  25,
              5,  15,  20,  20,  15],
        eg [-10,  -5,  -5,   0,   0,
             -5,   0,   0,   5,   5,
             -5,   0,   0,   5,   5,
              0,   5,   5,   5,   5,
              0,   5,   5,  10,  10,
              0,   5,   5,  10,  10,
              5,  10,  10,  15,  15,
              5,  10,  15,  20,  20,
              5,  10,  15,  20,  20,
              0,   5,   5,  10,  10];
    /// The cannon's square, ranks 0-9 by files a-e (mirrored onto f-i).
    PST_CANNON = "pst.cannon", Position, -1000..=1000, Some(Cannon),
        mg [  0,   0,   5,   5,   5,
              0,   5,   5,   5,  10,
              0,   5,   5,   5,  15,
              0,   5,   5,   5,  10,
              0,   5,   5,   5,  10,
              0,   5,   5,   5,  10,
              0,   5,   5,   5,  10,
              5,   5,   5,  10,  15,
              5,   5,   5,  10,  10,
             10,  10,   5,   5,   5],
        eg [ -5,   0,   0,   0,   0,
              0,   0,   0,   0,   5,
              0,   0,   0,   5,  10,
              0,   0,   0,   0,   5,
              0,   0,   0,   0,   5,
              0,   0,   0,   0,   5,
              0,   0,   0,   5,   5,
              0,   0,   5,   5,  10,
              0,   0,   5,   5,   5,
              5,   5,   0,   0,   0];
    /// The pawn's square: files a, c, e on ranks 3-4, then ranks 5-9 by files a-e.
    PST_PAWN = "pst.pawn", Position, -1000..=1000, Some(Pawn),
        mg [  0,   0,   5,
              5,  10,  15,
             70,  80,  90,  95, 100,
             80,  90, 100, 110, 120,
             85, 100, 115, 125, 130,
             75,  90, 105, 120, 125,
             20,  30,  40,  50,  50],
        eg [  0,   0,   0,
              5,   5,  10,
             80,  85,  90,  95, 100,
             90, 100, 110, 115, 120,
             95, 105, 115, 125, 130,
             85,  95, 110, 120, 125,
             30,  40,  50,  55,  60];

    /// An advisor with this many safe moves.
    MOBILITY_ADVISOR = "mobility.advisor", Mobility, -500..=500, None,
        mg [-4, 0, 2, 3, 4],
        eg [-4, 0, 2, 3, 4];
    /// An elephant with this many safe moves.
    MOBILITY_BISHOP = "mobility.bishop", Mobility, -500..=500, None,
        mg [-8, -3, 0, 3, 5],
        eg [-6, -2, 0, 2, 4];
    /// A horse with this many safe moves.
    MOBILITY_KNIGHT = "mobility.knight", Mobility, -500..=500, None,
        mg [-40, -20, -8, 0, 6, 12, 16, 19, 21],
        eg [-35, -18, -6, 0, 6, 10, 14, 16, 18];
    /// A rook with this many safe moves (0-17).
    MOBILITY_ROOK = "mobility.rook", Mobility, -500..=500, None,
        mg [-30, -22, -15, -10, -6, -2, 1, 4, 7, 9, 11, 13, 15, 16, 17, 18, 19, 20],
        eg [-35, -26, -18, -12, -7, -3, 1, 5, 8, 11, 13, 15, 17, 19, 20, 21, 22, 23];
    /// A cannon with this many safe moves (0-17).
    MOBILITY_CANNON = "mobility.cannon", Mobility, -500..=500, None,
        mg [-15, -11, -7, -4, -2, 0, 2, 4, 5, 6, 7, 8, 9, 10, 11, 11, 12, 12],
        eg [-10, -7, -5, -3, -1, 0, 1, 2, 3, 4, 5, 5, 6, 6, 7, 7, 8, 8];

    /// A piece attacked and not truly defended, by kind: advisor, bishop, knight, rook, cannon, pawn.
    HANGING = "relations.hanging", Relations, -1000..=1000, None,
        mg [-20, -20, -40, -60, -40, -10],
        eg [-15, -15, -30, -50, -30, -10];
    /// A piece attacked by a piece of lower value, by kind: advisor, bishop, knight, rook, cannon.
    ATTACKED_BY_LOWER = "relations.attacked_by_lower", Relations, -1000..=1000, None,
        mg [-10, -10, -30, -60, -30],
        eg [-8, -8, -25, -50, -25];
    /// A cannon on the enemy king's file with nothing between (空头炮).
    HOLLOW_CANNON = "relations.hollow_cannon", Relations, -1000..=1000, None, mg [50], eg [20];
    /// A cannon on the central file facing the enemy king there, with one or two pieces between.
    CENTRAL_CANNON = "relations.central_cannon", Relations, -1000..=1000, None,
        mg [15, 25],
        eg [5, 10];
    /// A rook on a file without pawns.
    ROOK_OPEN_FILE = "relations.rook_open_file", Relations, -1000..=1000, None, mg [15], eg [10];
    /// A rook on a file with enemy pawns only.
    ROOK_SEMI_OPEN_FILE = "relations.rook_semi_open_file", Relations, -1000..=1000, None, mg [8], eg [5];
    /// A horse with this many of its legs blocked (蹩马腿).
    KNIGHT_BLOCKED_LEGS = "relations.knight_blocked_legs", Relations, -1000..=1000, None,
        mg [0, -3, -8, -15, -25],
        eg [0, -2, -6, -10, -15];
    /// A pair of crossed pawns side by side.
    CONNECTED_PAWNS = "relations.connected_pawns", Relations, -1000..=1000, None, mg [15], eg [25];
    /// A side with this many pawns across the river.
    CROSSED_PAWNS = "relations.crossed_pawns", Relations, -1000..=1000, None,
        mg [0, 0, 5, 10, 15, 20],
        eg [0, 0, 10, 20, 35, 50];
    /// A side whose palace this many enemy rooks, horses, cannons and pawns attack.
    PALACE_ATTACKERS = "king_safety.palace_attackers", Relations, -1000..=1000, None,
        mg [0, -5, -15, -35, -60, -90, -120, -150],
        eg [0, -2, -6, -15, -25, -40, -55, -70];
    /// Missing advisors times enemy rooks.
    MISSING_ADVISOR_VS_ROOK = "king_safety.missing_advisor_vs_rook", Relations, -1000..=1000, None, mg [-15], eg [-25];
    /// Missing advisors times enemy horses.
    MISSING_ADVISOR_VS_KNIGHT = "king_safety.missing_advisor_vs_knight", Relations, -1000..=1000, None, mg [-20], eg [-30];
    /// Missing advisors times enemy cannons.
    MISSING_ADVISOR_VS_CANNON = "king_safety.missing_advisor_vs_cannon", Relations, -1000..=1000, None, mg [-8], eg [-10];
    /// Missing elephants times enemy rooks.
    MISSING_BISHOP_VS_ROOK = "king_safety.missing_bishop_vs_rook", Relations, -1000..=1000, None, mg [-8], eg [-10];
    /// Missing elephants times enemy horses.
    MISSING_BISHOP_VS_KNIGHT = "king_safety.missing_bishop_vs_knight", Relations, -1000..=1000, None, mg [-8], eg [-10];
    /// Missing elephants times enemy cannons.
    MISSING_BISHOP_VS_CANNON = "king_safety.missing_bishop_vs_cannon", Relations, -1000..=1000, None, mg [-20], eg [-30];

    /// The side to move.
    TEMPO = "tempo", Misc, -200..=200, None, mg [20], eg [10];
}

/// How many features (term entries) there are.
pub const NUM_FEATURES: usize = {
    let last = &TERMS[TERMS.len() - 1];
    FIRSTS[TERMS.len() - 1] + last.len()
};

/// How many parameters: a middlegame and an endgame weight per feature.
pub const NUM_PARAMS: usize = 2 * NUM_FEATURES;

const _: () = assert!(NUM_PARAMS <= u16::MAX as usize, "trace indices are u16");

/// The first feature of every term, in `TERMS` order.
pub(crate) fn first_feature(term: usize) -> usize {
    FIRSTS[term]
}

/// The term holding `feature`, and the entry within it.
pub(crate) fn term_of_feature(feature: usize) -> Option<(usize, usize)> {
    let term = FIRSTS.partition_point(|&first| first <= feature).checked_sub(1)?;
    let entry = feature - FIRSTS[term];
    (entry < TERMS[term].len()).then_some((term, entry))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn features_tile_the_terms() {
        let mut next = 0;
        for (i, t) in TERMS.iter().enumerate() {
            assert_eq!(first_feature(i), next, "{}", t.name);
            for e in 0..t.len() {
                assert_eq!(term_of_feature(next + e), Some((i, e)));
            }
            next += t.len();
        }
        assert_eq!(next, NUM_FEATURES);
        assert_eq!(term_of_feature(NUM_FEATURES), None);
        assert_eq!(PST_PAWN.len, 31);
        assert_eq!(MOBILITY_ROOK.capped(40), MOBILITY_ROOK.first + 17);
    }

    #[test]
    fn names_are_unique_and_not_prefixes_of_each_other() {
        for a in TERMS {
            for b in TERMS {
                if !std::ptr::eq(a, b) {
                    assert_ne!(a.name, b.name);
                    assert!(!b.name.starts_with(&format!("{}.", a.name)), "{} / {}", a.name, b.name);
                }
            }
        }
    }
}
