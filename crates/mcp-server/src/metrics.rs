//! What `GET /metrics` of `toolhost mcp --listen` reports, in the OpenMetrics text format
//! Prometheus scrapes: calls by tool and outcome, their latency, denials, approvals asked and
//! calls refused because the sandbox is unavailable (`docs/deployment.md#metrics`).
//!
//! One server process is one session, so the figures are the process's ([`metrics`]): every
//! call of every client of it is counted, by whichever transport it came.

use std::sync::OnceLock;
use std::time::Duration;

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::Registry;
use toolhost_core::result::{ErrorCode, ToolResult, ToolResultStatus};

/// The content type of [`Metrics::render`]'s text.
pub const METRICS_CONTENT_TYPE: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

/// The upper bounds of the latency histogram's buckets, seconds: from a cached read (~1 ms)
/// to a long test run (10 min).
const LATENCY_BUCKETS: [f64; 12] =
    [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 5.0, 30.0, 600.0];

/// A call's labels: the tool id and how the call ended.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct CallLabels {
    tool: String,
    outcome: String,
}

/// A tool's label.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ToolLabel {
    tool: String,
}

/// The server's counters and histogram, and the registry that renders them.
pub struct Metrics {
    registry: Registry,
    calls: Family<CallLabels, Counter>,
    latency: Family<ToolLabel, Histogram>,
    denials: Family<ToolLabel, Counter>,
    approvals_asked: Counter,
    sandbox_unavailable: Counter,
}

impl std::fmt::Debug for Metrics {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Metrics").finish_non_exhaustive()
    }
}

impl Default for Metrics {
    fn default() -> Self {
        let mut registry = Registry::with_prefix("toolhost");
        let calls = Family::<CallLabels, Counter>::default();
        registry.register(
            "calls",
            "Tool calls that ended, by tool and outcome (succeeded, failed, denied, cancelled, outcome_unknown)",
            calls.clone(),
        );
        let latency = Family::<ToolLabel, Histogram>::new_with_constructor(
            (|| Histogram::new(LATENCY_BUCKETS)) as fn() -> Histogram,
        );
        registry.register(
            "call_duration_seconds",
            "How long tool calls took, from their turn to their result, by tool",
            latency.clone(),
        );
        let denials = Family::<ToolLabel, Counter>::default();
        registry.register(
            "denials",
            "Calls denied by the policy, the sandbox or the user, by tool",
            denials.clone(),
        );
        let approvals_asked = Counter::default();
        registry.register(
            "approvals_asked",
            "Approvals asked of a client (elicitation or an input-required round)",
            approvals_asked.clone(),
        );
        let sandbox_unavailable = Counter::default();
        registry.register(
            "sandbox_unavailable",
            "Calls refused because the OS sandbox is unavailable",
            sandbox_unavailable.clone(),
        );
        Metrics { registry, calls, latency, denials, approvals_asked, sandbox_unavailable }
    }
}

impl Metrics {
    /// Counts one call of `tool` that ended with `result` after `took`.
    pub fn call_ended(&self, tool: &str, result: &ToolResult, took: Duration) {
        let outcome = outcome_label(result.status);
        self.calls.get_or_create(&CallLabels { tool: tool.into(), outcome: outcome.into() }).inc();
        self.latency.get_or_create(&ToolLabel { tool: tool.into() }).observe(took.as_secs_f64());
        let code = result.error.as_ref().map(|e| e.code);
        if result.status == ToolResultStatus::Denied
            || result.sandbox_denied
            || code == Some(ErrorCode::PermissionDenied)
        {
            self.denials.get_or_create(&ToolLabel { tool: tool.into() }).inc();
        }
        if code == Some(ErrorCode::SandboxUnavailable) {
            self.sandbox_unavailable.inc();
        }
    }

    /// Counts one approval asked of a client.
    pub fn approval_asked(&self) {
        self.approvals_asked.inc();
    }

    /// The figures in the OpenMetrics text format ([`METRICS_CONTENT_TYPE`]).
    pub fn render(&self) -> String {
        let mut out = String::new();
        // Writing into a String cannot fail.
        let _ = prometheus_client::encoding::text::encode(&mut out, &self.registry);
        out
    }
}

/// The `outcome` label of a status: its name in results (`docs/contract.md#results`).
fn outcome_label(status: ToolResultStatus) -> &'static str {
    match status {
        ToolResultStatus::Succeeded => "succeeded",
        ToolResultStatus::Failed => "failed",
        ToolResultStatus::Denied => "denied",
        ToolResultStatus::Cancelled => "cancelled",
        ToolResultStatus::OutcomeUnknown => "outcome_unknown",
    }
}

/// This process's metrics (one server process is one session).
pub fn metrics() -> &'static Metrics {
    static METRICS: OnceLock<Metrics> = OnceLock::new();
    METRICS.get_or_init(Metrics::default)
}

#[cfg(test)]
mod tests {
    use super::*;
    use toolhost_core::result::ToolError;

    #[test]
    fn calls_denials_and_approvals_are_counted_and_rendered() {
        let m = Metrics::default();
        m.call_ended("read", &ToolResult::success("x"), Duration::from_millis(3));
        m.call_ended("read", &ToolResult::success("y"), Duration::from_millis(700));
        let denied = ToolResult::from_error(ToolError::new(ErrorCode::PermissionDenied, "no"));
        m.call_ended("write", &denied, Duration::from_millis(1));
        let off = ToolResult::from_error(ToolError::new(ErrorCode::SandboxUnavailable, "off"));
        m.call_ended("bash", &off, Duration::from_millis(1));
        m.approval_asked();
        let text = m.render();
        assert!(
            text.contains("toolhost_calls_total{tool=\"read\",outcome=\"succeeded\"} 2"),
            "{text}"
        );
        assert!(text.contains("toolhost_denials_total{tool=\"write\"} 1"), "{text}");
        assert!(text.contains("toolhost_approvals_asked_total 1"), "{text}");
        assert!(text.contains("toolhost_sandbox_unavailable_total 1"), "{text}");
        assert!(
            text.contains("toolhost_call_duration_seconds_bucket{le=\"0.005\",tool=\"read\"} 1"),
            "{text}"
        );
        assert!(text.contains("toolhost_call_duration_seconds_count{tool=\"read\"} 2"), "{text}");
        assert!(text.ends_with("# EOF\n"), "{text}");
    }

    #[test]
    fn every_status_has_its_results_name() {
        for status in [
            ToolResultStatus::Succeeded,
            ToolResultStatus::Failed,
            ToolResultStatus::Denied,
            ToolResultStatus::Cancelled,
            ToolResultStatus::OutcomeUnknown,
        ] {
            assert_eq!(serde_json::to_value(status).unwrap(), outcome_label(status));
        }
    }
}
