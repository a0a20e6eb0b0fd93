//! The farm's domain types: what coordinator and worker talk about, free of any generated
//! protobuf type. `convert.rs` is the one place that maps them to and from the wire.

use std::fmt;
use std::str::FromStr;

use engine::nnue::SimdLevel;

mod adjudication;
mod clock;
mod datagen;
mod engines;
mod ids;
mod live;
mod names;
mod run_request;
mod spsa;
mod table_pin;
mod termination;
mod tournament;
mod validate;
mod work;

pub use adjudication::{Adjudicated, Adjudication, Adjudicator, GAME_PLY_CAP, NO_ADJUDICATION};
pub use clock::{GameClock, Overrun};
pub use datagen::{DATAGEN_TC, DEFAULT_RANDOM_PLIES, DatagenSettings, MAX_RANDOM_PLIES};
pub use engines::{EngineInfo, MAX_ENGINE_NAME_BYTES, check_engine_name, check_sha256, parse_engine_option};
pub use ids::{LeaseId, RunId, SuiteId, VariantId, WorkerId};
pub use live::{LiveStats, RunStatus, SprtProgress};
pub use names::{EloModel, EngineProtocol, GameOutcome, RunKindName, RunStateName};
pub use run_request::RunRequest;
pub use spsa::{
    HistoryPoint, MAX_SPSA_PARAMS, SPSA_A_RATIO, SPSA_ALPHA, SPSA_GAMMA, SpsaBatch, SpsaLineError, SpsaParam,
    SpsaPoint, SpsaSettings, SpsaValue, parse_spsa_lines,
};
pub use table_pin::TablePin;
pub use termination::Termination;
pub use tournament::{
    ByeSlot, DEFAULT_TIEBREAKS, MAX_EXTRA_PAIRS, MAX_ROUND_ROBIN_CYCLES, MAX_TOURNAMENT_ROUNDS, Match, MatchRow,
    MatchStage, Tiebreak, TournamentDraw, TournamentFormat, TournamentSettings, parse_tiebreaks,
};
pub use validate::{
    MAX_DEPTH, MAX_NAME_BYTES, MAX_NETWORK_BYTES, MAX_OPENING_BYTES, MAX_RUN_PAIRS, MAX_RUN_VARIANTS,
    MAX_SUITE_OPENINGS, MAX_TIME_MS, MAX_VARIANT_TEXT_BYTES, MAX_WORKER_KEY_BYTES, NETWORK_CHUNK_BYTES, validate_suite,
};
pub use work::{BatchAck, BatchResult, LeaseGrant, LeaseReply, LeaseRequest, SubmitRequest};

/// What plays: the in-process engine with a parameter set, or an external engine.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum VariantKind {
    /// The engine built into the worker, with these parameters (TOML text as
    /// `xqengine params --dump` writes it).
    Params { toml: String },
    /// An external engine: one the workers were given under this name (`worker --engine
    /// NAME=PATH`; its path and arguments are the worker's), started as a child process. Only
    /// workers that advertise the engine get leases that name it.
    External { engine: String, protocol: EngineProtocol, options: Vec<(String, String)> },
}

impl VariantKind {
    /// The worker engine an external variant names; `None` for the in-process engine.
    pub fn engine(&self) -> Option<&str> {
        match self {
            VariantKind::External { engine, .. } => Some(engine),
            VariantKind::Params { .. } => None,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct VariantSpec {
    pub name: String,
    pub kind: VariantKind,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Variant {
    pub id: VariantId,
    pub spec: VariantSpec,
}

/// How long players may think, per move or by clock.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TimeControl {
    Nodes(u64),
    Depth(u32),
    MoveTimeMs(u64),
    /// Base and increment in milliseconds; the worker keeps the clock.
    Clock {
        base_ms: u64,
        inc_ms: u64,
    },
}

impl fmt::Display for TimeControl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TimeControl::Nodes(n) => write!(f, "nodes={n}"),
            TimeControl::Depth(d) => write!(f, "depth={d}"),
            TimeControl::MoveTimeMs(t) => write!(f, "movetime={t}"),
            TimeControl::Clock { base_ms, inc_ms } => {
                write!(f, "{}+{}", *base_ms as f64 / 1000.0, *inc_ms as f64 / 1000.0)
            }
        }
    }
}

impl FromStr for TimeControl {
    type Err = String;
    /// `nodes=N`, `depth=N`, `movetime=MS`, or `BASE+INC` in seconds (`10+0.1`), within
    /// [`TimeControl::validate`]'s bounds.
    fn from_str(s: &str) -> Result<TimeControl, String> {
        let bad = || format!("time control `{s}`: expected nodes=N, depth=N, movetime=MS or BASE+INC seconds");
        let tc = if let Some((key, value)) = s.split_once('=') {
            let n: u64 = value.trim().parse().map_err(|_| bad())?;
            match key.trim() {
                "nodes" => TimeControl::Nodes(n),
                "depth" => TimeControl::Depth(u32::try_from(n).unwrap_or(u32::MAX)),
                "movetime" => TimeControl::MoveTimeMs(n),
                _ => return Err(bad()),
            }
        } else {
            let (base, inc) = s.split_once('+').ok_or_else(bad)?;
            let ms = |t: &str| -> Result<u64, String> {
                let v: f64 = t.trim().parse().map_err(|_| bad())?;
                if v.is_nan() || v < 0.0 {
                    return Err(bad());
                }
                // Saturates for huge values, which the bounds then refuse.
                Ok((v * 1000.0).round() as u64)
            };
            TimeControl::Clock { base_ms: ms(base)?, inc_ms: ms(inc)? }
        };
        tc.validate().map_err(|e| format!("time control `{s}`: {e}"))?;
        Ok(tc)
    }
}

/// The design of an SPRT: H0 is elo = elo0, H1 is elo = elo1, in the Elo of `model`; alpha is
/// the largest false positive rate (reached at elo0), beta the largest false negative rate (at
/// elo1).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SprtSettings {
    pub elo0: f64,
    pub elo1: f64,
    pub alpha: f64,
    pub beta: f64,
    pub model: EloModel,
}

impl Default for SprtSettings {
    /// Fishtest's defaults: [0, 5], alpha = beta = 0.05, in normalized Elo.
    fn default() -> SprtSettings {
        SprtSettings { elo0: 0.0, elo1: 5.0, alpha: 0.05, beta: 0.05, model: EloModel::Normalized }
    }
}

impl SprtSettings {
    /// The one check of an SPRT's design, wherever one comes from (the wire, a command line,
    /// the store): finite bounds with elo0 < elo1, 0 < alpha, 0 < beta and alpha + beta < 1,
    /// so that Wald's lower bound is below 0 and the upper one above. The error names the
    /// field (`elo0`, `elo1`, `alpha`, `beta`).
    pub fn validate(&self) -> crate::Result<()> {
        let bad = |field: &str, reason: String| Err(crate::Error::InvalidField { field: field.into(), reason });
        for (field, value) in [("elo0", self.elo0), ("elo1", self.elo1)] {
            if !value.is_finite() {
                return bad(field, format!("must be a finite number, got {value}"));
            }
        }
        if self.elo1 <= self.elo0 {
            return bad("elo1", format!("must exceed elo0 ({}), got {}", self.elo0, self.elo1));
        }
        // The negated comparison also rejects NaN.
        for (field, value) in [("alpha", self.alpha), ("beta", self.beta)] {
            if !(value > 0.0 && value < 1.0) {
                return bad(field, format!("must lie strictly between 0 and 1, got {value}"));
            }
        }
        if self.alpha + self.beta >= 1.0 {
            return bad("beta", format!("alpha + beta must be below 1, got {} + {}", self.alpha, self.beta));
        }
        Ok(())
    }

    /// Wald's stopping bounds on the LLR: accept H0 at or below ln(beta / (1 - alpha)), H1 at
    /// or above ln((1 - beta) / alpha); ±2.944 for alpha = beta = 0.05.
    pub fn bounds(&self) -> (f64, f64) {
        ((self.beta / (1.0 - self.alpha)).ln(), ((1.0 - self.beta) / self.alpha).ln())
    }
}

/// What a run plays. `RunSpec::variants` gives the players: SPRT `[base, candidate]`,
/// fixed games `[a, b]`, gauntlet `[candidate, opponent...]`, round robin all of them, SPSA and
/// datagen the one variant.
#[derive(Clone, Debug, PartialEq)]
pub enum RunKind {
    Sprt(SprtSettings),
    /// A fixed number of game pairs between the two variants.
    Games {
        pairs: u64,
    },
    /// This many pairs of the candidate against each opponent.
    Gauntlet {
        pairs_per_opponent: u64,
    },
    /// This many pairs for every pairing of the variants.
    RoundRobin {
        pairs_per_pairing: u64,
    },
    /// Fishtest's SPSA over one variant's parameters: each pair plays theta + c_k * flip
    /// (the task's `variants[0]`) against theta - c_k * flip (`variants[1]`, the same id).
    Spsa(SpsaSettings),
    /// A tournament played in rounds (`TournamentSettings`); its pairings are the matches
    /// the coordinator draws round by round, not known in advance.
    Tournament(TournamentSettings),
    /// Training data: the one variant against itself, every position recorded, each pair from
    /// its suite opening plus random plies ([`DatagenSettings`]). No SPRT, no Elo.
    Datagen(DatagenSettings),
}

#[derive(Clone, Debug, PartialEq)]
pub struct RunSpec {
    pub name: String,
    pub kind: RunKind,
    pub variants: Vec<VariantId>,
    pub tc: TimeControl,
    pub openings: SuiteId,
    pub adjudication: Adjudication,
    /// Workers whose engine bench signature differs get no work for this run.
    pub bench_signature: Option<u64>,
    /// Sample one position in this many plies into the `positions` table (0 = none).
    pub sample_every: u32,
}

impl RunKind {
    pub fn name(&self) -> RunKindName {
        match self {
            RunKind::Sprt(_) => RunKindName::Sprt,
            RunKind::Games { .. } => RunKindName::Games,
            RunKind::Gauntlet { .. } => RunKindName::Gauntlet,
            RunKind::RoundRobin { .. } => RunKindName::RoundRobin,
            RunKind::Spsa(_) => RunKindName::Spsa,
            RunKind::Tournament(_) => RunKindName::Tournament,
            RunKind::Datagen(_) => RunKindName::Datagen,
        }
    }
}

impl RunSpec {
    /// The pairings the kind plays, as `(first, second)` indices into `variants`; statistics
    /// are kept per pairing, in this order, from the first variant's side. A tournament's
    /// pairings are its matches, drawn round by round and stored: none are known up front.
    pub fn pairings(&self) -> Vec<(usize, usize)> {
        let n = self.variants.len();
        match self.kind {
            RunKind::Sprt(_) | RunKind::Games { .. } => vec![(0, 1)],
            RunKind::Gauntlet { .. } => (1..n).map(|opponent| (0, opponent)).collect(),
            RunKind::RoundRobin { .. } => (0..n).flat_map(|a| (a + 1..n).map(move |b| (a, b))).collect(),
            // The base variant against itself, perturbed both ways.
            RunKind::Spsa(_) | RunKind::Datagen(_) => vec![(0, 0)],
            // Drawn round by round by the coordinator, which stores them.
            RunKind::Tournament(_) => Vec::new(),
        }
    }
}

/// Which runs `ListRuns` returns.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RunFilter {
    /// Only runs in [`RunState::Active`].
    pub active_only: bool,
    /// Newest first, at most this many (0 = all).
    pub limit: u32,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RunState {
    Active,
    /// Stopped by the SPRT: `true` when H1 (the candidate is better) was accepted.
    SprtDone {
        h1: bool,
    },
    /// All scheduled pairs played.
    Completed,
    /// Stopped by a user.
    Stopped,
}

impl RunState {
    pub fn name(&self) -> RunStateName {
        match self {
            RunState::Active => RunStateName::Active,
            RunState::SprtDone { h1: false } => RunStateName::SprtH0,
            RunState::SprtDone { h1: true } => RunStateName::SprtH1,
            RunState::Completed => RunStateName::Completed,
            RunState::Stopped => RunStateName::Stopped,
        }
    }

    /// The state's one text (`sprt_h1`), as SQLite, Parquet and the analysis store it.
    pub fn as_str(&self) -> &'static str {
        self.name().as_str()
    }
}

impl From<RunStateName> for RunState {
    fn from(name: RunStateName) -> RunState {
        match name {
            RunStateName::Active => RunState::Active,
            RunStateName::SprtH0 => RunState::SprtDone { h1: false },
            RunStateName::SprtH1 => RunState::SprtDone { h1: true },
            RunStateName::Completed => RunState::Completed,
            RunStateName::Stopped => RunState::Stopped,
        }
    }
}

impl FromStr for RunState {
    type Err = crate::Error;
    fn from_str(s: &str) -> crate::Result<RunState> {
        s.parse::<RunStateName>().map(RunState::from)
    }
}

/// Pentanomial counts of one pairing, from the first variant's (`a`'s) side.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PairingStats {
    pub pentanomial: [u64; 5],
    pub wins: u64,
    pub draws: u64,
    pub losses: u64,
}

impl PairingStats {
    pub fn games(&self) -> u64 {
        self.wins + self.draws + self.losses
    }

    /// Counts a game pair from the side of the player that was Red in its first game: its
    /// pentanomial entry ([`pair_half_points`]) and each game's win, draw or loss.
    pub fn add_pair(&mut self, outcomes: [GameOutcome; 2]) {
        self.pentanomial[usize::from(pair_half_points(outcomes))] += 1;
        for (outcome, red) in outcomes.into_iter().zip([true, false]) {
            match outcome.half_points(red) {
                2 => self.wins += 1,
                1 => self.draws += 1,
                _ => self.losses += 1,
            }
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Run {
    pub id: RunId,
    pub spec: RunSpec,
    pub state: RunState,
    /// Per pairing (index into `pairings()` of the spec), from the pairing's `a` side.
    pub stats: Vec<PairingStats>,
    pub created_unix_ms: u64,
    /// The endgame tables its games are adjudicated by (none: no table adjudication).
    pub tablebases: Vec<TablePin>,
}

/// An opening suite: one opening a line (a FEN, or `startpos`/FEN with `moves ...`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OpeningSuite {
    pub id: SuiteId,
    pub name: String,
    pub openings: Vec<String>,
}

/// A suite to add: what `AddOpenings` sends.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OpeningSuiteSpec {
    pub name: String,
    /// One opening each, as in [`OpeningSuite`].
    pub openings: Vec<String>,
}

/// A stored suite without its openings: what `AddOpenings` answers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OpeningSuiteSummary {
    pub id: SuiteId,
    pub name: String,
    /// How many openings the suite holds.
    pub openings: u32,
}

/// One game pair to play: game 0 has `variants[0]` as Red, game 1 swaps colours.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PairTask {
    pub pair_index: u64,
    /// Which pairing of the run this pair belongs to.
    pub pairing: u32,
    pub opening_index: u32,
    pub opening: String,
    /// The second game's opening when it is not `opening` (a datagen run draws random plies
    /// per game).
    pub second_opening: Option<String>,
    pub variants: [VariantId; 2],
}

impl PairTask {
    /// The opening game `game` (0 or 1) of the pair starts from.
    pub fn opening_of(&self, game: usize) -> &str {
        match (game, &self.second_opening) {
            (1, Some(second)) => second,
            _ => &self.opening,
        }
    }
}

/// Work handed to a worker.
#[derive(Clone, Debug, PartialEq)]
pub struct Lease {
    pub id: LeaseId,
    pub run: RunId,
    pub tasks: Vec<PairTask>,
    pub deadline_unix_ms: u64,
    /// The run's time control, scaled to the worker's bench speed when the coordinator has a
    /// reference speed (its move time or clock only): what the worker plays.
    pub tc: TimeControl,
    pub adjudication: Adjudication,
    pub sample_every: u32,
    /// Every variant the tasks name.
    pub variants: Vec<Variant>,
    /// SPSA runs only: the values each side of every task plays.
    pub spsa: Option<SpsaBatch>,
    /// The run's endgame tables ([`TablePin`]).
    pub tablebases: Vec<TablePin>,
}

impl GameOutcome {
    /// Red's score: 1, 0.5 or 0.
    pub fn red_score(self) -> f64 {
        match self {
            GameOutcome::RedWins => 1.0,
            GameOutcome::Draw => 0.5,
            GameOutcome::BlackWins => 0.0,
        }
    }

    /// The half points (2 a win, 1 a draw, 0 a loss) of the side that played Red (`red`) or
    /// Black.
    pub fn half_points(self, red: bool) -> u8 {
        match (self, red) {
            (GameOutcome::Draw, _) => 1,
            (GameOutcome::RedWins, true) | (GameOutcome::BlackWins, false) => 2,
            _ => 0,
        }
    }
}

/// A finished game's outcome; a game the rules left unfinished counts as drawn.
impl From<engine::rules::GameResult> for GameOutcome {
    fn from(result: engine::rules::GameResult) -> Self {
        match result {
            engine::rules::GameResult::RedWins => GameOutcome::RedWins,
            engine::rules::GameResult::BlackWins => GameOutcome::BlackWins,
            engine::rules::GameResult::Draw | engine::rules::GameResult::Ongoing => GameOutcome::Draw,
        }
    }
}

/// The score of a game pair, in half points (0..=4), of the side that played Red in the first
/// game and Black in the second: the one scoring rule of every tally (the farm's statistics,
/// the SPSA gradient, `xqfarm match`, and the SQL triggers that cache it, which the storage
/// conformance suite checks against it).
pub fn pair_half_points(outcomes: [GameOutcome; 2]) -> u8 {
    outcomes[0].half_points(true) + outcomes[1].half_points(false)
}

/// A position sampled from a game for tuning, before the move played there. Each column's
/// perspective is documented once, in [`crate::columns::positions`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PositionSample {
    /// Moves played from the game's start position (not counting the opening's).
    pub ply: u32,
    pub fen: String,
    /// `true` when Red is to move.
    pub red_to_move: bool,
    /// The hand-crafted evaluation with the default parameters, the side to move's view.
    pub static_eval: i32,
    /// The mover's own search score for the move it played, its view (`None`: the engine
    /// reported no score; nothing is filled in for it).
    pub search_score: Option<i32>,
    /// The move played here (UCI coordinates).
    pub best_move: String,
    pub in_check: bool,
    /// Quiescence search with the default parameters returns `static_eval` (no capture or
    /// evasion changes the score); says nothing of `best_move`.
    pub quiet: bool,
}

/// What the mover said and used for one move of a game.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MoveStat {
    /// The mover's score in centipawns, its own view (`None`: it gave none). The referee
    /// replays adjudication over these; it cannot know whether they are what the engine said.
    pub score: Option<i32>,
    /// Thinking time the mover used, as the worker's clock charged it.
    pub time_ms: u64,
}

/// The attempt that forfeited a game: it is not among the game's moves.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ForfeitAttempt {
    /// The move the side to move answered with (UCI), if any: required for `illegal_move`.
    pub mv: Option<String>,
    /// The time the attempt took: for `time_forfeit`, more than the clock had left.
    pub time_ms: u64,
}

/// One finished game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameReport {
    pub red: VariantId,
    pub black: VariantId,
    pub start_fen: String,
    pub outcome: GameOutcome,
    /// The rules', the arbiter's or the forfeit's reason.
    pub reason: Termination,
    pub moves: Vec<String>,
    /// One per move, in order.
    pub move_stats: Vec<MoveStat>,
    /// For `illegal_move`, `no_move` and `time_forfeit`: the attempt that lost.
    pub forfeit: Option<ForfeitAttempt>,
    pub duration_ms: u64,
    pub nodes: u64,
    pub positions: Vec<PositionSample>,
}

/// A finished pair: `games[0]` has the task's `variants[0]` as Red.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PairReport {
    pub pair_index: u64,
    pub games: [GameReport; 2],
}

impl PairReport {
    /// The two games' outcomes, in order.
    pub fn outcomes(&self) -> [GameOutcome; 2] {
        [self.games[0].outcome, self.games[1].outcome]
    }

    /// Half points (0..=4) of the task's `variants[0]` over the pair ([`pair_half_points`]).
    pub fn first_half_points(&self) -> usize {
        usize::from(pair_half_points(self.outcomes()))
    }
}

/// A worker's self-description.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WorkerInfo {
    pub name: String,
    pub host: String,
    pub cores: u32,
    pub engine_version: String,
    pub bench_signature: u64,
    /// The worker's persistent secret (empty: none); the same key registers as the same
    /// worker.
    pub worker_key: String,
    /// The rules the worker plays by (`engine::RULES_VERSION`).
    pub rules_version: u32,
    /// The external engines the worker was given (its allow-list); it gets leases only for
    /// runs whose external variants all name one of them.
    pub engines: Vec<EngineInfo>,
    /// The engine's bench speed in nodes per second, measured with every game slot busy
    /// (0 = not measured: its time controls are never scaled).
    pub bench_nps: u64,
    /// The instruction set its network evaluation runs with; `None`: not said (a worker older
    /// than the field).
    pub simd: Option<SimdLevel>,
    /// The engine's speed with a network, measured as `bench_nps` is (0 = not measured: the
    /// time controls of runs that play a network are never scaled on it).
    pub nnue_bench_nps: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pair_scores_by_the_colours_its_first_player_had() {
        use GameOutcome::{BlackWins as B, Draw as D, RedWins as R};
        // The first player is Red in game 0 and Black in game 1.
        let table = [(R, B, 4), (R, D, 3), (R, R, 2), (D, B, 3), (D, D, 2), (D, R, 1), (B, B, 2), (B, D, 1), (B, R, 0)];
        for (first, second, half_points) in table {
            assert_eq!(pair_half_points([first, second]), half_points, "{first:?} then {second:?}");
        }
        let mut stats = PairingStats::default();
        for (first, second, _) in table {
            stats.add_pair([first, second]);
        }
        assert_eq!(
            stats,
            PairingStats { pentanomial: [1, 2, 3, 2, 1], wins: 6, draws: 6, losses: 6 },
            "each game counted once, from the first player's side"
        );
        assert_eq!(GameOutcome::from(engine::rules::GameResult::Ongoing), D, "an unfinished game is drawn");
    }

    #[test]
    fn time_controls_round_trip() {
        for text in ["nodes=20000", "depth=7", "movetime=250", "10+0.1", "60+0"] {
            let tc: TimeControl = text.parse().expect("valid");
            assert_eq!(tc.to_string().parse::<TimeControl>(), Ok(tc), "{text}");
        }
        assert_eq!("10+0.1".parse(), Ok(TimeControl::Clock { base_ms: 10_000, inc_ms: 100 }));
        for bad in ["nodes=", "nodes=0", "speed=3", "10", "+1", "-1+0", "x+y", "nan+0", "0+1", "inf+0"] {
            assert!(bad.parse::<TimeControl>().is_err(), "{bad}");
        }
        // The text obeys the same bounds as every other time control, at their edges.
        assert_eq!("depth=100".parse(), Ok(TimeControl::Depth(MAX_DEPTH)));
        let deep = "depth=101".parse::<TimeControl>().expect_err("deeper than the engine goes");
        assert!(deep.contains("`depth=101`") && deep.contains("depth"), "{deep}");
        assert!("depth=4294967296".parse::<TimeControl>().is_err());
        assert_eq!("86400+86400".parse(), Ok(TimeControl::Clock { base_ms: MAX_TIME_MS, inc_ms: MAX_TIME_MS }));
        assert!("86400.001+0".parse::<TimeControl>().is_err());
        assert!("60+86400.001".parse::<TimeControl>().is_err());
        assert_eq!("movetime=86400000".parse(), Ok(TimeControl::MoveTimeMs(MAX_TIME_MS)));
        assert!("movetime=86400001".parse::<TimeControl>().is_err());
    }

    #[test]
    fn pairings_follow_the_run_kind() {
        let spec = |kind, n: usize| RunSpec {
            name: String::new(),
            kind,
            variants: (0..n).map(|i| VariantId::new(i.to_string())).collect(),
            tc: TimeControl::Nodes(1),
            openings: SuiteId::new(0),
            adjudication: Adjudication::default(),
            bench_signature: None,
            sample_every: 0,
        };
        assert_eq!(spec(RunKind::Sprt(SprtSettings::default()), 2).pairings(), [(0, 1)]);
        assert_eq!(spec(RunKind::Games { pairs: 1 }, 2).pairings(), [(0, 1)]);
        assert_eq!(spec(RunKind::Gauntlet { pairs_per_opponent: 1 }, 4).pairings(), [(0, 1), (0, 2), (0, 3)]);
        assert_eq!(
            spec(RunKind::RoundRobin { pairs_per_pairing: 1 }, 4).pairings(),
            [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)]
        );
    }
}
