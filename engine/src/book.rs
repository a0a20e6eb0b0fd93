//! The opening book: for positions of the farm's games, the moves played there with their
//! counts and results, merged with their mirror images, and the move the engine picks.
//!
//! A book is built by [`BookBuilder`] (from games: a start, moves and a result), saved as an
//! `.xqb` file (format below, and in `engine/BOOK.md`) and probed with [`Book::moves`].
//!
//! File, little-endian: magic `XQBK`, version (u32, 1), the number of entries (u64), then the
//! entries sorted by key and move, each 26 bytes: the position key (u64: the smaller of the
//! Zobrist keys of the position and of its mirror image), the move in that orientation (u16,
//! `Move::raw`; in a position that is its own mirror image, the smaller of a move and its
//! image), and the games, wins, draws and losses of the side that played it (u32 each);
//! last the FNV-1a 64 of every byte before it.

use std::collections::HashMap;
use std::path::Path;

use crate::error::{Error, Result};
use crate::position::Position;
use crate::position::zobrist;
use crate::rules::GameResult;
use crate::tablebase::file::fnv1a;
use crate::types::{Color, Move};

const MAGIC: &[u8; 4] = b"XQBK";
const VERSION: u32 = 1;
const ENTRY: usize = 26;

/// A book move with what the farm's games did after it, from the mover's side.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BookMove {
    pub mv: Move,
    pub games: u32,
    pub wins: u32,
    pub draws: u32,
    pub losses: u32,
}

impl BookMove {
    /// The pick weight, as ElephantEye weighs its book: 3 per win, 1 per draw, -1 per loss,
    /// at least 0.
    pub fn weight(&self) -> u64 {
        (3 * u64::from(self.wins) + u64::from(self.draws)).saturating_sub(u64::from(self.losses))
    }

    /// The mover's score in the games with a known result, 0..1 (0.5 with none).
    pub fn score(&self) -> f64 {
        let scored = u64::from(self.wins) + u64::from(self.draws) + u64::from(self.losses);
        if scored == 0 {
            return 0.5;
        }
        (f64::from(self.wins) + 0.5 * f64::from(self.draws)) / scored as f64
    }
}

/// The key of the mirror image of `pos` (files reflected).
fn mirror_key(pos: &Position) -> u64 {
    let mut key = zobrist::side(pos.side_to_move());
    for sq in pos.occupied() {
        if let Some(p) = pos.piece_at(sq) {
            key ^= zobrist::piece_square(p, sq.mirror());
        }
    }
    key
}

fn mirror_move(m: Move) -> Move {
    Move::new(m.from().mirror(), m.to().mirror())
}

trait MinByRaw {
    fn min_by_raw(self, other: Move) -> Move;
}

impl MinByRaw for Move {
    fn min_by_raw(self, other: Move) -> Move {
        if other.raw() < self.raw() { other } else { self }
    }
}

/// The book key of `pos`, and whether moves are stored mirrored.
fn book_key(pos: &Position) -> (u64, bool) {
    let (k, mk) = (pos.key(), mirror_key(pos));
    if mk < k { (mk, true) } else { (k, false) }
}

#[derive(Clone, Copy, Debug, Default)]
struct Counts {
    games: u32,
    wins: u32,
    draws: u32,
    losses: u32,
}

/// Collects the moves of games up to a ply.
#[derive(Debug)]
pub struct BookBuilder {
    max_ply: usize,
    entries: HashMap<(u64, u16), Counts>,
    games: u64,
}

impl BookBuilder {
    /// Counts the first `max_ply` moves of each game.
    pub fn new(max_ply: usize) -> BookBuilder {
        BookBuilder { max_ply, entries: HashMap::new(), games: 0 }
    }

    /// Adds one game: `moves` from `start`, ended with `result`. The game's moves must be
    /// legal (they are the farm's refereed games); the first that is not ends the game here,
    /// and the error names it.
    pub fn add_game(&mut self, start: &Position, moves: &[Move], result: GameResult) -> Result<()> {
        self.add_game_from_ply(start, 0, moves, result)
    }

    /// Adds the players' part of a game that began `first_ply` plies before `start`, on moves
    /// the players did not choose (an opening suite's line): only `moves` count, and only
    /// while the game's ply stays below `max_ply`.
    pub fn add_game_from_ply(
        &mut self,
        start: &Position,
        first_ply: usize,
        moves: &[Move],
        result: GameResult,
    ) -> Result<()> {
        let mut pos = start.clone();
        self.games += 1;
        for (ply, &m) in moves.iter().enumerate().take(self.max_ply.saturating_sub(first_ply)) {
            if !pos.is_legal_move(m) {
                return Err(Error::Book {
                    what: format!("game {} from {}", self.games, start.fen()),
                    reason: format!("move {} `{m}` is illegal", ply + 1),
                });
            }
            let (key, mirrored) = book_key(&pos);
            let stored = if mirrored { mirror_move(m) } else { m };
            // A position that is its own mirror image keeps one of a move and its image.
            let stored = if pos.key() == mirror_key(&pos) { stored.min_by_raw(mirror_move(stored)) } else { stored };
            let c = self.entries.entry((key, stored.raw())).or_default();
            c.games += 1;
            let mover = pos.side_to_move();
            match (result, mover) {
                (GameResult::Draw, _) => c.draws += 1,
                (GameResult::RedWins, Color::Red) | (GameResult::BlackWins, Color::Black) => c.wins += 1,
                (GameResult::RedWins, Color::Black) | (GameResult::BlackWins, Color::Red) => c.losses += 1,
                // A game recorded without its result (an imported archive's `*`): its move counts,
                // with no score.
                (GameResult::Ongoing, _) => {}
            }
            pos.play_unchecked(m);
        }
        Ok(())
    }

    pub fn games(&self) -> u64 {
        self.games
    }

    /// The book, dropping moves played fewer than `min_games` times.
    pub fn finish(self, min_games: u32) -> Book {
        let mut entries: Vec<(u64, u16, Counts)> =
            self.entries.into_iter().filter(|(_, c)| c.games >= min_games).map(|((k, m), c)| (k, m, c)).collect();
        entries.sort_unstable_by_key(|&(k, m, _)| (k, m));
        Book { entries }
    }
}

/// A book in memory.
#[derive(Clone, Debug, Default)]
pub struct Book {
    entries: Vec<(u64, u16, Counts)>,
}

impl Book {
    /// Entries (position, move) in the book.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Distinct positions in the book.
    pub fn positions(&self) -> usize {
        let mut n = 0;
        let mut last = None;
        for &(k, _, _) in &self.entries {
            if last != Some(k) {
                n += 1;
                last = Some(k);
            }
        }
        n
    }

    /// The book's legal moves in `pos`, most played first. A move whose position after it
    /// already occurred in `pos`'s history is left out (a book never repeats a position).
    pub fn moves(&self, pos: &Position) -> Vec<BookMove> {
        let (key, mirrored) = book_key(pos);
        let start = self.entries.partition_point(|&(k, _, _)| k < key);
        let seen: Vec<u64> = pos.history().iter().map(|s| s.key).chain([pos.key()]).collect();
        let mut out: Vec<BookMove> = self.entries[start..]
            .iter()
            .take_while(|&&(k, _, _)| k == key)
            .filter_map(|&(_, raw, c)| {
                let m = Move::from_raw(raw)?;
                let mv = if mirrored { mirror_move(m) } else { m };
                (pos.is_legal_move(mv) && !seen.contains(&pos.key_after(mv))).then_some(BookMove {
                    mv,
                    games: c.games,
                    wins: c.wins,
                    draws: c.draws,
                    losses: c.losses,
                })
            })
            .collect();
        out.sort_by(|a, b| b.games.cmp(&a.games).then(a.mv.raw().cmp(&b.mv.raw())));
        out
    }

    /// A move picked at random by weight (`random` uniform in 0..1), or `None` when the book
    /// has no move of positive weight here.
    pub fn pick(&self, pos: &Position, random: f64) -> Option<BookMove> {
        let moves = self.moves(pos);
        let total: u64 = moves.iter().map(BookMove::weight).sum();
        if total == 0 {
            return None;
        }
        let mut target = (random.clamp(0.0, 1.0 - f64::EPSILON) * total as f64) as u64;
        for m in moves {
            if target < m.weight() {
                return Some(m);
            }
            target -= m.weight();
        }
        None
    }

    /// The file's bytes.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(24 + self.entries.len() * ENTRY);
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&VERSION.to_le_bytes());
        out.extend_from_slice(&(self.entries.len() as u64).to_le_bytes());
        for &(k, m, c) in &self.entries {
            out.extend_from_slice(&k.to_le_bytes());
            out.extend_from_slice(&m.to_le_bytes());
            for n in [c.games, c.wins, c.draws, c.losses] {
                out.extend_from_slice(&n.to_le_bytes());
            }
        }
        let sum = fnv1a(&out);
        out.extend_from_slice(&sum.to_le_bytes());
        out
    }

    /// Reads a book file's bytes; `what` names the file in errors.
    pub fn decode(bytes: &[u8], what: &str) -> Result<Book> {
        let bad = |reason: String| Error::Book { what: what.to_owned(), reason };
        if bytes.len() < 24 || !bytes.starts_with(MAGIC) {
            return Err(bad("not a book file (no XQBK header)".into()));
        }
        let (body, sum) = bytes.split_at(bytes.len() - 8);
        if fnv1a(body).to_le_bytes() != sum {
            return Err(bad("checksum mismatch: the file is damaged".into()));
        }
        let word = |at: usize| -> [u8; 4] { [body[at], body[at + 1], body[at + 2], body[at + 3]] };
        let version = u32::from_le_bytes(word(4));
        if version != VERSION {
            return Err(bad(format!("format version {version}, this build reads {VERSION}")));
        }
        let n = u64::from_le_bytes([body[8], body[9], body[10], body[11], body[12], body[13], body[14], body[15]]);
        let expected =
            16u64.checked_add(n.checked_mul(ENTRY as u64).ok_or_else(|| bad("entry count overflows".into()))?);
        if expected != Some(body.len() as u64) {
            return Err(bad(format!("{n} entries do not fit {} bytes", body.len())));
        }
        let mut entries = Vec::with_capacity(n as usize);
        for e in body[16..].chunks_exact(ENTRY) {
            let k = u64::from_le_bytes([e[0], e[1], e[2], e[3], e[4], e[5], e[6], e[7]]);
            let m = u16::from_le_bytes([e[8], e[9]]);
            let n = |at: usize| u32::from_le_bytes([e[at], e[at + 1], e[at + 2], e[at + 3]]);
            entries.push((k, m, Counts { games: n(10), wins: n(14), draws: n(18), losses: n(22) }));
        }
        if !entries.windows(2).all(|w| (w[0].0, w[0].1) < (w[1].0, w[1].1)) {
            return Err(bad("entries are not sorted".into()));
        }
        Ok(Book { entries })
    }

    /// Reads a book file.
    pub fn open(path: &Path) -> Result<Book> {
        let bytes =
            std::fs::read(path).map_err(|e| Error::Book { what: path.display().to_string(), reason: e.to_string() })?;
        Book::decode(&bytes, &path.display().to_string())
    }

    /// Writes the book atomically (a `.tmp` file renamed).
    pub fn save(&self, path: &Path) -> Result<()> {
        let io = |e: std::io::Error| Error::Book { what: path.display().to_string(), reason: e.to_string() };
        let tmp = path.with_extension("xqb.tmp");
        std::fs::write(&tmp, self.encode()).map_err(io)?;
        std::fs::rename(&tmp, path).map_err(io)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notation::parse_uci;

    fn line(moves: &str) -> Vec<Move> {
        moves.split_whitespace().map(|m| parse_uci(m).expect("uci")).collect()
    }

    #[test]
    fn counts_merge_mirror_images_and_drop_rare_moves() {
        let start = Position::startpos();
        let mut b = BookBuilder::new(4);
        // Central cannon from the right (h2e2) and from the left (b2e2): mirror images.
        b.add_game(&start, &line("h2e2 h9g7 h0g2"), GameResult::RedWins).expect("legal");
        b.add_game(&start, &line("b2e2 b9c7 b0c2"), GameResult::Draw).expect("legal");
        b.add_game(&start, &line("h2e2 b9c7"), GameResult::BlackWins).expect("legal");
        b.add_game(&start, &line("c3c4"), GameResult::RedWins).expect("legal");
        let book = b.finish(2);
        let moves = book.moves(&start);
        // h2e2 and its mirror b2e2 are one entry of 3 games; c3c4 (1 game) is dropped.
        assert_eq!(moves.len(), 1, "{moves:?}");
        let m = moves[0];
        assert_eq!((m.games, m.wins, m.draws, m.losses), (3, 1, 1, 1));
        assert!(["h2e2", "b2e2"].contains(&m.mv.to_string().as_str()));
        assert_eq!(m.weight(), 3);
        // After b2e2, Black's reply is found through the mirror: b9c7 is h9g7's image.
        let mut pos = start.clone();
        pos.try_play(parse_uci("b2e2").expect("uci")).expect("legal");
        let replies = book.moves(&pos);
        // Game 1's h9g7 after h2e2 and game 2's b9c7 after b2e2 are one entry (2 games);
        // game 3's b9c7 after h2e2 is another, dropped (1 game).
        assert_eq!(replies.len(), 1, "{replies:?}");
        assert_eq!(replies[0].games, 2);
        assert_eq!(replies[0].mv.to_string(), "b9c7");
        assert!(pos.is_legal_move(replies[0].mv));

        let again = Book::decode(&book.encode(), "b.xqb").expect("round trip");
        assert_eq!(again.moves(&start), moves);
        let mut damaged = book.encode();
        damaged[20] ^= 1;
        assert!(Book::decode(&damaged, "b.xqb").expect_err("damaged").to_string().contains("b.xqb"));
    }

    #[test]
    fn a_game_without_a_result_counts_its_moves_without_a_score() {
        let start = Position::startpos();
        let mut b = BookBuilder::new(2);
        b.add_game(&start, &line("h2e2 h9g7"), GameResult::RedWins).expect("legal");
        b.add_game(&start, &line("h2e2 h9g7"), GameResult::Ongoing).expect("legal");
        b.add_game(&start, &line("h2e2 b9c7"), GameResult::Ongoing).expect("legal");
        let book = b.finish(1);
        let m = book.moves(&start)[0];
        assert_eq!((m.games, m.wins, m.draws, m.losses), (3, 1, 0, 0));
        // The score is over the one game with a result, not diluted by the other two.
        assert_eq!(m.score(), 1.0);
        assert_eq!(m.weight(), 3);
    }

    #[test]
    fn picks_by_weight_and_never_repeats_a_position() {
        let start = Position::startpos();
        let mut b = BookBuilder::new(8);
        for _ in 0..3 {
            b.add_game(&start, &line("h0g2 h9g7 g2h0 g7h9 h0g2"), GameResult::RedWins).expect("legal");
        }
        let book = b.finish(1);
        let first = book.pick(&start, 0.3).map(|m| m.mv.to_string());
        assert!(matches!(first.as_deref(), Some("h0g2" | "b0c2")), "{first:?}");
        // Black's moves lost every game: weight 0, never picked.
        let mut pos = start.clone();
        pos.try_play(parse_uci("h0g2").expect("uci")).expect("legal");
        assert_eq!(book.moves(&pos).len(), 1);
        assert_eq!(book.pick(&pos, 0.5), None);

        // After h2e2 h9g7 h0g2 g7h9 g2h0 the position after h2e2 is back: the book's h9g7
        // would repeat the position after the second move, so it is not offered.
        let mut b = BookBuilder::new(8);
        b.add_game(&start, &line("h2e2 h9g7 h0g2 g7h9 g2h0 h9g7"), GameResult::Draw).expect("legal");
        let book = b.finish(1);
        let mut pos = start.clone();
        pos.try_play(parse_uci("h2e2").expect("uci")).expect("legal");
        assert_eq!(book.moves(&pos).iter().map(|m| m.mv.to_string()).collect::<Vec<_>>(), ["h9g7"]);
        for m in line("h9g7 h0g2 g7h9 g2h0") {
            pos.try_play(m).expect("legal");
        }
        assert!(book.moves(&pos).is_empty(), "{:?}", book.moves(&pos));
    }

    #[test]
    fn an_opening_lines_plies_are_not_counted_and_use_up_the_ply_limit() {
        let start = Position::startpos();
        // The suite played h2e2 h9g7; the players went on with h0g2 i9h9 i0h0.
        let mut after_suite = start.clone();
        for m in line("h2e2 h9g7") {
            after_suite.try_play(m).expect("legal");
        }
        let mut b = BookBuilder::new(4);
        b.add_game_from_ply(&after_suite, 2, &line("h0g2 i9h9 i0h0"), GameResult::RedWins).expect("legal");
        let book = b.finish(1);
        // Nothing of the suite's line: the start position has no book move.
        assert!(book.moves(&start).is_empty());
        // Plies 3 and 4 are counted, ply 5 is past --max-ply 4.
        assert_eq!(book.moves(&after_suite).iter().map(|m| m.mv.to_string()).collect::<Vec<_>>(), ["h0g2"]);
        assert_eq!(book.positions(), 2);
    }
}
