//! What a worker says of itself at Register: its name, host and cores, the engine build's
//! version and bench signature, and its loaded speed (measured as Fishtest measures a worker).

use proto::domain::WorkerInfo;

use crate::error::{Error, Result};

/// What a worker measures of itself at start.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bench {
    /// The node count of `xqengine bench` at its default depth: the build's signature.
    pub signature: u64,
    /// Its speed in nodes per second with every game slot busy (0 = not measured).
    pub nps: u64,
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

/// The bench signature and the loaded speed, as Fishtest measures a worker: `slots` benches at
/// once, one thread each (a worker playing `slots` games at once runs that loaded), the speed
/// the mean of their nodes per second.
pub fn measure_bench(slots: usize) -> Result<Bench> {
    let slots = slots.max(1);
    let results: Vec<engine::bench::BenchResult> = std::thread::scope(|scope| {
        let benches: Vec<_> = (0..slots)
            .map(|_| {
                scope.spawn(|| {
                    engine::bench::run(engine::bench::DEFAULT_DEPTH, &engine::ParamSet::default(), |_, _, _| {})
                })
            })
            .collect();
        benches
            .into_iter()
            .map(|b| b.join().map_err(|_| Error::Bench { reason: "a bench thread panicked".into() }))
            .collect::<Result<Vec<_>>>()
    })?;
    let signature = results[0].nodes;
    if results.iter().any(|r| r.nodes != signature) {
        let counts: Vec<u64> = results.iter().map(|r| r.nodes).collect();
        return Err(Error::Bench {
            reason: format!(
                "the bench searched different node counts at once ({counts:?}): the engine is not deterministic"
            ),
        });
    }
    let nps = results.iter().map(engine::bench::BenchResult::nps).sum::<u64>() / results.len() as u64;
    Ok(Bench { signature, nps })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn benches_run_at_once_have_the_builds_signature_and_a_speed() {
        let loaded = measure_bench(2).expect("two benches at once");
        assert_eq!(loaded.signature, bench_signature(), "the signature does not depend on the load");
        assert!(loaded.nps > 0, "{loaded:?}");
        let info = local_worker_info("w", 2, loaded, "xqengine test");
        assert_eq!(info.bench_nps, loaded.nps, "reported at Register");
        assert_eq!(info.engine_version, "xqengine test");
    }
}
