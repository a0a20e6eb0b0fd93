//! The JSON shapes of the farm API, built from the farm's domain types by pure functions (the
//! Runs page, the Run page's headline and the event stream share [`RunRow`]; the Run page's spec
//! panel shows [`spec_json`]).

use std::collections::HashMap;

use proto::domain::{Adjudication, RunKind, RunStatus, Variant, VariantId};
use serde::Serialize;
use serde_json::{Value, json};

/// A variant as pages name it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct VariantRef {
    pub id: String,
    pub name: String,
}

/// One run as the Runs table shows it (Elo of the first pairing, `variants[0]` vs `variants[1]`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RunRow {
    pub id: u64,
    pub name: String,
    pub kind: &'static str,
    pub variants: Vec<VariantRef>,
    pub tc: String,
    pub games: u64,
    /// Pairs the run plays in all; `null` for an SPRT (open-ended).
    pub pairs_total: Option<u64>,
    pub wdl: [u64; 3],
    pub pentanomial: [u64; 5],
    pub elo: Option<f64>,
    pub elo_ci: Option<[f64; 2]>,
    pub nelo: Option<f64>,
    pub nelo_ci: Option<[f64; 2]>,
    pub los: Option<f64>,
    pub llr: Option<f64>,
    pub bounds: Option<[f64; 2]>,
    pub state: &'static str,
    /// `accepted` (H1) or `rejected` (H0) once an SPRT decided.
    pub verdict: Option<&'static str>,
    pub created_ms: u64,
    pub missing_engines: Vec<String>,
}

/// A finite number, or none (JSON has no infinity or NaN).
fn finite(x: f64) -> Option<f64> {
    x.is_finite().then_some(x)
}

fn interval(lo: f64, hi: f64) -> Option<[f64; 2]> {
    Some([finite(lo)?, finite(hi)?])
}

/// Variant names by id, read once per variant (a variant never changes).
#[derive(Debug, Default)]
pub struct Names {
    known: HashMap<VariantId, String>,
}

impl Names {
    /// The name of `id`, reading the variant through `get` the first time.
    pub fn name(&mut self, id: &VariantId, get: impl FnOnce(&VariantId) -> Option<Variant>) -> String {
        if let Some(name) = self.known.get(id) {
            return name.clone();
        }
        match get(id) {
            Some(v) => {
                self.known.insert(id.clone(), v.spec.name.clone());
                v.spec.name
            }
            // Not cached: a variant that cannot be read now may be readable later.
            None => short_id(id),
        }
    }
}

/// The first 12 characters of a content hash: enough to tell variants apart on a page.
pub fn short_id(id: &VariantId) -> String {
    id.as_str().chars().take(12).collect()
}

/// The row of a run, naming its variants with `name`.
pub fn run_row(status: &RunStatus, mut name: impl FnMut(&VariantId) -> String) -> RunRow {
    let run = &status.run;
    let first = status.live.first();
    let counts = run.stats.first().copied().unwrap_or_default();
    let sprt = first.and_then(|l| l.sprt);
    let pairs_total =
        coordinator::scheduler::pairs_per_pairing(&run.spec.kind).map(|per| per * run.spec.pairings().len() as u64);
    RunRow {
        id: run.id.get(),
        name: run.spec.name.clone(),
        kind: run.spec.kind.name().as_str(),
        variants: run.spec.variants.iter().map(|v| VariantRef { id: v.to_string(), name: name(v) }).collect(),
        tc: run.spec.tc.to_string(),
        games: run.stats.iter().map(|s| s.games()).sum(),
        pairs_total,
        wdl: [counts.wins, counts.draws, counts.losses],
        pentanomial: counts.pentanomial,
        elo: first.and_then(|l| finite(l.elo)),
        elo_ci: first.and_then(|l| interval(l.elo_lower, l.elo_upper)),
        nelo: first.and_then(|l| finite(l.nelo)),
        nelo_ci: first.and_then(|l| interval(l.nelo_lower, l.nelo_upper)),
        los: first.and_then(|l| finite(l.los)),
        llr: sprt.and_then(|s| finite(s.llr)),
        bounds: sprt.and_then(|s| interval(s.lower_bound, s.upper_bound)),
        state: run.state.as_str(),
        verdict: match run.state {
            proto::domain::RunState::SprtDone { h1: true } => Some("accepted"),
            proto::domain::RunState::SprtDone { h1: false } => Some("rejected"),
            _ => None,
        },
        created_ms: run.created_unix_ms,
        missing_engines: status.missing_engines.clone(),
    }
}

/// The spec as the run page shows it: every field as JSON (numbers, strings, named objects),
/// never Rust `Debug` text.
pub fn spec_json(status: &RunStatus) -> Value {
    let spec = &status.run.spec;
    let mut v = json!({
        "name": spec.name,
        "kind": spec.kind.name().as_str(),
        "variants": spec.variants.iter().map(|v| v.to_string()).collect::<Vec<_>>(),
        "tc": spec.tc.to_string(),
        "openings": spec.openings.get(),
        "sample_every": spec.sample_every,
        "bench_signature": spec.bench_signature,
        "adjudication": adjudication_json(&spec.adjudication),
    });
    match &spec.kind {
        RunKind::Sprt(s) => {
            v["sprt"] =
                json!({ "elo0": s.elo0, "elo1": s.elo1, "alpha": s.alpha, "beta": s.beta, "model": s.model.as_str() });
        }
        RunKind::Games { pairs } => v["pairs"] = json!(pairs),
        RunKind::Gauntlet { pairs_per_opponent } => v["pairs_per_opponent"] = json!(pairs_per_opponent),
        RunKind::RoundRobin { pairs_per_pairing } => v["pairs_per_pairing"] = json!(pairs_per_pairing),
        RunKind::Spsa(s) => {
            v["pairs"] = json!(s.pairs);
            v["spsa"] = status
                .spsa
                .iter()
                .map(|p| {
                    json!({ "name": p.name, "start": p.start, "value": p.value, "min": p.min, "max": p.max,
                            "integer": p.integer })
                })
                .collect();
        }
        RunKind::Datagen(d) => {
            v["pairs"] = json!(d.pairs);
            v["random_plies"] = json!(d.random_plies);
        }
        RunKind::Tournament(t) => {
            v["tournament"] = json!({
                "format": t.format.as_str(), "rounds": t.rounds, "pairs_per_match": t.pairs_per_match,
                "tiebreaks": t.tiebreaks.iter().map(|b| b.as_str()).collect::<Vec<_>>(),
                "extra_pairs": t.extra_pairs, "seed": t.seed,
            });
        }
    }
    v
}

/// The adjudication rules by name (proto's domain types carry no serde).
fn adjudication_json(a: &Adjudication) -> Value {
    let Adjudication { resign_score, resign_moves, draw_score, draw_moves, draw_after_move } = *a;
    json!({ "resign_score": resign_score, "resign_moves": resign_moves, "draw_score": draw_score,
            "draw_moves": draw_moves, "draw_after_move": draw_after_move })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proto::domain::*;

    fn status(kind: RunKind, pentanomial: [u64; 5], state: RunState) -> RunStatus {
        let stats = PairingStats { pentanomial, wins: 9, draws: 4, losses: 3 };
        let run = Run {
            id: RunId::new(7),
            spec: RunSpec {
                name: "tuned vs base".into(),
                kind,
                variants: vec!["aaaaaaaaaaaaaaaaaaaa".into(), "bbbbbbbbbbbbbbbbbbbb".into()],
                tc: TimeControl::Nodes(5000),
                openings: SuiteId::new(1),
                adjudication: Adjudication::default(),
                bench_signature: None,
                sample_every: 0,
            },
            state,
            stats: vec![stats],
            created_unix_ms: 1_700_000_000_000,
            tablebases: Vec::new(),
        };
        coordinator::farm::status(run)
    }

    #[test]
    fn an_sprt_row_has_its_llr_bounds_and_names() {
        let s = status(RunKind::Sprt(SprtSettings::default()), [0, 1, 3, 3, 1], RunState::Active);
        let row = run_row(&s, |id| format!("name-{}", &id.as_str()[..1]));
        assert_eq!(row.kind, "sprt");
        assert_eq!(row.state, "active");
        assert_eq!(row.games, 16);
        assert_eq!(row.wdl, [9, 4, 3]);
        assert_eq!(row.variants[1].name, "name-b");
        assert_eq!(row.pairs_total, None);
        let [lo, hi] = row.bounds.expect("an SPRT has bounds");
        assert!(lo < 0.0 && hi > 0.0, "{lo} {hi}");
        assert!(row.llr.expect("llr").is_finite());
        assert!(row.elo.expect("elo") > 0.0, "more pair wins than losses");
        assert_eq!(row.verdict, None);
    }

    #[test]
    fn a_games_run_has_a_total_and_no_sprt_and_undefined_numbers_are_null() {
        let s = status(RunKind::Games { pairs: 50 }, [0, 0, 0, 0, 0], RunState::SprtDone { h1: true });
        let row = run_row(&s, |_| String::new());
        assert_eq!(row.pairs_total, Some(50));
        assert_eq!(row.bounds, None);
        assert_eq!(row.verdict, Some("accepted"));
        let json = serde_json::to_string(&row).expect("serializes");
        assert!(!json.contains("NaN") && !json.contains("inf"), "{json}");
    }
    /// Every string in `v`, at any depth.
    fn strings(v: &Value, out: &mut Vec<String>) {
        match v {
            Value::String(s) => out.push(s.clone()),
            Value::Array(items) => items.iter().for_each(|i| strings(i, out)),
            Value::Object(fields) => fields.values().for_each(|f| strings(f, out)),
            _ => {}
        }
    }

    #[test]
    fn a_datagen_row_has_its_total_and_no_elo_and_its_spec_the_random_plies() {
        let kind = RunKind::Datagen(DatagenSettings { pairs: 40, random_plies: 8 });
        let s = status(kind, [1, 2, 3, 2, 1], RunState::Active);
        let row = run_row(&s, |_| String::new());
        assert_eq!((row.kind, row.pairs_total, row.games), ("datagen", Some(40), 16));
        assert_eq!(row.wdl, [9, 4, 3], "the W/D/L mix is shown");
        assert_eq!((row.elo, row.elo_ci, row.nelo, row.los, row.llr, row.bounds), (None, None, None, None, None, None));
        let json = serde_json::to_string(&row).expect("serializes");
        assert!(!json.contains("NaN"), "{json}");
        let spec = spec_json(&s);
        assert_eq!((spec["pairs"].as_u64(), spec["random_plies"].as_u64()), (Some(40), Some(8)));
    }

    #[test]
    fn the_spec_is_json_fields_never_debug_text() {
        for kind in [RunKind::Sprt(SprtSettings::default()), RunKind::Games { pairs: 50 }] {
            let spec = spec_json(&status(kind, [0, 1, 3, 3, 1], RunState::Active));
            let adjudication = &spec["adjudication"];
            assert!(adjudication.is_object(), "{spec}");
            let rules = Adjudication::default();
            assert_eq!(adjudication["resign_score"], rules.resign_score);
            assert_eq!(adjudication["resign_moves"], rules.resign_moves);
            assert_eq!(adjudication["draw_score"], rules.draw_score);
            assert_eq!(adjudication["draw_moves"], rules.draw_moves);
            assert_eq!(adjudication["draw_after_move"], rules.draw_after_move);
            let mut texts = Vec::new();
            strings(&spec, &mut texts);
            for text in texts {
                assert!(!text.contains("{ ") && !text.contains('('), "Debug text `{text}` in {spec}");
            }
        }
    }
}
