//! The canonical encoding that names a variant by its content hash, the digest kept of a
//! worker key, and the storage backends' entry to the checks of what users submit.
//!
//! The checks themselves are `validate()` beside each type in `proto::domain` (one rule for
//! the wire, the command line and the store); the `validate_*` functions here only report a
//! refusal as [`Error::InvalidSpec`]. Whether referenced variants and suites exist is the
//! storage's business, and whether parameters and opening lines mean something to the engine
//! is the service's (`farm.rs`).

use std::fmt::Write as _;

use engine::nnue::NetworkId;
use proto::domain::{EngineProtocol, RunSpec, VariantId, VariantKind, VariantSpec, WorkerInfo};
use sha2::{Digest, Sha256};

use crate::error::{Error, Result};

/// [`VariantSpec::validate`], as the coordinator reports it.
pub fn validate_variant_spec(spec: &VariantSpec) -> Result<()> {
    spec.validate().map_err(Error::from_spec)
}

/// The network an in-process variant's parameters name (`eval = "nnue:<sha256>"`), if any;
/// an `eval` key that does not read (or text that is not TOML) is an invalid spec. The other
/// keys are the service's to check (`Farm::add_variant`).
pub fn network_of(spec: &VariantSpec) -> Result<Option<NetworkId>> {
    match &spec.kind {
        VariantKind::Params { toml } => engine::ParamSet::eval_spec_of_toml(toml)
            .map(|eval| eval.network())
            .map_err(|e| Error::InvalidSpec { field: "params.toml".into(), reason: e.to_string() }),
        VariantKind::External { .. } => Ok(None),
    }
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
        VariantKind::External { engine, protocol, options } => {
            put("engine");
            put(engine);
            put(protocol.as_str());
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
    let count = |s: &str| s.parse::<usize>().map_err(|_| corrupt("bad count"));
    if next()? != "xqfarm-variant-1" {
        return Err(corrupt("unknown version"));
    }
    let name = next()?.to_owned();
    let kind = match next()? {
        "params" => VariantKind::Params { toml: next()?.to_owned() },
        "engine" => {
            let engine = next()?.to_owned();
            let protocol: EngineProtocol = next()?.parse().map_err(|_| corrupt("unknown protocol"))?;
            let n_options = count(next()?)?;
            let mut options = Vec::new();
            for _ in 0..n_options {
                let key = next()?.to_owned();
                options.push((key, next()?.to_owned()));
            }
            VariantKind::External { engine, protocol, options }
        }
        // Schema 2 and earlier: a command line. It becomes the engine named by the command's
        // file stem (`/usr/games/fairy-stockfish` -> `fairy-stockfish`), which a worker must be
        // given (`--engine fairy-stockfish=PATH`, with the arguments in its definition) to play
        // it; until then the run waits and says so. The stored id stays the variant's id.
        "external" => {
            let command = next()?.to_owned();
            let protocol: EngineProtocol = next()?.parse().map_err(|_| corrupt("unknown protocol"))?;
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
            let engine = engine_name_of_command(&command);
            tracing::debug!(%command, ?args, %engine, "a stored command-line variant read as an engine name");
            VariantKind::External { engine, protocol, options }
        }
        _ => return Err(corrupt("unknown kind")),
    };
    if !rest.is_empty() {
        return Err(corrupt("trailing data"));
    }
    Ok(VariantSpec { name, kind })
}

/// The engine name a stored command-line variant (schema 2 and earlier) maps to: the command's
/// file stem, with every character an engine name cannot hold replaced by `_` (`engine` if
/// nothing is left).
pub fn engine_name_of_command(command: &str) -> String {
    // The stored command is the program alone (arguments were fields of their own).
    let stem = std::path::Path::new(command).file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    let mut name: String = stem
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.' { c } else { '_' })
        .take(proto::domain::MAX_ENGINE_NAME_BYTES)
        .collect();
    while name.starts_with(['.', '-']) {
        name.remove(0);
    }
    if name.is_empty() { "engine".to_owned() } else { name }
}

/// A variant's id: the lowercase hex SHA-256 of its canonical encoding.
pub fn variant_id(spec: &VariantSpec) -> VariantId {
    encoding_id(&encode_variant(spec))
}

/// The id of a variant's stored canonical encoding (what [`variant_id`] hashes).
pub fn encoding_id(text: &str) -> VariantId {
    let digest = Sha256::digest(text.as_bytes());
    let mut hex = String::with_capacity(64);
    for byte in digest.iter() {
        let _ = write!(hex, "{byte:02x}");
    }
    VariantId::new(hex)
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
                engine: "pikafish".into(),
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
    fn stored_command_lines_read_as_engine_names() {
        // What schema 2 stored for `--external "/usr/games/fairy-stockfish --x" --option UCI_Variant=xiangqi`.
        let old = "16:xqfarm-variant-1,5:fairy,8:external,26:/usr/games/fairy-stockfish,4:ucci,1:1,3:--x,\
                   1:1,11:UCI_Variant,7:xiangqi,";
        let spec = decode_variant(old).expect("an old external variant decodes");
        assert_eq!(
            spec.kind,
            VariantKind::External {
                engine: "fairy-stockfish".into(),
                protocol: EngineProtocol::Ucci,
                options: vec![("UCI_Variant".into(), "xiangqi".into())],
            }
        );
        assert_eq!(engine_name_of_command("/opt/Pika Fish/pikafish.exe"), "pikafish");
        assert_eq!(engine_name_of_command("C:/engines/my engine!.bin"), "my_engine_");
        assert_eq!(engine_name_of_command("/opt/.hidden"), "hidden");
        assert_eq!(engine_name_of_command(""), "engine");
        for command in ["/usr/bin/x", "", "--", "a b c", &"ü".repeat(100)] {
            let name = engine_name_of_command(command);
            assert_eq!(proto::domain::check_engine_name(&name), Ok(()), "{command:?} -> {name:?}");
        }
    }

    #[test]
    fn variants_name_engines_never_paths() {
        let mut spec = external();
        assert!(validate_variant_spec(&spec).is_ok());
        for bad in ["/usr/games/fairy-stockfish", "fsf --threads 2", ""] {
            if let VariantKind::External { engine, .. } = &mut spec.kind {
                *engine = bad.into();
            }
            let error = validate_variant_spec(&spec).expect_err(bad);
            assert!(matches!(&error, Error::InvalidSpec { field, .. } if field == "external.engine"), "{error}");
        }
    }

    #[test]
    fn variant_ids_are_content_hashes() {
        let a = external();
        assert_eq!(variant_id(&a), variant_id(&a.clone()));
        assert_eq!(variant_id(&a).as_str().len(), 64);
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
            engines: Vec::new(),
            bench_nps: 0,
            simd: None,
            nnue_bench_nps: 0,
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
