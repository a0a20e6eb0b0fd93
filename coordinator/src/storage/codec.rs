//! Domain values to SQL columns and back, shared by the SQLite and PostgreSQL backends (both store
//! ids, counts and times as signed 64-bit integers). Reading never trusts the file: every value is
//! range-checked and every enumeration matched, and a mismatch is `Error::Corrupt`.

use engine::nnue::SimdLevel;
use proto::domain::{
    Adjudication, DatagenSettings, EloModel, GameOutcome, PairingStats, RunKind, RunKindName, RunSpec, RunState,
    SprtSettings, SpsaParam, SpsaSettings, SuiteId, TimeControl, TournamentSettings, VariantId,
};

use super::sql::{Row, SqlError};
use crate::error::{Error, Result};

/// A caller's id as a key: ids beyond `i64` were never handed out, and -1 matches no row.
pub(crate) fn key(id: impl Into<u64>) -> i64 {
    i64::try_from(id.into()).unwrap_or(-1)
}

/// A time or count, saturating at `i64::MAX` (far beyond any real value).
pub(crate) fn int(v: u64) -> i64 {
    i64::try_from(v).unwrap_or(i64::MAX)
}

/// The 64 bits of a value compared only for equality (bench signatures, sequence numbers).
pub(crate) fn bits(v: u64) -> i64 {
    i64::from_ne_bytes(v.to_ne_bytes())
}

pub(crate) fn from_bits(v: i64) -> u64 {
    u64::from_ne_bytes(v.to_ne_bytes())
}

pub(crate) fn corrupt(what: impl std::fmt::Display) -> Error {
    Error::Corrupt(what.to_string())
}

pub(crate) fn to_u64(v: i64, what: &str) -> Result<u64> {
    u64::try_from(v).map_err(|_| corrupt(format!("{what} is {v}")))
}

pub(crate) fn to_u32(v: i64, what: &str) -> Result<u32> {
    u32::try_from(v).map_err(|_| corrupt(format!("{what} is {v}")))
}

pub(crate) fn to_i32(v: i64, what: &str) -> Result<i32> {
    i32::try_from(v).map_err(|_| corrupt(format!("{what} is {v}")))
}

pub(crate) fn to_bool(v: i64, what: &str) -> Result<bool> {
    match v {
        0 => Ok(false),
        1 => Ok(true),
        _ => Err(corrupt(format!("{what} is {v}"))),
    }
}

/// A worker's stored SIMD level: NULL is not said; other text must be a known level.
pub(crate) fn simd_from(text: Option<String>) -> Result<Option<SimdLevel>> {
    text.map(|t| t.parse().map_err(|e| corrupt(format!("worker SIMD level: {e}")))).transpose()
}

pub(crate) fn outcome_text(o: GameOutcome) -> &'static str {
    o.as_str()
}

pub(crate) fn outcome_from(text: &str) -> Result<GameOutcome> {
    text.parse().map_err(|e| corrupt(format!("game outcome: {e}")))
}

pub(crate) fn state_text(state: &RunState) -> &'static str {
    state.as_str()
}

pub(crate) fn state_from(text: &str) -> Result<RunState> {
    text.parse().map_err(|e| corrupt(format!("run state: {e}")))
}

/// `(tc_kind, tc_value, tc_inc_ms)`.
pub(crate) fn tc_columns(tc: TimeControl) -> (&'static str, i64, i64) {
    match tc {
        TimeControl::Nodes(n) => ("nodes", int(n), 0),
        TimeControl::Depth(d) => ("depth", i64::from(d), 0),
        TimeControl::MoveTimeMs(ms) => ("movetime", int(ms), 0),
        TimeControl::Clock { base_ms, inc_ms } => ("clock", int(base_ms), int(inc_ms)),
    }
}

fn tc_from(kind: &str, value: i64, inc: i64) -> Result<TimeControl> {
    Ok(match kind {
        "nodes" => TimeControl::Nodes(to_u64(value, "nodes")?),
        "depth" => TimeControl::Depth(to_u32(value, "depth")?),
        "movetime" => TimeControl::MoveTimeMs(to_u64(value, "movetime")?),
        "clock" => {
            TimeControl::Clock { base_ms: to_u64(value, "clock base")?, inc_ms: to_u64(inc, "clock increment")? }
        }
        _ => return Err(corrupt(format!("time control kind {kind:?}"))),
    })
}

/// The `runs` columns of a run's kind.
pub(crate) struct KindColumns {
    pub(crate) kind: &'static str,
    pub(crate) pairs_per_pairing: Option<i64>,
    pub(crate) sprt: Option<SprtSettings>,
    /// A datagen run's random plies (NULL for every other kind).
    pub(crate) random_plies: Option<i64>,
}

pub(crate) fn kind_columns(kind: &RunKind) -> KindColumns {
    let columns = |pairs: Option<u64>| KindColumns {
        kind: kind.name().as_str(),
        pairs_per_pairing: pairs.map(int),
        sprt: None,
        random_plies: None,
    };
    match kind {
        RunKind::Sprt(settings) => KindColumns { sprt: Some(*settings), ..columns(None) },
        RunKind::Games { pairs } => columns(Some(*pairs)),
        RunKind::Gauntlet { pairs_per_opponent } => columns(Some(*pairs_per_opponent)),
        RunKind::RoundRobin { pairs_per_pairing } => columns(Some(*pairs_per_pairing)),
        // The parameters are rows of `run_spsa_params`.
        RunKind::Spsa(settings) => columns(Some(settings.pairs)),
        // The rest of the design is a row of `run_tournaments`.
        RunKind::Tournament(settings) => columns(Some(settings.pairs_per_match)),
        RunKind::Datagen(settings) => {
            KindColumns { random_plies: Some(i64::from(settings.random_plies)), ..columns(Some(settings.pairs)) }
        }
    }
}

pub(crate) fn model_text(model: EloModel) -> &'static str {
    model.as_str()
}

/// The columns of `runs` that [`RunRow::read`] expects, in order: the run's spec, fixed when
/// it is created.
pub(crate) const RUN_COLUMNS: &str = "id, name, kind, pairs_per_pairing, sprt_elo0, sprt_elo1, sprt_alpha, sprt_beta, \
     sprt_model, tc_kind, tc_value, tc_inc_ms, suite_id, resign_score, resign_moves, draw_score, draw_moves, \
     draw_after_move, bench_signature, sample_every, random_plies";

/// The spec columns of a `runs` row as stored, before any check.
#[derive(Debug)]
pub(crate) struct RunRow {
    pub(crate) id: i64,
    pub(crate) name: String,
    pub(crate) kind: String,
    pub(crate) pairs: Option<i64>,
    pub(crate) sprt: [Option<f64>; 4],
    pub(crate) sprt_model: Option<String>,
    pub(crate) tc: (String, i64, i64),
    pub(crate) suite: i64,
    pub(crate) adjudication: [i64; 5],
    pub(crate) bench_signature: Option<i64>,
    pub(crate) sample_every: i64,
    pub(crate) random_plies: Option<i64>,
}

impl RunRow {
    /// The row of a query over [`RUN_COLUMNS`].
    pub(crate) fn read(row: &Row) -> std::result::Result<RunRow, SqlError> {
        Ok(RunRow {
            id: row.get(0)?,
            name: row.get(1)?,
            kind: row.get(2)?,
            pairs: row.get(3)?,
            sprt: [row.get(4)?, row.get(5)?, row.get(6)?, row.get(7)?],
            sprt_model: row.get(8)?,
            tc: (row.get(9)?, row.get(10)?, row.get(11)?),
            suite: row.get(12)?,
            adjudication: [row.get(13)?, row.get(14)?, row.get(15)?, row.get(16)?, row.get(17)?],
            bench_signature: row.get(18)?,
            sample_every: row.get(19)?,
            random_plies: row.get(20)?,
        })
    }

    /// Whether the row is an SPSA run's, whose parameters are rows of their own.
    pub(crate) fn is_spsa(&self) -> bool {
        self.kind == RunKindName::Spsa.as_str()
    }

    /// A tournament's pairs per match (`None` for another kind), whose design is a row of its own.
    pub(crate) fn tournament_pairs(&self) -> Result<Option<u64>> {
        if self.kind != RunKindName::Tournament.as_str() {
            return Ok(None);
        }
        let v = self.pairs.ok_or_else(|| corrupt(format!("tournament {} has no pair count", self.id)))?;
        to_u64(v, "pairs per match").map(Some)
    }

    /// The run's spec, given its variants (and an SPSA run's parameters, a tournament's
    /// design) read from their own tables. The spec never changes once the run exists; its
    /// state and statistics do.
    pub(crate) fn into_spec(
        self,
        variants: Vec<VariantId>,
        spsa_params: Vec<SpsaParam>,
        tournament: Option<TournamentSettings>,
    ) -> Result<RunSpec> {
        let pairs = || -> Result<u64> {
            let v = self.pairs.ok_or_else(|| corrupt(format!("run {} has no pair count", self.id)))?;
            to_u64(v, "pairs per pairing")
        };
        let kind_name: RunKindName = self.kind.parse().map_err(|e| corrupt(format!("run {}: {e}", self.id)))?;
        let kind = match kind_name {
            RunKindName::Sprt => {
                let [Some(elo0), Some(elo1), Some(alpha), Some(beta)] = self.sprt else {
                    return Err(corrupt(format!("run {} lacks SPRT settings", self.id)));
                };
                let model: EloModel = self
                    .sprt_model
                    .as_deref()
                    .ok_or_else(|| corrupt(format!("run {} has no Elo model", self.id)))?
                    .parse()
                    .map_err(|e| corrupt(format!("run {}: {e}", self.id)))?;
                RunKind::Sprt(SprtSettings { elo0, elo1, alpha, beta, model })
            }
            RunKindName::Games => RunKind::Games { pairs: pairs()? },
            RunKindName::Gauntlet => RunKind::Gauntlet { pairs_per_opponent: pairs()? },
            RunKindName::RoundRobin => RunKind::RoundRobin { pairs_per_pairing: pairs()? },
            RunKindName::Spsa => RunKind::Spsa(SpsaSettings { pairs: pairs()?, params: spsa_params }),
            RunKindName::Tournament => {
                RunKind::Tournament(tournament.ok_or_else(|| corrupt(format!("tournament {} has no design", self.id)))?)
            }
            RunKindName::Datagen => {
                let plies =
                    self.random_plies.ok_or_else(|| corrupt(format!("datagen run {} has no random plies", self.id)))?;
                RunKind::Datagen(DatagenSettings { pairs: pairs()?, random_plies: to_u32(plies, "random plies")? })
            }
        };
        let [resign_score, resign_moves, draw_score, draw_moves, draw_after_move] = self.adjudication;
        Ok(RunSpec {
            name: self.name,
            kind,
            variants,
            tc: tc_from(&self.tc.0, self.tc.1, self.tc.2)?,
            openings: SuiteId::new(to_u64(self.suite, "suite id")?),
            adjudication: Adjudication {
                resign_score: to_i32(resign_score, "resign score")?,
                resign_moves: to_u32(resign_moves, "resign moves")?,
                draw_score: to_i32(draw_score, "draw score")?,
                draw_moves: to_u32(draw_moves, "draw moves")?,
                draw_after_move: to_u32(draw_after_move, "draw after move")?,
            },
            bench_signature: self.bench_signature.map(from_bits),
            sample_every: to_u32(self.sample_every, "sample interval")?,
        })
    }
}

/// The statistics columns of `run_pairings` that [`stats_from`] expects, in order.
pub(crate) const STATS_COLUMNS: &str = "ptnml0, ptnml1, ptnml2, ptnml3, ptnml4, wins, draws, losses";

pub(crate) fn stats_from(raw: [i64; 8]) -> Result<PairingStats> {
    let mut v = [0u64; 8];
    for (out, x) in v.iter_mut().zip(raw) {
        *out = to_u64(x, "a statistics count")?;
    }
    Ok(PairingStats { pentanomial: [v[0], v[1], v[2], v[3], v[4]], wins: v[5], draws: v[6], losses: v[7] })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bit_casts_round_trip() {
        for v in [0, 1, i64::MAX as u64, u64::MAX, 0x8000_0000_0000_0000] {
            assert_eq!(from_bits(bits(v)), v);
        }
        assert_eq!(key(u64::MAX), -1);
        assert_eq!(int(u64::MAX), i64::MAX);
    }

    #[test]
    fn time_controls_round_trip() {
        for tc in [
            TimeControl::Nodes(5_000),
            TimeControl::Depth(7),
            TimeControl::MoveTimeMs(250),
            TimeControl::Clock { base_ms: 10_000, inc_ms: 100 },
        ] {
            let (kind, value, inc) = tc_columns(tc);
            assert_eq!(tc_from(kind, value, inc).expect("decodes"), tc);
        }
        assert!(tc_from("nodes", -5, 0).is_err());
        assert!(tc_from("hourglass", 5, 0).is_err());
    }

    #[test]
    fn enumerations_reject_unknown_text() {
        assert!(outcome_from("2-0").is_err());
        assert!(state_from("paused").is_err());
        for s in [RunState::Active, RunState::SprtDone { h1: true }, RunState::Completed, RunState::Stopped] {
            assert_eq!(state_from(state_text(&s)).expect("decodes"), s);
        }
        assert!(stats_from([0, 0, -1, 0, 0, 0, 0, 0]).is_err());
    }
}
