//! The combinatorial number system for boards: every way to put `k` seeds into the 14 holes
//! (a composition of `k` into 14 parts, "stars and bars") gets a rank in `0..layer_size(k)`, with
//! no gaps and no hashing.
//!
//! A board `c[0..14]` with `k` seeds corresponds to the 13 "bars" at positions
//! `p_j = c[0] + … + c[j] + j` (`j = 0..13`) among `k + 13` slots; its rank is
//! `Σ_j C(p_j, j + 1)`, the colexicographic rank of that 13-subset.

/// The largest seed count the index (and the value encoding) supports.
pub const MAX_SEEDS: usize = 60;

const ROWS: usize = MAX_SEEDS + 14;
const COLS: usize = 15;

/// Binomial coefficients `C(n, r)` for `n < 74`, `r < 15`.
static BINOM: [[u64; COLS]; ROWS] = {
    let mut t = [[0u64; COLS]; ROWS];
    let mut n = 0;
    while n < ROWS {
        t[n][0] = 1;
        let mut r = 1;
        while r < COLS {
            t[n][r] = if n == 0 {
                0
            } else {
                t[n - 1][r - 1] + t[n - 1][r]
            };
            r += 1;
        }
        n += 1;
    }
    t
};

/// `C(n, r)` for `n < MAX_SEEDS + 14`, `r ≤ 14`.
#[inline]
#[must_use]
pub fn binom(n: usize, r: usize) -> u64 {
    BINOM[n][r]
}

/// The number of boards with exactly `k` seeds: `C(k + 13, 13)`.
///
/// # Panics
/// Panics if `k > MAX_SEEDS`.
#[must_use]
pub fn layer_size(k: usize) -> u64 {
    assert!(k <= MAX_SEEDS, "at most {MAX_SEEDS} seeds");
    binom(k + 13, 13)
}

/// The rank of `board` among the boards with the same seed count.
///
/// # Panics
/// Panics (in debug builds) if the board holds more than [`MAX_SEEDS`] seeds.
#[inline]
#[must_use]
pub fn rank(board: &[u8; 14]) -> u64 {
    let mut sum = 0usize;
    let mut r = 0u64;
    for j in 0..13 {
        sum += board[j] as usize;
        r += BINOM[sum + j][j + 1];
    }
    r
}

/// The board with `k` seeds and rank `r`.
///
/// # Panics
/// Panics if `k > MAX_SEEDS` or `r >= layer_size(k)`.
#[must_use]
pub fn unrank(k: usize, mut r: u64) -> [u8; 14] {
    assert!(r < layer_size(k), "rank {r} out of range for {k} seeds");
    let mut bars = [0usize; 13];
    let mut p = k + 12;
    for j in (0..13).rev() {
        // The largest p with C(p, j + 1) <= r (p >= j, and p below the bar above).
        while BINOM[p][j + 1] > r {
            p -= 1;
        }
        r -= BINOM[p][j + 1];
        bars[j] = p;
        p = p.saturating_sub(1);
    }
    let mut board = [0u8; 14];
    let mut prev: isize = -1;
    for j in 0..13 {
        board[j] = (bars[j] as isize - prev - 1) as u8;
        prev = bars[j] as isize;
    }
    board[13] = (k as isize + 12 - prev) as u8;
    board
}

/// The number of boards with exactly `k` seeds in `holes` open holes: `C(k + holes - 1,
/// holes - 1)` (1 for no holes and no seeds).
///
/// # Panics
/// Panics if `k > MAX_SEEDS` or `holes` is 0 or above 14.
#[must_use]
pub fn layer_size_in(holes: usize, k: usize) -> u64 {
    assert!(k <= MAX_SEEDS, "at most {MAX_SEEDS} seeds");
    assert!((1..=14).contains(&holes), "1 to 14 open holes");
    binom(k + holes - 1, holes - 1)
}

/// The rank of `board` among the boards with the same seed count whose seeds lie in the open
/// holes of `open` (bit `i` = hole `i`): the board restricted to the open holes, in index
/// order, ranked as a composition into `open.count_ones()` parts. With every hole open it is
/// [`rank`]. Seeds in closed holes are ignored (there are none on a real board).
#[inline]
#[must_use]
pub fn rank_in(board: &[u8; 14], open: u16) -> u64 {
    let mut sum = 0usize;
    let mut r = 0u64;
    let mut m = open;
    let mut j = 0;
    // Every open hole but the last one closes a part.
    while m & (m - 1) != 0 {
        let h = m.trailing_zeros() as usize;
        m &= m - 1;
        sum += board[h] as usize;
        r += BINOM[sum + j][j + 1];
        j += 1;
    }
    r
}

/// The board with `k` seeds in the open holes of `open` (zeros elsewhere) and rank `r`
/// (the inverse of [`rank_in`]).
///
/// # Panics
/// Panics if `r >= layer_size_in(open.count_ones(), k)`.
#[must_use]
pub fn unrank_in(k: usize, mut r: u64, open: u16) -> [u8; 14] {
    let n = open.count_ones() as usize;
    assert!(
        r < layer_size_in(n, k),
        "rank {r} out of range for {k} seeds"
    );
    let bars_n = n - 1;
    let mut bars = [0usize; 13];
    let mut p = k + bars_n;
    for j in (0..bars_n).rev() {
        p = p.saturating_sub(1);
        while BINOM[p][j + 1] > r {
            p -= 1;
        }
        r -= BINOM[p][j + 1];
        bars[j] = p;
    }
    let mut parts = [0u8; 14];
    let mut prev: isize = -1;
    for j in 0..bars_n {
        parts[j] = (bars[j] as isize - prev - 1) as u8;
        prev = bars[j] as isize;
    }
    parts[bars_n] = (k as isize + bars_n as isize - 1 - prev) as u8;
    let mut board = [0u8; 14];
    let mut m = open;
    let mut j = 0;
    while m != 0 {
        let h = m.trailing_zeros() as usize;
        m &= m - 1;
        board[h] = parts[j];
        j += 1;
    }
    board
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layer_sizes_are_stars_and_bars() {
        assert_eq!(layer_size(0), 1);
        assert_eq!(layer_size(1), 14);
        assert_eq!(layer_size(2), 105);
        assert_eq!(layer_size(20), 573_166_440);
    }

    #[test]
    fn rank_and_unrank_are_inverse_without_gaps() {
        for k in 0..=5 {
            let n = layer_size(k);
            for r in 0..n {
                let b = unrank(k, r);
                assert_eq!(b.iter().map(|&x| x as usize).sum::<usize>(), k);
                assert_eq!(rank(&b), r, "k={k} board={b:?}");
            }
        }
    }

    #[test]
    fn large_boards_round_trip() {
        let k = 40;
        let n = layer_size(k);
        for r in [0, 1, n / 3, n / 2, n - 2, n - 1] {
            assert_eq!(rank(&unrank(k, r)), r);
        }
        let mut b = [0u8; 14];
        b[13] = 40;
        assert_eq!(rank(&b), 0);
        b[13] = 0;
        b[0] = 40;
        assert_eq!(rank(&b), n - 1);
    }

    #[test]
    fn ranks_over_open_holes_are_a_bijection() {
        for open in [
            0x3FFFu16,
            0x3FFE,
            0x3F80 | 0x70,
            0x3FFF & !(0b11 << 7),
            0x0101,
        ] {
            let n = open.count_ones() as usize;
            for k in 0..=5 {
                let size = layer_size_in(n, k);
                for r in 0..size {
                    let b = unrank_in(k, r, open);
                    assert_eq!(b.iter().map(|&x| x as usize).sum::<usize>(), k);
                    assert!(b
                        .iter()
                        .enumerate()
                        .all(|(i, &x)| x == 0 || open & (1 << i) != 0));
                    assert_eq!(rank_in(&b, open), r, "open={open:#x} k={k} board={b:?}");
                }
            }
        }
        // Every hole open: the same ranks as the open board's index.
        for r in (0..layer_size(9)).step_by(997) {
            assert_eq!(unrank_in(9, r, 0x3FFF), unrank(9, r));
            assert_eq!(rank_in(&unrank(9, r), 0x3FFF), r);
        }
    }
}
