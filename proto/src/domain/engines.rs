//! External engines by name: a worker is given engines (`NAME=PATH`) and advertises them; an
//! external variant names one. No command line or path ever travels through the farm.
//!
//! ```
//! use proto::domain::check_engine_name;
//!
//! assert!(check_engine_name("fairy-stockfish").is_ok());
//! let error = check_engine_name("/usr/games/fairy-stockfish").unwrap_err();
//! assert!(error.contains("a path"), "{error}");
//! ```

/// Longest engine name, in bytes.
pub const MAX_ENGINE_NAME_BYTES: usize = 64;

/// An engine a worker was given, as it advertises it at `Register`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct EngineInfo {
    /// The short name variants use (`fsf`).
    pub name: String,
    /// What the engine called itself in its handshake (`id name`; empty if it gave none).
    pub id_name: String,
    /// Lowercase hex SHA-256 of the engine's binary.
    pub sha256: String,
}

/// An engine option as the command line gives it (`--option NAME=VALUE` of `variant add`, `match`,
/// `spsa` and `tournament create`), the one rule for all: both sides trimmed, the name not empty,
/// the value may be (a button, or an empty string). Usable as clap's `value_parser`.
pub fn parse_engine_option(text: &str) -> Result<(String, String), String> {
    match text.split_once('=') {
        Some((name, value)) if !name.trim().is_empty() => Ok((name.trim().to_owned(), value.trim().to_owned())),
        _ => Err(format!("`{text}`: expected NAME=VALUE (an engine option and its value)")),
    }
}

/// Why `name` is not an engine name, or `Ok`: 1 to [`MAX_ENGINE_NAME_BYTES`] ASCII letters,
/// digits, `-`, `_` or `.`, not starting with `.` or `-`. A name with `/` or `\` or a space is
/// refused as what it looks like: a path or a command line.
pub fn check_engine_name(name: &str) -> Result<(), String> {
    if name.is_empty() {
        return Err("an engine name must not be empty".into());
    }
    if name.contains(['/', '\\']) {
        return Err(format!(
            "`{}` is a path: an external variant names an engine the workers were given (`worker --engine NAME=PATH`), \
             never a path",
            name.escape_debug()
        ));
    }
    if name.chars().any(char::is_whitespace) {
        return Err(format!(
            "`{}` is a command line: an external variant names an engine the workers were given \
             (`worker --engine NAME=PATH`); arguments belong to the worker's engine definition",
            name.escape_debug()
        ));
    }
    if name.len() > MAX_ENGINE_NAME_BYTES {
        return Err(format!("engine name `{name}` has {} bytes, at most {MAX_ENGINE_NAME_BYTES}", name.len()));
    }
    if !name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_' || b == b'.')
        || name.starts_with(['.', '-'])
    {
        return Err(format!(
            "engine name `{}`: expected ASCII letters, digits, `-`, `_` and `.`, not starting with `.` or `-`",
            name.escape_debug()
        ));
    }
    Ok(())
}

/// Why `digest` is not a lowercase hex SHA-256, or `Ok`.
pub fn check_sha256(digest: &str) -> Result<(), String> {
    if digest.len() == 64 && digest.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)) {
        Ok(())
    } else {
        Err(format!("`{}` is not a SHA-256 (64 lowercase hex digits)", digest.escape_debug()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_engine_option_is_name_equals_value_trimmed() {
        let ok = |t: &str| parse_engine_option(t).expect(t);
        assert_eq!(ok("Hash=16"), ("Hash".to_owned(), "16".to_owned()));
        assert_eq!(ok("Clear Hash="), ("Clear Hash".to_owned(), String::new()));
        assert_eq!(ok(" UCI_Variant = xiangqi "), ("UCI_Variant".to_owned(), "xiangqi".to_owned()));
        assert_eq!(ok("EvalFile=a=b.nnue"), ("EvalFile".to_owned(), "a=b.nnue".to_owned()));
        for bad in ["Hash", "=16", " =16", ""] {
            let error = parse_engine_option(bad).expect_err(bad);
            assert!(error.contains(&format!("`{bad}`")) && error.contains("NAME=VALUE"), "{error}");
        }
    }

    #[test]
    fn engine_names_are_short_identifiers() {
        for good in ["fsf", "fairy-stockfish", "pikafish_2024.1", "A1"] {
            assert_eq!(check_engine_name(good), Ok(()), "{good}");
        }
        let reason = |name: &str| check_engine_name(name).expect_err(name);
        assert!(reason("/usr/bin/pikafish").contains("is a path"));
        assert!(reason("engines\\fsf.exe").contains("is a path"));
        assert!(reason("pikafish --threads 2").contains("is a command line"));
        assert!(reason("").contains("empty"));
        assert!(reason(&"x".repeat(65)).contains("at most 64"));
        for bad in ["-x", ".hidden", "a;b", "fsf$", "ü"] {
            assert!(reason(bad).contains("expected ASCII letters"), "{bad}");
        }
    }

    #[test]
    fn digests_are_lowercase_hex() {
        assert_eq!(check_sha256(&"ab".repeat(32)), Ok(()));
        for bad in ["", "ab", &"AB".repeat(32), &"g0".repeat(32), &"a".repeat(65)] {
            assert!(check_sha256(bad).is_err(), "{bad}");
        }
    }
}
