//! `ParamSet`: everything a variant of the built-in engine sets, the evaluation weights
//! ([`Params`]) and the search parameters ([`SearchParams`]), read from and written to one
//! parameter file. The evaluation terms are its nested tables (see `eval/toml_io.rs`); the
//! search parameters are its `[search]` table:
//!
//! ```toml
//! [search]
//! rfp_margin = 100
//! lmr_div = 240
//!
//! [material.rook]
//! mg = 920
//! ```
//!
//! A top-level `eval` key names the evaluation the variant plays with: `"hce"` (the default,
//! also when absent) or `"nnue:<sha256>"`, a network by the SHA-256 of its file; whoever plays
//! the set supplies that network (a worker fetches it from its coordinator by that hash).
//!
//! Keys left out keep their defaults; a `[search]` key that is unknown, not an integer or
//! outside its declared range is an error naming it. Parameters are addressed by one name
//! space: `search.<key>` for search parameters, the dotted evaluation names otherwise (the
//! UCI options and the SPSA input use the same names).

use std::fmt::Write as _;
use std::path::Path;

use toml::{Table, Value};

use crate::error::{Error, Result};
use crate::eval::Params;
use crate::eval_kind::EvalSpec;
use crate::search::SearchParams;
use crate::search::params::{PREFIX, SEARCH_PARAMS};

/// The evaluation weights and the search parameters of one engine variant.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct ParamSet {
    pub eval: Params,
    pub search: SearchParams,
    /// The evaluation it plays with; the HCE uses `eval` (the weights), a network does not.
    pub eval_spec: EvalSpec,
}

/// The range of a parameter of either kind, by name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ParamRange {
    pub min: i32,
    pub max: i32,
}

impl From<Params> for ParamSet {
    /// Evaluation weights with default search parameters.
    fn from(eval: Params) -> ParamSet {
        ParamSet { eval, search: SearchParams::default(), eval_spec: EvalSpec::Hce }
    }
}

fn parse_table(text: &str) -> Result<Table> {
    text.parse()
        .map_err(|e: toml::de::Error| Error::Params { key: "(file)".into(), reason: format!("not valid TOML: {e}") })
}

/// Takes the `eval` key out of a parameter file's table.
fn eval_spec_of(table: &mut Table) -> Result<EvalSpec> {
    match table.remove("eval") {
        None => Ok(EvalSpec::Hce),
        Some(Value::String(text)) => text.parse().map_err(|reason| Error::Params { key: "eval".into(), reason }),
        Some(value) => Err(Error::Params {
            key: "eval".into(),
            reason: format!("expected a string (`hce` or `nnue:<sha256>`), found a {}", value.type_str()),
        }),
    }
}

fn search_error(key: impl Into<String>, reason: impl Into<String>) -> Error {
    Error::SearchParam { key: key.into(), reason: reason.into() }
}

impl ParamSet {
    pub fn new(eval: Params, search: SearchParams) -> ParamSet {
        ParamSet { eval, search, eval_spec: EvalSpec::Hce }
    }

    /// Reads a parameter file's text over the defaults.
    pub fn from_toml_str(text: &str) -> Result<ParamSet> {
        let mut table = parse_table(text)?;
        let eval_spec = eval_spec_of(&mut table)?;
        let mut search = SearchParams::default();
        if let Some(value) = table.remove("search") {
            let Value::Table(entries) = value else {
                return Err(search_error("search", format!("expected a table, found a {}", value.type_str())));
            };
            for (key, value) in &entries {
                let name = format!("{PREFIX}{key}");
                let Value::Integer(v) = value else {
                    return Err(search_error(name, format!("expected an integer, found a {}", value.type_str())));
                };
                search.set(&name, *v)?;
            }
        }
        // The rest is the evaluation's.
        let eval = Params::from_toml_table(&table)?;
        Ok(ParamSet { eval, search, eval_spec })
    }

    /// Only the evaluation a parameter file's text names (its `eval` key), the rest unread:
    /// what a store checks before it keeps a variant whose other keys it does not judge.
    pub fn eval_spec_of_toml(text: &str) -> Result<EvalSpec> {
        eval_spec_of(&mut parse_table(text)?)
    }

    /// Reads a parameter file over the defaults.
    pub fn from_toml_file(path: impl AsRef<Path>) -> Result<ParamSet> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path).map_err(|e| Error::Params {
            key: path.display().to_string(),
            reason: format!("cannot read the parameter file: {e}"),
        })?;
        ParamSet::from_toml_str(&text).map_err(|e| match e {
            Error::Params { key, reason } => Error::Params { key, reason: format!("{reason} (in {})", path.display()) },
            Error::SearchParam { key, reason } => {
                Error::SearchParam { key, reason: format!("{reason} (in {})", path.display()) }
            }
            other => other,
        })
    }

    /// The whole set as a parameter file (`from_toml_str` reads it back exactly): a network's
    /// `eval` key (none for the HCE, so HCE files read as they always did), the `[search]`
    /// table, then the evaluation's tables.
    pub fn to_toml(&self) -> String {
        let mut out = String::with_capacity(20 * 1024);
        if let EvalSpec::Nnue(_) = self.eval_spec {
            let _ = writeln!(
                out,
                "# The evaluation: a network by the SHA-256 of its file (`hce` for the hand-crafted one)."
            );
            let _ = writeln!(out, "eval = \"{}\"\n", self.eval_spec);
        }
        out.push_str(
            "# xqfarm search parameters (see engine/src/search/params.rs). Keys left out keep their defaults.\n",
        );
        out.push_str("[search]\n");
        for (spec, value) in SEARCH_PARAMS.iter().zip(self.search.values()) {
            let _ = writeln!(out, "# {} Range {}..={}.", spec.doc.trim(), spec.min, spec.max);
            let _ = writeln!(out, "{} = {value}", spec.key);
        }
        out.push('\n');
        out.push_str(&self.eval.to_toml());
        out
    }

    /// The range of a parameter by name (`search.<key>` or an evaluation name).
    pub fn range(name: &str) -> Option<ParamRange> {
        if name.starts_with(PREFIX) {
            return SearchParams::spec(name).map(|(_, s)| ParamRange { min: s.min, max: s.max });
        }
        let i = Params::index_of(name)?;
        let spec = Params::spec(i);
        Some(ParamRange { min: spec.min, max: spec.max })
    }

    /// The value of a parameter by name.
    pub fn get(&self, name: &str) -> Option<i32> {
        if name.starts_with(PREFIX) {
            return self.search.get(name);
        }
        Params::index_of(name).map(|i| self.eval.get(i))
    }

    /// Sets a parameter by name; an unknown name or a value outside its range is an error
    /// naming it, and changes nothing.
    pub fn set(&mut self, name: &str, value: i64) -> Result<()> {
        if name.starts_with(PREFIX) {
            return self.search.set(name, value);
        }
        self.eval.set_by_name(name, value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_round_trip_with_a_search_table() {
        let mut set = ParamSet::default();
        set.set("search.rfp_margin", 123).expect("in range");
        set.set("material.rook.mg", 900).expect("in range");
        let text = set.to_toml();
        assert!(text.contains("[search]\n"), "{text}");
        assert_eq!(ParamSet::from_toml_str(&text).expect("reads back"), set);
        // An evaluation-only file (every file written before search parameters existed) reads
        // with default search parameters.
        let old = set.eval.to_toml();
        let read = ParamSet::from_toml_str(&old).expect("an old file reads");
        assert_eq!(read.search, SearchParams::default());
        assert_eq!(read.eval, set.eval);
    }

    #[test]
    fn bad_search_values_are_named() {
        let cases = [
            (
                "[search]\nrfp_margin = 5000\n",
                "search parameter `search.rfp_margin`: 5000 is outside its range 20..=300",
            ),
            (
                "[search]\nrfp_margin = \"x\"\n",
                "search parameter `search.rfp_margin`: expected an integer, found a string",
            ),
            ("search = 3\n", "search parameter `search`: expected a table, found a integer"),
        ];
        for (text, want) in cases {
            assert_eq!(ParamSet::from_toml_str(text).expect_err(text).to_string(), want);
        }
        let unknown = ParamSet::from_toml_str("[search]\nfoo = 1\n").expect_err("unknown key");
        assert!(unknown.to_string().starts_with("search parameter `search.foo`: unknown"), "{unknown}");
        let eval = ParamSet::from_toml_str("[material.rook]\nmg = 100000\n").expect_err("eval range");
        assert!(eval.to_string().contains("material.rook.mg"), "{eval}");
    }

    #[test]
    fn the_eval_key_names_a_network_or_the_hce() {
        let hex = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff";
        let mut set = ParamSet::default();
        assert!(!set.to_toml().contains("eval ="), "an HCE file has no eval key");
        set.eval_spec = format!("nnue:{hex}").parse().expect("spec");
        set.set("search.lmr_div", 300).expect("set");
        let text = set.to_toml();
        assert!(text.contains(&format!("eval = \"nnue:{hex}\"")), "{text}");
        assert_eq!(ParamSet::from_toml_str(&text).expect("reads back"), set);
        let hce = ParamSet::from_toml_str("eval = \"hce\"\n").expect("hce");
        assert_eq!(hce.eval_spec, EvalSpec::Hce);
        for (text, want) in [
            (
                "eval = 3\n",
                "evaluation parameter `eval`: expected a string (`hce` or `nnue:<sha256>`), found a integer",
            ),
            ("eval = \"nnue\"\n", "evaluation parameter `eval`: `nnue` is neither `hce` nor `nnue:<sha256>`"),
            ("eval = \"nnue:xyz\"\n", "evaluation parameter `eval`: `xyz` is not a network's SHA-256 (64 hex digits)"),
        ] {
            assert_eq!(ParamSet::from_toml_str(text).expect_err(text).to_string(), want);
        }
    }

    #[test]
    fn one_name_space_for_both_kinds() {
        let mut set = ParamSet::default();
        assert_eq!(ParamSet::range("search.lmr_div"), Some(ParamRange { min: 100, max: 500 }));
        assert!(ParamSet::range("material.rook.mg").is_some());
        assert_eq!(ParamSet::range("nope"), None);
        set.set("search.lmr_div", 300).expect("set");
        assert_eq!(set.get("search.lmr_div"), Some(300));
        assert!(set.set("search.lmr_div", 99).is_err());
        assert_eq!(set.get("search.lmr_div"), Some(300));
    }
}
