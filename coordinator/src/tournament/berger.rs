//! Berger tables: the round-robin schedule FIDE publishes (Handbook C.05, annex 1), for any
//! number of players, as pure arithmetic.
//!
//! Players are numbered 1..=n by the order they were entered. With an odd n, player n + 1 is
//! a dummy: whoever meets it has the bye that round. With m = n - 1 (n even), round k
//! (1-based) starts at s = ((k - 1) * n / 2) mod m + 1:
//!
//! - board 1: s against n, s with Red in odd rounds, n with Red in even rounds;
//! - board b (2..=n/2): s + b - 1 (Red) against s - b + 1 (Black), both taken mod m into
//!   1..=m.
//!
//! That reproduces the published tables (4, 6 and 10 players in the tests) and gives every
//! pair exactly one meeting. A double round robin plays the table twice, colours swapped in
//! the second cycle.

/// One board of a round: player numbers (1-based), Red first. `black` is `None` for a bye.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Board {
    pub red: usize,
    pub black: Option<usize>,
}

/// The rounds of a single (`cycles` = 1) or double (2) round robin of `players` players.
/// Empty for fewer than two players.
pub fn rounds(players: usize, cycles: usize) -> Vec<Vec<Board>> {
    if players < 2 {
        return Vec::new();
    }
    let n = players + players % 2;
    let m = n - 1;
    let wrap = |x: isize| -> usize { (x - 1).rem_euclid(m as isize) as usize + 1 };
    let mut single = Vec::with_capacity(m);
    for k in 1..=m {
        let s = ((k - 1) * n / 2) % m + 1;
        let mut boards = Vec::with_capacity(n / 2);
        let first = if k % 2 == 1 { (s, n) } else { (n, s) };
        boards.push(first);
        for b in 2..=n / 2 {
            let red = wrap(s as isize + b as isize - 1);
            let black = wrap(s as isize - b as isize + 1);
            boards.push((red, black));
        }
        single.push(boards);
    }
    let board = |(red, black): (usize, usize)| -> Board {
        // The dummy player's opponent has the bye, listed as Red.
        if red > players {
            Board { red: black, black: None }
        } else if black > players {
            Board { red, black: None }
        } else {
            Board { red, black: Some(black) }
        }
    };
    let mut out = Vec::with_capacity(m * cycles);
    for cycle in 0..cycles {
        for round in &single {
            out.push(round.iter().map(|&(r, b)| if cycle % 2 == 1 { board((b, r)) } else { board((r, b)) }).collect());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(players: usize) -> Vec<Vec<(usize, usize)>> {
        rounds(players, 1).into_iter().map(|r| r.into_iter().map(|b| (b.red, b.black.unwrap_or(0))).collect()).collect()
    }

    #[test]
    fn the_published_tables_for_4_6_and_10() {
        assert_eq!(table(4), vec![vec![(1, 4), (2, 3)], vec![(4, 3), (1, 2)], vec![(2, 4), (3, 1)]]);
        assert_eq!(
            table(6),
            vec![
                vec![(1, 6), (2, 5), (3, 4)],
                vec![(6, 4), (5, 3), (1, 2)],
                vec![(2, 6), (3, 1), (4, 5)],
                vec![(6, 5), (1, 4), (2, 3)],
                vec![(3, 6), (4, 2), (5, 1)],
            ]
        );
        let ten = table(10);
        assert_eq!(ten[0], vec![(1, 10), (2, 9), (3, 8), (4, 7), (5, 6)]);
        assert_eq!(ten[1], vec![(10, 6), (7, 5), (8, 4), (9, 3), (1, 2)]);
        assert_eq!(ten[2], vec![(2, 10), (3, 1), (4, 9), (5, 8), (6, 7)]);
        assert_eq!(ten[8], vec![(5, 10), (6, 4), (7, 3), (8, 2), (9, 1)]);
    }

    #[test]
    fn five_players_use_the_six_player_table_with_byes() {
        // Player 6 of the six-player table is the bye.
        assert_eq!(table(5)[0], vec![(1, 0), (2, 5), (3, 4)]);
        assert_eq!(table(5)[1], vec![(4, 0), (5, 3), (1, 2)]);
    }

    #[test]
    fn every_pair_meets_once_per_cycle_and_everyone_plays_each_round_up_to_30() {
        for n in 2..=30 {
            let rs = rounds(n, 2);
            let per_cycle = n - 1 + n % 2;
            assert_eq!(rs.len(), 2 * per_cycle, "{n}");
            let mut met = std::collections::HashMap::new();
            let mut byes = vec![0; n + 1];
            for (i, r) in rs.iter().enumerate() {
                let mut seen = vec![false; n + 1];
                for b in r {
                    for p in [Some(b.red), b.black].into_iter().flatten() {
                        assert!((1..=n).contains(&p), "{n}: player {p}");
                        assert!(!seen[p], "{n} round {i}: {p} twice");
                        seen[p] = true;
                    }
                    match b.black {
                        Some(black) => *met.entry((b.red.min(black), b.red.max(black))).or_insert(0) += 1,
                        None => byes[b.red] += 1,
                    }
                }
                assert!(seen[1..].iter().all(|&s| s), "{n} round {i}: someone missing");
            }
            assert_eq!(met.len(), n * (n - 1) / 2, "{n}: every pair");
            assert!(met.values().all(|&c| c == 2), "{n}: twice in a double round robin");
            let expected_byes = if n % 2 == 1 { 2 } else { 0 };
            assert!(byes[1..].iter().all(|&b| b == expected_byes), "{n}: byes {byes:?}");
        }
    }

    #[test]
    fn the_second_cycle_swaps_colours() {
        let rs = rounds(4, 2);
        assert_eq!(rs[3][0], Board { red: 4, black: Some(1) });
        assert_eq!(rs[0][0], Board { red: 1, black: Some(4) });
    }
}
