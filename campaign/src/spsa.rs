//! The base an SPSA run tunes, and what its tuned values make of it: the built-in engine's
//! parameter set (each input line checked against the declared parameters and ranges, tuned
//! values rounded to the nearest integer) or an external engine (tuned values become its
//! options, integers rounded).

use engine::ParamSet;
use proto::domain::{EngineProtocol, SpsaParam, SpsaValue, VariantKind, VariantSpec};

use crate::error::{Error, Result};

/// The base to tune: the built-in engine's parameters, or an external engine.
#[derive(Clone, Debug, PartialEq)]
pub enum SpsaBase {
    InProcess(Box<ParamSet>),
    External { engine: String, protocol: EngineProtocol, options: Vec<(String, String)> },
}

impl SpsaBase {
    /// The variant this base is, named `name`.
    pub fn spec(&self, name: &str) -> VariantSpec {
        let kind = match self {
            SpsaBase::InProcess(set) => VariantKind::Params { toml: set.to_toml() },
            SpsaBase::External { engine, protocol, options } => {
                VariantKind::External { engine: engine.clone(), protocol: *protocol, options: options.clone() }
            }
        };
        VariantSpec { name: name.to_owned(), kind }
    }

    /// The base with tuned values: integers rounded to the nearest. An external engine's
    /// tuned option replaces the one of the same name (in any case).
    pub fn tuned(&self, values: &[SpsaValue]) -> Result<SpsaBase> {
        let text =
            |v: &SpsaValue| if v.integer { format!("{}", v.value.round() as i64) } else { format!("{}", v.value) };
        Ok(match self {
            SpsaBase::InProcess(set) => {
                let mut set = (**set).clone();
                for v in values {
                    set.set(&v.name, v.value.round() as i64)
                        .map_err(|e| Error::TunedValue { name: v.name.clone(), reason: e.to_string() })?;
                }
                SpsaBase::InProcess(Box::new(set))
            }
            SpsaBase::External { engine, protocol, options } => {
                let mut options = options.clone();
                for v in values {
                    options.retain(|(k, _)| !k.eq_ignore_ascii_case(&v.name));
                    options.push((v.name.clone(), text(v)));
                }
                SpsaBase::External { engine: engine.clone(), protocol: *protocol, options }
            }
        })
    }
}

/// Checks each input line against the built-in engine: a parameter it has, a range within
/// the declared one. Errors name the line's parameter.
pub fn check_in_process(params: &[SpsaParam], base: &ParamSet) -> Result<()> {
    let refuse = |p: &SpsaParam, reason: String| Err(Error::SpsaParam { name: p.name.clone(), reason });
    for p in params {
        let Some(range) = ParamSet::range(&p.name) else {
            return refuse(p, "the built-in engine has no such parameter (see `xqengine params --spsa`)".into());
        };
        if p.min < f64::from(range.min) || p.max > f64::from(range.max) {
            return refuse(
                p,
                format!("range {}..={} exceeds the parameter's declared {}..={}", p.min, p.max, range.min, range.max),
            );
        }
        if base.get(&p.name).is_none() {
            return refuse(p, "unknown parameter".into());
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn value(name: &str, value: f64, integer: bool) -> SpsaValue {
        SpsaValue { name: name.into(), start: value, value, min: -1e9, max: 1e9, integer }
    }

    #[test]
    fn an_external_bases_tuned_values_replace_its_options_rounded_if_integer() {
        let base = SpsaBase::External {
            engine: "fsf".into(),
            protocol: EngineProtocol::Uci,
            options: vec![("Hash".into(), "16".into()), ("aggression".into(), "3".into())],
        };
        let tuned = base.tuned(&[value("Aggression", 4.6, true), value("Scale", 0.25, false)]).expect("tuned");
        let SpsaBase::External { options, .. } = tuned else { panic!("{tuned:?}") };
        let expected: Vec<(String, String)> =
            [("Hash", "16"), ("Aggression", "5"), ("Scale", "0.25")].map(|(k, v)| (k.into(), v.into())).into();
        assert_eq!(options, expected);
    }

    #[test]
    fn an_in_process_base_is_checked_and_tuned_to_integers() {
        let set = ParamSet::default();
        let name = format!("search.{}", engine::search::SEARCH_PARAMS[0].key);
        let range = ParamSet::range(&name).expect("declared");
        let line = |min: f64, max: f64| SpsaParam {
            name: name.clone(),
            start: min,
            min,
            max,
            c_end: 1.0,
            r_end: 0.002,
            integer: true,
        };
        check_in_process(&[line(f64::from(range.min), f64::from(range.max))], &set).expect("within the range");
        let error =
            check_in_process(&[line(f64::from(range.min) - 1.0, f64::from(range.max))], &set).expect_err("wider");
        assert!(error.to_string().contains("exceeds the parameter's declared"), "{error}");
        let unknown = SpsaParam { name: "NoSuchThing".into(), ..line(0.0, 1.0) };
        let error = check_in_process(&[unknown], &set).expect_err("unknown");
        assert_eq!(
            error.to_string(),
            "`NoSuchThing`: the built-in engine has no such parameter (see `xqengine params --spsa`)"
        );

        let tuned = SpsaBase::InProcess(Box::new(set.clone()))
            .tuned(&[value(&name, f64::from(range.max) - 0.4, true)])
            .expect("tuned");
        let SpsaBase::InProcess(tuned) = tuned else { panic!("{tuned:?}") };
        assert_eq!(tuned.get(&name), Some(range.max), "rounded to the nearest");
        let error = SpsaBase::InProcess(Box::new(set)).tuned(&[value("NoSuchThing", 1.0, true)]).expect_err("unknown");
        assert!(error.to_string().starts_with("tuned value of `NoSuchThing`: "), "{error}");
    }
}
