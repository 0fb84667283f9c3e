//! Whole-number options with messages that name the problem: clap's own parsers quote Rust's
//! `ParseIntError` ("number too large to fit in target type", "invalid digit found in string")
//! for what they cannot read.

/// A clap value parser for a whole number from `lo` to `hi`. A run of digits out of range, of
/// any length, is "N is not in LO..=HI" (as clap says of the numbers it can read), or, above
/// `hi` when `hi` is the type's largest value, "N is too large (at most HI)"; anything else is
/// "'x' is not a whole number". A negative number is named as out of range ("-1 is not in
/// 0..=64"): every option that uses this parser lets clap pass it a leading minus sign
/// (`allow_negative_numbers`), rather than take `-1` for an unknown flag.
///
/// # Panics
/// If `lo` or `hi` does not fit `T`.
pub fn ranged<T>(lo: u64, hi: u64) -> impl Fn(&str) -> Result<T, String> + Clone + Send + Sync
where
    T: TryFrom<u64> + Bounded,
{
    assert!(T::try_from(lo).is_ok() && T::try_from(hi).is_ok());
    move |text: &str| {
        if let Some(digits) = text.strip_prefix('-') {
            if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
                if digits.bytes().any(|b| b != b'0') {
                    let shown = digits.trim_start_matches('0');
                    return Err(format!("-{shown} is not in {lo}..={hi}"));
                }
                // -0 is 0.
                return ranged::<T>(lo, hi)("0");
            }
        }
        let digits = text.trim_start_matches('+');
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return Err(format!("'{}' is not a whole number", text.escape_debug()));
        }
        let shown = match digits.trim_start_matches('0') {
            "" => "0",
            d => d,
        };
        let too_large = || {
            if hi == T::MAX {
                format!("{shown} is too large (at most {hi})")
            } else {
                format!("{shown} is not in {lo}..={hi}")
            }
        };
        let n: u64 = shown.parse().map_err(|_| too_large())?;
        if n < lo {
            return Err(format!("{shown} is not in {lo}..={hi}"));
        }
        if n > hi {
            return Err(too_large());
        }
        T::try_from(n).map_err(|_| too_large())
    }
}

/// The largest value of an unsigned type, as a `u64`.
pub trait Bounded {
    /// The type's largest value.
    const MAX: u64;
}

impl Bounded for u8 {
    const MAX: u64 = u8::MAX as u64;
}
impl Bounded for u32 {
    const MAX: u64 = u32::MAX as u64;
}
impl Bounded for u64 {
    const MAX: u64 = u64::MAX;
}
impl Bounded for usize {
    const MAX: u64 = usize::MAX as u64;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn out_of_range_and_malformed_numbers_are_named() {
        let depth = ranged::<u32>(0, 64);
        assert_eq!(depth("12"), Ok(12));
        assert_eq!(depth("0"), Ok(0));
        assert_eq!(depth("99"), Err("99 is not in 0..=64".to_string()));
        assert_eq!(
            depth("18446744073709551616"),
            Err("18446744073709551616 is not in 0..=64".to_string())
        );
        assert_eq!(depth("x1"), Err("'x1' is not a whole number".to_string()));
        assert_eq!(depth(""), Err("'' is not a whole number".to_string()));
        assert_eq!(depth("-1"), Err("-1 is not in 0..=64".to_string()));
        assert_eq!(depth("-007"), Err("-7 is not in 0..=64".to_string()));
        assert_eq!(depth("-0"), Ok(0));
        assert_eq!(depth("-"), Err("'-' is not a whole number".to_string()));
        assert_eq!(depth("-x"), Err("'-x' is not a whole number".to_string()));
        assert_eq!(
            ranged::<u64>(0, u64::MAX)("-99999999999999999999"),
            Err("-99999999999999999999 is not in 0..=18446744073709551615".to_string())
        );
        let n = ranged::<u32>(1, u32::MAX.into());
        assert_eq!(
            n("99999999999999999999"),
            Err("99999999999999999999 is too large (at most 4294967295)".to_string())
        );
        assert_eq!(n("0"), Err("0 is not in 1..=4294967295".to_string()));
    }
}
