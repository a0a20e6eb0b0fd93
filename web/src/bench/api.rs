//! `xqfarm bench web`: the web application's speed figures against one embedded coordinator,
//! with simulated workers submitting legal 120-ply games through gRPC:
//! - the Run page's API calls (run, games page at the end, runs list, workers) with a run of
//!   `games` games, each timed over HTTP/1.1 on loopback (goal: each under 100 ms at 100,000);
//! - `streams` open event streams while the run records at least `rate` games a second: the
//!   process's CPU with and without them (goal: the streams cost under 5% of one core), and
//!   whether every stream received every update (each update carries a sequence number).

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use coordinator::Storage;
use hyper::StatusCode;
use proto::domain::{RunKind, SprtSettings};
use worker::loadgen::{bench_tc, legal_pair, record_one, sim_worker};

use super::cpu::process_cpu_time;
use super::http::{EventStream, get};
use super::{TOKEN, connect, create_run, joined};
use crate::embedded::Embedded;
use crate::{Error, Result};

/// Simulated workers filling the run.
const FILLERS: usize = 16;
/// Timed GETs of each path; the fastest counts (the first warms the caches).
const TRIES: usize = 5;
/// How often a stream's reader looks whether it should stop.
const STOP_POLL: Duration = Duration::from_millis(200);

/// What [`web`] runs.
#[derive(Clone, Debug)]
pub struct ApiSettings {
    /// Games in the run whose page is timed.
    pub games: u64,
    /// Event streams held open.
    pub streams: usize,
    /// Games a second recorded while the streams are open.
    pub rate: u64,
    /// Each CPU measurement (without, then with the streams).
    pub measure: Duration,
}

/// The web bench's figures.
#[derive(Clone, Debug, PartialEq)]
pub struct ApiFigures {
    /// Games in the run when its pages were timed.
    pub games: u64,
    /// Seconds the simulated workers took to fill the run.
    pub fill_s: f64,
    /// Each API path and the milliseconds of its fastest GET.
    pub latencies_ms: Vec<(String, f64)>,
    pub streams: usize,
    /// Seconds of each CPU measurement.
    pub measure_s: u64,
    /// Games recorded while the CPU was measured, with and without the streams.
    pub recorded_while_measuring: u64,
    /// The process's CPU, in cores, without and with the streams open.
    pub cpu_without: f64,
    pub cpu_with: f64,
    /// Streams that received a gapless sequence of more than one update.
    pub complete_streams: usize,
    /// The most updates one stream received.
    pub updates: usize,
}

impl ApiFigures {
    /// Games a second recorded over both CPU measurements and the second between them.
    pub fn games_per_s_while_measuring(&self) -> f64 {
        self.recorded_while_measuring as f64 / (2.0 * self.measure_s as f64 + 1.0)
    }
}

/// Serves a farm over `storage` (data files in `data`), fills an SPRT run that never stops with
/// `settings.games` games, times its pages' API calls, then measures the process's CPU while
/// games are recorded at `settings.rate`, without and with `settings.streams` event streams.
pub async fn web(storage: Arc<dyn Storage>, data: &Path, settings: &ApiSettings) -> Result<ApiFigures> {
    let emb = Embedded::start_on(storage, data, TOKEN).await?;
    let figures = measure(&emb, settings).await;
    emb.stop().await;
    figures
}

async fn measure(emb: &Embedded, a: &ApiSettings) -> Result<ApiFigures> {
    let addr = emb.url.trim_start_matches("http://").to_owned();
    let client = connect(&emb.url).await?;
    let never_stops = SprtSettings { elo0: -1000.0, elo1: 1000.0, alpha: 1e-9, beta: 1e-9, ..Default::default() };
    let run = create_run(&client, "web-bench", RunKind::Sprt(never_stops)).await?;
    let payload = Arc::new(legal_pair(bench_tc(), &engine::Position::startpos()));

    // Fill the run: simulated workers, one pair per lease, as fast as the coordinator takes them.
    let filled = Instant::now();
    let recorded = Arc::new(std::sync::atomic::AtomicU64::new(0));
    let mut fillers = Vec::new();
    for i in 0..FILLERS {
        let (url, payload, recorded, target) = (emb.url.clone(), Arc::clone(&payload), Arc::clone(&recorded), a.games);
        fillers.push(tokio::spawn(async move {
            let c = connect(&url).await?;
            let worker = c.register(&sim_worker(i)).await?;
            while recorded.load(Ordering::Relaxed) < target {
                recorded.fetch_add(record_one(&c, worker, &payload).await?, Ordering::Relaxed);
            }
            Ok(())
        }));
    }
    for f in fillers {
        joined("filling worker", f.await)?;
    }
    let games = recorded.load(Ordering::Relaxed);
    let fill_s = filled.elapsed().as_secs_f64();
    let mut latencies_ms = Vec::new();
    for path in [
        format!("/api/runs/{run}"),
        format!("/api/runs/{run}/games?offset={}&limit=50", games.saturating_sub(50)),
        "/api/runs".to_owned(),
        "/api/workers".to_owned(),
    ] {
        let ms = time_get(&addr, &path).await?;
        latencies_ms.push((path, ms));
    }

    // CPU with and without the open streams, under the same recording rate.
    let stop = Arc::new(AtomicBool::new(false));
    let (url, payload2, stop2, rate) = (emb.url.clone(), Arc::clone(&payload), Arc::clone(&stop), a.rate);
    let recorder = tokio::spawn(async move {
        let c = connect(&url).await?;
        let worker = c.register(&sim_worker(99)).await?;
        let mut recorded = 0;
        let mut tick = tokio::time::interval(Duration::from_secs_f64(2.0 / rate.max(1) as f64));
        while !stop2.load(Ordering::Relaxed) {
            tick.tick().await;
            recorded += record_one(&c, worker, &payload2).await?;
        }
        Ok(recorded)
    });
    let cpu_without = cpu_share(a.measure).await?;
    let stream_stop = Arc::new(AtomicBool::new(false));
    let mut streams = Vec::new();
    for _ in 0..a.streams {
        streams.push(tokio::spawn(watch_stream(addr.clone(), Arc::clone(&stream_stop))));
    }
    tokio::time::sleep(Duration::from_secs(1)).await;
    let cpu_with = cpu_share(a.measure).await?;
    stream_stop.store(true, Ordering::Relaxed);
    let mut seqs = Vec::new();
    for s in streams {
        seqs.push(joined("event stream", s.await)?);
    }
    stop.store(true, Ordering::Relaxed);
    let recorded_while_measuring = joined("recording worker", recorder.await)?;
    let (complete_streams, updates) = stream_completeness(&seqs);
    Ok(ApiFigures {
        games,
        fill_s,
        latencies_ms,
        streams: a.streams,
        measure_s: a.measure.as_secs(),
        recorded_while_measuring,
        cpu_without,
        cpu_with,
        complete_streams,
        updates,
    })
}

/// Milliseconds of the fastest of [`TRIES`] GETs of `path`; an answer other than 200 is an error.
async fn time_get(addr: &str, path: &str) -> Result<f64> {
    let mut best = f64::INFINITY;
    for _ in 0..TRIES {
        let t = Instant::now();
        let (status, body) = get(addr, path, TOKEN).await?;
        if status != StatusCode::OK {
            let reason = format!("{} {}", status.as_u16(), String::from_utf8_lossy(&body));
            return Err(Error::Http { path: path.to_owned(), reason });
        }
        best = best.min(t.elapsed().as_secs_f64() * 1e3);
    }
    Ok(best)
}

/// The process's CPU, in cores, over `span` of wall time.
async fn cpu_share(span: Duration) -> Result<f64> {
    let (cpu0, t0) = (process_cpu_time()?, Instant::now());
    tokio::time::sleep(span).await;
    Ok((process_cpu_time()? - cpu0).as_secs_f64() / t0.elapsed().as_secs_f64())
}

/// Holds `/api/events` open until `stop` and returns the sequence numbers of its updates.
async fn watch_stream(addr: String, stop: Arc<AtomicBool>) -> Result<Vec<u64>> {
    let mut stream = EventStream::open(&addr, "/api/events", TOKEN).await?;
    let mut seqs = Vec::new();
    while !stop.load(Ordering::Relaxed) {
        let Ok(event) = tokio::time::timeout(STOP_POLL, stream.next_event()).await else { continue };
        let Some(event) = event? else { break };
        if let Some(seq) = update_seq(&event.data) {
            seqs.push(seq);
        }
    }
    Ok(seqs)
}

/// The sequence number of a live update's data (`{"seq": N, ...}`), if it has one.
fn update_seq(data: &str) -> Option<u64> {
    #[derive(serde::Deserialize)]
    struct Update {
        seq: u64,
    }
    serde_json::from_str::<Update>(data).ok().map(|u| u.seq)
}

/// How many streams received a gapless run of more than one update, and the most updates any
/// one stream received.
fn stream_completeness(seqs: &[Vec<u64>]) -> (usize, usize) {
    let complete = seqs.iter().filter(|s| s.len() > 1 && s.windows(2).all(|w| w[1] == w[0] + 1)).count();
    (complete, seqs.iter().map(Vec::len).max().unwrap_or(0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_sequence_number_of_an_update() {
        assert_eq!(update_seq(r#"{"seq":41,"runs":[{"id":1,"seq":"not this one"}]}"#), Some(41));
        assert_eq!(update_seq(r#"{"runs":[]}"#), None);
        assert_eq!(update_seq("not json"), None);
    }

    #[test]
    fn a_stream_is_complete_when_its_updates_have_no_gap() {
        let seqs = [vec![3, 4, 5], vec![3, 5], vec![7], vec![]];
        assert_eq!(stream_completeness(&seqs), (1, 3));
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn times_the_pages_and_every_stream_sees_every_update() {
        let dir = tempfile::tempdir().unwrap();
        let storage = Arc::new(coordinator::SqliteStorage::open(dir.path().join("farm.db")).unwrap());
        let settings = ApiSettings { games: 40, streams: 3, rate: 10, measure: Duration::from_secs(1) };
        let f = web(storage, &dir.path().join("data"), &settings).await.unwrap();
        assert!(f.games >= 40, "{f:?}");
        let paths: Vec<&str> = f.latencies_ms.iter().map(|(p, _)| p.as_str()).collect();
        assert_eq!(paths[2..], ["/api/runs", "/api/workers"]);
        assert!(f.latencies_ms.iter().all(|(_, ms)| ms.is_finite() && *ms > 0.0), "{f:?}");
        assert_eq!(f.streams, 3);
        assert_eq!(f.complete_streams, 3, "{f:?}");
        assert!(f.recorded_while_measuring > 0 && f.cpu_with > 0.0, "{f:?}");
    }
}
