//! Work: leases of game pairs, the games played, and their delivery.

use super::{each, enumeration, non_empty, required};
use crate::domain::{
    BatchAck, BatchResult, EngineInfo, ForfeitAttempt, GameOutcome, GameReport, Lease, LeaseGrant, LeaseId, LeaseReply,
    MoveStat, PairReport, PairTask, PositionSample, RunId, VariantId, WorkerInfo, check_engine_name, check_sha256,
};
use engine::nnue::SimdLevel;

use crate::error::{Error, Result};
use crate::pb;

impl From<PairTask> for pb::PairTask {
    fn from(task: PairTask) -> pb::PairTask {
        let [first_variant, second_variant] = task.variants;
        pb::PairTask {
            pair_index: task.pair_index,
            pairing: task.pairing,
            opening_index: task.opening_index,
            opening: task.opening,
            second_opening: task.second_opening.unwrap_or_default(),
            first_variant: first_variant.into(),
            second_variant: second_variant.into(),
        }
    }
}

impl TryFrom<pb::PairTask> for PairTask {
    type Error = Error;
    fn try_from(task: pb::PairTask) -> Result<PairTask> {
        Ok(PairTask {
            pair_index: task.pair_index,
            pairing: task.pairing,
            opening_index: task.opening_index,
            opening: non_empty(task.opening, "opening")?,
            second_opening: Some(task.second_opening).filter(|s| !s.is_empty()),
            variants: [
                VariantId::new(non_empty(task.first_variant, "first_variant")?),
                VariantId::new(non_empty(task.second_variant, "second_variant")?),
            ],
        })
    }
}

impl From<Lease> for pb::Lease {
    fn from(lease: Lease) -> pb::Lease {
        pb::Lease {
            lease_id: lease.id.get(),
            run_id: lease.run.get(),
            tasks: lease.tasks.into_iter().map(Into::into).collect(),
            deadline_unix_ms: lease.deadline_unix_ms,
            tc: Some(lease.tc.into()),
            adjudication: Some(lease.adjudication.into()),
            sample_every: lease.sample_every,
            variants: lease.variants.into_iter().map(Into::into).collect(),
            spsa: lease.spsa.map(Into::into),
            tablebases: lease.tablebases.into_iter().map(Into::into).collect(),
        }
    }
}

impl TryFrom<pb::Lease> for Lease {
    type Error = Error;
    fn try_from(lease: pb::Lease) -> Result<Lease> {
        if lease.tasks.is_empty() {
            return Err(Error::invalid("tasks", "a lease holds at least one pair"));
        }
        let lease = Lease {
            id: LeaseId::new(lease.lease_id),
            run: RunId::new(lease.run_id),
            tasks: each(lease.tasks, "tasks")?,
            deadline_unix_ms: lease.deadline_unix_ms,
            tc: required(lease.tc, "tc")?,
            adjudication: required(lease.adjudication, "adjudication")?,
            sample_every: lease.sample_every,
            variants: each(lease.variants, "variants")?,
            spsa: lease.spsa.map(Into::into),
            tablebases: each(lease.tablebases, "tablebases")?,
        };
        // The worker looks every player up in `variants`: a dangling name is refused here
        // rather than failing a game later.
        for (i, task) in lease.tasks.iter().enumerate() {
            for (id, field) in task.variants.iter().zip(["first_variant", "second_variant"]) {
                if !lease.variants.iter().any(|v| &v.id == id) {
                    let reason = format!("variant `{id}` is not among the lease's variants");
                    return Err(Error::invalid(format!("tasks[{i}].{field}"), reason));
                }
            }
        }
        Ok(lease)
    }
}

impl From<GameOutcome> for pb::GameOutcome {
    fn from(outcome: GameOutcome) -> pb::GameOutcome {
        match outcome {
            GameOutcome::RedWins => pb::GameOutcome::RedWins,
            GameOutcome::BlackWins => pb::GameOutcome::BlackWins,
            GameOutcome::Draw => pb::GameOutcome::Draw,
        }
    }
}

impl TryFrom<pb::GameOutcome> for GameOutcome {
    type Error = Error;
    fn try_from(outcome: pb::GameOutcome) -> Result<GameOutcome> {
        match outcome {
            pb::GameOutcome::Unspecified => Err(Error::missing("")),
            pb::GameOutcome::RedWins => Ok(GameOutcome::RedWins),
            pb::GameOutcome::BlackWins => Ok(GameOutcome::BlackWins),
            pb::GameOutcome::Draw => Ok(GameOutcome::Draw),
        }
    }
}

impl From<PositionSample> for pb::PositionSample {
    fn from(p: PositionSample) -> pb::PositionSample {
        pb::PositionSample {
            ply: p.ply,
            fen: p.fen,
            red_to_move: p.red_to_move,
            static_eval: p.static_eval,
            search_score: p.search_score,
            best_move: p.best_move,
            in_check: p.in_check,
            quiet: p.quiet,
        }
    }
}

impl TryFrom<pb::PositionSample> for PositionSample {
    type Error = Error;
    fn try_from(p: pb::PositionSample) -> Result<PositionSample> {
        Ok(PositionSample {
            ply: p.ply,
            fen: non_empty(p.fen, "fen")?,
            red_to_move: p.red_to_move,
            static_eval: p.static_eval,
            search_score: p.search_score,
            best_move: p.best_move,
            in_check: p.in_check,
            quiet: p.quiet,
        })
    }
}

impl From<MoveStat> for pb::MoveStat {
    fn from(m: MoveStat) -> pb::MoveStat {
        pb::MoveStat { score_cp: m.score, time_ms: m.time_ms }
    }
}

impl From<pb::MoveStat> for MoveStat {
    fn from(m: pb::MoveStat) -> MoveStat {
        MoveStat { score: m.score_cp, time_ms: m.time_ms }
    }
}

impl From<ForfeitAttempt> for pb::ForfeitAttempt {
    fn from(f: ForfeitAttempt) -> pb::ForfeitAttempt {
        pb::ForfeitAttempt { uci_move: f.mv, time_ms: f.time_ms }
    }
}

impl From<pb::ForfeitAttempt> for ForfeitAttempt {
    fn from(f: pb::ForfeitAttempt) -> ForfeitAttempt {
        ForfeitAttempt { mv: f.uci_move, time_ms: f.time_ms }
    }
}

impl From<GameReport> for pb::GameReport {
    fn from(game: GameReport) -> pb::GameReport {
        pb::GameReport {
            red_variant: game.red.into(),
            black_variant: game.black.into(),
            start_fen: game.start_fen,
            outcome: pb::GameOutcome::from(game.outcome).into(),
            reason: game.reason.as_str().to_owned(),
            moves: game.moves,
            duration_ms: game.duration_ms,
            nodes: game.nodes,
            positions: game.positions.into_iter().map(Into::into).collect(),
            move_stats: game.move_stats.into_iter().map(Into::into).collect(),
            forfeit: game.forfeit.map(Into::into),
        }
    }
}

impl TryFrom<pb::GameReport> for GameReport {
    type Error = Error;
    fn try_from(game: pb::GameReport) -> Result<GameReport> {
        Ok(GameReport {
            red: VariantId::new(non_empty(game.red_variant, "red_variant")?),
            black: VariantId::new(non_empty(game.black_variant, "black_variant")?),
            start_fen: non_empty(game.start_fen, "start_fen")?,
            outcome: enumeration::<pb::GameOutcome, _>(game.outcome, "outcome")?,
            reason: game.reason.parse().map_err(|e: Error| Error::invalid("reason", e.to_string()))?,
            moves: game.moves,
            move_stats: game.move_stats.into_iter().map(MoveStat::from).collect(),
            forfeit: game.forfeit.map(ForfeitAttempt::from),
            duration_ms: game.duration_ms,
            nodes: game.nodes,
            positions: each(game.positions, "positions")?,
        })
    }
}

impl From<PairReport> for pb::PairReport {
    fn from(pair: PairReport) -> pb::PairReport {
        let [first, second] = pair.games;
        pb::PairReport { pair_index: pair.pair_index, first_game: Some(first.into()), second_game: Some(second.into()) }
    }
}

impl TryFrom<pb::PairReport> for PairReport {
    type Error = Error;
    fn try_from(pair: pb::PairReport) -> Result<PairReport> {
        Ok(PairReport {
            pair_index: pair.pair_index,
            games: [required(pair.first_game, "first_game")?, required(pair.second_game, "second_game")?],
        })
    }
}

impl From<BatchResult> for pb::BatchResult {
    fn from(batch: BatchResult) -> pb::BatchResult {
        pb::BatchResult {
            lease_id: batch.lease.get(),
            seq: batch.seq,
            pairs: batch.pairs.into_iter().map(Into::into).collect(),
            is_final: batch.is_final,
        }
    }
}

impl TryFrom<pb::BatchResult> for BatchResult {
    type Error = Error;
    fn try_from(batch: pb::BatchResult) -> Result<BatchResult> {
        Ok(BatchResult {
            lease: LeaseId::new(batch.lease_id),
            seq: batch.seq,
            pairs: each(batch.pairs, "pairs")?,
            is_final: batch.is_final,
        })
    }
}

impl From<BatchAck> for pb::BatchAck {
    fn from(ack: BatchAck) -> pb::BatchAck {
        pb::BatchAck {
            lease_id: ack.lease.get(),
            seq: ack.seq,
            recorded_pairs: ack.recorded_pairs,
            duplicate: ack.duplicate,
            lease_closed: ack.lease_closed,
        }
    }
}

impl TryFrom<pb::BatchAck> for BatchAck {
    type Error = Error;
    fn try_from(ack: pb::BatchAck) -> Result<BatchAck> {
        Ok(BatchAck {
            lease: LeaseId::new(ack.lease_id),
            seq: ack.seq,
            recorded_pairs: ack.recorded_pairs,
            duplicate: ack.duplicate,
            lease_closed: ack.lease_closed,
        })
    }
}

impl From<LeaseReply> for pb::LeaseResponse {
    fn from(reply: LeaseReply) -> pb::LeaseResponse {
        use pb::lease_response::Grant;
        let grant = match reply.grant {
            LeaseGrant::Lease(lease) => Grant::Lease(lease.into()),
            LeaseGrant::NoWork { retry_after_ms } => Grant::NoWork(pb::NoWork { retry_after_ms }),
        };
        pb::LeaseResponse {
            acks: reply.acks.into_iter().map(Into::into).collect(),
            closed_lease_ids: reply.closed.iter().map(|l| l.get()).collect(),
            grant: Some(grant),
        }
    }
}

impl TryFrom<pb::LeaseResponse> for LeaseReply {
    type Error = Error;
    fn try_from(reply: pb::LeaseResponse) -> Result<LeaseReply> {
        use pb::lease_response::Grant;
        let grant = match reply.grant.ok_or_else(|| Error::missing("grant"))? {
            Grant::Lease(lease) => LeaseGrant::Lease(lease.try_into().map_err(|e: Error| e.within("lease"))?),
            Grant::NoWork(no_work) => LeaseGrant::NoWork { retry_after_ms: no_work.retry_after_ms },
        };
        Ok(LeaseReply {
            acks: each(reply.acks, "acks")?,
            closed: reply.closed_lease_ids.into_iter().map(LeaseId::new).collect(),
            grant,
        })
    }
}

impl From<WorkerInfo> for pb::WorkerInfo {
    fn from(worker: WorkerInfo) -> pb::WorkerInfo {
        pb::WorkerInfo {
            name: worker.name,
            host: worker.host,
            cores: worker.cores,
            engine_version: worker.engine_version,
            bench_signature: worker.bench_signature,
            worker_key: worker.worker_key,
            rules_version: worker.rules_version,
            engines: worker.engines.into_iter().map(Into::into).collect(),
            bench_nps: worker.bench_nps,
            simd: worker.simd.map_or(pb::SimdLevel::Unspecified, pb::SimdLevel::from).into(),
            nnue_bench_nps: worker.nnue_bench_nps,
        }
    }
}

impl From<SimdLevel> for pb::SimdLevel {
    fn from(level: SimdLevel) -> pb::SimdLevel {
        match level {
            SimdLevel::Scalar => pb::SimdLevel::Scalar,
            SimdLevel::Avx2 => pb::SimdLevel::Avx2,
        }
    }
}

/// A worker's SIMD level: `None` for UNSPECIFIED (a worker older than the field) and for a
/// value this build does not know (a newer worker's level), which is no reason to refuse it.
fn simd_level(raw: i32) -> Option<SimdLevel> {
    match pb::SimdLevel::try_from(raw) {
        Ok(pb::SimdLevel::Scalar) => Some(SimdLevel::Scalar),
        Ok(pb::SimdLevel::Avx2) => Some(SimdLevel::Avx2),
        Ok(pb::SimdLevel::Unspecified) | Err(_) => None,
    }
}

impl From<EngineInfo> for pb::EngineInfo {
    fn from(engine: EngineInfo) -> pb::EngineInfo {
        pb::EngineInfo { name: engine.name, id_name: engine.id_name, sha256: engine.sha256 }
    }
}

impl TryFrom<pb::EngineInfo> for EngineInfo {
    type Error = Error;
    fn try_from(engine: pb::EngineInfo) -> Result<EngineInfo> {
        check_engine_name(&engine.name).map_err(|reason| Error::invalid("name", reason))?;
        check_sha256(&engine.sha256).map_err(|reason| Error::invalid("sha256", reason))?;
        if engine.id_name.len() > MAX_ENGINE_ID_BYTES || engine.id_name.chars().any(char::is_control) {
            return Err(Error::invalid("id_name", format!("one line of at most {MAX_ENGINE_ID_BYTES} bytes")));
        }
        Ok(EngineInfo { name: engine.name, id_name: engine.id_name, sha256: engine.sha256 })
    }
}

/// The longest `id name` an engine may advertise.
const MAX_ENGINE_ID_BYTES: usize = 200;

impl TryFrom<pb::WorkerInfo> for WorkerInfo {
    type Error = Error;
    fn try_from(worker: pb::WorkerInfo) -> Result<WorkerInfo> {
        let worker = WorkerInfo {
            name: worker.name,
            host: worker.host,
            cores: worker.cores,
            engine_version: worker.engine_version,
            bench_signature: worker.bench_signature,
            worker_key: worker.worker_key,
            rules_version: worker.rules_version,
            engines: worker_engines(worker.engines)?,
            bench_nps: worker.bench_nps,
            simd: simd_level(worker.simd),
            nnue_bench_nps: worker.nnue_bench_nps,
        };
        worker.validate()?;
        Ok(worker)
    }
}

/// A worker's engines: each valid, each name once.
fn worker_engines(engines: Vec<pb::EngineInfo>) -> Result<Vec<EngineInfo>> {
    let engines: Vec<EngineInfo> = each(engines, "engines")?;
    for (i, engine) in engines.iter().enumerate() {
        if engines[..i].iter().any(|e| e.name == engine.name) {
            return Err(Error::invalid(format!("engines[{i}].name"), format!("engine `{}` twice", engine.name)));
        }
    }
    Ok(engines)
}
