//! SPSA runs, as Fishtest runs them: the parameters to tune (read from the input lines
//! Stockfish's `TUNE` prints), the schedule's constants, and the perturbation a lease carries.
//!
//! The input is one parameter a line, `name,start,min,max,c_end,r_end` (blank lines and lines
//! starting with `#` are skipped). A parameter is an integer unless one of start, min or max
//! is written with a decimal point or an exponent (`12.5`, `1e3`): integers are rounded
//! stochastically by the worker, and their perturbation is never below 0.5.

use crate::error::{Error, Result};

/// Fishtest's schedule exponents and stability constant.
pub const SPSA_ALPHA: f64 = 0.602;
pub const SPSA_GAMMA: f64 = 0.101;
/// `A = A_RATIO * iterations`.
pub const SPSA_A_RATIO: f64 = 0.1;
/// The most parameters one run tunes.
pub const MAX_SPSA_PARAMS: usize = 256;

/// One parameter of an SPSA run.
#[derive(Clone, Debug, PartialEq)]
pub struct SpsaParam {
    /// An engine parameter: `search.<key>` or an evaluation name for the built-in engine, a
    /// spin option's name for an external one.
    pub name: String,
    pub start: f64,
    pub min: f64,
    pub max: f64,
    /// The perturbation at the last iteration.
    pub c_end: f64,
    /// The step at the last iteration, relative to `c_end`: `a_end / c_end²`.
    pub r_end: f64,
    /// Rounded stochastically by the worker; its perturbation is floored at 0.5.
    pub integer: bool,
}

/// The design of an SPSA run: its parameters and its number of iterations (game pairs).
#[derive(Clone, Debug, PartialEq)]
pub struct SpsaSettings {
    /// Iterations, N: each game pair is one.
    pub pairs: u64,
    pub params: Vec<SpsaParam>,
}

/// One parameter's two values in a batch: `plus` is played by the task's first player
/// (`variants[0]`, Red in the pair's first game), `minus` by the second.
#[derive(Clone, Debug, PartialEq)]
pub struct SpsaPoint {
    pub name: String,
    pub plus: f64,
    pub minus: f64,
    pub integer: bool,
}

/// What an SPSA lease plays: the iteration it was drawn at and both sides' values.
#[derive(Clone, Debug, PartialEq)]
pub struct SpsaBatch {
    /// 1-based: pairs recorded when the lease was granted, plus one.
    pub iteration: u64,
    pub points: Vec<SpsaPoint>,
}

/// A parameter's current value, for `run show` and the web.
#[derive(Clone, Debug, PartialEq)]
pub struct SpsaValue {
    pub name: String,
    pub start: f64,
    pub value: f64,
    pub min: f64,
    pub max: f64,
    pub integer: bool,
}

impl SpsaParam {
    /// Finite numbers, min < max, start within, c_end > 0 and below the range, r_end > 0, and
    /// a name that is one printable token. The error names `params[i].field`.
    pub fn validate(&self, i: usize) -> Result<()> {
        let field = |f: &str| format!("params[{i}].{f}");
        let name = &self.name;
        if name.is_empty() || name.len() > 128 || !name.chars().all(|c| c.is_ascii_graphic() || c == ' ') {
            return Err(Error::invalid(field("name"), format!("`{name}` is not 1-128 printable ASCII characters")));
        }
        if name.contains(',') {
            return Err(Error::invalid(field("name"), format!("`{name}` contains a comma")));
        }
        for (f, v) in
            [("start", self.start), ("min", self.min), ("max", self.max), ("c_end", self.c_end), ("r_end", self.r_end)]
        {
            if !v.is_finite() {
                return Err(Error::invalid(field(f), format!("must be a finite number, got {v}")));
            }
        }
        if self.min > self.max {
            return Err(Error::invalid(field("min"), format!("{} is above max {}", self.min, self.max)));
        }
        if self.min == self.max {
            return Err(Error::invalid(field("max"), format!("equals min {}: nothing to tune", self.min)));
        }
        if !(self.min..=self.max).contains(&self.start) {
            return Err(Error::invalid(
                field("start"),
                format!("{} is outside its range {}..={}", self.start, self.min, self.max),
            ));
        }
        if self.c_end <= 0.0 || self.c_end > self.max - self.min {
            return Err(Error::invalid(
                field("c_end"),
                format!("must be positive and at most max - min ({}), got {}", self.max - self.min, self.c_end),
            ));
        }
        if self.r_end <= 0.0 {
            return Err(Error::invalid(field("r_end"), format!("must be positive, got {}", self.r_end)));
        }
        if self.integer {
            for (f, v) in [("start", self.start), ("min", self.min), ("max", self.max)] {
                if v.fract() != 0.0 {
                    return Err(Error::invalid(field(f), format!("an integer parameter needs an integer, got {v}")));
                }
            }
        }
        Ok(())
    }

    /// The input line of the parameter, as [`parse_spsa_lines`] reads it.
    pub fn to_line(&self) -> String {
        let num = |v: f64| if self.integer { format!("{v:.0}") } else { format!("{v:?}") };
        format!("{},{},{},{},{},{}", self.name, num(self.start), num(self.min), num(self.max), self.c_end, self.r_end)
    }
}

impl SpsaSettings {
    /// Positive iterations, 1 to [`MAX_SPSA_PARAMS`] parameters, each valid, no name twice.
    pub fn validate(&self) -> Result<()> {
        if self.pairs == 0 {
            return Err(Error::invalid("pairs", "must be positive, got 0"));
        }
        if self.params.is_empty() || self.params.len() > MAX_SPSA_PARAMS {
            return Err(Error::invalid(
                "params",
                format!("an SPSA run tunes 1 to {MAX_SPSA_PARAMS} parameters, got {}", self.params.len()),
            ));
        }
        for (i, p) in self.params.iter().enumerate() {
            p.validate(i)?;
            if self.params[..i].iter().any(|q| q.name == p.name) {
                return Err(Error::invalid(format!("params[{i}].name"), format!("`{}` appears twice", p.name)));
            }
        }
        Ok(())
    }
}

/// Why an SPSA input line was refused: its 1-based number, the line, and the reason.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("line {line} `{text}`: {reason}")]
pub struct SpsaLineError {
    pub line: usize,
    pub text: String,
    pub reason: String,
}

/// Reads SPSA input lines (`name,start,min,max,c_end,r_end`); every refusal names its line.
/// Whether the names mean something to the engine is the caller's check.
pub fn parse_spsa_lines(text: &str) -> std::result::Result<Vec<SpsaParam>, SpsaLineError> {
    let mut params: Vec<SpsaParam> = Vec::new();
    for (n, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let bad = |reason: String| SpsaLineError { line: n + 1, text: line.to_owned(), reason };
        let fields: Vec<&str> = line.split(',').map(str::trim).collect();
        let [name, start, min, max, c_end, r_end] = fields[..] else {
            return Err(bad(format!(
                "expected 6 comma-separated fields name,start,min,max,c_end,r_end, got {}",
                fields.len()
            )));
        };
        let number = |what: &str, t: &str| -> std::result::Result<f64, SpsaLineError> {
            t.parse::<f64>().ok().filter(|v| v.is_finite()).ok_or_else(|| bad(format!("{what} `{t}` is not a number")))
        };
        let is_float = |t: &str| t.contains(['.', 'e', 'E']);
        let param = SpsaParam {
            name: name.to_owned(),
            start: number("start", start)?,
            min: number("min", min)?,
            max: number("max", max)?,
            c_end: number("c_end", c_end)?,
            r_end: number("r_end", r_end)?,
            integer: ![start, min, max].iter().any(|t| is_float(t)),
        };
        param.validate(params.len()).map_err(|e| match e {
            Error::InvalidField { field, reason } => {
                let field = field.rsplit('.').next().unwrap_or(&field).to_owned();
                bad(format!("{field}: {reason}"))
            }
            other => bad(other.to_string()),
        })?;
        if params.iter().any(|p| p.name == param.name) {
            return Err(bad(format!("`{}` appears on an earlier line", param.name)));
        }
        params.push(param);
    }
    if params.is_empty() {
        return Err(SpsaLineError { line: 0, text: String::new(), reason: "no parameter lines".into() });
    }
    Ok(params)
}

/// An SPSA run's values after `iteration` pairs were recorded (0: the start values).
#[derive(Clone, Debug, PartialEq)]
pub struct HistoryPoint {
    pub iteration: u64,
    pub received_ms: u64,
    pub theta: Vec<f64>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stockfish_tune_lines_read() {
        let text =
            "# from xqengine params --spsa\nsearch.rfp_margin,90,20,300,10,0.002\n\nFutility,1.5,0.0,3,0.1,0.002\n";
        let params = parse_spsa_lines(text).expect("valid lines");
        assert_eq!(params.len(), 2);
        assert_eq!(
            params[0],
            SpsaParam {
                name: "search.rfp_margin".into(),
                start: 90.0,
                min: 20.0,
                max: 300.0,
                c_end: 10.0,
                r_end: 0.002,
                integer: true
            }
        );
        assert!(!params[1].integer);
        for p in &params {
            assert_eq!(parse_spsa_lines(&p.to_line()).expect("round trip")[0], *p);
        }
    }

    #[test]
    fn bad_lines_are_named() {
        let cases = [
            (
                "a,1,0,2,1",
                "line 1 `a,1,0,2,1`: expected 6 comma-separated fields name,start,min,max,c_end,r_end, got 5",
            ),
            ("a,x,0,2,1,0.002", "line 1 `a,x,0,2,1,0.002`: start `x` is not a number"),
            ("a,1,5,2,1,0.002", "line 1 `a,1,5,2,1,0.002`: min: 5 is above max 2"),
            ("a,9,0,2,1,0.002", "line 1 `a,9,0,2,1,0.002`: start: 9 is outside its range 0..=2"),
            ("a,1,0,2,0,0.002", "line 1 `a,1,0,2,0,0.002`: c_end: must be positive and at most max - min (2), got 0"),
            ("a,1,0,2,1,-1", "line 1 `a,1,0,2,1,-1`: r_end: must be positive, got -1"),
            ("a,1,0,2,1,0.002\n#\na,1,0,2,1,0.002", "line 3 `a,1,0,2,1,0.002`: `a` appears on an earlier line"),
            ("a,inf,0,2,1,0.002", "line 1 `a,inf,0,2,1,0.002`: start `inf` is not a number"),
        ];
        for (text, want) in cases {
            assert_eq!(parse_spsa_lines(text).expect_err(text).to_string(), want);
        }
        assert!(parse_spsa_lines("# nothing\n").is_err());
    }

    #[test]
    fn settings_refuse_duplicates_and_empty_runs() {
        let p = parse_spsa_lines("a,1,0,2,1,0.002").expect("valid");
        let ok = SpsaSettings { pairs: 10, params: p.clone() };
        assert!(ok.validate().is_ok());
        let twice = SpsaSettings { pairs: 10, params: [p.clone(), p.clone()].concat() };
        assert!(twice.validate().expect_err("twice").to_string().contains("params[1].name"));
        assert!(SpsaSettings { pairs: 0, params: p }.validate().is_err());
        assert!(SpsaSettings { pairs: 1, params: Vec::new() }.validate().is_err());
    }
}
