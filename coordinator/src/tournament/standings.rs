//! Points and tiebreaks by the Chinese rules: each game scores 2 for a win, 1 for a draw and
//! 0 for a loss; a bye scores as winning every game of its match. Pure functions over the
//! games played, so the coordinator's table can be recomputed from Parquet and compared.
//!
//! Tiebreaks, applied in the order given (the usual Xiangqi order is the default):
//! - `buchholz`: the sum of the final points of every opponent met, once per game (a bye has
//!   no opponent and adds nothing);
//! - `progressive`: the sum, over rounds, of the player's points after that round;
//! - `wins`: games won (a bye's games count as won);
//! - `head-to-head`: points scored in games between the players still tied on everything
//!   before it;
//! - `sonneborn-berger`: over every game, the points scored in it times the opponent's final
//!   points, halved (a win counts the opponent's points, a draw half of them).

use std::collections::BTreeMap;

pub use proto::domain::Tiebreak;

/// Points of a won, drawn and lost game.
pub const WIN: u32 = 2;
pub const DRAW: u32 = 1;

/// One game of the tournament: players by number, Red's points (2, 1 or 0).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Game {
    pub round: u32,
    pub red: usize,
    pub black: usize,
    pub red_points: u32,
}

/// A bye: `games` games of a match scored as won.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bye {
    pub round: u32,
    pub player: usize,
    pub games: u32,
}

/// One line of the standings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Standing {
    pub player: usize,
    /// 1-based; players tied on points and every tiebreak share a rank.
    pub rank: usize,
    pub points: u32,
    pub games: u32,
    pub wins: u32,
    pub draws: u32,
    /// The tiebreaks' values, in the order asked for (Sonneborn-Berger doubled, to stay whole).
    pub tiebreaks: Vec<u32>,
}

/// The standings of `players` players (numbered 0..players) after `games` and `byes`, best
/// first.
pub fn standings(players: usize, games: &[Game], byes: &[Bye], order: &[Tiebreak]) -> Vec<Standing> {
    let mut points = vec![0u32; players];
    let mut played = vec![0u32; players];
    let mut wins = vec![0u32; players];
    let mut draws = vec![0u32; players];
    let mut by_round: BTreeMap<u32, Vec<u32>> = BTreeMap::new();
    let mut add = |round: u32, p: usize, pts: u32| {
        by_round.entry(round).or_insert_with(|| vec![0; players])[p] += pts;
    };
    for g in games {
        let black_points = 2 * DRAW - g.red_points;
        for (p, pts) in [(g.red, g.red_points), (g.black, black_points)] {
            points[p] += pts;
            played[p] += 1;
            wins[p] += u32::from(pts == WIN);
            draws[p] += u32::from(pts == DRAW);
            add(g.round, p, pts);
        }
    }
    for b in byes {
        points[b.player] += WIN * b.games;
        played[b.player] += b.games;
        wins[b.player] += b.games;
        add(b.round, b.player, WIN * b.games);
    }
    let value = |t: Tiebreak, p: usize| -> u32 {
        match t {
            Tiebreak::Buchholz => games
                .iter()
                .filter_map(|g| (g.red == p).then_some(g.black).or((g.black == p).then_some(g.red)))
                .map(|o| points[o])
                .sum(),
            Tiebreak::Progressive => {
                let mut running = 0;
                by_round
                    .values()
                    .map(|r| {
                        running += r[p];
                        running
                    })
                    .sum()
            }
            Tiebreak::Wins => wins[p],
            Tiebreak::SonnebornBerger => games
                .iter()
                .filter_map(|g| {
                    if g.red == p {
                        Some(g.red_points * points[g.black])
                    } else if g.black == p {
                        Some((2 * DRAW - g.red_points) * points[g.red])
                    } else {
                        None
                    }
                })
                .sum(),
            // Needs the group; computed below.
            Tiebreak::HeadToHead => 0,
        }
    };
    let mut lines: Vec<Standing> = (0..players)
        .map(|p| Standing {
            player: p,
            rank: 0,
            points: points[p],
            games: played[p],
            wins: wins[p],
            draws: draws[p],
            tiebreaks: order.iter().map(|&t| value(t, p)).collect(),
        })
        .collect();
    // Head-to-head among the players tied on points and every tiebreak before it.
    for (i, &t) in order.iter().enumerate() {
        if t != Tiebreak::HeadToHead {
            continue;
        }
        let key = |s: &Standing| (s.points, s.tiebreaks[..i].to_vec());
        let mut groups: BTreeMap<(u32, Vec<u32>), Vec<usize>> = BTreeMap::new();
        for s in &lines {
            groups.entry(key(s)).or_default().push(s.player);
        }
        for group in groups.values().filter(|g| g.len() > 1) {
            for &p in group {
                let h2h: u32 = games
                    .iter()
                    .filter_map(|g| {
                        if g.red == p && group.contains(&g.black) {
                            Some(g.red_points)
                        } else if g.black == p && group.contains(&g.red) {
                            Some(2 * DRAW - g.red_points)
                        } else {
                            None
                        }
                    })
                    .sum();
                lines[p].tiebreaks[i] = h2h;
            }
        }
    }
    lines.sort_by(|a, b| (b.points, &b.tiebreaks).cmp(&(a.points, &a.tiebreaks)).then(a.player.cmp(&b.player)));
    for i in 0..lines.len() {
        lines[i].rank =
            if i > 0 && (lines[i].points, &lines[i].tiebreaks) == (lines[i - 1].points, &lines[i - 1].tiebreaks) {
                lines[i - 1].rank
            } else {
                i + 1
            };
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    fn g(round: u32, red: usize, black: usize, red_points: u32) -> Game {
        Game { round, red, black, red_points }
    }

    /// A four-player, three-round example worked by hand (one game a match for clarity):
    /// round 1: A 2-0 D, B 1-1 C; round 2: A 1-1 C, D 2-0 B; round 3: A 0-2 B, C 2-0 D.
    /// Points: A 3, B 3, C 4, D 2.
    fn example() -> Vec<Game> {
        vec![g(1, 0, 3, 2), g(1, 1, 2, 1), g(2, 0, 2, 1), g(2, 3, 1, 2), g(3, 0, 1, 0), g(3, 2, 3, 2)]
    }

    #[test]
    fn points_and_every_tiebreak_by_hand() {
        let s = standings(4, &example(), &[], Tiebreak::ALL);
        let by_player = |p: usize| s.iter().find(|l| l.player == p).expect("a line").clone();
        // C first with 4 points.
        assert_eq!(s[0].player, 2);
        assert_eq!(by_player(2).points, 4);
        // A: opponents D 2, C 4, B 3 -> Buchholz 9; after rounds 2, 3, 3 -> progressive 8;
        // wins 1; SB = 2*2 (beat D) + 1*4 (drew C) + 0*3 = 8.
        assert_eq!(by_player(0).tiebreaks, vec![9, 8, 1, 0, 8]);
        // B: opponents C 4, D 2, A 3 -> 9; after rounds 1, 1, 3 -> 5; wins 1;
        // head-to-head with A (tied on 3 and on Buchholz, but not on progressive) is not
        // reached: it stays 0. SB = 1*4 + 0*2 + 2*3 = 10.
        assert_eq!(by_player(1).tiebreaks, vec![9, 5, 1, 0, 10]);
        // A ahead of B by progressive score.
        let order: Vec<usize> = s.iter().map(|l| l.player).collect();
        assert_eq!(order, vec![2, 0, 1, 3]);
    }

    #[test]
    fn head_to_head_decides_between_the_players_still_tied() {
        let s = standings(4, &example(), &[], &[Tiebreak::HeadToHead, Tiebreak::Buchholz]);
        // A and B are tied on 3; B beat A in round 3, so B is ahead.
        let order: Vec<usize> = s.iter().map(|l| l.player).collect();
        assert_eq!(order, vec![2, 1, 0, 3]);
        assert_eq!(s[1].tiebreaks[0], 2);
        assert_eq!(s[2].tiebreaks[0], 0);
    }

    #[test]
    fn a_bye_scores_every_game_of_its_match_as_won_and_adds_no_opponent() {
        let games = [g(1, 0, 1, 1), g(1, 1, 0, 1)];
        let byes = [Bye { round: 1, player: 2, games: 2 }];
        let s = standings(3, &games, &byes, &[Tiebreak::Buchholz, Tiebreak::Wins]);
        assert_eq!(s[0].player, 2);
        assert_eq!((s[0].points, s[0].games, s[0].wins), (4, 2, 2));
        assert_eq!(s[0].tiebreaks, vec![0, 2]);
        // A and B drew both games: equal on everything, one shared rank.
        assert_eq!((s[1].rank, s[2].rank), (2, 2));
    }
}
