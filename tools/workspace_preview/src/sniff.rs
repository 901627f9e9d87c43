//! What a file is, from its first bytes: [`sniff`] matches magic numbers (and reads an
//! image's dimensions when its header holds them); [`language`] guesses a text file's
//! language from its extension.

/// A recognised binary format.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BinaryFormat {
    /// Short name, e.g. `png`.
    pub name: &'static str,
    /// What it is, e.g. `PNG image`.
    pub description: &'static str,
    /// Its media type.
    pub mime: &'static str,
    /// More about this file (a version, a class), when the header says.
    pub detail: Option<String>,
    /// Width and height in pixels, for an image whose header has them in the bytes read.
    pub dimensions: Option<(u32, u32)>,
}

fn kind(name: &'static str, description: &'static str, mime: &'static str) -> BinaryFormat {
    BinaryFormat { name, description, mime, detail: None, dimensions: None }
}

fn be16(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from(u16::from_be_bytes(b.get(at..at + 2)?.try_into().ok()?)))
}
fn le16(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from(u16::from_le_bytes(b.get(at..at + 2)?.try_into().ok()?)))
}
fn be32(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_be_bytes(b.get(at..at + 4)?.try_into().ok()?))
}
fn le24(b: &[u8], at: usize) -> Option<u32> {
    let s = b.get(at..at + 3)?;
    Some(u32::from(s[0]) | u32::from(s[1]) << 8 | u32::from(s[2]) << 16)
}

/// The format `head` (a file's first bytes) starts with, if it is one of the known ones
/// (tried in this order: images and WAV, documents and archives, programs, data, media and
/// fonts).
pub fn sniff(head: &[u8]) -> Option<BinaryFormat> {
    image(head).or_else(|| archive(head)).or_else(|| program(head)).or_else(|| data_or_media(head))
}

/// PNG, GIF, JPEG, WebP (with their dimensions), WAV, BMP, TIFF and icons.
fn image(head: &[u8]) -> Option<BinaryFormat> {
    let starts = |m: &[u8]| head.starts_with(m);
    let at = |offset: usize, m: &[u8]| head.get(offset..offset + m.len()) == Some(m);
    Some(if starts(b"\x89PNG\r\n\x1a\n") {
        let mut k = kind("png", "PNG image", "image/png");
        if at(12, b"IHDR") {
            k.dimensions = be32(head, 16).zip(be32(head, 20));
        }
        k
    } else if starts(b"GIF87a") || starts(b"GIF89a") {
        let mut k = kind("gif", "GIF image", "image/gif");
        k.dimensions = le16(head, 6).zip(le16(head, 8));
        k
    } else if starts(b"\xff\xd8\xff") {
        let mut k = kind("jpeg", "JPEG image", "image/jpeg");
        k.dimensions = jpeg_dimensions(head);
        k
    } else if starts(b"RIFF") && at(8, b"WEBP") {
        let mut k = kind("webp", "WebP image", "image/webp");
        k.dimensions = webp_dimensions(head);
        k
    } else if starts(b"RIFF") && at(8, b"WAVE") {
        kind("wav", "WAV audio", "audio/wav")
    } else if starts(b"BM") && head.len() >= 26 && at(14, &[40, 0, 0, 0]) {
        kind("bmp", "BMP image", "image/bmp")
    } else if starts(b"II*\0") || starts(b"MM\0*") {
        kind("tiff", "TIFF image", "image/tiff")
    } else if starts(b"\0\0\x01\0") && head.len() >= 6 && le16(head, 4).is_some_and(|n| n > 0) {
        kind("ico", "Windows icon", "image/vnd.microsoft.icon")
    } else {
        return None;
    })
}

/// PDF documents and archives (zip, gzip, bzip2, xz, zstd, 7z, rar, tar).
fn archive(head: &[u8]) -> Option<BinaryFormat> {
    let starts = |m: &[u8]| head.starts_with(m);
    let at = |offset: usize, m: &[u8]| head.get(offset..offset + m.len()) == Some(m);
    Some(if starts(b"%PDF-") {
        let mut k = kind("pdf", "PDF document", "application/pdf");
        let version: String = head[5..]
            .iter()
            .take_while(|b| b.is_ascii_digit() || **b == b'.')
            .map(|&b| char::from(b))
            .collect();
        k.detail = (!version.is_empty()).then(|| format!("PDF {version}"));
        k
    } else if starts(b"PK\x03\x04") || starts(b"PK\x05\x06") || starts(b"PK\x07\x08") {
        kind("zip", "ZIP archive (also jar, docx, xlsx, …)", "application/zip")
    } else if starts(b"\x1f\x8b") {
        kind("gzip", "gzip-compressed data", "application/gzip")
    } else if starts(b"BZh") && head.get(3).is_some_and(|b| (b'1'..=b'9').contains(b)) {
        kind("bzip2", "bzip2-compressed data", "application/x-bzip2")
    } else if starts(b"\xfd7zXZ\0") {
        kind("xz", "xz-compressed data", "application/x-xz")
    } else if starts(b"\x28\xb5\x2f\xfd") {
        kind("zstd", "Zstandard-compressed data", "application/zstd")
    } else if starts(b"7z\xbc\xaf\x27\x1c") {
        kind("7z", "7-Zip archive", "application/x-7z-compressed")
    } else if starts(b"Rar!\x1a\x07") {
        kind("rar", "RAR archive", "application/vnd.rar")
    } else if at(257, b"ustar") {
        kind("tar", "tar archive", "application/x-tar")
    } else {
        return None;
    })
}

/// Programs: WebAssembly, ELF, Mach-O, Java classes and Windows executables.
fn program(head: &[u8]) -> Option<BinaryFormat> {
    let starts = |m: &[u8]| head.starts_with(m);
    Some(if starts(b"\0asm") {
        let mut k = kind("wasm", "WebAssembly binary", "application/wasm");
        k.detail = match head.get(4..8) {
            Some([1, 0, 0, 0]) => Some("core module, version 1".to_owned()),
            Some([_, _, 1, 0]) => Some("component".to_owned()),
            _ => None,
        };
        k
    } else if starts(b"\x7fELF") {
        let mut k = kind("elf", "ELF executable or library", "application/x-elf");
        let class = match head.get(4) {
            Some(1) => "32-bit",
            Some(2) => "64-bit",
            _ => "unknown class",
        };
        let endian = match head.get(5) {
            Some(1) => "little-endian",
            Some(2) => "big-endian",
            _ => "unknown byte order",
        };
        k.detail = Some(format!("{class}, {endian}"));
        k
    } else if starts(b"\xcf\xfa\xed\xfe")
        || starts(b"\xce\xfa\xed\xfe")
        || starts(b"\xfe\xed\xfa\xcf")
        || starts(b"\xfe\xed\xfa\xce")
    {
        kind("macho", "Mach-O executable or library", "application/x-mach-binary")
    } else if starts(b"\xca\xfe\xba\xbe") {
        kind("cafebabe", "Java class file or Mach-O universal binary", "application/octet-stream")
    } else if starts(b"MZ") {
        kind("pe", "Windows/DOS executable (MZ)", "application/vnd.microsoft.portable-executable")
    } else {
        return None;
    })
}

/// Databases and data files, audio and video, and fonts.
fn data_or_media(head: &[u8]) -> Option<BinaryFormat> {
    let starts = |m: &[u8]| head.starts_with(m);
    let at = |offset: usize, m: &[u8]| head.get(offset..offset + m.len()) == Some(m);
    Some(if starts(b"SQLite format 3\0") {
        kind("sqlite", "SQLite 3 database", "application/vnd.sqlite3")
    } else if starts(b"PAR1") {
        kind("parquet", "Parquet file", "application/vnd.apache.parquet")
    } else if starts(b"OggS") {
        kind("ogg", "Ogg media", "audio/ogg")
    } else if starts(b"fLaC") {
        kind("flac", "FLAC audio", "audio/flac")
    } else if starts(b"ID3") {
        kind("mp3", "MP3 audio (ID3 tag)", "audio/mpeg")
    } else if at(4, b"ftyp") {
        kind("mp4", "ISO media (MP4, MOV, HEIF, …)", "video/mp4")
    } else if starts(b"\x1aE\xdf\xa3") {
        kind("matroska", "Matroska/WebM media", "video/webm")
    } else if starts(b"wOFF") {
        kind("woff", "WOFF font", "font/woff")
    } else if starts(b"wOF2") {
        kind("woff2", "WOFF2 font", "font/woff2")
    } else if starts(b"OTTO") {
        kind("otf", "OpenType font", "font/otf")
    } else if starts(b"\0\x01\0\0\0") {
        kind("ttf", "TrueType font", "font/ttf")
    } else {
        return None;
    })
}

/// A JPEG's size from its first start-of-frame segment, walking the segments in `head`.
fn jpeg_dimensions(head: &[u8]) -> Option<(u32, u32)> {
    let mut i = 2;
    loop {
        while head.get(i) == Some(&0xff) && head.get(i + 1) == Some(&0xff) {
            i += 1; // fill bytes
        }
        if *head.get(i)? != 0xff {
            return None;
        }
        let marker = *head.get(i + 1)?;
        if matches!(marker, 0xd8 | 0x01 | 0xd0..=0xd7) {
            i += 2;
            continue;
        }
        let len = be16(head, i + 2)? as usize;
        let sof = matches!(marker, 0xc0..=0xcf) && !matches!(marker, 0xc4 | 0xc8 | 0xcc);
        if sof {
            let (h, w) = (be16(head, i + 5)?, be16(head, i + 7)?);
            return Some((w, h));
        }
        if len < 2 || marker == 0xd9 || marker == 0xda {
            return None;
        }
        i += 2 + len;
    }
}

/// A WebP's size from its first chunk (VP8, VP8L or VP8X).
fn webp_dimensions(head: &[u8]) -> Option<(u32, u32)> {
    match head.get(12..16)? {
        b"VP8X" => Some((le24(head, 24)? + 1, le24(head, 27)? + 1)),
        b"VP8L" if head.get(20) == Some(&0x2f) => {
            let b = head.get(21..25)?;
            let bits = u32::from_le_bytes(b.try_into().ok()?);
            Some(((bits & 0x3fff) + 1, ((bits >> 14) & 0x3fff) + 1))
        }
        b"VP8 " if head.get(23..26) == Some(&[0x9d, 0x01, 0x2a]) => {
            Some((le16(head, 26)? & 0x3fff, le16(head, 28)? & 0x3fff))
        }
        _ => None,
    }
}

/// The language a text file's name suggests, from its extension (or its whole name).
pub fn language(path: &str) -> Option<&'static str> {
    let name = path.rsplit(['/', '\\']).next().unwrap_or(path);
    match name {
        "Makefile" | "GNUmakefile" => return Some("Makefile"),
        "Dockerfile" => return Some("Dockerfile"),
        "Cargo.lock" => return Some("TOML"),
        "CMakeLists.txt" => return Some("CMake"),
        _ => {}
    }
    let ext = name.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase())?;
    Some(match ext.as_str() {
        "rs" => "Rust",
        "py" | "pyi" => "Python",
        "js" | "mjs" | "cjs" => "JavaScript",
        "ts" | "mts" | "cts" => "TypeScript",
        "tsx" => "TypeScript (JSX)",
        "jsx" => "JavaScript (JSX)",
        "go" => "Go",
        "c" | "h" => "C",
        "cc" | "cpp" | "cxx" | "hpp" | "hh" | "hxx" => "C++",
        "java" => "Java",
        "kt" | "kts" => "Kotlin",
        "swift" => "Swift",
        "rb" => "Ruby",
        "php" => "PHP",
        "cs" => "C#",
        "scala" => "Scala",
        "hs" => "Haskell",
        "ml" | "mli" => "OCaml",
        "ex" | "exs" => "Elixir",
        "erl" => "Erlang",
        "lua" => "Lua",
        "zig" => "Zig",
        "dart" => "Dart",
        "r" => "R",
        "jl" => "Julia",
        "sh" | "bash" | "zsh" => "Shell",
        "ps1" => "PowerShell",
        "sql" => "SQL",
        "md" | "markdown" => "Markdown",
        "rst" => "reStructuredText",
        "html" | "htm" => "HTML",
        "css" => "CSS",
        "scss" | "sass" => "Sass",
        "json" => "JSON",
        "jsonl" | "ndjson" => "JSON Lines",
        "toml" => "TOML",
        "yaml" | "yml" => "YAML",
        "xml" => "XML",
        "svg" => "SVG (XML)",
        "csv" => "CSV",
        "tsv" => "TSV",
        "txt" => "plain text",
        "ini" | "cfg" => "INI",
        "wit" => "WIT",
        "proto" => "Protocol Buffers",
        "tex" => "TeX",
        "vue" => "Vue",
        "svelte" => "Svelte",
        "nix" => "Nix",
        "tf" => "Terraform",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn png(w: u32, h: u32) -> Vec<u8> {
        let mut b = b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR".to_vec();
        b.extend(w.to_be_bytes());
        b.extend(h.to_be_bytes());
        b.extend([8, 6, 0, 0, 0]);
        b
    }

    #[test]
    fn images_and_their_sizes() {
        let k = sniff(&png(640, 480)).unwrap();
        assert_eq!((k.name, k.dimensions), ("png", Some((640, 480))));
        let gif = b"GIF89a\x20\x03\x58\x02\0\0\0";
        assert_eq!(sniff(gif).unwrap().dimensions, Some((800, 600)));
        // SOI, an APP0 segment, then SOF0 with height 0x00f0 (240) and width 0x0140 (320).
        let mut jpeg = vec![0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10];
        jpeg.extend([0u8; 14]);
        jpeg.extend([0xff, 0xc0, 0x00, 0x11, 0x08, 0x00, 0xf0, 0x01, 0x40, 0x03]);
        let k = sniff(&jpeg).unwrap();
        assert_eq!((k.name, k.dimensions), ("jpeg", Some((320, 240))));
        // A truncated JPEG has no size, and no panic.
        assert_eq!(sniff(&jpeg[..22]).unwrap().dimensions, None);
        let mut webp = b"RIFF\0\0\0\0WEBPVP8X\x0a\0\0\0\0\0\0\0".to_vec();
        webp.extend([0x3f, 0x01, 0x00, 0xef, 0x00, 0x00]); // 320 x 240, minus one each
        assert_eq!(sniff(&webp).unwrap().dimensions, Some((320, 240)));
    }

    #[test]
    fn other_formats() {
        let name = |b: &[u8]| sniff(b).map(|k| k.name);
        assert_eq!(name(b"%PDF-1.7\n"), Some("pdf"));
        assert_eq!(sniff(b"%PDF-1.7\n").unwrap().detail.as_deref(), Some("PDF 1.7"));
        assert_eq!(name(b"PK\x03\x04rest"), Some("zip"));
        assert_eq!(name(b"\x1f\x8b\x08\0"), Some("gzip"));
        assert_eq!(name(b"\0asm\x01\0\0\0"), Some("wasm"));
        assert_eq!(sniff(b"\0asm\x0d\0\x01\0").unwrap().detail.as_deref(), Some("component"));
        assert_eq!(
            sniff(b"\x7fELF\x02\x01\x01").unwrap().detail.as_deref(),
            Some("64-bit, little-endian")
        );
        assert_eq!(name(b"SQLite format 3\0...."), Some("sqlite"));
        let mut tar = vec![0u8; 300];
        tar[257..262].copy_from_slice(b"ustar");
        assert_eq!(name(&tar), Some("tar"));
        assert_eq!(name(b"plain text"), None);
        assert_eq!(name(b""), None);
        assert_eq!(name(b"\x89PN"), None);
    }

    #[test]
    fn languages_from_names() {
        assert_eq!(language("src/main.rs"), Some("Rust"));
        assert_eq!(language("a/b/Makefile"), Some("Makefile"));
        assert_eq!(language("README.MD"), Some("Markdown"));
        assert_eq!(language("noext"), None);
        assert_eq!(language("x.unknownext"), None);
    }
}
