//! Score constants and mate-distance bookkeeping.
//!
//! Two bands lie beyond ordinary evaluations: mate scores (`MATE - ply`) and, above them,
//! losses by the repetition rules (`REP_LOSS - ply`), so that an engine never escapes a mate
//! by perpetual checking: a perpetual-check loss scores worse than any mate.

use super::limits::Score;

pub const DRAW: i32 = 0;
pub const MATE: i32 = 30_000;
pub const REP_LOSS: i32 = 31_000;
pub const INFINITE: i32 = 32_000;
pub const MAX_PLY: usize = 128;
/// Scores at or beyond this magnitude carry a distance to the end of the game.
pub const DECISIVE: i32 = MATE - 2 * MAX_PLY as i32;
/// A win the endgame tables prove (less the ply it is found at): above every evaluation,
/// below the mate band, since the tables give a distance to conversion, not to mate.
pub const TB_WIN: i32 = 20_000;

#[inline]
pub const fn mated_in(ply: usize) -> i32 {
    -MATE + ply as i32
}

#[inline]
pub const fn mate_in(ply: usize) -> i32 {
    MATE - ply as i32
}

/// Lost by a repetition rule (perpetual check or chase), `ply` from the root.
#[inline]
pub const fn rep_lost_in(ply: usize) -> i32 {
    -REP_LOSS + ply as i32
}

/// Converts a score at `ply` to the ply-independent form stored in the hash table.
#[inline]
pub const fn to_tt(v: i32, ply: usize) -> i32 {
    if v >= DECISIVE {
        v + ply as i32
    } else if v <= -DECISIVE {
        v - ply as i32
    } else {
        v
    }
}

#[inline]
pub const fn from_tt(v: i32, ply: usize) -> i32 {
    if v >= DECISIVE {
        v - ply as i32
    } else if v <= -DECISIVE {
        v + ply as i32
    } else {
        v
    }
}

/// The UCI view of an internal score.
pub fn to_uci(v: i32) -> Score {
    if v.abs() < DECISIVE {
        return Score::Cp(v);
    }
    let band = if v.abs() > REP_LOSS - MAX_PLY as i32 * 2 { REP_LOSS } else { MATE };
    let plies = band - v.abs();
    let moves = (plies + 1) / 2;
    Score::Mate(if v > 0 { moves } else { -moves })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mate_scores_round_trip_through_the_table() {
        for ply in [0usize, 1, 7, 60] {
            for v in [mate_in(ply + 3), mated_in(ply + 2), rep_lost_in(ply + 4), 123, -45] {
                assert_eq!(from_tt(to_tt(v, ply), ply), v);
            }
        }
        assert_eq!(to_uci(mate_in(1)), Score::Mate(1));
        assert_eq!(to_uci(mate_in(3)), Score::Mate(2));
        assert_eq!(to_uci(mated_in(2)), Score::Mate(-1));
        assert_eq!(to_uci(rep_lost_in(4)), Score::Mate(-2));
        assert_eq!(to_uci(57), Score::Cp(57));
        assert!(rep_lost_in(10) < mated_in(0));
    }
}
