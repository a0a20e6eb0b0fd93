//! Runs: what they play, how long players think, where they stand.

use super::{each, enumeration, non_empty, pentanomial, required};
use crate::domain::{
    Adjudication, ByeSlot, DatagenSettings, EloModel, LiveStats, Match, MatchRow, OpeningSuiteSummary, PairingStats,
    Run, RunId, RunKind, RunSpec, RunState, RunStatus, SprtProgress, SprtSettings, SuiteId, TablePin, TimeControl,
    TournamentDraw, TournamentSettings, VariantId,
};
use crate::error::{Error, Result};
use crate::pb;

impl From<TimeControl> for pb::TimeControl {
    fn from(tc: TimeControl) -> pb::TimeControl {
        use pb::time_control::Kind;
        let kind = match tc {
            TimeControl::Nodes(nodes) => Kind::Nodes(nodes),
            TimeControl::Depth(depth) => Kind::Depth(depth),
            TimeControl::MoveTimeMs(ms) => Kind::MovetimeMs(ms),
            TimeControl::Clock { base_ms, inc_ms } => Kind::Clock(pb::ClockControl { base_ms, inc_ms }),
        };
        pb::TimeControl { kind: Some(kind) }
    }
}

impl TryFrom<pb::TimeControl> for TimeControl {
    type Error = Error;
    fn try_from(tc: pb::TimeControl) -> Result<TimeControl> {
        use pb::time_control::Kind;
        let tc = match tc.kind.ok_or_else(|| Error::missing("kind"))? {
            Kind::Nodes(nodes) => TimeControl::Nodes(nodes),
            Kind::Depth(depth) => TimeControl::Depth(depth),
            Kind::MovetimeMs(ms) => TimeControl::MoveTimeMs(ms),
            Kind::Clock(clock) => TimeControl::Clock { base_ms: clock.base_ms, inc_ms: clock.inc_ms },
        };
        tc.validate()?;
        Ok(tc)
    }
}

impl From<Adjudication> for pb::Adjudication {
    fn from(a: Adjudication) -> pb::Adjudication {
        pb::Adjudication {
            resign_score: a.resign_score,
            resign_moves: a.resign_moves,
            draw_score: a.draw_score,
            draw_moves: a.draw_moves,
            draw_after_move: a.draw_after_move,
        }
    }
}

impl TryFrom<pb::Adjudication> for Adjudication {
    type Error = Error;
    fn try_from(a: pb::Adjudication) -> Result<Adjudication> {
        let adjudication = Adjudication {
            resign_score: a.resign_score,
            resign_moves: a.resign_moves,
            draw_score: a.draw_score,
            draw_moves: a.draw_moves,
            draw_after_move: a.draw_after_move,
        };
        adjudication.validate()?;
        Ok(adjudication)
    }
}

impl From<EloModel> for pb::EloModel {
    fn from(model: EloModel) -> pb::EloModel {
        match model {
            EloModel::Normalized => pb::EloModel::Normalized,
            EloModel::Logistic => pb::EloModel::Logistic,
        }
    }
}

impl TryFrom<pb::EloModel> for EloModel {
    type Error = Error;
    fn try_from(model: pb::EloModel) -> Result<EloModel> {
        match model {
            pb::EloModel::Unspecified => Err(Error::missing("")),
            pb::EloModel::Normalized => Ok(EloModel::Normalized),
            pb::EloModel::Logistic => Ok(EloModel::Logistic),
        }
    }
}

impl From<SprtSettings> for pb::SprtRun {
    fn from(s: SprtSettings) -> pb::SprtRun {
        pb::SprtRun {
            elo0: s.elo0,
            elo1: s.elo1,
            alpha: s.alpha,
            beta: s.beta,
            model: pb::EloModel::from(s.model).into(),
        }
    }
}

impl TryFrom<pb::SprtRun> for SprtSettings {
    type Error = Error;
    fn try_from(s: pb::SprtRun) -> Result<SprtSettings> {
        let settings = SprtSettings {
            elo0: s.elo0,
            elo1: s.elo1,
            alpha: s.alpha,
            beta: s.beta,
            model: enumeration::<pb::EloModel, _>(s.model, "model")?,
        };
        settings.validate()?;
        Ok(settings)
    }
}

impl From<RunKind> for pb::run_spec::Kind {
    fn from(kind: RunKind) -> pb::run_spec::Kind {
        use pb::run_spec::Kind;
        match kind {
            RunKind::Sprt(settings) => Kind::Sprt(settings.into()),
            RunKind::Games { pairs } => Kind::Games(pb::GamesRun { pairs }),
            RunKind::Gauntlet { pairs_per_opponent } => Kind::Gauntlet(pb::GauntletRun { pairs_per_opponent }),
            RunKind::RoundRobin { pairs_per_pairing } => Kind::RoundRobin(pb::RoundRobinRun { pairs_per_pairing }),
            RunKind::Spsa(settings) => Kind::Spsa(settings.into()),
            RunKind::Datagen(DatagenSettings { pairs, random_plies }) => {
                Kind::Datagen(pb::DatagenRun { pairs, random_plies })
            }
            RunKind::Tournament(t) => Kind::Tournament(pb::TournamentRun {
                format: t.format.as_str().to_owned(),
                rounds: t.rounds,
                pairs_per_match: t.pairs_per_match,
                tiebreaks: t.tiebreaks.iter().map(|b| b.as_str().to_owned()).collect(),
                extra_pairs: t.extra_pairs,
                seed: t.seed,
            }),
        }
    }
}

impl TryFrom<pb::run_spec::Kind> for RunKind {
    type Error = Error;
    fn try_from(kind: pb::run_spec::Kind) -> Result<RunKind> {
        use pb::run_spec::Kind;
        Ok(match kind {
            Kind::Sprt(sprt) => RunKind::Sprt(sprt.try_into().map_err(|e: Error| e.within("sprt"))?),
            // Counts are checked with the rest of the spec (`RunSpec::validate`).
            Kind::Games(games) => RunKind::Games { pairs: games.pairs },
            Kind::Gauntlet(g) => RunKind::Gauntlet { pairs_per_opponent: g.pairs_per_opponent },
            Kind::RoundRobin(r) => RunKind::RoundRobin { pairs_per_pairing: r.pairs_per_pairing },
            Kind::Spsa(s) => RunKind::Spsa(s.into()),
            // Checked with the rest of the spec.
            Kind::Datagen(d) => RunKind::Datagen(DatagenSettings { pairs: d.pairs, random_plies: d.random_plies }),
            // The settings' rules are checked with the rest of the spec.
            Kind::Tournament(t) => RunKind::Tournament(TournamentSettings {
                format: t.format.parse().map_err(|e: Error| Error::invalid("tournament.format", e.to_string()))?,
                rounds: t.rounds,
                pairs_per_match: t.pairs_per_match,
                tiebreaks: t
                    .tiebreaks
                    .iter()
                    .map(|b| b.parse().map_err(|e: Error| Error::invalid("tournament.tiebreaks", e.to_string())))
                    .collect::<Result<_>>()?,
                extra_pairs: t.extra_pairs,
                seed: t.seed,
            }),
        })
    }
}

impl From<RunSpec> for pb::RunSpec {
    fn from(spec: RunSpec) -> pb::RunSpec {
        pb::RunSpec {
            name: spec.name,
            kind: Some(spec.kind.into()),
            variants: spec.variants.into_iter().map(String::from).collect(),
            tc: Some(spec.tc.into()),
            opening_suite_id: spec.openings.get(),
            adjudication: Some(spec.adjudication.into()),
            bench_signature: spec.bench_signature,
            sample_every: spec.sample_every,
        }
    }
}

impl TryFrom<pb::RunSpec> for RunSpec {
    type Error = Error;
    fn try_from(spec: pb::RunSpec) -> Result<RunSpec> {
        let spec = RunSpec {
            name: spec.name,
            kind: spec.kind.ok_or_else(|| Error::missing("kind"))?.try_into()?,
            variants: spec.variants.into_iter().map(VariantId::new).collect(),
            tc: required(spec.tc, "tc")?,
            openings: SuiteId::new(spec.opening_suite_id),
            adjudication: required(spec.adjudication, "adjudication")?,
            bench_signature: spec.bench_signature,
            sample_every: spec.sample_every,
        };
        spec.validate()?;
        Ok(spec)
    }
}

impl From<RunState> for pb::RunState {
    fn from(state: RunState) -> pb::RunState {
        match state {
            RunState::Active => pb::RunState::Active,
            RunState::SprtDone { h1: false } => pb::RunState::SprtH0Accepted,
            RunState::SprtDone { h1: true } => pb::RunState::SprtH1Accepted,
            RunState::Completed => pb::RunState::Completed,
            RunState::Stopped => pb::RunState::Stopped,
        }
    }
}

impl TryFrom<pb::RunState> for RunState {
    type Error = Error;
    fn try_from(state: pb::RunState) -> Result<RunState> {
        match state {
            pb::RunState::Unspecified => Err(Error::missing("")),
            pb::RunState::Active => Ok(RunState::Active),
            pb::RunState::SprtH0Accepted => Ok(RunState::SprtDone { h1: false }),
            pb::RunState::SprtH1Accepted => Ok(RunState::SprtDone { h1: true }),
            pb::RunState::Completed => Ok(RunState::Completed),
            pb::RunState::Stopped => Ok(RunState::Stopped),
        }
    }
}

impl From<PairingStats> for pb::PairingStats {
    fn from(s: PairingStats) -> pb::PairingStats {
        pb::PairingStats { pentanomial: s.pentanomial.to_vec(), wins: s.wins, draws: s.draws, losses: s.losses }
    }
}

impl TryFrom<pb::PairingStats> for PairingStats {
    type Error = Error;
    fn try_from(s: pb::PairingStats) -> Result<PairingStats> {
        Ok(PairingStats {
            pentanomial: pentanomial(s.pentanomial, "pentanomial")?,
            wins: s.wins,
            draws: s.draws,
            losses: s.losses,
        })
    }
}

impl From<Run> for pb::Run {
    fn from(run: Run) -> pb::Run {
        pb::Run {
            run_id: run.id.get(),
            spec: Some(run.spec.into()),
            state: pb::RunState::from(run.state).into(),
            stats: run.stats.into_iter().map(Into::into).collect(),
            created_unix_ms: run.created_unix_ms,
            tablebases: run.tablebases.into_iter().map(Into::into).collect(),
        }
    }
}

impl From<TablePin> for pb::TablePin {
    fn from(p: TablePin) -> pb::TablePin {
        pb::TablePin { set: p.set, checksum: p.checksum }
    }
}

impl TryFrom<pb::TablePin> for TablePin {
    type Error = Error;
    fn try_from(p: pb::TablePin) -> Result<TablePin> {
        Ok(TablePin { set: non_empty(p.set, "set")?, checksum: p.checksum })
    }
}

impl TryFrom<pb::Run> for Run {
    type Error = Error;
    fn try_from(run: pb::Run) -> Result<Run> {
        Ok(Run {
            id: RunId::new(run.run_id),
            spec: required(run.spec, "spec")?,
            state: enumeration::<pb::RunState, _>(run.state, "state")?,
            stats: each(run.stats, "stats")?,
            created_unix_ms: run.created_unix_ms,
            tablebases: each(run.tablebases, "tablebases")?,
        })
    }
}

impl From<SprtProgress> for pb::SprtProgress {
    fn from(p: SprtProgress) -> pb::SprtProgress {
        pb::SprtProgress { llr: p.llr, lower_bound: p.lower_bound, upper_bound: p.upper_bound }
    }
}

impl From<pb::SprtProgress> for SprtProgress {
    fn from(p: pb::SprtProgress) -> SprtProgress {
        SprtProgress { llr: p.llr, lower_bound: p.lower_bound, upper_bound: p.upper_bound }
    }
}

impl From<LiveStats> for pb::LiveStats {
    fn from(s: LiveStats) -> pb::LiveStats {
        pb::LiveStats {
            games: s.counts.games(),
            wins: s.counts.wins,
            draws: s.counts.draws,
            losses: s.counts.losses,
            pentanomial: s.counts.pentanomial.to_vec(),
            elo: s.elo,
            elo_lower: s.elo_lower,
            elo_upper: s.elo_upper,
            nelo: s.nelo,
            nelo_lower: s.nelo_lower,
            nelo_upper: s.nelo_upper,
            los: s.los,
            sprt: s.sprt.map(Into::into),
        }
    }
}

impl TryFrom<pb::LiveStats> for LiveStats {
    type Error = Error;
    fn try_from(s: pb::LiveStats) -> Result<LiveStats> {
        let counts = PairingStats {
            pentanomial: pentanomial(s.pentanomial, "pentanomial")?,
            wins: s.wins,
            draws: s.draws,
            losses: s.losses,
        };
        if s.games != counts.games() {
            let reason = format!("{} differs from wins + draws + losses = {}", s.games, counts.games());
            return Err(Error::invalid("games", reason));
        }
        Ok(LiveStats {
            counts,
            elo: s.elo,
            elo_lower: s.elo_lower,
            elo_upper: s.elo_upper,
            nelo: s.nelo,
            nelo_lower: s.nelo_lower,
            nelo_upper: s.nelo_upper,
            los: s.los,
            sprt: s.sprt.map(SprtProgress::from),
        })
    }
}

impl From<RunStatus> for pb::RunStatus {
    fn from(status: RunStatus) -> pb::RunStatus {
        pb::RunStatus {
            run: Some(status.run.into()),
            live: status.live.into_iter().map(Into::into).collect(),
            missing_engines: status.missing_engines,
            exported_games: status.exported_games,
            spsa: status.spsa.into_iter().map(Into::into).collect(),
            tournament: status.tournament.map(Into::into),
        }
    }
}

impl TryFrom<pb::RunStatus> for RunStatus {
    type Error = Error;
    fn try_from(status: pb::RunStatus) -> Result<RunStatus> {
        Ok(RunStatus {
            run: required(status.run, "run")?,
            live: each(status.live, "live")?,
            missing_engines: status.missing_engines,
            exported_games: status.exported_games,
            spsa: status.spsa.into_iter().map(Into::into).collect(),
            tournament: status
                .tournament
                .map(TryInto::try_into)
                .transpose()
                .map_err(|e: Error| e.within("tournament"))?,
        })
    }
}

impl From<TournamentDraw> for pb::TournamentDraw {
    fn from(d: TournamentDraw) -> pb::TournamentDraw {
        let index = |i: usize| u32::try_from(i).unwrap_or(u32::MAX);
        pb::TournamentDraw {
            matches: d
                .matches
                .into_iter()
                .map(|r| pb::TournamentMatch {
                    pairing: r.pairing,
                    round: r.m.round,
                    slot: r.m.slot,
                    a: index(r.m.a),
                    b: index(r.m.b),
                    stage: r.m.stage.as_str().to_owned(),
                    pairs: r.m.pairs,
                    armageddon_red_points: r.armageddon_red_points,
                })
                .collect(),
            byes: d
                .byes
                .into_iter()
                .map(|b| pb::TournamentBye { round: b.round, slot: b.slot, player: index(b.player) })
                .collect(),
            names: d.names,
        }
    }
}

impl TryFrom<pb::TournamentDraw> for TournamentDraw {
    type Error = Error;
    fn try_from(d: pb::TournamentDraw) -> Result<TournamentDraw> {
        let matches = d
            .matches
            .into_iter()
            .enumerate()
            .map(|(i, m)| {
                let stage =
                    m.stage.parse().map_err(|e: Error| Error::invalid(format!("matches[{i}].stage"), e.to_string()))?;
                Ok(MatchRow {
                    pairing: m.pairing,
                    m: Match { round: m.round, slot: m.slot, a: m.a as usize, b: m.b as usize, stage, pairs: m.pairs },
                    armageddon_red_points: m.armageddon_red_points,
                })
            })
            .collect::<Result<_>>()?;
        let byes =
            d.byes.into_iter().map(|b| ByeSlot { round: b.round, slot: b.slot, player: b.player as usize }).collect();
        Ok(TournamentDraw { matches, byes, names: d.names })
    }
}

impl From<OpeningSuiteSummary> for pb::OpeningSuiteSummary {
    fn from(suite: OpeningSuiteSummary) -> pb::OpeningSuiteSummary {
        pb::OpeningSuiteSummary { suite_id: suite.id.get(), name: suite.name, openings: suite.openings }
    }
}

impl TryFrom<pb::OpeningSuiteSummary> for OpeningSuiteSummary {
    type Error = Error;
    fn try_from(suite: pb::OpeningSuiteSummary) -> Result<OpeningSuiteSummary> {
        Ok(OpeningSuiteSummary {
            id: SuiteId::new(suite.suite_id),
            name: non_empty(suite.name, "name")?,
            openings: suite.openings,
        })
    }
}
