//! The one check of each spec type, wherever a value comes from (the wire, the command line,
//! the store): [`VariantSpec::validate`], [`OpeningSuiteSpec::validate`] (or
//! [`validate_suite`] over borrowed parts), [`RunSpec::validate`], [`TimeControl::validate`],
//! [`Adjudication::validate`], [`WorkerInfo::validate`], and [`SprtSettings::validate`]
//! beside its type.
//!
//! The checks are structural: names, sizes, counts and bounds. Whether a run's variants and
//! suite exist is the storage's business, and whether parameters and opening lines mean
//! something to the engine is the coordinator service's. An error is
//! [`Error::InvalidField`] naming the field by its path in the schema, relative to the
//! checked value (`tc.depth`, `variants[1]`, `external.options[0].name`); the wire
//! conversions put the message's own path in front.
//!
//! ```
//! use proto::domain::{TimeControl, MAX_DEPTH};
//!
//! assert!(TimeControl::Depth(MAX_DEPTH).validate().is_ok());
//! let err = TimeControl::Depth(MAX_DEPTH + 1).validate().unwrap_err();
//! assert_eq!(err.field(), Some("depth"));
//! ```
//!
//! [`SprtSettings::validate`]: super::SprtSettings::validate

use super::{
    Adjudication, OpeningSuiteSpec, RunKind, RunSpec, SprtSettings, TimeControl, VariantId, VariantKind, VariantSpec,
    WorkerInfo, check_engine_name, check_sha256,
};
use crate::error::{Error, Result};

/// Longest name of a run, variant, suite or worker (and a worker's host and engine version),
/// in bytes.
pub const MAX_NAME_BYTES: usize = 200;
/// Longest worker key, in bytes.
pub const MAX_WORKER_KEY_BYTES: usize = 128;
/// Largest parameter file, command, or arguments and options together of a variant, in bytes.
pub const MAX_VARIANT_TEXT_BYTES: usize = 1 << 20;
/// Most variants in one run (a round robin of 32 has 496 pairings).
pub const MAX_RUN_VARIANTS: usize = 32;
/// Most pairs one run may schedule in total; keeps every count far from integer limits.
pub const MAX_RUN_PAIRS: u64 = 1 << 40;
/// Most openings in one suite; opening indices travel as `u32`.
pub const MAX_SUITE_OPENINGS: usize = 1 << 22;
/// Longest opening line, in bytes.
pub const MAX_OPENING_BYTES: usize = 4096;
/// Largest network file a coordinator stores (a hidden layer of 1,024 takes about 2.6 MB).
pub const MAX_NETWORK_BYTES: usize = 16 << 20;
/// Most bytes of a network file in one message ([`crate::pb`]`::NetworkChunk`).
pub const NETWORK_CHUNK_BYTES: usize = 1 << 20;
/// Deepest fixed depth accepted (the engine's own limit).
pub const MAX_DEPTH: u32 = 100;
/// Longest per-move time, clock base or increment accepted: one day.
pub const MAX_TIME_MS: u64 = 24 * 3600 * 1000;

fn check_name(field: &str, name: &str) -> Result<()> {
    if name.trim().is_empty() {
        return Err(Error::invalid(field, "must not be empty"));
    }
    if name.len() > MAX_NAME_BYTES {
        return Err(Error::invalid(field, format!("{} bytes, at most {MAX_NAME_BYTES}", name.len())));
    }
    if name.chars().any(char::is_control) {
        return Err(Error::invalid(field, "contains a control character"));
    }
    Ok(())
}

fn check_size(field: &str, bytes: usize, most: usize) -> Result<()> {
    if bytes > most {
        return Err(Error::invalid(field, format!("{bytes} bytes, at most {most}")));
    }
    Ok(())
}

impl TimeControl {
    /// Positive limits, a depth of at most [`MAX_DEPTH`] and times of at most [`MAX_TIME_MS`]
    /// (a clock's increment may be 0).
    pub fn validate(&self) -> Result<()> {
        let within = |field: &str, value: u64, most: u64| {
            if value == 0 || value > most {
                Err(Error::invalid(field, format!("{value}, expected 1..={most}")))
            } else {
                Ok(())
            }
        };
        match *self {
            TimeControl::Nodes(0) => Err(Error::invalid("nodes", "must be positive, got 0")),
            TimeControl::Nodes(_) => Ok(()),
            TimeControl::Depth(depth) => within("depth", u64::from(depth), u64::from(MAX_DEPTH)),
            TimeControl::MoveTimeMs(ms) => within("movetime_ms", ms, MAX_TIME_MS),
            TimeControl::Clock { base_ms, inc_ms } => {
                within("clock.base_ms", base_ms, MAX_TIME_MS)?;
                if inc_ms > MAX_TIME_MS {
                    return Err(Error::invalid("clock.inc_ms", format!("{inc_ms}, expected 0..={MAX_TIME_MS}")));
                }
                Ok(())
            }
        }
    }
}

impl Adjudication {
    /// Scores are thresholds in centipawns: not negative. Move counts of 0 switch a rule off.
    pub fn validate(&self) -> Result<()> {
        for (field, score) in [("resign_score", self.resign_score), ("draw_score", self.draw_score)] {
            if score < 0 {
                return Err(Error::invalid(field, format!("must not be negative, got {score}")));
            }
        }
        Ok(())
    }
}

impl VariantSpec {
    /// A name; a parameter file within [`MAX_VARIANT_TEXT_BYTES`], or an engine name the
    /// workers were given (never a command or a path) with named options. Whether the parameters parse is the engine's to say.
    pub fn validate(&self) -> Result<()> {
        check_name("name", &self.name)?;
        match &self.kind {
            VariantKind::Params { toml } => check_size("params.toml", toml.len(), MAX_VARIANT_TEXT_BYTES),
            VariantKind::External { engine, protocol: _, options } => {
                check_engine_name(engine).map_err(|reason| Error::invalid("external.engine", reason))?;
                let total = options.iter().map(|(k, v)| k.len() + v.len()).sum::<usize>();
                if total > MAX_VARIANT_TEXT_BYTES {
                    return Err(Error::invalid(
                        "external.options",
                        format!("{total} bytes, at most {MAX_VARIANT_TEXT_BYTES}"),
                    ));
                }
                for (i, (name, _)) in options.iter().enumerate() {
                    if name.trim().is_empty() {
                        return Err(Error::invalid(format!("external.options[{i}].name"), "must not be empty"));
                    }
                }
                Ok(())
            }
        }
    }
}

/// [`OpeningSuiteSpec::validate`] over borrowed parts: a name, and 1..=[`MAX_SUITE_OPENINGS`]
/// non-blank lines of at most [`MAX_OPENING_BYTES`] each. Whether each line is a legal
/// opening is the engine's to say.
pub fn validate_suite(name: &str, openings: &[String]) -> Result<()> {
    check_name("name", name)?;
    if openings.is_empty() {
        return Err(Error::invalid("openings", "a suite holds at least one opening"));
    }
    if openings.len() > MAX_SUITE_OPENINGS {
        return Err(Error::invalid("openings", format!("{} lines, at most {MAX_SUITE_OPENINGS}", openings.len())));
    }
    for (i, line) in openings.iter().enumerate() {
        let field = || format!("openings[{i}]");
        if line.trim().is_empty() {
            return Err(Error::invalid(field(), "must not be empty"));
        }
        if line.len() > MAX_OPENING_BYTES || line.contains(['\n', '\r']) {
            return Err(Error::invalid(field(), format!("not one line of at most {MAX_OPENING_BYTES} bytes")));
        }
    }
    Ok(())
}

impl OpeningSuiteSpec {
    /// See [`validate_suite`].
    pub fn validate(&self) -> Result<()> {
        validate_suite(&self.name, &self.openings)
    }
}

impl RunKind {
    /// `(fewest, most, description)` of the variants the kind plays.
    fn players(&self) -> (usize, usize, String) {
        match self {
            RunKind::Sprt(_) => (2, 2, "an SPRT run plays exactly 2 variants (base, candidate)".into()),
            RunKind::Games { .. } => (2, 2, "a games run plays exactly 2 variants".into()),
            RunKind::Gauntlet { .. } => (
                2,
                MAX_RUN_VARIANTS,
                format!("a gauntlet plays a candidate and 1 to {} opponents", MAX_RUN_VARIANTS - 1),
            ),
            RunKind::RoundRobin { .. } => {
                (2, MAX_RUN_VARIANTS, format!("a round robin plays 2 to {MAX_RUN_VARIANTS} variants"))
            }
            RunKind::Spsa(_) => (1, 1, "an SPSA run tunes exactly 1 variant (its base)".into()),
            RunKind::Datagen(_) => (1, 1, "a datagen run plays exactly 1 variant (against itself)".into()),
            RunKind::Tournament(_) => {
                (2, MAX_RUN_VARIANTS, format!("a tournament plays 2 to {MAX_RUN_VARIANTS} variants"))
            }
        }
    }
}

impl RunSpec {
    /// A name; as many variants as the kind plays, none empty and (beyond two players) none
    /// twice; positive pair counts totalling at most [`MAX_RUN_PAIRS`]; the kind's SPRT design,
    /// the time control and the adjudication. A two-player run may pit a variant against
    /// itself: an A/A test of the noise.
    pub fn validate(&self) -> Result<()> {
        check_name("name", &self.name)?;
        let n = self.variants.len();
        let (fewest, most, rule) = self.kind.players();
        if n < fewest || n > most {
            return Err(Error::invalid("variants", format!("{rule}, got {n}")));
        }
        for (i, id) in self.variants.iter().enumerate() {
            if id.as_str().is_empty() {
                return Err(Error::invalid(format!("variants[{i}]"), "must not be empty"));
            }
        }
        if n > 2 || matches!(self.kind, RunKind::Tournament(_)) {
            let mut ids: Vec<&str> = self.variants.iter().map(VariantId::as_str).collect();
            ids.sort_unstable();
            if ids.windows(2).any(|w| w[0] == w[1]) {
                return Err(Error::invalid("variants", "a variant appears twice"));
            }
        }
        let pairings = self.pairings().len() as u64;
        let (field, pairs) = match &self.kind {
            RunKind::Sprt(settings) => {
                SprtSettings::validate(settings).map_err(|e| e.within("sprt"))?;
                ("", None)
            }
            RunKind::Games { pairs } => ("games.pairs", Some(*pairs)),
            RunKind::Gauntlet { pairs_per_opponent } => ("gauntlet.pairs_per_opponent", Some(*pairs_per_opponent)),
            RunKind::RoundRobin { pairs_per_pairing } => ("round_robin.pairs_per_pairing", Some(*pairs_per_pairing)),
            RunKind::Spsa(settings) => {
                settings.validate().map_err(|e| e.within("spsa"))?;
                ("spsa.pairs", Some(settings.pairs))
            }
            RunKind::Datagen(settings) => {
                settings.validate().map_err(|e| e.within("datagen"))?;
                // Every position is the point: a datagen run that sampled fewer would silently
                // throw most of its games away.
                if self.sample_every != 1 {
                    return Err(Error::invalid(
                        "sample_every",
                        format!("a datagen run records every position: must be 1, got {}", self.sample_every),
                    ));
                }
                ("datagen.pairs", Some(settings.pairs))
            }
            RunKind::Tournament(settings) => {
                settings.validate(n).map_err(|e| e.within("tournament"))?;
                let most = settings.max_pairs(n);
                if most > MAX_RUN_PAIRS {
                    return Err(Error::invalid(
                        "tournament.pairs_per_match",
                        format!("up to {most} pairs in all is more than {MAX_RUN_PAIRS}"),
                    ));
                }
                ("", None)
            }
        };
        if let Some(count) = pairs {
            if count == 0 {
                return Err(Error::invalid(field, "must be positive, got 0"));
            }
            if count.saturating_mul(pairings) > MAX_RUN_PAIRS {
                return Err(Error::invalid(
                    field,
                    format!("{count} for each of {pairings} pairings is more than {MAX_RUN_PAIRS} pairs in all"),
                ));
            }
        }
        self.tc.validate().map_err(|e| e.within("tc"))?;
        self.adjudication.validate().map_err(|e| e.within("adjudication"))
    }
}

impl WorkerInfo {
    /// A name; a host and an engine version of at most [`MAX_NAME_BYTES`]; at least one core;
    /// a worker key (or none) of at most [`MAX_WORKER_KEY_BYTES`] printable ASCII characters
    /// without spaces, so it travels as gRPC metadata and in a file line. The rules version is
    /// compared by the coordinator, which knows its own.
    pub fn validate(&self) -> Result<()> {
        check_name("name", &self.name)?;
        check_size("host", self.host.len(), MAX_NAME_BYTES)?;
        check_size("engine_version", self.engine_version.len(), MAX_NAME_BYTES)?;
        if self.cores == 0 {
            return Err(Error::invalid("cores", "must be positive, got 0"));
        }
        check_size("worker_key", self.worker_key.len(), MAX_WORKER_KEY_BYTES)?;
        if !self.worker_key.bytes().all(|b| b.is_ascii_graphic()) {
            return Err(Error::invalid("worker_key", "only printable ASCII without spaces"));
        }
        for (i, engine) in self.engines.iter().enumerate() {
            check_engine_name(&engine.name).map_err(|reason| Error::invalid(format!("engines[{i}].name"), reason))?;
            check_sha256(&engine.sha256).map_err(|reason| Error::invalid(format!("engines[{i}].sha256"), reason))?;
            check_size(&format!("engines[{i}].id_name"), engine.id_name.len(), MAX_NAME_BYTES)?;
            if self.engines[..i].iter().any(|e| e.name == engine.name) {
                return Err(Error::invalid(format!("engines[{i}].name"), format!("engine `{}` twice", engine.name)));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;
