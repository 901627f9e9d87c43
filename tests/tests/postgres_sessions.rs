//! The session, file-change and undo/reapply suites again, through the built binary, on a
//! PostgreSQL store: this binary's name starts with `postgres_`, so every fixture gets a
//! database of its own on a server the tests start (`toolhost_tests::postgres`) and every
//! `toolhost` the helpers run gets it as `TOOLHOST_STORE`. (Their library-level tests run
//! on SQLite here too.)

#[path = "attack_undo.rs"]
mod attack_undo;
#[path = "file_changes.rs"]
mod file_changes;
#[path = "session.rs"]
mod session;
