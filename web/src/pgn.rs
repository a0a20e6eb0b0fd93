//! The `[Event]` and `[Round]` of a run's games as PGN, which `engine::pgn` writes (the web's
//! downloads and `xqfarm export pgn`). Variants appear by name in `[Red]`/`[Black]`, their
//! content ids in `[RedId]`/`[BlackId]`.

/// The `[Event]` and `[Round]` of a run's games: `xqfarm run N` and `pair.game` for most runs;
/// for a tournament its name and `round.game`, the game numbered within its match (a match's
/// games in recording order: pass them in game id order).
#[derive(Clone, Debug)]
pub struct EventRound {
    run: u64,
    /// A tournament's name and each match's (pairing's) round.
    tournament: Option<(String, Vec<u32>)>,
    /// Games seen so far per match.
    seen: std::collections::HashMap<u32, u32>,
}

impl EventRound {
    pub fn new(run: u64, run_name: &str, draw: Option<&proto::domain::TournamentDraw>) -> EventRound {
        let tournament = draw.map(|d| (run_name.to_owned(), d.matches.iter().map(|m| m.m.round).collect()));
        EventRound { run, tournament, seen: std::collections::HashMap::new() }
    }

    /// The headers of the next game (`pairing`: its pair's pairing).
    pub fn next(&mut self, pairing: u32, pair_index: u64, game_in_pair: u8) -> (String, String) {
        match &self.tournament {
            Some((name, rounds)) => {
                let n = self.seen.entry(pairing).or_insert(0);
                *n += 1;
                let round = rounds.get(pairing as usize).map_or_else(|| "?".to_owned(), u32::to_string);
                (name.clone(), format!("{round}.{n}"))
            }
            None => (format!("xqfarm run {}", self.run), format!("{pair_index}.{}", game_in_pair + 1)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tournament_game_is_headed_by_its_name_and_round_dot_game() {
        use proto::domain::{Match, MatchRow, MatchStage, TournamentDraw};
        let m = |pairing, round| MatchRow {
            pairing,
            m: Match { round, slot: 0, a: 0, b: 1, stage: MatchStage::Main, pairs: 2 },
            armageddon_red_points: None,
        };
        let draw = TournamentDraw { matches: vec![m(0, 1), m(1, 1), m(2, 2)], byes: vec![], names: vec![] };
        let mut h = EventRound::new(7, "Spring swiss", Some(&draw));
        assert_eq!(h.next(1, 0, 0), ("Spring swiss".into(), "1.1".into()));
        assert_eq!(h.next(1, 0, 1), ("Spring swiss".into(), "1.2".into()));
        assert_eq!(h.next(2, 5, 0), ("Spring swiss".into(), "2.1".into()));
        assert_eq!(h.next(1, 3, 0), ("Spring swiss".into(), "1.3".into()));
        let mut other = EventRound::new(7, "an sprt", None);
        assert_eq!(other.next(0, 4, 1), ("xqfarm run 7".into(), "4.2".into()));
    }
}
