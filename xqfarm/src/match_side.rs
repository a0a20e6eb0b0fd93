//! A side of `xqfarm match`: our engine in this process with a parameter set, or an external
//! engine (`engine:NAME`, one of the `--engine NAME=PATH` given) played exactly as the farm's
//! workers play an external variant. Each side counts its moves, time and nodes.

use std::sync::Arc;

use anyhow::{Context, Result, bail};
use engine::ParamSet;
use proto::domain::{EngineProtocol, Variant, VariantKind, VariantSpec};
use worker::engines::EngineSet;
use worker::matchrun::{SideStats, Timed};
use worker::player::{InProcess, Player, Unstarted};

use crate::args::load_params;

/// What `--a`/`--b` name.
#[derive(Clone, Debug)]
pub enum SideSpec {
    InProcess {
        label: String,
        params: Box<ParamSet>,
        /// The network it evaluates with (`nnue:FILE`); `None`: the HCE.
        network: Option<Arc<engine::nnue::Network>>,
    },
    /// An external variant, as the farm stores it.
    External(Variant),
}

impl SideSpec {
    /// `engine:NAME` (an external engine over `protocol` with `options`), `nnue:FILE` (our
    /// engine with default parameters evaluating with the network file), or what
    /// [`load_params`] reads. A parameter file that names a network by its hash is refused: only
    /// a farm stores networks by hash.
    pub fn parse(spec: &str, protocol: EngineProtocol, options: &[(String, String)]) -> Result<SideSpec> {
        if let Some(path) = spec.strip_prefix("nnue:") {
            let network =
                engine::nnue::Network::load(std::path::Path::new(path)).with_context(|| format!("`{spec}`"))?;
            return Ok(SideSpec::InProcess {
                label: spec.to_owned(),
                params: Box::default(),
                network: Some(Arc::new(network)),
            });
        }
        match spec.strip_prefix("engine:") {
            Some(name) => {
                proto::domain::check_engine_name(name).map_err(|reason| anyhow::anyhow!("`{spec}`: {reason}"))?;
                Ok(SideSpec::External(Variant {
                    id: name.into(),
                    spec: VariantSpec {
                        name: name.to_owned(),
                        kind: VariantKind::External { engine: name.to_owned(), protocol, options: options.to_vec() },
                    },
                }))
            }
            None => {
                let params = load_params(spec)?;
                if let Some(id) = params.eval_spec.network() {
                    bail!("`{spec}` names network {id}, which only a farm stores by hash: give the file as nnue:FILE");
                }
                Ok(SideSpec::InProcess { label: spec.to_owned(), params: Box::new(params), network: None })
            }
        }
    }

    pub fn is_external(&self) -> bool {
        matches!(self, SideSpec::External(_))
    }

    /// Starts this side's player. `hash_mb` sizes our engine's table (the external engine's
    /// comes from its options).
    fn player(&self, engines: &EngineSet, hash_mb: usize) -> worker::Result<Box<dyn Player>> {
        match self {
            SideSpec::InProcess { label, params, network } => {
                let mut player = InProcess::with_hash(label.clone(), (**params).clone(), hash_mb);
                if let Some(net) = network {
                    player.set_eval(engine::EvalKind::Nnue(Arc::clone(net)));
                }
                Ok(Box::new(player))
            }
            SideSpec::External(variant) => engines.player(variant),
        }
    }

    /// Starts the player once, so a side that cannot play (an engine not given, an option
    /// it did not advertise) is refused before any game, naming the side.
    pub fn check(&self, which: &str, engines: &EngineSet, hash_mb: usize) -> Result<()> {
        if let SideSpec::External(variant) = self
            && engines.command(variant).is_err()
        {
            bail!(
                "--{which} `engine:{}`: no such --engine (give it as --engine {}=PATH)",
                variant.spec.name,
                variant.spec.name
            );
        }
        self.player(engines, hash_mb).map(drop).with_context(|| format!("--{which}"))
    }

    /// A counted player for a match thread. A side that fails to start here (it started in
    /// [`SideSpec::check`]) loses its games as engine errors rather than stopping the match.
    pub fn seat(&self, engines: &EngineSet, hash_mb: usize, stats: &Arc<SideStats>) -> Seat {
        let player = self.player(engines, hash_mb).unwrap_or_else(|e| Box::new(Unstarted::new("match side", e)));
        Timed::new(player, stats)
    }
}

/// A side's player in one match thread, counting what it does; a side that failed to start
/// answers every call with its error.
pub type Seat = Timed<Box<dyn Player>>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sides_are_parameter_sets_or_named_engines() {
        let options = vec![("Hash".to_owned(), "16".to_owned())];
        let fsf = SideSpec::parse("engine:fsf", EngineProtocol::Uci, &options).expect("an engine side");
        let SideSpec::External(variant) = &fsf else { panic!("{fsf:?}") };
        assert_eq!(
            variant.spec.kind,
            VariantKind::External { engine: "fsf".into(), protocol: EngineProtocol::Uci, options }
        );
        assert!(!SideSpec::parse("default", EngineProtocol::Uci, &[]).expect("default").is_external());
        // A network file plays in process; a parameter file naming a network by hash cannot.
        let dir = tempfile::tempdir().expect("tempdir");
        let net = dir.path().join("n.xqnn");
        engine::nnue::Network::random(1, 16).save(&net).expect("saved");
        let side = SideSpec::parse(&format!("nnue:{}", net.display()), EngineProtocol::Uci, &[]).expect("a network");
        assert!(matches!(side, SideSpec::InProcess { network: Some(_), .. }));
        let named = dir.path().join("named.toml");
        std::fs::write(&named, format!("eval = \"nnue:{}\"\n", "ab".repeat(32))).expect("written");
        let error = SideSpec::parse(named.to_str().expect("utf-8"), EngineProtocol::Uci, &[]).expect_err("by hash");
        assert!(error.to_string().contains("give the file as nnue:FILE"), "{error}");
        let missing = SideSpec::parse("nnue:/no/such.xqnn", EngineProtocol::Uci, &[]).expect_err("no file");
        assert!(format!("{missing:#}").contains("/no/such.xqnn"), "{missing:#}");
        let error = SideSpec::parse("engine:/usr/games/x", EngineProtocol::Uci, &[]).expect_err("a path");
        assert!(error.to_string().contains("is a path"), "{error}");
        // Refused before any game: the engine was not given.
        let error = fsf.check("b", &EngineSet::empty(), 16).expect_err("not given");
        assert!(error.to_string().contains("--b `engine:fsf`: no such --engine"), "{error}");
    }
}
