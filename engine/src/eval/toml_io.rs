//! The parameter file: nested TOML tables that mirror the dotted term names, each with an
//! `mg` and an `eg` key holding an integer (a scalar term) or an array (a table term):
//!
//! ```toml
//! [material.rook]
//! mg = 920
//! eg = 1000
//!
//! [pst.king]
//! mg = [0, 10, -10, -5, -30, -25]
//! eg = [0, 5, 0, 10, -5, 0]
//! ```
//!
//! Keys left out keep their defaults. An unknown key, a value of the wrong type, an array of
//! the wrong length or a value out of range is an error naming the key and the allowed range.

use std::fmt::Write as _;
use std::path::Path;

use toml::{Table, Value};

use super::params::{Params, Phase, check_range, param_name};
use super::pst;
use super::terms::{self, Group, TERMS, Term};
use crate::error::{Error, Result};

fn params_error(key: impl Into<String>, reason: impl Into<String>) -> Error {
    Error::Params { key: key.into(), reason: reason.into() }
}

impl Params {
    /// Reads a parameter file's text over the defaults.
    pub fn from_toml_str(text: &str) -> Result<Params> {
        let table: Table =
            text.parse().map_err(|e: toml::de::Error| params_error("(file)", format!("not valid TOML: {e}")))?;
        Params::from_toml_table(&table)
    }

    /// Reads a parsed parameter file over the defaults.
    pub(crate) fn from_toml_table(table: &Table) -> Result<Params> {
        let mut params = Params::default();
        params.apply_table("", table)?;
        Ok(params)
    }

    /// Reads a parameter file over the defaults.
    pub fn from_toml_file(path: impl AsRef<Path>) -> Result<Params> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path)
            .map_err(|e| params_error(path.display().to_string(), format!("cannot read the parameter file: {e}")))?;
        Params::from_toml_str(&text).map_err(|e| match e {
            Error::Params { key, reason } => Error::Params { key, reason: format!("{reason} (in {})", path.display()) },
            other => other,
        })
    }

    /// Writes every parameter as a parameter file (`from_toml_str` reads it back exactly).
    pub fn to_toml(&self) -> String {
        let mut out = String::with_capacity(16 * 1024);
        out.push_str("# xqfarm evaluation parameters, in centipawns from Red's side.\n");
        out.push_str("# Every term has a middlegame (mg) and an endgame (eg) weight; the evaluation tapers\n");
        out.push_str("# between them by the material phase. Keys left out keep their defaults.\n");
        let mut group = None;
        for (t, term) in TERMS.iter().enumerate() {
            if group != Some(term.group) {
                group = Some(term.group);
                let _ = write!(out, "\n# ===== {} =====\n", group_title(term.group));
            }
            let _ = writeln!(out, "\n# {} Range {}..={}.", term.doc.trim(), term.min, term.max);
            let _ = writeln!(out, "[{}]", term.name);
            for phase in [Phase::Middlegame, Phase::Endgame] {
                let first = terms::first_feature(t);
                let values: Vec<i32> = (0..term.len()).map(|e| self.get(2 * (first + e) + phase as usize)).collect();
                write_values(&mut out, term, phase, &values);
            }
        }
        out
    }

    fn apply_table(&mut self, prefix: &str, table: &Table) -> Result<()> {
        for (key, value) in table {
            let path = if prefix.is_empty() { key.clone() } else { format!("{prefix}.{key}") };
            if let Some(t) = TERMS.iter().position(|term| term.name == path) {
                self.apply_term(t, &path, value)?;
                continue;
            }
            let below = format!("{path}.");
            if !TERMS.iter().any(|term| term.name.starts_with(&below)) {
                return Err(params_error(&path, format!("unknown key; expected one of: {}", expected_keys(prefix))));
            }
            match value {
                Value::Table(sub) => self.apply_table(&path, sub)?,
                other => {
                    return Err(params_error(
                        &path,
                        format!("expected a table of parameters, found a {}", other.type_str()),
                    ));
                }
            }
        }
        Ok(())
    }

    fn apply_term(&mut self, t: usize, path: &str, value: &Value) -> Result<()> {
        let term = &TERMS[t];
        let Value::Table(table) = value else {
            return Err(params_error(
                path,
                format!("expected a table with keys mg and eg, found a {}", value.type_str()),
            ));
        };
        for (key, value) in table {
            let phase = match key.as_str() {
                "mg" => Phase::Middlegame,
                "eg" => Phase::Endgame,
                _ => {
                    return Err(params_error(format!("{path}.{key}"), "unknown key; expected mg or eg"));
                }
            };
            let key = format!("{path}.{key}");
            let range = format!("{}..={}", term.min, term.max);
            let values: Vec<&Value> = match (term.is_table(), value) {
                (false, Value::Integer(_)) => vec![value],
                (false, other) => {
                    return Err(params_error(
                        key,
                        format!("expected an integer in {range}, found a {}", other.type_str()),
                    ));
                }
                (true, Value::Array(items)) if items.len() == term.len() => items.iter().collect(),
                (true, Value::Array(items)) => {
                    let reason = format!(
                        "expected an array of {} integers in {range}, found {} entries",
                        term.len(),
                        items.len()
                    );
                    return Err(params_error(key, reason));
                }
                (true, other) => {
                    let reason = format!(
                        "expected an array of {} integers in {range}, found a {}",
                        term.len(),
                        other.type_str()
                    );
                    return Err(params_error(key, reason));
                }
            };
            let first = terms::first_feature(t);
            for (entry, item) in values.into_iter().enumerate() {
                let name = param_name(term, entry, phase);
                let Value::Integer(v) = *item else {
                    return Err(params_error(
                        name,
                        format!("expected an integer in {range}, found a {}", item.type_str()),
                    ));
                };
                check_range(&name, v, term.min, term.max)?;
                self.set(2 * (first + entry) + phase as usize, v as i32)?;
            }
        }
        Ok(())
    }
}

/// The keys allowed directly under `prefix` (for the unknown-key message).
fn expected_keys(prefix: &str) -> String {
    let mut keys: Vec<&str> = TERMS
        .iter()
        .filter_map(|t| {
            let rest = if prefix.is_empty() { Some(t.name) } else { t.name.strip_prefix(prefix)?.strip_prefix('.') }?;
            rest.split('.').next()
        })
        .collect();
    keys.dedup();
    keys.join(", ")
}

fn group_title(group: Group) -> &'static str {
    match group {
        Group::Material => "Material (子力价值)",
        Group::Position => "Position: piece-square tables from the owner's side (棋子位置)",
        Group::Mobility => "Mobility: weight by number of safe moves (机动性)",
        Group::Relations => "Relations between pieces and king safety (棋子间的关系)",
        Group::Misc => "Miscellaneous",
    }
}

fn write_values(out: &mut String, term: &Term, phase: Phase, values: &[i32]) {
    let key = phase.key();
    if !term.is_table() {
        let _ = writeln!(out, "{key} = {}", values[0]);
        return;
    }
    let Some(kind) = term.squares_of else {
        let list: Vec<String> = values.iter().map(i32::to_string).collect();
        let _ = writeln!(out, "{key} = [{}]", list.join(", "));
        return;
    };
    // A piece-square table: one line per rank, labelled with its squares.
    let _ = writeln!(out, "{key} = [");
    let mut next = 0;
    for (rank, squares) in pst::rows(kind) {
        let row = &values[next..next + squares.len()];
        next += squares.len();
        let cells: Vec<String> = row.iter().map(|v| format!("{v:>5},")).collect();
        let names: Vec<String> = squares.iter().map(|sq| sq.to_string()).collect();
        let _ = writeln!(out, "   {}  # rank {rank}: {}", cells.join(""), names.join(" "));
    }
    out.push_str("]\n");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::terms::NUM_PARAMS;

    fn error_of(text: &str) -> (String, String) {
        match Params::from_toml_str(text) {
            Err(Error::Params { key, reason }) => (key, reason),
            other => panic!("expected a parameter error for {text:?}, got {other:?}"),
        }
    }

    #[test]
    fn round_trip_is_exact() {
        let mut p = Params::default();
        for i in (0..NUM_PARAMS).step_by(7) {
            let spec = Params::spec(i);
            p.set(i, if i % 2 == 0 { spec.min } else { spec.max }).expect("in range");
        }
        let text = p.to_toml();
        assert_eq!(Params::from_toml_str(&text).expect("own output parses"), p);
        assert_eq!(Params::from_toml_str(&Params::default().to_toml()).expect("parses"), Params::default());
        assert!(text.contains("[material.rook]\nmg = 920"), "{text}");
        assert!(text.contains("# rank 3: a3 c3 e3"));
    }

    #[test]
    fn missing_keys_keep_defaults() {
        let p = Params::from_toml_str("[material.rook]\neg = 1111\n[tempo]\nmg = 7").expect("valid");
        let mut expected = Params::default();
        expected.set_by_name("material.rook.eg", 1111).expect("in range");
        expected.set_by_name("tempo.mg", 7).expect("in range");
        assert_eq!(p, expected);
        assert_eq!(Params::from_toml_str("").expect("empty is valid"), Params::default());
        let dotted =
            Params::from_toml_str("king_safety.palace_attackers.mg = [0, 1, 2, 3, 4, 5, 6, 7]").expect("valid");
        assert_eq!(dotted.get(Params::index_of("king_safety.palace_attackers.mg.7").expect("known")), 7);
    }

    #[test]
    fn errors_name_the_key_and_range() {
        let (key, reason) = error_of("[material.queen]\nmg = 900");
        assert_eq!(key, "material.queen");
        assert!(reason.contains("unknown") && reason.contains("rook"), "{reason}");
        let (key, reason) = error_of("[material.rook]\nmg = 900\nxg = 1");
        assert_eq!(key, "material.rook.xg");
        assert!(reason.contains("mg or eg"), "{reason}");
        let (key, reason) = error_of("[material.rook]\nmg = \"heavy\"");
        assert_eq!(key, "material.rook.mg");
        assert!(reason.contains("integer") && reason.contains("0..=3000") && reason.contains("string"), "{reason}");
        let (key, reason) = error_of("[material.rook]\nmg = 3001");
        assert_eq!(key, "material.rook.mg");
        assert!(reason.contains("3001") && reason.contains("0..=3000"), "{reason}");
        let (key, reason) = error_of("[pst.king]\nmg = [1, 2, 3]");
        assert_eq!(key, "pst.king.mg");
        assert!(
            reason.contains("6 integers") && reason.contains("-1000..=1000") && reason.contains("3 entries"),
            "{reason}"
        );
        let (key, reason) = error_of("[pst.king]\neg = [0, 0, 0, 0, 1001, 0]");
        assert_eq!(key, "pst.king.eg.4");
        assert!(reason.contains("-1000..=1000"), "{reason}");
        let (key, reason) = error_of("[pst.king]\neg = [0, 0, 0, 0, 1.5, 0]");
        assert_eq!(key, "pst.king.eg.4");
        assert!(reason.contains("float"), "{reason}");
        let (key, _) = error_of("pst = 3");
        assert_eq!(key, "pst");
        let (key, reason) = error_of("[tempo]\nmg = 99999999999");
        assert_eq!(key, "tempo.mg");
        assert!(reason.contains("-200..=200"), "{reason}");
        let (key, reason) = error_of("[material.rook\nmg = 1");
        assert_eq!(key, "(file)");
        assert!(reason.contains("TOML"), "{reason}");
    }

    #[test]
    fn file_errors_name_the_file() {
        let err = Params::from_toml_file("/nonexistent/xqfarm/params.toml").expect_err("missing file").to_string();
        assert!(err.contains("/nonexistent/xqfarm/params.toml"), "{err}");
    }
}
