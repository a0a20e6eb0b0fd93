//! The engines the play page offers: the built-in engine with its default parameters, every
//! variant stored in the farm with in-process parameters (always available), and every stored
//! external variant, available only when `serve --engine` gave its engine.

use std::sync::Arc;

use coordinator::farm::Farm;
use engine::ParamSet;
use engine::nnue::Network;
use proto::domain::{Variant, VariantId, VariantKind};
use worker::engines::EngineSet;
use worker::external::EngineCommand;

use super::error::{PlayError, PlayResult};

/// The id of the built-in engine with its default parameters.
pub const BUILTIN_ID: &str = "xqengine";

/// One row of `GET /api/play/engines`.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct EngineEntry {
    pub id: String,
    pub name: String,
    /// `in_process` or `external`.
    pub kind: &'static str,
    pub available: bool,
    pub why: Option<String>,
}

/// How to seat an engine: what a session starts its player from.
#[derive(Clone, Debug)]
pub enum Recipe {
    /// The built-in engine with a parameter set, and the network it names (read from the
    /// farm's store).
    InProcess(Box<ParamSet>, Option<Arc<Network>>),
    External(EngineCommand),
}

/// An engine the page asked for, resolved.
#[derive(Clone, Debug)]
pub struct Resolved {
    pub id: String,
    pub name: String,
    pub recipe: Recipe,
}

/// The farm's stored variants.
fn stored_variants(farm: &Farm) -> PlayResult<Vec<Variant>> {
    farm.storage().list_variants().map_err(|e| PlayError::Internal(format!("listing variants: {e}")))
}

/// What the allow-list says of a variant: `None` if it can be played, else why not.
fn unavailable_because(variant: &Variant, engines: &EngineSet) -> Option<String> {
    match &variant.spec.kind {
        VariantKind::Params { toml } => {
            ParamSet::from_toml_str(toml).err().map(|e| format!("its parameters do not load: {e}"))
        }
        VariantKind::External { .. } => engines.command(variant).err().map(|e| e.to_string()),
    }
}

fn entry(variant: &Variant, engines: &EngineSet) -> EngineEntry {
    let why = unavailable_because(variant, engines);
    let kind = match variant.spec.kind {
        VariantKind::Params { .. } => "in_process",
        VariantKind::External { .. } => "external",
    };
    EngineEntry {
        id: variant.id.as_str().to_owned(),
        name: variant.spec.name.clone(),
        kind,
        available: why.is_none(),
        why,
    }
}

/// Every engine the page may offer, the built-in one first.
pub fn list(farm: &Farm, engines: &EngineSet) -> PlayResult<Vec<EngineEntry>> {
    let mut out = vec![EngineEntry {
        id: BUILTIN_ID.to_owned(),
        name: "xqengine (default parameters)".to_owned(),
        kind: "in_process",
        available: true,
        why: None,
    }];
    out.extend(stored_variants(farm)?.iter().map(|v| entry(v, engines)));
    Ok(out)
}

/// The engine `id` (the built-in one or a stored variant), ready to seat; `field` names the
/// request's field in errors.
pub fn resolve(farm: &Farm, engines: &EngineSet, id: &str, field: &str) -> PlayResult<Resolved> {
    if id == BUILTIN_ID {
        return Ok(Resolved {
            id: id.to_owned(),
            name: "xqengine".to_owned(),
            recipe: Recipe::InProcess(Box::default(), None),
        });
    }
    let bad = |reason: String| PlayError::BadField { field: field.to_owned(), reason };
    let variant = farm.storage().get_variant(&VariantId::new(id)).map_err(|e| match e {
        coordinator::Error::VariantNotFound(_) => bad(format!("no engine `{id}` (GET /api/play/engines lists them)")),
        other => PlayError::Internal(other.to_string()),
    })?;
    let recipe = match &variant.spec.kind {
        VariantKind::Params { toml } => {
            let params =
                ParamSet::from_toml_str(toml).map_err(|e| bad(format!("the parameters of `{id}` do not load: {e}")))?;
            let network = match params.eval_spec.network() {
                None => None,
                Some(net) => {
                    let bytes = farm.get_network(net).map_err(|e| bad(format!("`{id}` plays network {net}: {e}")))?;
                    let network = Network::from_bytes(&bytes)
                        .map_err(|e| PlayError::Internal(format!("stored network {net} does not load: {e}")))?;
                    Some(Arc::new(network))
                }
            };
            Recipe::InProcess(Box::new(params), network)
        }
        VariantKind::External { .. } => match engines.command(&variant) {
            Ok(Some(command)) => Recipe::External(command),
            Ok(None) => return Err(PlayError::Internal(format!("variant `{id}` is external but has no command"))),
            Err(e) => return Err(bad(format!("`{id}` is not available here: {e}"))),
        },
    };
    Ok(Resolved { id: id.to_owned(), name: variant.spec.name, recipe })
}
