//! Checking what users submit (variants, opening suites, runs, workers) before it is stored,
//! and the canonical encoding that names a variant by its content hash.
//!
//! Checks here are structural: whether referenced variants and suites exist is the storage's
//! business, and whether opening lines are legal is the engine's (the service checks them).

use std::fmt::Write as _;

use proto::domain::{
    Adjudication, EngineProtocol, RunKind, RunSpec, SprtSettings, TimeControl, VariantId, VariantKind, VariantSpec,
    WorkerInfo,
};
use sha2::{Digest, Sha256};

use crate::error::{Error, Result};

/// Longest name of a run, variant, suite or worker, in bytes.
pub const MAX_NAME_BYTES: usize = 200;
/// Longest worker key, in bytes.
pub const MAX_WORKER_KEY_BYTES: usize = 128;
/// Largest parameter file or command line accepted for a variant, in bytes.
pub const MAX_VARIANT_TEXT_BYTES: usize = 1 << 20;
/// Most variants in one run (a round robin of 32 has 496 pairings).
pub const MAX_RUN_VARIANTS: usize = 32;
/// Most pairs one run may schedule in total; keeps every count far from integer limits.
pub const MAX_RUN_PAIRS: u64 = 1 << 40;
/// Most openings in one suite; opening indices travel as `u32`.
pub const MAX_SUITE_OPENINGS: usize = 1 << 22;
/// Longest opening line, in bytes.
pub const MAX_OPENING_BYTES: usize = 4096;
/// Deepest fixed depth accepted (the engine's own limit).
pub const MAX_DEPTH: u32 = 100;
/// Longest per-move time or clock accepted: one day.
pub const MAX_TIME_MS: u64 = 24 * 3600 * 1000;

fn check_name(field: &str, name: &str) -> Result<()> {
    if name.trim().is_empty() {
        return Err(Error::invalid_spec(field, "must not be empty"));
    }
    if name.len() > MAX_NAME_BYTES {
        return Err(Error::invalid_spec(field, format!("{} bytes, at most {MAX_NAME_BYTES}", name.len())));
    }
    if name.chars().any(char::is_control) {
        return Err(Error::invalid_spec(field, "contains a control character"));
    }
    Ok(())
}

fn check_text(field: &str, text: &str) -> Result<()> {
    if text.len() > MAX_VARIANT_TEXT_BYTES {
        return Err(Error::invalid_spec(field, format!("{} bytes, at most {MAX_VARIANT_TEXT_BYTES}", text.len())));
    }
    Ok(())
}

pub fn validate_variant_spec(spec: &VariantSpec) -> Result<()> {
    check_name("variant name", &spec.name)?;
    match &spec.kind {
        VariantKind::Params { toml } => check_text("variant parameters", toml),
        VariantKind::External { engine, protocol: _, options } => {
            proto::domain::check_engine_name(engine).map_err(|reason| Error::invalid_spec("variant engine", reason))?;
            let total: usize = options.iter().map(|(k, v)| k.len() + v.len()).sum::<usize>();
            if total > MAX_VARIANT_TEXT_BYTES {
                return Err(Error::invalid_spec(
                    "variant options",
                    format!("{total} bytes, at most {MAX_VARIANT_TEXT_BYTES}"),
                ));
            }
            for (key, _) in options {
                if key.trim().is_empty() {
                    return Err(Error::invalid_spec("variant option", "an option has an empty name"));
                }
            }
            Ok(())
        }
    }
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

pub fn validate_suite(name: &str, lines: &[String]) -> Result<()> {
    check_name("suite name", name)?;
    if lines.is_empty() {
        return Err(Error::invalid_spec("openings", "the suite is empty"));
    }
    if lines.len() > MAX_SUITE_OPENINGS {
        return Err(Error::invalid_spec("openings", format!("{} lines, at most {MAX_SUITE_OPENINGS}", lines.len())));
    }
    for (i, line) in lines.iter().enumerate() {
        if line.trim().is_empty() {
            return Err(Error::invalid_spec("openings", format!("line {} is empty", i + 1)));
        }
        if line.len() > MAX_OPENING_BYTES || line.contains(['\n', '\r']) {
            return Err(Error::invalid_spec(
                "openings",
                format!("line {} is not one line of at most {MAX_OPENING_BYTES} bytes", i + 1),
            ));
        }
    }
    Ok(())
}

pub fn validate_worker_info(info: &WorkerInfo) -> Result<()> {
    check_name("worker name", &info.name)?;
    if info.host.len() > MAX_NAME_BYTES {
        return Err(Error::invalid_spec("worker host", format!("at most {MAX_NAME_BYTES} bytes")));
    }
    if info.engine_version.len() > MAX_NAME_BYTES {
        return Err(Error::invalid_spec("worker engine version", format!("at most {MAX_NAME_BYTES} bytes")));
    }
    if info.cores == 0 {
        return Err(Error::invalid_spec("worker cores", "must be at least 1"));
    }
    if info.worker_key.len() > MAX_WORKER_KEY_BYTES || !info.worker_key.bytes().all(|b| b.is_ascii_graphic()) {
        return Err(Error::invalid_spec(
            "worker key",
            format!("at most {MAX_WORKER_KEY_BYTES} printable ASCII characters without spaces"),
        ));
    }
    for (i, engine) in info.engines.iter().enumerate() {
        proto::domain::check_engine_name(&engine.name)
            .map_err(|reason| Error::invalid_spec("worker engine", reason))?;
        proto::domain::check_sha256(&engine.sha256)
            .map_err(|reason| Error::invalid_spec(format!("worker engine `{}` sha256", engine.name), reason))?;
        if engine.id_name.len() > MAX_NAME_BYTES {
            return Err(Error::invalid_spec(
                format!("worker engine `{}` id name", engine.name),
                format!("at most {MAX_NAME_BYTES} bytes"),
            ));
        }
        if info.engines[..i].iter().any(|e| e.name == engine.name) {
            return Err(Error::invalid_spec("worker engine", format!("`{}` given twice", engine.name)));
        }
    }
    Ok(())
}

/// What the storage keeps of a worker key: its hex SHA-256 (so a copy of the database does not
/// hand out the workers' identities); `None` for a worker without a key.
pub fn worker_key_digest(key: &str) -> Option<String> {
    if key.is_empty() {
        return None;
    }
    Some(Sha256::digest(key.as_bytes()).iter().map(|b| format!("{b:02x}")).collect())
}

pub fn validate_time_control(tc: TimeControl) -> Result<()> {
    let bad = |reason: String| Err(Error::invalid_spec("time control", reason));
    match tc {
        TimeControl::Nodes(0) => bad("nodes=0".into()),
        TimeControl::Depth(d) if d == 0 || d > MAX_DEPTH => bad(format!("depth={d}, expected 1..={MAX_DEPTH}")),
        TimeControl::MoveTimeMs(t) if t == 0 || t > MAX_TIME_MS => {
            bad(format!("movetime={t}, expected 1..={MAX_TIME_MS}"))
        }
        TimeControl::Clock { base_ms, inc_ms } if base_ms == 0 || base_ms > MAX_TIME_MS || inc_ms > MAX_TIME_MS => {
            bad(format!("{tc}: the base must be positive and both at most a day"))
        }
        _ => Ok(()),
    }
}

fn validate_sprt(s: &SprtSettings) -> Result<()> {
    s.validate().map_err(|e| match e {
        proto::Error::InvalidField { field, reason } => Error::invalid_spec(format!("sprt {field}"), reason),
        other => Error::invalid_spec("sprt", other.to_string()),
    })
}

fn validate_adjudication(a: &Adjudication) -> Result<()> {
    if a.resign_score < 0 {
        return Err(Error::invalid_spec("adjudication resign score", "must not be negative"));
    }
    if a.draw_score < 0 {
        return Err(Error::invalid_spec("adjudication draw score", "must not be negative"));
    }
    Ok(())
}

/// Structural sanity of a run: names, player counts per kind, positive pair counts, SPRT
/// bounds, time control and adjudication. Existence of variants and suite is not checked here.
pub fn validate_run_spec(spec: &RunSpec) -> Result<()> {
    check_name("run name", &spec.name)?;
    let n = spec.variants.len();
    let distinct = {
        let mut ids: Vec<&str> = spec.variants.iter().map(VariantId::as_str).collect();
        ids.sort_unstable();
        ids.dedup();
        ids.len() == n
    };
    let players = |expected: &str| Error::invalid_spec("variants", format!("{n} given, {expected}"));
    let (pairs, pairings) = match &spec.kind {
        RunKind::Sprt(settings) => {
            validate_sprt(settings)?;
            if n != 2 {
                return Err(players("an SPRT needs [base, candidate]"));
            }
            (None, 1)
        }
        RunKind::Games { pairs } => {
            if n != 2 {
                return Err(players("a fixed-games run needs two"));
            }
            (Some(("pairs", *pairs)), 1)
        }
        RunKind::Gauntlet { pairs_per_opponent } => {
            if !(2..=MAX_RUN_VARIANTS).contains(&n) {
                return Err(players(&format!("a gauntlet needs a candidate and 1..{MAX_RUN_VARIANTS} opponents")));
            }
            (Some(("pairs per opponent", *pairs_per_opponent)), n as u64 - 1)
        }
        RunKind::RoundRobin { pairs_per_pairing } => {
            if !(2..=MAX_RUN_VARIANTS).contains(&n) {
                return Err(players(&format!("a round robin needs 2..={MAX_RUN_VARIANTS}")));
            }
            (Some(("pairs per pairing", *pairs_per_pairing)), (n * (n - 1) / 2) as u64)
        }
    };
    // Two-player runs may pit a variant against itself (an A/A test of the noise); with more
    // players a repeated variant would only duplicate pairings.
    if n > 2 && !distinct {
        return Err(Error::invalid_spec("variants", "a variant appears twice"));
    }
    if let Some((field, count)) = pairs {
        if count == 0 {
            return Err(Error::invalid_spec(field, "must be positive"));
        }
        if count.saturating_mul(pairings) > MAX_RUN_PAIRS {
            return Err(Error::invalid_spec(field, format!("more than {MAX_RUN_PAIRS} pairs in total")));
        }
    }
    validate_time_control(spec.tc)?;
    validate_adjudication(&spec.adjudication)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proto::domain::SuiteId;

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
            assert!(matches!(&error, Error::InvalidSpec { field, .. } if field == "variant engine"), "{error}");
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

    fn run(kind: RunKind, n: usize) -> RunSpec {
        RunSpec {
            name: "r".into(),
            kind,
            variants: (0..n).map(|i| VariantId::new(format!("v{i}"))).collect(),
            tc: TimeControl::Nodes(1000),
            openings: SuiteId::new(1),
            adjudication: Adjudication::default(),
            bench_signature: None,
            sample_every: 0,
        }
    }

    fn field_of(spec: &RunSpec) -> String {
        match validate_run_spec(spec) {
            Err(Error::InvalidSpec { field, .. }) => field,
            other => panic!("expected an invalid spec, got {other:?}"),
        }
    }

    #[test]
    fn run_specs_are_checked_field_by_field() {
        assert!(validate_run_spec(&run(RunKind::Sprt(SprtSettings::default()), 2)).is_ok());
        assert!(validate_run_spec(&run(RunKind::RoundRobin { pairs_per_pairing: 3 }, 4)).is_ok());
        assert_eq!(field_of(&run(RunKind::Sprt(SprtSettings::default()), 3)), "variants");
        assert_eq!(field_of(&run(RunKind::Games { pairs: 0 }, 2)), "pairs");
        assert_eq!(field_of(&run(RunKind::Gauntlet { pairs_per_opponent: 5 }, 1)), "variants");
        let sprt = |elo0, elo1, alpha| SprtSettings { elo0, elo1, alpha, ..SprtSettings::default() };
        assert_eq!(field_of(&run(RunKind::Sprt(sprt(5.0, 0.0, 0.05)), 2)), "sprt elo1");
        assert_eq!(field_of(&run(RunKind::Sprt(sprt(0.0, f64::NAN, 0.05)), 2)), "sprt elo1");
        assert_eq!(field_of(&run(RunKind::Sprt(sprt(0.0, 5.0, 0.0)), 2)), "sprt alpha");
        let mut spec = run(RunKind::Games { pairs: 10 }, 2);
        spec.tc = TimeControl::Depth(0);
        assert_eq!(field_of(&spec), "time control");
        spec.tc = TimeControl::Nodes(1);
        spec.name = " ".into();
        assert_eq!(field_of(&spec), "run name");
        let mut dup = run(RunKind::RoundRobin { pairs_per_pairing: 1 }, 3);
        dup.variants[2] = dup.variants[0].clone();
        assert_eq!(field_of(&dup), "variants");
        let mut aa = run(RunKind::Games { pairs: 1 }, 2);
        aa.variants[1] = aa.variants[0].clone();
        assert!(validate_run_spec(&aa).is_ok(), "an A/A test is allowed");
        assert_eq!(field_of(&run(RunKind::RoundRobin { pairs_per_pairing: MAX_RUN_PAIRS }, 3)), "pairs per pairing");
    }

    #[test]
    fn suites_and_workers_are_checked() {
        assert!(validate_suite("s", &["startpos".into()]).is_ok());
        assert!(validate_suite("s", &[]).is_err());
        assert!(validate_suite("s", &["startpos".into(), "  ".into()]).is_err());
        assert!(validate_suite("", &["startpos".into()]).is_err());
        let info = WorkerInfo {
            name: "w".into(),
            host: "h".into(),
            cores: 0,
            engine_version: "1".into(),
            bench_signature: 1,
            worker_key: String::new(),
            rules_version: engine::RULES_VERSION,
            engines: Vec::new(),
        };
        assert!(validate_worker_info(&info).is_err());
        let long_key = WorkerInfo { cores: 1, worker_key: "k".repeat(129), ..info };
        assert!(validate_worker_info(&long_key).is_err());
    }
}
