//! `xqengine bench`: fixed positions searched to a fixed depth with one thread and a fixed
//! hash size, each after `new_game`. The total node count is the build's signature (the
//! farm's workers compare it before playing a batch); nps is the speed figure.

use std::time::{Duration, Instant};

use crate::ParamSet;
use crate::engine::Engine;
use crate::eval_kind::EvalKind;
use crate::position::Position;
use crate::search::Limits;

/// Default bench depth.
pub const DEFAULT_DEPTH: u32 = 9;
/// Hash size used by bench, whatever the option says.
pub const BENCH_HASH_MIB: usize = 16;

/// Openings, middlegames and endgames (about 30).
pub const BENCH_FENS: &[&str] = &[
    "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1",
    "rnbakab1r/9/1c4nc1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR w - - 2 2",
    "r1bakab1r/9/1cn3nc1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C1N2/9/RNBAKAB1R w - - 4 3",
    "rnbakabnr/9/1c5c1/p1p1p1p1p/9/2P6/P3P1P1P/1C5C1/9/RNBAKABNR b - - 1 1",
    "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2B2C1/9/RN1AKABNR b - - 1 1",
    "r1bakabr1/9/1cn2cn2/p1p1p1p1p/9/2P6/P3P1P1P/1CN1C1N2/9/R1BAKAB1R w - - 6 5",
    "2bakab1r/9/2n1c1n2/p3p1p1p/2p6/6P2/P1P1P3P/2N1C1N2/9/1RBAKAB2 w - - 0 9",
    "9/4k4/3aba3/3P5/1cb6/2BC5/n3N4/B2A5/9/3AK4 w - - 0 1",
    "CRN1k1b2/3ca4/4ba3/9/2nr5/9/9/4B4/4A4/4KA3 w - - 0 1",
    "C3kab2/4a4/2Rnb3n/8p/6p2/1p2c3r/P5P2/4B3N/3CA4/2BAK4 w - - 0 1",
    "3ak1b2/4a4/2n1b1R2/p1N1pc2p/7r1/2PN1r3/P3P3P/3RB4/4A4/1C2KAB1c w - - 0 1",
    "2b1ka2r/3na2c1/4b3n/8R/8C/4C1P2/P1P1P3P/4B1N2/1r2A4/2BAK4 w - - 0 1",
    "2bakab2/6r2/2n1c1nc1/p1p2rp1p/4p4/2PN2PC1/P3P3P/6N2/3CA4/1RBAK1B1R w - - 0 1",
    "4kab2/4a4/n3b4/p5p1p/2r1C4/2N1P2r1/P4nPcP/N3B4/2R6/2RAKAB2 w - - 0 1",
    "2baka1r1/9/c5n1c/p3p1CCp/2p3p2/4P4/P6RP/2r1B1N2/4A4/1RB1KA3 w - - 0 1",
    "1rbaka2R/5r3/6n2/2p1p1p2/4P1bP1/PpC3Bc1/1nPR2P2/2N2AN2/1c2K1p2/2BAC4 w - - 0 1",
    "2b1kab1C/1N2a4/n3ccn2/p5r1p/4p4/P1P2RN2/2r1P3P/C3B4/4A4/2BAK2R1 w - - 0 1",
    "3akab2/3r5/8n/8p/2P1C1b2/8P/cR2N2r1/2n1B1N2/4A4/2B1KR3 w - - 0 1",
    "2bak4/9/3a5/p2Np3p/3n1P3/3pc3P/P4r1c1/B2CC2R1/4A4/3AK1B2 b - - 0 1",
    "3ak4/3Pa4/4b3b/5r3/1R3N3/9/9/B8/2p1A4/2B1KA3 w - - 0 1",
    "1C2ka3/9/C1Nab1n2/p3p3p/6p2/9/P3P3P/3AB4/3p2c2/c1BAK4 w - - 0 1",
    "3ak1b1r/4a4/b1n2c3/p3C2Rp/5np2/2P6/P2rP1P1P/3C2N2/4A4/R1B1KAB2 b - - 0 1",
    "r2akabr1/4n1c2/4b1c2/pC2C3p/2P1P4/9/P3N1p1P/9/9/RNBAKAB2 w - - 0 1",
    "1r1akabr1/1c7/2n1b1n2/p1p1p3p/6p2/PN3R3/1cP1P1P1P/2C1C1N2/1R7/2BAKAB2 b - - 0 1",
    "r2akabr1/4n4/4b1nc1/p1N1p1R1p/6p2/2p3P2/Pc2P3P/2C1C1N2/9/R1BAKAB2 b - - 0 1",
    "4kcP1N/8n/3rb4/9/9/9/9/3p1A3/4K4/5CB2 w - - 0 1",
    "3k5/P8/9/4p4/2P6/9/9/9/9/4K4 w - - 0 1",
    "3ak4/4a4/4b4/9/9/4C4/9/9/4A4/3AK4 w - - 0 1",
    "3k5/4c4/9/9/9/9/4N4/9/4A4/4K4 b - - 0 1",
    "4k4/9/9/9/9/9/5p3/4B4/3N5/4K4 w - - 0 1",
    "3a1k3/4a4/9/9/2b6/9/9/4R4/9/4K4 w - - 0 1",
];

/// Totals of one bench run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BenchResult {
    pub nodes: u64,
    pub time: Duration,
}

impl BenchResult {
    pub fn nps(&self) -> u64 {
        crate::search::nps(self.nodes, self.time)
    }
}

/// Searches every bench position to `depth` with `params`; `on_position(i, fen, nodes)` is
/// called after each. The hand-crafted evaluation: its node count is the build's signature.
pub fn run(depth: u32, params: &ParamSet, on_position: impl FnMut(usize, &str, u64)) -> BenchResult {
    run_with_eval(depth, params, &EvalKind::Hce, on_position)
}

/// [`run`] with the given evaluation (a network's speed figure; its node count is no
/// signature, since it depends on the network).
pub fn run_with_eval(
    depth: u32,
    params: &ParamSet,
    eval: &EvalKind,
    on_position: impl FnMut(usize, &str, u64),
) -> BenchResult {
    run_with_limits(&Limits::depth(depth), params, eval, on_position)
}

/// [`run_with_eval`] with any limits for each position: a node limit bounds the work whatever
/// the evaluation (a network's tree at a fixed depth can be many times the HCE's), which a
/// speed figure measured at start wants.
pub fn run_with_limits(
    limits: &Limits,
    params: &ParamSet,
    eval: &EvalKind,
    mut on_position: impl FnMut(usize, &str, u64),
) -> BenchResult {
    let mut engine = Engine::with_param_set(params.clone());
    engine.set_eval(eval.clone());
    engine.set_hash(BENCH_HASH_MIB);
    let mut nodes = 0;
    let start = Instant::now();
    for (i, fen) in BENCH_FENS.iter().enumerate() {
        let Ok(pos) = Position::from_fen(fen) else {
            continue;
        };
        engine.new_game();
        engine.set_position(pos);
        let result = engine.go(limits, |_| {});
        nodes += result.nodes;
        on_position(i, fen, result.nodes);
    }
    BenchResult { nodes, time: start.elapsed() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bench_positions_are_valid() {
        assert!(BENCH_FENS.len() >= 30);
        for fen in BENCH_FENS {
            let pos = Position::from_fen(fen).unwrap_or_else(|e| panic!("{fen}: {e}"));
            assert!(pos.has_legal_move(), "{fen}");
        }
    }

    #[test]
    fn bench_signature_is_reproducible() {
        let params = ParamSet::default();
        let a = run(4, &params, |_, _, _| {});
        let b = run(4, &params, |_, _, _| {});
        assert_eq!(a.nodes, b.nodes);
        assert!(a.nodes > 1000);
    }

    #[test]
    fn a_node_limit_bounds_every_position() {
        let limited = run_with_limits(&Limits::nodes(2_000), &ParamSet::default(), &EvalKind::Hce, |_, fen, nodes| {
            assert!((1..=2_000 + 1_024).contains(&nodes), "{fen}: {nodes} nodes");
        });
        let again = run_with_limits(&Limits::nodes(2_000), &ParamSet::default(), &EvalKind::Hce, |_, _, _| {});
        assert_eq!(limited.nodes, again.nodes, "deterministic");
    }

    #[test]
    fn search_parameters_reach_the_search() {
        let base = run(5, &ParamSet::default(), |_, _, _| {}).nodes;
        for (name, value) in [("search.rfp_margin", 30), ("search.lmr_div", 450), ("search.lmp_base", 20)] {
            let mut set = ParamSet::default();
            set.set(name, value).expect("in range");
            assert_ne!(run(5, &set, |_, _, _| {}).nodes, base, "{name} = {value} changed nothing");
        }
    }
}
