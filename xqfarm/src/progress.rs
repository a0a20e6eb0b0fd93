//! The one progress writer of every command (`loop`, `sprt`, `spsa`, `tournament`, `tune`,
//! `local`, `tb generate`). On a terminal, a live line redrawn in place with `\r`. Anywhere else
//! (`xqfarm loop 2> log`, a CI job, a Slurm log), plain lines: at most one every
//! [`PLAIN_EVERY`], and the final one always, so a log reads line by line instead of holding
//! one line of thousands of redraws.
//!
//! The decisions take the time as an argument (`*_at`), so the tests drive them without a clock.

use std::io::{IsTerminal, Write};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

/// The least time between two plain progress lines.
pub const PLAIN_EVERY: Duration = Duration::from_secs(10);

/// A progress line on standard error (or any writer), shared by the callbacks that draw it.
pub struct Progress {
    live: bool,
    every: Duration,
    state: Mutex<State>,
}

impl std::fmt::Debug for Progress {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Progress").field("live", &self.live).field("every", &self.every).finish_non_exhaustive()
    }
}

struct State {
    out: Box<dyn Write + Send>,
    /// When the last plain line was written.
    last_plain: Option<Instant>,
    /// The newest line not yet written (plain mode), written when due or at the end.
    pending: Option<String>,
    /// Whether a live line is drawn and not ended by a newline (terminal mode).
    open: bool,
}

impl Progress {
    /// Progress on standard error: live when standard error is a terminal, plain otherwise.
    pub fn stderr() -> Arc<Progress> {
        let live = std::io::stderr().is_terminal();
        Arc::new(Progress::new(Box::new(std::io::stderr()), live, PLAIN_EVERY))
    }

    /// Progress written to `out`: a live line when `live`, else plain lines at most one per
    /// `every`.
    pub fn new(out: Box<dyn Write + Send>, live: bool, every: Duration) -> Progress {
        Progress { live, every, state: Mutex::new(State { out, last_plain: None, pending: None, open: false }) }
    }

    /// The progress is now `line`.
    pub fn update(&self, line: &str) {
        self.update_at(Instant::now(), line);
    }

    /// The progress is now `line`, at time `now`.
    pub fn update_at(&self, now: Instant, line: &str) {
        let mut s = self.lock();
        if self.live {
            let _ = write!(s.out, "\r{}   ", line.trim_end());
            s.open = true;
        } else if s.last_plain.is_none_or(|t| now.saturating_duration_since(t) >= self.every) {
            let _ = writeln!(s.out, "{}", line.trim_end());
            s.last_plain = Some(now);
            s.pending = None;
        } else {
            s.pending = Some(line.trim_end().to_owned());
        }
        let _ = s.out.flush();
    }

    /// The last progress line: always written, and the live line ends with it.
    pub fn finish(&self, line: &str) {
        let mut s = self.lock();
        if self.live {
            let _ = writeln!(s.out, "\r{}   ", line.trim_end());
        } else {
            let _ = writeln!(s.out, "{}", line.trim_end());
        }
        s.open = false;
        s.pending = None;
        s.last_plain = None;
        let _ = s.out.flush();
    }

    /// Ends the progress where it stands: the live line keeps its last text and gets its
    /// newline; in plain mode a line held back by the rate limit is written.
    pub fn end(&self) {
        let mut s = self.lock();
        if s.open {
            let _ = writeln!(s.out);
            s.open = false;
        }
        if let Some(line) = s.pending.take() {
            let _ = writeln!(s.out, "{line}");
        }
        s.last_plain = None;
        let _ = s.out.flush();
    }

    /// Erases the live line (terminal mode); a line held back in plain mode is dropped.
    pub fn clear(&self) {
        let mut s = self.lock();
        if s.open {
            let _ = write!(s.out, "\r{:78}\r", "");
            s.open = false;
        }
        s.pending = None;
        let _ = s.out.flush();
    }

    /// A line of other output (a note), on a line of its own after the progress so far (the
    /// live line, or in plain mode the line held back by the rate limit).
    pub fn note(&self, text: &str) {
        let mut s = self.lock();
        if s.open {
            let _ = writeln!(s.out);
            s.open = false;
        }
        if let Some(line) = s.pending.take() {
            let _ = writeln!(s.out, "{line}");
        }
        let _ = writeln!(s.out, "{}", text.trim_end());
        let _ = s.out.flush();
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        // A panic mid-write leaves nothing inconsistent but a half-drawn line.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A writer whose bytes the test reads back.
    #[derive(Clone, Default)]
    struct Shared(Arc<Mutex<Vec<u8>>>);

    impl Write for Shared {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    impl Shared {
        fn text(&self) -> String {
            String::from_utf8(self.0.lock().unwrap().clone()).unwrap()
        }
    }

    fn progress(live: bool) -> (Progress, Shared) {
        let out = Shared::default();
        (Progress::new(Box::new(out.clone()), live, PLAIN_EVERY), out)
    }

    #[test]
    fn plain_lines_come_at_most_every_ten_seconds_and_the_last_one_always() {
        let (p, out) = progress(false);
        let t0 = Instant::now();
        p.update_at(t0, "games 2");
        p.update_at(t0 + Duration::from_secs(3), "games 4");
        p.update_at(t0 + Duration::from_secs(9), "games 6");
        p.update_at(t0 + Duration::from_secs(10), "games 8");
        p.update_at(t0 + Duration::from_secs(12), "games 10");
        p.finish("games 12 done");
        assert_eq!(out.text(), "games 2\ngames 8\ngames 12 done\n");
        assert!(!out.text().contains('\r'));
    }

    #[test]
    fn a_thousand_updates_in_a_minute_write_seven_plain_lines() {
        let (p, out) = progress(false);
        let t0 = Instant::now();
        for i in 0..1000u64 {
            p.update_at(t0 + Duration::from_millis(i * 60), &format!("games {i}"));
        }
        p.end();
        // About every 10 s (each 10 s after the last one written), and the held-back last line at the end.
        let text = out.text();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines, ["games 0", "games 167", "games 334", "games 501", "games 668", "games 835", "games 999"]);
    }

    #[test]
    fn a_terminal_gets_one_live_line_ended_by_the_final_one() {
        let (p, out) = progress(true);
        let t0 = Instant::now();
        p.update_at(t0, "games 2");
        p.update_at(t0 + Duration::from_millis(10), "games 4");
        p.note("iteration 1: tuned");
        p.update_at(t0 + Duration::from_millis(20), "games 6");
        p.finish("games 8 done");
        assert_eq!(out.text(), "\rgames 2   \rgames 4   \niteration 1: tuned\n\rgames 6   \rgames 8 done   \n");
    }

    #[test]
    fn a_note_in_plain_mode_comes_after_the_held_line() {
        let (p, out) = progress(false);
        let t0 = Instant::now();
        p.update_at(t0, "epoch 1");
        p.update_at(t0 + Duration::from_secs(1), "epoch 2");
        p.note("tuned: 3 weights changed");
        p.update_at(t0 + Duration::from_secs(2), "games 2");
        p.end();
        assert_eq!(out.text(), "epoch 1\nepoch 2\ntuned: 3 weights changed\ngames 2\n");
    }
}
