//! The xqfarm coordinator: runs, variants, openings, leases and results, kept behind the
//! [`Storage`] trait (SQLite in service, in memory for tests), with the scheduling decisions as
//! pure functions in [`scheduler`] and the time controls scaled to each worker's speed in
//! [`tc_scale`].
//!
//! ```
//! use coordinator::{Clock, ManualClock, MemoryStorage, Storage};
//! use proto::domain::*;
//!
//! let storage = MemoryStorage::new();
//! let clock = ManualClock::new(1_700_000_000_000);
//! let variant = |name: &str, toml: &str| {
//!     VariantSpec { name: name.into(), kind: VariantKind::Params { toml: toml.into() } }
//! };
//! let base = storage.add_variant(&variant("base", ""))?;
//! let weak = storage.add_variant(&variant("weak", "material.rook = 800\n"))?;
//! let suite = storage.add_openings("one", &["startpos moves h2e2 h9g7".to_string()])?;
//! let run = storage.create_run(
//!     &RunSpec {
//!         name: "base vs weak".into(),
//!         kind: RunKind::Games { pairs: 2 },
//!         variants: vec![base.id.clone(), weak.id.clone()],
//!         tc: "nodes=5000".parse()?,
//!         openings: suite.id,
//!         adjudication: Adjudication::default(),
//!         bench_signature: None,
//!         sample_every: 0,
//!     },
//!     clock.now_ms(),
//! )?;
//!
//! let info = WorkerInfo {
//!     name: "w1".into(),
//!     host: "localhost".into(),
//!     cores: 2,
//!     engine_version: "0.1".into(),
//!     bench_signature: 1,
//!     worker_key: String::new(),
//!     rules_version: engine::RULES_VERSION,
//!     engines: Vec::new(),
//!     bench_nps: 0,
//!     simd: None,
//!     nnue_bench_nps: 0,
//! };
//! let worker = storage.register_worker(&info, clock.now_ms())?;
//! let lease = storage.lease_batch(worker, 2, clock.now_ms())?.expect("work to do");
//! assert_eq!(lease.tasks.len(), 2);
//!
//! // The worker plays each pair and reports, with a sequence number. Here Black's engine fails
//! // to start in both games: an engine error before the first move, which Red wins.
//! let game = |red: &VariantId, black: &VariantId, start: &str| GameReport {
//!     red: red.clone(), black: black.clone(), start_fen: start.into(), outcome: GameOutcome::RedWins,
//!     reason: Termination::EngineError, moves: vec![], move_stats: vec![], forfeit: None,
//!     duration_ms: 1, nodes: 0, positions: vec![],
//! };
//! let mut reports = Vec::new();
//! for t in &lease.tasks {
//!     let start = engine::OpeningLine::parse(&t.opening)?.position.fen();
//!     let [a, b] = &t.variants;
//!     reports.push(PairReport { pair_index: t.pair_index, games: [game(a, b, &start), game(b, a, &start)] });
//! }
//! // The farm has the referee replay every game against the lease before storing anything.
//! coordinator::referee::check_batch(&storage.lease_terms(lease.id)?, &reports, None)?;
//! let outcome = storage.record_results(worker, lease.id, 1, &reports, true, clock.now_ms())?;
//! assert_eq!(outcome.accepted, 2);
//! // A resent submission is acknowledged and changes nothing.
//! assert!(storage.record_results(worker, lease.id, 1, &reports, true, clock.now_ms())?.duplicate);
//!
//! let run = storage.get_run(run.id)?;
//! assert_eq!(run.stats[0].pentanomial, [0, 0, 2, 0, 0]);
//! assert_eq!(run.state, RunState::Completed);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
mod changes;
pub mod clock;
pub mod datagen;
pub mod error;
pub mod exporter;
pub mod farm;
pub mod granted;
pub mod grpc;
pub mod metrics;
pub mod referee;
pub mod request_keys;
pub mod rpc_metrics;
pub mod run_openings;
pub mod scheduler;
pub mod server;
pub mod spec;
pub mod spsa;
pub mod storage;
pub mod tc_scale;
pub mod tournament;

pub use clock::{Clock, ManualClock, SystemClock};
pub use error::{Error, Result};
pub use storage::{
    GameSummary, LeaseTerms, MemoryStorage, PgStorage, RecordOutcome, RunAggregates, SqliteStorage, Storage,
    StoredGame, WorkerRow, WorkerRunStats,
};
