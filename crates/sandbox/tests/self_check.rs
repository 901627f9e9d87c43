//! bubblewrap's self-check on this machine (Linux, bwrap installed), with the crate's own
//! `toolhost-sandbox-exec` binary as the Landlock helper.

#![cfg(target_os = "linux")]

use toolhost_sandbox::Availability;
use toolhost_sandbox::SandboxBackend;
use toolhost_sandbox::bwrap::Bubblewrap;

fn sandbox() -> Bubblewrap {
    Bubblewrap::new().with_landlock_helper(env!("CARGO_BIN_EXE_toolhost-sandbox-exec"))
}

#[test]
fn the_self_check_passes_here() {
    assert_eq!(sandbox().available(), Availability::Available);
    let broken = Bubblewrap::new().with_landlock_helper("/nonexistent/helper");
    assert!(!broken.available().is_available());
    let missing = Bubblewrap::new().with_bwrap("/nonexistent/bwrap");
    match missing.available() {
        Availability::Unavailable { reason } => {
            assert!(reason.contains("not installed"), "{reason}")
        }
        a => panic!("{a:?}"),
    }
}
