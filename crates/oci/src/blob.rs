//! One blob downloaded bounded and checked: at most its declared size (itself within a
//! limit) is read, hashed on the way, and refused unless its length and sha256 are those the
//! manifest declared.

use std::io::Write;

use futures_util::StreamExt;
use oci_client::Reference;
use oci_client::manifest::OciDescriptor;
use sha2::Digest;

use crate::error::OciError;
use crate::transport::Transport;

/// Download `descriptor` of `image` into `sink` (a file or a buffer): refused when its
/// declared size is over `limit`, when the registry sends more than it declared, or when
/// what came does not hash to its digest. `what` names it in errors.
pub async fn fetch(
    transport: &Transport,
    client: &oci_client::Client,
    image: &Reference,
    descriptor: &OciDescriptor,
    limit: u64,
    what: &str,
    sink: &mut impl Write,
) -> Result<u64, OciError> {
    let declared = u64::try_from(descriptor.size).unwrap_or(u64::MAX);
    if declared > limit {
        return Err(OciError::TooLarge {
            what: format!("{what} (declared)"),
            size: declared,
            limit,
        });
    }
    let registry = image.registry().to_string();
    let mut stream = client
        .pull_blob_stream(image, descriptor)
        .await
        .map_err(|e| transport.registry_error("downloading a blob", &registry, &e))?
        .stream;
    let mut hasher = sha2::Sha256::new();
    let mut got: u64 = 0;
    let mut failed = None;
    while let Some(chunk) = stream.next().await {
        let chunk = match chunk {
            Ok(c) => c,
            // oci-client's own digest check ends the stream with an error: ours says it below.
            Err(e) => {
                failed = Some(e);
                break;
            }
        };
        got += chunk.len() as u64;
        if got > declared {
            return Err(OciError::TooLarge {
                what: format!("{what} (sent past its declared {declared} bytes)"),
                size: got,
                limit: declared,
            });
        }
        hasher.update(&chunk);
        sink.write_all(&chunk)
            .map_err(|source| OciError::Io { what: format!("writing {what}"), source })?;
    }
    if let Some(e) = failed.take_if(|_| got < declared) {
        return Err(OciError::Io { what: format!("downloading {what}"), source: e });
    }
    let found = format!("sha256:{}", hex::encode(hasher.finalize()));
    if found != descriptor.digest || got != declared {
        return Err(OciError::DigestMismatch {
            what: what.to_string(),
            expected: format!("{} ({declared} bytes)", descriptor.digest),
            found: format!("{found} ({got} bytes)"),
        });
    }
    if let Some(e) = failed {
        return Err(OciError::Io { what: format!("downloading {what}"), source: e });
    }
    Ok(got)
}
