//! The worker's engine allow-list: the external engines it was given, by name
//! (`xqfarm worker --engine NAME=PATH`, or an engine file), checked at start. A lease's external
//! variant names one of them; the worker never starts anything else.
//!
//! ```no_run
//! use worker::engines::{EngineDef, EngineSet};
//! use worker::external::ExternalConfig;
//!
//! let def: EngineDef = "fsf=/usr/games/fairy-stockfish".parse()?;
//! let engines = EngineSet::check(vec![def], ExternalConfig::default())?;
//! let fsf = &engines.infos()[0];
//! assert_eq!(fsf.name, "fsf");
//! assert!(fsf.id_name.starts_with("Fairy-Stockfish"));
//! # Ok::<(), worker::Error>(())
//! ```
//!
//! The engine file (TOML) takes either form, or both:
//!
//! ```toml
//! [engines]
//! fsf = "/usr/games/fairy-stockfish"
//!
//! [[engine]]
//! name = "pikafish"
//! path = "/opt/pikafish/pikafish"
//! args = ["--threads", "1"]   # optional
//! protocol = "uci"            # optional: the handshake checked at start (uci or ucci)
//! ```
//!
//! At start each engine must exist, be an executable file and complete its handshake; the
//! worker records its `id name` and the SHA-256 of its binary and advertises both at Register.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::Arc;

use proto::domain::{EngineInfo, EngineProtocol, Lease, Variant, VariantKind, check_engine_name};
use sha2::{Digest, Sha256};

use crate::error::{Error, Result};
use crate::external::{EngineCommand, ExternalConfig, ExternalEngine};
use crate::networks::NetworkCache;
use crate::player::Player;

/// An engine as given to the worker, before it is checked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineDef {
    pub name: String,
    pub path: PathBuf,
    /// Passed to the engine on every start.
    pub args: Vec<String>,
    /// The protocol of the handshake checked at start; a variant may play the engine over the
    /// other one if it speaks both (Fairy-Stockfish does).
    pub protocol: EngineProtocol,
}

impl FromStr for EngineDef {
    type Err = Error;
    /// `NAME=PATH`, checked by the UCI handshake.
    fn from_str(text: &str) -> Result<EngineDef> {
        let bad = |reason: String| Error::EngineConfig { source_name: format!("--engine `{text}`"), reason };
        let (name, path) = text.split_once('=').ok_or_else(|| bad("expected NAME=PATH".into()))?;
        check_engine_name(name).map_err(bad)?;
        if path.is_empty() {
            return Err(bad("the path is empty".into()));
        }
        Ok(EngineDef {
            name: name.to_owned(),
            path: PathBuf::from(path),
            args: Vec::new(),
            protocol: EngineProtocol::Uci,
        })
    }
}

#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct EngineFile {
    #[serde(default)]
    engines: BTreeMap<String, PathBuf>,
    #[serde(default)]
    engine: Vec<EngineEntry>,
}

#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct EngineEntry {
    name: String,
    path: PathBuf,
    #[serde(default)]
    args: Vec<String>,
    #[serde(default)]
    protocol: Option<String>,
}

/// Reads an engine file (see the module docs). Errors name the file and what is wrong.
pub fn read_engine_file(path: &Path) -> Result<Vec<EngineDef>> {
    let source_name = format!("engine file {}", path.display());
    let text = std::fs::read_to_string(path)
        .map_err(|e| Error::EngineConfig { source_name: source_name.clone(), reason: e.to_string() })?;
    parse_engine_file(&text).map_err(|reason| Error::EngineConfig { source_name, reason })
}

/// The engines of an engine file's text, in file order (`[engines]` first).
pub fn parse_engine_file(text: &str) -> std::result::Result<Vec<EngineDef>, String> {
    let file: EngineFile = toml::from_str(text).map_err(|e| e.to_string())?;
    let mut defs = Vec::new();
    for (name, path) in file.engines {
        check_engine_name(&name)?;
        defs.push(EngineDef { name, path, args: Vec::new(), protocol: EngineProtocol::Uci });
    }
    for entry in file.engine {
        check_engine_name(&entry.name)?;
        let protocol = match entry.protocol.as_deref() {
            None => EngineProtocol::Uci,
            Some(text) => text.parse().map_err(|e: proto::Error| format!("engine `{}`: {e}", entry.name))?,
        };
        defs.push(EngineDef { name: entry.name, path: entry.path, args: entry.args, protocol });
    }
    Ok(defs)
}

/// A checked engine: its definition and what it advertises.
#[derive(Clone, Debug, PartialEq, Eq)]
struct CheckedEngine {
    def: EngineDef,
    info: EngineInfo,
}

/// The engines a worker may start, each checked at start. Empty: the worker plays in-process
/// variants only.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EngineSet {
    engines: BTreeMap<String, CheckedEngine>,
    config: ExternalConfigKey,
    networks: NetworksKey,
}

/// The networks in-process variants may name ([`EngineSet::with_networks`]); sets compare
/// equal when they share the cache.
#[derive(Clone, Debug, Default)]
struct NetworksKey(Option<Arc<NetworkCache>>);

impl PartialEq for NetworksKey {
    fn eq(&self, other: &NetworksKey) -> bool {
        match (&self.0, &other.0) {
            (Some(a), Some(b)) => Arc::ptr_eq(a, b),
            (a, b) => a.is_none() && b.is_none(),
        }
    }
}

impl Eq for NetworksKey {}

/// The external engines' settings, kept beside the set (compared by nothing: `ExternalConfig`
/// holds durations only).
#[derive(Clone, Copy, Debug, Default)]
struct ExternalConfigKey(ExternalConfig);

impl PartialEq for ExternalConfigKey {
    fn eq(&self, _: &ExternalConfigKey) -> bool {
        true
    }
}

impl Eq for ExternalConfigKey {}

impl EngineSet {
    /// No external engine.
    pub fn empty() -> EngineSet {
        EngineSet::default()
    }

    /// Checks every engine: a unique name, an existing executable file that completes its
    /// handshake. The first failure is an error naming the engine and its path.
    pub fn check(defs: Vec<EngineDef>, config: ExternalConfig) -> Result<EngineSet> {
        let mut engines = BTreeMap::new();
        for def in defs {
            let setup = |reason: String| Error::EngineSetup {
                name: def.name.clone(),
                path: def.path.display().to_string(),
                reason,
            };
            if engines.contains_key(&def.name) {
                return Err(setup("the name is given twice".into()));
            }
            let info = check_engine(&def, config).map_err(setup)?;
            tracing::info!(engine = %info.name, path = %def.path.display(), id_name = %info.id_name, sha256 = %info.sha256, "engine checked");
            engines.insert(def.name.clone(), CheckedEngine { def, info });
        }
        Ok(EngineSet { engines, config: ExternalConfigKey(config), networks: NetworksKey::default() })
    }

    /// What the worker advertises at Register, by name.
    pub fn infos(&self) -> Vec<EngineInfo> {
        self.engines.values().map(|e| e.info.clone()).collect()
    }

    pub fn is_empty(&self) -> bool {
        self.engines.is_empty()
    }

    fn given(&self) -> String {
        if self.engines.is_empty() {
            "none".into()
        } else {
            self.engines.keys().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", ")
        }
    }

    /// How to start an external variant's engine: the worker's path and arguments, the
    /// variant's protocol and options. An engine the worker was not given is an error.
    pub fn command(&self, variant: &Variant) -> Result<Option<EngineCommand>> {
        let VariantKind::External { engine, protocol, options } = &variant.spec.kind else {
            return Ok(None);
        };
        let checked = self.engines.get(engine).ok_or_else(|| Error::EngineNotGiven {
            variant: variant.spec.name.clone(),
            engine: engine.clone(),
            given: self.given(),
        })?;
        Ok(Some(EngineCommand {
            command: checked.def.path.display().to_string(),
            args: checked.def.args.clone(),
            protocol: *protocol,
            options: options.clone(),
        }))
    }

    /// The first of the lease's variants naming an engine this worker was not given: such a
    /// lease is refused whole, before anything starts.
    pub fn refusal(&self, lease: &Lease) -> Option<Error> {
        lease.variants.iter().find_map(|v| self.command(v).err())
    }

    /// Checks tuning ranges against the engine an external variant starts (a handshake of its
    /// own, with the variant's protocol): each `(name, low, high)` must be a spin option the
    /// engine advertises whose range holds `low..=high`. The first that is not is refused as
    /// [`Error::EngineOption`], naming it. An in-process variant passes (its parameters are
    /// checked against their declared ranges elsewhere).
    pub fn check_spin_ranges(&self, variant: &Variant, ranges: &[(String, f64, f64)]) -> Result<()> {
        let Some(mut command) = self.command(variant)? else {
            return Ok(());
        };
        command.options.clear();
        let engine = ExternalEngine::spawn(variant.spec.name.clone(), command, self.config.0)?;
        for (name, low, high) in ranges {
            let range = engine.spin_range(name)?;
            let below = range.min.is_some_and(|min| *low < min as f64);
            let above = range.max.is_some_and(|max| *high > max as f64);
            if below || above {
                let bound = |b: Option<i64>| b.map_or_else(|| "unbounded".to_owned(), |b| b.to_string());
                return Err(Error::EngineOption {
                    engine: variant.spec.name.clone(),
                    option: name.clone(),
                    reason: format!(
                        "the range {low}..={high} leaves the engine's spin range {}..={}",
                        bound(range.min),
                        bound(range.max)
                    ),
                });
            }
        }
        Ok(())
    }

    /// The networks the worker fetched, for in-process variants that name one.
    pub fn with_networks(mut self, networks: Arc<NetworkCache>) -> EngineSet {
        self.networks = NetworksKey(Some(networks));
        self
    }

    /// The worker's network cache, if it has one.
    pub fn networks(&self) -> Option<&Arc<NetworkCache>> {
        self.networks.0.as_ref()
    }

    /// The player of a variant: the in-process engine (with the network it names, from the
    /// worker's cache), or a given engine started as a child.
    pub fn player(&self, variant: &Variant) -> Result<Box<dyn Player>> {
        match self.command(variant)? {
            Some(command) => Ok(Box::new(ExternalEngine::spawn(variant.spec.name.clone(), command, self.config.0)?)),
            None => crate::runner::params_player(variant, self.networks.0.as_deref()),
        }
    }
}

/// The protocol `def`'s engine speaks: UCI if it completes a UCI handshake, else UCCI if it
/// completes that one (a UCCI-only engine costs the UCI handshake's timeout first); neither is
/// an error naming the engine with both failures.
pub fn detect_protocol(def: &EngineDef, config: ExternalConfig) -> Result<EngineProtocol> {
    let mut failures = Vec::new();
    for protocol in [EngineProtocol::Uci, EngineProtocol::Ucci] {
        match check_engine(&EngineDef { protocol, ..def.clone() }, config) {
            Ok(_) => return Ok(protocol),
            // Missing, not executable: no handshake to try again.
            Err(reason) if !reason.starts_with("failed its") => {
                return Err(Error::EngineSetup {
                    name: def.name.clone(),
                    path: def.path.display().to_string(),
                    reason,
                });
            }
            Err(reason) => failures.push(reason),
        }
    }
    Err(Error::EngineSetup {
        name: def.name.clone(),
        path: def.path.display().to_string(),
        reason: format!("speaks neither UCI nor UCCI: {}", failures.join("; ")),
    })
}

/// The engine's `EngineInfo`, or why it cannot be used.
fn check_engine(def: &EngineDef, config: ExternalConfig) -> std::result::Result<EngineInfo, String> {
    let meta = std::fs::metadata(&def.path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => "no such file".to_owned(),
        _ => format!("cannot read it: {e}"),
    })?;
    if !meta.is_file() {
        return Err("not a file".into());
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        if meta.permissions().mode() & 0o111 == 0 {
            return Err("not executable (chmod +x it)".into());
        }
    }
    let sha256 = sha256_of(&def.path).map_err(|e| format!("reading it: {e}"))?;
    let command = EngineCommand {
        command: def.path.display().to_string(),
        args: def.args.clone(),
        protocol: def.protocol,
        options: Vec::new(),
    };
    let engine = ExternalEngine::spawn(def.name.clone(), command, config)
        .map_err(|e| format!("failed its {} handshake: {e}", def.protocol))?;
    let id_name = engine.id_name().unwrap_or_default().to_owned();
    Ok(EngineInfo { name: def.name.clone(), id_name, sha256 })
}

/// The lowercase hex SHA-256 of a file.
pub fn sha256_of(path: &Path) -> std::io::Result<String> {
    let mut file = std::fs::File::open(path)?;
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 1 << 16];
    loop {
        let n = file.read(&mut buf)?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
    }
    Ok(hasher.finalize().iter().map(|b| format!("{b:02x}")).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn engine_flags_are_name_equals_path() {
        let def: EngineDef = "fsf=/usr/games/fairy-stockfish".parse().expect("valid");
        assert_eq!((def.name.as_str(), def.path.as_path()), ("fsf", Path::new("/usr/games/fairy-stockfish")));
        for (bad, why) in [
            ("fsf", "expected NAME=PATH"),
            ("fsf=", "the path is empty"),
            ("/usr/bin/x=/usr/bin/x", "is a path"),
            ("a b=/x", "is a command line"),
        ] {
            let error = bad.parse::<EngineDef>().expect_err(bad).to_string();
            assert!(error.contains(&format!("--engine `{bad}`")) && error.contains(why), "{error}");
        }
    }

    #[test]
    fn engine_files_take_both_forms() {
        let defs = parse_engine_file(
            "[engines]\nfsf = \"/usr/games/fairy-stockfish\"\n\n[[engine]]\nname = \"pika\"\npath = \"/opt/pika\"\n\
             args = [\"--x\"]\nprotocol = \"ucci\"\n",
        )
        .expect("valid");
        assert_eq!(defs.len(), 2);
        assert_eq!((defs[0].name.as_str(), defs[0].protocol), ("fsf", EngineProtocol::Uci));
        assert_eq!((defs[1].args.as_slice(), defs[1].protocol), (&["--x".to_owned()][..], EngineProtocol::Ucci));
        for (bad, why) in [
            ("[engines]\n\"/bin/sh\" = \"/bin/sh\"\n", "is a path"),
            ("[[engine]]\nname = \"x\"\npath = \"/x\"\nprotocol = \"xboard\"\n", "xboard"),
            ("[[engine]]\nname = \"x\"\n", "path"),
            ("[engine]\ncommand = \"/bin/sh\"\n", "engine"),
        ] {
            let error = parse_engine_file(bad).expect_err(bad);
            assert!(error.contains(why), "{bad:?}: {error}");
        }
    }

    #[test]
    fn a_lease_naming_an_engine_not_given_is_refused() {
        let variant = |name: &str, engine: &str| Variant {
            id: name.into(),
            spec: proto::domain::VariantSpec {
                name: name.into(),
                kind: VariantKind::External { engine: engine.into(), protocol: EngineProtocol::Uci, options: vec![] },
            },
        };
        let engines = EngineSet::empty();
        let error = engines.command(&variant("fairy", "fsf")).expect_err("not given").to_string();
        assert!(error.contains("engine `fsf`") && error.contains("its engines: none"), "{error}");
        let params = Variant {
            id: "p".into(),
            spec: proto::domain::VariantSpec { name: "p".into(), kind: VariantKind::Params { toml: String::new() } },
        };
        assert_eq!(engines.command(&params).expect("in-process"), None);
    }
}
