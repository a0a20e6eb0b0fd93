//! What the commands' arguments name, read the one way every command reads them: parameter
//! sets (`default`, `material-only` or a TOML file), opening files (suite, EPD or PGN; the
//! shipped default suite when none is given), run names from file names, and the random tokens of a local farm.
//! `NAME=VALUE` options are [`proto::domain::parse_engine_option`].

use std::path::Path;

use anyhow::{Context, Result, bail};
use engine::ParamSet;
use engine::eval::Params;
use worker::opening_files::{OpeningFormat, read_openings};
use worker::openings::{Opening, parse_opening, suite_lines};

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

/// Plies of each game of a PGN opening file that make its opening, unless a command says.
pub const PGN_OPENING_PLIES: usize = 8;

/// The suite lines of an opening file (the shipped default suite when absent): a suite file,
/// an EPD/FEN file or a PGN file (its games' first `pgn_plies` plies), by `format` or by the
/// file's extension ([`OpeningFormat::of_path`]). Skipped entries of an EPD or PGN file are
/// counted in a warning; a file with no usable opening is an error naming it.
pub fn opening_file(path: Option<&Path>, format: Option<OpeningFormat>, pgn_plies: usize) -> Result<Vec<String>> {
    let Some(path) = path else {
        return Ok(suite_lines(DEFAULT_OPENINGS).map(|(_, line)| line.to_owned()).collect());
    };
    let format = format.unwrap_or_else(|| OpeningFormat::of_path(path));
    let text = std::fs::read_to_string(path).with_context(|| format!("reading openings {}", path.display()))?;
    let file = read_openings(&path.display().to_string(), &text, format, pgn_plies)?;
    if let Some(first) = file.skipped.first() {
        eprintln!("warning: {}: {} of its entries skipped (the first: {first})", path.display(), file.skipped.len());
    }
    if format != OpeningFormat::Suite {
        eprintln!("openings: {} from {} ({format})", file.lines.len(), path.display());
    }
    Ok(file.lines)
}

/// An opening file (the shipped default suite when absent), parsed; an empty suite is
/// refused.
pub fn load_openings(path: Option<&Path>) -> Result<Vec<Opening>> {
    let lines = opening_lines(path)?;
    if lines.is_empty() {
        bail!("the opening suite is empty");
    }
    Ok(lines.iter().enumerate().map(|(i, line)| parse_opening(i + 1, line)).collect::<worker::Result<_>>()?)
}

/// The suite lines of an opening file ([`opening_file`] by its extension), or of the shipped
/// default suite when absent, as the farm stores a suite.
pub fn opening_lines(path: Option<&Path>) -> Result<Vec<String>> {
    opening_file(path, None, PGN_OPENING_PLIES)
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
