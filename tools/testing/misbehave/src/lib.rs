//! `misbehave`: a test-only tool that does what a hostile or broken tool would do, so host
//! tests can check that traps, endless loops, memory hoarding, ambient-authority probes and
//! fence attacks are contained. Never registered for a model.

use schemars::JsonSchema;
use serde::Deserialize;
use toolhost_sdk::{Inspection, Risk, Tool, ToolError, open_file, open_for_write, report_progress};

/// Bytes `alloc` tries to allocate and touch: the whole 32-bit address space, more than any
/// host memory limit allows.
pub const ALLOC_TOTAL_BYTES: u64 = 4 << 30;

/// Bytes per `alloc` chunk; chunks are kept alive until the call ends.
pub const ALLOC_CHUNK_BYTES: usize = 64 << 20;

/// Bytes of the file `open` returns.
pub const OPEN_PREVIEW_BYTES: usize = 100;

/// What to do; `{"action": "..."}` plus the action's own fields.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(tag = "action", rename_all = "kebab-case")]
pub enum MisbehaveInput {
    /// Return `ok`.
    Echo,
    /// Panic, which traps the component.
    Trap,
    /// Spin forever.
    Loop,
    /// Allocate and touch 4 GiB in 64 MiB chunks.
    Alloc,
    /// Try std::fs, std::env and std::net; one line per attempt.
    Ambient,
    /// Report three progress messages, then return `done`.
    Progress,
    /// Write `bytes` bytes to stdout and as many to stderr, then return `flooded`.
    Flood {
        /// Bytes per stream.
        bytes: u64,
    },
    /// Return a text of `bytes` bytes (lines of `x`).
    Big {
        /// The length of the result.
        bytes: u64,
    },
    /// Open a file through the workspace and return its first 100 bytes.
    Open {
        /// The path to open.
        path: String,
    },
    /// Write a file through the workspace.
    Write {
        /// The path to write.
        path: String,
        /// The new content.
        text: String,
    },
    /// Run a program through `process.run`, which for a read-only tool can change nothing.
    Run {
        /// The program to run.
        program: String,
        /// Its arguments.
        #[serde(default)]
        args: Vec<String>,
    },
}

/// The misbehaving test tool.
#[derive(Default)]
pub struct Misbehave;

impl Tool for Misbehave {
    type Input = MisbehaveInput;

    fn id(&self) -> &'static str {
        "misbehave"
    }

    fn description(&self) -> &'static str {
        "Test-only tool that traps, loops, hoards memory or reaches for ambient authority."
    }

    fn risk(&self) -> Risk {
        Risk::ReadOnly
    }

    fn inspect(&self, input: &MisbehaveInput) -> Inspection {
        match input {
            MisbehaveInput::Write { path, .. } => Inspection::Writes(path.clone()),
            MisbehaveInput::Run { program, .. } => Inspection::Runs(program.clone()),
            _ => Inspection::ReadOnly,
        }
    }

    fn execute(&self, input: MisbehaveInput) -> Result<String, ToolError> {
        match input {
            MisbehaveInput::Echo => Ok("ok".to_owned()),
            MisbehaveInput::Trap => panic!("misbehave: trap requested"),
            MisbehaveInput::Loop => spin(),
            MisbehaveInput::Alloc => Ok(hoard()),
            MisbehaveInput::Ambient => Ok(ambient()),
            MisbehaveInput::Progress => {
                for step in 1..=3 {
                    report_progress(&format!("step {step} of 3"), Some(f64::from(step) / 3.0));
                }
                Ok("done".to_owned())
            }
            MisbehaveInput::Flood { bytes } => Ok(flood(bytes)),
            MisbehaveInput::Big { bytes } => Ok(big(bytes)),
            MisbehaveInput::Open { path } => open(&path),
            MisbehaveInput::Write { path, text } => {
                let committed = open_for_write(&path)?.commit(&text)?;
                Ok(format!(
                    "{:?} +{} -{}",
                    committed.kind, committed.additions, committed.deletions
                ))
            }
            MisbehaveInput::Run { program, args } => {
                let finished = toolhost_sdk::process::run(&toolhost_sdk::process::Command {
                    program,
                    args,
                    cwd: None,
                    env: Vec::new(),
                    timeout_ms: None,
                })?;
                Ok(format!(
                    "ran: {:?} {:?}\nstdout: {}\nstderr: {}",
                    finished.termination,
                    finished.exit_code,
                    finished.stdout.text,
                    finished.stderr.text
                ))
            }
        }
    }
}

/// Loop forever in a way the optimiser cannot remove.
fn spin() -> ! {
    let mut n = 0u64;
    loop {
        n = std::hint::black_box(n.wrapping_add(1));
    }
}

/// Allocate and touch [`ALLOC_TOTAL_BYTES`]; an allocation failure aborts (a trap).
fn hoard() -> String {
    let mut chunks = Vec::new();
    // u64: on wasm32 `4 << 30` does not fit a usize.
    for _ in 0..ALLOC_TOTAL_BYTES / ALLOC_CHUNK_BYTES as u64 {
        chunks.push(std::hint::black_box(vec![1u8; ALLOC_CHUNK_BYTES]));
    }
    format!("allocated {} MiB", std::hint::black_box(&chunks).len() * (ALLOC_CHUNK_BYTES >> 20))
}

/// Write `bytes` to stdout and to stderr, in 64 KiB writes.
fn flood(bytes: u64) -> String {
    use std::io::Write;
    let chunk = vec![b'f'; 64 << 10];
    let (mut out, mut err) = (std::io::stdout(), std::io::stderr());
    let mut left = bytes;
    while left > 0 {
        let n = left.min(chunk.len() as u64) as usize;
        let _ = out.write_all(&chunk[..n]);
        let _ = err.write_all(&chunk[..n]);
        left -= n as u64;
    }
    "flooded".to_owned()
}

/// A text of `bytes` bytes: lines of 99 `x` and a newline.
fn big(bytes: u64) -> String {
    let line = format!("{}\n", "x".repeat(99));
    let mut text = line.repeat((bytes / 100 + 1) as usize);
    text.truncate(bytes as usize);
    text
}

/// Try every kind of ambient authority; one line per attempt.
fn ambient() -> String {
    fn attempt<T, E: std::fmt::Display>(name: &str, result: Result<T, E>) -> String {
        match result {
            Ok(_) => format!("{name}: GOT ACCESS"),
            Err(e) => format!("{name}: denied ({e})"),
        }
    }
    [
        attempt("fs-read-dir", std::fs::read_dir("/")),
        attempt("fs-read", std::fs::read("/etc/passwd")),
        attempt("fs-write", std::fs::write("/tmp/toolhost-escape", b"x")),
        format!("env: {} vars", std::env::vars().count()),
        format!("args: {}", std::env::args().count()),
        attempt("tcp-connect", std::net::TcpStream::connect("127.0.0.1:22")),
        attempt("udp-bind", std::net::UdpSocket::bind("0.0.0.0:0")),
    ]
    .join("\n")
}

/// The first [`OPEN_PREVIEW_BYTES`] of `path` as lossy UTF-8; the tool error unchanged.
fn open(path: &str) -> Result<String, ToolError> {
    let file = open_file(path)?;
    let mut bytes = Vec::new();
    while bytes.len() < OPEN_PREVIEW_BYTES {
        let chunk = file.read((OPEN_PREVIEW_BYTES - bytes.len()) as u32)?;
        if chunk.is_empty() {
            break;
        }
        bytes.extend_from_slice(&chunk);
    }
    bytes.truncate(OPEN_PREVIEW_BYTES);
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

toolhost_sdk::export_tool!(Misbehave);
