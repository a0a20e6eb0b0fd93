//! Black-box tests of the `/api/play` routes through the router (no network): status codes,
//! the rules' refusals, the engine's replies within their budget, undo/redo, FEN and PGN
//! save/load, the perpetual-check verdict, the caps, and the auth and body-size guards.

#![allow(clippy::unwrap_used)] // in tests a panic is the failure report

use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::Body;
use axum::http::{HeaderMap, Method, Request, StatusCode, header};
use coordinator::farm::Farm;
use coordinator::{MemoryStorage, SystemClock};
use engine::Position;
use engine::notation::parse_uci;
use proto::domain::{EngineProtocol, VariantKind, VariantSpec};
use serde_json::{Value, json};
use tower::ServiceExt as _;
use web::play::PlayConfig;
use web::{AppState, WebConfig};
use worker::engines::EngineSet;

const TOKEN: &str = "t";

fn config(play: PlayConfig) -> WebConfig {
    WebConfig {
        access: proto::auth::Access::single_token(TOKEN),
        public: false,
        login_key: None,
        engines: EngineSet::empty(),
        play,
    }
}

struct App {
    router: Router,
    farm: Arc<Farm>,
}

fn app_with(play: PlayConfig) -> App {
    let storage = Arc::new(MemoryStorage::new());
    let farm = Arc::new(Farm::new(storage, Arc::new(SystemClock), None).unwrap());
    let state = AppState::new(Arc::clone(&farm), config(play));
    App { router: web::router(state), farm }
}

fn app() -> App {
    app_with(PlayConfig::default())
}

struct Reply {
    status: StatusCode,
    headers: HeaderMap,
    text: String,
}

impl Reply {
    fn json(&self) -> Value {
        serde_json::from_str(&self.text).unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.text))
    }

    fn error(&self) -> String {
        self.json()["error"].as_str().unwrap_or_else(|| panic!("no error in {}", self.text)).to_owned()
    }
}

/// A request with `headers` (no bearer token added).
async fn send_raw(app: &App, method: Method, uri: &str, headers: &[(&str, &str)], body: Body) -> Reply {
    let mut req = Request::builder().method(method).uri(uri).header(header::HOST, "farm.test");
    for (k, v) in headers {
        req = req.header(*k, *v);
    }
    let res = app.router.clone().oneshot(req.body(body).unwrap()).await.unwrap();
    let status = res.status();
    let headers = res.headers().clone();
    let bytes = axum::body::to_bytes(res.into_body(), usize::MAX).await.unwrap();
    Reply { status, headers, text: String::from_utf8_lossy(&bytes).into_owned() }
}

/// A bearer-token request with an optional JSON body.
async fn call(app: &App, method: Method, uri: &str, body: Option<Value>) -> Reply {
    let auth = format!("Bearer {TOKEN}");
    let mut headers = vec![("authorization", auth.as_str())];
    let body = match body {
        Some(v) => {
            headers.push(("content-type", "application/json"));
            Body::from(v.to_string())
        }
        None => Body::empty(),
    };
    send_raw(app, method, uri, &headers, body).await
}

async fn create(app: &App, body: Value) -> Value {
    let r = call(app, Method::POST, "/api/play", Some(body)).await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    r.json()
}

async fn human_game(app: &App, fen: Option<&str>) -> String {
    let s = create(app, json!({"fen": fen, "red": {"human": true}, "black": {"human": true}})).await;
    s["id"].as_str().unwrap().to_owned()
}

async fn play(app: &App, sid: &str, mv: &str) -> Reply {
    call(app, Method::POST, &format!("/api/play/{sid}/move"), Some(json!({ "move": mv }))).await
}

async fn play_ok(app: &App, sid: &str, moves: &str) -> Value {
    let mut last = Value::Null;
    for mv in moves.split_whitespace() {
        let r = play(app, sid, mv).await;
        assert_eq!(r.status, StatusCode::OK, "{mv}: {}", r.text);
        last = r.json();
    }
    last
}

/// The FEN after `moves` from `fen`, by the engine crate.
fn fen_after(fen: &str, moves: &str) -> String {
    let mut pos = Position::from_fen(fen).unwrap();
    for m in moves.split_whitespace() {
        pos.try_play(parse_uci(m).unwrap()).unwrap();
    }
    pos.fen()
}

fn ucis(state: &Value) -> Vec<String> {
    state["moves"].as_array().unwrap().iter().map(|m| m["uci"].as_str().unwrap().to_owned()).collect()
}

#[tokio::test]
async fn engines_list_the_builtin_engine() {
    let app = app();
    let r = call(&app, Method::GET, "/api/play/engines", None).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    let engines = r.json()["engines"].as_array().unwrap().clone();
    let builtin = engines.iter().find(|e| e["id"] == "xqengine").unwrap();
    assert_eq!((builtin["kind"].as_str(), builtin["available"].as_bool()), (Some("in_process"), Some(true)));
    let r = send_raw(&app, Method::GET, "/api/play/engines", &[], Body::empty()).await;
    assert_eq!(r.status, StatusCode::UNAUTHORIZED, "{}", r.text);
}

#[tokio::test]
async fn a_session_is_created_read_and_closed() {
    let app = app();
    let s = create(&app, json!({"red": {"human": true}, "black": {"human": true}})).await;
    let sid = s["id"].as_str().unwrap();
    assert_eq!(s["fen"], engine::START_FEN);
    assert_eq!(s["side_to_move"], "red");
    assert_eq!(s["pieces"].as_array().unwrap().len(), 32);
    assert!(s["pieces"].as_array().unwrap().contains(&json!({"square": "e0", "piece": "K"})));
    assert_eq!(s["legal"]["h2"].as_array().unwrap().len(), 12);
    assert_eq!(
        (s["check"].clone(), s["result"].clone(), s["engine_to_move"].clone()),
        (Value::Null, Value::Null, json!(false))
    );
    assert_eq!(s["red"], json!({"human": true}));

    let r = call(&app, Method::GET, &format!("/api/play/{sid}"), None).await;
    assert_eq!((r.status, r.json()["id"].as_str()), (StatusCode::OK, Some(sid)));
    let r = call(&app, Method::DELETE, &format!("/api/play/{sid}"), None).await;
    assert_eq!(r.status, StatusCode::NO_CONTENT, "{}", r.text);
    for (method, uri) in [
        (Method::GET, format!("/api/play/{sid}")),
        (Method::DELETE, format!("/api/play/{sid}")),
        (Method::POST, format!("/api/play/{sid}/undo")),
        (Method::GET, format!("/api/play/{sid}/pgn")),
    ] {
        let r = call(&app, method.clone(), &uri, None).await;
        assert_eq!(r.status, StatusCode::NOT_FOUND, "{method} {uri}: {}", r.text);
        assert!(r.error().contains(sid), "{}", r.text);
    }
}

#[tokio::test]
async fn bad_sides_and_limits_are_refused_by_field() {
    let app = app();
    let cases = [
        (
            json!({"red": {"engine": "xqengine", "limit": {"nodes": 5_000_001}}, "black": {"human": true}}),
            "red.limit.nodes",
        ),
        (json!({"red": {"human": true}, "black": {"engine": "xqengine", "limit": {"depth": 31}}}), "black.limit.depth"),
        (
            json!({"red": {"human": true}, "black": {"engine": "xqengine", "limit": {"movetime_ms": 10_001}}}),
            "black.limit.movetime_ms",
        ),
        (json!({"red": {"engine": "nope"}, "black": {"human": true}}), "red.engine"),
        (json!({"red": {}, "black": {"human": true}}), "red"),
    ];
    for (body, field) in cases {
        let r = call(&app, Method::POST, "/api/play", Some(body.clone())).await;
        assert_eq!(r.status, StatusCode::BAD_REQUEST, "{body}: {}", r.text);
        assert!(r.error().starts_with(&format!("{field}: ")), "{body}: {}", r.text);
    }
    // An external variant whose engine `serve --engine` did not give: named, not started.
    let variant = app
        .farm
        .add_variant(&VariantSpec {
            name: "fairy".into(),
            kind: VariantKind::External { engine: "fairy".into(), protocol: EngineProtocol::Uci, options: vec![] },
        })
        .unwrap();
    let body = json!({"red": {"engine": variant.id.as_str()}, "black": {"human": true}});
    let r = call(&app, Method::POST, "/api/play", Some(body)).await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST, "{}", r.text);
    assert!(r.error().contains("not available"), "{}", r.text);
    let r = call(
        &app,
        Method::POST,
        "/api/play",
        Some(json!({"fen": "bad", "red": {"human": true}, "black": {"human": true}})),
    )
    .await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY, "{}", r.text);
}

/// A stored variant that names a network plays with it: the network comes from the farm's
/// store, as the worker's does.
#[tokio::test]
async fn a_variant_naming_a_stored_network_replies() {
    let app = app();
    let bytes = engine::nnue::Network::random(3, 32).to_bytes();
    let id = engine::nnue::NetworkId::of_file(&bytes);
    app.farm.add_network(&bytes).unwrap();
    let params = engine::ParamSet { eval_spec: engine::EvalSpec::Nnue(id), ..engine::ParamSet::default() };
    let variant = app
        .farm
        .add_variant(&VariantSpec { name: "net".into(), kind: VariantKind::Params { toml: params.to_toml() } })
        .unwrap();
    let listed = call(&app, Method::GET, "/api/play/engines", None).await.json();
    let entry = listed["engines"].as_array().unwrap().iter().find(|e| e["id"] == variant.id.as_str()).unwrap().clone();
    assert_eq!(entry["available"], true, "{entry}");
    let s = create(
        &app,
        json!({"red": {"human": true}, "black": {"engine": variant.id.as_str(), "limit": {"nodes": 2000}}}),
    )
    .await;
    let sid = s["id"].as_str().unwrap().to_owned();
    let before = play_ok(&app, &sid, "h2e2").await;
    let r = call(&app, Method::POST, &format!("/api/play/{sid}/reply"), None).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    let reply = r.json()["last_move"].as_str().unwrap().to_owned();
    let (from, to) = reply.split_at(2);
    assert!(before["legal"][from].as_array().unwrap().contains(&json!(to)), "{reply} not legal");
}

#[tokio::test]
async fn an_illegal_move_is_refused_and_changes_nothing() {
    let app = app();
    let sid = human_game(&app, None).await;
    let before = play_ok(&app, &sid, "h2e2").await;
    for bad in ["h9h5", "h2e3", "xx", "炮九平五"] {
        let r = play(&app, &sid, bad).await;
        assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY, "{bad}: {}", r.text);
        assert!(r.error().starts_with(&format!("{bad}: ")), "{bad}: {}", r.text);
    }
    let after = call(&app, Method::GET, &format!("/api/play/{sid}"), None).await.json();
    assert_eq!(before, after);
    // Any notation the engine reads is a move.
    let s = play_ok(&app, &sid, "马８进７ H2+3").await;
    assert_eq!(ucis(&s), ["h2e2", "h9g7", "h0g2"]);
    assert_eq!(s["moves"][1]["wxf"], "H8+7");
    assert_eq!(s["moves"][2]["chinese"], "马二进三");
    assert_eq!(s["last_move"], "h0g2");
}

#[tokio::test]
async fn the_engine_replies_with_a_legal_move() {
    let app = app();
    let s =
        create(&app, json!({"red": {"human": true}, "black": {"engine": "xqengine", "limit": {"nodes": 3000}}})).await;
    let sid = s["id"].as_str().unwrap().to_owned();
    assert_eq!(s["black"]["engine"], "xqengine");
    assert_eq!(s["black"]["limit"], json!({"nodes": 3000}));
    // Red (a human) to move: no reply.
    let r = call(&app, Method::POST, &format!("/api/play/{sid}/reply"), None).await;
    assert_eq!(r.status, StatusCode::CONFLICT, "{}", r.text);
    let before = play_ok(&app, &sid, "h2e2").await;
    assert_eq!(before["engine_to_move"], true);
    let r = call(&app, Method::POST, &format!("/api/play/{sid}/reply"), None).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    let s = r.json();
    let reply = s["last_move"].as_str().unwrap();
    let (from, to) = reply.split_at(2);
    assert!(before["legal"][from].as_array().unwrap().contains(&json!(to)), "{reply} not legal in {}", before["fen"]);
    assert_eq!(s["side_to_move"], "red");
    assert_eq!(s["fen"], fen_after(engine::START_FEN, &format!("h2e2 {reply}")));
    assert_eq!(s["engine_to_move"], false);
}

#[tokio::test]
async fn a_timed_reply_keeps_its_budget() {
    let app = app();
    let s =
        create(&app, json!({"red": {"engine": "xqengine", "limit": {"movetime_ms": 200}}, "black": {"human": true}}))
            .await;
    let sid = s["id"].as_str().unwrap().to_owned();
    let started = Instant::now();
    let r = call(&app, Method::POST, &format!("/api/play/{sid}/reply"), None).await;
    let took = started.elapsed();
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    // A lower bound only: how far past its budget a reply may end is a speed figure, measured
    // by the `reply_latency` example (budget + 50 ms), not asserted on a loaded test machine.
    assert!(took >= Duration::from_millis(100), "the engine should use its time: {took:?}");
}

#[tokio::test]
async fn a_busy_pool_refuses_a_reply_that_cannot_start_in_time() {
    let app = app_with(PlayConfig { search_threads: 1, ..PlayConfig::default() });
    let slow = json!({"red": {"engine": "xqengine", "limit": {"movetime_ms": 1500}}, "black": {"human": true}});
    let fast = json!({"red": {"engine": "xqengine", "limit": {"movetime_ms": 100}}, "black": {"human": true}});
    let a = create(&app, slow).await["id"].as_str().unwrap().to_owned();
    let b = create(&app, fast).await["id"].as_str().unwrap().to_owned();
    let app = Arc::new(app);
    let first = {
        let app = Arc::clone(&app);
        let a = a.clone();
        tokio::spawn(async move { call(&app, Method::POST, &format!("/api/play/{a}/reply"), None).await })
    };
    // Until the first reply's engine is thinking (the session says so), polled rather than slept.
    let thinking = async {
        loop {
            let state = call(&app, Method::GET, &format!("/api/play/{a}"), None).await.json();
            if state["red"]["thinking"] == json!(true) {
                break;
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    };
    tokio::time::timeout(Duration::from_secs(30), thinking).await.expect("the first reply starts its search");
    // A second reply on the same session while its engine thinks.
    let r = call(&app, Method::POST, &format!("/api/play/{a}/reply"), None).await;
    assert_eq!(r.status, StatusCode::CONFLICT, "{}", r.text);
    // Refused within its budget: the pool's own test pins the wait on tokio's paused clock.
    let r = call(&app, Method::POST, &format!("/api/play/{b}/reply"), None).await;
    assert_eq!(r.status, StatusCode::SERVICE_UNAVAILABLE, "{}", r.text);
    assert!(r.error().contains("busy"), "{}", r.text);
    let r = first.await.unwrap();
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    let r = call(&app, Method::POST, &format!("/api/play/{b}/reply"), None).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
}

#[tokio::test]
async fn undo_twice_then_redo_once() {
    let app = app();
    let sid = human_game(&app, None).await;
    play_ok(&app, &sid, "h2e2 h9g7 h0g2 i9h9").await;
    let r = call(&app, Method::POST, &format!("/api/play/{sid}/undo"), Some(json!({"count": 1}))).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    let r = call(&app, Method::POST, &format!("/api/play/{sid}/undo"), None).await;
    let s = r.json();
    assert_eq!(s["fen"], fen_after(engine::START_FEN, "h2e2 h9g7"));
    assert_eq!(s["redo"], json!(["h0g2", "i9h9"]));
    let r = call(&app, Method::POST, &format!("/api/play/{sid}/redo"), Some(json!({"count": 1}))).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    let s = r.json();
    assert_eq!(s["fen"], fen_after(engine::START_FEN, "h2e2 h9g7 h0g2"));
    assert_eq!(ucis(&s), ["h2e2", "h9g7", "h0g2"]);
    assert_eq!(s["redo"], json!(["i9h9"]));
    let r = call(&app, Method::POST, &format!("/api/play/{sid}/undo"), Some(json!({"count": 0}))).await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST, "{}", r.text);
    assert!(r.error().starts_with("count: "));
}

#[tokio::test]
async fn fen_load_and_check() {
    let app = app();
    let sid = human_game(&app, None).await;
    play_ok(&app, &sid, "h2e2").await;
    let fen = "4k4/9/9/9/9/9/9/9/4R4/3K5 b - - 0 1";
    let r = call(&app, Method::POST, &format!("/api/play/{sid}/load"), Some(json!({ "fen": fen }))).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    let s = r.json();
    assert_eq!((s["start_fen"].as_str(), s["fen"].as_str()), (Some(fen), Some(fen)));
    assert_eq!(s["check"], "e9");
    assert_eq!(s["moves"], json!([]));

    // Every FEN of the shared list is refused with the validator's own message.
    let list = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/xiangqi/invalid-fens.txt"))
        .unwrap_or_else(|_| "3k5/9/9/9/9/9/9/9/9/3K5 w - - 0 1 | kings face".to_owned());
    for line in list.lines().filter(|l| !l.starts_with('#') && l.contains('|')) {
        let bad = line.split('|').next().unwrap().trim();
        let reason = Position::from_fen(bad).unwrap_err().to_string();
        let r = call(&app, Method::POST, &format!("/api/play/{sid}/load"), Some(json!({ "fen": bad }))).await;
        assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY, "{bad}: {}", r.text);
        assert!(r.error().contains(&reason) && r.error().contains(bad), "{bad}: {}", r.text);
        let r = call(&app, Method::POST, "/api/play/check-fen", Some(json!({ "fen": bad }))).await;
        assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY, "{bad}: {}", r.text);
        assert!(r.error().contains(&reason), "{bad}: {}", r.text);
    }
    let s = call(&app, Method::GET, &format!("/api/play/{sid}"), None).await.json();
    assert_eq!(s["fen"], fen, "a refused load changes nothing");
    let r =
        call(&app, Method::POST, "/api/play/check-fen", Some(json!({"fen": "  4k4/9/9/9/9/9/9/9/4R4/3K5 B  "}))).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    assert_eq!(r.json()["fen"], "4k4/9/9/9/9/9/9/9/4R4/3K5 b - - 0 1");
    let r = call(&app, Method::POST, &format!("/api/play/{sid}/load"), Some(json!({}))).await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST, "{}", r.text);
}

#[tokio::test]
async fn pgn_round_trips_and_readers_name_bad_moves() {
    let app = app();
    let sid = human_game(&app, None).await;
    let game = play_ok(&app, &sid, "h2e2 h9g7 h0g2 i9h9 i0h0 b9c7 b0c2 c6c5").await;
    let r = call(&app, Method::GET, &format!("/api/play/{sid}/pgn?notation=chinese"), None).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    assert!(r.headers[header::CONTENT_DISPOSITION].to_str().unwrap().starts_with("attachment"));
    assert!(r.text.contains("1. 炮二平五 马８进７"), "{}", r.text);
    assert!(r.text.contains("[Red \"Human\"]"), "{}", r.text);
    let other = human_game(&app, None).await;
    let r = call(&app, Method::POST, &format!("/api/play/{other}/load"), Some(json!({"pgn": r.text}))).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    let back = r.json();
    assert_eq!(ucis(&back), ucis(&game));
    assert_eq!(back["fen"], game["fen"]);
    for notation in ["wxf", "iccs"] {
        let text = call(&app, Method::GET, &format!("/api/play/{sid}/pgn?notation={notation}"), None).await.text;
        let r = call(&app, Method::POST, &format!("/api/play/{other}/load"), Some(json!({ "pgn": text }))).await;
        assert_eq!(ucis(&r.json()), ucis(&game), "{notation}");
    }
    let r = call(&app, Method::GET, &format!("/api/play/{sid}/pgn?notation=uci"), None).await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST, "{}", r.text);

    // Traditional characters and full-width digits, as Taiwanese and Hong Kong sources write.
    let traditional = "[Game \"Chinese Chess\"]\n\n１． 砲二平五 馬８進７\n２． 傌二進三 車９平８\n３． 俥一平二 *\n";
    let r = call(&app, Method::POST, &format!("/api/play/{other}/load"), Some(json!({ "pgn": traditional }))).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    assert_eq!(ucis(&r.json()), ["h2e2", "h9g7", "h0g2", "i9h9", "i0h0"]);

    let before = call(&app, Method::GET, &format!("/api/play/{other}"), None).await.json();
    let illegal = "1. 炮二平五 马８进７ 2. 马二进三 车９进３ *";
    let r = call(&app, Method::POST, &format!("/api/play/{other}/load"), Some(json!({ "pgn": illegal }))).await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY, "{}", r.text);
    assert!(r.error().starts_with("move 2... `车９进３` (Black): "), "{}", r.text);
    let after = call(&app, Method::GET, &format!("/api/play/{other}"), None).await.json();
    assert_eq!(before, after, "a refused PGN changes nothing");
}

#[tokio::test]
async fn perpetual_check_loses() {
    let app = app();
    let sid = human_game(&app, Some("R8/4k4/9/9/9/9/9/9/9/3K5 w - - 0 1")).await;
    let s = play_ok(&app, &sid, "a9a8 e8e9 a8a9 e9e8 a9a8 e8e9 a8a9").await;
    assert_eq!(s["result"], Value::Null);
    assert_eq!(s["check"], "e9");
    let s = play_ok(&app, &sid, "e9e8").await;
    assert_eq!(
        s["result"],
        json!({"result": "0-1", "reason": "perpetual_check", "text": "Red loses by perpetual check"})
    );
    assert_eq!(s["legal"], json!({}));
    let r = play(&app, &sid, "a8a9").await;
    assert_eq!(r.status, StatusCode::CONFLICT, "{}", r.text);
    assert!(r.error().contains("Red loses by perpetual check"), "{}", r.text);
    let pgn = call(&app, Method::GET, &format!("/api/play/{sid}/pgn?notation=wxf"), None).await.text;
    assert!(pgn.contains("[Result \"0-1\"]") && pgn.contains("[Termination \"perpetual_check\"]"), "{pgn}");
}

#[tokio::test]
async fn analysis_gives_score_and_line() {
    let app = app();
    let sid = human_game(&app, Some("4k4/R8/9/9/9/9/9/9/9/1R1K5 w - - 0 1")).await;
    let r = call(&app, Method::POST, &format!("/api/play/{sid}/analyse"), Some(json!({"movetime_ms": 200}))).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    let a = r.json();
    assert_eq!(a["pv"][0], "b0b9");
    assert_eq!(a["pv_wxf"][0], "R8+9");
    assert_eq!(a["mate"], 1);
    assert!(a["score"].as_i64().unwrap() > 20_000, "{a}");
    assert!(a["depth"].as_u64().unwrap() >= 1);
    let r = call(&app, Method::POST, &format!("/api/play/{sid}/analyse"), Some(json!({"movetime_ms": 999_999}))).await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST, "{}", r.text);
    assert!(r.error().starts_with("limit.movetime_ms: "), "{}", r.text);
}

#[tokio::test]
async fn the_session_and_hash_caps_give_503() {
    let app =
        app_with(PlayConfig { max_sessions: 3, session_hash_mib: 16, total_hash_mib: 16, ..PlayConfig::default() });
    human_game(&app, None).await;
    create(&app, json!({"red": {"human": true}, "black": {"engine": "xqengine"}})).await;
    // A second engine would take the hash over its cap.
    let r =
        call(&app, Method::POST, "/api/play", Some(json!({"red": {"human": true}, "black": {"engine": "xqengine"}})))
            .await;
    assert_eq!(r.status, StatusCode::SERVICE_UNAVAILABLE, "{}", r.text);
    assert!(r.error().contains("32 MiB"), "{}", r.text);
    human_game(&app, None).await;
    // Three sessions: the fourth is refused, even without an engine.
    let r =
        call(&app, Method::POST, "/api/play", Some(json!({"red": {"human": true}, "black": {"human": true}}))).await;
    assert_eq!(r.status, StatusCode::SERVICE_UNAVAILABLE, "{}", r.text);
    assert!(r.error().contains("at most 3"), "{}", r.text);
}

#[tokio::test]
async fn credentials_csrf_and_origin() {
    let app = app();
    let body = json!({"red": {"human": true}, "black": {"human": true}}).to_string();
    let json_ct = ("content-type", "application/json");
    let r = send_raw(&app, Method::POST, "/api/play", &[json_ct], Body::from(body.clone())).await;
    assert_eq!(r.status, StatusCode::UNAUTHORIZED, "{}", r.text);

    let login = json!({ "token": TOKEN }).to_string();
    let r = send_raw(&app, Method::POST, "/api/login", &[json_ct], Body::from(login)).await;
    assert_eq!(r.status, StatusCode::NO_CONTENT, "{}", r.text);
    let set_cookie = r.headers[header::SET_COOKIE].to_str().unwrap();
    let cookie = set_cookie.split(';').next().unwrap().to_owned();
    let r = send_raw(&app, Method::GET, "/api/me", &[("cookie", &cookie)], Body::empty()).await;
    let csrf = r.json()["csrf"].as_str().unwrap().to_owned();

    let r = send_raw(&app, Method::POST, "/api/play", &[json_ct, ("cookie", &cookie)], Body::from(body.clone())).await;
    assert_eq!(r.status, StatusCode::FORBIDDEN, "{}", r.text);
    let with_csrf = [json_ct, ("cookie", cookie.as_str()), ("x-csrf-token", csrf.as_str())];
    let r = send_raw(&app, Method::POST, "/api/play", &with_csrf, Body::from(body.clone())).await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    let sid = r.json()["id"].as_str().unwrap().to_owned();
    // Reads need no CSRF token.
    let r = send_raw(&app, Method::GET, &format!("/api/play/{sid}"), &[("cookie", &cookie)], Body::empty()).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);

    let foreign = ("origin", "https://evil.test");
    let r = send_raw(
        &app,
        Method::POST,
        "/api/play",
        &[with_csrf[0], with_csrf[1], with_csrf[2], foreign],
        Body::from(body.clone()),
    )
    .await;
    assert_eq!(r.status, StatusCode::FORBIDDEN, "{}", r.text);
    let bearer = format!("Bearer {TOKEN}");
    let r =
        send_raw(&app, Method::POST, "/api/play", &[json_ct, ("authorization", &bearer), foreign], Body::from(body))
            .await;
    assert_eq!(r.status, StatusCode::FORBIDDEN, "{}", r.text);
    let r = send_raw(
        &app,
        Method::POST,
        &format!("/api/play/{sid}/move"),
        &[json_ct, ("cookie", &cookie)],
        Body::from(r#"{"move":"h2e2"}"#),
    )
    .await;
    assert_eq!(r.status, StatusCode::FORBIDDEN, "{}", r.text);
}

#[tokio::test]
async fn oversized_bodies_get_413() {
    let app = app();
    let sid = human_game(&app, None).await;
    let bearer = format!("Bearer {TOKEN}");
    let headers = [("content-type", "application/json"), ("authorization", bearer.as_str())];
    let big_move = json!({ "move": "x".repeat(100 << 10) }).to_string();
    let r = send_raw(&app, Method::POST, &format!("/api/play/{sid}/move"), &headers, Body::from(big_move)).await;
    assert_eq!(r.status, StatusCode::PAYLOAD_TOO_LARGE, "{}", &r.text[..r.text.len().min(200)]);
    // A PGN may be up to 1 MiB: a long commented one loads, a bigger one does not.
    let long_pgn = format!("{{{}}} 1. C2.5 *", "a".repeat(200 << 10));
    let r = send_raw(
        &app,
        Method::POST,
        &format!("/api/play/{sid}/load"),
        &headers,
        Body::from(json!({ "pgn": long_pgn }).to_string()),
    )
    .await;
    assert_eq!(r.status, StatusCode::OK, "{}", &r.text[..r.text.len().min(200)]);
    let huge_pgn = format!("{{{}}} 1. C2.5 *", "a".repeat(2 << 20));
    let r = send_raw(
        &app,
        Method::POST,
        &format!("/api/play/{sid}/load"),
        &headers,
        Body::from(json!({ "pgn": huge_pgn }).to_string()),
    )
    .await;
    assert_eq!(r.status, StatusCode::PAYLOAD_TOO_LARGE, "{}", &r.text[..r.text.len().min(200)]);
}

#[tokio::test]
async fn the_books_moves_are_listed_where_it_has_them() {
    use engine::book::BookBuilder;
    use engine::rules::GameResult;
    let line = |text: &str| text.split_whitespace().map(|m| parse_uci(m).unwrap()).collect::<Vec<_>>();
    let mut b = BookBuilder::new(4);
    for _ in 0..3 {
        b.add_game(&Position::startpos(), &line("h2e2 h9g7 h0g2"), GameResult::RedWins).unwrap();
    }
    b.add_game(&Position::startpos(), &line("g3g4"), GameResult::Draw).unwrap();
    let app = app_with(PlayConfig { book: Some(Arc::new(b.finish(1))), ..PlayConfig::default() });
    let s = create(&app, json!({"red": {"human": true}, "black": {"human": true}})).await;
    let sid = s["id"].as_str().unwrap().to_owned();
    let book = s["book"].as_array().unwrap();
    assert_eq!(book.len(), 2, "{s}");
    // Most played first; the central cannon may be stored on either wing.
    assert!(["h2e2", "b2e2"].contains(&book[0]["uci"].as_str().unwrap()), "{s}");
    assert_eq!(
        (&book[0]["games"], &book[0]["score"], &book[0]["wxf"]),
        (&json!(3), &json!(1.0), &json!(if book[0]["uci"] == "h2e2" { "C2.5" } else { "C8.5" }))
    );
    assert!(["g3g4", "c3c4"].contains(&book[1]["uci"].as_str().unwrap()), "{s}");
    assert_eq!((&book[1]["games"], &book[1]["score"]), (&json!(1), &json!(0.5)));
    // After h2e2 the book answers h9g7 (or its image); out of the book it lists nothing.
    let after = play_ok(&app, &sid, "h2e2").await;
    assert_eq!(after["book"].as_array().unwrap().len(), 1, "{after}");
    let out = play_ok(&app, &sid, "a9a8").await;
    assert!(out["book"].as_array().unwrap().is_empty(), "{out}");
    // Without a book the list is empty.
    let plain =
        create(&app_with(PlayConfig::default()), json!({"red": {"human": true}, "black": {"human": true}})).await;
    assert!(plain["book"].as_array().unwrap().is_empty());
}
