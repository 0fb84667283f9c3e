//! Numbers in README.md and docs/*.md that follow from others: the table files' total sizes in
//! docs/egtb.md (from the index's layer sizes and the format's header), and the README's example
//! progress line (its score and Elo from its wins, draws and losses).

use std::path::{Path, PathBuf};

use pussa_egtb::format::HEADER_LEN;
use pussa_egtb::index::layer_size;
use pussa_engine::tournament::{elo_from_score, Wdl};

/// The repository's root, when this crate is built in its workspace (whose `Cargo.toml` lists
/// `crates/cli`); `None` in the crate's own package, which has no docs tree.
fn root() -> Option<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let manifest = std::fs::read_to_string(root.join("Cargo.toml")).unwrap_or_default();
    manifest.contains("\"crates/cli\"").then_some(root)
}

/// `n` with a comma every three digits, as the docs write it.
fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// docs/egtb.md's totals of the tables 0..20 and 0..22: one byte a position and a 64-byte
/// header in each file (one a layer). It gave the position count as the bytes of 0..20, and for
/// 0..22 a number that was neither.
#[test]
fn the_egtb_doc_gives_the_tables_total_bytes() {
    let Some(root) = root() else {
        eprintln!("skipped: not in the pussa workspace, so there is no docs/ tree to check");
        return;
    };
    let doc = std::fs::read_to_string(root.join("docs/egtb.md")).unwrap();
    // The doc's text wraps lines: compare with single spaces.
    let doc = doc.split_whitespace().collect::<Vec<_>>().join(" ");
    for top in [20usize, 22] {
        let positions: u64 = (0..=top).map(layer_size).sum();
        let files = top as u64 + 1;
        let bytes = positions + files * HEADER_LEN as u64;
        let gib = bytes as f64 / f64::from(1u32 << 30);
        let text = format!(
            "0..{top} is {} bytes ({} positions and {files} headers, {gib:.1} GiB)",
            grouped(bytes),
            grouped(positions)
        );
        assert!(doc.contains(&text), "docs/egtb.md should say: {text}");
    }
}

/// The README's example progress line: its score and Elo follow from its `+W =D -L` (it said
/// `+70 =4 -46  score 0.588  elo +61.9`, where 70 wins and 4 draws of 120 score 0.600).
#[test]
fn the_readme_progress_example_adds_up() {
    let Some(root) = root() else {
        eprintln!("skipped: not in the pussa workspace, so there is no README.md to check");
        return;
    };
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let line = readme
        .split('`')
        .find(|s| s.contains(" games finished  +"))
        .expect("README's example progress line");
    let words: Vec<&str> = line.split_whitespace().collect();
    let num = |prefix: &str| -> u32 {
        words
            .iter()
            .find_map(|w| w.strip_prefix(prefix))
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("{prefix} in {line}"))
    };
    let w = Wdl {
        wins: num("+"),
        draws: num("="),
        losses: num("-"),
    };
    let finished = words
        .iter()
        .find_map(|w| w.split_once('/'))
        .map(|(done, _)| done.parse::<u32>().unwrap())
        .unwrap();
    assert_eq!(finished, w.games(), "{line}");
    let want = format!(
        "score {:.3}  elo {:+.1}",
        w.score(),
        elo_from_score(w.score())
    );
    assert!(line.contains(&want), "{line}: should say {want}");
}
