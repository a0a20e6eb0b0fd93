//! The opening line each game of a run was played from: line `opening_index` of the run's
//! suite (for a datagen run followed by its pair's random plies), as the Parquet export, the
//! PGN and the viewer record it.

use std::collections::HashMap;

use proto::domain::{Run, RunId, RunKind};

use crate::error::Result;
use crate::storage::Storage;
use farmdata::GameOpening;

/// A run's suite lines as the export records them with each game, each parsed once.
#[derive(Debug)]
pub struct RunOpenings {
    lines: Vec<String>,
    parsed: HashMap<u32, (engine::OpeningLine, GameOpening)>,
    run: RunId,
    /// A datagen run's random plies after each line (0 for other kinds).
    random_plies: u32,
}

impl RunOpenings {
    pub fn of_run(storage: &dyn Storage, run: &Run) -> Result<RunOpenings> {
        let random_plies = match &run.spec.kind {
            RunKind::Datagen(settings) => settings.random_plies,
            _ => 0,
        };
        Ok(RunOpenings {
            lines: storage.get_suite(run.spec.openings)?.openings,
            parsed: HashMap::new(),
            run: run.id,
            random_plies,
        })
    }

    /// The opening game `game` (0 or 1) of pair `pair_index` of the run was played from: suite
    /// line `index`, and for a datagen run that game's random plies after the line's moves
    /// ([`crate::datagen::random_moves`]: the moves that led to the leased opening, which the
    /// players did not choose). `fen` after `moves` is the game's start position.
    pub fn of_pair(&mut self, index: u32, pair_index: u64, game: u8) -> std::result::Result<GameOpening, String> {
        let (run, plies) = (self.run, self.random_plies);
        let (line, opening) = self.parsed_line(index)?;
        let mut opening = opening.clone();
        if plies > 0 {
            let random = crate::datagen::random_moves(line, run, pair_index, game, plies);
            opening.moves.extend(random.iter().map(ToString::to_string));
        }
        Ok(opening)
    }

    /// Line `index` as the suite has it (without a datagen run's random plies: see
    /// [`RunOpenings::of_pair`]); the error says why it is not there or does not parse (the
    /// suite was checked when it was added, so either is the database's fault).
    pub fn get(&mut self, index: u32) -> std::result::Result<&GameOpening, String> {
        self.parsed_line(index).map(|(_, opening)| opening)
    }

    fn parsed_line(&mut self, index: u32) -> std::result::Result<(&engine::OpeningLine, &GameOpening), String> {
        let entry = match self.parsed.entry(index) {
            std::collections::hash_map::Entry::Occupied(known) => known.into_mut(),
            std::collections::hash_map::Entry::Vacant(slot) => {
                let text = self
                    .lines
                    .get(index as usize)
                    .ok_or_else(|| format!("the suite has {} lines, no line {index}", self.lines.len()))?;
                let line = engine::OpeningLine::parse(text).map_err(|e| e.to_string())?;
                let opening = GameOpening::of_line(&line);
                slot.insert((line, opening))
            }
        };
        Ok((&entry.0, &entry.1))
    }
}
