//! [`PackedPosition`]: one training position in 32 bytes, the board and its labels.
//!
//! ```text
//! occupancy  [u32; 3]   bit s (s = rank * 9 + file, 0..90) set when square s holds a piece
//! pieces     [u8; 16]   one nibble per occupied square in square order (low nibble first):
//!                       Piece::index(), Red's kinds 0..7 then Black's 7..14
//! score      i16        the search score in centipawns, side to move's view
//! result     u8         the game's result for the side to move, in halves: 0 loss, 1 draw, 2 win
//! black      u8         1 when Black is to move
//! ```
//!
//! The network's inputs are computed from it on the fly, batch by batch ([`PackedPosition::features`]),
//! through a table of the engine's own feature index (`engine::nnue::features::index`), so the
//! trainer and the engine cannot disagree about which input a piece is.

use engine::nnue::features;
use engine::position::Setup;
use engine::{Color, Piece, PieceKind, Position, Square};

use crate::error::{Error, Result};

/// Most pieces a Xiangqi position holds (16 a side).
pub const MAX_PIECES: usize = 32;

/// A training position in 32 bytes (see the module documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PackedPosition {
    occupancy: [u32; 3],
    pieces: [u8; 16],
    score: i16,
    result: u8,
    black: u8,
}

/// The active inputs of one position from both perspectives, side to move's first.
#[derive(Clone, Copy, Debug)]
pub struct Features {
    pub len: usize,
    /// The side to move's view.
    pub us: [u16; MAX_PIECES],
    /// The other side's view.
    pub them: [u16; MAX_PIECES],
}

impl Features {
    pub fn us(&self) -> &[u16] {
        &self.us[..self.len]
    }

    pub fn them(&self) -> &[u16] {
        &self.them[..self.len]
    }
}

/// `FEATURE[perspective][piece index][square]`: the engine's input index, computed at compile
/// time by the engine's own `const fn`.
static FEATURE: [[[u16; Square::COUNT]; 14]; 2] = feature_table();

const fn feature_table() -> [[[u16; Square::COUNT]; 14]; 2] {
    let mut table = [[[0u16; Square::COUNT]; 14]; 2];
    let mut p = 0;
    while p < 2 {
        let perspective = if p == 0 { Color::Red } else { Color::Black };
        let mut code = 0;
        while code < 14 {
            let color = if code < 7 { Color::Red } else { Color::Black };
            let kind = match PieceKind::from_index(code % 7) {
                Some(kind) => kind,
                None => PieceKind::King,
            };
            let mut sq = 0;
            while sq < Square::COUNT {
                let index = features::index(perspective, Piece::new(color, kind), Square::from_index(sq));
                table[p][code][sq] = index as u16;
                sq += 1;
            }
            code += 1;
        }
        p += 1;
    }
    table
}

fn piece_of(code: u8) -> Option<Piece> {
    let color = if code < 7 { Color::Red } else { Color::Black };
    PieceKind::from_index(usize::from(code % 7)).filter(|_| code < 14).map(|kind| Piece::new(color, kind))
}

impl PackedPosition {
    /// Packs `pos` with its search score (side to move's view, saturated to i16) and the
    /// game's result for the side to move (`0`, `0.5` or `1`).
    pub fn new(pos: &Position, score_stm: i32, result_stm: f32) -> Result<PackedPosition> {
        let result = if result_stm == 0.0 {
            0
        } else if result_stm == 0.5 {
            1
        } else if result_stm == 1.0 {
            2
        } else {
            return Err(Error::NnueSetting {
                name: "result",
                value: result_stm.to_string(),
                reason: format!("expected 0, 0.5 or 1 for {}", pos.fen()),
            });
        };
        let mut packed = PackedPosition {
            occupancy: [0; 3],
            pieces: [0; 16],
            score: score_stm.clamp(i32::from(i16::MIN), i32::from(i16::MAX)) as i16,
            result,
            black: u8::from(pos.side_to_move() == Color::Black),
        };
        let mut n = 0;
        for sq in pos.occupied() {
            let Some(piece) = pos.piece_at(sq) else { continue };
            if n == MAX_PIECES {
                return Err(Error::NnueSetting {
                    name: "position",
                    value: pos.fen(),
                    reason: format!("more than {MAX_PIECES} pieces"),
                });
            }
            let s = sq.index();
            packed.occupancy[s / 32] |= 1 << (s % 32);
            packed.pieces[n / 2] |= (piece.index() as u8) << (4 * (n % 2));
            n += 1;
        }
        Ok(packed)
    }

    /// The search score in centipawns, side to move's view.
    #[inline]
    pub fn score(&self) -> i32 {
        i32::from(self.score)
    }

    /// The game's result for the side to move: 0, 0.5 or 1.
    #[inline]
    pub fn result(&self) -> f32 {
        f32::from(self.result) * 0.5
    }

    #[inline]
    pub fn side_to_move(&self) -> Color {
        if self.black == 1 { Color::Black } else { Color::Red }
    }

    /// Pieces on the board.
    pub fn pieces(&self) -> usize {
        self.occupancy.iter().map(|w| w.count_ones() as usize).sum()
    }

    /// Every (square index, piece code) in square order.
    #[inline]
    fn for_each_piece(&self, mut f: impl FnMut(usize, usize)) {
        let mut n = 0;
        for (w, &word) in self.occupancy.iter().enumerate() {
            let mut bits = word;
            while bits != 0 {
                let sq = w * 32 + bits.trailing_zeros() as usize;
                bits &= bits - 1;
                let code = (self.pieces[n / 2] >> (4 * (n % 2))) & 0xF;
                f(sq, usize::from(code));
                n += 1;
            }
        }
    }

    /// The active inputs from the side to move's view and from the other side's.
    #[inline]
    pub fn features(&self) -> Features {
        let (us, them) = if self.black == 1 { (&FEATURE[1], &FEATURE[0]) } else { (&FEATURE[0], &FEATURE[1]) };
        let mut out = Features { len: 0, us: [0; MAX_PIECES], them: [0; MAX_PIECES] };
        self.for_each_piece(|sq, code| {
            // A damaged code (never made by `new`) reads as the last piece kind rather than
            // indexing out of the table.
            let code = code.min(13);
            if out.len < MAX_PIECES {
                out.us[out.len] = us[code][sq];
                out.them[out.len] = them[code][sq];
                out.len += 1;
            }
        });
        out
    }

    /// The position back, as the engine reads it (counters 0 and 1).
    pub fn to_position(&self) -> Result<Position> {
        let mut board = [None; Square::COUNT];
        let mut bad = None;
        self.for_each_piece(|sq, code| match piece_of(code as u8) {
            Some(piece) => board[sq] = Some(piece),
            None => bad = Some(code),
        });
        let setup = Setup { board, side_to_move: self.side_to_move(), rule60: 0, fullmove: 1 };
        if let Some(code) = bad {
            return Err(Error::NnueSetting {
                name: "packed position",
                value: setup.fen(),
                reason: format!("piece code {code}"),
            });
        }
        Position::from_setup(&setup).map_err(|reason| Error::Fen { fen: setup.fen(), reason })
    }

    /// The position's bytes, for fingerprints.
    pub fn to_bytes(&self) -> [u8; 32] {
        let mut out = [0u8; 32];
        for (i, w) in self.occupancy.iter().enumerate() {
            out[4 * i..4 * i + 4].copy_from_slice(&w.to_le_bytes());
        }
        out[12..28].copy_from_slice(&self.pieces);
        out[28..30].copy_from_slice(&self.score.to_le_bytes());
        out[30] = self.result;
        out[31] = self.black;
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FENS: [&str; 4] = [
        engine::START_FEN,
        "2bakab2/6r2/2n1c1nc1/p1p2rp1p/4p4/2PN2PC1/P3P3P/6N2/3CA4/1RBAK1B1R w - - 0 1",
        "3akab2/3r5/8n/8p/2P1C1b2/8P/cR2N2r1/2n1B1N2/4A4/2B1KR3 b - - 0 1",
        "4k4/9/9/9/9/9/5p3/4B4/3N5/4K4 b - - 0 1",
    ];

    /// The inputs the engine's own index gives, from `perspective`, sorted.
    fn engine_features(pos: &Position, perspective: Color) -> Vec<u16> {
        let mut out: Vec<u16> = pos
            .occupied()
            .into_iter()
            .filter_map(|sq| pos.piece_at(sq).map(|p| features::index(perspective, p, sq) as u16))
            .collect();
        out.sort_unstable();
        out
    }

    #[test]
    fn a_position_is_32_bytes() {
        assert_eq!(std::mem::size_of::<PackedPosition>(), 32);
    }

    #[test]
    fn packed_positions_round_trip_and_give_the_engines_features() -> Result<()> {
        for fen in FENS {
            let pos = Position::from_fen(fen).map_err(|reason| Error::Fen { fen: fen.into(), reason })?;
            let packed = PackedPosition::new(&pos, -123, 1.0)?;
            assert_eq!((packed.score(), packed.result(), packed.side_to_move()), (-123, 1.0, pos.side_to_move()));
            assert_eq!(packed.pieces(), pos.occupied().count() as usize);
            let back = packed.to_position()?;
            assert_eq!(back.key(), pos.key(), "{fen}");
            assert_eq!(back.fen().split(' ').take(2).collect::<Vec<_>>(), fen.split(' ').take(2).collect::<Vec<_>>());
            let f = packed.features();
            let sorted = |s: &[u16]| {
                let mut v = s.to_vec();
                v.sort_unstable();
                v
            };
            let stm = pos.side_to_move();
            let other = if stm == Color::Red { Color::Black } else { Color::Red };
            assert_eq!(sorted(f.us()), engine_features(&pos, stm), "{fen}");
            assert_eq!(sorted(f.them()), engine_features(&pos, other), "{fen}");
        }
        Ok(())
    }

    #[test]
    fn results_other_than_win_draw_loss_are_refused() {
        let pos = Position::startpos();
        assert!(PackedPosition::new(&pos, 0, 0.25).is_err());
        let saturated = PackedPosition::new(&pos, 100_000, 0.5).expect("valid");
        assert_eq!(saturated.score(), i32::from(i16::MAX));
    }
}
