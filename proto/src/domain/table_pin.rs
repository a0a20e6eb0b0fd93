//! The endgame tables a run is adjudicated by: each material set with the checksum of the
//! `.xqtb` file the coordinator had when the run was created. A worker ends a game by its own
//! tables only where its file has the pinned checksum, and the referee checks with the same
//! rule, so the two never judge one set by different files.

/// One pinned table: its set (`KRKA`, as `engine::tablebase::Material` writes it) and the
/// FNV-1a 64 checksum its file ends with.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TablePin {
    pub set: String,
    pub checksum: u64,
}

impl TablePin {
    /// The pins of a table directory's manifest, in set order.
    pub fn of_manifest(manifest: &[(engine::tablebase::Material, u64)]) -> Vec<TablePin> {
        manifest.iter().map(|(m, sum)| TablePin { set: m.canonical().to_string(), checksum: *sum }).collect()
    }

    /// The pins as the engine's adjudication takes them; a set name that does not parse
    /// (another build's) pins nothing.
    pub fn to_engine(pins: &[TablePin]) -> engine::tablebase::Pins {
        pins.iter()
            .filter_map(|p| Some((p.set.parse::<engine::tablebase::Material>().ok()?.canonical(), p.checksum)))
            .collect()
    }
}
