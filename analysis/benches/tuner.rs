//! The tuner's epoch (loss and exact gradient over every position) on 1M synthetic positions,
//! in position-epochs per second (criterion's throughput), and the set's bytes per position.
//! Run: `cargo bench -p analysis --bench tuner`.

use criterion::{Criterion, Throughput, black_box, criterion_group, criterion_main};
use engine::eval::Params;

use analysis::tune::{bench::synthetic_set, mse_and_gradient, weights_of};

const POSITIONS: usize = 1_000_000;

fn bench_epoch(c: &mut Criterion) {
    let set = synthetic_set(POSITIONS, 0x7E7A).expect("the synthetic set builds");
    eprintln!(
        "{} positions, {:.1} entries and {:.1} bytes per position",
        set.len(),
        set.entries() as f64 / set.len() as f64,
        set.bytes_per_position()
    );
    let weights = weights_of(&Params::default());
    let mut group = c.benchmark_group("tuner");
    group.sample_size(10);
    group.throughput(Throughput::Elements(set.len() as u64));
    group.bench_function("epoch/1M", |b| {
        b.iter(|| mse_and_gradient(black_box(&set), black_box(&weights), 1.0).expect("valid weights"))
    });
    group.finish();
}

criterion_group!(benches, bench_epoch);
criterion_main!(benches);
