//! One call's policy made from the session's: widened by approved grants or the network,
//! narrowed to reading only (the programs of a tool not granted process-execution), boxed
//! into a workspace (`toolhost conformance`), or with no file system at all.

use std::path::PathBuf;

use super::paths::real_path;
use super::{NetworkAccess, PathGrant, Reach, SandboxMode, SandboxPolicy};

impl SandboxPolicy {
    /// This policy widened by `grants` (one call's approved `sandboxPermissions`). Grants never
    /// unlock hard-protected paths.
    pub fn with_grants(&self, grants: impl IntoIterator<Item = PathGrant>) -> Self {
        let mut p = self.clone();
        if p.reach != Reach::Everywhere {
            // A box is never widened: nothing outside it exists to grant.
            return p;
        }
        for g in grants {
            let g = PathGrant { path: real_path(&g.path), ..g };
            if !p.grants.contains(&g) {
                p.grants.push(g);
            }
        }
        p
    }

    /// This policy with bash's network access set (an approved per-call escalation).
    pub fn with_network(&self, network: NetworkAccess) -> Self {
        if self.reach != Reach::Everywhere {
            return self.clone();
        }
        SandboxPolicy { network, ..self.clone() }
    }

    /// This policy narrowed to reading: nothing writable (not the workspace, not the temp
    /// dir, no write grant), no network; what it lets a program read is unchanged. How a
    /// program runs for a tool granted read-only or workspace-mutation (`process.run`).
    pub fn read_only(&self) -> Self {
        let mut p = SandboxPolicy {
            mode: SandboxMode::ReadOnly,
            network: NetworkAccess::Deny,
            ..self.clone()
        };
        p.grants.retain(|g| g.access == super::Access::Read);
        p
    }

    /// This policy boxed into `workspace`: every tier of this policy still applies (its HOME,
    /// data dir, credentials, `policy.json` entries), and besides, nothing outside `workspace`
    /// exists for the caller — no other writable root, no temp dir, no grant, no network.
    /// How `toolhost conformance` runs a component it has never seen.
    pub fn confined_to(&self, workspace: impl Into<PathBuf>) -> Self {
        let workspace = real_path(&workspace.into());
        SandboxPolicy {
            mode: SandboxMode::WorkspaceWrite,
            writable_roots: vec![workspace.clone()],
            workspace,
            network: NetworkAccess::Deny,
            grants: Vec::new(),
            reach: Reach::WorkspaceOnly,
            ..self.clone()
        }
    }

    /// A policy under which no path is readable or writable and nothing can run: for
    /// component code that needs no file system (`describe`).
    pub fn no_file_system() -> Self {
        let mut p = Self::builder(SandboxMode::ReadOnly, "/").build();
        p.writable_roots.clear();
        p.network = NetworkAccess::Deny;
        p.reach = Reach::Nothing;
        p
    }

    /// How much of the file system exists under this policy.
    pub fn reach(&self) -> Reach {
        self.reach
    }
}
