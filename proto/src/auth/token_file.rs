//! The token file: one token a line, stored as its SHA-256, never in clear.
//!
//! ```text
//! # role     hash of the token                                                  label
//! worker    sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08 gpu-box-1
//! user      sha256:60303ae22b998861bce3b28f33eec1be758a213c86c93c076dbe9f558c11c752 alice
//! read-only sha256:fd61a03af4f77d870fc21e05e7e80678095c92d808cfb3b5c279ee04c74aca13
//! ```
//!
//! `#` starts a comment line; blank lines are skipped; the label (the rest of the line) is
//! optional and only shown in logs and refusals. Parsing is pure ([`parse`]); [`read`] and
//! [`append`] are the file's IO.

use std::io::Write as _;
use std::path::Path;

use sha2::{Digest, Sha256};

use super::roles::Role;
use crate::error::{Error, Result};

const HASH_PREFIX: &str = "sha256:";

/// One line of a token file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TokenEntry {
    pub role: Role,
    /// SHA-256 of the token.
    pub digest: [u8; 32],
    /// Free text naming the holder (may be empty).
    pub label: String,
}

impl TokenEntry {
    /// The line this entry is written as.
    pub fn to_line(&self) -> String {
        let line = format!("{} {HASH_PREFIX}{}", self.role, hex(&self.digest));
        if self.label.is_empty() { line } else { format!("{line} {}", self.label) }
    }
}

/// The SHA-256 of a token, as stored in the file and compared on every call.
pub fn digest(token: &str) -> [u8; 32] {
    Sha256::digest(token.as_bytes()).into()
}

/// Parses a token file's text; `name` (the file's path) goes into errors, with the line.
pub fn parse(name: &str, text: &str) -> Result<Vec<TokenEntry>> {
    let mut entries: Vec<(usize, TokenEntry)> = Vec::new();
    for (index, raw) in text.lines().enumerate() {
        let line = index + 1;
        let fail = |reason: String| Error::TokenFile { path: name.to_owned(), line, reason };
        let content = raw.trim();
        if content.is_empty() || content.starts_with('#') {
            continue;
        }
        let entry = parse_line(content).map_err(fail)?;
        if let Some((first, _)) = entries.iter().find(|(_, e)| e.digest == entry.digest) {
            return Err(fail(format!("the same token as line {first}")));
        }
        entries.push((line, entry));
    }
    if entries.is_empty() {
        return Err(Error::TokenFile {
            path: name.to_owned(),
            line: text.lines().count(),
            reason: "the file holds no token (expected lines `<role> sha256:<64 hex digits> [label]`)".into(),
        });
    }
    Ok(entries.into_iter().map(|(_, e)| e).collect())
}

fn parse_line(content: &str) -> Result<TokenEntry, String> {
    let mut words = content.split_whitespace();
    let role_word = words.next().unwrap_or_default();
    let role: Role = role_word.parse().map_err(|_| {
        format!("unknown role `{role_word}` (expected worker, user or read-only at the start of the line)")
    })?;
    let hash = words.next().ok_or_else(|| format!("`{role_word}` is not followed by `sha256:<64 hex digits>`"))?;
    let hex_digits = hash.strip_prefix(HASH_PREFIX).ok_or_else(|| {
        format!(
            "`{}` is not a hash: expected `sha256:<64 hex digits>` (the file stores hashes, never tokens)",
            shorten(hash)
        )
    })?;
    let digest = parse_hex(hex_digits).ok_or_else(|| {
        format!(
            "`{}` is not a SHA-256: expected 64 hex digits after `sha256:`, found {} characters",
            shorten(hash),
            hex_digits.chars().count()
        )
    })?;
    let label = words.collect::<Vec<_>>().join(" ");
    Ok(TokenEntry { role, digest, label })
}

/// Reads and parses a token file; IO and format errors name the file (and the line).
pub fn read(path: &Path) -> Result<Vec<TokenEntry>> {
    let name = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| Error::TokenFile {
        path: name.clone(),
        line: 0,
        reason: format!("cannot read it: {e}"),
    })?;
    parse(&name, &text)
}

/// A freshly minted token and the entry that admits it.
#[derive(Debug)]
pub struct Minted {
    /// Shown once to whoever minted it; the file keeps only its hash.
    pub token: String,
    pub entry: TokenEntry,
}

/// Mints a token of 256 random bits from the operating system's CSPRNG.
pub fn mint(role: Role, label: &str) -> Result<Minted> {
    let label = label.trim();
    if label.chars().any(char::is_control) {
        return Err(Error::InvalidLabel(label.to_owned()));
    }
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).map_err(|e| Error::Random(e.to_string()))?;
    let token = format!("xqf_{}", hex(&bytes));
    let entry = TokenEntry { role, digest: digest(&token), label: label.to_owned() };
    Ok(Minted { token, entry })
}

/// Appends `entry` to the token file at `path`, creating it (readable by its owner only)
/// when missing. An existing file must parse: nothing is added to a broken one.
pub fn append(path: &Path, entry: &TokenEntry) -> Result<()> {
    let name = path.display().to_string();
    let io = |e: std::io::Error| Error::TokenFile { path: name.clone(), line: 0, reason: e.to_string() };
    let existing = match std::fs::read_to_string(path) {
        Ok(text) => Some(text),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(io(e)),
    };
    let mut text = String::new();
    match &existing {
        Some(old) => {
            // Comments only (or empty) is fine: the new line makes it a token file.
            if old.lines().any(|l| !l.trim().is_empty() && !l.trim().starts_with('#')) {
                parse(&name, old)?;
            }
            if !old.is_empty() && !old.ends_with('\n') {
                text.push('\n');
            }
        }
        None => text.push_str("# xqfarm token file: <role> sha256:<hash of the token> [label]\n"),
    }
    text.push_str(&entry.to_line());
    text.push('\n');
    let mut options = std::fs::OpenOptions::new();
    options.append(true).create(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    options.open(path).and_then(|mut f| f.write_all(text.as_bytes())).map_err(io)
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn parse_hex(text: &str) -> Option<[u8; 32]> {
    if text.len() != 64 || !text.is_ascii() {
        return None;
    }
    let mut out = [0u8; 32];
    for (i, byte) in out.iter_mut().enumerate() {
        *byte = u8::from_str_radix(&text[2 * i..2 * i + 2], 16).ok()?;
    }
    Some(out)
}

/// Long words are cut in messages: a token pasted by mistake is not echoed whole.
fn shorten(word: &str) -> String {
    if word.chars().count() <= 16 {
        word.to_owned()
    } else {
        format!("{}...", word.chars().take(12).collect::<String>())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HASH_A: &str = "sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";
    const HASH_B: &str = "sha256:60303ae22b998861bce3b28f33eec1be758a213c86c93c076dbe9f558c11c752";

    fn error_of(text: &str) -> (usize, String) {
        match parse("tokens.txt", text) {
            Err(Error::TokenFile { path, line, reason }) => {
                assert_eq!(path, "tokens.txt");
                (line, reason)
            }
            other => panic!("expected a token file error, got {other:?}"),
        }
    }

    #[test]
    fn a_good_file_parses_with_comments_blank_lines_and_labels() {
        let text = format!("# farm tokens\n\nworker {HASH_A} gpu box 1\n  user   {HASH_B}  \n");
        let entries = parse("tokens.txt", &text).expect("a good file");
        assert_eq!(entries.len(), 2);
        assert_eq!(entries[0].role, Role::Worker);
        assert_eq!(entries[0].label, "gpu box 1");
        assert_eq!(entries[0].digest, digest("test"), "sha256(\"test\") is the published 9f86d0...");
        assert_eq!(entries[1].role, Role::User);
        assert_eq!(entries[1].label, "");
        assert_eq!(entries[0].to_line(), format!("worker {HASH_A} gpu box 1"));
        assert_eq!(parse("t", &entries[0].to_line()).expect("round trip"), vec![entries[0].clone()]);
    }

    #[test]
    fn each_malformed_line_is_named_with_what_is_wrong() {
        let good = format!("worker {HASH_A}\n");
        let cases = [
            (format!("{good}admin {HASH_B}\n"), 2, "unknown role `admin`"),
            (format!("# c\n{good}user\n"), 3, "not followed by `sha256:"),
            (format!("{good}user s3cr3t-plain-token-value\n"), 2, "is not a hash"),
            (format!("{good}user sha256:abc\n"), 2, "found 3 characters"),
            (format!("{good}user sha256:{}\n", "z".repeat(64)), 2, "not a SHA-256"),
            (format!("{good}\nread-only {HASH_A} again\n"), 3, "the same token as line 1"),
        ];
        for (text, line, what) in cases {
            let (got_line, reason) = error_of(&text);
            assert_eq!(got_line, line, "{text:?}: {reason}");
            assert!(reason.contains(what), "{text:?}: `{reason}` should say `{what}`");
        }
    }

    #[test]
    fn a_pasted_token_is_not_echoed_whole() {
        let (_, reason) = error_of("worker xqf_0123456789abcdef0123456789abcdef\n");
        assert!(!reason.contains("0123456789abcdef0123"), "{reason}");
    }

    #[test]
    fn a_file_without_tokens_is_refused() {
        let (line, reason) = error_of("# only a comment\n\n");
        assert_eq!(line, 2);
        assert!(reason.contains("holds no token"), "{reason}");
    }

    #[test]
    fn minted_tokens_are_random_and_their_entry_admits_them() {
        let a = mint(Role::Worker, " box-1 ").expect("mint");
        let b = mint(Role::Worker, "").expect("mint");
        assert_ne!(a.token, b.token);
        assert_eq!(a.token.len(), 4 + 64);
        assert_eq!(a.entry.digest, digest(&a.token));
        assert_eq!(a.entry.label, "box-1");
        assert!(crate::auth::BearerToken::new(&a.token).is_ok(), "a minted token travels as metadata");
        assert!(matches!(mint(Role::User, "two\nlines"), Err(Error::InvalidLabel(_))));
    }

    #[test]
    fn append_creates_the_file_then_adds_lines_and_refuses_a_broken_file() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("tokens.txt");
        let first = mint(Role::Worker, "w1").expect("mint");
        let second = mint(Role::ReadOnly, "").expect("mint");
        append(&path, &first.entry).expect("create");
        append(&path, &second.entry).expect("append");
        assert_eq!(read(&path).expect("read back"), vec![first.entry.clone(), second.entry]);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            let mode = std::fs::metadata(&path).expect("metadata").permissions().mode();
            assert_eq!(mode & 0o077, 0, "the token file is private: {mode:o}");
        }

        let broken = dir.path().join("broken.txt");
        std::fs::write(&broken, "worker plain\n").expect("write");
        assert!(matches!(append(&broken, &first.entry), Err(Error::TokenFile { line: 1, .. })));
        assert_eq!(std::fs::read_to_string(&broken).expect("read"), "worker plain\n", "left untouched");

        let missing = read(&dir.path().join("absent.txt")).expect_err("missing");
        assert!(missing.to_string().contains("absent.txt"), "{missing}");
    }
}
