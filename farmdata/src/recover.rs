//! Crash recovery: bring a run's part files back to the invariant, and tell the caller how far
//! the export really got.
//!
//! # The invariant
//!
//! After `recover` (and after every successful `export_segment` or `compact`), for each run:
//! every game id appears in exactly one `games` part file, the `positions` part file of the same
//! name holds that game's sampled positions and no other part file does, and part files never
//! overlap. A segment (the two files of one range) counts only when both files are present and
//! readable; the games file's ids span exactly the range in its name.
//!
//! # What a crash can leave, and what `recover` does with it
//!
//! - Temp files of the run under `<data>/.tmp/`: writes that never reached their rename. Deleted.
//! - A complete segment beyond `exported_up_to`: the export finished but the caller's
//!   bookkeeping did not. Adopted: the returned mark moves to its last game.
//! - A complete segment inside a larger complete one: compaction renamed its output but did
//!   not delete all its inputs. Deleted.
//! - An incomplete segment (a file missing or unreadable) whose games are all held by complete
//!   segments, or that lies beyond `exported_up_to`: an interrupted compaction or export.
//!   Deleted; the caller exports those games again from the returned mark.
//! - A complete segment beyond the mark that partly overlaps another: deleted, as is every
//!   segment after it, so the adopted part is gap-free and the caller re-exports the rest.
//!
//! Anything that would lose a game at or below `exported_up_to` (the only copy of a committed
//! range unreadable, committed segments overlapping partly) is not a state a crash of ours
//! produces: `recover` then deletes nothing and returns [`Error::Inconsistent`].

use proto::domain::RunId;
use std::cmp::Reverse;
use std::path::{Path, PathBuf};

use super::error::{AtPath, Error, Result};
use super::layout::{PartRange, partition_dir, sync_dir};
use super::schema::Table;
use super::segments::{Check, Segment, scan};

/// What `recover` decided, before it touches anything.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct RecoveryPlan {
    pub delete: Vec<PathBuf>,
    pub adopted: Vec<PartRange>,
    pub exported_up_to: u64,
    /// Games in the segments that stay.
    pub games: u64,
}

/// How far a run's export got, as `recover` left its part files.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Recovered {
    /// The new `exported_up_to`: at least the one given, more when finished segments were
    /// adopted.
    pub exported_up_to: u64,
    /// Games in the run's part files: every game id at or below `exported_up_to` that belongs
    /// to the run, counted from the files (ids are shared by all runs, so the mark alone does
    /// not say how many).
    pub games: u64,
}

/// Repairs the part files of `run` after a crash (see the module documentation) and says how
/// far the export got. Call it at start-up, before any export or compaction of the run.
pub fn recover(data_dir: &Path, run: RunId, exported_up_to: u64) -> Result<Recovered> {
    let scan = scan(data_dir, run, Check::Full)?;
    let plan = plan_recovery(run, exported_up_to, &scan.segments)?;
    let removed = scan.temps.len() + plan.delete.len();
    for path in scan.temps.iter().chain(&plan.delete) {
        match std::fs::remove_file(path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e).at(path),
            _ => {}
        }
    }
    if removed > 0 {
        for table in Table::ALL {
            let dir = partition_dir(data_dir, table, run);
            if dir.is_dir() {
                sync_dir(&dir)?;
            }
        }
    }
    if removed > 0 || !plan.adopted.is_empty() {
        tracing::info!(
            run = %run,
            temps = scan.temps.len(),
            deleted = plan.delete.len(),
            adopted = ?plan.adopted,
            exported_up_to = plan.exported_up_to,
            "recovered parquet export"
        );
    }
    Ok(Recovered { exported_up_to: plan.exported_up_to, games: plan.games })
}

pub(crate) fn plan_recovery(run: RunId, exported_up_to: u64, segments: &[Segment]) -> Result<RecoveryPlan> {
    let mark = exported_up_to;
    let inconsistent = |detail: String| Error::Inconsistent { run, detail };
    let mut kept: Vec<&Segment> = Vec::new();
    let mut doomed: Vec<&Segment> = Vec::new();
    // No segment starting at or after `stop` may be adopted: a game before it beyond the
    // mark was lost, and adopting past it would leave a gap the caller never re-exports.
    let mut stop = u64::MAX;

    let mut complete: Vec<&Segment> = segments.iter().filter(|s| s.is_complete()).collect();
    complete.sort_by_key(|s| (s.range.first, Reverse(s.range.last)));
    for s in complete {
        match kept.last() {
            Some(k) if s.range.last <= k.range.last => doomed.push(s),
            Some(k) if s.range.first <= k.range.last => {
                if k.range.last < mark {
                    return Err(inconsistent(format!(
                        "complete segments {} and {} overlap below the exported mark {mark}",
                        k.range, s.range
                    )));
                }
                stop = stop.min(k.range.last + 1);
                doomed.push(s);
            }
            _ => kept.push(s),
        }
    }

    for s in segments.iter().filter(|s| !s.is_complete()) {
        if kept.iter().any(|k| k.range.contains(s.range)) {
            doomed.push(s);
            continue;
        }
        if s.range.first <= mark && !kept.iter().any(|k| k.range.overlaps(s.range)) {
            return Err(inconsistent(format!(
                "the exported range {} is held only by the incomplete segment {}",
                s.range,
                s.describe()
            )));
        }
        let held = |id: u64| kept.iter().any(|k| k.range.contains_id(id));
        if let Some(id) = s.readable_game_ids().iter().copied().find(|&id| id <= mark && !held(id)) {
            return Err(inconsistent(format!(
                "game {id} is at or below the exported mark {mark} but only in the incomplete segment {}",
                s.describe()
            )));
        }
        if s.range.last > mark {
            stop = stop.min(s.range.first.max(mark + 1));
        }
        doomed.push(s);
    }

    let mut plan = RecoveryPlan { exported_up_to: mark, ..RecoveryPlan::default() };
    for k in kept {
        if k.range.last <= mark {
            plan.games += k.game_rows();
            continue;
        }
        if k.range.first >= stop {
            doomed.push(k);
            continue;
        }
        plan.adopted.push(k.range);
        plan.exported_up_to = plan.exported_up_to.max(k.range.last);
        plan.games += k.game_rows();
    }
    plan.delete = doomed.iter().flat_map(|s| s.files()).map(|f| f.path.clone()).collect();
    plan.delete.sort();
    Ok(plan)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::segments::{FileState, PartFile};

    fn file(table: &str, range: PartRange, valid: bool) -> Option<PartFile> {
        let path = PathBuf::from(format!("{table}/{}", range.file_name()));
        let state = if valid {
            FileState::Valid { rows: range.last - range.first + 1, game_ids: (range.first..=range.last).collect() }
        } else {
            FileState::Invalid { why: "torn".into() }
        };
        Some(PartFile { path, state })
    }

    fn complete(first: u64, last: u64) -> Segment {
        let range = PartRange { first, last };
        Segment { range, games: file("games", range, true), positions: file("positions", range, true) }
    }

    fn positions_only(first: u64, last: u64) -> Segment {
        let range = PartRange { first, last };
        Segment { range, games: None, positions: file("positions", range, true) }
    }

    fn deleted_ranges(plan: &RecoveryPlan) -> Vec<String> {
        let mut names: Vec<String> = plan.delete.iter().map(|p| p.display().to_string()).collect();
        names.sort();
        names
    }

    #[test]
    fn a_clean_run_is_left_alone() {
        let plan = plan_recovery(RunId::new(1), 20, &[complete(1, 10), complete(11, 20)]).expect("consistent");
        assert_eq!(plan, RecoveryPlan { exported_up_to: 20, games: 20, ..RecoveryPlan::default() });
    }

    #[test]
    fn finished_segments_beyond_the_mark_are_adopted() {
        let plan = plan_recovery(RunId::new(1), 10, &[complete(1, 10), complete(11, 20), complete(21, 25)])
            .expect("consistent");
        assert_eq!(plan.exported_up_to, 25);
        assert_eq!(plan.games, 25);
        assert_eq!(plan.adopted, vec![PartRange { first: 11, last: 20 }, PartRange { first: 21, last: 25 }]);
        assert!(plan.delete.is_empty());
    }

    #[test]
    fn an_interrupted_export_is_deleted_and_nothing_after_it_adopted() {
        let segments = [complete(1, 10), positions_only(11, 20), complete(21, 30)];
        let plan = plan_recovery(RunId::new(1), 10, &segments).expect("consistent");
        assert_eq!(plan.exported_up_to, 10);
        assert_eq!(plan.games, 10, "games 21-30 are deleted and exported again");
        assert_eq!(
            deleted_ranges(&plan),
            [
                "games/part-000000000021-000000000030.parquet",
                "positions/part-000000000011-000000000020.parquet",
                "positions/part-000000000021-000000000030.parquet",
            ]
        );
    }

    #[test]
    fn compaction_leftovers_go_whichever_side_of_the_rename_the_crash_was() {
        // After the renames: the inputs are covered by the merged segment.
        let after = [complete(1, 30), complete(1, 10), complete(11, 20), complete(21, 30)];
        let plan = plan_recovery(RunId::new(1), 30, &after).expect("consistent");
        assert_eq!(plan.delete.len(), 6);
        assert_eq!(plan.games, 30, "each game counted once");
        assert!(plan.delete.iter().all(|p| !p.ends_with("part-000000000001-000000000030.parquet")));
        // Between the two renames: the merged positions file alone goes, the inputs stay.
        let between = [positions_only(1, 30), complete(1, 10), complete(11, 20), complete(21, 30)];
        let plan = plan_recovery(RunId::new(1), 30, &between).expect("consistent");
        assert_eq!(deleted_ranges(&plan), ["positions/part-000000000001-000000000030.parquet"]);
        assert_eq!(plan.games, 30);
        // During the deletions: half-deleted inputs go.
        let during = [complete(1, 30), positions_only(1, 10), complete(11, 20)];
        let plan = plan_recovery(RunId::new(1), 30, &during).expect("consistent");
        assert_eq!(plan.delete.len(), 3);
    }

    #[test]
    fn a_partly_overlapping_segment_beyond_the_mark_is_dropped_with_everything_after_it() {
        let segments = [complete(1, 10), complete(11, 20), complete(15, 25), complete(26, 30)];
        let plan = plan_recovery(RunId::new(1), 10, &segments).expect("consistent");
        assert_eq!(plan.exported_up_to, 20);
        assert_eq!(plan.games, 20);
        assert_eq!(plan.adopted, vec![PartRange { first: 11, last: 20 }]);
        assert_eq!(plan.delete.len(), 4);
    }

    #[test]
    fn losing_a_committed_game_is_reported_and_nothing_deleted() {
        let lost = [complete(1, 10), positions_only(11, 20)];
        assert!(matches!(plan_recovery(RunId::new(1), 20, &lost), Err(Error::Inconsistent { .. })));
        let overlap = [complete(1, 10), complete(5, 15)];
        assert!(matches!(plan_recovery(RunId::new(1), 15, &overlap), Err(Error::Inconsistent { .. })));
    }
}
