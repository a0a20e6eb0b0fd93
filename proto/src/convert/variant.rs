//! Variants: the in-process engine with parameters, or an external engine.

use super::{enumeration, non_empty, required};
use crate::domain::{EngineProtocol, Variant, VariantId, VariantKind, VariantSpec, check_engine_name};
use crate::error::{Error, Result};
use crate::pb;

impl From<EngineProtocol> for pb::EngineProtocol {
    fn from(protocol: EngineProtocol) -> pb::EngineProtocol {
        match protocol {
            EngineProtocol::Uci => pb::EngineProtocol::Uci,
            EngineProtocol::Ucci => pb::EngineProtocol::Ucci,
        }
    }
}

impl TryFrom<pb::EngineProtocol> for EngineProtocol {
    type Error = Error;
    fn try_from(protocol: pb::EngineProtocol) -> Result<EngineProtocol> {
        match protocol {
            pb::EngineProtocol::Unspecified => Err(Error::missing("")),
            pb::EngineProtocol::Uci => Ok(EngineProtocol::Uci),
            pb::EngineProtocol::Ucci => Ok(EngineProtocol::Ucci),
        }
    }
}

impl From<VariantKind> for pb::variant_spec::Kind {
    fn from(kind: VariantKind) -> pb::variant_spec::Kind {
        match kind {
            VariantKind::Params { toml } => pb::variant_spec::Kind::Params(pb::ParamsVariant { toml }),
            VariantKind::External { engine, protocol, options } => {
                pb::variant_spec::Kind::External(pb::ExternalVariant {
                    command: String::new(),
                    args: Vec::new(),
                    protocol: pb::EngineProtocol::from(protocol).into(),
                    options: options.into_iter().map(|(name, value)| pb::EngineOption { name, value }).collect(),
                    engine,
                })
            }
        }
    }
}

impl TryFrom<pb::variant_spec::Kind> for VariantKind {
    type Error = Error;
    fn try_from(kind: pb::variant_spec::Kind) -> Result<VariantKind> {
        Ok(match kind {
            pb::variant_spec::Kind::Params(params) => VariantKind::Params { toml: params.toml },
            pb::variant_spec::Kind::External(external) => external_variant(external)?,
        })
    }
}

/// An external variant names a worker's engine; one that carries a command line (as protocol
/// 2 clients sent) is refused by name, never run or silently stripped.
fn external_variant(external: pb::ExternalVariant) -> Result<VariantKind> {
    if !external.command.is_empty() {
        return Err(Error::invalid(
            "external.command",
            format!(
                "`{}`: an external variant names an engine the workers were given (`engine`, as in \
                 `xqfarm worker --engine NAME=PATH`), never a command or a path",
                external.command.escape_debug()
            ),
        ));
    }
    if !external.args.is_empty() {
        return Err(Error::invalid(
            "external.args",
            format!("{:?}: arguments belong to the worker's engine definition, not to a variant", external.args),
        ));
    }
    let engine = non_empty(external.engine, "external.engine")?;
    check_engine_name(&engine).map_err(|reason| Error::invalid("external.engine", reason))?;
    Ok(VariantKind::External {
        engine,
        protocol: enumeration::<pb::EngineProtocol, _>(external.protocol, "external.protocol")?,
        options: external.options.into_iter().map(|option| (option.name, option.value)).collect(),
    })
}

impl From<VariantSpec> for pb::VariantSpec {
    fn from(spec: VariantSpec) -> pb::VariantSpec {
        pb::VariantSpec { name: spec.name, kind: Some(spec.kind.into()) }
    }
}

impl TryFrom<pb::VariantSpec> for VariantSpec {
    type Error = Error;
    fn try_from(spec: pb::VariantSpec) -> Result<VariantSpec> {
        let kind = spec.kind.ok_or_else(|| Error::missing("kind"))?;
        let spec = VariantSpec { name: spec.name, kind: kind.try_into()? };
        spec.validate()?;
        Ok(spec)
    }
}

impl From<Variant> for pb::Variant {
    fn from(variant: Variant) -> pb::Variant {
        pb::Variant { variant_id: variant.id.into(), spec: Some(variant.spec.into()) }
    }
}

impl TryFrom<pb::Variant> for Variant {
    type Error = Error;
    fn try_from(variant: pb::Variant) -> Result<Variant> {
        Ok(Variant {
            id: VariantId::new(non_empty(variant.variant_id, "variant_id")?),
            spec: required(variant.spec, "spec")?,
        })
    }
}
