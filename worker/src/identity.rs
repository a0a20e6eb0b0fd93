//! What a worker says of itself at Register: its name, host and cores, the engine build's
//! version and bench signature, and its loaded speed (measured as Fishtest measures a worker),
//! with the hand-crafted evaluation and with a network, and the SIMD level the network runs at.

use std::sync::Arc;

use engine::nnue::{Network, SimdLevel};
use engine::{EvalKind, Limits};
use proto::domain::WorkerInfo;

use crate::error::{Error, Result};

/// What a worker measures of itself at start.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bench {
    /// The node count of `xqengine bench` at its default depth: the build's signature.
    pub signature: u64,
    /// Its speed in nodes per second with every game slot busy (0 = not measured).
    pub nps: u64,
    /// The instruction set the network's loops run with on this machine.
    pub simd: SimdLevel,
    /// The speed with a network, measured as `nps` is (0 = not measured).
    pub nnue_nps: u64,
}

impl Bench {
    /// The speeds for a worker's start line: `N nps a game slot (HCE), M with a network (avx2)`
    /// (`not measured` for a network speed of 0).
    pub fn speeds(&self) -> String {
        let nnue = match self.nnue_nps {
            0 => "not measured".to_owned(),
            nps => nps.to_string(),
        };
        format!("{} nps a game slot (HCE), {nnue} with a network ({})", self.nps, self.simd)
    }
}

/// What this machine's worker says of itself; `engine_version` is the binary's (its
/// version and build commit).
pub fn local_worker_info(name: &str, cores: usize, bench: Bench, engine_version: &str) -> WorkerInfo {
    WorkerInfo {
        name: name.to_owned(),
        host: hostname(),
        cores: cores as u32,
        engine_version: engine_version.to_owned(),
        bench_signature: bench.signature,
        // The worker fills in the key it keeps beside its spool.
        worker_key: String::new(),
        rules_version: engine::RULES_VERSION,
        engines: Vec::new(),
        bench_nps: bench.nps,
        simd: Some(bench.simd),
        nnue_bench_nps: bench.nnue_nps,
    }
}

/// This machine's name (`localhost` when `/etc/hostname` cannot be read).
pub fn hostname() -> String {
    std::fs::read_to_string("/etc/hostname").map(|s| s.trim().to_owned()).unwrap_or_else(|_| "localhost".to_owned())
}

/// The engine's bench signature (node count of `xqengine bench` at its default depth).
pub fn bench_signature() -> u64 {
    engine::bench::run(engine::bench::DEFAULT_DEPTH, &engine::ParamSet::default(), |_, _, _| {}).nodes
}

/// The nodes the bench with a network searches in each position: a node limit, not a depth,
/// because a network's tree at a fixed depth depends on its weights (made-up ones searched from
/// 0.4 to 10 million nodes at depth 7, against the HCE's 1.9 million at depth 9), and the
/// figure must not grow a worker's start by more than a second or so. About 370,000 nodes over
/// the bench positions, a fifth of the HCE bench's. Its node count is no signature.
pub const NNUE_BENCH_NODES: u64 = 12_000;
/// The seed of the bench network's made-up weights.
const NNUE_BENCH_SEED: u64 = 0x5eed;

/// The network the speed with a network is measured with: the shipped architecture at its
/// default hidden size ([`engine::nnue::DEFAULT_HIDDEN`]), weights drawn from a fixed seed.
/// Made-up weights measure the speed about as well as trained ones: a node's network work (the
/// accumulator updates and the output layer's dot product) is the same integer arithmetic
/// whatever the weights' values; they change only which nodes the search visits (so the mix of
/// quiet moves and captures differs a little), and the search is deterministic, so the figure
/// is reproducible.
pub fn bench_network() -> Network {
    Network::random(NNUE_BENCH_SEED, engine::nnue::DEFAULT_HIDDEN)
}

/// The bench signature and the loaded speeds, as Fishtest measures a worker: `slots` benches at
/// once, one thread each (a worker playing `slots` games at once runs that loaded), the speed
/// the mean of their nodes per second; first with the hand-crafted evaluation at the default
/// depth, then with [`bench_network`], [`NNUE_BENCH_NODES`] in each position.
pub fn measure_bench(slots: usize) -> Result<Bench> {
    let hce = loaded_bench(slots, &Limits::depth(engine::bench::DEFAULT_DEPTH), &EvalKind::Hce)?;
    let network = EvalKind::Nnue(Arc::new(bench_network()));
    let nnue = loaded_bench(slots, &Limits::nodes(NNUE_BENCH_NODES), &network)?;
    Ok(Bench { signature: hce.nodes, nps: hce.nps, simd: SimdLevel::detect(), nnue_nps: nnue.nps })
}

/// What [`loaded_bench`] measured: the node count of one bench and the mean speed.
struct Loaded {
    nodes: u64,
    nps: u64,
}

/// `slots` benches at once with `eval` and `limits`: their node count (the same in each, or an
/// error) and their mean nodes per second.
fn loaded_bench(slots: usize, limits: &Limits, eval: &EvalKind) -> Result<Loaded> {
    let slots = slots.max(1);
    let params = engine::ParamSet::default();
    let results: Vec<engine::bench::BenchResult> = std::thread::scope(|scope| {
        let benches: Vec<_> = (0..slots)
            .map(|_| scope.spawn(|| engine::bench::run_with_limits(limits, &params, eval, |_, _, _| {})))
            .collect();
        benches
            .into_iter()
            .map(|b| b.join().map_err(|_| Error::Bench { reason: "a bench thread panicked".into() }))
            .collect::<Result<Vec<_>>>()
    })?;
    let nodes = results[0].nodes;
    if results.iter().any(|r| r.nodes != nodes) {
        let counts: Vec<u64> = results.iter().map(|r| r.nodes).collect();
        return Err(Error::Bench {
            reason: format!(
                "the {} bench searched different node counts at once ({counts:?}): the engine is not deterministic",
                eval.name()
            ),
        });
    }
    let nps = results.iter().map(engine::bench::BenchResult::nps).sum::<u64>() / results.len() as u64;
    Ok(Loaded { nodes, nps })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn benches_run_at_once_have_the_builds_signature_and_a_speed() {
        let loaded = measure_bench(2).expect("two benches at once");
        assert_eq!(loaded.signature, bench_signature(), "the signature does not depend on the load");
        assert!(loaded.nps > 0 && loaded.nnue_nps > 0, "{loaded:?}");
        assert_eq!(loaded.simd, SimdLevel::detect());
        let info = local_worker_info("w", 2, loaded, "xqengine test");
        assert_eq!(info.bench_nps, loaded.nps, "reported at Register");
        assert_eq!((info.simd, info.nnue_bench_nps), (Some(loaded.simd), loaded.nnue_nps));
        assert_eq!(info.engine_version, "xqengine test");
    }

    #[test]
    fn the_start_line_names_both_speeds_and_the_simd_level() {
        let bench = Bench { signature: 1, nps: 1_959_704, simd: SimdLevel::Avx2, nnue_nps: 1_200_000 };
        assert_eq!(bench.speeds(), "1959704 nps a game slot (HCE), 1200000 with a network (avx2)");
        let given = Bench { nnue_nps: 0, simd: SimdLevel::Scalar, ..bench };
        assert_eq!(given.speeds(), "1959704 nps a game slot (HCE), not measured with a network (scalar)");
    }

    #[test]
    fn the_bench_network_is_the_shipped_architecture_and_the_same_every_time() {
        let net = bench_network();
        assert_eq!(net.hidden(), engine::nnue::DEFAULT_HIDDEN);
        assert_eq!(net, bench_network(), "fixed weights: the figure is reproducible");
    }
}
