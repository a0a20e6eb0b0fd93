//! The SQLite schema and the connection settings. The schema is versioned in its own table.
//! A database of an older version is migrated in place, one step per version and all steps
//! in one transaction (a failed step changes nothing); a newer one is refused rather than
//! misread.
//!
//! A new database is created as version 1 ([`SCHEMA_V1`]) and then migrated like an old one,
//! so a new and an upgraded database are the same schema by construction.

use rusqlite::config::DbConfig;
use rusqlite::{Connection, OptionalExtension, TransactionBehavior};

use crate::error::{Error, Result};
use crate::storage::sql::{Ctx, RowCache};

/// The schema version this build reads and writes.
pub(super) const SCHEMA_VERSION: i64 = 11;

/// A migration step turns a database of version `n` into version `n + 1`.
type Migration = fn(&Connection) -> Result<()>;

/// `MIGRATIONS[i]` migrates version `i + 1` to version `i + 2`.
const MIGRATIONS: [Migration; (SCHEMA_VERSION - 1) as usize] =
    [v1_to_v2, v2_to_v3, v3_to_v4, v4_to_v5, v5_to_v6, v6_to_v7, v7_to_v8, v8_to_v9, v9_to_v10, v10_to_v11];

/// Version 2: workers keep a key digest (`spec::worker_key_digest`; one worker id per key,
/// across restarts) and the rules version they registered with. Workers of a version 1
/// database have neither: their key is NULL and their rules version 0 (unknown).
fn v1_to_v2(conn: &Connection) -> Result<()> {
    conn.execute_batch(
        "ALTER TABLE workers ADD COLUMN key_digest TEXT;
         ALTER TABLE workers ADD COLUMN rules_version INTEGER NOT NULL DEFAULT 0;
         CREATE UNIQUE INDEX workers_by_key ON workers(key_digest) WHERE key_digest IS NOT NULL;",
    )
    .ctx("migrating the schema from version 1 to 2 (worker keys)")
}

/// Version 3: engines by name. `worker_engines` holds what each worker advertised at Register
/// (name, `id name`, SHA-256 of the binary); `run_engines` the engines each run's external
/// variants name, with the binary the run pinned (NULL until first leased). Existing runs get
/// their engines from their stored variants; a command-line variant (versions 1 and 2) names
/// the engine of its command's file stem (`spec::engine_name_of_command`). Workers of older
/// versions advertised nothing: they get no lease naming an engine until they register again.
fn v2_to_v3(conn: &Connection) -> Result<()> {
    conn.execute_batch(
        "CREATE TABLE worker_engines (
             worker_id INTEGER NOT NULL REFERENCES workers(id),
             name      TEXT NOT NULL,
             id_name   TEXT NOT NULL,
             sha256    TEXT NOT NULL,
             PRIMARY KEY (worker_id, name)
         ) WITHOUT ROWID;
         CREATE INDEX worker_engines_by_name ON worker_engines(name);
         CREATE TABLE run_engines (
             run_id  INTEGER NOT NULL REFERENCES runs(id),
             name    TEXT NOT NULL,
             sha256  TEXT,  -- the pinned binary, NULL until the run is first leased
             id_name TEXT,
             PRIMARY KEY (run_id, name)
         ) WITHOUT ROWID;",
    )
    .ctx("migrating the schema from version 2 to 3 (engines by name)")?;
    fill_run_engines(conn)
}

/// Version 4: what the web pages read. Each game keeps its length in plies and its pair's
/// pairing, written when it is recorded (older games: plies counted from the space-separated
/// `moves`, the pairing copied from `pairs`).
///
/// A run page's tallies are kept as games are recorded, by triggers on `games`, so that reading
/// them costs the same for ten games or a million and never touches the moves:
/// `run_game_ends` counts games by termination and length; `run_pair_results` holds each pair's
/// result (the half points of its `variants[0]`, as `PairReport::first_half_points`) keyed by its
/// first game's id (recording order); `run_pair_tallies` counts those by worker, pairing and
/// points (a trigger on `run_pair_results`). Older games are counted by the migration itself.
/// (A covering index over `games` was measured first: scanning and grouping 100,000 games
/// per page view cost well over 100 ms.) `submissions_by_time` finds the submissions of the last
/// minutes (a worker's recent games).
fn v3_to_v4(conn: &Connection) -> Result<()> {
    conn.execute_batch(
        "ALTER TABLE games ADD COLUMN plies INTEGER NOT NULL DEFAULT 0 CHECK (plies >= 0);
         ALTER TABLE games ADD COLUMN pairing INTEGER NOT NULL DEFAULT 0 CHECK (pairing >= 0);
         UPDATE games SET
             plies = CASE WHEN trim(moves) = '' THEN 0
                          ELSE length(trim(moves)) - length(replace(trim(moves), ' ', '')) + 1 END,
             pairing = (SELECT p.pairing FROM pairs p WHERE p.run_id = games.run_id AND p.pair_index = games.pair_index);

         CREATE TABLE run_game_ends (
             run_id INTEGER NOT NULL REFERENCES runs(id),
             reason TEXT NOT NULL,
             plies  INTEGER NOT NULL,
             games  INTEGER NOT NULL,
             PRIMARY KEY (run_id, reason, plies)
         ) WITHOUT ROWID;
         CREATE TABLE run_pair_results (
             run_id        INTEGER NOT NULL REFERENCES runs(id),
             first_game_id INTEGER NOT NULL,
             pair_index    INTEGER NOT NULL,
             pairing       INTEGER NOT NULL,
             worker_id     INTEGER NOT NULL,
             points        INTEGER NOT NULL CHECK (points >= 0 AND points <= 4),
             PRIMARY KEY (run_id, first_game_id)
         ) WITHOUT ROWID;
         CREATE TABLE run_pair_tallies (
             run_id    INTEGER NOT NULL REFERENCES runs(id),
             worker_id INTEGER NOT NULL,
             pairing   INTEGER NOT NULL,
             points    INTEGER NOT NULL,
             pairs     INTEGER NOT NULL,
             PRIMARY KEY (run_id, worker_id, pairing, points)
         ) WITHOUT ROWID;

         INSERT INTO run_game_ends (run_id, reason, plies, games)
             SELECT run_id, reason, plies, COUNT(*) FROM games GROUP BY run_id, reason, plies;
         INSERT INTO run_pair_results (run_id, first_game_id, pair_index, pairing, worker_id, points)
             SELECT g0.run_id, g0.id, g0.pair_index, g0.pairing, g0.worker_id,
                    (CASE g0.outcome WHEN '1-0' THEN 2 WHEN '1/2-1/2' THEN 1 ELSE 0 END)
                    + (CASE g1.outcome WHEN '0-1' THEN 2 WHEN '1/2-1/2' THEN 1 ELSE 0 END)
             FROM games g0 JOIN games g1
                  ON g1.run_id = g0.run_id AND g1.pair_index = g0.pair_index AND g1.game_in_pair = 1
             WHERE g0.game_in_pair = 0;
         INSERT INTO run_pair_tallies (run_id, worker_id, pairing, points, pairs)
             SELECT run_id, worker_id, pairing, points, COUNT(*) FROM run_pair_results
             GROUP BY run_id, worker_id, pairing, points;

         CREATE TRIGGER games_count_ends AFTER INSERT ON games BEGIN
             INSERT INTO run_game_ends (run_id, reason, plies, games) VALUES (NEW.run_id, NEW.reason, NEW.plies, 1)
                 ON CONFLICT (run_id, reason, plies) DO UPDATE SET games = games + 1;
         END;
         -- A pair's games are recorded together, game 0 first.
         CREATE TRIGGER games_count_pairs AFTER INSERT ON games WHEN NEW.game_in_pair = 1 BEGIN
             INSERT INTO run_pair_results (run_id, first_game_id, pair_index, pairing, worker_id, points)
                 SELECT g0.run_id, g0.id, g0.pair_index, g0.pairing, g0.worker_id,
                        (CASE g0.outcome WHEN '1-0' THEN 2 WHEN '1/2-1/2' THEN 1 ELSE 0 END)
                        + (CASE NEW.outcome WHEN '0-1' THEN 2 WHEN '1/2-1/2' THEN 1 ELSE 0 END)
                 FROM games g0
                 WHERE g0.run_id = NEW.run_id AND g0.pair_index = NEW.pair_index AND g0.game_in_pair = 0;
         END;
         CREATE TRIGGER pair_results_tally AFTER INSERT ON run_pair_results BEGIN
             INSERT INTO run_pair_tallies (run_id, worker_id, pairing, points, pairs)
                 VALUES (NEW.run_id, NEW.worker_id, NEW.pairing, NEW.points, 1)
                 ON CONFLICT (run_id, worker_id, pairing, points) DO UPDATE SET pairs = pairs + 1;
         END;

         CREATE INDEX submissions_by_time ON submissions(received_ms, accepted);",
    )
    .ctx("migrating the schema from version 3 to 4 (plies per game, a run's tallies)")
}

/// The `kind` check of `runs` in versions 1 to 4, and from version 5 on.
const KIND_CHECK_V1: &str = "CHECK (kind = 'sprt' OR kind = 'games' OR kind = 'gauntlet' OR kind = 'round_robin')";
const KIND_CHECK_V5: &str =
    "CHECK (kind = 'sprt' OR kind = 'games' OR kind = 'gauntlet' OR kind = 'round_robin' OR kind = 'spsa')";

/// The `kind` check that schema 5 was first released with (an `IN` list, which SQLite evaluates
/// through a temporary table on every write); version 6 replaces it by [`KIND_CHECK_V5`].
const KIND_CHECK_V5_IN: &str = "CHECK (kind IN ('sprt', 'games', 'gauntlet', 'round_robin', 'spsa'))";

/// Replaces the check `from` of the `runs` table's stored SQL by `to` ([`rewrite_table_sql`]).
/// Only valid where no stored row can violate `to`. Returns whether the table had the check
/// `from`.
fn rewrite_runs_check(conn: &Connection, from: &str, to: &str, ctx: &str) -> Result<bool> {
    rewrite_table_sql(conn, "runs", from, to, ctx)
}

/// Replaces `from` in `table`'s stored SQL by `to`, by SQLite's documented procedure for
/// changing a CHECK or NOT NULL constraint (rewrite the stored SQL with `writable_schema`, bump
/// `schema_version`): rebuilding `runs` would break every foreign key to it, and rebuilding
/// `positions` would copy every sampled position. Only valid where no stored row can violate
/// the new SQL. Returns whether the table's SQL held `from`.
fn rewrite_table_sql(conn: &Connection, table: &str, from: &str, to: &str, ctx: &str) -> Result<bool> {
    let sql: String = conn
        .query_row("SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = ?1", [table], |r| r.get(0))
        .ctx(ctx)?;
    if !sql.contains(from) {
        return Ok(false);
    }
    let version: i64 = conn.query_row("PRAGMA schema_version", [], |r| r.get(0)).ctx(ctx)?;
    conn.pragma_update(None, "writable_schema", "ON").ctx(ctx)?;
    let rewritten = conn
        .execute(
            "UPDATE sqlite_schema SET sql = ?1 WHERE type = 'table' AND name = ?2",
            [sql.replace(from, to).as_str(), table],
        )
        .ctx(ctx);
    conn.pragma_update(None, "schema_version", version + 1).ctx(ctx)?;
    conn.pragma_update(None, "writable_schema", "OFF").ctx(ctx)?;
    rewritten.map(|_| true)
}

/// Version 5: SPSA runs. `runs.kind` also admits `spsa`: the check is widened in place, by
/// SQLite's documented procedure for changing a CHECK constraint (rewrite the table's stored
/// SQL with `writable_schema`, bump `schema_version`), since no stored row can violate the
/// wider check and rebuilding `runs` would break every foreign key to it. New tables:
/// `run_spsa_params` (an SPSA run's parameters, part of its spec), `spsa_theta` (its current
/// values), `spsa_history` (its values after each recorded submission, from the start values
/// at iteration 0) and `spsa_leases` (the flips and gains each lease played with, which its
/// results are applied with).
fn v4_to_v5(conn: &Connection) -> Result<()> {
    let ctx = "migrating the schema from version 4 to 5 (SPSA runs)";
    if !rewrite_runs_check(conn, KIND_CHECK_V1, KIND_CHECK_V5, ctx)? {
        return Err(Error::Corrupt(format!("{ctx}: the runs table lacks the version 4 kind check")));
    }
    conn.execute_batch(
        "CREATE TABLE run_spsa_params (
             run_id  INTEGER NOT NULL REFERENCES runs(id),
             idx     INTEGER NOT NULL,
             name    TEXT NOT NULL,
             start   REAL NOT NULL,
             min     REAL NOT NULL,
             max     REAL NOT NULL,
             c_end   REAL NOT NULL,
             r_end   REAL NOT NULL,
             integer INTEGER NOT NULL CHECK (integer IN (0, 1)),
             PRIMARY KEY (run_id, idx)
         ) WITHOUT ROWID;
         CREATE TABLE spsa_theta (
             run_id INTEGER PRIMARY KEY REFERENCES runs(id),
             theta  TEXT NOT NULL
         );
         CREATE TABLE spsa_history (
             run_id      INTEGER NOT NULL REFERENCES runs(id),
             iteration   INTEGER NOT NULL,
             received_ms INTEGER NOT NULL,
             theta       TEXT NOT NULL,
             PRIMARY KEY (run_id, iteration)
         ) WITHOUT ROWID;
         CREATE TABLE spsa_leases (
             lease_id     INTEGER PRIMARY KEY REFERENCES leases(id),
             iteration    INTEGER NOT NULL,
             perturbation TEXT NOT NULL
         );",
    )
    .ctx(ctx)
}

/// Version 6: time controls scaled to each worker's speed (`crate::tc_scale`). Each worker keeps
/// the bench speed it registered with (`workers.bench_nps`, nodes per second; 0 = not measured,
/// which every worker of an older database is until it registers again), and each lease the
/// scale of the run's time control it was granted with (`leases.tc_scale_permille`, thousandths),
/// which the referee replays its games against; leases of older databases were granted the
/// run's own time control, 1000.
fn v5_to_v6(conn: &Connection) -> Result<()> {
    let ctx = "migrating the schema from version 5 to 6 (time controls scaled to each worker)";
    // A database of the first schema-5 release has the same check as an IN list.
    rewrite_runs_check(conn, KIND_CHECK_V5_IN, KIND_CHECK_V5, ctx)?;
    conn.execute_batch(
        "ALTER TABLE workers ADD COLUMN bench_nps INTEGER NOT NULL DEFAULT 0 CHECK (bench_nps >= 0);
         ALTER TABLE leases ADD COLUMN tc_scale_permille INTEGER NOT NULL DEFAULT 1000 CHECK (tc_scale_permille > 0);",
    )
    .ctx(ctx)
}

/// Version 7: each run pins the endgame tables it is adjudicated by (`run_tablebases`: set
/// and file checksum, written when the run is created). Runs of older databases pin none, so
/// no game of theirs is adjudicated by tables from then on; their stored games are untouched.
fn v6_to_v7(conn: &Connection) -> Result<()> {
    conn.execute_batch(
        "CREATE TABLE run_tablebases (
             run_id   INTEGER NOT NULL REFERENCES runs(id),
             set_name TEXT NOT NULL,
             checksum INTEGER NOT NULL,
             PRIMARY KEY (run_id, set_name)
         ) WITHOUT ROWID;",
    )
    .ctx("migrating the schema from version 6 to 7 (pinned endgame tables)")
}

/// The `kind` check of `runs` from version 8 on.
const KIND_CHECK_V8: &str = "CHECK (kind = 'sprt' OR kind = 'games' OR kind = 'gauntlet' OR kind = 'round_robin' \
     OR kind = 'spsa' OR kind = 'tournament')";

/// Version 8: tournaments (`crate::tournament`). `runs.kind` also admits `tournament` (the
/// check widened in place, as in version 5); a tournament's pairs per match are its
/// `pairs_per_pairing`. New tables: `run_tournaments` (the rest of its design, part of its
/// spec), `tournament_matches` (each match drawn, one per pairing of `run_pairings` in the same
/// order, with its round, tie slot, players, stage and pairs, and an Armageddon pair's
/// deciding game) and `tournament_byes`. Runs of older databases are untouched.
fn v7_to_v8(conn: &Connection) -> Result<()> {
    let ctx = "migrating the schema from version 7 to 8 (tournaments)";
    if !rewrite_runs_check(conn, KIND_CHECK_V5, KIND_CHECK_V8, ctx)? {
        return Err(Error::Corrupt(format!("{ctx}: the runs table lacks the version 7 kind check")));
    }
    conn.execute_batch(
        "CREATE TABLE run_tournaments (
             run_id      INTEGER PRIMARY KEY REFERENCES runs(id),
             format      TEXT NOT NULL CHECK (format = 'round-robin' OR format = 'swiss' OR format = 'knockout'
                                              OR format = 'random'),
             rounds      INTEGER NOT NULL CHECK (rounds >= 0),
             extra_pairs INTEGER NOT NULL CHECK (extra_pairs >= 0),
             seed        INTEGER NOT NULL,  -- its 64 bits
             tiebreaks   TEXT NOT NULL      -- in order, comma-separated
         );
         CREATE TABLE tournament_matches (
             run_id  INTEGER NOT NULL REFERENCES runs(id),
             pairing INTEGER NOT NULL CHECK (pairing >= 0),
             round   INTEGER NOT NULL CHECK (round > 0),
             slot    INTEGER NOT NULL CHECK (slot >= 0),
             a       INTEGER NOT NULL CHECK (a >= 0),
             b       INTEGER NOT NULL CHECK (b >= 0),
             stage   TEXT NOT NULL CHECK (stage = 'main' OR stage = 'extra' OR stage = 'armageddon'),
             pairs   INTEGER NOT NULL CHECK (pairs > 0),
             armageddon_red_points INTEGER CHECK (armageddon_red_points >= 0 AND armageddon_red_points <= 2),
             PRIMARY KEY (run_id, pairing)
         ) WITHOUT ROWID;
         CREATE TABLE tournament_byes (
             run_id INTEGER NOT NULL REFERENCES runs(id),
             round  INTEGER NOT NULL CHECK (round > 0),
             slot   INTEGER NOT NULL CHECK (slot >= 0),
             player INTEGER NOT NULL CHECK (player >= 0),
             PRIMARY KEY (run_id, round, slot)
         ) WITHOUT ROWID;",
    )
    .ctx(ctx)
}

/// The `kind` check of `runs` from version 9 on.
const KIND_CHECK_V9: &str = "CHECK (kind = 'sprt' OR kind = 'games' OR kind = 'gauntlet' OR kind = 'round_robin' \
     OR kind = 'spsa' OR kind = 'tournament' OR kind = 'datagen')";

/// `positions.search_score` up to version 8 (NOT NULL) and from version 9 on (nullable).
const SEARCH_SCORE_V1: &str = "search_score INTEGER NOT NULL,";
const SEARCH_SCORE_V9: &str = "search_score INTEGER,";

/// Version 9: training data. `runs.kind` also admits `datagen` (the check widened in place, as
/// in version 5), whose random plies after each opening are the new `runs.random_plies` (NULL
/// for every other kind). `positions.search_score` may be NULL: the engine reported no score,
/// where workers of older versions stored the static evaluation instead (the NOT NULL
/// constraint is dropped in place by the same documented procedure; no row is rewritten, so
/// stored positions keep their values and cannot be told apart).
fn v8_to_v9(conn: &Connection) -> Result<()> {
    let ctx = "migrating the schema from version 8 to 9 (datagen runs, positions without a score)";
    if !rewrite_runs_check(conn, KIND_CHECK_V8, KIND_CHECK_V9, ctx)? {
        return Err(Error::Corrupt(format!("{ctx}: the runs table lacks the version 8 kind check")));
    }
    if !rewrite_table_sql(conn, "positions", SEARCH_SCORE_V1, SEARCH_SCORE_V9, ctx)? {
        return Err(Error::Corrupt(format!("{ctx}: the positions table lacks the version 8 search_score column")));
    }
    conn.execute_batch("ALTER TABLE runs ADD COLUMN random_plies INTEGER CHECK (random_plies >= 0);").ctx(ctx)
}

/// Version 10: network files (`eval = "nnue:<sha256>"` in a variant's parameters) stored by the
/// SHA-256 of their bytes, for workers to fetch. Older databases hold none.
fn v9_to_v10(conn: &Connection) -> Result<()> {
    conn.execute_batch(
        "CREATE TABLE networks (
             sha256        TEXT PRIMARY KEY,
             bytes         BLOB NOT NULL,
             added_unix_ms INTEGER NOT NULL
         );",
    )
    .ctx("migrating the schema from version 9 to 10 (networks)")
}

/// Version 11: each worker keeps the SIMD level it registered with (`workers.simd`, the text of
/// `engine::nnue::SimdLevel`; NULL = not said, which every worker of an older database is until
/// it registers again) and its speed with a network (`workers.nnue_bench_nps`; 0 = not
/// measured), the scale of runs that play a network. The level has no CHECK list: a new level
/// must not need the table rebuilt (SQLite cannot change a CHECK in place); the reader refuses
/// text it does not know as corrupt.
fn v10_to_v11(conn: &Connection) -> Result<()> {
    conn.execute_batch(
        "ALTER TABLE workers ADD COLUMN simd TEXT;
         ALTER TABLE workers ADD COLUMN nnue_bench_nps INTEGER NOT NULL DEFAULT 0 CHECK (nnue_bench_nps >= 0);",
    )
    .ctx("migrating the schema from version 10 to 11 (SIMD levels and speeds with a network)")
}

/// Migrates a database of version `from` to [`SCHEMA_VERSION`], recording each version reached.
fn migrate(conn: &Connection, from: i64) -> Result<()> {
    for version in from..SCHEMA_VERSION {
        let step = usize::try_from(version - 1)
            .ok()
            .and_then(|i| MIGRATIONS.get(i))
            .ok_or_else(|| Error::Corrupt(format!("no migration from schema version {version}")))?;
        step(conn)?;
        conn.execute("INSERT INTO schema_version (version) VALUES (?1)", [version + 1])
            .ctx("recording the schema version")?;
        tracing::info!(from = version, to = version + 1, "database schema migrated");
    }
    Ok(())
}

/// Prepared statements kept per connection; above the number of distinct statements.
const STATEMENT_CACHE: usize = 128;

/// Integers that hold a `u64` id, count or time are non-negative and below 2^63; bench
/// signatures and sequence numbers are stored as their 64 bits.
///
/// Enumerations of three or more values are checked with `OR` chains: SQLite checks
/// `x IN (a, b, c)` by building a temporary index on every statement that writes `x`, which
/// cost a lease and a submission several percent. Databases created with the `IN` form (the
/// same constraints) are read and written unchanged.
///
/// This is version 1, as it was first released: never edit it; change the schema with a new
/// step in [`MIGRATIONS`].
const SCHEMA_V1: &str = r"
CREATE TABLE variants (
    id   TEXT PRIMARY KEY,  -- hex SHA-256 of spec
    spec TEXT NOT NULL      -- canonical encoding, spec::encode_variant
) WITHOUT ROWID;

CREATE TABLE suites (
    id            INTEGER PRIMARY KEY,
    name          TEXT NOT NULL,
    opening_count INTEGER NOT NULL CHECK (opening_count > 0)
);

CREATE TABLE suite_openings (
    suite_id INTEGER NOT NULL REFERENCES suites(id),
    idx      INTEGER NOT NULL,
    line     TEXT NOT NULL,
    PRIMARY KEY (suite_id, idx)
) WITHOUT ROWID;

CREATE TABLE runs (
    id                INTEGER PRIMARY KEY,
    name              TEXT NOT NULL,
    kind              TEXT NOT NULL
                      CHECK (kind = 'sprt' OR kind = 'games' OR kind = 'gauntlet' OR kind = 'round_robin'),
    pairs_per_pairing INTEGER,  -- NULL for an SPRT
    sprt_elo0         REAL,
    sprt_elo1         REAL,
    sprt_alpha        REAL,
    sprt_beta         REAL,
    sprt_model        TEXT CHECK (sprt_model IN ('normalized', 'logistic')),
    tc_kind           TEXT NOT NULL
                      CHECK (tc_kind = 'nodes' OR tc_kind = 'depth' OR tc_kind = 'movetime' OR tc_kind = 'clock'),
    tc_value          INTEGER NOT NULL,  -- nodes, depth, movetime ms or clock base ms
    tc_inc_ms         INTEGER NOT NULL,  -- clock increment, else 0
    suite_id          INTEGER NOT NULL REFERENCES suites(id),
    resign_score      INTEGER NOT NULL,
    resign_moves      INTEGER NOT NULL,
    draw_score        INTEGER NOT NULL,
    draw_moves        INTEGER NOT NULL,
    draw_after_move   INTEGER NOT NULL,
    bench_signature   INTEGER,
    sample_every      INTEGER NOT NULL,
    state             TEXT NOT NULL
                      CHECK (state = 'active' OR state = 'sprt_h0' OR state = 'sprt_h1' OR state = 'completed'
                             OR state = 'stopped'),
    created_ms        INTEGER NOT NULL,
    next_pair_index   INTEGER NOT NULL DEFAULT 0,
    exported_up_to    INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX runs_by_state ON runs(state);

CREATE TABLE run_variants (
    run_id     INTEGER NOT NULL REFERENCES runs(id),
    idx        INTEGER NOT NULL,
    variant_id TEXT NOT NULL REFERENCES variants(id),
    PRIMARY KEY (run_id, idx)
) WITHOUT ROWID;

-- One row per pairing of scheduler::pairings(spec), statistics from the pairing's a side.
CREATE TABLE run_pairings (
    run_id    INTEGER NOT NULL REFERENCES runs(id),
    pairing   INTEGER NOT NULL,
    allocated INTEGER NOT NULL DEFAULT 0,  -- pairs ever created
    ptnml0    INTEGER NOT NULL DEFAULT 0,
    ptnml1    INTEGER NOT NULL DEFAULT 0,
    ptnml2    INTEGER NOT NULL DEFAULT 0,
    ptnml3    INTEGER NOT NULL DEFAULT 0,
    ptnml4    INTEGER NOT NULL DEFAULT 0,
    wins      INTEGER NOT NULL DEFAULT 0,
    draws     INTEGER NOT NULL DEFAULT 0,
    losses    INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (run_id, pairing)
) WITHOUT ROWID;

CREATE TABLE workers (
    id              INTEGER PRIMARY KEY,
    name            TEXT NOT NULL,
    host            TEXT NOT NULL,
    cores           INTEGER NOT NULL,
    engine_version  TEXT NOT NULL,
    bench_signature INTEGER NOT NULL,
    registered_ms   INTEGER NOT NULL,
    last_seen_ms    INTEGER NOT NULL
);

CREATE TABLE leases (
    id          INTEGER PRIMARY KEY,
    run_id      INTEGER NOT NULL REFERENCES runs(id),
    worker_id   INTEGER NOT NULL REFERENCES workers(id),
    state       TEXT NOT NULL CHECK (state = 'active' OR state = 'closed' OR state = 'expired'),
    created_ms  INTEGER NOT NULL,
    deadline_ms INTEGER NOT NULL,
    duration_ms INTEGER NOT NULL
);
-- Expiry searches the active leases by deadline.
CREATE INDEX leases_by_state ON leases(state, deadline_ms);

-- Every pair a run has created; 'leased' pairs are pending in exactly one active lease.
CREATE TABLE pairs (
    run_id        INTEGER NOT NULL REFERENCES runs(id),
    pair_index    INTEGER NOT NULL,
    pairing       INTEGER NOT NULL,
    opening_index INTEGER NOT NULL,
    status        TEXT NOT NULL CHECK (status = 'pooled' OR status = 'leased' OR status = 'done'),
    PRIMARY KEY (run_id, pair_index)
) WITHOUT ROWID;
CREATE INDEX pairs_by_status ON pairs(run_id, status, pair_index);

-- Which pairs each lease was given, and what became of them there.
CREATE TABLE lease_pairs (
    lease_id   INTEGER NOT NULL REFERENCES leases(id),
    run_id     INTEGER NOT NULL,
    pair_index INTEGER NOT NULL,
    status     TEXT NOT NULL CHECK (status = 'pending' OR status = 'finished' OR status = 'returned'),
    PRIMARY KEY (lease_id, pair_index),
    FOREIGN KEY (run_id, pair_index) REFERENCES pairs(run_id, pair_index)
) WITHOUT ROWID;
CREATE INDEX lease_pairs_by_pair ON lease_pairs(run_id, pair_index);

-- Seen submissions: a resent (lease, seq) is acknowledged without effect.
CREATE TABLE submissions (
    lease_id    INTEGER NOT NULL REFERENCES leases(id),
    seq         INTEGER NOT NULL,
    accepted    INTEGER NOT NULL,
    received_ms INTEGER NOT NULL,
    PRIMARY KEY (lease_id, seq)
) WITHOUT ROWID;

CREATE TABLE games (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    run_id        INTEGER NOT NULL REFERENCES runs(id),
    pair_index    INTEGER NOT NULL,
    game_in_pair  INTEGER NOT NULL CHECK (game_in_pair IN (0, 1)),
    opening_index INTEGER NOT NULL,
    worker_id     INTEGER NOT NULL REFERENCES workers(id),
    red           TEXT NOT NULL,
    black         TEXT NOT NULL,
    start_fen     TEXT NOT NULL,
    outcome       TEXT NOT NULL CHECK (outcome = '1-0' OR outcome = '0-1' OR outcome = '1/2-1/2'),
    reason        TEXT NOT NULL,
    moves         TEXT NOT NULL,  -- space-separated
    duration_ms   INTEGER NOT NULL,
    nodes         INTEGER NOT NULL,
    UNIQUE (run_id, pair_index, game_in_pair),  -- a pair is counted once, whatever retries do
    FOREIGN KEY (run_id, pair_index) REFERENCES pairs(run_id, pair_index)
);
CREATE INDEX games_by_run ON games(run_id, id);

CREATE TABLE positions (
    game_id      INTEGER NOT NULL REFERENCES games(id),
    seq          INTEGER NOT NULL,
    ply          INTEGER NOT NULL,
    fen          TEXT NOT NULL,
    red_to_move  INTEGER NOT NULL CHECK (red_to_move IN (0, 1)),
    static_eval  INTEGER NOT NULL,
    search_score INTEGER NOT NULL,
    best_move    TEXT NOT NULL,
    in_check     INTEGER NOT NULL CHECK (in_check IN (0, 1)),
    quiet        INTEGER NOT NULL CHECK (quiet IN (0, 1)),
    PRIMARY KEY (game_id, seq)
) WITHOUT ROWID;
";

/// The writer's page cache, in KiB (SQLite's default is 2 MiB): the indexes a lease and a
/// submission walk stay in memory as the tables grow. (No difference in `xqfarm bench rpc`,
/// whose database stays small; readers keep the default.)
const WRITER_CACHE_KIB: i64 = 32 * 1024;

/// Settings every connection gets: `synchronous=NORMAL` (in WAL mode: durable at checkpoints;
/// a power cut may lose the last commits but never corrupts), foreign keys, a busy timeout for
/// a second connection or process, temporary data (savepoint journals) in memory and a
/// statement cache.
pub(super) fn configure(conn: &Connection) -> Result<()> {
    conn.pragma_update(None, "synchronous", "NORMAL").ctx("setting synchronous")?;
    conn.pragma_update(None, "foreign_keys", "ON").ctx("enabling foreign keys")?;
    conn.pragma_update(None, "temp_store", "MEMORY").ctx("setting temp_store")?;
    conn.busy_timeout(std::time::Duration::from_secs(10)).ctx("setting the busy timeout")?;
    // Every statement is prepared once and cached; the default cache (16) is smaller than the
    // set a lease and a submission use, and re-preparing dominated their cost.
    conn.set_prepared_statement_cache_capacity(STATEMENT_CACHE);
    // Without the query planner stability guarantee, a statement whose plan looked at a bound
    // value (`LIMIT ?`, a filter `= ?` bound to 0 or 1) is re-prepared on every use, because
    // the statement cache clears bindings.
    conn.set_db_config(DbConfig::SQLITE_DBCONFIG_ENABLE_QPSG, true).ctx("enabling the planner guarantee")?;
    Ok(())
}

/// Sets up the writer's connection: WAL (readers never block the writer), the settings of
/// [`configure`] and a larger page cache, then creates or checks the schema.
pub(super) fn prepare(conn: &mut Connection) -> Result<()> {
    let mode: String = conn.query_row("PRAGMA journal_mode = WAL", [], |row| row.get(0)).ctx("setting WAL mode")?;
    if !mode.eq_ignore_ascii_case("wal") && !mode.eq_ignore_ascii_case("memory") {
        tracing::warn!(mode, "SQLite refused WAL mode");
    }
    configure(conn)?;
    conn.pragma_update(None, "cache_size", -WRITER_CACHE_KIB).ctx("setting cache_size")?;

    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate).ctx("starting the schema check")?;
    tx.execute_batch("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
        .ctx("creating the schema version table")?;
    let version: Option<i64> = tx
        .query_row("SELECT MAX(version) FROM schema_version", [], |row| row.get(0))
        .optional()
        .ctx("reading the schema version")?
        .flatten();
    match version {
        None => {
            tx.execute_batch(SCHEMA_V1).ctx("creating the schema")?;
            tx.execute("INSERT INTO schema_version (version) VALUES (1)", []).ctx("recording the schema version")?;
            migrate(&tx, 1)?;
            tracing::info!(version = SCHEMA_VERSION, "database schema created");
        }
        Some(SCHEMA_VERSION) => {}
        Some(old) if (1..SCHEMA_VERSION).contains(&old) => migrate(&tx, old)?,
        Some(other) => {
            return Err(Error::Corrupt(format!(
                "database schema version {other}; this build reads versions 1 to {SCHEMA_VERSION} \
                 (a newer xqfarm wrote this database)"
            )));
        }
    }
    tx.commit().ctx("committing the schema")
}

/// Schema 3's migration step: the engines every existing run needs, from its stored variants
/// (a command-line variant names the engine of its command's file stem, see
/// `spec::decode_variant`).
fn fill_run_engines(conn: &Connection) -> Result<()> {
    let rows: Vec<(i64, String)> = conn
        .prepare(
            "SELECT rv.run_id, v.spec FROM run_variants rv JOIN variants v ON v.id = rv.variant_id
             ORDER BY rv.run_id, rv.idx",
        )
        .and_then(|mut s| s.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?.collect())
        .ctx("reading the runs' variants")?;
    let mut by_run: Vec<(i64, Vec<proto::domain::VariantSpec>)> = Vec::new();
    for (run, text) in rows {
        let variant = crate::spec::decode_variant(&text)?;
        match by_run.last_mut() {
            Some((id, variants)) if *id == run => variants.push(variant),
            _ => by_run.push((run, vec![variant])),
        }
    }
    let cache = RowCache::default();
    let mut sql = super::conn::SqliteConn::new(conn, &cache);
    for (run, variants) in by_run {
        crate::storage::sql::store_run_engines(&mut sql, run, &crate::scheduler::engine_needs(&variants))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn columns(conn: &Connection, table: &str) -> Vec<String> {
        conn.prepare(&format!("SELECT name FROM pragma_table_info('{table}')"))
            .and_then(|mut s| s.query_map([], |r| r.get(0))?.collect())
            .expect("table info")
    }

    fn versions(conn: &Connection) -> Vec<i64> {
        conn.prepare("SELECT version FROM schema_version ORDER BY version")
            .and_then(|mut s| s.query_map([], |r| r.get(0))?.collect())
            .expect("versions")
    }

    #[test]
    fn a_version_1_database_is_migrated_in_place() {
        let mut conn = Connection::open_in_memory().expect("open");
        conn.execute_batch(SCHEMA_V1).expect("version 1");
        conn.execute_batch(
            "CREATE TABLE schema_version (version INTEGER NOT NULL); INSERT INTO schema_version VALUES (1);
             INSERT INTO workers (name, host, cores, engine_version, bench_signature, registered_ms, last_seen_ms)
             VALUES ('old', 'h', 2, 'e', 7, 1, 2);",
        )
        .expect("an old worker");
        prepare(&mut conn).expect("migrated");
        assert_eq!(versions(&conn), [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
        let cols = columns(&conn, "workers");
        assert!(cols.iter().any(|c| c == "key_digest") && cols.iter().any(|c| c == "rules_version"), "{cols:?}");
        let old: (String, Option<String>, i64) = conn
            .query_row("SELECT name, key_digest, rules_version FROM workers", [], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?))
            })
            .expect("the old worker is still there");
        assert_eq!(old, ("old".to_owned(), None, 0));
        // Preparing again changes nothing.
        prepare(&mut conn).expect("already current");
        assert_eq!(versions(&conn), [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
    }

    #[test]
    fn a_new_database_equals_a_migrated_one() {
        let schema = |conn: &Connection| -> Vec<(String, String)> {
            conn.prepare("SELECT name, sql FROM sqlite_schema WHERE sql IS NOT NULL ORDER BY name")
                .and_then(|mut s| s.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?.collect())
                .expect("schema")
        };
        let mut new = Connection::open_in_memory().expect("open");
        prepare(&mut new).expect("schema");
        let mut old = Connection::open_in_memory().expect("open");
        old.execute_batch(SCHEMA_V1).expect("version 1");
        old.execute_batch(
            "CREATE TABLE schema_version (version INTEGER NOT NULL); INSERT INTO schema_version VALUES (1);",
        )
        .expect("version table");
        prepare(&mut old).expect("migrated");
        assert_eq!(schema(&new), schema(&old));
        assert_eq!(versions(&new), [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
    }

    #[test]
    fn a_newer_database_is_refused_unchanged() {
        let mut conn = Connection::open_in_memory().expect("open");
        prepare(&mut conn).expect("schema");
        conn.execute("INSERT INTO schema_version (version) VALUES (?1)", [SCHEMA_VERSION + 1]).expect("newer");
        let error = prepare(&mut conn).expect_err("a newer schema");
        assert!(error.to_string().contains(&format!("version {}", SCHEMA_VERSION + 1)), "{error}");
        assert_eq!(versions(&conn).last(), Some(&(SCHEMA_VERSION + 1)));
    }

    /// Writing any checked column compiles to no temporary index (see [`SCHEMA_V1`]).
    #[test]
    fn checks_build_no_temporary_tables() {
        let mut conn = Connection::open_in_memory().expect("open");
        prepare(&mut conn).expect("schema");
        // One row by its key, as the storage writes them.
        let checked = [
            ("runs", "kind", "id = 1"),
            ("runs", "tc_kind", "id = 1"),
            ("runs", "state", "id = 1"),
            ("leases", "state", "id = 1"),
            ("pairs", "status", "run_id = 1 AND pair_index = 1"),
            ("lease_pairs", "status", "lease_id = 1 AND pair_index = 1"),
            ("games", "outcome", "id = 1"),
        ];
        for (table, column, row) in checked {
            let sql = format!("EXPLAIN UPDATE {table} SET {column} = {column} WHERE {row}");
            let ops: Vec<String> = conn
                .prepare(&sql)
                .and_then(|mut s| s.query_map([], |r| r.get::<_, String>(1))?.collect())
                .expect("explain");
            assert!(ops.iter().any(|op| op == "Halt"), "{sql} compiled");
            assert!(!ops.iter().any(|op| op == "OpenEphemeral"), "{table}.{column}: a temporary table per write");
        }
    }
}
