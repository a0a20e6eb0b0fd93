//! What a user asks for when creating a run, in the words of `xqfarm run create` and the web
//! form: one place turns it into a [`RunSpec`], so both are validated by the same code (the
//! spec's own `validate()` runs when the farm creates it).

use super::{
    Adjudication, EloModel, RunKind, RunKindName, RunSpec, SprtSettings, SpsaParam, SpsaSettings, SuiteId, TimeControl,
    TournamentSettings, VariantId,
};

/// The fields of `xqfarm run create` (and of the web's create-run form).
#[derive(Clone, Debug, PartialEq)]
pub struct RunRequest {
    pub name: String,
    pub kind: RunKindName,
    /// SPRT: candidate then base; gauntlet: candidate then opponents.
    pub variants: Vec<VariantId>,
    pub suite: SuiteId,
    /// `nodes=N`, `depth=N`, `movetime=MS` or `BASE+INC` seconds.
    pub tc: String,
    /// Pairs (games kind), per opponent (gauntlet) or per pairing (round robin); SPRT ignores it.
    pub pairs: u64,
    pub elo0: f64,
    pub elo1: f64,
    pub alpha: f64,
    pub beta: f64,
    pub model: EloModel,
    pub bench_signature: Option<u64>,
    pub sample_every: u32,
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
            tc: "nodes=20000".into(),
            pairs: 100,
            elo0: sprt.elo0,
            elo1: sprt.elo1,
            alpha: sprt.alpha,
            beta: sprt.beta,
            model: sprt.model,
            bench_signature: None,
            sample_every: 8,
            spsa_params: Vec::new(),
            tournament: None,
        }
    }

    /// The run spec asked for; a time control that does not parse is refused naming it.
    pub fn to_spec(&self) -> Result<RunSpec, String> {
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
        };
        let tc: TimeControl = self.tc.trim().parse()?;
        Ok(RunSpec {
            name: self.name.clone(),
            kind,
            variants: self.variants.clone(),
            tc,
            openings: self.suite,
            adjudication: Adjudication::default(),
            bench_signature: self.bench_signature,
            sample_every: self.sample_every,
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
        r.tc = "depth=4".into();
        let spec = r.to_spec().expect("valid");
        assert_eq!(spec.kind, RunKind::Games { pairs: 7 });
        assert_eq!(spec.tc, TimeControl::Depth(4));
        assert_eq!(spec.openings, SuiteId::new(3));
        assert_eq!(spec.sample_every, 8);
    }

    #[test]
    fn a_bad_time_control_is_named() {
        let mut r = RunRequest::new(vec!["a".into(), "b".into()], SuiteId::new(1));
        r.tc = "fast".into();
        assert!(r.to_spec().expect_err("refused").contains("`fast`"));
    }
}
