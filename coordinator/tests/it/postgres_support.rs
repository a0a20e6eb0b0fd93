//! A fresh PostgreSQL database per test, on the server `XQFARM_TEST_POSTGRES` names (a
//! superuser's URL; `./test-all.sh` starts a private server with `deploy/postgres/server.sh` and
//! sets it). Without it the PostgreSQL cases skip, saying so, unless `XQFARM_REQUIRE_POSTGRES=1`
//! (set by `.ci/run`) makes that a failure.

use std::sync::atomic::{AtomicU32, Ordering};

/// A database that is dropped with its last connection when this value drops.
pub struct TestDb {
    admin_url: String,
    name: String,
    /// The database's own URL (the superuser's credentials).
    pub url: String,
}

/// The superuser URL of the test server, or `None` (after a note) when there is none.
pub fn server() -> Option<String> {
    match std::env::var("XQFARM_TEST_POSTGRES") {
        Ok(url) if !url.is_empty() => Some(url),
        _ => {
            assert!(
                std::env::var("XQFARM_REQUIRE_POSTGRES").as_deref() != Ok("1"),
                "XQFARM_REQUIRE_POSTGRES=1 but XQFARM_TEST_POSTGRES names no server (run ./test-all.sh, which starts one)"
            );
            eprintln!("skipped: no PostgreSQL server (XQFARM_TEST_POSTGRES is unset; ./test-all.sh starts one)");
            None
        }
    }
}

/// `url` with its database name replaced by `name`.
pub fn with_database(url: &str, name: &str) -> String {
    let (base, query) = match url.split_once('?') {
        Some((b, q)) => (b, format!("?{q}")),
        None => (url, String::new()),
    };
    let scheme_end = base.find("://").map_or(0, |i| i + 3);
    let host_part = match base[scheme_end..].find('/') {
        Some(slash) => &base[..scheme_end + slash],
        None => base,
    };
    format!("{host_part}/{name}{query}")
}

fn admin(url: &str) -> postgres::Client {
    postgres::Client::connect(url, postgres::NoTls).expect("connect to the test server")
}

/// A new empty database on the test server, or `None` without a server.
pub fn fresh() -> Option<TestDb> {
    static NEXT: AtomicU32 = AtomicU32::new(0);
    let admin_url = server()?;
    let name = format!("xqtest_{}_{}", std::process::id(), NEXT.fetch_add(1, Ordering::Relaxed));
    admin(&admin_url).batch_execute(&format!("CREATE DATABASE {name}")).expect("create a test database");
    let url = with_database(&admin_url, &name);
    Some(TestDb { admin_url, name, url })
}

impl TestDb {
    /// Runs SQL on the database directly, as a user editing it behind the coordinator's back.
    #[allow(dead_code)] // not every test file that includes this module edits its database
    pub fn execute(&self, sql: &str) {
        admin(&self.url).batch_execute(sql).expect("raw SQL");
    }
}

impl Drop for TestDb {
    fn drop(&mut self) {
        if let Ok(mut c) = postgres::Client::connect(&self.admin_url, postgres::NoTls) {
            let _ = c.batch_execute(&format!("DROP DATABASE IF EXISTS {} WITH (FORCE)", self.name));
        }
    }
}
