//! perft(5) and perft(6) from the start position, single thread, in leaves per second
//! (criterion's throughput in elements/s). Run: `cargo bench -p engine --bench perft`.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use engine::Position;
use engine::perft::perft;

fn bench_perft(c: &mut Criterion) {
    let mut group = c.benchmark_group("perft-startpos");
    for (depth, leaves, samples) in [(5u32, 133_312_995u64, 10usize), (6, 5_392_831_844, 10)] {
        group.throughput(Throughput::Elements(leaves));
        group.sample_size(samples);
        group.bench_function(format!("depth {depth}"), |b| {
            let mut pos = Position::startpos();
            b.iter(|| {
                let n = perft(&mut pos, depth);
                assert_eq!(n, leaves);
                n
            });
        });
    }
    group.finish();
}

criterion_group!(benches, bench_perft);
criterion_main!(benches);
