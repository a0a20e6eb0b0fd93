//! The child process: its pipes, a reader thread per output so that every read can time
//! out, a ring of its last stderr lines, and a `Drop` that asks it to quit and then kills and
//! reaps it.

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use super::{EngineCommand, ExternalConfig};
use crate::error::{Error, Result};

/// Longer stdout lines are cut (the rest is skipped): a runaway engine cannot fill memory.
const MAX_LINE_BYTES: usize = 64 * 1024;
/// Lines the reader may queue ahead of us before the child blocks on its pipe.
const LINE_QUEUE: usize = 4096;
/// Each kept stderr line is cut to this many characters.
const MAX_STDERR_CHARS: usize = 300;
/// How long a child whose output ended may take to report its exit status.
const EXIT_WAIT: Duration = Duration::from_secs(1);
/// How long the stderr reader may take to drain a dead child's last words.
const STDERR_SETTLE: Duration = Duration::from_millis(200);

/// A running child with its pipes.
pub(super) struct Process {
    pub(super) child: Child,
    stdin: ChildStdin,
    /// The child's stdout, line by line.
    pub(super) lines: Receiver<String>,
    stderr: Arc<Mutex<VecDeque<String>>>,
    stderr_reader: Option<JoinHandle<()>>,
    quit_grace: Duration,
}

impl Process {
    pub(super) fn start(command: &EngineCommand, config: &ExternalConfig, engine: &str) -> Result<Process> {
        let mut child = Command::new(&command.command)
            .args(&command.args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| Error::Engine {
                engine: engine.to_owned(),
                reason: format!("cannot start `{}`: {e}", command.command),
            })?;
        let (Some(stdin), Some(stdout), Some(stderr_pipe)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            let _ = child.kill();
            let _ = child.wait();
            return Err(Error::Engine {
                engine: engine.to_owned(),
                reason: "the child's pipes were not set up".to_owned(),
            });
        };
        tracing::debug!(engine, command = %command.command, pid = child.id(), "started external engine");

        let (tx, lines) = mpsc::sync_channel(LINE_QUEUE);
        let name = engine.to_owned();
        let stdout_reader = std::thread::Builder::new().name("engine-stdout".to_owned()).spawn(move || {
            read_lines(stdout, |line| {
                tracing::trace!(engine = %name, %line, "engine >");
                tx.send(line).is_ok()
            });
        });
        let stderr = Arc::new(Mutex::new(VecDeque::with_capacity(config.stderr_lines)));
        let ring = Arc::clone(&stderr);
        let (keep, name) = (config.stderr_lines, engine.to_owned());
        let stderr_reader = stdout_reader.and_then(|_| {
            std::thread::Builder::new().name("engine-stderr".to_owned()).spawn(move || {
                read_lines(stderr_pipe, |line| {
                    tracing::debug!(engine = %name, %line, "engine stderr");
                    if let Ok(mut ring) = ring.lock() {
                        if ring.len() >= keep {
                            ring.pop_front();
                        }
                        if keep > 0 {
                            ring.push_back(line.chars().take(MAX_STDERR_CHARS).collect());
                        }
                    }
                    true
                });
            })
        });
        let mut process = Process { child, stdin, lines, stderr, stderr_reader: None, quit_grace: config.quit_grace };
        // On failure the half-started process is dropped: killed and reaped.
        let stderr_reader = stderr_reader.map_err(|e| Error::Engine {
            engine: engine.to_owned(),
            reason: format!("cannot start a reader thread: {e}"),
        })?;
        process.stderr_reader = Some(stderr_reader);
        Ok(process)
    }

    /// Writes one command line (a broken pipe means the child is gone).
    pub(super) fn write_line(&mut self, line: &str) -> std::io::Result<()> {
        self.stdin.write_all(line.as_bytes())?;
        self.stdin.write_all(b"\n")?;
        self.stdin.flush()
    }

    pub(super) fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// The exit status once the child has ended (it is killed after [`EXIT_WAIT`]).
    pub(super) fn exit_status(&mut self) -> String {
        let until = Instant::now() + EXIT_WAIT;
        loop {
            match self.child.try_wait() {
                Ok(Some(status)) => return status.to_string(),
                Ok(None) if Instant::now() < until => std::thread::sleep(Duration::from_millis(5)),
                Ok(None) => {
                    self.kill();
                    return "still running with its output closed; killed".to_owned();
                }
                Err(e) => return format!("unknown ({e})"),
            }
        }
    }

    /// The last stderr lines, once the child has ended: the reader gets a moment to catch
    /// up with what the child wrote just before it died.
    pub(super) fn stderr_tail(&self) -> String {
        let until = Instant::now() + STDERR_SETTLE;
        while self.stderr_reader.as_ref().is_some_and(|r| !r.is_finished()) && Instant::now() < until {
            std::thread::sleep(Duration::from_millis(2));
        }
        match self.stderr.lock() {
            Ok(ring) if !ring.is_empty() => {
                format!("; last stderr: {}", ring.iter().map(String::as_str).collect::<Vec<_>>().join(" | "))
            }
            _ => String::new(),
        }
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.stdin.write_all(b"quit\n").and_then(|()| self.stdin.flush());
            let until = Instant::now() + self.quit_grace;
            while Instant::now() < until {
                if !matches!(self.child.try_wait(), Ok(None)) {
                    break;
                }
                std::thread::sleep(Duration::from_millis(5));
            }
        }
        // Kill (a no-op error once it has exited) and reap. The reader threads end at the
        // pipes' end or when the channel is gone; nothing waits for them, so a grandchild
        // that still holds the pipes cannot block the worker.
        self.kill();
    }
}

/// Reads `source` line by line (lossy UTF-8, trimmed, cut at [`MAX_LINE_BYTES`]) until its
/// end or until `emit` returns false.
fn read_lines(source: impl Read, mut emit: impl FnMut(String) -> bool) {
    let mut reader = BufReader::new(source);
    let mut buf = Vec::new();
    loop {
        buf.clear();
        match (&mut reader).take(MAX_LINE_BYTES as u64).read_until(b'\n', &mut buf) {
            Ok(0) | Err(_) => return,
            Ok(_) => {}
        }
        if buf.last() != Some(&b'\n') && buf.len() == MAX_LINE_BYTES {
            let mut rest = Vec::new();
            loop {
                rest.clear();
                match (&mut reader).take(MAX_LINE_BYTES as u64).read_until(b'\n', &mut rest) {
                    Ok(0) | Err(_) => break,
                    Ok(_) if rest.last() == Some(&b'\n') => break,
                    Ok(_) => {}
                }
            }
        }
        if !emit(String::from_utf8_lossy(&buf).trim().to_owned()) {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_and_broken_lines_are_cut_not_fatal() {
        let mut input = vec![b'x'; MAX_LINE_BYTES + 10];
        input.extend_from_slice(b"\n\xff\xfe bad utf8\r\nbestmove h2e2\n");
        let mut lines = Vec::new();
        read_lines(input.as_slice(), |l| {
            lines.push(l);
            true
        });
        assert_eq!(lines.len(), 3, "{:?}", lines.iter().map(|l| l.len()).collect::<Vec<_>>());
        assert_eq!(lines[0].len(), MAX_LINE_BYTES);
        assert!(lines[1].ends_with("bad utf8"));
        assert_eq!(lines[2], "bestmove h2e2");
    }
}
