//! `xqfarm bench web`: the web application's speed figures against one embedded coordinator
//! (SQLite), with simulated workers submitting legal 120-ply games through gRPC:
//! - the Run page's API calls (run, games page at the end, runs list, events) with a run of
//!   `--games` games, each timed over HTTP/1.1 on loopback (goal: each under 100 ms at 100,000);
//! - `--streams` open event streams while the run records at least `--rate` games a second:
//!   the process's CPU with and without them (goal: the streams cost under 5% of one core), and
//!   whether every stream received every update (each update carries a sequence number).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use clap::Args;
use proto::domain::{
    BatchResult, LeaseGrant, LeaseRequest, OpeningSuiteSpec, PairReport, RunKind, RunSpec, SubmitRequest, VariantKind,
    VariantSpec,
};
use tokio::io::{AsyncBufReadExt as _, AsyncReadExt as _, AsyncWriteExt as _, BufReader};
use tokio::net::TcpStream;
use web::embedded::Embedded;

use crate::bench_cmds::{legal_pair, pair_for, sim_worker, spec_tc};
use crate::remote;

#[derive(Args, Debug)]
pub struct WebBenchArgs {
    /// Games in the run whose page is timed.
    #[arg(long, default_value_t = 100_000)]
    games: u64,
    /// Event streams held open.
    #[arg(long, default_value_t = 200)]
    streams: usize,
    /// Games per second recorded while the streams are open.
    #[arg(long, default_value_t = 20)]
    rate: u64,
    /// Seconds of each CPU measurement (without, then with the streams).
    #[arg(long, default_value_t = 10)]
    seconds: u64,
}

/// The process's CPU time so far (user + system), from /proc/self/stat.
fn cpu_time() -> Result<Duration> {
    let stat = std::fs::read_to_string("/proc/self/stat").context("reading /proc/self/stat")?;
    let after = stat.rsplit_once(')').map(|(_, rest)| rest).context("/proc/self/stat without a command")?;
    let fields: Vec<&str> = after.split_whitespace().collect();
    // Fields 14 and 15 of the whole line (utime, stime) are the 12th and 13th after the name.
    let ticks = |i: usize| -> Result<u64> { fields.get(i).context("short /proc/self/stat")?.parse().context("ticks") };
    let total = ticks(11)? + ticks(12)?;
    Ok(Duration::from_millis(total * 10))
}

/// A GET over HTTP/1.1 with the token; returns the status and the body.
async fn http_get(addr: &str, path: &str, token: &str) -> Result<(u16, Vec<u8>)> {
    let mut s = TcpStream::connect(addr).await?;
    s.set_nodelay(true)?;
    let req =
        format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\nAuthorization: Bearer {token}\r\nConnection: close\r\n\r\n");
    s.write_all(req.as_bytes()).await?;
    let mut raw = Vec::new();
    s.read_to_end(&mut raw).await?;
    let text = String::from_utf8_lossy(&raw);
    let status: u16 = text.split_whitespace().nth(1).context("no status line")?.parse().context("status")?;
    let body = raw.windows(4).position(|w| w == b"\r\n\r\n").map_or_else(Vec::new, |i| raw[i + 4..].to_vec());
    Ok((status, body))
}

/// Milliseconds of the fastest of five GETs (the first warms the caches).
async fn time_get(addr: &str, path: &str, token: &str) -> Result<f64> {
    let mut best = f64::INFINITY;
    for _ in 0..5 {
        let t = Instant::now();
        let (status, body) = http_get(addr, path, token).await?;
        if status != 200 {
            bail!("GET {path}: {status} {}", String::from_utf8_lossy(&body));
        }
        best = best.min(t.elapsed().as_secs_f64() * 1e3);
    }
    Ok(best)
}

/// Holds an event stream open and collects the sequence numbers of its updates.
async fn watch_stream(
    addr: String,
    token: String,
    seqs: Arc<std::sync::Mutex<Vec<u64>>>,
    stop: Arc<AtomicBool>,
) -> Result<()> {
    let mut s = TcpStream::connect(&addr).await?;
    let req = format!("GET /api/events HTTP/1.1\r\nHost: {addr}\r\nAuthorization: Bearer {token}\r\n\r\n");
    s.write_all(req.as_bytes()).await?;
    let mut lines = BufReader::new(s).lines();
    while !stop.load(Ordering::Relaxed) {
        let Ok(line) = tokio::time::timeout(Duration::from_millis(200), lines.next_line()).await else { continue };
        let Some(line) = line? else { break };
        if let Some(rest) = line.split_once("\"seq\":").map(|(_, r)| r) {
            let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
            if let Ok(n) = digits.parse() {
                seqs.lock().map_err(|_| anyhow::anyhow!("poisoned"))?.push(n);
            }
        }
    }
    Ok(())
}

pub async fn web(a: WebBenchArgs) -> Result<()> {
    let dir = tempfile::tempdir()?;
    let token = "bench";
    let emb = Embedded::start(&dir.path().join("bench.db"), &dir.path().join("data"), token).await?;
    let addr = emb.url.trim_start_matches("http://").to_owned();
    let client = remote::connect(&emb.url, token, None).await?;
    let toml = engine::eval::Params::default().to_toml();
    let mut ids = Vec::new();
    for name in ["a", "b"] {
        ids.push(
            client
                .add_variant(VariantSpec { name: name.into(), kind: VariantKind::Params { toml: toml.clone() } })
                .await?
                .id,
        );
    }
    let suite = client.add_openings(OpeningSuiteSpec { name: "s".into(), openings: vec!["startpos".into()] }).await?;
    let spec = RunSpec {
        name: "web-bench".into(),
        kind: RunKind::Sprt(proto::domain::SprtSettings {
            elo0: -1000.0,
            elo1: 1000.0,
            alpha: 1e-9,
            beta: 1e-9,
            ..Default::default()
        }),
        variants: ids.clone(),
        tc: spec_tc(),
        openings: suite.id,
        adjudication: proto::domain::Adjudication::default(),
        bench_signature: None,
        sample_every: 0,
    };
    let run = client.create_run(spec).await?.id;
    let payload = Arc::new(legal_pair(spec_tc(), &engine::Position::startpos()));

    // Fill the run: simulated workers, one pair per lease, as fast as the coordinator takes them.
    let filled = Instant::now();
    let recorded = Arc::new(AtomicU64::new(0));
    let mut fillers = Vec::new();
    for i in 0..16 {
        let (url, payload, recorded, target) = (emb.url.clone(), Arc::clone(&payload), Arc::clone(&recorded), a.games);
        fillers.push(tokio::spawn(async move {
            let c = remote::connect(&url, token, None).await?;
            let worker = c.register(&sim_worker(i)).await?;
            while recorded.load(Ordering::Relaxed) < target {
                record_one(&c, worker, &payload, &recorded).await?;
            }
            anyhow::Ok(())
        }));
    }
    for f in fillers {
        f.await??;
    }
    let games = recorded.load(Ordering::Relaxed);
    eprintln!("filled the run with {games} games in {:.0} s", filled.elapsed().as_secs_f64());
    for path in [
        format!("/api/runs/{run}"),
        format!("/api/runs/{run}/games?offset={}&limit=50", games.saturating_sub(50)),
        "/api/runs".to_owned(),
        "/api/workers".to_owned(),
    ] {
        println!(
            "GET {path}: {:.1} ms with {games} games in the run (goal: under 100 ms)",
            time_get(&addr, &path, token).await?
        );
    }

    // CPU with and without the open streams, under the same recording rate.
    let stop = Arc::new(AtomicBool::new(false));
    let (url, payload2, stop2, rate) = (emb.url.clone(), Arc::clone(&payload), Arc::clone(&stop), a.rate);
    let recorder = tokio::spawn(async move {
        let c = remote::connect(&url, token, None).await?;
        let worker = c.register(&sim_worker(99)).await?;
        let counter = AtomicU64::new(0);
        let mut tick = tokio::time::interval(Duration::from_secs_f64(2.0 / rate.max(1) as f64));
        while !stop2.load(Ordering::Relaxed) {
            tick.tick().await;
            record_one(&c, worker, &payload2, &counter).await?;
        }
        anyhow::Ok(counter.load(Ordering::Relaxed))
    });
    let measure = |secs: u64| async move {
        let (cpu0, t0) = (cpu_time()?, Instant::now());
        tokio::time::sleep(Duration::from_secs(secs)).await;
        anyhow::Ok((cpu_time()? - cpu0).as_secs_f64() / t0.elapsed().as_secs_f64())
    };
    let without = measure(a.seconds).await?;
    let stream_stop = Arc::new(AtomicBool::new(false));
    let mut streams = Vec::new();
    let mut seqs = Vec::new();
    for _ in 0..a.streams {
        let s = Arc::new(std::sync::Mutex::new(Vec::new()));
        seqs.push(Arc::clone(&s));
        streams.push(tokio::spawn(watch_stream(addr.clone(), token.to_owned(), s, Arc::clone(&stream_stop))));
    }
    tokio::time::sleep(Duration::from_secs(1)).await;
    let with = measure(a.seconds).await?;
    stream_stop.store(true, Ordering::Relaxed);
    for s in streams {
        s.await??;
    }
    stop.store(true, Ordering::Relaxed);
    let during = recorder.await??;
    let mut complete = 0;
    let mut updates = 0;
    for s in &seqs {
        let s = s.lock().map_err(|_| anyhow::anyhow!("poisoned"))?;
        let gapless = s.windows(2).all(|w| w[1] == w[0] + 1);
        if gapless && s.len() > 1 {
            complete += 1;
        }
        updates = updates.max(s.len());
    }
    println!(
        "{} event streams, {:.1} games/s recorded: the process used {:.1}% of a core without them and {:.1}% with them \
         (the streams and their readers: {:.1}% of one core; goal under 5%); {complete}/{} streams received every one \
         of their {updates} updates",
        a.streams,
        during as f64 / (2.0 * a.seconds as f64 + 1.0),
        100.0 * without,
        100.0 * with,
        100.0 * (with - without),
        a.streams,
    );
    emb.stop().await;
    Ok(())
}

/// Leases one pair and submits the payload's games for it.
async fn record_one(
    c: &proto::client::FarmClient,
    worker: proto::domain::WorkerId,
    payload: &[proto::domain::GameReport; 2],
    recorded: &AtomicU64,
) -> Result<()> {
    let reply = c.lease(LeaseRequest { worker, free_slots: 1, held: Vec::new(), finished: Vec::new() }).await?;
    let LeaseGrant::Lease(lease) = reply.grant else { return Ok(()) };
    let pairs: Vec<PairReport> = lease.tasks.iter().map(|t| pair_for(payload, t)).collect();
    let n = 2 * pairs.len() as u64;
    c.submit(SubmitRequest { worker, batch: BatchResult { lease: lease.id, seq: 1, pairs, is_final: true } }).await?;
    recorded.fetch_add(n, Ordering::Relaxed);
    Ok(())
}
