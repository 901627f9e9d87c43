//! Keeping a preview within `max_bytes`: the head and the tail, with a marker line between
//! them saying how much was left out.
//!
//! [`head_tail`] cuts text at character boundaries (at a line break when one is near).
//! [`html_head_tail`] cuts sanitized HTML away from any tag or character reference it can
//! see, then sanitizes the joined result again: whatever the cut, the preview is well-formed
//! markup with nothing executable, and it is cut shorter until that fits.

use crate::sanitize;

/// The marker line of a text preview.
pub fn text_marker(omitted: usize) -> String {
    format!("\n[… {omitted} bytes omitted …]\n")
}

/// The marker of an HTML preview: a paragraph of its own.
pub fn html_marker(omitted: usize) -> String {
    format!("\n<p>[… {omitted} bytes of HTML omitted …]</p>\n")
}

/// Where a head of at most `len` bytes of `s` ends: a character boundary, moved back to
/// just after a line break when one is in the last quarter.
fn head_end(s: &str, len: usize) -> usize {
    let end = s.floor_char_boundary(len);
    match s[..end].rfind('\n') {
        Some(nl) if nl + 1 >= end - end / 4 => nl + 1,
        _ => end,
    }
}

/// Where a tail of at most `len` bytes of `s` starts: a character boundary, moved on to a
/// line's start when one is in the first quarter.
fn tail_start(s: &str, len: usize) -> usize {
    let start = s.ceil_char_boundary(s.len() - len.min(s.len()));
    let quarter = (s.len() - start) / 4;
    match s[start..].find('\n') {
        Some(nl) if nl < quarter => start + nl + 1,
        _ => start,
    }
}

/// `s` cut to at most `max` bytes (head, marker line, tail), or none when it fits. When
/// `max` is too small for a marker, the head alone.
pub fn head_tail(s: &str, max: usize) -> Option<String> {
    if s.len() <= max {
        return None;
    }
    let marker_len = text_marker(s.len()).len();
    if max < marker_len + 8 {
        return Some(s[..s.floor_char_boundary(max)].to_owned());
    }
    let room = max - marker_len;
    let head = head_end(s, room / 2);
    let tail = tail_start(s, room - head);
    Some(format!("{}{}{}", &s[..head], text_marker(tail - head), &s[tail..]))
}

/// A head of `html` that does not end inside a tag or a character reference it can see.
fn html_head(html: &str, len: usize) -> &str {
    let mut head = &html[..head_end(html, len)];
    if let Some(lt) = head.rfind('<')
        && !head[lt..].contains('>')
    {
        head = &head[..lt];
    }
    if let Some(amp) = head.rfind('&')
        && !head[amp..].contains(';')
    {
        head = &head[..amp];
    }
    head
}

/// A tail of `html` that does not start inside a tag.
fn html_tail(html: &str, len: usize) -> &str {
    let tail = &html[tail_start(html, len)..];
    match (tail.find('>'), tail.find('<')) {
        (Some(gt), Some(lt)) if gt < lt => &tail[gt + 1..],
        (Some(gt), None) => &tail[gt + 1..],
        _ => tail,
    }
}

/// Sanitized `html` cut to at most `max` bytes (head, marker paragraph, tail, sanitized
/// again), or none when it fits. Empty when `max` cannot hold even the marker.
pub fn html_head_tail(html: &str, max: usize) -> Option<String> {
    if html.len() <= max {
        return None;
    }
    let mut room = max.saturating_sub(html_marker(html.len()).len());
    while room >= 16 {
        let head = html_head(html, room / 2);
        let tail = html_tail(html, room - head.len());
        let omitted = html.len() - head.len() - tail.len();
        let joined = format!("{head}{}{tail}", html_marker(omitted));
        let cleaned = sanitize::clean(&joined);
        if cleaned.len() <= max {
            return Some(cleaned);
        }
        // Closing tags the sanitizer added (or escapes it wrote) took the difference.
        room = room.saturating_sub(cleaned.len() - max + 64);
    }
    Some(String::new())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_that_fits_is_kept() {
        assert_eq!(head_tail("abc", 3), None);
    }

    #[test]
    fn text_keeps_head_and_tail_at_char_boundaries() {
        let s = "é".repeat(1000); // 2000 bytes, no line breaks
        for max in [60, 61, 99, 100, 101, 1999] {
            let cut = head_tail(&s, max).unwrap();
            assert!(cut.len() <= max, "{max}: {}", cut.len());
            assert!(cut.starts_with("éé") && cut.ends_with("éé"), "{max}: {cut}");
            let omitted: usize =
                cut.split("[… ").nth(1).unwrap().split(' ').next().unwrap().parse().unwrap();
            let kept = cut.len() - text_marker(omitted).len();
            assert_eq!(kept + omitted, s.len(), "{max}");
        }
        // Too small for a marker: the head alone, whole characters.
        assert_eq!(head_tail(&s, 5).unwrap(), "éé");
    }

    #[test]
    fn text_prefers_line_breaks() {
        let s: String = (0..100).map(|i| format!("line {i:03}\n")).collect();
        let cut = head_tail(&s, 300).unwrap();
        let lines: Vec<&str> = cut.lines().collect();
        assert!(
            lines.iter().all(|l| l.is_empty() || l.starts_with("line ") || l.starts_with("[… ")),
            "{cut}"
        );
    }

    fn assert_no_open_tag_left(html: &str) {
        // Every '<' the sanitizer wrote opens a tag it also closed with '>'.
        let mut depth = 0i32;
        for c in html.chars() {
            match c {
                '<' => depth += 1,
                '>' => depth -= 1,
                _ => {}
            }
            assert!((0..=1).contains(&depth), "{html}");
        }
        assert_eq!(depth, 0, "{html}");
    }

    #[test]
    fn html_is_cut_outside_tags_and_stays_well_formed() {
        let html: String = (0..400)
            .map(|i| format!("<p><a href=\"https://e.com/{i}\" rel=\"noopener noreferrer\">link {i}</a> &amp; <b>bold é</b></p>\n"))
            .collect();
        for max in [200, 333, 1000, 4096, 10_001] {
            let cut = html_head_tail(&html, max).unwrap();
            assert!(cut.len() <= max, "{max}: {}", cut.len());
            assert!(cut.contains("bytes of HTML omitted"), "{cut}");
            assert_eq!(sanitize::clean(&cut), cut, "stable under sanitizing: {cut}");
            assert_no_open_tag_left(&cut);
            assert!(!cut.contains("&amp;a") && !cut.contains("&am<"), "{cut}");
        }
        assert_eq!(html_head_tail(&html, 10).unwrap(), "");
    }

    #[test]
    fn a_cut_inside_a_tag_cannot_swallow_the_rest() {
        // One huge tag: any cut lands inside it.
        let html = format!("<p title=\"{}\">x</p><p>end</p>", "a".repeat(5000));
        let cut = html_head_tail(&html, 1000).unwrap();
        assert!(cut.len() <= 1000);
        assert!(cut.contains("<p>end</p>"), "{cut}");
        assert_no_open_tag_left(&cut);
    }
}
