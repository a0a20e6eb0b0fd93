//! Who may see and change what, for the web: the farm's own tokens and roles. A browser signs
//! in once with its token (the login form, or the signed-in URL `loop` and `local` print) and
//! keeps a session cookie (`HttpOnly`, `SameSite=Strict`); scripts may send `Authorization:
//! Bearer <token>` instead. Every state-changing request of a cookie session is CSRF-checked:
//! its `Origin` (when sent) must be this server, and its `X-CSRF-Token` header the session's
//! token (given by `GET /api/me`), compared in constant time.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use axum::extract::{FromRequestParts, Query, State};
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use proto::auth::{Access, Grants, Role};
use subtle::ConstantTimeEq as _;

use crate::error::{ApiError, ApiResult};
use crate::state::AppState;

/// The session cookie's name.
pub const COOKIE: &str = "xqfarm_session";
/// The header a cookie session's writes carry their CSRF token in.
pub const CSRF_HEADER: &str = "x-csrf-token";
/// How long a session lasts.
const SESSION_TTL: Duration = Duration::from_secs(7 * 24 * 3600);
/// Sessions kept at most; signing in beyond it forgets expired ones, then the oldest.
const MAX_SESSIONS: usize = 10_000;

#[derive(Clone, Debug)]
struct Session {
    grants: Grants,
    csrf: String,
    created: Instant,
}

/// The tokens, the sessions signed in with them, and whether reading is public.
#[derive(Debug)]
pub struct Auth {
    access: Access,
    public: bool,
    login_key: Option<String>,
    sessions: Mutex<HashMap<String, Session>>,
}

/// What a request may do, from its cookie or bearer token.
#[derive(Clone, Debug)]
pub struct Credentials {
    /// The roles held; `None` for an anonymous reader of a public farm.
    pub grants: Option<Grants>,
    /// The cookie session's CSRF token; `None` for bearer calls (no CSRF risk) and anonymous ones.
    csrf: Option<String>,
    /// Whether the request came with a cookie session (so writes need the CSRF checks).
    cookie: bool,
}

impl Credentials {
    fn allows(&self, role: Role) -> bool {
        self.grants.is_some_and(|g| g.allows(role))
    }

    /// The role's name shown by `/api/me`.
    pub fn role_name(&self) -> Option<&'static str> {
        match self.grants {
            Some(g) if g.allows(Role::User) => Some(Role::User.as_str()),
            Some(g) if g.allows(Role::ReadOnly) => Some(Role::ReadOnly.as_str()),
            _ => None,
        }
    }
}

/// A fresh random token: 32 bytes from the OS, as hex.
pub fn random_hex() -> Result<String, ApiError> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).map_err(|e| ApiError::internal(format!("no randomness: {e}")))?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

fn ct_eq(a: &str, b: &str) -> bool {
    a.len() == b.len() && bool::from(a.as_bytes().ct_eq(b.as_bytes()))
}

impl Auth {
    pub fn new(access: Access, public: bool, login_key: Option<String>) -> Auth {
        Auth { access, public, login_key, sessions: Mutex::new(HashMap::new()) }
    }

    pub fn is_public(&self) -> bool {
        self.public
    }

    /// A new session holding `grants`; returns its id.
    fn open_session(&self, grants: Grants) -> ApiResult<String> {
        let id = random_hex()?;
        let csrf = random_hex()?;
        let mut sessions = self.sessions.lock().map_err(|_| ApiError::internal("session table poisoned"))?;
        if sessions.len() >= MAX_SESSIONS {
            sessions.retain(|_, s| s.created.elapsed() < SESSION_TTL);
            if sessions.len() >= MAX_SESSIONS
                && let Some(oldest) = sessions.iter().min_by_key(|(_, s)| s.created).map(|(k, _)| k.clone())
            {
                sessions.remove(&oldest);
            }
        }
        sessions.insert(id.clone(), Session { grants, csrf, created: Instant::now() });
        Ok(id)
    }

    fn session(&self, id: &str) -> Option<Session> {
        let sessions = self.sessions.lock().ok()?;
        sessions.get(id).filter(|s| s.created.elapsed() < SESSION_TTL).cloned()
    }

    fn close_session(&self, id: &str) {
        if let Ok(mut sessions) = self.sessions.lock() {
            sessions.remove(id);
        }
    }

    /// The request's credentials: a bearer token first, then the session cookie. An unknown
    /// bearer token is refused outright (401) rather than read as anonymous.
    pub fn credentials(&self, headers: &HeaderMap) -> ApiResult<Credentials> {
        if let Some(value) = headers.get(header::AUTHORIZATION) {
            let token = value
                .to_str()
                .ok()
                .and_then(|v| v.strip_prefix("Bearer "))
                .ok_or_else(|| ApiError::unauthorized("the Authorization header must be `Bearer <token>`"))?;
            let caller = self.access.identify(token).ok_or_else(|| ApiError::unauthorized("unknown farm token"))?;
            return Ok(Credentials { grants: Some(caller.grants), csrf: None, cookie: false });
        }
        if let Some(id) = session_cookie(headers)
            && let Some(s) = self.session(id)
        {
            return Ok(Credentials { grants: Some(s.grants), csrf: Some(s.csrf), cookie: true });
        }
        Ok(Credentials { grants: None, csrf: None, cookie: false })
    }

    /// Credentials that may read, or 401.
    fn reader(&self, headers: &HeaderMap) -> ApiResult<Credentials> {
        let c = self.credentials(headers)?;
        if c.allows(Role::ReadOnly) || self.public {
            Ok(c)
        } else if c.grants.is_some() {
            Err(ApiError::forbidden("this token does not hold the read-only role"))
        } else {
            Err(ApiError::unauthorized("sign in with a farm token (read-only role or better)"))
        }
    }
}

/// The session id in the request's cookies.
fn session_cookie(headers: &HeaderMap) -> Option<&str> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|kv| kv.trim().split_once('='))
        .find(|(k, _)| *k == COOKIE)
        .map(|(_, v)| v)
}

/// The CSRF checks of a state-changing request made with a cookie session.
fn check_csrf(credentials: &Credentials, headers: &HeaderMap) -> ApiResult<()> {
    if !credentials.cookie {
        return Ok(());
    }
    check_origin(headers)?;
    let sent = headers.get(CSRF_HEADER).and_then(|v| v.to_str().ok()).unwrap_or("");
    match &credentials.csrf {
        Some(expected) if !sent.is_empty() && ct_eq(sent, expected) => Ok(()),
        _ => Err(ApiError::forbidden(format!("missing or wrong {CSRF_HEADER} header (GET /api/me gives it)"))),
    }
}

/// A cross-site request carries an `Origin` that is not this server: refused.
fn check_origin(headers: &HeaderMap) -> ApiResult<()> {
    let Some(origin) = headers.get(header::ORIGIN) else { return Ok(()) };
    let origin = origin.to_str().unwrap_or("");
    let host = headers.get(header::HOST).and_then(|h| h.to_str().ok()).unwrap_or("");
    let origin_host = origin.split_once("://").map(|(_, rest)| rest).unwrap_or("");
    if !host.is_empty() && origin_host == host {
        Ok(())
    } else {
        Err(ApiError::forbidden(format!("cross-origin request from {origin} refused")))
    }
}

/// May read the farm's pages (read-only role, or anyone with `serve --public`).
#[derive(Clone, Debug)]
pub struct Reader(pub Credentials);

/// May change the farm (user role), CSRF-checked.
#[derive(Clone, Debug)]
pub struct Writer(pub Credentials);

/// May play on the play page (it changes no farm data, so the read role is enough), CSRF-checked.
#[derive(Clone, Debug)]
pub struct Player(pub Credentials);

impl FromRequestParts<AppState> for Reader {
    type Rejection = ApiError;
    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> ApiResult<Reader> {
        state.auth.reader(&parts.headers).map(Reader)
    }
}

impl FromRequestParts<AppState> for Player {
    type Rejection = ApiError;
    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> ApiResult<Player> {
        let c = state.auth.reader(&parts.headers)?;
        if c.cookie {
            check_csrf(&c, &parts.headers)?;
        } else {
            // Anonymous players of a public farm have no session: only the Origin check applies.
            check_origin(&parts.headers)?;
        }
        Ok(Player(c))
    }
}

impl FromRequestParts<AppState> for Writer {
    type Rejection = ApiError;
    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> ApiResult<Writer> {
        let c = state.auth.credentials(&parts.headers)?;
        if !c.allows(Role::User) {
            return Err(if c.grants.is_some() {
                ApiError::forbidden("this needs the user role; your token does not hold it")
            } else {
                ApiError::unauthorized("sign in with a farm token holding the user role")
            });
        }
        check_csrf(&c, &parts.headers)?;
        Ok(Writer(c))
    }
}

/// `/api/me`, `/api/login`, `/api/logout`, and `/login` (the page, or with `?key=` the
/// signed-in URL).
pub fn routes() -> axum::Router<AppState> {
    axum::Router::new()
        .route("/api/me", get(me))
        .route("/api/login", post(login))
        .route("/api/logout", post(logout))
        .route("/login", get(login_page))
}

async fn me(State(state): State<AppState>, headers: HeaderMap) -> ApiResult<Response> {
    let c = state.auth.credentials(&headers)?;
    let role = c.role_name().or(if state.auth.public { Some("public") } else { None });
    Ok(axum::Json(serde_json::json!({ "role": role, "csrf": c.csrf, "public": state.auth.public })).into_response())
}

#[derive(serde::Deserialize)]
struct LoginBody {
    token: String,
}

fn set_cookie(id: &str) -> ApiResult<HeaderValue> {
    let max_age = SESSION_TTL.as_secs();
    HeaderValue::from_str(&format!("{COOKIE}={id}; HttpOnly; SameSite=Strict; Path=/; Max-Age={max_age}"))
        .map_err(|e| ApiError::internal(e.to_string()))
}

async fn login(
    State(state): State<AppState>,
    headers: HeaderMap,
    body: Result<axum::Json<LoginBody>, axum::extract::rejection::JsonRejection>,
) -> ApiResult<Response> {
    check_origin(&headers)?;
    let axum::Json(body) = body?;
    let caller =
        state.auth.access.identify(body.token.trim()).ok_or_else(|| ApiError::unauthorized("unknown farm token"))?;
    let id = state.auth.open_session(caller.grants)?;
    Ok((StatusCode::NO_CONTENT, [(header::SET_COOKIE, set_cookie(&id)?)]).into_response())
}

async fn logout(State(state): State<AppState>, headers: HeaderMap) -> ApiResult<Response> {
    check_origin(&headers)?;
    if let Some(id) = session_cookie(&headers) {
        state.auth.close_session(id);
    }
    let expired = HeaderValue::from_static("xqfarm_session=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0");
    Ok((StatusCode::NO_CONTENT, [(header::SET_COOKIE, expired)]).into_response())
}

#[derive(serde::Deserialize)]
struct LoginQuery {
    key: Option<String>,
}

async fn login_page(State(state): State<AppState>, Query(q): Query<LoginQuery>) -> ApiResult<Response> {
    let Some(key) = q.key else { return Ok(crate::assets::shell().await) };
    match &state.auth.login_key {
        Some(expected) if ct_eq(&key, expected) => {
            let id = state.auth.open_session(Grants::ALL)?;
            Ok((
                StatusCode::SEE_OTHER,
                [(header::SET_COOKIE, set_cookie(&id)?), (header::LOCATION, HeaderValue::from_static("/"))],
            )
                .into_response())
        }
        _ => Err(ApiError::unauthorized("this sign-in link is not valid for this server")),
    }
}
