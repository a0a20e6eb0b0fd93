//! The process's logs, on stderr: `XQFARM_LOG` filters them (`tracing`'s `EnvFilter` syntax,
//! default `warn`) and `XQFARM_LOG_FORMAT` shapes them: `text` (the default, for people) or
//! `json` (one object a line, for log collectors: Kubernetes, Loki, journald). An unknown format
//! is refused before anything runs, naming the variable and the value.

use std::fmt;

use anyhow::{Result, bail};
use tracing_subscriber::EnvFilter;

/// The variable that picks the format.
pub const FORMAT_VAR: &str = "XQFARM_LOG_FORMAT";
/// The variable that filters the events.
pub const FILTER_VAR: &str = "XQFARM_LOG";

/// How log events are written.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LogFormat {
    /// One human-readable line an event.
    #[default]
    Text,
    /// One JSON object a line: `timestamp`, `level`, `target`, `fields` (with `message`).
    Json,
}

impl LogFormat {
    pub const ALL: [LogFormat; 2] = [LogFormat::Text, LogFormat::Json];

    pub fn as_str(self) -> &'static str {
        match self {
            LogFormat::Text => "text",
            LogFormat::Json => "json",
        }
    }

    /// The format `XQFARM_LOG_FORMAT` asks for: unset or empty is `text`; case and surrounding
    /// blanks are ignored; anything else is an error naming the value.
    pub fn from_env_value(value: Option<&str>) -> Result<LogFormat> {
        let Some(value) = value.map(str::trim).filter(|v| !v.is_empty()) else {
            return Ok(LogFormat::default());
        };
        match LogFormat::ALL.into_iter().find(|f| f.as_str().eq_ignore_ascii_case(value)) {
            Some(format) => Ok(format),
            None => {
                let known: Vec<&str> = LogFormat::ALL.iter().map(|f| f.as_str()).collect();
                bail!("{FORMAT_VAR}: unknown log format `{value}` (expected {})", known.join(" or "))
            }
        }
    }
}

impl fmt::Display for LogFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Installs the process's subscriber from the environment.
pub fn init() -> Result<()> {
    let format = match std::env::var(FORMAT_VAR) {
        Ok(v) => LogFormat::from_env_value(Some(&v))?,
        Err(std::env::VarError::NotPresent) => LogFormat::default(),
        Err(std::env::VarError::NotUnicode(v)) => bail!("{FORMAT_VAR}: not UTF-8: {v:?}"),
    };
    let filter = EnvFilter::try_from_env(FILTER_VAR).unwrap_or_else(|_| EnvFilter::new("warn"));
    let builder = tracing_subscriber::fmt().with_env_filter(filter).with_writer(std::io::stderr);
    match format {
        LogFormat::Text => builder.init(),
        LogFormat::Json => builder.json().with_current_span(false).init(),
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_are_read_from_the_variable_and_an_unknown_one_is_named() {
        assert_eq!(LogFormat::from_env_value(None).unwrap(), LogFormat::Text);
        assert_eq!(LogFormat::from_env_value(Some("")).unwrap(), LogFormat::Text);
        assert_eq!(LogFormat::from_env_value(Some("json")).unwrap(), LogFormat::Json);
        assert_eq!(LogFormat::from_env_value(Some(" JSON ")).unwrap(), LogFormat::Json);
        assert_eq!(LogFormat::from_env_value(Some("text")).unwrap(), LogFormat::Text);
        let err = LogFormat::from_env_value(Some("xml")).unwrap_err().to_string();
        assert_eq!(err, "XQFARM_LOG_FORMAT: unknown log format `xml` (expected text or json)");
    }
}
