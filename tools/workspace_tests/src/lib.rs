//! The `workspace_tests` tool (work in progress).

pub mod detect;
pub mod failure;
pub mod parse;
