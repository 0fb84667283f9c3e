//! Small helpers: secrets from the OS, game ids, timestamps.

use std::io::Read;
use std::time::{SystemTime, UNIX_EPOCH};

/// `n` random bytes from the operating system (`/dev/urandom`).
///
/// # Errors
/// When the OS source cannot be read.
pub fn random_bytes<const N: usize>() -> std::io::Result<[u8; N]> {
    let mut buf = [0u8; N];
    std::fs::File::open("/dev/urandom")?.read_exact(&mut buf)?;
    Ok(buf)
}

/// A fresh secret token: 128 random bits as 32 lowercase hex digits.
///
/// # Errors
/// When the OS random source cannot be read.
pub fn new_token() -> std::io::Result<String> {
    let b: [u8; 16] = random_bytes()?;
    Ok(b.iter().map(|x| format!("{x:02x}")).collect())
}

/// A fresh game id: 10 characters from an alphabet without look-alikes (50 random bits).
///
/// # Errors
/// When the OS random source cannot be read.
pub fn new_game_id() -> std::io::Result<String> {
    const ALPHABET: &[u8; 32] = b"23456789abcdefghjkmnpqrstuvwxyz_";
    let b: [u8; 10] = random_bytes()?;
    // 31 usable symbols (skip '_'): reduce each byte mod 31 (bias is irrelevant for ids).
    Ok(b.iter()
        .map(|x| ALPHABET[(*x % 31) as usize] as char)
        .collect())
}

/// Whether `s` looks like a game id (so junk never reaches the database).
#[must_use]
pub fn valid_game_id(s: &str) -> bool {
    (4..=32).contains(&s.len()) && s.bytes().all(|b| b.is_ascii_alphanumeric())
}

/// Compares two secrets without stopping at the first difference.
#[must_use]
pub fn secret_eq(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// Seconds since the Unix epoch.
#[must_use]
pub fn now_unix() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX))
}

/// `2026-11-29T20:41:03Z` for a Unix time.
#[must_use]
pub fn rfc3339(t: i64) -> String {
    let days = t.div_euclid(86_400);
    let secs = t.rem_euclid(86_400);
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = if m <= 2 { y + 1 } else { y };
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        secs / 3600,
        secs % 3600 / 60,
        secs % 60
    )
}

/// Characters of a client's input quoted in an error message, at most.
pub const QUOTE_MAX: usize = 100;

/// Characters of an error message, at most (a backstop behind [`cut_quoted`]).
pub const MESSAGE_MAX: usize = 1000;

/// `s` cut to `max` characters, with `…` when it was longer.
#[must_use]
pub fn cut(s: &str, max: usize) -> std::borrow::Cow<'_, str> {
    match s.char_indices().nth(max) {
        None => s.into(),
        Some((end, _)) => format!("{}…", &s[..end]).into(),
    }
}

/// An error message with every quoted stretch (between `'…'`, `` `…` `` or `"…"`) cut to
/// [`QUOTE_MAX`] characters and the whole to [`MESSAGE_MAX`], so that a client sending a
/// 250 KB move is not sent it back. A quote opens after a character that is not a letter or
/// digit (so the apostrophe of `seat's` opens nothing) and closes before one (so a quote
/// inside the input does not end it early); an unclosed quote runs to the end.
#[must_use]
pub fn cut_quoted(msg: &str) -> String {
    let chars: Vec<char> = msg.chars().collect();
    let is_quote = |c: char| matches!(c, '\'' | '`' | '"');
    let mut out = String::with_capacity(msg.len().min(MESSAGE_MAX * 4));
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        out.push(c);
        i += 1;
        let opens = is_quote(c) && (i < 2 || !chars[i - 2].is_alphanumeric());
        if !opens {
            continue;
        }
        let close = (i..chars.len())
            .find(|&j| chars[j] == c && chars.get(j + 1).is_none_or(|n| !n.is_alphanumeric()))
            .unwrap_or(chars.len());
        let inner: String = chars[i..close].iter().collect();
        out.push_str(&cut(&inner, QUOTE_MAX));
        if close < chars.len() {
            out.push(c);
        }
        i = close + 1;
    }
    cut(&out, MESSAGE_MAX).into_owned()
}

/// `text` as one word for a POSIX shell: as it is when it holds only characters no shell
/// treats specially (`data/pussa.sqlite3`), else in single quotes (`'club data/pussa.sqlite3'`,
/// a quote inside written `'\''`), so that a command printed for an admin can be pasted.
#[must_use]
pub fn shell_quote(text: &str) -> String {
    let plain = !text.is_empty()
        && text
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"_-./+:,@%=".contains(&b));
    if plain {
        return text.to_string();
    }
    format!("'{}'", text.replace('\'', r"'\''"))
}

/// `n` games, in words: "1 game", "2 games".
#[must_use]
pub fn games(n: usize) -> String {
    if n == 1 {
        "1 game".to_string()
    } else {
        format!("{n} games")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_quoted_input_is_cut() {
        let long = "x".repeat(250_000);
        let msg = format!("move: unknown move '{long}': expected A-G or a-g");
        assert_eq!(
            cut_quoted(&msg),
            format!(
                "move: unknown move '{}…': expected A-G or a-g",
                "x".repeat(100)
            )
        );
        // A quote inside the input does not end it; an apostrophe in a word opens nothing.
        let tricky = format!(
            "unknown field `{}'`{}`, the seat's token",
            "a".repeat(150),
            "b".repeat(10)
        );
        assert_eq!(
            cut_quoted(&tricky),
            format!("unknown field `{}…`, the seat's token", "a".repeat(100))
        );
        let short = "not your turn: S is to move; 'A' and `b` and \"c\" stay";
        assert_eq!(cut_quoted(short), short);
        // Many short quotes still end within the backstop.
        let many = "'a' ".repeat(100_000);
        assert_eq!(cut_quoted(&many).chars().count(), MESSAGE_MAX + 1);
        assert_eq!(cut("héllo", 2), "hé…");
        assert_eq!(cut("héllo", 5), "héllo");
    }

    #[test]
    fn rfc3339_known_dates() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(rfc3339(1_796_070_063), "2026-11-30T20:21:03Z");
    }

    #[test]
    fn tokens_are_random_and_hex() {
        let a = new_token().unwrap();
        let b = new_token().unwrap();
        assert_eq!(a.len(), 32);
        assert!(a.bytes().all(|c| c.is_ascii_hexdigit()));
        assert_ne!(a, b);
        assert!(secret_eq(&a, &a.clone()));
        assert!(!secret_eq(&a, &b));
        let id = new_game_id().unwrap();
        assert!(valid_game_id(&id), "{id}");
        assert!(!valid_game_id("../etc"));
    }

    #[test]
    fn shell_quote_leaves_plain_paths_and_quotes_the_rest() {
        assert_eq!(shell_quote("data/pussa.sqlite3"), "data/pussa.sqlite3");
        assert_eq!(
            shell_quote("club data/pussa.sqlite3"),
            "'club data/pussa.sqlite3'"
        );
        assert_eq!(shell_quote("it's"), r"'it'\''s'");
        assert_eq!(shell_quote(""), "''");
    }
}
