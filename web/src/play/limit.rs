//! How long an engine may think on the play page: one of nodes, depth or time per move, each
//! bounded, turned into the engine's own [`engine::Limits`] and the wall-clock budget of the
//! reply (which includes the wait for a place on the pool).

use std::time::Duration;

use super::error::{PlayError, PlayResult};

/// The most nodes a move may search.
pub const MAX_NODES: u64 = 5_000_000;
/// The deepest a move may search.
pub const MAX_DEPTH: u32 = 30;

/// A limit as the API writes it: exactly one of the three fields.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
pub struct LimitSpec {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nodes: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub depth: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub movetime_ms: Option<u64>,
}

/// A checked limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Limit {
    Nodes(u64),
    Depth(u32),
    MoveTime(Duration),
}

impl LimitSpec {
    /// The checked limit; `field` names this limit in errors (`red.limit`). With none of the
    /// fields set, `default` applies (an error if there is none).
    pub fn check(&self, field: &str, max_movetime_ms: u64, default: Option<Limit>) -> PlayResult<Limit> {
        let bad = |name: &str, reason: String| PlayError::BadField { field: format!("{field}.{name}"), reason };
        match (self.nodes, self.depth, self.movetime_ms) {
            (None, None, None) => default.ok_or_else(|| PlayError::BadField {
                field: field.to_owned(),
                reason: "give one of nodes, depth or movetime_ms".into(),
            }),
            (Some(n), None, None) if (1..=MAX_NODES).contains(&n) => Ok(Limit::Nodes(n)),
            (Some(n), None, None) => Err(bad("nodes", format!("{n} is outside 1..={MAX_NODES}"))),
            (None, Some(d), None) if (1..=MAX_DEPTH).contains(&d) => Ok(Limit::Depth(d)),
            (None, Some(d), None) => Err(bad("depth", format!("{d} is outside 1..={MAX_DEPTH}"))),
            (None, None, Some(ms)) if (1..=max_movetime_ms).contains(&ms) => {
                Ok(Limit::MoveTime(Duration::from_millis(ms)))
            }
            (None, None, Some(ms)) => Err(bad("movetime_ms", format!("{ms} is outside 1..={max_movetime_ms}"))),
            _ => Err(PlayError::BadField {
                field: field.to_owned(),
                reason: "give only one of nodes, depth or movetime_ms".into(),
            }),
        }
    }
}

impl Limit {
    pub fn spec(self) -> LimitSpec {
        match self {
            Limit::Nodes(n) => LimitSpec { nodes: Some(n), ..LimitSpec::default() },
            Limit::Depth(d) => LimitSpec { depth: Some(d), ..LimitSpec::default() },
            Limit::MoveTime(t) => LimitSpec {
                movetime_ms: Some(u64::try_from(t.as_millis()).unwrap_or(u64::MAX)),
                ..LimitSpec::default()
            },
        }
    }

    /// The wall-clock budget of a reply under this limit: the move time itself, or for node
    /// and depth limits the longest move time allowed (they also stop there).
    pub fn budget(self, max_movetime: Duration) -> Duration {
        match self {
            Limit::MoveTime(t) => t,
            Limit::Nodes(_) | Limit::Depth(_) => max_movetime,
        }
    }

    /// The engine's limits for a search that may take `remaining` of wall-clock time.
    pub fn engine_limits(self, remaining: Duration) -> engine::Limits {
        let mut limits = match self {
            Limit::Nodes(n) => engine::Limits::nodes(n),
            Limit::Depth(d) => engine::Limits::depth(d),
            Limit::MoveTime(_) => engine::Limits::default(),
        };
        limits.movetime = Some(remaining.max(Duration::from_millis(1)));
        limits
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // in tests a panic is the failure report
mod tests {
    use super::*;

    fn spec(json: &str) -> LimitSpec {
        serde_json::from_str(json).unwrap()
    }

    #[test]
    fn checks_each_field_by_name() {
        assert_eq!(spec(r#"{"nodes": 1000}"#).check("red.limit", 10_000, None), Ok(Limit::Nodes(1000)));
        assert_eq!(spec(r#"{"depth": 30}"#).check("red.limit", 10_000, None), Ok(Limit::Depth(30)));
        let err = spec(r#"{"nodes": 5000001}"#).check("red.limit", 10_000, None).unwrap_err();
        assert!(err.to_string().starts_with("red.limit.nodes: "), "{err}");
        let err = spec(r#"{"depth": 31}"#).check("black.limit", 10_000, None).unwrap_err();
        assert!(err.to_string().starts_with("black.limit.depth: "), "{err}");
        let err = spec(r#"{"movetime_ms": 10001}"#).check("limit", 10_000, None).unwrap_err();
        assert!(err.to_string().starts_with("limit.movetime_ms: "), "{err}");
        assert!(spec(r#"{"movetime_ms": 0}"#).check("limit", 10_000, None).is_err());
        assert!(spec(r#"{"nodes": 1, "depth": 2}"#).check("limit", 10_000, None).is_err());
        assert!(spec("{}").check("limit", 10_000, None).is_err());
        assert_eq!(spec("{}").check("limit", 10_000, Some(Limit::Depth(3))), Ok(Limit::Depth(3)));
        assert!(serde_json::from_str::<LimitSpec>(r#"{"time": 5}"#).is_err());
    }

    #[test]
    fn node_and_depth_searches_stop_at_the_longest_move_time() {
        let max = Duration::from_secs(10);
        assert_eq!(Limit::Depth(5).budget(max), max);
        assert_eq!(Limit::MoveTime(Duration::from_millis(300)).budget(max), Duration::from_millis(300));
        let limits = Limit::Nodes(100).engine_limits(Duration::from_millis(250));
        assert_eq!((limits.nodes, limits.movetime), (Some(100), Some(Duration::from_millis(250))));
        assert_eq!(Limit::spec(Limit::Depth(4)), LimitSpec { depth: Some(4), ..LimitSpec::default() });
    }
}
