//! The validated position: bitboards, mailbox, Zobrist key and the move history needed to
//! undo moves and judge repetitions; static exchange evaluation (`see_ge`) in `see.rs`.

mod fen;
pub mod opening;
mod play;
mod see;
pub(crate) mod validate;
pub mod zobrist;

pub use fen::{FenError, Setup};
pub use opening::OpeningLine;
pub use see::{SEE_PAWN_CROSSED, SEE_VALUES, see_value};

use crate::movegen::attacks;
use crate::types::{Bitboard, Color, Move, Piece, PieceKind, Square};

/// The start position.
pub const START_FEN: &str = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1";

/// What `undo` needs, and the key of the position before the move (for repetition checks).
#[derive(Clone, Copy, Debug)]
pub struct StateInfo {
    pub mv: Move,
    pub captured: Option<Piece>,
    pub rule60: u16,
    pub key: u64,
}

/// A legal Xiangqi position with its history of played moves.
#[derive(Clone, Debug)]
pub struct Position {
    board: [Option<Piece>; 90],
    by_color: [Bitboard; 2],
    by_kind: [Bitboard; 7],
    occupied: Bitboard,
    side_to_move: Color,
    /// Plies since the last capture (Pikafish's rule-60 counter, FEN field 5).
    rule60: u16,
    /// Plies since the game started, as given by the FEN's move number plus moves played.
    game_ply: u32,
    key: u64,
    history: Vec<StateInfo>,
}

impl Default for Position {
    fn default() -> Position {
        Position::startpos()
    }
}

impl PartialEq for Position {
    /// Positions are equal when placement, side to move and counters agree (history aside).
    fn eq(&self, other: &Position) -> bool {
        self.board == other.board
            && self.side_to_move == other.side_to_move
            && self.rule60 == other.rule60
            && self.game_ply == other.game_ply
    }
}

impl Position {
    /// The initial position.
    pub fn startpos() -> Position {
        match Position::from_fen(START_FEN) {
            Ok(pos) => pos,
            Err(e) => unreachable!("the start FEN is valid: {e}"),
        }
    }

    fn empty(side_to_move: Color) -> Position {
        Position {
            board: [None; 90],
            by_color: [Bitboard::EMPTY; 2],
            by_kind: [Bitboard::EMPTY; 7],
            occupied: Bitboard::EMPTY,
            side_to_move,
            rule60: 0,
            game_ply: 0,
            key: zobrist::side(side_to_move),
            history: Vec::with_capacity(256),
        }
    }

    /// Replaces the placement and side to move without any check, clearing the history and
    /// the counters: the tablebase generator's fast path, which checks legality itself.
    pub(crate) fn set_unchecked(&mut self, placement: &[(Piece, Square)], side_to_move: Color) {
        self.board = [None; 90];
        self.by_color = [Bitboard::EMPTY; 2];
        self.by_kind = [Bitboard::EMPTY; 7];
        self.occupied = Bitboard::EMPTY;
        self.side_to_move = side_to_move;
        self.history.clear();
        self.rule60 = 0;
        self.game_ply = 0;
        for &(p, sq) in placement {
            self.put(p, sq);
        }
        self.key = self.compute_key();
    }

    // --- accessors -----------------------------------------------------------------------

    #[inline]
    pub fn side_to_move(&self) -> Color {
        self.side_to_move
    }

    #[inline]
    pub fn piece_at(&self, sq: Square) -> Option<Piece> {
        self.board[sq.index()]
    }

    #[inline]
    pub fn occupied(&self) -> Bitboard {
        self.occupied
    }

    #[inline]
    pub fn by_color(&self, c: Color) -> Bitboard {
        self.by_color[c.index()]
    }

    #[inline]
    pub fn by_kind(&self, k: PieceKind) -> Bitboard {
        self.by_kind[k.index()]
    }

    #[inline]
    pub fn pieces(&self, c: Color, k: PieceKind) -> Bitboard {
        self.by_color[c.index()] & self.by_kind[k.index()]
    }

    /// The king of `c` (a validated position always has one).
    #[inline]
    pub fn king(&self, c: Color) -> Square {
        match self.pieces(c, PieceKind::King).first() {
            Some(sq) => sq,
            None => unreachable!("validated position without a {c} king"),
        }
    }

    /// The Zobrist key (placement and side to move).
    #[inline]
    pub fn key(&self) -> u64 {
        self.key
    }

    /// Plies since the last capture.
    #[inline]
    pub fn rule60(&self) -> u32 {
        u32::from(self.rule60)
    }

    /// The FEN move number (starts at 1, increases after Black's move).
    pub fn fullmove(&self) -> u32 {
        self.game_ply / 2 + 1
    }

    /// Moves played on this position since it was set up, with what undo needs.
    #[inline]
    pub fn history(&self) -> &[StateInfo] {
        &self.history
    }

    /// Keeps only the last `n` history entries (long games: repetition needs at most the
    /// plies since the last capture).
    pub fn truncate_history(&mut self, keep: usize) {
        let len = self.history.len();
        if len > keep {
            self.history.drain(..len - keep);
        }
    }

    /// The moved piece of `m` in this position.
    #[inline]
    pub fn moved_piece(&self, m: Move) -> Option<Piece> {
        self.board[m.from().index()]
    }

    /// The piece `m` captures in this position, if any.
    #[inline]
    pub fn captured_piece(&self, m: Move) -> Option<Piece> {
        self.board[m.to().index()]
    }

    #[inline]
    pub fn is_capture(&self, m: Move) -> bool {
        self.board[m.to().index()].is_some()
    }

    // --- board edits ---------------------------------------------------------------------

    #[inline]
    fn put(&mut self, p: Piece, sq: Square) {
        let b = Bitboard::from_square(sq);
        self.board[sq.index()] = Some(p);
        self.by_color[p.color.index()] |= b;
        self.by_kind[p.kind.index()] |= b;
        self.occupied |= b;
    }

    #[inline]
    fn remove(&mut self, p: Piece, sq: Square) {
        let b = Bitboard::from_square(sq);
        self.board[sq.index()] = None;
        self.by_color[p.color.index()] ^= b;
        self.by_kind[p.kind.index()] ^= b;
        self.occupied ^= b;
    }

    #[inline]
    fn shift(&mut self, p: Piece, from: Square, to: Square) {
        let b = Bitboard::from_square(from) | Bitboard::from_square(to);
        self.board[from.index()] = None;
        self.board[to.index()] = Some(p);
        self.by_color[p.color.index()] ^= b;
        self.by_kind[p.kind.index()] ^= b;
        self.occupied ^= b;
    }

    /// Plays a pseudo-legal move without any check: the fast path for search and perft.
    /// The caller guarantees `m` is legal here (from `legal_moves`, a legality-checked
    /// generator, or `is_legal`); anything else leaves an invalid position.
    #[inline]
    pub fn play_unchecked(&mut self, m: Move) {
        let (from, to) = (m.from(), m.to());
        let Some(piece) = self.board[from.index()] else {
            debug_assert!(false, "play_unchecked({m}): no piece on {from}");
            return;
        };
        let captured = self.board[to.index()];
        self.history.push(StateInfo { mv: m, captured, rule60: self.rule60, key: self.key });
        let mut key = self.key ^ zobrist::SIDE;
        if let Some(cap) = captured {
            self.remove(cap, to);
            key ^= zobrist::piece_square(cap, to);
            self.rule60 = 0;
        } else {
            self.rule60 = self.rule60.saturating_add(1);
        }
        self.shift(piece, from, to);
        key ^= zobrist::piece_square(piece, from) ^ zobrist::piece_square(piece, to);
        self.key = key;
        self.side_to_move = !self.side_to_move;
        self.game_ply += 1;
        debug_assert_eq!(self.key, self.compute_key(), "incremental key after {m}");
    }

    /// Takes back the last move played with `play_unchecked` / `try_play` / `play_null`.
    /// Returns the move undone, or `None` when there is no history.
    pub fn undo(&mut self) -> Option<Move> {
        let st = self.history.pop()?;
        self.side_to_move = !self.side_to_move;
        self.game_ply -= 1;
        self.rule60 = st.rule60;
        self.key = st.key;
        if st.mv.is_null() {
            return Some(st.mv);
        }
        let (from, to) = (st.mv.from(), st.mv.to());
        if let Some(piece) = self.board[to.index()] {
            self.shift(piece, to, from);
        }
        if let Some(cap) = st.captured {
            self.put(cap, to);
        }
        Some(st.mv)
    }

    /// Passes the move (search's null move). Must not be played in check.
    pub fn play_null(&mut self) {
        self.history.push(StateInfo { mv: Move::NULL, captured: None, rule60: self.rule60, key: self.key });
        self.key ^= zobrist::SIDE;
        self.side_to_move = !self.side_to_move;
        self.game_ply += 1;
    }

    /// The key recomputed from scratch (the debug check of the incremental key).
    pub fn compute_key(&self) -> u64 {
        let mut key = zobrist::side(self.side_to_move);
        for sq in self.occupied {
            if let Some(p) = self.board[sq.index()] {
                key ^= zobrist::piece_square(p, sq);
            }
        }
        key
    }

    /// The key the position would have after `m` (for prefetching and repetition look-ahead).
    pub fn key_after(&self, m: Move) -> u64 {
        let (from, to) = (m.from(), m.to());
        let mut key = self.key ^ zobrist::SIDE;
        if let Some(p) = self.board[from.index()] {
            key ^= zobrist::piece_square(p, from) ^ zobrist::piece_square(p, to);
        }
        if let Some(cap) = self.board[to.index()] {
            key ^= zobrist::piece_square(cap, to);
        }
        key
    }

    // --- attacks -------------------------------------------------------------------------

    /// Pieces of `by` that attack `sq` with occupancy `occ` (the king only through the
    /// flying-general file, since kings never meet otherwise). `by_mask` restricts the
    /// attackers (used to remove a piece that a hypothetical move captures).
    #[inline]
    pub fn attackers_to_king(&self, sq: Square, by: Color, occ: Bitboard, by_mask: Bitboard) -> Bitboard {
        let them = self.by_color[by.index()] & by_mask;
        let rooks_kings = them & (self.by_kind[PieceKind::Rook.index()] | self.by_kind[PieceKind::King.index()]);
        let mut att = attacks::rook_attacks(sq, occ) & rooks_kings;
        let cannons = them & self.by_kind[PieceKind::Cannon.index()];
        if cannons.any() {
            att |= attacks::cannon_attacks(sq, occ) & cannons;
        }
        let knights = them & self.by_kind[PieceKind::Knight.index()];
        if knights.any() {
            att |= attacks::knight_attackers_mask(sq, occ) & knights;
        }
        att |= attacks::PAWN_ATTACKERS[by.index()][sq.index()] & them & self.by_kind[PieceKind::Pawn.index()];
        att
    }

    /// Every piece of `by` that attacks `sq` under occupancy `occ`, by all piece rules
    /// (used for chase detection and static exchange; the king by its palace steps).
    pub fn attackers_to(&self, sq: Square, by: Color, occ: Bitboard) -> Bitboard {
        let them = self.by_color[by.index()] & occ;
        let k = |kind: PieceKind| them & self.by_kind[kind.index()];
        let mut att = attacks::rook_attacks(sq, occ) & k(PieceKind::Rook);
        att |= attacks::cannon_attacks(sq, occ) & k(PieceKind::Cannon);
        att |= attacks::knight_attackers_mask(sq, occ) & k(PieceKind::Knight);
        att |= attacks::PAWN_ATTACKERS[by.index()][sq.index()] & k(PieceKind::Pawn);
        att |= attacks::bishop_attacks(sq, occ) & k(PieceKind::Bishop);
        att |= attacks::ADVISOR_STEPS[sq.index()] & k(PieceKind::Advisor);
        att |= attacks::KING_STEPS[sq.index()] & k(PieceKind::King);
        att
    }

    /// Enemy pieces giving check to the side to move (flying general included).
    #[inline]
    pub fn checkers(&self) -> Bitboard {
        self.king_safety().checkers
    }

    /// Whether the side to move is in check.
    #[inline]
    pub fn in_check(&self) -> bool {
        self.checkers().any()
    }

    /// Whether `color`'s king is attacked (flying general included).
    pub fn is_king_attacked(&self, color: Color) -> bool {
        self.attackers_to_king(self.king(color), !color, self.occupied, Bitboard::FULL).any()
    }

    /// Whether the two kings face each other on an open file.
    pub fn kings_facing(&self) -> bool {
        let red = self.king(Color::Red);
        attacks::file_attacks(red, self.occupied).contains(self.king(Color::Black))
    }

    /// Total count of pieces, by colour and kind (material signature).
    pub fn count(&self, c: Color, k: PieceKind) -> u32 {
        self.pieces(c, k).count()
    }
}

impl std::fmt::Display for Position {
    /// A board diagram (rank 9 on top, Red upper case) followed by the FEN and key.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(f)?;
        for rank in (0..10).rev() {
            write!(f, " {rank} ")?;
            for file in 0..9 {
                let sq = Square::new(file, rank).ok_or(std::fmt::Error)?;
                let c = self.board[sq.index()].map_or('.', Piece::char);
                write!(f, " {c}")?;
            }
            writeln!(f)?;
            if rank == 5 {
                writeln!(f, "    ~~~~~~~~~~~~~~~~~")?;
            }
        }
        writeln!(f, "    a b c d e f g h i")?;
        writeln!(f)?;
        writeln!(f, "Fen: {}", self.fen())?;
        write!(f, "Key: {:016X}", self.key)
    }
}
