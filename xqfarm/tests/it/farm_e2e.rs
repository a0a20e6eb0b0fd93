//! The farm end to end in one process: a coordinator on 127.0.0.1:0 (SQLite and Parquet in
//! a temp dir) and two workers over real gRPC play a small fixed-games run; the Parquet
//! files then hold exactly the games the coordinator counted.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use coordinator::farm::Farm;
use coordinator::server::Security;
use coordinator::{SqliteStorage, SystemClock};
use engine::eval::Params;
use proto::domain::{
    Adjudication, OpeningSuiteSpec, RunKind, RunSpec, RunState, TimeControl, VariantKind, VariantSpec, WorkerInfo,
};
use worker::client::{WorkerConfig, run_worker};

use crate::served::Served;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn two_workers_play_a_fixed_games_run() {
    let dir = tempfile::tempdir().expect("temp dir");
    let data = dir.path().join("data");
    let storage = SqliteStorage::open(dir.path().join("farm.db")).expect("database");
    let farm = Arc::new(Farm::new(Arc::new(storage), Arc::new(SystemClock), Some(data.clone())).expect("farm"));
    let server = Served::start(Arc::clone(&farm), Security::single_token("secret")).await;
    let url = server.url.clone();

    let a = farm
        .add_variant(&VariantSpec {
            name: "default".into(),
            kind: VariantKind::Params { toml: Params::default().to_toml() },
        })
        .expect("variant a");
    let b = farm
        .add_variant(&VariantSpec {
            name: "material".into(),
            kind: VariantKind::Params { toml: Params::material_only().to_toml() },
        })
        .expect("variant b");
    let suite = farm
        .add_openings(&OpeningSuiteSpec {
            name: "few".into(),
            openings: vec![
                "startpos moves h2e2 h9g7".into(),
                "startpos moves c3c4 g6g5".into(),
                "startpos moves b0c2".into(),
            ],
        })
        .expect("suite");
    let pairs = 6;
    let run = farm
        .create_run(&RunSpec {
            name: "e2e".into(),
            kind: RunKind::Games { pairs },
            variants: vec![a.id.clone(), b.id.clone()],
            tc: TimeControl::Depth(2),
            openings: suite.id,
            adjudication: Adjudication::default(),
            bench_signature: None,
            sample_every: 5,
        })
        .expect("run");

    let workers: Vec<_> =
        (0..2).map(|i| spawn_worker(&url, &format!("w{i}"), 1, dir.path().join(format!("spool{i}")))).collect();

    let status = finished(&farm, run.id).await;
    for w in &workers {
        w.abort();
    }
    server.stop().await;

    assert_eq!(status.run.state, RunState::Completed);
    let counts = status.live[0].counts;
    assert_eq!(counts.games(), 2 * pairs);
    assert_eq!(counts.pentanomial.iter().sum::<u64>(), pairs);

    let games = farmdata::read_games(&data, run.id).expect("parquet games");
    assert_eq!(games.len() as u64, counts.games(), "Parquet holds exactly the counted games");
    let mut per_pair: HashMap<u64, usize> = HashMap::new();
    for g in &games {
        *per_pair.entry(g.pair_id).or_default() += 1;
        assert!(["1-0", "0-1", "1/2-1/2"].contains(&g.result.as_str()));
        assert_eq!(g.plies as usize, g.moves.len());
    }
    assert_eq!(per_pair.len() as u64, pairs);
    assert!(per_pair.values().all(|&n| n == 2), "{per_pair:?}");
    let workers_seen: std::collections::HashSet<&str> = games.iter().map(|g| g.worker.as_str()).collect();
    assert!(!workers_seen.is_empty());
    let positions = farmdata::read_positions(&data, run.id).expect("parquet positions");
    assert!(!positions.is_empty(), "sampled positions are written");
}

/// A datagen run end to end: a worker over gRPC plays the one variant against itself at low
/// nodes from the coordinator's random openings; every position of every game lands in SQLite
/// and Parquet with the engine's score, and the run completes.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_worker_plays_a_datagen_run_and_every_position_lands_with_its_score() {
    use proto::domain::{DatagenSettings, RunKindName, RunRequest, SuiteId};
    let dir = tempfile::tempdir().expect("temp dir");
    let data = dir.path().join("data");
    let storage = SqliteStorage::open(dir.path().join("farm.db")).expect("database");
    let farm = Arc::new(Farm::new(Arc::new(storage), Arc::new(SystemClock), Some(data.clone())).expect("farm"));
    let server = Served::start(Arc::clone(&farm), Security::single_token("secret")).await;
    let v = farm
        .add_variant(&VariantSpec {
            name: "hce".into(),
            kind: VariantKind::Params { toml: Params::default().to_toml() },
        })
        .expect("variant");
    let lines = vec!["startpos".to_owned(), "startpos moves h2e2 h9g7".to_owned()];
    let suite = farm.add_openings(&OpeningSuiteSpec { name: "two".into(), openings: lines.clone() }).expect("suite");
    // As `xqfarm run create --kind datagen --variant ID --pairs 2 --random-plies 6 --tc nodes=300`.
    let mut request = RunRequest::new(vec![v.id.clone()], SuiteId::new(suite.id.get()));
    request.kind = RunKindName::Datagen;
    request.pairs = 2;
    request.random_plies = Some(6);
    request.tc = Some("nodes=300".into());
    let spec = request.to_spec().expect("a datagen spec");
    assert_eq!(
        (spec.kind.clone(), spec.sample_every),
        (RunKind::Datagen(DatagenSettings { pairs: 2, random_plies: 6 }), 1)
    );
    let run = farm.create_run(&spec).expect("run");

    let worker = spawn_worker(&server.url, "w0", 2, dir.path().join("spool"));
    let status = finished(&farm, run.id).await;
    worker.abort();
    server.stop().await;
    assert_eq!(status.run.state, RunState::Completed);
    assert_eq!(status.live[0].counts.games(), 4);

    let games = farm.storage().games_since(run.id, 0, 100).expect("games");
    assert_eq!(games.len(), 4);
    let mut expected_positions = 0;
    // A variant playing itself at fixed nodes from one position plays one game: each game of a
    // pair starts from random plies of its own, so no pair records its positions twice.
    for pair in 0..2 {
        let starts: Vec<&str> =
            games.iter().filter(|g| g.pair_index == pair).map(|g| g.report.start_fen.as_str()).collect();
        assert_eq!(starts.len(), 2);
        assert_ne!(starts[0], starts[1], "pair {pair}'s games start apart");
    }
    for g in &games {
        let r = &g.report;
        assert_eq!(r.red, v.id);
        assert_eq!(r.black, v.id, "self-play");
        let line = &lines[g.opening_index as usize];
        let opening =
            coordinator::datagen::random_opening(line, run.id, g.pair_index, g.game_in_pair, 6).expect("opening");
        assert_eq!(r.start_fen, opening, "game {} starts after its own random plies", g.game_id);
        assert_eq!(r.positions.len(), r.moves.len().saturating_sub(1), "every position but the start");
        for (p, mv) in r.positions.iter().zip(r.moves.iter().skip(1)) {
            assert!(p.search_score.is_some(), "game {} ply {}: the engine's score", g.game_id, p.ply);
            assert_eq!(&p.best_move, mv, "the move played, never a random one");
        }
        expected_positions += r.positions.len();
    }
    // In Parquet, the random plies follow the suite line's moves: the line leads to the start.
    let parquet_games = farmdata::read_games(&data, run.id).expect("parquet games");
    assert_eq!(parquet_games.len(), 4);
    for g in &parquet_games {
        let suite_moves = engine::OpeningLine::parse(&lines[g.opening_id as usize]).expect("line").moves.len();
        assert_eq!(g.opening_moves.len(), suite_moves + 6, "game {}", g.game_id);
        let text = format!("fen {} moves {}", g.opening_fen, g.opening_moves.join(" "));
        let line = engine::OpeningLine::parse(&text).expect("the recorded line replays");
        assert_eq!(line.position.fen(), g.start_fen, "game {}", g.game_id);
    }
    let positions = farmdata::read_positions(&data, run.id).expect("parquet positions");
    assert_eq!(positions.len(), expected_positions);
    assert!(positions.iter().all(|p| p.search_score.is_some()));
    let aggregates = farm.storage().run_aggregates(run.id).expect("aggregates");
    assert_eq!(aggregates.sampled_positions(1), expected_positions as u64);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_calls_get_clear_status_codes_and_change_nothing() {
    use proto::pb;
    use proto::pb::farm_client::FarmClient;
    use tonic::Code;

    let server = Served::in_memory("right").await;
    let (farm, url) = (Arc::clone(&server.farm), server.url.clone());
    let channel = tonic::transport::Endpoint::from_shared(url).expect("url").connect().await.expect("connect");
    let list = || pb::ListRunsRequest { protocol_version: proto::PROTOCOL_VERSION, active_only: false, limit: 0 };

    // No token, wrong token.
    let mut bare = FarmClient::new(channel.clone());
    assert_eq!(bare.list_runs(list()).await.expect_err("no token").code(), Code::Unauthenticated);
    let mut wrong =
        FarmClient::with_interceptor(channel.clone(), proto::auth::BearerToken::new("wrong").expect("token"));
    assert_eq!(wrong.list_runs(list()).await.expect_err("wrong token").code(), Code::Unauthenticated);

    let mut c = FarmClient::with_interceptor(channel, proto::auth::BearerToken::new("right").expect("token"));
    assert!(c.list_runs(list()).await.is_ok());
    // Another protocol version.
    let err = c.list_runs(pb::ListRunsRequest { protocol_version: 99, ..list() }).await.expect_err("version");
    assert_eq!(err.code(), Code::FailedPrecondition);
    assert!(err.message().contains("99"), "{}", err.message());
    // A missing field names it.
    let err = c
        .create_run(pb::CreateRunRequest { protocol_version: proto::PROTOCOL_VERSION, ..Default::default() })
        .await
        .expect_err("missing spec");
    assert_eq!(err.code(), Code::InvalidArgument);
    assert!(err.message().contains("spec"), "{}", err.message());
    // Unknown run; a run naming unknown variants; an illegal opening.
    let err = c.get_run(pb::GetRunRequest::from(proto::domain::RunId::new(42))).await.expect_err("unknown run");
    assert_eq!(err.code(), Code::NotFound);
    let bad_suite = OpeningSuiteSpec { name: "bad".into(), openings: vec!["startpos moves h2h9 h9h0".into()] };
    let err = c.add_openings(pb::AddOpeningsRequest::from(bad_suite)).await.expect_err("illegal opening");
    assert_eq!(err.code(), Code::InvalidArgument);
    assert!(err.message().contains("h9h0") || err.message().contains("move 1"), "{}", err.message());
    let bad_params = VariantSpec {
        name: "x".into(),
        kind: VariantKind::Params { toml: "[material.rook]\nmg = \"heavy\"\n".into() },
    };
    let err = c.add_variant(pb::AddVariantRequest::from(bad_params)).await.expect_err("bad params");
    assert_eq!(err.code(), Code::InvalidArgument);
    assert!(err.message().contains("material.rook.mg"), "{}", err.message());

    // Nothing was stored by the refused calls.
    assert!(farm.list_runs(&proto::domain::RunFilter::default()).expect("runs").is_empty());
    server.stop().await;
}

/// A variant whose parameters name a network (`eval = "nnue:<sha256>"`) plays in a real farm:
/// the network goes up over gRPC in chunks, the worker fetches it once into its cache by hash
/// and plays it; a network the coordinator does not store cannot be named.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_network_variant_plays_with_the_network_its_worker_fetched() {
    use proto::client::{ClientConfig, FarmClient};

    let dir = tempfile::tempdir().expect("temp dir");
    let storage = SqliteStorage::open(dir.path().join("farm.db")).expect("database");
    let farm = Arc::new(Farm::new(Arc::new(storage), Arc::new(SystemClock), None).expect("farm"));
    let server = Served::start(Arc::clone(&farm), Security::single_token("secret")).await;
    let client = FarmClient::connect(&server.url, None, "secret", ClientConfig::default()).await.expect("connect");

    // Over 1 MiB, so it crosses in more than one chunk each way.
    let bytes = engine::nnue::Network::random(11, 512).to_bytes();
    assert!(bytes.len() > proto::domain::NETWORK_CHUNK_BYTES);
    let id = engine::nnue::NetworkId::of_file(&bytes);
    let named = engine::ParamSet { eval_spec: engine::EvalSpec::Nnue(id), ..engine::ParamSet::default() };
    let spec = VariantSpec { name: "net".into(), kind: VariantKind::Params { toml: named.to_toml() } };
    let refused = client.add_variant(spec.clone()).await.expect_err("not stored yet").to_string();
    assert!(refused.contains(&format!("network {id} not found")), "{refused}");
    let junk = client.add_network(b"XQNN but not a network").await.expect_err("not a network").to_string();
    assert!(junk.contains("network"), "{junk}");
    assert_eq!(client.add_network(&bytes).await.expect("stored"), id);
    let net = client.add_variant(spec).await.expect("names a stored network");
    let hce = farm
        .add_variant(&VariantSpec {
            name: "hce".into(),
            kind: VariantKind::Params { toml: Params::default().to_toml() },
        })
        .expect("variant");
    let suite = farm
        .add_openings(&OpeningSuiteSpec { name: "one".into(), openings: vec!["startpos moves h2e2 h9g7".into()] })
        .expect("suite");
    let pairs = 2;
    let run = farm
        .create_run(&RunSpec {
            name: "net-vs-hce".into(),
            kind: RunKind::Games { pairs },
            variants: vec![net.id.clone(), hce.id.clone()],
            tc: TimeControl::Depth(2),
            openings: suite.id,
            adjudication: Adjudication::default(),
            bench_signature: None,
            sample_every: 0,
        })
        .expect("run");

    let spool = dir.path().join("spool");
    let worker = spawn_worker(&server.url, "w", 1, spool.clone());
    let status = finished(&farm, run.id).await;
    worker.abort();
    server.stop().await;

    assert_eq!(status.run.state, RunState::Completed);
    assert_eq!(status.live[0].counts.games(), 2 * pairs);
    let cached = std::fs::read(spool.join("networks").join(format!("{id}.xqnn"))).expect("the worker cached it");
    assert_eq!(cached, bytes, "the worker plays the bytes the coordinator stores");
}

/// A worker of this process for the farm at `url` (token `secret`), playing `concurrency` games
/// at once with its spool in `spool`.
fn spawn_worker(
    url: &str,
    name: &str,
    concurrency: usize,
    spool: std::path::PathBuf,
) -> tokio::task::JoinHandle<worker::Result<()>> {
    let cfg = WorkerConfig {
        coordinator: url.to_owned(),
        ca_cert: None,
        token: "secret".into(),
        name: name.to_owned(),
        concurrency,
        spool_dir: spool,
        bench_signature: 1,
        max_leases: None,
        idle_exit: None,
        engines: worker::engines::EngineSet::empty(),
        tablebases: None,
    };
    let info = WorkerInfo {
        name: name.to_owned(),
        host: "test".into(),
        cores: concurrency as u32,
        engine_version: "test".into(),
        bench_signature: 1,
        worker_key: String::new(),
        rules_version: engine::RULES_VERSION,
        engines: Vec::new(),
        bench_nps: 0,
        simd: None,
        nnue_bench_nps: 0,
    };
    tokio::spawn(run_worker(cfg, info))
}

/// The run's status once it is no longer active (within four minutes).
async fn finished(farm: &Farm, run: proto::domain::RunId) -> proto::domain::RunStatus {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(240);
    loop {
        let s = farm.get_run(run).expect("run");
        if s.run.state != RunState::Active {
            return s;
        }
        assert!(tokio::time::Instant::now() < deadline, "run did not finish: {s:?}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}
