//! A tournament as text, for `xqfarm run show`, `xqfarm tournament create` and the report:
//! the standings (with a rating beside the points when the caller has one), the rounds'
//! results, the cross table of a round robin and the bracket of a knockout. Pure formatting
//! over the coordinator's [`Tournament`], which only computes.

use std::fmt::Write as _;

use coordinator::tournament::director::{self, Rating, Stage, TieState, Tournament};
use proto::domain::TournamentFormat;

fn name(names: &[String], i: usize) -> &str {
    names.get(i).map_or("?", String::as_str)
}

/// Points as the Chinese rules count them, per game 2/1/0.
fn pts(p: u32) -> String {
    p.to_string()
}

/// The standings after everything recorded, best first: rank, player, points, games, wins,
/// draws, losses, the tiebreaks in order, and the rating when given (one per player).
pub fn standings_table(t: &Tournament, names: &[String], ratings: Option<&[Option<Rating>]>) -> String {
    let width = names.iter().map(String::len).max().unwrap_or(6).max(6);
    let mut out = String::new();
    let _ = write!(
        out,
        "{:>4}  {:<width$}  {:>6}  {:>5}  {:>3} {:>3} {:>3}",
        "rank", "player", "points", "games", "W", "D", "L"
    );
    for tb in &t.settings.tiebreaks {
        let _ = write!(out, "  {:>8}", short(tb.as_str()));
    }
    if ratings.is_some() {
        let _ = write!(out, "  {:>14}", "elo (95%)");
    }
    out.push('\n');
    for s in t.standings(u32::MAX) {
        let losses = s.games - s.wins - s.draws;
        let _ = write!(
            out,
            "{:>4}  {:<width$}  {:>6}  {:>5}  {:>3} {:>3} {:>3}",
            s.rank,
            name(names, s.player),
            pts(s.points),
            s.games,
            s.wins,
            s.draws,
            losses
        );
        for (tb, v) in t.settings.tiebreaks.iter().zip(&s.tiebreaks) {
            // Sonneborn-Berger is kept doubled to stay whole.
            if *tb == proto::domain::Tiebreak::SonnebornBerger {
                let _ = write!(out, "  {:>8}", format!("{:.1}", f64::from(*v) / 2.0));
            } else {
                let _ = write!(out, "  {v:>8}");
            }
        }
        if let Some(ratings) = ratings {
            match ratings.get(s.player).copied().flatten() {
                Some(r) => {
                    let _ = write!(out, "  {:>14}", format!("{:+.0} ±{:.0}", r.elo, r.error95));
                }
                None => {
                    let _ = write!(out, "  {:>14}", "-");
                }
            }
        }
        out.push('\n');
    }
    out
}

fn short(tiebreak: &str) -> &str {
    match tiebreak {
        "buchholz" => "buchholz",
        "progressive" => "progr",
        "wins" => "wins",
        "head-to-head" => "h2h",
        "sonneborn-berger" => "sb",
        other => other,
    }
}

/// Each round's matches with their score in points (`A 3-1 B`), byes, and a knockout tie's
/// extra and Armageddon games.
pub fn rounds_table(t: &Tournament, names: &[String]) -> String {
    let mut out = String::new();
    for round in 1..=t.round() {
        let _ = writeln!(out, "round {round}");
        let mut rows: Vec<(u32, String)> = Vec::new();
        for p in t.played.iter().filter(|p| p.m.round == round) {
            let s = &p.stats;
            let (a_pts, b_pts) = (2 * s.wins + s.draws, 2 * s.losses + s.draws);
            let stage = match p.m.stage {
                Stage::Main => String::new(),
                Stage::Extra => " (extra pair)".into(),
                Stage::Armageddon => match p.armageddon_red_points {
                    Some(2) => format!(" (Armageddon: {} won as Red)", name(names, p.m.a)),
                    Some(_) => format!(" (Armageddon: {} held as Black)", name(names, p.m.b)),
                    None => " (Armageddon)".into(),
                },
            };
            let open = if s.games() < 2 * p.m.pairs {
                format!(" [{}/{} games]", s.games(), 2 * p.m.pairs)
            } else {
                String::new()
            };
            rows.push((
                p.m.slot,
                format!("  {} {a_pts}-{b_pts} {}{stage}{open}", name(names, p.m.a), name(names, p.m.b)),
            ));
        }
        for b in t.byes.iter().filter(|b| b.round == round) {
            rows.push((b.slot, format!("  {} has the bye", name(names, b.player))));
        }
        rows.sort_by_key(|r| r.0);
        for (_, row) in rows {
            let _ = writeln!(out, "{row}");
        }
    }
    out
}

/// A round robin's cross table: row player's points against each column player.
pub fn cross_table(t: &Tournament, names: &[String]) -> String {
    let points = t.cross_table();
    let games = t.games_between();
    let width = names.iter().map(String::len).max().unwrap_or(6).max(6);
    let mut out = String::new();
    let _ = write!(out, "{:<width$}", "");
    for j in 0..t.players {
        let _ = write!(out, "  {:>5}", j + 1);
    }
    out.push_str("  points\n");
    for (i, row) in points.iter().enumerate() {
        let _ = write!(out, "{:<width$}", format!("{} {}", i + 1, name(names, i)));
        for (j, p) in row.iter().enumerate() {
            if i == j {
                let _ = write!(out, "  {:>5}", "x");
            } else if games[i][j] == 0 {
                let _ = write!(out, "  {:>5}", ".");
            } else {
                let _ = write!(out, "  {:>5}", format!("{p}/{}", 2 * games[i][j]));
            }
        }
        let _ = writeln!(out, "  {}", row.iter().sum::<u32>());
    }
    out
}

/// A knockout's bracket, round by round: each tie's points and who went through.
pub fn bracket(t: &Tournament, names: &[String]) -> String {
    let mut out = String::new();
    for round in 1..=t.round() {
        let _ = writeln!(out, "round {round}");
        for tie in t.ties(round) {
            let (hi, lo) = tie.players;
            let line = match lo {
                None => format!("  {} (bye)", name(names, hi)),
                Some(lo) => {
                    let verdict = match tie.state {
                        Some(TieState::Through(w)) => format!(" -> {}", name(names, w)),
                        Some(TieState::Extra) => " -> extra pair".into(),
                        Some(TieState::Armageddon) => " -> Armageddon".into(),
                        None => " (playing)".into(),
                    };
                    let extra = if tie.extra_pairs > 0 {
                        format!(", {} extra pair(s)", tie.extra_pairs)
                    } else {
                        String::new()
                    };
                    format!(
                        "  {} {}-{} {}{extra}{verdict}",
                        name(names, hi),
                        tie.points.0,
                        tie.points.1,
                        name(names, lo)
                    )
                }
            };
            let _ = writeln!(out, "{line}");
        }
    }
    if let Some(w) = director::knockout_winner(&t.settings, &t.played, &t.byes)
        && t.ties(t.round()).len() == 1
    {
        let _ = writeln!(out, "winner: {}", name(names, w));
    }
    out
}

/// Everything `run show` prints of a tournament: its design, the bracket (knockout) or the
/// cross table (round robin), the rounds and the standings.
pub fn render(t: &Tournament, names: &[String], ratings: Option<&[Option<Rating>]>) -> String {
    let s = &t.settings;
    let mut out = String::new();
    let rounds = s.total_rounds(t.players);
    let tiebreaks: Vec<&str> = s.tiebreaks.iter().map(|b| b.as_str()).collect();
    let _ = writeln!(
        out,
        "tournament: {} of {} players, round {} of {rounds}, {} pair(s) a match, tiebreaks: {}",
        s.format,
        t.players,
        t.round(),
        s.pairs_per_match,
        if tiebreaks.is_empty() { "none".to_owned() } else { tiebreaks.join(", ") }
    );
    match s.format {
        TournamentFormat::Knockout => {
            out.push_str("bracket:\n");
            out.push_str(&bracket(t, names));
        }
        TournamentFormat::RoundRobin => {
            out.push_str("cross table (points / games):\n");
            out.push_str(&cross_table(t, names));
            out.push_str(&rounds_table(t, names));
        }
        TournamentFormat::Swiss | TournamentFormat::Random => out.push_str(&rounds_table(t, names)),
    }
    out.push_str("standings:\n");
    out.push_str(&standings_table(t, names, ratings));
    out
}
