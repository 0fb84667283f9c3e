//! Golden perft counts (`tests/perft/<game>.perft`), cross-checked by the naive model.
mod common;
mod naive;

use std::path::PathBuf;

use pussa_rules::{perft, Game, Setup};

struct Entry {
    file: String,
    id: String,
    setup: Setup,
    counts: Vec<(u32, u64)>,
}

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/perft")
}

/// Reads one `.perft` file: `id`, `position`, `perft <depth> <count>` lines; `#` comments.
fn read(file: &str) -> Vec<Entry> {
    let text = std::fs::read_to_string(dir().join(file)).unwrap_or_else(|e| panic!("{file}: {e}"));
    let mut out: Vec<Entry> = Vec::new();
    let mut id: Option<String> = None;
    for (n, line) in text.lines().enumerate() {
        let at = format!("{file}:{}", n + 1);
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (key, rest) = line
            .split_once(' ')
            .unwrap_or_else(|| panic!("{at}: no value"));
        match key {
            "id" => id = Some(rest.trim().to_string()),
            "position" => {
                let setup: Setup = rest.parse().unwrap_or_else(|e| panic!("{at}: {e}"));
                let id = id
                    .take()
                    .unwrap_or_else(|| panic!("{at}: position without an id"));
                out.push(Entry {
                    file: file.to_string(),
                    id,
                    setup,
                    counts: Vec::new(),
                });
            }
            "perft" => {
                let mut it = rest.split_whitespace().map(|w| w.parse::<u64>().unwrap());
                let (d, c) = (it.next().unwrap(), it.next().unwrap());
                let e = out
                    .last_mut()
                    .unwrap_or_else(|| panic!("{at}: perft before position"));
                e.counts.push((d as u32, c));
            }
            other => panic!("{at}: unknown key {other}"),
        }
    }
    out
}

fn all() -> Vec<Entry> {
    let mut v = Vec::new();
    for game in Game::ALL {
        let entries = read(&format!("{}.perft", game.name()));
        assert!(!entries.is_empty(), "{game}: no entries");
        for e in &entries {
            assert_eq!(
                e.setup.game, game,
                "{}/{}: position for another game",
                e.file, e.id
            );
            assert!(!e.counts.is_empty(), "{}/{}: no counts", e.file, e.id);
        }
        assert!(
            entries.iter().any(|e| e.id == "start"
                && e.setup.position_ignoring_reachability().unwrap()
                    == pussa_rules::Position::start(game)),
            "{game}: no start position"
        );
        v.extend(entries);
    }
    v
}

#[test]
fn golden_perft_counts_match_the_library() {
    let mut checked = 0;
    for e in all() {
        let pos = e.setup.position_ignoring_reachability().unwrap();
        for &(d, c) in &e.counts {
            assert_eq!(perft(&pos, d), c, "{}/{} depth {d}", e.file, e.id);
            checked += 1;
        }
    }
    assert!(checked > 50);
}

/// The naive model is slow, so the test profile re-checks only the small counts; the
/// `--ignored` test below re-checks every line (run it in release).
#[test]
fn golden_perft_small_counts_match_the_naive_model() {
    for e in all() {
        let n = common::to_naive(&e.setup.position_ignoring_reachability().unwrap());
        for &(d, c) in e.counts.iter().filter(|x| x.1 <= 3000) {
            assert_eq!(
                naive::perft(&n, d, &mut Vec::new()),
                c,
                "{}/{} depth {d}",
                e.file,
                e.id
            );
        }
    }
}

#[test]
#[ignore = "slow in the test profile: run with --release -- --ignored"]
fn golden_perft_counts_match_the_naive_model() {
    for e in all() {
        let n = common::to_naive(&e.setup.position_ignoring_reachability().unwrap());
        for &(d, c) in &e.counts {
            assert_eq!(
                naive::perft(&n, d, &mut Vec::new()),
                c,
                "{}/{} depth {d}",
                e.file,
                e.id
            );
        }
    }
}

#[test]
fn perft_depth_zero_is_one_and_depth_one_counts_legal_moves() {
    for e in all() {
        let pos = e.setup.position_ignoring_reachability().unwrap();
        assert_eq!(perft(&pos, 0), 1);
        let g = e
            .setup
            .game_state_ignoring_reachability(pussa_rules::Mode::Single)
            .unwrap();
        assert_eq!(
            perft(&pos, 1),
            g.legal_moves().len() as u64,
            "{}/{}",
            e.file,
            e.id
        );
    }
}

/// `earlier_history` drops only a last key that is the position itself: a state's own history
/// and the earlier positions alone give the same slice, and a real earlier visit (the key
/// anywhere but last) stays, so the position is a repetition exactly when its key is left in.
#[test]
fn earlier_history_drops_only_the_position_itself_last() {
    use pussa_rules::{earlier_history, GameState, Hole, Mode, Side};
    let mut g = GameState::new(Game::WalakPussa, Mode::Single, Side::South);
    g.play(Hole::from_letter('A').unwrap()).unwrap();
    let pos = *g.position();
    let key = pos.repetition_key();
    let with_pos = g.history();
    assert_eq!(with_pos.last(), Some(&key));
    let earlier = &with_pos[..with_pos.len() - 1];
    assert_eq!(earlier_history(with_pos, &pos), earlier);
    assert_eq!(earlier_history(earlier, &pos), earlier);
    assert_eq!(earlier_history(&[], &pos), &[] as &[u128]);
    // A real earlier visit stays, with or without the position itself last.
    assert_eq!(earlier_history(&[key, 1], &pos), &[key, 1]);
    assert_eq!(earlier_history(&[key, 1, key], &pos), &[key, 1]);
    assert_eq!(earlier_history(&[key, key], &pos), &[key]);
    // perft_with_history follows it, and restores the history.
    let mut h = vec![key, 1, key];
    assert_eq!(pussa_rules::perft_with_history(&pos, 2, &mut h), 0);
    assert_eq!(h, [key, 1, key]);
}
