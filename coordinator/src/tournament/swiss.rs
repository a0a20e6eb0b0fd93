//! Swiss pairing (瑞士移位), as Xiangqi competitions pair it: after each round the players are
//! ranked by the standings (points, then the tiebreaks, then the entry order), and each
//! player meets the highest-ranked player below it that it has not met yet, so that players
//! of equal score meet wherever the field allows (adjacent pairing within score groups, the
//! way Chinese arbiters pair 积分编排, rather than FIDE's top-half-against-bottom-half).
//!
//! - **No rematch:** two players meet at most once. When adjacent pairing would leave someone
//!   without a legal opponent, earlier choices are revised (depth-first, in rank order), so
//!   a pairing is found whenever one exists.
//! - **Bye:** with an odd field the lowest-ranked player who has not had a bye sits out, and
//!   scores the match as won (every game of it); no player gets a second bye. If the others
//!   cannot then be paired, the next player up takes the bye.
//! - **Colours:** the higher-ranked player is listed first (Red in the first game); every
//!   match is played as colour-swapped pairs, so colours need no further balancing.
//! - **Rounds:** at most N - 1 (with a bye, N players still meet at most N - 1 others); a
//!   longer Swiss is refused, and a round that cannot be paired without a rematch is an
//!   error naming the round.

use std::collections::HashSet;

/// One round's pairing: matches (higher-ranked first) and the bye.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pairing {
    pub matches: Vec<(usize, usize)>,
    pub bye: Option<usize>,
}

/// Pairs the players in `ranked` (best first), avoiding the pairs in `met` (either order)
/// and giving the bye only to a player not in `had_bye`. `None` when no such pairing exists.
pub fn pair(ranked: &[usize], met: &HashSet<(usize, usize)>, had_bye: &HashSet<usize>) -> Option<Pairing> {
    let met = |a: usize, b: usize| met.contains(&(a, b)) || met.contains(&(b, a));
    if ranked.len().is_multiple_of(2) {
        let matches = pair_all(ranked, &met)?;
        return Some(Pairing { matches, bye: None });
    }
    for (i, &p) in ranked.iter().enumerate().rev() {
        if had_bye.contains(&p) {
            continue;
        }
        let rest: Vec<usize> = ranked.iter().enumerate().filter(|&(j, _)| j != i).map(|(_, &q)| q).collect();
        if let Some(matches) = pair_all(&rest, &met) {
            return Some(Pairing { matches, bye: Some(p) });
        }
    }
    None
}

/// Depth first: the first unpaired player against each lower-ranked one it has not met.
fn pair_all(ranked: &[usize], met: &impl Fn(usize, usize) -> bool) -> Option<Vec<(usize, usize)>> {
    let Some((&first, rest)) = ranked.split_first() else { return Some(Vec::new()) };
    for (i, &other) in rest.iter().enumerate() {
        if met(first, other) {
            continue;
        }
        let left: Vec<usize> = rest.iter().enumerate().filter(|&(j, _)| j != i).map(|(_, &q)| q).collect();
        if let Some(mut tail) = pair_all(&left, met) {
            tail.insert(0, (first, other));
            return Some(tail);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adjacent_players_meet_and_rematches_are_avoided() {
        let (none, no_bye) = (HashSet::new(), HashSet::new());
        let p = pair(&[0, 1, 2, 3], &none, &no_bye).expect("pairs");
        assert_eq!(p, Pairing { matches: vec![(0, 1), (2, 3)], bye: None });
        // 0 has met 1: 0 takes 2, and 1 meets 3.
        let met: HashSet<_> = [(1, 0)].into_iter().collect();
        let p = pair(&[0, 1, 2, 3], &met, &no_bye).expect("pairs");
        assert_eq!(p.matches, vec![(0, 2), (1, 3)]);
        // 2-3 met: adjacent 0-1 would leave 2-3, so the first choice is revised.
        let met: HashSet<_> = [(2, 3)].into_iter().collect();
        let p = pair(&[0, 1, 2, 3], &met, &no_bye).expect("pairs");
        assert_eq!(p.matches, vec![(0, 2), (1, 3)]);
    }

    #[test]
    fn the_bye_goes_to_the_lowest_ranked_player_without_one() {
        let (none, no_bye) = (HashSet::new(), HashSet::new());
        assert_eq!(pair(&[4, 3, 2, 1, 0], &none, &no_bye).expect("pairs").bye, Some(0));
        let had: HashSet<_> = [0].into_iter().collect();
        let p = pair(&[4, 3, 2, 1, 0], &none, &had).expect("pairs");
        assert_eq!(p.bye, Some(1));
        assert_eq!(p.matches, vec![(4, 3), (2, 0)]);
    }

    #[test]
    fn no_pairing_when_everyone_has_met() {
        let met: HashSet<_> = [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)].into_iter().collect();
        assert_eq!(pair(&[0, 1, 2, 3], &met, &HashSet::new()), None);
    }

    /// Over random results (a random ranking each round), for fields of 3 to 14 players and
    /// up to N/2 rounds (where a pairing always exists: each player still has at least N/2
    /// unmet opponents), no pair meets twice and nobody has two byes.
    #[test]
    fn random_swisses_never_repeat_a_pairing_or_a_bye() {
        let mut rng = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move |n: usize| {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            (rng % n as u64) as usize
        };
        for trial in 0..300 {
            let n = 3 + trial % 12;
            let mut met = HashSet::new();
            let mut had_bye = HashSet::new();
            for round in 0..n / 2 {
                let mut ranked: Vec<usize> = (0..n).collect();
                for i in (1..n).rev() {
                    ranked.swap(i, next(i + 1));
                }
                let p = pair(&ranked, &met, &had_bye).unwrap_or_else(|| panic!("n {n} round {round}: no pairing"));
                let mut seen: HashSet<usize> = p.bye.into_iter().collect();
                for &(a, b) in &p.matches {
                    assert!(!met.contains(&(a, b)) && !met.contains(&(b, a)), "n {n}: {a}-{b} again");
                    met.insert((a, b));
                    assert!(seen.insert(a) && seen.insert(b), "n {n}: someone twice in a round");
                }
                assert_eq!(seen.len(), n, "n {n}: everyone plays or has the bye");
                if let Some(b) = p.bye {
                    assert!(had_bye.insert(b), "n {n}: a second bye for {b}");
                }
            }
        }
    }
}
