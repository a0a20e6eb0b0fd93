//! The shape of a reported pair (its players and bounded texts): the referee's first step.

use proto::domain::{GameReport, LeaseId, PairReport, PairTask, VariantId};

use crate::error::{Error, Result};

/// Most plies a reported game may have.
pub const MAX_GAME_PLIES: usize = 4_096;
/// Longest FEN accepted.
pub const MAX_FEN_BYTES: usize = 256;
/// Longest move text accepted (`h2e2` is 4).
pub const MAX_MOVE_BYTES: usize = 8;
/// Longest game duration accepted: thirty days.
pub const MAX_GAME_DURATION_MS: u64 = 30 * 24 * 3600 * 1000;
/// Most nodes one game may report: keeps every total within `i64` for storage.
pub const MAX_GAME_NODES: u64 = 1 << 50;

/// A move as the farm stores it: short ASCII letters and digits. Moves are stored space-
/// separated, so this also keeps the storage unambiguous.
pub fn is_move_text(m: &str) -> bool {
    !m.is_empty() && m.len() <= MAX_MOVE_BYTES && m.bytes().all(|b| b.is_ascii_alphanumeric())
}

fn check_game(
    lease: LeaseId,
    pair: u64,
    which: usize,
    game: &GameReport,
    red: &VariantId,
    black: &VariantId,
) -> Result<()> {
    let bad = |reason: String| Err(Error::invalid_report(lease, pair, format!("game {which}: {reason}")));
    if game.red != *red || game.black != *black {
        return bad(format!("expected Red {red} and Black {black}, got {} and {}", game.red, game.black));
    }
    if game.start_fen.trim().is_empty() || game.start_fen.len() > MAX_FEN_BYTES {
        return bad(format!("start FEN must be 1..={MAX_FEN_BYTES} bytes"));
    }
    if game.moves.len() > MAX_GAME_PLIES {
        return bad(format!("{} plies, at most {MAX_GAME_PLIES}", game.moves.len()));
    }
    if let Some(m) = game.moves.iter().find(|m| !is_move_text(m)) {
        return bad(format!("move {m:?} is not a move"));
    }
    if game.duration_ms > MAX_GAME_DURATION_MS || game.nodes > MAX_GAME_NODES {
        return bad(format!("duration {} ms or {} nodes is beyond any real game", game.duration_ms, game.nodes));
    }
    if game.positions.len() > game.moves.len() + 1 {
        return bad(format!("{} sampled positions for {} plies", game.positions.len(), game.moves.len()));
    }
    for p in &game.positions {
        if p.fen.trim().is_empty() || p.fen.len() > MAX_FEN_BYTES {
            return bad(format!("sampled position at ply {} has no valid FEN", p.ply));
        }
        if !p.best_move.is_empty() && !is_move_text(&p.best_move) {
            return bad(format!("sampled position at ply {} has best move {:?}", p.ply, p.best_move));
        }
        if p.ply as usize > game.moves.len() {
            return bad(format!("sampled ply {} is past the game's end", p.ply));
        }
    }
    Ok(())
}

/// Checks a reported pair against its task: game 0 has `variants[0]` as Red and game 1 swaps
/// colours; both start from the same position unless the task gave each game its own
/// (`second_opening`: the replay checks each against its own); texts are bounded.
pub fn check_pair(lease: LeaseId, report: &PairReport, task: &PairTask) -> Result<()> {
    let [v0, v1] = &task.variants;
    check_game(lease, report.pair_index, 0, &report.games[0], v0, v1)?;
    check_game(lease, report.pair_index, 1, &report.games[1], v1, v0)?;
    if task.second_opening.is_none() && report.games[0].start_fen != report.games[1].start_fen {
        return Err(Error::invalid_report(lease, report.pair_index, "the two games start from different positions"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proto::domain::{GameOutcome, PairingStats};

    fn game(red: &str, black: &str, outcome: GameOutcome) -> GameReport {
        GameReport {
            red: red.into(),
            black: black.into(),
            start_fen: "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w".into(),
            outcome,
            reason: proto::domain::Termination::Rules(engine::rules::Reason::Checkmate),
            moves: vec!["h2e2".into(), "h9g7".into()],
            move_stats: vec![Default::default(); 2],
            forfeit: None,
            duration_ms: 10,
            nodes: 100,
            positions: vec![],
        }
    }

    fn pair(o0: GameOutcome, o1: GameOutcome) -> PairReport {
        PairReport { pair_index: 3, games: [game("a", "b", o0), game("b", "a", o1)] }
    }

    /// The farm tallies a checked pair with `PairingStats::add_pair`, from the side of the
    /// task's `variants[0]`.
    #[test]
    fn tallies_are_from_the_first_variants_side() {
        use GameOutcome::*;
        let mut stats = PairingStats::default();
        stats.add_pair(pair(RedWins, BlackWins).outcomes()); // a wins both: 4 half points
        stats.add_pair(pair(RedWins, RedWins).outcomes()); // one each: 2
        stats.add_pair(pair(Draw, RedWins).outcomes()); // a draws and loses: 1
        assert_eq!(stats.pentanomial, [0, 1, 1, 0, 1]);
        assert_eq!((stats.wins, stats.draws, stats.losses), (3, 1, 2));
    }

    #[test]
    fn reports_must_match_their_task() {
        let variants = PairTask {
            pair_index: 3,
            pairing: 0,
            opening_index: 0,
            opening: "startpos".into(),
            second_opening: None,
            variants: ["a".into(), "b".into()],
        };
        let good = pair(GameOutcome::Draw, GameOutcome::Draw);
        assert!(check_pair(LeaseId::new(1), &good, &variants).is_ok());
        let mut swapped = good.clone();
        swapped.games.swap(0, 1);
        assert!(check_pair(LeaseId::new(1), &swapped, &variants).is_err());
        let mut bad_move = good.clone();
        bad_move.games[1].moves.push("h2 e2".into());
        assert!(check_pair(LeaseId::new(1), &bad_move, &variants).is_err());
        let mut other_start = good.clone();
        other_start.games[1].start_fen = "9/9/9/9/9/9/9/9/9/4K4 w".into();
        assert!(check_pair(LeaseId::new(1), &other_start, &variants).is_err());
        // A task that gave each game its own opening (datagen) lets them start apart; the
        // replay holds each to its own.
        let own = PairTask { second_opening: Some("9/9/9/9/9/9/9/9/9/4K4 w".into()), ..variants.clone() };
        assert!(check_pair(LeaseId::new(1), &other_start, &own).is_ok());
        let mut too_long = good;
        too_long.games[0].moves = vec!["a0a1".into(); MAX_GAME_PLIES + 1];
        assert!(matches!(check_pair(LeaseId::new(1), &too_long, &variants), Err(Error::InvalidReport { pair: 3, .. })));
    }
}
