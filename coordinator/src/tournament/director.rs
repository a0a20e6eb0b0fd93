//! The tournament director: given a tournament's matches and byes so far, what happens next.
//! A pure function of the stored rows, so the coordinator calls it inside the transaction
//! that records a round's last result: the next round is drawn and stored with it, or not at
//! all, and a restart finds either the old round still open or the new one stored.
//!
//! - A round is **complete** when every match of it has recorded all its pairs.
//! - **Round robin:** round r + 1 of the Berger table (cycles played back to back).
//! - **Swiss:** ranked by the standings so far, paired by [`swiss::pair`] (no rematch, one bye
//!   at most per player). A round that cannot be paired without a rematch stops the
//!   tournament ([`Advance::Stuck`]).
//! - **Random:** [`random::draw`] of the tournament's seed and the round.
//! - **Knockout:** a bracket seeded by the order of the variants ([`knockout::first_round`],
//!   byes to the top seeds). A tie (`slot`) that is level after its pairs plays extra pairs,
//!   one at a time, up to the settings' limit, then one Armageddon pair: its first game
//!   decides, the lower seed Red, and a draw sends Black (the higher seed) through. The second
//!   game of that pair is played (workers play pairs) and counts in the points, not in the
//!   decision. Winners of slots 2k and 2k + 1 meet in the next round.
//! - **Points** count every game played, extra and Armageddon games too; a bye scores every
//!   game of a match (`2 * pairs_per_match`) as won.

use std::collections::HashSet;

pub use proto::domain::{ByeSlot, Match, MatchStage as Stage};
use proto::domain::{PairingStats, RunKind, RunStatus, TournamentDraw, TournamentFormat, TournamentSettings};

use super::standings::{self, Bye, Game, Standing};
use super::{berger, knockout, random, swiss};

/// A stored match with what it has recorded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Played {
    pub m: Match,
    /// From `a`'s side.
    pub stats: PairingStats,
    /// An Armageddon pair's first game, Red's points (2, 1, 0), once recorded.
    pub armageddon_red_points: Option<u32>,
}

impl Played {
    fn complete(&self) -> bool {
        crate::scheduler::pairs_recorded(&self.stats) >= self.m.pairs
    }

    /// Points of `a` and `b` over the match's games.
    fn points(&self) -> (u32, u32) {
        let s = &self.stats;
        let (w, d, l) = (s.wins as u32, s.draws as u32, s.losses as u32);
        (standings::WIN * w + standings::DRAW * d, standings::WIN * l + standings::DRAW * d)
    }
}

/// What the director decides.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Advance {
    /// The current round still has pairs to play.
    Wait,
    /// Store these and play them (a new round, or a knockout round's extra games).
    Play { matches: Vec<Match>, byes: Vec<ByeSlot> },
    /// Every round is played.
    Finished,
    /// The next round cannot be paired (a Swiss with no pairing free of rematches): why.
    Stuck(String),
}

/// A player's maximum-likelihood rating: Elo and the half-width of its 95% interval. How it
/// is shown (beside the points, in a table or a page) is the caller's.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rating {
    pub elo: f64,
    pub error95: f64,
}

/// A tournament as stored: its design, its field and its draw so far with the results.
#[derive(Clone, Debug, PartialEq)]
pub struct Tournament {
    pub settings: TournamentSettings,
    pub players: usize,
    /// In pairing order.
    pub played: Vec<Played>,
    pub byes: Vec<ByeSlot>,
}

impl Tournament {
    /// A tournament of `players` players from its draw and its pairings' statistics (read
    /// apart, so a match drawn after the statistics were read counts as unplayed).
    pub fn from_draw(
        settings: &TournamentSettings,
        players: usize,
        draw: &TournamentDraw,
        stats: &[PairingStats],
    ) -> Tournament {
        let played = draw
            .matches
            .iter()
            .map(|r| Played {
                m: r.m,
                stats: stats.get(r.pairing as usize).copied().unwrap_or_default(),
                armageddon_red_points: r.armageddon_red_points,
            })
            .collect();
        Tournament { settings: settings.clone(), players, played, byes: draw.byes.clone() }
    }

    /// The tournament of a status, if it is one's.
    pub fn of_status(status: &RunStatus) -> Option<Tournament> {
        let (RunKind::Tournament(settings), Some(draw)) = (&status.run.spec.kind, &status.tournament) else {
            return None;
        };
        Some(Tournament::from_draw(settings, status.run.spec.variants.len(), draw, &status.run.stats))
    }

    /// The round being played (the last drawn).
    pub fn round(&self) -> u32 {
        current_round(&self.played, &self.byes)
    }

    /// The standings after round `through` (`u32::MAX`: everything recorded).
    pub fn standings(&self, through: u32) -> Vec<Standing> {
        standings_after(&self.settings, self.players, &self.played, &self.byes, through)
    }

    /// A knockout round's ties.
    pub fn ties(&self, round: u32) -> Vec<Tie> {
        knockout_ties(&self.settings, &self.played, &self.byes, round)
    }

    /// Points each player scored against each other (`[i][j]`: i's points against j), over
    /// every game recorded.
    pub fn cross_table(&self) -> Vec<Vec<u32>> {
        let mut t = vec![vec![0; self.players]; self.players];
        for p in &self.played {
            let (pa, pb) = p.points();
            t[p.m.a][p.m.b] += pa;
            t[p.m.b][p.m.a] += pb;
        }
        t
    }

    /// The maximum-likelihood rating of each player (the existing rating list, Ordo's model)
    /// from every game recorded, the first variant at 0 Elo; `None` for a player no chain of
    /// games links to it yet (before the first results, say).
    pub fn ratings(&self) -> Vec<Option<Rating>> {
        let results: Vec<analysis::stats::HeadToHead> = self
            .played
            .iter()
            .filter(|p| p.stats.games() > 0)
            .map(|p| analysis::stats::HeadToHead {
                a: p.m.a,
                b: p.m.b,
                wins: p.stats.wins,
                draws: p.stats.draws,
                losses: p.stats.losses,
            })
            .collect();
        let mut cells = vec![None; self.players];
        if results.is_empty() {
            return cells;
        }
        if let Ok(list) = analysis::stats::rating_list(self.players, &results, 0) {
            for r in list {
                if r.games > 0 || r.player == 0 {
                    cells[r.player] = Some(Rating { elo: r.elo, error95: r.error95 });
                }
            }
        }
        cells
    }

    /// Games recorded between each two players (`[i][j]`).
    pub fn games_between(&self) -> Vec<Vec<u64>> {
        let mut t = vec![vec![0; self.players]; self.players];
        for p in &self.played {
            let g = p.stats.games();
            t[p.m.a][p.m.b] += g;
            t[p.m.b][p.m.a] += g;
        }
        t
    }
}

/// The round being played: the highest round of any match or bye (0 before the first draw).
pub fn current_round(played: &[Played], byes: &[ByeSlot]) -> u32 {
    played.iter().map(|p| p.m.round).chain(byes.iter().map(|b| b.round)).max().unwrap_or(0)
}

/// The standings of `players` players after round `through` (every round for `u32::MAX`).
pub fn standings_after(
    settings: &TournamentSettings,
    players: usize,
    played: &[Played],
    byes: &[ByeSlot],
    through: u32,
) -> Vec<Standing> {
    let mut games = Vec::new();
    for p in played.iter().filter(|p| p.m.round <= through) {
        let (a, b, r) = (p.m.a, p.m.b, p.m.round);
        let s = &p.stats;
        let game = |red_points| Game { round: r, red: a, black: b, red_points };
        games.extend(std::iter::repeat_n(game(standings::WIN), s.wins as usize));
        games.extend(std::iter::repeat_n(game(standings::DRAW), s.draws as usize));
        games.extend(std::iter::repeat_n(game(0), s.losses as usize));
    }
    let per_bye = u32::try_from(settings.pairs_per_match.saturating_mul(2)).unwrap_or(u32::MAX);
    let byes: Vec<Bye> = byes
        .iter()
        .filter(|b| b.round <= through)
        .map(|b| Bye { round: b.round, player: b.player, games: per_bye })
        .collect();
    standings::standings(players, &games, &byes, &settings.tiebreaks)
}

/// The next step of a tournament of `players` players.
pub fn advance(settings: &TournamentSettings, players: usize, played: &[Played], byes: &[ByeSlot]) -> Advance {
    let round = current_round(played, byes);
    if played.iter().any(|p| p.m.round == round && !p.complete()) {
        return Advance::Wait;
    }
    let next = round + 1;
    let pairs = settings.pairs_per_match;
    let main = |slot: usize, a: usize, b: usize| Match {
        round: next,
        slot: u32::try_from(slot).unwrap_or(u32::MAX),
        a,
        b,
        stage: Stage::Main,
        pairs,
    };
    let bye =
        |slot: usize, player: usize| ByeSlot { round: next, slot: u32::try_from(slot).unwrap_or(u32::MAX), player };
    match settings.format {
        TournamentFormat::Knockout => knockout_step(settings, players, played, byes, round),
        _ if round >= settings.total_rounds(players) => Advance::Finished,
        TournamentFormat::RoundRobin => {
            let table = berger::rounds(players, settings.rounds as usize);
            let Some(boards) = table.get(round as usize) else {
                return Advance::Finished;
            };
            let mut matches = Vec::new();
            let mut sits = Vec::new();
            for (slot, board) in boards.iter().enumerate() {
                match board.black {
                    Some(black) => matches.push(main(slot, board.red - 1, black - 1)),
                    None => sits.push(bye(slot, board.red - 1)),
                }
            }
            Advance::Play { matches, byes: sits }
        }
        TournamentFormat::Swiss => {
            let ranked: Vec<usize> =
                standings_after(settings, players, played, byes, round).iter().map(|s| s.player).collect();
            let met: HashSet<(usize, usize)> = played.iter().flat_map(|p| [(p.m.a, p.m.b), (p.m.b, p.m.a)]).collect();
            let had_bye: HashSet<usize> = byes.iter().map(|b| b.player).collect();
            match swiss::pair(&ranked, &met, &had_bye) {
                Some(pairing) => {
                    let matches: Vec<Match> =
                        pairing.matches.iter().enumerate().map(|(slot, &(a, b))| main(slot, a, b)).collect();
                    let sits = pairing.bye.map(|p| bye(matches.len(), p)).into_iter().collect();
                    Advance::Play { matches, byes: sits }
                }
                None => Advance::Stuck(format!("Swiss round {next} cannot be paired without a rematch")),
            }
        }
        TournamentFormat::Random => {
            let had_bye: Vec<usize> = byes.iter().map(|b| b.player).collect();
            let (drawn, sits) = random::draw(players, settings.seed, next, &had_bye);
            let matches: Vec<Match> = drawn.iter().enumerate().map(|(slot, &(a, b))| main(slot, a, b)).collect();
            let sits = sits.map(|p| bye(matches.len(), p)).into_iter().collect();
            Advance::Play { matches, byes: sits }
        }
    }
}

/// How a knockout tie stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TieState {
    /// Decided: the player who goes through.
    Through(usize),
    /// Needs another extra pair, or its Armageddon pair.
    Extra,
    Armageddon,
}

/// A knockout tie of one round: its players (higher seed first) and its matches.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tie {
    pub round: u32,
    pub slot: u32,
    /// The higher seed (lower index), and the other player (`None` for a bye).
    pub players: (usize, Option<usize>),
    /// Points of each over the tie's games.
    pub points: (u32, u32),
    pub extra_pairs: u32,
    /// The decision so far (`None` while its pairs are still being played).
    pub state: Option<TieState>,
}

/// The ties of a knockout round, by slot.
pub fn knockout_ties(settings: &TournamentSettings, played: &[Played], byes: &[ByeSlot], round: u32) -> Vec<Tie> {
    let mut ties: Vec<Tie> = Vec::new();
    for b in byes.iter().filter(|b| b.round == round) {
        ties.push(Tie {
            round,
            slot: b.slot,
            players: (b.player, None),
            points: (0, 0),
            extra_pairs: 0,
            state: Some(TieState::Through(b.player)),
        });
    }
    let mut slots: Vec<u32> = played.iter().filter(|p| p.m.round == round).map(|p| p.m.slot).collect();
    slots.sort_unstable();
    slots.dedup();
    for slot in slots {
        let matches: Vec<&Played> = played.iter().filter(|p| p.m.round == round && p.m.slot == slot).collect();
        let (hi, lo) = {
            let m = &matches[0].m;
            (m.a.min(m.b), m.a.max(m.b))
        };
        let mut points = (0, 0);
        for p in &matches {
            let (pa, pb) = p.points();
            if p.m.a == hi {
                points = (points.0 + pa, points.1 + pb);
            } else {
                points = (points.0 + pb, points.1 + pa);
            }
        }
        let extra_pairs = matches.iter().filter(|p| p.m.stage == Stage::Extra).count() as u32;
        let state = if !matches.iter().all(|p| p.complete()) {
            None
        } else if let Some(arm) = matches.iter().find(|p| p.m.stage == Stage::Armageddon) {
            // Its `a` is Red in the deciding game.
            let red_through = arm.armageddon_red_points.is_some_and(knockout::armageddon_red_through);
            Some(TieState::Through(if red_through { arm.m.a } else { arm.m.b }))
        } else {
            let main_points = matches.iter().filter(|p| p.m.stage != Stage::Armageddon).fold((0, 0), |acc, p| {
                let (pa, pb) = p.points();
                if p.m.a == hi { (acc.0 + pa, acc.1 + pb) } else { (acc.0 + pb, acc.1 + pa) }
            });
            Some(match knockout::decide(main_points, extra_pairs, settings.extra_pairs) {
                knockout::Decision::Through(first) => TieState::Through(if first { hi } else { lo }),
                knockout::Decision::ExtraPair => TieState::Extra,
                knockout::Decision::Armageddon => TieState::Armageddon,
            })
        };
        ties.push(Tie { round, slot, players: (hi, Some(lo)), points, extra_pairs, state });
    }
    ties.sort_by_key(|t| t.slot);
    ties
}

fn knockout_step(
    settings: &TournamentSettings,
    players: usize,
    played: &[Played],
    byes: &[ByeSlot],
    round: u32,
) -> Advance {
    let next = round + 1;
    let slot_of = |i: usize| u32::try_from(i).unwrap_or(u32::MAX);
    if round == 0 {
        let mut matches = Vec::new();
        let mut sits = Vec::new();
        for (slot, (a, b)) in knockout::first_round(players).into_iter().enumerate() {
            match b {
                Some(b) => matches.push(Match {
                    round: 1,
                    slot: slot_of(slot),
                    a: a - 1,
                    b: b - 1,
                    stage: Stage::Main,
                    pairs: settings.pairs_per_match,
                }),
                None => sits.push(ByeSlot { round: 1, slot: slot_of(slot), player: a - 1 }),
            }
        }
        return Advance::Play { matches, byes: sits };
    }
    let ties = knockout_ties(settings, played, byes, round);
    let mut more = Vec::new();
    let mut winners = Vec::new();
    for tie in &ties {
        let (hi, lo) = (tie.players.0, tie.players.1.unwrap_or(tie.players.0));
        match tie.state {
            Some(TieState::Through(w)) => winners.push(w),
            Some(TieState::Extra) => {
                more.push(Match { round, slot: tie.slot, a: hi, b: lo, stage: Stage::Extra, pairs: 1 })
            }
            // The lower seed is Red in the deciding game; a draw goes to Black.
            Some(TieState::Armageddon) => {
                more.push(Match { round, slot: tie.slot, a: lo, b: hi, stage: Stage::Armageddon, pairs: 1 })
            }
            None => return Advance::Wait,
        }
    }
    if !more.is_empty() {
        return Advance::Play { matches: more, byes: Vec::new() };
    }
    if winners.len() <= 1 {
        return Advance::Finished;
    }
    let matches = winners
        .chunks(2)
        .enumerate()
        .map(|(slot, w)| {
            let (a, b) = (w[0].min(w[1]), w[0].max(w[1]));
            Match { round: next, slot: slot_of(slot), a, b, stage: Stage::Main, pairs: settings.pairs_per_match }
        })
        .collect();
    Advance::Play { matches, byes: Vec::new() }
}

/// The champion of a finished knockout: the winner of its last tie.
pub fn knockout_winner(settings: &TournamentSettings, played: &[Played], byes: &[ByeSlot]) -> Option<usize> {
    let round = current_round(played, byes);
    match knockout_ties(settings, played, byes, round).as_slice() {
        [only] => match only.state {
            Some(TieState::Through(w)) => Some(w),
            _ => None,
        },
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use proto::domain::Tiebreak;

    use super::*;

    /// Plays every open match with `result(a, b)` = a's (wins, draws, losses) per match and
    /// Armageddon first games with `arm(red)`: Red's points.
    fn run(
        settings: &TournamentSettings,
        players: usize,
        result: impl Fn(&Match) -> (u64, u64, u64),
        arm: impl Fn(usize, usize) -> u32,
    ) -> (Vec<Played>, Vec<ByeSlot>, Advance) {
        let mut played: Vec<Played> = Vec::new();
        let mut byes: Vec<ByeSlot> = Vec::new();
        for _ in 0..1_000 {
            match advance(settings, players, &played, &byes) {
                Advance::Play { matches, byes: b } => {
                    for m in matches {
                        let (w, d, l) = result(&m);
                        assert_eq!(w + d + l, 2 * m.pairs, "a pair is two games");
                        let mut stats = PairingStats { wins: w, draws: d, losses: l, ..PairingStats::default() };
                        stats.pentanomial[2] = m.pairs;
                        let armageddon_red_points = (m.stage == Stage::Armageddon).then(|| arm(m.a, m.b));
                        played.push(Played { m, stats, armageddon_red_points });
                    }
                    byes.extend(b);
                }
                other => return (played, byes, other),
            }
        }
        panic!("no end");
    }

    #[test]
    fn a_round_robin_plays_the_berger_table_once_per_cycle() {
        let s = TournamentSettings::new(TournamentFormat::RoundRobin, 2);
        let (played, byes, end) = run(&s, 5, |_| (1, 0, 1), |_, _| 0);
        assert_eq!(end, Advance::Finished);
        // 5 players: 5 rounds a cycle, 2 matches and 1 bye each.
        assert_eq!(current_round(&played, &byes), 10);
        assert_eq!((played.len(), byes.len()), (20, 10));
        for a in 0..5 {
            for b in a + 1..5 {
                let meetings = played.iter().filter(|p| (p.m.a.min(p.m.b), p.m.a.max(p.m.b)) == (a, b)).count();
                assert_eq!(meetings, 2, "{a}-{b} meet once per cycle");
            }
        }
    }

    #[test]
    fn the_next_round_waits_for_the_last_pair_of_this_one() {
        let s = TournamentSettings::new(TournamentFormat::Swiss, 3);
        let Advance::Play { matches, .. } = advance(&s, 4, &[], &[]) else { panic!("round 1") };
        let mut played: Vec<Played> = matches
            .iter()
            .map(|&m| Played { m, stats: PairingStats::default(), armageddon_red_points: None })
            .collect();
        assert_eq!(advance(&s, 4, &played, &[]), Advance::Wait);
        played[0].stats.pentanomial[4] = 1;
        played[0].stats.wins = 2;
        assert_eq!(advance(&s, 4, &played, &[]), Advance::Wait, "one match still open");
        played[1].stats.pentanomial[2] = 1;
        played[1].stats.draws = 2;
        assert!(matches!(advance(&s, 4, &played, &[]), Advance::Play { .. }));
    }

    #[test]
    fn a_swiss_pairs_winners_together_and_never_rematches() {
        let s = TournamentSettings::new(TournamentFormat::Swiss, 3);
        // The lower index always wins both games.
        let (played, _, end) = run(&s, 4, |m| if m.a < m.b { (2, 0, 0) } else { (0, 0, 2) }, |_, _| 0);
        assert_eq!(end, Advance::Finished);
        assert_eq!(played.len(), 6);
        // Round 1 pairs by entry order (0-1, 2-3); round 2 the two winners (0 and 2).
        let r2: Vec<(usize, usize)> = played.iter().filter(|p| p.m.round == 2).map(|p| (p.m.a, p.m.b)).collect();
        assert_eq!(r2, [(0, 2), (1, 3)]);
        let st = standings_after(&s, 4, &played, &[], u32::MAX);
        assert_eq!(st.iter().map(|l| (l.player, l.points)).collect::<Vec<_>>(), [(0, 12), (1, 8), (2, 4), (3, 0)]);
    }

    #[test]
    fn an_odd_swiss_gives_each_bye_once_scored_as_a_won_match() {
        let mut s = TournamentSettings::new(TournamentFormat::Swiss, 3);
        s.pairs_per_match = 2;
        s.tiebreaks = vec![Tiebreak::Wins];
        let (played, byes, end) = run(&s, 5, |m| (2, m.pairs * 2 - 2, 0), |_, _| 0);
        assert_eq!(end, Advance::Finished);
        assert_eq!(byes.len(), 3);
        let mut sat: Vec<usize> = byes.iter().map(|b| b.player).collect();
        sat.sort_unstable();
        sat.dedup();
        assert_eq!(sat.len(), 3, "no second bye: {byes:?}");
        let st = standings_after(&s, 5, &played, &byes, 1);
        let bye1 = byes.iter().find(|b| b.round == 1).expect("a bye in round 1").player;
        let line = st.iter().find(|l| l.player == bye1).expect("a line");
        assert_eq!((line.points, line.games, line.wins), (8, 4, 4), "a bye wins every game of a 2-pair match");
    }

    #[test]
    fn a_swiss_round_that_cannot_be_paired_without_a_rematch_is_named() {
        // Five players, four rounds, the first listed always scoring best: by round 4 the
        // players left without a bye have all met.
        let mut s = TournamentSettings::new(TournamentFormat::Swiss, 4);
        s.pairs_per_match = 2;
        s.tiebreaks = vec![Tiebreak::Wins];
        let (played, _, end) = run(&s, 5, |m| (2, m.pairs * 2 - 2, 0), |_, _| 0);
        assert_eq!(end, Advance::Stuck("Swiss round 4 cannot be paired without a rematch".into()));
        let mut seen = HashSet::new();
        assert!(played.iter().all(|p| seen.insert((p.m.a.min(p.m.b), p.m.a.max(p.m.b)))), "no rematch was played");
    }

    #[test]
    fn a_knockout_goes_through_extra_pairs_then_armageddon_and_crowns_one() {
        let mut s = TournamentSettings::new(TournamentFormat::Knockout, 0);
        s.extra_pairs = 1;
        // Every pair is 1-1 (one win each), so every tie goes to Armageddon; the deciding
        // game is drawn, so Black (the higher seed) goes through.
        let (played, byes, end) = run(&s, 4, |_| (1, 0, 1), |_, _| 1);
        assert_eq!(end, Advance::Finished);
        assert!(byes.is_empty());
        let stages = |round: u32| -> Vec<Stage> {
            played.iter().filter(|p| p.m.round == round && p.m.slot == 0).map(|p| p.m.stage).collect()
        };
        assert_eq!(stages(1), [Stage::Main, Stage::Extra, Stage::Armageddon]);
        // Seed 1 (index 0) beat seed 4, seed 2 beat seed 3, then seed 1 beat seed 2.
        let final_: Vec<&Played> = played.iter().filter(|p| p.m.round == 2).collect();
        assert_eq!((final_[0].m.a, final_[0].m.b), (0, 1));
        let arm = final_.iter().find(|p| p.m.stage == Stage::Armageddon).expect("an Armageddon");
        assert_eq!((arm.m.a, arm.m.b), (1, 0), "the lower seed is Red");
        assert_eq!(knockout_winner(&s, &played, &byes), Some(0));
    }

    #[test]
    fn a_knockout_decided_in_its_pairs_needs_no_extra_and_byes_go_through() {
        let s = TournamentSettings::new(TournamentFormat::Knockout, 0);
        // The higher index wins: upsets everywhere.
        let (played, byes, end) = run(&s, 6, |m| if m.a > m.b { (2, 0, 0) } else { (0, 0, 2) }, |_, _| 0);
        assert_eq!(end, Advance::Finished);
        // 6 players in a bracket of 8: seeds 1 and 2 have byes.
        assert_eq!(byes.iter().map(|b| b.player).collect::<Vec<_>>(), [0, 1]);
        assert!(played.iter().all(|p| p.m.stage == Stage::Main));
        // Round 1: 4-5 (seeds 4v5) -> 4 wins; 2-7.. (3v6) -> 5 wins. Round 2: 0 v 4 -> 4; 1 v 5 -> 5.
        assert_eq!(knockout_winner(&s, &played, &byes), Some(5));
    }

    #[test]
    fn a_random_draw_is_reproducible_from_its_seed() {
        let s = TournamentSettings { seed: 7, ..TournamentSettings::new(TournamentFormat::Random, 3) };
        let (a, _, _) = run(&s, 6, |_| (1, 0, 1), |_, _| 0);
        let (b, _, _) = run(&s, 6, |_| (0, 2, 0), |_, _| 0);
        let pairs = |p: &[Played]| p.iter().map(|x| (x.m.round, x.m.a, x.m.b)).collect::<Vec<_>>();
        assert_eq!(pairs(&a), pairs(&b), "the draw depends on the seed, not the results");
        let other = TournamentSettings { seed: 8, ..s.clone() };
        let (c, _, _) = run(&other, 6, |_| (1, 0, 1), |_, _| 0);
        assert_ne!(pairs(&a), pairs(&c));
    }
}
