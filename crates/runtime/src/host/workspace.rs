//! `workspace`: the capability handles. `open-file`, `open-dir` and `open-for-write` run the
//! path through the fence into a [`CheckedPath`](toolhost_core::fence::CheckedPath) before
//! anything is opened; `file` reads (and hashes what it serves), `dir` lists one level and
//! starts walks (`walk.rs`), a draft (`draft.rs`) commits a write.

use std::io::Read;
use std::path::PathBuf;

use sha2::Digest;
use wasmtime::component::Resource;

use toolhost_core::fence::Intent;
use toolhost_core::open::open_no_symlinks;
use toolhost_policy::{Access, Actor};

use super::draft::DraftHandle;
use super::state::CallState;
use super::types::{WitResult, err, io_err, open_checked, raced};
use super::walk::WalkerHandle;
use super::walk_queue::modified_millis;
use crate::wit::latest::toolhost::tool::{types, workspace};

/// The largest chunk one `file.read` serves: the guest asks, the host allocates, so the
/// host caps it.
pub const MAX_READ_CHUNK: u32 = 1 << 20;
/// A regular file opened for reading; hashes every byte it serves.
pub struct FileHandle {
    file: std::fs::File,
    real: PathBuf,
    display: String,
    size: u64,
    hasher: sha2::Sha256,
    done: bool,
}

/// A directory opened for listing or walking.
pub struct DirHandle {
    real: PathBuf,
    display: String,
}

/// What kind of entry a file type (not following a symlink) is, in the contract's terms.
fn entry_kind(t: std::fs::FileType) -> workspace::EntryKind {
    if t.is_dir() {
        workspace::EntryKind::Directory
    } else if t.is_file() {
        workspace::EntryKind::File
    } else if t.is_symlink() {
        workspace::EntryKind::Symlink
    } else {
        workspace::EntryKind::Other
    }
}

impl workspace::Host for CallState {
    async fn stat(&mut self, path: String) -> WitResult<Option<workspace::PathStat>> {
        let checked = self.check(&path, Access::Read, Intent::MayCreate)?;
        // The checked path is real (resolved): what is there now, reached as every open here
        // reaches a path, with no symlink followed anywhere (one swapped in since the check
        // is an error, not a redirect).
        let meta = match toolhost_core::open::stat_no_symlinks(checked.as_path()) {
            Ok(m) => m,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(io_err(&format!("cannot stat {path}"), e).into()),
        };
        let kind = entry_kind(meta.file_type());
        Ok(Some(workspace::PathStat {
            kind,
            size: meta.len(),
            modified_ms: modified_millis(&meta),
        }))
    }

    async fn open_file(&mut self, path: String) -> WitResult<Resource<FileHandle>> {
        let checked = self.check(&path, Access::Read, Intent::MustExist)?;
        let meta = match std::fs::metadata(checked.as_path()) {
            Ok(m) => m,
            Err(e) => return Err(io_err(&format!("cannot open {path}"), e).into()),
        };
        if meta.is_dir() {
            return Err(err(
                types::ErrorCode::InvalidArguments,
                format!("{path} is a directory; use list to see its entries"),
            )
            .into());
        }
        if !meta.is_file() {
            return Err(err(
                types::ErrorCode::InvalidArguments,
                format!("{path} is not a regular file"),
            )
            .into());
        }
        let file = open_checked(&checked)?;
        let handle = FileHandle {
            file,
            real: checked.as_path().to_path_buf(),
            display: checked.display().to_string(),
            size: meta.len(),
            hasher: sha2::Sha256::new(),
            done: false,
        };
        Ok(self.table.push(handle)?)
    }

    async fn open_dir(&mut self, path: String) -> WitResult<Resource<DirHandle>> {
        let checked = self.check(&path, Access::Read, Intent::MustExist)?;
        if !checked.as_path().is_dir() {
            return Err(err(
                types::ErrorCode::InvalidArguments,
                format!("{path} is not a directory; use read to read a file"),
            )
            .into());
        }
        let handle = DirHandle {
            real: checked.as_path().to_path_buf(),
            display: checked.display().to_string(),
        };
        Ok(self.table.push(handle)?)
    }

    async fn open_for_write(&mut self, path: String) -> WitResult<Resource<DraftHandle>> {
        if let Some(refusal) = self.share.grant.refuses_writes(&path) {
            return Err(err(types::ErrorCode::PermissionDenied, refusal).into());
        }
        let checked = self.check(&path, Access::Write, Intent::MayCreate)?;
        if checked.as_path().is_dir() {
            return Err(err(
                types::ErrorCode::InvalidArguments,
                format!(
                    "{path} is a directory; pass the path of a file in it (e.g. {}/name.txt)",
                    path.trim_end_matches(['/', '\\'])
                ),
            )
            .into());
        }
        // A trailing separator names a directory; the fence's normalisation would drop it
        // and the write would make a file of that name.
        if path.ends_with(['/', '\\']) {
            return Err(err(
                types::ErrorCode::InvalidArguments,
                format!(
                    "{path} ends with a separator, which names a directory; pass a file path without it"
                ),
            ).into());
        }
        if self.open_drafts.contains(checked.as_path()) {
            return Err(err(
                types::ErrorCode::InvalidArguments,
                format!(
                    "{} is already open for writing in this call (under another name, or twice); a call writes each file through one draft",
                    checked.display()
                ),
            )
            .into());
        }
        let lock = self.session.write_locks().lock(checked.as_path()).await;
        self.open_drafts.insert(checked.as_path().to_path_buf());
        let handle = DraftHandle { checked, input: path, served: None, _lock: lock };
        Ok(self.table.push(handle)?)
    }

    async fn commit_all(
        &mut self,
        changes: Vec<workspace::Staged>,
    ) -> WitResult<Vec<workspace::Committed>> {
        Ok(self.commit_staged(changes)?)
    }
}

impl workspace::HostFile for CallState {
    async fn display_path(&mut self, this: Resource<FileHandle>) -> wasmtime::Result<String> {
        Ok(self.table.get(&this)?.display.clone())
    }

    async fn size(&mut self, this: Resource<FileHandle>) -> wasmtime::Result<u64> {
        Ok(self.table.get(&this)?.size)
    }

    async fn read(&mut self, this: Resource<FileHandle>, max: u32) -> WitResult<Vec<u8>> {
        let handle = self.table.get_mut(&this)?;
        let mut buf = vec![0u8; max.min(MAX_READ_CHUNK) as usize];
        let n = loop {
            match handle.file.read(&mut buf) {
                Ok(n) => break n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(io_err(&format!("cannot read {}", handle.display), e).into()),
            }
        };
        buf.truncate(n);
        handle.hasher.update(&buf);
        if n == 0 && max > 0 && !handle.done {
            handle.done = true;
            let hash = hex::encode(std::mem::take(&mut handle.hasher).finalize());
            let real = handle.real.clone();
            self.observed.push((real, hash));
        }
        Ok(buf)
    }

    async fn drop(&mut self, this: Resource<FileHandle>) -> wasmtime::Result<()> {
        self.table.delete(this)?;
        Ok(())
    }
}

impl workspace::HostDir for CallState {
    async fn display_path(&mut self, this: Resource<DirHandle>) -> wasmtime::Result<String> {
        Ok(self.table.get(&this)?.display.clone())
    }

    async fn entries(&mut self, this: Resource<DirHandle>) -> WitResult<Vec<workspace::DirEntry>> {
        let handle = self.table.get(&this)?;
        // List the directory opened without a symlink on the way (through its descriptor's
        // /proc name), not whatever is at the path by the time the listing starts.
        let read = open_no_symlinks(&handle.real).and_then(|dir| {
            use std::os::fd::AsRawFd;
            let via = PathBuf::from(format!("/proc/self/fd/{}", dir.as_raw_fd()));
            std::fs::read_dir(if via.exists() { &via } else { &handle.real })
        });
        let read = match read {
            Ok(r) => r,
            Err(e) if e.raw_os_error() == Some(libc::ELOOP) => {
                return Err(raced(&handle.display).into());
            }
            Err(e) => return Err(io_err(&format!("cannot list {}", handle.display), e).into()),
        };
        let mut out = Vec::new();
        for entry in read {
            let entry = match entry {
                Ok(e) => e,
                Err(e) => return Err(io_err(&format!("cannot list {}", handle.display), e).into()),
            };
            // `file_type` does not follow symlinks.
            let kind = entry.file_type().map_or(workspace::EntryKind::Other, entry_kind);
            let path = handle.real.join(entry.file_name());
            if self.call.sandbox_policy.check(&path, Access::Read, Actor::FileTool).is_err() {
                continue;
            }
            let name = toolhost_core::display::quote_path(&entry.file_name().to_string_lossy())
                .into_owned();
            out.push(workspace::DirEntry { name, kind });
        }
        Ok(out)
    }

    async fn walk(
        &mut self,
        this: Resource<DirHandle>,
        options: workspace::WalkOptions,
    ) -> WitResult<Resource<WalkerHandle>> {
        let root = self.table.get(&this)?.real.clone();
        self.start_walk(root, options)
    }

    async fn drop(&mut self, this: Resource<DirHandle>) -> wasmtime::Result<()> {
        self.table.delete(this)?;
        Ok(())
    }
}
