//! The worked first moves of the rules contract.
use pussa_rules::{Game, Hole, Position};

/// Board as the contract draws it: North g..a, South A..G.
fn drawn(pos: &Position) -> (Vec<u8>, Vec<u8>) {
    let b = pos.board();
    let north: Vec<u8> = (7..14).rev().map(|i| b[i]).collect();
    let south: Vec<u8> = (0..7).map(|i| b[i]).collect();
    (north, south)
}

fn check(game: Game, mv: char, north: [u8; 7], south: [u8; 7], taken: [u8; 2]) {
    let mut p = Position::start(game);
    p.play(Hole::from_letter(mv).unwrap()).unwrap();
    let (n, s) = drawn(&p);
    assert_eq!(n, north, "{game} {mv}: North's row");
    assert_eq!(s, south, "{game} {mv}: South's row");
    assert_eq!(p.stores(), taken, "{game} {mv}: taken");
}

#[test]
fn walak_pussa_a() {
    check(
        Game::WalakPussa,
        'A',
        [0, 6, 6, 1, 6, 0, 0],
        [2, 1, 7, 7, 7, 0, 7],
        [6, 0],
    );
}
#[test]
fn walak_pussa_d() {
    check(
        Game::WalakPussa,
        'D',
        [1, 6, 0, 0, 7, 0, 7],
        [6, 6, 0, 2, 1, 7, 7],
        [6, 0],
    );
}
#[test]
fn raja_pasu_a() {
    check(
        Game::RajaPasu,
        'A',
        [2, 14, 1, 14, 14, 2, 14],
        [3, 1, 0, 0, 0, 14, 0],
        [15, 4],
    );
}
#[test]
fn raja_pasu_g() {
    check(
        Game::RajaPasu,
        'G',
        [14, 0, 14, 0, 0, 0, 1],
        [2, 14, 14, 1, 14, 2, 3],
        [11, 8],
    );
}
#[test]
fn pasu_pondi_a() {
    check(
        Game::PasuPondi,
        'A',
        [8, 8, 8, 0, 0, 1, 7],
        [2, 7, 1, 0, 7, 7, 7],
        [7, 0],
    );
}
#[test]
fn pasu_pondi_g() {
    check(
        Game::PasuPondi,
        'G',
        [7, 7, 7, 7, 0, 1, 7],
        [1, 0, 0, 8, 8, 8, 2],
        [7, 0],
    );
}
