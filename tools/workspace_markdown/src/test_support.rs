//! A fake [`Workspace`] for the tests: files and directories in memory.

use std::collections::HashMap;

use toolhost_sdk::error_kinds::ErrorKind;

use crate::workspace::{Failure, Loaded, PathKind, Workspace, decode, too_large};
use toolhost_sdk::limits::MARKDOWN_MAX_FILE_BYTES;

/// Files and directories by path; counts what was read.
#[derive(Default)]
pub struct Fake {
    pub files: HashMap<String, String>,
    pub dirs: Vec<String>,
    pub denied: Vec<String>,
    /// Files whose bytes may not be UTF-8.
    pub raw: HashMap<String, Vec<u8>>,
    pub loads: usize,
    pub stats: usize,
}

impl Fake {
    pub fn with(files: &[(&str, &str)], dirs: &[&str]) -> Self {
        Fake {
            files: files.iter().map(|(p, t)| (p.to_string(), t.to_string())).collect(),
            dirs: dirs.iter().map(|d| d.to_string()).collect(),
            ..Fake::default()
        }
    }

    fn kind(&self, path: &str) -> Result<Option<PathKind>, Failure> {
        if self.denied.iter().any(|d| d == path) {
            return Err(Failure::new(ErrorKind::PathDenied, format!("{path} is protected")));
        }
        Ok(if self.files.contains_key(path) {
            Some(PathKind::File)
        } else if self.dirs.iter().any(|d| d == path) {
            Some(PathKind::Dir)
        } else {
            None
        })
    }
}

impl Workspace for Fake {
    fn stat(&mut self, path: &str) -> Result<Option<PathKind>, Failure> {
        self.stats += 1;
        self.kind(path)
    }

    fn load(&mut self, path: &str) -> Result<Loaded, Failure> {
        self.loads += 1;
        if let Some(bytes) = self.raw.get(path) {
            let text = decode(path, bytes.clone())?;
            return Ok(Loaded { display_path: path.into(), text });
        }
        match self.kind(path)? {
            None => Err(Failure::new(ErrorKind::NotFound, format!("{path} does not exist"))),
            Some(PathKind::Dir) => {
                Err(Failure::new(ErrorKind::InvalidInput, format!("{path} is a directory")))
            }
            Some(_) => {
                let text = self.files[path].clone();
                if text.len() as u64 > MARKDOWN_MAX_FILE_BYTES {
                    return Err(too_large(path, text.len() as u64));
                }
                Ok(Loaded { display_path: path.into(), text })
            }
        }
    }
}
