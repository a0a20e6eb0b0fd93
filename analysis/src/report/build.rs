//! Assembling a report: the data queries of [`crate::data`] turned into per-run statistics,
//! a rating list, termination reasons, game lengths, openings by ECCO family and code, and
//! worker checks.

use std::collections::BTreeMap;
use std::path::Path;

use proto::domain::{RunKindName, RunState};

use crate::data::{self, LengthStats, PairingCounts, ReasonCount, RunInfo, RunOpenings};
use crate::error::{Error, Result};
use crate::stats::{
    self, EloEstimate, HeadToHead, Hypothesis, NeloEstimate, Pentanomial, SprtResult, SprtSettings, Wdl,
};

/// A worker is flagged when its results are this unlikely under the pooled distribution of
/// the other workers (Fishtest flags on a similar residual; this is a chi-square p-value).
pub const WORKER_FLAG_P: f64 = 0.001;

/// ECCO codes listed per run in the report (the most played ones).
pub const TOP_OPENING_CODES: usize = 10;

/// LLR points per SPRT chart: the pair sequence is sampled down to about this many.
const LLR_POINTS: usize = 400;

/// What to report on.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ReportOptions {
    /// Only this run (all runs when absent).
    pub run: Option<u64>,
    /// The rating list's anchor, by variant name or id (default: a variant named `default`
    /// or `base`, else the base of the first run).
    pub base: Option<String>,
}

/// One pairing of one run, oriented as the run's spec lists it (candidate first).
#[derive(Clone, Debug, PartialEq)]
pub struct PairingReport {
    pub run: u64,
    pub run_name: String,
    /// `None` when the `runs` table does not describe the run.
    pub kind: Option<RunKindName>,
    pub state: Option<RunState>,
    pub tc: String,
    pub first: String,
    pub second: String,
    pub counts: PairingCounts,
    pub elo: EloEstimate,
    pub nelo: NeloEstimate,
    pub los: f64,
    /// SPRT runs: the LLR now, its bounds and the verdict it reaches.
    pub sprt: Option<(SprtSettings, SprtResult)>,
    /// SPRT runs: (games, LLR) after each sampled pair.
    pub llr_series: Vec<(u64, f64)>,
}

/// One row of the rating list.
#[derive(Clone, Debug, PartialEq)]
pub struct RatingRow {
    pub name: String,
    pub elo: f64,
    pub error95: f64,
    pub games: u64,
    pub score: f64,
}

/// One worker of one pairing.
#[derive(Clone, Debug, PartialEq)]
pub struct WorkerRow {
    pub run: u64,
    pub worker: String,
    pub pairs: u64,
    pub pentanomial: [u64; 5],
    pub statistic: f64,
    pub p_value: f64,
    pub flagged: bool,
}

/// Everything `report.md` and the charts show.
#[derive(Clone, Debug, PartialEq)]
pub struct Report {
    pub games: u64,
    pub pairings: Vec<PairingReport>,
    pub ratings: Vec<RatingRow>,
    pub anchor: Option<String>,
    pub reasons: Vec<ReasonCount>,
    pub lengths: Vec<LengthStats>,
    /// Per run: games by ECCO family and the [`TOP_OPENING_CODES`] most played codes.
    pub openings: Vec<RunOpenings>,
    pub workers: Vec<WorkerRow>,
    /// Imported runs (`xqfarm import pgn`): listed with their games by result, never in a
    /// pairing, a pentanomial, an SPRT or the worker checks.
    pub imported: Vec<data::ImportedRun>,
    /// Sections the caller adds from what Parquet does not hold (a tournament's draw from the
    /// coordinator's database): a title and its Markdown, rendered after the workers.
    pub sections: Vec<(String, String)>,
}

fn short(id: &str) -> String {
    id.chars().take(10).collect()
}

/// The display name of variant `id`: its name in the runs table (made unique with the id's
/// prefix when two different variants share a name).
fn names(runs: &[RunInfo]) -> BTreeMap<String, String> {
    let mut by_id: BTreeMap<String, String> = BTreeMap::new();
    for r in runs {
        for (id, name) in r.variant_ids.iter().zip(&r.variant_names) {
            by_id.entry(id.clone()).or_insert_with(|| name.clone());
        }
    }
    let mut count: BTreeMap<String, usize> = BTreeMap::new();
    for name in by_id.values() {
        *count.entry(name.clone()).or_default() += 1;
    }
    by_id
        .into_iter()
        .map(|(id, name)| {
            let shown = if count[&name] > 1 { format!("{name}@{}", short(&id)) } else { name };
            (id, shown)
        })
        .collect()
}

fn sprt_params(info: &RunInfo) -> Option<SprtSettings> {
    if !info.is_sprt() {
        return None;
    }
    let model = info.model.unwrap_or_default();
    Some(SprtSettings { elo0: info.elo0, elo1: info.elo1, alpha: info.alpha, beta: info.beta, model })
}

/// Builds the report over the data directory `data`.
pub fn build(data: &Path, options: &ReportOptions) -> Result<Report> {
    let runs = data::read_runs(data)?;
    let shown = names(&runs);
    let display = |id: &str| shown.get(id).cloned().unwrap_or_else(|| short(id));
    let totals = data::game_totals(data, options.run)?;
    let counts = data::pairing_counts(data, options.run)?;

    let mut pairings = Vec::new();
    for c in &counts {
        let info = runs.iter().find(|r| r.run == c.run);
        // The run's own orientation: the variant listed first in the spec goes first.
        let index_of = |id: &str| info.and_then(|i| i.variant_ids.iter().position(|v| v == id)).unwrap_or(usize::MAX);
        let counts = if index_of(&c.b) < index_of(&c.a) { c.flipped() } else { c.clone() };
        let penta = Pentanomial { counts: counts.pentanomial };
        let wdl = Wdl { wins: counts.wins, draws: counts.draws, losses: counts.losses };
        let sprt_params = info.and_then(sprt_params);
        let (sprt, llr_series) = match &sprt_params {
            Some(p) if c.a != c.b => {
                let result = stats::sprt(&penta, p)?;
                let series = llr_series(data, c, &counts, p)?;
                (Some((*p, result)), series)
            }
            _ => (None, Vec::new()),
        };
        pairings.push(PairingReport {
            run: c.run,
            run_name: info.map_or_else(|| format!("run {}", c.run), |i| i.name.clone()),
            kind: info.map(|i| i.kind),
            state: info.map(|i| i.state.clone()),
            tc: info.map_or_else(String::new, |i| i.tc.clone()),
            first: display(&counts.a),
            second: display(&counts.b),
            elo: stats::elo_estimate(&penta),
            nelo: stats::nelo_estimate(&penta),
            los: stats::los(&wdl),
            counts,
            sprt,
            llr_series,
        });
    }

    let (ratings, anchor) = rating_list(&counts, &shown, options.base.as_deref(), &runs)?;
    let workers = workers(data, options.run)?;
    let mut openings = data::openings(data, options.run)?;
    for o in &mut openings {
        o.codes.truncate(TOP_OPENING_CODES);
    }
    Ok(Report {
        games: totals.games,
        pairings,
        ratings,
        anchor,
        reasons: data::reasons(data, options.run)?,
        lengths: data::lengths(data, options.run)?,
        openings,
        workers,
        imported: data::imported_runs(data, options.run)?,
        sections: Vec::new(),
    })
}

/// Replays the run's pairs in order and samples the LLR along the way.
fn llr_series(
    data: &Path,
    raw: &PairingCounts,
    oriented: &PairingCounts,
    params: &SprtSettings,
) -> Result<Vec<(u64, f64)>> {
    let pairs = data::pairs(data, raw.run, &raw.a, &raw.b)?;
    let flip = oriented.a != raw.a;
    let step = pairs.len().div_ceil(LLR_POINTS).max(1);
    let mut penta = Pentanomial::default();
    let mut out = Vec::with_capacity(pairs.len() / step + 1);
    for (i, p) in pairs.iter().enumerate() {
        penta.add(if flip { 4 - p.index } else { p.index });
        if (i + 1) % step == 0 || i + 1 == pairs.len() {
            out.push((2 * penta.pairs(), stats::llr(&penta, params)?));
        }
    }
    Ok(out)
}

/// The maximum-likelihood rating list over every pairing of every selected run.
fn rating_list(
    counts: &[PairingCounts],
    shown: &BTreeMap<String, String>,
    base: Option<&str>,
    runs: &[RunInfo],
) -> Result<(Vec<RatingRow>, Option<String>)> {
    let mut ids: Vec<String> = Vec::new();
    let index = |id: &str, ids: &mut Vec<String>| match ids.iter().position(|x| x == id) {
        Some(i) => i,
        None => {
            ids.push(id.to_owned());
            ids.len() - 1
        }
    };
    let mut results = Vec::new();
    for c in counts.iter().filter(|c| c.a != c.b && c.games() > 0) {
        let a = index(&c.a, &mut ids);
        let b = index(&c.b, &mut ids);
        results.push(HeadToHead { a, b, wins: c.wins, draws: c.draws, losses: c.losses });
    }
    if results.is_empty() {
        return Ok((Vec::new(), None));
    }
    let name = |id: &str| shown.get(id).cloned().unwrap_or_else(|| short(id));
    let anchor = match base {
        Some(b) => ids.iter().position(|id| id == b || name(id) == b || id.starts_with(b)).ok_or_else(|| {
            Error::Rating { reason: format!("base variant `{b}` played no game in the selected runs") }
        })?,
        None => ids
            .iter()
            .position(|id| matches!(name(id).as_str(), "default" | "base"))
            .or_else(|| {
                runs.iter().filter_map(|r| r.variant_ids.get(1)).find_map(|base| ids.iter().position(|id| id == base))
            })
            .unwrap_or(0),
    };
    // Only variants linked to the anchor through games can be rated against it; the others
    // are left out of the list (the report says so) rather than failing the whole report.
    let linked = linked_to(anchor, ids.len(), &results);
    let rated: Vec<usize> = (0..ids.len()).filter(|&i| linked[i]).collect();
    let slot = |i: usize| rated.iter().position(|&r| r == i).unwrap_or(0);
    let results: Vec<HeadToHead> = results
        .into_iter()
        .filter(|h| linked[h.a] && linked[h.b])
        .map(|h| HeadToHead { a: slot(h.a), b: slot(h.b), ..h })
        .collect();
    let list = stats::rating_list(rated.len(), &results, slot(anchor))?;
    let rows = list
        .iter()
        .map(|r| RatingRow {
            name: name(&ids[rated[r.player]]),
            elo: r.elo,
            error95: r.error95,
            games: r.games,
            score: r.score,
        })
        .collect();
    Ok((rows, Some(name(&ids[anchor]))))
}

/// Which players are connected to `anchor` by the games of `results`.
fn linked_to(anchor: usize, players: usize, results: &[HeadToHead]) -> Vec<bool> {
    let mut linked = vec![false; players];
    linked[anchor] = true;
    let mut grew = true;
    while grew {
        grew = false;
        for h in results {
            if linked[h.a] != linked[h.b] {
                linked[h.a] = true;
                linked[h.b] = true;
                grew = true;
            }
        }
    }
    linked
}

fn workers(data: &Path, run: Option<u64>) -> Result<Vec<WorkerRow>> {
    let counts = data::worker_counts(data, run)?;
    let mut out = Vec::new();
    let mut start = 0;
    while start < counts.len() {
        let key = (&counts[start].run, &counts[start].a, &counts[start].b);
        let end = start + counts[start..].iter().take_while(|w| (&w.run, &w.a, &w.b) == key).count();
        let group = &counts[start..end];
        let table: Vec<[u64; 5]> = group.iter().map(|w| w.pentanomial).collect();
        let check = stats::worker_consistency(&table, WORKER_FLAG_P);
        for (w, row) in group.iter().enumerate() {
            let c = check.workers.iter().find(|c| c.worker == w);
            out.push(WorkerRow {
                run: row.run,
                worker: row.worker.clone(),
                pairs: row.pentanomial.iter().sum(),
                pentanomial: row.pentanomial,
                statistic: c.map_or(0.0, |c| c.statistic),
                p_value: c.map_or(1.0, |c| c.p_value),
                flagged: c.is_some_and(|c| c.flagged),
            });
        }
        start = end;
    }
    Ok(out)
}

/// The verdict's words.
pub fn verdict_text(result: &SprtResult) -> &'static str {
    match result.verdict {
        Some(Hypothesis::H1) => "H1 accepted",
        Some(Hypothesis::H0) => "H0 accepted",
        None => "running",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn h(a: usize, b: usize) -> HeadToHead {
        HeadToHead { a, b, wins: 1, draws: 1, losses: 1 }
    }

    #[test]
    fn only_players_linked_to_the_anchor_are_rated() {
        // 0-1, 1-2 form one component, 3-4 another; 5 played nobody.
        let results = [h(3, 4), h(1, 2), h(0, 1)];
        assert_eq!(linked_to(0, 6, &results), vec![true, true, true, false, false, false]);
        assert_eq!(linked_to(4, 6, &results), vec![false, false, false, true, true, false]);
    }
}
