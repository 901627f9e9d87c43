//! The verdict on one real path ([`SandboxPolicy::check`]): the tier it falls in, the grants
//! that cover it, and the denial the model reads when it is refused.

use std::path::{Path, PathBuf};

use super::home::home_rest;
use super::tiers::{is_process_environment, name_matches};
use super::{
    Access, Actor, DATA_DIR_PRIVATE, Denial, HOME_SENSITIVE_ENTRIES, Reach, SandboxMode,
    SandboxPolicy, Tier, is_ssh_host_key, messages,
};

impl SandboxPolicy {
    /// The tier of a real path for writing, before grants.
    pub fn tier(&self, path: &Path) -> Tier {
        self.tier_for(path, Actor::FileTool)
    }

    /// [`SandboxPolicy::tier`] as `actor` meets it: git's own state is hard-protected from
    /// file tools, not from bash ([`crate::git::runs_or_redirects_git`]).
    fn tier_for(&self, path: &Path, actor: Actor) -> Tier {
        if let Some(t) = self.hard_tier_for(path, actor) {
            return t;
        }
        if self.is_credential(path) {
            return Tier::Credential;
        }
        let in_root = self.mode_roots().iter().any(|r| path.starts_with(r));
        let under_home = self.home.as_ref().is_some_and(|h| path.starts_with(h));
        if (in_root || under_home) && self.is_sensitive_name(path) || self.is_home_sensitive(path) {
            return Tier::Sensitive;
        }
        if in_root { Tier::Writable } else { Tier::Outside }
    }

    /// Judge a real (canonical) path. Reading is allowed everywhere except credential
    /// locations (and, when the operator confined reads, users' data outside the roots:
    /// `reads.rs`); writing follows the tiers of the module doc.
    pub fn check(&self, path: &Path, access: Access, actor: Actor) -> Result<(), Denial> {
        match self.reach {
            Reach::Everywhere => {}
            Reach::WorkspaceOnly if path.starts_with(&self.workspace) => {}
            // Not `sandbox_denied`: no grant widens a box, so nothing is offered.
            Reach::WorkspaceOnly => {
                return Err(Denial {
                    message: messages::outside_box(path, &self.workspace),
                    sandbox_denied: false,
                });
            }
            Reach::Nothing => {
                return Err(Denial {
                    message: messages::no_file_system(path),
                    sandbox_denied: false,
                });
            }
        }
        match access {
            // Only the data dir's private entries and credentials are unreadable. A credential
            // location is one whatever else the path is (git metadata inside `~/.ssh` is still
            // inside `~/.ssh`), so the write tiers are not consulted.
            Access::Read => {
                if self.is_private_data(path) {
                    return Err(Denial {
                        message: messages::private_data(path),
                        sandbox_denied: false,
                    });
                }
                if self.is_credential(path) && !self.granted(path, Access::Read) {
                    return Err(Denial {
                        message: self.credential_message(path),
                        sandbox_denied: true,
                    });
                }
                // The operator confined reads: users' data outside the roots is closed.
                if self.reads_confined() && !self.confined_read_open(path) {
                    return Err(Denial {
                        message: messages::outside_read_roots(path),
                        sandbox_denied: true,
                    });
                }
                Ok(())
            }
            Access::Write => self.write_verdict(path, actor),
        }
    }

    fn write_verdict(&self, path: &Path, actor: Actor) -> Result<(), Denial> {
        // A repository built one file per call: the write that would complete one is refused.
        if let Some(crate::git::GitWriteRefusal::WouldMakeRepository { dir }) =
            crate::git::write_refusal(path)
        {
            return Err(Denial {
                message: messages::would_make_repository(path, &dir),
                sandbox_denied: false,
            });
        }
        match self.tier_for(path, actor) {
            tier @ (Tier::DataDir | Tier::GitMetadata | Tier::HardProtected) => {
                Err(Denial { message: messages::hard_protected(path, tier), sandbox_denied: false })
            }
            _ if self.granted(path, Access::Write) => Ok(()),
            Tier::Credential => {
                Err(Denial { message: self.credential_message(path), sandbox_denied: true })
            }
            Tier::Sensitive => {
                Err(Denial { message: messages::sensitive(path), sandbox_denied: true })
            }
            Tier::Writable => Ok(()),
            Tier::Outside => Err(Denial {
                message: if self.mode == SandboxMode::ReadOnly {
                    messages::read_only(path)
                } else {
                    messages::outside(path, &self.writable_roots)
                },
                sandbox_denied: true,
            }),
        }
    }

    /// Judge a change that writes every one of `writes` (real paths, created or changed) as a
    /// whole, after each was judged alone by [`SandboxPolicy::check`]: no order of its parts
    /// may give a directory a repository's shape or write a git dir's entries
    /// ([`crate::git::change_refusal`]). Deleted paths are not passed: a deletion gives no
    /// directory a shape, and each was judged alone.
    pub fn change_verdict(&self, writes: &[&Path]) -> Result<(), Denial> {
        use crate::git::GitWriteRefusal;
        match crate::git::change_refusal(writes) {
            None => Ok(()),
            Some((path, GitWriteRefusal::WouldMakeRepository { dir })) => Err(Denial {
                message: messages::would_make_repository(&path, &dir),
                sandbox_denied: false,
            }),
            Some((path, GitWriteRefusal::Metadata { .. })) => Err(Denial {
                message: messages::hard_protected(&path, Tier::GitMetadata),
                sandbox_denied: false,
            }),
        }
    }

    pub(super) fn hard_tier(&self, path: &Path) -> Option<Tier> {
        self.hard_tier_for(path, Actor::FileTool)
    }

    fn hard_tier_for(&self, path: &Path, actor: Actor) -> Option<Tier> {
        if let Some((_, t)) = self.hard_protected.iter().find(|(p, _)| path.starts_with(p)) {
            return Some(*t);
        }
        // Git metadata runs code outside the sandbox at the user's next git command, and git's
        // own state (HEAD, refs, objects, index) is git's to write: both are protected in any
        // repository (nested ones too) and in every mode, whatever a grant says. By name below
        // a `.git`, and by shape anywhere (a bare repository's `config`). Bash runs git, so
        // git's state is open to it (the OS rules agree; the sweep puts back a lost `HEAD`).
        let owned = match actor {
            Actor::FileTool => crate::git::is_owned_by_git(path),
            Actor::Bash => crate::git::runs_or_redirects_git(path),
        };
        if owned {
            return Some(Tier::GitMetadata);
        }
        None
    }

    /// Why `path` is a credential, for the denial: a listed location, or the hidden-entry rule.
    fn credential_message(&self, path: &Path) -> String {
        let listed = self.credential.any_prefix_of(path) || self.is_home_credential(path);
        if listed {
            messages::credential(path)
        } else if self.is_hidden_home(path) {
            messages::hidden_home(path)
        } else if self.is_other_home_closed(path) {
            messages::other_home(path)
        } else {
            messages::credential(path)
        }
    }

    fn is_credential(&self, path: &Path) -> bool {
        // Through a symlinked hidden entry of HOME, a credential is also found by its HOME name.
        let spelled = self.home.as_deref().and_then(|h| {
            let (target, rel) = self.home_links.iter().find(|(t, _)| path.starts_with(t))?;
            Some(h.join(rel).join(path.strip_prefix(target).ok()?))
        });
        self.credential.any_prefix_of(path)
            || spelled.as_ref().is_some_and(|s| self.credential.any_prefix_of(s))
            || is_process_environment(path)
            || is_ssh_host_key(path)
            || self.is_hidden_home(path)
            || self.is_home_credential(path)
            || self.is_other_home_closed(path)
    }

    /// Whether `path` is under one of HOME's [`HOME_SENSITIVE_ENTRIES`].
    fn is_home_sensitive(&self, path: &Path) -> bool {
        self.home.as_ref().is_some_and(|h| {
            path.strip_prefix(h)
                .is_ok_and(|rest| HOME_SENSITIVE_ENTRIES.iter().any(|e| rest.starts_with(e)))
        })
    }

    fn is_sensitive_name(&self, path: &Path) -> bool {
        let comps: Vec<&std::ffi::OsStr> = path.iter().collect();
        self.sensitive.iter().any(|pat| {
            let parts: Vec<&str> = pat.split('/').filter(|s| !s.is_empty()).collect();
            if parts.is_empty() || parts.len() > comps.len() {
                return false;
            }
            let tail = &comps[comps.len() - parts.len()..];
            parts.iter().zip(tail).all(|(p, c)| name_matches(p, c))
        })
    }

    pub(super) fn granted(&self, path: &Path, access: Access) -> bool {
        self.grants
            .iter()
            .any(|g| (g.access == access || g.access == Access::Write) && g.covers(path))
    }

    /// Whether a write grant of this policy covers `path`.
    pub fn write_granted(&self, path: &Path) -> bool {
        self.grants.iter().any(|g| g.access == Access::Write && g.covers(path))
    }

    /// Whether bash may not create `path` without a grant: a sensitive name, a HOME entry of
    /// [`HOME_SENSITIVE_ENTRIES`], or git metadata by name. Used by the sandbox's
    /// protected-entry scan (`toolhost_sandbox::protected`).
    pub fn is_protected_name(&self, path: &Path) -> bool {
        self.is_sensitive_name(path)
            || self.is_home_sensitive(path)
            || crate::git::is_git_metadata(path)
    }

    /// Whether `path` is private data, neither readable nor writable by any tool or bash
    /// whatever a grant says: one of a data dir's [`DATA_DIR_PRIVATE`] entries (or below one)
    /// — this one's, or another one's the host's own record names (the registry of data dirs,
    /// never a marker file a repository could ship) — or a private file (`--token-file`).
    pub fn is_private_data(&self, path: &Path) -> bool {
        let private_in = |d: &PathBuf| {
            path.strip_prefix(d)
                .ok()
                .and_then(|rest| rest.components().next())
                .is_some_and(|first| DATA_DIR_PRIVATE.iter().any(|e| first.as_os_str() == *e))
        };
        if self.data_dir.iter().chain(&self.other_data_dirs).any(private_in) {
            return true;
        }
        self.private_files.iter().any(|f| path.starts_with(f))
    }

    /// Whether some path at or below the real path `root` may be refused for reading, i.e.
    /// whether [`SandboxPolicy::check`] with [`Access::Read`] can fail there: a location that
    /// refuses reads (a data dir private entry, a credential location, `/proc`'s `environ`
    /// files, `/etc/ssh`'s host keys) lies at or below `root`, or `root` lies inside one. When
    /// it is `false`, every path below `root` is readable, and a walk of `root` need not ask
    /// for each entry (the read rules are all by location, none by name alone). Other users'
    /// homes and the credential entries of every home count ([`SandboxPolicy::home_of`]).
    pub fn reads_refusable_below(&self, root: &Path) -> bool {
        match self.reach {
            Reach::Everywhere => {}
            Reach::WorkspaceOnly if root.starts_with(&self.workspace) => {}
            _ => return true,
        }
        if self.confined_refusable_below(root) {
            return true;
        }
        let system = [Path::new("/proc"), Path::new("/etc/ssh")].map(Path::to_path_buf);
        // HOME's hidden entries refuse reads: HOME and every directory above it may hold one.
        let home = self.home.as_ref().is_some_and(|h| {
            h.starts_with(root)
                || home_rest(h, &self.home_links, root).is_some()
                || self.home_links.iter().any(|(t, _)| t.starts_with(root))
        });
        home || self.homes_refusable_below(root)
            || self
                .private_data_paths()
                .into_iter()
                .chain(self.credential.paths().iter().cloned())
                .chain(system)
                .any(|refusing| refusing.starts_with(root) || root.starts_with(&refusing))
    }

    /// Every private location known without looking at the file system: each known data
    /// dir's [`DATA_DIR_PRIVATE`] entries and the private files (`--token-file`). A marked
    /// data dir elsewhere is found by [`SandboxPolicy::is_private_data`] and by bash's scan.
    pub fn private_data_paths(&self) -> Vec<PathBuf> {
        let mut out: Vec<PathBuf> = self
            .data_dir
            .iter()
            .chain(&self.other_data_dirs)
            .flat_map(|d| DATA_DIR_PRIVATE.iter().map(move |e| d.join(e)))
            .collect();
        out.extend(self.private_files.iter().cloned());
        out
    }
}
