//! A run's status as text: the live progress line and the final summary.

use proto::domain::RunStatus;

/// One line: games, W/D/L, pentanomial, Elo, and the LLR of an SPRT.
pub fn progress_line(status: &RunStatus) -> String {
    let Some(l) = status.live.first() else {
        return format!("run {}: no statistics", status.run.id);
    };
    let c = &l.counts;
    if let proto::domain::RunKind::Datagen(_) = status.run.spec.kind {
        return format!("games {} W {} D {} L {} (datagen: no Elo)", c.games(), c.wins, c.draws, c.losses);
    }
    let mut line = format!(
        "games {} W {} D {} L {} ptnml {:?} Elo {:+.1} +- {:.1} nElo {:+.1}",
        c.games(),
        c.wins,
        c.draws,
        c.losses,
        c.pentanomial,
        l.elo,
        (l.elo_upper - l.elo_lower) / 2.0,
        l.nelo
    );
    if let Some(s) = &l.sprt {
        line.push_str(&format!(" LLR {:.2} ({:.2}, {:.2})", s.llr, s.lower_bound, s.upper_bound));
    }
    line
}

/// A finished run in a few lines (`sprt.txt`, `summary.txt`, `run show`).
pub fn summary(status: &RunStatus) -> String {
    let mut out = String::new();
    out.push_str(&format!("run {}: {}\n", status.run.id, status.run.spec.name));
    out.push_str(&format!("state: {}\n", status.run.state.name().as_str()));
    for engine in &status.missing_engines {
        out.push_str(&format!(
            "waiting: no connected worker has engine `{engine}` (with the binary the run pinned, if any)\n"
        ));
    }
    if let proto::domain::RunKind::Tournament(_) = status.run.spec.kind {
        // Every match is a pairing: the games add up; points and ratings are the tournament's.
        let games: u64 = status.run.stats.iter().map(|s| s.games()).sum();
        out.push_str(&format!("games: {games} in {} matches\n", status.run.stats.len()));
    } else if let (proto::domain::RunKind::Datagen(d), Some(l)) = (&status.run.spec.kind, status.live.first()) {
        // Self-play for training data: no Elo. The positions are every ply of these games.
        let c = &l.counts;
        out.push_str(&format!(
            "games: {} of {}  W {}  D {}  L {} (each pair's first player's view)\n",
            c.games(),
            2 * d.pairs,
            c.wins,
            c.draws,
            c.losses
        ));
        out.push_str(&format!("random plies: {}; every position recorded\n", d.random_plies));
    } else if let Some(l) = status.live.first() {
        let c = &l.counts;
        out.push_str(&format!(
            "games: {}  W {}  D {}  L {} (candidate's view)\n",
            c.games(),
            c.wins,
            c.draws,
            c.losses
        ));
        out.push_str(&format!("pentanomial: {:?}\n", c.pentanomial));
        out.push_str(&format!("elo: {:+.2} [{:+.2}, {:+.2}]\n", l.elo, l.elo_lower, l.elo_upper));
        out.push_str(&format!("nelo: {:+.2} [{:+.2}, {:+.2}]\n", l.nelo, l.nelo_lower, l.nelo_upper));
        out.push_str(&format!("los: {:.2}%\n", 100.0 * l.los));
        if let Some(s) = &l.sprt {
            out.push_str(&format!("llr: {:.3} ({:.3}, {:.3})\n", s.llr, s.lower_bound, s.upper_bound));
        }
    }
    out.push_str(&spsa_table(status));
    out
}

/// An SPSA run's current values beside their start values and ranges (empty for other runs).
pub fn spsa_table(status: &RunStatus) -> String {
    if status.spsa.is_empty() {
        return String::new();
    }
    let width = status.spsa.iter().map(|p| p.name.len()).max().unwrap_or(4).max(9);
    let mut out = format!("{:<width$}  {:>10}  {:>10}  {:>9}  range\n", "parameter", "value", "start", "change");
    for p in &status.spsa {
        let change = p.value - p.start;
        out.push_str(&format!(
            "{:<width$}  {:>10.3}  {:>10.3}  {:>+9.3}  {}..={}\n",
            p.name, p.value, p.start, change, p.min, p.max
        ));
    }
    out
}
