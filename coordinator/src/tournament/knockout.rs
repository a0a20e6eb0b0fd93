//! Knockout brackets (淘汰赛): a seeded bracket and the rule that decides a tied match.
//!
//! - **Seeding:** the field is seeded by rating or by entry order (seed 1 first) and placed
//!   in the standard bracket for the next power of two: seeds 1 and 2 can meet only in the
//!   final, 1-4 only from the semi-finals, and so on (each round's pairs sum to size + 1).
//! - **Byes:** a field that is not a power of two is filled with byes, which go to the top
//!   seeds (the missing seeds above N); a bye wins its match as if every game were won.
//! - **Ties:** a tied match goes to extra colour-swapped pairs, up to a limit, then to one
//!   Armageddon game, in which a draw counts as a win for Black.

/// The first round's matches of a bracket of `players` seeds (1-based): pairs of seeds,
/// `None` for a bye, in bracket order (the winners of matches 2k and 2k+1 meet next).
pub fn first_round(players: usize) -> Vec<(usize, Option<usize>)> {
    let mut size = 1;
    while size < players {
        size *= 2;
    }
    let mut order = vec![1usize];
    while order.len() < size {
        let n = order.len() * 2;
        order = order.iter().flat_map(|&s| [s, n + 1 - s]).collect();
    }
    order.chunks(2).map(|c| (c[0], (c[1] <= players).then_some(c[1]))).collect()
}

/// What a match's score decides.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decision {
    /// The first (`true`) or the second player goes through.
    Through(bool),
    /// Tied: play another colour-swapped pair.
    ExtraPair,
    /// Tied after every extra pair: one Armageddon game.
    Armageddon,
}

/// The match between two players with these points so far, after `extra_pairs` extra pairs
/// of at most `max_extra`.
pub fn decide(points: (u32, u32), extra_pairs: u32, max_extra: u32) -> Decision {
    match points.0.cmp(&points.1) {
        std::cmp::Ordering::Greater => Decision::Through(true),
        std::cmp::Ordering::Less => Decision::Through(false),
        std::cmp::Ordering::Equal if extra_pairs < max_extra => Decision::ExtraPair,
        std::cmp::Ordering::Equal => Decision::Armageddon,
    }
}

/// The Armageddon game's winner from its result from Red's side (2, 1, 0): Red must win; a
/// draw goes to Black. Returns whether Red goes through.
pub fn armageddon_red_through(red_points: u32) -> bool {
    red_points == 2
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn standard_brackets() {
        assert_eq!(first_round(2), vec![(1, Some(2))]);
        assert_eq!(first_round(4), vec![(1, Some(4)), (2, Some(3))]);
        let eight: Vec<usize> = first_round(8).iter().flat_map(|&(a, b)| [a, b.expect("full")]).collect();
        assert_eq!(eight, vec![1, 8, 4, 5, 2, 7, 3, 6]);
    }

    #[test]
    fn seeds_1_and_2_are_in_opposite_halves_and_byes_go_to_the_top_seeds() {
        for n in 2..=64 {
            let r = first_round(n);
            let half = r.len() / 2;
            let find = |s: usize| r.iter().position(|&(a, b)| a == s || b == Some(s)).expect("placed");
            if n > 2 {
                assert!((find(1) < half) != (find(2) < half), "{n}: seeds 1 and 2 in one half");
            }
            let mut all: Vec<usize> = r.iter().flat_map(|&(a, b)| std::iter::once(a).chain(b)).collect();
            all.sort_unstable();
            assert_eq!(all, (1..=n).collect::<Vec<_>>(), "{n}: every seed once");
            let byes: Vec<usize> = r.iter().filter(|(_, b)| b.is_none()).map(|&(a, _)| a).collect();
            assert_eq!(
                byes,
                {
                    let mut top: Vec<usize> = (1..=r.len() * 2 - n).collect();
                    top.sort_by_key(|&s| find(s));
                    top
                },
                "{n}: the byes are the top seeds"
            );
        }
    }

    #[test]
    fn a_tie_goes_to_extra_pairs_then_armageddon_where_a_draw_is_blacks() {
        assert_eq!(decide((3, 1), 0, 2), Decision::Through(true));
        assert_eq!(decide((2, 2), 0, 2), Decision::ExtraPair);
        assert_eq!(decide((2, 2), 2, 2), Decision::Armageddon);
        assert!(armageddon_red_through(2));
        assert!(!armageddon_red_through(1));
    }
}
