//! Where each check is explained: every `fail` and `warn` names the section of
//! `docs/authoring.md` that says what the check wants and how to meet it, and the error codes
//! a report names are spelled the WIT's way (`invalid-arguments`), as the author writes them.

use toolhost_core::result::{ErrorCode, ToolResult};

/// The page every hint links.
pub(crate) const GUIDE: &str = "docs/authoring.md";

/// The section of [`GUIDE`] (its anchor) that explains the check `name`.
pub(crate) fn section(name: &str) -> &'static str {
    match name.split('.').next().unwrap_or("") {
        "static" if name == "static.imports" => "imports-the-host-links",
        "static" => "what-the-host-refuses",
        "describe" => "the-definition-describe",
        "inputs" if name == "inputs.invalid-refused" => "the-input",
        "inputs" if name == "inputs.bounded" || name == "inputs.answers" => {
            "time-cancellation-and-progress"
        }
        "inputs" => "errors",
        "outputs" => "structured-results",
        "bounds" => "limits",
        "deadline" => "time-cancellation-and-progress",
        "capabilities" => "risk-what-a-tool-may-do",
        "isolation" => "wasi-a-language-runtime-imports",
        _ => "checking-a-tool-toolhost-conformance",
    }
}

/// `message`, ending with where the check `name` is explained (unless it names the page
/// already).
pub(crate) fn linked(name: &str, message: String) -> String {
    if message.contains(GUIDE) {
        return message;
    }
    format!("{message}; see {GUIDE}#{}", section(name))
}

/// An error code as the WIT spells it (`invalid-arguments`), the name an author writes.
pub(crate) fn wit_code(code: ErrorCode) -> String {
    serde_json::to_value(code)
        .ok()
        .and_then(|v| v.as_str().map(|s| s.replace('_', "-")))
        .unwrap_or_else(|| format!("{code:?}"))
}

/// How a call ended, for a report: `succeeded`, or the error's WIT code.
pub(crate) fn outcome(result: &ToolResult) -> String {
    match &result.error {
        Some(e) => wit_code(e.code),
        None => serde_json::to_value(result.status)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_else(|| format!("{:?}", result.status)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The anchors of every heading of `docs/authoring.md`, as a Markdown renderer makes them.
    fn anchors() -> Vec<String> {
        include_str!("../../../../docs/authoring.md")
            .lines()
            .filter(|l| l.starts_with('#'))
            .map(|l| {
                l.trim_start_matches('#')
                    .trim()
                    .to_lowercase()
                    .chars()
                    .filter(|c| c.is_alphanumeric() || *c == ' ' || *c == '-' || *c == '_')
                    .map(|c| if c == ' ' { '-' } else { c })
                    .collect()
            })
            .collect()
    }

    #[test]
    fn every_check_links_a_section_that_exists() {
        let anchors = anchors();
        for name in [
            "static.component",
            "static.contract",
            "static.imports",
            "static.exports",
            "describe.returns",
            "describe.property-descriptions",
            "inputs.no-trap",
            "inputs.invalid-refused",
            "inputs.bounded",
            "inputs.answers",
            "outputs.structured",
            "bounds.result-size",
            "bounds.memory",
            "deadline.deadline",
            "deadline.cancel",
            "capabilities.grant",
            "isolation.ambient",
            "unknown.check",
        ] {
            let section = section(name);
            assert!(anchors.iter().any(|a| a == section), "{name}: no heading #{section}");
        }
    }

    #[test]
    fn codes_are_named_the_wit_way() {
        assert_eq!(wit_code(ErrorCode::InvalidArguments), "invalid-arguments");
        assert_eq!(wit_code(ErrorCode::ExecutionFailed), "execution-failed");
        assert_eq!(linked("bounds.memory", "x".into()), "x; see docs/authoring.md#limits");
        assert_eq!(
            linked("static.imports", "see docs/authoring.md#a".into()),
            "see docs/authoring.md#a"
        );
    }
}
