//! The coordinator's Prometheus metrics: what is counted as it happens (RPCs by method and
//! status with their latency, storage transaction times) and what is read from the farm when
//! scraped (active leases, pending pairs per run, games recorded, export lag), written in
//! Prometheus' text exposition format (version 0.0.4). Pure: no I/O, no clock; callers pass
//! durations in.
//!
//! ```
//! use std::time::Duration;
//! use coordinator::metrics::{FarmGauges, Metrics, render};
//!
//! let metrics = Metrics::default();
//! metrics.rpc.observe("Lease", "OK", Duration::from_millis(3));
//! let gauges = FarmGauges { active_leases: 1, games_total: 10, ..FarmGauges::default() };
//! let text = render(&metrics, &[], &gauges);
//! assert!(text.contains("xqfarm_rpc_requests_total{method=\"Lease\",code=\"OK\"} 1\n"));
//! assert!(text.contains("xqfarm_active_leases 1\n"));
//! ```

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::Mutex;
use std::time::Duration;

use proto::domain::RunId;

/// Latency buckets, in seconds: half a millisecond to ten seconds.
pub const LATENCY_BUCKETS: [f64; 14] =
    [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0];

/// A histogram over [`LATENCY_BUCKETS`]: per-bucket (not cumulative) counts, the sum and the
/// count of observations.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Histogram {
    /// Observations in each bucket (at most its bound and above the previous one); the last
    /// entry is above every bound (`+Inf`).
    buckets: [u64; LATENCY_BUCKETS.len() + 1],
    sum: f64,
    count: u64,
}

impl Histogram {
    pub fn observe(&mut self, seconds: f64) {
        let i = LATENCY_BUCKETS.iter().position(|&b| seconds <= b).unwrap_or(LATENCY_BUCKETS.len());
        self.buckets[i] += 1;
        self.sum += seconds;
        self.count += 1;
    }

    pub fn count(&self) -> u64 {
        self.count
    }

    /// The cumulative counts Prometheus expects, one per bound and then `+Inf` (= the count).
    pub fn cumulative(&self) -> Vec<u64> {
        self.buckets
            .iter()
            .scan(0u64, |acc, &n| {
                *acc += n;
                Some(*acc)
            })
            .collect()
    }
}

/// Histograms by one label value (a method, a transaction's name), shared between threads.
#[derive(Debug, Default)]
pub struct Timings {
    by_label: Mutex<BTreeMap<String, Histogram>>,
}

impl Timings {
    pub fn observe(&self, label: &str, elapsed: Duration) {
        let mut map = self.by_label.lock().unwrap_or_else(|p| p.into_inner());
        match map.get_mut(label) {
            Some(h) => h.observe(elapsed.as_secs_f64()),
            None => {
                let mut h = Histogram::default();
                h.observe(elapsed.as_secs_f64());
                map.insert(label.to_owned(), h);
            }
        }
    }

    /// A copy of every histogram, by label.
    pub fn snapshot(&self) -> BTreeMap<String, Histogram> {
        self.by_label.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }
}

/// RPCs by method and status code, with each method's latency.
#[derive(Debug, Default)]
pub struct RpcMetrics {
    calls: Mutex<BTreeMap<(String, String), u64>>,
    latency: Timings,
}

impl RpcMetrics {
    /// Counts one call of `method` that ended with `code` (gRPC's names: `OK`, `NotFound`, ...)
    /// after `elapsed`.
    pub fn observe(&self, method: &str, code: &str, elapsed: Duration) {
        *self
            .calls
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .entry((method.to_owned(), code.to_owned()))
            .or_default() += 1;
        self.latency.observe(method, elapsed);
    }

    /// Calls by (method, code).
    pub fn calls(&self) -> BTreeMap<(String, String), u64> {
        self.calls.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }
}

/// What the coordinator counts as it runs.
#[derive(Debug, Default)]
pub struct Metrics {
    pub rpc: RpcMetrics,
}

/// What is read from the farm at scrape time.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FarmGauges {
    /// Leases being played.
    pub active_leases: u64,
    /// Per active run: pairs not yet played and not being played (in the pool, or not yet
    /// created for runs of a fixed size).
    pub pending_pairs: Vec<(RunId, u64)>,
    /// Active runs with no fixed number of pairs (SPRTs): they always have work.
    pub open_ended_runs: u64,
    /// Games recorded, over every run.
    pub games_total: u64,
    /// Games recorded but not yet in Parquet.
    pub export_lag_games: u64,
}

/// The text exposition of every metric: `metrics`, the storage's transaction times by name,
/// and `gauges`.
pub fn render(metrics: &Metrics, storage_times: &[(String, Histogram)], gauges: &FarmGauges) -> String {
    let mut out = String::new();
    family(&mut out, "xqfarm_rpc_requests_total", "counter", "gRPC calls handled, by method and status code.");
    for ((method, code), n) in metrics.rpc.calls() {
        sample(&mut out, "xqfarm_rpc_requests_total", &[("method", &method), ("code", &code)], n as f64);
    }
    family(&mut out, "xqfarm_rpc_duration_seconds", "histogram", "gRPC call latency until the response headers.");
    for (method, h) in metrics.rpc.latency.snapshot() {
        histogram(&mut out, "xqfarm_rpc_duration_seconds", ("method", &method), &h);
    }
    family(
        &mut out,
        "xqfarm_storage_transaction_seconds",
        "histogram",
        "Storage transactions, by operation, queueing included.",
    );
    for (op, h) in storage_times {
        histogram(&mut out, "xqfarm_storage_transaction_seconds", ("op", op), h);
    }
    family(&mut out, "xqfarm_active_leases", "gauge", "Leases being played.");
    sample(&mut out, "xqfarm_active_leases", &[], gauges.active_leases as f64);
    family(&mut out, "xqfarm_pending_pairs", "gauge", "Pairs of an active run waiting for a worker.");
    for (run, n) in &gauges.pending_pairs {
        sample(&mut out, "xqfarm_pending_pairs", &[("run", &run.to_string())], *n as f64);
    }
    family(&mut out, "xqfarm_open_ended_runs", "gauge", "Active runs with no fixed size (SPRTs): always work to do.");
    sample(&mut out, "xqfarm_open_ended_runs", &[], gauges.open_ended_runs as f64);
    family(&mut out, "xqfarm_games_total", "counter", "Games recorded, over every run.");
    sample(&mut out, "xqfarm_games_total", &[], gauges.games_total as f64);
    family(&mut out, "xqfarm_export_lag_games", "gauge", "Games recorded but not yet exported to Parquet.");
    sample(&mut out, "xqfarm_export_lag_games", &[], gauges.export_lag_games as f64);
    out
}

fn family(out: &mut String, name: &str, kind: &str, help: &str) {
    let _ = writeln!(out, "# HELP {name} {help}\n# TYPE {name} {kind}");
}

fn sample(out: &mut String, name: &str, labels: &[(&str, &str)], value: f64) {
    out.push_str(name);
    if !labels.is_empty() {
        out.push('{');
        for (i, (k, v)) in labels.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            let _ = write!(out, "{k}=\"{}\"", escape(v));
        }
        out.push('}');
    }
    let _ = writeln!(out, " {}", number(value));
}

fn histogram(out: &mut String, name: &str, label: (&str, &str), h: &Histogram) {
    let bucket = format!("{name}_bucket");
    for (bound, n) in LATENCY_BUCKETS.iter().map(|b| number(*b)).chain(["+Inf".to_owned()]).zip(h.cumulative()) {
        sample(out, &bucket, &[label, ("le", &bound)], n as f64);
    }
    sample(out, &format!("{name}_sum"), &[label], h.sum);
    sample(out, &format!("{name}_count"), &[label], h.count as f64);
}

/// A sample value as Prometheus writes it: integers without a fraction.
fn number(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 { format!("{}", v as i64) } else { format!("{v}") }
}

/// A label value's escapes: backslash, double quote and newline.
fn escape(v: &str) -> String {
    v.replace('\\', "\\\\").replace('"', "\\\"").replace('\n', "\\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_histogram_counts_each_observation_in_its_bucket_and_cumulates() {
        let mut h = Histogram::default();
        for s in [0.0001, 0.0005, 0.003, 0.003, 7.0, 60.0] {
            h.observe(s);
        }
        let c = h.cumulative();
        assert_eq!(c.len(), LATENCY_BUCKETS.len() + 1);
        assert_eq!(c[0], 2, "0.1 ms and 0.5 ms are at most 0.5 ms");
        assert_eq!(c[3], 4, "two at 3 ms are at most 5 ms");
        assert_eq!(c[LATENCY_BUCKETS.len() - 1], 5, "7 s is at most 10 s");
        assert_eq!(c[LATENCY_BUCKETS.len()], 6, "+Inf holds them all");
        assert_eq!(h.count(), 6);
        assert!((h.sum - 67.0066).abs() < 1e-9, "{}", h.sum);
    }

    #[test]
    fn the_exposition_has_each_family_once_with_its_samples() {
        let metrics = Metrics::default();
        metrics.rpc.observe("Lease", "OK", Duration::from_millis(2));
        metrics.rpc.observe("Lease", "OK", Duration::from_millis(40));
        metrics.rpc.observe("Submit", "Unauthenticated", Duration::from_micros(100));
        let mut tx = Histogram::default();
        tx.observe(0.02);
        let gauges = FarmGauges {
            active_leases: 2,
            pending_pairs: vec![(RunId::new(3), 17), (RunId::new(5), 0)],
            open_ended_runs: 1,
            games_total: 120,
            export_lag_games: 4,
        };
        let text = render(&metrics, &[("leasing a batch".to_owned(), tx)], &gauges);
        for line in [
            "xqfarm_rpc_requests_total{method=\"Lease\",code=\"OK\"} 2",
            "xqfarm_rpc_requests_total{method=\"Submit\",code=\"Unauthenticated\"} 1",
            "xqfarm_rpc_duration_seconds_bucket{method=\"Lease\",le=\"0.0025\"} 1",
            "xqfarm_rpc_duration_seconds_bucket{method=\"Lease\",le=\"0.05\"} 2",
            "xqfarm_rpc_duration_seconds_bucket{method=\"Lease\",le=\"+Inf\"} 2",
            "xqfarm_rpc_duration_seconds_count{method=\"Lease\"} 2",
            "xqfarm_storage_transaction_seconds_bucket{op=\"leasing a batch\",le=\"0.025\"} 1",
            "xqfarm_storage_transaction_seconds_count{op=\"leasing a batch\"} 1",
            "xqfarm_active_leases 2",
            "xqfarm_pending_pairs{run=\"3\"} 17",
            "xqfarm_pending_pairs{run=\"5\"} 0",
            "xqfarm_open_ended_runs 1",
            "xqfarm_games_total 120",
            "xqfarm_export_lag_games 4",
        ] {
            assert!(text.lines().any(|l| l == line), "missing `{line}` in\n{text}");
        }
        for name in ["xqfarm_rpc_requests_total", "xqfarm_rpc_duration_seconds", "xqfarm_pending_pairs"] {
            assert_eq!(text.matches(&format!("# TYPE {name} ")).count(), 1, "{name}");
        }
        let sum_line = text.lines().find(|l| l.starts_with("xqfarm_rpc_duration_seconds_sum{method=\"Lease\"}"));
        let sum: f64 = sum_line.and_then(|l| l.rsplit(' ').next()).and_then(|v| v.parse().ok()).expect("a sum");
        assert!((sum - 0.042).abs() < 1e-9, "{sum}");
    }

    #[test]
    fn label_values_are_escaped() {
        let mut out = String::new();
        sample(&mut out, "m", &[("op", "a \"b\"\\c\nd")], 1.0);
        assert_eq!(out, "m{op=\"a \\\"b\\\"\\\\c\\nd\"} 1\n");
    }
}
