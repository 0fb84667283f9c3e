//! The fuzz targets' bodies (`tests/fuzz_bodies`, also built by `fuzz/` with cargo-fuzz) run
//! as ordinary tests on a few thousand random and mutated inputs, so CI exercises them without
//! a nightly toolchain.
mod fuzz_bodies;

use std::sync::OnceLock;

use proptest::prelude::*;
use pussa_rules::record::Record;
use pussa_rules::{random_game, Game, Mode, Rng, Setup, Side};

/// Valid position strings to mutate: starts, mid-game and match positions with closed holes.
fn valid_positions() -> &'static [String] {
    static CELL: OnceLock<Vec<String>> = OnceLock::new();
    CELL.get_or_init(make_positions)
}

fn make_positions() -> Vec<String> {
    let mut v = Vec::new();
    for (k, game) in Game::ALL.into_iter().enumerate() {
        for seed in 0..4u64 {
            let mut rng = Rng::new(seed * 7 + k as u64);
            let g = random_game(game, Mode::Match, Side::South, &mut rng, 2 + seed as u32);
            v.push(Setup::from_state(&g).to_string());
        }
        v.push(Setup::from_position(&pussa_rules::Position::start(game), 1).to_string());
    }
    v.push("x,x,x,6,7,4,8/x,x,4,3,5,4,4 8 3 N 2 walak-pussa".to_string());
    v.push("5,5,5,5,5,5,x/5,5,5,5,5,5,5 3 2 N 2 pasu-pondi S".to_string());
    v
}

/// Valid game records to mutate.
fn valid_records() -> &'static [String] {
    static CELL: OnceLock<Vec<String>> = OnceLock::new();
    CELL.get_or_init(make_records)
}

fn make_records() -> Vec<String> {
    let mut v = Vec::new();
    for (k, game) in Game::ALL.into_iter().enumerate() {
        for (mode, len) in [(Mode::Single, 12usize), (Mode::Match, 200)] {
            let mut rng = Rng::new(k as u64 + len as u64);
            let mut g = pussa_rules::GameState::new(game, mode, Side::South);
            let mut moves = Vec::new();
            while moves.len() < len && !g.is_over() {
                if g.is_round_over() {
                    g.next_round();
                    continue;
                }
                let l = g.legal_moves();
                let mv = l.nth(rng.below(l.len() as u32) as usize).unwrap();
                g.play(mv).unwrap();
                moves.push(mv);
            }
            let rec = Record::from_moves(game, mode, Side::South, &moves).unwrap();
            v.push(rec.to_string());
        }
    }
    v
}

/// Characters a mutation may insert: the notation's own and a few strangers.
const ALPHABET: &[char] = &[
    '0', '1', '4', '7', '9', ',', '/', ' ', 'x', 'X', 'S', 'N', 'A', 'g', '-', '[', ']', '"', '{',
    '}', '.', '\n', '\\', '*', 'R', '2', '\u{e9}', '\u{feff}', '\r', '\t',
];

fn mutate(base: &str, ops: &[(u8, usize, usize)]) -> String {
    let mut c: Vec<char> = base.chars().collect();
    for &(op, at, k) in ops {
        let at = if c.is_empty() { 0 } else { at % (c.len() + 1) };
        let ch = ALPHABET[k % ALPHABET.len()];
        match op % 6 {
            0 => c.insert(at, ch),
            1 if at < c.len() => {
                c.remove(at);
            }
            2 if at < c.len() => c[at] = ch,
            3 if at < c.len() => {
                // Duplicate a slice.
                let end = (at + 1 + k % 8).min(c.len());
                let piece: Vec<char> = c[at..end].to_vec();
                for (i, x) in piece.into_iter().enumerate() {
                    c.insert(end + i, x);
                }
            }
            4 => {
                // Truncate.
                c.truncate(at);
            }
            _ if at < c.len() => {
                // Swap two characters (often keeps a position's seed total).
                let other = k % c.len();
                c.swap(at, other);
            }
            _ => {}
        }
    }
    c.into_iter().collect()
}

fn ops() -> impl Strategy<Value = Vec<(u8, usize, usize)>> {
    proptest::collection::vec((any::<u8>(), any::<usize>(), any::<usize>()), 0..6)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn fuzz_position_string_random_bytes(data in proptest::collection::vec(any::<u8>(), 0..80)) {
        fuzz_bodies::position_string(&data);
    }

    #[test]
    fn fuzz_position_string_mutated(k in any::<usize>(), ops in ops()) {
        let bases = valid_positions();
        let text = mutate(&bases[k % bases.len()], &ops);
        fuzz_bodies::position_string(text.as_bytes());
    }

    #[test]
    fn fuzz_record_random_bytes(data in proptest::collection::vec(any::<u8>(), 0..120)) {
        fuzz_bodies::record(&data);
    }

    #[test]
    fn fuzz_legals_are_legal_random_bytes(data in proptest::collection::vec(any::<u8>(), 0..200)) {
        fuzz_bodies::legals_are_legal(&data);
    }
}

proptest! {
    // Records replay every move, so fewer cases.
    #![proptest_config(ProptestConfig { cases: 1000, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn fuzz_record_mutated(k in any::<usize>(), ops in ops()) {
        let bases = valid_records();
        let text = mutate(&bases[k % bases.len()], &ops);
        fuzz_bodies::record(text.as_bytes());
    }
}

/// The mutated inputs are not all rejected: the round-trip checks do run on parsed inputs.
#[test]
fn mutated_inputs_often_still_parse() {
    let mut rng = Rng::new(1);
    let (mut pos_ok, mut rec_ok) = (0, 0);
    let positions = valid_positions();
    let records = valid_records();
    for _ in 0..300 {
        let ops: Vec<(u8, usize, usize)> = (0..1)
            .map(|_| {
                (
                    rng.below(5) as u8,
                    rng.next_u64() as usize,
                    rng.below(64) as usize,
                )
            })
            .collect();
        let p = mutate(&positions[rng.below(positions.len() as u32) as usize], &ops);
        pos_ok += usize::from(p.parse::<Setup>().is_ok());
        let r = mutate(&records[rng.below(records.len() as u32) as usize], &ops);
        rec_ok += usize::from(Record::parse(&r).is_ok());
    }
    // A position string is fragile (its seeds must add up), so only a few per cent survive.
    assert!(pos_ok > 3, "only {pos_ok} of 300 mutated positions parsed");
    assert!(rec_ok > 10, "only {rec_ok} of 300 mutated records parsed");
}

/// Set-ups built from bytes are mostly valid, so `legals_are_legal` explores set-ups as well.
#[test]
fn setups_from_bytes_are_mostly_valid() {
    let mut rng = Rng::new(2);
    let mut ok = 0;
    for _ in 0..500 {
        let data: Vec<u8> = (0..20).map(|_| rng.next_u64() as u8).collect();
        ok += usize::from(fuzz_bodies::setup_from_bytes(&data).is_some());
    }
    assert!(ok > 400, "{ok} of 500");
}

/// The seed corpus shipped for cargo-fuzz passes the bodies (and stays valid as the code moves).
#[test]
fn fuzz_seed_corpus_passes() {
    // The corpus is the workspace's (fuzz/ is not part of this crate's package): checked in the
    // workspace, whose Cargo.toml lists crates/rules; skipped, saying so, in the package alone.
    let workspace = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let manifest = std::fs::read_to_string(workspace.join("Cargo.toml")).unwrap_or_default();
    if !manifest.contains("\"crates/rules\"") {
        eprintln!(
            "skipped: not in the pussa workspace (no ../../Cargo.toml listing crates/rules), so \
             there is no fuzz/corpus to check"
        );
        return;
    }
    let root = workspace.join("fuzz/corpus");
    let mut n = 0;
    for (target, body) in [
        ("position_string", fuzz_bodies::position_string as fn(&[u8])),
        ("record", fuzz_bodies::record),
        ("legals_are_legal", fuzz_bodies::legals_are_legal),
    ] {
        let dir = root.join(target);
        let entries = std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
        for e in entries {
            let path = e.unwrap().path();
            let data = std::fs::read(&path).unwrap();
            let text = String::from_utf8_lossy(&data);
            match target {
                "position_string" => assert!(text.parse::<Setup>().is_ok(), "{}", path.display()),
                "record" => assert!(Record::parse(&text).is_ok(), "{}", path.display()),
                _ => {}
            }
            body(&data);
            n += 1;
        }
    }
    assert!(n >= 6);
}
