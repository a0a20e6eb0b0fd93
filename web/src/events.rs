//! Live updates by server-sent events: one publisher turns the farm's changes into one JSON
//! text, which every open stream forwards (placeholder until the lead's API lands).

use std::sync::Arc;

use coordinator::farm::Farm;

/// The publisher of live updates.
#[derive(Debug)]
pub struct Events {
    _farm: Arc<Farm>,
}

impl Events {
    /// Starts the publisher on the current Tokio runtime.
    pub fn start(farm: Arc<Farm>) -> Events {
        Events { _farm: farm }
    }
}
