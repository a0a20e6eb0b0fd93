//! The `/api/play` routes: thin handlers over [`super::PlayService`]. Reads need
//! [`Reader`], every POST and DELETE [`Player`] (the read role plus the CSRF checks).

use axum::Json;
use axum::body::Bytes;
use axum::extract::rejection::{BytesRejection, JsonRejection};
use axum::extract::{DefaultBodyLimit, Path, Query, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use engine::notation::Notation;
use serde::de::DeserializeOwned;

use super::limit::LimitSpec;
use super::{CreateRequest, LoadRequest};
use crate::auth::{Player, Reader};
use crate::error::{ApiError, ApiResult};
use crate::state::AppState;

/// The most a play request's body may be, but for `/load` (a PGN: the router's 1 MiB).
pub const MAX_SMALL_BODY: usize = 64 << 10;

pub fn routes() -> axum::Router<AppState> {
    let small = || DefaultBodyLimit::max(MAX_SMALL_BODY);
    axum::Router::new()
        .route("/api/play/engines", get(engines))
        .route("/api/play", post(create).layer(small()))
        .route("/api/play/check-fen", post(check_fen).layer(small()))
        .route("/api/play/{sid}", get(state).delete(close))
        .route("/api/play/{sid}/move", post(play_move).layer(small()))
        .route("/api/play/{sid}/reply", post(reply).layer(small()))
        .route("/api/play/{sid}/undo", post(undo).layer(small()))
        .route("/api/play/{sid}/redo", post(redo).layer(small()))
        .route("/api/play/{sid}/load", post(load))
        .route("/api/play/{sid}/pgn", get(pgn))
        .route("/api/play/{sid}/analyse", post(analyse).layer(small()))
}

/// A JSON body that may be absent (an empty body reads as `T::default()`).
fn optional_body<T: DeserializeOwned + Default>(body: Result<Bytes, BytesRejection>) -> ApiResult<T> {
    let bytes = body.map_err(|r| ApiError::new(r.status(), format!("request body: {}", r.body_text())))?;
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Ok(T::default());
    }
    serde_json::from_slice(&bytes).map_err(|e| ApiError::bad_request(format!("request body: {e}")))
}

type JsonBody<T> = Result<Json<T>, JsonRejection>;

async fn engines(_: Reader, State(state): State<AppState>) -> ApiResult<Response> {
    let engines = state.play.engine_list()?;
    Ok(Json(serde_json::json!({ "engines": engines })).into_response())
}

async fn create(_: Player, State(state): State<AppState>, body: JsonBody<CreateRequest>) -> ApiResult<Response> {
    let Json(req) = body?;
    let play = state.play.create(req).await?;
    Ok((StatusCode::CREATED, Json(play)).into_response())
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct FenBody {
    fen: String,
}

async fn check_fen(_: Player, body: JsonBody<FenBody>) -> ApiResult<Response> {
    let Json(FenBody { fen }) = body?;
    Ok(Json(serde_json::json!({ "fen": super::check_fen(&fen)? })).into_response())
}

async fn state(_: Reader, State(state): State<AppState>, Path(sid): Path<String>) -> ApiResult<Response> {
    Ok(Json(state.play.state(&sid)?).into_response())
}

async fn close(_: Player, State(state): State<AppState>, Path(sid): Path<String>) -> ApiResult<Response> {
    state.play.close(&sid)?;
    Ok(StatusCode::NO_CONTENT.into_response())
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct MoveBody {
    #[serde(rename = "move")]
    mv: String,
}

async fn play_move(
    _: Player,
    State(state): State<AppState>,
    Path(sid): Path<String>,
    body: JsonBody<MoveBody>,
) -> ApiResult<Response> {
    let Json(MoveBody { mv }) = body?;
    Ok(Json(state.play.play_move(&sid, &mv)?).into_response())
}

async fn reply(_: Player, State(state): State<AppState>, Path(sid): Path<String>) -> ApiResult<Response> {
    Ok(Json(state.play.reply(&sid).await?).into_response())
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct CountBody {
    #[serde(default = "one")]
    count: usize,
}

impl Default for CountBody {
    fn default() -> CountBody {
        CountBody { count: 1 }
    }
}

fn one() -> usize {
    1
}

/// Undo and redo take at most this many moves at once (more than any game has).
const MAX_COUNT: usize = 10_000;

fn count(body: Result<Bytes, BytesRejection>) -> ApiResult<usize> {
    let CountBody { count } = optional_body(body)?;
    if (1..=MAX_COUNT).contains(&count) {
        Ok(count)
    } else {
        Err(ApiError::bad_request(format!("count: {count} is outside 1..={MAX_COUNT}")))
    }
}

async fn undo(
    _: Player,
    State(state): State<AppState>,
    Path(sid): Path<String>,
    body: Result<Bytes, BytesRejection>,
) -> ApiResult<Response> {
    let n = count(body)?;
    Ok(Json(state.play.undo(&sid, n)?).into_response())
}

async fn redo(
    _: Player,
    State(state): State<AppState>,
    Path(sid): Path<String>,
    body: Result<Bytes, BytesRejection>,
) -> ApiResult<Response> {
    let n = count(body)?;
    Ok(Json(state.play.redo(&sid, n)?).into_response())
}

async fn load(
    _: Player,
    State(state): State<AppState>,
    Path(sid): Path<String>,
    body: JsonBody<LoadRequest>,
) -> ApiResult<Response> {
    let Json(req) = body?;
    Ok(Json(state.play.load(&sid, &req)?).into_response())
}

#[derive(serde::Deserialize)]
struct PgnQuery {
    notation: Option<String>,
}

async fn pgn(
    _: Reader,
    State(state): State<AppState>,
    Path(sid): Path<String>,
    query: Result<Query<PgnQuery>, axum::extract::rejection::QueryRejection>,
) -> ApiResult<Response> {
    let Query(q) = query?;
    let notation = match q.notation.as_deref() {
        None => Notation::Chinese,
        Some(n) => match n.parse::<Notation>() {
            Ok(Notation::Uci) | Err(_) => {
                return Err(ApiError::bad_request(format!("notation: `{n}` is not one of chinese, wxf or iccs")));
            }
            Ok(n) => n,
        },
    };
    let text = state.play.pgn(&sid, notation)?;
    Ok((
        [
            (header::CONTENT_TYPE, "application/x-chess-pgn; charset=utf-8"),
            (header::CONTENT_DISPOSITION, "attachment; filename=\"xqfarm-play.pgn\""),
        ],
        text,
    )
        .into_response())
}

async fn analyse(
    _: Player,
    State(state): State<AppState>,
    Path(sid): Path<String>,
    body: Result<Bytes, BytesRejection>,
) -> ApiResult<Response> {
    let spec: LimitSpec = optional_body(body)?;
    Ok(Json(state.play.analyse(&sid, spec).await?).into_response())
}
