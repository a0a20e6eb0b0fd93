//! The PostgreSQL schema: the same tables, columns and constraints as SQLite's current version
//! (`../sqlite/schema.rs`), so that the primitives read and write the same rows. Every integer
//! column is `BIGINT` (the primitives bind `i64` only, as [`crate::storage::codec`] encodes
//! them); flags are `BIGINT` 0 or 1 as in SQLite. SQLite's triggers that keep a run's tallies are
//! PL/pgSQL triggers here.
//!
//! Game ids come from a counter row, not a sequence: the row stays locked until the inserting
//! transaction commits, so game ids become visible in increasing order and the exporter, which
//! reads "games above the last exported id", never skips a game committed late by another
//! coordinator.

use postgres::Transaction;

use crate::error::{Error, Result};
use crate::storage::sql::Ctx;

/// The schema version this build reads and writes. Version 1 is SQLite's version 8, version 2
/// SQLite's version 9, version 3 its version 10, version 4 its version 11; version 5 changes a
/// trigger function only (SQLite's is unchanged). As in SQLite, a database of an older version is
/// migrated in place (one step per version, all in the transaction that checks the version), and
/// a new one is created as version 1 ([`SCHEMA_V1`], never edited) and migrated like an old one.
pub(super) const SCHEMA_VERSION: i64 = 5;

/// A migration step turns a database of version `n` into version `n + 1`.
type Migration = fn(&mut Transaction<'_>) -> Result<()>;

/// `MIGRATIONS[i]` migrates version `i + 1` to version `i + 2`.
const MIGRATIONS: [Migration; (SCHEMA_VERSION - 1) as usize] = [v1_to_v2, v2_to_v3, v3_to_v4, v4_to_v5];

/// Version 2 (SQLite's 9): datagen runs and positions without a score. `runs.kind` also admits
/// `datagen`, whose random plies are the new `runs.random_plies` (NULL for other kinds), and
/// `positions.search_score` may be NULL (the engine reported none). Stored rows keep their
/// values.
fn v1_to_v2(tx: &mut Transaction<'_>) -> Result<()> {
    tx.batch_execute(
        "ALTER TABLE runs DROP CONSTRAINT runs_kind_check;
         ALTER TABLE runs ADD CONSTRAINT runs_kind_check
             CHECK (kind IN ('sprt', 'games', 'gauntlet', 'round_robin', 'spsa', 'tournament', 'datagen'));
         ALTER TABLE runs ADD COLUMN random_plies BIGINT CHECK (random_plies >= 0);
         ALTER TABLE positions ALTER COLUMN search_score DROP NOT NULL;",
    )
    .ctx("migrating the PostgreSQL schema from version 1 to 2 (datagen runs, positions without a score)")
}

/// Version 3 (SQLite's 10): network files by the SHA-256 of their bytes.
fn v2_to_v3(tx: &mut Transaction<'_>) -> Result<()> {
    tx.batch_execute(
        "CREATE TABLE networks (
             sha256        TEXT PRIMARY KEY,
             bytes         BYTEA NOT NULL,
             added_unix_ms BIGINT NOT NULL
         );",
    )
    .ctx("migrating the PostgreSQL schema from version 2 to 3 (networks)")
}

/// Version 4 (SQLite's 11): each worker's SIMD level (NULL = not said) and speed with a network
/// (0 = not measured). No CHECK list on the level, as in SQLite.
fn v3_to_v4(tx: &mut Transaction<'_>) -> Result<()> {
    tx.batch_execute(
        "ALTER TABLE workers ADD COLUMN simd TEXT;
         ALTER TABLE workers ADD COLUMN nnue_bench_nps BIGINT NOT NULL DEFAULT 0 CHECK (nnue_bench_nps >= 0);",
    )
    .ctx("migrating the PostgreSQL schema from version 3 to 4 (SIMD levels and speeds with a network)")
}

/// Version 5: a pair's first game is found by its primary key. The trigger that records a pair's
/// result looked game 0 up by (run, pair, game in pair); PL/pgSQL caches that plan, and one made
/// while `games` was small (a new farm, before the first `ANALYZE`) scans the run's `games_by_run`
/// entries instead, every game of the run for each pair: 367 us a pair after 3,000 pairs in
/// `bench rpc`, growing with the run. Game 1 follows game 0 directly (`record_pair` inserts them
/// one after the other under the write lock), so game 0's id is game 1's minus one; should that
/// ever not hold, the lookup by (run, pair, game in pair) still finds it.
fn v4_to_v5(tx: &mut Transaction<'_>) -> Result<()> {
    tx.batch_execute(GAME_RECORDED_V5)
        .ctx("migrating the PostgreSQL schema from version 4 to 5 (the pair result trigger finds game 0 by its id)")
}

/// The games trigger's function as of version 5 ([`v4_to_v5`]).
const GAME_RECORDED_V5: &str =
    "CREATE OR REPLACE FUNCTION xqfarm_game_recorded() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    first BIGINT;
BEGIN
    INSERT INTO run_game_ends (run_id, reason, plies, games) VALUES (NEW.run_id, NEW.reason, NEW.plies, 1)
        ON CONFLICT (run_id, reason, plies) DO UPDATE SET games = run_game_ends.games + 1;
    -- A pair's games are recorded together, game 0 first, so game 0's id is game 1's minus one.
    IF NEW.game_in_pair = 1 THEN
        SELECT id INTO first FROM games
            WHERE id = NEW.id - 1 AND run_id = NEW.run_id AND pair_index = NEW.pair_index AND game_in_pair = 0;
        IF first IS NULL THEN
            SELECT id INTO first FROM games
                WHERE run_id = NEW.run_id AND pair_index = NEW.pair_index AND game_in_pair = 0;
        END IF;
        INSERT INTO run_pair_results (run_id, first_game_id, pair_index, pairing, worker_id, points)
            SELECT g0.run_id, g0.id, g0.pair_index, g0.pairing, g0.worker_id,
                   (CASE g0.outcome WHEN '1-0' THEN 2 WHEN '1/2-1/2' THEN 1 ELSE 0 END)
                   + (CASE NEW.outcome WHEN '0-1' THEN 2 WHEN '1/2-1/2' THEN 1 ELSE 0 END)
            FROM games g0
            WHERE g0.id = first;
    END IF;
    RETURN NULL;
END $$;";

/// Migrates a database of version `from` to [`SCHEMA_VERSION`], recording each version reached.
fn migrate(tx: &mut Transaction<'_>, from: i64) -> Result<()> {
    for version in from..SCHEMA_VERSION {
        let step = usize::try_from(version - 1)
            .ok()
            .and_then(|i| MIGRATIONS.get(i))
            .ok_or_else(|| Error::Corrupt(format!("no PostgreSQL migration from schema version {version}")))?;
        step(tx)?;
        tx.execute(&format!("INSERT INTO {VERSION_TABLE} (version) VALUES ($1)"), &[&(version + 1)])
            .ctx("recording the schema version")?;
        tracing::info!(from = version, to = version + 1, "PostgreSQL schema migrated");
    }
    Ok(())
}

/// The table that marks a database as xqfarm's.
pub(super) const VERSION_TABLE: &str = "xqfarm_schema_version";

/// Two coordinators opening an empty database at once create the schema once.
const SCHEMA_LOCK: i64 = 0x7871_6661_726d_0001;

/// Version 1, as it was first released: never edit it; change the schema with a new step in
/// [`MIGRATIONS`].
pub(super) const SCHEMA_V1: &str = r"
CREATE TABLE variants (
    id   TEXT PRIMARY KEY,
    spec TEXT NOT NULL
);
CREATE TABLE suites (
    id            BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    name          TEXT NOT NULL,
    opening_count BIGINT NOT NULL CHECK (opening_count > 0)
);
CREATE TABLE suite_openings (
    suite_id BIGINT NOT NULL REFERENCES suites(id),
    idx      BIGINT NOT NULL,
    line     TEXT NOT NULL,
    PRIMARY KEY (suite_id, idx)
);
CREATE TABLE runs (
    id                BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    name              TEXT NOT NULL,
    kind              TEXT NOT NULL
                      CHECK (kind IN ('sprt', 'games', 'gauntlet', 'round_robin', 'spsa', 'tournament')),
    pairs_per_pairing BIGINT,
    sprt_elo0         DOUBLE PRECISION,
    sprt_elo1         DOUBLE PRECISION,
    sprt_alpha        DOUBLE PRECISION,
    sprt_beta         DOUBLE PRECISION,
    sprt_model        TEXT CHECK (sprt_model IN ('normalized', 'logistic')),
    tc_kind           TEXT NOT NULL CHECK (tc_kind IN ('nodes', 'depth', 'movetime', 'clock')),
    tc_value          BIGINT NOT NULL,
    tc_inc_ms         BIGINT NOT NULL,
    suite_id          BIGINT NOT NULL REFERENCES suites(id),
    resign_score      BIGINT NOT NULL,
    resign_moves      BIGINT NOT NULL,
    draw_score        BIGINT NOT NULL,
    draw_moves        BIGINT NOT NULL,
    draw_after_move   BIGINT NOT NULL,
    bench_signature   BIGINT,
    sample_every      BIGINT NOT NULL,
    state             TEXT NOT NULL CHECK (state IN ('active', 'sprt_h0', 'sprt_h1', 'completed', 'stopped')),
    created_ms        BIGINT NOT NULL,
    next_pair_index   BIGINT NOT NULL DEFAULT 0,
    exported_up_to    BIGINT NOT NULL DEFAULT 0
);
CREATE INDEX runs_by_state ON runs(state);
CREATE TABLE run_variants (
    run_id     BIGINT NOT NULL REFERENCES runs(id),
    idx        BIGINT NOT NULL,
    variant_id TEXT NOT NULL REFERENCES variants(id),
    PRIMARY KEY (run_id, idx)
);
CREATE TABLE run_pairings (
    run_id    BIGINT NOT NULL REFERENCES runs(id),
    pairing   BIGINT NOT NULL,
    allocated BIGINT NOT NULL DEFAULT 0,
    ptnml0    BIGINT NOT NULL DEFAULT 0,
    ptnml1    BIGINT NOT NULL DEFAULT 0,
    ptnml2    BIGINT NOT NULL DEFAULT 0,
    ptnml3    BIGINT NOT NULL DEFAULT 0,
    ptnml4    BIGINT NOT NULL DEFAULT 0,
    wins      BIGINT NOT NULL DEFAULT 0,
    draws     BIGINT NOT NULL DEFAULT 0,
    losses    BIGINT NOT NULL DEFAULT 0,
    PRIMARY KEY (run_id, pairing)
);
CREATE TABLE workers (
    id              BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    name            TEXT NOT NULL,
    host            TEXT NOT NULL,
    cores           BIGINT NOT NULL,
    engine_version  TEXT NOT NULL,
    bench_signature BIGINT NOT NULL,
    registered_ms   BIGINT NOT NULL,
    last_seen_ms    BIGINT NOT NULL,
    key_digest      TEXT,
    rules_version   BIGINT NOT NULL DEFAULT 0,
    bench_nps       BIGINT NOT NULL DEFAULT 0 CHECK (bench_nps >= 0)
);
CREATE UNIQUE INDEX workers_by_key ON workers(key_digest) WHERE key_digest IS NOT NULL;
CREATE TABLE worker_engines (
    worker_id BIGINT NOT NULL REFERENCES workers(id),
    name      TEXT NOT NULL,
    id_name   TEXT NOT NULL,
    sha256    TEXT NOT NULL,
    PRIMARY KEY (worker_id, name)
);
CREATE INDEX worker_engines_by_name ON worker_engines(name);
CREATE TABLE run_engines (
    run_id  BIGINT NOT NULL REFERENCES runs(id),
    name    TEXT NOT NULL,
    sha256  TEXT,
    id_name TEXT,
    PRIMARY KEY (run_id, name)
);
CREATE TABLE leases (
    id                BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    run_id            BIGINT NOT NULL REFERENCES runs(id),
    worker_id         BIGINT NOT NULL REFERENCES workers(id),
    state             TEXT NOT NULL CHECK (state IN ('active', 'closed', 'expired')),
    created_ms        BIGINT NOT NULL,
    deadline_ms       BIGINT NOT NULL,
    duration_ms       BIGINT NOT NULL,
    tc_scale_permille BIGINT NOT NULL DEFAULT 1000 CHECK (tc_scale_permille > 0)
);
CREATE INDEX leases_by_state ON leases(state, deadline_ms);
CREATE TABLE pairs (
    run_id        BIGINT NOT NULL REFERENCES runs(id),
    pair_index    BIGINT NOT NULL,
    pairing       BIGINT NOT NULL,
    opening_index BIGINT NOT NULL,
    status        TEXT NOT NULL CHECK (status IN ('pooled', 'leased', 'done')),
    PRIMARY KEY (run_id, pair_index)
);
CREATE INDEX pairs_by_status ON pairs(run_id, status, pair_index);
CREATE TABLE lease_pairs (
    lease_id   BIGINT NOT NULL REFERENCES leases(id),
    run_id     BIGINT NOT NULL,
    pair_index BIGINT NOT NULL,
    status     TEXT NOT NULL CHECK (status IN ('pending', 'finished', 'returned')),
    PRIMARY KEY (lease_id, pair_index),
    FOREIGN KEY (run_id, pair_index) REFERENCES pairs(run_id, pair_index)
);
CREATE INDEX lease_pairs_by_pair ON lease_pairs(run_id, pair_index);
CREATE TABLE submissions (
    lease_id    BIGINT NOT NULL REFERENCES leases(id),
    seq         BIGINT NOT NULL,
    accepted    BIGINT NOT NULL,
    received_ms BIGINT NOT NULL,
    PRIMARY KEY (lease_id, seq)
);
CREATE INDEX submissions_by_time ON submissions(received_ms, accepted);
CREATE TABLE games (
    id            BIGINT PRIMARY KEY,
    run_id        BIGINT NOT NULL REFERENCES runs(id),
    pair_index    BIGINT NOT NULL,
    game_in_pair  BIGINT NOT NULL CHECK (game_in_pair IN (0, 1)),
    opening_index BIGINT NOT NULL,
    worker_id     BIGINT NOT NULL REFERENCES workers(id),
    red           TEXT NOT NULL,
    black         TEXT NOT NULL,
    start_fen     TEXT NOT NULL,
    outcome       TEXT NOT NULL CHECK (outcome IN ('1-0', '0-1', '1/2-1/2')),
    reason        TEXT NOT NULL,
    moves         TEXT NOT NULL,
    duration_ms   BIGINT NOT NULL,
    nodes         BIGINT NOT NULL,
    plies         BIGINT NOT NULL DEFAULT 0 CHECK (plies >= 0),
    pairing       BIGINT NOT NULL DEFAULT 0 CHECK (pairing >= 0),
    UNIQUE (run_id, pair_index, game_in_pair),
    FOREIGN KEY (run_id, pair_index) REFERENCES pairs(run_id, pair_index)
);
CREATE INDEX games_by_run ON games(run_id, id);
-- The last game id handed out (see the module's documentation).
CREATE TABLE game_counter (
    only_row BOOLEAN PRIMARY KEY DEFAULT TRUE CHECK (only_row),
    last_id  BIGINT NOT NULL
);
INSERT INTO game_counter (last_id) VALUES (0);
CREATE TABLE positions (
    game_id      BIGINT NOT NULL REFERENCES games(id),
    seq          BIGINT NOT NULL,
    ply          BIGINT NOT NULL,
    fen          TEXT NOT NULL,
    red_to_move  BIGINT NOT NULL CHECK (red_to_move IN (0, 1)),
    static_eval  BIGINT NOT NULL,
    search_score BIGINT NOT NULL,
    best_move    TEXT NOT NULL,
    in_check     BIGINT NOT NULL CHECK (in_check IN (0, 1)),
    quiet        BIGINT NOT NULL CHECK (quiet IN (0, 1)),
    PRIMARY KEY (game_id, seq)
);
CREATE TABLE run_game_ends (
    run_id BIGINT NOT NULL REFERENCES runs(id),
    reason TEXT NOT NULL,
    plies  BIGINT NOT NULL,
    games  BIGINT NOT NULL,
    PRIMARY KEY (run_id, reason, plies)
);
CREATE TABLE run_pair_results (
    run_id        BIGINT NOT NULL REFERENCES runs(id),
    first_game_id BIGINT NOT NULL,
    pair_index    BIGINT NOT NULL,
    pairing       BIGINT NOT NULL,
    worker_id     BIGINT NOT NULL,
    points        BIGINT NOT NULL CHECK (points >= 0 AND points <= 4),
    PRIMARY KEY (run_id, first_game_id)
);
CREATE TABLE run_pair_tallies (
    run_id    BIGINT NOT NULL REFERENCES runs(id),
    worker_id BIGINT NOT NULL,
    pairing   BIGINT NOT NULL,
    points    BIGINT NOT NULL,
    pairs     BIGINT NOT NULL,
    PRIMARY KEY (run_id, worker_id, pairing, points)
);
CREATE FUNCTION xqfarm_game_recorded() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO run_game_ends (run_id, reason, plies, games) VALUES (NEW.run_id, NEW.reason, NEW.plies, 1)
        ON CONFLICT (run_id, reason, plies) DO UPDATE SET games = run_game_ends.games + 1;
    -- A pair's games are recorded together, game 0 first.
    IF NEW.game_in_pair = 1 THEN
        INSERT INTO run_pair_results (run_id, first_game_id, pair_index, pairing, worker_id, points)
            SELECT g0.run_id, g0.id, g0.pair_index, g0.pairing, g0.worker_id,
                   (CASE g0.outcome WHEN '1-0' THEN 2 WHEN '1/2-1/2' THEN 1 ELSE 0 END)
                   + (CASE NEW.outcome WHEN '0-1' THEN 2 WHEN '1/2-1/2' THEN 1 ELSE 0 END)
            FROM games g0
            WHERE g0.run_id = NEW.run_id AND g0.pair_index = NEW.pair_index AND g0.game_in_pair = 0;
    END IF;
    RETURN NULL;
END $$;
CREATE TRIGGER games_recorded AFTER INSERT ON games FOR EACH ROW EXECUTE FUNCTION xqfarm_game_recorded();
CREATE FUNCTION xqfarm_pair_tallied() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO run_pair_tallies (run_id, worker_id, pairing, points, pairs)
        VALUES (NEW.run_id, NEW.worker_id, NEW.pairing, NEW.points, 1)
        ON CONFLICT (run_id, worker_id, pairing, points) DO UPDATE SET pairs = run_pair_tallies.pairs + 1;
    RETURN NULL;
END $$;
CREATE TRIGGER pair_results_tally AFTER INSERT ON run_pair_results FOR EACH ROW EXECUTE FUNCTION xqfarm_pair_tallied();
CREATE TABLE run_spsa_params (
    run_id  BIGINT NOT NULL REFERENCES runs(id),
    idx     BIGINT NOT NULL,
    name    TEXT NOT NULL,
    start   DOUBLE PRECISION NOT NULL,
    min     DOUBLE PRECISION NOT NULL,
    max     DOUBLE PRECISION NOT NULL,
    c_end   DOUBLE PRECISION NOT NULL,
    r_end   DOUBLE PRECISION NOT NULL,
    integer BIGINT NOT NULL CHECK (integer IN (0, 1)),
    PRIMARY KEY (run_id, idx)
);
CREATE TABLE spsa_theta (
    run_id BIGINT PRIMARY KEY REFERENCES runs(id),
    theta  TEXT NOT NULL
);
CREATE TABLE spsa_history (
    run_id      BIGINT NOT NULL REFERENCES runs(id),
    iteration   BIGINT NOT NULL,
    received_ms BIGINT NOT NULL,
    theta       TEXT NOT NULL,
    PRIMARY KEY (run_id, iteration)
);
CREATE TABLE spsa_leases (
    lease_id     BIGINT PRIMARY KEY REFERENCES leases(id),
    iteration    BIGINT NOT NULL,
    perturbation TEXT NOT NULL
);
CREATE TABLE run_tablebases (
    run_id   BIGINT NOT NULL REFERENCES runs(id),
    set_name TEXT NOT NULL,
    checksum BIGINT NOT NULL,
    PRIMARY KEY (run_id, set_name)
);
CREATE TABLE run_tournaments (
    run_id      BIGINT PRIMARY KEY REFERENCES runs(id),
    format      TEXT NOT NULL CHECK (format IN ('round-robin', 'swiss', 'knockout', 'random')),
    rounds      BIGINT NOT NULL CHECK (rounds >= 0),
    extra_pairs BIGINT NOT NULL CHECK (extra_pairs >= 0),
    seed        BIGINT NOT NULL,
    tiebreaks   TEXT NOT NULL
);
CREATE TABLE tournament_matches (
    run_id  BIGINT NOT NULL REFERENCES runs(id),
    pairing BIGINT NOT NULL CHECK (pairing >= 0),
    round   BIGINT NOT NULL CHECK (round > 0),
    slot    BIGINT NOT NULL CHECK (slot >= 0),
    a       BIGINT NOT NULL CHECK (a >= 0),
    b       BIGINT NOT NULL CHECK (b >= 0),
    stage   TEXT NOT NULL CHECK (stage IN ('main', 'extra', 'armageddon')),
    pairs   BIGINT NOT NULL CHECK (pairs > 0),
    armageddon_red_points BIGINT CHECK (armageddon_red_points >= 0 AND armageddon_red_points <= 2),
    PRIMARY KEY (run_id, pairing)
);
CREATE TABLE tournament_byes (
    run_id BIGINT NOT NULL REFERENCES runs(id),
    round  BIGINT NOT NULL CHECK (round > 0),
    slot   BIGINT NOT NULL CHECK (slot >= 0),
    player BIGINT NOT NULL CHECK (player >= 0),
    PRIMARY KEY (run_id, round, slot)
);
";

/// Creates the schema in an empty database, or checks the version of one xqfarm created. A
/// database holding other tables and no xqfarm version is refused, naming some of them: the
/// coordinator never creates its tables beside another application's.
pub(super) fn prepare(tx: &mut Transaction<'_>, target: &str) -> Result<()> {
    tx.execute("SELECT pg_advisory_xact_lock($1)", &[&SCHEMA_LOCK]).ctx("locking the schema")?;
    let marked = tx
        .query_one("SELECT to_regclass($1) IS NOT NULL", &[&VERSION_TABLE])
        .and_then(|row| row.try_get::<_, bool>(0))
        .ctx("looking for the schema version")?;
    if !marked {
        let foreign: Vec<String> = tx
            .query(
                "SELECT table_name::text FROM information_schema.tables WHERE table_schema = current_schema()
                 ORDER BY table_name LIMIT 5",
                &[],
            )
            .ctx("listing the database's tables")?
            .iter()
            .map(|row| row.try_get(0))
            .collect::<std::result::Result<_, _>>()
            .ctx("reading the database's table names")?;
        if !foreign.is_empty() {
            return Err(Error::Database {
                target: target.to_owned(),
                reason: format!(
                    "it holds tables that are not xqfarm's ({}) and no {VERSION_TABLE}: give the coordinator \
                     an empty database (or schema) of its own",
                    foreign.join(", ")
                ),
            });
        }
        tx.batch_execute(SCHEMA_V1).ctx("creating the schema")?;
        tx.batch_execute(&format!("CREATE TABLE {VERSION_TABLE} (version BIGINT NOT NULL)"))
            .ctx("creating the schema version table")?;
        tx.execute(&format!("INSERT INTO {VERSION_TABLE} (version) VALUES (1)"), &[])
            .ctx("recording the schema version")?;
        migrate(tx, 1)?;
        tracing::info!(version = SCHEMA_VERSION, "PostgreSQL schema created");
        return Ok(());
    }
    let version: Option<i64> = tx
        .query_one(&format!("SELECT MAX(version) FROM {VERSION_TABLE}"), &[])
        .and_then(|row| row.try_get(0))
        .ctx("reading the schema version")?;
    match version {
        Some(SCHEMA_VERSION) => Ok(()),
        Some(old) if (1..SCHEMA_VERSION).contains(&old) => migrate(tx, old),
        other => Err(Error::Database {
            target: target.to_owned(),
            reason: format!(
                "schema version {}; this build reads versions 1 to {SCHEMA_VERSION}{}",
                other.map_or_else(|| "missing".to_owned(), |v| v.to_string()),
                if other.is_some_and(|v| v > SCHEMA_VERSION) { " (a newer xqfarm wrote it)" } else { "" }
            ),
        }),
    }
}
