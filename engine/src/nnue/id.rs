//! A network's identity: the SHA-256 of its file's bytes, as 64 lower-case hex digits. What a
//! parameter set names (`eval = "nnue:<sha256>"`), what the coordinator stores a network by and
//! what a worker caches it under, computed once here ([`NetworkId::of_file`]) for all of them.

use std::fmt;
use std::str::FromStr;

use sha2::{Digest, Sha256};

/// The SHA-256 of a network file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NetworkId([u8; 32]);

impl NetworkId {
    pub const fn from_bytes(bytes: [u8; 32]) -> NetworkId {
        NetworkId(bytes)
    }

    pub const fn as_bytes(&self) -> &[u8; 32] {
        &self.0
    }

    /// The id of a network file's bytes: their SHA-256.
    pub fn of_file(bytes: &[u8]) -> NetworkId {
        NetworkId(Sha256::digest(bytes).into())
    }

    /// The first 8 hex digits, for logs and names.
    pub fn short(&self) -> String {
        self.to_string()[..8].to_string()
    }
}

impl fmt::Display for NetworkId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for b in self.0 {
            write!(f, "{b:02x}")?;
        }
        Ok(())
    }
}

/// Why a network id does not read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("`{text}` is not a network's SHA-256 (64 hex digits)")]
pub struct BadNetworkId {
    pub text: String,
}

impl FromStr for NetworkId {
    type Err = BadNetworkId;

    fn from_str(text: &str) -> Result<NetworkId, BadNetworkId> {
        let bad = || BadNetworkId { text: text.to_string() };
        if text.len() != 64 || !text.is_ascii() {
            return Err(bad());
        }
        let mut bytes = [0u8; 32];
        for (i, b) in bytes.iter_mut().enumerate() {
            *b = u8::from_str_radix(&text[2 * i..2 * i + 2], 16).map_err(|_| bad())?;
        }
        Ok(NetworkId(bytes))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_and_prints_lower_case_hex() {
        let text = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
        let id: NetworkId = text.parse().expect("an id");
        assert_eq!(id.as_bytes()[0], 0xe3);
        assert_eq!(id.as_bytes()[31], 0x55);
        assert_eq!(id.to_string(), text);
        assert_eq!(id.short(), "e3b0c442");
        assert_eq!(NetworkId::of_file(b""), id, "the SHA-256 of no bytes");
        let upper: NetworkId = text.to_uppercase().parse().expect("upper case reads");
        assert_eq!(upper, id);
    }

    #[test]
    fn refuses_what_is_not_64_hex_digits() {
        for text in ["", "e3b0", &"g".repeat(64), &"a".repeat(63), &"a".repeat(65), &format!("{}é", "a".repeat(62))] {
            let err = text.parse::<NetworkId>().expect_err(text);
            assert_eq!(err.text, text);
        }
    }
}
