//! The primitives of one PostgreSQL transaction: the mapping to the row modules is
//! `sql_tx!`'s, shared with SQLite.

use std::sync::Arc;

use proto::domain::{
    EngineInfo, LeaseId, OpeningSuite, OpeningSuiteSummary, PairingStats, Run, RunId, RunSpec, RunState, SuiteId,
    TablePin, Variant, VariantId, WorkerId, WorkerInfo,
};

use super::db::Db;
use super::{catalog, engines, leasing, results, spsa, tablebases, tournament};
use crate::error::Result;
use crate::scheduler::{EngineNeed, NewPair, RunLoad};
use crate::spsa::{HistoryPoint, Perturbation};
use crate::storage::codec::key;
use crate::storage::tx::{
    Allocation, GameEnds, LeasePair, LeasePairStatus, LeaseRow, LeaseState, NewGame, NewLease, PairResult, PairRow,
    PairStatus, PairTally, Tx, WorkerBench, WorkerSummary,
};
use crate::storage::{GameSummary, StoredGame};
use proto::domain::{ByeSlot, Match, MatchRow};

pub(super) struct PgTx<'a, 'b>(pub(super) Db<'a, 'b>);

impl<'a, 'b> PgTx<'a, 'b> {
    fn conn(&mut self) -> &mut Db<'a, 'b> {
        &mut self.0
    }
}

sql_tx!(PgTx<'_, '_>);
