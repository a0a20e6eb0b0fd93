//! The referee behind the real gRPC server: a lie submitted over the wire is refused with
//! INVALID_ARGUMENT naming the lease, pair, game and ply (an unknown reason already at the
//! wire), nothing is counted, and the same games told honestly are counted.

use std::sync::Arc;

use engine::eval::Params;
use proto::domain::{
    Adjudication, BatchResult, LeaseGrant, LeaseReply, LeaseRequest, OpeningSuiteSpec, PairReport, RunKind, RunSpec,
    SubmitRequest, TimeControl, Variant, VariantKind, VariantSpec, WorkerInfo,
};
use proto::pb;
use proto::pb::farm_client::FarmClient;
use tonic::Code;
use worker::player::{Player, RandomMover};

use crate::served::Served;

fn random_player(v: &Variant) -> worker::Result<Box<dyn Player>> {
    Ok(Box::new(RandomMover::new(v.spec.name.clone(), v.spec.name.len() as u64).with_score(None)))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lies_over_grpc_are_refused_and_honest_games_counted() {
    let server = Served::in_memory("t").await;
    let (farm, url) = (Arc::clone(&server.farm), server.url.clone());
    let variant = |name: &str, params: Params| VariantSpec {
        name: name.into(),
        kind: VariantKind::Params { toml: params.to_toml() },
    };
    let a = farm.add_variant(&variant("a", Params::default())).expect("a");
    let b = farm.add_variant(&variant("bb", Params::material_only())).expect("b");
    let suite =
        farm.add_openings(&OpeningSuiteSpec { name: "s".into(), openings: vec!["startpos".into()] }).expect("suite");
    let run = farm
        .create_run(&RunSpec {
            name: "wire".into(),
            kind: RunKind::Games { pairs: 4 },
            variants: vec![a.id, b.id],
            // Slow enough for one pair per lease (the random movers ignore it).
            tc: TimeControl::MoveTimeMs(60_000),
            openings: suite.id,
            adjudication: Adjudication::default(),
            bench_signature: None,
            sample_every: 0,
        })
        .expect("run");

    let channel = tonic::transport::Endpoint::from_shared(url).expect("url").connect().await.expect("connect");
    let mut c = FarmClient::with_interceptor(channel, proto::auth::BearerToken::new("t").expect("token"));
    let info = WorkerInfo {
        name: "w".into(),
        host: "h".into(),
        cores: 1,
        engine_version: "v".into(),
        bench_signature: 0,
        worker_key: String::new(),
        rules_version: engine::RULES_VERSION,
        engines: Vec::new(),
        bench_nps: 0,
        simd: None,
        nnue_bench_nps: 0,
    };
    let worker: proto::domain::WorkerId =
        c.register(pb::RegisterRequest::from(info)).await.expect("register").into_inner().into();
    let req = LeaseRequest { worker, free_slots: 1, held: vec![], finished: vec![] };
    let reply = LeaseReply::try_from(c.lease(pb::LeaseRequest::from(req)).await.expect("lease").into_inner())
        .expect("lease reply");
    let LeaseGrant::Lease(lease) = reply.grant else { panic!("no work: {:?}", reply.grant) };
    let lease_for_play = lease.clone();
    let pairs = tokio::task::spawn_blocking(move || {
        let mut out: Vec<PairReport> = Vec::new();
        worker::runner::play_lease(&lease_for_play, 1, &random_player, "w", |p| out.push(p)).map(|()| out)
    })
    .await
    .expect("join")
    .expect("played");
    let pair = pairs[0].pair_index;
    let request = |pairs: Vec<PairReport>| {
        pb::SubmitRequest::from(SubmitRequest {
            worker,
            batch: BatchResult { lease: lease.id, seq: 0, pairs, is_final: true },
        })
    };

    // An illegal move in the second game.
    let mut lying = pairs.clone();
    lying[0].games[1].moves[7] = "e0e2".into();
    let err = c.submit(request(lying)).await.expect_err("an illegal move");
    assert_eq!(err.code(), Code::InvalidArgument);
    let place = format!("lease {}, pair {pair}, game 1, ply 7: illegal move `e0e2`", lease.id);
    assert!(err.message().contains(&place), "{}", err.message());
    // A reason outside the closed set never reaches the referee.
    let mut unknown = request(pairs.clone());
    unknown.batch.as_mut().expect("batch").pairs[0].first_game.as_mut().expect("game").reason = "resigned".into();
    let err = c.submit(unknown).await.expect_err("an unknown reason");
    assert_eq!(err.code(), Code::InvalidArgument);
    assert!(err.message().contains("unknown termination reason `resigned`"), "{}", err.message());
    assert!(err.message().contains("batch.pairs[0].first_game.reason"), "{}", err.message());
    assert_eq!(farm.get_run(run.id).expect("run").run.stats[0].games(), 0, "nothing counted");

    let ack = c.submit(request(pairs)).await.expect("honest games").into_inner();
    assert_eq!(ack.ack.expect("ack").recorded_pairs, 1);
    assert_eq!(farm.get_run(run.id).expect("run").run.stats[0].games(), 2);
    server.stop().await;
}
