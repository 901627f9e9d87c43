//! The model-facing denial texts, one function per tier.

use std::path::{Path, PathBuf};

use super::Tier;

/// How the advice to ask for a grant starts and ends (see [`grant_hint`]).
const GRANT_HINT_START: &str = "If the task needs it, retry with sandboxPermissions ";
const GRANT_HINT_END: &str = "and a justification (one sentence for the user, who decides).";

/// What a denial advises instead of a grant when the tool called takes no
/// `sandboxPermissions` (read, grep, glob, list, a read-only installed tool, or any tool when
/// the sandbox is unavailable): nothing it could send widens its access.
pub const NO_GRANT_HINT: &str =
    "This tool cannot ask for access beyond its sandbox; if the task needs it, ask the user.";

/// The advice of a denial to a tool that takes `sandboxPermissions`: the grant to ask for.
fn grant_hint(path: &Path, access: &str) -> String {
    format!(
        "{GRANT_HINT_START}{{\"paths\": [{{\"path\": \"{}\", \"access\": \"{access}\", \"scope\": \"exact\"}}]}} {GRANT_HINT_END}",
        path.display()
    )
}

/// `text` with every grant advice in it replaced by [`NO_GRANT_HINT`], for a tool whose
/// schema takes no `sandboxPermissions`; `None` when it gives none.
pub fn without_grant_hints(text: &str) -> Option<String> {
    let start = text.find(GRANT_HINT_START)?;
    let end = start + text[start..].find(GRANT_HINT_END)? + GRANT_HINT_END.len();
    let mut out = format!("{}{NO_GRANT_HINT}", &text[..start]);
    let rest = &text[end..];
    out.push_str(&without_grant_hints(rest).unwrap_or_else(|| rest.to_string()));
    Some(out)
}

/// A hard-protected path: never writable.
pub fn hard_protected(path: &Path, tier: Tier) -> String {
    let what = match tier {
        Tier::DataDir => {
            "is inside toolhost's data directory (spill files, component cache, session store)"
        }
        Tier::GitMetadata => {
            "is git metadata (config, hooks, info, commondir or gitdir of a repository: git runs what they name outside the sandbox; HEAD, refs, objects, packed-refs or index: git's own state, which only git writes)"
        }
        _ => "is protected by toolhost",
    };
    format!(
        "{} {what}: it can be read but never written, not even with sandboxPermissions. Do not retry this write; change something else or ask the user.",
        path.display()
    )
}

/// A write that would give a directory the shape of a git repository (`HEAD` with `objects`
/// and `refs`, or with `commondir`).
pub fn would_make_repository(path: &Path, dir: &Path) -> String {
    format!(
        "{} would make {} a git repository (git takes a directory with HEAD, objects and refs for one, and runs what its config names outside the sandbox at the user's next git command): it is never written, not even with sandboxPermissions. Do not retry this write; to create a repository, ask the user.",
        path.display(),
        dir.display()
    )
}

/// One of the data dir's private entries: neither readable nor writable.
pub fn private_data(path: &Path) -> String {
    format!(
        "{} is toolhost's own store, policy or cache: no tool may read or write it, not even with sandboxPermissions. Do not retry; the spill files under the data dir's spill/ are readable.",
        path.display()
    )
}

/// A credential location: neither readable nor writable.
pub fn credential(path: &Path) -> String {
    format!(
        "{} is a credential location (keys, tokens, cloud or registry logins): it is neither readable nor writable in this sandbox. {}",
        path.display(),
        grant_hint(path, "read")
    )
}

/// A path in one of HOME's hidden entries that is not readable: closed like a credential.
pub fn hidden_home(path: &Path) -> String {
    format!(
        "{} lies in a hidden entry of HOME (~/.<name>), where logins and tokens live: it is neither readable nor writable in this sandbox unless the user lists it as readable (policy.json \"readable_home_entries\"; package caches and toolchains already are). {}",
        path.display(),
        grant_hint(path, "read")
    )
}

/// A path in another user's home (`/home/<user>`, `/root` when it is not HOME): closed like a
/// credential, but for the toolchains and caches a build runs from there.
pub fn other_home(path: &Path) -> String {
    format!(
        "{} lies in another user's home (not this session's HOME), where their keys and tokens live: it is neither readable nor writable in this sandbox (only the toolchains and package caches in it are readable). {}",
        path.display(),
        grant_hint(path, "read")
    )
}

/// A sensitive file: writable only with a grant.
pub fn sensitive(path: &Path) -> String {
    format!(
        "{} is a sensitive file (git config, shell startup file or .env): writing it needs the user's approval. {}",
        path.display(),
        grant_hint(path, "write")
    )
}

/// A path outside the writable roots.
pub fn outside(path: &Path, roots: &[PathBuf]) -> String {
    let roots: Vec<String> = roots.iter().map(|r| r.display().to_string()).collect();
    format!(
        "{} is outside the writable roots of this session ({}). {}",
        path.display(),
        roots.join(", "),
        grant_hint(path, "write")
    )
}

/// Any write in a read-only session.
pub fn read_only(path: &Path) -> String {
    format!(
        "{} is not writable: this session is read-only. {}",
        path.display(),
        grant_hint(path, "write")
    )
}

/// A path outside the box of a boxed call (`toolhost conformance`): only the workspace exists.
pub fn outside_box(path: &Path, workspace: &Path) -> String {
    format!(
        "{} is outside this call's box: only the workspace {} exists for it (nothing else is readable or writable, and no grant widens it).",
        path.display(),
        workspace.display()
    )
}

/// Any path, for component code that is given no file system (`describe`).
pub fn no_file_system(path: &Path) -> String {
    format!(
        "{}: no file system exists for this call (a tool's `describe` gets none; read files in `execute`).",
        path.display()
    )
}

/// A read outside the directories the operator confined reads to (`reads.rs`).
pub fn outside_read_roots(path: &Path) -> String {
    format!(
        "{} is outside the directories this session may read: the operator confined reads to the workspace, the read roots and the system directories (policy.json \"reads\", --confine-reads, --read-root; an MCP client's roots narrow them). The tool descriptions list what is readable. {}",
        path.display(),
        grant_hint(path, "read")
    )
}

/// What the read, grep, glob, list and bash descriptions end with when reads are confined.
pub fn reads_note(workspace: &Path, roots: &[PathBuf]) -> String {
    let quote = |p: &Path| format!("{:?}", p.to_string_lossy());
    let roots = if roots.is_empty() {
        "no other root".to_string()
    } else {
        let listed: Vec<String> = roots.iter().map(|r| quote(r)).collect();
        format!("the read-only roots {}", listed.join(", "))
    };
    format!(
        "Readable here: the workspace {}, {roots}, the session's temp dir, the toolchains in HOME and the system directories programs need (/usr, /etc, /opt, …); any other path (other projects, HOME's other files, /home, /tmp, /mnt) is refused.",
        quote(workspace)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tool_without_sandbox_permissions_is_never_told_to_send_them() {
        let path = Path::new("/home/u/.ssh/id_rsa");
        let twice = format!("{} and {}", credential(path), sensitive(Path::new("/w/.env")));
        assert!(twice.contains("retry with sandboxPermissions"), "{twice}");
        let plain = without_grant_hints(&twice).unwrap();
        assert!(!plain.contains("sandboxPermissions"), "{plain}");
        assert_eq!(plain.matches(NO_GRANT_HINT).count(), 2, "{plain}");
        assert!(plain.starts_with("/home/u/.ssh/id_rsa is a credential location"), "{plain}");
        assert_eq!(without_grant_hints("nothing to replace"), None);
    }
}
