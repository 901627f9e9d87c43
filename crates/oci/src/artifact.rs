//! The wasm component artifact as wkg and wassette lay it out (the CNCF wasm OCI artifact
//! layout): an OCI image manifest whose config is `application/vnd.wasm.config.v0+json` and
//! whose one layer is the component, `application/wasm`. Built for a publish
//! ([`component_artifact`]) and checked on a pull ([`check_component_manifest`]), with
//! `oci-client`'s manifest types.

use oci_client::manifest::{OciDescriptor, OciImageManifest};
use toolhost_limits::{OCI_MAX_COMPONENT_BYTES, OCI_MAX_SMALL_BLOB_BYTES};

use crate::error::OciError;

/// The OCI image manifest media type.
pub const MANIFEST_MEDIA_TYPE: &str = "application/vnd.oci.image.manifest.v1+json";
/// The config media type of a wasm artifact.
pub const WASM_CONFIG_MEDIA_TYPE: &str = "application/vnd.wasm.config.v0+json";
/// The layer media type of a wasm component.
pub const WASM_LAYER_MEDIA_TYPE: &str = "application/wasm";

/// The blobs and manifest of one component artifact, ready to push.
pub struct Artifact {
    /// The config blob.
    pub config: Vec<u8>,
    /// The manifest's bytes (exactly those pushed: their sha256 is the manifest digest).
    pub manifest: Vec<u8>,
    /// `sha256:` of the config.
    pub config_digest: String,
    /// `sha256:` of the component.
    pub layer_digest: String,
}

/// The artifact of `component`, whose config names the WIT interfaces it `exports`.
pub fn component_artifact(component: &[u8], exports: &[String]) -> Artifact {
    let layer_digest = crate::sha256_digest(component);
    let config = serde_json::to_vec(&serde_json::json!({
        "created": chrono::Utc::now().format("%Y-%m-%dT%H:%M:%SZ").to_string(),
        "architecture": "wasm",
        "os": "wasip2",
        "layerDigests": [layer_digest],
        "component": { "exports": exports, "imports": [] },
    }))
    .expect("a config serializes");
    let config_digest = crate::sha256_digest(&config);
    let manifest = serde_json::to_vec(&serde_json::json!({
        "schemaVersion": 2,
        "mediaType": MANIFEST_MEDIA_TYPE,
        "config": { "mediaType": WASM_CONFIG_MEDIA_TYPE, "digest": config_digest, "size": config.len() },
        "layers": [
            { "mediaType": WASM_LAYER_MEDIA_TYPE, "digest": layer_digest, "size": component.len() }
        ],
    }))
    .expect("a manifest serializes");
    Artifact { config, manifest, config_digest, layer_digest }
}

/// `bytes`, the manifest pulled for `reference`, as a component artifact: its config and
/// its one component layer, each with a sha256 digest and a size within the limits.
pub fn check_component_manifest(
    reference: &str,
    bytes: &[u8],
) -> Result<(OciDescriptor, OciDescriptor), OciError> {
    let not = |why: String| OciError::NotAComponent { reference: reference.into(), why };
    let manifest: OciImageManifest = serde_json::from_slice(bytes)
        .map_err(|e| not(format!("its manifest is not an OCI image manifest ({e})")))?;
    if manifest.schema_version != 2 {
        return Err(not(format!("schema version {}", manifest.schema_version)));
    }
    if manifest.media_type.as_deref().is_some_and(|m| m != MANIFEST_MEDIA_TYPE) {
        return Err(not(format!("manifest media type {:?}", manifest.media_type)));
    }
    if manifest.config.media_type != WASM_CONFIG_MEDIA_TYPE {
        return Err(not(format!("config media type {}", manifest.config.media_type)));
    }
    let [layer] = manifest.layers.as_slice() else {
        return Err(not(format!("{} layers", manifest.layers.len())));
    };
    if layer.media_type != WASM_LAYER_MEDIA_TYPE {
        return Err(not(format!("layer media type {}", layer.media_type)));
    }
    for (what, d, limit) in [
        ("config", &manifest.config, OCI_MAX_SMALL_BLOB_BYTES),
        ("component", layer, OCI_MAX_COMPONENT_BYTES),
    ] {
        if !crate::is_sha256_digest(&d.digest) {
            return Err(not(format!("its {what} digest {:?} is not sha256", d.digest)));
        }
        let size =
            u64::try_from(d.size).map_err(|_| not(format!("its {what} size is negative")))?;
        if size > limit {
            return Err(OciError::TooLarge {
                what: format!("the {what} of {reference} (declared)"),
                size,
                limit,
            });
        }
    }
    Ok((manifest.config.clone(), layer.clone()))
}
