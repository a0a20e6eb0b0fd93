//! The canonical encoding that names a variant by its content hash, the digest kept of a
//! worker key, and the storage backends' entry to the checks of what users submit.
//!
//! The checks themselves are `validate()` beside each type in `proto::domain` (one rule for
//! the wire, the command line and the store); the `validate_*` functions here only report a
//! refusal as [`Error::InvalidSpec`]. Whether referenced variants and suites exist is the
//! storage's business, and whether parameters and opening lines mean something to the engine
//! is the service's (`farm.rs`).

use std::fmt::Write as _;

use proto::domain::{EngineProtocol, RunSpec, VariantId, VariantKind, VariantSpec, WorkerInfo};
use sha2::{Digest, Sha256};

use crate::error::{Error, Result};

/// [`VariantSpec::validate`], as the coordinator reports it.
pub fn validate_variant_spec(spec: &VariantSpec) -> Result<()> {
    spec.validate().map_err(Error::from_spec)
}

/// [`proto::domain::validate_suite`], as the coordinator reports it.
pub fn validate_suite(name: &str, lines: &[String]) -> Result<()> {
    proto::domain::validate_suite(name, lines).map_err(Error::from_spec)
}

/// [`RunSpec::validate`], as the coordinator reports it.
pub fn validate_run_spec(spec: &RunSpec) -> Result<()> {
    spec.validate().map_err(Error::from_spec)
}

/// [`WorkerInfo::validate`], as the coordinator reports it.
pub fn validate_worker_info(info: &WorkerInfo) -> Result<()> {
    info.validate().map_err(Error::from_spec)
}

/// The canonical text of a variant: a sequence of netstrings (`<byte length>:<bytes>,`), so
/// that any text, newlines and separators included, encodes unambiguously. Options keep their
/// order: engines apply `setoption` in sequence.
pub fn encode_variant(spec: &VariantSpec) -> String {
    let mut out = String::new();
    let mut put = |s: &str| {
        // Writing to a String cannot fail.
        let _ = write!(out, "{}:{s},", s.len());
    };
    put("xqfarm-variant-1");
    put(&spec.name);
    match &spec.kind {
        VariantKind::Params { toml } => {
            put("params");
            put(toml);
        }
        VariantKind::External { command, args, protocol, options } => {
            put("external");
            put(command);
            put(protocol.as_str());
            put(&args.len().to_string());
            for arg in args {
                put(arg);
            }
            put(&options.len().to_string());
            for (key, value) in options {
                put(key);
                put(value);
            }
        }
    }
    out
}

/// Reads back [`encode_variant`]'s text; anything else is [`Error::Corrupt`].
pub fn decode_variant(text: &str) -> Result<VariantSpec> {
    let corrupt = |what: &str| Error::Corrupt(format!("variant encoding: {what}"));
    let mut rest = text;
    let mut next = || -> Result<&str> {
        let (len, after) = rest.split_once(':').ok_or_else(|| corrupt("missing length"))?;
        let len: usize = len.parse().map_err(|_| corrupt("bad length"))?;
        let field = after.get(..len).ok_or_else(|| corrupt("field runs past the end"))?;
        rest = after[len..].strip_prefix(',').ok_or_else(|| corrupt("missing field terminator"))?;
        Ok(field)
    };
    if next()? != "xqfarm-variant-1" {
        return Err(corrupt("unknown version"));
    }
    let name = next()?.to_owned();
    let kind = match next()? {
        "params" => VariantKind::Params { toml: next()?.to_owned() },
        "external" => {
            let command = next()?.to_owned();
            let protocol: EngineProtocol = next()?.parse().map_err(|_| corrupt("unknown protocol"))?;
            let count = |s: &str| s.parse::<usize>().map_err(|_| corrupt("bad count"));
            let n_args = count(next()?)?;
            let mut args = Vec::new();
            for _ in 0..n_args {
                args.push(next()?.to_owned());
            }
            let n_options = count(next()?)?;
            let mut options = Vec::new();
            for _ in 0..n_options {
                let key = next()?.to_owned();
                options.push((key, next()?.to_owned()));
            }
            VariantKind::External { command, args, protocol, options }
        }
        _ => return Err(corrupt("unknown kind")),
    };
    if !rest.is_empty() {
        return Err(corrupt("trailing data"));
    }
    Ok(VariantSpec { name, kind })
}

/// A variant's id: the lowercase hex SHA-256 of its canonical encoding.
pub fn variant_id(spec: &VariantSpec) -> VariantId {
    let digest = Sha256::digest(encode_variant(spec).as_bytes());
    let mut hex = String::with_capacity(64);
    for byte in digest.iter() {
        let _ = write!(hex, "{byte:02x}");
    }
    hex
}

/// What the storage keeps of a worker key: its hex SHA-256 (so a copy of the database does not
/// hand out the workers' identities); `None` for a worker without a key.
pub fn worker_key_digest(key: &str) -> Option<String> {
    if key.is_empty() {
        return None;
    }
    Some(Sha256::digest(key.as_bytes()).iter().map(|b| format!("{b:02x}")).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn external() -> VariantSpec {
        VariantSpec {
            name: "pikafish dev".into(),
            kind: VariantKind::External {
                command: "/usr/bin/pikafish".into(),
                args: vec!["--x".into(), "a,b:c".into(), String::new()],
                protocol: EngineProtocol::Ucci,
                options: vec![("Hash".into(), "64".into()), ("Threads".into(), "1".into())],
            },
        }
    }

    #[test]
    fn variant_encoding_round_trips() {
        let params =
            VariantSpec { name: "base".into(), kind: VariantKind::Params { toml: "a = 1\n[b]\nc = \"x,y\"\n".into() } };
        for spec in [params, external()] {
            assert_eq!(decode_variant(&encode_variant(&spec)).expect("decodes"), spec);
        }
    }

    #[test]
    fn variant_ids_are_content_hashes() {
        let a = external();
        assert_eq!(variant_id(&a), variant_id(&a.clone()));
        assert_eq!(variant_id(&a).len(), 64);
        let mut b = a.clone();
        if let VariantKind::External { options, .. } = &mut b.kind {
            options.reverse();
        }
        assert_ne!(variant_id(&a), variant_id(&b), "option order is part of the content");
        // Field boundaries matter: moving a character between fields changes the id.
        let x = VariantSpec { name: "ab".into(), kind: VariantKind::Params { toml: "c".into() } };
        let y = VariantSpec { name: "a".into(), kind: VariantKind::Params { toml: "bc".into() } };
        assert_ne!(variant_id(&x), variant_id(&y));
    }

    #[test]
    fn malformed_encodings_are_errors() {
        let good = encode_variant(&external());
        for bad in ["", "x", "99:abc,", "16:xqfarm-variant-1,", &good[..good.len() - 1], &format!("{good}1:x,")] {
            assert!(matches!(decode_variant(bad), Err(Error::Corrupt(_))), "{bad:?}");
        }
    }

    #[test]
    fn refusals_name_the_field_as_the_wire_does() {
        let info = WorkerInfo {
            name: "w".into(),
            host: "h".into(),
            cores: 1,
            engine_version: "1".into(),
            bench_signature: 1,
            worker_key: "two words".into(),
            rules_version: engine::RULES_VERSION,
        };
        match validate_worker_info(&info) {
            Err(Error::InvalidSpec { field, reason }) => {
                assert_eq!(field, "worker_key");
                assert!(reason.contains("printable ASCII"), "{reason}");
            }
            other => panic!("expected an invalid spec, got {other:?}"),
        }
        assert!(validate_suite("s", &["startpos".into()]).is_ok());
        assert!(matches!(validate_suite("s", &[]), Err(Error::InvalidSpec { field, .. }) if field == "openings"));
    }
}
