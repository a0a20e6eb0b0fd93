//! The knowledge modules: endgame tablebase generation (positions per second, per set),
//! probing (time per probe, in a table and outside every table), and the opening book
//! (building from 100,000 games, decoding, looking moves up).
//! Run: `cargo bench -p engine --bench knowledge`.
//!
//! Positions and games come from a seeded xorshift generator, so every run measures the same
//! work; the book benches print the book's size once (`book <variant>: ... bytes`).

use std::hint::black_box;
use std::sync::Arc;
use std::time::Duration;

use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, Criterion, SamplingMode, Throughput, criterion_group, criterion_main};
use engine::book::{Book, BookBuilder};
use engine::position::Setup;
use engine::rules::GameResult;
use engine::tablebase::index::Placement;
use engine::tablebase::{Census, Generated, Material, Table, Tablebases, file, generate};
use engine::{Color, Move, Piece, Position};

/// The sets generated and probed: three 1-piece sets and a 2-piece one (each generated with
/// the smaller sets its captures lead to).
const SETS: [&str; 4] = ["KRK", "KNK", "KCK", "KRKA"];
/// Positions per probe benchmark.
const PROBES: usize = 1_000;
/// Sets with an index and no table in the bench's directory (a probe finds no file) and a
/// position beyond every index (a probe stops at the piece count).
const NOT_IN_TABLES: [(&str, &str); 2] = [
    ("no file (KRKNA)", "4k4/4a4/9/9/4n4/9/9/4R4/9/3K5 w"),
    ("beyond the index (start)", "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w"),
];

const GAMES: usize = 100_000;
/// `xqfarm book build`'s defaults: the first 20 plies of each game, moves played at least 5 times.
const MAX_PLY: usize = 20;
const MIN_GAMES: u32 = 5;
/// Game lengths, in plies.
const MIN_PLIES: usize = 20;
const MAX_PLIES: usize = 40;
/// The shared-openings variant: each game starts with one of this many fixed lines.
const OPENINGS: usize = 50;
const OPENING_PLIES: usize = 8;

/// xorshift64* (Vigna, 2016): plenty for choosing moves and indices, and no dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// Uniform in `0..n` (the modulo bias is below 1e-15 for these `n`).
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn coin(&mut self) -> bool {
        self.next() & 1 == 1
    }

    /// Uniform in 0..1.
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// Few samples of a fixed iteration count: one generation or one book build takes from
/// milliseconds to a second, and the whole file should run in minutes on two cores.
fn short_group<'a>(c: &'a mut Criterion, name: &str) -> BenchmarkGroup<'a, WallTime> {
    let mut group = c.benchmark_group(name);
    group.sample_size(10).warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(3));
    group
}

fn material(name: &str) -> Material {
    name.parse().expect("a valid set name")
}

/// The tables of [`SETS`], generated once into a temporary directory.
struct Tables {
    dir: tempfile::TempDir,
    /// What generating each set did, smaller sets included.
    generated: Vec<Generated>,
}

impl Tables {
    fn generate() -> Tables {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let tbs = Tablebases::open(dir.path()).expect("a directory");
        let mut generated = Vec::new();
        for name in SETS {
            generated.extend(tbs.generate(material(name), &|_| {}).expect("generates"));
        }
        Tables { dir, generated }
    }

    fn of(&self, name: &str) -> &Generated {
        let m = material(name).canonical();
        self.generated.iter().find(|g| g.material == m).expect("generated in setup")
    }
}

/// One set's retrograde analysis, with the smaller sets' tables already in memory (as
/// `xqfarm tb generate` has them when it reaches the set); throughput is the set's legal
/// positions, both sides to move. Then writing the set's file into a temporary directory
/// (encode, write, `fsync`, rename), apart: on a shared disk its time is the disk's.
fn bench_tb_generate(c: &mut Criterion, tables: &Tables) {
    let tbs = Tablebases::open(tables.dir.path()).expect("a directory");
    let mut group = short_group(c, "tb-generate");
    group.sampling_mode(SamplingMode::Flat);
    for name in SETS {
        let g = tables.of(name);
        let mut subs: Vec<Arc<Table>> = Vec::new();
        for sub in g.material.captures() {
            let table = tbs.table(sub).expect("readable").expect("generated in setup");
            if !subs.iter().any(|t| t.material() == table.material()) {
                subs.push(table);
            }
        }
        let subs: Vec<&Table> = subs.iter().map(Arc::as_ref).collect();
        let stored = tbs.table(g.material).expect("readable").expect("generated in setup");
        let positions: u64 = g.census.iter().map(Census::positions).sum();
        eprintln!(
            "tb {name}: {positions} positions, {} indices per side, {} bytes, {} passes",
            g.census[0].positions() + g.census[0].broken,
            g.bytes,
            g.passes
        );
        group.throughput(Throughput::Elements(positions));
        group.bench_function(name, |b| {
            b.iter(|| {
                let table = generate::generate(g.material, &subs, &|_| {}).expect("generates");
                assert!(table == *stored, "{name}: the same table as in setup");
                table
            });
        });
    }
    group.finish();

    let out = tempfile::tempdir().expect("a temporary directory");
    let mut group = short_group(c, "tb-write");
    for name in SETS {
        let table = tbs.table(material(name)).expect("readable").expect("generated in setup");
        group.throughput(Throughput::Bytes(tables.of(name).bytes));
        group.bench_function(name, |b| b.iter(|| file::write(out.path(), &table).expect("writes").1));
    }
    group.finish();
}

/// `n` positions of `table` with a value, at random indices and sides to move; half with the
/// colours exchanged, so that a probe rotates the board back to the stored orientation.
fn sample_positions(table: &Table, n: usize, rng: &mut Rng) -> Vec<Position> {
    let ix = table.indexer();
    let mut placement = Placement::new();
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        let idx = rng.below(ix.size());
        let stm = if rng.coin() { Color::Red } else { Color::Black };
        if !ix.decode(idx, &mut placement) || table.value(stm, idx).is_none() {
            continue;
        }
        let flip = rng.coin();
        let mut board = [None; 90];
        for &(p, sq) in &placement {
            let (p, sq) = if flip { (Piece::new(!p.color, p.kind), sq.flip()) } else { (p, sq) };
            board[sq.index()] = Some(p);
        }
        let side_to_move = if flip { !stm } else { stm };
        let setup = Setup { board, side_to_move, rule60: 0, fullmove: 1 };
        out.push(Position::from_setup(&setup).expect("an index with a value is a legal position"));
    }
    out
}

/// `Tablebases::probe` (WDL and DTC) on the tables opened from their files, each read before
/// measuring; throughput is probes, so the time per iteration / 1,000 is the time per probe.
fn bench_tb_probe(c: &mut Criterion, tables: &Tables) {
    let tbs = Tablebases::open(tables.dir.path()).expect("a directory");
    let mut rng = Rng(0x7AB1_EBA5_E5EE_D001);
    let mut group = c.benchmark_group("tb-probe");
    group.warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(3));
    for name in SETS {
        let table = tbs.table(material(name)).expect("readable").expect("generated in setup");
        let positions = sample_positions(&table, PROBES, &mut rng);
        for pos in &positions {
            let v = tbs.probe(pos).expect("readable").expect("in the table");
            let (side, idx) = table.indexer().encode(pos).expect("the set's material");
            assert_eq!(Some(v), table.value(side, idx), "{}", pos.fen());
        }
        group.throughput(Throughput::Elements(PROBES as u64));
        group.bench_function(format!("probe/{name}"), |b| {
            b.iter(|| {
                for pos in &positions {
                    black_box(tbs.probe(black_box(pos)).expect("readable"));
                }
            });
        });
        if name == "KRKA" {
            // The tables' move: a probe of every legal successor (KRK and KAK after captures).
            group.bench_function(format!("best_move/{name}"), |b| {
                b.iter(|| {
                    for pos in &positions {
                        black_box(tbs.best_move(black_box(pos)).expect("readable"));
                    }
                });
            });
        }
    }
    group.throughput(Throughput::Elements(1));
    for (what, fen) in NOT_IN_TABLES {
        let pos = Position::from_fen(fen).expect("a valid FEN");
        assert_eq!(tbs.probe(&pos).expect("readable"), None, "{what}");
        group.bench_function(format!("not in tables/{what}"), |b| {
            b.iter(|| tbs.probe(black_box(&pos)).expect("readable"));
        });
    }
    group.finish();
}

fn bench_tablebases(c: &mut Criterion) {
    let tables = Tables::generate();
    bench_tb_generate(c, &tables);
    bench_tb_probe(c, &tables);
}

struct Game {
    moves: Vec<Move>,
    result: GameResult,
}

/// Plays up to `plies` random legal moves from `pos` (fewer if the game ends), appending them.
fn random_walk(pos: &mut Position, plies: usize, rng: &mut Rng, out: &mut Vec<Move>) {
    for _ in 0..plies {
        let moves = pos.legal_moves();
        if moves.is_empty() {
            return;
        }
        let m = moves[rng.below(moves.len())];
        pos.play_unchecked(m);
        out.push(m);
    }
}

/// [`GAMES`] games from the start position of 20 to 40 random plies and a random result,
/// each opening with a random one of `openings` (none: a random walk from the first move).
fn random_games(openings: &[Vec<Move>], rng: &mut Rng) -> Vec<Game> {
    let start = Position::startpos();
    (0..GAMES)
        .map(|_| {
            let plies = MIN_PLIES + rng.below(MAX_PLIES - MIN_PLIES + 1);
            let mut pos = start.clone();
            let mut moves = Vec::with_capacity(plies);
            if !openings.is_empty() {
                for &m in &openings[rng.below(openings.len())] {
                    pos.play_unchecked(m);
                    moves.push(m);
                }
            }
            random_walk(&mut pos, plies - moves.len(), rng, &mut moves);
            let result = [GameResult::RedWins, GameResult::Draw, GameResult::BlackWins][rng.below(3)];
            Game { moves, result }
        })
        .collect()
}

/// What the bench measures: every game added, the book finished and encoded.
fn build_book(start: &Position, games: &[Game], min_games: u32) -> (Book, Vec<u8>) {
    let mut builder = BookBuilder::new(MAX_PLY);
    for g in games {
        builder.add_game(start, &g.moves, g.result).expect("legal moves");
    }
    let book = builder.finish(min_games);
    let bytes = book.encode();
    (book, bytes)
}

/// The book from 100,000 games, two ways. A random walk from the start makes nearly every
/// position after the first few plies unique, so it measures the builder's worst case (a new
/// map entry at almost every ply) and its book keeps little once rare moves are dropped. Real
/// games share their openings, so in the second variant each game's first 8 plies are one of
/// 50 fixed random lines: the shared lines give the book the well-played trunk a farm's book
/// has (past ply 8 the moves are random again, so the builder's map is still large).
/// Throughput is games.
fn bench_book(c: &mut Criterion) {
    let start = Position::startpos();
    let mut rng = Rng(0xB00C_0F0A_11DE_A5ED);
    let openings: Vec<Vec<Move>> = (0..OPENINGS)
        .map(|_| {
            let mut line = Vec::with_capacity(OPENING_PLIES);
            random_walk(&mut start.clone(), OPENING_PLIES, &mut rng, &mut line);
            line
        })
        .collect();
    let variants =
        [("random-walk", random_games(&[], &mut rng)), ("shared-openings", random_games(&openings, &mut rng))];

    let mut books = Vec::new();
    let mut group = short_group(c, "book-build");
    group.sampling_mode(SamplingMode::Flat).throughput(Throughput::Elements(GAMES as u64));
    for (name, games) in &variants {
        // Every move kept, for the size before rare moves are dropped (not measured).
        let (all_bytes, all_positions, all_moves) = {
            let (all, bytes) = build_book(&start, games, 1);
            (bytes.len(), all.positions(), all.len())
        };
        let (book, bytes) = build_book(&start, games, MIN_GAMES);
        eprintln!(
            "book {name}: {GAMES} games -> {} bytes, {} positions, {} moves (first {MAX_PLY} plies, moves played at \
             least {MIN_GAMES} times); every move kept: {} bytes, {} positions, {} moves",
            bytes.len(),
            book.positions(),
            book.len(),
            all_bytes,
            all_positions,
            all_moves
        );
        group.bench_function(*name, |b| b.iter(|| build_book(&start, games, MIN_GAMES).1.len()));
        books.push((*name, book, bytes));
    }
    group.finish();

    let mut group = c.benchmark_group("book-decode");
    group.warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(3));
    for (name, _, bytes) in &books {
        group.throughput(Throughput::Bytes(bytes.len() as u64));
        group.bench_function(*name, |b| b.iter(|| Book::decode(black_box(bytes), "bench.xqb").expect("decodes")));
    }
    group.finish();

    // Lookups in the shared-openings book: the positions along its 50 opening lines (in the
    // book, history included, as a game asks), and as many positions 30 random plies deep
    // (out of the book: a lookup that finds no key).
    let (_, book, _) = books.iter().find(|(name, _, _)| *name == "shared-openings").expect("built above");
    let mut in_book = Vec::new();
    for line in &openings {
        let mut pos = start.clone();
        in_book.push(pos.clone());
        for &m in line {
            pos.play_unchecked(m);
            in_book.push(pos.clone());
        }
    }
    assert!(in_book.iter().all(|pos| !book.moves(pos).is_empty()), "the opening lines are in the book");
    let out_of_book: Vec<Position> = (0..in_book.len())
        .map(|_| {
            let mut pos = start.clone();
            random_walk(&mut pos, 30, &mut rng, &mut Vec::new());
            pos
        })
        .collect();
    let randoms: Vec<f64> = in_book.iter().map(|_| rng.unit()).collect();

    let mut group = c.benchmark_group("book-lookup");
    group.warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(3));
    group.throughput(Throughput::Elements(in_book.len() as u64));
    group.bench_function("moves/in book", |b| {
        b.iter(|| in_book.iter().map(|pos| book.moves(black_box(pos)).len()).sum::<usize>());
    });
    group.bench_function("pick/in book", |b| {
        b.iter(|| in_book.iter().zip(&randoms).filter(|&(pos, &r)| book.pick(black_box(pos), r).is_some()).count());
    });
    group.bench_function("moves/out of book", |b| {
        b.iter(|| out_of_book.iter().map(|pos| book.moves(black_box(pos)).len()).sum::<usize>());
    });
    group.finish();
}

criterion_group!(benches, bench_tablebases, bench_book);
criterion_main!(benches);
