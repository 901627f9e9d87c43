//! `cargo xtask bench NAME`: benchmarks that print figures and ratios against a peer
//! measured in the same run. They never fail on time.

use anyhow::{Result, bail};

/// Run the named benchmark.
pub fn run(args: &[String]) -> Result<()> {
    match args.first().map(String::as_str) {
        Some(name) => bail!("unknown benchmark `{name}`; available: call"),
        None => bail!("usage: cargo xtask bench call"),
    }
}
