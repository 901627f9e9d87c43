//! A set of path prefixes matched component by component, each split into components once.
//!
//! The credential check runs for every path a call touches (every entry a `list` shows), so
//! re-parsing each credential path for each check was the largest cost of a small call in a
//! profile of `mcp --listen`. [`PathPrefixes::any_prefix_of`] answers exactly what
//! `path.starts_with(prefix)` answers for any of the prefixes (component-wise equality), with
//! the prefixes parsed at construction and the path once per check. Shared behind an `Arc`,
//! so cloning a policy for each call copies none of it.

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Paths whose subtrees a check covers, with their components parsed once.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct PathPrefixes(Arc<Prefixes>);

#[derive(Debug, PartialEq, Eq)]
struct Prefixes {
    paths: Vec<PathBuf>,
    /// Each path's components (`/` for the root), in order.
    components: Vec<Vec<OsString>>,
}

impl PathPrefixes {
    /// The prefixes `paths`.
    pub(super) fn new(paths: Vec<PathBuf>) -> Self {
        let components = paths
            .iter()
            .map(|p| p.components().map(|c| c.as_os_str().to_os_string()).collect())
            .collect();
        PathPrefixes(Arc::new(Prefixes { paths, components }))
    }

    /// The paths, in the order given.
    pub(super) fn paths(&self) -> &[PathBuf] {
        &self.0.paths
    }

    /// Whether `path.starts_with(p)` for one of the paths `p`.
    pub(super) fn any_prefix_of(&self, path: &Path) -> bool {
        // On Unix a component's text tells its kind apart (a normal component is never `/`,
        // `.` or `..`), so comparing texts is comparing components.
        let parts: Vec<&OsStr> = path.components().map(|c| c.as_os_str()).collect();
        self.0.components.iter().any(|prefix| {
            prefix.len() <= parts.len() && prefix.iter().zip(&parts).all(|(a, b)| a == b)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn it_answers_what_path_starts_with_answers() {
        let prefixes: Vec<PathBuf> =
            ["/root/.ssh", "/home/u/.config/gh", "/etc/shadow", "/", "/tmp/a b/.netrc"]
                .iter()
                .map(PathBuf::from)
                .collect();
        let set = PathPrefixes::new(prefixes.clone());
        for path in [
            "/root/.ssh",
            "/root/.ssh/id_rsa",
            "/root/.sshx",
            "/root/./.ssh/id_rsa",
            "/root//.ssh",
            "/root/.ssh/",
            "/root/../root/.ssh",
            "/home/u/.config/gh/hosts.yml",
            "/home/u/.config/g",
            "/etc/shadow",
            "/etc/shadow-",
            "/tmp/a b/.netrc",
            "relative/.ssh",
            "",
        ] {
            let path = Path::new(path);
            for one in &prefixes {
                let single = PathPrefixes::new(vec![one.clone()]);
                assert_eq!(
                    single.any_prefix_of(path),
                    path.starts_with(one),
                    "{path:?} vs {one:?}"
                );
            }
            assert_eq!(
                set.any_prefix_of(path),
                prefixes.iter().any(|p| path.starts_with(p)),
                "{path:?}"
            );
        }
    }
}
