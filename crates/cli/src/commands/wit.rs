//! `toolhost wit [--version V]`: the text of a `toolhost:tool` package this host links (the
//! newest by default), for authors writing a tool in any language, after a header of `//`
//! comments naming the world to build and `docs/authoring.md` (the released text follows
//! unchanged). Exit 2 for a version the host does not link.

use std::process::ExitCode;

use toolhost::runtime::wit;

use crate::commands::EXIT_USAGE;

/// The version and text of the package `version` (or the newest), as this command prints it
/// (`toolhost new` writes the same into a new project); none for a version the host does not
/// link.
pub fn text(version: Option<&str>) -> Option<(&'static str, &'static str)> {
    let package = match version {
        None => wit::newest(),
        Some(v) => wit::package(v.trim_start_matches('v'))?,
    };
    Some((package.version, package.text))
}

/// Print the package of `version` (or the newest).
pub fn run(version: Option<&str>) -> ExitCode {
    let package = match text(version) {
        Some(p) => p,
        None => {
            eprintln!(
                "toolhost: this host does not link toolhost:tool@{}; it links {}",
                toolhost::display::terminal_line(version.unwrap_or_default()),
                wit::SUPPORTED_WIT_VERSIONS.join(", ")
            );
            return ExitCode::from(EXIT_USAGE);
        }
    };
    out!("{}{}", header(package.0), package.1);
    ExitCode::SUCCESS
}

/// The comment lines printed before a package: which world to build, and where the contract
/// is written for an author. Plain `//` comments, so the file still parses as the package.
pub fn header(version: &str) -> String {
    format!(
        "// toolhost:tool@{version}, as `toolhost wit` prints it (this host links {}).\n\
         // Build the world `tool-component` (or `parallel-tool-component`). How to write, build,\n\
         // check (`toolhost conformance`) and install (`toolhost tool add`) a tool in Rust,\n\
         // Python or JavaScript: docs/authoring.md in the toolhost repository.\n\n",
        wit::SUPPORTED_WIT_VERSIONS.join(", ")
    )
}
