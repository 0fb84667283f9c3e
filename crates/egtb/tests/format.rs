//! The file format: written tables read back through memory maps give the same values; damaged,
//! truncated or mismatched files are refused with an error naming the problem; a golden file of
//! probed values guards the format and the values.

mod support;

use std::path::PathBuf;

use pussa_egtb::format::{table_path, write_table};
use pussa_egtb::{build_dir, index, BuildOptions, Entry, Tables};
use pussa_rules::{Game, Setup};

use support::{build, temp_dir};

fn open_err(dir: &std::path::Path, game: Game, max: usize) -> String {
    match Tables::open(dir, game, Some(max)) {
        Ok(_) => panic!("a bad table was accepted"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn files_read_back_equal_to_the_built_tables() {
    let dir = temp_dir("roundtrip");
    let built = build(&dir, Game::RajaPasu, 6);
    let opened = Tables::open(&dir, Game::RajaPasu, None).expect("open");
    assert_eq!(opened.max_seeds(), 6);
    for k in 0..=6 {
        assert_eq!(built.layer(k), opened.layer(k), "layer {k}");
    }
    // A second build keeps the valid files and yields the same tables.
    let mut kept = 0;
    build_dir(
        &dir,
        Game::RajaPasu,
        6,
        BuildOptions::default(),
        false,
        &|_| {},
        &mut |e| {
            kept += usize::from(matches!(e, pussa_egtb::LayerEvent::Kept { .. }));
        },
    )
    .expect("rebuild");
    assert_eq!(kept, 7);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn damaged_truncated_and_mismatched_files_are_refused() {
    let dir = temp_dir("damage");
    build(&dir, Game::WalakPussa, 4);
    let path = table_path(&dir, Game::WalakPussa, 4);
    let good = std::fs::read(&path).expect("read");

    // One payload byte changed.
    let mut bad = good.clone();
    let last = bad.len() - 1;
    bad[last] ^= 1;
    std::fs::write(&path, &bad).expect("write");
    assert!(open_err(&dir, Game::WalakPussa, 4).contains("payload checksum mismatch"));

    // Truncated payload, and a file shorter than the header.
    std::fs::write(&path, &good[..good.len() - 10]).expect("write");
    assert!(open_err(&dir, Game::WalakPussa, 4).contains("truncated"));
    std::fs::write(&path, &good[..20]).expect("write");
    assert!(open_err(&dir, Game::WalakPussa, 4).contains("truncated"));

    // A header field changed (the seed count) without fixing the header checksum.
    let mut bad = good.clone();
    bad[16] = 5;
    std::fs::write(&path, &bad).expect("write");
    assert!(open_err(&dir, Game::WalakPussa, 4).contains("header checksum"));

    // Not a table at all.
    std::fs::write(&path, vec![b'x'; 200]).expect("write");
    assert!(open_err(&dir, Game::WalakPussa, 4).contains("bad magic"));

    // Another seed count's file under this name, and another game's file.
    std::fs::write(
        &path,
        std::fs::read(table_path(&dir, Game::WalakPussa, 3)).unwrap(),
    )
    .unwrap();
    assert!(open_err(&dir, Game::WalakPussa, 4).contains("table of 3 seeds, expected 4"));
    std::fs::write(&path, &good).expect("write");
    let other = temp_dir("damage-other");
    build(&other, Game::PasuPondi, 4);
    std::fs::create_dir_all(dir.join("pasu-pondi")).unwrap();
    std::fs::copy(&path, table_path(&dir, Game::PasuPondi, 4)).unwrap();
    for k in 0..4 {
        std::fs::copy(
            table_path(&other, Game::PasuPondi, k),
            table_path(&dir, Game::PasuPondi, k),
        )
        .unwrap();
    }
    assert!(
        open_err(&dir, Game::PasuPondi, 4).contains("table of walak-pussa, expected pasu-pondi")
    );

    // A missing layer.
    std::fs::remove_file(table_path(&dir, Game::WalakPussa, 2)).unwrap();
    assert!(!open_err(&dir, Game::WalakPussa, 4).is_empty());

    // A table written with an invalid byte (and a matching checksum) is refused too. (Margins
    // ±1 with and without the history flag are possible with 1 seed.)
    let mut data = vec![0x40; index::layer_size(1) as usize];
    data[1] = 0x3E;
    data[2] = 0xC0;
    data[3] = 0x7F;
    write_table(&dir, Game::WalakPussa, 1, &data, 0, 0).unwrap();
    assert!(Tables::open_layer(&dir, Game::WalakPussa, 1)
        .unwrap_err()
        .to_string()
        .contains("invalid value byte"));
    std::fs::remove_dir_all(&dir).ok();
    std::fs::remove_dir_all(&other).ok();
}

const GOLDEN_SEEDS: usize = 7;

/// Position strings of a few boards of every layer, both sides to move, with their values.
fn golden_lines(game: Game, tables: &Tables) -> Vec<String> {
    let total = game.total_seeds();
    let mut lines = Vec::new();
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    for k in 1..=GOLDEN_SEEDS {
        let n = index::layer_size(k);
        for j in 0..(2 * k + 1) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let mut r = x % n;
            if j == 2 * k {
                // One position with the history flag, if the layer has any.
                let flagged = |r: &u64| {
                    matches!(
                        tables.entry_of_board(&index::unrank(k, *r)),
                        Some(Entry::Value { history: true, .. })
                    )
                };
                r = (r..n).chain(0..r).find(flagged).unwrap_or(r);
            }
            let b = index::unrank(k, r);
            let to_move = if j % 2 == 0 { "S" } else { "N" };
            let rows: Vec<String> = [&b[..7], &b[7..]]
                .iter()
                .map(|r| {
                    r.iter()
                        .map(ToString::to_string)
                        .collect::<Vec<_>>()
                        .join(",")
                })
                .collect();
            let text = format!(
                "{}/{} {} 0 {to_move} 1 {}",
                rows[0],
                rows[1],
                total - k as u8,
                game.name()
            );
            let setup: Setup = text.parse().expect("a valid position string");
            let pos = setup.position().expect("valid");
            let value = match tables.entry(&pos).expect("covered") {
                Entry::Value { margin, history } => {
                    format!("{margin} {}", if history { "history" } else { "any" })
                }
                Entry::Unknown => "unknown".to_string(),
            };
            lines.push(format!("{text}\t{value}"));
        }
    }
    lines
}

#[test]
fn golden_values_are_probed_from_files() {
    let golden = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/golden");
    for game in Game::ALL {
        let dir = temp_dir(&format!("golden-{}", game.name()));
        build(&dir, game, GOLDEN_SEEDS);
        let tables = Tables::open(&dir, game, None).expect("open");
        let lines = golden_lines(game, &tables);
        let file = golden.join(format!("{}.txt", game.name()));
        if std::env::var_os("PUSSA_BLESS").is_some() {
            std::fs::write(&file, lines.join("\n") + "\n").expect("write golden file");
        }
        let want = std::fs::read_to_string(&file).expect("golden file (PUSSA_BLESS=1 writes it)");
        let want: Vec<&str> = want.lines().collect();
        assert_eq!(want.len(), lines.len(), "{game}: golden file length");
        for (w, g) in want.iter().zip(&lines) {
            assert_eq!(w, g, "{game}");
        }
        std::fs::remove_dir_all(&dir).ok();
    }
}

/// A build replaces a table file by renaming a new file into place, never by writing over the
/// old one: a process that has the old files mapped keeps reading them, whole and unchanged
/// (writing over a mapped file in place, as `cp` or `rsync --inplace` do, truncates it under the
/// mapping, and the reader dies of SIGBUS at its next read of a lost page).
#[cfg(unix)]
#[test]
fn a_rebuild_replaces_the_files_by_rename_under_a_reader() {
    use std::os::unix::fs::MetadataExt as _;
    let dir = temp_dir("rename-under-reader");
    let game = Game::RajaPasu;
    build(&dir, game, 4);
    let reader = Tables::open(&dir, game, None).expect("open");
    let before: Vec<Vec<u8>> = (0..=4).map(|k| reader.layer(k).to_vec()).collect();
    let inode = |k| std::fs::metadata(table_path(&dir, game, k)).unwrap().ino();
    let old: Vec<u64> = (0..=4).map(inode).collect();
    build_dir(
        &dir,
        game,
        4,
        BuildOptions::default(),
        true,
        &|_| {},
        &mut |_| {},
    )
    .expect("rebuild");
    for k in 0..=4 {
        assert_ne!(inode(k), old[k], "{k} seeds: the file was written in place");
        assert_eq!(
            reader.layer(k),
            &before[k][..],
            "{k} seeds: the mapped table changed"
        );
    }
    let left: Vec<_> = std::fs::read_dir(dir.join(game.name()))
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".tmp"))
        .collect();
    assert!(left.is_empty(), "temporary files left: {left:?}");
    std::fs::remove_dir_all(&dir).ok();
}
