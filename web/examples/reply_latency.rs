//! The play page's reply latency against its budget: for move times of 100 and 300 ms, the
//! built-in engine replies `ROUNDS` times through the router (the same path a browser takes:
//! auth, the session, the pool's permit, the search on a blocking thread, the JSON state) and
//! the reply latencies are printed beside the budget. The contract: within budget + 50 ms.
//!
//! `cargo run --release --example reply_latency -p web` (or from the workspace:
//! `cargo run --release --example reply_latency`); `ROUNDS` via the first argument.

use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::body::Body;
use axum::http::{Method, Request, StatusCode, header};
use coordinator::farm::Farm;
use coordinator::{MemoryStorage, SystemClock};
use serde_json::{Value, json};
use tower::ServiceExt as _;
use web::play::PlayConfig;
use web::{AppState, WebConfig};

async fn call(router: &axum::Router, method: Method, uri: &str, body: Option<Value>) -> (StatusCode, Value) {
    let req = Request::builder()
        .method(method)
        .uri(uri)
        .header(header::AUTHORIZATION, "Bearer t")
        .header(header::CONTENT_TYPE, "application/json")
        .body(body.map_or_else(Body::empty, |b| Body::from(b.to_string())))
        .expect("request");
    let res = router.clone().oneshot(req).await.expect("router");
    let status = res.status();
    let bytes = axum::body::to_bytes(res.into_body(), usize::MAX).await.expect("body");
    (status, serde_json::from_slice(&bytes).unwrap_or(Value::Null))
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

#[tokio::main]
async fn main() {
    let rounds: usize = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(10);
    let farm = Arc::new(Farm::new(Arc::new(MemoryStorage::new()), Arc::new(SystemClock), None).expect("farm"));
    let config = WebConfig {
        access: proto::auth::Access::single_token("t"),
        public: false,
        login_key: None,
        engines: worker::engines::EngineSet::empty(),
        play: PlayConfig::default(),
    };
    let router = web::router(AppState::new(farm, config));
    println!("budget_ms replies  min_ms  median_ms  p90_ms  max_ms  over_budget+50ms");
    for budget_ms in [100u64, 300] {
        let mut took_all = Vec::with_capacity(rounds);
        let mut late = 0;
        for _ in 0..rounds {
            // Engine against engine from the start, one reply each: a fresh game every round.
            let side = json!({"engine": "xqengine", "limit": {"movetime_ms": budget_ms}});
            let (status, state) =
                call(&router, Method::POST, "/api/play", Some(json!({"red": side, "black": side}))).await;
            assert_eq!(status, StatusCode::CREATED, "{state}");
            let sid = state["id"].as_str().expect("id").to_owned();
            for _ in 0..2 {
                let started = Instant::now();
                let (status, state) = call(&router, Method::POST, &format!("/api/play/{sid}/reply"), None).await;
                let took = started.elapsed();
                assert_eq!(status, StatusCode::OK, "{state}");
                took_all.push(took);
                late += usize::from(took > Duration::from_millis(budget_ms + 50));
            }
            call(&router, Method::DELETE, &format!("/api/play/{sid}"), None).await;
        }
        took_all.sort();
        let ms = |d: Duration| d.as_secs_f64() * 1000.0;
        println!(
            "{budget_ms:>9} {:>7}  {:>6.1}  {:>9.1}  {:>6.1}  {:>6.1}  {late:>16}",
            took_all.len(),
            ms(took_all[0]),
            ms(percentile(&took_all, 0.5)),
            ms(percentile(&took_all, 0.9)),
            ms(took_all[took_all.len() - 1])
        );
    }
}
