//! [`OciReference`]: `oci://HOST[:PORT]/REPOSITORY:TAG` or `…@sha256:HEX`, the registry
//! always written out (no implicit Docker Hub), parsed with the distribution grammar of
//! `oci-spec` (through `oci-client`).

use oci_client::Reference;

use crate::error::OciError;

/// The scheme that marks a registry reference on the command line.
pub const SCHEME: &str = "oci://";

/// A parsed `oci://` reference.
#[derive(Debug, Clone)]
pub struct OciReference {
    inner: Reference,
    text: String,
}

impl OciReference {
    /// Parse `text` (with its `oci://`).
    pub fn parse(text: &str) -> Result<Self, OciError> {
        let bad = |why: &str| OciError::Reference { text: text.into(), why: why.into() };
        let rest = text.strip_prefix(SCHEME).ok_or_else(|| bad("it does not start with oci://"))?;
        let inner = Reference::try_from(rest).map_err(|e| bad(&e.to_string()))?;
        if !rest.starts_with(&format!("{}/", inner.registry())) {
            return Err(bad("the registry HOST[:PORT] must be written out"));
        }
        let after_repo = &rest[inner.registry().len() + 1 + inner.repository().len()..];
        if after_repo.is_empty() {
            return Err(bad("it names neither a tag nor a digest"));
        }
        if let Some(digest) = inner.digest()
            && !crate::is_sha256_digest(digest)
        {
            return Err(bad("only sha256 digests (64 lowercase hex digits) are accepted"));
        }
        Ok(OciReference { inner, text: text.into() })
    }

    /// `HOST[:PORT]`.
    pub fn registry(&self) -> &str {
        self.inner.registry()
    }

    /// The repository path.
    pub fn repository(&self) -> &str {
        self.inner.repository()
    }

    /// The tag, when the reference names one and no digest.
    pub fn tag(&self) -> Option<&str> {
        if self.inner.digest().is_some() { None } else { self.inner.tag() }
    }

    /// The digest the reference names, if it does.
    pub fn digest(&self) -> Option<&str> {
        self.inner.digest()
    }

    /// `HOST[:PORT]/REPOSITORY` (what policy.json keys and cosign's payload name).
    pub fn repository_path(&self) -> String {
        format!("{}/{}", self.registry(), self.repository())
    }

    /// This repository at `digest`.
    pub fn at_digest(&self, digest: &str) -> Reference {
        Reference::with_digest(self.registry().into(), self.repository().into(), digest.into())
    }

    /// This repository at `tag`.
    pub fn at_tag(&self, tag: &str) -> Reference {
        Reference::with_tag(self.registry().into(), self.repository().into(), tag.into())
    }

    /// The reference as written.
    pub fn as_str(&self) -> &str {
        &self.text
    }
}

impl std::fmt::Display for OciReference {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_digests_and_ports_parse() {
        let r = OciReference::parse("oci://127.0.0.1:5000/tools/greet:1.0").unwrap();
        assert_eq!(
            (r.registry(), r.repository(), r.tag()),
            ("127.0.0.1:5000", "tools/greet", Some("1.0"))
        );
        let d = format!("sha256:{}", "a".repeat(64));
        let r = OciReference::parse(&format!("oci://ghcr.io/acme/greet@{d}")).unwrap();
        assert_eq!((r.digest(), r.tag()), (Some(d.as_str()), None));
    }

    #[test]
    fn implicit_registries_missing_tags_and_other_digests_are_refused() {
        for bad in [
            "greet:1.0",
            "oci://acme/greet:1.0",
            "oci://ghcr.io/acme/greet",
            "oci://ghcr.io/acme/greet@sha512:00",
            "oci://ghcr.io/Acme/greet:1",
        ] {
            assert!(OciReference::parse(bad).is_err(), "{bad} was accepted");
        }
    }
}
