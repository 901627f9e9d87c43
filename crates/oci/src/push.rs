//! [`publish`]: a component pushed as a wasm artifact under a tag, and, with a key, its
//! cosign signature under `sha256-<hex>.sig`.

use oci_client::{Reference, RegistryOperation};

use crate::artifact::{MANIFEST_MEDIA_TYPE, component_artifact};
use crate::error::OciError;
use crate::reference::OciReference;
use crate::signature::{
    SIGNATURE_ANNOTATION, SIMPLE_SIGNING_MEDIA_TYPE, SigningKey, payload, signature_tag,
};
use crate::transport::Transport;

/// What a publish pushed.
pub struct Published {
    /// The manifest digest (what `tool add …@DIGEST` pins).
    pub manifest_digest: String,
    /// The signature's tag, when signed.
    pub signature_tag: Option<String>,
}

/// Push `component` to `reference` (which must name a tag), signed by `key` when given.
pub async fn publish(
    component: &[u8],
    exports: &[String],
    reference: &OciReference,
    transport: &Transport,
    key: Option<&SigningKey>,
) -> Result<Published, OciError> {
    let Some(tag) = reference.tag() else {
        return Err(OciError::Reference {
            text: reference.to_string(),
            why: "a publish needs a tag to push to, not a digest".into(),
        });
    };
    let registry = reference.registry();
    let work = async {
        let client = transport.client(registry);
        let auth = crate::credentials::for_registry(registry)?;
        let image = reference.at_tag(tag);
        client
            .auth(&image, &auth, RegistryOperation::Push)
            .await
            .map_err(|e| transport.registry_error("signing in", registry, &e))?;
        let artifact = component_artifact(component, exports);
        push_blob(transport, &client, &image, artifact.config.clone(), &artifact.config_digest)
            .await?;
        push_blob(transport, &client, &image, component.to_vec(), &artifact.layer_digest).await?;
        push_manifest(transport, &client, &image, artifact.manifest.clone()).await?;
        let digest = crate::sha256_digest(&artifact.manifest);
        let signature_tag = match key {
            Some(key) => Some(sign(transport, &client, reference, &digest, key).await?),
            None => None,
        };
        Ok(Published { manifest_digest: digest, signature_tag })
    };
    transport.bounded("the upload", registry, work).await
}

/// Push the cosign signature of `digest` by `key`; its tag.
async fn sign(
    transport: &Transport,
    client: &oci_client::Client,
    reference: &OciReference,
    digest: &str,
    key: &SigningKey,
) -> Result<String, OciError> {
    let tag = signature_tag(digest);
    let image = reference.at_tag(&tag);
    let body = payload(&reference.repository_path(), digest);
    let signature = key.sign(&body)?;
    let body_digest = crate::sha256_digest(&body);
    // The config cosign writes for a signature image: no platform, one layer.
    let config = serde_json::to_vec(&serde_json::json!({
        "architecture": "", "os": "", "config": {},
        "created": "0001-01-01T00:00:00Z",
        "rootfs": { "type": "layers", "diff_ids": [body_digest] },
    }))
    .expect("a config serializes");
    let config_digest = crate::sha256_digest(&config);
    let manifest = serde_json::to_vec(&serde_json::json!({
        "schemaVersion": 2,
        "mediaType": MANIFEST_MEDIA_TYPE,
        "config": {
            "mediaType": "application/vnd.oci.image.config.v1+json",
            "digest": config_digest, "size": config.len(),
        },
        "layers": [{
            "mediaType": SIMPLE_SIGNING_MEDIA_TYPE,
            "digest": body_digest, "size": body.len(),
            "annotations": { SIGNATURE_ANNOTATION: signature },
        }],
    }))
    .expect("a manifest serializes");
    push_blob(transport, client, &image, config, &config_digest).await?;
    push_blob(transport, client, &image, body, &body_digest).await?;
    push_manifest(transport, client, &image, manifest).await?;
    Ok(tag)
}

async fn push_blob(
    transport: &Transport,
    client: &oci_client::Client,
    image: &Reference,
    bytes: Vec<u8>,
    digest: &str,
) -> Result<(), OciError> {
    client
        .push_blob(image, bytes, digest)
        .await
        .map(drop)
        .map_err(|e| transport.registry_error("uploading a blob", image.registry(), &e))
}

async fn push_manifest(
    transport: &Transport,
    client: &oci_client::Client,
    image: &Reference,
    manifest: Vec<u8>,
) -> Result<(), OciError> {
    let content_type = MANIFEST_MEDIA_TYPE.parse().expect("a valid header value");
    client
        .push_manifest_raw(image, manifest, content_type)
        .await
        .map(drop)
        .map_err(|e| transport.registry_error("uploading the manifest", image.registry(), &e))
}
