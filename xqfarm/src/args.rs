//! What the commands' arguments name, read the one way every command reads them: parameter
//! sets (`default`, `material-only` or a TOML file), opening suite files (the shipped default
//! suite when none is given), run names from file names, and the random tokens of a local farm.
//! `NAME=VALUE` options are [`proto::domain::parse_engine_option`].

use std::path::Path;

use anyhow::{Context, Result, bail};
use engine::ParamSet;
use engine::eval::Params;
use worker::openings::{Opening, parse_suite, suite_lines};

/// The default opening suite shipped with xqfarm.
pub const DEFAULT_OPENINGS: &str = include_str!("../../data/openings/default.txt");

/// A parameter set: `default`, `material-only`, or a TOML file.
pub fn load_params(spec: &str) -> Result<ParamSet> {
    match spec {
        "default" => Ok(ParamSet::default()),
        "material-only" => Ok(Params::material_only().into()),
        path => ParamSet::from_toml_file(Path::new(path)).with_context(|| format!("loading parameters `{path}`")),
    }
}

/// The text of an opening suite file, or of the shipped default suite when absent.
fn suite_text(path: Option<&Path>) -> Result<String> {
    match path {
        Some(p) => std::fs::read_to_string(p).with_context(|| format!("reading openings {}", p.display())),
        None => Ok(DEFAULT_OPENINGS.to_owned()),
    }
}

/// An opening suite file (the shipped default suite when absent), parsed; an empty suite is
/// refused.
pub fn load_openings(path: Option<&Path>) -> Result<Vec<Opening>> {
    let suite = parse_suite(&suite_text(path)?)?;
    if suite.is_empty() {
        bail!("the opening suite is empty");
    }
    Ok(suite)
}

/// The lines of an opening suite file (the shipped default suite when absent), comments and
/// blank lines dropped, as the farm stores a suite.
pub fn opening_lines(path: Option<&Path>) -> Result<Vec<String>> {
    Ok(suite_lines(&suite_text(path)?).map(|(_, line)| line.to_owned()).collect())
}

/// The engine version a worker registers: the engine's name and version, and this build's commit.
pub const ENGINE_VERSION: &str = concat!("xqengine ", env!("CARGO_PKG_VERSION"), " ", env!("XQ_GIT_HASH"));

/// A token for a local farm of this process, unlikely to repeat.
pub fn rand_token() -> u64 {
    let t = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos() as u64);
    t ^ u64::from(std::process::id()).rotate_left(32)
}

/// The name a parameter spec gives its variant: a file's stem, or the spec itself.
pub fn name_of(spec: &str) -> String {
    Path::new(spec).file_stem().map_or_else(|| spec.to_owned(), |s| s.to_string_lossy().into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_readers_see_the_same_default_suite() {
        let lines = opening_lines(None).expect("the default suite");
        let openings = load_openings(None).expect("the default suite");
        assert_eq!(lines.len(), openings.len());
        assert!(lines.iter().zip(&openings).all(|(line, opening)| *line == opening.text));
        assert_eq!(name_of("params/tuned.toml"), "tuned");
        assert_eq!(name_of("default"), "default");
    }
}
