//! Which evaluation the search calls: the hand-crafted one (the default, `eval`) or a
//! network (`nnue`). The engine holds one ([`EvalKind`]); the search builds its accumulator
//! stack from it. A parameter set names one ([`EvalSpec`]): `hce`, or a network by its SHA-256,
//! which whoever runs the set (a worker, from its cache) turns into an [`EvalKind`].

use std::fmt;
use std::str::FromStr;
use std::sync::Arc;

use crate::eval::Params;
use crate::nnue::{Network, NetworkId};
use crate::position::Position;

/// The evaluation the search uses.
#[derive(Clone, Debug, Default)]
pub enum EvalKind {
    /// The hand-crafted evaluation with the engine's `Params`.
    #[default]
    Hce,
    /// A network, updated incrementally along the search's path.
    Nnue(Arc<Network>),
}

impl EvalKind {
    /// The `Eval` option's value: `hce` or `nnue`.
    pub const fn name(&self) -> &'static str {
        match self {
            EvalKind::Hce => "hce",
            EvalKind::Nnue(_) => "nnue",
        }
    }

    /// The static evaluation of `pos` from scratch, in centipawns from the side to move's
    /// view (the `eval` command; the search updates a network incrementally instead).
    pub fn evaluate(&self, pos: &Position, params: &Params) -> i32 {
        match self {
            EvalKind::Hce => crate::eval::evaluate(pos, params),
            EvalKind::Nnue(net) => crate::nnue::evaluate(net, pos),
        }
    }
}

/// The evaluation a parameter set names: its `eval` key, `"hce"` (the default, also when the
/// key is absent) or `"nnue:<sha256>"`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum EvalSpec {
    #[default]
    Hce,
    Nnue(NetworkId),
}

impl EvalSpec {
    /// The network it names, if any.
    pub const fn network(&self) -> Option<NetworkId> {
        match self {
            EvalSpec::Hce => None,
            EvalSpec::Nnue(id) => Some(*id),
        }
    }
}

impl fmt::Display for EvalSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EvalSpec::Hce => f.write_str("hce"),
            EvalSpec::Nnue(id) => write!(f, "nnue:{id}"),
        }
    }
}

impl FromStr for EvalSpec {
    type Err = String;

    /// `hce` or `nnue:<sha256>`; the error says what was expected.
    fn from_str(text: &str) -> Result<EvalSpec, String> {
        if text == "hce" {
            return Ok(EvalSpec::Hce);
        }
        match text.strip_prefix("nnue:") {
            Some(hex) => hex.parse().map(EvalSpec::Nnue).map_err(|e| e.to_string()),
            None => Err(format!("`{text}` is neither `hce` nor `nnue:<sha256>`")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_read_and_print_back() {
        let hex = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff";
        let nnue: EvalSpec = format!("nnue:{hex}").parse().expect("a network");
        assert_eq!(nnue.network().map(|id| id.to_string()).as_deref(), Some(hex));
        assert_eq!(nnue.to_string(), format!("nnue:{hex}"));
        assert_eq!("hce".parse::<EvalSpec>(), Ok(EvalSpec::Hce));
        assert_eq!(EvalSpec::default().to_string(), "hce");
        assert_eq!("nnue".parse::<EvalSpec>(), Err("`nnue` is neither `hce` nor `nnue:<sha256>`".into()));
        assert!("nnue:abc".parse::<EvalSpec>().expect_err("short").contains("64 hex digits"));
        assert!("HCE".parse::<EvalSpec>().is_err());
    }
}
