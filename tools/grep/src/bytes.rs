//! Byte work the scan does per line or per file: counting newlines, telling ASCII (16 bytes
//! at a time on wasm32 with `simd128`), a line as text, a number in decimal, the longest
//! line's bound.

/// The number of `\n` bytes in `bytes` (16 at a time on wasm32 with `simd128`).
pub(crate) fn count_newlines(bytes: &[u8]) -> u64 {
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    {
        use core::arch::wasm32::*;
        let newline = u8x16_splat(b'\n');
        let ptr = bytes.as_ptr();
        let blocks = bytes.len() / 64;
        let mut total = 0u64;
        let mut done = 0;
        while done < blocks {
            // An equal byte is -1: the four compares of a 64-byte block sum to -4..=0 per
            // byte lane, -8..=0 per pair; subtracting the pairs adds at most 8 to a u16
            // lane per block, so 255 blocks cannot overflow it.
            let run = (blocks - done).min(255);
            let mut tally = u8x16_splat(0);
            for b in done..done + run {
                // SAFETY: block `b` lies within `bytes` (b < len / 64); wasm loads need no
                // alignment.
                unsafe {
                    let at = ptr.add(b * 64);
                    let e0 = u8x16_eq(v128_load(at as *const v128), newline);
                    let e1 = u8x16_eq(v128_load(at.add(16) as *const v128), newline);
                    let e2 = u8x16_eq(v128_load(at.add(32) as *const v128), newline);
                    let e3 = u8x16_eq(v128_load(at.add(48) as *const v128), newline);
                    let pair = i8x16_add(i8x16_add(e0, e1), i8x16_add(e2, e3));
                    tally = i16x8_sub(tally, i16x8_extadd_pairwise_i8x16(pair));
                }
            }
            done += run;
            let sums = u32x4_extadd_pairwise_u16x8(tally);
            total += (u32x4_extract_lane::<0>(sums)
                + u32x4_extract_lane::<1>(sums)
                + u32x4_extract_lane::<2>(sums)
                + u32x4_extract_lane::<3>(sums)) as u64;
        }
        // The rest: 16 bytes at a time, then the last 16 bytes of `bytes` again, of which
        // only the lanes not counted yet.
        let newlines_in = |at: usize| {
            // SAFETY: callers pass `at + 16 <= bytes.len()`.
            u8x16_bitmask(u8x16_eq(unsafe { v128_load(ptr.add(at) as *const v128) }, newline))
                as u32
        };
        let mut at = blocks * 64;
        while at + 16 <= bytes.len() {
            total += newlines_in(at).count_ones() as u64;
            at += 16;
        }
        let tail = bytes.len() - at;
        if tail > 0 && bytes.len() >= 16 {
            total += (newlines_in(bytes.len() - 16) >> (16 - tail)).count_ones() as u64;
        } else {
            total += bytes[at..].iter().filter(|&&b| b == b'\n').count() as u64;
        }
        total
    }
    #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
    {
        memchr::memchr_iter(b'\n', bytes).count() as u64
    }
}

/// `line` without its `\n` or `\r\n`.
pub(crate) fn strip_terminator(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    line.strip_suffix(b"\r").unwrap_or(line)
}

/// `n` in decimal, without the formatting machinery (it runs once per matching line). In
/// 32-bit steps where it fits: wasm32 has no 64-bit multiply-high, so a 64-bit division by
/// 10 stays a real division.
pub(crate) fn push_u64(out: &mut String, n: u64) {
    let mut digits = [0u8; 20];
    let mut i = digits.len();
    let mut small = match u32::try_from(n) {
        Ok(small) => small,
        Err(_) => {
            let mut n = n;
            while n > u64::from(u32::MAX) {
                i -= 1;
                digits[i] = b'0' + (n % 10) as u8;
                n /= 10;
            }
            n as u32
        }
    };
    loop {
        i -= 1;
        digits[i] = b'0' + (small % 10) as u8;
        small /= 10;
        if small == 0 {
            break;
        }
    }
    // Only ASCII digits were written.
    out.push_str(std::str::from_utf8(&digits[i..]).unwrap_or_default());
}

/// A line as text: borrowed when it is UTF-8 (the usual case: ASCII, checked 16 bytes at a
/// time, else by the validator), else with U+FFFD for the invalid bytes.
pub(crate) fn text_of(bytes: &[u8]) -> std::borrow::Cow<'_, str> {
    if is_ascii(bytes) {
        // SAFETY: ASCII is UTF-8.
        return std::borrow::Cow::Borrowed(unsafe { std::str::from_utf8_unchecked(bytes) });
    }
    match std::str::from_utf8(bytes) {
        Ok(text) => std::borrow::Cow::Borrowed(text),
        Err(_) => String::from_utf8_lossy(bytes),
    }
}

/// Whether every byte of `bytes` is ASCII (on wasm32 with `simd128`, 16 bytes per step).
pub(crate) fn is_ascii(bytes: &[u8]) -> bool {
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    {
        use core::arch::wasm32::*;
        let mut chunks = bytes.chunks_exact(16);
        let mut any = u8x16_splat(0);
        for chunk in chunks.by_ref() {
            // SAFETY: `chunk` is 16 bytes; wasm loads need no alignment.
            any = v128_or(any, unsafe { v128_load(chunk.as_ptr() as *const v128) });
        }
        u8x16_bitmask(any) == 0 && chunks.remainder().is_ascii()
    }
    #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
    {
        bytes.is_ascii()
    }
}

/// True when some line of `bytes` is longer than `limit` bytes.
pub(crate) fn has_line_longer_than(bytes: &[u8], limit: u64) -> bool {
    let mut start = 0usize;
    for end in memchr::memchr_iter(b'\n', bytes).chain(std::iter::once(bytes.len())) {
        if (end - start) as u64 > limit {
            return true;
        }
        start = end + 1;
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_and_text_are_written_as_before() {
        for n in [
            0u64,
            7,
            10,
            99,
            100,
            123_456_789,
            4_294_967_295,
            4_294_967_296,
            10_000_000_000,
            u64::MAX,
        ] {
            let mut s = String::from("x");
            push_u64(&mut s, n);
            assert_eq!(s, format!("x{n}"));
        }
        assert_eq!(text_of(b"caf\xc3\xa9"), "café");
        assert_eq!(text_of(b"a\xffb"), "a\u{fffd}b");
        assert!(
            is_ascii(b"plain text, longer than sixteen bytes") && !is_ascii("a café".as_bytes())
        );
    }

    #[test]
    fn long_line_detection() {
        assert!(!has_line_longer_than(b"abc\ndef", 3));
        assert!(has_line_longer_than(b"abc\ndefg", 3));
        assert!(has_line_longer_than(b"abcd\n", 3));
        assert!(!has_line_longer_than(b"", 0));
    }
}
