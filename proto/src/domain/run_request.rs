//! What a user asks for when creating a run, in the words of `xqfarm run create` and the web
//! form: one place turns it into a [`RunSpec`], so both are validated by the same code (the
//! spec's own `validate()` runs when the farm creates it).

use super::{
    Adjudication, DATAGEN_TC, DEFAULT_RANDOM_PLIES, DatagenSettings, EloModel, RunKind, RunKindName, RunSpec,
    SprtSettings, SpsaParam, SpsaSettings, SuiteId, TimeControl, TournamentSettings, VariantId,
};

/// The fields of `xqfarm run create` (and of the web's create-run form).
#[derive(Clone, Debug, PartialEq)]
pub struct RunRequest {
    pub name: String,
    pub kind: RunKindName,
    /// SPRT: candidate then base; gauntlet: candidate then opponents.
    pub variants: Vec<VariantId>,
    pub suite: SuiteId,
    /// `nodes=N`, `depth=N`, `movetime=MS` or `BASE+INC` seconds; `None`: the kind's default
    /// (`nodes=20000`, a datagen run's [`DATAGEN_TC`]).
    pub tc: Option<String>,
    /// Pairs (games and datagen kinds), per opponent (gauntlet) or per pairing (round robin);
    /// SPRT ignores it.
    pub pairs: u64,
    pub elo0: f64,
    pub elo1: f64,
    pub alpha: f64,
    pub beta: f64,
    pub model: EloModel,
    pub bench_signature: Option<u64>,
    /// `None`: the kind's default (8; a datagen run records every position, 1, and refuses
    /// another value).
    pub sample_every: Option<u32>,
    /// Datagen: random plies after each suite opening (`None`: [`DEFAULT_RANDOM_PLIES`]); other
    /// kinds refuse it.
    pub random_plies: Option<u32>,
    /// SPSA: the parameters to tune (`pairs` is the number of iterations).
    pub spsa_params: Vec<SpsaParam>,
    /// Tournament: its design (`pairs` is ignored; the settings carry pairs per match).
    pub tournament: Option<TournamentSettings>,
}

impl RunRequest {
    /// The defaults of `xqfarm run create`.
    pub fn new(variants: Vec<VariantId>, suite: SuiteId) -> RunRequest {
        let sprt = SprtSettings::default();
        RunRequest {
            name: "run".into(),
            kind: RunKindName::Sprt,
            variants,
            suite,
            tc: None,
            pairs: 100,
            elo0: sprt.elo0,
            elo1: sprt.elo1,
            alpha: sprt.alpha,
            beta: sprt.beta,
            model: sprt.model,
            bench_signature: None,
            sample_every: None,
            random_plies: None,
            spsa_params: Vec::new(),
            tournament: None,
        }
    }

    /// The run spec asked for; a time control that does not parse is refused naming it, and so
    /// is a setting the kind does not take (random plies outside datagen).
    pub fn to_spec(&self) -> Result<RunSpec, String> {
        if self.random_plies.is_some() && self.kind != RunKindName::Datagen {
            return Err(format!("--random-plies is a datagen setting; a {} run takes none", self.kind));
        }
        let kind = match self.kind {
            RunKindName::Sprt => RunKind::Sprt(SprtSettings {
                elo0: self.elo0,
                elo1: self.elo1,
                alpha: self.alpha,
                beta: self.beta,
                model: self.model,
            }),
            RunKindName::Games => RunKind::Games { pairs: self.pairs },
            RunKindName::Gauntlet => RunKind::Gauntlet { pairs_per_opponent: self.pairs },
            RunKindName::RoundRobin => RunKind::RoundRobin { pairs_per_pairing: self.pairs },
            RunKindName::Spsa => RunKind::Spsa(SpsaSettings { pairs: self.pairs, params: self.spsa_params.clone() }),
            RunKindName::Tournament => RunKind::Tournament(
                self.tournament.clone().ok_or("a tournament needs its format (`xqfarm tournament create`)")?,
            ),
            RunKindName::Datagen => RunKind::Datagen(DatagenSettings {
                pairs: self.pairs,
                random_plies: self.random_plies.unwrap_or(DEFAULT_RANDOM_PLIES),
            }),
        };
        let datagen = self.kind == RunKindName::Datagen;
        let tc: TimeControl = match &self.tc {
            Some(text) => text.trim().parse()?,
            None if datagen => DATAGEN_TC,
            None => TimeControl::Nodes(20_000),
        };
        let sample_every = match self.sample_every {
            Some(every) if datagen && every != 1 => {
                return Err(format!("a datagen run records every position: --sample-every must be 1, got {every}"));
            }
            Some(every) => every,
            None if datagen => 1,
            None => 8,
        };
        Ok(RunSpec {
            name: self.name.clone(),
            kind,
            variants: self.variants.clone(),
            tc,
            openings: self.suite,
            adjudication: Adjudication::default(),
            bench_signature: self.bench_signature,
            sample_every,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_becomes_the_spec_the_cli_always_built() {
        let mut r = RunRequest::new(vec!["a".into(), "b".into()], SuiteId::new(3));
        r.kind = RunKindName::Games;
        r.pairs = 7;
        r.tc = Some("depth=4".into());
        let spec = r.to_spec().expect("valid");
        assert_eq!(spec.kind, RunKind::Games { pairs: 7 });
        assert_eq!(spec.tc, TimeControl::Depth(4));
        assert_eq!(spec.openings, SuiteId::new(3));
        assert_eq!(spec.sample_every, 8);
    }

    #[test]
    fn a_bad_time_control_is_named() {
        let mut r = RunRequest::new(vec!["a".into(), "b".into()], SuiteId::new(1));
        r.tc = Some("fast".into());
        assert!(r.to_spec().expect_err("refused").contains("`fast`"));
    }

    #[test]
    fn a_datagen_request_records_every_position_at_fixed_nodes() {
        let mut r = RunRequest::new(vec!["a".into()], SuiteId::new(1));
        r.kind = RunKindName::Datagen;
        r.pairs = 50;
        let spec = r.to_spec().expect("valid");
        assert_eq!(spec.kind, RunKind::Datagen(DatagenSettings { pairs: 50, random_plies: DEFAULT_RANDOM_PLIES }));
        assert_eq!((spec.tc, spec.sample_every), (DATAGEN_TC, 1));
        assert_eq!(spec.validate(), Ok(()));
        r.random_plies = Some(12);
        r.tc = Some("depth=6".into());
        let spec = r.to_spec().expect("valid");
        assert_eq!(spec.kind, RunKind::Datagen(DatagenSettings { pairs: 50, random_plies: 12 }));
        assert_eq!(spec.tc, TimeControl::Depth(6));
        r.sample_every = Some(4);
        assert!(r.to_spec().expect_err("not every position").contains("--sample-every must be 1, got 4"));
        r.sample_every = Some(1);
        assert!(r.to_spec().is_ok());
        // Random plies belong to datagen alone.
        r.kind = RunKindName::Games;
        assert!(r.to_spec().expect_err("not datagen").contains("--random-plies is a datagen setting"));
    }
}
