//! An external engine's bench signature, as OpenBench checks a build before it plays: run
//! `PATH bench`, read the node count it prints. Our engine prints `1862357 nodes 1234567 nps`;
//! Stockfish's family prints `Nodes searched  : 1234567` (on standard error).

use std::io::Read;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::engines::EngineDef;
use crate::error::{Error, Result};

/// How long a bench may take before it counts as hung.
pub const BENCH_TIMEOUT: Duration = Duration::from_secs(300);

/// The node count of a bench's output: the first number on the last line that mentions
/// nodes but not a speed (`N nodes M nps`, `Nodes searched: N`, `Total nodes: N`; not
/// `Nodes/second: N`).
pub fn parse_bench_signature(output: &str) -> Option<u64> {
    let counts = |line: &&str| {
        let line = line.to_ascii_lowercase();
        line.contains("nodes") && !line.contains("nodes/s") && !line.contains("nodes per second")
    };
    output.lines().rev().filter(counts).find_map(|line| {
        line.split(|c: char| !c.is_ascii_digit()).find(|word| !word.is_empty()).and_then(|n| n.parse().ok())
    })
}

/// Runs `PATH [args] bench` and reads its signature; an engine that fails, hangs past
/// `timeout` or prints no node count is an error naming it.
pub fn bench_signature(def: &EngineDef, timeout: Duration) -> Result<u64> {
    let setup = |reason: String| Error::EngineSetup {
        name: def.name.clone(),
        path: def.path.display().to_string(),
        reason: format!("bench: {reason}"),
    };
    let mut child = Command::new(&def.path)
        .args(&def.args)
        .arg("bench")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| setup(format!("cannot start it: {e}")))?;
    // Both pipes are drained on threads so a chatty engine never blocks on a full pipe.
    let drain = |pipe: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut text = String::new();
            if let Some(mut pipe) = pipe {
                let _ = pipe.read_to_string(&mut text);
            }
            text
        })
    };
    let out = drain(child.stdout.take().map(|p| Box::new(p) as Box<dyn Read + Send>));
    let err = drain(child.stderr.take().map(|p| Box::new(p) as Box<dyn Read + Send>));
    let started = Instant::now();
    let status = loop {
        match child.try_wait().map_err(|e| setup(e.to_string()))? {
            Some(status) => break status,
            None if started.elapsed() > timeout => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(setup(format!("no result within {} s", timeout.as_secs())));
            }
            None => std::thread::sleep(Duration::from_millis(20)),
        }
    };
    let text = format!("{}\n{}", out.join().unwrap_or_default(), err.join().unwrap_or_default());
    if !status.success() {
        return Err(setup(format!("exited with {status}")));
    }
    parse_bench_signature(&text)
        .ok_or_else(|| setup("it printed no node count (a line like `N nodes` or `Nodes searched: N`)".into()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signatures_of_our_engine_and_the_stockfish_family() {
        assert_eq!(parse_bench_signature("info depth 1\n1862357 nodes 1500000 nps\n"), Some(1862357));
        let fsf = "Position: 1/3\n...\n===========================\nTotal time (ms) : 2112\nNodes searched  : 3418263\nNodes/second    : 1618495\n";
        assert_eq!(parse_bench_signature(fsf), Some(3418263), "the count, not the speed after it");
        assert_eq!(parse_bench_signature("no numbers here\n"), None);
    }
}
