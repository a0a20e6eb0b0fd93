//! Plays the pairs of a lease on several threads and turns each finished pair into the
//! protocol's `PairReport`, with positions sampled for tuning. No networking here: the
//! client feeds leases in and ships reports out.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, mpsc};

use engine::Position;
use engine::eval::{Params, evaluate};
use engine::search::Quiescence;
use engine::tablebase::Tablebases;
use proto::domain::{
    ForfeitAttempt, GameOutcome, GameReport, Lease, MoveStat, PairReport, PairTask, PositionSample, Variant, VariantId,
    VariantKind,
};

use crate::error::{Error, Result};
use crate::game::{GameRecord, GameSettings, play_game};
use crate::networks::NetworkCache;
use crate::openings::parse_opening;
use crate::player::{InProcess, Player};

/// Builds the player of a variant (in-process parameters or an external engine).
pub type PlayerFactory<'a> = dyn Fn(&Variant) -> Result<Box<dyn Player>> + Sync + 'a;

/// The in-process engine's factory: parameter sets only, with the HCE (a set that names a
/// network plays only through [`params_player`], given the worker's networks). An external
/// variant is refused here; it plays only through the worker's allow-list
/// ([`crate::engines::EngineSet::player`]).
pub fn default_player(variant: &Variant) -> Result<Box<dyn Player>> {
    params_player(variant, None)
}

/// The in-process engine with a variant's parameter set, evaluating with the network it names
/// from `networks` (fetched before the lease is played; a network not there is an error naming
/// it).
pub fn params_player(variant: &Variant, networks: Option<&NetworkCache>) -> Result<Box<dyn Player>> {
    match &variant.spec.kind {
        VariantKind::Params { toml } => {
            let params = engine::ParamSet::from_toml_str(toml).map_err(|e| Error::Engine {
                engine: variant.spec.name.clone(),
                reason: format!("parameters of variant {}: {e}", variant.id),
            })?;
            let name = variant.spec.name.clone();
            let Some(id) = params.eval_spec.network() else {
                return Ok(Box::new(InProcess::new(name, params)));
            };
            let net = networks.map(|cache| cache.get(id)).transpose()?.flatten().ok_or_else(|| Error::Engine {
                engine: name.clone(),
                reason: format!("variant {} plays network {id}, which this worker has not fetched", variant.id),
            })?;
            Ok(Box::new(InProcess::with_eval(name, params, engine::EvalKind::Nnue(net))))
        }
        VariantKind::External { engine, .. } => Err(Error::EngineNotGiven {
            variant: variant.spec.name.clone(),
            engine: engine.clone(),
            given: "none".into(),
        }),
    }
}

/// Set once to stop playing early (the worker was told to stop): no pair starts after it, and
/// games in progress end before their next move and are not reported.
#[derive(Clone, Debug, Default)]
pub struct StopFlag(Arc<AtomicBool>);

impl StopFlag {
    pub fn new() -> StopFlag {
        StopFlag::default()
    }

    pub fn stop(&self) {
        self.0.store(true, Ordering::SeqCst);
    }

    pub fn is_stopped(&self) -> bool {
        self.0.load(Ordering::SeqCst)
    }
}

/// A player that refuses to move once the worker stops, and notes that it did: the game it
/// was playing is abandoned (its pair goes back to the pool), not reported as a forfeit.
struct Stoppable {
    inner: Box<dyn Player>,
    stop: StopFlag,
    abandoned: Arc<AtomicBool>,
}

impl Stoppable {
    fn check(&self) -> Result<()> {
        if self.stop.is_stopped() {
            self.abandoned.store(true, Ordering::SeqCst);
            return Err(Error::Engine {
                engine: self.inner.name().to_owned(),
                reason: "the worker is stopping".into(),
            });
        }
        Ok(())
    }
}

impl Player for Stoppable {
    fn name(&self) -> &str {
        self.inner.name()
    }

    fn new_game(&mut self) -> Result<()> {
        self.check()?;
        self.inner.new_game()
    }

    fn play(&mut self, pos: &Position, limits: &engine::Limits) -> Result<crate::player::Reply> {
        self.check()?;
        self.inner.play(pos, limits)
    }
}

/// Plays every task of `lease` with `threads` threads; `on_pair` receives each finished pair
/// (in finishing order) as soon as it is done.
pub fn play_lease(
    lease: &Lease,
    threads: usize,
    make_player: &PlayerFactory<'_>,
    worker_name: &str,
    on_pair: impl FnMut(PairReport),
) -> Result<()> {
    play_lease_until(lease, threads, make_player, worker_name, &StopFlag::new(), on_pair)
}

/// [`play_lease`] until `stop` is set: then no new pair starts, games in progress are
/// abandoned at their next move, and what was abandoned is not reported (nor an error).
pub fn play_lease_until(
    lease: &Lease,
    threads: usize,
    make_player: &PlayerFactory<'_>,
    worker_name: &str,
    stop: &StopFlag,
    on_pair: impl FnMut(PairReport),
) -> Result<()> {
    play_lease_with(lease, threads, make_player, worker_name, stop, None, on_pair)
}

/// [`play_lease_until`] with endgame tables: a game that enters one ends with its verdict.
pub fn play_lease_with(
    lease: &Lease,
    threads: usize,
    make_player: &PlayerFactory<'_>,
    worker_name: &str,
    stop: &StopFlag,
    tablebases: Option<Arc<Tablebases>>,
    mut on_pair: impl FnMut(PairReport),
) -> Result<()> {
    let variants: HashMap<&VariantId, &Variant> = lease.variants.iter().map(|v| (&v.id, v)).collect();
    for task in &lease.tasks {
        for id in &task.variants {
            if !variants.contains_key(id) {
                return Err(Error::Engine {
                    engine: id.to_string(),
                    reason: "the lease does not describe this variant".into(),
                });
            }
        }
    }
    let tablebases = tablebases.map(|tables| crate::game::PinnedTables {
        tables,
        pins: Arc::new(proto::domain::TablePin::to_engine(&lease.tablebases)),
    });
    let settings = GameSettings { adjudication: lease.adjudication, tablebases, ..GameSettings::new(lease.tc) };
    let next = AtomicUsize::new(0);
    let (tx, rx) = mpsc::channel::<Result<PairReport>>();
    let mut first_error = None;
    std::thread::scope(|scope| {
        for _ in 0..threads.max(1) {
            let tx = tx.clone();
            let (next, variants, settings) = (&next, &variants, &settings);
            scope.spawn(move || {
                let mut players: HashMap<VariantId, Box<dyn Player>> = HashMap::new();
                let abandoned = Arc::new(AtomicBool::new(false));
                let stoppable = |v: &Variant| -> Result<Box<dyn Player>> {
                    let inner = make_player(v)?;
                    Ok(Box::new(Stoppable { inner, stop: stop.clone(), abandoned: Arc::clone(&abandoned) }))
                };
                loop {
                    if stop.is_stopped() {
                        break;
                    }
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(task) = lease.tasks.get(i) else {
                        break;
                    };
                    let report = play_task(task, variants, &mut players, &stoppable, settings, lease.sample_every);
                    if abandoned.load(Ordering::SeqCst) {
                        tracing::info!(
                            worker = %worker_name,
                            pair = task.pair_index,
                            "pair abandoned: the worker stops"
                        );
                        break;
                    }
                    if tx.send(report).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);
        for report in rx {
            match report {
                Ok(r) => on_pair(r),
                Err(e) => {
                    tracing::warn!(worker = %worker_name, error = %e, "pair not played");
                    first_error.get_or_insert(e);
                }
            }
        }
    });
    first_error.map_or(Ok(()), Err)
}

fn play_task(
    task: &PairTask,
    variants: &HashMap<&VariantId, &Variant>,
    players: &mut HashMap<VariantId, Box<dyn Player>>,
    make_player: &PlayerFactory<'_>,
    settings: &GameSettings,
    sample_every: u32,
) -> Result<PairReport> {
    // Each game's opening (a datagen run's games each have their own random plies).
    let openings = [
        parse_opening(task.opening_index as usize, task.opening_of(0))?,
        parse_opening(task.opening_index as usize, task.opening_of(1))?,
    ];
    for id in &task.variants {
        if !players.contains_key(id) {
            let v = variants
                .get(id)
                .ok_or_else(|| Error::Engine { engine: id.to_string(), reason: "unknown variant".into() })?;
            players.insert(id.clone(), make_player(v)?);
        }
    }
    let [a, b] = &task.variants;
    let mut games = Vec::with_capacity(2);
    for (opening, (red, black)) in openings.iter().zip([(a, b), (b, a)]) {
        let record = if red == black {
            // A variant against itself (a sanity run): two instances.
            let v = variants
                .get(red)
                .ok_or_else(|| Error::Engine { engine: red.to_string(), reason: "unknown variant".into() })?;
            let mut second = make_player(v)?;
            let first = players
                .get_mut(red)
                .ok_or_else(|| Error::Engine { engine: red.to_string(), reason: "missing player".into() })?;
            play_game([first.as_mut(), second.as_mut()], &opening.position, settings)
        } else {
            let mut pr = players
                .remove(red)
                .ok_or_else(|| Error::Engine { engine: red.to_string(), reason: "missing player".into() })?;
            let mut pb = players
                .remove(black)
                .ok_or_else(|| Error::Engine { engine: black.to_string(), reason: "missing player".into() })?;
            let rec = play_game([pr.as_mut(), pb.as_mut()], &opening.position, settings);
            players.insert(red.clone(), pr);
            players.insert(black.clone(), pb);
            rec
        };
        if let Some(detail) = &record.detail {
            tracing::info!(red = %red, black = %black, termination = record.termination.as_str(), %detail, "forfeit");
        }
        games.push(to_report(&record, red, black, sample_every));
    }
    let [g0, g1]: [GameReport; 2] =
        games.try_into().map_err(|_| Error::Engine { engine: a.to_string(), reason: "pair incomplete".into() })?;
    Ok(PairReport { pair_index: task.pair_index, games: [g0, g1] })
}

/// The protocol's view of a finished game (with each move's score and time, and the attempt
/// that forfeited it), with every `sample_every`-th position (from ply 1) sampled: static eval
/// and quiescence with the default parameters, the mover's reported search score (none when it
/// reported none: nothing is filled in), the move played.
pub fn to_report(record: &GameRecord, red: &VariantId, black: &VariantId, sample_every: u32) -> GameReport {
    let outcome = GameOutcome::from(record.result);
    let mut positions = Vec::new();
    if sample_every > 0
        && let Ok(mut pos) = Position::from_fen(&record.start_fen)
    {
        let params = Params::default();
        let mut quiet = Quiescence::new();
        for (ply, &mv) in record.moves.iter().enumerate() {
            if ply > 0 && (ply as u32).is_multiple_of(sample_every) {
                let static_eval = evaluate(&pos, &params);
                positions.push(PositionSample {
                    ply: ply as u32,
                    fen: pos.fen(),
                    red_to_move: pos.side_to_move() == engine::Color::Red,
                    static_eval,
                    search_score: record.scores.get(ply).copied().flatten(),
                    best_move: mv.to_string(),
                    in_check: pos.in_check(),
                    quiet: quiet.score(&pos, &params) == static_eval,
                });
            }
            pos.play_unchecked(mv);
        }
    }
    GameReport {
        red: red.clone(),
        black: black.clone(),
        start_fen: record.start_fen.clone(),
        outcome,
        reason: record.termination,
        moves: record.moves.iter().map(ToString::to_string).collect(),
        move_stats: record
            .scores
            .iter()
            .zip(&record.times_ms)
            .map(|(&score, &time_ms)| MoveStat { score, time_ms })
            .collect(),
        forfeit: record.attempt.map(|a| ForfeitAttempt { mv: a.mv.map(|m| m.to_string()), time_ms: a.time_ms }),
        duration_ms: record.duration.as_millis() as u64,
        nodes: record.nodes,
        positions,
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use engine::notation::parse_uci;
    use engine::rules::GameResult;
    use proto::domain::Termination;

    use super::*;

    /// A missing engine score stays missing: the sample's score is `None`, never the static
    /// evaluation; a given score is the mover's own view, unchanged.
    #[test]
    fn samples_carry_the_movers_score_or_none() {
        let moves: Vec<_> = ["h2e2", "h9g7", "h0g2", "i9h9"].iter().map(|m| parse_uci(m).expect("a move")).collect();
        let record = GameRecord {
            start_fen: engine::START_FEN.into(),
            moves,
            scores: vec![Some(20), Some(-15), None, Some(-7)],
            times_ms: vec![1; 4],
            result: GameResult::Draw,
            termination: Termination::AdjudicatedDraw,
            attempt: None,
            detail: None,
            nodes: 100,
            duration: Duration::from_millis(4),
        };
        let report = to_report(&record, &"a".into(), &"b".into(), 1);
        let samples: Vec<(u32, bool, Option<i32>, &str)> =
            report.positions.iter().map(|p| (p.ply, p.red_to_move, p.search_score, p.best_move.as_str())).collect();
        assert_eq!(samples, [(1, false, Some(-15), "h9g7"), (2, true, None, "h0g2"), (3, false, Some(-7), "i9h9")]);
        let start = Position::startpos();
        assert!(report.positions.iter().all(|p| p.fen != start.fen()), "ply 0 is never sampled");
    }
}
