//! The engine's move generator checked against a deliberately naive reference written
//! separately from RULES.md: a 10x9 mailbox read from the FEN by its own parser, each
//! piece's rule coded directly, and legality decided by making the move on a copy and
//! asking whether any enemy piece could then take the king (or the kings face).
//!
//! Nothing here uses the engine's move generator, attack tables or square types: the
//! reference only meets the engine through FEN text and UCI move strings, so a shared
//! misunderstanding would have to be written twice to go unnoticed.
//!
//! - Random games (proptest): at every ply the engine's `legal_moves()` equals the
//!   reference set exactly, the engine's board after `play_unchecked` equals the
//!   reference's own board after the same move, `undo` restores FEN and key, the
//!   incremental key equals `compute_key()`, and `fen()` parses back to an equal position.
//! - Perft: the reference's counts equal the engine's and the shared file's at small depths.

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::PathBuf;

use engine::Position;
use engine::perft::perft;
use proptest::prelude::*;

// --- the reference --------------------------------------------------------------------

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Side {
    Red,
    Black,
}

impl Side {
    fn other(self) -> Side {
        match self {
            Side::Red => Side::Black,
            Side::Black => Side::Red,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    General,
    Advisor,
    Elephant,
    Horse,
    Chariot,
    Cannon,
    Soldier,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Man {
    side: Side,
    kind: Kind,
}

/// A square as (file 0-8 from Red's left, rank 0-9 from Red's side).
type Spot = (i32, i32);

/// A move as from and to spots.
type RefMove = (Spot, Spot);

fn on_board((f, r): Spot) -> bool {
    (0..9).contains(&f) && (0..10).contains(&r)
}

fn in_palace(side: Side, (f, r): Spot) -> bool {
    let ranks = match side {
        Side::Red => 0..=2,
        Side::Black => 7..=9,
    };
    (3..=5).contains(&f) && ranks.contains(&r)
}

/// Whether `spot` is on `side`'s half of the board (before the river).
fn on_own_half(side: Side, (_, r): Spot) -> bool {
    match side {
        Side::Red => r <= 4,
        Side::Black => r >= 5,
    }
}

fn uci((from, to): RefMove) -> String {
    let name = |(f, r): Spot| format!("{}{}", (b'a' + f as u8) as char, r);
    format!("{}{}", name(from), name(to))
}

#[derive(Clone, Debug, PartialEq, Eq)]
struct Board {
    /// `cells[rank][file]`.
    cells: [[Option<Man>; 9]; 10],
    to_move: Side,
    no_capture_plies: u32,
    move_number: u32,
}

impl Board {
    /// Reads a FEN the simple way; the test's inputs are valid FENs, so any surprise panics.
    fn from_fen(fen: &str) -> Board {
        let fields: Vec<&str> = fen.split_whitespace().collect();
        let rows: Vec<&str> = fields[0].split('/').collect();
        assert_eq!(rows.len(), 10, "reference FEN reader: {fen}");
        let mut cells = [[None; 9]; 10];
        for (i, row) in rows.iter().enumerate() {
            let rank = 9 - i;
            let mut file = 0;
            for c in row.chars() {
                if let Some(n) = c.to_digit(10) {
                    file += n as usize;
                    continue;
                }
                let side = if c.is_ascii_uppercase() { Side::Red } else { Side::Black };
                let kind = match c.to_ascii_lowercase() {
                    'k' => Kind::General,
                    'a' => Kind::Advisor,
                    'b' | 'e' => Kind::Elephant,
                    'n' | 'h' => Kind::Horse,
                    'r' => Kind::Chariot,
                    'c' => Kind::Cannon,
                    'p' => Kind::Soldier,
                    _ => panic!("reference FEN reader: letter {c} in {fen}"),
                };
                cells[rank][file] = Some(Man { side, kind });
                file += 1;
            }
            assert_eq!(file, 9, "reference FEN reader: rank {rank} of {fen}");
        }
        let to_move = match fields.get(1).copied() {
            None | Some("w" | "r") => Side::Red,
            Some("b") => Side::Black,
            Some(other) => panic!("reference FEN reader: side {other} in {fen}"),
        };
        let number = |i: usize, default: u32| fields.get(i).map_or(default, |s| s.parse().expect("counter"));
        Board { cells, to_move, no_capture_plies: number(4, 0), move_number: number(5, 1) }
    }

    /// The FEN as the engine writes it (for comparing boards after a move).
    fn fen(&self) -> String {
        let mut out = String::new();
        for rank in (0..10).rev() {
            let mut gap = 0;
            for file in 0..9 {
                match self.cells[rank][file] {
                    None => gap += 1,
                    Some(man) => {
                        if gap > 0 {
                            write!(out, "{gap}").expect("String write");
                            gap = 0;
                        }
                        let c = match man.kind {
                            Kind::General => 'k',
                            Kind::Advisor => 'a',
                            Kind::Elephant => 'b',
                            Kind::Horse => 'n',
                            Kind::Chariot => 'r',
                            Kind::Cannon => 'c',
                            Kind::Soldier => 'p',
                        };
                        out.push(if man.side == Side::Red { c.to_ascii_uppercase() } else { c });
                    }
                }
            }
            if gap > 0 {
                write!(out, "{gap}").expect("String write");
            }
            if rank > 0 {
                out.push('/');
            }
        }
        let side = if self.to_move == Side::Red { 'w' } else { 'b' };
        write!(out, " {side} - - {} {}", self.no_capture_plies, self.move_number).expect("String write");
        out
    }

    fn at(&self, (f, r): Spot) -> Option<Man> {
        self.cells[r as usize][f as usize]
    }

    fn general(&self, side: Side) -> Spot {
        for r in 0..10 {
            for f in 0..9 {
                if self.at((f, r)) == Some(Man { side, kind: Kind::General }) {
                    return (f, r);
                }
            }
        }
        panic!("no {side:?} general on the reference board")
    }

    /// The move applied to a copy, counters and side to move updated.
    fn after(&self, (from, to): RefMove) -> Board {
        let mut next = self.clone();
        let man = next.cells[from.1 as usize][from.0 as usize].take();
        let captured = next.cells[to.1 as usize][to.0 as usize].replace(man.expect("a man on the from-spot"));
        next.no_capture_plies = if captured.is_some() { 0 } else { self.no_capture_plies + 1 };
        if self.to_move == Side::Black {
            next.move_number += 1;
        }
        next.to_move = self.to_move.other();
        next
    }

    /// Every move of `side` that obeys the piece rules, whether or not it leaves its own
    /// general exposed.
    fn pseudo_moves(&self, side: Side) -> Vec<RefMove> {
        let mut moves = Vec::new();
        for r in 0..10 {
            for f in 0..9 {
                if let Some(man) = self.at((f, r))
                    && man.side == side
                {
                    self.man_moves((f, r), man, &mut moves);
                }
            }
        }
        moves
    }

    /// Whether a man of `side` may end its move on `to`: on the board, not on a friend.
    fn free_for(&self, side: Side, to: Spot) -> bool {
        on_board(to) && self.at(to).is_none_or(|other| other.side != side)
    }

    fn man_moves(&self, from: Spot, man: Man, moves: &mut Vec<RefMove>) {
        let (f, r) = from;
        let side = man.side;
        let orthogonal = [(0, 1), (0, -1), (1, 0), (-1, 0)];
        let diagonal = [(1, 1), (1, -1), (-1, 1), (-1, -1)];
        match man.kind {
            Kind::General => {
                for (df, dr) in orthogonal {
                    let to = (f + df, r + dr);
                    if in_palace(side, to) && self.free_for(side, to) {
                        moves.push((from, to));
                    }
                }
            }
            Kind::Advisor => {
                for (df, dr) in diagonal {
                    let to = (f + df, r + dr);
                    if in_palace(side, to) && self.free_for(side, to) {
                        moves.push((from, to));
                    }
                }
            }
            Kind::Elephant => {
                for (df, dr) in diagonal {
                    let eye = (f + df, r + dr);
                    let to = (f + 2 * df, r + 2 * dr);
                    if on_board(to) && on_own_half(side, to) && self.at(eye).is_none() && self.free_for(side, to) {
                        moves.push((from, to));
                    }
                }
            }
            Kind::Horse => {
                // One orthogonal step (the leg, which must be empty), then one diagonal
                // step further out.
                for (lf, lr) in orthogonal {
                    let leg = (f + lf, r + lr);
                    if !on_board(leg) || self.at(leg).is_some() {
                        continue;
                    }
                    let outward = if lf == 0 { [(1, lr), (-1, lr)] } else { [(lf, 1), (lf, -1)] };
                    for (df, dr) in outward {
                        let to = (leg.0 + df, leg.1 + dr);
                        if self.free_for(side, to) {
                            moves.push((from, to));
                        }
                    }
                }
            }
            Kind::Chariot => {
                for (df, dr) in orthogonal {
                    let mut to = (f + df, r + dr);
                    while on_board(to) {
                        match self.at(to) {
                            None => moves.push((from, to)),
                            Some(other) => {
                                if other.side != side {
                                    moves.push((from, to));
                                }
                                break;
                            }
                        }
                        to = (to.0 + df, to.1 + dr);
                    }
                }
            }
            Kind::Cannon => {
                for (df, dr) in orthogonal {
                    let mut to = (f + df, r + dr);
                    let mut screen_seen = false;
                    while on_board(to) {
                        match (self.at(to), screen_seen) {
                            (None, false) => moves.push((from, to)),
                            (None, true) => {}
                            (Some(_), false) => screen_seen = true,
                            (Some(other), true) => {
                                if other.side != side {
                                    moves.push((from, to));
                                }
                                break;
                            }
                        }
                        to = (to.0 + df, to.1 + dr);
                    }
                }
            }
            Kind::Soldier => {
                let ahead = if side == Side::Red { 1 } else { -1 };
                let mut steps = vec![(0, ahead)];
                if !on_own_half(side, from) {
                    steps.push((1, 0));
                    steps.push((-1, 0));
                }
                for (df, dr) in steps {
                    let to = (f + df, r + dr);
                    if self.free_for(side, to) {
                        moves.push((from, to));
                    }
                }
            }
        }
    }

    /// Whether `side`'s general could be taken by the other side's next move, or stands
    /// on an open file facing the other general.
    fn general_exposed(&self, side: Side) -> bool {
        let ours = self.general(side);
        let theirs = self.general(side.other());
        if ours.0 == theirs.0 {
            let (low, high) = (ours.1.min(theirs.1), ours.1.max(theirs.1));
            if (low + 1..high).all(|r| self.at((ours.0, r)).is_none()) {
                return true;
            }
        }
        self.pseudo_moves(side.other()).iter().any(|&(_, to)| to == ours)
    }

    fn legal_moves(&self) -> Vec<RefMove> {
        let side = self.to_move;
        self.pseudo_moves(side).into_iter().filter(|&m| !self.after(m).general_exposed(side)).collect()
    }

    fn perft(&self, depth: u32) -> u64 {
        let moves = self.legal_moves();
        match depth {
            0 => 1,
            1 => moves.len() as u64,
            _ => moves.iter().map(|&m| self.after(m).perft(depth - 1)).sum(),
        }
    }
}

#[test]
fn reference_knows_the_start_position() {
    let board = Board::from_fen(engine::START_FEN);
    assert_eq!(board.fen(), engine::START_FEN);
    assert_eq!(board.legal_moves().len(), 44);
    assert_eq!(board.perft(2), 1920);
}

// --- the shared data ------------------------------------------------------------------

fn shared_dir() -> PathBuf {
    std::env::var_os("XQFARM_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared"))
}

struct PerftEntry {
    fen: String,
    /// (depth, nodes) as agreed by two independent engines.
    counts: Vec<(u32, u64)>,
}

fn perft_entries() -> Vec<PerftEntry> {
    let path = shared_dir().join("xiangqi/perft.txt");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {} (set XQFARM_SHARED): {e}", path.display()));
    let entries: Vec<PerftEntry> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|line| {
            let mut fields = line.split(';');
            let fen = fields.next().expect("a FEN field").trim().to_owned();
            let counts = fields
                .map(|f| {
                    let (d, n) = f.trim().split_once(' ').expect("`Dn count`");
                    (d.trim_start_matches('D').parse().expect("depth"), n.parse().expect("count"))
                })
                .collect();
            PerftEntry { fen, counts }
        })
        .collect();
    assert!(entries.len() >= 30, "perft file {} looks truncated", path.display());
    entries
}

/// The start position followed by every perft FEN: where random games begin.
fn game_starts() -> Vec<String> {
    std::iter::once(engine::START_FEN.to_owned()).chain(perft_entries().into_iter().map(|e| e.fen)).collect()
}

// --- perft ----------------------------------------------------------------------------

/// Depths 1-3 everywhere, deeper where the tree stays small enough for the naive reference.
#[test]
fn reference_perft_equals_engine_and_file() {
    const DEEP_BUDGET: u64 = 100_000;
    let mut compared = 0;
    for entry in perft_entries() {
        let board = Board::from_fen(&entry.fen);
        let mut pos = Position::from_fen(&entry.fen).unwrap_or_else(|e| panic!("{}: {e}", entry.fen));
        for &(depth, expected) in &entry.counts {
            if depth > 3 && expected > DEEP_BUDGET {
                continue;
            }
            let reference = board.perft(depth);
            assert_eq!(reference, expected, "reference perft({depth}) of {} disagrees with the file", entry.fen);
            assert_eq!(perft(&mut pos, depth), reference, "engine perft({depth}) of {}", entry.fen);
            compared += 1;
        }
    }
    assert!(compared >= 110, "only {compared} perft counts compared");
}

/// When perft counts agree but a move set differs, the divide shows where: compares the
/// full move sets one ply down from every perft position.
#[test]
fn move_sets_agree_one_ply_below_every_perft_position() {
    for entry in perft_entries() {
        let board = Board::from_fen(&entry.fen);
        let mut pos = Position::from_fen(&entry.fen).expect("valid perft FEN");
        assert_same_moves(&pos, &board);
        for m in pos.legal_moves().iter().copied() {
            pos.play_unchecked(m);
            assert_same_moves(&pos, &Board::from_fen(&pos.fen()));
            pos.undo();
        }
    }
}

// --- random games ---------------------------------------------------------------------

fn sorted_engine_moves(pos: &Position) -> Vec<String> {
    let mut moves: Vec<String> = pos.legal_moves().iter().map(ToString::to_string).collect();
    moves.sort();
    moves
}

fn assert_same_moves(pos: &Position, board: &Board) {
    if let Err(e) = compare_moves(pos, board) {
        panic!("{e}");
    }
}

/// `Err` naming the FEN and every differing move when the engine's and the reference's
/// legal move sets are not equal.
fn compare_moves(pos: &Position, board: &Board) -> Result<(), String> {
    let engine_moves = sorted_engine_moves(pos);
    let engine_set: BTreeSet<&str> = engine_moves.iter().map(String::as_str).collect();
    if engine_set.len() != engine_moves.len() {
        return Err(format!("engine generated a move twice in {}: {engine_moves:?}", pos.fen()));
    }
    let reference: Vec<String> = board.legal_moves().into_iter().map(uci).collect();
    let reference_set: BTreeSet<&str> = reference.iter().map(String::as_str).collect();
    let illegal: Vec<&&str> = engine_set.difference(&reference_set).collect();
    let missing: Vec<&&str> = reference_set.difference(&engine_set).collect();
    if illegal.is_empty() && missing.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "move sets differ in {}\n  generated but illegal: {illegal:?}\n  legal but not generated: {missing:?}",
            pos.fen()
        ))
    }
}

/// Plays `choices` (each picks one legal move by index, modulo the count) from `fen`,
/// checking every invariant at every ply. Stops early at a position without moves.
fn play_random_game(fen: &str, choices: &[u32]) -> Result<(), TestCaseError> {
    let mut pos = Position::from_fen(fen).map_err(|e| TestCaseError::fail(format!("{fen}: {e}")))?;
    let mut board = Board::from_fen(fen);
    for (ply, &choice) in choices.iter().enumerate() {
        let fen_before = pos.fen();
        let key_before = pos.key();
        prop_assert_eq!(board.fen(), fen_before.clone(), "reference and engine boards drifted at ply {}", ply);
        prop_assert_eq!(key_before, pos.compute_key(), "incremental key at ply {} in {}", ply, fen_before);

        let reparsed = Position::from_fen(&fen_before)
            .map_err(|e| TestCaseError::fail(format!("fen() of ply {ply} does not parse: {fen_before}: {e}")))?;
        prop_assert!(reparsed == pos, "FEN round trip changed the position: {}", fen_before);
        prop_assert_eq!(reparsed.key(), key_before, "FEN round trip changed the key of {}", fen_before);
        prop_assert_eq!(reparsed.fen(), fen_before.clone());

        compare_moves(&pos, &board).map_err(TestCaseError::fail)?;

        let moves = sorted_engine_moves(&pos);
        if moves.is_empty() {
            break;
        }
        let text = &moves[choice as usize % moves.len()];
        let m = pos.legal_moves().iter().copied().find(|m| m.to_string() == *text).expect("move just listed");
        let (from, to) = (parse_spot(&text[..2]), parse_spot(&text[2..]));

        pos.play_unchecked(m);
        prop_assert_eq!(pos.key(), pos.compute_key(), "incremental key after {} from {}", text, fen_before);
        prop_assert_eq!(pos.undo(), Some(m));
        prop_assert_eq!(pos.fen(), fen_before.clone(), "undo of {} did not restore the FEN", text);
        prop_assert_eq!(pos.key(), key_before, "undo of {} did not restore the key in {}", text, fen_before);

        pos.play_unchecked(m);
        board = board.after((from, to));
    }
    Ok(())
}

fn parse_spot(text: &str) -> Spot {
    let b = text.as_bytes();
    (i32::from(b[0] - b'a'), i32::from(b[1] - b'0'))
}

proptest! {
    // About 3 ms a game in the test profile: 2000 games of up to 150 plies take ~6 s.
    // No regression file: a failure message already names the FEN and the differing moves.
    #![proptest_config(ProptestConfig {
        cases: 2000,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    /// Random games from the start position and from every perft position.
    #[test]
    fn random_games_agree_with_reference(
        start in any::<prop::sample::Index>(),
        choices in prop::collection::vec(any::<u32>(), 0..150),
    ) {
        let starts = game_starts();
        play_random_game(&starts[start.index(starts.len())], &choices)?;
    }
}

/// Every start is exercised on each run, whatever the random draw picked.
#[test]
fn one_long_game_from_every_start() {
    let choices: Vec<u32> = (0..150u32).map(|i| i.wrapping_mul(2_654_435_761) >> 7).collect();
    for fen in game_starts() {
        if let Err(e) = play_random_game(&fen, &choices) {
            panic!("{fen}: {e}");
        }
    }
}
