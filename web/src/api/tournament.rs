//! A tournament's run page data: the standings after every round (rating beside the final
//! points), the rounds' matches, a round robin's cross table and a knockout's bracket, all
//! computed by `coordinator::tournament` from the stored draw and statistics.

use coordinator::tournament::director::{Stage, TieState, Tournament};
use proto::domain::{RunStatus, Tiebreak, TournamentFormat};
use serde_json::{Value, json};

fn standings_json(t: &Tournament, names: &[String], through: u32, with_ratings: bool) -> Value {
    let ratings = if with_ratings { t.ratings() } else { Vec::new() };
    let lines: Vec<Value> = t
        .standings(through)
        .iter()
        .map(|s| {
            let tiebreaks: Vec<Value> = t
                .settings
                .tiebreaks
                .iter()
                .zip(&s.tiebreaks)
                .map(|(tb, &v)| {
                    // Sonneborn-Berger is kept doubled to stay whole.
                    if *tb == Tiebreak::SonnebornBerger { json!(f64::from(v) / 2.0) } else { json!(v) }
                })
                .collect();
            let rating = ratings.get(s.player).copied().flatten();
            json!({
                "rank": s.rank, "player": s.player, "name": names.get(s.player),
                "points": s.points, "games": s.games, "wins": s.wins, "draws": s.draws,
                "losses": s.games - s.wins - s.draws, "tiebreaks": tiebreaks,
                "elo": rating.map(|r| r.elo), "elo_error95": rating.map(|r| r.error95),
            })
        })
        .collect();
    json!({ "round": through, "lines": lines })
}

fn rounds_json(t: &Tournament) -> Vec<Value> {
    (1..=t.round())
        .map(|round| {
            let matches: Vec<Value> = t
                .played
                .iter()
                .filter(|p| p.m.round == round)
                .map(|p| {
                    let s = &p.stats;
                    json!({
                        "slot": p.m.slot, "a": p.m.a, "b": p.m.b, "stage": p.m.stage.as_str(),
                        "a_points": 2 * s.wins + s.draws, "b_points": 2 * s.losses + s.draws,
                        "games": s.games(), "of_games": 2 * p.m.pairs,
                        "armageddon_red_points": p.armageddon_red_points,
                    })
                })
                .collect();
            let byes: Vec<usize> = t.byes.iter().filter(|b| b.round == round).map(|b| b.player).collect();
            json!({ "round": round, "matches": matches, "byes": byes })
        })
        .collect()
}

fn bracket_json(t: &Tournament) -> Vec<Value> {
    (1..=t.round())
        .map(|round| {
            let ties: Vec<Value> = t
                .ties(round)
                .iter()
                .map(|tie| {
                    let (state, winner) = match tie.state {
                        Some(TieState::Through(w)) => ("through", Some(w)),
                        Some(TieState::Extra) => ("extra", None),
                        Some(TieState::Armageddon) => ("armageddon", None),
                        None => ("playing", None),
                    };
                    let armageddon = t
                        .played
                        .iter()
                        .any(|p| p.m.round == round && p.m.slot == tie.slot && p.m.stage == Stage::Armageddon);
                    json!({
                        "slot": tie.slot, "players": [tie.players.0, tie.players.1],
                        "points": [tie.points.0, tie.points.1], "extra_pairs": tie.extra_pairs,
                        "armageddon": armageddon, "state": state, "winner": winner,
                    })
                })
                .collect();
            json!({ "round": round, "ties": ties })
        })
        .collect()
}

/// The tournament section of `/api/runs/{id}` (`None` for another kind of run).
pub fn tournament_json(status: &RunStatus) -> Option<Value> {
    let t = Tournament::of_status(status)?;
    let names = status.tournament.as_ref().map(|d| d.names.clone()).unwrap_or_default();
    let s = &t.settings;
    let mut by_round: Vec<Value> = (1..t.round()).map(|r| standings_json(&t, &names, r, false)).collect();
    // Now: every game so far, labelled with the round being played.
    let mut now = standings_json(&t, &names, u32::MAX, true);
    now["round"] = json!(t.round());
    by_round.push(now);
    let mut v = json!({
        "format": s.format.as_str(),
        "round": t.round(),
        "rounds": s.total_rounds(t.players),
        "pairs_per_match": s.pairs_per_match,
        "tiebreaks": s.tiebreaks.iter().map(|b| b.as_str()).collect::<Vec<_>>(),
        "names": names,
        "standings": by_round,
        "rounds_played": rounds_json(&t),
    });
    match s.format {
        TournamentFormat::RoundRobin => {
            let games = t.games_between();
            let cross: Vec<Vec<Value>> = t
                .cross_table()
                .iter()
                .enumerate()
                .map(|(i, row)| {
                    row.iter()
                        .enumerate()
                        .map(
                            |(j, &p)| {
                                if i == j || games[i][j] == 0 { Value::Null } else { json!([p, 2 * games[i][j]]) }
                            },
                        )
                        .collect()
                })
                .collect();
            v["cross_table"] = json!(cross);
        }
        TournamentFormat::Knockout => {
            v["bracket"] = json!(bracket_json(&t));
            v["winner"] = json!(
                coordinator::tournament::director::knockout_winner(&t.settings, &t.played, &t.byes)
                    .filter(|_| status.run.state == proto::domain::RunState::Completed)
            );
        }
        TournamentFormat::Swiss | TournamentFormat::Random => {}
    }
    Some(v)
}
