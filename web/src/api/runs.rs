//! `/api/runs...`: the runs list, one run's page, its games and PGN, stop and create; and the
//! variants and opening suites the create form offers.

use axum::Json;
use axum::extract::rejection::{JsonRejection, QueryRejection};
use axum::extract::{Path, Query, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use proto::domain::{EloModel, RunFilter, RunId, RunKind, RunKindName, RunRequest, RunStatus, SuiteId, VariantId};
use serde::Deserialize;
use serde_json::{Value, json};

use super::histogram::{length_bins, llr_history};
use super::rows::{RunRow, run_row, spec_json};
use super::{Paging, blocking, parse_id};
use crate::auth::{Reader, Writer};
use crate::error::{ApiError, ApiResult};
use crate::state::AppState;

pub fn routes() -> axum::Router<AppState> {
    axum::Router::new()
        .route("/api/runs", get(list).post(create))
        .route("/api/runs/{id}", get(show))
        .route("/api/runs/{id}/games", get(games))
        .route("/api/runs/{id}/pgn", get(pgn))
        .route("/api/runs/{id}/stop", post(stop))
        .route("/api/variants", get(variants))
        .route("/api/openings", get(openings))
}

/// The row of a status, naming variants from the shared cache.
pub fn row_of(state: &AppState, status: &RunStatus) -> RunRow {
    let storage = state.farm.storage();
    let mut names = state.names.lock().unwrap_or_else(|p| p.into_inner());
    run_row(status, |id| names.name(id, |id| storage.get_variant(id).ok()))
}

#[derive(Debug, Deserialize)]
struct ListQuery {
    state: Option<String>,
    #[serde(default)]
    offset: u64,
    #[serde(default = "fifty")]
    limit: u64,
}

fn fifty() -> u64 {
    50
}

async fn list(
    _: Reader,
    State(state): State<AppState>,
    q: Result<Query<ListQuery>, QueryRejection>,
) -> ApiResult<Json<Value>> {
    let Query(q) = q?;
    let (offset, limit) = Paging { offset: q.offset, limit: q.limit }.checked()?;
    let which = q.state.unwrap_or_else(|| "all".into());
    if !matches!(which.as_str(), "active" | "finished" | "all") {
        return Err(ApiError::bad_request(format!("state={which}: use active, finished or all")));
    }
    blocking(move || {
        let mut runs = state.farm.list_runs(&RunFilter { active_only: which == "active", limit: 0 })?;
        if which == "finished" {
            runs.retain(|s| s.run.state != proto::domain::RunState::Active);
        }
        let total = runs.len();
        let rows: Vec<RunRow> = runs.iter().skip(offset as usize).take(limit).map(|s| row_of(&state, s)).collect();
        Ok(Json(json!({ "total": total, "runs": rows })))
    })
    .await
}

fn run_id(text: &str) -> ApiResult<RunId> {
    parse_id("run", text)
}

/// The most points of one parameter's path the run page draws.
const SPSA_PATH_POINTS: usize = 200;

/// Each SPSA parameter's values by iteration, from the start (iteration 0) to the last
/// recorded point, thinned evenly to at most [`SPSA_PATH_POINTS`] (the first and last kept).
fn spsa_paths(settings: &proto::domain::SpsaSettings, history: &[coordinator::spsa::HistoryPoint]) -> Vec<Value> {
    let n = history.len();
    let picked: Vec<&coordinator::spsa::HistoryPoint> = if n <= SPSA_PATH_POINTS {
        history.iter().collect()
    } else {
        let mut idx: Vec<usize> = (0..SPSA_PATH_POINTS).map(|i| i * (n - 1) / (SPSA_PATH_POINTS - 1)).collect();
        idx.dedup();
        idx.into_iter().map(|i| &history[i]).collect()
    };
    settings
        .params
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let points: Vec<[f64; 2]> =
                picked.iter().filter_map(|h| h.theta.get(i).map(|&v| [h.iteration as f64, v])).collect();
            json!({ "name": p.name, "start": p.start, "min": p.min, "max": p.max, "points": points })
        })
        .collect()
}

async fn show(_: Reader, State(state): State<AppState>, Path(id): Path<String>) -> ApiResult<Json<Value>> {
    let id = run_id(&id)?;
    blocking(move || {
        let status = state.farm.get_run(id)?;
        let storage = state.farm.storage();
        let aggregates = storage.run_aggregates(id)?;
        let llr = match &status.run.spec.kind {
            RunKind::Sprt(settings) => llr_history(&storage.run_pair_sequence(id)?, settings),
            _ => Vec::new(),
        };
        let counts: Vec<[u64; 5]> = aggregates.workers.iter().map(|w| w.pentanomial).collect();
        let consistency = analysis::stats::worker_consistency(&counts, 0.001);
        let workers: Vec<Value> = aggregates
            .workers
            .iter()
            .zip(&consistency.workers)
            .map(|(w, c)| {
                json!({ "name": w.name, "pairs": w.pairs, "pentanomial": w.pentanomial,
                        "chi2_residual": c.statistic, "p_value": c.p_value, "flagged": c.flagged,
                        "last_seen_ms": w.last_seen_ms })
            })
            .collect();
        let terminations: Vec<Value> =
            aggregates.terminations.iter().map(|(t, n)| json!({ "reason": t.as_str(), "count": n })).collect();
        let spsa_paths = match &status.run.spec.kind {
            RunKind::Spsa(settings) => spsa_paths(settings, &storage.spsa_history(id)?),
            _ => Vec::new(),
        };
        Ok(Json(json!({
            "tournament": super::tournament::tournament_json(&status),
            "spsa_paths": spsa_paths,
            "run": row_of(&state, &status),
            "spec": spec_json(&status),
            "llr_history": llr,
            "terminations": terminations,
            "positions": aggregates.sampled_positions(status.run.spec.sample_every),
            "lengths": length_bins(&aggregates.lengths),
            "workers": workers,
        })))
    })
    .await
}

async fn games(
    _: Reader,
    State(state): State<AppState>,
    Path(id): Path<String>,
    q: Result<Query<Paging>, QueryRejection>,
) -> ApiResult<Json<Value>> {
    let id = run_id(&id)?;
    let Query(paging) = q?;
    let (offset, limit) = paging.checked()?;
    blocking(move || {
        let status = state.farm.get_run(id)?;
        let total: u64 = status.run.stats.iter().map(|s| s.games()).sum();
        let page = state.farm.storage().run_games_page(id, offset, limit)?;
        let storage = state.farm.storage();
        let mut names = state.names.lock().unwrap_or_else(|p| p.into_inner());
        let games: Vec<Value> = page
            .iter()
            .map(|g| {
                let mut name = |v: &VariantId| names.name(v, |v| storage.get_variant(v).ok());
                json!({ "id": g.game_id, "red": name(&g.red), "black": name(&g.black),
                        "result": g.outcome.as_str(), "reason": g.reason.as_str(),
                        "plies": g.plies, "worker": g.worker })
            })
            .collect();
        Ok(Json(json!({ "total": total, "offset": offset, "games": games })))
    })
    .await
}

/// Games read per storage call while writing a run's PGN.
const PGN_CHUNK: usize = 1_000;

async fn pgn(
    _: Reader,
    State(state): State<AppState>,
    Path(id): Path<String>,
    q: Result<Query<super::NotationQuery>, QueryRejection>,
) -> ApiResult<Response> {
    let id = run_id(&id)?;
    let Query(q) = q?;
    let notation = q.checked()?;
    let text = blocking(move || {
        let storage = state.farm.storage();
        let run = storage.get_run(id)?;
        let mut openings = coordinator::run_openings::RunOpenings::of_run(storage.as_ref(), &run)?;
        let draw = storage.tournament_draw(id)?;
        let mut headers = crate::pgn::EventRound::new(id.get(), &run.spec.name, draw.as_ref());
        let mut out = String::new();
        let mut after = 0;
        loop {
            let chunk = storage.games_since(id, after, PGN_CHUNK)?;
            let Some(last) = chunk.last() else { break };
            after = last.game_id;
            for g in &chunk {
                super::games::write_stored(&state, &mut out, g, &mut openings, &mut headers, notation)?;
            }
        }
        Ok(out)
    })
    .await?;
    let disposition = format!("attachment; filename=\"xqfarm-run-{id}.pgn\"");
    Ok((
        [
            (header::CONTENT_TYPE, "application/x-chess-pgn; charset=utf-8".to_string()),
            (header::CONTENT_DISPOSITION, disposition),
        ],
        text,
    )
        .into_response())
}

async fn stop(_: Writer, State(state): State<AppState>, Path(id): Path<String>) -> ApiResult<Json<RunRow>> {
    let id = run_id(&id)?;
    blocking(move || {
        let status = state.farm.stop_run(id)?;
        tracing::info!(run = %id, "run stopped from the web");
        Ok(Json(row_of(&state, &status)))
    })
    .await
}

/// The create-run form: the fields of `xqfarm run create`, with its defaults.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct CreateBody {
    name: Option<String>,
    kind: Option<String>,
    variants: Vec<String>,
    suite: u64,
    tc: Option<String>,
    pairs: Option<u64>,
    elo0: Option<f64>,
    elo1: Option<f64>,
    alpha: Option<f64>,
    beta: Option<f64>,
    model: Option<String>,
    bench_signature: Option<u64>,
    sample_every: Option<u32>,
    random_plies: Option<u32>,
}

impl CreateBody {
    /// The request `xqfarm run create` would have made; closed sets are parsed by their one
    /// vocabulary, so a bad value is named as the CLI names it.
    fn request(self) -> ApiResult<RunRequest> {
        let bad = |e: proto::Error| ApiError::bad_request(e.to_string());
        let mut r = RunRequest::new(self.variants.into_iter().map(VariantId::from).collect(), SuiteId::new(self.suite));
        if let Some(name) = self.name {
            r.name = name;
        }
        if let Some(kind) = self.kind {
            r.kind = kind.parse::<RunKindName>().map_err(bad)?;
        }
        if let Some(model) = self.model {
            r.model = model.parse::<EloModel>().map_err(bad)?;
        }
        r.tc = self.tc.or(r.tc);
        r.pairs = self.pairs.unwrap_or(r.pairs);
        r.elo0 = self.elo0.unwrap_or(r.elo0);
        r.elo1 = self.elo1.unwrap_or(r.elo1);
        r.alpha = self.alpha.unwrap_or(r.alpha);
        r.beta = self.beta.unwrap_or(r.beta);
        r.bench_signature = self.bench_signature.or(r.bench_signature);
        r.sample_every = self.sample_every.or(r.sample_every);
        r.random_plies = self.random_plies.or(r.random_plies);
        Ok(r)
    }
}

async fn create(
    _: Writer,
    State(state): State<AppState>,
    body: Result<Json<CreateBody>, JsonRejection>,
) -> ApiResult<(StatusCode, Json<RunRow>)> {
    let Json(body) = body?;
    let spec = body.request()?.to_spec().map_err(ApiError::bad_request)?;
    blocking(move || {
        let run = state.farm.create_run(&spec)?;
        tracing::info!(run = %run.id, name = %run.spec.name, "run created from the web");
        let status = state.farm.get_run(run.id)?;
        Ok((StatusCode::CREATED, Json(row_of(&state, &status))))
    })
    .await
}

async fn variants(_: Reader, State(state): State<AppState>) -> ApiResult<Json<Value>> {
    blocking(move || {
        let list: Vec<Value> = state
            .farm
            .storage()
            .list_variants()?
            .iter()
            .map(|v| {
                let kind = match &v.spec.kind {
                    proto::domain::VariantKind::Params { .. } => json!({ "in_process": true }),
                    proto::domain::VariantKind::External { engine, protocol, .. } => {
                        json!({ "engine": engine, "protocol": protocol.as_str() })
                    }
                };
                json!({ "id": v.id.to_string(), "name": v.spec.name, "kind": kind })
            })
            .collect();
        Ok(Json(json!({ "variants": list })))
    })
    .await
}

async fn openings(_: Reader, State(state): State<AppState>) -> ApiResult<Json<Value>> {
    blocking(move || {
        let list: Vec<Value> = state
            .farm
            .storage()
            .list_suites()?
            .iter()
            .map(|s| json!({ "id": s.id.get(), "name": s.name, "openings": s.openings }))
            .collect();
        Ok(Json(json!({ "openings": list })))
    })
    .await
}
