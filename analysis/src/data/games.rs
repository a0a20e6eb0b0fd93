//! Aggregates of the `games` table: per pairing W/D/L and pentanomial counts, per-worker
//! pentanomials, termination reasons, game lengths, and one SPRT run's pair sequence.
//!
//! A pairing is oriented by variant id (`a` is the smaller id) so that a pair's two games,
//! played with colours swapped, land in one group whatever their order; callers flip to the
//! run's own orientation (candidate first) with [`PairingCounts::flipped`].

use std::path::Path;

use polars::prelude::*;
use proto::columns::{RUN, games as column};
use proto::domain::{GameOutcome, Termination};

use super::{Table, collect, data_error, f64s, scan, strings, u64s};
use crate::error::Result;

/// W/D/L and pentanomial counts of variant `a` against `b` in one run.
#[derive(Clone, Debug, PartialEq)]
pub struct PairingCounts {
    pub run: u64,
    pub a: String,
    pub b: String,
    /// Complete pairs by `a`'s points in the pair: 0, 0.5, 1, 1.5, 2.
    pub pentanomial: [u64; 5],
    /// Games (complete pairs or not), from `a`'s side.
    pub wins: u64,
    pub draws: u64,
    pub losses: u64,
}

impl PairingCounts {
    /// The same counts from `b`'s side.
    pub fn flipped(&self) -> PairingCounts {
        let mut pentanomial = self.pentanomial;
        pentanomial.reverse();
        PairingCounts {
            run: self.run,
            a: self.b.clone(),
            b: self.a.clone(),
            pentanomial,
            wins: self.losses,
            draws: self.draws,
            losses: self.wins,
        }
    }

    pub fn games(&self) -> u64 {
        self.wins + self.draws + self.losses
    }
}

/// Pentanomial counts of one worker in one pairing (pairs credited to the worker that played
/// the pair's first game).
#[derive(Clone, Debug, PartialEq)]
pub struct WorkerCounts {
    pub run: u64,
    pub a: String,
    pub b: String,
    pub worker: String,
    pub pentanomial: [u64; 5],
}

#[derive(Clone, Debug, PartialEq)]
pub struct ReasonCount {
    pub run: u64,
    pub reason: Termination,
    pub games: u64,
}

/// Game length and cost per run.
#[derive(Clone, Debug, PartialEq)]
pub struct LengthStats {
    pub run: u64,
    pub games: u64,
    pub mean_plies: f64,
    pub median_plies: f64,
    pub min_plies: u64,
    pub max_plies: u64,
    pub mean_duration_ms: f64,
    pub nodes: u64,
}

/// One complete pair of an SPRT run, in the order its first game was recorded.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PairRow {
    pub first_game: u64,
    /// `a`'s points in the pair times two (0..=4): the pentanomial index.
    pub index: usize,
}

/// Total games in the data (optionally one run).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct GameTotals {
    pub games: u64,
    pub runs: u64,
}

/// Games with `a`/`b` (the two variants ordered by id) and `score_a` (a's points).
fn oriented(lf: LazyFrame) -> LazyFrame {
    let red = col(column::RED_VARIANT);
    let black = col(column::BLACK_VARIANT);
    let score_red = when(col(column::RESULT).eq(lit(GameOutcome::RedWins.as_str())))
        .then(lit(1.0f64))
        .when(col(column::RESULT).eq(lit(GameOutcome::BlackWins.as_str())))
        .then(lit(0.0f64))
        .otherwise(lit(0.5f64));
    lf.with_columns([
        when(red.clone().lt_eq(black.clone())).then(red.clone()).otherwise(black.clone()).alias("a"),
        when(red.clone().lt_eq(black.clone())).then(black.clone()).otherwise(red.clone()).alias("b"),
        score_red.alias("score_red"),
    ])
    .with_column(
        when(col(column::RED_VARIANT).eq(col("a")))
            .then(col("score_red"))
            .otherwise(lit(1.0f64) - col("score_red"))
            .alias("score_a"),
    )
}

/// Complete pairs: `run, a, b, pair_id, first_game, worker, index`.
fn complete_pairs(lf: LazyFrame) -> LazyFrame {
    let columns = [
        RUN,
        column::PAIR_ID,
        column::GAME_ID,
        column::RED_VARIANT,
        column::BLACK_VARIANT,
        column::RESULT,
        column::WORKER,
    ];
    oriented(lf.select(columns.map(col)))
        .group_by([col(RUN), col(column::PAIR_ID), col("a"), col("b")])
        .agg([
            col("score_a").sum().alias("points"),
            len().alias("games"),
            col(column::GAME_ID).min().alias("first_game"),
            col(column::WORKER).sort(SortOptions::default()).first().alias(column::WORKER),
        ])
        .filter(col("games").eq(lit(2u32)))
        .with_column((col("points") * lit(2.0f64)).cast(DataType::UInt64).alias("index"))
}

fn games_scan(data: &Path, run: Option<u64>) -> Result<Option<LazyFrame>> {
    scan(data, Table::Games, run)
}

pub fn game_totals(data: &Path, run: Option<u64>) -> Result<GameTotals> {
    let Some(lf) = games_scan(data, run)? else {
        return Ok(GameTotals::default());
    };
    let df = collect(lf.select([len().alias("games"), col(RUN).n_unique().alias("runs")]), data)?;
    Ok(GameTotals { games: u64s(&df, "games", data)?[0], runs: u64s(&df, "runs", data)?[0] })
}

/// Per pairing of every run: pentanomial (complete pairs) and W/D/L (all games) of `a`.
pub fn pairing_counts(data: &Path, run: Option<u64>) -> Result<Vec<PairingCounts>> {
    let Some(lf) = games_scan(data, run)? else {
        return Ok(Vec::new());
    };
    let games = collect(
        oriented(lf.clone().select([
            col(RUN),
            col(column::RED_VARIANT),
            col(column::BLACK_VARIANT),
            col(column::RESULT),
        ]))
        .group_by([col(RUN), col("a"), col("b"), col("score_a")])
        .agg([len().alias("n")]),
        data,
    )?;
    let pairs = collect(
        complete_pairs(lf).group_by([col(RUN), col("a"), col("b"), col("index")]).agg([len().alias("n")]),
        data,
    )?;
    let mut out: Vec<PairingCounts> = Vec::new();
    let find = |out: &mut Vec<PairingCounts>, run: u64, a: &str, b: &str| -> usize {
        if let Some(i) = out.iter().position(|p| p.run == run && p.a == a && p.b == b) {
            return i;
        }
        out.push(PairingCounts {
            run,
            a: a.to_owned(),
            b: b.to_owned(),
            pentanomial: [0; 5],
            wins: 0,
            draws: 0,
            losses: 0,
        });
        out.len() - 1
    };
    let (runs, a, b, score, n) = (
        u64s(&games, RUN, data)?,
        strings(&games, "a", data)?,
        strings(&games, "b", data)?,
        f64s(&games, "score_a", data)?,
        u64s(&games, "n", data)?,
    );
    for i in 0..runs.len() {
        let k = find(&mut out, runs[i], &a[i], &b[i]);
        match score[i] {
            s if s > 0.75 => out[k].wins += n[i],
            s if s < 0.25 => out[k].losses += n[i],
            _ => out[k].draws += n[i],
        }
    }
    let (runs, a, b, index, n) = (
        u64s(&pairs, RUN, data)?,
        strings(&pairs, "a", data)?,
        strings(&pairs, "b", data)?,
        u64s(&pairs, "index", data)?,
        u64s(&pairs, "n", data)?,
    );
    for i in 0..runs.len() {
        let k = find(&mut out, runs[i], &a[i], &b[i]);
        out[k].pentanomial[(index[i] as usize).min(4)] += n[i];
    }
    out.sort_by(|x, y| (x.run, &x.a, &x.b).cmp(&(y.run, &y.a, &y.b)));
    Ok(out)
}

/// Per pairing and worker: the pentanomial counts of the pairs the worker played.
pub fn worker_counts(data: &Path, run: Option<u64>) -> Result<Vec<WorkerCounts>> {
    let Some(lf) = games_scan(data, run)? else {
        return Ok(Vec::new());
    };
    let df = collect(
        complete_pairs(lf)
            .group_by([col(RUN), col("a"), col("b"), col(column::WORKER), col("index")])
            .agg([len().alias("n")]),
        data,
    )?;
    let (runs, a, b, worker, index, n) = (
        u64s(&df, RUN, data)?,
        strings(&df, "a", data)?,
        strings(&df, "b", data)?,
        strings(&df, column::WORKER, data)?,
        u64s(&df, "index", data)?,
        u64s(&df, "n", data)?,
    );
    let mut out: Vec<WorkerCounts> = Vec::new();
    for i in 0..runs.len() {
        let k = match out.iter().position(|w| w.run == runs[i] && w.a == a[i] && w.b == b[i] && w.worker == worker[i]) {
            Some(k) => k,
            None => {
                out.push(WorkerCounts {
                    run: runs[i],
                    a: a[i].clone(),
                    b: b[i].clone(),
                    worker: worker[i].clone(),
                    pentanomial: [0; 5],
                });
                out.len() - 1
            }
        };
        out[k].pentanomial[(index[i] as usize).min(4)] += n[i];
    }
    out.sort_by(|x, y| (x.run, &x.a, &x.b, &x.worker).cmp(&(y.run, &y.a, &y.b, &y.worker)));
    Ok(out)
}

/// Games per termination reason and run, most frequent first.
pub fn reasons(data: &Path, run: Option<u64>) -> Result<Vec<ReasonCount>> {
    let Some(lf) = games_scan(data, run)? else {
        return Ok(Vec::new());
    };
    let df = collect(lf.group_by([col(RUN), col(column::REASON)]).agg([len().alias("n")]), data)?;
    let (runs, reason, n) = (u64s(&df, RUN, data)?, strings(&df, column::REASON, data)?, u64s(&df, "n", data)?);
    let mut out = Vec::with_capacity(runs.len());
    for i in 0..runs.len() {
        let reason: Termination =
            reason[i].parse().map_err(|e: proto::Error| data_error(data, format!("run {}: {e}", runs[i])))?;
        out.push(ReasonCount { run: runs[i], reason, games: n[i] });
    }
    out.sort_by(|x, y| x.run.cmp(&y.run).then(y.games.cmp(&x.games)).then(x.reason.as_str().cmp(y.reason.as_str())));
    Ok(out)
}

/// Game length (plies), time and nodes per run.
pub fn lengths(data: &Path, run: Option<u64>) -> Result<Vec<LengthStats>> {
    let Some(lf) = games_scan(data, run)? else {
        return Ok(Vec::new());
    };
    let df = collect(
        lf.group_by([col(RUN)]).agg([
            len().alias("games"),
            col(column::PLIES).cast(DataType::Float64).mean().alias("mean_plies"),
            col(column::PLIES).cast(DataType::Float64).median().alias("median_plies"),
            col(column::PLIES).min().alias("min_plies"),
            col(column::PLIES).max().alias("max_plies"),
            col(column::DURATION_MS).cast(DataType::Float64).mean().alias("mean_duration_ms"),
            col(column::NODES).sum().alias("nodes"),
        ]),
        data,
    )?;
    let runs = u64s(&df, RUN, data)?;
    let games = u64s(&df, "games", data)?;
    let mean = f64s(&df, "mean_plies", data)?;
    let median = f64s(&df, "median_plies", data)?;
    let min = u64s(&df, "min_plies", data)?;
    let max = u64s(&df, "max_plies", data)?;
    let duration = f64s(&df, "mean_duration_ms", data)?;
    let nodes = u64s(&df, "nodes", data)?;
    let mut out: Vec<LengthStats> = (0..runs.len())
        .map(|i| LengthStats {
            run: runs[i],
            games: games[i],
            mean_plies: mean[i],
            median_plies: median[i],
            min_plies: min[i],
            max_plies: max[i],
            mean_duration_ms: duration[i],
            nodes: nodes[i],
        })
        .collect();
    out.sort_by_key(|l| l.run);
    Ok(out)
}

/// The complete pairs of one run's pairing `a` vs `b` (ids ordered as in [`PairingCounts`]),
/// in the order their first games were recorded: what the LLR-against-games chart replays.
pub fn pairs(data: &Path, run: u64, a: &str, b: &str) -> Result<Vec<PairRow>> {
    let Some(lf) = games_scan(data, Some(run))? else {
        return Ok(Vec::new());
    };
    let df = collect(
        complete_pairs(lf)
            .filter(col("a").eq(lit(a)).and(col("b").eq(lit(b))))
            .select([col("first_game"), col("index")])
            .sort(["first_game"], SortMultipleOptions::default()),
        data,
    )?;
    let first = u64s(&df, "first_game", data)?;
    let index = u64s(&df, "index", data)?;
    Ok(first.into_iter().zip(index).map(|(first_game, i)| PairRow { first_game, index: (i as usize).min(4) }).collect())
}
