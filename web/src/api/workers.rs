//! `/api/workers`: the workers the farm has seen, with their speeds (with the HCE and with a
//! network) and SIMD level, engines, leases and pace.

use axum::Json;
use axum::extract::State;
use axum::routing::get;
use engine::nnue::SimdLevel;
use serde_json::{Value, json};

use super::blocking;
use crate::auth::Reader;
use crate::error::ApiResult;
use crate::state::AppState;

pub fn routes() -> axum::Router<AppState> {
    axum::Router::new().route("/api/workers", get(list))
}

async fn list(_: Reader, State(state): State<AppState>) -> ApiResult<Json<Value>> {
    blocking(move || {
        let workers: Vec<Value> = state
            .farm
            .storage()
            .list_workers(state.farm.now_ms())?
            .iter()
            .map(|w| {
                json!({
                    "id": w.id.get(), "name": w.name, "host": w.host, "cores": w.cores, "bench_nps": w.bench_nps,
                    "simd": w.simd.map(SimdLevel::as_str), "nnue_bench_nps": w.nnue_bench_nps,
                    "engines": w.engines.iter().map(|e| e.name.clone()).collect::<Vec<_>>(),
                    "last_seen_ms": w.last_seen_ms, "leases_held": w.leases_held,
                    "games_per_minute": w.games_last_10_min as f64 / 10.0,
                })
            })
            .collect();
        Ok(Json(json!({ "workers": workers })))
    })
    .await
}
