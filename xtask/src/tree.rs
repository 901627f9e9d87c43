//! The deterministic source-like tree `bench search` runs on: about 20,000 files / 200 MB,
//! a `.gitignore` with an ignored build dir, and some binary files. Each file ends with a
//! few lines of the kinds the alternation, `TODO` and non-ASCII cases look for.

use std::io::Write;
use std::path::Path;

use anyhow::Result;

/// Files in the searchable part of the tree.
const FILES: usize = 20_000;

/// Bytes per file, roughly.
const FILE_BYTES: usize = 10_000;

/// A tiny deterministic PRNG (xorshift64).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[(self.next() % items.len() as u64) as usize]
    }
}

const WORDS: &[&str] = &[
    "let", "value", "config", "request", "handler", "buffer", "index", "result", "Error", "error",
    "items", "state", "self", "ctx", "parse", "render", "session", "token", "path", "count",
];

/// Lines that end a file, one to three of them: declarations, markers and non-ASCII text.
const TRAILERS: &[&str] = &[
    "impl fmt::Display for {W}Error {",
    "pub struct {W}Error {",
    "pub struct {W}State {",
    "    // TODO: {w} the {w} once it is known",
    "    // FIXME({w}): retry on cancel",
    "    // XXX: the {w} may be stale",
    "    /// Returns the {w} (Größe → {w}, café)",
    "    pub fn new({w}: u32) -> Self {",
    "    fn default() -> Self {",
    "    pub fn get_{w}(&self) -> u32 {",
    "    pub fn set_{w}(&mut self, {w}: u32) {",
    "    // todo: Cancelled {w}",
];

/// Bumped whenever the tree's contents change, so an older tree is made again.
const VERSION: &str = ".complete-2";

/// Generate the tree under `root` unless a complete one is already there.
pub fn generate(root: &Path) -> Result<()> {
    let done = root.join(VERSION);
    if done.exists() {
        return Ok(());
    }
    let _ = std::fs::remove_dir_all(root);
    std::fs::create_dir_all(root)?;
    std::fs::write(root.join(".gitignore"), "build/\n*.log\n")?;
    let mut rng = Rng(0x5eed_1234_abcd_0042);
    let exts = ["rs", "ts", "py", "go"];
    for i in 0..FILES {
        let dir = root.join(format!("pkg{:02}/mod{:02}", i % 20, (i / 20) % 20));
        std::fs::create_dir_all(&dir)?;
        let ext = exts[i % exts.len()];
        let mut f =
            std::io::BufWriter::new(std::fs::File::create(dir.join(format!("file{i:05}.{ext}")))?);
        let mut written = 0;
        let mut line_no = 0;
        while written < FILE_BYTES {
            line_no += 1;
            let line = match rng.next() % 10 {
                0 => format!(
                    "fn {}_{}(self, ctx: &Ctx) -> Result<(), Error> {{",
                    rng.pick(WORDS).to_lowercase(),
                    line_no
                ),
                1 => format!(
                    "    return {}.{}({});",
                    rng.pick(WORDS),
                    rng.pick(WORDS),
                    rng.pick(WORDS)
                ),
                2 => format!("    // handle the {} error for {}", rng.pick(WORDS), rng.pick(WORDS)),
                _ => format!(
                    "    let {} = {}::{}(&{}, {});",
                    rng.pick(WORDS),
                    rng.pick(WORDS),
                    rng.pick(WORDS),
                    rng.pick(WORDS),
                    rng.next() % 1000
                ),
            };
            writeln!(f, "{line}")?;
            written += line.len() + 1;
        }
        // A second generator, so the lines above are those of the first version of the tree.
        let mut tail = Rng(0x7a11_0000 + i as u64);
        for _ in 0..1 + tail.next() % 3 {
            let word = tail.pick(WORDS).to_lowercase();
            let capital = format!("{}{}", word[..1].to_uppercase(), &word[1..]);
            writeln!(f, "{}", tail.pick(TRAILERS).replace("{W}", &capital).replace("{w}", &word))?;
        }
        if i % 997 == 0 {
            writeln!(f, "const MARKER: &str = \"XYZZY_RARE_{i}\";")?;
        }
    }
    for i in 0..1000 {
        let dir = root.join("build/out");
        std::fs::create_dir_all(&dir)?;
        std::fs::write(dir.join(format!("gen{i}.rs")), "return XYZZY_RARE ignored\n".repeat(100))?;
    }
    for i in 0..100 {
        let mut bytes = vec![0u8; 20_000];
        for b in bytes.iter_mut() {
            *b = (rng.next() % 256) as u8;
        }
        std::fs::write(root.join(format!("pkg00/blob{i}.bin")), bytes)?;
    }
    std::fs::write(done, "")?;
    Ok(())
}
