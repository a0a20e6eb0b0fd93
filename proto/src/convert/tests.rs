//! Every domain value survives domain -> pb -> bytes -> pb -> domain; every kind of bad field
//! is refused with its path; versions are checked on every request.

use std::fmt::Debug;

use engine::nnue::SimdLevel;
use prost::Message;

use super::check_version;
use crate::PROTOCOL_VERSION;
use crate::domain::*;
use crate::error::Error;
use crate::pb;

// ------------------------------------------------------------------ fixtures

fn params_variant() -> Variant {
    Variant {
        id: "9f2c1e0a".into(),
        spec: VariantSpec {
            name: "base 中炮".into(),
            kind: VariantKind::Params { toml: "[eval]\nrook_mg = 1210\ncannon_mg = 590\n".into() },
        },
    }
}

fn external_variant() -> Variant {
    Variant {
        id: "07aa31bd".into(),
        spec: VariantSpec {
            name: "pikafish".into(),
            kind: VariantKind::External {
                engine: "pikafish".into(),
                protocol: EngineProtocol::Ucci,
                options: vec![("Hash".into(), "64".into()), ("EvalFile".into(), "pikafish.nnue".into())],
            },
        },
    }
}

fn sprt_spec() -> RunSpec {
    RunSpec {
        name: "king safety retune".into(),
        kind: RunKind::Sprt(SprtSettings {
            elo0: -1.5,
            elo1: 3.25,
            alpha: 0.025,
            beta: 0.1,
            model: EloModel::Logistic,
        }),
        variants: vec![params_variant().id, external_variant().id],
        tc: TimeControl::Nodes(20_000),
        openings: SuiteId::new(7),
        adjudication: Adjudication {
            resign_score: 700,
            resign_moves: 4,
            draw_score: 0,
            draw_moves: 10,
            draw_after_move: 40,
        },
        bench_signature: Some(u64::MAX - 3),
        sample_every: 9,
    }
}

fn specs() -> Vec<RunSpec> {
    let three: Vec<VariantId> = vec!["a".into(), "b".into(), "c".into()];
    vec![
        sprt_spec(),
        RunSpec {
            kind: RunKind::Sprt(SprtSettings::default()),
            tc: TimeControl::Clock { base_ms: 10_000, inc_ms: 100 },
            bench_signature: None,
            ..sprt_spec()
        },
        RunSpec { kind: RunKind::Games { pairs: 500 }, tc: TimeControl::Depth(9), sample_every: 0, ..sprt_spec() },
        RunSpec {
            kind: RunKind::Gauntlet { pairs_per_opponent: 40 },
            variants: three.clone(),
            tc: TimeControl::MoveTimeMs(250),
            ..sprt_spec()
        },
        RunSpec {
            kind: RunKind::RoundRobin { pairs_per_pairing: 12 },
            variants: three,
            tc: TimeControl::Clock { base_ms: 60_000, inc_ms: 0 },
            adjudication: Adjudication::default(),
            ..sprt_spec()
        },
        RunSpec {
            kind: RunKind::Spsa(SpsaSettings {
                pairs: 20_000,
                params: crate::domain::parse_spsa_lines("search.rfp_margin,90,20,300,10,0.002\nx,0.5,0,1.5,0.05,0.002")
                    .expect("valid lines"),
            }),
            variants: vec!["a".into()],
            ..sprt_spec()
        },
        RunSpec {
            kind: RunKind::Datagen(crate::domain::DatagenSettings { pairs: 100_000, random_plies: 8 }),
            variants: vec!["a".into()],
            tc: crate::domain::DATAGEN_TC,
            sample_every: 1,
            ..sprt_spec()
        },
        RunSpec {
            kind: RunKind::Datagen(crate::domain::DatagenSettings { pairs: 1, random_plies: 0 }),
            variants: vec!["a".into()],
            sample_every: 1,
            ..sprt_spec()
        },
    ]
}

fn counts() -> PairingStats {
    PairingStats { pentanomial: [10789, 19328, 33806, 19402, 10543], wins: 60_000, draws: 67_736, losses: 59_000 }
}

fn run() -> Run {
    Run {
        id: RunId::new(42),
        spec: sprt_spec(),
        state: RunState::SprtDone { h1: true },
        stats: vec![counts(), PairingStats::default()],
        created_unix_ms: 1_764_000_000_123,
        tablebases: vec![TablePin { set: "KRKA".into(), checksum: u64::MAX - 5 }],
    }
}

fn live() -> LiveStats {
    LiveStats {
        counts: counts(),
        elo: 1.87,
        elo_lower: -0.41,
        elo_upper: 4.15,
        nelo: 2.6,
        nelo_lower: -0.5,
        nelo_upper: 5.7,
        los: 0.947,
        sprt: Some(SprtProgress { llr: 2.95, lower_bound: -2.94, upper_bound: 2.94 }),
    }
}

fn status() -> RunStatus {
    RunStatus {
        run: run(),
        live: vec![live(), LiveStats { sprt: None, counts: PairingStats::default(), ..live() }],
        missing_engines: vec!["fsf".into()],
        exported_games: 7,
        spsa: vec![SpsaValue { name: "x".into(), start: 0.5, value: 0.75, min: 0.0, max: 1.5, integer: false }],
        tournament: Some(crate::domain::TournamentDraw {
            matches: vec![crate::domain::MatchRow {
                pairing: 0,
                m: crate::domain::Match {
                    round: 2,
                    slot: 1,
                    a: 3,
                    b: 0,
                    stage: crate::domain::MatchStage::Armageddon,
                    pairs: 1,
                },
                armageddon_red_points: Some(1),
            }],
            byes: vec![crate::domain::ByeSlot { round: 1, slot: 2, player: 4 }],
            names: vec!["a".into(), "b".into()],
        }),
    }
}

fn game(red: &str, black: &str, outcome: GameOutcome) -> GameReport {
    GameReport {
        red: red.into(),
        black: black.into(),
        start_fen: "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b".into(),
        outcome,
        reason: Termination::AdjudicatedResign,
        moves: vec!["h7e7".into(), "h0g2".into(), "i9h9".into()],
        move_stats: vec![
            MoveStat { score: Some(-12), time_ms: 40 },
            MoveStat { score: None, time_ms: 0 },
            MoveStat { score: Some(31), time_ms: 1_200 },
        ],
        forfeit: None,
        duration_ms: 3_456,
        nodes: 123_456_789,
        positions: vec![
            PositionSample {
                ply: 2,
                fen: "rnbakabnr/9/1c2c4/p1p1p1p1p/9/9/P1P1P1P1P/1C2C1N2/9/RNBAKAB1R b".into(),
                red_to_move: false,
                static_eval: -35,
                search_score: Some(12),
                best_move: "i9h9".into(),
                in_check: false,
                quiet: true,
            },
            // No score: it stays absent on the wire, not 0.
            PositionSample {
                ply: 3,
                fen: "rnbakabr1/9/1c2c4/p1p1p1p1p/9/9/P1P1P1P1P/1C2C1N2/9/RNBAKAB1R w".into(),
                red_to_move: true,
                static_eval: 0,
                search_score: None,
                best_move: "i0h0".into(),
                in_check: false,
                quiet: false,
            },
        ],
    }
}

fn pair(pair_index: u64) -> PairReport {
    PairReport {
        pair_index,
        games: [game("9f2c1e0a", "07aa31bd", GameOutcome::RedWins), game("07aa31bd", "9f2c1e0a", GameOutcome::Draw)],
    }
}

fn batch() -> BatchResult {
    BatchResult { lease: LeaseId::new(77), seq: 3, pairs: vec![pair(10), pair(11)], is_final: true }
}

fn lease() -> Lease {
    let task = |pair_index, opening_index, opening: &str| PairTask {
        pair_index,
        pairing: 0,
        opening_index,
        opening: opening.into(),
        second_opening: None,
        variants: [params_variant().id, external_variant().id],
    };
    Lease {
        id: LeaseId::new(77),
        run: RunId::new(42),
        tasks: vec![
            task(10, 3, "startpos moves h2e2 h9g7"),
            task(11, 250, "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w"),
        ],
        deadline_unix_ms: 1_764_000_060_000,
        tc: TimeControl::Nodes(5_000),
        adjudication: Adjudication::default(),
        sample_every: 4,
        variants: vec![params_variant(), external_variant()],
        spsa: Some(SpsaBatch {
            iteration: 12,
            points: vec![SpsaPoint { name: "search.rfp_margin".into(), plus: 97.5, minus: 82.5, integer: true }],
        }),
        tablebases: vec![
            TablePin { set: "KRK".into(), checksum: 0x0123_4567_89ab_cdef },
            TablePin { set: "KNKA".into(), checksum: 7 },
        ],
    }
}

fn worker() -> WorkerInfo {
    WorkerInfo {
        name: "rack-3/w1".into(),
        host: "rack-3".into(),
        cores: 64,
        engine_version: "xqengine 0.1.0 (abc123)".into(),
        bench_signature: 4_215_603,
        worker_key: "9f3c1e0d5a7b2c4e6f8091a2b3c4d5e6".into(),
        rules_version: 1,
        engines: vec![
            EngineInfo { name: "fsf".into(), id_name: "Fairy-Stockfish 11.1 LB 64".into(), sha256: "0f".repeat(32) },
            EngineInfo { name: "pikafish".into(), id_name: String::new(), sha256: "a1".repeat(32) },
        ],
        bench_nps: 1_234_567,
        simd: Some(SimdLevel::Avx2),
        nnue_bench_nps: 765_432,
    }
}

fn ack() -> BatchAck {
    BatchAck { lease: LeaseId::new(77), seq: 3, recorded_pairs: 2, duplicate: false, lease_closed: true }
}

// ------------------------------------------------------------------ helpers

/// domain -> pb -> bytes -> pb -> domain gives back the value.
fn round_trip<D, W>(value: D)
where
    D: Clone + PartialEq + Debug + Into<W> + TryFrom<W, Error = Error>,
    W: Message + Default,
{
    let bytes = value.clone().into().encode_to_vec();
    let wire = W::decode(bytes.as_slice()).expect("our own encoding decodes");
    assert_eq!(D::try_from(wire), Ok(value));
}

/// The conversion fails, naming `field`, and becomes INVALID_ARGUMENT naming it too.
fn rejects<D: TryFrom<W, Error = Error> + Debug, W>(wire: W, field: &str) {
    let error = D::try_from(wire).expect_err(field);
    assert_eq!(error.field(), Some(field), "{error}");
    let status = tonic::Status::from(error);
    assert_eq!(status.code(), tonic::Code::InvalidArgument, "{field}");
    assert!(status.message().contains(&format!("`{field}`")), "{}", status.message());
}

fn spec_of(request: &mut pb::CreateRunRequest) -> &mut pb::RunSpec {
    request.spec.as_mut().expect("fixture has a spec")
}

fn sprt_of(request: &mut pb::CreateRunRequest) -> &mut pb::SprtRun {
    match spec_of(request).kind.as_mut() {
        Some(pb::run_spec::Kind::Sprt(sprt)) => sprt,
        other => panic!("fixture is an SPRT, got {other:?}"),
    }
}

fn tc_of(request: &mut pb::CreateRunRequest) -> &mut Option<pb::time_control::Kind> {
    &mut spec_of(request).tc.as_mut().expect("fixture has a tc").kind
}

fn lease_of(response: &mut pb::LeaseResponse) -> &mut pb::Lease {
    match response.grant.as_mut() {
        Some(pb::lease_response::Grant::Lease(lease)) => lease,
        other => panic!("fixture grants a lease, got {other:?}"),
    }
}

fn first_game_of(request: &mut pb::SubmitRequest) -> &mut pb::GameReport {
    request.batch.as_mut().expect("batch").pairs[0].first_game.as_mut().expect("first game")
}

fn external_of(request: &mut pb::AddVariantRequest) -> &mut pb::ExternalVariant {
    match request.spec.as_mut().and_then(|spec| spec.kind.as_mut()) {
        Some(pb::variant_spec::Kind::External(external)) => external,
        other => panic!("fixture is external, got {other:?}"),
    }
}

fn status_of(response: &mut pb::GetRunResponse) -> &mut pb::RunStatus {
    response.status.as_mut().expect("status")
}

// ------------------------------------------------------------------ round trips

#[test]
fn variants_round_trip() {
    for variant in [params_variant(), external_variant()] {
        round_trip::<VariantSpec, pb::VariantSpec>(variant.spec.clone());
        round_trip::<VariantSpec, pb::AddVariantRequest>(variant.spec.clone());
        round_trip::<Variant, pb::Variant>(variant.clone());
        round_trip::<Variant, pb::AddVariantResponse>(variant);
    }
}

#[test]
fn every_run_kind_and_time_control_round_trips() {
    for spec in specs() {
        round_trip::<TimeControl, pb::TimeControl>(spec.tc);
        round_trip::<Adjudication, pb::Adjudication>(spec.adjudication);
        round_trip::<RunSpec, pb::RunSpec>(spec.clone());
        round_trip::<RunSpec, pb::CreateRunRequest>(spec);
    }
    round_trip::<SprtSettings, pb::SprtRun>(SprtSettings::default());
}

#[test]
fn runs_and_their_status_round_trip() {
    for state in [
        RunState::Active,
        RunState::SprtDone { h1: false },
        RunState::SprtDone { h1: true },
        RunState::Completed,
        RunState::Stopped,
    ] {
        round_trip::<Run, pb::Run>(Run { state, ..run() });
    }
    round_trip::<Run, pb::CreateRunResponse>(run());
    round_trip::<PairingStats, pb::PairingStats>(counts());
    round_trip::<LiveStats, pb::LiveStats>(live());
    round_trip::<RunStatus, pb::RunStatus>(status());
    round_trip::<RunStatus, pb::GetRunResponse>(status());
    round_trip::<RunStatus, pb::StopRunResponse>(status());
    round_trip::<RunStatus, pb::WatchRunResponse>(status());
    round_trip::<Vec<RunStatus>, pb::ListRunsResponse>(vec![
        status(),
        RunStatus {
            run: run(),
            live: vec![],
            missing_engines: vec![],
            exported_games: 0,
            spsa: vec![],
            tournament: None,
        },
    ]);
    round_trip::<Vec<RunStatus>, pb::ListRunsResponse>(vec![]);
}

#[test]
fn infinite_estimates_travel_unchanged() {
    let all_wins = LiveStats { elo: f64::INFINITY, elo_upper: f64::INFINITY, los: 1.0, ..live() };
    round_trip::<LiveStats, pb::LiveStats>(all_wins);
    let wire = pb::LiveStats::from(LiveStats { elo: f64::NAN, ..live() });
    assert!(LiveStats::try_from(wire).expect("NaN is allowed").elo.is_nan());
}

#[test]
fn work_round_trips() {
    round_trip::<Lease, pb::Lease>(lease());
    for outcome in [GameOutcome::RedWins, GameOutcome::BlackWins, GameOutcome::Draw] {
        round_trip::<GameReport, pb::GameReport>(game("a", "b", outcome));
    }
    round_trip::<PairReport, pb::PairReport>(pair(u64::MAX));
    round_trip::<BatchResult, pb::BatchResult>(batch());
    round_trip::<BatchResult, pb::BatchResult>(BatchResult { pairs: vec![], is_final: false, ..batch() });
    round_trip::<BatchAck, pb::BatchAck>(ack());
    round_trip::<BatchAck, pb::SubmitResponse>(BatchAck { recorded_pairs: 0, duplicate: true, ..ack() });
    round_trip::<WorkerInfo, pb::WorkerInfo>(worker());
}

#[test]
fn worker_requests_and_replies_round_trip() {
    round_trip::<WorkerInfo, pb::RegisterRequest>(worker());
    round_trip::<WorkerInfo, pb::RegisterRequest>(WorkerInfo { worker_key: String::new(), ..worker() });
    // The speed travels as it is; a worker that did not measure it (or an older one, which has no
    // field 9) says 0.
    assert_eq!(pb::WorkerInfo::from(worker()).bench_nps, 1_234_567);
    round_trip::<WorkerInfo, pb::RegisterRequest>(WorkerInfo { bench_nps: 0, ..worker() });
    // So do the SIMD level and the speed with a network; an older worker sends neither (level 0,
    // speed 0) and reads as "not said" and "not measured".
    let wire = pb::WorkerInfo::from(worker());
    assert_eq!((wire.simd(), wire.nnue_bench_nps), (pb::SimdLevel::Avx2, 765_432));
    round_trip::<WorkerInfo, pb::RegisterRequest>(WorkerInfo { simd: Some(SimdLevel::Scalar), ..worker() });
    let old = pb::WorkerInfo { simd: 0, nnue_bench_nps: 0, ..pb::WorkerInfo::from(worker()) };
    let read = WorkerInfo::try_from(old).expect("an older worker registers");
    assert_eq!((read.simd, read.nnue_bench_nps), (None, 0));
    round_trip::<WorkerInfo, pb::RegisterRequest>(read);
    // A level this build does not know (a newer worker's) is not said either, never a refusal.
    let newer = pb::WorkerInfo { simd: 99, ..pb::WorkerInfo::from(worker()) };
    assert_eq!(WorkerInfo::try_from(newer).expect("a newer worker registers").simd, None);
    assert_eq!(
        WorkerId::from(pb::RegisterResponse::from(WorkerId::new(9_007_199_254_740_993))).get(),
        9_007_199_254_740_993
    );
    round_trip::<LeaseRequest, pb::LeaseRequest>(LeaseRequest {
        worker: WorkerId::new(5),
        free_slots: 8,
        held: vec![LeaseId::new(70), LeaseId::new(77)],
        finished: vec![batch(), BatchResult { seq: 4, ..batch() }],
    });
    round_trip::<LeaseRequest, pb::LeaseRequest>(LeaseRequest {
        worker: WorkerId::new(5),
        free_slots: 0,
        held: vec![],
        finished: vec![],
    });
    round_trip::<LeaseReply, pb::LeaseResponse>(LeaseReply {
        acks: vec![ack()],
        closed: vec![LeaseId::new(70)],
        grant: LeaseGrant::Lease(lease()),
    });
    round_trip::<LeaseReply, pb::LeaseResponse>(LeaseReply {
        acks: vec![],
        closed: vec![],
        grant: LeaseGrant::NoWork { retry_after_ms: 1_500 },
    });
    round_trip::<SubmitRequest, pb::SubmitRequest>(SubmitRequest { worker: WorkerId::new(5), batch: batch() });
}

#[test]
fn user_requests_round_trip() {
    round_trip::<RunFilter, pb::ListRunsRequest>(RunFilter { active_only: true, limit: 25 });
    round_trip::<RunFilter, pb::ListRunsRequest>(RunFilter::default());
    round_trip::<RunId, pb::GetRunRequest>(RunId::new(42));
    round_trip::<RunId, pb::StopRunRequest>(RunId::new(u64::MAX));
    round_trip::<RunId, pb::WatchRunRequest>(RunId::new(1));
    let suite = OpeningSuiteSpec {
        name: "中炮 systems".into(),
        openings: vec!["startpos moves h2e2".into(), "startpos moves b2e2 h9g7".into()],
    };
    round_trip::<OpeningSuiteSpec, pb::AddOpeningsRequest>(suite);
    let summary = OpeningSuiteSummary { id: SuiteId::new(3), name: "default".into(), openings: 212 };
    round_trip::<OpeningSuiteSummary, pb::OpeningSuiteSummary>(summary.clone());
    round_trip::<OpeningSuiteSummary, pb::AddOpeningsResponse>(summary);
}

// ------------------------------------------------------------------ refusals

#[test]
fn bad_run_specs_name_the_field() {
    use pb::run_spec::Kind;
    use pb::time_control::Kind as Tc;
    type Mutation = fn(&mut pb::CreateRunRequest);
    let cases: [(&str, Mutation); 28] = [
        ("spec", |r| r.spec = None),
        ("spec.kind", |r| spec_of(r).kind = None),
        ("spec.variants", |r| spec_of(r).variants.clear()),
        ("spec.variants", |r| spec_of(r).variants.push("third".into())),
        ("spec.variants", |r| {
            spec_of(r).kind = Some(Kind::Gauntlet(pb::GauntletRun { pairs_per_opponent: 3 }));
            spec_of(r).variants.truncate(1);
        }),
        ("spec.variants", |r| {
            spec_of(r).kind = Some(Kind::RoundRobin(pb::RoundRobinRun { pairs_per_pairing: 3 }));
            spec_of(r).variants.truncate(1);
        }),
        ("spec.variants[1]", |r| spec_of(r).variants[1].clear()),
        ("spec.tc", |r| spec_of(r).tc = None),
        ("spec.tc.kind", |r| *tc_of(r) = None),
        ("spec.tc.nodes", |r| *tc_of(r) = Some(Tc::Nodes(0))),
        ("spec.tc.depth", |r| *tc_of(r) = Some(Tc::Depth(0))),
        ("spec.tc.movetime_ms", |r| *tc_of(r) = Some(Tc::MovetimeMs(0))),
        ("spec.tc.clock.base_ms", |r| *tc_of(r) = Some(Tc::Clock(pb::ClockControl { base_ms: 0, inc_ms: 100 }))),
        ("spec.sprt.alpha", |r| sprt_of(r).alpha = f64::NAN),
        ("spec.sprt.alpha", |r| sprt_of(r).alpha = 0.0),
        ("spec.sprt.beta", |r| sprt_of(r).beta = 1.0),
        ("spec.sprt.beta", |r| {
            sprt_of(r).alpha = 0.6;
            sprt_of(r).beta = 0.5;
        }),
        ("spec.sprt.elo0", |r| sprt_of(r).elo0 = f64::NEG_INFINITY),
        ("spec.sprt.elo1", |r| sprt_of(r).elo1 = f64::NAN),
        ("spec.sprt.elo1", |r| sprt_of(r).elo1 = sprt_of(r).elo0),
        ("spec.sprt.model", |r| sprt_of(r).model = 0),
        ("spec.sprt.model", |r| sprt_of(r).model = 9),
        ("spec.games.pairs", |r| spec_of(r).kind = Some(Kind::Games(pb::GamesRun { pairs: 0 }))),
        ("spec.gauntlet.pairs_per_opponent", |r| {
            spec_of(r).kind = Some(Kind::Gauntlet(pb::GauntletRun { pairs_per_opponent: 0 }))
        }),
        ("spec.round_robin.pairs_per_pairing", |r| {
            spec_of(r).kind = Some(Kind::RoundRobin(pb::RoundRobinRun { pairs_per_pairing: 0 }))
        }),
        ("spec.adjudication", |r| spec_of(r).adjudication = None),
        ("spec.adjudication.resign_score", |r| spec_of(r).adjudication.as_mut().expect("set").resign_score = -1),
        ("spec.adjudication.draw_score", |r| spec_of(r).adjudication.as_mut().expect("set").draw_score = -20),
    ];
    for (field, mutate) in cases {
        let mut request = pb::CreateRunRequest::from(sprt_spec());
        mutate(&mut request);
        rejects::<RunSpec, _>(request, field);
    }
}

/// The wire applies the same `validate()` as the store: rules that once held only in the
/// coordinator (name, most players, deepest depth, longest host, option names) now refuse
/// the message itself, under the message's path.
#[test]
fn the_wire_refuses_what_the_store_would() {
    use pb::run_spec::Kind;
    use pb::time_control::Kind as Tc;
    type RunMutation = fn(&mut pb::CreateRunRequest);
    let runs: [(&str, RunMutation); 6] = [
        ("spec.name", |r| spec_of(r).name = " ".into()),
        ("spec.variants", |r| {
            spec_of(r).kind = Some(Kind::RoundRobin(pb::RoundRobinRun { pairs_per_pairing: 1 }));
            spec_of(r).variants = (0..=MAX_RUN_VARIANTS).map(|i| format!("v{i}")).collect();
        }),
        ("spec.variants", |r| {
            spec_of(r).kind = Some(Kind::Gauntlet(pb::GauntletRun { pairs_per_opponent: 1 }));
            spec_of(r).variants = vec!["a".into(), "b".into(), "a".into()];
        }),
        ("spec.tc.depth", |r| *tc_of(r) = Some(Tc::Depth(MAX_DEPTH + 1))),
        ("spec.tc.clock.inc_ms", |r| {
            *tc_of(r) = Some(Tc::Clock(pb::ClockControl { base_ms: 1000, inc_ms: MAX_TIME_MS + 1 }))
        }),
        ("spec.games.pairs", |r| spec_of(r).kind = Some(Kind::Games(pb::GamesRun { pairs: MAX_RUN_PAIRS + 1 }))),
    ];
    for (field, mutate) in runs {
        let mut request = pb::CreateRunRequest::from(sprt_spec());
        mutate(&mut request);
        rejects::<RunSpec, _>(request, field);
    }
    let mut deepest = sprt_spec();
    deepest.tc = TimeControl::Depth(MAX_DEPTH);
    round_trip::<RunSpec, pb::CreateRunRequest>(deepest);

    let mut request = pb::RegisterRequest::from(worker());
    request.worker.as_mut().expect("worker").host = "h".repeat(MAX_NAME_BYTES + 1);
    rejects::<WorkerInfo, _>(request, "worker.host");
    round_trip::<WorkerInfo, pb::RegisterRequest>(WorkerInfo { host: "h".repeat(MAX_NAME_BYTES), ..worker() });

    let mut request = pb::AddVariantRequest::from(external_variant().spec);
    external_of(&mut request).options.push(pb::EngineOption { name: " ".into(), value: "1".into() });
    let last = external_of(&mut request).options.len() - 1;
    rejects::<VariantSpec, _>(request, &format!("spec.external.options[{last}].name"));

    let request = pb::AddOpeningsRequest::from(OpeningSuiteSpec {
        name: "s".into(),
        openings: vec!["startpos".into(), "x".repeat(MAX_OPENING_BYTES + 1)],
    });
    rejects::<OpeningSuiteSpec, _>(request, "openings[1]");
}

#[test]
fn unspecified_and_unknown_enums_differ_in_kind() {
    let mut request = pb::CreateRunRequest::from(sprt_spec());
    sprt_of(&mut request).model = 0;
    assert_eq!(RunSpec::try_from(request), Err(Error::MissingField { field: "spec.sprt.model".into() }));
    let mut request = pb::CreateRunRequest::from(sprt_spec());
    sprt_of(&mut request).model = 9;
    let error = RunSpec::try_from(request).expect_err("unknown model");
    assert!(matches!(&error, Error::InvalidField { reason, .. } if reason.contains('9')), "{error}");
}

#[test]
fn bad_variants_name_the_field() {
    type Mutation = fn(&mut pb::AddVariantRequest);
    let cases: [(&str, Mutation); 10] = [
        ("spec", |r| r.spec = None),
        ("spec.name", |r| r.spec.as_mut().expect("spec").name.clear()),
        ("spec.kind", |r| r.spec.as_mut().expect("spec").kind = None),
        ("spec.external.engine", |r| external_of(r).engine.clear()),
        ("spec.external.engine", |r| external_of(r).engine = "/usr/games/fairy-stockfish".into()),
        ("spec.external.engine", |r| external_of(r).engine = "fsf --uci".into()),
        // A protocol 2 client's command line is refused by name, even beside an engine name.
        ("spec.external.command", |r| external_of(r).command = "/usr/bin/pikafish".into()),
        ("spec.external.args", |r| external_of(r).args = vec!["--quiet".into()]),
        ("spec.external.protocol", |r| external_of(r).protocol = 0),
        ("spec.external.protocol", |r| external_of(r).protocol = -4),
    ];
    for (field, mutate) in cases {
        let mut request = pb::AddVariantRequest::from(external_variant().spec);
        mutate(&mut request);
        rejects::<VariantSpec, _>(request, field);
    }
    let mut request = pb::AddVariantRequest::from(external_variant().spec);
    external_of(&mut request).command = "/tmp/evil.sh".into();
    let error = VariantSpec::try_from(request).expect_err("a command");
    assert!(error.to_string().contains("`/tmp/evil.sh`") && error.to_string().contains("never a command"), "{error}");
    rejects::<Variant, _>(pb::AddVariantResponse { variant: None }, "variant");
    let mut response = pb::AddVariantResponse::from(params_variant());
    response.variant.as_mut().expect("variant").variant_id.clear();
    rejects::<Variant, _>(response, "variant.variant_id");
}

#[test]
fn bad_leases_name_the_field() {
    type Mutation = fn(&mut pb::LeaseResponse);
    let cases: [(&str, Mutation); 9] = [
        ("grant", |r| r.grant = None),
        ("lease.tasks", |r| lease_of(r).tasks.clear()),
        ("lease.tasks[1].opening", |r| lease_of(r).tasks[1].opening.clear()),
        ("lease.tasks[0].first_variant", |r| lease_of(r).tasks[0].first_variant.clear()),
        ("lease.tasks[1].second_variant", |r| lease_of(r).tasks[1].second_variant = "nobody".into()),
        ("lease.tc", |r| lease_of(r).tc = None),
        ("lease.adjudication", |r| lease_of(r).adjudication = None),
        ("lease.variants[0].spec", |r| lease_of(r).variants[0].spec = None),
        ("lease.variants[1].spec.external.protocol", |r| {
            if let Some(pb::variant_spec::Kind::External(external)) =
                lease_of(r).variants[1].spec.as_mut().and_then(|s| s.kind.as_mut())
            {
                external.protocol = 3;
            }
        }),
    ];
    for (field, mutate) in cases {
        let reply = LeaseReply { acks: vec![ack()], closed: vec![], grant: LeaseGrant::Lease(lease()) };
        let mut response = pb::LeaseResponse::from(reply);
        mutate(&mut response);
        rejects::<LeaseReply, _>(response, field);
    }
    // Dropping a variant the tasks name is caught too.
    let mut response =
        pb::LeaseResponse::from(LeaseReply { acks: vec![], closed: vec![], grant: LeaseGrant::Lease(lease()) });
    lease_of(&mut response).variants.pop();
    rejects::<LeaseReply, _>(response, "lease.tasks[0].second_variant");
}

#[test]
fn bad_results_name_the_field() {
    type Mutation = fn(&mut pb::SubmitRequest);
    let cases: [(&str, Mutation); 10] = [
        ("batch", |r| r.batch = None),
        ("batch.pairs[0].first_game.reason", |r| first_game_of(r).reason = "resigned".into()),
        ("batch.pairs[0].first_game.reason", |r| first_game_of(r).reason = "ongoing".into()),
        ("batch.pairs[1].second_game", |r| r.batch.as_mut().expect("batch").pairs[1].second_game = None),
        ("batch.pairs[0].first_game", |r| r.batch.as_mut().expect("batch").pairs[0].first_game = None),
        ("batch.pairs[0].first_game.outcome", |r| first_game_of(r).outcome = 0),
        ("batch.pairs[0].first_game.outcome", |r| first_game_of(r).outcome = 42),
        ("batch.pairs[0].first_game.red_variant", |r| first_game_of(r).red_variant.clear()),
        ("batch.pairs[0].first_game.start_fen", |r| first_game_of(r).start_fen.clear()),
        ("batch.pairs[0].first_game.positions[0].fen", |r| first_game_of(r).positions[0].fen.clear()),
    ];
    for (field, mutate) in cases {
        let mut request = pb::SubmitRequest::from(SubmitRequest { worker: WorkerId::new(1), batch: batch() });
        mutate(&mut request);
        rejects::<SubmitRequest, _>(request, field);
    }
    let mut request = pb::LeaseRequest::from(LeaseRequest {
        worker: WorkerId::new(1),
        free_slots: 2,
        held: vec![],
        finished: vec![batch(), batch()],
    });
    request.finished[1].pairs[1].first_game.as_mut().expect("game").black_variant.clear();
    rejects::<LeaseRequest, _>(request, "finished[1].pairs[1].first_game.black_variant");
    rejects::<BatchAck, _>(pb::SubmitResponse { ack: None }, "ack");
}

#[test]
fn bad_workers_name_the_field() {
    type Mutation = fn(&mut pb::RegisterRequest);
    let cases: [(&str, Mutation); 5] = [
        ("worker", |r| r.worker = None),
        ("worker.name", |r| r.worker.as_mut().expect("worker").name.clear()),
        ("worker.cores", |r| r.worker.as_mut().expect("worker").cores = 0),
        ("worker.worker_key", |r| r.worker.as_mut().expect("worker").worker_key = "a key".into()),
        ("worker.worker_key", |r| r.worker.as_mut().expect("worker").worker_key = "k".repeat(129)),
    ];
    for (field, mutate) in cases {
        let mut request = pb::RegisterRequest::from(worker());
        mutate(&mut request);
        rejects::<WorkerInfo, _>(request, field);
    }
}

#[test]
fn bad_statuses_name_the_field() {
    type Mutation = fn(&mut pb::GetRunResponse);
    let cases: [(&str, Mutation); 9] = [
        ("status", |r| r.status = None),
        ("status.run", |r| status_of(r).run = None),
        ("status.run.spec", |r| status_of(r).run.as_mut().expect("run").spec = None),
        ("status.run.state", |r| status_of(r).run.as_mut().expect("run").state = 0),
        ("status.run.state", |r| status_of(r).run.as_mut().expect("run").state = 6),
        ("status.run.stats[1].pentanomial", |r| {
            status_of(r).run.as_mut().expect("run").stats[1].pentanomial.pop();
        }),
        ("status.live[0].pentanomial", |r| status_of(r).live[0].pentanomial.push(1)),
        ("status.live[1].games", |r| status_of(r).live[1].games += 1),
        ("status.run.spec.tc.nodes", |r| {
            let spec = status_of(r).run.as_mut().and_then(|run| run.spec.as_mut()).expect("spec");
            spec.tc = Some(pb::TimeControl { kind: Some(pb::time_control::Kind::Nodes(0)) });
        }),
    ];
    for (field, mutate) in cases {
        let mut response = pb::GetRunResponse::from(status());
        mutate(&mut response);
        rejects::<RunStatus, _>(response, field);
    }
    let mut response = pb::ListRunsResponse::from(vec![status(), status()]);
    response.runs[1].run = None;
    rejects::<Vec<RunStatus>, _>(response, "runs[1].run");
}

#[test]
fn bad_opening_suites_name_the_field() {
    let suite = || OpeningSuiteSpec {
        name: "mine".into(),
        openings: vec!["startpos".into(), "startpos moves h2e2".into(), "startpos moves c3c4".into()],
    };
    type Mutation = fn(&mut pb::AddOpeningsRequest);
    let cases: [(&str, Mutation); 3] = [
        ("name", |r| r.name.clear()),
        ("openings", |r| r.openings.clear()),
        ("openings[2]", |r| r.openings[2].clear()),
    ];
    for (field, mutate) in cases {
        let mut request = pb::AddOpeningsRequest::from(suite());
        mutate(&mut request);
        rejects::<OpeningSuiteSpec, _>(request, field);
    }
    rejects::<OpeningSuiteSummary, _>(pb::AddOpeningsResponse { suite: None }, "suite");
    rejects::<OpeningSuiteSummary, _>(
        pb::AddOpeningsResponse { suite: Some(pb::OpeningSuiteSummary::default()) },
        "suite.name",
    );
}

// ------------------------------------------------------------------ versions

#[test]
fn check_version_accepts_only_ours() {
    assert_eq!(PROTOCOL_VERSION, 2, "game reports with move stats are version 2");
    assert!(check_version(PROTOCOL_VERSION).is_ok());
    let unset = check_version(0).expect_err("0 is unset");
    assert_eq!(unset.code(), tonic::Code::FailedPrecondition);
    assert!(unset.message().contains("unset") && unset.message().contains("protocol 2"), "{}", unset.message());
    let older = check_version(1).expect_err("version 1 has no move stats");
    assert_eq!(older.code(), tonic::Code::FailedPrecondition);
    assert!(older.message().contains("protocol 1") && older.message().contains("protocol 2"), "{}", older.message());
}

/// Converting a request with a foreign version fails before any field is looked at, and the
/// error becomes FAILED_PRECONDITION.
#[test]
fn every_request_checks_the_version() {
    fn refused<D: TryFrom<W, Error = Error> + Debug, W>(wire: W, version: u32) {
        let error = D::try_from(wire).expect_err("foreign version");
        assert_eq!(error, Error::VersionMismatch { theirs: version, ours: PROTOCOL_VERSION });
        assert_eq!(tonic::Status::from(error).code(), tonic::Code::FailedPrecondition);
    }
    for version in [0, PROTOCOL_VERSION + 1] {
        refused::<WorkerInfo, _>(pb::RegisterRequest { protocol_version: version, worker: None }, version);
        refused::<LeaseRequest, _>(pb::LeaseRequest { protocol_version: version, ..Default::default() }, version);
        refused::<SubmitRequest, _>(pb::SubmitRequest { protocol_version: version, ..Default::default() }, version);
        refused::<RunSpec, _>(pb::CreateRunRequest { protocol_version: version, ..Default::default() }, version);
        refused::<RunFilter, _>(pb::ListRunsRequest { protocol_version: version, ..Default::default() }, version);
        refused::<RunId, _>(pb::GetRunRequest { protocol_version: version, run_id: 1 }, version);
        refused::<RunId, _>(pb::StopRunRequest { protocol_version: version, run_id: 1 }, version);
        refused::<RunId, _>(pb::WatchRunRequest { protocol_version: version, run_id: 1 }, version);
        refused::<VariantSpec, _>(pb::AddVariantRequest { protocol_version: version, spec: None }, version);
        refused::<OpeningSuiteSpec, _>(
            pb::AddOpeningsRequest { protocol_version: version, ..Default::default() },
            version,
        );
    }
}

#[test]
fn requests_built_from_domain_values_carry_our_version() {
    assert_eq!(pb::RegisterRequest::from(worker()).protocol_version, PROTOCOL_VERSION);
    assert_eq!(pb::GetRunRequest::from(RunId::new(3)).protocol_version, PROTOCOL_VERSION);
    assert_eq!(
        pb::AddOpeningsRequest::from(OpeningSuiteSpec { name: "x".into(), openings: vec![] }).protocol_version,
        PROTOCOL_VERSION
    );
}

#[test]
fn bad_worker_engines_name_the_field() {
    type Mutation = fn(&mut pb::RegisterRequest);
    let cases: [(&str, Mutation); 4] = [
        ("worker.engines[0].name", |r| r.worker.as_mut().expect("worker").engines[0].name = "/usr/games/fsf".into()),
        ("worker.engines[1].sha256", |r| r.worker.as_mut().expect("worker").engines[1].sha256 = "abc".into()),
        ("worker.engines[0].id_name", |r| r.worker.as_mut().expect("worker").engines[0].id_name = "a\nb".into()),
        ("worker.engines[1].name", |r| r.worker.as_mut().expect("worker").engines[1].name = "fsf".into()),
    ];
    for (field, mutate) in cases {
        let mut request = pb::RegisterRequest::from(worker());
        mutate(&mut request);
        rejects::<WorkerInfo, _>(request, field);
    }
}
