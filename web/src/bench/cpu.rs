//! The process's CPU time (user + system), from Linux's `/proc/self/stat`.

use std::time::Duration;

use crate::{Error, Result};

/// Clock ticks a second of `/proc/*/stat`'s times (`USER_HZ`, 100 on every Linux port in use).
const TICKS_PER_SECOND: u64 = 100;

/// The CPU time this process has used so far, all threads.
pub fn process_cpu_time() -> Result<Duration> {
    let stat = std::fs::read_to_string("/proc/self/stat")
        .map_err(|source| Error::Io { context: "reading /proc/self/stat".into(), source })?;
    let ticks = cpu_ticks(&stat)?;
    Ok(Duration::from_millis(ticks * (1000 / TICKS_PER_SECOND)))
}

/// utime + stime of a `/proc/PID/stat` line, in clock ticks. The command name (field 2, in
/// parentheses) may hold spaces and parentheses itself, so fields are counted after its last `)`.
pub(crate) fn cpu_ticks(stat: &str) -> Result<u64> {
    let bad = |why: &str| Error::Bench(format!("/proc/self/stat: {why}"));
    let (_, after) = stat.rsplit_once(')').ok_or_else(|| bad("no command name"))?;
    let fields: Vec<&str> = after.split_whitespace().collect();
    // Fields 14 and 15 of the whole line (utime, stime) are the 12th and 13th after the name.
    let ticks = |i: usize, name: &str| -> Result<u64> {
        let text = fields.get(i).ok_or_else(|| bad(&format!("no {name} (a short line)")))?;
        text.parse().map_err(|_| bad(&format!("{name} `{text}` is not a tick count")))
    };
    Ok(ticks(11, "utime")? + ticks(12, "stime")?)
}

#[cfg(test)]
mod tests {
    use super::*;

    // A real line (Linux 6.x), command name with a space and a parenthesis.
    const LINE: &str = "4242 (tokio (rt) 1) S 1 4242 4242 34816 4242 4194560 5127 0 3 0 \
                        731 215 0 0 20 0 9 0 1234567 1035026432 10742 18446744073709551615 1 1 0 0 0 0 0 \
                        4096 17638 0 0 0 17 1 0 0 0 0 0";

    #[test]
    fn adds_user_and_system_ticks_after_the_command_name() {
        assert_eq!(cpu_ticks(LINE).unwrap(), 731 + 215);
    }

    #[test]
    fn a_short_or_garbled_line_is_refused_naming_the_field() {
        let short = "1 (x) S 1 2 3";
        assert!(cpu_ticks(short).unwrap_err().to_string().contains("no utime"));
        let garbled = LINE.replace(" 215 ", " x ");
        assert!(cpu_ticks(&garbled).unwrap_err().to_string().contains("stime `x`"));
        assert!(cpu_ticks("no name at all").is_err());
    }

    #[test]
    fn this_process_has_used_some_cpu() {
        let spin = std::time::Instant::now();
        while spin.elapsed() < Duration::from_millis(30) {}
        assert!(process_cpu_time().unwrap() > Duration::ZERO);
    }
}
