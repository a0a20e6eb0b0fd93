//! Match results as counted: game pairs (pentanomial) or single games (trinomial).

use std::fmt;
use std::str::FromStr;

use crate::error::{Error, Result};

/// Results counted by outcome, from the candidate's worst outcome to its best, the outcomes
/// evenly spaced in score. Every statistic in [`crate::stats`] takes either kind through this
/// trait, as Fishtest's functions take a results list of length 3 or 5.
pub trait Outcomes {
    /// Games in one sample: 2 for a game pair, 1 for a single game.
    const GAMES_PER_SAMPLE: u64;

    /// The counts, worst outcome first.
    fn frequencies(&self) -> Vec<u64>;

    /// Number of independent samples (pairs or games).
    fn samples(&self) -> u64 {
        self.frequencies().iter().sum()
    }

    /// Number of games played.
    fn games(&self) -> u64 {
        self.samples() * Self::GAMES_PER_SAMPLE
    }
}

/// Game-pair outcomes from the candidate's side: counts of pairs scoring 0, 0.5, 1, 1.5 and 2
/// points (Fishtest's `LL, LD+DL, LW+DD+WL, DW+WD, WW`). The pair is the independent unit, so
/// colour and opening effects are not counted as noise.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Pentanomial {
    pub counts: [u64; 5],
}

impl Pentanomial {
    pub fn pairs(&self) -> u64 {
        self.counts.iter().sum()
    }

    /// Adds one pair scoring `half_points` (0..=4) half points; anything else is ignored.
    pub fn add(&mut self, half_points: usize) {
        if let Some(c) = self.counts.get_mut(half_points) {
            *c += 1;
        }
    }
}

impl Outcomes for Pentanomial {
    const GAMES_PER_SAMPLE: u64 = 2;

    fn frequencies(&self) -> Vec<u64> {
        self.counts.to_vec()
    }
}

/// Reads `N0,N1,N2,N3,N4` (spaces around the numbers allowed), as Fishtest prints
/// `Ptnml(0-2)`.
impl FromStr for Pentanomial {
    type Err = Error;

    fn from_str(input: &str) -> Result<Self> {
        let bad = |reason: String| Error::Pentanomial { input: input.to_owned(), reason };
        let fields: Vec<&str> = input.split(',').map(str::trim).collect();
        if fields.len() != 5 {
            return Err(bad(format!(
                "expected 5 comma-separated counts (pairs scoring 0, 0.5, 1, 1.5, 2), found {}",
                fields.len()
            )));
        }
        let mut counts = [0u64; 5];
        for (i, (count, field)) in counts.iter_mut().zip(&fields).enumerate() {
            *count = field
                .parse()
                .map_err(|_| bad(format!("count {} `{field}` is not a non-negative whole number", i + 1)))?;
        }
        Ok(Self { counts })
    }
}

impl fmt::Display for Pentanomial {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let [a, b, c, d, e] = self.counts;
        write!(f, "{a}, {b}, {c}, {d}, {e}")
    }
}

/// Win/draw/loss counts of single games, from the candidate's side.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Wdl {
    pub wins: u64,
    pub draws: u64,
    pub losses: u64,
}

impl Wdl {
    pub fn games(&self) -> u64 {
        self.wins + self.draws + self.losses
    }
}

impl Outcomes for Wdl {
    const GAMES_PER_SAMPLE: u64 = 1;

    fn frequencies(&self) -> Vec<u64> {
        vec![self.losses, self.draws, self.wins]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_fishtest_ptnml() {
        let p: Pentanomial = "10789, 19328, 33806, 19402, 10543".parse().unwrap();
        assert_eq!(p.counts, [10789, 19328, 33806, 19402, 10543]);
        assert_eq!(p.games(), 2 * 93868);
        assert_eq!(p.to_string().parse::<Pentanomial>().unwrap(), p);
    }

    #[test]
    fn rejects_bad_ptnml_naming_the_input() {
        let err = "1,2,3".parse::<Pentanomial>().unwrap_err().to_string();
        assert!(err.contains("`1,2,3`") && err.contains("found 3"), "{err}");
        let err = "1,2,x,4,5".parse::<Pentanomial>().unwrap_err().to_string();
        assert!(err.contains("count 3 `x`"), "{err}");
        assert!("1,2,-3,4,5".parse::<Pentanomial>().is_err());
    }

    #[test]
    fn trinomial_order_is_loss_draw_win() {
        let wdl = Wdl { wins: 3, draws: 2, losses: 1 };
        assert_eq!(wdl.frequencies(), vec![1, 2, 3]);
        assert_eq!(Outcomes::games(&wdl), 6);
    }
}
