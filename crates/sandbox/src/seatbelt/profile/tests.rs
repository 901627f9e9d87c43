//! The profile generator: the golden profile, grants, scans and case folding.

use super::*;
use toolhost_policy::{Access, PathGrant, PolicyConfig, SandboxMode, Scope};

fn golden_policy() -> SandboxPolicy {
    SandboxPolicy::builder(SandboxMode::WorkspaceWrite, "/golden/ws")
        .home("/golden/home")
        .data_dir("/golden/home/.toolhost")
        .other_homes(["/golden/users".into()], ["/golden/root".into()])
        .config(PolicyConfig {
            extra_writable_roots: vec!["/golden/extra".into(), "/golden/users/bob/proj".into()],
            temp_dir: Some("/golden/tmp".into()),
            extra_credential: vec![".config/secret".into()],
            ..Default::default()
        })
        .build()
        .with_grants([PathGrant {
            path: "/golden/home/.kube".into(),
            access: Access::Read,
            scope: Scope::Subtree,
        }])
}

const GOLDEN: &str = include_str!("golden_profile.sb");

#[test]
fn seatbelt_profile_matches_the_golden_text() {
    assert_eq!(seatbelt_profile(&golden_policy()), GOLDEN);
}

#[test]
fn read_only_seatbelt_profile_has_no_writable_roots() {
    let p = SandboxPolicy::builder(SandboxMode::ReadOnly, "/golden/ws").build();
    let s = seatbelt_profile(&p);
    assert!(s.contains("(allow file-read* (require-not"));
    assert!(!s.contains("(allow network"));
    assert!(!s.contains("(allow file-write*\n"));
}
