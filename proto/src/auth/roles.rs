//! Who may call what: the three roles, and the one table of the role each RPC needs.

use std::fmt;
use std::str::FromStr;

use crate::error::Error;

/// What a token lets its holder do. A token has exactly one role; the single `--token` of
/// `xqfarm serve` (and the embedded farm) holds them all ([`Grants::ALL`]).
///
/// Worker and user credentials are kept apart, as Fishtest and OpenBench do: a user token
/// cannot lease work or submit results (so a leaked user token cannot forge games), and a
/// worker token cannot create runs or variants (so a leaked worker token cannot make every
/// other worker start a command of its choosing).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Role {
    /// Register, Lease, Submit: plays games.
    Worker,
    /// Create and stop runs, add variants and openings, and everything read-only.
    User,
    /// List, get and watch runs.
    ReadOnly,
}

impl Role {
    /// Every role, in the order of the docs.
    pub const ALL: [Role; 3] = [Role::Worker, Role::User, Role::ReadOnly];

    /// The name used in token files and on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Worker => "worker",
            Role::User => "user",
            Role::ReadOnly => "read-only",
        }
    }

    /// The rights a token of this role holds: a user may also read; the others hold only
    /// their own.
    pub fn grants(self) -> Grants {
        match self {
            Role::Worker => Grants::WORKER,
            Role::User => Grants(Grants::USER.0 | Grants::READ_ONLY.0),
            Role::ReadOnly => Grants::READ_ONLY,
        }
    }

    fn bit(self) -> u8 {
        match self {
            Role::Worker => Grants::WORKER.0,
            Role::User => Grants::USER.0,
            Role::ReadOnly => Grants::READ_ONLY.0,
        }
    }
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Role {
    type Err = Error;

    fn from_str(s: &str) -> Result<Role, Error> {
        Role::ALL.into_iter().find(|r| r.as_str() == s).ok_or_else(|| Error::UnknownRole(s.to_owned()))
    }
}

/// The set of roles a credential holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Grants(u8);

impl Grants {
    const WORKER: Grants = Grants(1);
    const USER: Grants = Grants(2);
    const READ_ONLY: Grants = Grants(4);
    /// Every role: the single shared token of a one-user farm.
    pub const ALL: Grants = Grants(1 | 2 | 4);

    /// Whether a call that needs `role` is allowed.
    pub fn allows(self, role: Role) -> bool {
        self.0 & role.bit() != 0
    }
}

/// The package and service of every method path: `/xqfarm.v1.Farm/<Method>`.
pub const SERVICE_PATH: &str = "/xqfarm.v1.Farm/";

/// The role each RPC needs, declared here and nowhere else. `None` for a method this table
/// does not know: the server refuses it, so a new RPC is closed until it is given a role
/// (a test checks every RPC of the schema has one).
pub fn required_role(method: &str) -> Option<Role> {
    Some(match method {
        "Register" | "Lease" | "Submit" | "FetchNetwork" => Role::Worker,
        "CreateRun" | "StopRun" | "AddVariant" | "AddOpenings" | "AddNetwork" => Role::User,
        "ListRuns" | "GetRun" | "WatchRun" => Role::ReadOnly,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn role_names_round_trip_and_unknown_names_are_refused() {
        for role in Role::ALL {
            assert_eq!(role.as_str().parse::<Role>(), Ok(role));
        }
        assert_eq!("admin".parse::<Role>(), Err(Error::UnknownRole("admin".into())));
        assert_eq!("Worker".parse::<Role>(), Err(Error::UnknownRole("Worker".into())));
    }

    #[test]
    fn a_user_reads_but_does_not_work_and_a_worker_only_works() {
        assert!(Role::User.grants().allows(Role::User));
        assert!(Role::User.grants().allows(Role::ReadOnly));
        assert!(!Role::User.grants().allows(Role::Worker));
        assert!(Role::Worker.grants().allows(Role::Worker));
        assert!(!Role::Worker.grants().allows(Role::ReadOnly));
        assert!(!Role::Worker.grants().allows(Role::User));
        assert!(Role::ReadOnly.grants().allows(Role::ReadOnly));
        assert!(!Role::ReadOnly.grants().allows(Role::User));
        assert!(!Role::ReadOnly.grants().allows(Role::Worker));
        assert!(Role::ALL.into_iter().all(|r| Grants::ALL.allows(r)));
    }

    /// Every `rpc` of the schema has a role: adding one without deciding who may call it
    /// fails here, not in production.
    #[test]
    fn every_rpc_of_the_schema_has_a_role() {
        let schema = include_str!("../../xqfarm/v1/xqfarm.proto");
        let methods: Vec<&str> = schema
            .lines()
            .filter_map(|l| l.trim().strip_prefix("rpc "))
            .filter_map(|rest| rest.split('(').next())
            .map(str::trim)
            .collect();
        assert!(methods.len() >= 10, "found only {methods:?}");
        for method in methods {
            assert!(required_role(method).is_some(), "rpc {method} has no role in proto::auth::required_role");
        }
        assert_eq!(required_role("Shutdown"), None);
    }
}
