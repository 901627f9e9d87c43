//! `workspace.walker`: a recursive walk honouring `.gitignore`, started by `dir.walk` (or
//! joined, in a parallel call, when another instance started the same one), its files taken
//! a batch at a time from the walk's queue (`walk_queue`) and read by this instance.

use std::path::PathBuf;
use std::sync::Arc;

use wasmtime::component::Resource;

use super::state::CallState;
use super::types::{WitResult, err};
use super::walk_queue::{
    Found, SharedQueue, WALK_BATCH, WALK_BATCH_BYTES, WalkKey, file_globs, spawn_walk, walked,
};
use crate::wit::latest::toolhost::tool::{types, workspace};

/// A recursive walk in progress: walker threads find files in parallel with the
/// component's matching and queue them; this instance takes some at a time and reads them.
pub struct WalkerHandle {
    queue: SharedQueue,
    /// Files taken from the queue and not yet read, last first.
    taken: Vec<Found>,
    /// Whether the files' contents are read (by [`walked`]).
    with_contents: bool,
}

impl CallState {
    /// Start the walk `dir.walk` asks for under `root` (or join the call's walk of the same
    /// root and options, in a parallel call).
    pub(super) fn start_walk(
        &mut self,
        root: PathBuf,
        options: workspace::WalkOptions,
    ) -> WitResult<Resource<WalkerHandle>> {
        // Globs filter files only, matched against the path relative to the walk root; they
        // never re-include what .gitignore or the hidden rule left out.
        let matcher = match file_globs(&options.globs) {
            Ok(m) => m,
            Err(message) => return Err(err(types::ErrorCode::InvalidArguments, message).into()),
        };
        let key = WalkKey {
            root: root.clone(),
            globs: options.globs.clone(),
            with_contents: options.with_contents,
        };
        let queue = {
            let mut walks = self.share.walks.lock().unwrap_or_else(|e| e.into_inner());
            match walks.iter().find(|(k, _)| self.share.parallel && *k == key) {
                Some((_, queue)) => queue.clone(),
                None => {
                    let workspace = self.session.working_directory.clone();
                    let receiver = spawn_walk(
                        root,
                        matcher,
                        options.with_contents,
                        workspace,
                        self.call.sandbox_policy.clone(),
                    );
                    let queue: SharedQueue = Arc::new(tokio::sync::Mutex::new(receiver));
                    if self.share.parallel {
                        walks.push((key, queue.clone()));
                    }
                    queue
                }
            }
        };
        let walker =
            WalkerHandle { queue, taken: Vec::new(), with_contents: options.with_contents };
        Ok(self.table.push(walker)?)
    }
}

impl workspace::HostWalker for CallState {
    async fn next_batch(
        &mut self,
        this: Resource<WalkerHandle>,
    ) -> wasmtime::Result<Vec<workspace::WalkedFile>> {
        let cancel = self.call.cancel.clone();
        let walker = self.table.get_mut(&this)?;
        let (shared, with_contents) = (walker.queue.clone(), walker.with_contents);
        let mut taken = std::mem::take(&mut walker.taken);
        let mut out = Vec::new();
        let mut bytes = 0;
        // Files are read here, on this instance's thread, with the queue unlocked: the other
        // instances take and read theirs meanwhile.
        while out.len() < WALK_BATCH && bytes < WALK_BATCH_BYTES && !cancel.is_cancelled() {
            if taken.is_empty() {
                let wait = out.is_empty();
                let mut queue = tokio::select! {
                    queue = shared.lock() => queue,
                    _ = cancel.cancelled() => break,
                };
                taken = tokio::select! {
                    found = queue.take(wait) => found,
                    _ = cancel.cancelled() => break,
                };
            }
            let Some(found) = taken.pop() else { break };
            let file = walked(found, with_contents);
            bytes += file.contents.as_ref().map_or(0, Vec::len);
            out.push(file);
        }
        self.table.get_mut(&this)?.taken = taken;
        Ok(out)
    }

    async fn drop(&mut self, this: Resource<WalkerHandle>) -> wasmtime::Result<()> {
        self.table.delete(this)?;
        Ok(())
    }
}
