//! A rating list from many players' head-to-head results, by maximum likelihood as Ordo and
//! BayesElo compute it, so engines that never met directly are placed on one Elo scale.
//!
//! The model is Ordo's logistic one: a player `d` Elo stronger expects the score
//! E = 1 / (1 + 10^(-d/400)) per game, and a draw counts as half a win and half a loss. The
//! ratings maximise Σ over pairs [points_a ln E + points_b ln(1 - E)] with the anchor fixed at
//! 0 (Newton's method with a backtracking line search). The 95% error bars come from the
//! inverse of the Fisher information restricted to the free players: each is the interval of
//! the player's difference to the anchor. The model scores a draw as a half-win Bernoulli
//! trial, whose variance s(1 - s) ignores that draws are less noisy than a win or a loss: with
//! a draw rate d the bars are sqrt(s(1 - s) / (s(1 - s) - d/4)) times wider than the trinomial
//! ones (about 1.4 at 50% draws), on the safe side.
//!
//! The maximum-likelihood ratings are finite exactly when every group of players has scored
//! against the rest (the "scored against" graph is strongly connected). Where it is not, e.g. a
//! 100% score, each pair across that cut (necessarily one-sided) gets [`VIRTUAL_DRAWS`] virtual
//! draws, as Ordo and BayesElo add a prior of virtual draws; no other pair is touched, so
//! results whose likelihood has a maximum are rated exactly.

use std::collections::BTreeMap;

use super::elo::score_of_elo;
use super::normal::normal_quantile;
use crate::error::{Error, Result};

/// Virtual draws (games, half a point to each side) given to a one-sided pair that would
/// otherwise push a rating to infinity: a 10-0 head-to-head reads as 10.25 / 10.5.
pub const VIRTUAL_DRAWS: f64 = 0.5;
/// Newton stops when no rating moves by more than this many Elo.
const TOLERANCE: f64 = 1e-9;
const MAX_ITERATIONS: usize = 200;
/// d E / d Elo = λ E (1 - E).
const LAMBDA: f64 = std::f64::consts::LN_10 / 400.0;

/// Games between two players, counted from player `a`'s side.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct HeadToHead {
    pub a: usize,
    pub b: usize,
    pub wins: u64,
    pub draws: u64,
    pub losses: u64,
}

/// One line of a rating list.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rating {
    pub player: usize,
    /// Elo relative to the anchor.
    pub elo: f64,
    /// Half-width of the 95% interval of `elo`; 0 for the anchor.
    pub error95: f64,
    pub games: u64,
    /// Points per game (0.5 for a player without games, only possible for a lone anchor).
    pub score: f64,
}

/// The games of one pair of players `i < j`, virtual draws included.
#[derive(Clone, Copy, Debug, Default)]
struct Pair {
    i: usize,
    j: usize,
    games: f64,
    points_i: f64,
}

/// The maximum-likelihood rating list of `players` players (indices `0..players`) from
/// `results`, best first, the `anchor` at 0 Elo. Several entries for one pair add up.
///
/// Errors on a player index or anchor out of range, a player facing itself, a player's games
/// overflowing `u64`, or players no chain of games links to the anchor (they could be rated
/// anything).
pub fn rating_list(players: usize, results: &[HeadToHead], anchor: usize) -> Result<Vec<Rating>> {
    let fail = |reason: String| Error::Rating { reason };
    if anchor >= players {
        return Err(fail(format!("anchor {anchor} out of range ({players} players)")));
    }
    let mut by_pair: BTreeMap<(usize, usize), Pair> = BTreeMap::new();
    let (mut games, mut points) = (vec![0u128; players], vec![0.0; players]);
    for h in results {
        if h.a >= players || h.b >= players {
            return Err(fail(format!("player {} out of range ({players} players)", h.a.max(h.b))));
        }
        if h.a == h.b {
            return Err(fail(format!("player {} plays itself", h.a)));
        }
        let n = u128::from(h.wins) + u128::from(h.draws) + u128::from(h.losses);
        let points_a = h.wins as f64 + h.draws as f64 / 2.0;
        for (p, points_p) in [(h.a, points_a), (h.b, n as f64 - points_a)] {
            games[p] += n;
            points[p] += points_p;
        }
        if n > 0 {
            let (i, j, points_i) = if h.a < h.b { (h.a, h.b, points_a) } else { (h.b, h.a, n as f64 - points_a) };
            let pair = by_pair.entry((i, j)).or_insert(Pair { i, j, ..Pair::default() });
            pair.games += n as f64;
            pair.points_i += points_i;
        }
    }
    let mut pairs: Vec<Pair> = by_pair.into_values().collect();
    let linked = reachable(&neighbours(players, &pairs, |_, _| true), anchor);
    let unlinked: Vec<String> = (0..players).filter(|&p| !linked[p]).map(|p| p.to_string()).collect();
    if !unlinked.is_empty() {
        return Err(fail(format!("no games link player(s) {} to the anchor {anchor}", unlinked.join(", "))));
    }
    add_virtual_draws(players, &mut pairs);
    let elo = maximise_likelihood(players, &pairs, anchor)?;
    let variances = free_variances(players, &pairs, anchor, &elo).ok_or_else(|| fail("singular information".into()))?;
    let z = normal_quantile(0.975);
    let mut list = Vec::with_capacity(players);
    for p in 0..players {
        let played = u64::try_from(games[p]).map_err(|_| fail(format!("games of player {p} overflow u64")))?;
        let score = if played == 0 { 0.5 } else { points[p] / games[p] as f64 };
        list.push(Rating { player: p, elo: elo[p], error95: z * variances[p].sqrt(), games: played, score });
    }
    list.sort_by(|x, y| y.elo.total_cmp(&x.elo).then(x.player.cmp(&y.player)));
    Ok(list)
}

/// For every player, the opponents `step(pair, from_i)` lets it step to.
fn neighbours(players: usize, pairs: &[Pair], step: impl Fn(&Pair, bool) -> bool) -> Vec<Vec<usize>> {
    let mut next = vec![Vec::new(); players];
    for pair in pairs {
        if step(pair, true) {
            next[pair.i].push(pair.j);
        }
        if step(pair, false) {
            next[pair.j].push(pair.i);
        }
    }
    next
}

fn reachable(next: &[Vec<usize>], start: usize) -> Vec<bool> {
    let mut seen = vec![false; next.len()];
    let mut stack = vec![start];
    seen[start] = true;
    while let Some(p) = stack.pop() {
        for &q in &next[p] {
            if !seen[q] {
                seen[q] = true;
                stack.push(q);
            }
        }
    }
    seen
}

/// Gives [`VIRTUAL_DRAWS`] to every one-sided pair whose loser has no chain of "took points
/// from" back to the winner: exactly the pairs between strongly connected components, whose
/// ratings the likelihood alone would drive apart forever.
fn add_virtual_draws(players: usize, pairs: &mut [Pair]) {
    let took_points =
        neighbours(players, pairs, |p, from_i| if from_i { p.points_i > 0.0 } else { p.points_i < p.games });
    let mut reach: Vec<Option<Vec<bool>>> = vec![None; players];
    for pair in pairs.iter_mut() {
        let (winner, loser) = match pair.points_i {
            0.0 => (pair.j, pair.i),
            p if p == pair.games => (pair.i, pair.j),
            _ => continue,
        };
        if !reach[loser].get_or_insert_with(|| reachable(&took_points, loser))[winner] {
            pair.games += VIRTUAL_DRAWS;
            pair.points_i += VIRTUAL_DRAWS / 2.0;
        }
    }
}

/// ln of the likelihood, with ln E = -softplus(-λd) written to stay finite at any d.
fn log_likelihood(pairs: &[Pair], elo: &[f64]) -> f64 {
    let softplus = |t: f64| t.max(0.0) + (-t.abs()).exp().ln_1p();
    pairs
        .iter()
        .map(|p| {
            let t = LAMBDA * (elo[p.i] - elo[p.j]);
            -p.points_i * softplus(-t) - (p.games - p.points_i) * softplus(t)
        })
        .sum()
}

/// Gradient and Fisher information (minus the Hessian, dense, row-major) of the
/// log-likelihood in the free players' ratings: player `p` is coordinate `p` below the anchor
/// and `p - 1` above it.
fn derivatives(pairs: &[Pair], anchor: usize, elo: &[f64]) -> (Vec<f64>, Vec<f64>) {
    let n = elo.len() - 1;
    let coordinate = |p: usize| (p != anchor).then(|| if p < anchor { p } else { p - 1 });
    let (mut gradient, mut information) = (vec![0.0; n], vec![0.0; n * n]);
    for p in pairs {
        let e = score_of_elo(elo[p.i] - elo[p.j]);
        let g = LAMBDA * (p.points_i - p.games * e);
        let w = LAMBDA * LAMBDA * p.games * e * (1.0 - e);
        let (ci, cj) = (coordinate(p.i), coordinate(p.j));
        for (c, sign) in [(ci, 1.0), (cj, -1.0)] {
            if let Some(c) = c {
                gradient[c] += sign * g;
                information[c * n + c] += w;
            }
        }
        if let (Some(ci), Some(cj)) = (ci, cj) {
            information[ci * n + cj] -= w;
            information[cj * n + ci] -= w;
        }
    }
    (gradient, information)
}

fn maximise_likelihood(players: usize, pairs: &[Pair], anchor: usize) -> Result<Vec<f64>> {
    let mut elo = vec![0.0; players];
    let mut ll = log_likelihood(pairs, &elo);
    let free: Vec<usize> = (0..players).filter(|&p| p != anchor).collect();
    for _ in 0..MAX_ITERATIONS {
        let (gradient, information) = derivatives(pairs, anchor, &elo);
        let Some(step) = cholesky(information, free.len()).map(|l| cholesky_solve(&l, gradient.clone())) else {
            return Err(Error::Rating { reason: "singular information matrix".into() });
        };
        let largest = step.iter().fold(0.0f64, |m, s| m.max(s.abs()));
        // The gain the quadratic model predicts. Once it is lost in the rounding of the
        // log-likelihood, comparing likelihoods means nothing: take the Newton step whole.
        let gain: f64 = gradient.iter().zip(&step).map(|(g, s)| g * s).sum();
        let negligible = gain <= 1e-12 * (1.0 + ll.abs());
        // Otherwise halve the step until the likelihood does not fall (it is concave, so a
        // short enough step always succeeds).
        let mut t = 1.0;
        loop {
            let mut candidate = elo.clone();
            free.iter().zip(&step).for_each(|(&p, s)| candidate[p] += t * s);
            let candidate_ll = log_likelihood(pairs, &candidate);
            if negligible || candidate_ll >= ll || t < 1e-12 {
                (elo, ll) = (candidate, candidate_ll);
                break;
            }
            t /= 2.0;
        }
        if largest < TOLERANCE {
            return Ok(elo);
        }
    }
    Err(Error::Rating { reason: format!("Newton's method did not converge in {MAX_ITERATIONS} iterations") })
}

/// The variance of every player's rating, the diagonal of the inverse information (0 for the
/// anchor). `None` when the information is singular.
fn free_variances(players: usize, pairs: &[Pair], anchor: usize, elo: &[f64]) -> Option<Vec<f64>> {
    let n = players - 1;
    let l = cholesky(derivatives(pairs, anchor, elo).1, n)?;
    let mut variances = vec![0.0; players];
    for (c, p) in (0..players).filter(|&p| p != anchor).enumerate() {
        let mut unit = vec![0.0; n];
        unit[c] = 1.0;
        variances[p] = cholesky_solve(&l, unit)[c];
    }
    Some(variances)
}

/// The lower Cholesky factor of a symmetric positive definite `n`×`n` matrix, in place.
fn cholesky(mut a: Vec<f64>, n: usize) -> Option<Vec<f64>> {
    for j in 0..n {
        let diagonal = a[j * n + j] - (0..j).map(|k| a[j * n + k] * a[j * n + k]).sum::<f64>();
        if diagonal.is_nan() || diagonal <= 0.0 {
            return None;
        }
        a[j * n + j] = diagonal.sqrt();
        for i in j + 1..n {
            let dot: f64 = (0..j).map(|k| a[i * n + k] * a[j * n + k]).sum();
            a[i * n + j] = (a[i * n + j] - dot) / a[j * n + j];
        }
    }
    Some(a)
}

/// Solves L Lᵀ x = b.
fn cholesky_solve(l: &[f64], mut b: Vec<f64>) -> Vec<f64> {
    let n = b.len();
    for i in 0..n {
        b[i] = (b[i] - (0..i).map(|k| l[i * n + k] * b[k]).sum::<f64>()) / l[i * n + i];
    }
    for i in (0..n).rev() {
        b[i] = (b[i] - (i + 1..n).map(|k| l[k * n + i] * b[k]).sum::<f64>()) / l[i * n + i];
    }
    b
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::elo_of_score;

    fn h2h(a: usize, b: usize, wins: u64, draws: u64, losses: u64) -> HeadToHead {
        HeadToHead { a, b, wins, draws, losses }
    }

    /// Ratings indexed by player.
    fn by_player(players: usize, results: &[HeadToHead], anchor: usize) -> Vec<Rating> {
        let mut list = rating_list(players, results, anchor).expect("rating list");
        assert!(list.windows(2).all(|w| w[0].elo >= w[1].elo), "best first: {list:?}");
        list.sort_by_key(|r| r.player);
        list
    }

    fn close(x: f64, y: f64, tolerance: f64) -> bool {
        (x - y).abs() <= tolerance
    }

    #[test]
    fn two_players_match_the_head_to_head_score() {
        let r = by_player(2, &[h2h(0, 1, 35, 40, 25)], 1);
        let (s, n) = (0.55, 100.0);
        assert!(close(r[0].elo, elo_of_score(s), 1e-6), "{r:?}");
        assert_eq!((r[1].elo, r[1].error95, r[0].games, r[0].score), (0.0, 0.0, 100, s));
        // The delta method on the score's binomial standard error.
        let (z, score_sigma) = (normal_quantile(0.975), (s * (1.0 - s) / n).sqrt());
        assert!(close(r[0].error95, z * score_sigma / (LAMBDA * s * (1.0 - s)), 1e-6));
        // ... close to the Elo of the score's own 95% interval.
        let half_width = (elo_of_score(s + z * score_sigma) - elo_of_score(s - z * score_sigma)) / 2.0;
        assert!((r[0].error95 / half_width - 1.0).abs() < 0.02, "{} vs {half_width}", r[0].error95);
    }

    #[test]
    fn a_chain_adds_up() {
        // 0 beats 1 60%, 1 scores 45% against 2, anchored at 2: no cycles, so each link is its
        // own two-player estimate and independent of the other.
        let results = [h2h(0, 1, 100, 40, 60), h2h(1, 2, 30, 30, 40)];
        let r = by_player(3, &results, 2);
        let link_01 = by_player(2, &results[..1], 1)[0];
        let link_12 = by_player(2, &[h2h(0, 1, 30, 30, 40)], 1)[0];
        assert!(close(r[1].elo, elo_of_score(0.45), 1e-6) && close(r[0].elo - r[1].elo, elo_of_score(0.6), 1e-6));
        assert!(close(r[0].error95.powi(2), link_01.error95.powi(2) + link_12.error95.powi(2), 1e-6));
        assert_eq!((r[2].elo, r[2].error95), (0.0, 0.0));
    }

    #[test]
    fn anchor_choice_shifts_every_rating_alike() {
        let results = [h2h(0, 1, 30, 50, 20), h2h(1, 2, 25, 40, 35), h2h(2, 0, 10, 20, 15), h2h(3, 1, 5, 5, 10)];
        let at_0 = by_player(4, &results, 0);
        let at_3 = by_player(4, &results, 3);
        assert_eq!((at_0[0].elo, at_3[3].elo), (0.0, 0.0));
        for p in 0..4 {
            assert!(close(at_0[p].elo - at_0[3].elo, at_3[p].elo, 1e-9));
        }
        // The maximum likelihood matches every player's expected points to its actual points.
        for (p, rating) in at_0.iter().enumerate() {
            let expected: f64 = results
                .iter()
                .filter(|h| h.a == p || h.b == p)
                .map(|h| {
                    let n = (h.wins + h.draws + h.losses) as f64;
                    let (me, them) = if h.a == p { (h.a, h.b) } else { (h.b, h.a) };
                    n * score_of_elo(at_0[me].elo - at_0[them].elo)
                })
                .sum();
            assert!(close(expected, rating.score * rating.games as f64, 1e-9), "player {p}");
        }
    }

    #[test]
    fn sides_and_labels_do_not_matter() {
        let results = [h2h(0, 1, 30, 50, 20), h2h(1, 2, 25, 40, 35), h2h(2, 0, 10, 20, 15), h2h(3, 1, 5, 5, 10)];
        let base = by_player(4, &results, 0);
        let swapped: Vec<_> = results.iter().map(|h| h2h(h.b, h.a, h.losses, h.draws, h.wins)).collect();
        let relabel = [2, 0, 3, 1];
        let moved: Vec<_> =
            results.iter().map(|h| h2h(relabel[h.a], relabel[h.b], h.wins, h.draws, h.losses)).collect();
        let (swapped, moved) = (by_player(4, &swapped, 0), by_player(4, &moved, relabel[0]));
        for p in 0..4 {
            assert!(close(swapped[p].elo, base[p].elo, 1e-9) && close(swapped[p].error95, base[p].error95, 1e-9));
            let q = relabel[p];
            assert!(close(moved[q].elo, base[p].elo, 1e-9) && close(moved[q].error95, base[p].error95, 1e-9));
            assert_eq!((moved[q].games, moved[q].score), (base[p].games, base[p].score));
        }
    }

    #[test]
    fn perfect_scores_stay_finite() {
        // 10-0 between two players reads as 10.25 / 10.5 with the virtual draws.
        let r = by_player(2, &[h2h(0, 1, 10, 0, 0)], 1);
        assert!(close(r[0].elo, elo_of_score(10.25 / 10.5), 1e-6) && r[0].error95.is_finite());
        assert_eq!(r[0].score, 1.0);
        // A player that lost every game among others that drew.
        let r = by_player(3, &[h2h(0, 1, 3, 10, 2), h2h(2, 0, 0, 0, 12), h2h(1, 2, 8, 0, 0)], 0);
        assert!(r.iter().all(|x| x.elo.is_finite() && x.error95.is_finite()), "{r:?}");
        assert!(r[2].elo < r[1].elo - 300.0);
    }

    #[test]
    fn one_sided_pairs_in_a_cycle_need_no_prior() {
        // Each beat the next 10-0: the likelihood has its maximum at equal ratings.
        let r = by_player(3, &[h2h(0, 1, 10, 0, 0), h2h(1, 2, 10, 0, 0), h2h(2, 0, 10, 0, 0)], 0);
        assert!(r.iter().all(|x| close(x.elo, 0.0, 1e-9)), "{r:?}");
    }

    #[test]
    fn bad_input_is_refused() {
        let message = |r: Result<Vec<Rating>>| match r {
            Err(Error::Rating { reason }) => reason,
            other => panic!("expected a rating error, got {other:?}"),
        };
        let islands = message(rating_list(5, &[h2h(0, 1, 1, 1, 1), h2h(2, 3, 1, 0, 1)], 0));
        assert!(islands.contains("2, 3, 4"), "{islands}");
        assert!(message(rating_list(3, &[h2h(0, 3, 1, 0, 0)], 0)).contains("player 3"));
        assert!(message(rating_list(3, &[h2h(0, 1, 1, 0, 0)], 3)).contains("anchor 3"));
        assert!(message(rating_list(3, &[h2h(1, 1, 1, 0, 0)], 0)).contains("plays itself"));
        let lone = rating_list(1, &[], 0).expect("a lone anchor");
        assert_eq!(lone, [Rating { player: 0, elo: 0.0, error95: 0.0, games: 0, score: 0.5 }]);
    }
}
