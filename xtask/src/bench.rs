//! `cargo xtask bench NAME`: benchmarks that print figures and ratios against a peer
//! measured in the same run. They never fail on time.

use std::process::Command;

use anyhow::{Result, bail};

/// Benchmarks and the release binaries (in the `toolhost-tests` package) that run them.
const BENCHES: &[(&str, &str)] = &[("call", "bench_call")];

/// Run the named benchmark.
pub fn run(args: &[String]) -> Result<()> {
    let names: Vec<&str> = BENCHES.iter().map(|(n, _)| *n).collect();
    let Some(name) = args.first() else { bail!("usage: cargo xtask bench {}", names.join("|")) };
    let Some((_, bin)) = BENCHES.iter().find(|(n, _)| n == name) else {
        bail!("unknown benchmark `{name}`; available: {}", names.join(", "))
    };
    crate::run(
        Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
            .current_dir(crate::root())
            .args(["run", "--release", "--quiet", "-p", "toolhost-tests", "--bin", bin, "--"])
            .args(&args[1..]),
    )
}
