//! Tournaments (seed 003): a run of N variants played in rounds of matches, scored by the
//! Chinese rules (2 a win, 1 a draw, 0 a loss, per game) and ranked by configurable
//! tiebreaks. The settings are part of the run's spec; the draw of each round is the
//! coordinator's (`coordinator::tournament`), made when the round before it is complete.

use super::names::closed_set;
use crate::error::{Error, Result};

closed_set! {
    /// How a tournament pairs its rounds.
    pub enum TournamentFormat ("tournament format") {
        /// 循环赛: every player meets every other, by the Berger tables; `rounds` is the
        /// number of cycles (1 single, 2 double).
        RoundRobin = "round-robin" | "round_robin",
        /// 瑞士移位: `rounds` rounds paired by score, no rematch, one bye at most per player.
        Swiss = "swiss",
        /// 淘汰赛: a seeded bracket (seed = the order of the variants); ties go to extra
        /// pairs, then to an Armageddon game. `rounds` is derived from the field (0).
        Knockout = "knockout",
        /// 随机编排: `rounds` rounds drawn at random from `seed`, reproducibly.
        Random = "random",
    }
}

closed_set! {
    /// One tiebreak of the standings, applied in the order a tournament lists them.
    pub enum Tiebreak ("tiebreak") {
        /// Opponents' points: the sum of the final points of every opponent, once per game.
        Buchholz = "buchholz",
        /// The sum over rounds of the player's points after that round.
        Progressive = "progressive",
        /// Games won (a bye's games count as won).
        Wins = "wins",
        /// Points in the games between the players still tied.
        HeadToHead = "head-to-head",
        /// Points scored in each game times the opponent's final points (stored doubled).
        SonnebornBerger = "sonneborn-berger",
    }
}

closed_set! {
    /// What a match is within its tie.
    pub enum MatchStage ("match stage") {
        /// The match as drawn: `pairs_per_match` pairs.
        Main = "main",
        /// A knockout tie's extra pair.
        Extra = "extra",
        /// A knockout tie's Armageddon pair: its first game decides.
        Armageddon = "armageddon",
    }
}

/// A match of a tournament: players by index into the run's variants (`a` Red in each pair's
/// first game), in tie `slot` of its round.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Match {
    pub round: u32,
    pub slot: u32,
    pub a: usize,
    pub b: usize,
    pub stage: MatchStage,
    pub pairs: u64,
}

/// A bye: the player sits out round `round` and scores the match as won.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ByeSlot {
    pub round: u32,
    pub slot: u32,
    pub player: usize,
}

/// A tournament's stored match (a pairing of its run, in pairing order) with the first game of
/// an Armageddon pair, once recorded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MatchRow {
    pub pairing: u32,
    pub m: Match,
    /// Red's points (2, 1, 0) in an Armageddon pair's first game.
    pub armageddon_red_points: Option<u32>,
}

/// A tournament's draw so far: its matches (one per pairing of the run, in order; their
/// results are the run's statistics) and its byes, by round and slot.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TournamentDraw {
    pub matches: Vec<MatchRow>,
    pub byes: Vec<ByeSlot>,
    /// The players' names (their variants' names), in seed order.
    pub names: Vec<String>,
}

/// The usual Xiangqi order of the tiebreaks.
pub const DEFAULT_TIEBREAKS: [Tiebreak; 5] =
    [Tiebreak::Buchholz, Tiebreak::Progressive, Tiebreak::Wins, Tiebreak::HeadToHead, Tiebreak::SonnebornBerger];

/// The most rounds a Swiss or random tournament plays, and the most cycles of a round robin.
pub const MAX_TOURNAMENT_ROUNDS: u32 = 1_000;
pub const MAX_ROUND_ROBIN_CYCLES: u32 = 10;
/// The most extra pairs a tied knockout match plays before its Armageddon game.
pub const MAX_EXTRA_PAIRS: u32 = 100;

/// A tournament's design.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TournamentSettings {
    pub format: TournamentFormat,
    /// Swiss and random: rounds; round robin: cycles; knockout: 0 (the bracket decides).
    pub rounds: u32,
    /// Colour-swapped pairs per match (each on its own opening), at least 1.
    pub pairs_per_match: u64,
    /// The standings' tiebreaks after points, in order, none twice (may be empty).
    pub tiebreaks: Vec<Tiebreak>,
    /// Knockout: extra pairs a tied match plays, one at a time, before its Armageddon game.
    pub extra_pairs: u32,
    /// Random: the draw's seed.
    pub seed: u64,
}

impl TournamentSettings {
    /// Settings with the default tiebreaks, one pair per match, two extra pairs, seed 1.
    pub fn new(format: TournamentFormat, rounds: u32) -> TournamentSettings {
        TournamentSettings {
            format,
            rounds,
            pairs_per_match: 1,
            tiebreaks: DEFAULT_TIEBREAKS.to_vec(),
            extra_pairs: 2,
            seed: 1,
        }
    }

    /// The rounds a field of `players` plays: a round robin's cycles times its rounds per
    /// cycle, a knockout's bracket depth, or the rounds asked for.
    pub fn total_rounds(&self, players: usize) -> u32 {
        let p = u32::try_from(players).unwrap_or(u32::MAX);
        match self.format {
            TournamentFormat::RoundRobin => self.rounds.saturating_mul(if p.is_multiple_of(2) { p - 1 } else { p }),
            TournamentFormat::Knockout => p.max(2).next_power_of_two().trailing_zeros(),
            TournamentFormat::Swiss | TournamentFormat::Random => self.rounds,
        }
    }

    /// The most pairs the tournament can play, for the run's size limit: every player in
    /// every round (knockout ties at their longest, Armageddon counted as a pair).
    pub fn max_pairs(&self, players: usize) -> u64 {
        let matches = (players / 2) as u64 * u64::from(self.total_rounds(players));
        let per_match = match self.format {
            TournamentFormat::Knockout => {
                self.pairs_per_match.saturating_add(u64::from(self.extra_pairs)).saturating_add(1)
            }
            _ => self.pairs_per_match,
        };
        matches.saturating_mul(per_match)
    }

    /// The settings' own rules for a field of `players`; errors name the field
    /// (`pairs_per_match`, `rounds`, `tiebreaks`, `extra_pairs`).
    pub fn validate(&self, players: usize) -> Result<()> {
        if self.pairs_per_match == 0 {
            return Err(Error::invalid("pairs_per_match", "must be positive, got 0"));
        }
        match self.format {
            TournamentFormat::RoundRobin => {
                if !(1..=MAX_ROUND_ROBIN_CYCLES).contains(&self.rounds) {
                    return Err(Error::invalid(
                        "rounds",
                        format!(
                            "a round robin plays 1 to {MAX_ROUND_ROBIN_CYCLES} cycles (1 single, 2 double), got {}",
                            self.rounds
                        ),
                    ));
                }
            }
            TournamentFormat::Swiss => {
                let most = players.saturating_sub(1);
                if self.rounds == 0 || self.rounds as usize > most {
                    return Err(Error::invalid(
                        "rounds",
                        format!(
                            "a Swiss of {players} players plays 1 to {most} rounds (beyond N - 1 a round \
                             cannot be paired without a rematch), got {}",
                            self.rounds
                        ),
                    ));
                }
            }
            TournamentFormat::Random => {
                if !(1..=MAX_TOURNAMENT_ROUNDS).contains(&self.rounds) {
                    return Err(Error::invalid(
                        "rounds",
                        format!("a random draw plays 1 to {MAX_TOURNAMENT_ROUNDS} rounds, got {}", self.rounds),
                    ));
                }
            }
            TournamentFormat::Knockout => {
                if self.rounds != 0 {
                    return Err(Error::invalid(
                        "rounds",
                        format!("a knockout's rounds follow from its bracket: give 0, got {}", self.rounds),
                    ));
                }
                if self.extra_pairs > MAX_EXTRA_PAIRS {
                    return Err(Error::invalid(
                        "extra_pairs",
                        format!("at most {MAX_EXTRA_PAIRS}, got {}", self.extra_pairs),
                    ));
                }
            }
        }
        for (i, t) in self.tiebreaks.iter().enumerate() {
            if self.tiebreaks[..i].contains(t) {
                return Err(Error::invalid("tiebreaks", format!("`{t}` is listed twice")));
            }
        }
        Ok(())
    }
}

/// Parses a comma-separated tiebreak order (`buchholz,wins`); an empty text is no tiebreak.
/// An unknown name is [`Error::UnknownName`] listing the known ones.
pub fn parse_tiebreaks(text: &str) -> Result<Vec<Tiebreak>> {
    text.split(',').map(str::trim).filter(|s| !s.is_empty()).map(str::parse).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(s: &TournamentSettings, players: usize) -> String {
        s.validate(players).expect_err("refused").to_string()
    }

    #[test]
    fn swiss_rounds_above_n_minus_1_are_refused_by_name() {
        let ok = TournamentSettings::new(TournamentFormat::Swiss, 3);
        assert_eq!(ok.validate(4), Ok(()));
        let long = TournamentSettings::new(TournamentFormat::Swiss, 4);
        let e = refused(&long, 4);
        assert!(e.contains("rounds") && e.contains("1 to 3 rounds") && e.contains("got 4"), "{e}");
        assert!(refused(&TournamentSettings::new(TournamentFormat::Swiss, 0), 4).contains("rounds"));
    }

    #[test]
    fn zero_pairs_per_match_is_refused() {
        let mut s = TournamentSettings::new(TournamentFormat::RoundRobin, 1);
        s.pairs_per_match = 0;
        assert!(refused(&s, 4).contains("pairs_per_match"));
    }

    #[test]
    fn unknown_and_repeated_tiebreaks_are_named() {
        assert_eq!(parse_tiebreaks("buchholz, wins").expect("known"), [Tiebreak::Buchholz, Tiebreak::Wins]);
        assert_eq!(parse_tiebreaks("").expect("none"), []);
        let e = parse_tiebreaks("buchholz,median").expect_err("unknown").to_string();
        assert!(e.contains("`median`") && e.contains("sonneborn-berger"), "{e}");
        let mut s = TournamentSettings::new(TournamentFormat::Swiss, 2);
        s.tiebreaks = vec![Tiebreak::Wins, Tiebreak::Wins];
        assert!(refused(&s, 4).contains("`wins` is listed twice"));
    }

    #[test]
    fn rounds_follow_the_format() {
        assert_eq!(TournamentSettings::new(TournamentFormat::RoundRobin, 2).total_rounds(6), 10);
        assert_eq!(TournamentSettings::new(TournamentFormat::RoundRobin, 1).total_rounds(5), 5);
        assert_eq!(TournamentSettings::new(TournamentFormat::Knockout, 0).total_rounds(8), 3);
        assert_eq!(TournamentSettings::new(TournamentFormat::Knockout, 0).total_rounds(5), 3);
        assert_eq!(TournamentSettings::new(TournamentFormat::Swiss, 5).total_rounds(8), 5);
        assert!(refused(&TournamentSettings::new(TournamentFormat::Knockout, 3), 8).contains("give 0"));
        assert!(refused(&TournamentSettings::new(TournamentFormat::RoundRobin, 0), 8).contains("cycles"));
    }
}
