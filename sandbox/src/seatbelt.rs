//! bash's macOS sandbox: Seatbelt, through `sandbox-exec`.

pub mod profile;

pub use profile::seatbelt_profile;
