//! The on-disk cache of compiled components, so a warm start never runs Cranelift.
//!
//! A compiled component is stored as `<cache-dir>/<sha256 of the component>-<engine hash>.cwasm`,
//! where the engine hash covers wasmtime's version and every setting that changes code
//! generation. The cache dir is inside the data dir, which the fence hard-protects: tools
//! cannot write it. A blob that does not deserialise is recompiled and replaced.

use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};

use wasmtime::Engine;
use wasmtime::component::Component;

use toolhost_core::observations::sha256_hex;

/// The engine's compatibility hash as 16 hex digits: it changes with wasmtime's version and
/// every setting that changes code generation.
fn engine_hash(engine: &Engine) -> String {
    let mut hasher = std::hash::DefaultHasher::new();
    engine.precompile_compatibility_hash().hash(&mut hasher);
    format!("{:016x}", hasher.finish())
}

/// The cache key of `bytes` under `engine`: `<sha256 of the component>-<engine hash>`.
pub fn cache_key(engine: &Engine, bytes: &[u8]) -> String {
    key_from_digest(engine, &sha256_hex(bytes))
}

/// The cache key of a component whose SHA-256 (hex) is already known, e.g. worked out at
/// build time for an embedded one.
pub fn key_from_digest(engine: &Engine, sha256: &str) -> String {
    format!("{sha256}-{}", engine_hash(engine))
}

/// The compiled component cached under `key`.
fn compiled_path(cache_dir: &Path, key: &str) -> PathBuf {
    cache_dir.join(format!("{key}.cwasm"))
}

/// Where the definition a component described is remembered, next to its compilation, so
/// a warm start needs neither to instantiate it nor to deserialise it until it is called.
/// Its name carries [`crate::definition::DEFINITION_RULES_VERSION`]: one remembered under
/// older rules is not found, so it is described and checked again.
pub fn definition_path(cache_dir: &Path, key: &str) -> PathBuf {
    cache_dir.join(format!("{key}.v{}.def.json", crate::definition::DEFINITION_RULES_VERSION))
}

/// A remembered definition, if there is a readable one.
pub fn load_definition(
    cache_dir: Option<&Path>,
    key: &str,
) -> Option<toolhost_core::tool::ToolDefinition> {
    let text = std::fs::read(definition_path(cache_dir?, key)).ok()?;
    serde_json::from_slice(&text).ok()
}

/// Remember a definition (best effort).
pub fn save_definition(
    cache_dir: Option<&Path>,
    key: &str,
    def: &toolhost_core::tool::ToolDefinition,
) {
    let Some(dir) = cache_dir else { return };
    let Ok(json) = serde_json::to_vec(def) else { return };
    if let Err(e) = write_atomically(dir, &definition_path(dir, key), &json, false) {
        tracing::warn!("cannot remember the definition of {key}: {e}");
    }
}

/// The compilation cached under `key` (the cache key of `bytes`), or compile `bytes` and save
/// it there.
pub fn load_or_compile(
    engine: &Engine,
    bytes: &[u8],
    key: &str,
    cache_dir: Option<&Path>,
) -> wasmtime::Result<Component> {
    let Some(dir) = cache_dir else {
        return Component::new(engine, bytes);
    };
    if let Some(component) = deserialize_cached(engine, dir, key) {
        return Ok(component);
    }
    compile_and_save(engine, bytes, key, dir)
}

/// Compile `bytes` and save the compilation under `key` (best effort).
fn compile_and_save(
    engine: &Engine,
    bytes: &[u8],
    key: &str,
    dir: &Path,
) -> wasmtime::Result<Component> {
    let component = Component::new(engine, bytes)?;
    let path = compiled_path(dir, key);
    let saved = component
        .serialize()
        .map_err(|e| std::io::Error::other(e.to_string()))
        .and_then(|blob| write_atomically(dir, &path, &blob, true));
    if let Err(e) = saved {
        tracing::warn!("cannot cache compiled component at {}: {e}", path.display());
    }
    Ok(component)
}

/// Write `path` (in `dir`) all at once: a temporary file renamed over it, synced first when
/// asked.
fn write_atomically(dir: &Path, path: &Path, bytes: &[u8], sync: bool) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let (mut file, tmp) = tempfile_in(dir)?;
    std::io::Write::write_all(&mut file, bytes)?;
    if sync {
        file.sync_all()?;
    }
    std::fs::rename(&tmp, path)
}

fn tempfile_in(dir: &Path) -> std::io::Result<(std::fs::File, PathBuf)> {
    let name = format!(".tmp-{}-{}", std::process::id(), nanos());
    let path = dir.join(name);
    let file = std::fs::OpenOptions::new().write(true).create_new(true).open(&path)?;
    Ok((file, path))
}

fn nanos() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0)
}

/// The stamp of a component file: `<cache-dir>/stamps/<sha256 of its path>`, holding its size,
/// mtime, the engine hash and its cache key, so a warm start need not read and hash it.
fn stamp_path(cache_dir: &Path, component: &Path) -> PathBuf {
    cache_dir.join("stamps").join(sha256_hex(component.as_os_str().as_encoded_bytes()))
}

fn stamp_line(engine: &Engine, component: &Path, key: &str) -> Option<String> {
    let meta = std::fs::metadata(component).ok()?;
    let mtime = meta.modified().ok()?.duration_since(std::time::UNIX_EPOCH).ok()?.as_nanos();
    Some(format!("{} {} {} {key}", meta.len(), mtime, engine_hash(engine)))
}

/// The cache key a stamp line names (its last field).
fn stamp_key(line: &str) -> Option<&str> {
    line.rsplit(' ').next()
}

/// The cache key a valid stamp records for `component` (same size, mtime and engine).
pub fn stamped_key(engine: &Engine, cache_dir: Option<&Path>, component: &Path) -> Option<String> {
    let text = std::fs::read_to_string(stamp_path(cache_dir?, component)).ok()?;
    let key = stamp_key(&text)?.to_string();
    (stamp_line(engine, component, &key)? == text).then_some(key)
}

/// Record the stamp of `component` (best effort). When the component at that path had been
/// compiled under another key (it was rebuilt), that compilation and its definition are
/// removed unless another component's stamp still names them: the cache holds what the
/// components on disk need, not every build ever run.
pub fn save_stamp(engine: &Engine, cache_dir: Option<&Path>, component: &Path, key: &str) {
    let (Some(dir), Some(line)) = (cache_dir, stamp_line(engine, component, key)) else { return };
    let path = stamp_path(dir, component);
    let replaced = std::fs::read_to_string(&path)
        .ok()
        .and_then(|old| stamp_key(&old).map(str::to_owned))
        .filter(|old| old != key);
    if write_atomically(path.parent().expect("stamps dir"), &path, line.as_bytes(), false).is_ok()
        && let Some(old) = replaced
    {
        remove_unreferenced(dir, &old);
    }
}

/// Remove the compilation and definition cached under `key` unless a stamp names it.
fn remove_unreferenced(dir: &Path, key: &str) {
    // Keys are hex and `-` only; anything else did not come from `cache_key`.
    if key.is_empty() || !key.bytes().all(|b| b.is_ascii_hexdigit() || b == b'-') {
        return;
    }
    let Ok(stamps) = std::fs::read_dir(dir.join("stamps")) else { return };
    for stamp in stamps.flatten() {
        if std::fs::read_to_string(stamp.path()).is_ok_and(|text| stamp_key(&text) == Some(key)) {
            return;
        }
    }
    let _ = std::fs::remove_file(compiled_path(dir, key));
    let _ = std::fs::remove_file(definition_path(dir, key));
}

/// Whether a compilation is cached under `key` (not whether it deserialises).
pub fn is_compiled(cache_dir: &Path, key: &str) -> bool {
    compiled_path(cache_dir, key).is_file()
}

/// The cached compilation under `key`, if there is one that deserialises (one that does not
/// is removed, to be recompiled).
pub fn deserialize_cached(engine: &Engine, cache_dir: &Path, key: &str) -> Option<Component> {
    let path = compiled_path(cache_dir, key);
    if !path.is_file() {
        return None;
    }
    // SAFETY: written by `compile_and_save` from `Component::serialize` under an engine with
    // the same compatibility hash (it is part of the key), inside the hard-protected data
    // dir; wasmtime still checks its header and version.
    match unsafe { Component::deserialize_file(engine, &path) } {
        Ok(component) => Some(component),
        Err(e) => {
            tracing::warn!("discarding unusable cached component {}: {e}", path.display());
            let _ = std::fs::remove_file(&path);
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stamp_is_valid_only_for_the_same_file_contents_and_engine() {
        let engine = Engine::default();
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("tool.wasm");
        std::fs::write(&file, b"one").unwrap();
        let key = cache_key(&engine, b"one");
        assert_eq!(stamped_key(&engine, Some(dir.path()), &file), None, "no stamp yet");
        save_stamp(&engine, Some(dir.path()), &file, &key);
        assert_eq!(stamped_key(&engine, Some(dir.path()), &file), Some(key.clone()));
        // A rewrite changes size or mtime: the stamp no longer applies.
        std::thread::sleep(std::time::Duration::from_millis(5));
        std::fs::write(&file, b"two!").unwrap();
        assert_eq!(stamped_key(&engine, Some(dir.path()), &file), None);
        assert_eq!(stamped_key(&engine, None, &file), None, "no cache dir, no stamp");
    }

    #[test]
    fn a_rebuilt_component_leaves_no_stale_compilation_behind() {
        let engine = Engine::default();
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join("a.wasm"), dir.path().join("b.wasm"));
        std::fs::write(&a, b"one").unwrap();
        std::fs::write(&b, b"one").unwrap();
        let one = cache_key(&engine, b"one");
        for f in [dir.path().join(format!("{one}.cwasm")), definition_path(dir.path(), &one)] {
            std::fs::write(f, b"x").unwrap();
        }
        save_stamp(&engine, Some(dir.path()), &a, &one);
        save_stamp(&engine, Some(dir.path()), &b, &one);
        // a is rebuilt: b's stamp still names the old compilation, so it stays.
        std::fs::write(&a, b"two!").unwrap();
        let two = cache_key(&engine, b"two!");
        save_stamp(&engine, Some(dir.path()), &a, &two);
        assert!(dir.path().join(format!("{one}.cwasm")).exists());
        // b is rebuilt too: nothing names it any more.
        std::fs::write(&b, b"two!").unwrap();
        save_stamp(&engine, Some(dir.path()), &b, &two);
        assert!(!dir.path().join(format!("{one}.cwasm")).exists());
        assert!(!definition_path(dir.path(), &one).exists());
    }
}
