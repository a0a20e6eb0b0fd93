//! Pure summaries the Run page draws: the game-length histogram's bins and the LLR's path.

use analysis::stats::{self, Pentanomial};
use proto::domain::SprtSettings;
use serde::Serialize;

/// One bar of the game-length histogram: games of `plies_from..=plies_to` plies.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct LengthBin {
    pub plies_from: u32,
    pub plies_to: u32,
    pub count: u64,
}

/// At most this many bars.
const MAX_BINS: u32 = 30;

/// Bins `(plies, games)` counts into at most [`MAX_BINS`] bars of a round width (10, 20, 50,
/// 100...), from 0 to the longest game; empty input gives no bars.
pub fn length_bins(lengths: &[(u32, u64)]) -> Vec<LengthBin> {
    let Some(max) = lengths.iter().filter(|(_, n)| *n > 0).map(|(p, _)| *p).max() else { return Vec::new() };
    let width =
        [10u32, 20, 50, 100, 200, 500, 1000, 2000, 5000].into_iter().find(|w| max / w < MAX_BINS).unwrap_or(5000);
    let mut bins: Vec<LengthBin> = (0..=max / width)
        .map(|i| LengthBin { plies_from: i * width, plies_to: i * width + width - 1, count: 0 })
        .collect();
    for &(plies, n) in lengths {
        if let Some(bin) = bins.get_mut((plies / width) as usize) {
            bin.count += n;
        }
    }
    bins
}

/// Points of the LLR path kept at most.
const MAX_POINTS: usize = 200;

/// The LLR after each pair of the run's first pairing, as `[games, llr]` points: at most
/// [`MAX_POINTS`] evenly spread ones plus the last, starting at `[0, 0]`. `pairs` is the run's
/// `(pairing, pentanomial index)` sequence in recording order.
pub fn llr_history(pairs: &[(u32, u8)], settings: &SprtSettings) -> Vec<[f64; 2]> {
    let first: Vec<usize> = pairs.iter().filter(|(p, _)| *p == 0).map(|(_, i)| usize::from(*i).min(4)).collect();
    let step = first.len().div_ceil(MAX_POINTS).max(1);
    let mut counts = [0u64; 5];
    let mut points = vec![[0.0, 0.0]];
    for (n, &index) in first.iter().enumerate() {
        counts[index] += 1;
        let done = n + 1;
        if done % step == 0 || done == first.len() {
            let llr = stats::sprt(&Pentanomial { counts }, settings).map(|r| r.llr).unwrap_or(0.0);
            points.push([(2 * done) as f64, if llr.is_finite() { llr } else { 0.0 }]);
        }
    }
    points
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lengths_fall_into_round_bins_up_to_the_longest_game() {
        let bins = length_bins(&[(3, 2), (15, 1), (95, 4), (250, 1)]);
        assert_eq!(bins[0], LengthBin { plies_from: 0, plies_to: 9, count: 2 });
        assert_eq!(bins[1].count, 1);
        assert_eq!(bins.iter().map(|b| b.count).sum::<u64>(), 8);
        assert_eq!(bins.len(), 26, "width 10 up to 250");
        assert!(length_bins(&[(1000, 1)]).len() <= 30);
        assert!(length_bins(&[]).is_empty());
    }

    #[test]
    fn the_llr_path_ends_at_the_runs_llr_and_keeps_few_points() {
        let settings = SprtSettings::default();
        let pairs: Vec<(u32, u8)> = (0..1000).map(|i| (0, [3, 2, 3, 1, 4][i % 5])).collect();
        let path = llr_history(&pairs, &settings);
        assert!(path.len() <= MAX_POINTS + 2, "{}", path.len());
        assert_eq!(path[0], [0.0, 0.0]);
        let last = path.last().expect("points");
        assert_eq!(last[0], 2000.0);
        let mut counts = [0u64; 5];
        pairs.iter().for_each(|(_, i)| counts[*i as usize] += 1);
        let expected = stats::sprt(&Pentanomial { counts }, &settings).expect("sprt").llr;
        assert!((last[1] - expected).abs() < 1e-9, "{} vs {expected}", last[1]);
        assert!(last[1] > 0.0, "a winning candidate's LLR rises");
    }
}
