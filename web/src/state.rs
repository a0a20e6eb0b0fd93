//! What every handler shares.

use std::sync::{Arc, Mutex};

use coordinator::farm::Farm;
use worker::engines::EngineSet;

use crate::api::rows::Names;
use crate::auth::Auth;
use crate::events::Events;
use crate::play::{PlayConfig, PlayService};

/// How `xqfarm serve` configures the web application.
#[derive(Debug)]
pub struct WebConfig {
    /// The farm's tokens and roles (the same as gRPC's).
    pub access: proto::auth::Access,
    /// Read-only pages need no token (`serve --public`); writes still need the user role.
    pub public: bool,
    /// A secret for the signed-in URL (`/login?key=...`) that `loop` and `local` print: it
    /// signs the browser in with every role. `None`: no such URL.
    pub login_key: Option<String>,
    /// External engines the play page may start (`serve --engine NAME=PATH`).
    pub engines: EngineSet,
    pub play: PlayConfig,
}

/// The state of the web application.
#[derive(Clone, Debug)]
pub struct AppState {
    pub farm: Arc<Farm>,
    pub auth: Arc<Auth>,
    pub play: Arc<PlayService>,
    pub events: Arc<Events>,
    pub engines: Arc<EngineSet>,
    /// Variant names by id, for every page and the event stream.
    pub names: Arc<Mutex<Names>>,
}

impl AppState {
    /// Must be called inside a Tokio runtime (the event publisher is spawned on it).
    pub fn new(farm: Arc<Farm>, config: WebConfig) -> AppState {
        let engines = Arc::new(config.engines);
        let auth = Arc::new(Auth::new(config.access, config.public, config.login_key));
        let play = Arc::new(PlayService::new(config.play, Arc::clone(&farm), Arc::clone(&engines)));
        let names = Arc::new(Mutex::new(Names::default()));
        let events = Arc::new(Events::start(Arc::clone(&farm), Arc::clone(&names)));
        AppState { farm, auth, play, events, engines, names }
    }
}
