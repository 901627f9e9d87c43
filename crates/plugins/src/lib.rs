//! Third-party tool components: what it takes for a `.wasm` to be offered to a model, and the
//! set of installed ones.
//!
//! * [`rules`] — the rules a definition must meet (id, description, schema, risk); the one
//!   place they are written.
//! * [`check`] — [`check_component`] and the [`Candidate`] it makes of a `.wasm` file.
//! * [`installed`] — [`InstalledSet`]: `<data-dir>/tools/` and `tools.json`, each component
//!   pinned by its SHA-256.
//! * [`stamps`] — how a pin is verified without rehashing an unchanged file on every start.
//! * [`load`] — [`load_installed`] (into [`Installed`]) and [`load_uninstalled`] (`--tool`).
//!
//! A component flows: [`check_component`] reads it, has the runtime
//! ([`toolhost_runtime::ComponentRuntime::inspect`]) check that it is a component of a
//! supported `toolhost:tool` version importing nothing else, compile it and ask it to
//! describe itself (checking the definition: [`toolhost_runtime::definition`]), then checks
//! its id against the ids already taken ([`rules::check_definition`], the same checker; the
//! built-ins' ids are [`RESERVED_IDS`]). `toolhost tool add` shows the [`Candidate`] to the user and records it in the [`InstalledSet`]; every later session
//! [`load_installed`]s the set — each component only while its bytes match their pin, held
//! to the risk granted at install ([`toolhost_runtime::RiskGrant`]) — and `--tool` loads
//! uninstalled ones with [`load_uninstalled`].

#![deny(clippy::print_stdout, clippy::print_stderr)]

pub mod check;
pub mod installed;
pub mod load;
pub mod rules;
pub mod stamps;

pub use check::{Candidate, PluginError, check_component};
pub use installed::{InstalledSet, InstalledSetError, InstalledTool, NotLoaded, OciPin};
pub use load::{Installed, load_installed, load_uninstalled};
pub use rules::{DefinitionError, RESERVED_IDS, Taken};
