//! `evaluate` on a few positions (start, middlegames, an endgame), in evaluations per second
//! (criterion's time per iteration is the time per call), beside the network's: one move's
//! incremental update plus the output (what a search node pays), the same with the scalar loops,
//! and a from-scratch refresh. Run: `cargo bench -p engine --bench eval`.

use std::sync::Arc;

use criterion::{Criterion, Throughput, black_box, criterion_group, criterion_main};
use engine::Position;
use engine::eval::{Params, evaluate, trace};
use engine::nnue::{AccumulatorStack, Backend, DEFAULT_HIDDEN, Network};

const POSITIONS: [(&str, &str); 4] = [
    ("start", "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1"),
    ("middlegame-1", "2bakab2/6r2/2n1c1nc1/p1p2rp1p/4p4/2PN2PC1/P3P3P/6N2/3CA4/1RBAK1B1R w - - 0 1"),
    ("middlegame-2", "1rbaka2R/5r3/6n2/2p1p1p2/4P1bP1/PpC3Bc1/1nPR2P2/2N2AN2/1c2K1p2/2BAC4 w - - 0 1"),
    ("endgame", "4k4/9/9/9/9/9/5p3/4B4/3N5/4K4 w - - 0 1"),
];

fn bench_eval(c: &mut Criterion) {
    let params = Params::default();
    let mut group = c.benchmark_group("evaluate");
    group.throughput(Throughput::Elements(1));
    for (name, fen) in POSITIONS {
        let pos = Position::from_fen(fen).expect("valid bench FEN");
        group.bench_function(name, |b| b.iter(|| evaluate(black_box(&pos), black_box(&params))));
    }
    group.finish();

    let pos = Position::from_fen(POSITIONS[1].1).expect("valid bench FEN");
    c.bench_function("trace/middlegame-1", |b| b.iter(|| trace(black_box(&pos))));
}

fn bench_nnue(c: &mut Criterion) {
    let net = Arc::new(Network::random(1, DEFAULT_HIDDEN));
    let backends = [Some(Backend::detect()), Backend::avx2().map(|_| Backend::scalar())];
    for backend in backends.into_iter().flatten() {
        let mut group = c.benchmark_group(format!("nnue-{}-update", backend.name()));
        group.throughput(Throughput::Elements(1));
        for (name, fen) in POSITIONS {
            let mut pos = Position::from_fen(fen).expect("valid bench FEN");
            let m = pos.legal_moves().to_vec()[0];
            let mut stack = AccumulatorStack::with_backend(Arc::clone(&net), &pos, backend);
            pos.play_unchecked(m);
            let stm = pos.side_to_move();
            pos.undo();
            // One search node: record the move, compute its accumulators, evaluate, take back.
            group.bench_function(name, |b| {
                b.iter(|| {
                    stack.push_move(black_box(&pos), black_box(m));
                    let v = stack.evaluate(stm);
                    stack.pop();
                    v
                })
            });
        }
        group.finish();
    }
    let pos = Position::from_fen(POSITIONS[1].1).expect("valid bench FEN");
    let mut stack = AccumulatorStack::new(Arc::clone(&net), &pos);
    c.bench_function("nnue-refresh/middlegame-1", |b| {
        b.iter(|| {
            stack.refresh(black_box(&pos));
            stack.evaluate(pos.side_to_move())
        })
    });
}

criterion_group!(benches, bench_eval, bench_nnue);
criterion_main!(benches);
