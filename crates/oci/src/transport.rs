//! [`Transport`]: how a registry is reached. HTTPS always, but for a loopback registry
//! (`localhost`, `127.0.0.0/8`, `::1`), which is spoken to in plain HTTP, or any registry when
//! the user passed `--insecure-http`. TLS is rustls with `ring`'s cryptography
//! ([`install_crypto_provider`]) and the system's root certificates. Connect and read timeouts on every request; the whole
//! transfer is bounded by [`Transport::bounded`].

use std::future::Future;
use std::net::IpAddr;
use std::time::Duration;

use oci_client::client::{ClientConfig, ClientProtocol};
use toolhost_limits::{OCI_CONNECT_TIMEOUT_MS, OCI_READ_TIMEOUT_MS, OCI_TRANSFER_TIMEOUT_MS};

use crate::error::{HTTPS_HINT, OciError};

/// How registries are reached.
#[derive(Debug, Clone, Copy, Default)]
pub struct Transport {
    /// Plain HTTP to any registry (`--insecure-http`), not only loopback ones.
    pub insecure_http: bool,
}

impl Transport {
    /// Whether `registry` (`HOST[:PORT]`) is spoken to in plain HTTP.
    pub fn plain_http(&self, registry: &str) -> bool {
        self.insecure_http || is_loopback(registry)
    }

    /// A client for `registry`.
    pub fn client(&self, registry: &str) -> oci_client::Client {
        install_crypto_provider();
        let protocol =
            if self.plain_http(registry) { ClientProtocol::Http } else { ClientProtocol::Https };
        oci_client::Client::new(ClientConfig {
            protocol,
            connect_timeout: Some(Duration::from_millis(OCI_CONNECT_TIMEOUT_MS)),
            read_timeout: Some(Duration::from_millis(OCI_READ_TIMEOUT_MS)),
            // An index (a multi-platform list) is not a tool artifact: refused, not resolved.
            platform_resolver: None,
            ..Default::default()
        })
    }

    /// `work` bounded by [`OCI_TRANSFER_TIMEOUT_MS`].
    pub async fn bounded<T>(
        &self,
        what: &'static str,
        registry: &str,
        work: impl Future<Output = Result<T, OciError>>,
    ) -> Result<T, OciError> {
        match tokio::time::timeout(Duration::from_millis(OCI_TRANSFER_TIMEOUT_MS), work).await {
            Ok(result) => result,
            Err(_) => Err(OciError::Timeout {
                what,
                registry: registry.into(),
                secs: OCI_TRANSFER_TIMEOUT_MS / 1000,
            }),
        }
    }

    /// `error` of a request to `registry` as an [`OciError`], with the HTTPS hint when the
    /// request went out in HTTPS and failed below HTTP.
    pub fn registry_error(
        &self,
        what: &'static str,
        registry: &str,
        error: &oci_client::errors::OciDistributionError,
    ) -> OciError {
        use oci_client::errors::OciDistributionError as E;
        let below_http = matches!(error, E::RequestError(_) | E::IoError(_));
        let hint = if below_http && !self.plain_http(registry) { HTTPS_HINT } else { "" };
        OciError::Registry { what, registry: registry.into(), message: error_chain(error), hint }
    }
}

/// Makes `ring` the process's rustls crypto provider, once, before the first client is built:
/// reqwest is built without a provider of its own (no aws-lc C build) and panics when it
/// finds none. A provider installed earlier by someone else is kept.
pub fn install_crypto_provider() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        // Deprecated only because ring's provider lacks post-quantum key exchange
        // (X25519MLKEM768); its ECDHE groups, suites and signature checks are rustls' defaults.
        // Err only when a provider is already installed, which then serves.
        #[allow(deprecated)]
        let _ = rustls::crypto::ring::default_provider().install_default();
    });
}

/// `error` and its sources, one line.
fn error_chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(e) = source {
        let more = e.to_string();
        if !text.contains(&more) {
            text.push_str(": ");
            text.push_str(&more);
        }
        source = e.source();
    }
    text
}

/// Whether `registry` (`HOST[:PORT]`, `[V6]:PORT`) names this machine by a loopback name or
/// address. A name that merely resolves to loopback is not taken as one.
pub fn is_loopback(registry: &str) -> bool {
    let host = match registry.strip_prefix('[') {
        Some(rest) => rest.split(']').next().unwrap_or(""),
        None => registry.rsplit_once(':').map_or(registry, |(h, _)| h),
    };
    if host.eq_ignore_ascii_case("localhost") {
        return true;
    }
    host.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_loopback_registries_are_plain_http() {
        for yes in ["localhost:5000", "127.0.0.1:5000", "127.1.2.3", "[::1]:5000", "LOCALHOST"] {
            assert!(is_loopback(yes), "{yes}");
        }
        for no in ["ghcr.io", "10.0.0.1:5000", "localhost.example.com:5000", "[::ffff:127.0.0.1]:1"]
        {
            assert!(!is_loopback(no), "{no}");
        }
        assert!(Transport { insecure_http: true }.plain_http("ghcr.io"));
    }
}
