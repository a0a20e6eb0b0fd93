//! Registering workers through the farm: the rules version is checked, and a worker key
//! brings a restarted worker back as the same worker.

use std::sync::Arc;

use coordinator::farm::Farm;
use coordinator::{Error, ManualClock, MemoryStorage, SqliteStorage, Storage};
use proto::domain::WorkerInfo;

fn info(key: &str, rules_version: u32) -> WorkerInfo {
    WorkerInfo {
        name: "w".into(),
        host: "h".into(),
        cores: 2,
        engine_version: "e".into(),
        bench_signature: 1,
        worker_key: key.into(),
        rules_version,
        engines: Vec::new(),
        bench_nps: 0,
        simd: None,
        nnue_bench_nps: 0,
    }
}

fn farms() -> Vec<(Farm, Option<tempfile::TempDir>)> {
    let dir = tempfile::tempdir().expect("temp dir");
    let sqlite: Arc<dyn Storage> = Arc::new(SqliteStorage::open(dir.path().join("farm.db")).expect("open"));
    let memory: Arc<dyn Storage> = Arc::new(MemoryStorage::new());
    [(memory, None), (sqlite, Some(dir))]
        .into_iter()
        .map(|(s, d)| (Farm::new(s, Arc::new(ManualClock::new(0)), None).expect("farm"), d))
        .collect()
}

#[test]
fn other_rules_are_refused_at_register_naming_both_versions() {
    for (farm, _dir) in farms() {
        for theirs in [0, engine::RULES_VERSION + 1] {
            let error = farm.register(&info("k", theirs)).expect_err("other rules");
            assert!(
                matches!(error, Error::RulesVersion { worker, coordinator }
                    if worker == theirs && coordinator == engine::RULES_VERSION),
                "{error}"
            );
            let status = tonic::Status::from(error);
            assert_eq!(status.code(), tonic::Code::FailedPrecondition);
            let message = status.message();
            assert!(
                message.contains(&format!("rules version {theirs}"))
                    && message.contains(&format!("rules version {}", engine::RULES_VERSION)),
                "{message}"
            );
        }
        // Nothing was registered: the first worker that plays by these rules is worker 1.
        assert_eq!(farm.register(&info("", engine::RULES_VERSION)).expect("same rules").get(), 1);
    }
}

#[test]
fn a_worker_key_brings_the_same_worker_back() {
    for (farm, _dir) in farms() {
        let first = farm.register(&info("spool-key", engine::RULES_VERSION)).expect("register");
        let other = farm.register(&info("another-key", engine::RULES_VERSION)).expect("register");
        assert_eq!(farm.register(&info("spool-key", engine::RULES_VERSION)).expect("again"), first);
        assert_ne!(other, first);
        let bad = farm.register(&info("two words", engine::RULES_VERSION)).expect_err("a key with a space");
        assert!(matches!(&bad, Error::InvalidSpec { field, .. } if field == "worker_key"), "{bad}");
    }
}
