//! What WXF and Chinese notation both say about a move before either spells it: which piece
//! moves (by its file, or by its place among like pieces sharing a file), which way it goes
//! from the mover's side (forward, backward, sideways), and the argument: the destination
//! file for sideways moves and for the diagonal movers (advisor, bishop, knight), otherwise
//! the number of ranks. Files are numbered 1-9 from the mover's right: for Red file i is 1
//! and file a is 9; for Black file a is 1 and file i is 9.
//!
//! Writing: [`describe`] gives the canonical [`Description`] of a legal move, and a notation
//! only spells it. Reading: a notation turns its text into a [`Pattern`] and [`find`] returns
//! the one legal move it names, or says why it names none or several.
//!
//! "Front" is the piece furthest from the mover's own side of the board (the highest rank for
//! Red, the lowest for Black).

use std::fmt;

use crate::position::Position;
use crate::types::{Color, Move, PieceKind, Square};

/// Which way a piece moves, seen from the mover's side.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    Forward,
    Backward,
    Sideways,
}

/// How a written move names its piece.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Origin {
    /// The only piece of its kind on this file (1-9 from the mover's right).
    File(u8),
    /// One of `count` (2-5) like pieces on `file`; `index` 0 is the front one. `tandem`: the
    /// side has two files each holding two or more of these pieces (only pawns can), so a
    /// front/rear word alone would not say which file.
    Stack { file: u8, index: usize, count: usize, tandem: bool },
}

/// The canonical description of a move, shared by WXF and Chinese notation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Description {
    pub color: Color,
    pub kind: PieceKind,
    pub origin: Origin,
    pub direction: Direction,
    /// Destination file (1-9 from the mover's right) or number of ranks, as the kind and
    /// direction require; see [`names_destination_file`].
    pub arg: u8,
}

/// The file number (1-9) of board file `file` (0-8, a-i) counted from `color`'s right.
pub fn mover_file(color: Color, file: i32) -> u8 {
    let n = match color {
        Color::Red => 9 - file,
        Color::Black => file + 1,
    };
    n.clamp(1, 9) as u8
}

/// The board file (0-8) of file number `n` (1-9) counted from `color`'s right.
pub fn board_file(color: Color, n: u8) -> i32 {
    match color {
        Color::Red => 9 - i32::from(n),
        Color::Black => i32::from(n) - 1,
    }
}

/// Whether the argument of a forward or backward move of `kind` is the destination file
/// (the pieces that never move straight) rather than a number of ranks.
pub fn names_destination_file(kind: PieceKind) -> bool {
    matches!(kind, PieceKind::Advisor | PieceKind::Bishop | PieceKind::Knight)
}

/// The squares of `color`'s pieces of `kind` on board file `file`, front one first.
fn stack(pos: &Position, color: Color, kind: PieceKind, file: i32) -> Vec<Square> {
    let mut squares: Vec<Square> = pos.pieces(color, kind).into_iter().filter(|sq| sq.file() == file).collect();
    squares.sort_by_key(|sq| -sq.rank() * i32::from(color.forward()));
    squares
}

/// How many files hold two or more of `color`'s pieces of `kind`.
fn stacked_files(pos: &Position, color: Color, kind: PieceKind) -> usize {
    (0..9).filter(|&file| stack(pos, color, kind, file).len() >= 2).count()
}

/// How a written move would name the piece on `sq`, if there is one.
pub fn origin_of(pos: &Position, sq: Square) -> Option<Origin> {
    let piece = pos.piece_at(sq)?;
    let squares = stack(pos, piece.color, piece.kind, sq.file());
    let file = mover_file(piece.color, sq.file());
    if squares.len() < 2 {
        return Some(Origin::File(file));
    }
    let index = squares.iter().position(|&s| s == sq)?;
    let tandem = stacked_files(pos, piece.color, piece.kind) >= 2;
    Some(Origin::Stack { file, index, count: squares.len(), tandem })
}

/// The canonical description of `m`, or `None` when no piece stands on its from-square.
pub fn describe(pos: &Position, m: Move) -> Option<Description> {
    let (from, to) = (m.from(), m.to());
    let piece = pos.piece_at(from)?;
    let ahead = (to.rank() - from.rank()) * i32::from(piece.color.forward());
    let direction = match ahead.signum() {
        1 => Direction::Forward,
        -1 => Direction::Backward,
        _ => Direction::Sideways,
    };
    let arg = if direction == Direction::Sideways || names_destination_file(piece.kind) {
        mover_file(piece.color, to.file())
    } else {
        ahead.unsigned_abs().min(9) as u8
    };
    let origin = match origin_of(pos, from)? {
        // Advisors and bishops keep their file digit on a shared file (`A6+5`, 仕六进五): the
        // direction alone tells the two apart, since only one of them can move that way to
        // that file (RULES.md, as Fairy-Stockfish and the xqinenglish primer write).
        Origin::Stack { file, .. } if keeps_file_digit(piece.kind) => Origin::File(file),
        origin => origin,
    };
    Some(Description { color: piece.color, kind: piece.kind, origin, direction, arg })
}

/// Whether a written move names a piece of `kind` by its file even when a like piece shares
/// it: the advisors and bishops, whose two pieces on one file never both have a move in the
/// same direction to the same file.
pub fn keeps_file_digit(kind: PieceKind) -> bool {
    matches!(kind, PieceKind::Advisor | PieceKind::Bishop)
}

/// Which piece of a stack (like pieces sharing a file) a written move means.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pick {
    /// The front one (WXF `++`, Chinese 前).
    Front,
    /// The rear one (WXF `--`, Chinese 后).
    Rear,
    /// The middle one of three or five (Chinese 中; WXF writes the file digit).
    Middle,
    /// The n-th from the front, 1-based (Chinese 一兵 .. 五兵 for four or five pawns).
    Nth(u8),
    /// WXF's single `+`: the front one of two or three, the second from the front of four
    /// or five.
    Plus,
    /// WXF's single `-`: the rear one of two or three, the second from the rear of four or
    /// five.
    Minus,
}

impl Pick {
    /// The index from the front this pick means in a stack of `count`.
    fn index(self, count: usize) -> Option<usize> {
        let n = count.checked_sub(1)?;
        match self {
            Pick::Front => Some(0),
            Pick::Rear => Some(n),
            Pick::Middle => (count % 2 == 1 && count >= 3).then_some(count / 2),
            Pick::Nth(k) => usize::from(k).checked_sub(1).filter(|&i| i < count),
            Pick::Plus => Some(usize::from(count >= 4)),
            Pick::Minus => n.checked_sub(usize::from(count >= 4)),
        }
    }
}

impl fmt::Display for Pick {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Pick::Front => f.write_str("front"),
            Pick::Rear => f.write_str("rear"),
            Pick::Middle => f.write_str("middle"),
            Pick::Nth(k) => write!(f, "number {k} from the front"),
            Pick::Plus => f.write_str("`+` (front)"),
            Pick::Minus => f.write_str("`-` (rear)"),
        }
    }
}

/// How a parsed move names its piece.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Selector {
    /// By file (1-9 from the mover's right): the only piece of the kind there; for an odd
    /// stack of pawns the middle one (WXF's `P3`); otherwise any one of those on the file,
    /// provided only one of them has the move.
    File(u8),
    /// By place in a stack; `file` is given in tandem forms (`3+.4`, 二前兵), else any
    /// stack qualifies provided only one move matches.
    Stack { file: Option<u8>, pick: Pick },
}

impl Selector {
    fn selects(self, origin: Origin, kind: PieceKind) -> bool {
        match (self, origin) {
            (Selector::File(n), Origin::File(file)) => n == file,
            (Selector::File(n), Origin::Stack { file, index, count, .. }) => {
                n == file && (kind != PieceKind::Pawn || count % 2 == 0 || index == count / 2)
            }
            (Selector::Stack { file: wanted, pick }, Origin::Stack { file, index, count, .. }) => {
                wanted.is_none_or(|w| w == file) && pick.index(count) == Some(index)
            }
            (Selector::Stack { .. }, Origin::File(_)) => false,
        }
    }
}

/// A move as a notation reads it, before it is matched against the position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pattern {
    pub kind: PieceKind,
    pub selector: Selector,
    pub direction: Direction,
    /// 1-9: destination file or number of ranks, as in [`Description::arg`].
    pub arg: u8,
}

/// Where a piece of `kind` on `from` lands when it goes `direction` with `arg`, if that
/// describes a geometrically possible step at all (legality is checked separately).
fn destination(color: Color, kind: PieceKind, from: Square, direction: Direction, arg: u8) -> Option<Square> {
    let sign = match direction {
        Direction::Forward => i32::from(color.forward()),
        Direction::Backward => -i32::from(color.forward()),
        Direction::Sideways => 0,
    };
    let to_file = board_file(color, arg);
    if names_destination_file(kind) {
        let ranks = match (kind, (to_file - from.file()).abs()) {
            (PieceKind::Advisor, 1) => 1,
            (PieceKind::Bishop, 2) => 2,
            (PieceKind::Knight, 1) => 2,
            (PieceKind::Knight, 2) => 1,
            _ => return None,
        };
        return if sign == 0 { None } else { Square::new(to_file, from.rank() + sign * ranks) };
    }
    match direction {
        Direction::Sideways if to_file != from.file() => Square::new(to_file, from.rank()),
        Direction::Sideways => None,
        _ => from.offset(0, sign * i32::from(arg)),
    }
}

fn motion(kind: PieceKind, direction: Direction, arg: u8) -> String {
    match direction {
        Direction::Sideways => format!("sideways to file {arg}"),
        Direction::Forward if names_destination_file(kind) => format!("forward to file {arg}"),
        Direction::Backward if names_destination_file(kind) => format!("backward to file {arg}"),
        Direction::Forward => format!("forward {arg} rank{}", if arg == 1 { "" } else { "s" }),
        Direction::Backward => format!("backward {arg} rank{}", if arg == 1 { "" } else { "s" }),
    }
}

fn plural(count: usize) -> &'static str {
    if count == 1 { "" } else { "s" }
}

fn square_list(squares: &[Square]) -> String {
    squares.iter().map(Square::to_string).collect::<Vec<_>>().join(", ")
}

/// Why `selector` picks none of `us`'s pieces of `kind`.
fn selector_error(pos: &Position, us: Color, kind: PieceKind, selector: Selector) -> String {
    if pos.pieces(us, kind).is_empty() {
        return format!("{us} has no {kind} on the board");
    }
    match selector {
        Selector::File(n) => {
            format!("{us} has no {kind} on file {n} (files count 1-9 from {us}'s right)")
        }
        Selector::Stack { file: Some(n), pick } => {
            let count = stack(pos, us, kind, board_file(us, n)).len();
            if count < 2 {
                format!("{us} has only {count} {kind}{} on file {n}, so no {pick} one to name", plural(count))
            } else {
                format!("{us}'s {count} {kind}s on file {n} have no {pick} one")
            }
        }
        Selector::Stack { file: None, pick } if stacked_files(pos, us, kind) == 0 => {
            format!("no two {us} {kind}s share a file, so `{pick}` does not apply: name the file")
        }
        Selector::Stack { file: None, pick } => {
            format!("no stack of {us} {kind}s has a {pick} one")
        }
    }
}

/// The one legal move of `pos` that `pattern` names, or why there is none or more than one.
pub fn find(pos: &Position, pattern: &Pattern) -> Result<Move, String> {
    let Pattern { kind, selector, direction, arg } = *pattern;
    let us = pos.side_to_move();
    if direction == Direction::Sideways && names_destination_file(kind) {
        return Err(format!("a {kind} never moves sideways: write forward or backward and its destination file"));
    }
    let selected: Vec<Square> = pos
        .pieces(us, kind)
        .into_iter()
        .filter(|&sq| origin_of(pos, sq).is_some_and(|o| selector.selects(o, kind)))
        .collect();
    if selected.is_empty() {
        return Err(selector_error(pos, us, kind, selector));
    }
    let reachable: Vec<Move> = selected
        .iter()
        .filter_map(|&from| destination(us, kind, from, direction, arg).map(|to| Move::new(from, to)))
        .collect();
    let legal: Vec<Move> = reachable.iter().copied().filter(|&m| pos.illegal_reason(m).is_none()).collect();
    match (legal.as_slice(), reachable.as_slice()) {
        ([m], _) => Ok(*m),
        ([], [m]) => {
            let reason = pos.illegal_reason(*m).map(|r| r.to_string()).unwrap_or_default();
            Err(format!("{m} is illegal: {reason}"))
        }
        ([], _) if selected.len() == 1 => {
            Err(format!("the {us} {kind} on {} cannot move {}", selected[0], motion(kind, direction, arg)))
        }
        ([], _) => Err(format!(
            "none of the {us} {kind}s on {} can move {}",
            square_list(&selected),
            motion(kind, direction, arg)
        )),
        (many, _) => {
            let from: Vec<Square> = many.iter().map(|m| m.from()).collect();
            let hint = match selector {
                Selector::File(_) => "say which by front/rear",
                Selector::Stack { .. } => "name the file as well",
            };
            Err(format!(
                "ambiguous: the {us} {kind}s on {} can each move {}; {hint}",
                square_list(&from),
                motion(kind, direction, arg)
            ))
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // in tests a panic is the failure report
mod tests {
    use super::*;

    #[test]
    fn files_count_from_the_movers_right() {
        assert_eq!(mover_file(Color::Red, 8), 1);
        assert_eq!(mover_file(Color::Red, 0), 9);
        assert_eq!(mover_file(Color::Black, 0), 1);
        assert_eq!(mover_file(Color::Black, 8), 9);
        for color in Color::ALL {
            for file in 0..9 {
                assert_eq!(board_file(color, mover_file(color, file)), file);
            }
        }
    }

    #[test]
    fn picks_index_stacks_by_size() {
        assert_eq!(Pick::Plus.index(2), Some(0));
        assert_eq!(Pick::Minus.index(3), Some(2));
        assert_eq!(Pick::Plus.index(5), Some(1));
        assert_eq!(Pick::Minus.index(4), Some(2));
        assert_eq!(Pick::Middle.index(3), Some(1));
        assert_eq!(Pick::Middle.index(5), Some(2));
        assert_eq!(Pick::Middle.index(2), None);
        assert_eq!(Pick::Nth(5).index(4), None);
        assert_eq!(Pick::Nth(1).index(4), Some(0));
    }

    #[test]
    fn describes_stacks_front_first_for_each_side() {
        // Red rooks on a0 and a2: a2 is the front one. Black rooks on i9 and i7: i7 is.
        let pos = Position::from_fen("3k4r/9/8r/9/9/9/9/R8/9/R4K3 w - - 0 1").unwrap();
        let stack_at = |sq| origin_of(&pos, sq).unwrap();
        assert_eq!(stack_at(Square::A2), Origin::Stack { file: 9, index: 0, count: 2, tandem: false });
        assert_eq!(stack_at(Square::A0), Origin::Stack { file: 9, index: 1, count: 2, tandem: false });
        assert_eq!(stack_at(Square::I7), Origin::Stack { file: 9, index: 0, count: 2, tandem: false });
        assert_eq!(stack_at(Square::F0), Origin::File(4));
        let d = describe(&pos, Move::new(Square::A0, Square::A1)).unwrap();
        assert_eq!((d.direction, d.arg), (Direction::Forward, 1));
    }
}
