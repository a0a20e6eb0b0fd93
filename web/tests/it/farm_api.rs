//! The farm API through the router, as a browser or a script calls it: status codes, the bad
//! input named, reads and writes by role, the CSRF checks, and the numbers the pages show
//! against games recorded in a real (in-memory) farm.

use std::sync::Arc;

use axum::body::Body;
use axum::http::{Request, Response, StatusCode, header};
use coordinator::farm::Farm;
use coordinator::{ManualClock, MemoryStorage, Storage};
use proto::auth::{Access, Role, TokenEntry};
use proto::domain::*;
use serde_json::Value;
use tower::ServiceExt as _;

const USER: &str = "user-token";
const READER: &str = "reader-token";
const WORKER: &str = "worker-token";

struct Site {
    app: axum::Router,
    farm: Arc<Farm>,
    run: RunId,
    worker: WorkerId,
    base: VariantId,
}

fn access() -> Access {
    let entry =
        |role, token: &str| TokenEntry { role, digest: proto::auth::token_file::digest(token), label: token.into() };
    Access::from_entries(vec![entry(Role::User, USER), entry(Role::ReadOnly, READER), entry(Role::Worker, WORKER)])
}

fn variant(name: &str, toml: &str) -> VariantSpec {
    VariantSpec { name: name.into(), kind: VariantKind::Params { toml: toml.into() } }
}

fn game(red: &VariantId, black: &VariantId, moves: &[&str], outcome: GameOutcome, reason: Termination) -> GameReport {
    GameReport {
        red: red.clone(),
        black: black.clone(),
        start_fen: engine::START_FEN.into(),
        outcome,
        reason,
        moves: moves.iter().map(|m| m.to_string()).collect(),
        move_stats: vec![],
        forfeit: None,
        duration_ms: 10,
        nodes: 100,
        positions: vec![PositionSample {
            ply: 1,
            fen: "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b - - 1 1".into(),
            red_to_move: false,
            static_eval: 0,
            search_score: Some(30),
            best_move: "h9g7".into(),
            in_check: false,
            quiet: true,
        }],
    }
}

/// Records `pairs` more pairs of the run, leased by `worker`: Red wins the first game of each
/// pair after three moves (an engine error), the second is drawn after four (the move limit).
fn play_pairs(site: &Site, pairs: u32, seq: u64) {
    let storage = site.farm.storage();
    let now = site.farm.now_ms();
    let lease = storage.lease_batch(site.worker, pairs, now).expect("lease").expect("work");
    assert_eq!(lease.tasks.len(), pairs as usize, "one pair per free slot");
    let reports: Vec<PairReport> = lease
        .tasks
        .iter()
        .map(|t| {
            let [a, b] = &t.variants;
            PairReport {
                pair_index: t.pair_index,
                games: [
                    game(a, b, &["h2e2", "h9g7", "h0g2"], GameOutcome::RedWins, Termination::EngineError),
                    game(b, a, &["h2e2", "h9g7", "h0g2", "i9h9"], GameOutcome::Draw, Termination::AdjudicatedDraw),
                ],
            }
        })
        .collect();
    storage.record_results(site.worker, lease.id, seq, &reports, true, now).expect("recorded");
}

async fn site(public: bool) -> Site {
    site_exporting_to(public, None).await
}

/// [`site`] on a farm that exports to `data` (none without).
async fn site_exporting_to(public: bool, data: Option<std::path::PathBuf>) -> Site {
    let storage = MemoryStorage::new();
    let clock = Arc::new(ManualClock::new(1_700_000_000_000));
    let base = storage.add_variant(&variant("base", "")).expect("variant");
    let tuned = storage.add_variant(&variant("tuned", "material.rook = 800\n")).expect("variant");
    let suite = storage.add_openings("one", &["startpos".to_string()]).expect("suite");
    let farm = Arc::new(Farm::new(Arc::new(storage), clock, data).expect("farm"));
    let run = farm
        .create_run(&RunSpec {
            name: "tuned vs base".into(),
            kind: RunKind::Sprt(SprtSettings::default()),
            variants: vec![tuned.id.clone(), base.id.clone()],
            // A clock long enough that the scheduler leases one pair per free slot.
            tc: TimeControl::Clock { base_ms: 60_000, inc_ms: 600 },
            openings: suite.id,
            adjudication: Adjudication::default(),
            bench_signature: None,
            sample_every: 1,
        })
        .expect("run");
    let info = WorkerInfo {
        name: "w1".into(),
        host: "box".into(),
        cores: 2,
        engine_version: "t".into(),
        bench_signature: 1,
        worker_key: String::new(),
        rules_version: engine::RULES_VERSION,
        engines: vec![],
        bench_nps: 1_250_000,
        simd: Some(engine::nnue::SimdLevel::Avx2),
        nnue_bench_nps: 900_000,
    };
    let worker = farm.register(&info).expect("worker");
    let config = web::WebConfig {
        access: access(),
        public,
        login_key: Some("the-key".into()),
        engines: worker::engines::EngineSet::empty(),
        play: web::play::PlayConfig::default(),
    };
    let app = web::router(web::AppState::new(Arc::clone(&farm), config));
    let site = Site { app, farm, run: run.id, worker, base: base.id };
    play_pairs(&site, 3, 1);
    site
}

fn get(uri: &str, token: Option<&str>) -> Request<Body> {
    let mut r = Request::builder().uri(uri).header(header::HOST, "farm.test");
    if let Some(t) = token {
        r = r.header(header::AUTHORIZATION, format!("Bearer {t}"));
    }
    r.body(Body::empty()).expect("request")
}

fn post(uri: &str, token: Option<&str>, body: &str) -> Request<Body> {
    let mut r = Request::builder()
        .method("POST")
        .uri(uri)
        .header(header::HOST, "farm.test")
        .header(header::CONTENT_TYPE, "application/json");
    if let Some(t) = token {
        r = r.header(header::AUTHORIZATION, format!("Bearer {t}"));
    }
    r.body(Body::from(body.to_owned())).expect("request")
}

async fn send(site: &Site, req: Request<Body>) -> Response<Body> {
    site.app.clone().oneshot(req).await.expect("infallible")
}

async fn text(resp: Response<Body>) -> String {
    let bytes = axum::body::to_bytes(resp.into_body(), 64 << 20).await.expect("body");
    String::from_utf8(bytes.to_vec()).expect("utf-8")
}

async fn json(site: &Site, req: Request<Body>, status: StatusCode) -> Value {
    let resp = send(site, req).await;
    let got = resp.status();
    let body = text(resp).await;
    assert_eq!(got, status, "{body}");
    serde_json::from_str(&body).unwrap_or_else(|e| panic!("not JSON ({e}): {body}"))
}

#[tokio::test]
async fn reads_need_the_read_role_unless_the_farm_is_public() {
    let s = site(false).await;
    let v = json(&s, get("/api/runs", None), StatusCode::UNAUTHORIZED).await;
    assert!(v["error"].as_str().expect("message").contains("sign in"), "{v}");
    json(&s, get("/api/runs", Some("nobody")), StatusCode::UNAUTHORIZED).await;
    json(&s, get("/api/runs", Some(WORKER)), StatusCode::FORBIDDEN).await;
    json(&s, get("/api/runs", Some(READER)), StatusCode::OK).await;
    json(&s, get("/api/runs", Some(USER)), StatusCode::OK).await;
    let public = site(true).await;
    json(&public, get("/api/runs", None), StatusCode::OK).await;
    // Public reading is not public writing.
    json(&public, post(&format!("/api/runs/{}/stop", public.run), None, ""), StatusCode::UNAUTHORIZED).await;
}

#[tokio::test]
async fn the_runs_list_shows_each_runs_numbers_and_refuses_bad_paging() {
    let s = site(false).await;
    let v = json(&s, get("/api/runs?state=active", Some(READER)), StatusCode::OK).await;
    assert_eq!(v["total"], 1);
    let row = &v["runs"][0];
    assert_eq!(row["id"], s.run.get());
    assert_eq!(row["kind"], "sprt");
    assert_eq!(row["games"], 6);
    assert_eq!(row["variants"][0]["name"], "tuned");
    assert_eq!(row["variants"][1]["name"], "base");
    assert_eq!(row["tc"], TimeControl::Clock { base_ms: 60_000, inc_ms: 600 }.to_string());
    assert_eq!(row["pentanomial"], serde_json::json!([0, 0, 0, 3, 0]), "a win and a draw per pair");
    assert_eq!(row["wdl"], serde_json::json!([3, 3, 0]));
    assert!(row["elo"].as_f64().expect("elo") > 0.0);
    assert!(row["bounds"][0].as_f64().expect("lower") < 0.0);
    assert_eq!(row["state"], "active");
    let finished = json(&s, get("/api/runs?state=finished", Some(READER)), StatusCode::OK).await;
    assert_eq!(finished["total"], 0);
    for bad in ["state=done", "limit=0", "limit=501", "limit=ten", "offset=-1"] {
        let v = json(&s, get(&format!("/api/runs?{bad}"), Some(READER)), StatusCode::BAD_REQUEST).await;
        let key = bad.split('=').next().expect("key");
        assert!(v["error"].as_str().expect("message").contains(key), "{bad}: {v}");
    }
}

#[tokio::test]
async fn a_run_page_has_its_aggregates_llr_path_and_workers() {
    let s = site(false).await;
    let v = json(&s, get(&format!("/api/runs/{}", s.run), Some(READER)), StatusCode::OK).await;
    assert_eq!(v["run"]["games"], 6);
    let terminations = v["terminations"].as_array().expect("terminations");
    let count = |reason: &str| terminations.iter().find(|t| t["reason"] == reason).map(|t| t["count"].clone());
    assert_eq!(count("engine_error"), Some(3.into()));
    assert_eq!(count("adjudication_draw"), Some(3.into()));
    let lengths = v["lengths"].as_array().expect("lengths");
    assert_eq!(lengths[0]["plies_from"], 0);
    assert_eq!(lengths[0]["count"], 6, "every game is 3 or 4 plies");
    let workers = v["workers"].as_array().expect("workers");
    assert_eq!(workers.len(), 1);
    assert_eq!(workers[0]["name"], "w1");
    assert_eq!(workers[0]["pairs"], 3);
    assert_eq!(workers[0]["pentanomial"], serde_json::json!([0, 0, 0, 3, 0]));
    let llr = v["llr_history"].as_array().expect("llr");
    assert_eq!(llr.len(), 4, "the start and one point per pair");
    assert_eq!(llr[3][0], 6.0);
    assert_eq!(llr[3][1], v["run"]["llr"]);
    assert_eq!(v["spec"]["sprt"]["elo1"], 5.0);
    // The spec panel shows named JSON fields, not Rust `Debug` text.
    let rules = Adjudication::default();
    assert_eq!(v["spec"]["adjudication"]["resign_score"], rules.resign_score, "{}", v["spec"]);
    assert_eq!(v["spec"]["adjudication"]["draw_after_move"], rules.draw_after_move, "{}", v["spec"]);
    json(&s, get("/api/runs/999", Some(READER)), StatusCode::NOT_FOUND).await;
    let bad = json(&s, get("/api/runs/abc", Some(READER)), StatusCode::BAD_REQUEST).await;
    assert!(bad["error"].as_str().expect("message").contains("abc"), "{bad}");
}

#[tokio::test]
async fn a_runs_games_page_and_the_viewers_game() {
    let s = site(false).await;
    let page =
        json(&s, get(&format!("/api/runs/{}/games?offset=1&limit=2", s.run), Some(READER)), StatusCode::OK).await;
    assert_eq!(page["total"], 6);
    let games = page["games"].as_array().expect("games");
    assert_eq!(games.len(), 2);
    assert_eq!(games[0]["plies"], 4, "the second game of the first pair");
    assert_eq!(games[0]["red"], "base");
    assert_eq!(games[0]["result"], "1/2-1/2");
    json(&s, get(&format!("/api/runs/{}/games?limit=501", s.run), Some(READER)), StatusCode::BAD_REQUEST).await;
    let id = games[0]["id"].as_u64().expect("id");
    let g = json(&s, get(&format!("/api/games/{id}"), Some(READER)), StatusCode::OK).await;
    assert_eq!(g["red"]["name"], "base");
    assert_eq!(g["black"]["name"], "tuned");
    assert_eq!(g["reason"], "adjudication_draw");
    assert_eq!(g["verdict_text"], "Draw by adjudication");
    let moves = g["moves"].as_array().expect("moves");
    assert_eq!(moves.len(), 4);
    assert_eq!(moves[0]["wxf"], "C2.5");
    assert_eq!(moves[0]["chinese"], "炮二平五");
    // Each move's FEN is the position the engine's rules reach by replaying the moves.
    let mut pos = engine::Position::startpos();
    for m in moves {
        let mv = engine::notation::parse_move(&pos, m["uci"].as_str().expect("uci")).expect("legal");
        pos.try_play(mv).expect("legal");
        assert_eq!(m["fen"], pos.fen());
    }
    assert_eq!(g["scores"][0]["score"], -30, "Black's +30 is Red's -30");
    // The suite's line (`startpos`, no moves) and the game's ECCO code over its moves.
    assert_eq!(g["opening"]["fen"], engine::START_FEN);
    assert_eq!(g["opening"]["moves"].as_array().map(Vec::len), Some(0));
    let wxf: Vec<&str> = moves.iter().map(|m| m["wxf"].as_str().expect("wxf")).collect();
    let ecco = engine::ecco::classify_wxf(&wxf);
    assert_eq!((&g["opening"]["ecco"]["code"], &g["opening"]["ecco"]["name"]), (&ecco.code.into(), &ecco.name.into()));
    json(&s, get("/api/games/424242", Some(READER)), StatusCode::NOT_FOUND).await;
    json(&s, get("/api/games/x", Some(READER)), StatusCode::BAD_REQUEST).await;
}

/// Once a game's positions are pruned from the database after export, the viewer reads its
/// scores from Parquet; a coordinator without Parquet shows the game without them, and says so.
#[tokio::test]
async fn the_viewer_reads_pruned_positions_from_parquet() {
    let data = tempfile::tempdir().expect("temp dir");
    let exporting = site_exporting_to(false, Some(data.path().to_owned())).await;
    let without = site(false).await;
    for (s, from) in [(&exporting, "parquet"), (&without, "pruned")] {
        let storage = s.farm.storage();
        let games = storage.games_since(s.run, 0, 100).expect("games");
        let id = games[1].game_id;
        let uri = format!("/api/games/{id}");
        let before = json(s, get(&uri, Some(READER)), StatusCode::OK).await;
        assert_eq!(before["positions_from"], "database");
        assert_eq!(before["scores"][0]["score"], -30);
        // Exported (a farm without a data directory exports nothing: marked by hand).
        s.farm.export_all().expect("export");
        let last = games.last().expect("games").game_id;
        if from == "pruned" {
            storage.mark_exported(s.run, last).expect("mark");
        }
        assert_eq!(storage.exported_up_to(s.run).expect("mark"), last);
        let pruned = coordinator::storage::prune::prune_exported_positions(storage.as_ref(), s.run).expect("prune");
        assert_eq!(pruned.positions, games.len() as u64, "{from}: one position a game");
        assert!(storage.get_game(id).expect("game").report.positions.is_empty());
        let after = json(s, get(&uri, Some(READER)), StatusCode::OK).await;
        assert_eq!(after["positions_from"], from);
        if from == "parquet" {
            assert_eq!(after["scores"], before["scores"], "the same scores, from Parquet");
        } else {
            assert_eq!(after["scores"], serde_json::json!([]));
        }
        assert_eq!(after["moves"], before["moves"], "{from}: the game itself stays");
    }
}

#[tokio::test]
async fn pgn_downloads_name_the_variants_and_carry_their_ids() {
    let s = site(false).await;
    let resp = send(&s, get(&format!("/api/runs/{}/pgn?notation=chinese", s.run), Some(READER))).await;
    assert_eq!(resp.status(), StatusCode::OK);
    assert!(resp.headers()[header::CONTENT_DISPOSITION].to_str().expect("ascii").contains("attachment"));
    let pgn = text(resp).await;
    assert_eq!(pgn.matches("[Game \"Chinese Chess\"]").count(), 6);
    assert!(pgn.contains("[Red \"tuned\"]") && pgn.contains("[Black \"base\"]"), "{pgn}");
    assert!(pgn.contains(&format!("[BlackId \"{}\"]", s.base)), "{pgn}");
    assert!(pgn.contains("1. 炮二平五 马８进７"), "{pgn}");
    let v =
        json(&s, get(&format!("/api/runs/{}/pgn?notation=san", s.run), Some(READER)), StatusCode::BAD_REQUEST).await;
    assert!(v["error"].as_str().expect("message").contains("san"));
    json(&s, get("/api/runs/77/pgn", Some(READER)), StatusCode::NOT_FOUND).await;
}

#[tokio::test]
async fn stopping_a_run_needs_the_user_role() {
    let s = site(false).await;
    let stop = format!("/api/runs/{}/stop", s.run);
    json(&s, post(&stop, None, ""), StatusCode::UNAUTHORIZED).await;
    let v = json(&s, post(&stop, Some(READER), ""), StatusCode::FORBIDDEN).await;
    assert!(v["error"].as_str().expect("message").contains("user role"), "{v}");
    assert_eq!(s.farm.get_run(s.run).expect("run").run.state, RunState::Active, "nothing changed");
    let row = json(&s, post(&stop, Some(USER), ""), StatusCode::OK).await;
    assert_eq!(row["state"], "stopped");
    json(&s, post("/api/runs/999/stop", Some(USER), ""), StatusCode::NOT_FOUND).await;
}

/// Signs in with the form and returns the session cookie and its CSRF token.
async fn sign_in(s: &Site, token: &str) -> (String, String) {
    let body = serde_json::json!({ "token": token }).to_string();
    let resp = send(s, post("/api/login", None, &body)).await;
    assert_eq!(resp.status(), StatusCode::NO_CONTENT);
    let cookie = resp.headers()[header::SET_COOKIE].to_str().expect("ascii").to_owned();
    assert!(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"), "{cookie}");
    let pair = cookie.split(';').next().expect("name=value").to_owned();
    let me = Request::builder().uri("/api/me").header(header::COOKIE, &pair).body(Body::empty()).expect("request");
    let v = json(s, me, StatusCode::OK).await;
    (pair, v["csrf"].as_str().expect("a session has a CSRF token").to_owned())
}

fn cookie_post(uri: &str, cookie: &str, csrf: Option<&str>, origin: Option<&str>) -> Request<Body> {
    let mut r =
        Request::builder().method("POST").uri(uri).header(header::HOST, "farm.test").header(header::COOKIE, cookie);
    if let Some(c) = csrf {
        r = r.header("x-csrf-token", c);
    }
    if let Some(o) = origin {
        r = r.header(header::ORIGIN, o);
    }
    r.body(Body::empty()).expect("request")
}

#[tokio::test]
async fn cookie_sessions_are_csrf_checked() {
    let s = site(false).await;
    json(&s, post("/api/login", None, r#"{"token":"wrong"}"#), StatusCode::UNAUTHORIZED).await;
    let (cookie, csrf) = sign_in(&s, USER).await;
    let me = Request::builder().uri("/api/me").header(header::COOKIE, &cookie).body(Body::empty()).expect("request");
    assert_eq!(json(&s, me, StatusCode::OK).await["role"], "user");
    let stop = format!("/api/runs/{}/stop", s.run);
    let v = json(&s, cookie_post(&stop, &cookie, None, None), StatusCode::FORBIDDEN).await;
    assert!(v["error"].as_str().expect("message").contains("x-csrf-token"), "{v}");
    json(&s, cookie_post(&stop, &cookie, Some("not-the-token"), None), StatusCode::FORBIDDEN).await;
    let v = json(&s, cookie_post(&stop, &cookie, Some(&csrf), Some("https://evil.test")), StatusCode::FORBIDDEN).await;
    assert!(v["error"].as_str().expect("message").contains("evil.test"), "{v}");
    assert_eq!(s.farm.get_run(s.run).expect("run").run.state, RunState::Active, "nothing changed");
    let row = json(&s, cookie_post(&stop, &cookie, Some(&csrf), Some("http://farm.test")), StatusCode::OK).await;
    assert_eq!(row["state"], "stopped");
    // A read-only session reads but cannot write, whatever its CSRF token.
    let (ro, ro_csrf) = sign_in(&s, READER).await;
    let runs = Request::builder().uri("/api/runs").header(header::COOKIE, &ro).body(Body::empty()).expect("request");
    json(&s, runs, StatusCode::OK).await;
    json(&s, cookie_post(&stop, &ro, Some(&ro_csrf), None), StatusCode::FORBIDDEN).await;
    // Signing out ends the session.
    send(&s, cookie_post("/api/logout", &cookie, None, None)).await;
    let runs =
        Request::builder().uri("/api/runs").header(header::COOKIE, &cookie).body(Body::empty()).expect("request");
    json(&s, runs, StatusCode::UNAUTHORIZED).await;
}

#[tokio::test]
async fn the_signed_in_url_sets_a_session_and_a_wrong_key_does_not() {
    let s = site(false).await;
    let resp = send(&s, get("/login?key=the-key", None)).await;
    assert_eq!(resp.status(), StatusCode::SEE_OTHER);
    assert_eq!(resp.headers()[header::LOCATION], "/");
    let cookie =
        resp.headers()[header::SET_COOKIE].to_str().expect("ascii").split(';').next().expect("pair").to_owned();
    let runs =
        Request::builder().uri("/api/runs").header(header::COOKIE, &cookie).body(Body::empty()).expect("request");
    json(&s, runs, StatusCode::OK).await;
    json(&s, get("/login?key=guess", None), StatusCode::UNAUTHORIZED).await;
    let page = send(&s, get("/login", None)).await;
    assert_eq!(page.status(), StatusCode::OK);
    assert!(text(page).await.contains("<html"));
}

#[tokio::test]
async fn creating_a_run_is_validated_by_the_clis_code() {
    let s = site(false).await;
    let run = s.farm.get_run(s.run).expect("run").run;
    let [a, b] = [&run.spec.variants[0], &run.spec.variants[1]];
    let suite = run.spec.openings.get();
    let body = |extra: &str| format!(r#"{{"variants":["{a}","{b}"],"suite":{suite}{extra}}}"#);
    json(&s, post("/api/runs", Some(READER), &body("")), StatusCode::FORBIDDEN).await;
    let created = json(
        &s,
        post("/api/runs", Some(USER), &body(r#","kind":"games","pairs":4,"tc":"depth=3","name":"web""#)),
        StatusCode::CREATED,
    )
    .await;
    assert_eq!(created["name"], "web");
    assert_eq!(created["pairs_total"], 4);
    assert_eq!(created["tc"], "depth=3");
    let v = json(&s, post("/api/runs", Some(USER), &body(r#","tc":"fast""#)), StatusCode::BAD_REQUEST).await;
    assert!(v["error"].as_str().expect("message").contains("fast"), "{v}");
    let v = json(&s, post("/api/runs", Some(USER), &body(r#","kind":"league""#)), StatusCode::BAD_REQUEST).await;
    assert!(v["error"].as_str().expect("message").contains("league"), "{v}");
    let v = json(&s, post("/api/runs", Some(USER), &body(r#","elo0":9,"elo1":1"#)), StatusCode::BAD_REQUEST).await;
    assert!(v["error"].as_str().expect("message").contains("elo"), "{v}");
    let unknown = format!(r#"{{"variants":["{a}","0000"],"suite":{suite}}}"#);
    json(&s, post("/api/runs", Some(USER), &unknown), StatusCode::NOT_FOUND).await;
    let resp = send(&s, post("/api/runs", Some(USER), "{not json")).await;
    assert_eq!(resp.status(), StatusCode::BAD_REQUEST);
    let huge = format!(r#"{{"variants":["{a}","{b}"],"suite":{suite},"name":"{}"}}"#, "x".repeat(web::MAX_BODY_BYTES));
    assert_eq!(send(&s, post("/api/runs", Some(USER), &huge)).await.status(), StatusCode::PAYLOAD_TOO_LARGE);
    assert_eq!(s.farm.list_runs(&RunFilter::default()).expect("runs").len(), 2, "only the valid run was made");
    let variants = json(&s, get("/api/variants", Some(READER)), StatusCode::OK).await;
    assert_eq!(variants["variants"].as_array().expect("list").len(), 2);
    let openings = json(&s, get("/api/openings", Some(READER)), StatusCode::OK).await;
    assert_eq!(openings["openings"][0]["openings"], 1);
}

#[tokio::test]
async fn the_workers_page_lists_who_played() {
    let s = site(false).await;
    let v = json(&s, get("/api/workers", Some(READER)), StatusCode::OK).await;
    let w = &v["workers"][0];
    assert_eq!(w["name"], "w1");
    assert_eq!(w["host"], "box");
    assert_eq!(w["cores"], 2);
    assert_eq!(w["bench_nps"], 1_250_000, "the speed it registered with");
    assert_eq!((w["simd"].as_str(), w["nnue_bench_nps"].as_u64()), (Some("avx2"), Some(900_000)), "and with a network");
    assert_eq!(w["leases_held"], 0, "the lease was closed by its final batch");
    assert!(w["games_per_minute"].as_f64().expect("pace") > 0.0, "{w}");
}

/// The next `runs` event's data from an SSE body.
async fn next_event(
    body: &mut (impl tokio_stream::Stream<Item = Result<axum::body::Bytes, axum::Error>> + Unpin),
) -> Value {
    use tokio_stream::StreamExt as _;
    let mut buf = String::new();
    loop {
        let chunk = tokio::time::timeout(std::time::Duration::from_secs(10), body.next())
            .await
            .expect("an event within 10 s")
            .expect("stream open")
            .expect("chunk");
        buf.push_str(std::str::from_utf8(&chunk).expect("utf-8"));
        if let Some(end) = buf.find("\n\n") {
            let event = &buf[..end];
            if let Some(data) = event.lines().find_map(|l| l.strip_prefix("data: ")) {
                assert!(event.contains("event: runs"), "{event}");
                return serde_json::from_str(data).expect("JSON data");
            }
            buf.drain(..end + 2);
        }
    }
}

#[tokio::test]
async fn the_event_stream_carries_each_new_count() {
    let s = site(false).await;
    json(&s, get("/api/events", None), StatusCode::UNAUTHORIZED).await;
    let resp = send(&s, get("/api/events", Some(READER))).await;
    assert_eq!(resp.status(), StatusCode::OK);
    assert!(resp.headers()[header::CONTENT_TYPE].to_str().expect("ascii").starts_with("text/event-stream"));
    let mut body = resp.into_body().into_data_stream();
    let mut games = next_event(&mut body).await["runs"][0]["games"].as_u64().unwrap_or(0);
    // The farm learns of new results through its own path (the lease call), which notifies.
    while games < 6 {
        games = next_event(&mut body).await["runs"][0]["games"].as_u64().unwrap_or(0);
    }
    let lease =
        s.farm.lease(&LeaseRequest { worker: s.worker, free_slots: 1, held: vec![], finished: vec![] }).expect("lease");
    assert!(matches!(lease.grant, LeaseGrant::Lease(_)));
    s.farm.stop_run(s.run).expect("stop");
    let mut last = next_event(&mut body).await;
    while last["runs"][0]["state"] != "stopped" {
        last = next_event(&mut body).await;
    }
    assert_eq!(last["runs"][0]["id"], s.run.get());
    assert!(last["seq"].as_u64().expect("seq") >= 2);
}

#[tokio::test]
async fn an_spsa_run_page_has_each_parameters_path_from_its_start() {
    let s = site(false).await;
    let storage = s.farm.storage();
    storage.set_run_state(s.run, RunState::Stopped).expect("stop the SPRT");
    let suite = storage.add_openings("spsa", &["startpos".to_string()]).expect("suite");
    let settings = SpsaSettings {
        pairs: 50,
        params: parse_spsa_lines("search.rfp_margin,90,20,300,10,0.002\nsearch.lmr_div,225,100,500,20,0.002")
            .expect("lines"),
    };
    let run = s
        .farm
        .create_run(&RunSpec {
            name: "spsa".into(),
            kind: RunKind::Spsa(settings),
            variants: vec![s.base.clone()],
            tc: TimeControl::Clock { base_ms: 60_000, inc_ms: 600 },
            openings: suite.id,
            adjudication: Adjudication::default(),
            bench_signature: None,
            sample_every: 0,
        })
        .expect("an SPSA run");
    let site = Site { run: run.id, ..s };
    play_pairs(&site, 3, 1);
    let v = json(&site, get(&format!("/api/runs/{}", run.id), Some(READER)), StatusCode::OK).await;
    let paths = v["spsa_paths"].as_array().expect("paths");
    assert_eq!(paths.len(), 2);
    assert_eq!(paths[0]["name"], "search.rfp_margin");
    assert_eq!(paths[0]["start"], 90.0);
    let points = paths[0]["points"].as_array().expect("points");
    assert_eq!(points[0], serde_json::json!([0.0, 90.0]), "the path starts at the start value");
    // One submission of three pairs: the start and one point after it.
    assert_eq!(points.len(), 2);
    assert_eq!(points[1][0], 3.0);
    let now = v["spec"]["spsa"][0]["value"].as_f64().expect("the current value");
    assert_eq!(points[1][1].as_f64(), Some(now));
    // Each pair is a win and a draw for its first player (the plus side): the values moved.
    assert_ne!(now, 90.0);
}
