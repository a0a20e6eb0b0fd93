//! Trinomial helpers from Fishtest's `stat_util`: the BayesElo model (Elo plus a draw Elo)
//! and its conversions to logistic Elo, for reading old BayesElo bounds and results.

use super::distribution::PRIOR;
use super::elo::{elo_of_score, score_of_elo};
use super::outcomes::Wdl;

/// Loss, draw and win probabilities in the BayesElo model for a BayesElo difference `elo`
/// and a draw Elo `drawelo` (Fishtest's `bayeselo_to_proba`, reordered to `[loss, draw,
/// win]`, which is also Fishtest's index order).
pub fn bayeselo_to_proba(elo: f64, drawelo: f64) -> [f64; 3] {
    let win = 1.0 / (1.0 + 10f64.powf((-elo + drawelo) / 400.0));
    let loss = 1.0 / (1.0 + 10f64.powf((elo + drawelo) / 400.0));
    [loss, 1.0 - win - loss, win]
}

/// BayesElo and draw Elo of `[loss, draw, win]` probabilities (Fishtest's
/// `proba_to_bayeselo`); `None` unless 0 < loss < 1 and 0 < win < 1.
pub fn proba_to_bayeselo([loss, _, win]: [f64; 3]) -> Option<(f64, f64)> {
    if !(loss > 0.0 && loss < 1.0 && win > 0.0 && win < 1.0) {
        return None;
    }
    let elo = 200.0 * (win / loss * (1.0 - loss) / (1.0 - win)).log10();
    let drawelo = 200.0 * ((1.0 - loss) / loss * (1.0 - win) / win).log10();
    Some((elo, drawelo))
}

/// The draw Elo of a set of results, zero counts replaced by the prior as Fishtest does before
/// calling `draw_elo_calc`. Always defined: the prior keeps wins and losses above zero.
pub fn draw_elo(wdl: &Wdl) -> f64 {
    let [l, d, w] = [wdl.losses, wdl.draws, wdl.wins].map(|c| if c == 0 { PRIOR } else { c as f64 });
    let n = l + d + w;
    proba_to_bayeselo([l / n, d / n, w / n]).map_or(0.0, |(_, drawelo)| drawelo)
}

/// The logistic Elo of a BayesElo difference at a given draw Elo (Fishtest's
/// `bayeselo_to_elo`).
pub fn bayeselo_to_elo(bayeselo: f64, drawelo: f64) -> f64 {
    let [_, draw, win] = bayeselo_to_proba(bayeselo, drawelo);
    elo_of_score(win + 0.5 * draw)
}

/// BayesElo and draw Elo of a logistic Elo difference at a given draw ratio (Fishtest's
/// `elo_to_bayeselo`); `None` when the draw ratio leaves no room for wins or losses.
pub fn elo_to_bayeselo(elo: f64, draw_ratio: f64) -> Option<(f64, f64)> {
    let s = score_of_elo(elo);
    let win = s - draw_ratio / 2.0;
    let loss = 1.0 - draw_ratio - win;
    if !(draw_ratio >= 0.0 && win > 0.0 && loss > 0.0) {
        return None;
    }
    proba_to_bayeselo([loss, draw_ratio, win])
}

/// The legacy SPRT log-likelihood ratio in the BayesElo model with the draw Elo estimated
/// from the results themselves (Fishtest's `LLRlegacy`; its counts are not regularized, so
/// results without a win or a loss give `None`).
pub fn llr_bayeselo(wdl: &Wdl, bayeselo0: f64, bayeselo1: f64) -> Option<f64> {
    let counts = [wdl.losses, wdl.draws, wdl.wins].map(|c| c as f64);
    let n: f64 = counts.iter().sum();
    let (_, drawelo) = proba_to_bayeselo(counts.map(|c| c / n))?;
    let p0 = bayeselo_to_proba(bayeselo0, drawelo);
    let p1 = bayeselo_to_proba(bayeselo1, drawelo);
    Some(counts.iter().zip(p0.iter().zip(&p1)).map(|(&c, (&q0, &q1))| c * (q1 / q0).ln()).sum())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn probabilities_round_trip() {
        let p = bayeselo_to_proba(30.0, 200.0);
        assert!((p.iter().sum::<f64>() - 1.0).abs() < 1e-15);
        let (elo, drawelo) = proba_to_bayeselo(p).unwrap();
        assert!((elo - 30.0).abs() < 1e-9 && (drawelo - 200.0).abs() < 1e-9);
        assert_eq!(proba_to_bayeselo([0.0, 0.5, 0.5]), None);
        assert_eq!(elo_to_bayeselo(0.0, 1.0), None);
        assert_eq!(llr_bayeselo(&Wdl { wins: 0, draws: 5, losses: 0 }, 0.0, 5.0), None);
    }
}
