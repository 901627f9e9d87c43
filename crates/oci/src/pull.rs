//! [`pull`]: an `oci://` reference resolved once to a manifest digest, that digest pulled and
//! checked, its signatures verified, its component downloaded into a temp file.

use std::path::PathBuf;

use oci_client::Reference;
use oci_client::errors::{OciDistributionError, OciErrorCode};
use oci_client::manifest::OciImageManifest;
use oci_client::secrets::RegistryAuth;
use toolhost_limits::{
    OCI_MAX_COMPONENT_BYTES, OCI_MAX_MANIFEST_BYTES, OCI_MAX_SIGNATURES, OCI_MAX_SMALL_BLOB_BYTES,
};

use crate::artifact::{MANIFEST_MEDIA_TYPE, check_component_manifest};
use crate::error::OciError;
use crate::reference::OciReference;
use crate::signature::{PublicKey, SIGNATURE_ANNOTATION, SIMPLE_SIGNING_MEDIA_TYPE, signature_tag};
use crate::transport::Transport;

/// What a pull needs besides the reference.
pub struct PullOptions {
    /// How the registry is reached.
    pub transport: Transport,
    /// Keys each of which must have signed the manifest (none: signatures are not looked at).
    pub keys: Vec<PublicKey>,
    /// Where the component's temp file is made.
    pub temp_dir: PathBuf,
}

/// A pulled component, checked against every digest on the way.
pub struct Pulled {
    /// The component's bytes, in a temp file removed on drop.
    pub file: tempfile::NamedTempFile,
    /// The manifest digest the reference resolved to (`sha256:<hex>`).
    pub manifest_digest: String,
    /// The component layer's digest (`sha256:<hex>`).
    pub layer_digest: String,
    /// The keys whose signature of the manifest digest verified.
    pub signed_by: Vec<String>,
}

/// Pull `reference`: resolve it once, then fetch and check that digest (module docs of
/// [`crate`]). Bounded in size and time; nothing is left behind on an error.
pub async fn pull(reference: &OciReference, options: &PullOptions) -> Result<Pulled, OciError> {
    let registry = reference.registry().to_string();
    options.transport.bounded("the download", &registry, pull_unbounded(reference, options)).await
}

async fn pull_unbounded(
    reference: &OciReference,
    options: &PullOptions,
) -> Result<Pulled, OciError> {
    let transport = &options.transport;
    let registry = reference.registry();
    let client = transport.client(registry);
    let auth = crate::credentials::for_registry(registry)?;
    let digest = match (reference.digest(), reference.tag()) {
        (Some(d), _) => d.to_string(),
        (None, tag) => {
            let tagged = reference.at_tag(tag.unwrap_or("latest"));
            let d = client.fetch_manifest_digest(&tagged, &auth).await.map_err(|e| {
                if not_found(&e) {
                    OciError::NotFound { reference: reference.to_string(), what: "tag" }
                } else {
                    transport.registry_error("resolving the tag", registry, &e)
                }
            })?;
            if !crate::is_sha256_digest(&d) {
                return Err(OciError::NotAComponent {
                    reference: reference.to_string(),
                    why: format!("its tag resolves to {d:?}, not a sha256 digest"),
                });
            }
            d
        }
    };
    // From here on only the digest is used: a tag moved meanwhile changes nothing.
    let pinned = reference.at_digest(&digest);
    let what = format!("the manifest of {reference}");
    let manifest = manifest_at(transport, &client, &auth, &pinned, &what).await?;
    let (config, layer) = check_component_manifest(reference.as_str(), &manifest)?;
    let mut signed_by = Vec::new();
    for key in &options.keys {
        verify_signed(transport, &client, &auth, reference, &digest, key).await?;
        signed_by.push(key.path.clone());
    }
    let mut config_bytes = Vec::new();
    let what = format!("the config of {reference}");
    crate::blob::fetch(
        transport,
        &client,
        &pinned,
        &config,
        OCI_MAX_SMALL_BLOB_BYTES,
        &what,
        &mut config_bytes,
    )
    .await?;
    if serde_json::from_slice::<serde_json::Map<String, serde_json::Value>>(&config_bytes).is_err()
    {
        return Err(OciError::NotAComponent {
            reference: reference.to_string(),
            why: "its config is not a JSON object".into(),
        });
    }
    let mut file = tempfile::Builder::new()
        .prefix(".oci-")
        .suffix(".wasm")
        .tempfile_in(&options.temp_dir)
        .map_err(|source| OciError::Io { what: "creating a temp file".into(), source })?;
    let what = format!("the component of {reference}");
    crate::blob::fetch(
        transport,
        &client,
        &pinned,
        &layer,
        OCI_MAX_COMPONENT_BYTES,
        &what,
        file.as_file_mut(),
    )
    .await?;
    Ok(Pulled { file, manifest_digest: digest, layer_digest: layer.digest, signed_by })
}

/// The manifest at `image` (a digest reference), its bytes checked against that digest and
/// bounded by [`OCI_MAX_MANIFEST_BYTES`].
async fn manifest_at(
    transport: &Transport,
    client: &oci_client::Client,
    auth: &RegistryAuth,
    image: &Reference,
    what: &str,
) -> Result<Vec<u8>, OciError> {
    let (bytes, _) =
        client.pull_manifest_raw(image, auth, &[MANIFEST_MEDIA_TYPE]).await.map_err(|e| {
            match not_found(&e) {
                true => OciError::NotFound { reference: what.to_string(), what: "manifest" },
                false => transport.registry_error("fetching the manifest", image.registry(), &e),
            }
        })?;
    check_manifest_bytes(&bytes, image.digest(), what)?;
    Ok(bytes.to_vec())
}

fn check_manifest_bytes(bytes: &[u8], digest: Option<&str>, what: &str) -> Result<(), OciError> {
    if bytes.len() as u64 > OCI_MAX_MANIFEST_BYTES {
        return Err(OciError::TooLarge {
            what: what.to_string(),
            size: bytes.len() as u64,
            limit: OCI_MAX_MANIFEST_BYTES,
        });
    }
    let found = crate::sha256_digest(bytes);
    match digest {
        Some(expected) if expected != found => Err(OciError::DigestMismatch {
            what: what.to_string(),
            expected: expected.into(),
            found,
        }),
        _ => Ok(()),
    }
}

/// Whether `key` signed `digest` of `reference`, in cosign's tag scheme: some payload layer
/// under `sha256-<hex>.sig` whose signature `key` verifies and which names `digest`.
async fn verify_signed(
    transport: &Transport,
    client: &oci_client::Client,
    auth: &RegistryAuth,
    reference: &OciReference,
    digest: &str,
    key: &PublicKey,
) -> Result<(), OciError> {
    let tag = signature_tag(digest);
    let image = reference.at_tag(&tag);
    let bad = |why: String| OciError::BadSignature {
        reference: reference.to_string(),
        digest: digest.into(),
        key: key.path.clone(),
        why,
    };
    let bytes = match client.pull_manifest_raw(&image, auth, &[MANIFEST_MEDIA_TYPE]).await {
        Ok((bytes, _)) => bytes,
        Err(e) if not_found(&e) => {
            return Err(OciError::Unsigned {
                reference: reference.to_string(),
                digest: digest.into(),
                tag,
                keys: key.path.clone(),
            });
        }
        Err(e) => {
            return Err(transport.registry_error(
                "fetching the signature",
                reference.registry(),
                &e,
            ));
        }
    };
    check_manifest_bytes(&bytes, None, &format!("the signature manifest of {reference}"))?;
    let manifest: OciImageManifest = serde_json::from_slice(&bytes)
        .map_err(|e| bad(format!("the signature manifest is not an OCI image manifest ({e})")))?;
    let pinned = reference.at_digest(digest);
    let mut reasons = Vec::new();
    let layers = manifest.layers.iter().filter(|l| l.media_type == SIMPLE_SIGNING_MEDIA_TYPE);
    for layer in layers.take(OCI_MAX_SIGNATURES) {
        let Some(sig) = layer.annotations.as_ref().and_then(|a| a.get(SIGNATURE_ANNOTATION)) else {
            continue;
        };
        let mut payload = Vec::new();
        let what = format!("a signature payload of {reference}");
        crate::blob::fetch(
            transport,
            client,
            &pinned,
            layer,
            OCI_MAX_SMALL_BLOB_BYTES,
            &what,
            &mut payload,
        )
        .await?;
        match key.verify(&payload, sig, digest) {
            Ok(()) => return Ok(()),
            Err(why) => reasons.push(why),
        }
    }
    if reasons.is_empty() {
        reasons.push(format!("the tag {tag} holds no cosign signature layer"));
    }
    reasons.dedup();
    Err(bad(reasons.join("; ")))
}

fn not_found(e: &OciDistributionError) -> bool {
    match e {
        OciDistributionError::ImageManifestNotFoundError(_) => true,
        OciDistributionError::RegistryError { envelope, .. } => envelope
            .errors
            .iter()
            .any(|x| matches!(x.code, OciErrorCode::ManifestUnknown | OciErrorCode::NotFound)),
        OciDistributionError::ServerError { code, .. } => *code == 404,
        _ => false,
    }
}
