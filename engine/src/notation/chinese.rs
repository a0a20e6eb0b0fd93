//! Chinese notation (placeholder until written).
use crate::position::Position;
use crate::types::Move;
pub fn write(_pos: &Position, m: Move) -> String { m.to_string() }
pub fn parse(_pos: &Position, _text: &str) -> Result<Move, String> { Err("Chinese not yet supported".into()) }
