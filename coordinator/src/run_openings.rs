//! The opening line each game of a run was played from: line `opening_index` of the run's
//! suite, as the Parquet export, the PGN and the viewer record it.

use std::collections::HashMap;

use proto::domain::Run;

use crate::error::Result;
use crate::storage::Storage;
use farmdata::GameOpening;

/// A run's suite lines as the export records them with each game, each parsed once.
#[derive(Debug)]
pub struct RunOpenings {
    lines: Vec<String>,
    parsed: HashMap<u32, GameOpening>,
}

impl RunOpenings {
    pub fn of_run(storage: &dyn Storage, run: &Run) -> Result<RunOpenings> {
        Ok(RunOpenings { lines: storage.get_suite(run.spec.openings)?.openings, parsed: HashMap::new() })
    }

    /// Line `index`; the error says why it is not there or does not parse (the suite was
    /// checked when it was added, so either is the database's fault).
    pub fn get(&mut self, index: u32) -> std::result::Result<&GameOpening, String> {
        match self.parsed.entry(index) {
            std::collections::hash_map::Entry::Occupied(known) => Ok(known.into_mut()),
            std::collections::hash_map::Entry::Vacant(slot) => {
                let text = self
                    .lines
                    .get(index as usize)
                    .ok_or_else(|| format!("the suite has {} lines, no line {index}", self.lines.len()))?;
                let line = engine::OpeningLine::parse(text).map_err(|e| e.to_string())?;
                Ok(slot.insert(GameOpening::of_line(&line)))
            }
        }
    }
}
